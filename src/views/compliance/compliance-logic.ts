/**
 * The Compliance machines with their effects and environment actions supplied (`machine.provide`), one hook per screen.
 * Effects come from `<ComplianceEffectsProvider>`; `navigate` is wouter's; `notify` the app's toast queue; `saveFile`
 * the browser download. Each promise actor passes the actor's signal on, so leaving a state cancels its request.
 */
import { useMemo } from "react"
import { useLocation } from "wouter"
import { fromPromise } from "xstate"
import type { NavigateParams } from "../../machines/auth-effects.ts"
import type { DownloadedFile } from "../../machines/compliance-effects.ts"
import { complianceFrameworkMachine } from "../../machines/compliance-framework.machine.ts"
import { complianceOverviewMachine } from "../../machines/compliance-overview.machine.ts"
import { complianceRequirementMachine } from "../../machines/compliance-requirement.machine.ts"
import { useComplianceEnvironment } from "./compliance-effects-context.tsx"
import { effectActor, useNotifyAction } from "../screen-actors.ts"

function useActions() {
  const { saveFile } = useComplianceEnvironment()
  const notify = useNotifyAction()
  const [, setLocation] = useLocation()
  return useMemo(
    () => ({
      notify,
      navigate: (_: unknown, { to, replace }: NavigateParams) => setLocation(to, replace === undefined ? {} : { replace }),
      saveFile: (_: unknown, file: DownloadedFile) => saveFile(file),
    }),
    [saveFile, notify, setLocation],
  )
}

/** Actor options carrying the environment's clock (when one was given). */
export function useComplianceActorOptions() {
  const { clock } = useComplianceEnvironment()
  return useMemo(() => (clock === undefined ? {} : { clock }), [clock])
}

export function useComplianceOverviewLogic() {
  const { effects } = useComplianceEnvironment()
  const actions = useActions()
  return useMemo(
    () =>
      complianceOverviewMachine.provide({
        actors: {
          loadAccounts: fromPromise(({ signal }) => effects.loadAccounts(undefined, signal)),
          loadScanSummary: effectActor(effects.loadScanSummary),
        },
        actions: { navigate: actions.navigate },
      }),
    [effects, actions],
  )
}

export function useComplianceFrameworkLogic() {
  const { effects } = useComplianceEnvironment()
  const actions = useActions()
  return useMemo(
    () =>
      complianceFrameworkMachine.provide({
        actors: {
          loadScanFramework: effectActor(effects.loadScanFramework),
          loadTrend: effectActor(effects.loadTrend),
          downloadCsv: effectActor(effects.downloadCsv),
          loadLatestReport: effectActor(effects.loadLatestReport),
          createReport: effectActor(effects.createReport),
          getReport: effectActor(effects.getReport),
          downloadReport: effectActor(effects.downloadReport),
        },
        actions,
      }),
    [effects, actions],
  )
}

export function useComplianceRequirementLogic() {
  const { effects } = useComplianceEnvironment()
  const actions = useActions()
  return useMemo(
    () =>
      complianceRequirementMachine.provide({
        actors: { loadRequirement: effectActor(effects.loadRequirement) },
        actions: { navigate: actions.navigate, notify: actions.notify },
      }),
    [effects, actions],
  )
}
