/**
 * /dashboard/scans/{scanId}/findings?service={serviceName} (scanning §2 "Findings list", §7 GET /api/scans/{id} +
 * GET /api/findings?scan_id&service_id&page&page_size (20) + export, §8 'Service "{name}" not found in this scan').
 * Without `?service=` (beyond the spec, issue 28 item 5) the list spans every service of the scan.
 *
 * Beyond the spec's §5 ("filters are applied on the client"), every filter and sort runs on the server over the whole
 * scan (issue 28 item 5): a filter or sort change reads page 1 again with the query `findingsQueryOf` builds, and the
 * counts shown are the answer's totals, never the rows loaded. Text filters (check, resource search) are read after
 * `searchDebounce` of quiet typing.
 *
 * Parallel regions:
 * - `list`: `loadingScan` (the scan, to find the service's id by name) → `serviceMissing` ('Service "{name}" not found
 *   in this scan') or `loadingFindings` (page 1) → `ready` (idle | debouncing | refreshing: page 1 with new filters, the
 *   rows shown stay | loadingMore: the next page, by cursor, appended), or `failed` (the message or 'Error loading scan
 *   details', Retry).
 * - `filterPanel`: hidden ⇄ shown ('Show filters' / 'Hide filters').
 * - `export`: idle | exporting, with the filters in force (service, status, severity, check, change, region and
 *   resource search), for a completed scan only; the file is handed to `saveFile`; a failure toasts the server's message or 'Failed to export
 *   scan findings'.
 *
 * Events accepted:
 * - `filter.severityToggled` { severity } — the user ticked or unticked a severity.
 * - `filter.statusToggled` { status } — the user ticked or unticked a status (failed, muted, remediated, not evaluated, passed).
 * - `filter.changeToggled` { change } — the user ticked or unticked "new" or "fixed" since the previous scan.
 * - `filter.serviceChanged` { serviceId } — the user chose a service, or all services (null).
 * - `filter.regionToggled` { region } — the user ticked or unticked a region.
 * - `filter.checkChanged` { text } — the user typed in the check filter (read after the debounce).
 * - `filter.searchChanged` { q } — the user typed in the resource search (read after the debounce).
 * - `filters.cleared` — the user pressed 'Clear filters': every filter is dropped and page 1 is read again.
 * - `sort.changed` { sort } — the user sorted by a column: the same column again flips the order.
 * - `filters.changed` / `search.changed` — raised by the machine after a filter or sort change: read page 1 (at once, or
 *   after the debounce).
 * - `finding.selected` { findingId, serviceName } — the user opened a finding from the list.
 * - `findings.loadMoreRequested` — the user pressed 'Load more': the next page of 20 is appended while pages remain.
 * - `findings.retryRequested` — the user pressed 'Try again' after a failure: the scan and the findings load again.
 * - `filters.toggled` — the user pressed 'Show filters' / 'Hide filters'.
 * - `export.requested` { format } — the user chose an export format from the export menu.
 */
import { assign, fromPromise, raise, setup } from "xstate"
import { canViewFindings } from "../contracts/common.ts"
import { PageSizes } from "../contracts/constants.ts"
import type {
  Finding,
  FindingChange,
  FindingListFilter,
  FindingListResponse,
  FindingListTotals,
  FindingSort,
  FindingsQuery,
  Severity,
  SortOrder,
} from "../contracts/findings.ts"
import type { FindingId, ScanId, ServiceId } from "../contracts/ids.ts"
import { ScanningMessages, serviceNotFoundMessage } from "../contracts/messages.ts"
import { joinFilter, type ExportFormat, type Scan, type ScanService } from "../contracts/scans.ts"
import { toFailure, type NavigateParams, type NotifyParams } from "./auth-effects.ts"
import type { ExportedFile, ExportRequest } from "./scan-effects.ts"
import { exportRegion } from "./building-blocks.ts"
import { errorOf, outputOf } from "./actor-output.ts"

/** Beyond the spec: quiet typing before a text filter is read. */
export const SEARCH_DEBOUNCE_MS = 300

export interface FindingsListInput {
  readonly scanId: ScanId
  /** The route's `?service=`; "" lists every service of the scan. */
  readonly serviceName: string
}

/** What the list asks the server for (an empty selection or text means "all"). */
export interface FindingListFilters {
  readonly severities: ReadonlyArray<Severity>
  readonly statuses: ReadonlyArray<FindingListFilter>
  readonly changes: ReadonlyArray<FindingChange>
  /** One service, or null for every service of the scan. */
  readonly serviceId: ServiceId | null
  readonly regions: ReadonlyArray<string>
  readonly check: string
  readonly q: string
}

