/**
 * /dashboard: the connected cloud provider accounts (scanning §2 "Dashboard", §7 GET /api/cloud-providers + one GET
 * /api/accounts per enabled provider, §8 dashboard load texts).
 *
 * Parallel regions:
 * - `list`: `loading` → `loaded` (idle | refreshing) or `failed`. `loadOverview` fetches the providers, then every
 *   enabled provider's accounts; a provider whose call fails shows no accounts. When the providers call fails, or
 *   every accounts call failed, the screen shows the §8 text ('Unable to connect to the server. Please check your
 *   internet connection.', 'You are not authorized to view this data. Please sign in again.', "We're experiencing
 *   technical difficulties. Please try again later.", else the message or 'Failed to fetch cloud provider
 *   accounts'). 'Refresh' (`dashboard.refreshRequested`) reloads.
 * - `dialog`: none | adding (the add-account wizard as a child; a saved account refreshes the list, a saved organisation
 *   opens its organisation page: issue 31) | launching (the
 *   launch-scan dialog as a child) | confirmingDelete → deleting (a failure stays in the dialog: 'Failed to delete
 *   account. Please try again.').
 *
 * Selecting a card (`account.selected`) navigates to /dashboard/accounts/{id}; hovering one prefetches its details.
 *
 * Events accepted:
 * - `account.selected` { accountId } — the user opened an account card: go to /dashboard/accounts/{id}.
 * - `account.hovered` { accountId } — the pointer is over an account card: its details are prefetched.
 * - `dashboard.refreshRequested` — the user pressed 'Refresh' (also raised after an account was added, a scan
 *   launched or an account deleted): the accounts are loaded again.
 * - `addAccount.requested` — the user pressed the add-account button: the wizard opens.
 * - `launchScan.requested` { accountId? } — the user asked to launch a scan, from a card (that account pre-selected) or
 *   the page. Not from the card of a member retired from its organisation (issue 31: the server refuses its scans);
 *   `canLaunchScanFor` says which cards offer it.
 * - `deleteAccount.requested` { accountId } — the user chose to delete an account shown on the dashboard: confirm first.
 * - `delete.confirmed` — the user confirmed the deletion.
 * - `delete.cancelled` — the user cancelled the deletion dialog.
 */
import { assign, fromPromise, raise, setup } from "xstate"
import { isRetiredAccount, type Account } from "../contracts/accounts.ts"
import type { OkMessage } from "../contracts/common.ts"
import type { AccountId } from "../contracts/ids.ts"
import { ScanningMessages } from "../contracts/messages.ts"
import { toFailure, type NavigateParams, type NotifyParams } from "./auth-effects.ts"
import { addAccountMachine, type AddAccountOutput } from "./add-account.machine.ts"
import { organizationPath } from "./organization-effects.ts"
import { launchScanMachine } from "./launch-scan.machine.ts"
import type { AccountsOverview, ProviderAccounts } from "./scan-effects.ts"
import type { CloudProvider } from "../contracts/providers.ts"
import { errorOf, outputOf } from "./actor-output.ts"

export interface DashboardAccountsContext {
  readonly providers: ReadonlyArray<CloudProvider>
  readonly groups: ReadonlyArray<ProviderAccounts>
  readonly error: string | null
  /** Launch-scan dialog pre-selection. */
  readonly launchAccountId: AccountId | null
  readonly deleteTarget: Account | null
  readonly deleteError: string | null
}

export type DashboardAccountsEvent =
  | { readonly type: "dashboard.refreshRequested" }
  | { readonly type: "account.selected"; readonly accountId: AccountId }
  | { readonly type: "account.hovered"; readonly accountId: AccountId }
  | { readonly type: "addAccount.requested" }
  | { readonly type: "launchScan.requested"; readonly accountId?: AccountId }
  | { readonly type: "deleteAccount.requested"; readonly accountId: AccountId }
  | { readonly type: "delete.confirmed" }
  | { readonly type: "delete.cancelled" }

export const accountPath = (id: number): string => `/dashboard/accounts/${id}`

/** Every account shown, providers in server order. */
export const dashboardAccounts = (context: Pick<DashboardAccountsContext, "groups">): ReadonlyArray<Account> =>
  context.groups.flatMap((g) => g.accounts)

/**
 * Whether a scan can be launched for this account: not for a member retired from its organisation (issue 31). Each card
 * reads it of its own account (no walk of the dashboard's accounts per card); the `launchScan.requested` guard through
 * `canLaunchScanOf`.
 */
