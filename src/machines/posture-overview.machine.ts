/**
 * The dashboard's posture section (beyond the spec, issue 13): each account's trend over its last completed scans
 * (failing resources by severity, new and fixed), the accounts not scanned in 7 days, and the top failing checks.
 *
 * `loading` → `ready` or `failed` ('Failed to load the security posture. Please try again.', `overview.retryRequested`).
 * `overview.refreshRequested` in `ready` reads it again (`refreshing`, keeping what is shown; a failure toasts).
 *
 * Events accepted:
 * - `overview.retryRequested` — the user pressed retry after the posture failed to load: load it again.
 * - `overview.refreshRequested` — the user asked for fresh figures while the posture is shown: read it again in the
 *   background.
 */
import { assign, fromPromise, setup } from "xstate"
import { PostureMessages, type PostureOverview } from "../contracts/posture.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"
import { errorOf, outputOf } from "./actor-output.ts"

export interface PostureOverviewContext {
  readonly overview: PostureOverview | null
  readonly error: string | null
}

export type PostureOverviewEvent = { readonly type: "overview.retryRequested" } | { readonly type: "overview.refreshRequested" }

export const postureOverviewMachine = setup({
  types: { context: {} as PostureOverviewContext, events: {} as PostureOverviewEvent },
  actors: {
    /** GET the workspace's posture overview: per-account trends, accounts not scanned in 7 days, top failing checks. */
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
      description: "The posture section is loading its first overview; nothing is shown yet.",
      invoke: {
        id: "loadOverview",
        src: "loadOverview",
        /** The overview arrived: the section shows it. */
        onDone: { target: "ready", actions: "assignOverview" },
        /** The first load failed: keeps the failure's message (by default 'Failed to load the security posture. Please try again.'). */
        onError: { target: "failed", actions: "assignError" },
      },
    },
    failed: { description: "The error message is shown with a retry button.", on: { "overview.retryRequested": "loading" } },
    ready: { description: "The section shows the trends, the accounts not scanned in 7 days and the top failing checks.", on: { "overview.refreshRequested": "refreshing" } },
    refreshing: {
      description: "The overview is read again while the section keeps showing what it had.",
      invoke: {
        id: "reloadOverview",
        src: "loadOverview",
        /** The fresh overview replaces the one shown. */
        onDone: { target: "ready", actions: "assignOverview" },
        /** The refresh failed: the section keeps what it showed and an error toast shows the failure (by default 'Failed to load the security posture. Please try again.'). */
        onError: {
          target: "ready",
          actions: { type: "notify", params: ({ event }) => ({ kind: "error", message: toFailure(errorOf(event), PostureMessages.loadOverviewFailed).message }) },
        },
      },
    },
  },
})
