/**
 * The posture part of an account's page (beyond the spec, issue 13): its scan schedule with the default scope, and the
 * mute rules that apply to it.
 *
 * Parallel regions:
 * - `viewer`: the user's scan_service and remediate_findings permissions (`loadViewer`); unknown reads as "not allowed".
 * - `schedule`: `loading` → `viewing` or `failed` ('Failed to load the scan schedule. Please try again.', Retry).
 *   `schedule.editRequested` (needs scan_service; else the spec's 'Permission denied: Cannot launch scans' toast) →
 *   `editing` with a draft of the saved values; `draft.changed` edits one field (frequency, time, weekday, day of the
 *   month, time zone, regions, services); `schedule.saveRequested` → `saving` → `viewing` with the schedule as saved
 *   (toast with the server's message, e.g. the next run) or back to `editing` with the server's message (a 400 says
 *   which region or service is unknown); `schedule.editCanceled` drops the draft.
 * - `form`: none | open (the Add mute rule / Edit dialog as a child, `muteRuleFormMachine`). `rule.addRequested` and
 *   `rule.editRequested` (a listed rule) need remediate_findings (else the toast); a saved rule reloads the list.
 * - `rules`: `loading` → `ready` or `failed` (Retry). `rule.deleteRequested` (needs remediate_findings, else the toast
 *   "You don't have permission to mute findings") → `deleting` → `loading` (toast with the server's message) or back to
 *   `ready` (toast with the failure). `rules.reloadRequested` reads them again.
 *
 * Events accepted:
 * - `schedule.retryRequested` — the user pressed Retry after the schedule failed to load: load it again.
 * - `schedule.editRequested` — the user pressed the schedule's edit button (needs scan_service; not for a member
 *   retired from its organisation, issue 31: its schedule skips every slot, `selectScheduleRetired`).
 * - `draft.changed` { patch } — the user changed fields of the schedule draft.
 * - `schedule.saveRequested` — the user pressed save on the schedule form.
 * - `schedule.editCanceled` — the user cancelled the schedule form: the draft is dropped.
 * - `rules.reloadRequested` — the mute rules are read again (Retry after a failure, or raised after a rule was saved).
 * - `rule.deleteRequested` { id } — the user asked to delete a listed mute rule (needs remediate_findings).
 * - `rule.addRequested` { today } — the user pressed 'Add mute rule' (needs remediate_findings).
 * - `rule.editRequested` { id, today } — the user pressed Edit on a listed mute rule (needs remediate_findings).
 */
import { assign, fromPromise, not, raise, setup } from "xstate"
import type { OkMessage } from "../contracts/common.ts"
import type { AccountId } from "../contracts/ids.ts"
import { ScanningMessages } from "../contracts/messages.ts"
import { PostureMessages, type MuteRule, type ScanSchedule, type ScanSchedulePayload } from "../contracts/posture.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"
import type { ScanViewer } from "./scan-effects.ts"
import { muteRuleFormMachine } from "./mute-rule-form.machine.ts"
import { errorOf, outputOf } from "./actor-output.ts"

export interface AccountPostureInput {
  readonly accountId: AccountId
  /** Beyond the spec (issue 31): a member retired from its organisation, whose schedule no longer runs (not editable). */
  readonly retired?: boolean
}

/** The editable fields of a schedule (null scope lists: everything). */
export type ScheduleDraft = ScanSchedulePayload

export interface AccountPostureContext extends AccountPostureInput {
  /** scan_service (schedule) and remediate_findings (mute rules); unknown reads as "not allowed". */
  readonly viewer: ScanViewer | null
  readonly schedule: ScanSchedule | null
  readonly draft: ScheduleDraft | null
  readonly scheduleError: string | null
  readonly rules: ReadonlyArray<MuteRule>
  readonly rulesError: string | null
  readonly deletingId: number | null
  /** The rule form's subject: the rule edited (null: a new one) and today's date. */
  readonly formTarget: { readonly rule: MuteRule | null; readonly today: string } | null
}

