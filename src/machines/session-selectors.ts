/**
 * What the views read from the session actor (src/machines/session.machine.ts): the route gates' status, the user, the
 * errors and the workspace switch. A module of its own, with type-only imports of the machine, so the first page load
 * (sign-in) carries the selectors without the machine and the API client it is built with.
 */
import type { User } from "../contracts/auth.ts"
import type { ApiError } from "../services/api-client.ts"
import type { SessionSnapshot } from "./session.machine.ts"

/**
 * What the route gates need to know:
 * - `loading`: a stored session is being confirmed ('Authenticating...');
 * - `signing-in`: a sign-in is under way (public pages keep rendering their own pending state);
 * - `unauthenticated`, `unverified`, `authenticated`;
 * - `unavailable`: the user could not be loaded for a reason other than authentication (retry offered);
 * - `signing-out`: the logout call is under way.
 */
export type SessionGateStatus =
  | "loading"
  | "signing-in"
  | "unauthenticated"
  | "unverified"
  | "authenticated"
  | "unavailable"
  | "signing-out"

export const selectSessionStatus = (snapshot: SessionSnapshot): SessionGateStatus => {
  if (snapshot.matches("signedOut")) return "unauthenticated"
  if (snapshot.matches("signingIn")) return "signing-in"
  if (snapshot.matches("signingOut")) return "signing-out"
  if (snapshot.matches({ authenticated: "unavailable" })) return "unavailable"
  if (snapshot.matches("restoring") || snapshot.matches({ authenticated: "loadingUser" })) return "loading"
  return snapshot.context.user?.email_verified === false ? "unverified" : "authenticated"
}

export const selectUser = (snapshot: SessionSnapshot): User | null => snapshot.context.user
export const selectSessionError = (snapshot: SessionSnapshot): ApiError | null => snapshot.context.error
export const selectSelectionError = (snapshot: SessionSnapshot): ApiError | null => snapshot.context.selectionError
export const selectIsSwitchingWorkspace = (snapshot: SessionSnapshot): boolean =>
  snapshot.matches({ authenticated: "switchingWorkspace" }) || snapshot.matches({ authenticated: "finishingSwitch" })
