/**
 * The "Mute" dialog of a finding (beyond the spec, issue 13): accept the risk of one failing resource, or of the whole
 * check on this account, with a reason and an optional expiry.
 *
 * - Opens in `editing` with the scope the user clicked: `resource` (a row's Mute: the check on that one resource of
 *   the account) or `check` (the finding's Mute check: the check on the whole account). `scope.changed` switches
 *   between them when a resource is known.
 * - `reason.changed`, `expiry.changed` (a YYYY-MM-DD date, or "" for never) edit the fields; `mute.submitted` checks
 *   them (a reason; an expiry after `today`), then `saving` posts the rule. Without remediate_findings nothing is
 *   sent and the toast says "You don't have permission to mute findings".
 * - `saving` → `saved` (final; the toast shows the server's message; the output says how many rows changed) or back to
 *   `editing` with the server's message above the form.
 * - `dialog.closed` finishes without saving (not while the call is in flight).
 */
import { assign, fromPromise, setup } from "xstate"
import type { AccountId } from "../contracts/ids.ts"
import { PostureMessages, type MuteRulePayload, type MuteRuleResponse } from "../contracts/posture.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"

export type MuteScopeChoice = "resource" | "check"

export interface MuteRuleInput {
  readonly checkId: string
  readonly checkTitle: string
  readonly accountId: AccountId
  readonly accountName: string
  /** The resource of the row the dialog was opened from (null: opened for the whole check). */
  readonly resourceId: string | null
  readonly canMute: boolean
  /** Today in the user's calendar, YYYY-MM-DD (an expiry must be later). */
  readonly today: string
}

export interface MuteRuleContext extends MuteRuleInput {
  readonly scope: MuteScopeChoice
  readonly reason: string
  readonly expiry: string
  readonly error: string | null
  readonly fieldErrors: Readonly<Record<string, string>>
  readonly rowsChanged: number
  readonly saved: boolean
}

export type MuteRuleEvent =
  | { readonly type: "scope.changed"; readonly scope: MuteScopeChoice }
  | { readonly type: "reason.changed"; readonly value: string }
  | { readonly type: "expiry.changed"; readonly value: string }
  | { readonly type: "mute.submitted" }
  | { readonly type: "dialog.closed" }

export interface MuteRuleOutput {
  readonly saved: boolean
  readonly rowsChanged: number
}

const DATE = /^\d{4}-\d{2}-\d{2}$/

/** Field problems of the form, in the server's words (empty when it can be sent). */
export const validateMuteForm = (c: Pick<MuteRuleContext, "reason" | "expiry" | "today">): Readonly<Record<string, string>> => ({
  ...(c.reason.trim() === "" ? { reason: PostureMessages.muteReasonRequired } : {}),
  ...(c.expiry !== "" && (!DATE.test(c.expiry) || c.expiry <= c.today) ? { expires_at: PostureMessages.muteExpiryPast } : {}),
})

/** The rule the form describes: the check on the account, narrowed to the resource when that scope is chosen. */
export const mutePayload = (c: Pick<MuteRuleContext, "scope" | "reason" | "expiry" | "checkId" | "accountId" | "resourceId">): MuteRulePayload => ({
  reason: c.reason.trim(),
  check_id: c.checkId,
  account_id: c.accountId,
  ...(c.scope === "resource" && c.resourceId !== null ? { resource_pattern: c.resourceId } : {}),
  // The end of the chosen day, UTC.
  ...(c.expiry === "" ? {} : { expires_at: `${c.expiry}T23:59:59.000Z` }),
})

const errorOf = (event: unknown): unknown => (event as { readonly error?: unknown }).error

export const muteRuleMachine = setup({
  types: {
    context: {} as MuteRuleContext,
    events: {} as MuteRuleEvent,
    input: {} as MuteRuleInput,
    output: {} as MuteRuleOutput,
  },
  actors: {
    createMuteRule: fromPromise<MuteRuleResponse, MuteRulePayload>(async () => {
      throw new Error("createMuteRule is not provided")
    }),
  },
  guards: {
    canMute: ({ context }) => context.canMute,
    isValid: ({ context }) => Object.keys(validateMuteForm(context)).length === 0,
    hasResource: ({ context, event }) => event.type === "scope.changed" && (event.scope === "check" || context.resourceId !== null),
  },
  actions: {
    assignScope: assign({ scope: ({ context, event }) => (event.type === "scope.changed" ? event.scope : context.scope) }),
    assignReason: assign(({ context, event }) =>
      event.type === "reason.changed" ? { reason: event.value, fieldErrors: { ...context.fieldErrors, reason: "" } } : {}),
    assignExpiry: assign(({ context, event }) =>
      event.type === "expiry.changed" ? { expiry: event.value, fieldErrors: { ...context.fieldErrors, expires_at: "" } } : {}),
    assignValidation: assign({ fieldErrors: ({ context }) => validateMuteForm(context), error: null }),
    assignSaved: assign({ rowsChanged: ({ event }) => (event as unknown as { output: MuteRuleResponse }).output.rows_changed, saved: true, error: null }),
    assignError: assign({ error: ({ event }) => toFailure(errorOf(event), PostureMessages.muteFailed).message }),
    /** Environment: a toast. */
    notify: (_, _params: NotifyParams) => {},
  },
}).createMachine({
  id: "muteRule",
  context: ({ input }) => ({
    ...input,
    scope: input.resourceId === null ? "check" : "resource",
    reason: "",
    expiry: "",
    error: null,
    fieldErrors: {},
    rowsChanged: 0,
    saved: false,
  }),
  initial: "editing",
  output: ({ context }) => ({ saved: context.saved, rowsChanged: context.rowsChanged }),
  states: {
    editing: {
      on: {
        "scope.changed": { guard: "hasResource", actions: "assignScope" },
        "reason.changed": { actions: "assignReason" },
        "expiry.changed": { actions: "assignExpiry" },
        "mute.submitted": [
          { guard: "isValid", target: "checking" },
          { actions: "assignValidation" },
        ],
        "dialog.closed": "closed",
      },
    },
    checking: {
      always: [
        { guard: "canMute", target: "saving" },
        { target: "editing", actions: { type: "notify", params: { kind: "error", message: PostureMessages.mutePermissionDenied } } },
      ],
    },
    saving: {
      invoke: {
        id: "createMuteRule",
        src: "createMuteRule",
        input: ({ context }) => mutePayload(context),
        onDone: {
          target: "saved",
          actions: ["assignSaved", { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output.message }) }],
        },
        onError: {
          target: "editing",
          actions: ["assignError", { type: "notify", params: ({ context }) => ({ kind: "error", message: context.error ?? "" }) }],
        },
      },
    },
    saved: { type: "final" },
    closed: { type: "final" },
  },
})
