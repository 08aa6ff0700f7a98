/**
 * Starting a bulk remediation (issue 32 part 4): the selection of failing findings on a scan's findings list, or every
 * failing row of one check across the accounts of the cross-account findings page, confirmed in a dialog that says how
 * many resources in how many accounts are fixed, then created as one batch (POST /api/remediation-batches) whose page
 * opens (/dashboard/remediations/batches/{id}).
 *
 * `checking` reads the member's permission: without remediate_findings → `unavailable` (no checkbox, no bulk button; the
 * server would refuse anyway). In `idle`:
 * - `selection.toggled` { finding } ticks or unticks one failing finding (a finding without a failing resource is
 *   ignored); `selection.pageToggled` { findings } ticks every failing finding of the page, or unticks them all when
 *   they all are; `selection.cleared` drops the selection;
 * - `selection.remediateRequested` (at least one ticked) → `resolving`: the failing rows of the ticked findings that the
 *   single Remediate button would offer are read (`resolveRows`) → `confirming` with their number; a failure toasts
 *   (BatchMessages.noRows when none is left) and goes back;
 * - `check.remediateRequested` { checkId, accountIds, resources, accounts } → `confirming` for every failing row of the
 *   check in those accounts (the numbers are the server's counts the page shows).
 * `confirming`: `batch.confirmed` → `creating` (→ the batch's page, a success toast with the server's message; a
 * refusal stays in the dialog with its message, also toasted); `dialog.closed` → `idle`.
 *
 * Events accepted:
 * - `selection.toggled` { finding } — the user ticked or unticked a finding's checkbox.
 * - `selection.pageToggled` { findings } — the user ticked or unticked the "select all" checkbox of the page.
 * - `selection.cleared` — the user pressed Clear selection.
 * - `selection.remediateRequested` — the user pressed "Remediate N selected".
 * - `check.remediateRequested` { checkId, accountIds, resources, accounts } — the user pressed "Remediate all failing (N)".
 * - `batch.confirmed` — the user confirmed in the dialog.
 * - `dialog.closed` — the user closed the dialog (Cancel, Escape).
 */
import { assertEvent, assign, fromPromise, setup } from "xstate"
import type { Finding } from "../contracts/findings.ts"
import type { AccountId, FindingId } from "../contracts/ids.ts"
import { failingResources } from "../contracts/outcomes.ts"
import { BatchMessages, type BatchRowRef, type CreateBatchPayload } from "../contracts/remediation-batches.ts"
import type { ScanViewer } from "./scan-effects.ts"
import { errorOf, outputOf } from "./actor-output.ts"
import { toFailure, type NavigateParams, type NotifyParams } from "./auth-effects.ts"
import { notProvided } from "./building-blocks.ts"
import { batchPath, type BatchActed } from "./remediation-batches-effects.ts"

/** What a ticked finding keeps: enough to count its failing resources and its account. */
export interface SelectedFinding {
  readonly id: FindingId
  readonly accountKey: AccountId | string
  readonly failing: number
}

/** What the dialog confirms: the rows read from the selection, or every failing row of a check. */
export type BulkTarget =
  | { readonly kind: "rows"; readonly rows: ReadonlyArray<BatchRowRef>; readonly accounts: number }
  | { readonly kind: "check"; readonly checkId: string; readonly accountIds: ReadonlyArray<AccountId>; readonly resources: number; readonly accounts: number }

export interface BulkRemediationContext {
  readonly selected: ReadonlyArray<SelectedFinding>
  readonly target: BulkTarget | null
  /** The refusal of the last create, shown in the dialog. */
  readonly error: string | null
}

export type BulkRemediationEvent =
  | { readonly type: "selection.toggled"; readonly finding: Finding }
  | { readonly type: "selection.pageToggled"; readonly findings: ReadonlyArray<Finding> }
  | { readonly type: "selection.cleared" }
  | { readonly type: "selection.remediateRequested" }
  | {
      readonly type: "check.remediateRequested"
      readonly checkId: string
      readonly accountIds: ReadonlyArray<AccountId>
      readonly resources: number
      readonly accounts: number
    }
  | { readonly type: "batch.confirmed" }
  | { readonly type: "dialog.closed" }

/**
 * A finding the selection offers: it has failing resources (not muted, not remediated), in an account still acted in
 * (not a member retired from its organisation, issue 31: the server refuses their rows).
 */
