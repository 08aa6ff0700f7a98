/**
 * /dashboard/scans (scanning §2 "Scan list", §4 "Scan list refreshes itself every 15 s", §5 "Starting a scan from here
 * needs at least one account", §7 GET /api/scans?page&page_size (20), §8 'Error Loading Scans').
 *
 * Parallel regions:
 * - `list`: `loading` (page 1) → `loaded` or `failed` (title 'Error Loading Scans' + the message, Retry). In `loaded`:
 *   `idle`; `loadingMore` (the next page, appended; only while pages remain); `refreshing` ('Refresh': every page
 *   shown so far, reloaded; a failure toasts); `polling` (the same, quietly).
 * - `poll`: `visible` ⇄ `hidden` (`page.hidden` / `page.visible`, the document's visibility). While visible a timer
 *   raises `poll.due` every 15 s; it stops while hidden and when the page is left (the actor stops); coming back
 *   refreshes at once.
 * - `dialog`: none | launching ('New scan' / 'Run first scan': the launch-scan dialog as a child, which says 'You need
 *   to create an account before running a scan' when there is none; a started scan refreshes the list).
 * - `cancel`: idle | cancelling (`scan.cancelRequested` on a pending or running scan; beyond the spec), then refresh.
 *
 * `scan.selected` opens /dashboard/scans/{id}.
 *
 * Events accepted:
 * - `scan.selected` { scanId } — the user opened a scan from the list: go to /dashboard/scans/{id}.
 * - `scans.retryRequested` — the user pressed 'Try again' after the scans failed to load: load page 1 again.
 * - `scans.refreshRequested` — the user pressed 'Refresh' (also raised after a scan was started or cancelled): every
 *   page shown so far is reloaded.
 * - `scans.loadMoreRequested` — the user asked for the next page of 20 (only while pages remain).
 * - `poll.due` — raised by the `poll` region every 15 s while the page is visible, and when it becomes visible again:
 *   the pages shown are reloaded quietly.
 * - `page.hidden` — the document became hidden: polling stops.
 * - `page.visible` — the document became visible again: the list is refreshed at once and polling resumes.
 * - `scans.newRequested` — the user pressed 'New scan' / 'Run first scan': the launch-scan dialog opens.
 * - `scan.cancelRequested` { scanId } — the user asked to cancel a pending or running scan.
 */
import { assign, fromPromise, raise, setup } from "xstate"
import { toRunStatus } from "../contracts/common.ts"
import { PageSizes, Polling } from "../contracts/constants.ts"
import type { ScanId } from "../contracts/ids.ts"
import { ScanningMessages } from "../contracts/messages.ts"
import type { CancelScanResponse, Scan, ScanListResponse } from "../contracts/scans.ts"
import { toFailure, type NavigateParams, type NotifyParams } from "./auth-effects.ts"
import { launchScanMachine } from "./launch-scan.machine.ts"
import { errorOf, outputOf } from "./actor-output.ts"

export interface ScanListInput {
  /** Whether the document is visible when the list mounts. */
  readonly visible: boolean
}

export interface ScanListContext {
  readonly scans: ReadonlyArray<Scan>
  /** Pages shown so far (load more adds one). */
  readonly page: number
  readonly totalPages: number
  readonly total: number
  readonly error: string | null
  readonly cancellingId: ScanId | null
  /** The document's visibility when the list mounted (the poll region starts from it). */
  readonly startsVisible: boolean
}

export type ScanListEvent =
  | { readonly type: "scans.refreshRequested" }
  | { readonly type: "scans.retryRequested" }
  | { readonly type: "scans.loadMoreRequested" }
  | { readonly type: "scans.newRequested" }
  | { readonly type: "scan.selected"; readonly scanId: ScanId }
  | { readonly type: "scan.cancelRequested"; readonly scanId: ScanId }
  | { readonly type: "page.hidden" }
  | { readonly type: "page.visible" }
  | { readonly type: "poll.due" }

/** Input of `loadScans`: the first `pages` pages of `pageSize`. */
export interface ScanPagesRequest {
  readonly pages: number
  readonly pageSize: number
}

export const scanPath = (id: number): string => `/dashboard/scans/${id}`

/** Scanning §4: a scan still running (unknown statuses count as failed, i.e. finished). */
export const isActiveScan = (scan: Pick<Scan, "status">): boolean => {
  const s = toRunStatus(scan.status)
  return s === "pending" || s === "running"
}

