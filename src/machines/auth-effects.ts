/**
 * What the access screens' machines need from the outside world (access spec §2 "Screens", §4, §7), as types:
 * the network calls they invoke (named actors in each machine's `setup`), the hand-off to the session after a
 * successful sign-in, the pending-invitation store, and the two environment actions every screen uses
 * (`navigate`, `notify`).
 *
 * Nothing here performs an effect. The real implementations are built from `src/services` (the `AuthApi` of
 * `src/services/auth-api.ts` satisfies every call below structurally) in `src/main.tsx` and reach the views through
 * `src/views/access/auth-effects-context.tsx`; tests hand fakes to `machine.provide({ actors })`.
 *
 * Failures: every call rejects with a catalogue error value `{ type, message, status?, data?, hint? }` (the API
 * client maps each failure with the endpoint's §8 flow), so machines show `message` verbatim and branch on `type`.
 */
import type { ErrorType } from "../contracts/errors.ts"
import type { SsoExchangeResponse, SsoStartPayload, SsoStartResponse } from "../contracts/sso.ts"
import type { ErrorHint } from "../contracts/error-mapping.ts"
import type { OkMessage } from "../contracts/common.ts"
import type {
  ForgotPasswordPayload,
  LoginPayload,
  LoginResponse,
  ResendVerificationPayload,
  ResendVerificationResponse,
  ResetPasswordPayload,
  SignupPayload,
  SignupResponse,
  ValidateResetTokenPayload,
  ValidateResetTokenResponse,
  VerifyEmailParams,
  VerifyEmailResponse,
} from "../contracts/auth.ts"
import { StatusMessages } from "../contracts/messages.ts"
import type { LoginRouteState } from "./navigation.ts"

// ---------------------------------------------------------------------------------------------------
// Effects

/** One network call: resolves with the decoded answer, rejects with an `EffectFailure`. Pass the actor's signal. */
export type EffectCall<P, A> = (payload: P, signal?: AbortSignal) => Promise<A>

/** The invitation carried from /login to /workspace-selection (session storage `pending_workspace_invitation`, `pending_workspace_id`). */
export interface PendingInvitation {
  readonly token: string
  readonly workspaceId: number | null
}

/**
 * What a flow that obtained tokens hands to the session (its `session.signedIn` event): the token pair, the address,
 * and where the user was going (the authentication gate's `from`). The invitation flows hand over the same shape.
 */
export interface SessionStart {
  readonly accessToken: string
  readonly refreshToken: string
  readonly email?: string
  readonly returnTo?: string
}

/** Every effect of the access screens. main.tsx builds one from services; tests build fakes. */
export interface AuthEffects {
  readonly login: EffectCall<LoginPayload, LoginResponse>
  /**
   * Hands a successful login to the session (store tokens, fetch the user and the workspaces, auto-select or go to
   * /workspace-selection). Resolves once the session has taken over; rejects with an `EffectFailure` otherwise.
   */
  readonly startSession: EffectCall<SessionStart, void>
  readonly storePendingInvitation: (pending: PendingInvitation) => void
  readonly forgotPassword: EffectCall<ForgotPasswordPayload, OkMessage>
  readonly signup: EffectCall<SignupPayload, SignupResponse>
  readonly verifyEmail: EffectCall<VerifyEmailParams, VerifyEmailResponse>
  readonly resendVerification: EffectCall<ResendVerificationPayload, ResendVerificationResponse>
  readonly validateResetToken: EffectCall<ValidateResetTokenPayload, ValidateResetTokenResponse>
  readonly resetPassword: EffectCall<ResetPasswordPayload, OkMessage>
  /** POST /api/sso/start: the identity provider's URL for the email's domain (docs/sso.md). */
  readonly ssoStart: EffectCall<SsoStartPayload, SsoStartResponse>
  /** POST /api/sso/exchange: the one-time code of /login/sso → the session's tokens. */
  readonly ssoExchange: EffectCall<{ readonly code: string }, SsoExchangeResponse>
}

// ---------------------------------------------------------------------------------------------------
// Failures

/** A failed call as the API client reports it (structurally the services' `ApiError`). */
export interface EffectFailure {
  readonly type: ErrorType
  readonly message: string
  readonly status?: number
  readonly data?: unknown
  readonly hint?: ErrorHint
}

export const isEffectFailure = (u: unknown): u is EffectFailure =>
  typeof u === "object" &&
  u !== null &&
  typeof (u as { type?: unknown }).type === "string" &&
  typeof (u as { message?: unknown }).message === "string"

