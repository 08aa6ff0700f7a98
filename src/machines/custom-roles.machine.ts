/**
 * The team page's custom-role editor (beyond the spec: custom roles; issue 31 item 5: "limited to groups"): the
 * workspace's custom roles with their permissions and the account groups each is limited to, and the dialog that
 * creates and edits them (name, description, permissions, and access: every account, or only the accounts of chosen
 * groups), and the delete confirmation.
 *
 * `loading` → `ready` or `failed` (`roles.retryRequested`). From `ready`, `role.createRequested` / `role.editRequested`
 * open `editing`; a submitted form that passes the contract's `CustomRolePayload` goes to `saving` → `ready` (a success
 * toast) or back to `editing` with the server's refusal (a name taken on the name, anything else above the form, e.g.
 * 'You cannot grant access to accounts outside your own account groups'). `role.deleteRequested` → `confirmingDelete`
 * → `deleting` → `ready`, or back with the refusal (a role still assigned is kept).
 *
 * The groups are offered only to whoever may read them (an admin not limited to groups): for anyone else `groups` is
 * null, the access choice is not offered and a saved role keeps its limit (the payload leaves `account_group_ids` out,
 * which the server reads as unchanged).
 *
 * Events accepted:
 * - `roles.retryRequested` — the user pressed retry after the roles failed to load.
 * - `role.createRequested` — the user pressed New custom role.
 * - `role.editRequested` { id } — the user pressed Edit on a custom role.
 * - `role.deleteRequested` { id } — the user pressed Delete on a custom role.
 * - `field.changed` { field, value } — the user typed the name or the description.
 * - `permission.toggled` { permission } — the user checked or unchecked a permission.
 * - `access.changed` { limited } — the user chose every account (false) or only the accounts of chosen groups (true).
 * - `group.toggled` { id } — the user checked or unchecked a group the role is limited to.
 * - `form.submitted` — the user pressed Save.
 * - `form.cancelled` — the user closed the dialog without saving.
 * - `delete.confirmed` / `delete.cancelled` — the user confirmed or kept the role.
 */
import { assertEvent, assign, fromPromise, setup } from "xstate"
import type { AccountGroupId } from "../contracts/account-groups.ts"
import type { RoleId } from "../contracts/ids.ts"
import type { PermissionName } from "../contracts/permissions.ts"
import { AccessServerMessages } from "../contracts/server-messages.ts"
import { validateCustomRole, type CustomRolePayload } from "../contracts/team.ts"
import type { RoleWithPermissions } from "../contracts/workspaces.ts"
import type { CustomRoleSaved, CustomRolesLoaded } from "./account-groups-effects.ts"
import { errorOf, outputOf } from "./actor-output.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"
import { notProvided } from "./building-blocks.ts"

export const LOAD_ROLES_FAILED = "Failed to load custom roles. Please try again."
export const SAVE_ROLE_FAILED = "Failed to save the role. Please try again."
export const DELETE_ROLE_FAILED = "Failed to delete the role. Please try again."
/** Shown under the access choice when a limited role names no group: its members would see no account. */
export const NO_GROUP_WARNING = "No group chosen: members with this role will see no account"

export interface RoleFormValues {
  readonly name: string
  readonly description: string
  readonly permissions: ReadonlyArray<PermissionName>
  readonly limited: boolean
  readonly groupIds: ReadonlyArray<AccountGroupId>
}

export const EMPTY_ROLE_FORM: RoleFormValues = { name: "", description: "", permissions: [], limited: false, groupIds: [] }

/** The form showing a saved role. */
export const roleFormOf = (role: RoleWithPermissions): RoleFormValues => ({
  name: role.name,
  description: role.description ?? "",
  permissions: role.permissions.map((p) => p.name as PermissionName),
  limited: role.account_group_ids !== undefined && role.account_group_ids !== null,
  groupIds: role.account_group_ids ?? [],
})

/** The payload the form describes; `withGroups` false leaves the role's limit as it is (the user may not read groups). */
export const rolePayloadOf = (values: RoleFormValues, withGroups: boolean): CustomRolePayload => {
  const description = values.description.trim()
  return {
    name: values.name.trim(),
    ...(description === "" ? {} : { description }),
    permissions: values.permissions,
    ...(withGroups ? { account_group_ids: values.limited ? values.groupIds : null } : {}),
  }
}

export interface CustomRolesContext {
  readonly roles: ReadonlyArray<RoleWithPermissions> | null
  /** The groups a role can be limited to; null: the user may not read them (the choice is not offered). */
  readonly groups: CustomRolesLoaded["groups"]
  readonly loadError: string | null
  readonly editingId: RoleId | null
  readonly values: RoleFormValues
  readonly fieldErrors: Readonly<Record<string, string>>
  readonly saveError: string | null
  readonly deletingId: RoleId | null
  readonly deleteError: string | null
}

