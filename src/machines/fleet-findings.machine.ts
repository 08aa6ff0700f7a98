/**
 * Findings across accounts for one organisation (beyond the spec, issue 31 item 4): the findings of the latest
 * completed scan of every member account (GET /api/findings without scan_id, `organization_id` set), filtered on the
 * server by account, unit (that unit and every unit under it), check text, status, severity and service, read 50 at a
 * time and extended by the server's cursor ('Load more'). The organisation (GET /api/organizations/{id}) is read first:
 * its units and members are the filters' choices.
 *
 * `loadingScope` → `listing` → `ready`; either load failing → `failed` (its message, `findings.retryRequested` starts
 * over). In `ready` a filter change reads the first page again (`refreshing`, rows kept until the answer; a newer
 * change abandons the older request) and `findings.loadMoreRequested` appends the next page while there is one
 * (`loadingMore`). A failed refresh or page toasts and keeps the rows.
 *
 * Events accepted: `filter.accountChanged`, `filter.unitChanged`, `filter.checkSubmitted`, `filter.statusChanged`,
 * `filter.severityChanged`, `filter.serviceChanged` (null: any), `filters.cleared`, `findings.loadMoreRequested`,
 * `findings.retryRequested`.
 */
import { assign, fromPromise, setup } from "xstate"
import type { Finding, FindingListFilter, FindingListResponse, FindingListTotals, FindingsQuery, Severity } from "../contracts/findings.ts"
import type { AccountId, ServiceId } from "../contracts/ids.ts"
import { OrganizationMessages, type OrganizationDetail } from "../contracts/organizations.ts"
import { FLEET_FINDINGS_FAILED } from "./fleet-effects.ts"
import { errorOf, outputOf } from "./actor-output.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"

/** Rows per page read from the server. */
export const FLEET_FINDINGS_PAGE_SIZE = 50

export type FleetFindingStatus = FindingListFilter

export interface FleetFindingFilters {
  readonly accountId: AccountId | null
  readonly unit: string | null
  /** Check id or text (applied; "" for none). */
  readonly check: string
  readonly status: FleetFindingStatus | null
  readonly severity: Severity | null
  readonly serviceId: ServiceId | null
}

export interface ServiceChoice {
  readonly id: ServiceId
  readonly name: string
}

export interface FleetFindingsContext {
  readonly organizationId: AccountId
  readonly organization: OrganizationDetail | null
  readonly filters: FleetFindingFilters
  readonly findings: ReadonlyArray<Finding>
  readonly totals: FindingListTotals | null
  /** Findings matching the filters, over every page. */
  readonly total: number
  readonly nextCursor: string | null
  /** Every service met in an answer so far (the service filter's choices). */
  readonly services: ReadonlyArray<ServiceChoice>
  readonly error: string | null
}

export interface FleetFindingsInput {
  readonly organizationId: AccountId
}

export type FleetFindingsEvent =
  | { readonly type: "filter.accountChanged"; readonly accountId: AccountId | null }
  | { readonly type: "filter.unitChanged"; readonly unit: string | null }
  | { readonly type: "filter.checkSubmitted"; readonly text: string }
  | { readonly type: "filter.statusChanged"; readonly status: FleetFindingStatus | null }
  | { readonly type: "filter.severityChanged"; readonly severity: Severity | null }
  | { readonly type: "filter.serviceChanged"; readonly serviceId: ServiceId | null }
  | { readonly type: "filters.cleared" }
  | { readonly type: "findings.loadMoreRequested" }
  | { readonly type: "findings.retryRequested" }

export const NO_FLEET_FINDING_FILTERS: FleetFindingFilters = { accountId: null, unit: null, check: "", status: null, severity: null, serviceId: null }

export const hasFleetFindingFilters = (f: FleetFindingFilters): boolean =>
  f.accountId !== null || f.unit !== null || f.check !== "" || f.status !== null || f.severity !== null || f.serviceId !== null

/** The query of the first page (or, with a cursor, of the page after it): only the filters set. */
export const fleetFindingsQuery = (organizationId: AccountId, f: FleetFindingFilters, cursor: string | null = null): FindingsQuery => ({
  organization_id: organizationId,
  ...(f.accountId === null ? {} : { account_id: String(f.accountId) }),
  ...(f.unit === null ? {} : { unit: f.unit }),
  ...(f.check === "" ? {} : { check: f.check }),
  ...(f.status === null ? {} : { status: f.status }),
  ...(f.severity === null ? {} : { severity: f.severity }),
  ...(f.serviceId === null ? {} : { service_id: f.serviceId }),
  ...(cursor === null ? { page: 1 } : { cursor }),
  page_size: FLEET_FINDINGS_PAGE_SIZE,
})

const mergeServices = (known: ReadonlyArray<ServiceChoice>, rows: ReadonlyArray<Finding>): ReadonlyArray<ServiceChoice> => {
  const byId = new Map(known.map((s) => [s.id, s]))
  for (const row of rows) if (row.service_id !== undefined && !byId.has(row.service_id)) byId.set(row.service_id, { id: row.service_id, name: row.service_name })
  return [...byId.values()].sort((a, b) => a.name.localeCompare(b.name))
}

const pageFields = (answer: FindingListResponse) => ({
  totals: answer.totals ?? null,
  total: answer.pagination.total,
  nextCursor: answer.next_cursor ?? null,
})

const withFilter = (context: FleetFindingsContext, event: FleetFindingsEvent): FleetFindingFilters => {
  const f = context.filters
  switch (event.type) {
    case "filter.accountChanged":
      return { ...f, accountId: event.accountId }
    case "filter.unitChanged":
      return { ...f, unit: event.unit }
    case "filter.checkSubmitted":
      return { ...f, check: event.text.trim() }
    case "filter.statusChanged":
      return { ...f, status: event.status }
    case "filter.severityChanged":
      return { ...f, severity: event.severity }
    case "filter.serviceChanged":
      return { ...f, serviceId: event.serviceId }
    case "filters.cleared":
      return NO_FLEET_FINDING_FILTERS
    default:
      return f
  }
}

