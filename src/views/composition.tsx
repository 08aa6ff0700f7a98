/**
 * What the composition root hands to the views: the running session actor, the effects of every screen family and the
 * dashboard gates' machines — plain objects built from the services in src/app-composition.ts (views never import
 * src/services). `<CompositionProvider>` renders every provider around the routes:
 * - the session (`SessionProvider`: gate status, retry, sign out);
 * - `AuthEffectsProvider` (sign-in, sign-up, verification, reset), `InvitationEffectsProvider`,
 *   `WorkspaceSelectionEffectsProvider`, `ShellEffectsProvider`, `TeamEffectsProvider`, `ProfileEffectsProvider`,
 *   `ScanEffectsProvider` (dashboard, accounts, scans, findings), `ComplianceEffectsProvider` (Compliance),
 *   `StorageEffectsProvider` (Storage, issue 30), `OrganizationEffectsProvider` (organisations, issue 31),
 *   `FleetEffectsProvider` (fleet dashboard, issue 31), `AccountGroupsEffectsProvider` (Account groups, issue 31);
 * - `DashboardGatesProvider` (workspace and permission gates).
 * The clock (real timers in the browser, a `SimulatedClock` in tests) reaches the screens that take one.
 */
import { useEffect, useState, type ReactNode } from "react"
import type { AuthEffects } from "../machines/auth-effects.ts"
import type { ComplianceEffects } from "../machines/compliance-effects.ts"
import type { InvitationEffects } from "../machines/invitation-effects.ts"
import type { ProfileEffects } from "../machines/profile-effects.ts"
import type { ScanEffects } from "../machines/scan-effects.ts"
import type { SessionActor } from "../machines/session.machine.ts"
import type { ShellEffects } from "../machines/shell.machine.ts"
import type { OrganizationEffects } from "../machines/organization-effects.ts"
import type { FleetEffects } from "../machines/fleet-effects.ts"
import type { AccountGroupsEffects } from "../machines/account-groups-effects.ts"
import type { ApprovalsEffects } from "../machines/approvals-effects.ts"
import type { RemediationBatchesEffects } from "../machines/remediation-batches-effects.ts"
import type { StorageEffects } from "../machines/storage-effects.ts"
import type { IntegrationsEffects } from "../machines/integrations-effects.ts"
import type { WebhooksEffects } from "../machines/webhooks-effects.ts"
import type { ApiKeysEffects } from "../machines/api-keys-effects.ts"
import type { TeamEffects } from "../machines/team-effects.ts"
import type { WorkspaceSelectionEffects } from "../machines/workspace-selection.machine.ts"
import type { Clock } from "./app-actors.tsx"
import { AuthEffectsProvider } from "./access/auth-effects-context.tsx"
import { ComplianceEffectsProvider, UNWIRED_COMPLIANCE_EFFECTS } from "./compliance/compliance-effects-context.tsx"
import { InvitationEffectsProvider, UNWIRED_INVITATION_EFFECTS } from "./access/invitation-effects-context.tsx"
import { ShellEffectsProvider, UNWIRED_SHELL_EFFECTS } from "./layouts/shell-effects-context.tsx"
import { ProfileEffectsProvider, UNWIRED_PROFILE_EFFECTS } from "./profile/profile-effects-context.tsx"
import { DashboardGatesProvider, type DashboardGateLogic } from "./route-gates.tsx"
import { ScanEffectsProvider, UNWIRED_SCAN_EFFECTS } from "./scanning/scan-effects-context.tsx"
import { CompositionReadyContext, SessionProvider, type SessionStatus } from "./session-status.tsx"
import { OrganizationEffectsProvider, UNWIRED_ORGANIZATION_EFFECTS } from "./organizations/organization-effects-context.tsx"
import { FleetEffectsProvider, UNWIRED_FLEET_EFFECTS } from "./organizations/fleet-effects-context.tsx"
import { AccountGroupsEffectsProvider, UNWIRED_ACCOUNT_GROUPS_EFFECTS } from "./account-groups/account-groups-effects-context.tsx"
import { ApprovalsEffectsProvider, UNWIRED_APPROVALS_EFFECTS } from "./approvals/approvals-effects-context.tsx"
import { RemediationBatchesEffectsProvider, UNWIRED_REMEDIATION_BATCHES_EFFECTS } from "./remediations/remediation-batches-effects-context.tsx"
import { StorageEffectsProvider, UNWIRED_STORAGE_EFFECTS } from "./storage/storage-effects-context.tsx"
import { IntegrationsEffectsProvider, UNWIRED_INTEGRATIONS_EFFECTS } from "./settings/integrations-effects-context.tsx"
import { SsoEffectsProvider, UNWIRED_SSO_EFFECTS } from "./settings/sso-effects-context.tsx"
import type { SsoSettingsEffects } from "../machines/sso-effects.ts"
import { UNWIRED_WEBHOOKS_EFFECTS, WebhooksEffectsProvider } from "./settings/webhooks-effects-context.tsx"
import { ApiKeysEffectsProvider, UNWIRED_API_KEYS_EFFECTS } from "./settings/api-keys-effects-context.tsx"
import { TeamEffectsProvider, UNWIRED_TEAM_EFFECTS } from "./team/team-effects-context.tsx"
import {
  UNWIRED_WORKSPACE_SELECTION_EFFECTS,
  WorkspaceSelectionEffectsProvider,
} from "./workspaces/workspace-effects-context.tsx"