export type CustomRolesEvent =
  | { readonly type: "roles.retryRequested" }
  | { readonly type: "role.createRequested" }
  | { readonly type: "role.editRequested"; readonly id: RoleId }
  | { readonly type: "role.deleteRequested"; readonly id: RoleId }
  | { readonly type: "field.changed"; readonly field: "name" | "description"; readonly value: string }
  | { readonly type: "permission.toggled"; readonly permission: PermissionName }
  | { readonly type: "access.changed"; readonly limited: boolean }
  | { readonly type: "group.toggled"; readonly id: AccountGroupId }
  | { readonly type: "form.submitted" }
  | { readonly type: "form.cancelled" }
  | { readonly type: "delete.confirmed" }
  | { readonly type: "delete.cancelled" }

const toggled = <T>(list: ReadonlyArray<T>, item: T): ReadonlyArray<T> => (list.includes(item) ? list.filter((x) => x !== item) : [...list, item])

const byName = (roles: ReadonlyArray<RoleWithPermissions>) => [...roles].sort((a, b) => a.name.localeCompare(b.name, "en-US", { sensitivity: "base" }) || a.id - b.id)

/** A save's refusal: a taken name on the name field, a 400's field errors on their fields, anything else above the form. */
export const roleSaveRefusal = (error: unknown): { readonly fieldErrors: Readonly<Record<string, string>>; readonly saveError: string | null } => {
  const failure = toFailure(error, SAVE_ROLE_FAILED)
  if (failure.message === AccessServerMessages.roleNameExists) return { fieldErrors: { name: failure.message }, saveError: null }
  const list = typeof failure.data === "object" && failure.data !== null ? (failure.data as { errors?: unknown }).errors : undefined
  const fieldErrors: Record<string, string> = {}
  if (Array.isArray(list)) {
    for (const item of list) {
      const { path, message } = item as { path?: unknown; message?: unknown }
      if ((path === "name" || path === "description" || path === "permissions") && typeof message === "string" && !(path in fieldErrors)) fieldErrors[path] = message
    }
  }
  return Object.keys(fieldErrors).length > 0 ? { fieldErrors, saveError: null } : { fieldErrors: {}, saveError: failure.message }
}

