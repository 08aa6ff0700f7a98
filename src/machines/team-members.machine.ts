/**
 * The 'Team members' card of /dashboard/users (access §2 "User Management": team table, row action menu, add / edit /
 * delete dialogs; §4 "Team member deletion removes the member from the list optimistically and restores it on
 * error"; §6 owner rules; §8 team toasts).
 *
 * Parallel regions:
 * - `list`: watches the cached members query (`watchMembers`, stale after 5 minutes; mutations refresh it). While the
 *   first load runs the table shows 5 skeleton rows; a failure toasts 'Failed to load team members' (or the error's
 *   own message) and offers `members.retryRequested`.
 * - `viewer`: who is looking (`loadViewer`: current workspace info — is_owner, user_id), for the row rules.
 * - `dialog`: none | adding (`addMember` child) | editing (`editMember` child, mode edit or role) | confirmingDelete.
 * - `passwordReset`: idle | sending (`sendPasswordReset`: the member's password-reset email).
 *
 * Row rules (guards; the view asks `snapshot.can(...)` per row): Edit and Reset password always; Change role only when
 * the current user is the owner and the row is not the owner's (`canChangeRole`); Delete never on one's own row — nor
 * on the owner's, which the server refuses anyway (`canDelete`).
 *
 * Deletion: `delete.confirmed` hides the row at once and spawns a `deleteMember` child per deletion (several may run);
 * `member.deleteSucceeded` drops the row for good and toasts 'Team member deleted successfully';
 * `member.deleteFailed` puts the row back where it was and toasts the error. Rows still being deleted stay hidden when
 * a refreshed list arrives.
 *
 * Events accepted:
 * - `members.loading` — the members query started fetching (reported by `watchMembers`); after a failure the table goes back to loading.
 * - `members.loaded` { members } — the members query delivered the list (first load or a refresh); rows still being deleted stay hidden.
 * - `members.failed` { error } — the members query failed: a toast says so.
 * - `members.retryRequested` — the user pressed 'Try again' after the list (or the viewer's workspace info) failed to load.
 * - `member.addRequested` — the user pressed the add-member button: opens the add dialog.
 * - `member.editRequested` { memberId } — the user chose Edit in a row's action menu: opens the edit dialog for that member.
 * - `member.roleChangeRequested` { memberId } — the user chose Change role in a row's action menu: opens the edit dialog in role mode (owner only, never on the owner's row).
 * - `member.deleteRequested` { memberId } — the user chose Delete in a row's action menu: asks to confirm (never on one's own or the owner's row).
 * - `delete.confirmed` — the user confirmed the deletion: the row is hidden and a `deleteMember` child deletes it.
 * - `delete.cancelled` — the user closed the delete confirmation without deleting.
 * - `member.passwordResetRequested` { memberId } — the user chose Reset password in a row's action menu: sends the member a password-reset email.
 * - `member.deleteSucceeded` { memberId } — reported by a `deleteMember` child: the member is gone; the row is dropped and a success toast shows.
 * - `member.deleteFailed` { memberId, message } — reported by a `deleteMember` child: the deletion failed; the row comes back in its place and the error is toasted.
 */
import { assertEvent, assign, fromCallback, fromPromise, setup, spawnChild } from "xstate"
import type { UserId } from "../contracts/ids.ts"
import { OtherMessages, SuccessMessages, TeamFailureMessages } from "../contracts/messages.ts"
import type { MemberPasswordResetPayload, TeamMember } from "../contracts/team.ts"
import type { OkMessage } from "../contracts/common.ts"
import type { WorkspaceInfoResponse } from "../contracts/workspaces.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"
import { addMemberMachine } from "./add-member.machine.ts"
import { deleteMemberMachine, type DeleteMemberReport } from "./delete-member.machine.ts"
import { editMemberMachine, type EditMemberMode } from "./edit-member.machine.ts"
import type { QueryPhase } from "./team-effects.ts"
import { errorOf } from "./actor-output.ts"

/** Who is looking at the table. */
export interface Viewer {
  readonly userId: UserId
  readonly isOwner: boolean
  /** Shown under a member's email when the member has no name (access §2: "email or workspace name beneath"). */
  readonly workspaceName: string
}

