/**
 * /dashboard/compliance[?account={id}] (issue 14 "SPA: a 'Compliance' area … framework picker per account"): the
 * workspace's accounts, one selected, and for its latest completed scan every framework of its provider with the
 * requirement counts and score; opening a framework goes to its page for that scan.
 *
 * Flow: `loading` (`loadAccounts`) → `failed` (Retry) or `ready`, which decides: `empty` (no account), `noScan` (the
 * account has no completed scan yet), else `loadingSummary` (`loadScanSummary`) → `summaryReady` | `summaryFailed`
 * (Retry). Selecting another account (`account.selected`) re-decides and records the choice in the URL (`navigate`,
 * replace); `framework.opened` navigates to /dashboard/compliance/scans/{scan}/{framework}.
 * The selected account is the one in the URL when it exists, else the first account with a completed scan.
 *
 * Events accepted:
 * - `retry.requested` — the user pressed Retry after the accounts or the scan's summary failed to load.
 * - `account.selected` { accountId } — the user picked another of the workspace's accounts: the page re-decides and the choice goes into the URL.
 * - `framework.opened` { frameworkId } — the user opened one of the listed frameworks: navigates to its page for the scan.
 */
import { assertEvent, assign, fromPromise, setup } from "xstate"
import type { ComplianceAccount, ComplianceScan, FrameworkSummary } from "../contracts/compliance.ts"
import { ComplianceMessages } from "../contracts/compliance.ts"
import type { AccountId, ScanId } from "../contracts/ids.ts"
import { toFailure, type NavigateParams } from "./auth-effects.ts"
import { errorOf, outputOf } from "./actor-output.ts"
import { complianceAccountPath, frameworkPath } from "./compliance-effects.ts"

export interface ComplianceOverviewInput {
  /** `?account=` of the URL, when valid. */
  readonly accountId: AccountId | null
}

export interface ScanSummary {
  readonly scan: ComplianceScan
  readonly frameworks: ReadonlyArray<FrameworkSummary>
}

export interface ComplianceOverviewContext {
  readonly requestedAccountId: AccountId | null
  readonly accounts: ReadonlyArray<ComplianceAccount>
  readonly accountId: AccountId | null
  readonly summary: ScanSummary | null
  readonly error: string | null
}

export type ComplianceOverviewEvent =
  | { readonly type: "account.selected"; readonly accountId: AccountId }
  | { readonly type: "framework.opened"; readonly frameworkId: string }
  | { readonly type: "retry.requested" }

/** The account to show: the requested one when listed, else the first with a completed scan, else the first. */
export const pickAccount = (accounts: ReadonlyArray<ComplianceAccount>, requested: AccountId | null): AccountId | null =>
  (accounts.find((a) => a.account_id === requested) ?? accounts.find((a) => a.latest_scan_id !== null) ?? accounts[0])?.account_id ?? null

const selected = (context: ComplianceOverviewContext): ComplianceAccount | undefined =>
  context.accounts.find((a) => a.account_id === context.accountId)

