/**
 * Sign-up screen (access spec §2 "Signup", §4 "Signup", §5 sign-up rules, §8 "Signup"; calls `POST /api/signup`).
 *
 * Input: the browser's timezone (sent as `timezone`) and optional initial values (e.g. an email carried from /login).
 *
 * Events accepted:
 * - `field.changed` { field, value } — the user typed in one of the sign-up fields.
 * - `form.submitted` — the user submitted step 1: a valid form is sent, otherwise the §5 field messages show.
 * - `signIn.requested` — the user followed step 2's link to sign in: /login with 'Verification email sent! …'.
 *
 * Step 1 (`form`): the fields with the §5 messages; submitting sends the payload. Outcomes:
 * - success whose `data.note` is `verification_pending` → /verification-pending carrying the address;
 * - any other success → step 2 (`sent`): 'Verification email sent' with a `resendVerification` child and a link to
 *   sign in, which goes to /login with 'Verification email sent! Please check your inbox and follow the link to
 *   activate your account.';
 * - 409 for an existing account (the mapping's `hint`) → /login with the resend hint (unverified) or the sign-in hint;
 * - 409 workspace exists, 400, 401, 422, 429, 5xx, network → stay on step 1 with the §8 text.
 */
import { assertEvent, assign, fromPromise, setup } from "xstate"
import { type SignupPayload, type SignupResponse, validateSignup } from "../contracts/auth.ts"
import { SignupMessages } from "../contracts/messages.ts"
import type { FieldErrors } from "../contracts/validation.ts"
import { AuthPaths, toFailure, type LoginRouteState, type NavigateParams, type VerificationPendingRouteState } from "./auth-effects.ts"
import { resendVerificationMachine } from "./resend-verification.machine.ts"
import { errorOf } from "./actor-output.ts"

export const SIGNUP_FIELDS = ["first_name", "last_name", "email", "password", "confirm_password", "workspace_name"] as const
export type SignupField = (typeof SIGNUP_FIELDS)[number]
export type SignupValues = Readonly<Record<SignupField, string>>

export interface SignupInput {
  /** IANA name from the browser (`Intl.DateTimeFormat().resolvedOptions().timeZone`); access §3. */
  readonly timezone?: string
  readonly initialValues?: Partial<SignupValues>
}

export interface SignupContext {
  readonly values: SignupValues
  readonly timezone: string | undefined
  readonly fieldErrors: FieldErrors
  readonly error: string | undefined
  /** The address the verification email went to (step 2). */
  readonly submittedEmail: string
}

export type SignupEvent =
  | { readonly type: "field.changed"; readonly field: SignupField; readonly value: string }
  | { readonly type: "form.submitted" }
  | { readonly type: "signIn.requested" }

const EMPTY: SignupValues = {
  first_name: "",
  last_name: "",
  email: "",
  password: "",
  confirm_password: "",
  workspace_name: "",
}

/** What is validated and sent: names, email and workspace trimmed; passwords as typed. */
const normalized = (values: SignupValues): SignupValues => ({
  ...values,
  first_name: values.first_name.trim(),
  last_name: values.last_name.trim(),
  email: values.email.trim(),
  workspace_name: values.workspace_name.trim(),
})

export const signupPayload = (values: SignupValues, timezone: string | undefined): SignupPayload => {
  const v = normalized(values)
  return {
    first_name: v.first_name,
    last_name: v.last_name,
    email: v.email,
    password: v.password,
    workspace_name: v.workspace_name,
    ...(timezone === undefined || timezone === "" ? {} : { timezone }),
  }
}

