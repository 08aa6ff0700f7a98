/**
 * Row-level-security scope for one transaction. Every query of the API that touches workspace-owned tables runs inside
 * `inScope(scope)(effect)`: it opens a transaction, switches to the non-owner role `cloud_audit_app` when the
 * connection may (embedded PGlite connects as a superuser, which would bypass RLS) and sets the transaction-local
 * settings the policies of migration 0002 read. Unset settings are NULL and match nothing (fail closed).
 *
 * Do not nest scopes: an inner scope would overwrite the outer settings for the rest of the transaction.
 */
import { Context, Effect, Semaphore } from "effect"
import { SqlClient, type Statement } from "effect/sql"

export const API_ROLE = "cloud_audit_app"

export interface RlsScope {
  /** The workspace the request acts in (X-Workspace-ID after the membership check, or a workspace being created). */
  readonly workspaceId?: number | undefined
  /** The signed-in user: their own memberships and workspaces stay visible across workspaces. */
  readonly userId?: number | undefined
  /** SHA-256 of an invitation token being checked or accepted: that one invitation (and its workspace) is visible. */
  readonly invitationTokenHash?: string | undefined
  /**
   * The accounts a member limited to account groups may see (migration 0023 `app.account_ids`); undefined or null:
   * every account of the workspace. `inScopeForMember` computes it itself; a later scope of the same request (a
   * streamed export's pages) passes the context's `accountIds` on.
   */
  readonly accountIds?: ReadonlyArray<number> | null | undefined
}

const text = (v: number | string | undefined): string => (v === undefined ? "" : String(v))

/** `app.account_ids` of a scope: '' unlimited, '{1,2}' those accounts, '{}' none. */
export const accountLimitSetting = (ids: ReadonlyArray<number> | null | undefined): string =>
  ids === null || ids === undefined ? "" : `{${ids.map((id) => Math.trunc(id)).join(",")}}`

/** The inverse of `accountLimitSetting` (null: unlimited). */
export const parseAccountLimit = (setting: string | null | undefined): ReadonlyArray<number> | null =>
  setting === null || setting === undefined || setting === "" ? null
    : setting.replace(/[{}]/g, "").split(",").filter((s) => s !== "").map(Number)

const NO_SESSION = "00000000-0000-0000-0000-000000000000"
const isSessionId = (sessionId: string) => /^[0-9a-f-]{36}$/i.test(sessionId)

/**
 * The scope's transaction-local settings as columns `wid`, `uid`, `inv`, `aids` of one statement (the policies read
 * them). Every scope sets all four, so none is inherited from an earlier scope of the same transaction.
 */
const scopeSettings = (sql: SqlClient.SqlClient, scope: RlsScope) => sql`
  set_config('app.workspace_id', ${text(scope.workspaceId)}, true) AS wid,
  set_config('app.user_id', ${text(scope.userId)}, true) AS uid,
  set_config('app.invitation_token_hash', ${text(scope.invitationTokenHash)}, true) AS inv,
  set_config('app.account_ids', ${accountLimitSetting(scope.accountIds)}, true) AS aids`

/** Switches to the API role for the rest of the transaction when the connecting role may (not a superuser's PGlite). */
const roleSwitch = (sql: SqlClient.SqlClient) =>
  sql`CASE WHEN current_user <> ${API_ROLE} AND pg_has_role(current_user, ${API_ROLE}, 'MEMBER')
           THEN set_config('role', ${API_ROLE}, true) END`

/** Whether the access token's session (refresh-token family) of `userId` is alive; a malformed id never is. */
const sessionAlive = (sql: SqlClient.SqlClient, sessionId: string, userId: number) =>
  sql`EXISTS (SELECT 1 FROM refresh_token_families
              WHERE id = ${isSessionId(sessionId) ? sessionId : NO_SESSION}::uuid AND user_id = ${userId} AND revoked_at IS NULL)`

