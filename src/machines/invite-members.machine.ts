/**
 * The 'Invite team members' modal (access §2 "Invite modal", §4 "A successful bulk invite resets and closes the
 * modal", §5 "Invite", §7 `POST /api/admin/users/invite`, §8 invitation toasts).
 *
 * Events accepted:
 * - `dialog.opened` — the user opened the modal: it starts with a fresh form and loads the roles.
 * - `dialog.closed` — 'Cancel' (the modal is not dismissed by an outside click — the view does not offer it): the form
 *   resets and the modal closes; refused while sending.
 * - `row.added` — 'Add another invitation': a new empty row, up to 50 rows.
 * - `row.removed` { key } — the user removed a row (only while more than one row).
 * - `row.emailChanged` { key, value } — the user typed a row's email.
 * - `row.roleSelected` { key, roleId } — the user picked a row's role.
 * - `form.submitted` — 'Send invitations': a valid form is sent, otherwise the field errors show.
 * - `roles.retryRequested` — the user asked to load the roles again after they failed to load.
 * - `xstate.done.actor.loadRoles` — the workspace's roles arrived: the role picker offers them.
 * - `xstate.error.actor.loadRoles` — the roles could not be loaded: the role picker shows the error.
 *
 * Submitting validates with the contract (`validateInvitations`: 1–50 rows, an email and a role each, no duplicate
 * emails compared case-insensitively — 'Duplicate email addresses are not allowed'); the payload's emails are trimmed
 * and lower-cased, every role is a default role (`is_custom_role` false). The answer becomes the §8 toasts
 * (`inviteResultToasts`: 'All {n} invitation(s) sent successfully', '{n} invitation(s) sent successfully, {m} failed',
 * 'All {m} invitations failed to send', plus 'Skipped: …'). When anything was sent (or re-sent) the modal resets and
 * closes and the invitations list refreshes through the cache; when everything was skipped it stays open so the rows
 * can be corrected. A failed call toasts the §8 text ('Failed to send invitations' unless the server said more). The
 * modal cannot be closed while sending.
 */
import { assertEvent, assign, enqueueActions, fromPromise, setup } from "xstate"
import { Schema } from "effect"
import { Limits } from "../contracts/constants.ts"
import {
  BulkInvitePayload,
  type BulkInviteResponse,
  validateInvitations,
} from "../contracts/invitations.ts"
import { inviteResultToasts, TeamFailureMessages } from "../contracts/messages.ts"
import type { FieldErrors } from "../contracts/validation.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"
import { errorOf } from "./actor-output.ts"
import { failedBackToEditing, loadRolesActor, rolesFailed, rolesLoaded, type RolesPicker, rolesRegion, submitIfValid } from "./building-blocks.ts"

export interface InviteRow {
  /** Stable identity of the row in the form (indices shift when a row is removed). */
  readonly key: number
  readonly email: string
  readonly role_id: number | null
}

export interface InviteMembersContext extends RolesPicker {
  readonly rows: ReadonlyArray<InviteRow>
  readonly nextKey: number
  /**
   * Keys as `validateInvitations` gives them: `invitations` (list level: count, duplicates) and
   * `invitations.<index>.email` / `invitations.<index>.role_id` per row.
   */
  readonly fieldErrors: FieldErrors
  readonly error: string | undefined
}

export type InviteMembersEvent =
  | { readonly type: "dialog.opened" }
  | { readonly type: "dialog.closed" }
  | { readonly type: "row.added" }
  | { readonly type: "row.removed"; readonly key: number }
  | { readonly type: "row.emailChanged"; readonly key: number; readonly value: string }
  | { readonly type: "row.roleSelected"; readonly key: number; readonly roleId: number | null }
  | { readonly type: "form.submitted" }
  | { readonly type: "roles.retryRequested" }

/** The rows as the contract validates them (no role key until one is chosen; default roles only). */
export const invitationsInput = (rows: ReadonlyArray<InviteRow>): { readonly invitations: ReadonlyArray<Record<string, unknown>> } => ({
  invitations: rows.map((r) => ({ email: r.email, ...(r.role_id === null ? {} : { role_id: r.role_id }), is_custom_role: false })),
})

/** Decoding applies the contract's normalisation: emails trimmed and lower-cased. */
const decodePayload = Schema.decodeUnknownSync(BulkInvitePayload)

/** Error of row `index` for `field`, as the view shows it. */
export const rowError = (errors: FieldErrors, index: number, field: "email" | "role_id"): string | undefined =>
  errors[`invitations.${index}.${field}`]

const withoutRowErrors = (errors: FieldErrors, index: number, field: "email" | "role_id"): FieldErrors => {
  const { [`invitations.${index}.${field}`]: _row, invitations: _list, ...rest } = errors
  return rest
}

const freshForm = { rows: [{ key: 0, email: "", role_id: null }], nextKey: 1, fieldErrors: {}, error: undefined } as const

