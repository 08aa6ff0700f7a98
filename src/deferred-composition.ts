/**
 * The first page load's composition (issue 17): src/main.tsx starts loading the real one (src/browser-boot.ts, with the
 * API client, the contracts' schemas and every machine behind the sign-in) in a chunk of its own and hands the views
 * this stand-in at once. Sign-in shows before that chunk has arrived; what it sends waits for it. See
 * `DeferredComposition` in src/views/composition.tsx for what the views do meanwhile.
 */
import type { AuthEffects } from "./machines/auth-effects.ts"
import { readStoredSession } from "./services/stored-session.ts"
import type { AppComposition, DeferredComposition } from "./views/composition.tsx"

/** Each sign-in effect, sent to the composition once it is there (in the order they were made). */
const authWhenReady = (ready: Promise<AppComposition>): AuthEffects => ({
  login: (payload, signal) => ready.then((c) => c.auth.login(payload, signal)),
  startSession: (start, signal) => ready.then((c) => c.auth.startSession(start, signal)),
  storePendingInvitation: (pending) => void ready.then((c) => c.auth.storePendingInvitation(pending)),
  forgotPassword: (payload, signal) => ready.then((c) => c.auth.forgotPassword(payload, signal)),
  signup: (payload, signal) => ready.then((c) => c.auth.signup(payload, signal)),
  verifyEmail: (params, signal) => ready.then((c) => c.auth.verifyEmail(params, signal)),
  resendVerification: (payload, signal) => ready.then((c) => c.auth.resendVerification(payload, signal)),
  validateResetToken: (payload, signal) => ready.then((c) => c.auth.validateResetToken(payload, signal)),
  resetPassword: (payload, signal) => ready.then((c) => c.auth.resetPassword(payload, signal)),
  ssoStart: (payload, signal) => ready.then((c) => c.auth.ssoStart(payload, signal)),
  ssoExchange: (payload, signal) => ready.then((c) => c.auth.ssoExchange(payload, signal)),
})

/**
 * The stand-in: no stored access token means nobody is signed in in this browser (the session machine decides the
 * same from the same keys), so the public pages can render at once; with one, the gates wait for the session.
 */
export const deferComposition = (
  ready: Promise<AppComposition>,
  local: { getItem(key: string): string | null } | null,
): DeferredComposition => {
  let signedIn = false
  try {
    signedIn = local !== null && readStoredSession(local).accessToken !== null
  } catch {
    // Storage the browser refuses to open (privacy settings): the session machine treats it as empty too.
  }
  return { ready, pendingStatus: signedIn ? "loading" : "unauthenticated", auth: authWhenReady(ready) }
}
