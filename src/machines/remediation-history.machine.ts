/**
 * The finding page's "Remediation history" card (issue 32, docs/remediation.md "Undo over the API"): the finding's
 * remediations (GET /api/remediations?finding_id=) with their state, who asked and when, and the undo of one.
 *
 * Two regions:
 * - `list`: the remediations, read when the card opens and again on `history.refreshRequested` (the finding page after a
 *   remediation started, or the undo region after a refusal; a read in flight then starts over, so the answer is never
 *   older than the request). While one of them still moves on its own (pending, applied, undoing) the list is re-read
 *   every 5 s; when such a remediation settles, the finding page is asked to reload (`finding.reloadRequested`: an
 *   undone fix fails again, a verified one is remediated). A failed first read shows the error with Retry; a failed poll
 *   keeps the list shown and tries again 5 s later.
 * - `undo`: Undo (`undo.requested`, only while the remediation's `undo.available`) → a confirmation → POST
 *   /api/remediations/{id}/undo. A 409 `RemediationConflict` (the resource changed since the fix) shows the field
 *   differences and offers "Undo anyway" (`undo.forced`, sent with `force: true`); any other refusal stays in the
 *   confirmation with its message. A 409 of either kind says the list shown is stale (the member retired from its
 *   organisation, the fix already undone, the resource changed): the list is read again, so a remediation whose undo
 *   is no longer offered loses its Undo while the server's message stays in the dialog, and the dialog's Undo and
 *   "Undo anyway" are accepted only while the remediation, as last read, still offers undo. An accepted undo replaces
 *   the remediation in the list (now undoing), toasts "Undo queued", and the list polls until it settles.
 *
 * Events accepted:
 * - `history.refreshRequested` — the finding page: a remediation started, read the list again (also raised after a
 *   refused undo).
 * - `history.retried` — the user pressed Retry after the list failed to load.
 * - `undo.requested` — the user pressed Undo on a remediation.
 * - `undo.confirmed` — the user confirmed the undo.
 * - `undo.forced` — the user pressed "Undo anyway" after the conflict.
 * - `undo.cancelled` — the user closed the confirmation or the conflict.
 */
import { assign, enqueueActions, fromPromise, raise, sendParent, setup } from "xstate"
import type { FindingId } from "../contracts/ids.ts"
import {
  RemediationMessages,
  remediationConflictOf,
  UNSETTLED_REMEDIATION_STATES,
  type Remediation,
  type RemediationId,
  type StateDifference,
} from "../contracts/remediations.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"
import { errorOf, outputOf } from "./actor-output.ts"

/** While a remediation is unsettled, the list is re-read every 5 s. */
export const HISTORY_POLL_MS = 5_000

export interface RemediationHistoryInput {
  readonly findingId: FindingId
}

export interface RemediationHistoryContext extends RemediationHistoryInput {
  /** The finding's remediations, newest first (null until first read). */
  readonly remediations: ReadonlyArray<Remediation> | null
  readonly error: string | null
  /** The remediation the undo dialog is about. */
  readonly target: RemediationId | null
  /** Whether the undo in flight overwrites the conflict (`force: true`). */
  readonly force: boolean
  /** The undo's refusal (other than a conflict), shown in the confirmation. */
  readonly undoError: string | null
  /** The conflict's message and field differences (post-fix value → now). */
  readonly conflict: { readonly message: string; readonly differences: ReadonlyArray<StateDifference> } | null
}

export type RemediationHistoryEvent =
  | { readonly type: "history.refreshRequested" }
  | { readonly type: "history.retried" }
  | { readonly type: "history.changed" }
  | { readonly type: "undo.requested"; readonly id: RemediationId }
  | { readonly type: "undo.confirmed" }
  | { readonly type: "undo.forced" }
  | { readonly type: "undo.cancelled" }

const unsettled = (list: ReadonlyArray<Remediation> | null): ReadonlySet<number> =>
  new Set((list ?? []).filter((r) => UNSETTLED_REMEDIATION_STATES.has(r.state)).map((r) => r.id))

