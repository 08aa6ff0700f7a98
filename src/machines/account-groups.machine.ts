/**
 * The Account groups page (beyond the spec, issue 31 item 5; docs/permissions.md "Account groups"), for workspace
 * admins whose own role is not limited: the workspace's groups (an organisation unit and everything below it, a tag,
 * or hand-picked accounts) with the accounts each holds now and the roles it limits, and the dialogs that create,
 * edit and delete them.
 *
 * `loading` → `ready` or `failed` ('Failed to load account groups. Please try again.'; a 403 says
 * `AccountGroupMessages.adminOnly`; `groups.retryRequested`). From `ready`, `group.createRequested` or
 * `group.editRequested` opens `editing` (the form: name, kind, and the unit, the tag or the accounts); a submitted
 * form that passes the contract's checks goes to `saving`, otherwise each bad field shows its message. `saving` →
 * `ready` with the group in the list and a success toast, or back to `editing` with the server's refusal on its
 * field (a 400's field errors, 409 `nameExists` on the name) or above the form (404 unit or account gone, 403), and
 * an error toast. `group.deleteRequested` opens `confirmingDelete`; `delete.confirmed` → `deleting` → `ready` without
 * the group (a success toast), or back to `confirmingDelete` with the refusal shown (409 `groupInUse`: a role is
 * still limited to it).
 *
 * Events accepted:
 * - `groups.retryRequested` — the user pressed retry after the groups failed to load.
 * - `group.createRequested` — the user pressed New group.
 * - `group.editRequested` { id } — the user pressed Edit on a group.
 * - `group.deleteRequested` { id } — the user pressed Delete on a group.
 * - `field.changed` { field, value } — the user typed or chose in the form (name, kind, unit, tag key, tag value).
 * - `account.toggled` { id } — the user checked or unchecked an account of a hand-picked group.
 * - `form.submitted` — the user pressed Save in the form.
 * - `form.cancelled` — the user closed the form without saving.
 * - `delete.confirmed` — the user confirmed the deletion.
 * - `delete.cancelled` — the user kept the group.
 */
import { assertEvent, assign, fromPromise, setup } from "xstate"
import {
  AccountGroupMessages,
  AccountGroupPayload as AccountGroupPayloadSchema,
  type AccountGroup,
  type AccountGroupId,
  type AccountGroupKind,
  type AccountGroupPayload,
} from "../contracts/account-groups.ts"
import type { AccountId } from "../contracts/ids.ts"
import { formErrors } from "../contracts/validation.ts"
import type { AccountGroupChoices, AccountGroupSaved, AccountGroupsLoaded } from "./account-groups-effects.ts"
import { errorOf, outputOf } from "./actor-output.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"
import { notProvided } from "./building-blocks.ts"

export const LOAD_GROUPS_FAILED = "Failed to load account groups. Please try again."
export const SAVE_GROUP_FAILED = "Failed to save the account group. Please try again."
export const DELETE_GROUP_FAILED = "Failed to delete the account group. Please try again."

// ---------------------------------------------------------------------------------------------------
// The form

export type GroupField = "name" | "kind" | "unit" | "tag_key" | "tag_value"

/** The form as typed. `unit` is `unitKey(organizationId, unitId)` ("" for none). */
export interface GroupFormValues {
  readonly name: string
  readonly kind: AccountGroupKind
  readonly unit: string
  readonly tag_key: string
  readonly tag_value: string
  readonly account_ids: ReadonlyArray<AccountId>
}

/** Field errors by the payload's field names (`name`, `unit_id`, `tag_key`, `account_ids`). */
export type GroupFormErrors = Readonly<Record<string, string>>

export const EMPTY_GROUP_FORM: GroupFormValues = { name: "", kind: "unit", unit: "", tag_key: "", tag_value: "", account_ids: [] }

/** One select key for a unit of an organisation. */
export const unitKey = (organizationId: number, unitId: string): string => `${organizationId}:${unitId}`

const parseUnitKey = (key: string): { readonly organizationId: AccountId; readonly unitId: string } | null => {
  const at = key.indexOf(":")
  if (at <= 0) return null
  const id = Number(key.slice(0, at))
  return Number.isInteger(id) && id > 0 ? { organizationId: id as AccountId, unitId: key.slice(at + 1) } : null
}

