/**
 * /dashboard/scans/{scanId}/findings/{findingId}?service={serviceName} (scanning §2 "Finding detail", §4 remediation
 * states, §6 remediate_findings, §7 GET /api/findings/{id}, §8 'Failed to load finding details. Please try again.').
 *
 * Parallel regions:
 * - `detail`: `loading` → `loaded` or `failed` (the §8 text with Retry and Go Back). While a row's remediation is
 *   pending the finding is re-read every 5 s (`remediationPoll`, beyond the spec: the remediation runs as a job), so
 *   'View Status' turns into 'View Remediated' / 'View Error' on its own; polling stops when nothing is pending and when
 *   the page is left.
 * - `viewer`: the user's remediate_findings permission (`loadViewer`); unknown reads as "not allowed".
 * - `dialog`: none | open (the remediation dialog of one row as a child). `row.remediateRequested` without the
 *   permission toasts "You don't have permission to remediate findings" (the view also disables the button with the
 *   tooltip). The dialog reports the row as the server answered (`remediation.rowChanged`): it replaces the row in
 *   the table and, when pending, starts the polling; the dialog's final output is applied when it closes.
 *
 * `finding.backRequested` (Go Back) returns to the service's findings list.
 */
import { assign, enqueueActions, fromPromise, raise, setup } from "xstate"
import { remediationState, type DetailRow, type Finding } from "../contracts/findings.ts"
import type { FindingId, ScanId } from "../contracts/ids.ts"
import { ScanningMessages } from "../contracts/messages.ts"
import { toFailure, type NavigateParams, type NotifyParams } from "./auth-effects.ts"
import { remediationMachine, type RemediationOutput } from "./remediation.machine.ts"
import type { ScanViewer } from "./scan-effects.ts"
import { scanPath } from "./scan-list.machine.ts"
import { findingsPath } from "./scan-detail.machine.ts"

/** Beyond the spec: how often a finding with a pending remediation is re-read. */
export const REMEDIATION_POLL_MS = 5_000

export interface FindingDetailInput {
  readonly scanId: ScanId
  readonly findingId: FindingId
  readonly serviceName: string | null
}

export interface FindingDetailContext extends FindingDetailInput {
  readonly finding: Finding | null
  readonly error: string | null
  readonly viewer: ScanViewer | null
  /** The row whose dialog is open. */
  readonly activeRow: number | null
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

const rowAt = (context: Pick<FindingDetailContext, "finding">, index: number): DetailRow | undefined => context.finding?.details[index]

const outputOf = <T>(event: unknown): T => (event as { readonly output: T }).output
const errorOf = (event: unknown): unknown => (event as { readonly error?: unknown }).error

export const findingDetailMachine = setup({
  types: {
    context: {} as FindingDetailContext,
    events: {} as FindingDetailEvent,
    input: {} as FindingDetailInput,
  },
  actors: {
    getFinding: fromPromise<Finding, { readonly id: FindingId }>(async () => {
      throw new Error("getFinding is not provided")
    }),
    loadViewer: fromPromise<ScanViewer, void>(async () => {
      throw new Error("loadViewer is not provided")
    }),
    remediation: remediationMachine,
  },
  delays: {
    remediationPoll: REMEDIATION_POLL_MS,
  },
  guards: {
    hasPending: ({ context }) => hasPendingRemediation(context.finding),
    lacksPermission: ({ context }) => context.viewer?.canRemediate !== true,
    isRemediableRow: ({ context, event }) =>
      event.type === "row.remediateRequested" && rowAt(context, event.rowIndex)?.compliance === false,
    hasRecord: ({ context, event }) =>
      event.type === "row.viewRequested" && rowAt(context, event.rowIndex)?.remediate !== undefined,
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
  context: ({ input }) => ({ ...input, finding: null, error: null, viewer: null, activeRow: null }),
  on: {
    "finding.backRequested": { actions: { type: "navigate", params: ({ context }) => ({ to: backPath(context) }) } },
    "remediation.rowChanged": { actions: ["applyReportedRow", "announceChange"] },
  },
  states: {
    detail: {
      initial: "loading",
      states: {
        loading: {
          invoke: {
            id: "getFinding",
            src: "getFinding",
            input: ({ context }) => ({ id: context.findingId }),
            onDone: { target: "loaded", actions: "assignFinding" },
            onError: { target: "failed", actions: "assignError" },
          },
        },
        failed: { on: { "finding.retryRequested": "loading" } },
        loaded: {
          initial: "routing",
          states: {
            routing: { always: [{ guard: "hasPending", target: "watching" }, { target: "still" }] },
            still: { on: { "finding.changed": "routing" } },
            watching: { after: { remediationPoll: "reloading" }, on: { "finding.changed": "routing" } },
            reloading: {
              invoke: {
                id: "reloadFinding",
                src: "getFinding",
                input: ({ context }) => ({ id: context.findingId }),
                onDone: { target: "routing", actions: ["assignFinding", "forwardActiveRow"] },
                onError: { target: "watching" },
              },
            },
          },
        },
      },
    },
    viewer: {
      initial: "loading",
      states: {
        loading: {
          invoke: {
            id: "loadViewer",
            src: "loadViewer",
            onDone: { target: "ready", actions: "assignViewer" },
            onError: { target: "ready" },
          },
        },
        ready: {},
      },
    },
    dialog: {
      initial: "none",
      states: {
        none: {
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
          invoke: {
            id: "remediation",
            src: "remediation",
            input: ({ context }) => ({
              findingId: context.findingId,
              rowIndex: context.activeRow ?? 0,
              row: rowAt(context, context.activeRow ?? 0) ?? {},
              canRemediate: context.viewer?.canRemediate === true,
            }),
            onDone: { target: "none", actions: "applyOutcome" },
          },
        },
      },
    },
  },
})
