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
 *
 * Events accepted:
 * - `retry.requested` — the user pressed Retry after the framework failed to load; loads it again.
 * - `filter.statusChanged` { status } — the user picked a status (or "all") in the requirement table's status filter.
 * - `filter.sectionChanged` { sectionId } — the user picked a section in the section tree (or cleared it): the table shows that section and its subsections.
 * - `filter.queryChanged` { query } — the user typed in the search box; the table keeps requirements whose id or title contains the text.
 * - `requirement.opened` { requirementId } — the user opened a requirement of the table; navigates to its page when the id is one of the framework's requirements.
 * - `framework.loaded` — raised by `detail` when the framework has loaded; starts loading the score trend.
 * - `csv.requested` — the user pressed the CSV download button (ignored until the framework has loaded).
 * - `report.requested` — the user asked for a new PDF report (ignored until the framework has loaded).
 * - `report.downloadRequested` — the user pressed Download on the finished PDF report.
 * - `xstate.after.reportPoll.complianceFramework.report.generating` — a second (`REPORT_POLL_MS`) after the report was
 *   last seen generating: its progress is asked for again.
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
    /** Loads the framework as evaluated on the scan: counts, score, sections and requirements. */
    loadScanFramework: fromPromise<ScanFramework, ScanFrameworkRequest>(async () => {
      throw new Error("loadScanFramework is not provided")
    }),
    /** Loads the framework's score over the account's scans. */
    loadTrend: fromPromise<ReadonlyArray<TrendPoint>, { readonly accountId: AccountId; readonly frameworkId: string }>(async () => {
      throw new Error("loadTrend is not provided")
    }),
    /** Produces the framework's CSV for the scan, as a file to save. */
    downloadCsv: fromPromise<DownloadedFile, ScanFrameworkRequest>(async () => {
      throw new Error("downloadCsv is not provided")
    }),
    /** Finds the latest PDF report of this framework on this scan, if one was started earlier (null when none). */
    loadLatestReport: fromPromise<Report | null, ScanFrameworkRequest>(async () => {
      throw new Error("loadLatestReport is not provided")
    }),
    /** Starts a new PDF report job on the server. */
    createReport: fromPromise<Report, ScanFrameworkRequest>(async () => {
      throw new Error("createReport is not provided")
    }),
    /** Asks the server for the report job's current status. */
    getReport: fromPromise<Report, { readonly reportId: ReportId }>(async () => {
      throw new Error("getReport is not provided")
    }),
    /** Downloads the finished PDF report, as a file to save. */
    downloadReport: fromPromise<DownloadedFile, { readonly reportId: ReportId; readonly scanId: ScanId }>(async () => {
      throw new Error("downloadReport is not provided")
    }),
  },
  delays: { reportPoll: REPORT_POLL_MS },
  guards: {
    /** The framework has loaded. */
    hasData: ({ context }) => context.data !== null,
    /** The opened requirement is one of the framework's requirements. */
    isKnownRequirement: ({ context, event }) => {
      assertEvent(event, "requirement.opened")
      return context.data?.requirements.some((r) => r.id === event.requirementId) === true
    },
    /** The lookup found an earlier report. */
    foundReport: ({ event }) => outputOf<Report | null>(event) !== null,
    /** The report's status is `completed`. */
    reportCompleted: ({ context }) => context.report?.status === "completed",
    /** The report's status is `failed`. */
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
      description: "The framework's detail: its counts, score, section tree and requirement table.",
      initial: "loading",
      states: {
        loading: {
          description: "The framework evaluated on this scan is being fetched; the page shows a loading state.",
          invoke: {
            id: "loadScanFramework",
            src: "loadScanFramework",
            input: ({ context }) => ({ scanId: context.scanId, frameworkId: context.frameworkId }),
            /** The framework arrived: it is shown, and `framework.loaded` tells the trend region to load. */
            onDone: { target: "ready", actions: ["assignData", "announceLoaded"] },
            /** The framework could not be fetched: its error is shown with a Retry button. */
            onError: { target: "failed", actions: "assignError" },
          },
        },
        failed: { description: "The framework could not be loaded: its error is shown with a Retry button.", on: { "retry.requested": "loading" } },
        ready: {
          description: "The framework is shown: counts, score, section tree and the requirement table, filtered by status, section and search text.",
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
      description: "The framework's score over the account's scans.",
      initial: "waiting",
      states: {
        waiting: { description: "Waits for the framework to load, since the trend needs its scan's account.", on: { "framework.loaded": { guard: "hasData", target: "loading" } } },
        loading: {
          description: "The score trend for the scan's account is being fetched.",
          invoke: {
            id: "loadTrend",
            src: "loadTrend",
            input: ({ context }) => ({ accountId: context.data!.scan.account_id, frameworkId: context.frameworkId }),
            /** The trend arrived and is shown. */
            onDone: { target: "ready", actions: "assignTrend" },
            /** The trend could not be fetched; the page goes on without it. */
            onError: { target: "unavailable" },
          },
        },
        ready: { description: "The score trend is shown." },
        unavailable: { description: "The score trend could not be loaded; the rest of the page works without it." },
      },
    },
    csv: {
      description: "The framework's CSV export.",
      initial: "idle",
      states: {
        idle: { description: "No CSV download is running; the CSV button is available.", on: { "csv.requested": { guard: "hasData", target: "downloading" } } },
        downloading: {
          description: "The framework's CSV is being produced; when it arrives it is handed to the browser's download.",
          invoke: {
            id: "downloadCsv",
            src: "downloadCsv",
            input: ({ context }) => ({ scanId: context.scanId, frameworkId: context.frameworkId }),
            /** The CSV arrived and is handed to the browser's download. */
            onDone: { target: "idle", actions: { type: "saveFile", params: ({ event }) => event.output } },
            /** The CSV download failed: an error toast says so. */
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
      description: "The framework's PDF report, a server job that is started, followed until it finishes, and downloaded.",
      initial: "looking",
      states: {
        looking: {
          description: "Looks for a report of this framework started earlier (for example before the user left the page).",
          invoke: {
            id: "loadLatestReport",
            src: "loadLatestReport",
            input: ({ context }) => ({ scanId: context.scanId, frameworkId: context.frameworkId }),
            /** The lookup answered: when there is an earlier report it is followed, else no report is shown. */
            onDone: [{ guard: "foundReport", target: "checking", actions: "assignReport" }, { target: "idle" }],
            /** The lookup failed; the page offers to start a report as if there were none. */
            onError: { target: "idle" },
          },
        },
        idle: { description: "No report exists yet: the user can ask for one.", on: { "report.requested": { guard: "hasData", target: "requesting" } } },
        requesting: {
          description: "A new PDF report is being requested from the server.",
          invoke: {
            id: "createReport",
            src: "createReport",
            input: ({ context }) => ({ scanId: context.scanId, frameworkId: context.frameworkId }),
            /** The server accepted the report request; the new report is followed. */
            onDone: { target: "checking", actions: "assignReport" },
            /** The report request was refused or failed: its error is shown and the user can ask again. */
            onError: { target: "failed", actions: "assignRequestFailure" },
          },
        },
        checking: {
          description: "Looks at the report's status: completed, failed, or still being generated.",
          /** Moves to ready when the report completed, to failed (with the report's error) when it failed, else keeps generating. */
          always: [
            { guard: "reportCompleted", target: "ready" },
            { guard: "reportFailed", target: "failed", actions: "assignReportFailure" },
            { target: "generating" },
          ],
        },
        generating: { description: "The report is being generated on the server; its progress is asked for again after a pause.", after: { reportPoll: "polling" } },
        polling: {
          description: "The report's progress is being fetched from the server.",
          invoke: {
            id: "getReport",
            src: "getReport",
            input: ({ context }) => ({ reportId: context.report!.id }),
            /** The report's current status arrived and is checked again. */
            onDone: { target: "checking", actions: "assignReport" },
            /** The progress could not be fetched; the report stays generating and is asked for again after the next pause. */
            onError: { target: "generating" },
          },
        },
        ready: {
          description: "The report is finished: the user can download it or start a new one.",
          on: { "report.downloadRequested": "downloading", "report.requested": "requesting" },
        },
        downloading: {
          description: "The finished PDF report is being downloaded; when it arrives it is handed to the browser's download.",
          invoke: {
            id: "downloadReport",
            src: "downloadReport",
            input: ({ context }) => ({ reportId: context.report!.id, scanId: context.scanId }),
            /** The PDF arrived and is handed to the browser's download. */
            onDone: { target: "ready", actions: { type: "saveFile", params: ({ event }) => event.output } },
            /** The PDF download failed: an error toast says so and the report stays downloadable. */
            onError: {
              target: "ready",
              actions: {
                type: "notify",
                params: ({ event }) => ({ kind: "error", message: toFailure(event.error, ComplianceMessages.downloadFailed).message }),
              },
            },
          },
        },
        failed: { description: "The report failed (or could not be requested): its error is shown and the user can start a new one.", on: { "report.requested": "requesting" } },
      },
    },
  },
})
