/**
 * User lookups and the contract's `User` answer (access §3: email, email_verified, names, workspace_name, roles,
 * timezone with label and offset). The users table is not workspace-owned (no RLS); the workspace part is read
 * through the caller's own membership, which the RLS scope of the signed-in user makes visible.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { User } from "../../src/contracts/auth.ts"
import type { RoleId, UserId } from "../../src/contracts/ids.ts"
import { describeTimezone, isValidTimezone } from "./timezones.ts"
import { standalone } from "./rls.ts"

export interface UserRow {
  readonly id: number
  readonly email: string
  readonly email_verified: boolean
  readonly pending_email: string | null
  readonly password_hash: string
  readonly first_name: string
  readonly last_name: string
  readonly timezone: string
  readonly last_login_at: Date | null
}

export const normalizeEmail = (email: string): string => email.trim().toLowerCase()

/** A valid IANA timezone, else UTC (browsers occasionally report names Intl does not know). */
export const normalizeTimezone = (tz: string | undefined): string => {
  const t = tz?.trim()
  return t !== undefined && t !== "" && isValidTimezone(t) ? t : "UTC"
}

const findUserByEmailUnsafe = Effect.fn("Users.findByEmail")(function* (email: string) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<UserRow>`SELECT id, email, email_verified, pending_email, password_hash, first_name, last_name,
      timezone, last_login_at FROM users WHERE email = ${normalizeEmail(email)}`
  return rows[0]
})
export const findUserByEmail: typeof findUserByEmailUnsafe = (...args) => standalone(findUserByEmailUnsafe(...args))

/** The user whose login email or pending (not yet verified) new email is `email`. */
const findUserByAnyEmailUnsafe = Effect.fn("Users.findByAnyEmail")(function* (email: string) {
  const sql = yield* SqlClient.SqlClient
  const e = normalizeEmail(email)
  const rows = yield* sql<UserRow>`SELECT id, email, email_verified, pending_email, password_hash, first_name, last_name,
      timezone, last_login_at FROM users WHERE email = ${e} OR pending_email = ${e}
      ORDER BY (email = ${e}) DESC LIMIT 1`
  return rows[0]
})
export const findUserByAnyEmail: typeof findUserByAnyEmailUnsafe = (...args) => standalone(findUserByAnyEmailUnsafe(...args))

const findUserByIdUnsafe = Effect.fn("Users.findById")(function* (id: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<UserRow>`SELECT id, email, email_verified, pending_email, password_hash, first_name, last_name,
      timezone, last_login_at FROM users WHERE id = ${id}`
  return rows[0]
})
export const findUserById: typeof findUserByIdUnsafe = (...args) => standalone(findUserByIdUnsafe(...args))

/** The `User` of access §3 as seen in `workspaceId` (roles and workspace_name empty when no workspace is chosen). */
export const buildUser = Effect.fn("Users.build")(function* (user: UserRow, workspaceId: number | undefined) {
  const sql = yield* SqlClient.SqlClient
  const membership = workspaceId === undefined ? [] : yield* sql<{
    workspace_name: string; is_owner: boolean; role_id: number | null; custom_role_id: number | null; role_name: string | null
  }>`SELECT w.name AS workspace_name, w.owner_id = ${user.id} AS is_owner, m.role_id, m.custom_role_id,
            coalesce(r.name, cr.name) AS role_name
     FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
     LEFT JOIN roles r ON r.id = m.role_id LEFT JOIN custom_roles cr ON cr.id = m.custom_role_id
     WHERE m.user_id = ${user.id} AND m.workspace_id = ${workspaceId}`
  const m = membership[0]
  const roleId = m?.role_id ?? m?.custom_role_id ?? null
  const answer: User = {
    id: user.id as UserId,
    email: user.email,
    email_verified: user.email_verified,
    first_name: user.first_name,
    last_name: user.last_name,
    workspace_name: m?.workspace_name ?? null,
    roles: m !== undefined && roleId !== null && m.role_name !== null
      ? [{ id: roleId as RoleId, name: m.role_name, is_custom: m.custom_role_id !== null }]
      : [],
    timezone: describeTimezone(normalizeTimezone(user.timezone)),
    is_owner: m?.is_owner ?? false,
  }
  return answer
})