/** The failure as the catalogue sees it; anything else (a bug, a thrown Error) becomes UNKNOWN_ERROR with `fallback`. */
export const toFailure = (error: unknown, fallback: string = StatusMessages.unexpected): EffectFailure =>
  isEffectFailure(error) ? error : { type: "UNKNOWN_ERROR", message: fallback }

// ---------------------------------------------------------------------------------------------------
// Environment actions (supplied with `.provide({ actions })` at the React boundary)

export interface NavigateParams {
  readonly to: string
  /** History state handed to the next screen (e.g. `LoginRouteState`). */
  readonly state?: unknown
  readonly replace?: boolean
}

export type NotifyKind = "success" | "error" | "info" | "warning"

export interface NotifyParams {
  readonly kind: NotifyKind
  readonly message: string
}

// ---------------------------------------------------------------------------------------------------
// Routes and navigation state of the access screens (access §2 route table)

export const AuthPaths = {
  login: "/login",
  signup: "/signup",
  resetPassword: "/reset-password",
  verifyEmail: "/verify-email",
  verificationPending: "/verification-pending",
  emailVerificationSuccess: "/email-verification-success",
  dashboard: "/dashboard",
} as const

/**
 * Access §2 "Navigation state": /login may receive an optional email, a message, an error flag and (from the
 * authentication gate) the origin `from`. Anyone sending the user to /login with a message passes this as history state.
 */
export type { LoginRouteState } from "./navigation.ts"

/** /verification-pending receives the address the verification email went to. */
export interface VerificationPendingRouteState {
  readonly email?: string
}

/** /email-verification-success receives the text to show ('Email verified successfully!' or 'Email is already verified!'). */
export interface VerificationSuccessRouteState {
  readonly message?: string
}

/** Reads a history state defensively (it can be anything another page or tab left there). */
export const readLoginRouteState = (u: unknown): LoginRouteState => {
  if (typeof u !== "object" || u === null) return {}
  const r = u as Record<string, unknown>
  return {
    ...(typeof r["email"] === "string" && r["email"] !== "" ? { email: r["email"] } : {}),
    ...(typeof r["message"] === "string" && r["message"] !== "" ? { message: r["message"] } : {}),
    ...(r["error"] === true ? { error: true } : {}),
    ...(typeof r["from"] === "string" && r["from"].startsWith("/") ? { from: r["from"] } : {}),
  }
}

export const readEmailState = (u: unknown): string | undefined => {
  if (typeof u !== "object" || u === null) return undefined
  const email = (u as Record<string, unknown>)["email"]
  return typeof email === "string" && email !== "" ? email : undefined
}

export const readMessageState = (u: unknown): string | undefined => {
  if (typeof u !== "object" || u === null) return undefined
  const message = (u as Record<string, unknown>)["message"]
  return typeof message === "string" && message !== "" ? message : undefined
}

// ---------------------------------------------------------------------------------------------------
// The session hand-off, for the composition root

/** The part of the session actor (src/machines/session.machine.ts) the hand-off relies on. */
export interface SessionActorLike {
  send(event: { readonly type: "session.signedIn" } & SessionStart): void
  getSnapshot(): SessionSnapshotLike
  subscribe(observer: (snapshot: SessionSnapshotLike) => void): { unsubscribe(): void }
}

export interface SessionSnapshotLike {
  matches(state: "signingIn" | "authenticated" | "signedOut"): boolean
  readonly context: { readonly error: EffectFailure | null }
}

/**
 * `startSession` on top of the session actor: sends `session.signedIn` and settles when the session is done with the
 * sign-in (it stored the tokens, loaded the user and the workspaces, and navigated): resolves once `authenticated`,
 * rejects with the session's error when it fell back to `signedOut` (e.g. the user could not be loaded).
 */
export const startSessionWith =
  (session: SessionActorLike): EffectCall<SessionStart, void> =>
  (start, signal) =>
    new Promise<void>((resolve, reject) => {
      const settled = (snapshot: SessionSnapshotLike): boolean => {
        if (snapshot.matches("authenticated")) {
          resolve()
          return true
        }
        if (snapshot.matches("signedOut")) {
          reject(snapshot.context.error ?? { type: "UNKNOWN_ERROR", message: StatusMessages.unexpected })
          return true
        }
        return false
      }
      session.send({ type: "session.signedIn", ...start })
      if (settled(session.getSnapshot())) return
      const subscription = session.subscribe((snapshot) => {
        if (settled(snapshot)) subscription.unsubscribe()
      })
      signal?.addEventListener("abort", () => subscription.unsubscribe(), { once: true })
    })
