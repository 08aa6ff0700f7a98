/**
 * Builds what the views get (`AppComposition`, src/views/composition.tsx) from the SPA services, once per page load:
 * - the session actor (`sessionMachineWith(services)`), started here with the router's `navigate` (history state
 *   included) and the stored session as input — one for the whole app, so the gates, the screens' hand-offs
 *   (`startSessionWith`), the shell's sign-out and the profile's user refresh all talk to the same session;
 * - the effects of every screen family, from the services, with their session hooks (sign-out, user refresh,
 *   token hand-off);
 * - the dashboard gates' machines with their watchers (all but `navigate`, which the React boundary adds).
 *
 * main.tsx calls it with `createBrowserServices(window)` and wouter's browser `navigate`; tests call it with
 * `createAppServices` (memory storage, scripted fetch, simulated clock). Nothing happens at import time.
 */
import { createActor } from "xstate"
import type { AuthEffects } from "./machines/auth-effects.ts"
import { startSessionWith } from "./machines/auth-effects.ts"
import { invitationEffectsFromServices } from "./machines/invitation-effects.ts"
import type { NavigationRequest } from "./machines/navigation.ts"
import { permissionGateMachineWith } from "./machines/permission-gate.machine.ts"
import { createProfileEffects } from "./machines/profile-effects.ts"
import { sessionMachineWith } from "./machines/session.machine.ts"
import { shellEffectsFromServices } from "./machines/shell.machine.ts"
import { createTeamEffects } from "./machines/team-effects.ts"
import { workspaceGateMachineWith } from "./machines/workspace-gate.machine.ts"
import { workspaceSelectionEffectsFromServices } from "./machines/workspace-selection.machine.ts"
import type { AppServices } from "./services/app-services.ts"
import { complianceEffectsFrom } from "./services/compliance-api.ts"
import { scanEffectsFrom } from "./services/scan-api.ts"
import { approvalsEffectsFrom } from "./services/approvals-api.ts"
import { remediationBatchesEffectsFrom } from "./services/remediation-batches-api.ts"
import { storageEffectsFrom } from "./services/workspace-storage-api.ts"
import { integrationsEffectsFrom } from "./services/integrations-api.ts"
import { ssoSettingsEffectsFrom } from "./services/sso-api.ts"
import { organizationEffectsFrom } from "./services/organization-api.ts"
import { fleetEffectsFrom } from "./services/fleet-api.ts"
import { accountGroupsEffectsFrom } from "./services/account-groups-api.ts"
import { webhooksEffectsFrom } from "./services/webhooks-api.ts"
import { apiKeysEffectsFrom } from "./services/api-keys-api.ts"
import { parseWorkspaceId } from "./services/storage.ts"
import type { AppComposition } from "./views/composition.tsx"

export interface CompositionEnvironment {
  /** The router's navigation (wouter: `navigate(to, { replace, state })`). */
  readonly navigate: (to: string, options: { readonly replace?: boolean; readonly state?: unknown }) => void
  /** The site origin (invitation-link fallback, access §4). */
  readonly origin: string
}

export interface ComposedApp extends AppComposition {
  /** Stops the session actor and the services' cross-tab listeners (tests, hot reload). */
  readonly dispose: () => void
}

const navigationOptions = ({ replace, state }: NavigationRequest) => ({
  ...(replace === undefined ? {} : { replace }),
  ...(state === undefined ? {} : { state }),
})

export const composeApp = (services: AppServices, env: CompositionEnvironment): ComposedApp => {
  const session = createActor(
    sessionMachineWith(services).provide({
      actions: { navigate: (_, request: NavigationRequest) => env.navigate(request.to, navigationOptions(request)) },
    }),
    { input: { stored: services.session.read() } },
  )
  session.start()

  const startSession = startSessionWith(session)
  const signOut = () => session.send({ type: "session.logoutRequested" })
  const refreshSessionUser = () => session.send({ type: "session.userRefreshRequested" })

  const { api } = services
  const auth: AuthEffects = {
    login: api.login,
    startSession,
    storePendingInvitation: ({ token, workspaceId }) =>
      services.pending.write({ token, workspaceId: parseWorkspaceId(workspaceId) }),
    forgotPassword: api.forgotPassword,
    signup: api.signup,
    verifyEmail: api.verifyEmail,
    resendVerification: api.resendVerification,
    validateResetToken: api.validateResetToken,
    resetPassword: api.resetPassword,
    ssoStart: api.ssoStart,
    ssoExchange: api.ssoExchange,
  }

  return {
    session,
    auth,
    invitation: invitationEffectsFromServices(services, { startSession }),
    workspaceSelection: workspaceSelectionEffectsFromServices(services, { signOut, userRefreshed: refreshSessionUser }),
    shell: shellEffectsFromServices(services, { signOut }),
    team: createTeamEffects(services, env.origin),
    profile: createProfileEffects(services, { onUserUpdated: refreshSessionUser }),
    scan: scanEffectsFrom(services),
    compliance: complianceEffectsFrom(services),
    storage: storageEffectsFrom(services),
    approvals: approvalsEffectsFrom(services),
    remediationBatches: remediationBatchesEffectsFrom(services),
    organizations: organizationEffectsFrom(services),
    fleet: fleetEffectsFrom(services),
    accountGroups: accountGroupsEffectsFrom(services),
    integrations: integrationsEffectsFrom(services),
    sso: ssoSettingsEffectsFrom(services),
    webhooks: webhooksEffectsFrom(services),
    apiKeys: apiKeysEffectsFrom(services),
    gates: {
      workspaceGate: workspaceGateMachineWith(services),
      permissionGate: permissionGateMachineWith(services),
      selectedWorkspaceId: () => services.workspaceStore.getSnapshot().selectedWorkspaceId,
    },
    dispose: () => {
      session.stop()
      services.dispose()
    },
  }
}
