/**
 * The scanning machines with their effects and environment actions supplied (`machine.provide`), one hook per screen.
 * Effects come from `<ScanEffectsProvider>`; `navigate` is wouter's; `notify` is the app's toast queue; `saveFile` is
 * the browser download (or a test's recorder). Each promise actor passes the actor's signal on, so leaving a state
 * cancels its request.
 */
import { useMemo } from "react"
import { useLocation } from "wouter"
import { fromPromise } from "xstate"
import type { ScanId } from "../../contracts/ids.ts"
import type { EffectCall, NavigateParams, NotifyParams } from "../../machines/auth-effects.ts"
import { accountDetailsMachine } from "../../machines/account-details.machine.ts"
import { addAccountMachine } from "../../machines/add-account.machine.ts"
import { dashboardAccountsMachine } from "../../machines/dashboard-accounts.machine.ts"
import { findingDetailMachine } from "../../machines/finding-detail.machine.ts"
import { findingsListMachine } from "../../machines/findings-list.machine.ts"
import { launchScanMachine, type LaunchOptions } from "../../machines/launch-scan.machine.ts"
import { remediationMachine } from "../../machines/remediation.machine.ts"
import { remediationHistoryMachine } from "../../machines/remediation-history.machine.ts"
import { accountPostureMachine } from "../../machines/account-posture.machine.ts"
import { muteRuleFormMachine } from "../../machines/mute-rule-form.machine.ts"
import type { MuteRulePayload, MuteRuleResponse } from "../../contracts/posture.ts"
import { postureOverviewMachine } from "../../machines/posture-overview.machine.ts"
import { resourceHistoryMachine } from "../../machines/resource-history.machine.ts"
import {
  allAccounts,
  loadAccountsOverview,
  loadScanPages,
  loadSeverityBreakdown,
  type AccountsOverview,
  type ExportedFile,
  type ScanEffects,
  type SeverityBreakdown,
} from "../../machines/scan-effects.ts"
import { scanDetailMachine } from "../../machines/scan-detail.machine.ts"
import { scanListMachine, type ScanPagesRequest } from "../../machines/scan-list.machine.ts"
import { useScanEnvironment } from "./scan-effects-context.tsx"
import type { OrganizationEffects } from "../../machines/organization-effects.ts"
import { useOrganizationEnvironment } from "../organizations/organization-effects-context.tsx"
import { effectActor, useNotifyAction } from "../screen-actors.ts"

/** The same for a call that takes no payload. */
const plainActor = <A>(call: EffectCall<void, A>) => fromPromise<A, void>(({ signal }) => call(undefined, signal))

interface Environment {
  readonly effects: ScanEffects
  /** The organisation calls the add-account wizard makes (issue 31: the AWS member role's template). */
  readonly organizations: OrganizationEffects
  readonly notify: (_: unknown, params: NotifyParams) => void
  readonly navigate: (_: unknown, params: NavigateParams) => void
  readonly saveFile: (_: unknown, file: ExportedFile) => void
}

function useEnvironment(): Environment {
  const { effects, saveFile } = useScanEnvironment()
  const organizations = useOrganizationEnvironment().effects
  const notify = useNotifyAction()
  const [, setLocation] = useLocation()
  return useMemo(
    () => ({
      effects,
      organizations,
      notify,
      navigate: (_: unknown, { to, replace, state }: NavigateParams) =>
        setLocation(to, { ...(replace === undefined ? {} : { replace }), ...(state === undefined ? {} : { state }) }),
      saveFile: (_: unknown, file: ExportedFile) => saveFile(file),
    }),
    [effects, organizations, saveFile, notify, setLocation],
  )
}

/** Actor options carrying the environment's clock (when one was given): spread them into `useActorRef`'s options. */
export function useScanActorOptions(): { readonly clock?: NonNullable<ReturnType<typeof useScanEnvironment>["clock"]> } {
  const { clock } = useScanEnvironment()
  return useMemo(() => (clock === undefined ? {} : { clock }), [clock])
}

/** The mute-rule dialog (a finding's Mute, the account page's Add / Edit): POST a new rule, PUT an edited one. */
const muteRuleFormLogic = (env: Environment) =>
  muteRuleFormMachine.provide({
    actors: {
      saveMuteRule: fromPromise<MuteRuleResponse, { readonly id: number | null; readonly payload: MuteRulePayload }>(({ input, signal }) =>
        input.id === null ? env.effects.createMuteRule(input.payload, signal) : env.effects.updateMuteRule({ id: input.id, payload: input.payload }, signal)),
    },
    actions: { notify: env.notify },
  })

const launchLogic = (env: Environment) =>
  launchScanMachine.provide({
    actors: {
      loadLaunchOptions: fromPromise<LaunchOptions, void>(async ({ signal }) => {
        const [viewer, overview] = await Promise.all([env.effects.loadViewer(undefined, signal), loadAccountsOverview(env.effects, signal)])
        return { viewer, providers: overview.providers, accounts: allAccounts(overview) }
      }),
      startScan: effectActor(env.effects.startScan),
    },
    actions: { notify: env.notify },
  })

