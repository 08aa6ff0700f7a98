/**
 * /dashboard/scans/{scanId}/findings/{findingId}?service={serviceName} (scanning §2 "Finding detail", §4 remediation
 * states, §6 remediate_findings, §7 GET /api/findings/{id}, §8 'Failed to load finding details. Please try again.').
 *
 * Parallel regions:
 * - `detail`: `loading` → `loaded` or `failed` (the §8 text with Retry and Go Back). While a row's remediation is
 *   pending the finding is re-read every 5 s (`remediationPoll`, beyond the spec: the remediation runs as a job), so
 *   'View Status' turns into 'View Remediated' / 'View Error' on its own; polling stops when nothing is pending and when
 *   the page is left.
 *   Beyond the spec, the detail rows are paged on the server (a finding can hold 100,000 resources): `details.pageRequested`,
 *   `details.statusChanged` (all / failing / passing / remediated, back to page 1) and `details.searchChanged` (a resource
 *   id search, sent after `searchDebounce` of quiet typing, back to page 1) read that page (`loaded.fetching`); a page that
 *   cannot be read keeps the rows shown and toasts the §8 text.
 * - `viewer`: the user's remediate_findings permission (`loadViewer`); unknown reads as "not allowed".
 * - `dialog`: none | open (the remediation dialog of one row as a child). `row.remediateRequested` without the
 *   permission toasts "You don't have permission to remediate findings" (the view also disables the button with the
 *   tooltip). The dialog reports the row as the server answered (`remediation.rowChanged`): it replaces the row in
 *   the table and, when pending, starts the polling; the dialog's final output is applied when it closes.
 *
 * - `mute` (beyond the spec, issue 13): none | open (the Mute dialog as a child, `muteRuleFormMachine` starting with the
 *   finding's check). `row.muteRequested` (a failing row's Mute) and `finding.muteRequested` (Mute check) open it with
 *   the row's resource or none; without remediate_findings
 *   they toast "You don't have permission to mute findings". A saved rule re-reads the page (`loaded.fetching`): the
 *   rows show as muted and the counts change at once.
 *
 * `finding.backRequested` (Go Back) returns to the service's findings list.
 *
 * Events accepted:
 * - `finding.backRequested` — the user pressed Go Back: return to the service's findings list.
 * - `finding.retryRequested` — the user pressed Retry after the finding failed to load: load it again.
 * - `remediation.rowChanged` { rowIndex, row } — the open remediation dialog reports the row as the server answered:
 *   it replaces the row in the table, polling starts when its remediation is pending, and the Remediation history card
 *   (a `remediationHistoryMachine` child, issue 32) reads the finding's remediations again.
 * - `finding.changed` — raised by the machine when the finding changed outside a load: whether to poll is decided
 *   again.
 * - `details.pageRequested` { page } — the user asked for another page of the detail rows.
 * - `details.statusChanged` { status } — the user chose a row status filter (all / failing / passing / remediated):
 *   back to page 1.
 * - `details.searchChanged` { q } — the user typed in the resource id search: read after 300 ms of quiet typing, back
 *   to page 1.
 * - `finding.reloadRequested` — raised by the machine when a mute rule was saved, or sent by the history card when a
 *   remediation settled (an undo finished): the page of rows is read again.
 * - `row.remediateRequested` { rowIndex } — the user pressed 'Remediate' on a failing row. Not on a finding of a member
 *   retired from its organisation (issue 31: the server refuses it; `selectAccountRetired` says so to the view).
 * - `row.viewRequested` { rowIndex } — the user pressed a row's 'View …' button to see its remediation record.
 * - `row.muteRequested` { rowIndex, today } — the user pressed Mute on a failing row that no rule mutes yet.
 * - `finding.muteRequested` { today } — the user pressed Mute check on the finding.
 */
import { assign, enqueueActions, fromPromise, raise, sendTo, setup } from "xstate"
import { remediationState, type DetailRow, type DetailStatus, type Finding, type FindingDetailQuery } from "../contracts/findings.ts"
import { DetailPaging } from "../contracts/constants.ts"
import type { FindingId, ScanId } from "../contracts/ids.ts"
import { ScanningMessages } from "../contracts/messages.ts"
import { toFailure, type NavigateParams, type NotifyParams } from "./auth-effects.ts"
import { remediationMachine, type RemediationOutput } from "./remediation.machine.ts"
import { muteRuleFormMachine } from "./mute-rule-form.machine.ts"
import { remediationHistoryMachine } from "./remediation-history.machine.ts"
import { PostureMessages } from "../contracts/posture.ts"
import type { ScanViewer } from "./scan-effects.ts"
import { scanPath } from "./scan-list.machine.ts"
import { findingsPath } from "./scan-detail.machine.ts"
import { errorOf, outputOf } from "./actor-output.ts"

