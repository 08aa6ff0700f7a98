/**
 * /dashboard/scans/{scanId}/findings?service={serviceName} (scanning §2 "Findings list", §5 "Findings filters are
 * applied on the client", §7 GET /api/scans/{id} + GET /api/findings?scan_id&service_id&page&page_size (20) + export,
 * §8 'Service "{name}" not found in this scan').
 *
 * Parallel regions:
 * - `list`: `loadingScan` (the scan, to find the service's id by name) → `serviceMissing` ('Service "{name}" not found
 *   in this scan') or `loadingFindings` (page 1) → `ready` (idle | loadingMore: the next page appended while pages
 *   remain), or `failed` (the message or 'Error loading scan details', Retry).
 * - `filterPanel`: hidden ⇄ shown ('Show filters' / 'Hide filters').
 * - `export`: idle | exporting, with the filters in force (service, status and severity, comma-joined), for a
 *   completed scan only; the file is handed to `saveFile`; a failure toasts the server's message or 'Failed to export
 *   scan findings'.
 *
 * Filters (any region): `filter.severityToggled`, `filter.statusToggled`, `filter.newOnlyToggled` (beyond the spec: only
 * findings with resources failing since the previous scan), `filters.cleared` — applied to the loaded
 * rows on the client (`visible`); an empty selection means all. `finding.selected` opens the finding.
 *
 * Events accepted:
 * - `filter.severityToggled` { severity } — the user ticked or unticked a severity filter.
 * - `filter.statusToggled` { status } — the user ticked or unticked a status filter.
 * - `filter.newOnlyToggled` — the user switched the "new only" filter (resources failing since the previous scan).
 * - `filters.cleared` — the user pressed 'Clear filters': every loaded row shows again.
 * - `finding.selected` { findingId } — the user opened a finding from the list.
 * - `findings.loadMoreRequested` — the user pressed 'Load more': the next page of 20 is appended while pages remain.
 * - `findings.retryRequested` — the user pressed 'Try again' after a failure: the scan and the findings load again.
 * - `filters.toggled` — the user pressed 'Show filters' / 'Hide filters'.
 * - `export.requested` { format } — the user chose an export format from the export menu.
 */
import { assign, fromPromise, setup } from "xstate"
import { canViewFindings } from "../contracts/common.ts"
import { PageSizes } from "../contracts/constants.ts"
import {
  applyFindingFilters,
  type Finding,
  type FindingFilters,
  type FindingListResponse,
  type FindingsQuery,
  type FindingOutcome,
  type Severity,
} from "../contracts/findings.ts"
import type { FindingId, ScanId } from "../contracts/ids.ts"
import { ScanningMessages, serviceNotFoundMessage } from "../contracts/messages.ts"
import { joinFilter, type ExportFormat, type Scan, type ScanService } from "../contracts/scans.ts"
import { toFailure, type NavigateParams, type NotifyParams } from "./auth-effects.ts"
import type { ExportedFile, ExportRequest } from "./scan-effects.ts"
import { exportRegion } from "./building-blocks.ts"
import { errorOf, outputOf } from "./actor-output.ts"

export interface FindingsListInput {
  readonly scanId: ScanId
  readonly serviceName: string
}

export interface FindingsListContext {
  readonly scanId: ScanId
  readonly serviceName: string
  readonly scan: Scan | null
  readonly service: ScanService | null
  /** Every loaded finding, in server order. */
  readonly findings: ReadonlyArray<Finding>
  /** `findings` with the filters applied: what the table shows. */
  readonly visible: ReadonlyArray<Finding>
  readonly filters: FindingFilters
  readonly page: number
  readonly totalPages: number
  readonly total: number
  readonly error: string | null
  readonly exportFormat: ExportFormat | null
}

export type FindingsListEvent =
  | { readonly type: "findings.retryRequested" }
  | { readonly type: "findings.loadMoreRequested" }
  | { readonly type: "filters.toggled" }
  | { readonly type: "filter.severityToggled"; readonly severity: Severity }
  | { readonly type: "filter.statusToggled"; readonly status: FindingOutcome }
  | { readonly type: "filters.cleared" }
  /** Beyond the spec: only findings with resources failing since the previous scan. */
  | { readonly type: "filter.newOnlyToggled" }
  | { readonly type: "export.requested"; readonly format: ExportFormat }
  | { readonly type: "finding.selected"; readonly findingId: FindingId }

export const NO_FILTERS: FindingFilters = { severities: [], statuses: [], newOnly: false }

export const findingPath = (scanId: number, findingId: number, serviceName: string): string =>
  `/dashboard/scans/${scanId}/findings/${findingId}?service=${encodeURIComponent(serviceName)}`

