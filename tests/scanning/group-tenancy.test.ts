/**
 * Access by group in the database (issue 31 item 5; server/db/migrations/0023_account_groups.ts): a member whose custom
 * role is limited to account groups sees, through the API role and the scope statement every request opens
 * (server/auth/rls.ts `inScopeForMember`), only the rows of the groups' accounts in every per-account table and the
 * results view, and cannot write into another account. Unit groups follow accounts moved between units, tag groups
 * follow tags, lifting the limit takes effect with the next scope, a limited role without groups sees no account, and
 * the owner and unlimited roles see everything.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { API_ROLE, inScope, inScopeForMember } from "../../server/auth/rls.ts"
import { GROUP_LIMITED_TABLES } from "../../server/db/migrations/0023_account_groups.ts"
import type { FindingDraft } from "../../server/scans/finding-rows.ts"
import { writeFindings } from "../../server/scans/results.ts"
import { makeTestDatabase, migrateTestDatabase, withSql, type TestDatabase } from "../support/db.ts"

let db: TestDatabase
const su = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown, SqlClient.SqlClient>) => withSql(db.url, Effect.flatMap(SqlClient.SqlClient, f))
const one = (rows: ReadonlyArray<{ id: number }>) => rows[0]!.id

let workspaceId = 0
let serviceId = 0
/** org: the organisation account; web: member in Root/Prod/Web; dev: member in Root/Dev; red, blue: tagged accounts. */
const acct = { org: 0, web: 0, dev: 0, red: 0, blue: 0 }
const users = { owner: 0, prodLead: 0, redLead: 0, manual: 0, unlimited: 0 }
const roles = { prodLead: 0, redLead: 0, manual: 0, unlimited: 0 }
const groups = { prod: 0, red: 0, manual: 0 }

/** Each per-account table (and the results view) with the account of each of its rows, as the superuser reads it. */
const ACCOUNT_OF: Record<string, string> = {
  accounts: "SELECT id AS a FROM accounts",
  scans: "SELECT account_id AS a FROM scans",
  result_streams: "SELECT account_id AS a FROM result_streams",
  resources: "SELECT account_id AS a FROM resources",
  scan_schedules: "SELECT account_id AS a FROM scan_schedules",
  organizations: "SELECT account_id AS a FROM organizations",
  // A unit is also readable on the way to an allowed member: its unit and the units above it (migration 0039).
  organization_units: `SELECT u.organization_id AS a, (SELECT array_agg(m.id) FROM accounts m WHERE m.organization_id = u.organization_id
                         AND (m.org_unit_path = u.path OR left(m.org_unit_path, length(u.path) + 3) = u.path || ' / ')) AS via
                       FROM organization_units u`,
  organization_syncs: "SELECT organization_id AS a FROM organization_syncs",
  fleet_scans: "SELECT organization_id AS a FROM fleet_scans",
  fleet_scan_members: "SELECT account_id AS a FROM fleet_scan_members",
  organization_members: "SELECT coalesce(account_id, organization_id) AS a FROM organization_members",
  scan_services: "SELECT s.account_id AS a FROM scan_services x JOIN scans s ON s.id = x.scan_id",
  findings: "SELECT s.account_id AS a FROM findings x JOIN scans s ON s.id = x.scan_id",
  scan_mutes: "SELECT s.account_id AS a FROM scan_mutes x JOIN scans s ON s.id = x.scan_id",
  compliance_reports: "SELECT s.account_id AS a FROM compliance_reports x JOIN scans s ON s.id = x.scan_id",
  result_rows: "SELECT st.account_id AS a FROM result_rows x JOIN result_streams st ON st.id = x.stream_id",
  result_marks: "SELECT s.account_id AS a FROM result_marks x JOIN findings f ON f.id = x.finding_id JOIN scans s ON s.id = f.scan_id",
  remediations: "SELECT s.account_id AS a FROM remediations x JOIN findings f ON f.id = x.finding_id JOIN scans s ON s.id = f.scan_id",
  compliance_report_chunks:
    "SELECT s.account_id AS a FROM compliance_report_chunks x JOIN compliance_reports r ON r.id = x.report_id JOIN scans s ON s.id = r.scan_id",
  results: "SELECT s.account_id AS a FROM results x JOIN scans s ON s.id = x.scan_id",
  mute_rules: "SELECT account_id AS a FROM mute_rules",
}

const draft = (prefix: string): FindingDraft => ({
  check_id: "group_check", severity: "high", status: "fail", not_evaluated_reason: null, title: "t", description: "d",
  policy_check: "p", remediation: "r", field_labels: {}, compliance: [],
  details: [
    { resource_id: `${prefix}-1`, region: "us-east-1", compliance: false, reason: "bad" },
    { resource_id: `${prefix}-2`, region: "us-east-1", compliance: true, reason: "ok" },
  ],
})