/**
 * An API key presented by a request (server/auth/api-keys.ts): its id and the SHA-256 of the secret presented. Where a
 * session id stands for a signed-in user, this stands for a key: the scope statement checks the key is still valid
 * (not revoked, not expired, of that workspace and creator) instead of a session.
 */
export interface ApiKeyCredential {
  readonly apiKeyId: number
  readonly secretHash: string
}

/** Whether the request's credential is alive: the session (refresh-token family), or the API key. */
const credentialAlive = (sql: SqlClient.SqlClient, credential: string | ApiKeyCredential, scope: { readonly workspaceId: number; readonly userId: number }) =>
  typeof credential === "string"
    ? sessionAlive(sql, credential, scope.userId)
    : sql`EXISTS (SELECT 1 FROM api_keys WHERE id = ${credential.apiKeyId} AND secret_hash = ${credential.secretHash}
                  AND workspace_id = ${scope.workspaceId} AND user_id = ${scope.userId} AND revoked_at IS NULL AND expires_at > now())`

const credentialShaped = (credential: string | ApiKeyCredential): boolean =>
  typeof credential === "string" ? isSessionId(credential) : /^[0-9a-f]{64}$/.test(credential.secretHash)

/** Sets the scope inside an already open transaction (used by `inScope`, and to widen it after creating a workspace). */
export const setScope = (scope: RlsScope) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`SELECT ${scopeSettings(sql, scope)}, ${roleSwitch(sql)}`
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
    return yield* serialized(sql.withTransaction(Effect.gen(function* () {
      const rows = yield* sql<{ alive: boolean | null }>`
        SELECT ${scopeSettings(sql, scope)}, ${roleSwitch(sql)}, ${sessionAlive(sql, sessionId, scope.userId)} AS alive`
      if (!isSessionId(sessionId) || rows[0]?.alive !== true) return yield* Effect.fail(onRevoked())
      return yield* effect
    })))
  })

/** The caller's membership row as `inScopeForMember` reads it (undefined: not a member, or the workspace is unknown). */
export interface MembershipRow {
  readonly workspace_name: string
  readonly is_owner: boolean
  readonly role_id: number | null
  readonly custom_role_id: number | null
  readonly role_name: string | null
  /**
   * Permission ids (`permissions.id`, fixed by src/contracts/permissions.ts PERMISSION_IDS) of the member's role; NULL
   * for the owner (who holds every permission).
   */
  readonly granted: ReadonlyArray<number> | null
  /** The account groups the member's custom role is limited to; NULL: not limited (owner, built-in or unlimited role). */
  readonly account_group_ids: ReadonlyArray<number> | null
  /** What the statement set as `app.account_ids` (migration 0023): '' unlimited, else the allowed ids as '{1,2}'. */
  readonly account_ids: string
}

/**
 * The membership of user `uid` in workspace `wid` as one row of `MembershipRow` columns (plus `is_member`, and
 * `account_ids` as computed, not yet set): no row when they are not a member. The request's scope statement
 * (`inScopeForMember`) reads it for the caller; a job acting in a member's name (server/scans/remediation-batches.ts)
 * reads it with `readMembership`, so both decide what the member holds by the same rules.
 */
