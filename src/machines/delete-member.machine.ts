/**
 * One team-member deletion in flight (access §2 delete confirmation, §4 "Team member deletion removes the member from
 * the list optimistically and restores it on error", §7 `DELETE /api/admin/users?user_to_delete=…`).
 *
 * Spawned by the team-members machine once the deletion is confirmed (the row is already hidden); several may run at
 * once. It makes the call and reports to its parent — `member.deleteSucceeded` { memberId } or `member.deleteFailed`
 * { memberId, message } with the §8 text ('Failed to delete team member' unless the server said more) — then stops.
 * The parent toasts and restores the row on failure.
 */
import { fromPromise, sendParent, setup } from "xstate"
import type { OkMessage } from "../contracts/common.ts"
import type { UserId } from "../contracts/ids.ts"
import { TeamFailureMessages } from "../contracts/messages.ts"
import { toFailure } from "./auth-effects.ts"

export interface DeleteMemberInput {
  readonly memberId: UserId
}

export interface DeleteMemberContext {
  readonly memberId: UserId
}

/** What the parent receives. */
export type DeleteMemberReport =
  | { readonly type: "member.deleteSucceeded"; readonly memberId: UserId }
  | { readonly type: "member.deleteFailed"; readonly memberId: UserId; readonly message: string }

export const deleteMemberMachine = setup({
  types: {
    context: {} as DeleteMemberContext,
    input: {} as DeleteMemberInput,
  },
  actors: {
    /** Deletes the member (DELETE /api/admin/users?user_to_delete=…). */
    deleteMember: fromPromise<OkMessage, { readonly user_to_delete: UserId }>(async () => {
      throw new Error("deleteMember is not provided")
    }),
  },
  actions: {
    reportSuccess: sendParent(({ context }): DeleteMemberReport => ({ type: "member.deleteSucceeded", memberId: context.memberId })),
    reportFailure: sendParent(({ context, event }): DeleteMemberReport => ({
      type: "member.deleteFailed",
      memberId: context.memberId,
      message: toFailure((event as { error?: unknown }).error, TeamFailureMessages.deleteMember).message,
    })),
  },
}).createMachine({
  id: "deleteMember",
  context: ({ input }) => ({ memberId: input.memberId }),
  initial: "deleting",
  states: {
    deleting: {
      description: "The member's deletion is being sent to the server (their row is already hidden from the table).",
      invoke: {
        id: "deleteMember",
        src: "deleteMember",
        input: ({ context }) => ({ user_to_delete: context.memberId }),
        /** Deleted: reports `member.deleteSucceeded` to the team-members machine, which drops the row and toasts. */
        onDone: { target: "deleted", actions: "reportSuccess" },
        /** The deletion failed: reports `member.deleteFailed` with the §8 text, so the team-members machine restores the row and toasts the error. */
        onError: { target: "failed", actions: "reportFailure" },
      },
    },
    deleted: { description: "The member was deleted and the parent told; the child stops.", type: "final" },
    failed: { description: "The deletion failed and the parent told; the child stops.", type: "final" },
  },
})
