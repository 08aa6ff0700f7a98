/**
 * The list of bulk remediations, /dashboard/remediations/batches (issue 32 part 4): the workspace's batches, newest
 * first, 20 a page (GET /api/remediation-batches?page&page_size), each opening its page.
 *
 * `loading` → `ready` or `failed` (its message; `batches.retryRequested` reads the same page again). In `ready`,
 * `page.requested` { page } reads another existing page (`paging`: the rows shown stay until the answer; a failure
 * toasts and keeps them).
 *
 * Events accepted:
 * - `batches.retryRequested` — the user pressed Try again after the list failed to load.
 * - `page.requested` { page } — the user pressed Previous or Next.
 */
import { assertEvent, assign, fromPromise, setup } from "xstate"
import type { Pagination } from "../contracts/common.ts"
import type { RemediationBatch, RemediationBatchesResponse } from "../contracts/remediation-batches.ts"
import { errorOf, outputOf } from "./actor-output.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"
import { notProvided } from "./building-blocks.ts"

export const BATCHES_PAGE_SIZE = 20

/** The list's load failure text. */
export const BATCHES_LOAD_FAILED = "Failed to load the remediation batches. Please try again."

export interface RemediationBatchesContext {
  readonly page: number
  readonly batches: ReadonlyArray<RemediationBatch>
  readonly pagination: Pagination | null
  readonly error: string | null
}

export type RemediationBatchesEvent =
  | { readonly type: "batches.retryRequested" }
  | { readonly type: "page.requested"; readonly page: number }

type PageInput = { readonly page: number; readonly page_size: number }

export const remediationBatchesMachine = setup({
  types: {
    context: {} as RemediationBatchesContext,
    events: {} as RemediationBatchesEvent,
  },
  actors: {
    /** GET /api/remediation-batches?page&page_size. */
    listBatches: fromPromise<RemediationBatchesResponse, PageInput>(notProvided("listBatches")),
  },
  guards: {
    /** Another page that exists. */
    isOtherPage: ({ context, event }) => {
      assertEvent(event, "page.requested")
      return event.page !== context.page && event.page >= 1 && event.page <= (context.pagination?.total_pages ?? 1)
    },
  },
  actions: {
    assignPage: assign(({ event }) => {
      const answer = outputOf<RemediationBatchesResponse>(event)
      return { batches: answer.data, pagination: answer.pagination, page: answer.pagination.page, error: null }
    }),
    assignError: assign({ error: ({ event }) => toFailure(errorOf(event), BATCHES_LOAD_FAILED).message }),
    /** Environment: a toast. */
    notify: (_, _params: NotifyParams) => {},
  },
}).createMachine({
  id: "remediationBatches",
  context: { page: 1, batches: [], pagination: null, error: null },
  initial: "loading",
  states: {
    loading: {
      description: "The page of batches is being read.",
      invoke: {
        id: "listBatches",
        src: "listBatches",
        input: ({ context }) => ({ page: context.page, page_size: BATCHES_PAGE_SIZE }),
        /** The batches arrived, newest first. */
        onDone: { target: "ready", actions: "assignPage" },
        /** They could not be read: the message with Try again. */
        onError: { target: "failed", actions: "assignError" },
      },
    },
    failed: {
      description: "The list could not be read: the message with Try again.",
      on: { "batches.retryRequested": "loading" },
    },
    ready: {
      description: "The batches with their state and counts, each opening its page; Previous / Next when there are more pages.",
      on: { "page.requested": { guard: "isOtherPage", target: "paging" } },
    },
    paging: {
      description: "Another page is being read; the rows shown stay.",
      invoke: {
        id: "listPage",
        src: "listBatches",
        input: ({ event }) => {
          assertEvent(event, "page.requested")
          return { page: event.page, page_size: BATCHES_PAGE_SIZE }
        },
        /** The page replaces the rows. */
        onDone: { target: "ready", actions: "assignPage" },
        /** It could not be read: an error toast; the rows stay. */
        onError: {
          target: "ready",
          actions: { type: "notify", params: ({ event }) => ({ kind: "error", message: toFailure(errorOf(event), BATCHES_LOAD_FAILED).message }) },
        },
      },
    },
  },
})
