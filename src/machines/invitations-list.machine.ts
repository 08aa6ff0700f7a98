/**
 * The 'Pending invitations' card of /dashboard/users (access §2 "Pending invitations card", §4 "Invitation status" and
 * "Invitation link", §7 list / resend / cancel, §8 'Failed to load invitations', 'Invitation resent …', 'Invitation
 * canceled …', 'Failed to resend invitation', 'Failed to cancel invitation').
 *
 * Parallel regions:
 * - `list`: watches the cached invitations query (`watchInvitations`, stale after 30 s, no retry on 4xx; the invite
 *   modal's success refreshes it). First load: 3 skeleton rows. Failure: 'Failed to load invitations' with
 *   `invitations.retryRequested` ('Try again').
 * - `resend`: idle | sending — `invitation.resendRequested` { invitationId }, only for a pending invitation.
 * - `cancel`: idle | confirming | canceling — `invitation.cancelRequested` { invitationId } (pending only) opens the
 *   confirmation ('Are you sure you want to cancel the invitation to {email}? This action cannot be undone.');
 *   `cancel.confirmed` calls, `cancel.dismissed` closes (refused while the call runs).
 * 'pending' is the only status that permits resend or cancel (`canResendOrCancel`), and the only one shown: accepted,
 * expired and cancelled invitations leave the list (an accepted invitee appears among the team members instead).
 *
 * Events accepted:
 * - `invitations.loading` — the invitations query started fetching (reported by `watchInvitations`); after a failure the card goes back to loading.
 * - `invitations.loaded` { invitations } — the invitations query delivered the pending invitations (first load or a refresh).
 * - `invitations.failed` { error } — the invitations query failed: the card shows the error with 'Try again'.
 * - `invitations.retryRequested` — the user pressed 'Try again' after the invitations failed to load.
 * - `invitation.resendRequested` { invitationId } — the user chose Resend on an invitation; only a pending one is resent, one at a time.
 * - `invitation.cancelRequested` { invitationId } — the user chose Cancel on an invitation; only a pending one opens the confirmation.
 * - `cancel.confirmed` — the user confirmed the cancellation in the dialog: the invitation is cancelled on the server.
 * - `cancel.dismissed` — the user closed the cancel confirmation without cancelling.
 */
import { assertEvent, assign, fromCallback, fromPromise, setup } from "xstate"
import type { OkMessage } from "../contracts/common.ts"
import type { InvitationId } from "../contracts/ids.ts"
import { canResendOrCancel, type Invitation, type ResendInvitationResponse } from "../contracts/invitations.ts"
import { invitationCanceledMessage, invitationResentMessage, TeamFailureMessages } from "../contracts/messages.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"
import type { QueryPhase } from "./team-effects.ts"
import { errorOf } from "./actor-output.ts"

export interface InvitationsListContext {
  /** The pending invitations, newest first (as the server orders them). */
  readonly invitations: ReadonlyArray<Invitation>
  /** The load failure (§8 'Failed to load invitations' unless the error says more). */
  readonly loadError: string | undefined
  readonly resendTarget: Invitation | null
  readonly cancelTarget: Invitation | null
}

export type InvitationsListEvent =
  | { readonly type: "invitations.loading" }
  | { readonly type: "invitations.loaded"; readonly invitations: ReadonlyArray<Invitation> }
  | { readonly type: "invitations.failed"; readonly error: unknown }
  | { readonly type: "invitations.retryRequested" }
  | { readonly type: "invitation.resendRequested"; readonly invitationId: number }
  | { readonly type: "invitation.cancelRequested"; readonly invitationId: number }
  | { readonly type: "cancel.confirmed" }
  | { readonly type: "cancel.dismissed" }

/** The event an invitations-query phase becomes (see `queryWatcher`). */
export const invitationsEventOf = (phase: QueryPhase<ReadonlyArray<Invitation>>): InvitationsListEvent =>
  phase.kind === "loaded"
    ? { type: "invitations.loaded", invitations: phase.data }
    : phase.kind === "failed"
      ? { type: "invitations.failed", error: phase.error }
      : { type: "invitations.loading" }

const findPending = (context: InvitationsListContext, event: unknown): Invitation | undefined => {
  const id = (event as { invitationId?: unknown }).invitationId
  const found = context.invitations.find((i) => i.id === id)
  return found !== undefined && canResendOrCancel(found.status) ? found : undefined
}