export const inviteMembersMachine = setup({
  types: {
    context: {} as InviteMembersContext,
    events: {} as InviteMembersEvent,
  },
  actors: {
    /** Loads the workspace's roles for the role pickers. */
    loadRoles: loadRolesActor,
    /** Sends the invitations (POST /api/admin/users/invite): emails trimmed and lower-cased, default roles. */
    inviteMembers: fromPromise<BulkInviteResponse, BulkInvitePayload>(async () => {
      throw new Error("inviteMembers is not provided")
    }),
  },
  guards: {
    /** Fewer than 50 rows. */
    canAddRow: ({ context }) => context.rows.length < Limits.invitationsMax,
    /** More than one row, and the row exists. */
    canRemoveRow: ({ context, event }) => {
      assertEvent(event, "row.removed")
      return context.rows.length > 1 && context.rows.some((r) => r.key === event.key)
    },
    /** The rows pass `validateInvitations` (1–50 rows, an email and a role each, no duplicate emails). */
    isFormValid: ({ context }) => Object.keys(validateInvitations(invitationsInput(context.rows))).length === 0,
    /** Sent plus re-sent counts as sent (access §8). */
    anySent: ({ event }) => {
      const r = (event as { output?: BulkInviteResponse }).output
      return r !== undefined && r.sent_count + r.resent_count > 0
    },
  },
  actions: {
    /** Environment: a toast (supplied at the React boundary). */
    notify: (_, _params: NotifyParams) => {},
    resetForm: assign(freshForm),
    addRow: assign(({ context }) => ({
      rows: [...context.rows, { key: context.nextKey, email: "", role_id: null }],
      nextKey: context.nextKey + 1,
    })),
    removeRow: assign(({ context, event }) => {
      assertEvent(event, "row.removed")
      // Indices shift: earlier messages would land on the wrong rows.
      return { rows: context.rows.filter((r) => r.key !== event.key), fieldErrors: {} }
    }),
    assignEmail: assign(({ context, event }) => {
      assertEvent(event, "row.emailChanged")
      const index = context.rows.findIndex((r) => r.key === event.key)
      if (index < 0) return {}
      return {
        rows: context.rows.map((r) => (r.key === event.key ? { ...r, email: event.value } : r)),
        fieldErrors: withoutRowErrors(context.fieldErrors, index, "email"),
      }
    }),
    assignRole: assign(({ context, event }) => {
      assertEvent(event, "row.roleSelected")
      const index = context.rows.findIndex((r) => r.key === event.key)
      if (index < 0) return {}
      return {
        rows: context.rows.map((r) => (r.key === event.key ? { ...r, role_id: event.roleId } : r)),
        fieldErrors: withoutRowErrors(context.fieldErrors, index, "role_id"),
      }
    }),
    showFieldErrors: assign({ fieldErrors: ({ context }) => validateInvitations(invitationsInput(context.rows)) }),
    clearError: assign({ error: undefined }),
    assignError: assign({ error: ({ event }) => toFailure(errorOf(event), TeamFailureMessages.sendInvitations).message }),
    notifyResults: enqueueActions(({ enqueue, event }) => {
      const result = (event as { output?: BulkInviteResponse }).output
      if (result === undefined) return
      // `notify` is named in this same setup, so its action object is not typed here yet.
      for (const toast of inviteResultToasts(result)) enqueue({ type: "notify", params: toast } as never)
    }),
    assignRoles: assign(rolesLoaded),
    assignRolesError: assign(rolesFailed),
  },
}).createMachine({
  id: "inviteMembers",
  context: { ...freshForm, roles: [], rolesError: undefined },
  initial: "closed",
  states: {
    closed: {
      description: "The 'Invite team members' modal is closed.",
      on: { "dialog.opened": { target: "open", actions: "resetForm" } },
    },
    open: {
      description: "The 'Invite team members' modal is open: the workspace's roles load beside the invitation rows.",
      type: "parallel",
      states: {
        /** The workspace's roles for the rows' role pickers. */
        roles: rolesRegion,
        form: {
          description: "The invitation rows (an email and a role each) and their sending.",
          initial: "editing",
          states: {
            editing: {
              description: "The user edits the invitation rows; 'Send invitations' validates them.",
              on: {
                "row.added": { guard: "canAddRow", actions: "addRow" },
                "row.removed": { guard: "canRemoveRow", actions: "removeRow" },
                "row.emailChanged": { actions: "assignEmail" },
                "row.roleSelected": { actions: "assignRole" },
                "form.submitted": submitIfValid("sending"),
                "dialog.closed": { target: "#inviteMembers.closed", actions: "resetForm" },
              },
            },
            sending: {
              description: "The invitations are being sent; the modal cannot be closed meanwhile.",
              invoke: {
                id: "inviteMembers",
                src: "inviteMembers",
                input: ({ context }) => decodePayload(invitationsInput(context.rows)),
                /** The answer is toasted per outcome; when anything was sent (or re-sent) the modal resets and closes, when everything was skipped it stays open so the rows can be corrected. */
                onDone: [
                  { guard: "anySent", target: "#inviteMembers.closed", actions: ["notifyResults", "resetForm"] },
                  { target: "editing", actions: "notifyResults" },
                ],
                /** The call failed: back to the rows with the error shown and toasted ('Failed to send invitations' unless the server said more). */
                onError: failedBackToEditing(TeamFailureMessages.sendInvitations),
              },
            },
          },
        },
      },
    },
  },
})
