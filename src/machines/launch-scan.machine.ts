/**
 * The launch-scan dialog (scanning §2 "A launch-scan dialog", §5 launch rules, §6 SCAN_SERVICE, §7 POST /api/scans,
 * §8 'Failed to start scan. Please try again.' / 'Permission denied: Cannot launch scans').
 *
 * - `loading`: the viewer (user id, scan_service) and every account of every enabled provider (`loadLaunchOptions`);
 *   with no account at all the dialog says 'You need to create an account before running a scan' (`noAccounts`).
 *   Members retired from their organisation (issue 31) are not offered: the server refuses their scans; should it
 *   answer that anyway (a stale page), its message shows in the dialog as every start failure does.
 * - `ready`: an account select (pre-selected when opened from an account); `launch.requested` checks, in the spec's
 *   order, the permission ('Permission denied: Cannot launch scans'), the selection ('Please select an account to
 *   scan'), the provider ('Invalid cloud provider'), the numeric id ('Invalid account ID') and the signed-in user
 *   ('User authentication required. Please log in again.') with `checkLaunchScan`, then starts the scan.
 *   Without scan_service the view disables Launch with the tooltip 'You don't have permission to launch scans'
 *   (`selectCanLaunch`).
 * - `launching` → `launched` (output: the started scan, toast with the server's message) or back to `ready` with the
 *   §8 text. `dialog.closed` finishes with no scan (not while the start call is in flight).
 *
 * Events accepted:
 * - `account.selected` { accountId } — the user picked an account (or cleared the select); the last error is cleared.
 * - `launch.requested` — the user pressed Launch: the launch rules are checked, then the scan is started.
 * - `options.retryRequested` — the user pressed retry after the accounts failed to load: load them again.
 * - `dialog.closed` — the user closed or cancelled the dialog: it finishes with no scan.
 */
import { assign, fromPromise, setup } from "xstate"
import { isRetiredAccount, type Account } from "../contracts/accounts.ts"
import type { AccountId } from "../contracts/ids.ts"
import { ScanningMessages, ValidationMessages } from "../contracts/messages.ts"
import type { CloudProvider } from "../contracts/providers.ts"
import { checkLaunchScan, type Scan, type ScanStartPayload, type ScanStartResponse } from "../contracts/scans.ts"
import { ProviderIds } from "../contracts/constants.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"
import type { ScanViewer } from "./scan-effects.ts"
import { errorOf, outputOf } from "./actor-output.ts"

export interface LaunchOptions {
  readonly viewer: ScanViewer
  readonly providers: ReadonlyArray<CloudProvider>
  readonly accounts: ReadonlyArray<Account>
}

export interface LaunchScanInput {
  /** Pre-selected account (dialog opened from an account card or page). */
  readonly accountId?: AccountId | null
}

export interface LaunchScanContext {
  readonly viewer: ScanViewer | null
  readonly providers: ReadonlyArray<CloudProvider>
  readonly accounts: ReadonlyArray<Account>
  readonly selectedAccountId: AccountId | null
  readonly error: string | null
  /** The started scan, or for an organisation its fleet scan (issue 31). */
  readonly scan: ScanStartResponse["data"] | null
}

export type LaunchScanEvent =
  | { readonly type: "account.selected"; readonly accountId: AccountId | null }
  | { readonly type: "launch.requested" }
  | { readonly type: "options.retryRequested" }
  | { readonly type: "dialog.closed" }

export interface LaunchScanOutput {
  readonly scan: ScanStartResponse["data"] | null
}

/** The accounts the dialog offers: every one but the members retired from their organisation (issue 31). */
const scannableAccounts = (options: LaunchOptions): ReadonlyArray<Account> => options.accounts.filter((a) => !isRetiredAccount(a))

/** The rules' input for the current selection (`checkLaunchScan`). */
export const launchCheck = (context: Pick<LaunchScanContext, "viewer" | "providers" | "accounts" | "selectedAccountId">) => {
  const account = context.accounts.find((a) => a.id === context.selectedAccountId)
  const known = [...new Set([...context.providers.map((p) => p.id as number), ...Object.values(ProviderIds)])]
  const provider = context.providers.find((p) => p.id === account?.cloud_provider_id)
  return checkLaunchScan({
    canLaunch: context.viewer?.canLaunchScans === true,
    userId: context.viewer?.userId ?? null,
    accountId: context.selectedAccountId,
    cloudProviderId: account?.cloud_provider_id ?? null,
    knownProviderIds: known,
    cloudProviderName: provider?.name ?? account?.cloud_provider_name ?? null,
  })
}

/** Whether the Launch button is enabled (scanning §6: scan_service). */
export const selectCanLaunch = (snapshot: { readonly context: Pick<LaunchScanContext, "viewer"> }): boolean =>
  snapshot.context.viewer?.canLaunchScans === true