/** The remediation the dialog is about, as last read. */
export const undoTarget = (context: Pick<RemediationHistoryContext, "remediations" | "target">): Remediation | undefined =>
  context.remediations?.find((r) => r.id === context.target)

const undoQueued: NotifyParams = { kind: "success", message: RemediationMessages.undoQueued }

export const remediationHistoryMachine = setup({
  types: {
    context: {} as RemediationHistoryContext,
    events: {} as RemediationHistoryEvent,
    input: {} as RemediationHistoryInput,
  },
  actors: {
    /** GET /api/remediations?finding_id=. */
    listRemediations: fromPromise<ReadonlyArray<Remediation>, { readonly finding_id: FindingId }>(async () => {
      throw new Error("listRemediations is not provided")
    }),
    /** POST /api/remediations/{id}/undo with `force` when the user overwrites a conflict. */
    undoRemediation: fromPromise<Remediation, { readonly id: RemediationId; readonly force: boolean }>(async () => {
      throw new Error("undoRemediation is not provided")
    }),
  },
  delays: { historyPoll: HISTORY_POLL_MS },
  guards: {
    /** A remediation shown is still moving on its own (pending, applied or undoing). */
    hasUnsettled: ({ context }) => unsettled(context.remediations).size > 0,
    /** The remediation exists and its undo is offered now. */
    isUndoable: ({ context, event }) =>
      event.type === "undo.requested" && context.remediations?.some((r) => r.id === event.id && r.undo.available) === true,
    /** The undo was refused with a `RemediationConflict` (the resource changed since the fix). */
    isConflict: ({ event }) => remediationConflictOf(toFailure(errorOf(event)).data) !== null,
    /** The undo was refused with a 409: the list shown no longer says what the server knows (retired, undone, changed). */
    isStaleRefusal: ({ event }) => toFailure(errorOf(event)).status === 409,
    /** The dialog's remediation, as last read, still offers undo (a re-read after a refusal may have withdrawn it). */
    isTargetUndoable: ({ context }) => undoTarget(context)?.undo.available === true,
  },
  actions: {
    /** The list as read; when a remediation that was moving has settled, the finding page reloads. */
    assignList: enqueueActions(({ context, event, enqueue }) => {
      const list = outputOf<ReadonlyArray<Remediation>>(event)
      const before = unsettled(context.remediations)
      const now = unsettled(list)
      const settled = [...before].some((id) => !now.has(id) && list.some((r) => r.id === id))
      enqueue.assign({ remediations: list, error: null })
      if (settled) enqueue({ type: "reportSettled" } as never)
    }),
    assignListError: assign({ error: ({ event }) => toFailure(errorOf(event), RemediationMessages.historyFailed).message }),
    assignTarget: assign({
      target: ({ event }) => (event.type === "undo.requested" ? event.id : null),
      undoError: null,
      conflict: null,
      force: false,
    }),
    clearTarget: assign({ target: null, undoError: null, conflict: null, force: false }),
    assignForce: assign({ force: ({ event }) => event.type === "undo.forced" }),
    /** The remediation as the server now has it (undoing) replaces the one shown. */
    assignUndone: assign({
      remediations: ({ context, event }) => {
        const updated = outputOf<Remediation>(event)
        return (context.remediations ?? []).map((r) => (r.id === updated.id ? updated : r))
      },
      target: null,
      undoError: null,
      conflict: null,
      force: false,
    }),
    assignConflict: assign({ conflict: ({ event }) => remediationConflictOf(toFailure(errorOf(event)).data), undoError: null }),
    assignUndoError: assign({ undoError: ({ event }) => toFailure(errorOf(event), RemediationMessages.undoFailed).message, conflict: null, force: false }),
    announceChange: raise({ type: "history.changed" }),
    /** After a refused undo: the list region reads the remediations again. */
    rereadList: raise({ type: "history.refreshRequested" }),
    /** Tells the finding page a remediation settled: it reads the finding again. */
    reportSettled: sendParent({ type: "finding.reloadRequested" }),
    /** Environment: a toast (supplied at the React boundary). */
    notify: (_, _params: NotifyParams) => {},
  },
}).createMachine({
  id: "remediationHistory",
  type: "parallel",
  context: ({ input }) => ({ ...input, remediations: null, error: null, target: null, force: false, undoError: null, conflict: null }),
  states: {
    list: {
      description: "The finding's remediations, re-read while one of them is still moving.",
      initial: "loading",
      states: {
        loading: {
          description: "The remediations are being read (the list already shown stays).",
          /** A refresh asked meanwhile (e.g. after a refused undo) starts the read over: the answer must postdate it. */
          on: { "history.refreshRequested": { target: "loading", reenter: true } },
          invoke: {
            id: "listRemediations",
            src: "listRemediations",
            input: ({ context }) => ({ finding_id: context.findingId }),
            /** The list replaces the one shown; a remediation that settled since the last read reloads the finding page. */
            onDone: { target: "routing", actions: "assignList" },
            /** The list could not be read: the card shows the error with Retry (a poll's failure keeps the list and tries again). */
            onError: [{ guard: "hasUnsettled", target: "watching" }, { target: "failed", actions: "assignListError" }],
          },
        },
        failed: {
          description: "The list could not be read: 'Failed to load the remediation history. Please try again.' with Retry.",
          on: { "history.retried": "loading", "history.refreshRequested": "loading" },
        },
        routing: {
          description: "Decides after every read whether a remediation needs watching.",
          /** An unsettled remediation is watched; otherwise the list stays still. */
          always: [{ guard: "hasUnsettled", target: "watching" }, { target: "still" }],
        },
        still: {
          description: "Every remediation shown has settled: nothing is polled.",
          on: { "history.refreshRequested": "loading", "history.changed": "routing" },
        },
        watching: {
          description: "A remediation is pending, applied or undoing: the list is re-read 5 s after the last read.",
          after: { historyPoll: "loading" },
          on: { "history.refreshRequested": "loading", "history.changed": "routing" },
        },
      },
    },
    undo: {
      description: "The undo of one remediation: confirmation, the call, and a conflict to overwrite.",
      initial: "idle",
      states: {
        idle: {
          description: "No undo dialog is open.",
          on: { "undo.requested": { guard: "isUndoable", target: "confirming", actions: "assignTarget" } },
        },
        confirming: {
          description: "The dialog asks to confirm the undo (with the previous refusal, if any).",
          on: {
            "undo.confirmed": { guard: "isTargetUndoable", target: "undoing", actions: "assignForce" },
            "undo.cancelled": { target: "idle", actions: "clearTarget" },
          },
        },
        undoing: {
          description: "The undo request is in flight; the dialog cannot be closed.",
          invoke: {
            id: "undoRemediation",
            src: "undoRemediation",
            input: ({ context }) => ({ id: context.target ?? (0 as RemediationId), force: context.force }),
            /** The undo was queued: the remediation (now undoing) replaces the one shown, 'Undo queued' is toasted and the list is watched. */
            onDone: { target: "idle", actions: ["assignUndone", { type: "notify", params: undoQueued }, "announceChange"] },
            onError: [
              /** The resource changed since the fix: the differences are shown with 'Undo anyway', and the list is read again. */
              { guard: "isConflict", target: "conflict", actions: ["assignConflict", "rereadList"] },
              /**
               * Refused with a 409 (e.g. the member retired, the retention passed, already undone): the server's message
               * stays in the confirmation and the list is read again (its Undo goes once the server no longer offers it).
               */
              { guard: "isStaleRefusal", target: "confirming", actions: ["assignUndoError", "rereadList"] },
              /** Failed otherwise (e.g. the server could not be reached): the message is shown in the confirmation. */
              { target: "confirming", actions: "assignUndoError" },
            ],
          },
        },
        conflict: {
          description: "The resource changed since the fix: the field differences, with 'Undo anyway' (force) or Cancel.",
          on: {
            "undo.forced": { guard: "isTargetUndoable", target: "undoing", actions: "assignForce" },
            "undo.cancelled": { target: "idle", actions: "clearTarget" },
          },
        },
      },
    },
  },
})
