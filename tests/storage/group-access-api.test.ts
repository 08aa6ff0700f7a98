/**
 * Access by group over real HTTP (issue 31 item 5; server/api/account-groups.ts, migration 0023), on PGlite and
 * (TEST_DATABASE_URL set) PostgreSQL: the owner defines groups and a custom role limited to one; a member holding that
 * role sees and acts on nothing of the other group's accounts (accounts list and detail, scans list and detail, findings
 * list and detail, export, compliance, remediation, schedules, mute rules), cannot add accounts, manage groups, or grant
 * wider access; a tag group follows tags; lifting the limit takes effect with the next request; group changes are
 * audited.
 */
import { Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AuthConfig, defaultAuthSettings } from "../../server/auth/auth-config.ts"
import { signAccessToken } from "../../server/auth/access-token.ts"
import { createSession } from "../../server/auth/refresh-tokens.ts"
import { AccountGroupMessages, AccountGroupResponse, AccountGroupsResponse } from "../../src/contracts/account-groups.ts"
import { BuiltInRoleIds } from "../../src/contracts/permissions.ts"
import { makeTestDatabase, withSql } from "../support/db.ts"
import { startTestServer, type TestServer } from "../support/server.ts"
import { CHECKS, seedWorkspace, writeScan } from "./support.ts"

const kinds: ReadonlyArray<"pglite" | "postgres"> = process.env["TEST_DATABASE_URL"] ? ["pglite", "postgres"] : ["pglite"]
const ALL_PERMISSIONS = [
  "read_only", "create_account", "scan_service", "remediate_findings", "create_user", "delete_user", "update_user_permissions",
  "assign_role_to_user", "revoke_role_from_user", "create_custom_role", "update_custom_role", "delete_custom_role",
]

interface Who {
  readonly userId: number
  readonly workspaceId: number
  readonly token: string
}

