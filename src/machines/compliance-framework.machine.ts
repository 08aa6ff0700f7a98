/**
 * /dashboard/compliance/scans/{scanId}/{frameworkId} (issue 14): one framework evaluated on one scan — counts and score,
 * the section tree, the requirement table with filters, the score's trend over the account's scans, the framework CSV
 * and the PDF report (a server job: started, followed, downloaded).
 *
 * Parallel regions:
 * - `detail`: `loading` (`loadScanFramework`) → `ready` | `failed` (Retry). In `ready`, filters are context:
 *   `filter.statusChanged` (all or one status), `filter.sectionChanged` (a section and its subsections, or all),
 *   `filter.queryChanged` (id or title contains the text); `requirement.opened` navigates to the requirement's page.
 * - `trend`: waits for the framework (`framework.loaded`, raised by `detail`), then `loadTrend` for its account →
 *   `ready` | `unavailable` (the table works without it).
 * - `csv`: idle | downloading (`downloadCsv` → `saveFile`; a failure toasts).
 * - `report`: `looking` (`loadLatestReport`: a report of this framework started earlier, e.g. before the user left the
 *   page) → `checking` when there is one, else `idle`; idle → `requesting` (`createReport`) → `checking` → `generating` (`after reportPoll` → `polling`,
 *   `getReport`, → `checking`) until the report is `ready` (`report.downloadRequested` → `downloading` →
 *   `downloadReport` → `saveFile`) or `failed` (its error shown; `report.requested` starts a new one). A failed poll
 *   keeps generating and asks again.
 */
import { assertEvent, assign, fromPromise, raise, setup } from "xstate"
import {
  ComplianceMessages,
  type RequirementResult,
  type RequirementStatus,
  type Report,
  type ReportId,
  type ScanFramework,
  type TrendPoint,
} from "../contracts/compliance.ts"
import type { AccountId, ScanId } from "../contracts/ids.ts"
import { toFailure, type NavigateParams, type NotifyParams } from "./auth-effects.ts"
import { errorOf, outputOf } from "./actor-output.ts"
import { requirementPath, type DownloadedFile, type ScanFrameworkRequest } from "./compliance-effects.ts"

export interface ComplianceFrameworkInput {
  readonly scanId: ScanId
  readonly frameworkId: string
}

export type StatusFilter = RequirementStatus | "all"

export interface ComplianceFrameworkContext {
  readonly scanId: ScanId
  readonly frameworkId: string
  readonly data: ScanFramework | null
  readonly error: string | null
  readonly trend: ReadonlyArray<TrendPoint> | null
  readonly statusFilter: StatusFilter
  readonly sectionFilter: string | null
  readonly query: string
  readonly report: Report | null
  readonly reportError: string | null
}

export type ComplianceFrameworkEvent =
  | { readonly type: "retry.requested" }
  | { readonly type: "filter.statusChanged"; readonly status: StatusFilter }
  | { readonly type: "filter.sectionChanged"; readonly sectionId: string | null }
  | { readonly type: "filter.queryChanged"; readonly query: string }
  | { readonly type: "requirement.opened"; readonly requirementId: string }
  | { readonly type: "csv.requested" }
  | { readonly type: "report.requested" }
  | { readonly type: "report.downloadRequested" }
  /** Raised by `detail` once the framework is loaded. */
  | { readonly type: "framework.loaded" }

/** How often a generating report is asked for its progress. */
export const REPORT_POLL_MS = 1_000

/** Whether a requirement sits in the section (or one of its subsections). */
export const inSection = (requirement: Pick<RequirementResult, "section_id">, sectionId: string | null): boolean =>
  sectionId === null || requirement.section_id === sectionId || requirement.section_id.startsWith(`${sectionId}.`)

/** The requirements the filters let through, in framework order. */
export const visibleRequirements = (context: Pick<ComplianceFrameworkContext, "data" | "statusFilter" | "sectionFilter" | "query">): ReadonlyArray<RequirementResult> => {
  const q = context.query.trim().toLowerCase()
  return (context.data?.requirements ?? []).filter(
    (r) =>
      (context.statusFilter === "all" || r.status === context.statusFilter) &&
      inSection(r, context.sectionFilter) &&
      (q === "" || r.id.toLowerCase().includes(q) || r.title.toLowerCase().includes(q)),
  )
}