export interface TeamMembersContext {
  /** The members as last loaded, with confirmed deletions applied. */
  readonly rows: ReadonlyArray<TeamMember>
  /** Deletions confirmed but not yet answered: hidden from `members`. */
  readonly pendingDeletes: ReadonlyArray<UserId>
  /** What the table shows: `rows` without `pendingDeletes`, in server order. */
  readonly members: ReadonlyArray<TeamMember>
  readonly viewer: Viewer | null
  readonly deleteCandidate: TeamMember | null
  readonly editRequest: { readonly member: TeamMember; readonly mode: EditMemberMode } | null
  readonly resetTarget: TeamMember | null
}

export type TeamMembersEvent =
  | { readonly type: "members.loading" }
  | { readonly type: "members.loaded"; readonly members: ReadonlyArray<TeamMember> }
  | { readonly type: "members.failed"; readonly error: unknown }
  | { readonly type: "members.retryRequested" }
  | { readonly type: "member.addRequested" }
  | { readonly type: "member.editRequested"; readonly memberId: number }
  | { readonly type: "member.roleChangeRequested"; readonly memberId: number }
  | { readonly type: "member.deleteRequested"; readonly memberId: number }
  | { readonly type: "delete.confirmed" }
  | { readonly type: "delete.cancelled" }
  | { readonly type: "member.passwordResetRequested"; readonly memberId: number }
  | DeleteMemberReport

/** The event a members-query phase becomes (see `queryWatcher`). */
export const membersEventOf = (phase: QueryPhase<ReadonlyArray<TeamMember>>): TeamMembersEvent =>
  phase.kind === "loaded"
    ? { type: "members.loaded", members: phase.data }
    : phase.kind === "failed"
      ? { type: "members.failed", error: phase.error }
      : { type: "members.loading" }

const visible = (rows: ReadonlyArray<TeamMember>, pending: ReadonlyArray<UserId>): ReadonlyArray<TeamMember> =>
  pending.length === 0 ? rows : rows.filter((r) => !pending.includes(r.id))

const memberIdOf = (event: unknown): number | undefined => {
  const id = (event as { memberId?: unknown }).memberId
  return typeof id === "number" ? id : undefined
}

const findMember = (context: TeamMembersContext, event: unknown): TeamMember | undefined => {
  const id = memberIdOf(event)
  return id === undefined ? undefined : context.members.find((m) => m.id === id)
}

/** Access §6: only the owner changes roles, and never the owner's. */
export const mayChangeRole = (viewer: Viewer | null, member: TeamMember): boolean =>
  viewer !== null && viewer.isOwner && !member.is_owner

/** Access §6: nobody deletes their own row (and the owner's row cannot be deleted). */
export const mayDelete = (viewer: Viewer | null, member: TeamMember): boolean =>
  viewer !== null && member.id !== viewer.userId && !member.is_owner