/** An account with one completed scan, its rows, a mark, a remediation, a mute snapshot, a report, a schedule and a rule. */
const seedAccount = (name: string, extra: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const accountId = one(yield* sql<{ id: number }>`
      INSERT INTO accounts (workspace_id, cloud_provider_id, account_name, cloud_account_id, auth_method, credentials_sealed)
      VALUES (${workspaceId}, 1, ${name}, ${`${name}-cloud`}, 'access_key', 'v1.sealed') RETURNING id`)
    if (extra !== "") yield* sql.unsafe(`UPDATE accounts SET ${extra} WHERE id = ${accountId}`)
    const scanId = one(yield* sql<{ id: number }>`
      INSERT INTO scans (workspace_id, account_id, cloud_provider_id, status, total_services, completed_services)
      VALUES (${workspaceId}, ${accountId}, 1, 'completed', 1, 1) RETURNING id`)
    const scanServiceId = one(yield* sql<{ id: number }>`
      INSERT INTO scan_services (workspace_id, scan_id, service_id, status) VALUES (${workspaceId}, ${scanId}, ${serviceId}, 'completed') RETURNING id`)
    yield* inScope({ workspaceId })(Effect.gen(function* () {
      yield* writeFindings({
        workspaceId, scanId, scanServiceId, serviceId, serviceKey: "grpsvc", accountId, cloudAccountId: `${name}-cloud`, cloudProviderId: 1,
      }, [draft(name)])
      yield* sql`UPDATE results SET remediate = '{"status":"failed"}'::jsonb WHERE scan_id = ${scanId} AND rank = 0`
    }))
    const findingId = one(yield* sql<{ id: number }>`SELECT id FROM findings WHERE scan_id = ${scanId}`)
    yield* sql`INSERT INTO remediations (workspace_id, finding_id, check_id, resource_id, region)
               VALUES (${workspaceId}, ${findingId}, 'group_check', ${`${name}-1`}, 'us-east-1')`
    const ruleId = one(yield* sql<{ id: number }>`
      INSERT INTO mute_rules (workspace_id, account_id, reason) VALUES (${workspaceId}, ${accountId}, 'accepted') RETURNING id`)
    yield* sql`INSERT INTO scan_mutes (workspace_id, scan_id, rule_id, reason) VALUES (${workspaceId}, ${scanId}, ${ruleId}, 'accepted')`
    const reportId = one(yield* sql<{ id: number }>`
      INSERT INTO compliance_reports (workspace_id, scan_id, framework_ids) VALUES (${workspaceId}, ${scanId}, '{cis}') RETURNING id`)
    yield* sql`INSERT INTO compliance_report_chunks (workspace_id, report_id, seq, data) VALUES (${workspaceId}, ${reportId}, 0, '\\x00'::bytea)`
    yield* sql`INSERT INTO scan_schedules (account_id, workspace_id) VALUES (${accountId}, ${workspaceId})`
    return accountId
  })

const customRole = (name: string, limited: boolean, groupIds: ReadonlyArray<number>) =>
  su((sql) => Effect.gen(function* () {
    const id = one(yield* sql<{ id: number }>`
      INSERT INTO custom_roles (workspace_id, name, limited_to_groups) VALUES (${workspaceId}, ${name}, ${limited}) RETURNING id`)
    yield* sql`INSERT INTO custom_role_permissions (custom_role_id, workspace_id, permission_id) SELECT ${id}, ${workspaceId}, id FROM permissions`
    for (const g of groupIds) yield* sql`INSERT INTO custom_role_account_groups (custom_role_id, workspace_id, group_id) VALUES (${id}, ${workspaceId}, ${g})`
    return id
  }))

const member = (email: string, role: { roleId?: number; customRoleId?: number }) =>
  su((sql) => Effect.gen(function* () {
    const id = one(yield* sql<{ id: number }>`INSERT INTO users (email, password_hash) VALUES (${email}, 'x') RETURNING id`)
    yield* sql`INSERT INTO memberships (workspace_id, user_id, role_id, custom_role_id) VALUES (${workspaceId}, ${id}, ${role.roleId ?? null}, ${role.customRoleId ?? null})`
    return id
  }))

