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
 * - `dialog`: none | adding (the add-account wizard as a child; a saved account refreshes the list) | launching (the
 *   launch-scan dialog as a child) | confirmingDelete → deleting (a failure stays in the dialog: 'Failed to delete
 *   account. Please try again.').
 *
 * Selecting a card (`account.selected`) navigates to /dashboard/accounts/{id}; hovering one prefetches its details.
 */
import { assign, fromPromise, raise, setup } from "xstate"
import type { Account } from "../contracts/accounts.ts"
import type { OkMessage } from "../contracts/common.ts"
import type { AccountId } from "../contracts/ids.ts"
import { ScanningMessages } from "../contracts/messages.ts"
import { toFailure, type NavigateParams, type NotifyParams } from "./auth-effects.ts"
import { addAccountMachine } from "./add-account.machine.ts"
import { launchScanMachine } from "./launch-scan.machine.ts"
import type { AccountsOverview, ProviderAccounts } from "./scan-effects.ts"
import type { CloudProvider } from "../contracts/providers.ts"

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

const errorOf = (event: unknown): unknown => (event as { readonly error?: unknown }).error
const outputOf = <T>(event: unknown): T => (event as { readonly output: T }).output

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
    loadOverview: fromPromise<AccountsOverview, void>(async () => {
      throw new Error("loadOverview is not provided")
    }),
    deleteAccount: fromPromise<OkMessage, { readonly id: AccountId }>(async () => {
      throw new Error("deleteAccount is not provided")
    }),
    addAccount: addAccountMachine,
    launchScan: launchScanMachine,
  },
  guards: {
    everyLoadFailed: ({ event }) => firstFailure(outputOf<AccountsOverview>(event)) !== null,
    isKnownAccount: ({ context, event }) =>
      event.type === "deleteAccount.requested" && dashboardAccounts(context).some((a) => a.id === event.accountId),
    savedAnAccount: ({ event }) => outputOf<{ readonly account: Account | null }>(event).account !== null,
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
      initial: "loading",
      states: {
        loading: {
          invoke: {
            id: "loadOverview",
            src: "loadOverview",
            onDone: [
              { guard: "everyLoadFailed", target: "failed", actions: "assignEveryFailure" },
              { target: "loaded", actions: "assignOverview" },
            ],
            onError: { target: "failed", actions: "assignLoadError" },
          },
        },
        loaded: {
          initial: "idle",
          states: {
            idle: { on: { "dashboard.refreshRequested": "refreshing" } },
            refreshing: {
              invoke: {
                id: "refreshOverview",
                src: "loadOverview",
                onDone: [
                  { guard: "everyLoadFailed", target: "#dashboardAccounts.list.failed", actions: "assignEveryFailure" },
                  { target: "idle", actions: "assignOverview" },
                ],
                onError: { target: "#dashboardAccounts.list.failed", actions: "assignLoadError" },
              },
            },
          },
        },
        failed: { on: { "dashboard.refreshRequested": "loading" } },
      },
    },
    dialog: {
      initial: "none",
      states: {
        none: {
          on: {
            "addAccount.requested": "adding",
            "launchScan.requested": { target: "launching", actions: "assignLaunchAccount" },
            "deleteAccount.requested": { guard: "isKnownAccount", target: "confirmingDelete", actions: "assignDeleteTarget" },
          },
        },
        /** The wizard; OK saves, closes and refreshes. */
        adding: {
          invoke: {
            id: "addAccount",
            src: "addAccount",
            onDone: [{ guard: "savedAnAccount", target: "none", actions: "requestRefresh" }, { target: "none" }],
          },
        },
        launching: {
          invoke: {
            id: "launchScan",
            src: "launchScan",
            input: ({ context }) => ({ accountId: context.launchAccountId }),
            onDone: { target: "none", actions: "requestRefresh" },
          },
        },
        confirmingDelete: {
          on: {
            "delete.confirmed": "deleting",
            "delete.cancelled": { target: "none", actions: "clearDelete" },
          },
        },
        deleting: {
          invoke: {
            id: "deleteAccount",
            src: "deleteAccount",
            input: ({ context }) => ({ id: context.deleteTarget!.id }),
            onDone: {
              target: "none",
              actions: [
                "clearDelete",
                { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output.message }) },
                "requestRefresh",
              ],
            },
            onError: { target: "confirmingDelete", actions: "assignDeleteError" },
          },
        },
      },
    },
  },
})
