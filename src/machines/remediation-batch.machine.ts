/**
 * A bulk remediation's page, /dashboard/remediations/batches/{id} (issue 32 part 4): the batch's progress and counts
 * (GET /api/remediation-batches/{id}), its per-resource outcomes read from the server page by page (…/items, cursor),
 * read again every BATCH_POLL_MS while it works, Stop while it runs and one Undo for the whole batch once it is done.
 *
 * `loading` → `ready` or `failed` (its message; `batch.retryRequested`). `ready` runs two regions:
 * - `poll`: `checking` → `waiting` while the batch works (queued, running, stopping, undoing), then `refreshing` (the
 *   batch and as many items as are shown, read again; a failed read keeps what is shown and tries again later), or
 *   `settled` once it is done. `batch.changed` (raised after stop or undo) checks again.
 * - `action`: `idle` | `confirmingStop` → `stopping` | `confirmingUndo` → `undoing` | `loadingMore`.
 *   `stop.requested` opens the confirmation while the batch is queued or running; `undo.requested` { force } while it
 *   is done and reversible (force: "Undo anyway" over the items whose resource changed since the fix);
 *   `action.confirmed` sends it (success toast with the server's message, the batch as answered is shown and polled);
 *   a refusal toasts and goes back; `action.canceled` closes the confirmation.
 *   `items.loadMoreRequested` appends the next page of items while there is one, once the batch is done (while it
 *   works, the items shown are what the poll reads again).
 *
 * Events accepted:
 * - `batch.retryRequested` — the user pressed Try again after the batch failed to load.
 * - `stop.requested` — the user pressed Stop.
 * - `undo.requested` { force } — the user pressed Undo batch (force false) or Undo anyway (force true).
 * - `action.confirmed` — the user confirmed Stop or Undo in its dialog.
 * - `action.canceled` — the user closed that dialog.
 * - `items.loadMoreRequested` — the user pressed Load more under the items.
 * - `batch.changed` — raised by the machine after Stop or Undo: the poll looks at the batch's state again.
 */
import { assertEvent, assign, fromPromise, raise, setup } from "xstate"
import {
  BatchMessages,
  canStopBatch,
  DEFAULT_BATCH_ITEMS_LIMIT,
  isBatchActive,
  type BatchItem,
  type RemediationBatch,
  type RemediationBatchId,
} from "../contracts/remediation-batches.ts"
import { errorOf, outputOf } from "./actor-output.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"
import { notProvided } from "./building-blocks.ts"
import type { BatchActed, BatchItemsPage, BatchView } from "./remediation-batches-effects.ts"

/** How often a working batch is read again. */
export const BATCH_POLL_MS = 2000
/** The most items one read answers (the contract's `limit` maximum). */
export const MAX_ITEMS_READ = 500

export interface RemediationBatchInput {
  readonly batchId: RemediationBatchId
}

export interface RemediationBatchContext {
  readonly batchId: RemediationBatchId
  readonly batch: RemediationBatch | null
  readonly items: ReadonlyArray<BatchItem>
  readonly nextCursor: string | null
  readonly error: string | null
  /** Whether the undo being confirmed overwrites the resources changed since the fix. */
  readonly force: boolean
}

export type RemediationBatchEvent =
  | { readonly type: "batch.retryRequested" }
  | { readonly type: "stop.requested" }
  | { readonly type: "undo.requested"; readonly force: boolean }
  | { readonly type: "action.confirmed" }
  | { readonly type: "action.canceled" }
  | { readonly type: "items.loadMoreRequested" }
  | { readonly type: "batch.changed" }

/** Undo of the whole batch is offered: it is done (not working) and something in it can be undone. */
export const canUndoBatch = (batch: RemediationBatch | null): boolean => batch !== null && !isBatchActive(batch.state) && batch.reversible

/** Items whose undo found the resource changed since the fix ("Undo anyway" overwrites them). */
export const hasUndoConflicts = (batch: RemediationBatch | null): boolean => batch !== null && batch.counts.undo_failed > 0

/** How many items a refresh reads: as many as are shown (at least one page, at most what the server answers at once). */
export const refreshLimit = (shown: number): number => Math.min(MAX_ITEMS_READ, Math.max(DEFAULT_BATCH_ITEMS_LIMIT, shown))

