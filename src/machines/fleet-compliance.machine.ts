/**
 * Organisation compliance on the fleet page (beyond the spec, issue 31 item 4): for a framework of the organisation's
 * provider, each requirement with its member accounts passing, failing, passing with exceptions, not evaluated and not
 * scanned, read from each member's latest completed scan (GET /api/organizations/{id}/compliance/{framework}), narrowed
 * by the fleet page's unit and tag; and the CSV (per requirement, or members × requirements) and PDF report downloads.
 *
 * `loadingFrameworks` → `loading` (the first framework of the provider) → `ready`, or `failed` ('Failed to load the
 * organisation's compliance. Please try again.', `compliance.retryRequested`); no framework for the provider → `empty`.
 * In `ready`, another framework or the fleet page's filters read the compliance again (`loading`, keeping what is shown;
 * a failure then toasts and keeps it). Alongside, `downloads`: `idle` → `downloading` (`downloadOrgCompliance` →
 * `saveFile`; a failure toasts) → `idle`, offered once a compliance answer is on screen.
 *
 * Events accepted:
 * - `framework.changed` { frameworkId } — the user chose another framework.
 * - `filters.changed` { unit, tag } — the fleet page's unit or tag filter changed (tag "" for none); sent by the fleet
 *   dashboard machine, which invokes this one as its `compliance` child.
 * - `compliance.retryRequested` — the user pressed retry after the compliance failed to load.
 * - `download.requested` { kind } — the user asked for the requirements CSV, the members CSV or the PDF report.
 * - `page.requested` { page } — the user pressed Previous or Next under the requirements table (1-based).
 *
 * Paging: the answer is bounded by the framework (one row per requirement of the catalogue: at most 181 today, AWS
 * FSBP), so it is read whole and paged here, `ORG_REQUIREMENTS_PAGE_SIZE` rows at a time (`requirementsPage`); the view
 * renders one page only. Another framework goes back to page 1; a new answer for the same framework keeps the page
 * (clamped to the last one).
 */
import { and, assign, fromPromise, setup } from "xstate"
import type { Framework } from "../contracts/compliance.ts"
import type { AccountId } from "../contracts/ids.ts"
import type { FleetFilter, OrgCompliance, OrgRequirement } from "../contracts/organizations.ts"
import { errorOf, outputOf } from "./actor-output.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"
import { notProvided } from "./building-blocks.ts"
import type { DownloadedFile } from "./compliance-effects.ts"
import type { OrgComplianceFileKind, OrgComplianceRequest } from "./fleet-effects.ts"

export const ORG_COMPLIANCE_FAILED = "Failed to load the organisation's compliance. Please try again."
export const ORG_DOWNLOAD_FAILED = "Failed to download the file. Please try again."

export interface FleetComplianceContext {
  readonly organizationId: AccountId
  readonly frameworks: ReadonlyArray<Framework>
  readonly frameworkId: string | null
  readonly filter: FleetFilter
  readonly compliance: OrgCompliance | null
  readonly error: string | null
  /** The file being downloaded. */
  readonly downloading: OrgComplianceFileKind | null
  /** The page of the requirements table shown (1-based). */
  readonly page: number
}

export interface FleetComplianceInput {
  readonly organizationId: AccountId
}

export type FleetComplianceEvent =
  | { readonly type: "framework.changed"; readonly frameworkId: string }
  | { readonly type: "filters.changed"; readonly unit: string | null; readonly tag: string }
  | { readonly type: "compliance.retryRequested" }
  | { readonly type: "download.requested"; readonly kind: OrgComplianceFileKind }
  | { readonly type: "page.requested"; readonly page: number }

/** Rows of the requirements table per page. */
export const ORG_REQUIREMENTS_PAGE_SIZE = 50

const pageCountOf = (total: number): number => Math.max(1, Math.ceil(total / ORG_REQUIREMENTS_PAGE_SIZE))

/** One page of a table of the fleet page (the requirements here, the members: `membersPage`), as its pager shows it. */
export interface TablePage {
  /** 1-based. */
  readonly page: number
  readonly pageCount: number
  /** 1-based position of the first and last row shown (0 and 0 without rows). */
  readonly first: number
  readonly last: number
  /** Every row. */
  readonly total: number
  /** The page Previous and Next ask for; null: none. */
  readonly previous: number | null
  readonly next: number | null
}

export interface RequirementsPage extends TablePage {
  readonly rows: ReadonlyArray<OrgRequirement>
}

