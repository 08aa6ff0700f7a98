/**
 * API keys over real HTTP (issue 33; docs/api-keys.md, migration 0025, server/auth/api-keys.ts), on PGlite and
 * (TEST_DATABASE_URL set) PostgreSQL: the secret is shown once and stored only as its SHA-256; a key works as
 * `Authorization: Bearer` and as `X-API-Key` on every workspace call its role allows, and nowhere else (a read-only key
 * cannot write, a key cannot create keys, change a password or list workspaces); it never exceeds its creator, now
 * (a demoted or departed creator takes the key's access along); revocation and expiry hold from the next request;
 * a group-limited key sees only its groups' accounts; the per-key rate limit answers 429 with Retry-After; creation and
 * revocation are audited; the list shows the last use.
 */
import { Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { createHash } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AuthConfig, defaultAuthSettings } from "../../server/auth/auth-config.ts"
import { signAccessToken } from "../../server/auth/access-token.ts"
import { createSession } from "../../server/auth/refresh-tokens.ts"
import { inScope } from "../../server/auth/rls.ts"
import { API_KEY_PATTERN, ApiKeyCreatedResponse, ApiKeyMessages, ApiKeysResponse } from "../../src/contracts/api-keys.ts"
import { BuiltInRoleIds } from "../../src/contracts/permissions.ts"
import { makeTestDatabase, withSql } from "../support/db.ts"
import { startTestServer, type TestServer } from "../support/server.ts"
import { CHECKS, seedWorkspace, writeScan } from "../storage/support.ts"

const kinds: ReadonlyArray<"pglite" | "postgres"> = process.env["TEST_DATABASE_URL"] ? ["pglite", "postgres"] : ["pglite"]
const RATE = { limit: 40, windowSeconds: 60 }

interface Who {
  readonly userId: number
  readonly workspaceId: number
  readonly token: string
}

