/**
 * The storage API (issue 30; server/api/storage.ts) over real HTTP, on PGlite and (TEST_DATABASE_URL set) PostgreSQL:
 * workspace admins only (the owner, the Admin role, a custom role with all 12 permissions; an Auditor or a Member
 * Manager gets 403 with the contract's message), 400 with the contract's field messages for bad bodies, the saved
 * setting audited (who, before, after) and answered with the page recomputed, and tenancy: another workspace's admin
 * sees nothing of this one, whatever X-Workspace-ID says.
 */
import { Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AuthConfig, defaultAuthSettings } from "../../server/auth/auth-config.ts"
import { signAccessToken } from "../../server/auth/access-token.ts"
import { createSession } from "../../server/auth/refresh-tokens.ts"
import { BuiltInRoleIds, PERMISSION_IDS, PERMISSIONS } from "../../src/contracts/permissions.ts"
import { StorageMessages, WorkspaceStorageResponse } from "../../src/contracts/storage.ts"
import { makeTestDatabase, withSql } from "../support/db.ts"
import { startTestServer, type TestServer } from "../support/server.ts"
import { CHECKS, seedWorkspace, writeScan } from "./support.ts"

const kinds: ReadonlyArray<"pglite" | "postgres"> = process.env["TEST_DATABASE_URL"] ? ["pglite", "postgres"] : ["pglite"]

interface Who {
  readonly userId: number
  readonly email: string
  readonly workspaceId: number
  readonly token: string
}

