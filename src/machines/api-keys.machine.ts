/**
 * The API keys settings page (issue 33, beyond the spec; docs/api-keys.md), for any member: their keys (a workspace
 * admin sees and may revoke every key of the workspace), a dialog to create one (name, a role the member may give,
 * expiry, optional account groups), the new key's secret shown once with a copy button, and revocation after a
 * confirmation.
 *
 * `loading` → `ready` or `failed` ('Failed to load API keys. Please try again.'; `apiKeys.retryRequested`). In
 * `ready.idle` the list is on screen; `form.opened` opens the dialog (`ready.creating`); a valid `form.submitted`
 * creates the key (`ready.saving`): the answer's secret is kept in `ready.showingSecret` until `secret.dismissed`.
 * `key.revokeRequested` asks for a confirmation (`ready.confirmingRevoke`); `revoke.confirmed` revokes
 * (`ready.revoking`) and the list is read again (`ready.refreshing`) so the row shows its revocation.
 *
 * Events accepted:
 * - `apiKeys.retryRequested` — retry after the list failed to load.
 * - `form.opened` — open the creation dialog, empty (the first role preselected).
 * - `form.changed` { patch } — the user changed fields of the form; the error clears.
 * - `form.submitted` — create the key from a valid form; an invalid one shows its first error.
 * - `form.canceled` — close the dialog.
 * - `secret.dismissed` — the user has copied the secret: it is forgotten.
 * - `key.revokeRequested` { id } — ask to revoke an active listed key.
 * - `revoke.confirmed` / `revoke.canceled` — answer the confirmation.
 */
import { assertEvent, assign, fromPromise, setup } from "xstate"
import { type ApiKey, ApiKeyMessages, type CreateApiKeyPayload } from "../contracts/api-keys.ts"
import { errorOf, outputOf } from "./actor-output.ts"
import type { ApiKeyCreated, ApiKeyDraft, ApiKeysLoaded, KeyRoleChoice } from "./api-keys-effects.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"
import { notProvided } from "./building-blocks.ts"

export const API_KEYS_LOAD_FAILED = "Failed to load API keys. Please try again."
export const API_KEY_CREATE_FAILED = "Failed to create the API key. Please try again."
export const API_KEY_REVOKE_FAILED = "Failed to revoke the API key. Please try again."
export const DEFAULT_EXPIRY_DAYS = 90

export const emptyDraft = (roles: ReadonlyArray<KeyRoleChoice>): ApiKeyDraft => ({
  name: "",
  roleId: roles[0]?.id ?? null,
  isCustomRole: roles[0]?.isCustom ?? false,
  expiresInDays: DEFAULT_EXPIRY_DAYS,
  groupIds: [],
})

/** The first thing wrong with a draft, in the contract's words; null when it can be sent. */
export const apiKeyDraftError = (d: ApiKeyDraft): string | null => {
  const name = d.name.trim()
  if (name.length === 0) return ApiKeyMessages.nameRequired
  if (name.length > 100) return ApiKeyMessages.nameTooLong
  if (d.roleId === null) return ApiKeyMessages.selectRole
  if (!Number.isInteger(d.expiresInDays) || d.expiresInDays < 1 || d.expiresInDays > 365) return ApiKeyMessages.expiryRange
  return null
}

/** The creation payload of a valid draft. */
export const payloadOf = (d: ApiKeyDraft): CreateApiKeyPayload => ({
  name: d.name.trim(),
  role_id: d.roleId as CreateApiKeyPayload["role_id"],
  is_custom_role: d.isCustomRole,
  expires_in_days: d.expiresInDays,
  account_group_ids: d.groupIds.length === 0 ? null : (d.groupIds as ReadonlyArray<number> as NonNullable<CreateApiKeyPayload["account_group_ids"]>),
})

export interface ApiKeysContext {
  readonly keys: ReadonlyArray<ApiKey>
  readonly roles: ReadonlyArray<KeyRoleChoice>
  readonly groups: ReadonlyArray<{ readonly id: number; readonly name: string }>
  readonly loadError: string | null
  readonly draft: ApiKeyDraft
  readonly formError: string | null
  /** The secret of the key just created, until dismissed. */
  readonly secret: { readonly name: string; readonly value: string } | null
  /** The key a revocation is about. */
  readonly pending: number | null
}

export type ApiKeysEvent =
  | { readonly type: "apiKeys.retryRequested" }
  | { readonly type: "form.opened" }
  | { readonly type: "form.changed"; readonly patch: Partial<ApiKeyDraft> }
  | { readonly type: "form.submitted" }
  | { readonly type: "form.canceled" }
  | { readonly type: "secret.dismissed" }
  | { readonly type: "key.revokeRequested"; readonly id: number }
  | { readonly type: "revoke.confirmed" }
  | { readonly type: "revoke.canceled" }

const notifyError = (fallback: string) => ({
  type: "notify" as const,
  params: ({ event }: { event: unknown }) => ({ kind: "error" as const, message: toFailure(errorOf(event), fallback).message }),
})