/** Progress bar value: completed_services / total_services, 0–100. */
export const scanProgressPercent = (scan: Pick<Scan, "completed_services" | "total_services">): number =>
  scan.total_services <= 0 ? 0 : Math.min(100, Math.max(0, Math.round((scan.completed_services / scan.total_services) * 100)))

const appendUnique = (current: ReadonlyArray<Scan>, more: ReadonlyArray<Scan>): ReadonlyArray<Scan> => {
  const ids = new Set(current.map((s) => s.id))
  return [...current, ...more.filter((s) => !ids.has(s.id))]
}

export const scanListMachine = setup({
  types: {
    context: {} as ScanListContext,
    events: {} as ScanListEvent,
    input: {} as ScanListInput,
  },
  actors: {
    /** GET /api/scans for pages 1..n (20 a page), as one list. */
    loadScans: fromPromise<ScanListResponse, ScanPagesRequest>(async () => {
      throw new Error("loadScans is not provided")
    }),
    /** GET /api/scans for one page (the next one, for 'load more'). */
    loadScansPage: fromPromise<ScanListResponse, { readonly page: number; readonly page_size: number }>(async () => {
      throw new Error("loadScansPage is not provided")
    }),
    /** Cancels a pending or running scan; answers with the server's message. */
    cancelScan: fromPromise<CancelScanResponse, { readonly id: ScanId }>(async () => {
      throw new Error("cancelScan is not provided")
    }),
    /** The launch-scan dialog; its output carries the started scan, or null. */
    launchScan: launchScanMachine,
  },
  delays: {
    /** Scanning §9: the scan list refreshes itself every 15 s. */
    scanListPoll: Polling.scanListMs,
  },
  guards: {
    /** Pages beyond the ones loaded remain. */
    hasMorePages: ({ context }) => context.page < context.totalPages,
    /** The scan is in the list and pending or running. */
    isCancellable: ({ context, event }) =>
      event.type === "scan.cancelRequested" && context.scans.some((s) => s.id === event.scanId && isActiveScan(s)),
    /** The document was visible when the page opened. */
    startsVisible: ({ context }) => context.startsVisible,
    /** The launch-scan dialog finished with a started scan. */
    startedAScan: ({ event }) => outputOf<{ readonly scan: unknown }>(event).scan !== null,
  },
  actions: {
    assignPages: assign(({ event }) => {
      const answer = outputOf<ScanListResponse>(event)
      return {
        scans: answer.data,
        page: Math.max(1, answer.pagination.page),
        totalPages: answer.pagination.total_pages,
        total: answer.pagination.total,
        error: null,
      }
    }),
    appendPage: assign(({ context, event }) => {
      const answer = outputOf<ScanListResponse>(event)
      return {
        scans: appendUnique(context.scans, answer.data),
        page: Math.max(context.page, answer.pagination.page),
        totalPages: answer.pagination.total_pages,
        total: answer.pagination.total,
      }
    }),
    assignLoadError: assign({
      error: ({ event }) => toFailure(errorOf(event), ScanningMessages.errorLoadingScanDetails).message,
    }),
    assignCancelling: assign({
      cancellingId: ({ event }) => (event.type === "scan.cancelRequested" ? event.scanId : null),
    }),
    clearCancelling: assign({ cancellingId: null }),
    requestRefresh: raise({ type: "scans.refreshRequested" }),
    requestPoll: raise({ type: "poll.due" }),
    /** Environment: go to a route (supplied at the React boundary). */
    navigate: (_, _params: NavigateParams) => {},
    /** Environment: a toast. */
    notify: (_, _params: NotifyParams) => {},
  },
}).createMachine({
  id: "scanList",
  type: "parallel",
  context: ({ input }) => ({
    scans: [],
    page: 1,
    totalPages: 0,
    total: 0,
    error: null,
    cancellingId: null,
    startsVisible: input.visible,
  }),
  on: {
    "scan.selected": { actions: { type: "navigate", params: ({ event }) => ({ to: scanPath(event.scanId) }) } },
  },
  states: {
    list: {
      description: "The workspace's scans, newest first, page by page.",
      initial: "loading",
      states: {
        loading: {
          description: "The page shows a loading state while the first page of scans is fetched.",
          invoke: {
            id: "loadScans",
            src: "loadScans",
            input: { pages: 1, pageSize: PageSizes.scans },
            /** The first page arrived: the list shows it. */
            onDone: { target: "loaded", actions: "assignPages" },
            /** The scans could not be loaded: 'Error Loading Scans' with the failure's message. */
            onError: { target: "failed", actions: "assignLoadError" },
          },
        },
        failed: {
          description: "The scans could not be loaded: 'Error Loading Scans' with the message and 'Try again'.",
          on: { "scans.retryRequested": "loading", "scans.refreshRequested": "loading" },
        },
        loaded: {
          description: "The list shows the scans loaded so far.",
          initial: "idle",
          states: {
            idle: {
              description: "The list is shown and nothing is being read.",
              on: {
                "scans.loadMoreRequested": { guard: "hasMorePages", target: "loadingMore" },
                "scans.refreshRequested": "refreshing",
                "poll.due": "polling",
              },
            },
            loadingMore: {
              description: "The next page is being fetched; the scans shown stay.",
              invoke: {
                id: "loadScansPage",
                src: "loadScansPage",
                input: ({ context }) => ({ page: context.page + 1, page_size: PageSizes.scans }),
                /** The next page is appended (scans already listed are not repeated). */
                onDone: { target: "idle", actions: "appendPage" },
                /** The next page could not be loaded: the list stays and an error toast shows the failure. */
                onError: {
                  target: "idle",
                  actions: { type: "notify", params: ({ event }) => ({ kind: "error", message: toFailure(event.error).message }) },
                },
              },
            },
            refreshing: {
              description: "'Refresh' is reloading every page shown so far; the list stays meanwhile.",
              invoke: {
                id: "refreshScans",
                src: "loadScans",
                input: ({ context }) => ({ pages: context.page, pageSize: PageSizes.scans }),
                /** The reloaded pages replace the list. */
                onDone: { target: "idle", actions: "assignPages" },
                /** The refresh failed: the list stays and an error toast shows the failure. */
                onError: {
                  target: "idle",
                  actions: { type: "notify", params: ({ event }) => ({ kind: "error", message: toFailure(event.error).message }) },
                },
              },
            },
            /** The 15 s refresh: quiet when it fails (the next one tries again). */
            polling: {
              invoke: {
                id: "pollScans",
                src: "loadScans",
                input: ({ context }) => ({ pages: context.page, pageSize: PageSizes.scans }),
                /** The polled pages replace the list. */
                onDone: { target: "idle", actions: "assignPages" },
                /** The poll failed: nothing is said; the next one tries again. */
                onError: { target: "idle" },
              },
            },
          },
        },
      },
    },
    poll: {
      description: "The 15 s self-refresh, running only while the document is visible.",
      initial: "choosing",
      states: {
        choosing: {
          description: "Polling starts visible or hidden according to the document's visibility when the page opened.",
          /** Visible documents poll; hidden ones wait to become visible. */
          always: [{ guard: "startsVisible", target: "visible" }, { target: "hidden" }],
        },
        visible: {
          description: "The document is visible: `poll.due` is raised every 15 s.",
          after: { scanListPoll: { target: "visible", reenter: true, actions: "requestPoll" } },
          on: { "page.hidden": "hidden" },
        },
        hidden: {
          description: "The document is hidden: no polling.",
          on: { "page.visible": { target: "visible", actions: "requestPoll" } },
        },
      },
    },
    dialog: {
      description: "The launch-scan dialog.",
      initial: "none",
      states: {
        none: { description: "No dialog is open.", on: { "scans.newRequested": "launching" } },
        launching: {
          description: "The launch-scan dialog is open (it says when an account is needed first).",
          invoke: {
            id: "launchScan",
            src: "launchScan",
            input: {},
            /** The dialog closed: the list is refreshed if a scan was started. */
            onDone: [{ guard: "startedAScan", target: "none", actions: "requestRefresh" }, { target: "none" }],
          },
        },
      },
    },
    cancel: {
      description: "Cancelling a pending or running scan.",
      initial: "idle",
      states: {
        idle: {
          description: "No cancellation is in flight.",
          on: { "scan.cancelRequested": { guard: "isCancellable", target: "cancelling", actions: "assignCancelling" } },
        },
        cancelling: {
          description: "The scan is being cancelled.",
          invoke: {
            id: "cancelScan",
            src: "cancelScan",
            input: ({ context }) => ({ id: context.cancellingId! }),
            /** Cancelled: a toast carries the server's message and the list is refreshed. */
            onDone: {
              target: "idle",
              actions: [
                "clearCancelling",
                { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output.message }) },
                "requestRefresh",
              ],
            },
            /** The cancellation failed: an error toast shows the failure. */
            onError: {
              target: "idle",
              actions: [
                "clearCancelling",
                { type: "notify", params: ({ event }) => ({ kind: "error", message: toFailure(event.error).message }) },
              ],
            },
          },
        },
      },
    },
  },
})
