/**
 * /dashboard/accounts/{accountId} (scanning §2 "Account details", §7 GET/DELETE /api/accounts/{id}, §8 'Failed to
 * load account details', 'Failed to refresh account details', 'Failed to delete account').
 *
 * Parallel regions:
 * - `detail`: `loading` (`loadAccountDetail`; a 60 s prefetch is used as is) → `ready` or `failed` (the error's message
 *   or 'Failed to load account details', with a retry). In `ready`: Refresh (`detail.refreshRequested` →
 *   `refreshing`, toast 'Account details refreshed successfully' or 'Failed to refresh account details'), and a silent
 *   `reloading` after the launch dialog closes.
 * - `secret`: `masked` ↔ `revealed` through `revealing` (the audited reveal call); hiding forgets the secret.
 * - `dialog`: none | launching (the launch-scan dialog as a child, pre-selecting this account; when it closes the
 *   details are reloaded) | confirmingDelete ('This will permanently delete the {provider} account "{name}" and remove
 *   all scan history. This action cannot be undone.') | deleting → /dashboard, or back with 'Failed to delete account'
 *   shown inline above the page.
 */
import { assign, fromPromise, raise, setup } from "xstate"
import type { AccountDetail, RecentScan } from "../contracts/accounts.ts"
import type { OkMessage } from "../contracts/common.ts"
import type { AccountId } from "../contracts/ids.ts"
import { ScanningMessages } from "../contracts/messages.ts"
import { AuthPaths, toFailure, type NavigateParams, type NotifyParams } from "./auth-effects.ts"
import { launchScanMachine } from "./launch-scan.machine.ts"

export interface AccountDetailsInput {
  readonly accountId: AccountId
}

export interface AccountDetailsContext {
  readonly accountId: AccountId
  readonly detail: AccountDetail | null
  readonly loadError: string | null
  /** The revealed secret access key while `secret.revealed`. */
  readonly secret: string | null
  /** Shown inline above the page after a failed deletion. */
  readonly deleteError: string | null
}

export type AccountDetailsEvent =
  | { readonly type: "detail.retryRequested" }
  | { readonly type: "detail.refreshRequested" }
  | { readonly type: "detail.reloadRequested" }
  | { readonly type: "secret.revealToggled" }
  | { readonly type: "launchScan.requested" }
  | { readonly type: "deleteAccount.requested" }
  | { readonly type: "delete.confirmed" }
  | { readonly type: "delete.cancelled" }

/** The most recent scan (the list is newest first; sorted again to be safe). */
export const latestScan = (detail: Pick<AccountDetail, "recent_scans"> | null): RecentScan | null => {
  if (detail === null || detail.recent_scans.length === 0) return null
  return [...detail.recent_scans].sort((a, b) => Date.parse(b.scan_start) - Date.parse(a.scan_start) || b.id - a.id)[0] ?? null
}

const errorOf = (event: unknown): unknown => (event as { readonly error?: unknown }).error
const outputOf = <T>(event: unknown): T => (event as { readonly output: T }).output

