/**
 * /verification-pending (access spec §2 "Verification-pending", §8 "Resend", §9 link validity and cool-down; calls
 * `POST /api/resend-verification-link` through its `resendVerification` child).
 *
 * Input: the address carried by the previous screen (sign-up, the authentication gate), if any.
 * Events accepted:
 * - `field.changed` { value } — the user typed the email address; its field error clears.
 * - `form.submitted` — the user pressed send: a valid address is forwarded to the `resend` child, otherwise the §5 message shows on the field.
 *
 * The screen is an email form with the note that links are valid 30 minutes. A valid submission is forwarded to the
 * `resend` child as `resend.requested` { email }; the child owns the outcome (sent + 60 s cool-down, 'Please wait N
 * minute(s) before requesting another verification email' on 429, already verified, failure text). An invalid
 * address shows the §5 message on the field. The view disables the send button unless the child can take a request.
 */
import { assertEvent, assign, sendTo, setup } from "xstate"
import { validateResendVerification } from "../contracts/auth.ts"
import { resendVerificationMachine } from "./resend-verification.machine.ts"

export interface VerificationPendingInput {
  readonly email?: string
}

export interface VerificationPendingContext {
  readonly email: string
  readonly fieldError: string | undefined
}

export type VerificationPendingEvent =
  | { readonly type: "field.changed"; readonly value: string }
  | { readonly type: "form.submitted" }

const emailError = (email: string): string | undefined => validateResendVerification({ email: email.trim() })["email"]

export const verificationPendingMachine = setup({
  types: {
    context: {} as VerificationPendingContext,
    events: {} as VerificationPendingEvent,
    input: {} as VerificationPendingInput,
  },
  actors: {
    /** The resend-verification child (as `resend`) that owns the outcome of each request. */
    resendVerification: resendVerificationMachine,
  },
  guards: {
    /** The address passes the §5 email rule. */
    isEmailValid: ({ context }) => emailError(context.email) === undefined,
  },
  actions: {
    assignEmail: assign(({ event }) => {
      assertEvent(event, "field.changed")
      return { email: event.value, fieldError: undefined }
    }),
    showFieldError: assign({ fieldError: ({ context }) => emailError(context.email) }),
    requestResend: sendTo("resend", ({ context }) => ({ type: "resend.requested" as const, email: context.email.trim() })),
  },
}).createMachine({
  id: "verificationPending",
  context: ({ input }) => ({ email: input.email ?? "", fieldError: undefined }),
  invoke: {
    id: "resend",
    src: "resendVerification",
    input: ({ context }) => ({ email: context.email, autoSend: false }),
  },
  initial: "ready",
  states: {
    ready: {
      description: "The email form with the note that links are valid 30 minutes; the send button is enabled only while the `resend` child can take a request.",
      on: {
        "field.changed": { actions: "assignEmail" },
        "form.submitted": [{ guard: "isEmailValid", actions: "requestResend" }, { actions: "showFieldError" }],
      },
    },
  },
})
