/**
 * The change-password form of Profile Settings (access §2 "Change password form", §4 "After a successful password
 * change the forms and show toggles reset", §5 "Change password", §7 `POST /api/update-password`, §8 'Password updated
 * successfully' / 'Failed to update password. Please try again.').
 *
 * Events accepted:
 * - `field.changed` { field, value } — the user typed in the current, new or confirmation password field.
 * - `visibility.toggled` { field } — the user pressed a field's show/hide toggle.
 * - `form.reset` — the user pressed Reset (only once something was typed): the three fields, their show/hide toggles and the errors clear.
 * - `form.submitted` — the user submitted the form: a valid one opens 'Confirm password change', otherwise the field errors show.
 * - `confirm.accepted` — the user confirmed in the dialog (or pressed Ctrl/Cmd+Enter): the new password is sent.
 * - `confirm.cancelled` — the user cancelled the confirmation dialog: back to the form as it was.
 *
 * Reset and submit are enabled once something was typed (`hasInput`). Submitting validates (`validateChangePassword`:
 * current required, new ≥ 8 with an upper-case letter, a lower-case letter and a digit, "New passwords don't match")
 * and opens 'Confirm password change' with the security notice. While the call runs the dialog cannot be dismissed.
 * Success toasts and clears the three fields and the three toggles; a failure toasts the §8 text (a wrong current
 * password comes back as a 400 on `current_password`, shown on that field).
 */
import { and, assertEvent, assign, fromPromise, setup } from "xstate"
import type { OkMessage } from "../contracts/common.ts"
import { SuccessMessages, TeamFailureMessages } from "../contracts/messages.ts"
import { type ChangePasswordPayload, validateChangePassword } from "../contracts/profile.ts"
import type { FieldErrors } from "../contracts/validation.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"
import { confirmBeforeSaving, type SecretForm, type SecretFormEvent } from "./building-blocks.ts"
import { errorOf } from "./actor-output.ts"

export type PasswordField = "current_password" | "new_password" | "confirm_password"

export const PASSWORD_FIELDS: ReadonlyArray<PasswordField> = ["current_password", "new_password", "confirm_password"]

export type PasswordValues = { readonly [K in PasswordField]: string }
export type PasswordVisibility = { readonly [K in PasswordField]: boolean }

export interface ChangePasswordContext extends SecretForm<PasswordField> {
  readonly error: string | undefined
}

export type ChangePasswordEvent =
  | SecretFormEvent<PasswordField>
  | { readonly type: "form.reset" }
  | { readonly type: "confirm.accepted" }
  | { readonly type: "confirm.cancelled" }

export const emptyPasswordValues: PasswordValues = { current_password: "", new_password: "", confirm_password: "" }
export const hiddenPasswords: PasswordVisibility = { current_password: false, new_password: false, confirm_password: false }

/** Field messages the server returned with a 400 (`errors: [{ path, message }]`), for our three fields. */
export const serverFieldErrors = (error: unknown): FieldErrors => {
  const data = toFailure(error).data
  const list = typeof data === "object" && data !== null ? (data as { errors?: unknown }).errors : undefined
  if (!Array.isArray(list)) return {}
  const out: Record<string, string> = {}
  for (const item of list) {
    const path = (item as { path?: unknown }).path
    const message = (item as { message?: unknown }).message
    if (typeof path === "string" && typeof message === "string" && (PASSWORD_FIELDS as ReadonlyArray<string>).includes(path)) {
      if (!(path in out)) out[path] = message
    }
  }
  return out
}

const submit = confirmBeforeSaving("hasInput", and(["hasInput", "isFormValid"]))

export const changePasswordMachine = setup({
  types: {
    context: {} as ChangePasswordContext,
    events: {} as ChangePasswordEvent,
  },
  actors: {
    /** Changes the password (POST /api/update-password). */
    changePassword: fromPromise<OkMessage, ChangePasswordPayload>(async () => {
      throw new Error("changePassword is not provided")
    }),
  },
  guards: {
    /** Something was typed in one of the three fields. */
    hasInput: ({ context }) => PASSWORD_FIELDS.some((f) => context.values[f] !== ""),
    /** The values pass `validateChangePassword`. */
    isFormValid: ({ context }) => Object.keys(validateChangePassword(context.values)).length === 0,
  },
  actions: {
    /** Environment: a toast (supplied at the React boundary). */
    notify: (_, _params: NotifyParams) => {},
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
    resetForm: assign({ values: emptyPasswordValues, visible: hiddenPasswords, fieldErrors: {}, error: undefined }),
    showFieldErrors: assign({ fieldErrors: ({ context }) => validateChangePassword(context.values) }),
    clearError: assign({ error: undefined }),
    assignError: assign(({ event }) => ({
      error: toFailure(errorOf(event), TeamFailureMessages.updatePassword).message,
      fieldErrors: serverFieldErrors(errorOf(event)),
    })),
  },
}).createMachine({
  id: "changePassword",
  context: { values: emptyPasswordValues, visible: hiddenPasswords, fieldErrors: {}, error: undefined },
  initial: "editing",
  states: {
    editing: {
      description: "The change-password form (current, new and confirmation password with show/hide toggles); Reset and submit work once something was typed.",
      on: {
        "field.changed": { actions: "assignField" },
        "visibility.toggled": { actions: "toggleVisibility" },
        ...submit.editingOn,
      },
    },
    confirming: submit.confirming,
    saving: {
      description: "The password change is being sent; the confirmation dialog cannot be dismissed meanwhile.",
      invoke: {
        id: "changePassword",
        src: "changePassword",
        input: ({ context }) => ({ ...context.values }),
        /** Changed: 'Password updated successfully' toasts and the three fields and toggles clear. */
        onDone: {
          target: "editing",
          actions: ["resetForm", { type: "notify", params: { kind: "success", message: SuccessMessages.passwordUpdated } }],
        },
        /** The change failed: the error toasts ('Failed to update password. Please try again.' unless it says more); a wrong current password is shown on that field. */
        onError: {
          target: "editing",
          actions: [
            "assignError",
            {
              type: "notify",
              params: ({ event }) => ({ kind: "error", message: toFailure(errorOf(event), TeamFailureMessages.updatePassword).message }),
            },
          ],
        },
      },
    },
  },
})