export const customRolesMachine = setup({
  types: { context: {} as CustomRolesContext, events: {} as CustomRolesEvent },
  actors: {
    /** The custom roles and the groups they can be limited to. */
    loadCustomRoles: fromPromise<CustomRolesLoaded, void>(notProvided("loadCustomRoles")),
    /** POST (a new role) or PUT (an existing one) the form's payload. */
    saveCustomRole: fromPromise<CustomRoleSaved, { readonly id: RoleId | null; readonly payload: CustomRolePayload }>(notProvided("saveCustomRole")),
    /** DELETE the role. */
    deleteCustomRole: fromPromise<{ readonly message: string }, { readonly id: RoleId }>(notProvided("deleteCustomRole")),
  },
  guards: {
    isFormValid: ({ context }) => Object.keys(validateCustomRole(rolePayloadOf(context.values, context.groups !== null))).length === 0,
    isKnownRole: ({ context, event }) =>
      (event.type === "role.editRequested" || event.type === "role.deleteRequested") && (context.roles ?? []).some((r) => r.id === event.id),
    /** The groups can be chosen (the user may read them). */
    canChooseGroups: ({ context }) => context.groups !== null,
  },
  actions: {
    /** Environment: a toast. */
    notify: (_, _params: NotifyParams) => {},
    assignLoaded: assign(({ event }) => {
      const { roles, groups } = outputOf<CustomRolesLoaded>(event)
      return { roles: byName(roles), groups, loadError: null }
    }),
    assignLoadError: assign({ loadError: ({ event }) => toFailure(errorOf(event), LOAD_ROLES_FAILED).message }),
    openNew: assign({ editingId: null, values: EMPTY_ROLE_FORM, fieldErrors: {}, saveError: null }),
    openEdit: assign(({ context, event }) => {
      assertEvent(event, "role.editRequested")
      const role = (context.roles ?? []).find((r) => r.id === event.id)!
      return { editingId: role.id, values: roleFormOf(role), fieldErrors: {}, saveError: null }
    }),
    assignField: assign(({ context, event }) => {
      assertEvent(event, "field.changed")
      const { [event.field]: _cleared, ...fieldErrors } = context.fieldErrors
      return { values: { ...context.values, [event.field]: event.value }, fieldErrors, saveError: null }
    }),
    togglePermission: assign(({ context, event }) => {
      assertEvent(event, "permission.toggled")
      const { permissions: _cleared, ...fieldErrors } = context.fieldErrors
      return { values: { ...context.values, permissions: toggled(context.values.permissions, event.permission) }, fieldErrors, saveError: null }
    }),
    assignAccess: assign(({ context, event }) => {
      assertEvent(event, "access.changed")
      return { values: { ...context.values, limited: event.limited }, saveError: null }
    }),
    toggleGroup: assign(({ context, event }) => {
      assertEvent(event, "group.toggled")
      return { values: { ...context.values, groupIds: toggled(context.values.groupIds, event.id) }, saveError: null }
    }),
    showFieldErrors: assign({ fieldErrors: ({ context }) => validateCustomRole(rolePayloadOf(context.values, context.groups !== null)) }),
    clearSaveError: assign({ saveError: null, fieldErrors: {} }),
    assignSaved: assign(({ context, event }) => {
      const { role } = outputOf<CustomRoleSaved>(event)
      return { roles: byName([...(context.roles ?? []).filter((r) => r.id !== role.id), role]), editingId: null, values: EMPTY_ROLE_FORM, fieldErrors: {}, saveError: null }
    }),
    assignSaveRefusal: assign(({ event }) => roleSaveRefusal(errorOf(event))),
    closeForm: assign({ editingId: null, values: EMPTY_ROLE_FORM, fieldErrors: {}, saveError: null }),
    openDelete: assign(({ event }) => {
      assertEvent(event, "role.deleteRequested")
      return { deletingId: event.id, deleteError: null }
    }),
    assignDeleted: assign(({ context }) => ({ roles: (context.roles ?? []).filter((r) => r.id !== context.deletingId), deletingId: null, deleteError: null })),
    assignDeleteError: assign({ deleteError: ({ event }) => toFailure(errorOf(event), DELETE_ROLE_FAILED).message }),
    closeDelete: assign({ deletingId: null, deleteError: null }),
  },
}).createMachine({
  id: "customRoles",
  context: {
    roles: null,
    groups: null,
    loadError: null,
    editingId: null,
    values: EMPTY_ROLE_FORM,
    fieldErrors: {},
    saveError: null,
    deletingId: null,
    deleteError: null,
  },
  initial: "loading",
  states: {
    loading: {
      description: "The custom roles and the account groups are being read.",
      invoke: {
        id: "loadCustomRoles",
        src: "loadCustomRoles",
        /** The roles arrived (by name), with the groups they can be limited to when the user may read them. */
        onDone: { target: "ready", actions: "assignLoaded" },
        /** The load failed: its message (by default 'Failed to load custom roles. Please try again.') with a retry button. */
        onError: { target: "failed", actions: "assignLoadError" },
      },
    },
    failed: {
      description: "The roles could not be loaded: the error is shown with a retry button.",
      on: { "roles.retryRequested": "loading" },
    },
    ready: {
      description: "The custom roles are listed with their permissions and the account groups each is limited to.",
      on: {
        "role.createRequested": { target: "editing", actions: "openNew" },
        "role.editRequested": { guard: "isKnownRole", target: "editing", actions: "openEdit" },
        "role.deleteRequested": { guard: "isKnownRole", target: "confirmingDelete", actions: "openDelete" },
      },
    },
    editing: {
      description: "The role dialog is open: name, description, permissions and (for whoever may read groups) the accounts it reaches.",
      on: {
        "field.changed": { actions: "assignField" },
        "permission.toggled": { actions: "togglePermission" },
        "access.changed": { guard: "canChooseGroups", actions: "assignAccess" },
        "group.toggled": { guard: "canChooseGroups", actions: "toggleGroup" },
        "form.submitted": [
          { guard: "isFormValid", target: "saving", actions: "clearSaveError" },
          { actions: "showFieldErrors" },
        ],
        "form.cancelled": { target: "ready", actions: "closeForm" },
      },
    },
    saving: {
      description: "The role is being saved; the dialog cannot be edited meanwhile.",
      invoke: {
        id: "saveCustomRole",
        src: "saveCustomRole",
        input: ({ context }) => ({ id: context.editingId, payload: rolePayloadOf(context.values, context.groups !== null) }),
        /** Saved: the role replaces or joins the list and a success toast carries the server's message. */
        onDone: {
          target: "ready",
          actions: ["assignSaved", { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output.message }) }],
        },
        /** Refused: the dialog stays with the refusal on its field or above the form, and an error toast. */
        onError: {
          target: "editing",
          actions: ["assignSaveRefusal", { type: "notify", params: ({ event }) => ({ kind: "error", message: toFailure(event.error, SAVE_ROLE_FAILED).message }) }],
        },
      },
    },
    confirmingDelete: {
      description: "The user is asked to confirm the deletion of a role; a refused deletion's reason is shown here.",
      on: { "delete.confirmed": "deleting", "delete.cancelled": { target: "ready", actions: "closeDelete" } },
    },
    deleting: {
      description: "The role is being deleted.",
      invoke: {
        id: "deleteCustomRole",
        src: "deleteCustomRole",
        input: ({ context }) => ({ id: context.deletingId! }),
        /** Deleted: the role leaves the list and a success toast carries the server's message. */
        onDone: {
          target: "ready",
          actions: ["assignDeleted", { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output.message }) }],
        },
        /** Refused: the confirmation stays with why (e.g. the role is still assigned). */
        onError: { target: "confirmingDelete", actions: "assignDeleteError" },
      },
    },
  },
})