export type AccountPostureEvent =
  | { readonly type: "schedule.retryRequested" }
  | { readonly type: "schedule.editRequested" }
  | { readonly type: "draft.changed"; readonly patch: Partial<ScheduleDraft> }
  | { readonly type: "schedule.saveRequested" }
  | { readonly type: "schedule.editCanceled" }
  | { readonly type: "rules.reloadRequested" }
  | { readonly type: "rule.deleteRequested"; readonly id: number }
  /** Add mute rule / Edit (`today`: the user's date, YYYY-MM-DD). */
  | { readonly type: "rule.addRequested"; readonly today: string }
  | { readonly type: "rule.editRequested"; readonly id: number; readonly today: string }

/** The saved schedule as a draft to edit. */
export const draftOf = (s: ScanSchedule): ScheduleDraft => ({
  frequency: s.frequency,
  time_of_day: s.time_of_day,
  weekday: s.weekday,
  day_of_month: s.day_of_month,
  timezone: s.timezone,
  regions: s.regions,
  services: s.services,
})

/** Beyond the spec (issue 31): the account is a member retired from its organisation: its schedule is shown, not edited. */
export const selectScheduleRetired = (snapshot: { readonly context: Pick<AccountPostureContext, "retired"> }): boolean =>
  snapshot.context.retired === true