export const remediationBatchMachine = setup({
  types: {
    context: {} as RemediationBatchContext,
    events: {} as RemediationBatchEvent,
    input: {} as RemediationBatchInput,
  },
  actors: {
    /** The batch and its first `limit` items. */
    loadBatch: fromPromise<BatchView, { readonly id: RemediationBatchId; readonly limit: number }>(notProvided("loadBatch")),
    /** The items after `cursor`. */
    loadItems: fromPromise<BatchItemsPage, { readonly id: RemediationBatchId; readonly cursor: string }>(notProvided("loadItems")),
    stopBatch: fromPromise<BatchActed, { readonly id: RemediationBatchId }>(notProvided("stopBatch")),
    undoBatch: fromPromise<BatchActed, { readonly id: RemediationBatchId; readonly force: boolean }>(notProvided("undoBatch")),
  },
  delays: { pollInterval: BATCH_POLL_MS },
  guards: {
    /** The batch still works (queued, running, stopping, undoing). */
    isWorking: ({ context }) => context.batch !== null && isBatchActive(context.batch.state),
    canStop: ({ context }) => context.batch !== null && canStopBatch(context.batch.state),
    canUndo: ({ context }) => canUndoBatch(context.batch),
    /** More items remain and the batch is done (while it works, the items shown are read again instead). */
    hasMoreItems: ({ context }) => context.nextCursor !== null && context.batch !== null && !isBatchActive(context.batch.state),
  },
  actions: {
    assignView: assign(({ event }) => {
      const view = outputOf<BatchView>(event)
      return { batch: view.batch, items: view.items, nextCursor: view.nextCursor, error: null }
    }),
    appendItems: assign(({ context, event }) => {
      const page = outputOf<BatchItemsPage>(event)
      return { items: [...context.items, ...page.items], nextCursor: page.nextCursor }
    }),
    assignLoadError: assign({ error: ({ event }) => toFailure(errorOf(event), BatchMessages.loadFailed).message }),
    assignActed: assign({ batch: ({ event }) => outputOf<BatchActed>(event).batch }),
    assignForce: assign({
      force: ({ event }) => {
        assertEvent(event, "undo.requested")
        return event.force
      },
    }),
    raiseChanged: raise({ type: "batch.changed" }),
    /** Environment: a toast. */
    notify: (_, _params: NotifyParams) => {},
  },
}).createMachine({
  id: "remediationBatch",
  context: ({ input }) => ({ batchId: input.batchId, batch: null, items: [], nextCursor: null, error: null, force: false }),
  initial: "loading",
  states: {
    loading: {
      description: "The batch and its first items are being read.",
      invoke: {
        id: "loadBatch",
        src: "loadBatch",
        input: ({ context }) => ({ id: context.batchId, limit: DEFAULT_BATCH_ITEMS_LIMIT }),
        /** The batch arrived: its progress, counts and items show. */
        onDone: { target: "ready", actions: "assignView" },
        /** Unknown, another workspace's, or unreadable: its message (by default 'Failed to load the remediation batch. Please try again.'). */
        onError: { target: "failed", actions: "assignLoadError" },
      },
    },
    failed: {
      description: "The batch could not be read: the message with Try again.",
      on: { "batch.retryRequested": "loading" },
    },
    ready: {
      type: "parallel",
      description: "The batch's progress, counts and per-resource outcomes, with Stop or Undo as its state allows.",
      states: {
        poll: {
          initial: "checking",
          states: {
            checking: {
              description: "Whether the batch still works decides if it is read again.",
              always: [{ guard: "isWorking", target: "waiting" }, { target: "settled" }],
            },
            waiting: {
              description: "The batch works: it is read again after a pause.",
              after: { pollInterval: "refreshing" },
              on: { "batch.changed": "checking" },
            },
            refreshing: {
              description: "The batch and the items shown are read again.",
              invoke: {
                id: "refreshBatch",
                src: "loadBatch",
                input: ({ context }) => ({ id: context.batchId, limit: refreshLimit(context.items.length) }),
                /** The new counts and outcomes replace the old. */
                onDone: { target: "checking", actions: "assignView" },
                /** A failed read keeps what is shown; the next pause tries again. */
                onError: "waiting",
              },
            },
            settled: {
              description: "The batch is done (completed, stopped, failed, undone or undo failed): nothing more is read.",
              on: { "batch.changed": "checking" },
            },
          },
        },
        action: {
          initial: "idle",
          states: {
            idle: {
              description: "Stop (while it runs) and Undo batch (once done and reversible) are offered.",
              on: {
                "stop.requested": { guard: "canStop", target: "confirmingStop" },
                "undo.requested": { guard: "canUndo", target: "confirmingUndo", actions: "assignForce" },
                "items.loadMoreRequested": { guard: "hasMoreItems", target: "loadingMore" },
              },
            },
            confirmingStop: {
              description: "The dialog says items not yet started are skipped and running ones finish.",
              on: { "action.confirmed": "stopping", "action.canceled": "idle" },
            },
            stopping: {
              description: "Stop is being sent.",
              invoke: {
                id: "stopBatch",
                src: "stopBatch",
                input: ({ context }) => ({ id: context.batchId }),
                /** Stopping: the batch as answered shows, a success toast, and it is watched until it settles. */
                onDone: {
                  target: "idle",
                  actions: ["assignActed", { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output.message }) }, "raiseChanged"],
                },
                /** Refused (e.g. 'This batch is no longer running'): an error toast. */
                onError: {
                  target: "idle",
                  actions: { type: "notify", params: ({ event }) => ({ kind: "error", message: toFailure(errorOf(event), BatchMessages.notStoppable).message }) },
                },
              },
            },
            confirmingUndo: {
              description: "The dialog says every fixed item is put back (or, forced, that changes made since the fix are overwritten).",
              on: { "action.confirmed": "undoing", "action.canceled": "idle" },
            },
            undoing: {
              description: "Undo is being sent.",
              invoke: {
                id: "undoBatch",
                src: "undoBatch",
                input: ({ context }) => ({ id: context.batchId, force: context.force }),
                /** Queued: the batch as answered shows, a success toast, and it is watched until it settles. */
                onDone: {
                  target: "idle",
                  actions: ["assignActed", { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output.message }) }, "raiseChanged"],
                },
                /** Refused (e.g. 'Nothing in this batch can be undone'): an error toast. */
                onError: {
                  target: "idle",
                  actions: { type: "notify", params: ({ event }) => ({ kind: "error", message: toFailure(errorOf(event), BatchMessages.notUndoable).message }) },
                },
              },
            },
            loadingMore: {
              description: "The next page of items is being read; the items shown stay.",
              invoke: {
                id: "loadItems",
                src: "loadItems",
                input: ({ context }) => ({ id: context.batchId, cursor: context.nextCursor! }),
                /** The page is appended. */
                onDone: { target: "idle", actions: "appendItems" },
                /** It could not be read: an error toast, the items shown stay. */
                onError: {
                  target: "idle",
                  actions: { type: "notify", params: ({ event }) => ({ kind: "error", message: toFailure(errorOf(event), BatchMessages.loadFailed).message }) },
                },
              },
            },
          },
        },
      },
    },
  },
})
