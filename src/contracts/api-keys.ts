/**
 * API keys (beyond the spec, issue 33; docs/api-keys.md): a member creates named keys for scripts and CI, each with a
 * role (never more than their own), an expiry and optional account-group limits. The secret is shown once, in the
 * creation answer; the server keeps only its SHA-256. A key is sent as `Authorization: Bearer ca_live_…` or
 * `X-API-Key: ca_live_…` and acts in its own workspace with its role's permissions intersected, at every use, with its
 * creator's current permissions and account groups. Shapes shared by the server (server/api/api-keys.ts) and the SPA.
 */
import { Schema } from "effect"
import { AccountGroupId } from "./account-groups.ts"
import { OkMessage, NullableTimestamp, Timestamp, withData } from "./common.ts"
import { RoleId, UserId, idParam } from "./ids.ts"
import { requiredString } from "./validation.ts"

export const ApiKeyId = Schema.Int.check(Schema.isGreaterThan(0)).pipe(Schema.brand("ApiKeyId"))
export type ApiKeyId = typeof ApiKeyId.Type

/** Every secret starts with this, so a leaked key is recognisable (secret scanners, logs). */
export const API_KEY_PREFIX = "ca_live_"
/** The secret: the prefix and 32 random bytes in base64url (43 characters). */
export const API_KEY_PATTERN = /^ca_live_[A-Za-z0-9_-]{43}$/
/** Whether a credential is shaped like an API key (rather than a session's access token). */
export const looksLikeApiKey = (credential: string): boolean => credential.startsWith(API_KEY_PREFIX)

export const API_KEY_MAX_DAYS = 365
export const API_KEY_EXPIRY_CHOICES = [7, 30, 90, 180, 365] as const

export const ApiKeyMessages = {
  nameRequired: "Please enter a key name",
  nameTooLong: "Key names are at most 100 characters",
  selectRole: "Please select a role",
  roleNotFound: "Please select a valid role",
  roleTooWide: "A key cannot have a role with permissions you do not hold",
  expiryRange: `Choose an expiry between 1 and ${API_KEY_MAX_DAYS} days`,
  groupNotFound: "One of the chosen account groups does not exist",
  groupsEmpty: "Choose at least one account group, or none to keep your own access",
  groupsTooWide: "You cannot give a key access to accounts outside your own account groups",
  keyNotFound: "API key not found",
  created: "API key created. Copy the secret now: it will not be shown again",
  revoked: "API key revoked",
  invalidKey: "Invalid API key",
  revokedKey: "This API key has been revoked",
  expiredKey: "This API key has expired",
  creatorGone: "The member who created this API key is no longer in its workspace",
  otherWorkspace: "This API key belongs to another workspace",
  signInOnly: "API keys cannot be used for this call: sign in to do it",
  rateLimited: "Too many requests with this API key. Please try again later.",
} as const

/** What a member asks for (POST /api/api-keys). */
export const CreateApiKeyPayload = Schema.Struct({
  name: requiredString(ApiKeyMessages.nameRequired).check(Schema.isMaxLength(100, { message: ApiKeyMessages.nameTooLong })),
  role_id: RoleId,
  is_custom_role: Schema.Boolean,
  expires_in_days: Schema.Int.check(
    Schema.isGreaterThanOrEqualTo(1, { message: ApiKeyMessages.expiryRange }),
    Schema.isLessThanOrEqualTo(API_KEY_MAX_DAYS, { message: ApiKeyMessages.expiryRange }),
  ),
  /** Null or absent: the key sees the accounts its role and creator see; a list: only those groups' accounts too. */
  account_group_ids: Schema.optionalKey(Schema.NullOr(Schema.Array(AccountGroupId).check(
    Schema.isMinLength(1, { message: ApiKeyMessages.groupsEmpty }),
    Schema.isMaxLength(100),
  ))),
})
export type CreateApiKeyPayload = typeof CreateApiKeyPayload.Type

export const ApiKey = Schema.Struct({
  id: ApiKeyId,
  name: Schema.String,
  /** The role the key acts with (null when its custom role was deleted: the key then holds no permission). */
  role_id: Schema.NullOr(RoleId),
  is_custom_role: Schema.Boolean,
  role_name: Schema.NullOr(Schema.String),
  account_group_ids: Schema.NullOr(Schema.Array(AccountGroupId)),
  /** `ca_live_` and the secret's last four characters: enough to recognise a key, never to use it. */
  prefix: Schema.String,
  last_four: Schema.String,
  created_by: Schema.Struct({ id: UserId, email: Schema.String, name: Schema.String }),
  created_at: Timestamp,
  expires_at: Timestamp,
  last_used_at: NullableTimestamp,
  last_used_ip: Schema.NullOr(Schema.String),
  revoked_at: NullableTimestamp,
  /** active, expired or revoked, as of the answer. */
  status: Schema.Literals(["active", "expired", "revoked"]),
})
export type ApiKey = typeof ApiKey.Type

/** The member's own keys; a workspace admin's list holds every key of the workspace. */
export const ApiKeysResponse = withData(Schema.Array(ApiKey))
export type ApiKeysResponse = typeof ApiKeysResponse.Type

/** The creation answer: the key and, this once, its secret. */
export const ApiKeyCreatedResponse = Schema.Struct({
  ok: Schema.Boolean,
  message: Schema.String,
  data: Schema.Struct({ ...ApiKey.fields, secret: Schema.String }),
})
export type ApiKeyCreatedResponse = typeof ApiKeyCreatedResponse.Type

export const ApiKeyRevokeResponse = OkMessage

export const ApiKeyIdParams = Schema.Struct({ id: idParam(ApiKeyId) })
