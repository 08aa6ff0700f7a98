/**
 * /dashboard/scans/{scanId} (scanning §2 "Scan detail", §4 statuses and "scan detail [refreshes itself] every 10 s",
 * §7 GET /api/scans/{id} and GET /api/scans/{id}/export, §8 'Error Loading Scan Details' / 'Error loading scan
 * details', export: the server's message or 'Failed to export scan findings').
 *
 * Parallel regions:
 * - `detail`: `loading` → `watching` (pending or running: `after 10 s` → `polling` → back) or `settled` (completed or
 *   failed; an unknown status counts as failed, so polling stops there too), or `failed` (Retry). 'Refresh'
 *   (`scan.refreshRequested`) reloads from either. Leaving the page stops the actor, and with it the timer.
 * - `export`: idle | exporting (CSV / JSON / OCSF, only for a completed scan): the file is handed to `saveFile` under
 *   the spec's name (scan id, 'findings', timestamp); a failure toasts.
 * - `breakdown`: the severity breakdown of the failed findings (`loadBreakdown`), read once the scan has settled (and
 *   again after each refresh that settles): idle | loading | ready | unavailable. A running scan's counts keep changing,
 *   so the chart waits for the end rather than re-reading every finding every 10 s.
 *
 * `service.findingsRequested` opens /dashboard/scans/{id}/findings?service={name} for a completed service only.
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

const errorOf = (event: unknown): unknown => (event as { readonly error?: unknown }).error
const outputOf = <T>(event: unknown): T => (event as { readonly output: T }).output

export const scanDetailMachine = setup({
  types: {
    context: {} as ScanDetailContext,
    events: {} as ScanDetailEvent,
    input: {} as ScanDetailInput,
  },
  actors: {
    getScan: fromPromise<Scan, { readonly id: ScanId }>(async () => {
      throw new Error("getScan is not provided")
    }),
    exportFindings: fromPromise<ExportedFile, ExportRequest>(async () => {
      throw new Error("exportFindings is not provided")
    }),
    loadBreakdown: fromPromise<SeverityBreakdown, { readonly scanId: ScanId }>(async () => {
      throw new Error("loadBreakdown is not provided")
    }),
  },
  delays: {
    /** Scanning §9: scan detail refreshes itself every 10 s. */
    scanDetailPoll: Polling.scanDetailMs,
  },
  guards: {
    isTerminal: ({ context }) => context.scan !== null && isTerminalStatus(context.scan.status),
    canExport: ({ context }) => context.scan !== null && canViewFindings(context.scan.status),
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
      initial: "loading",
      states: {
        loading: {
          invoke: {
            id: "getScan",
            src: "getScan",
            input: ({ context }) => ({ id: context.scanId }),
            onDone: { target: "routing", actions: "assignScan" },
            onError: { target: "failed", actions: "assignError" },
          },
        },
        /** Decides whether to keep polling after every answer. */
        routing: {
          always: [{ guard: "isTerminal", target: "settled" }, { target: "watching" }],
        },
        watching: {
          after: { scanDetailPoll: "polling" },
          on: { "scan.refreshRequested": "refreshing" },
        },
        polling: {
          invoke: {
            id: "pollScan",
            src: "getScan",
            input: ({ context }) => ({ id: context.scanId }),
            onDone: { target: "routing", actions: "assignScan" },
            // A failed poll keeps what is shown and tries again 10 s later.
            onError: { target: "watching" },
          },
        },
        settled: {
          entry: "announceSettled",
          on: { "scan.refreshRequested": "refreshing" },
        },
        refreshing: {
          invoke: {
            id: "refreshScan",
            src: "getScan",
            input: ({ context }) => ({ id: context.scanId }),
            onDone: { target: "routing", actions: "assignScan" },
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
          on: { "scan.retryRequested": "loading", "scan.refreshRequested": "loading" },
        },
      },
    },
    breakdown: {
      initial: "idle",
      states: {
        idle: { on: { "scan.settled": "loading" } },
        loading: {
          invoke: {
            id: "loadBreakdown",
            src: "loadBreakdown",
            input: ({ context }) => ({ scanId: context.scanId }),
            onDone: { target: "ready", actions: "assignBreakdown" },
            onError: { target: "unavailable" },
          },
        },
        ready: { on: { "scan.settled": "loading" } },
        unavailable: { on: { "scan.settled": "loading" } },
      },
    },
    export: exportRegion(({ context }: { readonly context: ScanDetailContext }) => ({ scanId: context.scanId, format: context.exportFormat ?? "csv" })),
  },
})