describe.each(kinds)("access by group over the API on %s", (kind) => {
  let server: TestServer
  let sql: <A>(effect: Effect.Effect<A, unknown, SqlClient.SqlClient>) => Promise<A>
  let owner: Who
  let lead: Who
  let n = 0
  /** a: the lead's account (tag team=a); b: another account; scans and a finding of each. */
  const ids = { a: 0, b: 0, scanA: 0, scanB: 0, findingA: 0, findingB: 0, groupA: 0, groupB: 0, role: 0 }

  const tokenFor = (userId: number, workspaceId: number) =>
    sql(Effect.gen(function* () {
      const session = yield* createSession(userId, workspaceId)
      return yield* signAccessToken({ userId, workspaceId, sessionId: session.familyId })
    }).pipe(Effect.provide(AuthConfig.layer(defaultAuthSettings({ secretKey: server.config.appSecretKey, appOrigin: server.baseUrl })) as Layer.Layer<AuthConfig>)))

  const user = () =>
    sql(Effect.flatMap(SqlClient.SqlClient, (q) =>
      q<{ id: number }>`INSERT INTO users (email, email_verified, password_hash) VALUES (${`groups-${kind}-${n++}@example.com`}, true, 'x') RETURNING id`))
      .then((r) => r[0]!.id)

  const call = async (who: Who, method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = { authorization: `Bearer ${who.token}`, "x-workspace-id": String(who.workspaceId) }
    if (body !== undefined) headers["content-type"] = "application/json"
    const res = await fetch(`${server.baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
    const text = await res.text()
    let parsed: unknown = text
    try { parsed = text === "" ? undefined : JSON.parse(text) } catch { /* a CSV export */ }
    return { status: res.status, body: parsed as any }
  }

  beforeAll(async () => {
    server = await startTestServer({ worker: false, database: await makeTestDatabase({ kind }) })
    sql = (effect) => withSql(server.databaseUrl, effect)
    const o = await user()
    const serviceId = await sql(Effect.flatMap(SqlClient.SqlClient, (q) =>
      q<{ id: number }>`INSERT INTO cloud_services (cloud_provider_id, key, name) VALUES (1, 'grpapi', 'GRPAPI') RETURNING id`)).then((r) => r[0]!.id)
    const ws = await sql(seedWorkspace(o, "Group Co", 2))
    ids.a = ws.accountIds[0]!
    ids.b = ws.accountIds[1]!
    await sql(Effect.flatMap(SqlClient.SqlClient, (q) => Effect.all([
      q`INSERT INTO memberships (workspace_id, user_id, role_id) VALUES (${ws.workspaceId}, ${o}, ${BuiltInRoleIds.Admin})`,
      q`UPDATE accounts SET tags = '{"team":"a"}'::jsonb WHERE id = ${ids.a}`,
    ])))
    ids.scanA = await sql(writeScan(ws.workspaceId, ids.a, serviceId, { [CHECKS[0]]: ["fail", "pass"] }, 1))
    ids.scanB = await sql(writeScan(ws.workspaceId, ids.b, serviceId, { [CHECKS[0]]: ["fail", "pass"] }, 1))
    const f = await sql(Effect.flatMap(SqlClient.SqlClient, (q) =>
      q<{ id: number; scan_id: number }>`SELECT id, scan_id FROM findings WHERE scan_id IN (${ids.scanA}, ${ids.scanB})`))
    ids.findingA = f.find((r) => r.scan_id === ids.scanA)!.id
    ids.findingB = f.find((r) => r.scan_id === ids.scanB)!.id
    await sql(Effect.flatMap(SqlClient.SqlClient, (q) =>
      q`INSERT INTO mute_rules (workspace_id, account_id, reason) VALUES (${ws.workspaceId}, ${ids.b}, 'b accepted'), (${ws.workspaceId}, ${ids.a}, 'a accepted')`))
    owner = { userId: o, workspaceId: ws.workspaceId, token: await tokenFor(o, ws.workspaceId) }

    const made = await call(owner, "POST", "/api/account-groups", { name: "Team A", kind: "tag", tag_key: "team", tag_value: "a" })
    expect(made.status).toBe(200)
    ids.groupA = Schema.decodeUnknownSync(AccountGroupResponse)(made.body).data.id
    const other = await call(owner, "POST", "/api/account-groups", { name: "Picked B", kind: "manual", account_ids: [ids.b] })
    ids.groupB = other.body.data.id
    const role = await call(owner, "POST", "/api/roles/custom", { name: "Team A lead", permissions: ALL_PERMISSIONS, account_group_ids: [ids.groupA] })
    expect(role.status).toBe(200)
    expect(role.body.data.account_group_ids).toEqual([ids.groupA])
    ids.role = role.body.data.id
    const l = await user()
    await sql(Effect.flatMap(SqlClient.SqlClient, (q) =>
      q`INSERT INTO memberships (workspace_id, user_id, custom_role_id) VALUES (${ws.workspaceId}, ${l}, ${ids.role})`))
    lead = { userId: l, workspaceId: ws.workspaceId, token: await tokenFor(l, ws.workspaceId) }
  }, 180_000)

  afterAll(async () => {
    await server?.stop()
  })

  it("lists the groups with what they hold and the roles they limit; the changes are audited", async () => {
    const res = await call(owner, "GET", "/api/account-groups")
    expect(res.status).toBe(200)
    const groups = Schema.decodeUnknownSync(AccountGroupsResponse)(res.body).data
    expect(groups.map((g) => [g.name, g.kind, g.matched_account_ids, g.role_ids])).toEqual([
      ["Picked B", "manual", [ids.b], []],
      ["Team A", "tag", [ids.a], [ids.role]],
    ])
    const audit = await sql(Effect.flatMap(SqlClient.SqlClient, (q) =>
      q<{ action: string; target_id: string }>`SELECT action, target_id FROM audit_log WHERE action LIKE 'account_group.%' AND workspace_id = ${owner.workspaceId} ORDER BY id`))
    expect(audit).toEqual([{ action: "account_group.created", target_id: String(ids.groupA) }, { action: "account_group.created", target_id: String(ids.groupB) }])
    // A group limiting a role is not deleted; a duplicate name is refused.
    expect((await call(owner, "DELETE", `/api/account-groups/${ids.groupA}`)).body).toMatchObject({ _tag: "Conflict", message: AccountGroupMessages.groupInUse })
    expect((await call(owner, "POST", "/api/account-groups", { name: "team a", kind: "manual", account_ids: [] })).status).toBe(409)
  })

  it("a limited member sees nothing of another group's accounts", async () => {
    const accounts = await call(lead, "GET", "/api/accounts?cloud_provider_id=1")
    expect(accounts.status, JSON.stringify(accounts.body)).toBe(200)
    expect(JSON.stringify(accounts.body)).toContain("Group Co 0")
    expect(JSON.stringify(accounts.body)).not.toContain("Group Co 1")
    expect((await call(lead, "GET", `/api/accounts/${ids.a}`)).status).toBe(200)
    expect((await call(lead, "GET", `/api/accounts/${ids.b}`)).status).toBe(404)
    const scans = await call(lead, "GET", "/api/scans")
    expect(scans.body.data.map((s: { id: number }) => s.id)).toEqual([ids.scanA])
    expect((await call(lead, "GET", `/api/scans/${ids.scanA}`)).status).toBe(200)
    for (const path of [
      `/api/scans/${ids.scanB}`, `/api/scans/${ids.scanB}/export?format=csv`, `/api/findings/${ids.findingB}`,
      `/api/compliance/scans/${ids.scanB}`, `/api/accounts/${ids.b}/schedule`,
    ]) {
      expect((await call(lead, "GET", path)).status, path).toBe(404)
    }
    expect((await call(lead, "GET", `/api/scans/${ids.scanA}/export?format=csv`)).status).toBe(200)
    const findings = await call(lead, "GET", `/api/findings?scan_id=${ids.scanB}`)
    expect(findings.status === 404 || (findings.status === 200 && findings.body.data.length === 0), JSON.stringify(findings.body)).toBe(true)
    expect((await call(lead, "GET", `/api/findings?scan_id=${ids.scanA}`)).body.data.length).toBeGreaterThan(0)
    const rules = await call(lead, "GET", "/api/mute-rules")
    expect(JSON.stringify(rules.body)).toContain("a accepted")
    expect(JSON.stringify(rules.body)).not.toContain("b accepted")
    const compliance = await call(lead, "GET", "/api/compliance/accounts")
    expect(JSON.stringify(compliance.body)).not.toContain("Group Co 1")
  })

  it("a limited member acts on nothing of another group's accounts", async () => {
    const fix = await call(lead, "POST", `/api/findings/${ids.findingB}/remediate`, { resource_ids: ["x"] })
    expect([400, 404]).toContain(fix.status)
    expect((await call(lead, "DELETE", `/api/accounts/${ids.b}`)).status).toBe(404)
    const start = await call(lead, "POST", "/api/scans", { user_id: lead.userId, account_id: ids.b, cloud_provider_id: 1, cloud_provider_name: "aws" })
    expect(start.status, JSON.stringify(start.body)).toBe(404)
    expect((await call(lead, "PUT", `/api/accounts/${ids.b}/schedule`, { frequency: "daily", time_of_day: "02:00", weekday: 1, day_of_month: 1, timezone: "UTC" })).status).toBe(404)
    const rule = await call(lead, "POST", "/api/mute-rules", { account_id: ids.b, reason: "mine now" })
    expect(rule.status).toBeGreaterThanOrEqual(400)
    const stillThere = await sql(Effect.flatMap(SqlClient.SqlClient, (q) =>
      q<{ n: number }>`SELECT count(*)::int AS n FROM accounts WHERE id = ${ids.b}`))
    expect(stillThere[0]!.n).toBe(1)
    const added = await call(lead, "POST", "/api/accounts", {
      account_name: "sneaky", cloud_provider_id: 1, is_organization: false,
      credentials: { access_key: "AKIAIOSFODNN7EXAMPLE", secret_key: "moto-secret-key" },
    })
    expect(added.body).toMatchObject({ _tag: "Forbidden", message: AccountGroupMessages.limitedCannotAddAccounts })
  })

  it("a limited member cannot manage groups nor grant wider access", async () => {
    expect((await call(lead, "GET", "/api/account-groups")).body).toMatchObject({ _tag: "Forbidden", message: AccountGroupMessages.adminOnly })
    expect((await call(lead, "POST", "/api/roles/custom", { name: "Wide", permissions: ["read_only"] })).status).toBe(403)
    expect((await call(lead, "POST", "/api/roles/custom", { name: "Other", permissions: ["read_only"], account_group_ids: [ids.groupB] })).status).toBe(403)
    expect((await call(lead, "PUT", `/api/roles/custom/${ids.role}`, { name: "Team A lead", permissions: ALL_PERMISSIONS, account_group_ids: null })).status).toBe(403)
    const narrow = await call(lead, "POST", "/api/roles/custom", { name: "Team A reader", permissions: ["read_only"], account_group_ids: [ids.groupA] })
    expect(narrow.status).toBe(200)
    const invite = await call(lead, "POST", "/api/admin/users", {
      first_name: "W", last_name: "X", email: `wide-${kind}@example.com`, password: "Secret-pass1", role_id: BuiltInRoleIds.Admin, is_custom_role: false,
    })
    expect(invite.status).toBe(403)
  })

  it("a tag group follows tags, and lifting the limit takes effect with the next request", async () => {
    await sql(Effect.flatMap(SqlClient.SqlClient, (q) => q`UPDATE accounts SET tags = '{"team":"a"}'::jsonb WHERE id = ${ids.b}`))
    expect((await call(lead, "GET", `/api/accounts/${ids.b}`)).status).toBe(200)
    await sql(Effect.flatMap(SqlClient.SqlClient, (q) => q`UPDATE accounts SET tags = '{}'::jsonb WHERE id = ${ids.b}`))
    expect((await call(lead, "GET", `/api/accounts/${ids.b}`)).status).toBe(404)
    const lifted = await call(owner, "PUT", `/api/roles/custom/${ids.role}`, { name: "Team A lead", permissions: ALL_PERMISSIONS, account_group_ids: null })
    expect(lifted.status).toBe(200)
    expect(lifted.body.data.account_group_ids).toBeNull()
    expect((await call(lead, "GET", `/api/scans/${ids.scanB}`)).status).toBe(200)
    // A payload without account_group_ids leaves the role as it is (an older client never widens or narrows it).
    await call(owner, "PUT", `/api/roles/custom/${ids.role}`, { name: "Team A lead", permissions: ALL_PERMISSIONS, account_group_ids: [ids.groupA] })
    const unchanged = await call(owner, "PUT", `/api/roles/custom/${ids.role}`, { name: "Team A lead", permissions: ALL_PERMISSIONS })
    expect(unchanged.body.data.account_group_ids).toEqual([ids.groupA])
    expect((await call(lead, "GET", `/api/scans/${ids.scanB}`)).status).toBe(404)
  })
})