export const isSelectable = (f: Pick<Finding, "outcome" | "resources_failing" | "resources_remediated" | "resources_muted" | "account_retired">): boolean =>
  f.outcome === "fail" && failingResources(f) > 0 && f.account_retired !== true

const selectedOf = (f: Finding): SelectedFinding => ({ id: f.id, accountKey: f.account_id ?? f.account_name, failing: failingResources(f) })

/** Resources the selection's findings fail on (the server's counts of each). */
export const selectedResources = (selected: ReadonlyArray<SelectedFinding>): number => selected.reduce((n, f) => n + f.failing, 0)
export const selectedAccounts = (selected: ReadonlyArray<SelectedFinding>): number => new Set(selected.map((f) => f.accountKey)).size

/** How many resources and accounts the dialog names. */
export const targetCounts = (target: BulkTarget): { readonly resources: number; readonly accounts: number } =>
  target.kind === "rows" ? { resources: target.rows.length, accounts: target.accounts } : { resources: target.resources, accounts: target.accounts }

export const payloadOf = (target: BulkTarget): CreateBatchPayload =>
  target.kind === "rows" ? { rows: target.rows } : { check_id: target.checkId, account_ids: target.accountIds }

/** "Remediate all failing (N)" of the cross-account findings page: what it covers, or null when not offered. */
export interface CheckScope {
  readonly checkId: string
  readonly accountIds: ReadonlyArray<AccountId>
  readonly resources: number
  readonly accounts: number
}

/**
 * The check scope of a findings list filtered to one check: the check filter is set, every finding read is of the same
 * check and none is left to read (so the accounts and counts are the whole list's), and some resource fails.
 */
export const checkScopeOf = (checkFilter: string, findings: ReadonlyArray<Finding>, nextCursor: string | null): CheckScope | null => {
  const first = findings[0]
  if (checkFilter.trim() === "" || first === undefined || nextCursor !== null) return null
  if (findings.some((f) => f.check_id !== first.check_id)) return null
  const failing = findings.filter((f) => f.account_id !== undefined && isSelectable(f))
  const accountIds = [...new Set(failing.map((f) => f.account_id!))]
  const resources = failing.reduce((n, f) => n + failingResources(f), 0)
  return resources === 0 ? null : { checkId: first.check_id, accountIds, resources, accounts: accountIds.length }
}

const togglePage = (selected: ReadonlyArray<SelectedFinding>, findings: ReadonlyArray<Finding>): ReadonlyArray<SelectedFinding> => {
  const page = findings.filter(isSelectable)
  const allTicked = page.length > 0 && page.every((f) => selected.some((s) => s.id === f.id))
  if (allTicked) return selected.filter((s) => !page.some((f) => f.id === s.id))
  return [...selected, ...page.filter((f) => !selected.some((s) => s.id === f.id)).map(selectedOf)]
}