export const accountPostureMachine = setup({
  types: {
    context: {} as AccountPostureContext,
    events: {} as AccountPostureEvent,
    input: {} as AccountPostureInput,
  },
  actors: {
    /** GET the account's scan schedule with its default scope. */
    getSchedule: fromPromise<ScanSchedule, { readonly id: AccountId }>(async () => {
      throw new Error("getSchedule is not provided")
    }),
    /** PUT the account's scan schedule; answers with the schedule as saved and the server's message. */
    putSchedule: fromPromise<{ readonly message: string; readonly schedule: ScanSchedule }, { readonly id: AccountId; readonly schedule: ScanSchedulePayload }>(
      async () => {
        throw new Error("putSchedule is not provided")
      },
    ),
    /** GET the mute rules that apply to the account. */
    listMuteRules: fromPromise<ReadonlyArray<MuteRule>, { readonly account_id?: AccountId }>(async () => {
      throw new Error("listMuteRules is not provided")
    }),
    /** DELETE a mute rule; answers with the server's message. */
    deleteMuteRule: fromPromise<OkMessage, { readonly id: number }>(async () => {
      throw new Error("deleteMuteRule is not provided")
    }),
    /** The user's scan_service and remediate_findings permissions. */
    loadViewer: fromPromise<ScanViewer, void>(async () => {
      throw new Error("loadViewer is not provided")
    }),
    /** The Add mute rule / Edit dialog; its output says whether a rule was saved. */
    muteRuleForm: muteRuleFormMachine,
  },
  guards: {
    /** The account is still scanned: not a member retired from its organisation (issue 31). */
    isScannable: ({ context }) => !selectScheduleRetired({ context }),
    /** The user holds scan_service. */
    canSchedule: ({ context }) => context.viewer?.canLaunchScans === true,
    /** The user holds remediate_findings. */
    canMute: ({ context }) => context.viewer?.canRemediate === true,
    /** The rule is one of the listed ones. */
    isKnownRule: ({ context, event }) =>
      (event.type === "rule.deleteRequested" || event.type === "rule.editRequested") && context.rules.some((r) => r.id === event.id),
    /** The user does not hold remediate_findings (or the permissions are not known). */
    lacksMute: ({ context }) => context.viewer?.canRemediate !== true,
    /** The dialog finished with a saved rule. */
    savedRule: ({ event }) => (event as unknown as { output: { saved: boolean } }).output.saved,
  },
  actions: {
    assignViewer: assign({ viewer: ({ event }) => outputOf<ScanViewer>(event) }),
    assignSchedule: assign({ schedule: ({ event }) => outputOf<ScanSchedule>(event), scheduleError: null }),
    assignSaved: assign({
      schedule: ({ event }) => outputOf<{ readonly schedule: ScanSchedule }>(event).schedule,
      draft: null,
      scheduleError: null,
    }),
    assignScheduleLoadError: assign({ scheduleError: ({ event }) => toFailure(errorOf(event), PostureMessages.loadScheduleFailed).message }),
    assignScheduleSaveError: assign({ scheduleError: ({ event }) => toFailure(errorOf(event), PostureMessages.saveScheduleFailed).message }),
    startDraft: assign({ draft: ({ context }) => (context.schedule === null ? null : draftOf(context.schedule)), scheduleError: null }),
    patchDraft: assign({
      draft: ({ context, event }) => (event.type === "draft.changed" && context.draft !== null ? { ...context.draft, ...event.patch } : context.draft),
    }),
    dropDraft: assign({ draft: null, scheduleError: null }),
    assignRules: assign({ rules: ({ event }) => outputOf<ReadonlyArray<MuteRule>>(event), rulesError: null, deletingId: null }),
    assignRulesError: assign({ rulesError: ({ event }) => toFailure(errorOf(event), PostureMessages.loadRulesFailed).message }),
    assignDeleting: assign({ deletingId: ({ event }) => (event.type === "rule.deleteRequested" ? event.id : null) }),
    clearDeleting: assign({ deletingId: null }),
    assignFormTarget: assign({
      formTarget: ({ context, event }) =>
        event.type === "rule.addRequested"
          ? { rule: null, today: event.today }
          : event.type === "rule.editRequested"
            ? { rule: context.rules.find((r) => r.id === event.id) ?? null, today: event.today }
            : null,
    }),
    clearFormTarget: assign({ formTarget: null }),
    reloadRules: raise({ type: "rules.reloadRequested" }),
    /** Environment: a toast. */
    notify: (_, _params: NotifyParams) => {},
  },
}).createMachine({
  id: "accountPosture",
  type: "parallel",
  context: ({ input }) => ({
    ...input, viewer: null, schedule: null, draft: null, scheduleError: null, rules: [], rulesError: null, deletingId: null, formTarget: null,
  }),
  states: {
    viewer: {
      description: "The user's permissions on this page.",
      initial: "loading",
      states: {
        loading: {
          description: "The user's permissions are being read; until they are known nothing is allowed.",
          invoke: { id: "loadViewer", src: "loadViewer", /** The permissions are known. */ onDone: { target: "ready", actions: "assignViewer" }, /** The permissions could not be read: they stay unknown, read as not allowed. */ onError: { target: "ready" } },
        },
        ready: { description: "The permissions were read (or failed to be, and count as not allowed)." },
      },
    },
    schedule: {
      description: "The account's scan schedule and default scope: shown, or edited as a draft.",
      initial: "loading",
      states: {
        loading: {
          description: "The schedule card is loading.",
          invoke: {
            id: "getSchedule",
            src: "getSchedule",
            input: ({ context }) => ({ id: context.accountId }),
            /** The schedule arrived: the card shows it. */
            onDone: { target: "viewing", actions: "assignSchedule" },
            /** The schedule could not be loaded: the failure's message (by default 'Failed to load the scan schedule. Please try again.'). */
            onError: { target: "failed", actions: "assignScheduleLoadError" },
          },
        },
        failed: { description: "The schedule could not be loaded: the error is shown with Retry.", on: { "schedule.retryRequested": "loading" } },
        viewing: {
          description: "The card shows the saved schedule and scope, with an edit button.",
          on: {
            "schedule.editRequested": [
              { guard: not("isScannable") },
              { guard: "canSchedule", target: "editing", actions: "startDraft" },
              { actions: { type: "notify", params: { kind: "error", message: ScanningMessages.launchPermissionDenied } } },
            ],
          },
        },
        editing: {
          description: "The schedule form edits a draft (frequency, time, weekday, day of the month, time zone, regions, services), with the server's last error if any.",
          on: {
            "draft.changed": { actions: "patchDraft" },
            "schedule.saveRequested": "saving",
            "schedule.editCanceled": { target: "viewing", actions: "dropDraft" },
          },
        },
        saving: {
          description: "The draft is being saved.",
          invoke: {
            id: "putSchedule",
            src: "putSchedule",
            input: ({ context }) => ({ id: context.accountId, schedule: context.draft ?? draftOf(context.schedule!) }),
            /** Saved: the card shows the schedule as saved and a toast carries the server's message (e.g. the next run). */
            onDone: {
              target: "viewing",
              actions: ["assignSaved", { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output.message }) }],
            },
            /** The save failed: back to the form with the failure's message, also toasted (a 400 says which region or service is unknown). */
            onError: {
              target: "editing",
              actions: ["assignScheduleSaveError", { type: "notify", params: ({ context }) => ({ kind: "error", message: context.scheduleError ?? "" }) }],
            },
          },
        },
      },
    },
    rules: {
      description: "The mute rules that apply to the account.",
      initial: "loading",
      states: {
        loading: {
          description: "The mute rules are being read.",
          invoke: {
            id: "listMuteRules",
            src: "listMuteRules",
            input: ({ context }) => ({ account_id: context.accountId }),
            /** The rules arrived: the list shows them. */
            onDone: { target: "ready", actions: "assignRules" },
            /** The rules could not be read: the failure's message (by default 'Failed to load mute rules. Please try again.') with Retry. */
            onError: { target: "failed", actions: "assignRulesError" },
          },
        },
        failed: { description: "The mute rules could not be loaded: the error is shown with Retry.", on: { "rules.reloadRequested": "loading" } },
        ready: {
          description: "The list shows the mute rules with Edit and delete on each.",
          on: {
            "rules.reloadRequested": "loading",
            "rule.deleteRequested": [
              { guard: "isKnownRule", target: "checking", actions: "assignDeleting" },
            ],
          },
        },
        checking: {
          description: "A delete of a listed rule is checked against the user's permission before anything is sent.",
          /** With remediate_findings the rule is deleted; without it the toast says "You don't have permission to mute findings". */
          always: [
            { guard: "canMute", target: "deleting" },
            {
              target: "ready",
              actions: ["clearDeleting", { type: "notify", params: { kind: "error", message: PostureMessages.mutePermissionDenied } }],
            },
          ],
        },
        deleting: {
          description: "The rule is being deleted.",
          invoke: {
            id: "deleteMuteRule",
            src: "deleteMuteRule",
            input: ({ context }) => ({ id: context.deletingId ?? 0 }),
            /** Deleted: a toast carries the server's message and the rules are read again. */
            onDone: { target: "loading", actions: { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output.message }) } },
            /** The delete failed: the list stays and an error toast shows the failure (by default 'Failed to delete the mute rule. Please try again.'). */
            onError: {
              target: "ready",
              actions: [
                "clearDeleting",
                { type: "notify", params: ({ event }) => ({ kind: "error", message: toFailure(errorOf(event), PostureMessages.muteDeleteFailed).message }) },
              ],
            },
          },
        },
      },
    },
    form: {
      description: "The Add mute rule / Edit dialog.",
      initial: "none",
      states: {
        none: {
          description: "No mute rule dialog is open.",
          on: {
            "rule.addRequested": [
              { guard: "lacksMute", actions: { type: "notify", params: { kind: "error", message: PostureMessages.mutePermissionDenied } } },
              { target: "open", actions: "assignFormTarget" },
            ],
            "rule.editRequested": [
              { guard: "lacksMute", actions: { type: "notify", params: { kind: "error", message: PostureMessages.mutePermissionDenied } } },
              { guard: "isKnownRule", target: "open", actions: "assignFormTarget" },
            ],
          },
        },
        open: {
          description: "The mute rule dialog is open, for a new rule or the listed rule being edited.",
          invoke: {
            id: "muteRuleForm",
            src: "muteRuleForm",
            input: ({ context }) => ({
              accountId: context.accountId,
              rule: context.formTarget?.rule ?? null,
              canMute: context.viewer?.canRemediate === true,
              today: context.formTarget?.today ?? "",
            }),
            /** The dialog closed: the rules are read again if it saved one. */
            onDone: [
              { guard: "savedRule", target: "none", actions: ["clearFormTarget", "reloadRules"] },
              { target: "none", actions: "clearFormTarget" },
            ],
          },
        },
      },
    },
  },
})
