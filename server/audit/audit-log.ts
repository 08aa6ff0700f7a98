/**
 * Append-only audit log (table audit_log, migration 0002: a trigger refuses UPDATE/DELETE/TRUNCATE and the API role
 * holds only INSERT and SELECT). Records sign-in, failed sign-in, role changes, invitations, member removal, password
 * changes and the other identity events listed in `AuditAction`.
 *
 * `record` inserts without RETURNING, so it works in any RLS scope: rows for a workspace need that workspace's scope,
 * rows without a workspace (sign-in events) are always insertable.
 *
 * An action done with an API key names the key: every insert into `audit_log` (here, server/audit/scanning-audit.ts,
 * server/integrations/audit.ts, server/integrations/webhooks-store.ts) merges `presentedKeyDetails` into `details`,
 * `{ api_key: { id, name } }` read from the key the request's transaction presented (`app.api_key_hash`, set by
 * `inScopeForMember` for a key: server/auth/rls.ts); a session's rows are unchanged. The actor stays the key's creator.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { standalone } from "../auth/rls.ts"

export type AuditAction =
  | "auth.signup"
  | "auth.sign_in"
  | "auth.sign_in_failed"
  | "auth.sign_in_rate_limited"
  | "auth.logout"
  | "auth.refresh_reuse_detected"
  | "auth.email_verified"
  | "auth.password_reset_requested"
  | "auth.password_reset"
  | "auth.password_changed"
  | "auth.email_change_requested"
  | "workspace.switched"
  | "member.added"
  | "member.updated"
  | "member.role_changed"
  | "member.removed"
  | "member.password_reset_sent"
  | "role.created"
  | "role.updated"
  | "role.deleted"
  | "invitation.sent"
  | "invitation.resent"
  | "invitation.canceled"
  | "invitation.accepted"
  | "sso.configured"
  | "sso.removed"
  | "auth.sso_sign_in"
  | "auth.sso_sign_in_failed"
  | "auth.sign_in_sso_required"
  | "api_key.created"
  | "api_key.revoked"
  | "api_key.first_used"

export interface AuditEntry {
  readonly action: AuditAction
  readonly workspaceId?: number | undefined
  readonly actorUserId?: number | undefined
  readonly targetType?: string | undefined
  readonly targetId?: string | number | undefined
  readonly details?: Record<string, unknown> | undefined
  readonly ip?: string | undefined
}

/**
 * `{ "api_key": { "id", "name" } }` of the API key this transaction's request presented, `{}` otherwise (a session, a
 * job): a jsonb expression to merge into an audit row's details. The key's row is visible through its own policy
 * (migration 0025 `api_keys_presented`), whatever the workspace scope.
 */
export const presentedKeyDetails = (sql: SqlClient.SqlClient) => sql`coalesce((
  SELECT jsonb_build_object('api_key', jsonb_build_object('id', k.id, 'name', k.name)) FROM api_keys k
  WHERE k.secret_hash = nullif(current_setting('app.api_key_hash', true), '')), '{}'::jsonb)`

const recordUnsafe = Effect.fn("AuditLog.record")(function* (entry: AuditEntry) {
  const sql = yield* SqlClient.SqlClient
  yield* sql`INSERT INTO audit_log (workspace_id, actor_user_id, action, target_type, target_id, details, ip)
    VALUES (${entry.workspaceId ?? null}, ${entry.actorUserId ?? null}, ${entry.action}, ${entry.targetType ?? null},
            ${entry.targetId === undefined ? null : String(entry.targetId)}, ${JSON.stringify(entry.details ?? {})}::jsonb || ${presentedKeyDetails(sql)},
            ${entry.ip ?? null})`
})
export const record: typeof recordUnsafe = (...args) => standalone(recordUnsafe(...args))