/** Beyond the spec: how often a finding with a pending remediation is re-read. */
export const REMEDIATION_POLL_MS = 5_000
/** Beyond the spec: quiet typing time before a resource search is sent. */
export const SEARCH_DEBOUNCE_MS = 300

/** Which page of the detail rows is shown. */
export interface DetailsQuery {
  readonly page: number
  readonly status: DetailStatus | null
  /** The search text as typed (sent trimmed; empty = no search). */
  readonly q: string
}

export const INITIAL_DETAILS_QUERY: DetailsQuery = { page: 1, status: null, q: "" }

/** The request of one page of the finding. */
export const findingRequest = (context: Pick<FindingDetailContext, "findingId" | "query">): { readonly id: FindingId } & FindingDetailQuery => ({
  id: context.findingId,
  details_page: context.query.page,
  details_page_size: DetailPaging.defaultPageSize,
  ...(context.query.status === null ? {} : { details_status: context.query.status }),
  ...(context.query.q.trim() === "" ? {} : { details_q: context.query.q.trim() }),
})

/** The last page number of the rows the finding's current filter matches (1 when there are none). */
export const lastDetailsPage = (finding: Pick<Finding, "details_pagination"> | null): number =>
  Math.max(1, finding?.details_pagination?.total_pages ?? 1)

export interface FindingDetailInput {
  readonly scanId: ScanId
  readonly findingId: FindingId
  readonly serviceName: string | null
  /** A resource to show the rows of (`?resource=`, from a resource's history): the details search starts with it. */
  readonly resource?: string | null
}

export interface FindingDetailContext extends Omit<FindingDetailInput, "resource"> {
  readonly finding: Finding | null
  readonly error: string | null
  readonly viewer: ScanViewer | null
  /** The row (index in the page shown) whose dialog is open. */
  readonly activeRow: number | null
  readonly query: DetailsQuery
  /** The Mute dialog's subject: a row's resource, or null for the whole check; and today's date (YYYY-MM-DD). */
  readonly muteTarget: { readonly resourceId: string | null; readonly today: string } | null
}

export type FindingDetailEvent =
  | { readonly type: "finding.retryRequested" }
  | { readonly type: "finding.backRequested" }
  | { readonly type: "row.remediateRequested"; readonly rowIndex: number }
  | { readonly type: "row.viewRequested"; readonly rowIndex: number }
  /** From the open remediation dialog: the row as the server answered. */
  | { readonly type: "remediation.rowChanged"; readonly rowIndex: number; readonly row: DetailRow }
  /** Raised when the finding changed outside a load (the detail region re-decides whether to poll). */
  | { readonly type: "finding.changed" }
  | { readonly type: "details.pageRequested"; readonly page: number }
  | { readonly type: "details.statusChanged"; readonly status: DetailStatus | null }
  | { readonly type: "details.searchChanged"; readonly q: string }
  /** Beyond the spec: Mute on a failing row, and Mute check on the finding (`today`: the user's date, YYYY-MM-DD). */
  | { readonly type: "row.muteRequested"; readonly rowIndex: number; readonly today: string }
  | { readonly type: "finding.muteRequested"; readonly today: string }
  /** Raised when a mute rule was saved: the page is read again. */
  | { readonly type: "finding.reloadRequested" }

/** Whether any row waits for its remediation's outcome. */
export const hasPendingRemediation = (finding: Pick<Finding, "details"> | null): boolean =>
  (finding?.details ?? []).some((row) => row.remediate !== undefined && remediationState(row.remediate.status) === "pending")

/** Where Go Back leads: the service's findings, else the scan. */
export const backPath = (context: Pick<FindingDetailContext, "scanId" | "serviceName">): string =>
  context.serviceName === null || context.serviceName === ""
    ? scanPath(context.scanId)
    : findingsPath(context.scanId, context.serviceName)

/** Whether the Remediate buttons are enabled (scanning §6). */
export const selectCanRemediate = (snapshot: { readonly context: Pick<FindingDetailContext, "viewer"> }): boolean =>
  snapshot.context.viewer?.canRemediate === true

/**
 * Beyond the spec (issue 31): the finding's account is a member retired from its organisation: its rows take no
 * remediation (the page says why); the `isRemediableRow` guard reads the same.
 */