export const accountDetailsMachine = setup({
  types: {
    context: {} as AccountDetailsContext,
    events: {} as AccountDetailsEvent,
    input: {} as AccountDetailsInput,
  },
  actors: {
    loadAccountDetail: fromPromise<AccountDetail, { readonly id: AccountId }>(async () => {
      throw new Error("loadAccountDetail is not provided")
    }),
    refreshAccountDetail: fromPromise<AccountDetail, { readonly id: AccountId }>(async () => {
      throw new Error("refreshAccountDetail is not provided")
    }),
    revealSecret: fromPromise<string, { readonly id: AccountId }>(async () => {
      throw new Error("revealSecret is not provided")
    }),
    deleteAccount: fromPromise<OkMessage, { readonly id: AccountId }>(async () => {
      throw new Error("deleteAccount is not provided")
    }),
    launchScan: launchScanMachine,
  },
  guards: {
    hasDetail: ({ context }) => context.detail !== null,
  },
  actions: {
    assignDetail: assign({ detail: ({ event }) => outputOf<AccountDetail>(event), loadError: null }),
    assignLoadError: assign({
      loadError: ({ event }) => toFailure(errorOf(event), ScanningMessages.loadAccountDetailsFailed).message,
    }),
    assignSecret: assign({ secret: ({ event }) => outputOf<string>(event) }),
    forgetSecret: assign({ secret: null }),
    clearDeleteError: assign({ deleteError: null }),
    assignDeleteError: assign({ deleteError: ScanningMessages.deleteAccountFailed }),
    requestReload: raise({ type: "detail.reloadRequested" }),
    /** Environment: go to a route (supplied at the React boundary). */
    navigate: (_, _params: NavigateParams) => {},
    /** Environment: a toast. */
    notify: (_, _params: NotifyParams) => {},
  },
}).createMachine({
  id: "accountDetails",
  type: "parallel",
  context: ({ input }) => ({ accountId: input.accountId, detail: null, loadError: null, secret: null, deleteError: null }),
  states: {
    detail: {
      initial: "loading",
      states: {
        loading: {
          invoke: {
            id: "loadAccountDetail",
            src: "loadAccountDetail",
            input: ({ context }) => ({ id: context.accountId }),
            onDone: { target: "ready", actions: "assignDetail" },
            onError: { target: "failed", actions: "assignLoadError" },
          },
        },
        failed: { on: { "detail.retryRequested": "loading" } },
        ready: {
          initial: "idle",
          states: {
            idle: {
              on: {
                "detail.refreshRequested": "refreshing",
                "detail.reloadRequested": "reloading",
              },
            },
            refreshing: {
              invoke: {
                id: "refreshAccountDetail",
                src: "refreshAccountDetail",
                input: ({ context }) => ({ id: context.accountId }),
                onDone: {
                  target: "idle",
                  actions: ["assignDetail", { type: "notify", params: { kind: "success", message: ScanningMessages.accountDetailsRefreshed } }],
                },
                onError: {
                  target: "idle",
                  actions: { type: "notify", params: { kind: "error", message: ScanningMessages.refreshAccountDetailsFailed } },
                },
              },
            },
            /** After the launch dialog closed: the latest scan may have changed. Quiet on failure (the page stays). */
            reloading: {
              invoke: {
                id: "reloadAccountDetail",
                src: "refreshAccountDetail",
                input: ({ context }) => ({ id: context.accountId }),
                onDone: { target: "idle", actions: "assignDetail" },
                onError: { target: "idle" },
              },
            },
          },
        },
      },
    },
    secret: {
      initial: "masked",
      states: {
        masked: { on: { "secret.revealToggled": { guard: "hasDetail", target: "revealing" } } },
        revealing: {
          invoke: {
            id: "revealSecret",
            src: "revealSecret",
            input: ({ context }) => ({ id: context.accountId }),
            onDone: { target: "revealed", actions: "assignSecret" },
            onError: {
              target: "masked",
              actions: { type: "notify", params: ({ event }) => ({ kind: "error", message: toFailure(event.error).message }) },
            },
          },
        },
        revealed: { on: { "secret.revealToggled": { target: "masked", actions: "forgetSecret" } } },
      },
    },
    dialog: {
      initial: "none",
      states: {
        none: {
          on: {
            "launchScan.requested": "launching",
            "deleteAccount.requested": { guard: "hasDetail", target: "confirmingDelete", actions: "clearDeleteError" },
          },
        },
        launching: {
          invoke: {
            id: "launchScan",
            src: "launchScan",
            input: ({ context }) => ({ accountId: context.accountId }),
            onDone: { target: "none", actions: "requestReload" },
          },
        },
        confirmingDelete: {
          on: { "delete.confirmed": "deleting", "delete.cancelled": "none" },
        },
        deleting: {
          invoke: {
            id: "deleteAccount",
            src: "deleteAccount",
            input: ({ context }) => ({ id: context.accountId }),
            onDone: {
              target: "none",
              actions: [
                { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output.message }) },
                { type: "navigate", params: { to: AuthPaths.dashboard } },
              ],
            },
            onError: { target: "none", actions: "assignDeleteError" },
          },
        },
      },
    },
  },
})
