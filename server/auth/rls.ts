/**
 * Row-level-security scope for one transaction. Every query of the API that touches workspace-owned tables runs inside
 * `inScope(scope)(effect)`: it opens a transaction, switches to the non-owner role `cloud_audit_app` when the
 * connection may (embedded PGlite connects as a superuser, which would bypass RLS) and sets the transaction-local
 * settings the policies of migration 0002 read. Unset settings are NULL and match nothing (fail closed).
 *
 * Do not nest scopes: an inner scope would overwrite the outer settings for the rest of the transaction.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export const API_ROLE = "cloud_audit_app"

export interface RlsScope {
  /** The workspace the request acts in (X-Workspace-ID after the membership check, or a workspace being created). */
  readonly workspaceId?: number | undefined
  /** The signed-in user: their own memberships and workspaces stay visible across workspaces. */
  readonly userId?: number | undefined
  /** SHA-256 of an invitation token being checked or accepted: that one invitation (and its workspace) is visible. */
  readonly invitationTokenHash?: string | undefined
}

const text = (v: number | string | undefined): string => (v === undefined ? "" : String(v))

/** Sets the scope inside an already open transaction (used by `inScope`, and to widen it after creating a workspace). */
export const setScope = (scope: RlsScope) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`SELECT
        set_config('app.workspace_id', ${text(scope.workspaceId)}, true),
        set_config('app.user_id', ${text(scope.userId)}, true),
        set_config('app.invitation_token_hash', ${text(scope.invitationTokenHash)}, true),
        CASE WHEN current_user <> ${API_ROLE} AND pg_has_role(current_user, ${API_ROLE}, 'MEMBER')
             THEN set_config('role', ${API_ROLE}, true) END`
  })

export const inScope = (scope: RlsScope) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* sql.withTransaction(Effect.andThen(setScope(scope), effect))
  })