export interface AppComposition {
  /** Started once by the composition root; its `navigate` is wired to the router. */
  readonly session: SessionActor
  readonly auth: AuthEffects
  readonly invitation: InvitationEffects
  readonly workspaceSelection: WorkspaceSelectionEffects
  readonly shell: ShellEffects
  readonly team: TeamEffects
  readonly profile: ProfileEffects
  readonly scan: ScanEffects
  readonly compliance: ComplianceEffects
  readonly storage: StorageEffects
  readonly organizations: OrganizationEffects
  readonly fleet: FleetEffects
  /** Beyond the spec (issue 31 item 5): the Account groups page; optional so older compositions (tests) need not name it. */
  readonly accountGroups?: AccountGroupsEffects
  /** Beyond the spec (issue 33): the Integrations page (Jira, Security Hub); optional like `accountGroups`. */
  readonly integrations?: IntegrationsEffects
  /** Beyond the spec (issue 33 part 3): the single-sign-on settings page; optional like `accountGroups`. */
  readonly sso?: SsoSettingsEffects
  /** Beyond the spec (issue 33): the API keys page; optional like `accountGroups`. */
  readonly apiKeys?: ApiKeysEffects
  /** Beyond the spec (issue 33): the Webhooks page; optional like `accountGroups`. */
  readonly webhooks?: WebhooksEffects
  /** Beyond the spec (issue 32): the approvals inbox and the account page's approval setting; optional like `accountGroups`. */
  readonly approvals?: ApprovalsEffects
  /** Beyond the spec (issue 32 part 4): bulk remediation (start, batch pages); optional like `accountGroups`. */
  readonly remediationBatches?: RemediationBatchesEffects
  readonly gates: DashboardGateLogic
}

/**
 * The first page load's composition (src/main.tsx): everything above arrives with `ready`, in a chunk of its own, so
 * that /login shows before the API client, the contracts' schemas and the session machine have loaded. Until then:
 * - the gates see `pendingStatus`: "unauthenticated" when no session is stored (sign-in and the other public pages
 *   render at once; a signed-in page sends to sign-in, as the session would), "loading" otherwise;
 * - `auth` is the sign-in family's effects, each waiting for `ready` (a sign-in sent before it simply takes longer);
 * - the invitation pages wait (their gate shows its loading state), and every other family is unwired.
 * The provider tree is the same before and after, so a screen that is open when `ready` resolves stays mounted.
 */
export interface DeferredComposition {
  readonly ready: Promise<AppComposition>
  readonly pendingStatus: SessionStatus
  readonly auth: AuthEffects
}

export type CompositionSource = AppComposition | DeferredComposition

const isDeferred = (source: CompositionSource): source is DeferredComposition => "ready" in source

