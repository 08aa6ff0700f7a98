/**
 * The Jira panel of a finding's page (beyond the spec, issue 33 part 5; docs/integrations-jira.md): the Jira issues of
 * the finding's account and check (one for the whole finding and/or one per resource) with their key, status and
 * whether they are closed; "Create Jira issue" (one for the finding, or one per failing resource) and "Refresh".
 *
 * `loading` → `ready` or `failed` (`jira.retryRequested`). From `ready`: `jira.createRequested` { mode } → `creating` →
 * `ready` with the new issues and a success toast (the server's message names the keys), or an error toast (a
 * duplicate's 409 names the existing key; Jira not connected, refused or unreachable in the server's words);
 * `jira.refreshRequested` (with issues only) → `refreshing` → `ready` with the statuses read from Jira now.
 *
 * Input: the finding's id. Whether the viewer may create issues is the view's (the finding page's permission, as for
 * remediation); the server refuses anyone else with the spec-style text.
 */
import { assertEvent, assign, fromPromise, setup } from "xstate"
import { JiraMessages, type CreateJiraIssuesResponse, type JiraIssue, type JiraIssueMode } from "../contracts/jira.ts"
import { errorOf, outputOf } from "./actor-output.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"
import { notProvided } from "./building-blocks.ts"

export const FindingJiraTexts = {
  loadFailed: "Failed to load the Jira issues. Please try again.",
  createFailed: "Failed to create the Jira issue. Please try again.",
  refreshFailed: "Failed to refresh the Jira issues. Please try again.",
} as const

export interface FindingJiraContext {
  readonly findingId: number
  readonly issues: ReadonlyArray<JiraIssue>
  readonly loadError: string | null
}

export type FindingJiraEvent =
  | { readonly type: "jira.retryRequested" }
  | { readonly type: "jira.createRequested"; readonly mode: JiraIssueMode }
  | { readonly type: "jira.refreshRequested" }

/** Issues by key, the newer answer winning; whole-finding issue first, then by resource. */
export const mergeIssues = (current: ReadonlyArray<JiraIssue>, incoming: ReadonlyArray<JiraIssue>): ReadonlyArray<JiraIssue> => {
  const byKey = new Map(current.map((i) => [i.issue_key, i]))
  for (const i of incoming) byKey.set(i.issue_key, i)
  return [...byKey.values()].sort((a, b) => (a.resource_uid ?? "").localeCompare(b.resource_uid ?? "") || a.issue_key.localeCompare(b.issue_key))
}

const failureText = (error: unknown, fallback: string) => {
  const failure = toFailure(error, fallback)
  return failure.status === 403 ? JiraMessages.createPermissionDenied : failure.message
}

export const findingJiraMachine = setup({
  types: {
    context: {} as FindingJiraContext,
    events: {} as FindingJiraEvent,
    input: {} as { readonly findingId: number },
  },
  actors: {
    findingIssues: fromPromise<ReadonlyArray<JiraIssue>, number>(notProvided("findingIssues")),
    createIssues: fromPromise<CreateJiraIssuesResponse, { findingId: number; mode: JiraIssueMode }>(notProvided("createIssues")),
    refreshIssues: fromPromise<ReadonlyArray<JiraIssue>, number>(notProvided("refreshIssues")),
  },
  guards: {
    /** The finding has Jira issues to refresh. */
    hasIssues: ({ context }) => context.issues.length > 0,
  },
  actions: {
    /** Environment: a toast. */
    notify: (_, _params: NotifyParams) => {},
    assignIssues: assign({ issues: ({ event }) => outputOf<ReadonlyArray<JiraIssue>>(event), loadError: null }),
    assignLoadError: assign({ loadError: ({ event }) => failureText(errorOf(event), FindingJiraTexts.loadFailed) }),
    assignCreated: assign({
      issues: ({ context, event }) => {
        const { data } = outputOf<CreateJiraIssuesResponse>(event)
        return mergeIssues(context.issues, [...data.existing, ...data.created])
      },
    }),
    assignRefreshed: assign({ issues: ({ context, event }) => mergeIssues(context.issues, outputOf<ReadonlyArray<JiraIssue>>(event)) }),
  },
}).createMachine({
  id: "findingJira",
  context: ({ input }) => ({ findingId: input.findingId, issues: [], loadError: null }),
  initial: "loading",
  states: {
    loading: {
      description: "The panel reads the Jira issues of the finding's account and check.",
      invoke: {
        id: "findingIssues",
        src: "findingIssues",
        input: ({ context }) => context.findingId,
        /** Read: the issues with their key, status and closed mark (none: the create actions only). */
        onDone: { target: "ready", actions: "assignIssues" },
        /** The read failed: the panel says so with a retry button. */
        onError: { target: "failed", actions: "assignLoadError" },
      },
    },
    failed: {
      description: "The Jira issues could not be read: the error is shown with a retry button.",
      on: { "jira.retryRequested": "loading" },
    },
    ready: {
      description: "The issues are listed; Create Jira issue (for the finding or per resource) and Refresh are offered.",
      on: {
        "jira.createRequested": "creating",
        "jira.refreshRequested": { guard: "hasIssues", target: "refreshing" },
      },
    },
    creating: {
      description: "The issue (or one per failing resource) is being created in Jira.",
      invoke: {
        id: "createIssues",
        src: "createIssues",
        input: ({ context, event }) => {
          assertEvent(event, "jira.createRequested")
          return { findingId: context.findingId, mode: event.mode }
        },
        /** Created: the new issues join the list, with the server's message naming their keys. */
        onDone: {
          target: "ready",
          actions: ["assignCreated", { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output.message }) }],
        },
        /** Refused (a duplicate names the existing key; Jira not connected or refusing) or failed: an error toast. */
        onError: {
          target: "ready",
          actions: { type: "notify", params: ({ event }) => ({ kind: "error", message: failureText(event.error, FindingJiraTexts.createFailed) }) },
        },
      },
    },
    refreshing: {
      description: "The issues' statuses are being read from Jira.",
      invoke: {
        id: "refreshIssues",
        src: "refreshIssues",
        input: ({ context }) => context.findingId,
        /** Read: each issue shows its current status (a done one as closed). */
        onDone: { target: "ready", actions: ["assignRefreshed", { type: "notify", params: { kind: "success", message: JiraMessages.refreshed } }] },
        /** Jira could not be read: the issues keep their last known status, with an error toast. */
        onError: {
          target: "ready",
          actions: { type: "notify", params: ({ event }) => ({ kind: "error", message: failureText(event.error, FindingJiraTexts.refreshFailed) }) },
        },
      },
    },
  },
})
