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
 *
 * Events accepted:
 * - `detail.retryRequested` — the user pressed retry after the details failed to load: load them again.
 * - `detail.refreshRequested` — the user pressed Refresh: the details are read again, bypassing the prefetch.
 * - `detail.reloadRequested` — raised by the machine when the launch-scan dialog closes: a silent reload.
 * - `secret.revealToggled` — the user pressed the reveal / hide button next to the masked secret.
 * - `launchScan.requested` — the user pressed the launch-scan button: the dialog opens with this account selected.
 *   Not for a member retired from its organisation (issue 31: the server refuses its scans; `selectRetired` says so).
 * - `deleteAccount.requested` — the user pressed delete: confirm first (once the details are loaded).
 * - `delete.confirmed` — the user confirmed the deletion.
 * - `delete.cancelled` — the user cancelled the deletion dialog.
 */
import { assign, fromPromise, raise, setup } from "xstate"
import { isRetiredAccount, type AccountDetail, type RecentScan } from "../contracts/accounts.ts"
import type { OkMessage } from "../contracts/common.ts"
import type { AccountId } from "../contracts/ids.ts"
import { ScanningMessages } from "../contracts/messages.ts"
import { AuthPaths, toFailure, type NavigateParams, type NotifyParams } from "./auth-effects.ts"
import { launchScanMachine } from "./launch-scan.machine.ts"
import { errorOf, outputOf } from "./actor-output.ts"

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

/**
 * Beyond the spec (issue 31): the account is a member retired from its organisation: no scan is offered (the page says
 * it is no longer scanned); the `launchScan.requested` guard reads the same.
 */
export const selectRetired = (snapshot: { readonly context: Pick<AccountDetailsContext, "detail"> }): boolean =>
  isRetiredAccount(snapshot.context.detail)