export interface FindingListOrder {
  readonly sort: FindingSort
  readonly order: SortOrder
}

export interface FindingsListContext {
  readonly scanId: ScanId
  readonly serviceName: string
  readonly scan: Scan | null
  /** The route's service (null on the all-services list). */
  readonly service: ScanService | null
  /** The rows the server answered for the filters in force, page after page, in its order. */
  readonly findings: ReadonlyArray<Finding>
  readonly filters: FindingListFilters
  readonly order: FindingListOrder
  /** The server's totals for the filters in force (null until the first answer). */
  readonly totals: FindingListTotals | null
  readonly nextCursor: string | null
  /** The regions of the scan's resources (for the region filter). */
  readonly regions: ReadonlyArray<string>
  readonly error: string | null
  readonly exportFormat: ExportFormat | null
}

export type FindingsListEvent =
  | { readonly type: "findings.retryRequested" }
  | { readonly type: "findings.loadMoreRequested" }
  | { readonly type: "filters.toggled" }
  | { readonly type: "filter.severityToggled"; readonly severity: Severity }
  | { readonly type: "filter.statusToggled"; readonly status: FindingListFilter }
  | { readonly type: "filter.changeToggled"; readonly change: FindingChange }
  | { readonly type: "filter.serviceChanged"; readonly serviceId: ServiceId | null }
  | { readonly type: "filter.regionToggled"; readonly region: string }
  | { readonly type: "filter.checkChanged"; readonly text: string }
  | { readonly type: "filter.searchChanged"; readonly q: string }
  | { readonly type: "filters.cleared" }
  | { readonly type: "sort.changed"; readonly sort: FindingSort }
  | { readonly type: "filters.changed" }
  | { readonly type: "search.changed" }
  | { readonly type: "export.requested"; readonly format: ExportFormat }
  | { readonly type: "finding.selected"; readonly findingId: FindingId; readonly serviceName?: string }

export const NO_FILTERS: FindingListFilters = { severities: [], statuses: [], changes: [], serviceId: null, regions: [], check: "", q: "" }
export const DEFAULT_ORDER: FindingListOrder = { sort: "status", order: "asc" }

export const findingPath = (scanId: number, findingId: number, serviceName: string): string =>
  `/dashboard/scans/${scanId}/findings/${findingId}?service=${encodeURIComponent(serviceName)}`

const toggle = <T>(xs: ReadonlyArray<T>, x: T): ReadonlyArray<T> => (xs.includes(x) ? xs.filter((y) => y !== x) : [...xs, x])

/** Whether any filter beyond the route's service is in force. */
export const hasActiveFilters = (filters: FindingListFilters, routeServiceId: ServiceId | null = null): boolean =>
  filters.severities.length > 0 || filters.statuses.length > 0 || filters.changes.length > 0 || filters.regions.length > 0 ||
  filters.check.trim() !== "" || filters.q.trim() !== "" || filters.serviceId !== routeServiceId

/** GET /api/findings for the filters and order in force: page 1, or the page after `cursor`. */
export const findingsQueryOf = (
  scanId: ScanId,
  filters: FindingListFilters,
  order: FindingListOrder,
  cursor: string | null = null,
): FindingsQuery => {
  const status = joinFilter(filters.statuses)
  const severity = joinFilter(filters.severities)
  const change = joinFilter(filters.changes)
  const region = joinFilter(filters.regions)
  const check = filters.check.trim()
  const q = filters.q.trim()
  return {
    scan_id: scanId,
    ...(filters.serviceId === null ? {} : { service_id: filters.serviceId }),
    page_size: PageSizes.findings,
    ...(cursor === null ? { page: 1 } : { cursor }),
    ...(status === undefined ? {} : { status }),
    ...(severity === undefined ? {} : { severity }),
    ...(change === undefined ? {} : { change }),
    ...(region === undefined ? {} : { region }),
    ...(check === "" ? {} : { check }),
    ...(q === "" ? {} : { q }),
    ...(order.sort === DEFAULT_ORDER.sort && order.order === DEFAULT_ORDER.order ? {} : { sort: order.sort, order: order.order }),
  }
}

/** The next order when the user sorts by `sort`: the same key flips its order; a new key starts with its natural one. */
export const nextOrder = (current: FindingListOrder, sort: FindingSort): FindingListOrder =>
  current.sort === sort
    ? { sort, order: current.order === "asc" ? "desc" : "asc" }
    : { sort, order: sort === "failing" || sort === "new" || sort === "fixed" ? "desc" : "asc" }

