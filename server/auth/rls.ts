/**
 * Row-level-security scope for one transaction. Every query of the API that touches workspace-owned tables runs inside
 * `inScope(scope)(effect)`: it opens a transaction, switches to the non-owner role `cloud_audit_app` when the
 * connection may (embedded PGlite connects as a superuser, which would bypass RLS) and sets the transaction-local
 * settings the policies of migration 0002 read. Unset settings are NULL and match nothing (fail closed).
 *
 * Do not nest scopes: an inner scope would overwrite the outer settings for the rest of the transaction.
 */
import { Context, Effect, Semaphore } from "effect"
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

/**
 * `inScope` for an authenticated request, with the session check folded into the statement that sets the scope: one
 * round trip answers whether the access token's session (refresh-token family) is still alive, so a revoked session
 * ends access at once without a transaction of its own. The check runs as the connecting role (the role switch of
 * the same statement applies to the statements after it); refresh_token_families has no row-level security.
 * `onRevoked` is failed with when the session is not alive.
 */
export const inScopeForSession = <E2>(scope: RlsScope & { readonly userId: number }, sessionId: string, onRevoked: () => E2) =>
<A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const valid = /^[0-9a-f-]{36}$/i.test(sessionId)
    return yield* serialized(sql.withTransaction(Effect.gen(function* () {
      const rows = yield* sql<{ alive: boolean | null }>`SELECT
          set_config('app.workspace_id', ${text(scope.workspaceId)}, true),
          set_config('app.user_id', ${text(scope.userId)}, true),
          set_config('app.invitation_token_hash', ${text(scope.invitationTokenHash)}, true),
          CASE WHEN current_user <> ${API_ROLE} AND pg_has_role(current_user, ${API_ROLE}, 'MEMBER')
               THEN set_config('role', ${API_ROLE}, true) END,
          EXISTS (SELECT 1 FROM refresh_token_families
                  WHERE id = ${valid ? sessionId : "00000000-0000-0000-0000-000000000000"}::uuid
                    AND user_id = ${scope.userId} AND revoked_at IS NULL) AS alive`
      if (!valid || rows[0]?.alive !== true) return yield* Effect.fail(onRevoked())
      return yield* effect
    })))
  })

export const inScope = (scope: RlsScope) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* serialized(sql.withTransaction(Effect.andThen(setScope(scope), effect)))
  })

/**
 * Runs `effect` in its own transaction (a savepoint when one is already open). Every statement of the identity area
 * runs inside a transaction: on embedded PGlite all socket connections share one backend session and pglite-socket
 * only keeps other connections out while a transaction is open, so a bare extended-protocol statement can have its
 * unnamed portal replaced by another connection's statement ("portal does not exist"). See docs/identity.md.
 */
export const standalone = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => serialized(sql.withTransaction(effect)))

/**
 * On PGlite, top-level transactions of this process are also serialised (one at a time per SqlClient), which keeps
 * this area's statements from interleaving at the protocol-message level inside pglite-socket. PGlite executes one
 * statement at a time anyway, so nothing is lost; on PostgreSQL this is a no-op. Reentrant: nested calls pass.
 */
const HoldsGate = Context.Reference<boolean>("cloud-audit/auth/rls/HoldsGate", { defaultValue: () => false })
const gates = new WeakMap<SqlClient.SqlClient, Promise<Semaphore.Semaphore | undefined>>()

const gateFor = (sql: SqlClient.SqlClient): Effect.Effect<Semaphore.Semaphore | undefined> => {
  let gate = gates.get(sql)
  if (gate === undefined) {
    // Decided once per client, under a provisional gate so the probe itself cannot interleave.
    const probeGate = Semaphore.makeUnsafe(1)
    gate = Effect.runPromise(
      probeGate.withPermits(1)(
        sql.withTransaction(sql<{ v: string }>`SELECT version() AS v`).pipe(
          Effect.map((rows) => (/pglite/i.test(rows[0]?.v ?? "") ? probeGate : undefined)),
          Effect.catchCause(() => Effect.succeed(probeGate)),
        ),
      ),
    )
    gates.set(sql, gate)
  }
  const pending = gate
  return Effect.promise(() => pending)
}

export const serialized = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | SqlClient.SqlClient> =>
  Effect.gen(function* () {
    if (yield* HoldsGate) return yield* effect
    const sql = yield* SqlClient.SqlClient
    const gate = yield* gateFor(sql)
    if (gate === undefined) return yield* effect
    return yield* gate.withPermits(1)(Effect.provideService(effect, HoldsGate, true))
  })

/**
 * For work forked off a request (mail delivery): it must queue for the gate like any other transaction instead of
 * inheriting the request's permit, which is released while the forked fiber may still run.
 */
export const detached = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.provideService(effect, HoldsGate, false)