describe.each(kinds)("storage API on %s", (kind) => {
  let server: TestServer
  let sql: <A>(effect: Effect.Effect<A, unknown, SqlClient.SqlClient>) => Promise<A>
  let owner: Who
  let admin: Who
  let custom: Who
  let auditor: Who
  let manager: Who
  let stranger: Who
  let n = 0

  const tokenFor = (userId: number, workspaceId: number) =>
    sql(Effect.gen(function* () {
      const session = yield* createSession(userId, workspaceId)
      return yield* signAccessToken({ userId, workspaceId, sessionId: session.familyId })
    }).pipe(Effect.provide(AuthConfig.layer(defaultAuthSettings({ secretKey: server.config.appSecretKey, appOrigin: server.baseUrl })) as Layer.Layer<AuthConfig>)))

  const user = () =>
    sql(Effect.gen(function* () {
      const q = yield* SqlClient.SqlClient
      const email = `storage-${kind}-${n++}@example.com`
      const id = (yield* q<{ id: number }>`INSERT INTO users (email, email_verified, password_hash) VALUES (${email}, true, 'x') RETURNING id`)[0]!.id
      return { id, email }
    }))

  const join = async (workspaceId: number, role: { readonly roleId?: number; readonly customRoleId?: number }): Promise<Who> => {
    const u = await user()
    await sql(Effect.flatMap(SqlClient.SqlClient, (q) => q`
      INSERT INTO memberships (workspace_id, user_id, role_id, custom_role_id) VALUES (${workspaceId}, ${u.id}, ${role.roleId ?? null}, ${role.customRoleId ?? null})`))
    return { userId: u.id, email: u.email, workspaceId, token: await tokenFor(u.id, workspaceId) }
  }

  const call = async (who: Who | undefined, method: string, path: string, body?: unknown, header?: number) => {
    const headers: Record<string, string> = {}
    if (body !== undefined) headers["content-type"] = "application/json"
    if (who !== undefined) {
      headers["authorization"] = `Bearer ${who.token}`
      headers["x-workspace-id"] = String(header ?? who.workspaceId)
    }
    const res = await fetch(`${server.baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
    const text = await res.text()
    return { status: res.status, body: text === "" ? undefined : JSON.parse(text) }
  }

  beforeAll(async () => {
    server = await startTestServer({ worker: false, database: await makeTestDatabase({ kind }) })
    sql = (effect) => withSql(server.databaseUrl, effect)
    const o = await user()
    const serviceId = await sql(Effect.flatMap(SqlClient.SqlClient, (q) =>
      q<{ id: number }>`INSERT INTO cloud_services (cloud_provider_id, key, name) VALUES (1, 'retsvc', 'RETSVC') RETURNING id`)).then((r) => r[0]!.id)
    const ws = await sql(seedWorkspace(o.id, "Storage Co", 2))
    await sql(Effect.flatMap(SqlClient.SqlClient, (q) => q`INSERT INTO memberships (workspace_id, user_id, role_id) VALUES (${ws.workspaceId}, ${o.id}, ${BuiltInRoleIds.Admin})`))
    owner = { userId: o.id, email: o.email, workspaceId: ws.workspaceId, token: await tokenFor(o.id, ws.workspaceId) }
    for (let i = 0; i < 3; i++) {
      await sql(writeScan(ws.workspaceId, ws.accountIds[0]!, serviceId, { [CHECKS[0]]: ["fail", i === 1 ? "pass2" : "pass", "absent", "fail", "pass"] }, 3 - i))
    }
    await sql(writeScan(ws.workspaceId, ws.accountIds[1]!, serviceId, { [CHECKS[1]]: ["pass", "pass"] }, 1))
    admin = await join(ws.workspaceId, { roleId: BuiltInRoleIds.Admin })
    auditor = await join(ws.workspaceId, { roleId: BuiltInRoleIds.Auditor })
    manager = await join(ws.workspaceId, { roleId: BuiltInRoleIds.MemberManager })
    const customRoleId = await sql(Effect.gen(function* () {
      const q = yield* SqlClient.SqlClient
      const id = (yield* q<{ id: number }>`INSERT INTO custom_roles (workspace_id, name) VALUES (${ws.workspaceId}, 'Everything') RETURNING id`)[0]!.id
      for (const p of PERMISSIONS) yield* q`INSERT INTO custom_role_permissions (custom_role_id, workspace_id, permission_id) VALUES (${id}, ${ws.workspaceId}, ${PERMISSION_IDS[p]})`
      return id
    }))
    custom = await join(ws.workspaceId, { customRoleId })
    const s = await user()
    const other = await sql(seedWorkspace(s.id, "Elsewhere", 1))
    await sql(Effect.flatMap(SqlClient.SqlClient, (q) => q`INSERT INTO memberships (workspace_id, user_id, role_id) VALUES (${other.workspaceId}, ${s.id}, ${BuiltInRoleIds.Admin})`))
    stranger = { userId: s.id, email: s.email, workspaceId: other.workspaceId, token: await tokenFor(s.id, other.workspaceId) }
  }, 180_000)

  afterAll(async () => {
    await server?.stop()
  })

  const storage = (who: Who | undefined, workspaceId = owner.workspaceId, header?: number) => call(who, "GET", `/api/workspaces/${workspaceId}/storage`, undefined, header)
  const retention = (who: Who | undefined, body: unknown, workspaceId = owner.workspaceId, header?: number) =>
    call(who, "PUT", `/api/workspaces/${workspaceId}/retention`, body, header)

  it("answers the owner, the Admin role and a custom role holding all 12 permissions", async () => {
    for (const who of [owner, admin, custom]) {
      const res = await storage(who)
      expect(res.status, who.email).toBe(200)
      const data = Schema.decodeUnknownSync(WorkspaceStorageResponse)(res.body).data
      expect(data.accounts.map((a) => a.account_name)).toEqual(["Storage Co 0", "Storage Co 1"])
      expect(data.used.scans).toBe(4)
      expect(data.accounts[0]!.used).toMatchObject({ scans: 3, results: 12 })
      expect(data.accounts[0]!.used.rows).toBeGreaterThan(0)
      expect(data.used.bytes).toBeGreaterThan(0)
      expect(data.retention).toEqual({ keep_days: null, keep_scans: null })
      expect(data.frees).toEqual({ scans: 0, results: 0, rows: 0, bytes: 0 })
    }
  })

  it("refuses members who are not admins with the contract's message (403)", async () => {
    for (const who of [auditor, manager]) {
      for (const res of [await storage(who), await retention(who, { keep_days: 30, keep_scans: null })]) {
        expect(res.status, who.email).toBe(403)
        expect(res.body).toMatchObject({ _tag: "Forbidden", message: StorageMessages.storagePermissionDenied })
      }
    }
    expect((await storage(undefined)).status).toBe(401)
  })

  it("validates the body with the contract's field messages (400)", async () => {
    const days = StorageMessages.retentionDaysInvalid
    const scans = StorageMessages.retentionScansInvalid
    const cases: ReadonlyArray<readonly [unknown, ReadonlyArray<readonly [string, string]>]> = [
      [{ keep_days: 0, keep_scans: null }, [["keep_days", days]]],
      [{ keep_days: 3651, keep_scans: null }, [["keep_days", days]]],
      [{ keep_days: 1.5, keep_scans: 2 }, [["keep_days", days]]],
      [{ keep_days: "30", keep_scans: 1 }, [["keep_days", days]]],
      [{ keep_days: 30, keep_scans: 1001 }, [["keep_scans", scans]]],
      [{ keep_days: null, keep_scans: 0 }, [["keep_scans", scans]]],
      [{ keep_days: null }, [["keep_scans", scans]]],
    ]
    // Decoding stops at the first field in error (as for every endpoint).
    for (const [body, errors] of cases) {
      const res = await retention(owner, body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.body._tag).toBe("ValidationError")
      for (const [path, message] of errors) expect(res.body.errors, JSON.stringify(body)).toContainEqual({ path, message })
    }
  })

  it("saves the setting, audits who changed what, and answers the page recomputed", async () => {
    const res = await retention(admin, { keep_days: null, keep_scans: 1 })
    expect(res.status).toBe(200)
    expect(res.body.message).toBe(StorageMessages.retentionSaved)
    const data = Schema.decodeUnknownSync(WorkspaceStorageResponse)(res.body).data
    expect(data.retention).toEqual({ keep_days: null, keep_scans: 1 })
    expect(data.retention_updated_by).toBe(admin.email)
    expect(data.retention_updated_at).not.toBeNull()
    expect(data.retention_applied_at).toBeNull()
    // The first account keeps its latest scan: two of three go; the second account's only scan stays.
    expect(data.accounts[0]!.frees).toMatchObject({ scans: 2, results: 8 })
    expect(data.accounts[0]!.frees.rows).toBeGreaterThan(0)
    expect(data.accounts[0]!.frees.bytes).toBeGreaterThan(0)
    expect(data.accounts[0]!.frees.bytes).toBeLessThanOrEqual(data.accounts[0]!.used.bytes)
    expect(data.accounts[1]!.frees).toEqual({ scans: 0, results: 0, rows: 0, bytes: 0 })
    expect(data.frees.scans).toBe(2)
    const again = await retention(owner, { keep_days: 30, keep_scans: null })
    expect(again.status).toBe(200)
    expect(again.body.data.frees.scans).toBe(0)
    const audit = await sql(Effect.flatMap(SqlClient.SqlClient, (q) => q<{ actor_user_id: number; target_type: string; target_id: string; details: unknown }>`
      SELECT actor_user_id, target_type, target_id, details FROM audit_log WHERE action = 'retention.updated' AND workspace_id = ${owner.workspaceId} ORDER BY id`))
    expect(audit).toEqual([
      { actor_user_id: admin.userId, target_type: "workspace", target_id: String(owner.workspaceId), details: { before: { keep_days: null, keep_scans: null }, after: { keep_days: null, keep_scans: 1 } } },
      { actor_user_id: owner.userId, target_type: "workspace", target_id: String(owner.workspaceId), details: { before: { keep_days: null, keep_scans: 1 }, after: { keep_days: 30, keep_scans: null } } },
    ])
    const got = await storage(custom)
    expect(got.body.data.retention).toEqual({ keep_days: 30, keep_scans: null })
  })

  it("tenancy: another workspace's admin sees and changes nothing of this one, whatever X-Workspace-ID says", async () => {
    for (const header of [stranger.workspaceId, owner.workspaceId]) {
      const read = await storage(stranger, owner.workspaceId, header)
      expect(read.status).toBe(403)
      expect(read.body._tag).toBe("WorkspaceAccessDenied")
      const write = await retention(stranger, { keep_days: 1, keep_scans: 1 }, owner.workspaceId, header)
      expect(write.status).toBe(403)
    }
    // An unknown workspace answers the same.
    expect((await storage(stranger, 999_999)).body._tag).toBe("WorkspaceAccessDenied")
    const own = await storage(stranger, stranger.workspaceId)
    expect(own.status).toBe(200)
    expect(own.body.data.accounts.map((a: { account_name: string }) => a.account_name)).toEqual(["Elsewhere 0"])
    expect(own.body.data.used.scans).toBe(0)
    expect(own.body.data.retention).toEqual({ keep_days: null, keep_scans: null })
    // Its own setting leaves the first workspace's untouched.
    expect((await retention(stranger, { keep_days: 1, keep_scans: 1 }, stranger.workspaceId)).status).toBe(200)
    expect((await storage(owner)).body.data.retention).toEqual({ keep_days: 30, keep_scans: null })
  })
})