/** The form showing a saved group. */
export const groupFormOf = (group: AccountGroup): GroupFormValues => ({
  name: group.name,
  kind: group.kind,
  unit: group.organization_id === null || group.unit_id === null ? "" : unitKey(group.organization_id, group.unit_id),
  tag_key: group.tag_key ?? "",
  tag_value: group.tag_value ?? "",
  account_ids: group.account_ids,
})

/** The payload the form describes: only the fields of its kind (the server drops the others anyway). */
export const groupPayloadOf = (values: GroupFormValues): AccountGroupPayload => {
  const name = values.name.trim()
  if (values.kind === "unit") {
    const unit = parseUnitKey(values.unit)
    return { name, kind: "unit", organization_id: unit?.organizationId ?? null, unit_id: unit?.unitId ?? null }
  }
  if (values.kind === "tag") {
    const value = values.tag_value.trim()
    return { name, kind: "tag", tag_key: values.tag_key.trim(), tag_value: value === "" ? null : value }
  }
  return { name, kind: "manual", account_ids: values.account_ids }
}

/** Each field the contract refuses or the kind needs, with the contract's message (`{}`: it can be saved). */
export const validateGroupForm = (values: GroupFormValues): GroupFormErrors => {
  const payload = groupPayloadOf(values)
  const issues = formErrors(AccountGroupPayloadSchema, payload)
  const out: Record<string, string> = {}
  if ("name" in issues) out["name"] = issues["name"]!
  if (payload.kind === "unit" && (payload.unit_id === null || payload.unit_id === undefined)) out["unit_id"] = AccountGroupMessages.unitRequired
  if (payload.kind === "tag" && (payload.tag_key ?? "") === "") out["tag_key"] = AccountGroupMessages.tagKeyRequired
  else if ("tag_key" in issues) out["tag_key"] = issues["tag_key"]!
  if ("tag_value" in issues) out["tag_value"] = issues["tag_value"]!
  return out
}

const FORM_FIELDS = ["name", "unit_id", "tag_key", "tag_value", "account_ids"]

/** The refusal of a save: field errors (a 400's list, a 409 name clash on the name) or a message above the form. */
export const saveRefusal = (error: unknown): { readonly fieldErrors: GroupFormErrors; readonly saveError: string | null } => {
  const failure = toFailure(error, SAVE_GROUP_FAILED)
  if (failure.message === AccountGroupMessages.nameExists) return { fieldErrors: { name: failure.message }, saveError: null }
  const data = failure.data
  const list = typeof data === "object" && data !== null ? (data as { errors?: unknown }).errors : undefined
  const fieldErrors: Record<string, string> = {}
  if (Array.isArray(list)) {
    for (const item of list) {
      const path = (item as { path?: unknown }).path
      const message = (item as { message?: unknown }).message
      if (typeof path === "string" && FORM_FIELDS.includes(path) && typeof message === "string" && !(path in fieldErrors)) fieldErrors[path] = message
    }
  }
  return Object.keys(fieldErrors).length > 0 ? { fieldErrors, saveError: null } : { fieldErrors: {}, saveError: failureMessage(error, SAVE_GROUP_FAILED) }
}

/** A failure's text on this page: a 403 names the admin rule, anything else its own text or `fallback`. */
export const failureMessage = (error: unknown, fallback: string): string => {
  const failure = toFailure(error, fallback)
  return failure.status === 403 ? AccountGroupMessages.adminOnly : failure.message
}

// ---------------------------------------------------------------------------------------------------
// Machine

export interface AccountGroupsContext {
  readonly groups: ReadonlyArray<AccountGroup> | null
  readonly choices: AccountGroupChoices
  readonly loadError: string | null
  /** The group being edited (null: a new group). */
  readonly editingId: AccountGroupId | null
  readonly values: GroupFormValues
  readonly fieldErrors: GroupFormErrors
  readonly saveError: string | null
  /** The group whose deletion is being confirmed. */
  readonly deletingId: AccountGroupId | null
  readonly deleteError: string | null
}

export type AccountGroupsEvent =
  | { readonly type: "groups.retryRequested" }
  | { readonly type: "group.createRequested" }
  | { readonly type: "group.editRequested"; readonly id: AccountGroupId }
  | { readonly type: "group.deleteRequested"; readonly id: AccountGroupId }
  | { readonly type: "field.changed"; readonly field: GroupField; readonly value: string }
  | { readonly type: "account.toggled"; readonly id: AccountId }
  | { readonly type: "form.submitted" }
  | { readonly type: "form.cancelled" }
  | { readonly type: "delete.confirmed" }
  | { readonly type: "delete.cancelled" }