const toggle = <T>(xs: ReadonlyArray<T>, x: T): ReadonlyArray<T> => (xs.includes(x) ? xs.filter((y) => y !== x) : [...xs, x])

/** Whether any filter is in force. */
export const hasActiveFilters = (filters: FindingFilters): boolean =>
  filters.severities.length > 0 || filters.statuses.length > 0 || filters.newOnly === true

/** The export query for the current service and filters. */
export const exportRequestOf = (
  context: Pick<FindingsListContext, "scanId" | "service" | "filters">,
  format: ExportFormat,
): ExportRequest => {
  const status = joinFilter(context.filters.statuses)
  const severity = joinFilter(context.filters.severities)
  return {
    scanId: context.scanId,
    format,
    ...(context.service === null ? {} : { service_id: context.service.service_id }),
    ...(status === undefined ? {} : { status }),
    ...(severity === undefined ? {} : { severity }),
  }
}

const withFilters = (findings: ReadonlyArray<Finding>, filters: FindingFilters) => ({
  findings,
  filters,
  visible: applyFindingFilters(findings, filters),
})

export const findingsListMachine = setup({
  types: {
    context: {} as FindingsListContext,
    events: {} as FindingsListEvent,
    input: {} as FindingsListInput,
  },
  actors: {
    /** GET /api/scans/{id}: the scan, to find the service's id by its name. */
    getScan: fromPromise<Scan, { readonly id: ScanId }>(async () => {
      throw new Error("getScan is not provided")
    }),
    /** GET /api/findings for the scan and service, one page of 20. */
    listFindings: fromPromise<FindingListResponse, FindingsQuery>(async () => {
      throw new Error("listFindings is not provided")
    }),
    /** The scan's findings exported in the chosen format with the filters in force: the file to download. */
    exportFindings: fromPromise<ExportedFile, ExportRequest>(async () => {
      throw new Error("exportFindings is not provided")
    }),
  },
  guards: {
    /** The scan has a service of the name in the URL. */
    hasService: ({ context, event }) =>
      outputOf<Scan>(event).services.some((s) => s.service_name === context.serviceName),
    /** Pages beyond the ones loaded remain. */
    hasMorePages: ({ context }) => context.page < context.totalPages,
    /** The scan is completed, so its findings can be exported. */
    canExport: ({ context }) => context.scan !== null && canViewFindings(context.scan.status),
  },
  actions: {
    assignScan: assign(({ context, event }) => {
      const scan = outputOf<Scan>(event)
      return { scan, service: scan.services.find((s) => s.service_name === context.serviceName) ?? null, error: null }
    }),
    assignServiceMissing: assign(({ context, event }) => ({
      scan: outputOf<Scan>(event),
      service: null,
      error: serviceNotFoundMessage(context.serviceName),
    })),
    assignFirstPage: assign(({ context, event }) => {
      const answer = outputOf<FindingListResponse>(event)
      return {
        ...withFilters(answer.data, context.filters),
        page: Math.max(1, answer.pagination.page),
        totalPages: answer.pagination.total_pages,
        total: answer.pagination.total,
        error: null,
      }
    }),
    appendPage: assign(({ context, event }) => {
      const answer = outputOf<FindingListResponse>(event)
      const ids = new Set(context.findings.map((f) => f.id))
      return {
        ...withFilters([...context.findings, ...answer.data.filter((f) => !ids.has(f.id))], context.filters),
        page: Math.max(context.page, answer.pagination.page),
        totalPages: answer.pagination.total_pages,
        total: answer.pagination.total,
      }
    }),
    assignError: assign({
      error: ({ event }) => toFailure(errorOf(event), ScanningMessages.errorLoadingScanDetails).message,
    }),
    toggleSeverity: assign(({ context, event }) =>
      event.type === "filter.severityToggled"
        ? withFilters(context.findings, { ...context.filters, severities: toggle(context.filters.severities, event.severity) })
        : {},
    ),
    toggleStatus: assign(({ context, event }) =>
      event.type === "filter.statusToggled"
        ? withFilters(context.findings, { ...context.filters, statuses: toggle(context.filters.statuses, event.status) })
        : {},
    ),
    toggleNewOnly: assign(({ context }) => withFilters(context.findings, { ...context.filters, newOnly: context.filters.newOnly !== true })),
    clearFilters: assign(({ context }) => withFilters(context.findings, NO_FILTERS)),
    assignExportFormat: assign({
      exportFormat: ({ event }) => (event.type === "export.requested" ? event.format : null),
    }),
    clearExportFormat: assign({ exportFormat: null }),
    /** Environment: go to a route (supplied at the React boundary). */
    navigate: (_, _params: NavigateParams) => {},
    /** Environment: a toast. */
    notify: (_, _params: NotifyParams) => {},
    /** Environment: hand the file to the browser's download. */
    saveFile: (_, _params: ExportedFile) => {},
  },
}).createMachine({
  id: "findingsList",
  type: "parallel",
  context: ({ input }) => ({
    scanId: input.scanId,
    serviceName: input.serviceName,
    scan: null,
    service: null,
    findings: [],
    visible: [],
    filters: NO_FILTERS,
    page: 1,
    totalPages: 0,
    total: 0,
    error: null,
    exportFormat: null,
  }),
  on: {
    "filter.severityToggled": { actions: "toggleSeverity" },
    "filter.statusToggled": { actions: "toggleStatus" },
    "filter.newOnlyToggled": { actions: "toggleNewOnly" },
    "filters.cleared": { actions: "clearFilters" },
    "finding.selected": {
      actions: {
        type: "navigate",
        params: ({ context, event }) => ({ to: findingPath(context.scanId, event.findingId, context.serviceName) }),
      },
    },
  },
  states: {
    list: {
      description: "The findings of the scan's service: the scan, then the findings page by page.",
      initial: "loadingScan",
      states: {
        loadingScan: {
          description: "The page shows a spinner while the scan is fetched to find the service.",
          invoke: {
            id: "getScan",
            src: "getScan",
            input: ({ context }) => ({ id: context.scanId }),
            /** The scan arrived: with the named service its findings are loaded, else the service is reported missing. */
            onDone: [
              { guard: "hasService", target: "loadingFindings", actions: "assignScan" },
              { target: "serviceMissing", actions: "assignServiceMissing" },
            ],
            /** The scan could not be loaded: the failure's message (by default 'Error loading scan details') with 'Try again'. */
            onError: { target: "failed", actions: "assignError" },
          },
        },
        serviceMissing: { description: "The scan has no such service: the page says 'Service \"{name}\" not found in this scan'." },
        loadingFindings: {
          description: "The page shows a spinner while the first page of findings is fetched.",
          invoke: {
            id: "listFindings",
            src: "listFindings",
            input: ({ context }) => ({
              scan_id: context.scanId,
              ...(context.service === null ? {} : { service_id: context.service.service_id }),
              page: 1,
              page_size: PageSizes.findings,
            }),
            /** The first page arrived: the rows show, filtered on the client. */
            onDone: { target: "ready", actions: "assignFirstPage" },
            /** The findings could not be loaded: the failure's message (by default 'Error loading scan details') with 'Try again'. */
            onError: { target: "failed", actions: "assignError" },
          },
        },
        ready: {
          description: "The findings table shows the loaded rows that pass the filters.",
          initial: "idle",
          states: {
            idle: {
              description: "The table is shown, with 'Load more' while pages remain.",
              on: { "findings.loadMoreRequested": { guard: "hasMorePages", target: "loadingMore" } },
            },
            loadingMore: {
              description: "'Load more' is fetching the next page; the rows shown stay.",
              invoke: {
                id: "loadMoreFindings",
                src: "listFindings",
                input: ({ context }) => ({
                  scan_id: context.scanId,
                  ...(context.service === null ? {} : { service_id: context.service.service_id }),
                  page: context.page + 1,
                  page_size: PageSizes.findings,
                }),
                /** The next page is appended (rows already loaded are not repeated). */
                onDone: { target: "idle", actions: "appendPage" },
                /** The next page could not be loaded: the rows stay and an error toast shows the failure (by default 'Error loading scan details'). */
                onError: {
                  target: "idle",
                  actions: {
                    type: "notify",
                    params: ({ event }) => ({
                      kind: "error",
                      message: toFailure(event.error, ScanningMessages.errorLoadingScanDetails).message,
                    }),
                  },
                },
              },
            },
          },
        },
        failed: { description: "The scan or its findings could not be loaded: the error with a 'Try again' button.", on: { "findings.retryRequested": "loadingScan" } },
      },
    },
    filterPanel: {
      description: "Whether the filter panel is open.",
      initial: "hidden",
      states: {
        hidden: { description: "The filters are hidden ('Show filters').", on: { "filters.toggled": "shown" } },
        shown: { description: "The severity, status and new-only filters are shown ('Hide filters').", on: { "filters.toggled": "hidden" } },
      },
    },
    /** The export menu: the findings with the filters in force, for a completed scan only, running beside the list. */
    export: exportRegion(({ context }: { readonly context: FindingsListContext }) => exportRequestOf(context, context.exportFormat ?? "csv")),
  },
})
