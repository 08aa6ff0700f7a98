/**
 * The fleet dashboard of an organisation (beyond the spec, issue 31 item 4 "See the fleet"): its members × severity
 * by their latest completed scan, sorted by risk (or name, failing resources, staleness), stale members, the fleet's
 * totals and its 30-day trend, narrowed by unit (that unit and every unit under it) and tag. Every filter and sort runs
 * on the server (GET /api/organizations/{id}/fleet); the machine keeps the query and what the server answered.
 *
 * `loading` → `ready` or `failed` ('Failed to load the fleet. Please try again.', `fleet.retryRequested`). In `ready`,
 * a filter or sort change reads the dashboard again (`refreshing`, keeping what is shown; a newer change abandons the
 * older request; a failure toasts and keeps the figures).
 *
 * Events accepted:
 * - `filter.unitChanged` — the user chose a unit (null: every unit).
 * - `filter.tagSubmitted` — the user applied a tag filter ("key" or "key:value"; empty: any tag); a malformed tag is
 *   kept with its message and not sent.
 * - `sort.changed` — the user chose how members are ordered.
 * - `filters.cleared` — the user cleared the unit and tag filters.
 * - `fleet.retryRequested` — retry after the first load failed.
 * - `fleet.refreshRequested` — read the figures again (the same page).
 * - `page.requested` { page } — the user pressed Previous or Next under the members table (1-based).
 *
 * Paging: the server sorts every member the filters select and answers one page of them (`page`, FLEET_PAGE_SIZE
 * members) with its `pagination`; totals and the trend are over all of them. The machine keeps the page asked for
 * (`page`) and sends it with the filters; a filter or sort change goes back to page 1. Another page is read like a
 * filter change (`refreshing`, keeping what is shown).
 *
 * The unit filter's choices are the answer's `units` (`fleetUnits`): every unit of the organisation, whatever the filters
 * and the page — never the units of the members shown, which are one page of them. Alongside, the organisation itself
 * (GET /api/organizations/{id}) is read once for its name; if that fails the page still works, unnamed.
 *
 * The page's Compliance section is the `compliance` child (`fleetComplianceMachine`, invoked for the page's life): each
 * unit or tag change (and clearing them) is forwarded to it as `filters.changed` { unit, tag }, so it reads the
 * compliance for the same members as the table shows.
 */
import { assign, fromPromise, sendTo, setup } from "xstate"
import type { AccountId } from "../contracts/ids.ts"
import { FLEET_TAG, OrganizationMessages, type FleetDashboard, type FleetQuery, type FleetSort, type FleetUnit, type OrganizationDetail } from "../contracts/organizations.ts"
import { errorOf, outputOf } from "./actor-output.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"
import { fleetComplianceMachine, type TablePage } from "./fleet-compliance.machine.ts"

/** The message shown under the tag field when the tag cannot be sent. */
export const TAG_FORMAT_MESSAGE = 'Enter a tag as "key" or "key:value"'

export interface FleetFilters {
  readonly unit: string | null
  /** The tag applied ("" for none). */
  readonly tag: string
  readonly sort: FleetSort
}

export interface FleetDashboardContext {
  readonly organizationId: AccountId
  readonly filters: FleetFilters
  readonly dashboard: FleetDashboard | null
  /** The organisation (its name); null until read or when it could not be. */
  readonly organization: OrganizationDetail | null
  readonly error: string | null
  /** Why the last tag typed was not applied (null: it was). */
  readonly tagError: string | null
  /** The page of members asked for (1-based). */
  readonly page: number
}

export interface FleetDashboardInput {
  readonly organizationId: AccountId
}

export type FleetDashboardEvent =
  | { readonly type: "filter.unitChanged"; readonly unit: string | null }
  | { readonly type: "filter.tagSubmitted"; readonly tag: string }
  | { readonly type: "sort.changed"; readonly sort: FleetSort }
  | { readonly type: "filters.cleared" }
  | { readonly type: "fleet.retryRequested" }
  | { readonly type: "fleet.refreshRequested" }
  | { readonly type: "page.requested"; readonly page: number }

export const NO_FLEET_FILTERS: FleetFilters = { unit: null, tag: "", sort: "risk" }

