/**
 * What the API keys settings page (issue 33, beyond the spec; docs/api-keys.md) needs from the outside world, as
 * types: the member's keys (a workspace admin: every key of the workspace), the roles they may give a key (those whose
 * permissions they hold), the account groups they may limit one to, creating a key (its secret comes back once) and
 * revoking one. Nothing here performs an effect: the real effects are built by `apiKeysEffectsFrom(services)`
 * (src/services/api-keys-api.ts) and reach the view through `<ApiKeysEffectsProvider>`; tests hand fakes to
 * `machine.provide()`. Failures reject with a catalogue error value `{ type, message, status?, data? }`.
 */
import type { ApiKey, CreateApiKeyPayload } from "../contracts/api-keys.ts"
import type { EffectCall } from "./auth-effects.ts"

/** A role a key can be given. */
export interface KeyRoleChoice {
  readonly id: number
  readonly name: string
  readonly isCustom: boolean
}

export interface ApiKeysLoaded {
  readonly keys: ReadonlyArray<ApiKey>
  /** The roles whose permissions the member holds (every role for the owner). */
  readonly roles: ReadonlyArray<KeyRoleChoice>
  /** The account groups a key may be limited to; empty when the member may not read them. */
  readonly groups: ReadonlyArray<{ readonly id: number; readonly name: string }>
}

/** The creation form. */
export interface ApiKeyDraft {
  readonly name: string
  readonly roleId: number | null
  readonly isCustomRole: boolean
  readonly expiresInDays: number
  readonly groupIds: ReadonlyArray<number>
}

export interface ApiKeyCreated {
  readonly message: string
  readonly key: ApiKey
  readonly secret: string
}

export interface ApiKeysEffects {
  /** GET /api/api-keys, the roles the member may give (GET /api/roles, GET /api/user/permissions), the groups (GET /api/account-groups; a 403 → none). */
  readonly loadApiKeys: EffectCall<void, ApiKeysLoaded>
  /** POST /api/api-keys. */
  readonly createApiKey: EffectCall<CreateApiKeyPayload, ApiKeyCreated>
  /** DELETE /api/api-keys/{id}: the server's message. */
  readonly revokeApiKey: EffectCall<number, string>
}

/** Where the page lives (any member's settings page, linked from the user menu). */
export const API_KEYS_PATH = "/dashboard/settings/api-keys"
