/**
 * /dashboard/accounts/{accountId}/resource?uid= (beyond the spec, issue 13): one resource's results across the account's
 * last completed scans. `loading` → `ready` or `failed` ('Failed to load the resource. Please try again.', or the
 * server's 'Resource not found'); `history.retryRequested` reads it again.
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
      invoke: {
        id: "loadResourceHistory",
        src: "loadResourceHistory",
        input: ({ context }) => ({ account_id: context.accountId, uid: context.uid }),
        onDone: { target: "ready", actions: "assignHistory" },
        onError: { target: "failed", actions: "assignError" },
      },
    },
    failed: { on: { "history.retryRequested": "loading" } },
    ready: {},
  },
})