function useArrived(source: CompositionSource): AppComposition | null {
  const [arrived, setArrived] = useState<AppComposition | null>(isDeferred(source) ? null : source)
  useEffect(() => {
    if (!isDeferred(source)) {
      setArrived(source)
      return
    }
    let active = true
    source.ready.then(
      (composition) => active && setArrived(composition),
      // main.tsx reports a failed load itself (the page offers a reload); the gates keep waiting meanwhile.
      () => {},
    )
    return () => {
      active = false
    }
  }, [source])
  return arrived
}

export interface CompositionProviderProps {
  readonly composition: CompositionSource
  readonly clock?: Clock
  readonly children: ReactNode
}

export function CompositionProvider({ composition: source, clock, children }: CompositionProviderProps) {
  const c = useArrived(source)
  const timers = clock === undefined ? {} : { clock }
  return (
    <CompositionReadyContext value={c !== null}>
      <SessionProvider actor={c?.session ?? null} {...(isDeferred(source) ? { pendingStatus: source.pendingStatus } : {})}>
        <AuthEffectsProvider effects={source.auth} {...timers}>
          <InvitationEffectsProvider effects={c?.invitation ?? UNWIRED_INVITATION_EFFECTS}>
            <WorkspaceSelectionEffectsProvider effects={c?.workspaceSelection ?? UNWIRED_WORKSPACE_SELECTION_EFFECTS}>
              <ShellEffectsProvider effects={c?.shell ?? UNWIRED_SHELL_EFFECTS}>
                <TeamEffectsProvider effects={c?.team ?? UNWIRED_TEAM_EFFECTS} {...timers}>
                  <ProfileEffectsProvider effects={c?.profile ?? UNWIRED_PROFILE_EFFECTS} {...timers}>
                    <ScanEffectsProvider effects={c?.scan ?? UNWIRED_SCAN_EFFECTS} {...timers}>
                      <ComplianceEffectsProvider effects={c?.compliance ?? UNWIRED_COMPLIANCE_EFFECTS} {...timers}>
                        <StorageEffectsProvider effects={c?.storage ?? UNWIRED_STORAGE_EFFECTS} {...timers}>
                          <OrganizationEffectsProvider effects={c?.organizations ?? UNWIRED_ORGANIZATION_EFFECTS} {...timers}>
                            <FleetEffectsProvider effects={c?.fleet ?? UNWIRED_FLEET_EFFECTS}>
                              <AccountGroupsEffectsProvider effects={c?.accountGroups ?? UNWIRED_ACCOUNT_GROUPS_EFFECTS}>
                                <WebhooksEffectsProvider effects={c?.webhooks ?? UNWIRED_WEBHOOKS_EFFECTS}><IntegrationsEffectsProvider effects={c?.integrations ?? UNWIRED_INTEGRATIONS_EFFECTS}>
                                  <ApiKeysEffectsProvider effects={c?.apiKeys ?? UNWIRED_API_KEYS_EFFECTS}><ApprovalsEffectsProvider effects={c?.approvals ?? UNWIRED_APPROVALS_EFFECTS}><RemediationBatchesEffectsProvider effects={c?.remediationBatches ?? UNWIRED_REMEDIATION_BATCHES_EFFECTS} {...timers}><SsoEffectsProvider effects={c?.sso ?? UNWIRED_SSO_EFFECTS}><DashboardGatesProvider logic={c?.gates ?? null}>{children}</DashboardGatesProvider></SsoEffectsProvider></RemediationBatchesEffectsProvider></ApprovalsEffectsProvider></ApiKeysEffectsProvider>
                                </IntegrationsEffectsProvider></WebhooksEffectsProvider>
                              </AccountGroupsEffectsProvider>
                            </FleetEffectsProvider>
                          </OrganizationEffectsProvider>
                        </StorageEffectsProvider>
                      </ComplianceEffectsProvider>
                    </ScanEffectsProvider>
                  </ProfileEffectsProvider>
                </TeamEffectsProvider>
              </ShellEffectsProvider>
            </WorkspaceSelectionEffectsProvider>
          </InvitationEffectsProvider>
        </AuthEffectsProvider>
      </SessionProvider>
    </CompositionReadyContext>
  )
}