type ListInput = FindingsQuery
const firstPage = ({ context }: { readonly context: FleetFindingsContext }): ListInput => fleetFindingsQuery(context.organizationId, context.filters)

const FILTER_EVENTS = [
  "filter.accountChanged",
  "filter.unitChanged",
  "filter.checkSubmitted",
  "filter.statusChanged",
  "filter.severityChanged",
  "filter.serviceChanged",
  "filters.cleared",
] as const

export const fleetFindingsMachine = setup({
  types: {
    context: {} as FleetFindingsContext,
    events: {} as FleetFindingsEvent,
    input: {} as FleetFindingsInput,
  },
  actors: {
    /** GET /api/organizations/{id}: the units and members the filters offer. */
    loadOrganization: fromPromise<OrganizationDetail, { readonly id: AccountId }>(async () => {
      throw new Error("loadOrganization is not provided")
    }),
    /** GET /api/findings without scan_id (the latest completed scan of every member). */
    listFindings: fromPromise<FindingListResponse, ListInput>(async () => {
      throw new Error("listFindings is not provided")
    }),
  },
  guards: {
    hasMoreRows: ({ context }) => context.nextCursor !== null,
  },
  actions: {
    assignOrganization: assign({ organization: ({ event }) => outputOf<OrganizationDetail>(event), error: null }),
    assignScopeError: assign({ error: ({ event }) => toFailure(errorOf(event), OrganizationMessages.loadOrganizationFailed).message }),
    assignListError: assign({ error: ({ event }) => toFailure(errorOf(event), FLEET_FINDINGS_FAILED).message }),
    assignFilter: assign({ filters: ({ context, event }) => withFilter(context, event) }),
    assignFirstPage: assign(({ context, event }) => {
      const answer = outputOf<FindingListResponse>(event)
      return { findings: answer.data, services: mergeServices(context.services, answer.data), error: null, ...pageFields(answer) }
    }),
    appendPage: assign(({ context, event }) => {
      const answer = outputOf<FindingListResponse>(event)
      return { findings: [...context.findings, ...answer.data], services: mergeServices(context.services, answer.data), ...pageFields(answer) }
    }),
    /** Environment: a toast. */
    notify: (_, _params: NotifyParams) => {},
  },
}).createMachine({
  id: "fleetFindings",
  context: ({ input }) => ({
    organizationId: input.organizationId,
    organization: null,
    filters: NO_FLEET_FINDING_FILTERS,
    findings: [],
    totals: null,
    total: 0,
    nextCursor: null,
    services: [],
    error: null,
  }),
  initial: "loadingScope",
  states: {
    loadingScope: {
      description: "The organisation (its units and members) is read; a loading box is shown.",
      invoke: {
        id: "loadOrganization",
        src: "loadOrganization",
        input: ({ context }) => ({ id: context.organizationId }),
        /** The organisation arrived: the filters can offer its units and members; the first page is read. */
        onDone: { target: "listing", actions: "assignOrganization" },
        /** It could not be read: its message (by default 'Failed to load the organization. Please try again.'). */
        onError: { target: "failed", actions: "assignScopeError" },
      },
    },
    listing: {
      description: "The first page of findings is read; a loading box is shown under the filters.",
      invoke: {
        id: "listFindings",
        src: "listFindings",
        input: firstPage,
        /** The first page arrived with its totals and the cursor of the next. */
        onDone: { target: "ready", actions: "assignFirstPage" },
        /** It could not be read: its message (by default "Failed to load the findings. Please try again."). */
        onError: { target: "failed", actions: "assignListError" },
      },
    },
    failed: {
      description: "The error message is shown with a retry button.",
      on: { "findings.retryRequested": "loadingScope" },
    },
    ready: {
      description: "The rows are shown with their account and unit; the filters can be changed; 'Load more' while there are more.",
      on: {
        ...Object.fromEntries(FILTER_EVENTS.map((type) => [type, { target: "refreshing", actions: "assignFilter" }])),
        "findings.loadMoreRequested": { guard: "hasMoreRows", target: "loadingMore" },
      },
    },
    refreshing: {
      description: "The first page is read again with the new filters; the rows shown stay until the answer arrives.",
      invoke: {
        id: "refreshFindings",
        src: "listFindings",
        input: firstPage,
        /** The answer replaces the rows. */
        onDone: { target: "ready", actions: "assignFirstPage" },
        /** The read failed: the rows stay and an error toast says so. */
        onError: {
          target: "ready",
          actions: { type: "notify", params: ({ event }) => ({ kind: "error", message: toFailure(errorOf(event), FLEET_FINDINGS_FAILED).message }) },
        },
      },
      on: Object.fromEntries(FILTER_EVENTS.map((type) => [type, { target: "refreshing", reenter: true, actions: "assignFilter" }])),
    },
    loadingMore: {
      description: "The page after the last one shown is read by its cursor; the rows stay.",
      invoke: {
        id: "loadMoreFindings",
        src: "listFindings",
        input: ({ context }) => fleetFindingsQuery(context.organizationId, context.filters, context.nextCursor),
        /** The page is appended. */
        onDone: { target: "ready", actions: "appendPage" },
        /** The page could not be read: the rows stay and an error toast says so. */
        onError: {
          target: "ready",
          actions: { type: "notify", params: ({ event }) => ({ kind: "error", message: toFailure(errorOf(event), FLEET_FINDINGS_FAILED).message }) },
        },
      },
    },
  },
})
