/**
 * A mute rule's dialog (beyond the spec, issue 13): the account page's "Add mute rule" / "Edit", and a finding page's
 * "Mute" (a new rule starting with the finding's check and, from a row, its resource). A rule on one account, narrowed
 * by any of a check id, a resource pattern (a glob: `*`, `?`) and a tag (key, optional value), with a reason and an
 * optional expiry. With none of them it mutes every failing resource of the account.
 *
 * - `editing`: `field.changed` edits one field; `rule.submitted` checks the form (a reason; a tag value only with a tag
 *   key; an expiry after `today`), then `saving` creates the rule (POST) or replaces the one being edited (PUT). Without
 *   remediate_findings nothing is sent and the toast says "You don't have permission to mute findings".
 * - `saving` → `saved` (final; toast with the server's message) or back to `editing` with the server's message (an
 *   unknown check, a pattern or tag that matches nothing).
 * - `dialog.closed` finishes without saving (not while the call is in flight).
 *
 * Events accepted:
 * - `field.changed` { field, value } — the user edited one field of the form; that field's error is cleared.
 * - `rule.submitted` — the user pressed save: a valid form goes on to the permission check, an invalid one shows its
 *   field errors.
 */
import { assign, fromPromise, setup } from "xstate"
import type { AccountId } from "../contracts/ids.ts"
import { PostureMessages, type MuteRule, type MuteRulePayload, type MuteRuleResponse } from "../contracts/posture.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"

export interface MuteRuleFields {
  readonly check_id: string
  readonly resource_pattern: string
  readonly tag_key: string
  readonly tag_value: string
  readonly reason: string
  /** YYYY-MM-DD, or "" for never. */
  readonly expiry: string
}

export interface MuteRuleFormInput {
  readonly accountId: AccountId
  /** The rule being edited (null: a new rule). */
  readonly rule: MuteRule | null
  /** Fields a new rule starts with (the finding page's Mute: its check and the row's resource). */
  readonly initial?: Partial<MuteRuleFields>
  readonly canMute: boolean
  readonly today: string
}

export interface MuteRuleFormContext extends MuteRuleFormInput {
  readonly fields: MuteRuleFields
  readonly fieldErrors: Readonly<Partial<Record<keyof MuteRuleFields, string>>>
  readonly error: string | null
  readonly saved: boolean
}

export type MuteRuleFormEvent =
  | { readonly type: "field.changed"; readonly field: keyof MuteRuleFields; readonly value: string }
  | { readonly type: "rule.submitted" }
  | { readonly type: "dialog.closed" }

const DATE = /^\d{4}-\d{2}-\d{2}$/

/** A saved rule as the form's fields. */
export const fieldsOf = (rule: MuteRule | null): MuteRuleFields => ({
  check_id: rule?.check_id ?? "",
  resource_pattern: rule?.resource_pattern ?? "",
  tag_key: rule?.tag_key ?? "",
  tag_value: rule?.tag_value ?? "",
  reason: rule?.reason ?? "",
  expiry: rule?.expires_at === null || rule?.expires_at === undefined ? "" : rule.expires_at.slice(0, 10),
})

/** The form's problems in the server's words (empty when it can be sent). */
export const validateRuleFields = (f: MuteRuleFields, today: string): Readonly<Partial<Record<keyof MuteRuleFields, string>>> => ({
  ...(f.reason.trim() === "" ? { reason: PostureMessages.muteReasonRequired } : {}),
  ...(f.tag_value.trim() !== "" && f.tag_key.trim() === "" ? { tag_value: PostureMessages.muteTagValueWithoutKey } : {}),
  ...(f.expiry !== "" && (!DATE.test(f.expiry) || f.expiry <= today) ? { expiry: PostureMessages.muteExpiryPast } : {}),
})

const orNull = (s: string): string | null => (s.trim() === "" ? null : s.trim())