export const canLaunchScanFor = (account: Pick<Account, "retired_at"> | undefined): boolean => !isRetiredAccount(account)

/** `canLaunchScanFor` of the named account (none named: from the page, always). */
export const canLaunchScanOf = (context: Pick<DashboardAccountsContext, "groups">, accountId: AccountId | undefined): boolean =>
  accountId === undefined || canLaunchScanFor(dashboardAccounts(context).find((a) => a.id === accountId))

const firstFailure = (overview: AccountsOverview): string | null => {
  if (overview.groups.length === 0 || overview.groups.some((g) => g.failure === null)) return null
  return overview.groups[0]?.failure?.message ?? ScanningMessages.dashboardFallback
}

export const dashboardAccountsMachine = setup({
  types: {
    context: {} as DashboardAccountsContext,
    events: {} as DashboardAccountsEvent,
  },
  actors: {
    /** GET /api/cloud-providers, then GET /api/accounts for each enabled provider (a failed provider call shows no accounts). */
    loadOverview: fromPromise<AccountsOverview, void>(async () => {
      throw new Error("loadOverview is not provided")
    }),
    /** DELETE the account; answers with the server's message. */
    deleteAccount: fromPromise<OkMessage, { readonly id: AccountId }>(async () => {
      throw new Error("deleteAccount is not provided")
    }),
    /** The add-account wizard; its output carries the saved account, or null. */
    addAccount: addAccountMachine,
    /** The launch-scan dialog; its output carries the started scan, or null. */
    launchScan: launchScanMachine,
  },
  guards: {
    /** The providers call failed, or every provider's accounts call failed. */
    everyLoadFailed: ({ event }) => firstFailure(outputOf<AccountsOverview>(event)) !== null,
    /** The scan asked for is of an account still scanned (any, from the page): not a retired member's (issue 31). */
    isScannableRequest: ({ context, event }) => event.type === "launchScan.requested" && canLaunchScanOf(context, event.accountId),
    /** The account to delete is one the dashboard shows. */
    isKnownAccount: ({ context, event }) =>
      event.type === "deleteAccount.requested" && dashboardAccounts(context).some((a) => a.id === event.accountId),
    /** The wizard finished with a saved account. */
    savedAnAccount: ({ event }) => outputOf<AddAccountOutput>(event).account !== null,
    /** The wizard finished with an onboarded organisation (issue 31). */
    savedAnOrganization: ({ event }) => outputOf<AddAccountOutput>(event).organization !== null,
  },
  actions: {
    assignOverview: assign(({ event }) => {
      const overview = outputOf<AccountsOverview>(event)
      return { providers: overview.providers, groups: overview.groups, error: null }
    }),
    assignEveryFailure: assign(({ event }) => {
      const overview = outputOf<AccountsOverview>(event)
      return { providers: overview.providers, groups: overview.groups, error: firstFailure(overview) }
    }),
    assignLoadError: assign({
      error: ({ event }) => toFailure(errorOf(event), ScanningMessages.dashboardFallback).message,
    }),
    assignLaunchAccount: assign({
      launchAccountId: ({ event }) => (event.type === "launchScan.requested" ? (event.accountId ?? null) : null),
    }),
    assignDeleteTarget: assign({
      deleteTarget: ({ context, event }) =>
        event.type === "deleteAccount.requested" ? (dashboardAccounts(context).find((a) => a.id === event.accountId) ?? null) : null,
      deleteError: null,
    }),
    clearDelete: assign({ deleteTarget: null, deleteError: null }),
    assignDeleteError: assign({ deleteError: ScanningMessages.deleteAccountFailedRetry }),
    requestRefresh: raise({ type: "dashboard.refreshRequested" }),
    /** Environment: go to a route (supplied at the React boundary). */
    navigate: (_, _params: NavigateParams) => {},
    /** Environment: a toast. */
    notify: (_, _params: NotifyParams) => {},
    /** Environment: warm the account-detail prefetch. */
    prefetchAccount: (_, _params: { readonly accountId: AccountId }) => {},
  },
}).createMachine({
  id: "dashboardAccounts",
  type: "parallel",
  context: {
    providers: [],
    groups: [],
    error: null,
    launchAccountId: null,
    deleteTarget: null,
    deleteError: null,
  },
  on: {
    "account.selected": {
      actions: { type: "navigate", params: ({ event }) => ({ to: accountPath(event.accountId) }) },
    },
    "account.hovered": {
      actions: { type: "prefetchAccount", params: ({ event }) => ({ accountId: event.accountId }) },
    },
  },
  states: {
    list: {
      description: "The account cards, grouped by cloud provider.",
      initial: "loading",
      states: {
        loading: {
          description: "The dashboard shows placeholder cards while the providers and their accounts are fetched.",
          invoke: {
            id: "loadOverview",
            src: "loadOverview",
            /** The providers and accounts arrived: the cards show, unless every call failed (then the §8 text of the first failure). */
            onDone: [
              { guard: "everyLoadFailed", target: "failed", actions: "assignEveryFailure" },
              { target: "loaded", actions: "assignOverview" },
            ],
            /** The load failed: the §8 text for the failure (by default 'Failed to fetch cloud provider accounts'). */
            onError: { target: "failed", actions: "assignLoadError" },
          },
        },
        loaded: {
          description: "The account cards are shown, grouped by provider.",
          initial: "idle",
          states: {
            idle: { description: "The cards are shown; 'Refresh' reloads them.", on: { "dashboard.refreshRequested": "refreshing" } },
            refreshing: {
              description: "The accounts are being reloaded while the cards stay on screen.",
              invoke: {
                id: "refreshOverview",
                src: "loadOverview",
                /** The reloaded accounts replace the cards, unless every call failed (then the §8 text of the first failure). */
                onDone: [
                  { guard: "everyLoadFailed", target: "#dashboardAccounts.list.failed", actions: "assignEveryFailure" },
                  { target: "idle", actions: "assignOverview" },
                ],
                /** The reload failed: the §8 text for the failure (by default 'Failed to fetch cloud provider accounts'). */
                onError: { target: "#dashboardAccounts.list.failed", actions: "assignLoadError" },
              },
            },
          },
        },
        failed: { description: "The accounts could not be loaded: the §8 text is shown; 'Refresh' tries again.", on: { "dashboard.refreshRequested": "loading" } },
      },
    },
    dialog: {
      description: "Which dialog is open over the dashboard, if any.",
      initial: "none",
      states: {
        none: {
          description: "No dialog is open.",
          on: {
            "addAccount.requested": "adding",
            "launchScan.requested": { guard: "isScannableRequest", target: "launching", actions: "assignLaunchAccount" },
            "deleteAccount.requested": { guard: "isKnownAccount", target: "confirmingDelete", actions: "assignDeleteTarget" },
          },
        },
        /** The wizard; OK saves, closes and refreshes. */
        adding: {
          invoke: {
            id: "addAccount",
            src: "addAccount",
            /** The wizard closed: the list is reloaded if it saved an account. */
            onDone: [
              {
                guard: "savedAnOrganization",
                target: "none",
                actions: {
                  type: "navigate",
                  params: ({ event }) => ({ to: organizationPath(outputOf<AddAccountOutput>(event).organization!.id) }),
                },
              },
              { guard: "savedAnAccount", target: "none", actions: "requestRefresh" },
              { target: "none" },
            ],
          },
        },
        launching: {
          description: "The launch-scan dialog is open (pre-selecting the card's account when launched from one).",
          invoke: {
            id: "launchScan",
            src: "launchScan",
            input: ({ context }) => ({ accountId: context.launchAccountId }),
            /** The launch-scan dialog closed (with or without a scan): the list is reloaded. */
            onDone: { target: "none", actions: "requestRefresh" },
          },
        },
        confirmingDelete: {
          description: "The delete confirmation dialog names the account, with the last deletion error if any.",
          on: {
            "delete.confirmed": "deleting",
            "delete.cancelled": { target: "none", actions: "clearDelete" },
          },
        },
        deleting: {
          description: "The account is being deleted.",
          invoke: {
            id: "deleteAccount",
            src: "deleteAccount",
            input: ({ context }) => ({ id: context.deleteTarget!.id }),
            /** Deleted: the dialog closes, a toast carries the server's message and the list is reloaded. */
            onDone: {
              target: "none",
              actions: [
                "clearDelete",
                { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output.message }) },
                "requestRefresh",
              ],
            },
            /** The deletion failed: the dialog stays open with 'Failed to delete account. Please try again.' */
            onError: { target: "confirmingDelete", actions: "assignDeleteError" },
          },
        },
      },
    },
  },
})