export const launchScanMachine = setup({
  types: {
    context: {} as LaunchScanContext,
    events: {} as LaunchScanEvent,
    input: {} as LaunchScanInput,
    output: {} as LaunchScanOutput,
  },
  actors: {
    /** Loads the viewer (user id, scan_service) and every account of every enabled provider. */
    loadLaunchOptions: fromPromise<LaunchOptions, void>(async () => {
      throw new Error("loadLaunchOptions is not provided")
    }),
    /** POST /api/scans for the selected account; answers with the started scan and the server's message. */
    startScan: fromPromise<ScanStartResponse, ScanStartPayload>(async () => {
      throw new Error("startScan is not provided")
    }),
  },
  guards: {
    /** The workspace has no account of any enabled provider. */
    hasNoAccounts: ({ event }) => scannableAccounts(outputOf<LaunchOptions>(event)).length === 0,
    /** `checkLaunchScan` passes: permission, a selected account, a known provider, a numeric id and a signed-in user. */
    isLaunchValid: ({ context }) => launchCheck(context).ok,
  },
  actions: {
    assignOptions: assign(({ context, event }) => {
      const options = outputOf<LaunchOptions>(event)
      const accounts = scannableAccounts(options)
      const preselected = accounts.some((a) => a.id === context.selectedAccountId) ? context.selectedAccountId : null
      return {
        viewer: options.viewer,
        providers: options.providers,
        accounts,
        // A single account needs no choosing.
        selectedAccountId: preselected ?? (accounts.length === 1 ? accounts[0]!.id : null),
        error: null,
      }
    }),
    assignLoadError: assign({
      error: ({ event }) => toFailure(errorOf(event), ScanningMessages.startScanFailed).message,
    }),
    assignSelection: assign({
      selectedAccountId: ({ event }) => (event.type === "account.selected" ? event.accountId : null),
      error: null,
    }),
    assignCheckError: assign({
      error: ({ context }) => {
        const check = launchCheck(context)
        return check.ok ? null : check.message
      },
    }),
    assignStartError: assign({
      error: ({ event }) => toFailure(errorOf(event), ScanningMessages.startScanFailed).message,
    }),
    assignScan: assign({ scan: ({ event }) => outputOf<ScanStartResponse>(event).data }),
    /** Environment: a toast (supplied at the React boundary). */
    notify: (_, _params: NotifyParams) => {},
  },
}).createMachine({
  id: "launchScan",
  context: ({ input }) => ({
    viewer: null,
    providers: [],
    accounts: [],
    selectedAccountId: input.accountId ?? null,
    error: null,
    scan: null,
  }),
  initial: "loading",
  output: ({ context }) => ({ scan: context.scan }),
  states: {
    loading: {
      description: "The dialog loads the viewer and the accounts it can scan.",
      invoke: {
        id: "loadLaunchOptions",
        src: "loadLaunchOptions",
        /** The options arrived: the account select is filled (pre-selected account kept, a single account chosen), or the dialog says no account exists. */
        onDone: [
          { guard: "hasNoAccounts", target: "noAccounts", actions: "assignOptions" },
          { target: "ready", actions: "assignOptions" },
        ],
        /** The options could not be loaded: the dialog shows the failure's message (by default 'Failed to start scan. Please try again.') with a retry. */
        onError: { target: "loadFailed", actions: "assignLoadError" },
      },
      on: { "dialog.closed": "closed" },
    },
    loadFailed: {
      description: "The accounts could not be loaded: the error is shown with a retry button and Close.",
      on: { "options.retryRequested": "loading", "dialog.closed": "closed" },
    },
    /** Scanning §5: 'You need to create an account before running a scan'. */
    noAccounts: {
      description: "The workspace has no account: the dialog says 'You need to create an account before running a scan' and offers only Close.",
      entry: assign({ error: ValidationMessages.needAccountBeforeScan }),
      on: { "dialog.closed": "closed" },
    },
    ready: {
      description: "The account select and Launch button are shown, with the last launch error if any.",
      on: {
        "account.selected": { actions: "assignSelection" },
        "launch.requested": [
          { guard: "isLaunchValid", target: "launching", actions: assign({ error: null }) },
          { actions: "assignCheckError" },
        ],
        "dialog.closed": "closed",
      },
    },
    launching: {
      description: "The scan is being started on the server; the dialog cannot be closed.",
      invoke: {
        id: "startScan",
        src: "startScan",
        input: ({ context }) => {
          const check = launchCheck(context)
          if (!check.ok) throw new Error(check.message)
          return check.payload
        },
        /** The scan started: a toast carries the server's message and the dialog finishes with the scan. */
        onDone: {
          target: "launched",
          actions: [
            "assignScan",
            { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output.message }) },
          ],
        },
        /** The start failed: back to the select with the failure's message (by default 'Failed to start scan. Please try again.'). */
        onError: { target: "ready", actions: "assignStartError" },
      },
    },
    launched: { type: "final", description: "The scan was started: the dialog closes and its output carries the scan." },
    closed: { type: "final", description: "The dialog was closed without starting a scan (output: no scan)." },
  },
})
