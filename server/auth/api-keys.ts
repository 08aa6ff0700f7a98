/**
 * API keys (issue 33; docs/api-keys.md, migration 0025, contract src/contracts/api-keys.ts).
 *
 * - A secret is `ca_live_` + 32 random bytes (base64url). Only its hex SHA-256 is stored (`secret_hash`) with its last
 *   four characters; the creation answer is the only place the secret ever appears.
 * - `findPresentedKey` looks a presented secret up by its hash (one short transaction that also records the last use:
 *   time and client address; the first use is audited `api_key.first_used`), compares the stored hash in constant
 *   time, and says whether the key is revoked or expired. Nothing is cached: a revocation or an expiry holds from the next request on.
 * - `keyGrant` reads, in the request's scope (after its member's scope statement), what the key's own role allows: the
 *   role's permission ids now, and the accounts the role's groups and the key's groups hold now. The request then
 *   acts with the intersection of those and of its creator's current permissions and accounts
 *   (server/api/middleware/workspace-scope.ts), so a member who loses a permission, an account or their membership
 *   takes it from their keys at once.
 * - `listKeys`, `createKey`, `revokeKey`: the management calls (server/api/api-keys.ts), audited in the identity
 *   audit log (`api_key.created`, `api_key.revoked`; with `api_key.first_used`).
 */
import { Effect } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import { API_KEY_PREFIX, ApiKeyMessages as M, type ApiKey, type CreateApiKeyPayload } from "../../src/contracts/api-keys.ts"
import { Forbidden, NotFound } from "../../src/contracts/errors.ts"
import { PERMISSION_IDS, type PermissionName } from "../../src/contracts/permissions.ts"
import { record } from "../audit/audit-log.ts"
import { randomToken, safeEqual, sha256Hex } from "./crypto.ts"
import { canGrant, resolveRole } from "./roles.ts"
import { parseAccountLimit, standalone } from "./rls.ts"
import type { WorkspaceContext } from "./workspace-context.ts"

/** A fresh secret, its stored hash and the last four characters the list shows. */
export const newSecret = () => {
  const secret = `${API_KEY_PREFIX}${randomToken(32)}`
  return { secret, hash: sha256Hex(secret), lastFour: secret.slice(-4) }
}

export interface PresentedKey {
  readonly id: number
  readonly workspaceId: number
  readonly userId: number
  readonly secretHash: string
  readonly revoked: boolean
  readonly expired: boolean
}

/**
 * The key whose secret was presented (undefined: no such key). A valid key's last use is recorded in the same
 * transaction. The lookup sees the row through the `app.api_key_hash` policy (migration 0025): no workspace is in
 * scope yet.
 */
export const findPresentedKey = (secret: string, ip: string) =>
  standalone(Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const hash = sha256Hex(secret)
    yield* sql`SELECT set_config('app.api_key_hash', ${hash}, true)`
    const rows = yield* sql<{ id: number; workspace_id: number; user_id: number; secret_hash: string; revoked: boolean; expired: boolean }>`
      SELECT id, workspace_id, user_id, secret_hash, revoked_at IS NOT NULL AS revoked, expires_at <= now() AS expired
      FROM api_keys WHERE secret_hash = ${hash}`
    const row = rows[0]
    if (row === undefined || !safeEqual(row.secret_hash, hash)) return undefined
    if (!row.revoked && !row.expired) {
      // The previous last use is read under the row lock, so two first requests at once audit one first use.
      const used = yield* sql<{ first_use: boolean }>`
        UPDATE api_keys k SET last_used_at = now(), last_used_ip = ${ip}
        FROM (SELECT id, last_used_at FROM api_keys WHERE id = ${row.id} FOR UPDATE) prev
        WHERE k.id = prev.id
        RETURNING prev.last_used_at IS NULL AS first_use`
      if (used[0]?.first_use === true) {
        // The audit row belongs to the key's workspace: that workspace is put in scope for the insert.
        yield* sql`SELECT set_config('app.workspace_id', ${String(row.workspace_id)}, true)`
        yield* record({
          action: "api_key.first_used", workspaceId: row.workspace_id, actorUserId: row.user_id, targetType: "api_key", targetId: row.id, ip,
        })
      }
    }
    return {
      id: row.id, workspaceId: row.workspace_id, userId: row.user_id, secretHash: row.secret_hash, revoked: row.revoked, expired: row.expired,
    } satisfies PresentedKey
  }))

export interface KeyGrant {
  /** Permission ids of the key's role now (empty when its custom role was deleted). */
  readonly granted: ReadonlyArray<number>
  /** The accounts of the key's custom role's groups (null: the role is not limited). */
  readonly roleAccounts: ReadonlyArray<number> | null
  /** The accounts of the key's own groups (null: the key has none). */
  readonly keyAccounts: ReadonlyArray<number> | null
  readonly roleGroupIds: ReadonlyArray<number> | null
  readonly keyGroupIds: ReadonlyArray<number> | null
}

