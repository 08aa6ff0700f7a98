/**
 * The 'Add team member' dialog (access §2 "Add team member dialog", §5 "Add user", §7 `POST /api/admin/users`, §8
 * 'Team member added successfully' / 'Failed to add team member').
 *
 * Invoked by the team-members machine while the dialog is open; it reaches its final state when the dialog closes
 * (cancelled or saved). Input: optional starting values. Fields: first name, last name, email, password (hint 'min. 8 characters'), role — default
 * roles only, loaded when the dialog opens (`loadRoles`, cached).
 *
 * Events accepted:
 * - `field.changed` { field, value } — the user typed in first name, last name, email or password; that field's error clears.
 * - `role.selected` { roleId } — the user picked a role.
 * - `form.submitted` — the user pressed the dialog's save button: a valid form is saved, otherwise the field errors show.
 * - `dialog.closed` — the user cancelled or closed the dialog (refused while saving).
 * - `roles.retryRequested` — the user asked to load the roles again after they failed to load.
 * - `xstate.done.actor.loadRoles` — the workspace's roles arrived: the role picker offers them.
 * - `xstate.error.actor.loadRoles` — the roles could not be loaded: the role picker shows the error.
 *
 * Submitting validates with the contract (`validateAddUser`: names 1–50, email, password ≥ 8, 'Please select a role');
 * a valid form calls `createUser` (emails trimmed). While saving, the dialog cannot be closed. Success toasts and
 * closes (the members list refreshes through the cache); a failure toasts the §8 text and keeps the form.
 */
import { assertEvent, assign, fromPromise, setup } from "xstate"
import { Schema } from "effect"
import { CreateUserPayload, type CreateUserResponse, validateAddUser } from "../contracts/team.ts"
import { SuccessMessages, TeamFailureMessages } from "../contracts/messages.ts"
import type { FieldErrors } from "../contracts/validation.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"
import { errorOf } from "./actor-output.ts"
import { failedBackToEditing, loadRolesActor, type MemberDialogEvent, rolesFailed, rolesLoaded, type RolesPicker, rolesRegion, submitIfValid } from "./building-blocks.ts"

export type AddMemberField = "first_name" | "last_name" | "email" | "password"

export interface AddMemberValues {
  readonly first_name: string
  readonly last_name: string
  readonly email: string
  readonly password: string
  readonly role_id: number | null
}

export interface AddMemberInput {
  /** Values to start from (e.g. an email typed elsewhere); empty otherwise. */
  readonly values?: Partial<AddMemberValues>
}

export interface AddMemberContext extends RolesPicker {
  readonly values: AddMemberValues
  readonly fieldErrors: FieldErrors
  /** The last failure of the create call (§8), shown above the form. */
  readonly error: string | undefined
}

export type AddMemberEvent = MemberDialogEvent<AddMemberField>

export const emptyAddMemberValues: AddMemberValues = {
  first_name: "",
  last_name: "",
  email: "",
  password: "",
  role_id: null,
}

/** The form as the contract validates it: names and email trimmed, no role key until one is chosen. */
export const addMemberInput = (v: AddMemberValues): Record<string, unknown> => ({
  first_name: v.first_name.trim(),
  last_name: v.last_name.trim(),
  email: v.email.trim(),
  password: v.password,
  ...(v.role_id === null ? {} : { role_id: v.role_id }),
  is_custom_role: false,
})

const decodePayload = Schema.decodeUnknownSync(CreateUserPayload)

export const addMemberMachine = setup({
  types: {
    context: {} as AddMemberContext,
    events: {} as AddMemberEvent,
    input: {} as AddMemberInput | undefined,
  },
  actors: {
    /** Loads the workspace's roles for the role picker. */
    loadRoles: loadRolesActor,
    /** Creates the team member (POST /api/admin/users). */
    createUser: fromPromise<CreateUserResponse, CreateUserPayload>(async () => {
      throw new Error("createUser is not provided")
    }),
  },
  guards: {
    /** The values pass `validateAddUser` (names 1–50, email, password ≥ 8, a role). */
    isFormValid: ({ context }) => Object.keys(validateAddUser(addMemberInput(context.values))).length === 0,
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
      return { values: { ...context.values, role_id: event.roleId }, fieldErrors }
    }),
    showFieldErrors: assign({ fieldErrors: ({ context }) => validateAddUser(addMemberInput(context.values)) }),
    clearError: assign({ error: undefined }),
    assignError: assign({ error: ({ event }) => toFailure(errorOf(event), TeamFailureMessages.addMember).message }),
    assignRoles: assign(rolesLoaded),
    assignRolesError: assign(rolesFailed),
  },
}).createMachine({
  id: "addMember",
  context: ({ input }) => ({
    values: { ...emptyAddMemberValues, ...input?.values },
    fieldErrors: {},
    error: undefined,
    roles: [],
    rolesError: undefined,
  }),
  initial: "open",
  states: {
    open: {
      description: "The 'Add team member' dialog is open: the workspace's roles load beside the form.",
      type: "parallel",
      states: {
        /** The default roles for the role picker. */
        roles: rolesRegion,
        form: {
          description: "The add-member form (first name, last name, email, password, role) and its saving.",
          initial: "editing",
          states: {
            editing: {
              description: "The user fills in the form; saving validates it first.",
              on: {
                "field.changed": { actions: "assignField" },
                "role.selected": { actions: "assignRole" },
                "form.submitted": submitIfValid("saving"),
                "dialog.closed": { target: "#addMember.closed" },
              },
            },
            saving: {
              description: "The new team member is being created; the dialog cannot be closed meanwhile.",
              invoke: {
                id: "createUser",
                src: "createUser",
                input: ({ context }) => decodePayload(addMemberInput(context.values)),
                /** The member was added: 'Team member added successfully' toasts and the dialog closes. */
                onDone: {
                  target: "#addMember.closed",
                  actions: { type: "notify", params: { kind: "success", message: SuccessMessages.teamMemberAdded } },
                },
                /** The call failed: back to the form with the error shown and toasted ('Failed to add team member' unless the server said more). */
                onError: failedBackToEditing(TeamFailureMessages.addMember),
              },
            },
          },
        },
      },
    },
    closed: { description: "The dialog closed (cancelled or saved); the team-members machine takes over again.", type: "final" },
  },
})