/** The query the filters and the page ask the server (only what is set; page 1 and the server's page size by default). */
export const fleetQuery = (filters: FleetFilters, page = 1): FleetQuery => ({
  ...(filters.unit === null ? {} : { unit: filters.unit }),
  ...(filters.tag === "" ? {} : { tag: filters.tag }),
  ...(filters.sort === "risk" ? {} : { sort: filters.sort }),
  ...(page === 1 ? {} : { page }),
})

/** The members' page as the server answered it; from a page past the last, Previous asks for the last. */
export type MembersPage = TablePage

/** Where the members shown sit among all of them, from the server's `pagination` (nothing before an answer). */
export const membersPage = (dashboard: FleetDashboard | null): MembersPage => {
  if (dashboard === null) return { page: 1, pageCount: 0, first: 0, last: 0, total: 0, previous: null, next: null }
  const { page, page_size, total, total_pages } = dashboard.pagination
  const start = (page - 1) * (page_size ?? dashboard.members.length)
  const shown = dashboard.members.length
  return {
    page, pageCount: total_pages, first: shown === 0 ? 0 : start + 1, last: start + shown, total,
    previous: page > 1 ? Math.min(page, total_pages + 1) - 1 : null,
    next: page < total_pages ? page + 1 : null,
  }
}

/**
 * The unit filter's choices: every unit of the organisation (by path) as the last answer names them, whatever its
 * filters and page (none before an answer).
 */
export const fleetUnits = (dashboard: FleetDashboard | null): ReadonlyArray<FleetUnit> => dashboard?.units ?? NO_UNITS
const NO_UNITS: ReadonlyArray<FleetUnit> = []

export const hasFleetFilters = (filters: FleetFilters): boolean => filters.unit !== null || filters.tag !== ""

const isTag = (tag: string): boolean => tag.trim() === "" || FLEET_TAG.test(tag.trim())

type LoadInput = { readonly id: AccountId; readonly query: FleetQuery }

const loadInput = ({ context }: { readonly context: FleetDashboardContext }): LoadInput => ({
  id: context.organizationId,
  query: fleetQuery(context.filters, context.page),
})