describe.each(kinds)("API keys over the API on %s", (kind) => {
  let server: TestServer
  let sql: <A>(effect: Effect.Effect<A, unknown, SqlClient.SqlClient>) => Promise<A>
  let owner: Who
  let engineer: Who
  let n = 0
  const ids = { a: 0, b: 0, scanA: 0, scanB: 0, groupA: 0 }

  const tokenFor = (userId: number, workspaceId: number) =>
    sql(Effect.gen(function* () {
      const session = yield* createSession(userId, workspaceId)
      return yield* signAccessToken({ userId, workspaceId, sessionId: session.familyId })
    }).pipe(Effect.provide(AuthConfig.layer(defaultAuthSettings({ secretKey: server.config.appSecretKey, appOrigin: server.baseUrl })) as Layer.Layer<AuthConfig>)))

  const user = () =>
    sql(Effect.flatMap(SqlClient.SqlClient, (q) =>
      q<{ id: number }>`INSERT INTO users (email, email_verified, password_hash) VALUES (${`keys-${kind}-${n++}@example.com`}, true, 'x') RETURNING id`))
      .then((r) => r[0]!.id)

  const send = async (headers: Record<string, string>, method: string, path: string, body?: unknown) => {
    if (body !== undefined) headers["content-type"] = "application/json"
    const res = await fetch(`${server.baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
    const text = await res.text()
    let parsed: unknown = text
    try { parsed = text === "" ? undefined : JSON.parse(text) } catch { /* a CSV export */ }
    return { status: res.status, body: parsed as any, headers: res.headers }
  }
  const call = (who: Who, method: string, path: string, body?: unknown) =>
    send({ authorization: `Bearer ${who.token}`, "x-workspace-id": String(who.workspaceId) }, method, path, body)
  const withKey = (secret: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    send({ authorization: `Bearer ${secret}`, ...headers }, method, path, body)
  const withHeader = (secret: string, method: string, path: string, body?: unknown) => send({ "x-api-key": secret }, method, path, body)

  const createKey = async (who: Who, payload: Record<string, unknown>) => {
    const res = await call(who, "POST", "/api/api-keys", { name: "CI", expires_in_days: 30, is_custom_role: false, ...payload })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return Schema.decodeUnknownSync(ApiKeyCreatedResponse)(res.body).data
  }

  beforeAll(async () => {
    server = await startTestServer({ worker: false, database: await makeTestDatabase({ kind }), auth: { apiKeyRequests: RATE } })
    sql = (effect) => withSql(server.databaseUrl, effect)
    const o = await user()
    const serviceId = await sql(Effect.flatMap(SqlClient.SqlClient, (q) =>
      q<{ id: number }>`INSERT INTO cloud_services (cloud_provider_id, key, name) VALUES (1, 'keysvc', 'KEYSVC') RETURNING id`)).then((r) => r[0]!.id)
    const ws = await sql(seedWorkspace(o, "Key Co", 2))
    ids.a = ws.accountIds[0]!
    ids.b = ws.accountIds[1]!
    await sql(Effect.flatMap(SqlClient.SqlClient, (q) =>
      q`INSERT INTO memberships (workspace_id, user_id, role_id) VALUES (${ws.workspaceId}, ${o}, ${BuiltInRoleIds.Admin})`))
    ids.scanA = await sql(writeScan(ws.workspaceId, ids.a, serviceId, { [CHECKS[0]]: ["fail", "pass"] }, 1))
    ids.scanB = await sql(writeScan(ws.workspaceId, ids.b, serviceId, { [CHECKS[0]]: ["fail", "pass"] }, 1))
    owner = { userId: o, workspaceId: ws.workspaceId, token: await tokenFor(o, ws.workspaceId) }
    const e = await user()
    await sql(Effect.flatMap(SqlClient.SqlClient, (q) =>
      q`INSERT INTO memberships (workspace_id, user_id, role_id) VALUES (${ws.workspaceId}, ${e}, ${BuiltInRoleIds.SecurityEngineer})`))
    engineer = { userId: e, workspaceId: ws.workspaceId, token: await tokenFor(e, ws.workspaceId) }
    const group = await call(owner, "POST", "/api/account-groups", { name: "Team A", kind: "manual", account_ids: [ids.a] })
    expect(group.status).toBe(200)
    ids.groupA = group.body.data.id
  }, 180_000)

  afterAll(async () => {
    await server?.stop()
  })

  it("shows the secret once, stores only its SHA-256, audits the creation, lists the key with its last use", async () => {
    const key = await createKey(owner, { name: "Reader", role_id: BuiltInRoleIds.Auditor })
    expect(key.secret).toMatch(API_KEY_PATTERN)
    expect(key).toMatchObject({ name: "Reader", role_id: BuiltInRoleIds.Auditor, role_name: "Auditor", prefix: "ca_live_", status: "active" })
    expect(key.last_four).toBe(key.secret.slice(-4))
    const rows = await sql(Effect.flatMap(SqlClient.SqlClient, (q) => q<Record<string, unknown>>`SELECT * FROM api_keys WHERE id = ${key.id}`))
    expect(rows[0]!["secret_hash"]).toBe(createHash("sha256").update(key.secret).digest("hex"))
    expect(JSON.stringify(rows[0])).not.toContain(key.secret.slice("ca_live_".length))
    const audit = await sql(Effect.flatMap(SqlClient.SqlClient, (q) =>
      q<{ action: string; actor_user_id: number; details: Record<string, unknown> }>`
        SELECT action, actor_user_id, details FROM audit_log WHERE target_type = 'api_key' AND target_id = ${String(key.id)}`))
    expect(audit).toEqual([expect.objectContaining({ action: "api_key.created", actor_user_id: owner.userId })])
    expect(JSON.stringify(audit)).not.toContain(key.secret)

    expect((await withKey(key.secret, "GET", "/api/scans")).status).toBe(200)
    const list = await call(owner, "GET", "/api/api-keys")
    expect(list.status).toBe(200)
    const listed = Schema.decodeUnknownSync(ApiKeysResponse)(list.body).data.find((k) => k.id === key.id)!
    expect(listed.last_used_at).not.toBeNull()
    expect(listed.last_used_ip).toMatch(/127\.0\.0\.1|::1/)
    expect(JSON.stringify(list.body)).not.toContain(key.secret)
  })

  it("a read-only key reads through either header and cannot write", async () => {
    const key = await createKey(owner, { name: "Read only", role_id: BuiltInRoleIds.Auditor })
    for (const send of [withKey, withHeader]) {
      const accounts = await send(key.secret, "GET", "/api/accounts?cloud_provider_id=1")
      expect(accounts.status, JSON.stringify(accounts.body)).toBe(200)
      expect(JSON.stringify(accounts.body)).toContain("Key Co 1")
      expect((await send(key.secret, "GET", `/api/scans/${ids.scanB}`)).status).toBe(200)
    }
    const write = await withKey(key.secret, "POST", "/api/mute-rules", { account_id: ids.a, reason: "accepted" })
    expect(write.status).toBe(403)
    expect(write.body._tag).toBe("Forbidden")
    const launch = { user_id: owner.userId, account_id: ids.a, cloud_provider_id: 1, cloud_provider_name: "aws" }
    expect((await withHeader(key.secret, "POST", "/api/scans", launch)).status).toBe(403)
    // The key acts as its role, not as its owner creator: no admin-only page.
    expect((await withKey(key.secret, "GET", `/api/workspaces/${owner.workspaceId}/storage`)).status).toBe(403)
    // An admin key of the owner reaches it.
    const admin = await createKey(owner, { name: "Admin", role_id: BuiltInRoleIds.Admin })
    expect((await withKey(admin.secret, "GET", `/api/workspaces/${owner.workspaceId}/storage`)).status).toBe(200)
  })

  it("a key cannot create keys, change a password or list workspaces (sign-in-only calls)", async () => {
    const key = await createKey(owner, { name: "Admin 2", role_id: BuiltInRoleIds.Admin })
    for (const [method, path, body] of [
      ["POST", "/api/api-keys", { name: "x", role_id: 3, is_custom_role: false, expires_in_days: 1 }],
      ["GET", "/api/api-keys", undefined],
      ["DELETE", `/api/api-keys/${key.id}`, undefined],
      ["POST", "/api/update-password", { current_password: "x", new_password: "Sup3rSecret!x", confirm_password: "Sup3rSecret!x" }],
      ["GET", "/api/workspaces", undefined],
      ["GET", "/api/user-info", undefined],
    ] as const) {
      const res = await withKey(key.secret, method, path, body)
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(403)
      expect(res.body).toMatchObject({ _tag: "Forbidden", message: ApiKeyMessages.signInOnly })
    }
    expect((await withHeader(key.secret, "POST", "/api/update-password", { current_password: "x", new_password: "Sup3rSecret!x", confirm_password: "Sup3rSecret!x" })).status).toBe(403)
  })

  it("a key never exceeds its creator: not at creation, and not after the creator is demoted or leaves", async () => {
    const wider = await call(engineer, "POST", "/api/api-keys", { name: "Too much", role_id: BuiltInRoleIds.Admin, is_custom_role: false, expires_in_days: 7 })
    expect(wider.status).toBe(403)
    expect(wider.body.message).toBe(ApiKeyMessages.roleTooWide)
    const key = await createKey(engineer, { name: "Fixer", role_id: BuiltInRoleIds.SecurityEngineer })
    expect((await withKey(key.secret, "POST", "/api/mute-rules", { account_id: ids.a, reason: "while engineer" })).status).toBe(200)
    await sql(Effect.flatMap(SqlClient.SqlClient, (q) =>
      q`UPDATE memberships SET role_id = ${BuiltInRoleIds.Auditor} WHERE workspace_id = ${engineer.workspaceId} AND user_id = ${engineer.userId}`))
    expect((await withKey(key.secret, "POST", "/api/mute-rules", { account_id: ids.a, reason: "after demotion" })).status).toBe(403)
    expect((await withKey(key.secret, "GET", "/api/scans")).status).toBe(200)
    await sql(Effect.flatMap(SqlClient.SqlClient, (q) =>
      q`DELETE FROM memberships WHERE workspace_id = ${engineer.workspaceId} AND user_id = ${engineer.userId}`))
    const gone = await withKey(key.secret, "GET", "/api/scans")
    expect(gone.status).toBe(401)
    expect(gone.body.message).toBe(ApiKeyMessages.creatorGone)
  })

  it("an action done with a key names the key (id and name) in its audit row; the same action with a session does not", async () => {
    const key = await createKey(owner, { name: "Terraform", role_id: BuiltInRoleIds.Admin })
    const made = await withKey(key.secret, "POST", "/api/account-groups", { name: `By key ${kind}`, kind: "manual", account_ids: [ids.b] })
    expect(made.status, JSON.stringify(made.body)).toBe(200)
    const rows = await sql(Effect.flatMap(SqlClient.SqlClient, (q) =>
      q<{ target_id: string; actor_user_id: number; details: Record<string, unknown> }>`
        SELECT target_id, actor_user_id, details FROM audit_log
        WHERE action = 'account_group.created' AND target_id IN (${String(made.body.data.id)}, ${String(ids.groupA)}) ORDER BY id`))
    const byKey = rows.find((r) => r.target_id === String(made.body.data.id))!
    const bySession = rows.find((r) => r.target_id === String(ids.groupA))!
    // The actor stays the key's creator; the key is named beside it.
    expect(byKey.actor_user_id).toBe(owner.userId)
    expect(byKey.details["api_key"]).toEqual({ id: key.id, name: "Terraform" })
    expect(bySession.details["api_key"]).toBeUndefined()
    expect(JSON.stringify(byKey.details)).not.toContain(key.secret)
    // The key's first use, audited by the key lookup, names it too.
    const firstUse = await sql(Effect.flatMap(SqlClient.SqlClient, (q) =>
      q<{ details: Record<string, unknown> }>`SELECT details FROM audit_log WHERE action = 'api_key.first_used' AND target_id = ${String(key.id)}`))
    expect(firstUse[0]?.details["api_key"]).toEqual({ id: key.id, name: "Terraform" })
  })

  it("a scan canceled with a key names the key in its audit row, as its launch does; a session's cancel names none", async () => {
    const key = await createKey(owner, { name: "Scheduler", role_id: BuiltInRoleIds.SecurityEngineer })
    // Two running scans, each of its own account (one open scan per account; accounts of no group, which the other
    // tests' lists do not see), canceled one with the key, one with a session.
    const running = (name: string) => sql(Effect.flatMap(SqlClient.SqlClient, (q) => Effect.gen(function* () {
      const [account] = yield* q<{ id: number }>`
        INSERT INTO accounts (workspace_id, cloud_provider_id, account_name, cloud_account_id, auth_method, credentials_sealed)
        VALUES (${owner.workspaceId}, 1, ${name}, ${String(100000000000 + n++)}, 'access_key', 'v1.sealed') RETURNING id`
      const [scan] = yield* q<{ id: number }>`
        INSERT INTO scans (workspace_id, account_id, cloud_provider_id, status, total_services, created_by)
        VALUES (${owner.workspaceId}, ${account!.id}, 1, 'running', 1, ${owner.userId}) RETURNING id`
      return scan!.id
    })))
    const byKeyScan = await running("Canceled with a key")
    const bySessionScan = await running("Canceled with a session")
    const canceled = await withKey(key.secret, "POST", `/api/scans/${byKeyScan}/cancel`)
    expect(canceled.status, JSON.stringify(canceled.body)).toBe(200)
    expect((await call(owner, "POST", `/api/scans/${bySessionScan}/cancel`)).status).toBe(200)
    const rows = await sql(Effect.flatMap(SqlClient.SqlClient, (q) =>
      q<{ target_id: string; actor_user_id: number; details: Record<string, unknown> }>`
        SELECT target_id, actor_user_id, details FROM audit_log
        WHERE action = 'scan.canceled' AND target_id IN (${String(byKeyScan)}, ${String(bySessionScan)}) ORDER BY id`))
    expect(rows.map((r) => [r.target_id, r.actor_user_id, r.details["api_key"] ?? null])).toEqual([
      [String(byKeyScan), owner.userId, { id: key.id, name: "Scheduler" }],
      [String(bySessionScan), owner.userId, null],
    ])
    // The scan's own stop fields: canceled by the key's creator, at the cancel.
    const scans = await sql(Effect.flatMap(SqlClient.SqlClient, (q) =>
      q<{ id: number; status: string; canceled_by: number | null }>`
        SELECT id, status, canceled_by FROM scans WHERE id IN (${byKeyScan}, ${bySessionScan}) ORDER BY id`))
    expect(scans).toEqual([{ id: byKeyScan, status: "failed", canceled_by: owner.userId }, { id: bySessionScan, status: "failed", canceled_by: owner.userId }])
  })

  it("revocation and expiry hold from the next request; unknown keys and other workspaces are refused", async () => {
    const key = await createKey(owner, { name: "Short lived", role_id: BuiltInRoleIds.Auditor })
    expect((await withKey(key.secret, "GET", "/api/scans")).status).toBe(200)
    const revoked = await call(owner, "DELETE", `/api/api-keys/${key.id}`)
    expect(revoked.body).toEqual({ ok: true, message: ApiKeyMessages.revoked })
    const after = await withKey(key.secret, "GET", "/api/scans")
    expect(after.status).toBe(401)
    expect(after.body).toMatchObject({ _tag: "Unauthorized", message: ApiKeyMessages.revokedKey })
    const audit = await sql(Effect.flatMap(SqlClient.SqlClient, (q) =>
      q<{ action: string }>`SELECT action FROM audit_log WHERE target_type = 'api_key' AND target_id = ${String(key.id)} ORDER BY id`))
    expect(audit.map((r) => r.action)).toEqual(["api_key.created", "api_key.first_used", "api_key.revoked"])
    const listed = (await call(owner, "GET", "/api/api-keys")).body.data.find((k: { id: number }) => k.id === key.id)
    expect(listed.status).toBe("revoked")

    const old = await createKey(owner, { name: "Old", role_id: BuiltInRoleIds.Auditor })
    await sql(Effect.flatMap(SqlClient.SqlClient, (q) =>
      q`UPDATE api_keys SET created_at = now() - interval '2 days', expires_at = now() - interval '1 second' WHERE id = ${old.id}`))
    const expired = await withHeader(old.secret, "GET", "/api/scans")
    expect(expired.status).toBe(401)
    expect(expired.body.message).toBe(ApiKeyMessages.expiredKey)

    const bogus = await withKey(`ca_live_${"A".repeat(43)}`, "GET", "/api/scans")
    expect(bogus.status).toBe(401)
    expect(bogus.body.message).toBe(ApiKeyMessages.invalidKey)
    expect((await withHeader("nonsense", "GET", "/api/scans")).status).toBe(401)
    const live = await createKey(owner, { name: "Elsewhere", role_id: BuiltInRoleIds.Auditor })
    const other = await withKey(live.secret, "GET", "/api/scans", undefined, { "x-workspace-id": String(owner.workspaceId + 1000) })
    expect(other.status).toBe(403)
    expect(other.body.message).toBe(ApiKeyMessages.otherWorkspace)
    // Another member cannot revoke the owner's key (not found to them).
    const member = await user()
    await sql(Effect.flatMap(SqlClient.SqlClient, (q) =>
      q`INSERT INTO memberships (workspace_id, user_id, role_id) VALUES (${owner.workspaceId}, ${member}, ${BuiltInRoleIds.Auditor})`))
    const outsider: Who = { userId: member, workspaceId: owner.workspaceId, token: await tokenFor(member, owner.workspaceId) }
    expect((await call(outsider, "DELETE", `/api/api-keys/${live.id}`)).status).toBe(404)
    expect((await call(outsider, "GET", "/api/api-keys")).body.data).toEqual([])
  })

  it("a group-limited key sees only its groups' accounts", async () => {
    const key = await createKey(owner, { name: "Team A reader", role_id: BuiltInRoleIds.Auditor, account_group_ids: [ids.groupA] })
    expect(key.account_group_ids).toEqual([ids.groupA])
    const accounts = await withKey(key.secret, "GET", "/api/accounts?cloud_provider_id=1")
    expect(accounts.status).toBe(200)
    expect(JSON.stringify(accounts.body)).toContain("Key Co 0")
    expect(JSON.stringify(accounts.body)).not.toContain("Key Co 1")
    expect((await withKey(key.secret, "GET", `/api/accounts/${ids.b}`)).status).toBe(404)
    expect((await withKey(key.secret, "GET", `/api/scans/${ids.scanB}`)).status).toBe(404)
    expect((await withKey(key.secret, "GET", `/api/scans/${ids.scanB}/export?format=csv`)).status).toBe(404)
    const scans = await withKey(key.secret, "GET", "/api/scans")
    expect(scans.body.data.map((s: { id: number }) => s.id)).toEqual([ids.scanA])
    // Unknown groups are refused.
    const unknown = await call(owner, "POST", "/api/api-keys", { name: "x", role_id: 3, is_custom_role: false, expires_in_days: 1, account_group_ids: [ids.groupA + 999] })
    expect(unknown.status).toBe(404)
  })

  it("row-level security keeps keys to their workspace (enabled and forced), the API role cannot delete them", async () => {
    const count = (workspaceId: number | undefined) =>
      sql(inScope(workspaceId === undefined ? {} : { workspaceId })(Effect.flatMap(SqlClient.SqlClient, (q) =>
        q<{ n: number }>`SELECT count(*)::int AS n FROM api_keys`))).then((r) => r[0]!.n)
    expect(await count(owner.workspaceId)).toBeGreaterThan(0)
    expect(await count(owner.workspaceId + 1000)).toBe(0)
    expect(await count(undefined)).toBe(0)
    const rel = await sql(Effect.flatMap(SqlClient.SqlClient, (q) =>
      q<{ relrowsecurity: boolean; relforcerowsecurity: boolean }>`SELECT relrowsecurity, relforcerowsecurity FROM pg_class WHERE relname = 'api_keys'`))
    expect(rel).toEqual([{ relrowsecurity: true, relforcerowsecurity: true }])
    const deleted = await sql(inScope({ workspaceId: owner.workspaceId })(Effect.flatMap(SqlClient.SqlClient, (q) =>
      q`DELETE FROM api_keys`)).pipe(Effect.flip, Effect.map((e) => String(e))))
    expect(deleted).toMatch(/SqlError/)
  })

  it("answers 429 with Retry-After once a key spends its rate", async () => {
    const key = await createKey(owner, { name: "Busy", role_id: BuiltInRoleIds.Auditor })
    const answers: Array<number> = []
    for (let i = 0; i < RATE.limit; i++) answers.push((await withKey(key.secret, "GET", "/api/scans")).status)
    expect(answers.every((s) => s === 200)).toBe(true)
    const refused = await withKey(key.secret, "GET", "/api/scans")
    expect(refused.status).toBe(429)
    expect(refused.body).toMatchObject({ _tag: "RateLimited", message: ApiKeyMessages.rateLimited })
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0)
    // Another key is counted apart.
    const other = await createKey(owner, { name: "Calm", role_id: BuiltInRoleIds.Auditor })
    expect((await withKey(other.secret, "GET", "/api/scans")).status).toBe(200)
  })
})