export const teamMembersMachine = setup({
  types: {
    context: {} as TeamMembersContext,
    events: {} as TeamMembersEvent,
  },
  actors: {
    /** Environment: reports the members query as `members.*` events (`queryWatcher(effects.watchTeamMembers, …)`). */
    watchMembers: fromCallback(() => () => {}),
    /** Loads the current workspace info (the viewer's user id, whether they own the workspace, the workspace name). */
    loadViewer: fromPromise<WorkspaceInfoResponse, void>(async () => {
      throw new Error("loadViewer is not provided")
    }),
    /** Sends the chosen member a password-reset email. */
    sendPasswordReset: fromPromise<OkMessage, MemberPasswordResetPayload>(async () => {
      throw new Error("sendPasswordReset is not provided")
    }),
    /** The 'Add team member' dialog (add-member machine); done when the dialog closes. */
    addMember: addMemberMachine,
    /** The edit / 'Change role' dialog (edit-member machine); done when the dialog closes. */
    editMember: editMemberMachine,
    /** One deletion in flight (delete-member machine, spawned per confirmed deletion); reports `member.deleteSucceeded` or `member.deleteFailed`. */
    deleteMember: deleteMemberMachine,
  },
  guards: {
    /** The event's member is in the table. */
    memberExists: ({ context, event }) => findMember(context, event) !== undefined,
    /** The event's member is in the table, the viewer owns the workspace and the member is not the owner. */
    canChangeRole: ({ context, event }) => {
      const member = findMember(context, event)
      return member !== undefined && mayChangeRole(context.viewer, member)
    },
    /** The event's member is in the table and is neither the viewer nor the owner. */
    canDelete: ({ context, event }) => {
      const member = findMember(context, event)
      return member !== undefined && mayDelete(context.viewer, member)
    },
  },
  actions: {
    /** Environment: a toast (supplied at the React boundary). */
    notify: (_, _params: NotifyParams) => {},
    /** Environment: fetch the members again now ('Try again'). */
    refetchMembers: () => {},
    assignRows: assign(({ context, event }) => {
      assertEvent(event, "members.loaded")
      return { rows: event.members, members: visible(event.members, context.pendingDeletes) }
    }),
    assignViewer: assign({
      viewer: ({ event }) => {
        const info = (event as { output?: WorkspaceInfoResponse }).output
        return info === undefined ? null : { userId: info.user_id, isOwner: info.is_owner, workspaceName: info.workspace_name }
      },
    }),
    assignEditRequest: assign({
      editRequest: ({ context, event }): TeamMembersContext["editRequest"] => {
        const member = findMember(context, event)
        if (member === undefined) return null
        return { member, mode: event.type === "member.roleChangeRequested" ? "role" : "edit" }
      },
    }),
    clearEditRequest: assign({ editRequest: null }),
    assignDeleteCandidate: assign({ deleteCandidate: ({ context, event }) => findMember(context, event) ?? null }),
    clearDeleteCandidate: assign({ deleteCandidate: null }),
    /** Access §4: the row disappears as soon as the deletion is confirmed. */
    hideDeletedRow: assign(({ context }) => {
      const id = context.deleteCandidate?.id
      if (id === undefined || context.pendingDeletes.includes(id)) return {}
      const pendingDeletes = [...context.pendingDeletes, id]
      return { pendingDeletes, members: visible(context.rows, pendingDeletes) }
    }),
    spawnDeletion: spawnChild("deleteMember", {
      id: ({ context }) => `deleteMember-${context.deleteCandidate?.id ?? "none"}`,
      input: ({ context }) => ({ memberId: context.deleteCandidate!.id }),
    }),
    dropDeletedRow: assign(({ context, event }) => {
      assertEvent(event, "member.deleteSucceeded")
      const rows = context.rows.filter((r) => r.id !== event.memberId)
      const pendingDeletes = context.pendingDeletes.filter((id) => id !== event.memberId)
      return { rows, pendingDeletes, members: visible(rows, pendingDeletes) }
    }),
    /** Access §4: restored on error, in its place. */
    restoreRow: assign(({ context, event }) => {
      assertEvent(event, "member.deleteFailed")
      const pendingDeletes = context.pendingDeletes.filter((id) => id !== event.memberId)
      return { pendingDeletes, members: visible(context.rows, pendingDeletes) }
    }),
    assignResetTarget: assign({ resetTarget: ({ context, event }) => findMember(context, event) ?? null }),
    clearResetTarget: assign({ resetTarget: null }),
  },
}).createMachine({
  id: "teamMembers",
  context: {
    rows: [],
    pendingDeletes: [],
    members: [],
    viewer: null,
    deleteCandidate: null,
    editRequest: null,
    resetTarget: null,
  },
  type: "parallel",
  on: {
    "member.deleteSucceeded": {
      actions: ["dropDeletedRow", { type: "notify", params: { kind: "success", message: SuccessMessages.teamMemberDeleted } }],
    },
    "member.deleteFailed": {
      actions: ["restoreRow", { type: "notify", params: ({ event }) => ({ kind: "error", message: event.message }) }],
    },
  },
  states: {
    list: {
      description: "The members table, fed by the cached members query.",
      invoke: { id: "watchMembers", src: "watchMembers" },
      initial: "loading",
      states: {
        loading: {
          description: "The members are being loaded (the first load, or again after a failure); while the first load runs the table shows 5 skeleton rows.",
          on: {
            "members.loaded": { target: "ready", actions: "assignRows" },
            "members.failed": {
              target: "failed",
              actions: {
                type: "notify",
                params: ({ event }) => ({ kind: "error", message: toFailure(event.error, TeamFailureMessages.loadTeamMembers).message }),
              },
            },
          },
        },
        ready: {
          description: "The members table is shown; background refreshes update it.",
          on: {
            "members.loaded": { actions: "assignRows" },
            // A background refresh failed: keep the rows, say so.
            "members.failed": {
              actions: {
                type: "notify",
                params: ({ event }) => ({ kind: "error", message: toFailure(event.error, TeamFailureMessages.loadTeamMembers).message }),
              },
            },
          },
        },
        failed: {
          description: "The members could not be loaded: an error was toasted and the card offers 'Try again'.",
          on: {
            "members.retryRequested": { target: "loading", actions: "refetchMembers" },
            "members.loading": { target: "loading" },
            "members.loaded": { target: "ready", actions: "assignRows" },
          },
        },
      },
    },
    viewer: {
      description: "Who is looking at the table (their user id and whether they own the workspace), used for the row rules.",
      initial: "loading",
      states: {
        loading: {
          description: "The current user's workspace info is being fetched.",
          invoke: {
            id: "loadViewer",
            src: "loadViewer",
            /** The workspace info arrived: the row rules use it. */
            onDone: { target: "ready", actions: "assignViewer" },
            /** The workspace info could not be fetched: owner-only and not-yourself actions stay hidden. */
            onError: { target: "unavailable" },
          },
        },
        ready: { description: "The current user is known: the row action menus offer what they may do." },
        /** Without it the owner-only and not-yourself actions stay hidden. */
        unavailable: {
          on: { "members.retryRequested": { target: "loading" } },
        },
      },
    },
    dialog: {
      description: "Which dialog of the card is open, if any.",
      initial: "none",
      states: {
        none: {
          description: "No dialog is open; the table's buttons and row action menus can open one.",
          on: {
            "member.addRequested": { target: "adding" },
            "member.editRequested": { guard: "memberExists", target: "editing", actions: "assignEditRequest" },
            "member.roleChangeRequested": { guard: "canChangeRole", target: "editing", actions: "assignEditRequest" },
            "member.deleteRequested": { guard: "canDelete", target: "confirmingDelete", actions: "assignDeleteCandidate" },
          },
        },
        adding: {
          description: "The add-member dialog is open (run by the `addMember` child).",
          invoke: { id: "addMember", src: "addMember", /** The add-member dialog closed (member added or dialog dismissed). */ onDone: { target: "none" } },
        },
        editing: {
          description: "The edit dialog is open for one member, to edit their details or (owner only) change their role (run by the `editMember` child).",
          invoke: {
            id: "editMember",
            src: "editMember",
            input: ({ context }) => ({
              member: context.editRequest!.member,
              mode: context.editRequest!.mode,
              canChangeRole: mayChangeRole(context.viewer, context.editRequest!.member),
            }),
            /** The edit dialog closed (saved or dismissed). */
            onDone: { target: "none", actions: "clearEditRequest" },
          },
        },
        confirmingDelete: {
          description: "The delete confirmation dialog is open for one member.",
          on: {
            "delete.confirmed": { target: "none", actions: ["hideDeletedRow", "spawnDeletion", "clearDeleteCandidate"] },
            "delete.cancelled": { target: "none", actions: "clearDeleteCandidate" },
          },
        },
      },
    },
    passwordReset: {
      description: "Sending a member a password-reset email from their row's action menu.",
      initial: "idle",
      states: {
        idle: {
          description: "No password-reset email is being sent.",
          on: {
            "member.passwordResetRequested": { guard: "memberExists", target: "sending", actions: "assignResetTarget" },
          },
        },
        sending: {
          description: "The chosen member's password-reset email is being sent.",
          invoke: {
            id: "sendPasswordReset",
            src: "sendPasswordReset",
            input: ({ context }) => ({ email: context.resetTarget!.email }),
            /** The email was sent: a success toast says so. */
            onDone: {
              target: "idle",
              actions: [
                "clearResetTarget",
                { type: "notify", params: { kind: "success", message: SuccessMessages.passwordResetEmailSent } },
              ],
            },
            /** The email could not be sent: an error toast says so. */
            onError: {
              target: "idle",
              actions: [
                "clearResetTarget",
                {
                  type: "notify",
                  params: ({ event }) => ({ kind: "error", message: toFailure(errorOf(event), OtherMessages.forgotFailed).message }),
                },
              ],
            },
          },
        },
      },
    },
  },
})
