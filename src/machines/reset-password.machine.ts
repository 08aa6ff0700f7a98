/**
 * /reset-password?token=… (access spec §2 "Reset password", §5 reset rules, §8 'Invalid or expired reset link',
 * 'Failed to reset password', 'Password reset successfully!'; calls `POST /api/validate-reset-token` then
 * `POST /api/reset-password`).
 *
 * Input: the `token` query parameter.
 * Flow: `validating` the token first (no token → `invalid` at once), then `invalid` ('Invalid or expired reset
 * link', with a way back to sign in), `unavailable` (the check itself failed: network or server; Retry), or `valid`:
 * the form (new password + confirmation, §5 rules, show/hide toggles) → `submitting` → `succeeded` ('Password reset
 * successfully!' with a sign-in button that goes to /login carrying that message). A reset answered with a token
 * problem lands in `invalid`; any other failure stays on the form with the §8 text.
 * Events accepted:
 * - `field.changed` { field, value } — the user typed the new password or its confirmation.
 * - `visibility.toggled` { field } — the user showed or hid one of the two password fields.
 * - `form.submitted` — the user pressed the reset button: a valid form is sent, otherwise the field errors show.
 * - `validation.retried` — the user pressed Retry after the token check itself failed.
 * - `signIn.requested` — the user pressed the sign-in button after the reset: goes to /login with 'Password reset successfully!' (and the account's email).
 */
import { assertEvent, assign, fromPromise, setup } from "xstate"
import {
  type ResetPasswordPayload,
  type ValidateResetTokenPayload,
  type ValidateResetTokenResponse,
  validateResetPassword,
} from "../contracts/auth.ts"
import type { OkMessage } from "../contracts/common.ts"
import { OtherMessages, SuccessMessages } from "../contracts/messages.ts"
import { AuthPaths, toFailure, type LoginRouteState, type NavigateParams } from "./auth-effects.ts"
import type { SecretForm, SecretFormEvent } from "./building-blocks.ts"
import { errorOf } from "./actor-output.ts"

export type ResetPasswordField = "new_password" | "confirm_password"

export interface ResetPasswordInput {
  readonly token?: string | null
  readonly initialValues?: Partial<Readonly<Record<ResetPasswordField, string>>>
}

export interface ResetPasswordContext extends SecretForm<ResetPasswordField> {
  readonly token: string
  /** The account the token belongs to (`data.email` of the validation). */
  readonly email: string
  readonly error: string | undefined
}

export type ResetPasswordEvent =
  | SecretFormEvent<ResetPasswordField>
  | { readonly type: "validation.retried" }
  | { readonly type: "signIn.requested" }

/** The catalogue types that mean "this reset link is dead". */
const TOKEN_PROBLEMS = new Set<string>(["INVALID_TOKEN", "TOKEN_EXPIRED", "USER_NOT_FOUND"])

const isTokenFailure = (error: unknown): boolean => {
  const failure = toFailure(error)
  return TOKEN_PROBLEMS.has(failure.type) || failure.message === OtherMessages.invalidResetLink
}