/** The export query for the filters in force: the export holds the findings the list shows (each with all its rows). */
export const exportRequestOf = (
  context: Pick<FindingsListContext, "scanId" | "filters">,
  format: ExportFormat,
): ExportRequest => {
  const { service_id, status, severity, change, region, check, q } = findingsQueryOf(context.scanId, context.filters, DEFAULT_ORDER)
  return {
    scanId: context.scanId,
    format,
    ...(service_id === undefined ? {} : { service_id }),
    ...(status === undefined ? {} : { status }),
    ...(severity === undefined ? {} : { severity }),
    ...(check === undefined ? {} : { check }),
    ...(change === undefined ? {} : { change }),
    ...(region === undefined ? {} : { region }),
    ...(q === undefined ? {} : { q }),
  }
}

const answerOf = (answer: FindingListResponse) => ({
  totals: answer.totals ?? null,
  nextCursor: answer.next_cursor ?? null,
  ...(answer.regions === undefined ? {} : { regions: answer.regions }),
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
    /** GET /api/findings with the filters and order in force, one page of 20. */
    listFindings: fromPromise<FindingListResponse, FindingsQuery>(async () => {
      throw new Error("listFindings is not provided")
    }),
    /** The scan's findings exported in the chosen format with the filters in force: the file to download. */
    exportFindings: fromPromise<ExportedFile, ExportRequest>(async () => {
      throw new Error("exportFindings is not provided")
    }),
  },
  delays: {
    searchDebounce: SEARCH_DEBOUNCE_MS,
  },
  guards: {
    /** The route names no service (every service) or one the scan has. */
    hasService: ({ context, event }) =>
      context.serviceName === "" || outputOf<Scan>(event).services.some((s) => s.service_name === context.serviceName),
    /** Pages beyond the ones loaded remain. */
    hasMorePages: ({ context }) => context.nextCursor !== null,
    /** The scan is completed, so its findings can be exported. */
    canExport: ({ context }) => context.scan !== null && canViewFindings(context.scan.status),
  },
  actions: {
    assignScan: assign(({ context, event }) => {
      const scan = outputOf<Scan>(event)
      const service = scan.services.find((s) => s.service_name === context.serviceName) ?? null
      return { scan, service, filters: { ...context.filters, serviceId: service?.service_id ?? null }, error: null }
    }),
    assignServiceMissing: assign(({ context, event }) => ({
      scan: outputOf<Scan>(event),
      service: null,
      error: serviceNotFoundMessage(context.serviceName),
    })),
    assignFirstPage: assign(({ event }) => {
      const answer = outputOf<FindingListResponse>(event)
      return { findings: answer.data, ...answerOf(answer), error: null }
    }),
    appendPage: assign(({ context, event }) => {
      const answer = outputOf<FindingListResponse>(event)
      const ids = new Set(context.findings.map((f) => f.id))
      return {
        findings: [...context.findings, ...answer.data.filter((f) => !ids.has(f.id))],
        ...answerOf(answer),
      }
    }),
    assignError: assign({
      error: ({ event }) => toFailure(errorOf(event), ScanningMessages.errorLoadingScanDetails).message,
    }),
    assignFilter: assign(({ context, event }) => {
      const f = context.filters
      switch (event.type) {
        case "filter.severityToggled":
          return { filters: { ...f, severities: toggle(f.severities, event.severity) } }
        case "filter.statusToggled":
          return { filters: { ...f, statuses: toggle(f.statuses, event.status) } }
        case "filter.changeToggled":
          return { filters: { ...f, changes: toggle(f.changes, event.change) } }
        case "filter.serviceChanged":
          return { filters: { ...f, serviceId: event.serviceId } }
        case "filter.regionToggled":
          return { filters: { ...f, regions: toggle(f.regions, event.region) } }
        case "filter.checkChanged":
          return { filters: { ...f, check: event.text } }
        case "filter.searchChanged":
          return { filters: { ...f, q: event.q } }
        case "filters.cleared":
          return { filters: { ...NO_FILTERS, serviceId: context.service?.service_id ?? null } }
        case "sort.changed":
          return { order: nextOrder(context.order, event.sort) }
        default:
          return {}
      }
    }),
    /** A filter or sort changed: page 1 is read again at once. */
    raiseFiltersChanged: raise({ type: "filters.changed" }),
    /** A text filter changed: page 1 is read after the debounce. */
    raiseSearchChanged: raise({ type: "search.changed" }),
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
    filters: NO_FILTERS,
    order: DEFAULT_ORDER,
    totals: null,
    nextCursor: null,
    regions: [],
    error: null,
    exportFormat: null,
  }),
  on: {
    "filter.severityToggled": { actions: ["assignFilter", "raiseFiltersChanged"] },
    "filter.statusToggled": { actions: ["assignFilter", "raiseFiltersChanged"] },
    "filter.changeToggled": { actions: ["assignFilter", "raiseFiltersChanged"] },
    "filter.serviceChanged": { actions: ["assignFilter", "raiseFiltersChanged"] },
    "filter.regionToggled": { actions: ["assignFilter", "raiseFiltersChanged"] },
    "filter.checkChanged": { actions: ["assignFilter", "raiseSearchChanged"] },
    "filter.searchChanged": { actions: ["assignFilter", "raiseSearchChanged"] },
    "filters.cleared": { actions: ["assignFilter", "raiseFiltersChanged"] },
    "sort.changed": { actions: ["assignFilter", "raiseFiltersChanged"] },
    "finding.selected": {
      actions: {
        type: "navigate",
        params: ({ context, event }) => ({ to: findingPath(context.scanId, event.findingId, event.serviceName ?? context.serviceName) }),
      },
    },
  },
  states: {
    list: {
      description: "The findings of the scan (one service, or all): the scan, then the findings the server filtered, page by page.",
      initial: "loadingScan",
      states: {
        loadingScan: {
          description: "The page shows a spinner while the scan is fetched to find the service.",
          invoke: {
            id: "getScan",
            src: "getScan",
            input: ({ context }) => ({ id: context.scanId }),
            /** The scan arrived: with the named service (or none: every service) its findings are loaded, else the service is reported missing. */
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
          description: "The page shows a spinner while the first page of findings is fetched; a filter change asks again.",
          on: {
            "filters.changed": { target: "loadingFindings", reenter: true },
            "search.changed": { target: "loadingFindings", reenter: true },
          },
          invoke: {
            id: "listFindings",
            src: "listFindings",
            input: ({ context }) => findingsQueryOf(context.scanId, context.filters, context.order),
            /** The first page arrived with the server's totals. */
            onDone: { target: "ready", actions: "assignFirstPage" },
            /** The findings could not be loaded: the failure's message (by default 'Error loading scan details') with 'Try again'. */
            onError: { target: "failed", actions: "assignError" },
          },
        },
        ready: {
          description: "The findings table shows what the server answered for the filters in force, with its totals.",
          initial: "idle",
          on: {
            "filters.changed": { target: ".refreshing", reenter: true },
            "search.changed": { target: ".debouncing", reenter: true },
          },
          states: {
            idle: {
              description: "The table is shown, with 'Load more' while pages remain.",
              on: { "findings.loadMoreRequested": { guard: "hasMorePages", target: "loadingMore" } },
            },
            debouncing: {
              description: "A text filter changed: waiting for 300 ms of quiet typing before asking the server.",
              after: { searchDebounce: "refreshing" },
            },
            refreshing: {
              description: "Page 1 for the new filters or order is being read; the rows shown stay until it arrives.",
              invoke: {
                id: "refreshFindings",
                src: "listFindings",
                input: ({ context }) => findingsQueryOf(context.scanId, context.filters, context.order),
                /** The new first page replaces the rows, and its totals the counts. */
                onDone: { target: "idle", actions: "assignFirstPage" },
                /** The page could not be read: the rows stay and an error toast shows the failure (by default 'Error loading scan details'). */
                onError: {
                  target: "idle",
                  actions: {
                    type: "notify",
                    params: ({ event }) => ({ kind: "error", message: toFailure(event.error, ScanningMessages.errorLoadingScanDetails).message }),
                  },
                },
              },
            },
            loadingMore: {
              description: "'Load more' is fetching the page after the last row (by cursor); the rows shown stay.",
              invoke: {
                id: "loadMoreFindings",
                src: "listFindings",
                input: ({ context }) => findingsQueryOf(context.scanId, context.filters, context.order, context.nextCursor),
                /** The next page is appended (rows already loaded are not repeated). */
                onDone: { target: "idle", actions: "appendPage" },
                /** The next page could not be loaded: the rows stay and an error toast shows the failure (by default 'Error loading scan details'). */
                onError: {
                  target: "idle",
                  actions: {
                    type: "notify",
                    params: ({ event }) => ({ kind: "error", message: toFailure(event.error, ScanningMessages.errorLoadingScanDetails).message }),
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
        shown: { description: "The service, severity, status, change, region and check filters are shown ('Hide filters').", on: { "filters.toggled": "hidden" } },
      },
    },
    /** The export menu: the findings with the filters in force, for a completed scan only, running beside the list. */
    export: exportRegion(({ context }: { readonly context: FindingsListContext }) => exportRequestOf(context, context.exportFormat ?? "csv")),
  },
})
