/**
 * Shared shapes of the workspace, invitation and shell flows' outside world (types only, no effect):
 * - `ScreenEnvironment`: what the React boundary supplies to every screen machine (wouter navigation, app toasts);
 * - `SessionHandOff`: tokens obtained by a flow (invitation accept / sign-up) handed to the session, which stores them,
 *   loads the user and the workspaces and navigates (access §4 "Sign-in");
 * - `WorkspaceStoreTransition`: a pure transition of the persisted `workspace-store` (src/services/storage.ts).
 */
import type { WorkspaceStore } from "../contracts/workspaces.ts"
import type { NavigateParams } from "./auth-effects.ts"

export type WorkspaceStoreTransition = (state: WorkspaceStore) => WorkspaceStore

export interface ToastRequest {
  readonly kind: "success" | "error" | "info" | "warning"
  readonly message: string
  /** Overrides the kind's default lifetime (e.g. the 5 s "You've been added to" toast). */
  readonly durationMs?: number
}

export interface TokenPairParams {
  readonly accessToken: string
  readonly refreshToken: string
}

export interface SessionHandOff {
  readonly accessToken: string
  readonly refreshToken: string
  readonly email?: string
  /** Where to go once the session has a workspace (a safe in-app path). */
  readonly returnTo?: string
}

/** The React boundary's part: wouter navigation and the app's toasts. */
export interface ScreenEnvironment {
  readonly navigate: (params: NavigateParams) => void
  readonly notify: (toast: ToastRequest) => void
}