export const invitationsListMachine = setup({
  types: {
    context: {} as InvitationsListContext,
    events: {} as InvitationsListEvent,
  },
  actors: {
    /** Environment: reports the invitations query as `invitations.*` events (`queryWatcher`). */
    watchInvitations: fromCallback(() => () => {}),
    /** Resends the invitation's email. */
    resendInvitation: fromPromise<ResendInvitationResponse, { readonly invitation_id: InvitationId }>(async () => {
      throw new Error("resendInvitation is not provided")
    }),
    /** Cancels the invitation on the server. */
    cancelInvitation: fromPromise<OkMessage, { readonly id: InvitationId }>(async () => {
      throw new Error("cancelInvitation is not provided")
    }),
  },
  guards: {
    /** The event's invitation is listed and still pending (the only status that permits resend or cancel). */
    isPendingInvitation: ({ context, event }) => findPending(context, event) !== undefined,
  },
  actions: {
    /** Environment: a toast (supplied at the React boundary). */
    notify: (_, _params: NotifyParams) => {},
    /** Environment: fetch the invitations again now ('Try again'). */
    refetchInvitations: () => {},
    assignInvitations: assign(({ event }) => {
      assertEvent(event, "invitations.loaded")
      // Access §4: statuses other than pending are not shown (the card lists pending invitations).
      return { invitations: event.invitations.filter((i) => canResendOrCancel(i.status)), loadError: undefined }
    }),
    assignLoadError: assign({
      loadError: ({ event }) => {
        assertEvent(event, "invitations.failed")
        return toFailure(event.error, TeamFailureMessages.loadInvitations).message
      },
    }),
    assignResendTarget: assign({ resendTarget: ({ context, event }) => findPending(context, event) ?? null }),
    clearResendTarget: assign({ resendTarget: null }),
    assignCancelTarget: assign({ cancelTarget: ({ context, event }) => findPending(context, event) ?? null }),
    clearCancelTarget: assign({ cancelTarget: null }),
  },
}).createMachine({
  id: "invitationsList",
  context: { invitations: [], loadError: undefined, resendTarget: null, cancelTarget: null },
  type: "parallel",
  states: {
    list: {
      description: "The pending invitations table, fed by the cached invitations query.",
      invoke: { id: "watchInvitations", src: "watchInvitations" },
      initial: "loading",
      states: {
        loading: {
          description: "The invitations are being loaded (the first load, or again after a failure); while the first load runs the card shows 3 skeleton rows.",
          on: {
            "invitations.loaded": { target: "ready", actions: "assignInvitations" },
            "invitations.failed": { target: "failed", actions: "assignLoadError" },
          },
        },
        ready: {
          description: "The pending invitations are shown; background refreshes update them.",
          on: {
            "invitations.loaded": { actions: "assignInvitations" },
            "invitations.failed": { target: "failed", actions: "assignLoadError" },
          },
        },
        failed: {
          description: "The invitations could not be loaded: 'Failed to load invitations' (or the error's own message) with 'Try again'.",
          on: {
            "invitations.retryRequested": { target: "loading", actions: "refetchInvitations" },
            "invitations.loading": { target: "loading" },
            "invitations.loaded": { target: "ready", actions: "assignInvitations" },
          },
        },
      },
    },
    resend: {
      description: "Resending an invitation's email from its row.",
      initial: "idle",
      states: {
        idle: {
          description: "No invitation is being resent.",
          on: {
            "invitation.resendRequested": { guard: "isPendingInvitation", target: "sending", actions: "assignResendTarget" },
          },
        },
        sending: {
          description: "The chosen invitation is being resent.",
          invoke: {
            id: "resendInvitation",
            src: "resendInvitation",
            input: ({ context }) => ({ invitation_id: context.resendTarget!.id }),
            /** The invitation was resent: a success toast names its email. */
            onDone: {
              target: "idle",
              actions: [
                { type: "notify", params: ({ context }) => ({ kind: "success", message: invitationResentMessage(context.resendTarget!.email) }) },
                "clearResendTarget",
              ],
            },
            /** The resend failed: an error toast says so. */
            onError: {
              target: "idle",
              actions: [
                {
                  type: "notify",
                  params: ({ event }) => ({ kind: "error", message: toFailure(errorOf(event), TeamFailureMessages.resendInvitation).message }),
                },
                "clearResendTarget",
              ],
            },
          },
        },
      },
    },
    cancel: {
      description: "Cancelling an invitation from its row, after a confirmation.",
      initial: "idle",
      states: {
        idle: {
          description: "No cancellation is in progress.",
          on: {
            "invitation.cancelRequested": { guard: "isPendingInvitation", target: "confirming", actions: "assignCancelTarget" },
          },
        },
        confirming: {
          description: "The confirmation dialog asks whether to cancel the invitation to the chosen email (this cannot be undone).",
          on: {
            "cancel.confirmed": { target: "canceling" },
            "cancel.dismissed": { target: "idle", actions: "clearCancelTarget" },
          },
        },
        canceling: {
          description: "The chosen invitation is being cancelled on the server; the confirmation cannot be dismissed meanwhile.",
          invoke: {
            id: "cancelInvitation",
            src: "cancelInvitation",
            input: ({ context }) => ({ id: context.cancelTarget!.id }),
            /** The invitation was cancelled: a success toast names its email. */
            onDone: {
              target: "idle",
              actions: [
                { type: "notify", params: ({ context }) => ({ kind: "success", message: invitationCanceledMessage(context.cancelTarget!.email) }) },
                "clearCancelTarget",
              ],
            },
            /** The cancellation failed: an error toast says so. */
            onError: {
              target: "idle",
              actions: [
                {
                  type: "notify",
                  params: ({ event }) => ({ kind: "error", message: toFailure(errorOf(event), TeamFailureMessages.cancelInvitation).message }),
                },
                "clearCancelTarget",
              ],
            },
          },
        },
      },
    },
  },
})