/** The payload field a form field's error sits on. */
const errorKeyOf = (field: GroupField): string => (field === "unit" ? "unit_id" : field)

const sortGroups = (groups: ReadonlyArray<AccountGroup>): ReadonlyArray<AccountGroup> =>
  [...groups].sort((a, b) => a.name.localeCompare(b.name, "en-US", { sensitivity: "base" }) || a.id - b.id)

const NO_CHOICES: AccountGroupChoices = { units: [], accounts: [] }

export const accountGroupsMachine = setup({
  types: { context: {} as AccountGroupsContext, events: {} as AccountGroupsEvent },
  actors: {
    /** GET the groups, the organisations' units and the accounts to choose from. */
    loadAccountGroups: fromPromise<AccountGroupsLoaded, void>(notProvided("loadAccountGroups")),
    /** POST (a new group) or PUT (an existing one) the form's payload. */
    saveAccountGroup: fromPromise<AccountGroupSaved, { readonly id: AccountGroupId | null; readonly payload: AccountGroupPayload }>(notProvided("saveAccountGroup")),
    /** DELETE the group. */
    deleteAccountGroup: fromPromise<{ readonly message: string }, { readonly id: AccountGroupId }>(notProvided("deleteAccountGroup")),
  },
  guards: {
    /** The form passes the contract's checks and its kind's. */
    isFormValid: ({ context }) => Object.keys(validateGroupForm(context.values)).length === 0,
    /** The event names a group of the list. */
    isKnownGroup: ({ context, event }) =>
      (event.type === "group.editRequested" || event.type === "group.deleteRequested") && (context.groups ?? []).some((g) => g.id === event.id),
  },
  actions: {
    /** Environment: a toast. */
    notify: (_, _params: NotifyParams) => {},
    assignLoaded: assign(({ event }) => {
      const { groups, choices } = outputOf<AccountGroupsLoaded>(event)
      return { groups: sortGroups(groups), choices, loadError: null }
    }),
    assignLoadError: assign({ loadError: ({ event }) => failureMessage(errorOf(event), LOAD_GROUPS_FAILED) }),
    openNew: assign({ editingId: null, values: EMPTY_GROUP_FORM, fieldErrors: {}, saveError: null }),
    openEdit: assign(({ context, event }) => {
      assertEvent(event, "group.editRequested")
      const group = (context.groups ?? []).find((g) => g.id === event.id)!
      return { editingId: group.id, values: groupFormOf(group), fieldErrors: {}, saveError: null }
    }),
    assignField: assign(({ context, event }) => {
      assertEvent(event, "field.changed")
      const key = errorKeyOf(event.field)
      const { [key]: _cleared, ...fieldErrors } = context.fieldErrors
      const values =
        event.field === "kind"
          ? { ...context.values, kind: event.value as AccountGroupKind }
          : { ...context.values, [event.field]: event.value }
      return { values, fieldErrors: event.field === "kind" ? {} : fieldErrors, saveError: null }
    }),
    toggleAccount: assign(({ context, event }) => {
      assertEvent(event, "account.toggled")
      const ids = context.values.account_ids
      const account_ids = ids.includes(event.id) ? ids.filter((id) => id !== event.id) : [...ids, event.id]
      const { account_ids: _cleared, ...fieldErrors } = context.fieldErrors
      return { values: { ...context.values, account_ids }, fieldErrors, saveError: null }
    }),
    showFieldErrors: assign({ fieldErrors: ({ context }) => validateGroupForm(context.values) }),
    clearSaveError: assign({ saveError: null, fieldErrors: {} }),
    assignSaved: assign(({ context, event }) => {
      const { group } = outputOf<AccountGroupSaved>(event)
      const others = (context.groups ?? []).filter((g) => g.id !== group.id)
      return { groups: sortGroups([...others, group]), editingId: null, values: EMPTY_GROUP_FORM, fieldErrors: {}, saveError: null }
    }),
    assignSaveRefusal: assign(({ event }) => saveRefusal(errorOf(event))),
    closeForm: assign({ editingId: null, values: EMPTY_GROUP_FORM, fieldErrors: {}, saveError: null }),
    openDelete: assign(({ event }) => {
      assertEvent(event, "group.deleteRequested")
      return { deletingId: event.id, deleteError: null }
    }),
    assignDeleted: assign(({ context }) => ({
      groups: (context.groups ?? []).filter((g) => g.id !== context.deletingId),
      deletingId: null,
      deleteError: null,
    })),
    assignDeleteError: assign({ deleteError: ({ event }) => failureMessage(errorOf(event), DELETE_GROUP_FAILED) }),
    closeDelete: assign({ deletingId: null, deleteError: null }),
  },
}).createMachine({
  id: "accountGroups",
  context: {
    groups: null,
    choices: NO_CHOICES,
    loadError: null,
    editingId: null,
    values: EMPTY_GROUP_FORM,
    fieldErrors: {},
    saveError: null,
    deletingId: null,
    deleteError: null,
  },
  initial: "loading",
  states: {
    loading: {
      description: "The page fetches the workspace's account groups, the organisations' units and the accounts; nothing is shown yet.",
      invoke: {
        id: "loadAccountGroups",
        src: "loadAccountGroups",
        /** The groups arrived (sorted by name) with the units and accounts the form offers. */
        onDone: { target: "ready", actions: "assignLoaded" },
        /** The load failed: keeps why (a 403: only workspace admins with access to every account; otherwise by default 'Failed to load account groups. Please try again.'). */
        onError: { target: "failed", actions: "assignLoadError" },
      },
    },
    failed: {
      description: "The groups could not be loaded: the error is shown, with a retry button unless the user may not manage groups.",
      on: { "groups.retryRequested": "loading" },
    },
    ready: {
      description: "The groups are listed with their kind, definition, the accounts each holds and the roles each limits.",
      on: {
        "group.createRequested": { target: "editing", actions: "openNew" },
        "group.editRequested": { guard: "isKnownGroup", target: "editing", actions: "openEdit" },
        "group.deleteRequested": { guard: "isKnownGroup", target: "confirmingDelete", actions: "openDelete" },
      },
    },
    editing: {
      description: "The group form is open (a new group, or one being edited): name, kind, and the unit, tag or accounts of that kind.",
      on: {
        "field.changed": { actions: "assignField" },
        "account.toggled": { actions: "toggleAccount" },
        "form.submitted": [
          { guard: "isFormValid", target: "saving", actions: "clearSaveError" },
          { actions: "showFieldErrors" },
        ],
        "form.cancelled": { target: "ready", actions: "closeForm" },
      },
    },
    saving: {
      description: "The group is being saved; the form cannot be edited meanwhile.",
      invoke: {
        id: "saveAccountGroup",
        src: "saveAccountGroup",
        input: ({ context }) => ({ id: context.editingId, payload: groupPayloadOf(context.values) }),
        /** Saved: the group (with the accounts it holds now) replaces or joins the list, the form closes, and a success toast carries the server's message. */
        onDone: {
          target: "ready",
          actions: ["assignSaved", { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output.message }) }],
        },
        /** Refused: the form stays open with the refusal on its field (e.g. 'A group with this name already exists') or above the form, and an error toast. */
        onError: {
          target: "editing",
          actions: ["assignSaveRefusal", { type: "notify", params: ({ event }) => ({ kind: "error", message: failureMessage(event.error, SAVE_GROUP_FAILED) }) }],
        },
      },
    },
    confirmingDelete: {
      description: "The user is asked to confirm the deletion of a group; a refused deletion's reason is shown here.",
      on: {
        "delete.confirmed": "deleting",
        "delete.cancelled": { target: "ready", actions: "closeDelete" },
      },
    },
    deleting: {
      description: "The group is being deleted.",
      invoke: {
        id: "deleteAccountGroup",
        src: "deleteAccountGroup",
        input: ({ context }) => ({ id: context.deletingId! }),
        /** Deleted: the group leaves the list and a success toast carries the server's message. */
        onDone: {
          target: "ready",
          actions: ["assignDeleted", { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output.message }) }],
        },
        /** Refused: the confirmation stays open with why (e.g. 'This group limits a role; remove it from the role first'). */
        onError: { target: "confirmingDelete", actions: "assignDeleteError" },
      },
    },
  },
})