export const fleetDashboardMachine = setup({
  types: {
    context: {} as FleetDashboardContext,
    events: {} as FleetDashboardEvent,
    input: {} as FleetDashboardInput,
  },
  actors: {
    /** GET /api/organizations/{id}/fleet with the filters and sort. */
    loadFleet: fromPromise<FleetDashboard, LoadInput>(async () => {
      throw new Error("loadFleet is not provided")
    }),
    /** GET /api/organizations/{id}: its name. */
    loadOrganization: fromPromise<OrganizationDetail, { readonly id: AccountId }>(async () => {
      throw new Error("loadOrganization is not provided")
    }),
    /** The Compliance section (as `compliance`), following the unit and tag filters. */
    fleetCompliance: fleetComplianceMachine,
  },
  guards: {
    isTagWellFormed: ({ event }) => event.type === "filter.tagSubmitted" && isTag(event.tag),
    /** The page asked for exists (by the last answer) and is not the one asked for already. */
    isOtherPage: ({ context, event }) =>
      event.type === "page.requested" &&
      Number.isInteger(event.page) &&
      event.page >= 1 &&
      event.page <= (context.dashboard?.pagination.total_pages ?? 0) &&
      event.page !== context.page,
  },
  actions: {
    assignOrganization: assign({ organization: ({ event }) => outputOf<OrganizationDetail>(event) }),
    assignDashboard: assign({ dashboard: ({ event }) => outputOf<FleetDashboard>(event), error: null }),
    assignError: assign({ error: ({ event }) => toFailure(errorOf(event), OrganizationMessages.loadFleetFailed).message }),
    // Another selection or order of members starts again at page 1.
    assignUnit: assign({
      filters: ({ context, event }) => (event.type === "filter.unitChanged" ? { ...context.filters, unit: event.unit } : context.filters),
      page: 1,
    }),
    assignTag: assign({
      filters: ({ context, event }) => (event.type === "filter.tagSubmitted" ? { ...context.filters, tag: event.tag.trim() } : context.filters),
      tagError: null,
      page: 1,
    }),
    rejectTag: assign({ tagError: TAG_FORMAT_MESSAGE }),
    assignSort: assign({
      filters: ({ context, event }) => (event.type === "sort.changed" ? { ...context.filters, sort: event.sort } : context.filters),
      page: 1,
    }),
    clearFilters: assign({ filters: ({ context }) => ({ ...NO_FLEET_FILTERS, sort: context.filters.sort }), tagError: null, page: 1 }),
    keepShownPage: assign({ page: ({ context }) => context.dashboard?.pagination.page ?? 1 }),
    assignPage: assign({ page: ({ context, event }) => (event.type === "page.requested" ? event.page : context.page) }),
    /** The unit and tag now applied, to the Compliance section (it ignores a change that is not one). */
    forwardFilters: sendTo("compliance", ({ context }) => ({ type: "filters.changed" as const, unit: context.filters.unit, tag: context.filters.tag })),
    /** Environment: a toast. */
    notify: (_, _params: NotifyParams) => {},
  },
}).createMachine({
  id: "fleetDashboard",
  context: ({ input }) => ({ organizationId: input.organizationId, filters: NO_FLEET_FILTERS, dashboard: null, organization: null, error: null, tagError: null, page: 1 }),
  invoke: [
    {
      id: "loadOrganization",
      src: "loadOrganization",
      input: ({ context }) => ({ id: context.organizationId }),
      /** The organisation's name arrived (the page's heading). */
      onDone: { actions: "assignOrganization" },
      // Without it the page is unnamed; the dashboard and its unit filter (the answer's `units`) do not need it.
      onError: {},
    },
    { id: "compliance", src: "fleetCompliance", input: ({ context }) => ({ organizationId: context.organizationId }) },
  ],
  initial: "loading",
  states: {
    loading: {
      description: "The dashboard reads the fleet for the first time; a loading box is shown.",
      invoke: {
        id: "loadFleet",
        src: "loadFleet",
        input: loadInput,
        /** The fleet arrived: totals, members and trend are shown. */
        onDone: { target: "ready", actions: "assignDashboard" },
        /** The first load failed: its message (by default 'Failed to load the fleet. Please try again.') with a retry button. */
        onError: { target: "failed", actions: "assignError" },
      },
    },
    failed: {
      description: "The error message is shown with a retry button.",
      on: { "fleet.retryRequested": "loading" },
    },
    ready: {
      description: "Totals, the members × severity table and the trend are shown; the filters can be changed.",
      on: {
        "filter.unitChanged": { target: "refreshing", actions: ["assignUnit", "forwardFilters"] },
        "filter.tagSubmitted": [
          { guard: "isTagWellFormed", target: "refreshing", actions: ["assignTag", "forwardFilters"] },
          { actions: "rejectTag" },
        ],
        "sort.changed": { target: "refreshing", actions: "assignSort" },
        "filters.cleared": { target: "refreshing", actions: ["clearFilters", "forwardFilters"] },
        "fleet.refreshRequested": "refreshing",
        /** Previous / Next under the members table: that page is read (the totals and trend come again with it). */
        "page.requested": { guard: "isOtherPage", target: "refreshing", actions: "assignPage" },
      },
    },
    refreshing: {
      description: "The fleet is read again with the new filters while the page keeps showing the previous figures.",
      invoke: {
        id: "reloadFleet",
        src: "loadFleet",
        input: loadInput,
        /** The answer replaces the figures shown. */
        onDone: { target: "ready", actions: "assignDashboard" },
        /** The read failed: the figures stay (the page asked for is again the page shown) and an error toast says so. */
        onError: {
          target: "ready",
          actions: [
            "keepShownPage",
            { type: "notify", params: ({ event }) => ({ kind: "error", message: toFailure(errorOf(event), OrganizationMessages.loadFleetFailed).message }) },
          ],
        },
      },
      on: {
        // A newer choice abandons the request in flight (re-entering restarts the invoke with the new query).
        "filter.unitChanged": { target: "refreshing", reenter: true, actions: ["assignUnit", "forwardFilters"] },
        "filter.tagSubmitted": [
          { guard: "isTagWellFormed", target: "refreshing", reenter: true, actions: ["assignTag", "forwardFilters"] },
          { actions: "rejectTag" },
        ],
        "sort.changed": { target: "refreshing", reenter: true, actions: "assignSort" },
        "filters.cleared": { target: "refreshing", reenter: true, actions: ["clearFilters", "forwardFilters"] },
        "page.requested": { guard: "isOtherPage", target: "refreshing", reenter: true, actions: "assignPage" },
      },
    },
  },
})
