/**
 * Navigation requests made by machines. Machines never touch the router: they call an environment action
 * (`navigate`, params `NavigationRequest`) that the React boundary supplies with `.provide()` from wouter's
 * `navigate(to, { replace, state })`. The route states below are the access spec §2 "Navigation state".
 */

/** /login may receive an optional email, a message and an error flag (access §2); `from` keeps the origin. */
export interface LoginRouteState {
  readonly email?: string
  readonly message?: string
  readonly error?: boolean
  /** The page a signed-out visitor asked for (path + search), kept by the authentication gate. */
  readonly from?: string
}

/** /workspace-selection receives the pending invitation token and an optional numeric workspace id. */
export interface WorkspaceSelectionRouteState {
  readonly invitationToken?: string
  readonly workspaceId?: number
}

/** /dashboard may receive a message to show (the permission gate's redirect). */
export interface DashboardRouteState {
  readonly message?: string
  readonly error?: boolean
}

export type RouteState = LoginRouteState | WorkspaceSelectionRouteState | DashboardRouteState

export interface NavigationRequest {
  readonly to: string
  readonly state?: RouteState
  /** Redirects replace the current history entry, so Back does not bounce through a gate. */
  readonly replace?: boolean
}

/**
 * A path the app may send a user back to after signing in: same-origin, absolute, inside the app (never
 * `//host`, never a scheme). Anything else yields undefined.
 */
export const safeReturnPath = (candidate: string | null | undefined): string | undefined => {
  if (candidate === null || candidate === undefined) return undefined
  if (!candidate.startsWith("/") || candidate.startsWith("//") || candidate.startsWith("/\\")) return undefined
  return /^\/(dashboard|workspace-selection)(?:[/?#]|$)/.test(candidate) ? candidate : undefined
}