export const signupMachine = setup({
  types: {
    context: {} as SignupContext,
    events: {} as SignupEvent,
    input: {} as SignupInput,
  },
  actors: {
    /** Creates the account (POST /api/signup). */
    signup: fromPromise<SignupResponse, SignupPayload>(async () => {
      throw new Error("signup is not provided")
    }),
    /** The resend-verification child of step 2. */
    resendVerification: resendVerificationMachine,
  },
  guards: {
    /** The fields pass `validateSignup` (§5). */
    isFormValid: ({ context }) => Object.keys(validateSignup(normalized(context.values))).length === 0,
    /** The sign-up answer's `data.note` is `verification_pending`: the address goes to /verification-pending instead of step 2. */
    isVerificationPending: ({ event }) =>
      (event as { output?: SignupResponse }).output?.data.note === "verification_pending",
    /** 409 for an existing account: the mapping tells the screen to send the user to sign in. */
    hasSignInHint: ({ event }) => toFailure(errorOf(event)).hint !== undefined,
  },
  actions: {
    /** Environment: wouter navigation (supplied at the React boundary). */
    navigate: (_, _params: NavigateParams) => {},
    assignField: assign(({ context, event }) => {
      assertEvent(event, "field.changed")
      const { [event.field]: _cleared, ...fieldErrors } = context.fieldErrors
      return { values: { ...context.values, [event.field]: event.value }, fieldErrors }
    }),
    showFieldErrors: assign({ fieldErrors: ({ context }) => validateSignup(normalized(context.values)) }),
    clearErrors: assign({ fieldErrors: {}, error: undefined }),
    assignSubmittedEmail: assign({ submittedEmail: ({ context }) => context.values.email.trim() }),
    assignError: assign({ error: ({ event }) => toFailure(errorOf(event), SignupMessages.fallback).message }),
    clearPasswords: assign({ values: ({ context }) => ({ ...context.values, password: "", confirm_password: "" }) }),
  },
}).createMachine({
  id: "signup",
  context: ({ input }) => ({
    values: { ...EMPTY, ...input.initialValues },
    timezone: input.timezone,
    fieldErrors: {},
    error: undefined,
    submittedEmail: "",
  }),
  initial: "form",
  states: {
    /** Step 1. */
    form: {
      initial: "editing",
      states: {
        editing: {
          description: "Step 1: the user fills in the sign-up fields, with the §5 messages on invalid ones.",
          on: {
            "field.changed": { actions: "assignField" },
            "form.submitted": [
              { guard: "isFormValid", target: "submitting", actions: ["clearErrors", "assignSubmittedEmail"] },
              { actions: "showFieldErrors" },
            ],
          },
        },
        submitting: {
          description: "The sign-up is being sent.",
          invoke: {
            id: "signup",
            src: "signup",
            input: ({ context }) => signupPayload(context.values, context.timezone),
            /** Signed up: a pending verification goes to /verification-pending with the address; any other success shows step 2. */
            onDone: [
              {
                guard: "isVerificationPending",
                target: "#signup.redirected",
                actions: {
                  type: "navigate",
                  params: ({ context }) => ({
                    to: AuthPaths.verificationPending,
                    state: { email: context.submittedEmail } satisfies VerificationPendingRouteState,
                  }),
                },
              },
              { target: "#signup.sent" },
            ],
            /** An existing account (409 with a hint) goes to /login with the resend or sign-in hint; any other failure stays on step 1 with the §8 text. */
            onError: [
              {
                guard: "hasSignInHint",
                target: "#signup.redirected",
                actions: {
                  type: "navigate",
                  params: ({ context, event }) => ({
                    to: AuthPaths.login,
                    state: {
                      email: context.submittedEmail,
                      message: toFailure(event.error, SignupMessages.fallback).message,
                      error: true,
                    } satisfies LoginRouteState,
                  }),
                },
              },
              { target: "editing", actions: "assignError" },
            ],
          },
        },
      },
    },
    /** Step 2: 'Verification email sent', resend, and a link to sign in. */
    sent: {
      entry: "clearPasswords",
      invoke: {
        id: "resend",
        src: "resendVerification",
        input: ({ context }) => ({ email: context.submittedEmail, autoSend: false }),
      },
      on: {
        "signIn.requested": {
          target: "redirected",
          actions: {
            type: "navigate",
            params: ({ context }) => ({
              to: AuthPaths.login,
              state: { email: context.submittedEmail, message: SignupMessages.verificationSent } satisfies LoginRouteState,
            }),
          },
        },
      },
    },
    /** Another screen took over. */
    redirected: { type: "final" },
  },
})