export const complianceOverviewMachine = setup({
  types: {
    context: {} as ComplianceOverviewContext,
    events: {} as ComplianceOverviewEvent,
    input: {} as ComplianceOverviewInput,
  },
  actors: {
    /** Loads the workspace's accounts with their latest completed scan. */
    loadAccounts: fromPromise<ReadonlyArray<ComplianceAccount>, void>(async () => {
      throw new Error("loadAccounts is not provided")
    }),
    /** Loads every framework's requirement counts and score for the scan. */
    loadScanSummary: fromPromise<ScanSummary, { readonly scanId: ScanId }>(async () => {
      throw new Error("loadScanSummary is not provided")
    }),
  },
  guards: {
    /** The workspace has no account. */
    hasNoAccounts: ({ context }) => context.accounts.length === 0,
    /** The selected account has no completed scan. */
    hasNoCompletedScan: ({ context }) => (selected(context)?.latest_scan_id ?? null) === null,
    /** The chosen account is one of the workspace's and not the one already selected. */
    isOtherKnownAccount: ({ context, event }) => {
      assertEvent(event, "account.selected")
      return event.accountId !== context.accountId && context.accounts.some((a) => a.account_id === event.accountId)
    },
    /** The opened framework is in the scan's summary. */
    isListedFramework: ({ context, event }) => {
      assertEvent(event, "framework.opened")
      return context.summary?.frameworks.some((f) => f.framework.id === event.frameworkId) === true
    },
  },
  actions: {
    assignAccounts: assign(({ context, event }) => {
      const accounts = outputOf<ReadonlyArray<ComplianceAccount>>(event)
      return { accounts, accountId: pickAccount(accounts, context.requestedAccountId), error: null }
    }),
    assignAccount: assign(({ event }) => {
      assertEvent(event, "account.selected")
      return { accountId: event.accountId, summary: null, error: null }
    }),
    assignSummary: assign({ summary: ({ event }) => outputOf<ScanSummary>(event), error: null }),
    assignError: assign({ error: ({ event }) => toFailure(errorOf(event), ComplianceMessages.loadFailed).message }),
    /** Environment: go to a route (supplied at the React boundary). */
    navigate: (_, _params: NavigateParams) => {},
  },
}).createMachine({
  id: "complianceOverview",
  context: ({ input }) => ({ requestedAccountId: input.accountId, accounts: [], accountId: null, summary: null, error: null }),
  initial: "loading",
  states: {
    loading: {
      description: "The workspace's accounts are being loaded.",
      invoke: {
        id: "loadAccounts",
        src: "loadAccounts",
        /** The accounts arrived: the selected one is the URL's when it exists, else the first with a completed scan. */
        onDone: { target: "ready", actions: "assignAccounts" },
        /** The accounts could not be loaded: the error is shown with Retry. */
        onError: { target: "failed", actions: "assignError" },
      },
    },
    failed: { description: "The accounts could not be loaded: the error is shown with Retry.", on: { "retry.requested": "loading" } },
    ready: {
      description: "The accounts are loaded and one is selected (the account picker is shown).",
      initial: "deciding",
      on: {
        "account.selected": {
          guard: "isOtherKnownAccount",
          target: ".deciding",
          actions: [
            "assignAccount",
            { type: "navigate", params: ({ event }) => ({ to: complianceAccountPath(event.accountId), replace: true }) },
          ],
        },
        "framework.opened": {
          guard: "isListedFramework",
          actions: {
            type: "navigate",
            params: ({ context, event }) => ({ to: frameworkPath(context.summary!.scan.id, event.frameworkId) }),
          },
        },
      },
      states: {
        deciding: {
          description: "Decides what the selected account can show: nothing (no account), no completed scan yet, or its latest scan's frameworks.",
          /** No account → `empty`; the selected account has no completed scan → `noScan`; else its latest scan's summary loads. */
          always: [{ guard: "hasNoAccounts", target: "empty" }, { guard: "hasNoCompletedScan", target: "noScan" }, { target: "loadingSummary" }],
        },
        empty: { description: "The workspace has no account: there is nothing to show." },
        noScan: { description: "The selected account has no completed scan yet, so there are no framework results." },
        loadingSummary: {
          description: "The frameworks of the selected account's latest completed scan are being loaded.",
          invoke: {
            id: "loadScanSummary",
            src: "loadScanSummary",
            input: ({ context }) => ({ scanId: selected(context)!.latest_scan_id! }),
            /** The summary arrived: every framework of the provider with its requirement counts and score. */
            onDone: { target: "summaryReady", actions: "assignSummary" },
            /** The summary could not be loaded: the error is shown with Retry. */
            onError: { target: "summaryFailed", actions: "assignError" },
          },
        },
        summaryReady: { description: "Every framework of the account's provider is listed with its requirement counts and score for the latest completed scan." },
        summaryFailed: { description: "The scan's framework summary could not be loaded: the error is shown with Retry.", on: { "retry.requested": "loadingSummary" } },
      },
    },
  },
})