const membershipOf = (sql: SqlClient.SqlClient, wid: Statement.Fragment, uid: Statement.Fragment) => sql`
          SELECT true AS is_member, w.name AS workspace_name, w.owner_id = ${uid} AS is_owner, m.role_id, m.custom_role_id,
                 coalesce(r.name, cr.name) AS role_name,
                 CASE WHEN w.owner_id = ${uid} THEN NULL ELSE ARRAY(
                   SELECT rp.permission_id::int FROM role_permissions rp WHERE rp.role_id = m.role_id
                   UNION ALL
                   SELECT crp.permission_id::int FROM custom_role_permissions crp WHERE crp.custom_role_id = m.custom_role_id) END AS granted,
                 CASE WHEN cr.limited_to_groups AND w.owner_id <> ${uid} THEN ARRAY(
                   SELECT g.group_id FROM custom_role_account_groups g
                   WHERE g.workspace_id = m.workspace_id AND g.custom_role_id = m.custom_role_id ORDER BY g.group_id) END AS account_group_ids,
                 CASE WHEN cr.limited_to_groups AND w.owner_id <> ${uid}
                      THEN app_role_account_ids(m.workspace_id, m.custom_role_id) ELSE '' END AS account_ids
          FROM memberships m
          JOIN workspaces w ON w.id = m.workspace_id
          LEFT JOIN roles r ON r.id = m.role_id
          LEFT JOIN custom_roles cr ON cr.id = m.custom_role_id
          WHERE m.workspace_id = ${wid} AND m.user_id = ${uid}`

/**
 * The membership of `userId` in `workspaceId` now (undefined: not a member), read by the rules of the request scope
 * (`membershipOf`) inside an already open scope of that workspace: for work done later in a member's name (a job).
 */
export const readMembership = (workspaceId: number, userId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<MembershipRow>`${membershipOf(sql, sql`${workspaceId}::int`, sql`${userId}::int`)}`
    return rows[0]
  })

/**
 * `inScopeForSession` for a workspace-scoped request, with the caller's membership (role and granted permissions)
 * read in the SAME statement: BEGIN, one statement (scope + session liveness + membership), the handler's statements,
 * COMMIT. The scope is set in a materialised CTE and the membership is a LATERAL subquery keyed on the values
 * `set_config` returned, so it is evaluated after the settings exist: a connecting role that row-level security
 * applies to (a table owner under FORCE) sees the caller's own membership through the policies, a superuser
 * (embedded PGlite) bypasses them; either way the lookup is filtered to (workspace, user) explicitly. The role
 * switch of the statement applies to the handler's statements after it, exactly as with `setScope`. Permissions come
 * as ids (no join with `permissions`: a smaller plan to start on every request); `permissions` holds exactly the
 * contract's PERMISSION_IDS (migration 0002, not writable by the API role).
 * The same statement fixes which accounts the member may see (migration 0023): for a custom role limited to account
 * groups, `app_role_account_ids` computes the allowed accounts and the outer select list sets them as `app.account_ids`
 * (after the lateral, whose value it takes); the owner, built-in roles and unlimited roles leave it '' (the CASE never
 * calls the function for them). Not a member, or a dead session: '{}' (no account; the body does not run anyway).
 * `body` gets the membership row (undefined when the caller is not a member); a dead session fails with `onRevoked`.
 */
export const inScopeForMember = <E2, A, E, R>(
  scope: { readonly workspaceId: number; readonly userId: number },
  sessionId: string | ApiKeyCredential,
  onRevoked: () => E2,
  body: (membership: MembershipRow | undefined) => Effect.Effect<A, E, R>,
) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* serialized(sql.withTransaction(Effect.gen(function* () {
      // An API key's row is visible to the transaction that presents its secret (migration 0025), whatever the scope.
      if (typeof sessionId !== "string") yield* sql`SELECT set_config('app.api_key_hash', ${sessionId.secretHash}, true)`
      const rows = yield* sql<MembershipRow & { alive: boolean | null; is_member: boolean | null; snapshot: string }>`
        WITH s AS MATERIALIZED (
          SELECT ${scopeSettings(sql, scope)}, ${roleSwitch(sql)} AS role, ${credentialAlive(sql, sessionId, scope)} AS alive
          OFFSET 0)
        SELECT s.alive, mb.is_member, mb.workspace_name, mb.is_owner, mb.role_id, mb.custom_role_id, mb.role_name, mb.granted,
               mb.account_group_ids,
               set_config('app.account_ids', CASE WHEN mb.is_member THEN mb.account_ids ELSE '{}' END, true) AS account_ids,
               pg_current_snapshot()::text AS snapshot
        FROM s LEFT JOIN LATERAL (${membershipOf(sql, sql`s.wid::int`, sql`s.uid::int`)} AND s.alive) mb ON true`
      const row = rows[0]
      if (!credentialShaped(sessionId) || row?.alive !== true) return yield* Effect.fail(onRevoked())
      const capture = yield* Effect.serviceOption(SnapshotCapture)
      if (capture._tag === "Some") capture.value.snapshot = row.snapshot
      return yield* body(row.is_member === true ? row : undefined)
    })))
  })

