/**
 * /dashboard/compliance/scans/{scanId}/{frameworkId}/{requirementId} (issue 14 "drill-down requirement → checks →
 * failing resources"): the requirement's status and counts, the checks that decide it (each linking to the scan's
 * finding page), and its failing resources page by page, muted ones marked with their mute reason.
 *
 * Flow: `loading` (`loadRequirement`, page 1) → `ready` | `failed` (Retry). In `ready`: `page.requested` { page }
 * (within the pages the answer announced) → `paging` → `ready` with that page (a failure toasts and keeps the page shown);
 * `finding.opened` { findingId } navigates to /dashboard/scans/{scan}/findings/{finding}?service={name} for a check of
 * this requirement that ran in the scan.
 *
 * Events accepted:
 * - `retry.requested` — the user pressed Retry after the requirement failed to load.
 * - `page.requested` { page } — the user went to another page of the failing resources (within the pages the answer announced).
 * - `finding.opened` { findingId } — the user opened one of the requirement's checks: navigates to the scan's finding page for it.
 */
import { assertEvent, assign, fromPromise, setup } from "xstate"
import { ComplianceMessages, type RequirementDetail } from "../contracts/compliance.ts"
import type { ScanId } from "../contracts/ids.ts"
import { toFailure, type NavigateParams, type NotifyParams } from "./auth-effects.ts"
import { errorOf, outputOf } from "./actor-output.ts"
import { findingPagePath, type RequirementRequest } from "./compliance-effects.ts"

export interface ComplianceRequirementInput {
  readonly scanId: ScanId
  readonly frameworkId: string
  readonly requirementId: string
}

export interface ComplianceRequirementContext extends ComplianceRequirementInput {
  readonly detail: RequirementDetail | null
  /** The page being shown or asked for. */
  readonly page: number
  readonly error: string | null
}

export type ComplianceRequirementEvent =
  | { readonly type: "retry.requested" }
  | { readonly type: "page.requested"; readonly page: number }
  | { readonly type: "finding.opened"; readonly findingId: number }

const request = (context: ComplianceRequirementContext): RequirementRequest => ({
  scanId: context.scanId,
  frameworkId: context.frameworkId,
  requirementId: context.requirementId,
  page: context.page,
})

export const complianceRequirementMachine = setup({
  types: {
    context: {} as ComplianceRequirementContext,
    events: {} as ComplianceRequirementEvent,
    input: {} as ComplianceRequirementInput,
  },
  actors: {
    /** Loads the requirement with its checks and one page of failing resources. */
    loadRequirement: fromPromise<RequirementDetail, RequirementRequest>(async () => {
      throw new Error("loadRequirement is not provided")
    }),
  },
  guards: {
    /** The requested page exists (within the announced pages) and is not the one shown. */
    isOtherPage: ({ context, event }) => {
      assertEvent(event, "page.requested")
      const pages = context.detail?.failing_pagination.total_pages ?? 0
      return Number.isInteger(event.page) && event.page >= 1 && event.page <= pages && event.page !== context.page
    },
    /** The opened finding is one of the requirement's checks. */
    isCheckFinding: ({ context, event }) => {
      assertEvent(event, "finding.opened")
      return context.detail?.checks.some((c) => c.finding_id === event.findingId) === true
    },
  },
  actions: {
    assignDetail: assign(({ event }) => {
      const detail = outputOf<RequirementDetail>(event)
      return { detail, page: detail.failing_pagination.page, error: null }
    }),
    assignError: assign({ error: ({ event }) => toFailure(errorOf(event), ComplianceMessages.loadFailed).message }),
    assignPage: assign({
      page: ({ event }) => {
        assertEvent(event, "page.requested")
        return event.page
      },
    }),
    restorePage: assign({ page: ({ context }) => context.detail?.failing_pagination.page ?? 1 }),
    /** Environment: go to a route. */
    navigate: (_, _params: NavigateParams) => {},
    /** Environment: a toast. */
    notify: (_, _params: NotifyParams) => {},
  },
}).createMachine({
  id: "complianceRequirement",
  context: ({ input }) => ({ ...input, detail: null, page: 1, error: null }),
  initial: "loading",
  states: {
    loading: {
      description: "The requirement (status, counts, checks and the first page of failing resources) is being loaded.",
      invoke: {
        id: "loadRequirement",
        src: "loadRequirement",
        input: ({ context }) => request(context),
        /** The requirement arrived and is shown. */
        onDone: { target: "ready", actions: "assignDetail" },
        /** The requirement could not be loaded: its error is shown with Retry. */
        onError: { target: "failed", actions: "assignError" },
      },
    },
    failed: { description: "The requirement could not be loaded: its error is shown with Retry.", on: { "retry.requested": "loading" } },
    ready: {
      description: "The requirement is shown: its status and counts, the checks that decide it, and a page of failing resources (muted ones marked with their mute reason).",
      on: {
        "page.requested": { guard: "isOtherPage", target: "paging", actions: "assignPage" },
        "finding.opened": {
          guard: "isCheckFinding",
          actions: {
            type: "navigate",
            params: ({ context, event }) => {
              const check = context.detail!.checks.find((c) => c.finding_id === event.findingId)!
              return { to: findingPagePath(context.scanId, event.findingId, check.service_name) }
            },
          },
        },
      },
    },
    paging: {
      description: "Another page of failing resources is being loaded; the current page stays shown.",
      invoke: {
        id: "loadPage",
        src: "loadRequirement",
        input: ({ context }) => request(context),
        /** The requested page arrived and is shown. */
        onDone: { target: "ready", actions: "assignDetail" },
        /** The page could not be loaded: an error toast says so and the previous page stays shown. */
        onError: {
          target: "ready",
          actions: [
            "restorePage",
            {
              type: "notify",
              params: ({ event }) => ({ kind: "error", message: toFailure(event.error, ComplianceMessages.loadFailed).message }),
            },
          ],
        },
      },
    },
  },
})