export const complianceFrameworkMachine = setup({
  types: {
    context: {} as ComplianceFrameworkContext,
    events: {} as ComplianceFrameworkEvent,
    input: {} as ComplianceFrameworkInput,
  },
  actors: {
    loadScanFramework: fromPromise<ScanFramework, ScanFrameworkRequest>(async () => {
      throw new Error("loadScanFramework is not provided")
    }),
    loadTrend: fromPromise<ReadonlyArray<TrendPoint>, { readonly accountId: AccountId; readonly frameworkId: string }>(async () => {
      throw new Error("loadTrend is not provided")
    }),
    downloadCsv: fromPromise<DownloadedFile, ScanFrameworkRequest>(async () => {
      throw new Error("downloadCsv is not provided")
    }),
    loadLatestReport: fromPromise<Report | null, ScanFrameworkRequest>(async () => {
      throw new Error("loadLatestReport is not provided")
    }),
    createReport: fromPromise<Report, ScanFrameworkRequest>(async () => {
      throw new Error("createReport is not provided")
    }),
    getReport: fromPromise<Report, { readonly reportId: ReportId }>(async () => {
      throw new Error("getReport is not provided")
    }),
    downloadReport: fromPromise<DownloadedFile, { readonly reportId: ReportId; readonly scanId: ScanId }>(async () => {
      throw new Error("downloadReport is not provided")
    }),
  },
  delays: { reportPoll: REPORT_POLL_MS },
  guards: {
    hasData: ({ context }) => context.data !== null,
    isKnownRequirement: ({ context, event }) => {
      assertEvent(event, "requirement.opened")
      return context.data?.requirements.some((r) => r.id === event.requirementId) === true
    },
    foundReport: ({ event }) => outputOf<Report | null>(event) !== null,
    reportCompleted: ({ context }) => context.report?.status === "completed",
    reportFailed: ({ context }) => context.report?.status === "failed",
  },
  actions: {
    assignData: assign({ data: ({ event }) => outputOf<ScanFramework>(event), error: null }),
    assignError: assign({ error: ({ event }) => toFailure(errorOf(event), ComplianceMessages.loadFailed).message }),
    assignTrend: assign({ trend: ({ event }) => outputOf<ReadonlyArray<TrendPoint>>(event) }),
    assignStatusFilter: assign({
      statusFilter: ({ event }) => {
        assertEvent(event, "filter.statusChanged")
        return event.status
      },
    }),
    assignSectionFilter: assign({
      sectionFilter: ({ event }) => {
        assertEvent(event, "filter.sectionChanged")
        return event.sectionId
      },
    }),
    assignQuery: assign({
      query: ({ event }) => {
        assertEvent(event, "filter.queryChanged")
        return event.query
      },
    }),
    assignReport: assign({ report: ({ event }) => outputOf<Report>(event), reportError: null }),
    assignReportFailure: assign({ reportError: ({ context }) => context.report?.error ?? ComplianceMessages.reportFailed }),
    assignRequestFailure: assign({
      reportError: ({ event }) => toFailure(errorOf(event), ComplianceMessages.reportRequestFailed).message,
    }),
    announceLoaded: raise({ type: "framework.loaded" }),
    /** Environment: go to a route. */
    navigate: (_, _params: NavigateParams) => {},
    /** Environment: a toast. */
    notify: (_, _params: NotifyParams) => {},
    /** Environment: hand the file to the browser's download. */
    saveFile: (_, _params: DownloadedFile) => {},
  },
}).createMachine({
  id: "complianceFramework",
  type: "parallel",
  context: ({ input }) => ({
    scanId: input.scanId,
    frameworkId: input.frameworkId,
    data: null,
    error: null,
    trend: null,
    statusFilter: "all",
    sectionFilter: null,
    query: "",
    report: null,
    reportError: null,
  }),
  states: {
    detail: {
      initial: "loading",
      states: {
        loading: {
          invoke: {
            id: "loadScanFramework",
            src: "loadScanFramework",
            input: ({ context }) => ({ scanId: context.scanId, frameworkId: context.frameworkId }),
            onDone: { target: "ready", actions: ["assignData", "announceLoaded"] },
            onError: { target: "failed", actions: "assignError" },
          },
        },
        failed: { on: { "retry.requested": "loading" } },
        ready: {
          on: {
            "filter.statusChanged": { actions: "assignStatusFilter" },
            "filter.sectionChanged": { actions: "assignSectionFilter" },
            "filter.queryChanged": { actions: "assignQuery" },
            "requirement.opened": {
              guard: "isKnownRequirement",
              actions: {
                type: "navigate",
                params: ({ context, event }) => ({ to: requirementPath(context.scanId, context.frameworkId, event.requirementId) }),
              },
            },
          },
        },
      },
    },
    trend: {
      initial: "waiting",
      states: {
        waiting: { on: { "framework.loaded": { guard: "hasData", target: "loading" } } },
        loading: {
          invoke: {
            id: "loadTrend",
            src: "loadTrend",
            input: ({ context }) => ({ accountId: context.data!.scan.account_id, frameworkId: context.frameworkId }),
            onDone: { target: "ready", actions: "assignTrend" },
            onError: { target: "unavailable" },
          },
        },
        ready: {},
        unavailable: {},
      },
    },
    csv: {
      initial: "idle",
      states: {
        idle: { on: { "csv.requested": { guard: "hasData", target: "downloading" } } },
        downloading: {
          invoke: {
            id: "downloadCsv",
            src: "downloadCsv",
            input: ({ context }) => ({ scanId: context.scanId, frameworkId: context.frameworkId }),
            onDone: { target: "idle", actions: { type: "saveFile", params: ({ event }) => event.output } },
            onError: {
              target: "idle",
              actions: {
                type: "notify",
                params: ({ event }) => ({ kind: "error", message: toFailure(event.error, ComplianceMessages.csvFailed).message }),
              },
            },
          },
        },
      },
    },
    report: {
      initial: "looking",
      states: {
        looking: {
          invoke: {
            id: "loadLatestReport",
            src: "loadLatestReport",
            input: ({ context }) => ({ scanId: context.scanId, frameworkId: context.frameworkId }),
            onDone: [{ guard: "foundReport", target: "checking", actions: "assignReport" }, { target: "idle" }],
            onError: { target: "idle" },
          },
        },
        idle: { on: { "report.requested": { guard: "hasData", target: "requesting" } } },
        requesting: {
          invoke: {
            id: "createReport",
            src: "createReport",
            input: ({ context }) => ({ scanId: context.scanId, frameworkId: context.frameworkId }),
            onDone: { target: "checking", actions: "assignReport" },
            onError: { target: "failed", actions: "assignRequestFailure" },
          },
        },
        checking: {
          always: [
            { guard: "reportCompleted", target: "ready" },
            { guard: "reportFailed", target: "failed", actions: "assignReportFailure" },
            { target: "generating" },
          ],
        },
        generating: { after: { reportPoll: "polling" } },
        polling: {
          invoke: {
            id: "getReport",
            src: "getReport",
            input: ({ context }) => ({ reportId: context.report!.id }),
            onDone: { target: "checking", actions: "assignReport" },
            onError: { target: "generating" },
          },
        },
        ready: {
          on: { "report.downloadRequested": "downloading", "report.requested": "requesting" },
        },
        downloading: {
          invoke: {
            id: "downloadReport",
            src: "downloadReport",
            input: ({ context }) => ({ reportId: context.report!.id, scanId: context.scanId }),
            onDone: { target: "ready", actions: { type: "saveFile", params: ({ event }) => event.output } },
            onError: {
              target: "ready",
              actions: {
                type: "notify",
                params: ({ event }) => ({ kind: "error", message: toFailure(event.error, ComplianceMessages.downloadFailed).message }),
              },
            },
          },
        },
        failed: { on: { "report.requested": "requesting" } },
      },
    },
  },
})