/** What the key's own role and groups allow now; read inside the request's scope. */
export const keyGrant = Effect.fn("ApiKeys.grant")(function* (keyId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{
    granted: ReadonlyArray<number>
    role_accounts: string | null
    key_accounts: string | null
    role_groups: ReadonlyArray<number> | null
    key_groups: ReadonlyArray<number> | null
  }>`
    SELECT ARRAY(SELECT rp.permission_id::int FROM role_permissions rp WHERE rp.role_id = k.role_id
                 UNION ALL
                 SELECT crp.permission_id::int FROM custom_role_permissions crp WHERE crp.custom_role_id = k.custom_role_id) AS granted,
           CASE WHEN cr.limited_to_groups THEN app_role_account_ids(k.workspace_id, k.custom_role_id) END AS role_accounts,
           CASE WHEN k.account_group_ids IS NOT NULL THEN app_groups_account_ids(k.workspace_id, k.account_group_ids) END AS key_accounts,
           CASE WHEN cr.limited_to_groups THEN ARRAY(
             SELECT g.group_id FROM custom_role_account_groups g WHERE g.custom_role_id = cr.id ORDER BY g.group_id) END AS role_groups,
           k.account_group_ids AS key_groups
    FROM api_keys k LEFT JOIN custom_roles cr ON cr.id = k.custom_role_id AND cr.workspace_id = k.workspace_id
    WHERE k.id = ${keyId} AND k.workspace_id = app_current_workspace_id()`
  const row = rows[0]
  if (row === undefined) return undefined
  return {
    granted: row.granted,
    roleAccounts: row.role_accounts === null ? null : parseAccountLimit(row.role_accounts),
    keyAccounts: row.key_accounts === null ? null : parseAccountLimit(row.key_accounts),
    roleGroupIds: row.role_groups,
    keyGroupIds: row.key_groups,
  } satisfies KeyGrant
})

/** The intersection of account limits (null: unlimited). */
export const intersectLimits = (...limits: ReadonlyArray<ReadonlyArray<number> | null>): ReadonlyArray<number> | null =>
  limits.reduce<ReadonlyArray<number> | null>(
    (acc, limit) => (limit === null ? acc : acc === null ? [...limit].sort((a, b) => a - b) : acc.filter((id) => limit.includes(id))),
    null,
  )

/**
 * What a request made with a key may do (docs/api-keys.md): its creator's current permissions that the key's role
 * also grants, and its creator's accounts intersected with the key's role's and the key's own groups' accounts.
 * The request scope (server/api/middleware/workspace-scope.ts) and a batch started with the key
 * (server/scans/remediation-batches.ts, at each item) both decide by it.
 */
export const keyEffectiveGrant = (
  member: { readonly permissions: ReadonlyArray<PermissionName>; readonly accountIds: ReadonlyArray<number> | null },
  grant: KeyGrant,
) => ({
  permissions: member.permissions.filter((p) => grant.granted.includes(PERMISSION_IDS[p])),
  accountIds: intersectLimits(member.accountIds, grant.roleAccounts, grant.keyAccounts),
})

// ---- management ---------------------------------------------------------------------------------------------------

interface KeyRow {
  id: number
  name: string
  role_id: number | null
  custom_role_id: number | null
  role_name: string | null
  account_group_ids: ReadonlyArray<number> | null
  last_four: string
  user_id: number
  email: string
  first_name: string
  last_name: string
  created_at: Date
  expires_at: Date
  last_used_at: Date | null
  last_used_ip: string | null
  revoked_at: Date | null
  expired: boolean
}

const toApiKey = (r: KeyRow): ApiKey => ({
  id: r.id as ApiKey["id"],
  name: r.name,
  role_id: (r.custom_role_id ?? r.role_id) as ApiKey["role_id"],
  is_custom_role: r.custom_role_id !== null,
  role_name: r.role_name,
  account_group_ids: r.account_group_ids as ApiKey["account_group_ids"],
  prefix: API_KEY_PREFIX,
  last_four: r.last_four,
  created_by: {
    id: r.user_id as ApiKey["created_by"]["id"],
    email: r.email,
    name: [r.first_name, r.last_name].filter((s) => s !== "").join(" ") || r.email,
  },
  created_at: r.created_at.toISOString(),
  expires_at: r.expires_at.toISOString(),
  last_used_at: r.last_used_at?.toISOString() ?? null,
  last_used_ip: r.last_used_ip,
  revoked_at: r.revoked_at?.toISOString() ?? null,
  status: r.revoked_at !== null ? "revoked" : r.expired ? "expired" : "active",
})

