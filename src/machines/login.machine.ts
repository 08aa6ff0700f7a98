/**
 * Sign-in screen (access spec §2 "Login", §4 "Sign-in" and "Login with a 401 …", §5 email / sign-in password, §8
 * login mapping; calls `POST /api/login`).
 *
 * Input: the navigation state of /login (`LoginRouteState`: optional email, message, error flag) and the invitation
 * token + workspace id from the query, which are stored in session storage on arrival (`storePendingInvitation`).
 *
 * Events accepted:
 * - `field.changed` { field: email | password, value } — the user typed the email or the password.
 * - `password.visibilityToggled` — the user showed or hid the password.
 * - `form.submitted` — the user pressed sign in: a valid form is sent, otherwise the field errors show.
 * - `message.dismissed` — the user closed the message carried over from the previous screen (e.g. 'Password reset successfully!').
 *
 * Flow: editing → submitting (`login`) → startingSession (`startSession`: the session stores the tokens, fetches the
 * user and the workspaces and navigates, back to the gate's `from` when there is one) → signedIn.
 * A 401 with `error_type = email_not_verified` goes to `unverified`: the warning box ('Please verify your email
 * address to continue') with a `resendVerification` child that resends automatically once and offers a manual resend.
 * Any other failure shows the §8 login text in an error alert.
 */
import { assertEvent, assign, fromPromise, setup } from "xstate"
import type { LoginPayload, LoginResponse } from "../contracts/auth.ts"
import { errorTypeField } from "../contracts/error-body.ts"
import { signInFormErrors } from "../contracts/sign-in-rules.ts"
import type { FieldErrors } from "../contracts/validation.ts"
import { toFailure, type LoginRouteState, type PendingInvitation, type SessionStart } from "./auth-effects.ts"
import { resendVerificationMachine } from "./resend-verification.machine.ts"
import { errorOf } from "./actor-output.ts"

export type LoginField = "email" | "password"

export interface LoginInput {
  /** History state passed by the previous route (session expiry, sign-up, password reset …). */
  readonly routeState?: LoginRouteState
  /** Parsed from the query by `readLoginQuery`. */
  readonly pendingInvitation?: PendingInvitation | null
}

export interface LoginFlash {
  readonly message: string
  readonly tone: "error" | "success"
}

export interface LoginContext {
  readonly email: string
  readonly password: string
  readonly passwordVisible: boolean
  readonly fieldErrors: FieldErrors
  /** The message passed from the previous route. */
  readonly flash: LoginFlash | undefined
  /** The last sign-in failure (§8 login mapping). */
  readonly error: string | undefined
  /** The address the server reported as unverified (`data.email`), else the one typed. */
  readonly unverifiedEmail: string
  readonly pendingInvitation: PendingInvitation | null
  readonly response: LoginResponse | undefined
  /** Where the authentication gate says the user was going. */
  readonly returnTo: string | undefined
}

export type LoginEvent =
  | { readonly type: "field.changed"; readonly field: LoginField; readonly value: string }
  | { readonly type: "password.visibilityToggled" }
  | { readonly type: "form.submitted" }
  | { readonly type: "message.dismissed" }

/** Query parameter names accepted for the pending invitation (the invitation screens link with either form). */
const TOKEN_KEYS = ["invitation_token", "invitationToken", "invitation", "token"] as const
const WORKSPACE_KEYS = ["workspace_id", "workspaceId"] as const

/** Access §2 Login: "If an invitation token and workspace id are in the query, they are stored in session storage". */
export const readLoginQuery = (search: string): PendingInvitation | null => {
  const params = new URLSearchParams(search.startsWith("?") ? search.slice(1) : search)
  const pick = (keys: ReadonlyArray<string>): string | null => {
    for (const key of keys) {
      const value = params.get(key)?.trim()
      if (value) return value
    }
    return null
  }
  const token = pick(TOKEN_KEYS)
  if (token === null) return null
  const rawId = pick(WORKSPACE_KEYS)
  const id = rawId !== null && /^\d+$/.test(rawId) ? Number(rawId) : Number.NaN
  return { token, workspaceId: Number.isSafeInteger(id) && id > 0 ? id : null }
}

/** The login answer as the session's hand-off. */
export const sessionStartOf = (response: LoginResponse, returnTo: string | undefined): SessionStart => ({
  accessToken: response.access_token,
  refreshToken: response.refresh_token,
  email: response.data.email,
  ...(returnTo === undefined ? {} : { returnTo }),
})