/** The requirements on the page shown (nothing before an answer). */
export const requirementsPage = (context: Pick<FleetComplianceContext, "compliance" | "page">): RequirementsPage => {
  const all = context.compliance?.requirements ?? []
  const pageCount = pageCountOf(all.length)
  const page = Math.min(Math.max(1, context.page), pageCount)
  const start = (page - 1) * ORG_REQUIREMENTS_PAGE_SIZE
  const rows = all.slice(start, start + ORG_REQUIREMENTS_PAGE_SIZE)
  return {
    rows, page, pageCount, first: rows.length === 0 ? 0 : start + 1, last: start + rows.length, total: all.length,
    previous: page > 1 ? page - 1 : null,
    next: page < pageCount ? page + 1 : null,
  }
}

/** The fleet page's filters as the compliance call takes them (only what is set). */
export const complianceFilter = (unit: string | null, tag: string): FleetFilter => ({
  ...(unit === null ? {} : { unit }),
  ...(tag.trim() === "" ? {} : { tag: tag.trim() }),
})

const sameFilter = (a: FleetFilter, b: FleetFilter): boolean => a.unit === b.unit && a.tag === b.tag

const request = ({ context }: { readonly context: FleetComplianceContext }): OrgComplianceRequest => ({
  id: context.organizationId,
  frameworkId: context.frameworkId ?? "",
  filter: context.filter,
})

const failure = (error: unknown, fallback: string) => toFailure(error, fallback).message