export const selectAccountRetired = (snapshot: { readonly context: Pick<FindingDetailContext, "finding"> }): boolean =>
  snapshot.context.finding?.account_retired === true

const rowAt = (context: Pick<FindingDetailContext, "finding">, index: number): DetailRow | undefined => context.finding?.details[index]

export const findingDetailMachine = setup({
  types: {
    context: {} as FindingDetailContext,
    events: {} as FindingDetailEvent,
    input: {} as FindingDetailInput,
  },
  actors: {
    /** GET /api/findings/{id} with one page of its detail rows (status filter, resource id search, page). */
    getFinding: fromPromise<Finding, { readonly id: FindingId } & FindingDetailQuery>(async () => {
      throw new Error("getFinding is not provided")
    }),
    /** The user's remediate_findings permission. */
    loadViewer: fromPromise<ScanViewer, void>(async () => {
      throw new Error("loadViewer is not provided")
    }),
    /** The remediation dialog of one detail row. */
    remediation: remediationMachine,
    /** The Mute dialog, starting with the finding's check (and a row's resource). */
    muteRule: muteRuleFormMachine,
    /** The Remediation history card: the finding's remediations and their undo (issue 32). */
    remediationHistory: remediationHistoryMachine,
  },
  delays: {
    /** While a row's remediation is pending, the finding is re-read every 5 s. */
    remediationPoll: REMEDIATION_POLL_MS,
    /** The resource id search is sent after 300 ms of quiet typing. */
    searchDebounce: SEARCH_DEBOUNCE_MS,
  },
  guards: {
    /** A detail row's remediation is pending. */
    hasPending: ({ context }) => hasPendingRemediation(context.finding),
    /** The user does not hold remediate_findings (or the permission is not known). */
    lacksPermission: ({ context }) => context.viewer?.canRemediate !== true,
    /** The row exists and is failing, in an account still acted in (not a retired member's, issue 31). */
    isRemediableRow: ({ context, event }) =>
      event.type === "row.remediateRequested" && rowAt(context, event.rowIndex)?.compliance === false && !selectAccountRetired({ context }),
    /** The row exists and has a remediation record. */
    hasRecord: ({ context, event }) =>
      event.type === "row.viewRequested" && rowAt(context, event.rowIndex)?.remediate !== undefined,
    /** A page that exists and is not the one shown. */
    isOtherPage: ({ context, event }) =>
      event.type === "details.pageRequested" &&
      Number.isInteger(event.page) &&
      event.page >= 1 &&
      event.page <= lastDetailsPage(context.finding) &&
      event.page !== context.query.page,
    /** A status filter other than the one in force. */
    isOtherStatus: ({ context, event }) => event.type === "details.statusChanged" && event.status !== context.query.status,
    /** A search other than the one in force. */
    isOtherSearch: ({ context, event }) => event.type === "details.searchChanged" && event.q !== context.query.q,
    /** A failing row that no rule mutes yet. */
    isMutableRow: ({ context, event }) => {
      if (event.type !== "row.muteRequested") return false
      const row = rowAt(context, event.rowIndex)
      return row?.compliance === false && row.muted === undefined
    },
    /** A finding with something left to mute. */
    isMutableFinding: ({ context }) => context.finding !== null && context.finding.resources_failing > context.finding.resources_muted,
    /** The Mute dialog finished with a saved rule. */
    savedRule: ({ event }) => outputOf<{ readonly saved: boolean }>(event).saved,
  },
  actions: {
    assignFinding: assign({ finding: ({ event }) => outputOf<Finding>(event), error: null }),
    assignError: assign({
      error: ({ event }) => toFailure(errorOf(event), ScanningMessages.loadFindingFailed).message,
    }),
    assignViewer: assign({ viewer: ({ event }) => outputOf<ScanViewer>(event) }),
    assignActiveRow: assign({
      activeRow: ({ event }) =>
        event.type === "row.remediateRequested" || event.type === "row.viewRequested" ? event.rowIndex : null,
    }),
    applyOutcome: assign(({ context, event }) => {
      const out = outputOf<RemediationOutput>(event)
      if (context.finding === null) return { activeRow: null }
      const details = context.finding.details.map((row, i) => (i === out.rowIndex ? out.row : row))
      return { finding: { ...context.finding, details }, activeRow: null }
    }),
    /** The dialog's row as the server now has it (its remediation may be pending: polling starts). */
    applyReportedRow: assign(({ context, event }) => {
      if (event.type !== "remediation.rowChanged" || context.finding === null) return {}
      const details = context.finding.details.map((row, i) => (i === event.rowIndex ? event.row : row))
      return { finding: { ...context.finding, details } }
    }),
    announceChange: raise({ type: "finding.changed" }),
    /** A remediation started (or was asked for): the history card reads the finding's remediations again. */
    refreshHistory: sendTo("remediationHistory", { type: "history.refreshRequested" }),
    assignMuteTarget: assign({
      muteTarget: ({ context, event }) =>
        event.type === "row.muteRequested"
          ? { resourceId: String(rowAt(context, event.rowIndex)?.["resource_id"] ?? ""), today: event.today }
          : event.type === "finding.muteRequested"
            ? { resourceId: null, today: event.today }
            : null,
    }),
    clearMuteTarget: assign({ muteTarget: null }),
    requestReload: raise({ type: "finding.reloadRequested" }),
    assignPage: assign({
      query: ({ context, event }) => (event.type === "details.pageRequested" ? { ...context.query, page: event.page } : context.query),
    }),
    assignStatus: assign({
      query: ({ context, event }) => (event.type === "details.statusChanged" ? { ...context.query, status: event.status, page: 1 } : context.query),
    }),
    assignSearch: assign({
      query: ({ context, event }) => (event.type === "details.searchChanged" ? { ...context.query, q: event.q, page: 1 } : context.query),
    }),
    /** The open dialog follows its row when the finding is re-read. */
    forwardActiveRow: enqueueActions(({ context, enqueue }) => {
      if (context.activeRow === null) return
      const row = rowAt(context, context.activeRow)
      if (row !== undefined) enqueue.sendTo("remediation", { type: "row.updated", row })
    }),
    /** Environment: go to a route (supplied at the React boundary). */
    navigate: (_, _params: NavigateParams) => {},
    /** Environment: a toast. */
    notify: (_, _params: NotifyParams) => {},
  },
}).createMachine({
  id: "findingDetail",
  type: "parallel",
  context: ({ input: { resource, ...input } }) => ({
    ...input,
    finding: null,
    error: null,
    viewer: null,
    activeRow: null,
    query: resource === undefined || resource === null || resource.trim() === "" ? INITIAL_DETAILS_QUERY : { ...INITIAL_DETAILS_QUERY, q: resource.trim() },
    muteTarget: null,
  }),
  on: {
    "finding.backRequested": { actions: { type: "navigate", params: ({ context }) => ({ to: backPath(context) }) } },
    "remediation.rowChanged": { actions: ["applyReportedRow", "announceChange", "refreshHistory"] },
  },
  states: {
    detail: {
      description: "The finding and the page of its detail rows shown.",
      initial: "loading",
      states: {
        loading: {
          description: "The page shows a loading state while the finding is fetched.",
          invoke: {
            id: "getFinding",
            src: "getFinding",
            input: ({ context }) => findingRequest(context),
            /** The finding arrived: the page shows it with its first page of rows. */
            onDone: { target: "loaded", actions: "assignFinding" },
            /** The finding could not be loaded: the failure's message (by default 'Failed to load finding details. Please try again.'). */
            onError: { target: "failed", actions: "assignError" },
          },
        },
        failed: { description: "The finding could not be loaded: the error with Retry and Go Back.", on: { "finding.retryRequested": "loading" } },
        loaded: {
          description: "The finding is shown with a page of its detail rows, which can be paged, filtered by status and searched.",
          initial: "routing",
          on: {
            "details.pageRequested": { guard: "isOtherPage", target: ".fetching", actions: "assignPage" },
            "details.statusChanged": { guard: "isOtherStatus", target: ".fetching", actions: "assignStatus" },
            "details.searchChanged": { guard: "isOtherSearch", target: ".debouncing", reenter: true, actions: "assignSearch" },
            "finding.reloadRequested": { target: ".fetching" },
          },
          states: {
            routing: {
              description: "Decides after every read whether a pending remediation needs polling.",
              /** A pending remediation is watched; otherwise the page stays still. */
              always: [{ guard: "hasPending", target: "watching" }, { target: "still" }],
            },
            still: { description: "No remediation is pending: the rows are shown and nothing is polled.", on: { "finding.changed": "routing" } },
            watching: { description: "A remediation is pending: the finding is re-read 5 s after the last read.", after: { remediationPoll: "reloading" }, on: { "finding.changed": "routing" } },
            reloading: {
              description: "The 5 s poll is re-reading the finding; the rows shown stay.",
              invoke: {
                id: "reloadFinding",
                src: "getFinding",
                input: ({ context }) => findingRequest(context),
                /** The re-read finding replaces the shown one, and an open remediation dialog gets its row's new state. */
                onDone: { target: "routing", actions: ["assignFinding", "forwardActiveRow"] },
                /** The poll failed: nothing is said; it tries again 5 s later. */
                onError: { target: "watching" },
              },
            },
            debouncing: { description: "The search text changed: waiting for 300 ms of quiet typing before reading.", after: { searchDebounce: "fetching" } },
            fetching: {
              description: "The requested page of rows (page, status filter, search) is being read; the rows shown stay.",
              invoke: {
                id: "fetchPage",
                src: "getFinding",
                input: ({ context }) => findingRequest(context),
                /** The requested page of rows replaces the one shown. */
                onDone: { target: "routing", actions: "assignFinding" },
                /** The page could not be read: the rows shown stay and a toast says 'Failed to load finding details. Please try again.' */
                onError: {
                  target: "routing",
                  actions: { type: "notify", params: { kind: "error", message: ScanningMessages.loadFindingFailed } },
                },
              },
            },
          },
        },
      },
    },
    viewer: {
      description: "The user's remediate_findings permission.",
      initial: "loading",
      states: {
        loading: {
          description: "The permission is being read; until it is known nothing is allowed.",
          invoke: {
            id: "loadViewer",
            src: "loadViewer",
            /** The permission is known. */
            onDone: { target: "ready", actions: "assignViewer" },
            /** The permission could not be read: it stays unknown, read as not allowed. */
            onError: { target: "ready" },
          },
        },
        ready: { description: "The permission was read (or failed to be, and counts as not allowed)." },
      },
    },
    dialog: {
      description: "The remediation dialog of one row.",
      initial: "none",
      states: {
        none: {
          description: "No remediation dialog is open.",
          on: {
            "row.remediateRequested": [
              {
                guard: "lacksPermission",
                actions: { type: "notify", params: { kind: "error", message: ScanningMessages.remediatePermissionDenied } },
              },
              { guard: "isRemediableRow", target: "open", actions: "assignActiveRow" },
            ],
            "row.viewRequested": { guard: "hasRecord", target: "open", actions: "assignActiveRow" },
          },
        },
        open: {
          description: "The remediation dialog of the chosen row is open.",
          invoke: {
            id: "remediation",
            src: "remediation",
            input: ({ context }) => ({
              findingId: context.findingId,
              rowIndex: context.activeRow ?? 0,
              row: rowAt(context, context.activeRow ?? 0) ?? {},
              canRemediate: context.viewer?.canRemediate === true,
            }),
            /** The remediation dialog closed: its final row replaces the one in the table. */
            onDone: { target: "none", actions: "applyOutcome" },
          },
        },
      },
    },
    history: {
      description: "The Remediation history card, for as long as the page is open.",
      initial: "shown",
      states: {
        shown: {
          description: "The card lists the finding's remediations and offers their undo.",
          invoke: { id: "remediationHistory", src: "remediationHistory", input: ({ context }) => ({ findingId: context.findingId }) },
        },
      },
    },
    mute: {
      description: "The Mute dialog.",
      initial: "none",
      states: {
        none: {
          description: "No Mute dialog is open.",
          on: {
            "row.muteRequested": [
              { guard: "lacksPermission", actions: { type: "notify", params: { kind: "error", message: PostureMessages.mutePermissionDenied } } },
              { guard: "isMutableRow", target: "open", actions: "assignMuteTarget" },
            ],
            "finding.muteRequested": [
              { guard: "lacksPermission", actions: { type: "notify", params: { kind: "error", message: PostureMessages.mutePermissionDenied } } },
              { guard: "isMutableFinding", target: "open", actions: "assignMuteTarget" },
            ],
          },
        },
        open: {
          description: "The Mute dialog is open with the finding's check and, from a row, its resource.",
          invoke: {
            id: "muteRule",
            src: "muteRule",
            input: ({ context }) => ({
              accountId: context.finding?.account_id ?? (0 as never),
              rule: null,
              canMute: context.viewer?.canRemediate === true,
              today: context.muteTarget?.today ?? "",
              initial: { check_id: context.finding?.check_id ?? "", resource_pattern: context.muteTarget?.resourceId ?? "" },
            }),
            /** The Mute dialog closed: the page of rows is read again if it saved a rule. */
            onDone: [
              { guard: "savedRule", target: "none", actions: ["clearMuteTarget", "requestReload"] },
              { target: "none", actions: "clearMuteTarget" },
            ],
          },
        },
      },
    },
  },
})