export const loginMachine = setup({
  types: {
    context: {} as LoginContext,
    events: {} as LoginEvent,
    input: {} as LoginInput,
  },
  actors: {
    /** Checks the credentials (POST /api/login). */
    login: fromPromise<LoginResponse, LoginPayload>(async () => {
      throw new Error("login is not provided")
    }),
    /** Hands the tokens to the session, which fetches the user and the workspaces and navigates. */
    startSession: fromPromise<void, SessionStart>(async () => {
      throw new Error("startSession is not provided")
    }),
    /** The resend-verification child of the unverified-email warning (resends once automatically). */
    resendVerification: resendVerificationMachine,
  },
  guards: {
    /** The query carried an invitation token to keep for after sign-in. */
    hasPendingInvitation: ({ context }) => context.pendingInvitation !== null,
    /** The email and password pass the sign-in form rules (§5). */
    isFormValid: ({ context }) => Object.keys(signInFormErrors({ email: context.email.trim(), password: context.password })).length === 0,
    /** The login was refused because the email is not verified (401 `email_not_verified`). */
    isEmailNotVerified: ({ event }) => toFailure(errorOf(event)).type === "EMAIL_NOT_VERIFIED",
  },
  actions: {
    /** Environment: writes session storage (supplied at the React boundary from services). */
    storePendingInvitation: (_, _params: PendingInvitation) => {},
    assignField: assign(({ context, event }) => {
      assertEvent(event, "field.changed")
      const { [event.field]: _cleared, ...fieldErrors } = context.fieldErrors
      return { [event.field]: event.value, fieldErrors } as Partial<LoginContext>
    }),
    togglePasswordVisibility: assign({ passwordVisible: ({ context }) => !context.passwordVisible }),
    showFieldErrors: assign({
      fieldErrors: ({ context }) => signInFormErrors({ email: context.email.trim(), password: context.password }),
    }),
    clearMessages: assign({ fieldErrors: {}, error: undefined, flash: undefined }),
    dismissFlash: assign({ flash: undefined }),
    assignResponse: assign({ response: ({ event }) => (event as { output?: LoginResponse }).output }),
    assignError: assign({ error: ({ event }) => toFailure(errorOf(event)).message }),
    assignUnverified: assign({
      unverifiedEmail: ({ context, event }) => {
        const body = toFailure(errorOf(event)).data
        const reported = (body as { data?: { email?: unknown } } | undefined)?.data?.email
        return errorTypeField(body) === "email_not_verified" && typeof reported === "string" && reported !== ""
          ? reported
          : context.email.trim()
      },
    }),
  },
}).createMachine({
  id: "login",
  context: ({ input }) => ({
    email: input.routeState?.email ?? "",
    password: "",
    passwordVisible: false,
    fieldErrors: {},
    flash:
      input.routeState?.message === undefined
        ? undefined
        : { message: input.routeState.message, tone: input.routeState.error === true ? "error" : "success" },
    error: undefined,
    unverifiedEmail: "",
    pendingInvitation: input.pendingInvitation ?? null,
    response: undefined,
    returnTo: input.routeState?.from,
  }),
  initial: "form",
  states: {
    /** Everything before the session takes over: the form stays editable throughout. */
    form: {
      initial: "arriving",
      on: {
        "field.changed": { actions: "assignField" },
        "password.visibilityToggled": { actions: "togglePasswordVisibility" },
        "message.dismissed": { actions: "dismissFlash" },
      },
      states: {
        arriving: {
          description: "The screen has just opened: an invitation token from the query is stored in session storage, then the form shows.",
          /** Stores the pending invitation (token and workspace id) when the query carried one, then shows the form. */
          always: [
            {
              guard: "hasPendingInvitation",
              target: "editing",
              actions: { type: "storePendingInvitation", params: ({ context }) => context.pendingInvitation! },
            },
            { target: "editing" },
          ],
        },
        editing: {
          description: "The sign-in form (email, password with show/hide) waits for the user to sign in.",
          on: {
            "form.submitted": [
              { guard: "isFormValid", target: "submitting", actions: "clearMessages" },
              { actions: "showFieldErrors" },
            ],
          },
        },
        submitting: {
          description: "The credentials are being checked with the server.",
          invoke: {
            id: "login",
            src: "login",
            input: ({ context }) => ({ email: context.email.trim(), password: context.password }),
            /** Signed in: the session takes over with the returned tokens. */
            onDone: { target: "startingSession", actions: "assignResponse" },
            /** A 401 for an unverified email shows the verification warning with an automatic resend; any other failure shows the §8 login text in an error alert. */
            onError: [
              { guard: "isEmailNotVerified", target: "unverified", actions: "assignUnverified" },
              { target: "editing", actions: "assignError" },
            ],
          },
        },
        startingSession: {
          description: "The session stores the tokens, fetches the user and the workspaces and navigates (back to where the gate sent the user from, when known).",
          invoke: {
            id: "startSession",
            src: "startSession",
            input: ({ context }) => sessionStartOf(context.response!, context.returnTo),
            /** The session has taken over. */
            onDone: { target: "#login.signedIn" },
            /** The session could not start: back to the form with the error. */
            onError: { target: "editing", actions: "assignError" },
          },
        },
        /** Access §4 EMAIL_NOT_VERIFIED: automatic resend + warning box with a manual resend. */
        unverified: {
          invoke: {
            id: "resend",
            src: "resendVerification",
            input: ({ context }) => ({ email: context.unverifiedEmail, autoSend: true }),
          },
          on: {
            "form.submitted": [
              { guard: "isFormValid", target: "submitting", actions: "clearMessages" },
              { actions: "showFieldErrors" },
            ],
          },
        },
      },
    },
    /** The session has taken over (it navigates to /dashboard or /workspace-selection). */
    signedIn: { type: "final" },
  },
})
