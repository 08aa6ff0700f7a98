/**
 * The edit-member dialog and the 'Change role' dialog (access §2 "Edit team member dialog", §5 "Team edit", §6 "Only
 * the owner may change a member's role, and not the owner's", §7 `PUT /api/team-member`, §8 'Failed to update team
 * member').
 *
 * Invoked by the team-members machine while the dialog is open; final when it closes. Input: the member, the mode
 * (`edit`: first name, last name, email read-only, role select hidden for the owner's row; `role`: the role select
 * only) and whether the current user may change roles (the workspace owner).
 *
 * Events accepted:
 * - `field.changed` { field: first_name | last_name, value } — the user typed in a name field; that field's error clears.
 * - `role.selected` { roleId } — the user picked a role (only where the role can be changed).
 * - `form.submitted` — the user pressed the dialog's save button: a valid form is saved, otherwise the field errors show.
 * - `dialog.closed` — the user cancelled or closed the dialog (refused while saving).
 * - `roles.retryRequested` — the user asked to load the roles again after they failed to load.
 * - `xstate.done.actor.loadRoles` — the workspace's roles arrived: the role picker offers them.
 * - `xstate.error.actor.loadRoles` — the roles could not be loaded: the role picker shows the error.
 *
 * A role must be chosen where the role can be changed ('Please select a valid role'); elsewhere the member's current
 * role is sent back unchanged, so editing names never touches the role. Default roles only (`loadRoles`). Success
 * toasts the server's confirmation and closes (the list refreshes through the cache); a failure toasts the §8 text
 * and keeps the form. The dialog cannot be closed while saving.
 */
import { assertEvent, assign, fromPromise, setup } from "xstate"
import { TeamFailureMessages } from "../contracts/messages.ts"
import {
  type TeamMember,
  type UpdateTeamMemberPayload,
  type UpdateTeamMemberResponse,
  UpdateTeamMemberPayload as UpdateTeamMemberPayloadSchema,
  validateTeamEdit,
} from "../contracts/team.ts"
import type { FieldErrors } from "../contracts/validation.ts"
import { Schema } from "effect"
import { toFailure, type NotifyParams } from "./auth-effects.ts"
import { errorOf } from "./actor-output.ts"
import { failedBackToEditing, loadRolesActor, type MemberDialogEvent, rolesFailed, rolesLoaded, type RolesPicker, rolesRegion, submitIfValid } from "./building-blocks.ts"

export type EditMemberMode = "edit" | "role"
export type EditMemberField = "first_name" | "last_name"

export interface EditMemberInput {
  readonly member: TeamMember
  readonly mode: EditMemberMode
  /** The current user is the workspace owner (only the owner changes roles). */
  readonly canChangeRole: boolean
}

export interface EditMemberValues {
  readonly first_name: string
  readonly last_name: string
  readonly role_id: number | null
  /** True while the role is the member's current custom role (never offered, but kept when untouched). */
  readonly is_custom_role: boolean
}

export interface EditMemberContext extends RolesPicker {
  readonly member: TeamMember
  readonly mode: EditMemberMode
  /** The role select is shown and enabled: not the owner's row, and the current user is the owner. */
  readonly roleEditable: boolean
  readonly values: EditMemberValues
  readonly fieldErrors: FieldErrors
  readonly error: string | undefined
}

export type EditMemberEvent = MemberDialogEvent<EditMemberField>

/** The form as the contract validates it (names trimmed; no role key when none is set). */
export const editMemberInput = (member: TeamMember, v: EditMemberValues): Record<string, unknown> => ({
  user_id: member.id,
  first_name: v.first_name.trim(),
  last_name: v.last_name.trim(),
  ...(v.role_id === null ? {} : { role_id: v.role_id }),
  is_custom_role: v.is_custom_role,
})

const validate = (c: Pick<EditMemberContext, "member" | "values" | "roleEditable">): FieldErrors =>
  validateTeamEdit(editMemberInput(c.member, c.values), { isOwnerRow: !c.roleEditable })

