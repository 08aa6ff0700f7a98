/**
 * /dashboard/scans/{scanId} (scanning §2 "Scan detail", §4 statuses and "scan detail [refreshes itself] every 10 s",
 * §7 GET /api/scans/{id} and GET /api/scans/{id}/export, §8 'Error Loading Scan Details' / 'Error loading scan
 * details', export: the server's message or 'Failed to export scan findings').
 *
 * Parallel regions:
 * - `detail`: `loading` → `watching` (pending or running: `after 10 s` → `polling` → back) or `settled` (completed or
 *   failed; an unknown status counts as failed, so polling stops there too), `failed` (Retry), or `missing` (the scan
 *   does not exist: nothing to refresh or retry, only the way back). 'Refresh' (`scan.refreshRequested`) reloads from
 *   the others. Leaving the page stops the actor, and with it the timer.
 * - `export`: idle | exporting (CSV / JSON / OCSF, only for a completed scan): the file is handed to `saveFile` under
 *   the spec's name (scan id, 'findings', timestamp); a failure toasts.
 * - `breakdown`: the severity breakdown of the failed findings (`loadBreakdown`), read once the scan has settled (and
 *   again after each refresh that settles): idle | loading | ready | unavailable. A running scan's counts keep changing,
 *   so the chart waits for the end rather than re-reading every finding every 10 s.
 *
 * `service.findingsRequested` opens /dashboard/scans/{id}/findings?service={name} for a completed service only.
 *
 * Events accepted:
 * - `service.findingsRequested` { serviceName } — the user opened a service's findings from the scan's service list.
 * - `scan.refreshRequested` — the user pressed 'Refresh': the scan is read again now.
 * - `scan.retryRequested` — the user pressed Retry after the scan failed to load: load it again.
 * - `export.requested` { format } — the user chose an export format (CSV, JSON or OCSF) from the export menu.
 * - `scan.settled` — raised by the machine itself when the scan is (re-)read at a terminal status: the severity
 *   breakdown is read.
 */
import { assign, fromPromise, raise, setup } from "xstate"
import { canViewFindings, toRunStatus } from "../contracts/common.ts"
import { Polling } from "../contracts/constants.ts"
import type { ScanId } from "../contracts/ids.ts"
import { ScanningMessages } from "../contracts/messages.ts"
import type { ExportFormat, Scan } from "../contracts/scans.ts"
import { toFailure, type NavigateParams, type NotifyParams } from "./auth-effects.ts"
import type { ExportedFile, ExportRequest, SeverityBreakdown } from "./scan-effects.ts"
import { exportRegion } from "./building-blocks.ts"
import { errorOf, outputOf } from "./actor-output.ts"

export interface ScanDetailInput {
  readonly scanId: ScanId
}

export interface ScanDetailContext {
  readonly scanId: ScanId
  readonly scan: Scan | null
  readonly error: string | null
  readonly exportFormat: ExportFormat | null
  readonly breakdown: SeverityBreakdown | null
}

export type ScanDetailEvent =
  | { readonly type: "scan.refreshRequested" }
  | { readonly type: "scan.retryRequested" }
  | { readonly type: "export.requested"; readonly format: ExportFormat }
  | { readonly type: "service.findingsRequested"; readonly serviceName: string }
  /** Raised when the scan reaches (or is re-read at) a terminal status. */
  | { readonly type: "scan.settled" }

export const findingsPath = (scanId: number, serviceName: string): string =>
  `/dashboard/scans/${scanId}/findings?service=${encodeURIComponent(serviceName)}`

/** Scanning §4: completed and failed (and anything unknown, read as failed) are terminal. */
export const isTerminalStatus = (status: unknown): boolean => {
  const s = toRunStatus(status)
  return s === "completed" || s === "failed"
}

