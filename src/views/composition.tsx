/**
 * What the composition root hands to the views: the running session actor, the effects of every screen family and the
 * dashboard gates' machines — plain objects built from the services in src/app-composition.ts (views never import
 * src/services). `<CompositionProvider>` renders every provider around the routes:
 * - the session (`SessionProvider`: gate status, retry, sign out);
 * - `AuthEffectsProvider` (sign-in, sign-up, verification, reset), `InvitationEffectsProvider`,
 *   `WorkspaceSelectionEffectsProvider`, `ShellEffectsProvider`, `TeamEffectsProvider`, `ProfileEffectsProvider`,
 *   `ScanEffectsProvider` (dashboard, accounts, scans, findings), `ComplianceEffectsProvider` (Compliance);
 * - `DashboardGatesProvider` (workspace and permission gates).
 * The clock (real timers in the browser, a `SimulatedClock` in tests) reaches the screens that take one.
 */
import type { ReactNode } from "react"
import type { AuthEffects } from "../machines/auth-effects.ts"
import type { ComplianceEffects } from "../machines/compliance-effects.ts"
import type { InvitationEffects } from "../machines/invitation-effects.ts"
import type { ProfileEffects } from "../machines/profile-effects.ts"
import type { ScanEffects } from "../machines/scan-effects.ts"
import type { SessionActor } from "../machines/session.machine.ts"
import type { ShellEffects } from "../machines/shell.machine.ts"
import type { TeamEffects } from "../machines/team-effects.ts"
import type { WorkspaceSelectionEffects } from "../machines/workspace-selection.machine.ts"
import type { Clock } from "./app-actors.tsx"
import { AuthEffectsProvider } from "./auth/auth-effects-context.tsx"
import { ComplianceEffectsProvider } from "./compliance/compliance-effects-context.tsx"
import { InvitationEffectsProvider } from "./invitations/invitation-effects-context.tsx"
import { ShellEffectsProvider } from "./layouts/shell-effects-context.tsx"
import { ProfileEffectsProvider } from "./profile/profile-effects-context.tsx"
import { DashboardGatesProvider, type DashboardGateLogic } from "./route-gates.tsx"
import { ScanEffectsProvider } from "./scanning/scan-effects-context.tsx"
import { SessionProvider } from "./session-status.tsx"
import { TeamEffectsProvider } from "./team/team-effects-context.tsx"
import { WorkspaceSelectionEffectsProvider } from "./workspaces/workspace-effects-context.tsx"

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
  readonly gates: DashboardGateLogic
}

export interface CompositionProviderProps {
  readonly composition: AppComposition
  readonly clock?: Clock
  readonly children: ReactNode
}

export function CompositionProvider({ composition: c, clock, children }: CompositionProviderProps) {
  const timers = clock === undefined ? {} : { clock }
  return (
    <SessionProvider actor={c.session}>
      <AuthEffectsProvider effects={c.auth} {...timers}>
        <InvitationEffectsProvider effects={c.invitation}>
          <WorkspaceSelectionEffectsProvider effects={c.workspaceSelection}>
            <ShellEffectsProvider effects={c.shell}>
              <TeamEffectsProvider effects={c.team} {...timers}>
                <ProfileEffectsProvider effects={c.profile} {...timers}>
                  <ScanEffectsProvider effects={c.scan} {...timers}>
                    <ComplianceEffectsProvider effects={c.compliance} {...timers}>
                      <DashboardGatesProvider logic={c.gates}>{children}</DashboardGatesProvider>
                    </ComplianceEffectsProvider>
                  </ScanEffectsProvider>
                </ProfileEffectsProvider>
              </TeamEffectsProvider>
            </ShellEffectsProvider>
          </WorkspaceSelectionEffectsProvider>
        </InvitationEffectsProvider>
      </AuthEffectsProvider>
    </SessionProvider>
  )
}
