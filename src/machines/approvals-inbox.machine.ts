/**
 * The approvals inbox, /dashboard/approvals (beyond the spec, issue 32 "Approval (four eyes)"): the remediation
 * requests of accounts that require approval, for members holding remediate_findings. Another member approves a
 * pending request (the fix starts) or rejects it with a comment; the requester may only withdraw their own.
 *
 * `loading` → `ready` or `failed` ('Failed to load remediation requests. Please try again.'; `requests.retryRequested`).
 * `filter.changed` picks which requests are listed (pending by default, or every state, or one decided state) and
 * loads again. In `ready`:
 * - `idle`: the list; `decision.started` { id, kind } opens the decision form of a listed request when the member may
 *   take that decision (approve / reject: a pending request of someone else; withdraw: their own pending request);
 * - `editing`: the form's comment (`comment.changed`); `decision.submitted` sends it — a rejection needs a comment
 *   ('Please say why the request is rejected') — and `decision.canceled` closes it;
 * - `submitting`: the decision is sent; done → the list is read again (success toast with the server's message);
 *   failed → back to the form with the failure's message (also toasted), e.g. 'This request has expired'.
 *
 * Events accepted:
 * - `requests.retryRequested` — the user pressed Try again after the list failed to load.
 * - `filter.changed` { filter } — the user chose which requests to list.
 * - `decision.started` { id, kind } — the user pressed Approve, Reject or Withdraw on a listed request.
 * - `comment.changed` { value } — the user typed in the decision's comment.
 * - `decision.submitted` — the user confirmed the decision.
 * - `decision.canceled` — the user closed the decision form.
 */
import { assertEvent, assign, fromPromise, setup } from "xstate"
import {
  ApprovalMessages,
  canDecide,
  canWithdraw,
  type RemediationRequest,
  type RemediationRequestId,
  type RequestState,
} from "../contracts/remediation-requests.ts"
import { errorOf, outputOf } from "./actor-output.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"
import { notProvided } from "./building-blocks.ts"
import type { Decided, DecisionInput, DecisionKind } from "./approvals-effects.ts"

/** Which requests the inbox lists: one state, or every state ("all"). */
export type InboxFilter = RequestState | "all"
export const INBOX_FILTERS: ReadonlyArray<InboxFilter> = ["pending", "all", "approved", "rejected", "expired", "cancelled"]

export const statesOf = (filter: InboxFilter): ReadonlyArray<RequestState> => (filter === "all" ? [] : [filter])

/** Whether the member may take `kind` on the request. */
export const mayTake = (request: Pick<RemediationRequest, "state" | "requested_by_you">, kind: DecisionKind): boolean =>
  kind === "withdraw" ? canWithdraw(request) : canDecide(request)

export interface DecisionDraft {
  readonly id: RemediationRequestId
  readonly kind: DecisionKind
  readonly comment: string
  readonly error: string | null
}

export interface ApprovalsInboxInput {
  /** The request a mail linked to (`?request=`), shown first and highlighted. */
  readonly focusId?: number | null
}

export interface ApprovalsInboxContext {
  readonly focusId: number | null
  readonly filter: InboxFilter
  readonly requests: ReadonlyArray<RemediationRequest>
  readonly loadError: string | null
  readonly draft: DecisionDraft | null
}

export type ApprovalsInboxEvent =
  | { readonly type: "requests.retryRequested" }
  | { readonly type: "filter.changed"; readonly filter: InboxFilter }
  | { readonly type: "decision.started"; readonly id: number; readonly kind: DecisionKind }
  | { readonly type: "comment.changed"; readonly value: string }
  | { readonly type: "decision.submitted" }
  | { readonly type: "decision.canceled" }

/** The decision as sent: the comment trimmed, empty → null. */
export const decisionInputOf = (draft: DecisionDraft): DecisionInput => {
  const comment = draft.comment.trim()
  return { id: draft.id, kind: draft.kind, comment: comment === "" ? null : comment }
}

/** The focused request first, the rest in the server's order (newest first). */
export const orderedRequests = (requests: ReadonlyArray<RemediationRequest>, focusId: number | null): ReadonlyArray<RemediationRequest> =>
  focusId === null ? requests : [...requests.filter((r) => r.id === focusId), ...requests.filter((r) => r.id !== focusId)]

