/**
 * The dashboard's posture section (beyond the spec, issue 13): each account's trend over its last completed scans
 * (failing resources by severity, new and fixed), the accounts not scanned in 7 days, and the top failing checks.
 *
 * `loading` → `ready` or `failed` ('Failed to load the security posture. Please try again.', `overview.retryRequested`).
 * `overview.refreshRequested` in `ready` reads it again (`refreshing`, keeping what is shown; a failure toasts).
 */
import { assign, fromPromise, setup } from "xstate"
import { PostureMessages, type PostureOverview } from "../contracts/posture.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"

export interface PostureOverviewContext {
  readonly overview: PostureOverview | null
  readonly error: string | null
}

export type PostureOverviewEvent = { readonly type: "overview.retryRequested" } | { readonly type: "overview.refreshRequested" }

const outputOf = <T>(event: unknown): T => (event as { readonly output: T }).output
const errorOf = (event: unknown): unknown => (event as { readonly error?: unknown }).error

export const postureOverviewMachine = setup({
  types: { context: {} as PostureOverviewContext, events: {} as PostureOverviewEvent },
  actors: {
    loadOverview: fromPromise<PostureOverview, void>(async () => {
      throw new Error("loadOverview is not provided")
    }),
  },
  actions: {
    assignOverview: assign({ overview: ({ event }) => outputOf<PostureOverview>(event), error: null }),
    assignError: assign({ error: ({ event }) => toFailure(errorOf(event), PostureMessages.loadOverviewFailed).message }),
    /** Environment: a toast. */
    notify: (_, _params: NotifyParams) => {},
  },
}).createMachine({
  id: "postureOverview",
  context: { overview: null, error: null },
  initial: "loading",
  states: {
    loading: {
      invoke: {
        id: "loadOverview",
        src: "loadOverview",
        onDone: { target: "ready", actions: "assignOverview" },
        onError: { target: "failed", actions: "assignError" },
      },
    },
    failed: { on: { "overview.retryRequested": "loading" } },
    ready: { on: { "overview.refreshRequested": "refreshing" } },
    refreshing: {
      invoke: {
        id: "reloadOverview",
        src: "loadOverview",
        onDone: { target: "ready", actions: "assignOverview" },
        onError: {
          target: "ready",
          actions: { type: "notify", params: ({ event }) => ({ kind: "error", message: toFailure(errorOf(event), PostureMessages.loadOverviewFailed).message }) },
        },
      },
    },
  },
})