export const apiKeysMachine = setup({
  types: { context: {} as ApiKeysContext, events: {} as ApiKeysEvent },
  actors: {
    /** GET the keys, the roles the member may give and the groups. */
    loadApiKeys: fromPromise<ApiKeysLoaded, void>(notProvided("loadApiKeys")),
    /** POST a new key; answers it with its secret. */
    createApiKey: fromPromise<ApiKeyCreated, CreateApiKeyPayload>(notProvided("createApiKey")),
    /** DELETE (revoke) a key; answers the server's message. */
    revokeApiKey: fromPromise<string, number>(notProvided("revokeApiKey")),
  },
  guards: {
    /** The form can be sent (`apiKeyDraftError` finds nothing). */
    isDraftValid: ({ context }) => apiKeyDraftError(context.draft) === null,
    /** The event names a listed key that is still active. */
    isActiveKey: ({ context, event }) => "id" in event && context.keys.some((k) => k.id === event.id && k.status === "active"),
  },
  actions: {
    /** Environment: a toast. */
    notify: (_, _params: NotifyParams) => {},
    assignLoaded: assign(({ event }) => {
      const loaded = outputOf<ApiKeysLoaded>(event)
      return { keys: loaded.keys, roles: loaded.roles, groups: loaded.groups, loadError: null }
    }),
    assignLoadError: assign({ loadError: ({ event }) => toFailure(errorOf(event), API_KEYS_LOAD_FAILED).message }),
    openForm: assign({ draft: ({ context }) => emptyDraft(context.roles), formError: null }),
    assignDraft: assign(({ context, event }) => {
      assertEvent(event, "form.changed")
      return { draft: { ...context.draft, ...event.patch }, formError: null }
    }),
    showDraftError: assign({ formError: ({ context }) => apiKeyDraftError(context.draft) }),
    assignCreated: assign(({ context, event }) => {
      const created = outputOf<ApiKeyCreated>(event)
      return { keys: [created.key, ...context.keys.filter((k) => k.id !== created.key.id)], secret: { name: created.key.name, value: created.secret }, formError: null }
    }),
    assignCreateError: assign({ formError: ({ event }) => toFailure(errorOf(event), API_KEY_CREATE_FAILED).message }),
    forgetSecret: assign({ secret: null, draft: ({ context }) => emptyDraft(context.roles) }),
    assignPending: assign({
      pending: ({ event }) => {
        assertEvent(event, "key.revokeRequested")
        return event.id
      },
    }),
    clearPending: assign({ pending: null }),
  },
}).createMachine({
  id: "apiKeys",
  context: {
    keys: [],
    roles: [],
    groups: [],
    loadError: null,
    draft: emptyDraft([]),
    formError: null,
    secret: null,
    pending: null,
  },
  initial: "loading",
  states: {
    loading: {
      description: "The page fetches the keys, the roles the member may give and the account groups; nothing is shown yet.",
      invoke: {
        src: "loadApiKeys",
        id: "loadApiKeys",
        /** Everything arrived. */
        onDone: { target: "ready", actions: "assignLoaded" },
        /** Keeps why ('Failed to load API keys. Please try again.' or the server's text). */
        onError: { target: "failed", actions: "assignLoadError" },
      },
    },
    failed: {
      description: "The list could not be loaded: the error is shown with a retry button.",
      on: { "apiKeys.retryRequested": "loading" },
    },
    ready: {
      description: "The keys are listed with their role, expiry, last use and status.",
      initial: "idle",
      states: {
        idle: {
          description: "Nothing is running: a key can be created, an active one revoked.",
          on: {
            "form.opened": { target: "creating", actions: "openForm" },
            "key.revokeRequested": { guard: "isActiveKey", target: "confirmingRevoke", actions: "assignPending" },
          },
        },
        creating: {
          description: "The creation dialog is open: name, role, expiry, account groups.",
          on: {
            "form.changed": { actions: "assignDraft" },
            "form.canceled": "idle",
            "form.submitted": [{ guard: "isDraftValid", target: "saving" }, { actions: "showDraftError" }],
          },
        },
        saving: {
          description: "The key is being created; the dialog cannot be edited meanwhile.",
          invoke: {
            src: "createApiKey",
            id: "createApiKey",
            input: ({ context }) => payloadOf(context.draft),
            /** Created: the list shows it and its secret is shown, once. */
            onDone: { target: "showingSecret", actions: "assignCreated" },
            /** Refused (a role wider than the member's, a group) or failed: the dialog stays open with the reason. */
            onError: { target: "creating", actions: ["assignCreateError", notifyError(API_KEY_CREATE_FAILED)] },
          },
        },
        showingSecret: {
          description: "The new key's secret is on screen with a copy button; it will not be shown again.",
          on: { "secret.dismissed": { target: "idle", actions: "forgetSecret" } },
        },
        confirmingRevoke: {
          description: "The member is asked to confirm the revocation (it takes effect at once and cannot be undone).",
          on: {
            "revoke.confirmed": "revoking",
            "revoke.canceled": { target: "idle", actions: "clearPending" },
          },
        },
        revoking: {
          description: "The key is being revoked.",
          invoke: {
            src: "revokeApiKey",
            id: "revokeApiKey",
            input: ({ context }) => context.pending!,
            /** Revoked: a success toast, then the list is read again. */
            onDone: { target: "refreshing", actions: ["clearPending", { type: "notify", params: ({ event }) => ({ kind: "success", message: event.output }) }] },
            onError: { target: "idle", actions: ["clearPending", notifyError(API_KEY_REVOKE_FAILED)] },
          },
        },
        refreshing: {
          description: "The list is read again after a revocation; the old list stays on screen meanwhile.",
          invoke: {
            src: "loadApiKeys",
            id: "refreshApiKeys",
            onDone: { target: "idle", actions: "assignLoaded" },
            onError: { target: "idle", actions: notifyError(API_KEYS_LOAD_FAILED) },
          },
        },
      },
    },
  },
})