export const approvalsInboxMachine = setup({
  types: {
    context: {} as ApprovalsInboxContext,
    events: {} as ApprovalsInboxEvent,
    input: {} as ApprovalsInboxInput,
  },
  actors: {
    /** GET the requests of the chosen states. */
    listRequests: fromPromise<ReadonlyArray<RemediationRequest>, { readonly states: ReadonlyArray<RequestState> }>(notProvided("listRequests")),
    /** POST the decision; answers the server's message and the request as decided. */
    decide: fromPromise<Decided, DecisionInput>(notProvided("decide")),
  },
  guards: {
    /** The request is listed and the member may take this decision on it. */
    mayDecide: ({ context, event }) => {
      assertEvent(event, "decision.started")
      const request = context.requests.find((r) => r.id === event.id)
      return request !== undefined && mayTake(request, event.kind)
    },
    /** The decision can be sent: a rejection carries a comment. */
    isCommentValid: ({ context }) => context.draft !== null && (context.draft.kind !== "reject" || context.draft.comment.trim() !== ""),
    /** Another filter than the one shown. */
    isOtherFilter: ({ context, event }) => {
      assertEvent(event, "filter.changed")
      return event.filter !== context.filter
    },
  },
  actions: {
    /** Environment: a toast. */
    notify: (_, _params: NotifyParams) => {},
    assignRequests: assign({ requests: ({ event }) => outputOf<ReadonlyArray<RemediationRequest>>(event), loadError: null }),
    assignLoadError: assign({ loadError: ({ event }) => toFailure(errorOf(event), ApprovalMessages.loadFailed).message }),
    assignFilter: assign({
      filter: ({ event }) => {
        assertEvent(event, "filter.changed")
        return event.filter
      },
    }),
    startDraft: assign({
      draft: ({ event }) => {
        assertEvent(event, "decision.started")
        return { id: event.id as RemediationRequestId, kind: event.kind, comment: "", error: null }
      },
    }),
    assignComment: assign({
      draft: ({ context, event }) => {
        assertEvent(event, "comment.changed")
        return context.draft === null ? null : { ...context.draft, comment: event.value, error: null }
      },
    }),
    requireComment: assign({
      draft: ({ context }) => (context.draft === null ? null : { ...context.draft, error: ApprovalMessages.rejectCommentRequired }),
    }),
    assignDecideError: assign({
      draft: ({ context, event }) =>
        context.draft === null ? null : { ...context.draft, error: toFailure(errorOf(event), ApprovalMessages.decideFailed).message },
    }),
    dropDraft: assign({ draft: null }),
  },
}).createMachine({
  id: "approvalsInbox",
  context: ({ input }) => ({ focusId: input.focusId ?? null, filter: "pending", requests: [], loadError: null, draft: null }),
  initial: "loading",
  states: {
    loading: {
      description: "The requests of the chosen filter are being read.",
      invoke: {
        id: "listRequests",
        src: "listRequests",
        input: ({ context }) => ({ states: statesOf(context.filter) }),
        /** The requests arrived: the list shows them, the mailed one first. */
        onDone: { target: "ready", actions: "assignRequests" },
        /** The list could not be read: the failure's message (by default 'Failed to load remediation requests. Please try again.') with Try again. */
        onError: { target: "failed", actions: "assignLoadError" },
      },
    },
    failed: {
      description: "The requests could not be loaded: the error is shown with Try again and the filter.",
      on: {
        "requests.retryRequested": "loading",
        "filter.changed": { target: "loading", actions: "assignFilter" },
      },
    },
    ready: {
      description: "The list of requests, each with what it would change, who asked and why, and the decisions the member may take.",
      initial: "idle",
      states: {
        idle: {
          description: "No decision form is open.",
          on: {
            "filter.changed": { guard: "isOtherFilter", target: "#approvalsInbox.loading", actions: "assignFilter" },
            "decision.started": { guard: "mayDecide", target: "editing", actions: "startDraft" },
          },
        },
        editing: {
          description: "The decision form of one request is open: its comment (required to reject), Confirm and Cancel.",
          on: {
            "comment.changed": { actions: "assignComment" },
            "decision.submitted": [{ guard: "isCommentValid", target: "submitting" }, { actions: "requireComment" }],
            "decision.canceled": { target: "idle", actions: "dropDraft" },
          },
        },
        submitting: {
          description: "The decision is being sent; the form cannot change meanwhile.",
          invoke: {
            id: "decide",
            src: "decide",
            input: ({ context }) => decisionInputOf(context.draft!),
            /** Decided: a success toast with the server's message, and the list is read again. */
            onDone: {
              target: "#approvalsInbox.loading",
              actions: ["dropDraft", { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output.message }) }],
            },
            /** Refused or failed: the form shows why (e.g. 'This request has expired'), also as an error toast. */
            onError: {
              target: "editing",
              actions: ["assignDecideError", { type: "notify", params: ({ event }) => ({ kind: "error", message: toFailure(event.error, ApprovalMessages.decideFailed).message }) }],
            },
          },
        },
      },
    },
  },
})