/** Runs `f` in the scope a request of `userId` opens (one statement: scope, session, membership, account limit). */
const asMember = <A>(userId: number, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  withSql(db.url, Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const session = (yield* sql<{ id: string }>`INSERT INTO refresh_token_families (user_id, workspace_id) VALUES (${userId}, ${workspaceId}) RETURNING id`)[0]!.id
    return yield* inScopeForMember({ workspaceId, userId }, session, () => "revoked", (row) =>
      row === undefined ? Effect.fail("not a member") : f(sql))
  }))

/** The rows each table shows `userId`, and what the superuser says the rows of `allowed` accounts are. */
const visibility = async (userId: number, allowed: ReadonlyArray<number>) => {
  const seen = await asMember(userId, (sql) => Effect.gen(function* () {
    const who = (yield* sql<{ u: string }>`SELECT current_user AS u`)[0]!.u
    const out: Record<string, number> = {}
    for (const t of Object.keys(ACCOUNT_OF)) out[t] = (yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql(t)}`)[0]!.n
    return { who, out }
  }))
  const expected: Record<string, number> = {}
  const total: Record<string, number> = {}
  await su((sql) => Effect.gen(function* () {
    for (const [t, q] of Object.entries(ACCOUNT_OF)) {
      const rows = yield* sql.unsafe<{ a: number | null; via?: ReadonlyArray<number> | null }>(q)
      total[t] = rows.length
      // Workspace-wide mute rules (no account) stay readable.
      expected[t] = rows.filter((r) =>
        (r.a === null && t === "mute_rules") || (r.a !== null && allowed.includes(r.a)) || (r.via ?? []).some((a) => allowed.includes(a))).length
    }
  }))
  expect(seen.who).toBe(API_ROLE)
  return { seen: seen.out, expected, total }
}

beforeAll(async () => {
  db = await makeTestDatabase()
  await migrateTestDatabase(db.url)
  await su((sql) => Effect.gen(function* () {
    users.owner = one(yield* sql<{ id: number }>`INSERT INTO users (email, password_hash) VALUES ('group-owner@example.com', 'x') RETURNING id`)
    workspaceId = one(yield* sql<{ id: number }>`INSERT INTO workspaces (name, owner_id) VALUES ('Groups', ${users.owner}) RETURNING id`)
    yield* sql`INSERT INTO memberships (workspace_id, user_id, role_id) VALUES (${workspaceId}, ${users.owner}, 1)`
    serviceId = one(yield* sql<{ id: number }>`INSERT INTO cloud_services (cloud_provider_id, key, name) VALUES (1, 'grpsvc', 'GRP') RETURNING id`)
  }))
  acct.org = await su(() => seedAccount("org", "is_organization = true"))
  await su((sql) => Effect.gen(function* () {
    yield* sql`INSERT INTO organizations (account_id, workspace_id, root_id) VALUES (${acct.org}, ${workspaceId}, 'r-root')`
    for (const [unit, parent, name, path] of [
      ["r-root", null, "Root", "Root"], ["ou-prod", "r-root", "Prod", "Root / Prod"], ["ou-web", "ou-prod", "Web", "Root / Prod / Web"],
      ["ou-dev", "r-root", "Dev", "Root / Dev"],
    ] as const) {
      yield* sql`INSERT INTO organization_units (organization_id, workspace_id, unit_id, parent_unit_id, name, kind, path)
                 VALUES (${acct.org}, ${workspaceId}, ${unit}, ${parent}, ${name}, ${unit === "r-root" ? "root" : "organizational_unit"}, ${path})`
    }
  }))
  // Members of the organisation get their organisation and unit below.
  acct.web = await su(() => seedAccount("web", ""))
  acct.dev = await su(() => seedAccount("dev", ""))
  acct.red = await su(() => seedAccount("red", `tags = '{"team":"red"}'::jsonb`))
  acct.blue = await su(() => seedAccount("blue", `tags = '{"team":"blue"}'::jsonb`))
  await su((sql) => Effect.gen(function* () {
    yield* sql`UPDATE accounts SET organization_id = ${acct.org}, org_unit_id = 'ou-web', org_unit_path = 'Root / Prod / Web' WHERE id = ${acct.web}`
    yield* sql`UPDATE accounts SET organization_id = ${acct.org}, org_unit_id = 'ou-dev', org_unit_path = 'Root / Dev' WHERE id = ${acct.dev}`
    for (const [a, unit] of [[acct.web, "ou-web"], [acct.dev, "ou-dev"]] as const) {
      yield* sql`INSERT INTO organization_members (organization_id, workspace_id, cloud_account_id, name, unit_id, state, included, account_id)
                 VALUES (${acct.org}, ${workspaceId}, ${`m-${a}`}, 'm', ${unit}, 'active', true, ${a})`
    }
    yield* sql`INSERT INTO organization_syncs (organization_id, workspace_id, trigger) VALUES (${acct.org}, ${workspaceId}, 'manual')`
    const fleet = one(yield* sql<{ id: number }>`
      INSERT INTO fleet_scans (workspace_id, organization_id, member_cap, status) VALUES (${workspaceId}, ${acct.org}, 5, 'completed') RETURNING id`)
    for (const [i, a] of [acct.web, acct.dev].entries()) {
      yield* sql`INSERT INTO fleet_scan_members (fleet_scan_id, workspace_id, account_id, position) VALUES (${fleet}, ${workspaceId}, ${a}, ${i})`
    }
    yield* sql`INSERT INTO mute_rules (workspace_id, check_id, reason) VALUES (${workspaceId}, 'group_check', 'workspace-wide')`
    groups.prod = one(yield* sql<{ id: number }>`
      INSERT INTO account_groups (workspace_id, name, kind, organization_id, unit_id) VALUES (${workspaceId}, 'Prod', 'unit', ${acct.org}, 'ou-prod') RETURNING id`)
    groups.red = one(yield* sql<{ id: number }>`
      INSERT INTO account_groups (workspace_id, name, kind, tag_key, tag_value) VALUES (${workspaceId}, 'Red', 'tag', 'team', 'red') RETURNING id`)
    groups.manual = one(yield* sql<{ id: number }>`
      INSERT INTO account_groups (workspace_id, name, kind) VALUES (${workspaceId}, 'Picked', 'manual') RETURNING id`)
    yield* sql`INSERT INTO account_group_accounts (group_id, workspace_id, account_id) VALUES (${groups.manual}, ${workspaceId}, ${acct.blue})`
  }))
  roles.prodLead = await customRole("Prod lead", true, [groups.prod])
  roles.redLead = await customRole("Red lead", true, [groups.red])
  roles.manual = await customRole("Picked", true, [groups.manual])
  roles.unlimited = await customRole("Everything", false, [])
  users.prodLead = await member("prod-lead@example.com", { customRoleId: roles.prodLead })
  users.redLead = await member("red-lead@example.com", { customRoleId: roles.redLead })
  users.manual = await member("picked@example.com", { customRoleId: roles.manual })
  users.unlimited = await member("everything@example.com", { customRoleId: roles.unlimited })
}, 180_000)

afterAll(async () => {
  await db?.close()
})

describe("access by group in the database", () => {
  it("every per-account table is listed with a row-to-account mapping, and each holds rows of several accounts", async () => {
    const limited = GROUP_LIMITED_TABLES.map(([t]) => t)
    expect(Object.keys(ACCOUNT_OF).filter((t) => t !== "results" && t !== "mute_rules").sort()).toEqual([...limited].sort())
    const { total } = await visibility(users.owner, [])
    for (const [t, n] of Object.entries(total)) expect(n, t).toBeGreaterThan(0)
  })

  it("a member limited to a unit group sees the unit's accounts (units below it included) and nothing else", async () => {
    const { seen, expected, total } = await visibility(users.prodLead, [acct.web])
    expect(seen).toEqual(expected)
    for (const t of Object.keys(total)) expect(seen[t]!, t).toBeLessThan(total[t]!)
    expect(seen["accounts"]).toBe(1)
    expect(seen["mute_rules"]).toBe(2) // the web account's rule and the workspace-wide one
  })

  it("a tag group and a hand-picked group", async () => {
    const red = await visibility(users.redLead, [acct.red])
    expect(red.seen).toEqual(red.expected)
    expect(red.seen["accounts"]).toBe(1)
    const picked = await visibility(users.manual, [acct.blue])
    expect(picked.seen).toEqual(picked.expected)
    expect(picked.seen["accounts"]).toBe(1)
  })

  it("the owner and an unlimited custom role see every account", async () => {
    for (const u of [users.owner, users.unlimited]) {
      const { seen, total } = await visibility(u, [])
      expect(seen).toEqual(total)
    }
  })

  it("a limited member cannot write into another account, nor add an account or a workspace-wide rule", async () => {
    const attempt = (f: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
      asMember(users.prodLead, (sql) => f(sql)).then(() => "written", () => "refused")
    expect(await attempt((sql) => sql`INSERT INTO scans (workspace_id, account_id, cloud_provider_id) VALUES (${workspaceId}, ${acct.dev}, 1)`)).toBe("refused")
    expect(await attempt((sql) => sql`
      INSERT INTO accounts (workspace_id, cloud_provider_id, account_name, cloud_account_id, auth_method, credentials_sealed)
      VALUES (${workspaceId}, 1, 'new', 'new-cloud', 'access_key', 'v1.sealed')`)).toBe("refused")
    expect(await attempt((sql) => sql`INSERT INTO mute_rules (workspace_id, check_id, reason) VALUES (${workspaceId}, 'x', 'r')`)).toBe("refused")
    expect(await attempt((sql) => sql`INSERT INTO mute_rules (workspace_id, account_id, reason) VALUES (${workspaceId}, ${acct.dev}, 'r')`)).toBe("refused")
    expect(await attempt((sql) => sql`INSERT INTO scan_schedules (account_id, workspace_id) VALUES (${acct.red}, ${workspaceId})`)).toBe("refused")
    const touched = await asMember(users.prodLead, (sql) => Effect.gen(function* () {
      const n = (q: ReadonlyArray<unknown>) => q.length
      return {
        accounts: n(yield* sql`UPDATE accounts SET account_name = 'taken' WHERE id <> ${acct.web} RETURNING id`),
        scans: n(yield* sql`DELETE FROM scans WHERE account_id <> ${acct.web} RETURNING id`),
        rules: n(yield* sql`DELETE FROM mute_rules WHERE account_id IS DISTINCT FROM ${acct.web} RETURNING id`),
        findings: n(yield* sql`UPDATE findings SET title = 'x' WHERE true RETURNING scan_id`),
        // Its own account's rule may be written.
        own: n(yield* sql`UPDATE mute_rules SET reason = 'still accepted' WHERE account_id = ${acct.web} RETURNING id`),
      }
    }))
    expect(touched).toEqual({ accounts: 0, scans: 0, rules: 0, findings: 1, own: 1 })
    const names = await su((sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM accounts WHERE account_name = 'taken'`)
    expect(names[0]!.n).toBe(0)
  })

  it("the resource search finds nothing in an account outside the groups", async () => {
    const search = (userId: number, accountId: number, text: string) =>
      asMember(userId, (sql) => sql<{ resource_uid: string }>`SELECT resource_uid FROM findings_resource_uids(${accountId}, ${`%${text}%`})`)
    expect((await search(users.prodLead, acct.web, "web-1")).length).toBe(1)
    expect(await search(users.prodLead, acct.dev, "dev-1")).toEqual([])
    expect((await search(users.owner, acct.dev, "dev-1")).length).toBe(1)
  })

  it("a unit group follows an account moved between units; a tag group follows its tags", async () => {
    await su((sql) => sql`UPDATE accounts SET org_unit_id = 'ou-prod', org_unit_path = 'Root / Prod' WHERE id = ${acct.dev}`)
    await su((sql) => sql`UPDATE accounts SET tags = '{"team":"red"}'::jsonb WHERE id = ${acct.blue}`)
    try {
      const prod = await visibility(users.prodLead, [acct.web, acct.dev])
      expect(prod.seen).toEqual(prod.expected)
      expect(prod.seen["accounts"]).toBe(2)
      const red = await visibility(users.redLead, [acct.red, acct.blue])
      expect(red.seen["accounts"]).toBe(2)
      expect(red.seen).toEqual(red.expected)
    } finally {
      await su((sql) => sql`UPDATE accounts SET org_unit_id = 'ou-dev', org_unit_path = 'Root / Dev' WHERE id = ${acct.dev}`)
      await su((sql) => sql`UPDATE accounts SET tags = '{"team":"blue"}'::jsonb WHERE id = ${acct.blue}`)
    }
    expect((await visibility(users.prodLead, [acct.web])).seen["accounts"]).toBe(1)
  })

  it("lifting the limit takes effect with the next scope; a limited role whose groups are gone sees no account", async () => {
    await su((sql) => sql`UPDATE custom_roles SET limited_to_groups = false WHERE id = ${roles.redLead}`)
    const lifted = await visibility(users.redLead, [])
    expect(lifted.seen).toEqual(lifted.total)
    await su((sql) => sql`UPDATE custom_roles SET limited_to_groups = true WHERE id = ${roles.redLead}`)
    expect((await visibility(users.redLead, [acct.red])).seen["accounts"]).toBe(1)
    await su((sql) => sql`DELETE FROM custom_role_account_groups WHERE custom_role_id = ${roles.redLead}`)
    const none = await visibility(users.redLead, [])
    expect(none.seen).toEqual(none.expected)
    expect(none.seen["accounts"]).toBe(0)
    expect(none.seen["mute_rules"]).toBe(1) // the workspace-wide rule only
    await su((sql) => sql`INSERT INTO custom_role_account_groups (custom_role_id, workspace_id, group_id) VALUES (${roles.redLead}, ${workspaceId}, ${groups.red})`)
  })
})