export const fleetComplianceMachine = setup({
  types: {
    context: {} as FleetComplianceContext,
    events: {} as FleetComplianceEvent,
    input: {} as FleetComplianceInput,
  },
  actors: {
    /** The frameworks of the organisation's provider. */
    loadOrgFrameworks: fromPromise<ReadonlyArray<Framework>, { readonly id: AccountId }>(notProvided("loadOrgFrameworks")),
    /** GET /api/organizations/{id}/compliance/{framework}?unit=&tag=. */
    loadOrgCompliance: fromPromise<OrgCompliance, OrgComplianceRequest>(notProvided("loadOrgCompliance")),
    /** GET …/csv?part= or …/pdf, as a file. */
    downloadOrgCompliance: fromPromise<DownloadedFile, OrgComplianceRequest & { readonly kind: OrgComplianceFileKind }>(notProvided("downloadOrgCompliance")),
  },
  guards: {
    /** The provider has at least one framework. */
    hasFrameworks: ({ event }) => outputOf<ReadonlyArray<Framework>>(event).length > 0,
    /** A framework is chosen (the provider has one). */
    hasFramework: ({ context }) => context.frameworkId !== null,
    /** A compliance answer is on screen (a failed re-read keeps it). */
    hasCompliance: ({ context }) => context.compliance !== null,
    /** The chosen framework is one of the provider's and not the one shown. */
    isOtherFramework: ({ context, event }) =>
      event.type === "framework.changed" && event.frameworkId !== context.frameworkId && context.frameworks.some((f) => f.id === event.frameworkId),
    /** The fleet page's filters differ from those applied. */
    isOtherFilter: ({ context, event }) => event.type === "filters.changed" && !sameFilter(complianceFilter(event.unit, event.tag), context.filter),
    /** The page asked for exists and is not the one shown. */
    isOtherPage: ({ context, event }) =>
      event.type === "page.requested" &&
      Number.isInteger(event.page) &&
      event.page >= 1 &&
      event.page <= pageCountOf(context.compliance?.requirements.length ?? 0) &&
      event.page !== requirementsPage(context).page,
  },
  actions: {
    /** Environment: a toast. */
    notify: (_, _params: NotifyParams) => {},
    /** Environment: hand the file to the browser's download. */
    saveFile: (_, _params: DownloadedFile) => {},
    assignFrameworks: assign(({ event }) => {
      const frameworks = outputOf<ReadonlyArray<Framework>>(event)
      return { frameworks, frameworkId: frameworks[0]?.id ?? null }
    }),
    assignCompliance: assign(({ context, event }) => {
      const compliance = outputOf<OrgCompliance>(event)
      const sameFramework = context.compliance?.framework.id === compliance.framework.id
      return { compliance, error: null, page: sameFramework ? Math.min(context.page, pageCountOf(compliance.requirements.length)) : 1 }
    }),
    assignPage: assign({ page: ({ context, event }) => (event.type === "page.requested" ? event.page : context.page) }),
    assignError: assign({ error: ({ event }) => failure(errorOf(event), ORG_COMPLIANCE_FAILED) }),
    assignFramework: assign({ frameworkId: ({ context, event }) => (event.type === "framework.changed" ? event.frameworkId : context.frameworkId) }),
    assignFilter: assign({ filter: ({ context, event }) => (event.type === "filters.changed" ? complianceFilter(event.unit, event.tag) : context.filter) }),
    assignDownloading: assign({ downloading: ({ event }) => (event.type === "download.requested" ? event.kind : null) }),
    clearDownloading: assign({ downloading: null }),
  },
}).createMachine({
  id: "fleetCompliance",
  context: ({ input }) => ({
    organizationId: input.organizationId,
    frameworks: [],
    frameworkId: null,
    filter: {},
    compliance: null,
    error: null,
    downloading: null,
    page: 1,
  }),
  type: "parallel",
  states: {
    view: {
      description: "The organisation's compliance for the chosen framework.",
      initial: "loadingFrameworks",
      on: {
        // The fleet page's filters are followed whatever is on screen: read again when a framework is chosen, else kept for the first read.
        "filters.changed": [
          { guard: and(["isOtherFilter", "hasFramework"]), target: ".loading", reenter: true, actions: "assignFilter" },
          { guard: "isOtherFilter", actions: "assignFilter" },
        ],
      },
      states: {
        loadingFrameworks: {
          description: "The frameworks of the organisation's provider are being read.",
          invoke: {
            id: "loadOrgFrameworks",
            src: "loadOrgFrameworks",
            input: ({ context }) => ({ id: context.organizationId }),
            onDone: [
              /** The provider's frameworks arrived: the first is read. */
              { guard: "hasFrameworks", target: "loading", actions: "assignFrameworks" },
              /** The provider has no framework: the section says so. */
              { target: "empty", actions: "assignFrameworks" },
            ],
            /** The frameworks could not be read: the error with a retry button. */
            onError: { target: "failed", actions: "assignError" },
          },
        },
        empty: { description: "No compliance framework covers the organisation's provider." },
        loading: {
          description: "The compliance of the chosen framework is being read; what was shown before stays on screen.",
          invoke: {
            id: "loadOrgCompliance",
            src: "loadOrgCompliance",
            input: request,
            /** The answer replaces what is shown: requirements with their members by status, and the members' counts. */
            onDone: { target: "ready", actions: "assignCompliance" },
            onError: [
              /** A re-read failed: what was shown stays and an error toast says why. */
              {
                guard: "hasCompliance",
                target: "ready",
                actions: { type: "notify", params: ({ event }) => ({ kind: "error", message: failure(event.error, ORG_COMPLIANCE_FAILED) }) },
              },
              /** The first read failed: the error with a retry button (by default 'Failed to load the organisation's compliance. Please try again.'). */
              { target: "failed", actions: "assignError" },
            ],
          },
          on: {
            // A newer choice abandons the request in flight (re-entering restarts the invoke with the new query).
            "framework.changed": { guard: "isOtherFramework", target: "loading", reenter: true, actions: "assignFramework" },
          },
        },
        ready: {
          description: "Each requirement with its members passing, failing, with exceptions, not evaluated and not scanned, one page of rows at a time.",
          on: {
            "framework.changed": { guard: "isOtherFramework", target: "loading", actions: "assignFramework" },
            /** Previous / Next: another page of the answer on screen (no request). */
            "page.requested": { guard: "isOtherPage", actions: "assignPage" },
          },
        },
        failed: {
          description: "The compliance could not be read: the error is shown with a retry button.",
          on: {
            "compliance.retryRequested": [
              { guard: "hasFramework", target: "loading" },
              { target: "loadingFrameworks" },
            ],
          },
        },
      },
    },
    downloads: {
      description: "The CSV and PDF downloads of the compliance on screen.",
      initial: "idle",
      states: {
        idle: {
          description: "No download is running; the download buttons are offered once a compliance answer is shown.",
          on: { "download.requested": { guard: "hasCompliance", target: "downloading", actions: "assignDownloading" } },
        },
        downloading: {
          description: "The file is being produced by the server; when it arrives it is handed to the browser's download.",
          invoke: {
            id: "downloadOrgCompliance",
            src: "downloadOrgCompliance",
            input: ({ context }) => ({ ...request({ context }), frameworkId: context.compliance?.framework.id ?? context.frameworkId ?? "", kind: context.downloading ?? "requirements" }),
            /** The file arrived and is handed to the browser's download. */
            onDone: { target: "idle", actions: ["clearDownloading", { type: "saveFile", params: ({ event }) => event.output }] },
            /** The download failed: an error toast says why. */
            onError: {
              target: "idle",
              actions: ["clearDownloading", { type: "notify", params: ({ event }) => ({ kind: "error", message: failure(event.error, ORG_DOWNLOAD_FAILED) }) }],
            },
          },
        },
      },
    },
  },
})