/**
 * Where `inScopeForMember` leaves the snapshot its scope statement ran under (`pg_current_snapshot()`, text), when
 * the caller provides one: the validated read cache (server/api/middleware/read-cache.ts) keeps it with the answer.
 * Under READ COMMITTED the handler's statements after it read newer snapshots, never older ones, so a change that
 * snapshot did not see is either in the answer or makes the cached answer stale: never the reverse.
 */
export class SnapshotCapture extends Context.Service<SnapshotCapture, { snapshot: string | undefined }>()(
  "cloud-audit/auth/rls/SnapshotCapture",
) {}

/** What `checkCachedRead` answers: the session is alive, the caller is still a member, nothing changed since. */
export interface CachedReadCheck {
  readonly alive: boolean
  readonly member: boolean
  readonly unchanged: boolean
}

/**
 * One statement, no transaction: is the answer cached for (workspace, user) under `snapshot` still what a full read
 * would give? It sets the same scope as `inScopeForMember` (a login role bound by row-level security reads through
 * the policies; a superuser bypasses them and the lookups filter explicitly), checks the session like every
 * authenticated request, the membership, and that `workspace_changes` (migration 0014) holds no transaction of this
 * workspace (or of workspace 0: a change without a scope) that `snapshot` did not see. Settings made with
 * `set_config(..., true)` end with the statement's own implicit transaction.
 */
export const checkCachedRead = (
  scope: { readonly workspaceId: number; readonly userId: number },
  sessionId: string,
  snapshot: string,
) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    if (!isSessionId(sessionId)) return { alive: false, member: false, unchanged: false } satisfies CachedReadCheck
    const rows = yield* serialized(sql<{ alive: boolean; member: boolean | null; unchanged: boolean | null }>`
      WITH s AS MATERIALIZED (
        SELECT ${scopeSettings(sql, scope)}, ${snapshot}::pg_snapshot AS snap, ${sessionAlive(sql, sessionId, scope.userId)} AS alive
        OFFSET 0)
      SELECT s.alive, c.member, c.unchanged
      FROM s LEFT JOIN LATERAL (
        SELECT EXISTS (SELECT 1 FROM memberships m WHERE m.workspace_id = s.wid::int AND m.user_id = s.uid::int) AS member,
               NOT EXISTS (SELECT 1 FROM workspace_changes wc
                           WHERE wc.workspace_id IN (s.wid::int, 0) AND wc.xid >= pg_snapshot_xmin(s.snap)
                             AND NOT pg_visible_in_snapshot(wc.xid, s.snap)) AS unchanged
        WHERE s.alive) c ON true`)
    const row = rows[0]
    return { alive: row?.alive === true, member: row?.member === true, unchanged: row?.unchanged === true } satisfies CachedReadCheck
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
/** The decided gates, so a request does not wait on an already settled promise (an async hop per transaction). */
const decided = new WeakMap<SqlClient.SqlClient, { readonly gate: Semaphore.Semaphore | undefined }>()

const gateFor = (sql: SqlClient.SqlClient): Effect.Effect<Semaphore.Semaphore | undefined> => {
  const known = decided.get(sql)
  if (known !== undefined) return Effect.succeed(known.gate)
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
    void gate.then((g) => decided.set(sql, { gate: g }))
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
