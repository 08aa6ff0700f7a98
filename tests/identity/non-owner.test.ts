/**
 * The API on a real PostgreSQL server connecting as a non-owner login role that is only granted `cloud_audit_app`
 * (the production set-up of docs/identity.md): the identity flows work, and the role can neither bypass row-level
 * security nor touch the audit log. Needs TEST_DATABASE_URL (PGlite has no login roles); skipped otherwise.
 */
import { randomBytes } from "node:crypto"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BuiltInRoleIds } from "../../src/contracts/permissions.ts"
import { makeTestDatabase, type TestDatabase, withSql } from "../support/db.ts"
import { startSmtpCapture, type SmtpCapture } from "../support/smtp.ts"
import { startTestServer, type TestServer } from "../support/server.ts"

const enabled = (process.env["TEST_DATABASE_URL"] ?? "").trim() !== ""

describe.skipIf(!enabled)("API as a non-owner role on PostgreSQL", () => {
  let db: TestDatabase
  let server: TestServer
  let smtp: SmtpCapture
  const role = `api_${randomBytes(4).toString("hex")}`
  const password = randomBytes(12).toString("hex")

  beforeAll(async () => {
    db = await makeTestDatabase({ kind: "postgres" })
    // 1. The owner installs the schema (migrations + pg-boss), as `npm run migrate` / a first start would.
    const owner = await startTestServer({ database: db })
    await owner.stop()
    // 2. Operations create the API's login role: a member of cloud_audit_app, plus the job queue's schema.
    await withSql(db.url, Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.gen(function* () {
      yield* sql.unsafe(`CREATE ROLE ${role} LOGIN PASSWORD '${password}' IN ROLE cloud_audit_app`)
      yield* sql.unsafe(`GRANT USAGE ON SCHEMA pgboss TO ${role}`)
      yield* sql.unsafe(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA pgboss TO ${role}`)
      yield* sql.unsafe(`GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA pgboss TO ${role}`)
    })))
    const url = new URL(db.url)
    url.username = role
    url.password = password
    smtp = await startSmtpCapture()
    server = await startTestServer({ database: { ...db, url: url.toString() }, env: { SMTP_URL: smtp.url } })
  }, 120_000)

  afterAll(async () => {
    await server?.stop()
    await smtp?.close()
    await db?.close()
    if (enabled) {
      await withSql(process.env["TEST_DATABASE_URL"]!, Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`DROP ROLE IF EXISTS ${role}`)))
    }
  })

  const call = async (method: string, path: string, body?: unknown, token?: string, workspaceId?: number) => {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: {
        "content-type": "application/json",
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(workspaceId ? { "x-workspace-id": String(workspaceId) } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    })
    return { status: res.status, body: (await res.json()) as any }
  }

  it("signs up, verifies, signs in, manages the team and invites", async () => {
    const email = `nonowner-${Date.now()}@example.com`
    const signup = await call("POST", "/api/signup", {
      first_name: "Non", last_name: "Owner", email, password: "Non-owner-1", workspace_name: `nonowner-${Date.now()}`,
    })
    expect(signup.status).toBe(200)
    const mail = await smtp.waitForMail((m) => m.to.includes(email))
    expect((await call("GET", `/api/verify-email${new URL(mail.links[0]!).search}`)).status).toBe(200)
    const login = await call("POST", "/api/login", { email, password: "Non-owner-1" })
    expect(login.status).toBe(200)
    const token = login.body.access_token
    const ws = (await call("GET", "/api/workspaces", undefined, token)).body.data[0].workspace_id
    const added = await call("POST", "/api/admin/users", {
      first_name: "A", last_name: "B", email: `m-${Date.now()}@example.com`, password: "password1", role_id: BuiltInRoleIds.Auditor, is_custom_role: false,
    }, token, ws)
    expect(added.status).toBe(200)
    const invite = await call("POST", "/api/admin/users/invite", { invitations: [{ email: `i-${Date.now()}@example.com`, role_id: 3, is_custom_role: false }] }, token, ws)
    expect(invite.body.sent_count).toBe(1)
    expect((await call("GET", "/api/team-members", undefined, token, ws)).body.data).toHaveLength(2)
    expect((await call("POST", "/api/refresh-token", { refresh_token: login.body.refresh_token })).status).toBe(200)
  })

  it("the login role is no owner, cannot bypass RLS and cannot rewrite the audit log", async () => {
    const apiUrl = server.databaseUrl
    const facts = await withSql(apiUrl, Effect.flatMap(SqlClient.SqlClient, (sql) => sql.withTransaction(Effect.gen(function* () {
      const me = yield* sql<{ su: boolean; bypass: boolean }>`SELECT rolsuper AS su, rolbypassrls AS bypass FROM pg_roles WHERE rolname = current_user`
      const owned = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND pg_get_userbyid(c.relowner) = current_user`
      const visible = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM memberships`
      return { ...me[0]!, owned: owned[0]!.n, visible: visible[0]!.n }
    }))))
    expect(facts).toEqual({ su: false, bypass: false, owned: 0, visible: 0 })
    const denied = await withSql(apiUrl, Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql.withTransaction(sql`DELETE FROM audit_log`).pipe(Effect.flip, Effect.map((e) => String(e)))))
    expect(denied).toMatch(/SqlError/)
  })
})