export const resetPasswordMachine = setup({
  types: {
    context: {} as ResetPasswordContext,
    events: {} as ResetPasswordEvent,
    input: {} as ResetPasswordInput,
  },
  actors: {
    /** Checks the reset token (POST /api/validate-reset-token); answers with the account's email. */
    validateResetToken: fromPromise<ValidateResetTokenResponse, ValidateResetTokenPayload>(async () => {
      throw new Error("validateResetToken is not provided")
    }),
    /** Sets the new password (POST /api/reset-password). */
    resetPassword: fromPromise<OkMessage, ResetPasswordPayload>(async () => {
      throw new Error("resetPassword is not provided")
    }),
  },
  guards: {
    /** The link carried a token. */
    hasToken: ({ context }) => context.token !== "",
    /** The reset was refused because of the link (a refused password is not a token problem). */
    isTokenProblem: ({ event }) => isTokenFailure(errorOf(event)),
    /** Validating a token: any client error (except rate limiting) means the link cannot be used. */
    isDeadLink: ({ event }) => {
      const failure = toFailure(errorOf(event))
      const status = failure.status ?? 0
      return isTokenFailure(failure) || (status >= 400 && status < 500 && status !== 429)
    },
    /** The new password and its confirmation pass `validateResetPassword`. */
    isFormValid: ({ context }) =>
      Object.keys(validateResetPassword({ token: context.token, ...context.values })).length === 0,
  },
  actions: {
    /** Environment: wouter navigation (supplied at the React boundary). */
    navigate: (_, _params: NavigateParams) => {},
    assignEmail: assign({
      email: ({ event }) => (event as { output?: ValidateResetTokenResponse }).output?.data.email ?? "",
    }),
    assignField: assign(({ context, event }) => {
      assertEvent(event, "field.changed")
      const { [event.field]: _cleared, ...fieldErrors } = context.fieldErrors
      return { values: { ...context.values, [event.field]: event.value }, fieldErrors }
    }),
    toggleVisibility: assign({
      visible: ({ context, event }) => {
        assertEvent(event, "visibility.toggled")
        return { ...context.visible, [event.field]: !context.visible[event.field] }
      },
    }),
    showFieldErrors: assign({
      fieldErrors: ({ context }) => {
        const { token: _token, ...fields } = validateResetPassword({ token: context.token, ...context.values })
        return fields
      },
    }),
    clearErrors: assign({ fieldErrors: {}, error: undefined }),
    assignError: assign({ error: ({ event }) => toFailure(errorOf(event), OtherMessages.resetFailed).message }),
    assignInvalidLink: assign({ error: OtherMessages.invalidResetLink }),
    /** Nothing typed survives the end of the flow. */
    clearPasswords: assign({
      values: { new_password: "", confirm_password: "" },
      visible: { new_password: false, confirm_password: false },
    }),
  },
}).createMachine({
  id: "resetPassword",
  context: ({ input }) => ({
    token: (input.token ?? "").trim(),
    email: "",
    values: { new_password: "", confirm_password: "", ...input.initialValues },
    visible: { new_password: false, confirm_password: false },
    fieldErrors: {},
    error: undefined,
  }),
  initial: "checking",
  states: {
    checking: {
      description: "The link is read: without a token it is invalid at once.",
      /** A token is checked with the server; without one the link is invalid. */
      always: [{ guard: "hasToken", target: "validating" }, { target: "invalid", actions: "assignInvalidLink" }],
    },
    validating: {
      description: "The reset token is being checked with the server.",
      invoke: {
        id: "validateResetToken",
        src: "validateResetToken",
        input: ({ context }) => ({ token: context.token }),
        /** The token is valid: the form shows, for the account's email. */
        onDone: { target: "valid", actions: "assignEmail" },
        /** A dead link (invalid or expired token) shows 'Invalid or expired reset link'; any other failure shows the error with Retry. */
        onError: [
          { guard: "isDeadLink", target: "invalid", actions: "assignInvalidLink" },
          { target: "unavailable", actions: "assignError" },
        ],
      },
    },
    invalid: { description: "'Invalid or expired reset link', with a way back to sign in.", entry: "clearPasswords" },
    unavailable: {
      description: "The token check itself failed (network or server): the error is shown with Retry.",
      on: { "validation.retried": { target: "validating", actions: "clearErrors" } },
    },
    valid: {
      description: "The token is valid: the new-password form is shown.",
      initial: "editing",
      on: {
        "field.changed": { actions: "assignField" },
        "visibility.toggled": { actions: "toggleVisibility" },
      },
      states: {
        editing: {
          description: "The user types the new password and its confirmation (§5 rules, show/hide toggles).",
          on: {
            "form.submitted": [
              { guard: "isFormValid", target: "submitting", actions: "clearErrors" },
              { actions: "showFieldErrors" },
            ],
          },
        },
        submitting: {
          description: "The new password is being sent.",
          invoke: {
            id: "resetPassword",
            src: "resetPassword",
            input: ({ context }) => ({ token: context.token, ...context.values }),
            /** The password was reset: the success screen shows. */
            onDone: { target: "#resetPassword.succeeded" },
            /** A token problem lands on 'Invalid or expired reset link'; any other failure returns to the form with the §8 text ('Failed to reset password' unless the server said more). */
            onError: [
              { guard: "isTokenProblem", target: "#resetPassword.invalid", actions: "assignInvalidLink" },
              { target: "editing", actions: "assignError" },
            ],
          },
        },
      },
    },
    succeeded: {
      description: "'Password reset successfully!' with a sign-in button.",
      entry: "clearPasswords",
      on: {
        "signIn.requested": {
          target: "leaving",
          actions: {
            type: "navigate",
            params: ({ context }) => ({
              to: AuthPaths.login,
              state: {
                ...(context.email === "" ? {} : { email: context.email }),
                message: SuccessMessages.passwordReset,
              } satisfies LoginRouteState,
            }),
          },
        },
      },
    },
    leaving: { description: "The user went on to /login.", type: "final" },
  },
})