/** The rule the form describes, on the account. */
export const rulePayload = (accountId: AccountId, f: MuteRuleFields): MuteRulePayload => ({
  reason: f.reason.trim(),
  account_id: accountId,
  check_id: orNull(f.check_id),
  resource_pattern: orNull(f.resource_pattern),
  tag_key: orNull(f.tag_key),
  tag_value: orNull(f.tag_value),
  expires_at: f.expiry === "" ? null : `${f.expiry}T23:59:59.000Z`,
})

export const muteRuleFormMachine = setup({
  types: {
    context: {} as MuteRuleFormContext,
    events: {} as MuteRuleFormEvent,
    input: {} as MuteRuleFormInput,
    output: {} as { readonly saved: boolean },
  },
  actors: {
    /** POST a new mute rule (no id) or PUT the rule being edited; answers with the server's message. */
    saveMuteRule: fromPromise<MuteRuleResponse, { readonly id: number | null; readonly payload: MuteRulePayload }>(async () => {
      throw new Error("saveMuteRule is not provided")
    }),
  },
  guards: {
    /** The form has no problem: a reason, a tag value only with a tag key, an expiry (if any) after today. */
    isValid: ({ context }) => Object.keys(validateRuleFields(context.fields, context.today)).length === 0,
    /** The user holds remediate_findings in this workspace. */
    canMute: ({ context }) => context.canMute,
  },
  actions: {
    assignField: assign(({ context, event }) =>
      event.type === "field.changed"
        ? { fields: { ...context.fields, [event.field]: event.value }, fieldErrors: { ...context.fieldErrors, [event.field]: undefined } }
        : {}),
    assignValidation: assign({ fieldErrors: ({ context }) => validateRuleFields(context.fields, context.today), error: null }),
    assignSaved: assign({ saved: true, error: null }),
    assignError: assign({ error: ({ event }) => toFailure((event as unknown as { error?: unknown }).error, PostureMessages.muteFailed).message }),
    /** Environment: a toast. */
    notify: (_, _params: NotifyParams) => {},
  },
}).createMachine({
  id: "muteRuleForm",
  context: ({ input }) => ({ ...input, fields: { ...fieldsOf(input.rule), ...input.initial }, fieldErrors: {}, error: null, saved: false }),
  initial: "editing",
  output: ({ context }) => ({ saved: context.saved }),
  states: {
    editing: {
      description: "The dialog's form is open for editing, showing any field errors or the server's last error.",
      on: {
        "field.changed": { actions: "assignField" },
        "rule.submitted": [{ guard: "isValid", target: "checking" }, { actions: "assignValidation" }],
        "dialog.closed": "closed",
      },
    },
    checking: {
      description: "A valid form is checked against the user's permission before anything is sent.",
      /** With remediate_findings the rule is sent; without it nothing is sent and the toast says "You don't have permission to mute findings". */
      always: [
        { guard: "canMute", target: "saving" },
        { target: "editing", actions: { type: "notify", params: { kind: "error", message: PostureMessages.mutePermissionDenied } } },
      ],
    },
    saving: {
      description: "The rule is being created (POST) or replaced (PUT); the dialog cannot be closed meanwhile.",
      invoke: {
        id: "saveMuteRule",
        src: "saveMuteRule",
        input: ({ context }) => ({ id: context.rule?.id ?? null, payload: rulePayload(context.accountId, context.fields) }),
        /** The rule was saved: a success toast carries the server's message and the dialog finishes as saved. */
        onDone: {
          target: "saved",
          actions: ["assignSaved", { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output.message }) }],
        },
        /** The server refused the rule (an unknown check, a pattern or tag that matches nothing…): back to the form with its message, also toasted. */
        onError: {
          target: "editing",
          actions: ["assignError", { type: "notify", params: ({ context }) => ({ kind: "error", message: context.error ?? "" }) }],
        },
      },
    },
    saved: { type: "final", description: "The rule was saved: the dialog closes and reports `saved: true`." },
    closed: { type: "final", description: "The dialog was closed without saving (reports `saved: false`)." },
  },
})