const decodePayload = Schema.decodeUnknownSync(UpdateTeamMemberPayloadSchema)

export const editMemberMachine = setup({
  types: {
    context: {} as EditMemberContext,
    events: {} as EditMemberEvent,
    input: {} as EditMemberInput,
  },
  actors: {
    /** Loads the workspace's roles for the role picker. */
    loadRoles: loadRolesActor,
    /** Saves the member (PUT /api/team-member). */
    updateMember: fromPromise<UpdateTeamMemberResponse, UpdateTeamMemberPayload>(async () => {
      throw new Error("updateMember is not provided")
    }),
  },
  guards: {
    /** The values pass `validateTeamEdit` (a role is required where it can be changed). */
    isFormValid: ({ context }) => Object.keys(validate(context)).length === 0,
    /** The current user may change roles and the member is not the owner. */
    isRoleEditable: ({ context }) => context.roleEditable,
  },
  actions: {
    /** Environment: a toast (supplied at the React boundary). */
    notify: (_, _params: NotifyParams) => {},
    assignField: assign(({ context, event }) => {
      assertEvent(event, "field.changed")
      const { [event.field]: _cleared, ...fieldErrors } = context.fieldErrors
      return { values: { ...context.values, [event.field]: event.value }, fieldErrors }
    }),
    assignRole: assign(({ context, event }) => {
      assertEvent(event, "role.selected")
      const { role_id: _cleared, ...fieldErrors } = context.fieldErrors
      return { values: { ...context.values, role_id: event.roleId, is_custom_role: false }, fieldErrors }
    }),
    showFieldErrors: assign({ fieldErrors: ({ context }) => validate(context) }),
    clearError: assign({ error: undefined }),
    assignError: assign({ error: ({ event }) => toFailure(errorOf(event), TeamFailureMessages.updateMember).message }),
    assignRoles: assign(rolesLoaded),
    assignRolesError: assign(rolesFailed),
  },
}).createMachine({
  id: "editMember",
  context: ({ input }) => {
    const { member } = input
    return {
      member,
      mode: input.mode,
      roleEditable: input.canChangeRole && !member.is_owner,
      values: {
        first_name: member.first_name,
        last_name: member.last_name,
        role_id: member.role_id ?? null,
        is_custom_role: member.role_id === undefined || member.role_id === null ? false : member.is_custom_role === true,
      },
      fieldErrors: {},
      error: undefined,
      roles: [],
      rolesError: undefined,
    }
  },
  initial: "open",
  states: {
    open: {
      description: "The edit-member (or 'Change role') dialog is open: the workspace's roles load beside the form.",
      type: "parallel",
      states: {
        /** The default roles for the role picker. */
        roles: rolesRegion,
        form: {
          description: "The member's form (names, or only the role in 'Change role' mode) and its saving.",
          initial: "editing",
          states: {
            editing: {
              description: "The user edits the member's names or role; saving validates first.",
              on: {
                "field.changed": { actions: "assignField" },
                "role.selected": { guard: "isRoleEditable", actions: "assignRole" },
                "form.submitted": submitIfValid("saving"),
                "dialog.closed": { target: "#editMember.closed" },
              },
            },
            saving: {
              description: "The member's changes are being saved; the dialog cannot be closed meanwhile.",
              invoke: {
                id: "updateMember",
                src: "updateMember",
                input: ({ context }) => decodePayload(editMemberInput(context.member, context.values)),
                /** Saved: the server's confirmation toasts and the dialog closes. */
                onDone: {
                  target: "#editMember.closed",
                  actions: {
                    type: "notify",
                    params: ({ event }) => ({ kind: "success", message: event.output.message }),
                  },
                },
                /** The call failed: back to the form with the error shown and toasted ('Failed to update team member' unless the server said more). */
                onError: failedBackToEditing(TeamFailureMessages.updateMember),
              },
            },
          },
        },
      },
    },
    closed: { description: "The dialog closed (cancelled or saved); the team-members machine takes over again.", type: "final" },
  },
})

