/**
 * /dashboard/accounts/{accountId}/resource?uid= (beyond the spec, issue 13): one resource's results across the account's
 * last completed scans. `loading` → `ready` or `failed` ('Failed to load the resource. Please try again.', or the
 * server's 'Resource not found'); `history.retryRequested` reads it again.
 *
 * Events accepted:
 * - `history.retryRequested` — the user pressed retry after the resource failed to load: read it again.
 */
import { assign, fromPromise, setup } from "xstate"
import type { AccountId } from "../contracts/ids.ts"
import { PostureMessages, type ResourceHistory } from "../contracts/posture.ts"
import { toFailure } from "./auth-effects.ts"

export interface ResourceHistoryInput {
  readonly accountId: AccountId
  readonly uid: string
}

export interface ResourceHistoryContext extends ResourceHistoryInput {
  readonly history: ResourceHistory | null
  readonly error: string | null
}

export type ResourceHistoryEvent = { readonly type: "history.retryRequested" }

export const resourceHistoryMachine = setup({
  types: { context: {} as ResourceHistoryContext, events: {} as ResourceHistoryEvent, input: {} as ResourceHistoryInput },
  actors: {
    /** GET the resource's results across the account's last completed scans, by account id and resource uid. */
    loadResourceHistory: fromPromise<ResourceHistory, { readonly account_id: AccountId; readonly uid: string }>(async () => {
      throw new Error("loadResourceHistory is not provided")
    }),
  },
  actions: {
    assignHistory: assign({ history: ({ event }) => (event as unknown as { output: ResourceHistory }).output, error: null }),
    assignError: assign({
      error: ({ event }) => toFailure((event as unknown as { error?: unknown }).error, PostureMessages.loadResourceFailed).message,
    }),
  },
}).createMachine({
  id: "resourceHistory",
  context: ({ input }) => ({ ...input, history: null, error: null }),
  initial: "loading",
  states: {
    loading: {
      description: "The resource's history is being fetched for this account and resource uid.",
      invoke: {
        id: "loadResourceHistory",
        src: "loadResourceHistory",
        input: ({ context }) => ({ account_id: context.accountId, uid: context.uid }),
        /** The history arrived: the page shows it. */
        onDone: { target: "ready", actions: "assignHistory" },
        /** The read failed: keeps the failure's message ('Resource not found' from the server, else 'Failed to load the resource. Please try again.'). */
        onError: { target: "failed", actions: "assignError" },
      },
    },
    failed: { description: "The error message is shown with a retry button.", on: { "history.retryRequested": "loading" } },
    ready: { description: "The page shows the resource's results across the account's last completed scans." },
  },
})