export const bulkRemediationMachine = setup({
  types: {
    context: {} as BulkRemediationContext,
    events: {} as BulkRemediationEvent,
  },
  actors: {
    /** The member's permissions (remediate_findings). */
    loadViewer: fromPromise<ScanViewer, void>(notProvided("loadViewer")),
    /** The failing rows of the ticked findings that the single Remediate button would offer. */
    resolveRows: fromPromise<ReadonlyArray<BatchRowRef>, { readonly findingIds: ReadonlyArray<FindingId> }>(notProvided("resolveRows")),
    /** POST /api/remediation-batches. */
    createBatch: fromPromise<BatchActed, CreateBatchPayload>(notProvided("createBatch")),
  },
  guards: {
    /** The member holds remediate_findings. */
    canRemediate: ({ event }) => outputOf<ScanViewer>(event).canRemediate,
    /** At least one finding is ticked. */
    hasSelection: ({ context }) => context.selected.length > 0,
    /** The finding has failing resources to fix. */
    isSelectableFinding: ({ event }) => {
      assertEvent(event, "selection.toggled")
      return isSelectable(event.finding)
    },
    /** The check has failing resources in at least one account. */
    hasResources: ({ event }) => {
      assertEvent(event, "check.remediateRequested")
      return event.resources > 0 && event.accountIds.length > 0
    },
  },
  actions: {
    toggleOne: assign({
      selected: ({ context, event }) => {
        assertEvent(event, "selection.toggled")
        return context.selected.some((s) => s.id === event.finding.id)
          ? context.selected.filter((s) => s.id !== event.finding.id)
          : [...context.selected, selectedOf(event.finding)]
      },
    }),
    togglePage: assign({
      selected: ({ context, event }) => {
        assertEvent(event, "selection.pageToggled")
        return togglePage(context.selected, event.findings)
      },
    }),
    clearSelection: assign({ selected: [] }),
    assignRows: assign({
      target: ({ context, event }) => ({
        kind: "rows" as const,
        rows: outputOf<ReadonlyArray<BatchRowRef>>(event),
        accounts: selectedAccounts(context.selected),
      }),
      error: null,
    }),
    assignCheck: assign({
      target: ({ event }) => {
        assertEvent(event, "check.remediateRequested")
        return { kind: "check" as const, checkId: event.checkId, accountIds: event.accountIds, resources: event.resources, accounts: event.accounts }
      },
      error: null,
    }),
    assignCreateError: assign({ error: ({ event }) => toFailure(errorOf(event), BatchMessages.startFailed).message }),
    dropTarget: assign({ target: null, error: null }),
    /** Environment: a toast. */
    notify: (_, _params: NotifyParams) => {},
    /** Environment: the router. */
    navigate: (_, _params: NavigateParams) => {},
  },
}).createMachine({
  id: "bulkRemediation",
  context: { selected: [], target: null, error: null },
  initial: "checking",
  states: {
    checking: {
      description: "The member's permission is read; no checkbox is shown yet.",
      invoke: {
        id: "loadViewer",
        src: "loadViewer",
        /** With remediate_findings the selection is offered; without it, nothing is. */
        onDone: [{ guard: "canRemediate", target: "idle" }, { target: "unavailable" }],
        /** Unknown reads as not allowed. */
        onError: "unavailable",
      },
    },
    unavailable: {
      type: "final",
      description: "The member may not remediate: no checkbox and no bulk button.",
    },
    idle: {
      description: "Failing findings can be ticked; 'Remediate N selected' shows once one is.",
      on: {
        "selection.toggled": { guard: "isSelectableFinding", actions: "toggleOne" },
        "selection.pageToggled": { actions: "togglePage" },
        "selection.cleared": { actions: "clearSelection" },
        "selection.remediateRequested": { guard: "hasSelection", target: "resolving" },
        "check.remediateRequested": { guard: "hasResources", target: "confirming", actions: "assignCheck" },
      },
    },
    resolving: {
      description: "The failing rows of the ticked findings are read; the dialog shows a spinner.",
      invoke: {
        id: "resolveRows",
        src: "resolveRows",
        input: ({ context }) => ({ findingIds: context.selected.map((s) => s.id) }),
        /** The rows are known: the dialog asks to confirm their number. */
        onDone: { target: "confirming", actions: "assignRows" },
        /** They could not be read, or none is left to fix: an error toast says why. */
        onError: {
          target: "idle",
          actions: { type: "notify", params: ({ event }) => ({ kind: "error", message: toFailure(errorOf(event), BatchMessages.startFailed).message }) },
        },
      },
      on: { "dialog.closed": "idle" },
    },
    confirming: {
      description: "The dialog says how many resources in how many accounts are fixed, with Cancel and Remediate.",
      on: {
        "batch.confirmed": "creating",
        "dialog.closed": { target: "idle", actions: "dropTarget" },
      },
    },
    creating: {
      description: "The batch is being created; the dialog cannot change meanwhile.",
      invoke: {
        id: "createBatch",
        src: "createBatch",
        input: ({ context }) => payloadOf(context.target!),
        /** Created: its page opens, with the server's message as a toast. */
        onDone: {
          target: "started",
          actions: [
            { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output.message }) },
            { type: "navigate", params: ({ event }) => ({ to: batchPath(event.output.batch.id) }) },
          ],
        },
        /** Refused (e.g. too many rows, a row no longer failing): the dialog shows why, also as a toast. */
        onError: {
          target: "confirming",
          actions: ["assignCreateError", { type: "notify", params: ({ context }) => ({ kind: "error", message: context.error ?? BatchMessages.startFailed }) }],
        },
      },
    },
    started: { type: "final", description: "The batch was created and its page opened." },
  },
})