const selectKeys = (sql: SqlClient.SqlClient, where: Statement.Fragment) =>
  sql<KeyRow>`
    SELECT k.id, k.name, k.role_id, k.custom_role_id, coalesce(r.name, cr.name) AS role_name, k.account_group_ids, k.last_four,
           k.user_id, u.email, u.first_name, u.last_name,
           k.created_at, k.expires_at, k.last_used_at, k.last_used_ip, k.revoked_at,
           k.expires_at <= now() AS expired
    FROM api_keys k
    JOIN users u ON u.id = k.user_id
    LEFT JOIN roles r ON r.id = k.role_id
    LEFT JOIN custom_roles cr ON cr.id = k.custom_role_id
    WHERE k.workspace_id = app_current_workspace_id() AND ${where}
    ORDER BY k.revoked_at IS NOT NULL, k.created_at DESC, k.id DESC`

/** The caller's own keys; every key of the workspace when `everyone` (a workspace admin). */
export const listKeys = Effect.fn("ApiKeys.list")(function* (ctx: WorkspaceContext, everyone: boolean) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* selectKeys(sql, everyone ? sql`true` : sql`k.user_id = ${ctx.userId}`)
  return rows.map(toApiKey)
})

/**
 * Creates a key for the caller. The role must be one the caller may grant (`canGrant`: only permissions they hold;
 * when their own role is limited to account groups, only within those groups), and the key's groups must exist.
 */
export const createKey = Effect.fn("ApiKeys.create")(function* (ctx: WorkspaceContext, payload: CreateApiKeyPayload) {
  const sql = yield* SqlClient.SqlClient
  const role = yield* resolveRole(payload.role_id, payload.is_custom_role)
  if (role === undefined) return yield* new NotFound({ message: M.roleNotFound })
  const groups = payload.account_group_ids === undefined || payload.account_group_ids === null
    ? null
    : [...new Set(payload.account_group_ids as ReadonlyArray<number>)].sort((a, b) => a - b)
  if (groups !== null) {
    const found = yield* sql<{ id: number }>`
      SELECT id FROM account_groups WHERE workspace_id = app_current_workspace_id() AND id IN ${sql.in(groups)}`
    if (found.length !== groups.length) return yield* new NotFound({ message: M.groupNotFound })
  }
  if (!ctx.isOwner && !role.permissions.every((p) => ctx.permissions.includes(p))) return yield* new Forbidden({ message: M.roleTooWide })
  if (!canGrant(ctx, role.permissions, groups ?? role.accountGroupIds)) return yield* new Forbidden({ message: M.groupsTooWide })
  const { secret, hash, lastFour } = newSecret()
  const inserted = yield* sql<{ id: number }>`
    INSERT INTO api_keys (workspace_id, user_id, name, role_id, custom_role_id, account_group_ids, secret_hash, last_four, expires_at)
    VALUES (${ctx.workspaceId}, ${ctx.userId}, ${payload.name.trim()}, ${role.roleId}, ${role.customRoleId},
            ${groups === null ? null : `{${groups.join(",")}}`}::integer[], ${hash}, ${lastFour},
            now() + make_interval(days => ${payload.expires_in_days}))
    RETURNING id`
  const id = inserted[0]!.id
  yield* record({
    action: "api_key.created", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "api_key", targetId: id, ip: ctx.ip,
    details: { name: payload.name.trim(), role: role.name, account_group_ids: groups, expires_in_days: payload.expires_in_days, last_four: lastFour },
  })
  const rows = yield* selectKeys(sql, sql`k.id = ${id}`)
  return { ...toApiKey(rows[0]!), secret }
})

/**
 * Revokes a key at once: the caller's own, or any key of the workspace for a workspace admin (`everyone`). Another
 * member's key is "not found" to anyone else. Revoking a revoked key changes nothing (and is not audited again).
 */
export const revokeKey = Effect.fn("ApiKeys.revoke")(function* (ctx: WorkspaceContext, keyId: number, everyone: boolean) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ user_id: number; name: string; revoked: boolean }>`
    SELECT user_id, name, revoked_at IS NOT NULL AS revoked FROM api_keys
    WHERE id = ${keyId} AND workspace_id = app_current_workspace_id() FOR UPDATE`
  const row = rows[0]
  if (row === undefined || (!everyone && row.user_id !== ctx.userId)) return yield* new NotFound({ message: M.keyNotFound })
  if (row.revoked) return
  yield* sql`UPDATE api_keys SET revoked_at = now(), revoked_by = ${ctx.userId} WHERE id = ${keyId}`
  yield* record({
    action: "api_key.revoked", workspaceId: ctx.workspaceId, actorUserId: ctx.userId, targetType: "api_key", targetId: keyId, ip: ctx.ip,
    details: { name: row.name, owner_user_id: row.user_id },
  })
})