const addAccountLogic = (env: Environment) =>
  addAccountMachine.provide({
    actors: {
      loadProviders: plainActor(env.effects.loadProviders),
      loadExternalId: plainActor(env.effects.loadExternalId),
      addAccount: effectActor(env.effects.addAccount),
      loadAwsTemplate: effectActor(env.organizations.loadAwsTemplate),
    },
    actions: { notify: env.notify },
  })

export function useDashboardAccountsLogic() {
  const env = useEnvironment()
  return useMemo(
    () =>
      dashboardAccountsMachine.provide({
        actors: {
          loadOverview: fromPromise<AccountsOverview, void>(({ signal }) => loadAccountsOverview(env.effects, signal)),
          deleteAccount: effectActor(env.effects.deleteAccount),
          addAccount: addAccountLogic(env),
          launchScan: launchLogic(env),
        },
        actions: {
          notify: env.notify,
          navigate: env.navigate,
          prefetchAccount: (_, { accountId }) => env.effects.prefetchAccountDetail(accountId),
        },
      }),
    [env],
  )
}

export function useAccountDetailsLogic() {
  const env = useEnvironment()
  return useMemo(
    () =>
      accountDetailsMachine.provide({
        actors: {
          loadAccountDetail: effectActor(env.effects.loadAccountDetail),
          refreshAccountDetail: effectActor(env.effects.refreshAccountDetail),
          revealSecret: effectActor(env.effects.revealSecret),
          deleteAccount: effectActor(env.effects.deleteAccount),
          launchScan: launchLogic(env),
        },
        actions: { notify: env.notify, navigate: env.navigate },
      }),
    [env],
  )
}

export function useScanListLogic() {
  const env = useEnvironment()
  return useMemo(
    () =>
      scanListMachine.provide({
        actors: {
          loadScans: fromPromise<Awaited<ReturnType<ScanEffects["listScans"]>>, ScanPagesRequest>(({ input, signal }) =>
            loadScanPages(env.effects.listScans, input.pages, input.pageSize, signal),
          ),
          loadScansPage: effectActor(env.effects.listScans),
          cancelScan: effectActor(env.effects.cancelScan),
          launchScan: launchLogic(env),
        },
        actions: { notify: env.notify, navigate: env.navigate },
      }),
    [env],
  )
}

export function useScanDetailLogic() {
  const env = useEnvironment()
  return useMemo(
    () =>
      scanDetailMachine.provide({
        actors: {
          getScan: effectActor(env.effects.getScan),
          exportFindings: effectActor(env.effects.exportFindings),
          loadBreakdown: fromPromise<SeverityBreakdown, { readonly scanId: ScanId }>(({ input, signal }) =>
            loadSeverityBreakdown(env.effects.listFindings, input.scanId, signal),
          ),
        },
        actions: { notify: env.notify, navigate: env.navigate, saveFile: env.saveFile },
      }),
    [env],
  )
}

export function useFindingsListLogic() {
  const env = useEnvironment()
  return useMemo(
    () =>
      findingsListMachine.provide({
        actors: {
          getScan: effectActor(env.effects.getScan),
          listFindings: effectActor(env.effects.listFindings),
          exportFindings: effectActor(env.effects.exportFindings),
        },
        actions: { notify: env.notify, navigate: env.navigate, saveFile: env.saveFile },
      }),
    [env],
  )
}

export function useFindingDetailLogic() {
  const env = useEnvironment()
  return useMemo(
    () =>
      findingDetailMachine.provide({
        actors: {
          getFinding: effectActor(env.effects.getFinding),
          loadViewer: plainActor(env.effects.loadViewer),
          remediation: remediationMachine.provide({
            actors: { remediate: effectActor(env.effects.remediate), previewRemediation: effectActor(env.effects.previewRemediation) },
            actions: { notify: env.notify },
          }),
          muteRule: muteRuleFormLogic(env),
          remediationHistory: remediationHistoryMachine.provide({
            actors: { listRemediations: effectActor(env.effects.listRemediations), undoRemediation: effectActor(env.effects.undoRemediation) },
            actions: { notify: env.notify },
          }),
        },
        actions: { notify: env.notify, navigate: env.navigate },
      }),
    [env],
  )
}

/** The account page's schedule and mute rules (issue 13). */
export function useAccountPostureLogic() {
  const env = useEnvironment()
  return useMemo(
    () =>
      accountPostureMachine.provide({
        actors: {
          getSchedule: effectActor(env.effects.getSchedule),
          putSchedule: effectActor(env.effects.putSchedule),
          listMuteRules: effectActor(env.effects.listMuteRules),
          deleteMuteRule: effectActor(env.effects.deleteMuteRule),
          loadViewer: plainActor(env.effects.loadViewer),
          muteRuleForm: muteRuleFormLogic(env),
        },
        actions: { notify: env.notify },
      }),
    [env],
  )
}

/** The dashboard's posture section (issue 13). */
export function usePostureOverviewLogic() {
  const env = useEnvironment()
  return useMemo(
    () => postureOverviewMachine.provide({ actors: { loadOverview: plainActor(env.effects.loadPostureOverview) }, actions: { notify: env.notify } }),
    [env],
  )
}

/** The resource page (issue 13). */
export function useResourceHistoryLogic() {
  const env = useEnvironment()
  return useMemo(() => resourceHistoryMachine.provide({ actors: { loadResourceHistory: effectActor(env.effects.loadResourceHistory) } }), [env])
}