export const scanDetailMachine = setup({
  types: {
    context: {} as ScanDetailContext,
    events: {} as ScanDetailEvent,
    input: {} as ScanDetailInput,
  },
  actors: {
    /** GET /api/scans/{id}: the scan with its status, counts and services. */
    getScan: fromPromise<Scan, { readonly id: ScanId }>(async () => {
      throw new Error("getScan is not provided")
    }),
    /** GET /api/scans/{id}/export in the chosen format: the file to download. */
    exportFindings: fromPromise<ExportedFile, ExportRequest>(async () => {
      throw new Error("exportFindings is not provided")
    }),
    /** The number of the scan's failed findings by severity. */
    loadBreakdown: fromPromise<SeverityBreakdown, { readonly scanId: ScanId }>(async () => {
      throw new Error("loadBreakdown is not provided")
    }),
  },
  delays: {
    /** Scanning §9: scan detail refreshes itself every 10 s. */
    scanDetailPoll: Polling.scanDetailMs,
  },
  guards: {
    /** The scan is completed or failed (an unknown status counts as failed). */
    isTerminal: ({ context }) => context.scan !== null && isTerminalStatus(context.scan.status),
    /** The server answered that the scan does not exist (404): reading it again cannot help. */
    isMissing: ({ event }) => "error" in event && toFailure(event.error).status === 404,
    /** The scan is completed, so its findings can be exported. */
    canExport: ({ context }) => context.scan !== null && canViewFindings(context.scan.status),
    /** The requested service is one of the scan's services and has completed. */
    isCompletedService: ({ context, event }) =>
      event.type === "service.findingsRequested" &&
      (context.scan?.services ?? []).some((s) => s.service_name === event.serviceName && canViewFindings(s.status)),
  },
  actions: {
    assignScan: assign({ scan: ({ event }) => outputOf<Scan>(event), error: null }),
    assignError: assign({
      error: ({ event }) => toFailure(errorOf(event), ScanningMessages.errorLoadingScanDetails).message,
    }),
    assignExportFormat: assign({
      exportFormat: ({ event }) => (event.type === "export.requested" ? event.format : null),
    }),
    clearExportFormat: assign({ exportFormat: null }),
    assignBreakdown: assign({ breakdown: ({ event }) => outputOf<SeverityBreakdown>(event) }),
    announceSettled: raise({ type: "scan.settled" }),
    /** Environment: go to a route (supplied at the React boundary). */
    navigate: (_, _params: NavigateParams) => {},
    /** Environment: a toast. */
    notify: (_, _params: NotifyParams) => {},
    /** Environment: hand the file to the browser's download. */
    saveFile: (_, _params: ExportedFile) => {},
  },
}).createMachine({
  id: "scanDetail",
  type: "parallel",
  context: ({ input }) => ({ scanId: input.scanId, scan: null, error: null, exportFormat: null, breakdown: null }),
  on: {
    "service.findingsRequested": {
      guard: "isCompletedService",
      actions: { type: "navigate", params: ({ context, event }) => ({ to: findingsPath(context.scanId, event.serviceName) }) },
    },
  },
  states: {
    detail: {
      description: "The scan itself: loaded, then polled every 10 s until it is completed or failed.",
      initial: "loading",
      states: {
        loading: {
          description: "The page shows a spinner while the scan is fetched.",
          invoke: {
            id: "getScan",
            src: "getScan",
            input: ({ context }) => ({ id: context.scanId }),
            /** An answer with the scan (first load, poll or refresh): it is shown and its status decides what follows. */
            onDone: { target: "routing", actions: "assignScan" },
            onError: [
              /** The scan does not exist: 'Scan not found' with the way back to the scan list, and nothing to refresh. */
              { guard: "isMissing", target: "missing", actions: "assignError" },
              /** The scan could not be loaded: 'Error Loading Scan Details' with 'Error loading scan details' (or the server's message) and 'Try again'. */
              { target: "failed", actions: "assignError" },
            ],
          },
        },
        /** Decides whether to keep polling after every answer. */
        routing: {
          /** A completed or failed scan is settled; a pending or running one is watched. */
          always: [{ guard: "isTerminal", target: "settled" }, { target: "watching" }],
        },
        watching: {
          description: "The scan is pending or running: it is shown and read again 10 s after the last answer.",
          after: { scanDetailPoll: "polling" },
          on: { "scan.refreshRequested": "refreshing" },
        },
        polling: {
          description: "The 10 s poll is reading the scan; what is shown stays meanwhile.",
          invoke: {
            id: "pollScan",
            src: "getScan",
            input: ({ context }) => ({ id: context.scanId }),
            /** The polled scan replaces the one shown; its status decides whether polling goes on. */
            onDone: { target: "routing", actions: "assignScan" },
            // A failed poll keeps what is shown and tries again 10 s later.
            onError: { target: "watching" },
          },
        },
        settled: {
          description: "The scan is completed or failed: polling has stopped and the severity breakdown is requested.",
          entry: "announceSettled",
          on: { "scan.refreshRequested": "refreshing" },
        },
        refreshing: {
          description: "'Refresh' is reading the scan again; what is shown stays meanwhile.",
          invoke: {
            id: "refreshScan",
            src: "getScan",
            input: ({ context }) => ({ id: context.scanId }),
            /** The refreshed scan replaces the one shown; its status decides whether polling resumes. */
            onDone: { target: "routing", actions: "assignScan" },
            /** The refresh failed: what is shown stays and an error toast says 'Error loading scan details' (or the server's message). */
            onError: {
              target: "routing",
              actions: {
                type: "notify",
                params: ({ event }) => ({ kind: "error", message: toFailure(event.error, ScanningMessages.errorLoadingScanDetails).message }),
              },
            },
          },
        },
        failed: {
          description: "The scan could not be loaded: 'Error Loading Scan Details' with the error and a 'Try again' button.",
          on: { "scan.retryRequested": "loading", "scan.refreshRequested": "loading" },
        },
        missing: {
          description: "The scan does not exist (the server answered 404): 'Scan not found' and the way back to the scan list; no Refresh, no Try again.",
        },
      },
    },
    breakdown: {
      description: "The 'Failed findings by severity' chart, read once the scan has settled and again after each refresh that settles.",
      initial: "idle",
      states: {
        idle: { description: "The scan has not settled yet: the chart says 'Shown when the scan has finished.'", on: { "scan.settled": "loading" } },
        loading: {
          description: "The breakdown is being read: a spinner, or the previous chart while it is re-read.",
          invoke: {
            id: "loadBreakdown",
            src: "loadBreakdown",
            input: ({ context }) => ({ scanId: context.scanId }),
            /** The counts arrived: the chart shows them. */
            onDone: { target: "ready", actions: "assignBreakdown" },
            /** The counts could not be read: 'The severity breakdown could not be loaded.' unless an earlier chart is still shown. */
            onError: { target: "unavailable" },
          },
        },
        ready: { description: "The chart shows the failed findings' counts by severity.", on: { "scan.settled": "loading" } },
        unavailable: {
          description: "The breakdown could not be read: 'The severity breakdown could not be loaded.' unless an earlier chart is still shown.",
          on: { "scan.settled": "loading" },
        },
      },
    },
    /** The export menu: a findings export (CSV, JSON or OCSF) of a completed scan, running beside the page. */
    export: exportRegion(({ context }: { readonly context: ScanDetailContext }) => ({ scanId: context.scanId, format: context.exportFormat ?? "csv" })),
  },
})