export const accountDetailsMachine = setup({
  types: {
    context: {} as AccountDetailsContext,
    events: {} as AccountDetailsEvent,
    input: {} as AccountDetailsInput,
  },
  actors: {
    /** GET /api/accounts/{id}; a prefetched answer younger than 60 s is used as is. */
    loadAccountDetail: fromPromise<AccountDetail, { readonly id: AccountId }>(async () => {
      throw new Error("loadAccountDetail is not provided")
    }),
    /** GET /api/accounts/{id} again, bypassing the prefetch. */
    refreshAccountDetail: fromPromise<AccountDetail, { readonly id: AccountId }>(async () => {
      throw new Error("refreshAccountDetail is not provided")
    }),
    /** POST /api/accounts/{id}/reveal-secret (audited, permission-checked): the stored secret. */
    revealSecret: fromPromise<string, { readonly id: AccountId }>(async () => {
      throw new Error("revealSecret is not provided")
    }),
    /** DELETE /api/accounts/{id}; answers with the server's message. */
    deleteAccount: fromPromise<OkMessage, { readonly id: AccountId }>(async () => {
      throw new Error("deleteAccount is not provided")
    }),
    /** The launch-scan dialog, pre-selecting this account. */
    launchScan: launchScanMachine,
  },
  guards: {
    /** The account's details are loaded. */
    hasDetail: ({ context }) => context.detail !== null,
    /** The account is still scanned: not a member retired from its organisation (issue 31). */
    isScannable: ({ context }) => !selectRetired({ context }),
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
      description: "The account's details: loaded once, then refreshed on demand.",
      initial: "loading",
      states: {
        loading: {
          description: "The page shows a loading state while the account's details are fetched.",
          invoke: {
            id: "loadAccountDetail",
            src: "loadAccountDetail",
            input: ({ context }) => ({ id: context.accountId }),
            /** The details arrived: the page shows them. */
            onDone: { target: "ready", actions: "assignDetail" },
            /** The details could not be loaded: the error's message (by default 'Failed to load account details') with a retry. */
            onError: { target: "failed", actions: "assignLoadError" },
          },
        },
        failed: { description: "The details could not be loaded: 'Failed to load account details' with the error and a retry.", on: { "detail.retryRequested": "loading" } },
        ready: {
          description: "The page shows the account's details, credentials card and latest scan.",
          initial: "idle",
          states: {
            idle: {
              description: "The details are shown; Refresh reads them again.",
              on: {
                "detail.refreshRequested": "refreshing",
                "detail.reloadRequested": "reloading",
              },
            },
            refreshing: {
              description: "Refresh is reading the details again; the page keeps showing them.",
              invoke: {
                id: "refreshAccountDetail",
                src: "refreshAccountDetail",
                input: ({ context }) => ({ id: context.accountId }),
                /** The fresh details replace the shown ones; toast 'Account details refreshed successfully'. */
                onDone: {
                  target: "idle",
                  actions: ["assignDetail", { type: "notify", params: { kind: "success", message: ScanningMessages.accountDetailsRefreshed } }],
                },
                /** The refresh failed: the details shown stay; toast 'Failed to refresh account details'. */
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
                /** The reloaded details replace the shown ones, without a toast. */
                onDone: { target: "idle", actions: "assignDetail" },
                /** The reload failed: the page stays as it was, without a toast. */
                onError: { target: "idle" },
              },
            },
          },
        },
      },
    },
    secret: {
      description: "The credentials card's secret: masked, being revealed, or shown.",
      initial: "masked",
      states: {
        masked: { description: "The secret shows as a mask, with a reveal button.", on: { "secret.revealToggled": { guard: "hasDetail", target: "revealing" } } },
        revealing: {
          description: "The audited reveal call is fetching the secret.",
          invoke: {
            id: "revealSecret",
            src: "revealSecret",
            input: ({ context }) => ({ id: context.accountId }),
            /** The secret arrived: it is shown in clear. */
            onDone: { target: "revealed", actions: "assignSecret" },
            /** The reveal was refused or failed: the secret stays masked and an error toast shows the failure's message. */
            onError: {
              target: "masked",
              actions: { type: "notify", params: ({ event }) => ({ kind: "error", message: toFailure(event.error).message }) },
            },
          },
        },
        revealed: { description: "The secret is shown in clear; hiding it again forgets it.", on: { "secret.revealToggled": { target: "masked", actions: "forgetSecret" } } },
      },
    },
    dialog: {
      description: "Which dialog is open over the account page, if any.",
      initial: "none",
      states: {
        none: {
          description: "No dialog is open.",
          on: {
            "launchScan.requested": { guard: "isScannable", target: "launching" },
            "deleteAccount.requested": { guard: "hasDetail", target: "confirmingDelete", actions: "clearDeleteError" },
          },
        },
        launching: {
          description: "The launch-scan dialog is open with this account selected.",
          invoke: {
            id: "launchScan",
            src: "launchScan",
            input: ({ context }) => ({ accountId: context.accountId }),
            /** The launch-scan dialog closed: the details are reloaded silently (the latest scan may have changed). */
            onDone: { target: "none", actions: "requestReload" },
          },
        },
        confirmingDelete: {
          description: "The confirmation says the account and all its scan history will be permanently deleted.",
          on: { "delete.confirmed": "deleting", "delete.cancelled": "none" },
        },
        deleting: {
          description: "The account is being deleted.",
          invoke: {
            id: "deleteAccount",
            src: "deleteAccount",
            input: ({ context }) => ({ id: context.accountId }),
            /** Deleted: a toast carries the server's message and the user is taken to /dashboard. */
            onDone: {
              target: "none",
              actions: [
                { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output.message }) },
                { type: "navigate", params: { to: AuthPaths.dashboard } },
              ],
            },
            /** The deletion failed: the dialog closes and 'Failed to delete account' shows inline above the page. */
            onError: { target: "none", actions: "assignDeleteError" },
          },
        },
      },
    },
  },
})
