/**
 * The 'Forgot your password?' modal of the sign-in screen (access spec §2 "Login", §5 email, §8 'Password reset email
 * sent successfully' / 'Failed to send password reset email'; calls `POST /api/forgot-password`).
 *
 * Events accepted:
 * - `dialog.opened` { email? } — the user pressed 'Forgot your password?': the modal opens, prefilled with the sign-in form's email.
 * - `field.changed` { value } — the user typed the email.
 * - `form.submitted` — the user pressed send: a valid email is sent, a malformed one shows the §5 message (no effect while empty).
 * - `dialog.closed` — the user closed the modal (refused while the request is in flight).
 *
 * The send button is disabled while the email is empty: `form.submitted` has no transition then, so
 * `snapshot.can({ type: "form.submitted" })` is false. A malformed address shows the §5 message on the field.
 * Success closes the modal with a success toast; a failure keeps it open with the §8 text inline and as a toast.
 * Closing is refused while the request is in flight.
 */
import { assertEvent, assign, fromPromise, setup } from "xstate"
import type { ForgotPasswordPayload } from "../contracts/auth.ts"
import { emailProblem } from "../contracts/sign-in-rules.ts"
import type { OkMessage } from "../contracts/common.ts"
import { OtherMessages, SuccessMessages } from "../contracts/messages.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"

export interface ForgotPasswordInput {
  readonly email?: string
}

export interface ForgotPasswordContext {
  readonly email: string
  readonly fieldError: string | undefined
  readonly error: string | undefined
}

export type ForgotPasswordEvent =
  | { readonly type: "dialog.opened"; readonly email?: string }
  | { readonly type: "field.changed"; readonly value: string }
  | { readonly type: "form.submitted" }
  | { readonly type: "dialog.closed" }

const emailError = (email: string): string | undefined => emailProblem(email.trim())

export const forgotPasswordMachine = setup({
  types: {
    context: {} as ForgotPasswordContext,
    events: {} as ForgotPasswordEvent,
    input: {} as ForgotPasswordInput,
  },
  actors: {
    /** Requests the password-reset email (POST /api/forgot-password). */
    forgotPassword: fromPromise<OkMessage, ForgotPasswordPayload>(async () => {
      throw new Error("forgotPassword is not provided")
    }),
  },
  guards: {
    /** The email field is not empty. */
    hasEmail: ({ context }) => context.email.trim() !== "",
    /** The email passes the §5 email rule. */
    isEmailValid: ({ context }) => emailError(context.email) === undefined,
  },
  actions: {
    /** Environment: a toast (supplied at the React boundary). */
    notify: (_, _params: NotifyParams) => {},
    openWith: assign(({ context, event }) => {
      assertEvent(event, "dialog.opened")
      return { email: event.email ?? context.email, fieldError: undefined, error: undefined }
    }),
    assignEmail: assign(({ event }) => {
      assertEvent(event, "field.changed")
      return { email: event.value, fieldError: undefined }
    }),
    showFieldError: assign({ fieldError: ({ context }) => emailError(context.email) }),
    clearError: assign({ error: undefined }),
    assignError: assign({
      error: ({ event }) => toFailure((event as { error?: unknown }).error, OtherMessages.forgotFailed).message,
    }),
  },
}).createMachine({
  id: "forgotPassword",
  context: ({ input }) => ({ email: input.email ?? "", fieldError: undefined, error: undefined }),
  initial: "closed",
  states: {
    closed: {
      description: "The 'Forgot your password?' modal is closed.",
      on: { "dialog.opened": { target: "open", actions: "openWith" } },
    },
    open: {
      description: "The 'Forgot your password?' modal is open.",
      initial: "editing",
      states: {
        editing: {
          description: "The user types the email; send is disabled while it is empty.",
          on: {
            "field.changed": { actions: "assignEmail" },
            "form.submitted": [
              { guard: "isEmailValid", target: "sending", actions: "clearError" },
              { guard: "hasEmail", actions: "showFieldError" },
            ],
            "dialog.closed": { target: "#forgotPassword.closed" },
          },
        },
        sending: {
          description: "The password-reset email is being requested; the modal cannot be closed meanwhile.",
          invoke: {
            id: "forgotPassword",
            src: "forgotPassword",
            input: ({ context }) => ({ email: context.email.trim() }),
            /** Sent: the modal closes with 'Password reset email sent successfully'. */
            onDone: {
              target: "#forgotPassword.closed",
              actions: { type: "notify", params: { kind: "success", message: SuccessMessages.passwordResetEmailSent } },
            },
            /** The request failed: the modal stays open with the §8 text inline and as a toast. */
            onError: {
              target: "editing",
              actions: ["assignError", { type: "notify", params: ({ context }) => ({ kind: "error", message: context.error ?? OtherMessages.forgotFailed }) }],
            },
          },
        },
      },
    },
  },
})
