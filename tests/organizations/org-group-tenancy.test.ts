/**
 * The organisation for a member limited to account groups (issue 31 item 5; docs/organizations.md "Access by group",
 * migration 0039), over HTTP: the tenancy matrix of the organisation's endpoints. A team lead whose role is limited
 * to the group of unit "Production" (and every unit below it) reads the organisation page, the fleet dashboard,
 * organisation compliance (JSON, CSV, PDF) and the findings across accounts over their own members only — each answer
 * equal to what an admin reads with `unit=ou-prod` — and none of the organisation's settings, syncs or fleet scans;
 * sync, selection change and fleet scan launch are refused (403). Nothing of the other units leaks: no id, name,
 * cloud id or unit of theirs appears in any answer, in any part of it. A limited member none of whose accounts is a
 * member finds the organisation "not found" everywhere. The `unit` filters take the unit and every unit below it, for
 * the admin and for the limited members alike (a unit above their accounts is visible to them, a sibling is not).
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AccountGroupMessages } from "../../src/contracts/account-groups.ts"
import type { Finding, FindingListResponse } from "../../src/contracts/findings.ts"
import type { FleetDashboard, OrgCompliance, OrganizationDetail, OrganizationSummary } from "../../src/contracts/organizations.ts"
import { frameworkById } from "../../server/compliance/catalogue.ts"
import { inScopeForMember } from "../../server/auth/rls.ts"
import { withOrganizationView } from "../../server/organizations/store.ts"
import { makeTestDatabase, withSql, type TestDatabase } from "../support/db.ts"
import {
  seedWorldAccount, seedWorldLimitedMember, seedWorldMember, seedWorldScan, seedWorldServices, type WorldCheck, type WorldMember,
} from "../support/findings-world.ts"
import { startTestServer, type TestServer } from "../support/server.ts"

const FRAMEWORK = "cis-aws-3.0.0"

let db: TestDatabase
let server: TestServer
/** The workspace's owner (Admin), a lead limited to ou-prod, one limited to ou-web, one limited to an account outside the organisation. */
let admin: WorldMember
let prodLead: WorldMember
let webLead: WorldMember
let soloLead: WorldMember
let org: number
let fleetScanId = 0
const accounts: Record<"web" | "db" | "dev" | "fresh" | "gone" | "solo", number> = { web: 0, db: 0, dev: 0, fresh: 0, gone: 0, solo: 0 }
const CLOUD = { web: "111111111111", db: "222222222222", dev: "333333333333", fresh: "444444444444", gone: "555555555555", solo: "666666666666" }
const UNIT = { web: "ou-web", db: "ou-prod", dev: "ou-dev", fresh: "ou-dev", gone: "ou-web", solo: null } as const

const fw = frameworkById(FRAMEWORK)!
const mapped = [...new Set(fw.requirements.flatMap((r) => r.checks))].slice(0, 4)
const c = (check: string, severity: WorldCheck["severity"], rows: WorldCheck["rows"]): WorldCheck => ({ check, severity, rows })
const r = (id: string, flag: boolean | null) => ({ id, region: "us-east-1", flag })
const world = (service: number, n: number) => [
  { id: service, key: "tenancysvc", checks: [
    c(mapped[0]!, "critical", [r(`a-${n}`, n % 2 === 0), r("a-x", n % 3 === 0)]),
    c(mapped[1]!, "high", [r("b-1", n % 4 === 1), r("b-2", false)]),
    c(mapped[2]!, "medium", [r("c-1", true)]),
    c(mapped[3]!, "low", [r("d-1", false), r("d-2", n % 2 === 0)]),
  ] },
]

const sql = <A>(effect: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  withSql(server.databaseUrl, Effect.flatMap(SqlClient.SqlClient, effect))

beforeAll(async () => {
  db = await makeTestDatabase()
  server = await startTestServer({ database: db, env: { LOG_LEVEL: "error", READ_CACHE: "0" } })
  admin = await seedWorldMember(server.databaseUrl, "org-tenancy", server)
  const ws = admin.workspaceId
  const [service] = (await seedWorldServices(server.databaseUrl, ["tenancysvc"])) as [number]
  org = (await sql((q) => q<{ id: number }>`
    INSERT INTO accounts (workspace_id, cloud_provider_id, account_name, cloud_account_id, auth_method, credentials_sealed, is_organization)
    VALUES (${ws}, 1, 'Acme organisation', 'o-tenancy', 'role', 'v1.world', true) RETURNING id`))[0]!.id
  await sql((q) => Effect.gen(function* () {
    yield* q`INSERT INTO organizations (account_id, workspace_id, root_id, root_name, management_account_id, member_role_name,
                                        exclude_accounts, exclude_units)
             VALUES (${org}, ${ws}, 'r-root', 'Root', '999999999999', 'CloudAuditMemberRole', '{777777777777}', '{ou-secret}')`
    yield* q`INSERT INTO organization_units (organization_id, workspace_id, unit_id, parent_unit_id, name, kind, path) VALUES
      (${org}, ${ws}, 'r-root', NULL, 'Root', 'root', 'Root'),
      (${org}, ${ws}, 'ou-prod', 'r-root', 'Production', 'organizational_unit', 'Root / Production'),
      (${org}, ${ws}, 'ou-web', 'ou-prod', 'Web', 'organizational_unit', 'Root / Production / Web'),
      (${org}, ${ws}, 'ou-empty', 'ou-prod', 'Spare', 'organizational_unit', 'Root / Production / Spare'),
      (${org}, ${ws}, 'ou-dev', 'r-root', 'Development', 'organizational_unit', 'Root / Development')`
  }))
  const paths: Record<string, string> = { "ou-web": "Root / Production / Web", "ou-prod": "Root / Production", "ou-dev": "Root / Development" }
  let n = 0
  for (const name of ["web", "db", "dev", "fresh", "gone", "solo"] as const) {
    const id = await seedWorldAccount(server.databaseUrl, admin, CLOUD[name])
    accounts[name] = id
    const unit = UNIT[name]
    await sql((q) => Effect.gen(function* () {
      yield* q`UPDATE accounts SET account_name = ${`acct-${name}`}, organization_id = ${unit === null ? null : org}, org_unit_id = ${unit},
               org_unit_path = ${unit === null ? null : paths[unit]!} WHERE id = ${id}`
      if (unit !== null) {
        yield* q`INSERT INTO organization_members (organization_id, workspace_id, cloud_account_id, name, unit_id, state, included, account_id, reachable)
                 VALUES (${org}, ${ws}, ${CLOUD[name]}, ${`acct-${name}`}, ${unit}, 'active', true, ${id}, ${name !== "dev"})`
      }
    }))
    if (name !== "fresh") for (let k = 0; k < 2; k++) await seedWorldScan(server.databaseUrl, admin, id, world(service, n++))
  }
  await sql((q) => Effect.gen(function* () {
    yield* q`UPDATE accounts SET retired_at = now(), retired_reason = 'removed' WHERE id = ${accounts.gone}`
    // A member the organisation lists but that is excluded (no account), in Development.
    yield* q`INSERT INTO organization_members (organization_id, workspace_id, cloud_account_id, name, unit_id, state, included)
             VALUES (${org}, ${ws}, '777777777777', 'acct-excluded', 'ou-dev', 'active', false)`
    yield* q`INSERT INTO organization_syncs (organization_id, workspace_id, trigger, status, changes, members_total, members_included)
             VALUES (${org}, ${ws}, 'manual', 'completed', ${JSON.stringify({ added: [{ cloud_account_id: CLOUD.dev, name: "acct-dev", unit_path: "Root / Development" }] })}::jsonb, 6, 5)`
    fleetScanId = (yield* q<{ id: number }>`
      INSERT INTO fleet_scans (workspace_id, organization_id, member_cap, status) VALUES (${ws}, ${org}, 5, 'completed') RETURNING id`)[0]!.id
    for (const [k, name] of (["web", "dev"] as const).entries()) {
      yield* q`INSERT INTO fleet_scan_members (fleet_scan_id, workspace_id, account_id, position, state) VALUES (${fleetScanId}, ${ws}, ${accounts[name]}, ${k}, 'completed')`
    }
  }))
  prodLead = await seedWorldLimitedMember(server.databaseUrl, ws, "prod-lead", { kind: "unit", organizationId: org, unitId: "ou-prod" }, server)
  webLead = await seedWorldLimitedMember(server.databaseUrl, ws, "web-lead", { kind: "unit", organizationId: org, unitId: "ou-web" }, server)
  soloLead = await seedWorldLimitedMember(server.databaseUrl, ws, "solo-lead", { kind: "manual", accountIds: [accounts.solo] }, server)
}, 180_000)

afterAll(async () => {
  await server?.stop()
  await db?.close()
})

const call = async (method: string, path: string, who: WorldMember, body?: unknown) => {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${who.token}`, "x-workspace-id": String(who.workspaceId),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const bytes = new Uint8Array(await res.arrayBuffer())
  return { status: res.status, headers: res.headers, bytes, text: new TextDecoder().decode(bytes) }
}
const json = async <A>(path: string, who: WorldMember): Promise<A> => {
  const answer = await call("GET", path, who)
  expect(answer.status, answer.text).toBe(200)
  return (JSON.parse(answer.text) as { data: A }).data
}

/** What a Production lead must never read: the other units' accounts, cloud ids, names and units. */
const FOREIGN = [
  CLOUD.dev, CLOUD.fresh, CLOUD.solo, "777777777777", "acct-dev", "acct-fresh", "acct-solo", "acct-excluded", "ou-dev", "Development",
  "ou-empty", "Spare", "ou-secret", "CloudAuditMemberRole", "999999999999",
]
const expectNoLeak = (text: string, extra: ReadonlyArray<string> = []) => {
  for (const s of [...FOREIGN, ...extra]) expect(text, `leaks ${s}`).not.toContain(s)
}
/** Account ids of other units as JSON values (`"account_id":7`, `[7,` …). */
const expectNoForeignIds = (value: unknown, ids: ReadonlyArray<number>) => {
  const seen: Array<number> = []
  const walk = (v: unknown, key: string) => {
    if (Array.isArray(v)) v.forEach((x) => walk(x, key))
    else if (v !== null && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, k)
    else if (typeof v === "number" && /^account_ids?$/.test(key) && ids.includes(v)) seen.push(v)
  }
  walk(value, "")
  expect(seen, JSON.stringify(value)).toEqual([])
}
const foreignIds = () => [accounts.dev, accounts.fresh, accounts.solo]

describe("the organisation for a member limited to account groups", () => {
  it("organisation page: their members and the units above them; no setting, sync or other unit", async () => {
    const page = await json<OrganizationDetail>(`/api/organizations/${org}`, prodLead)
    expect(page).toMatchObject({
      id: org, account_name: "Acme organisation", organization_id: "o-tenancy", limited_view: true, root_id: "", root_name: "",
      management_account_id: null, member_role_name: null, member_concurrency: 0, last_sync_at: null, next_sync_at: null,
      last_sync_status: null, members_total: 3, members_included: 2, members_retired: 1, members_unreachable: 0, recent_syncs: [],
      selection: { include_units: [], exclude_units: [], include_accounts: [], exclude_accounts: [] },
    })
    expect(page.members.map((m) => m.cloud_account_id).sort()).toEqual([CLOUD.db, CLOUD.gone, CLOUD.web].sort())
    expect(page.units.map((u) => [u.unit_id, u.members])).toEqual([["r-root", 0], ["ou-prod", 1], ["ou-web", 2]])
    expectNoLeak(JSON.stringify(page))
    expectNoForeignIds(page, foreignIds())
    // The admin's page of the same organisation holds everything (the contrast).
    const full = await json<OrganizationDetail>(`/api/organizations/${org}`, admin)
    expect(full.limited_view).toBeUndefined()
    expect(full).toMatchObject({ root_id: "r-root", member_role_name: "CloudAuditMemberRole", members_total: 6, members_included: 4 })
    expect(full.units).toHaveLength(5)
    expect(full.recent_syncs).toHaveLength(1)
    // The lead of Web: Root, Production and Web (the way down to their accounts), never Production's other accounts.
    const web = await json<OrganizationDetail>(`/api/organizations/${org}`, webLead)
    expect(web.units.map((u) => u.unit_id)).toEqual(["r-root", "ou-prod", "ou-web"])
    expect(web.members.map((m) => m.cloud_account_id).sort()).toEqual([CLOUD.gone, CLOUD.web].sort())
    expectNoLeak(JSON.stringify(web), [CLOUD.db, "acct-db"])
  })

  it("organisation list, sync history and fleet scans: the organisation with their counts, no sync, no fleet scan", async () => {
    const { organizations } = await json<{ organizations: ReadonlyArray<OrganizationSummary> }>("/api/organizations", prodLead)
    expect(organizations.map((o) => [o.id, o.limited_view, o.members_included])).toEqual([[org, true, 2]])
    expectNoLeak(JSON.stringify(organizations))
    expect(await json(`/api/organizations/${org}/syncs`, prodLead)).toEqual({ syncs: [] })
    expect(await json(`/api/organizations/${org}/fleet-scans`, prodLead)).toEqual({ fleet_scans: [] })
    expect((await json<{ syncs: ReadonlyArray<unknown> }>(`/api/organizations/${org}/syncs`, admin)).syncs).toHaveLength(1)
    expect((await json<{ fleet_scans: ReadonlyArray<unknown> }>(`/api/organizations/${org}/fleet-scans`, admin)).fleet_scans).toHaveLength(1)
    // The fleet scan itself (its members span the units): not found for them, whole for the admin.
    expect((await call("GET", `/api/fleet-scans/${fleetScanId}`, prodLead)).status).toBe(404)
    expect((await json<{ members_total: number }>(`/api/fleet-scans/${fleetScanId}`, admin)).members_total).toBe(2)
  })

  it("fleet dashboard: equal to the admin's over unit Production (members, totals, trend); the unit filter takes the units below", async () => {
    const mine = await json<FleetDashboard>(`/api/organizations/${org}/fleet`, prodLead)
    const adminsProd = await json<FleetDashboard>(`/api/organizations/${org}/fleet?unit=ou-prod`, admin)
    expect(mine.members.map((m) => m.account_name)).toEqual(adminsProd.members.map((m) => m.account_name))
    expect(mine.members.map((m) => m.account_id).sort()).toEqual([accounts.db, accounts.web].sort())
    expect(mine.totals).toEqual(adminsProd.totals)
    expect(mine.trend).toEqual(adminsProd.trend)
    // The units filter's choices, when the answer offers them: the units they can see only (the admin: every unit).
    const unitsOf = (d: FleetDashboard) => (d as { readonly units?: ReadonlyArray<{ readonly unit_id: string }> }).units
    if (unitsOf(mine) !== undefined) {
      expect(unitsOf(mine)!.map((u) => u.unit_id)).toEqual(["r-root", "ou-prod", "ou-web"])
      expect(unitsOf(adminsProd)).toHaveLength(5)
    }
    expect({ ...mine, unit: null, units: null }).toEqual({ ...adminsProd, unit: null, units: null })
    expect(mine.totals.members).toBe(2)
    expectNoLeak(JSON.stringify(mine))
    expectNoForeignIds(mine, foreignIds())
    // unit=ou-prod for the lead: web (in ou-web, below it) included — the walk goes through units they can see.
    expect((await json<FleetDashboard>(`/api/organizations/${org}/fleet?unit=ou-prod`, prodLead)).members.map((m) => m.account_name).sort())
      .toEqual(["acct-db", "acct-web"])
    expect((await json<FleetDashboard>(`/api/organizations/${org}/fleet?unit=r-root`, prodLead)).totals).toEqual(mine.totals)
    expect((await json<FleetDashboard>(`/api/organizations/${org}/fleet?unit=ou-web`, prodLead)).members.map((m) => m.account_name)).toEqual(["acct-web"])
    // The Web lead filtering on Production (above them): their account only.
    expect((await json<FleetDashboard>(`/api/organizations/${org}/fleet?unit=ou-prod`, webLead)).members.map((m) => m.account_name)).toEqual(["acct-web"])
    // Units they cannot see are unknown (as a unit of no organisation), with or without members.
    for (const unit of ["ou-dev", "ou-empty", "ou-nowhere"]) {
      expect((await call("GET", `/api/organizations/${org}/fleet?unit=${unit}`, prodLead)).status).toBe(404)
    }
    // The admin: a unit and every unit below it (r-root: every member not retired).
    expect((await json<FleetDashboard>(`/api/organizations/${org}/fleet?unit=r-root`, admin)).members.map((m) => m.account_name).sort())
      .toEqual(["acct-db", "acct-dev", "acct-fresh", "acct-web"])
  })

  it("compliance JSON, CSV and PDF: their members only, equal to the admin's over unit Production", async () => {
    const base = `/api/organizations/${org}/compliance/${FRAMEWORK}`
    const mine = await json<OrgCompliance>(base, prodLead)
    const adminsProd = await json<OrgCompliance>(`${base}?unit=ou-prod`, admin)
    expect({ ...mine, unit: null }).toEqual({ ...adminsProd, unit: null })
    expect(mine.members.map((m) => m.account_id).sort()).toEqual([accounts.db, accounts.web].sort())
    expectNoLeak(JSON.stringify(mine))
    expectNoForeignIds(mine, foreignIds())
    for (const part of ["requirements", "members"]) {
      const csv = await call("GET", `${base}/csv?part=${part}`, prodLead)
      expect(csv.status, csv.text).toBe(200)
      const adminCsv = await call("GET", `${base}/csv?part=${part}&unit=ou-prod`, admin)
      expect(csv.text).toBe(adminCsv.text)
      expectNoLeak(csv.text)
    }
    const pdf = await call("GET", `${base}/pdf`, prodLead)
    expect(pdf.status).toBe(200)
    expect(pdf.headers.get("content-type")).toContain("application/pdf")
    if (existsSync("/usr/bin/pdftotext")) {
      const dir = mkdtempSync(join(tmpdir(), "org-tenancy-"))
      writeFileSync(join(dir, "r.pdf"), pdf.bytes)
      const text = execFileSync("pdftotext", [join(dir, "r.pdf"), "-"], { encoding: "utf8" })
      expect(text).toContain(`acct-web (${CLOUD.web})`)
      expect(text).toContain(`acct-db (${CLOUD.db})`)
      expectNoLeak(text)
    }
  })

  it("findings across accounts: their members' latest findings; unit filters take the units below", async () => {
    const list = async (query: string, who: WorldMember) => {
      const answer = await call("GET", `/api/findings?${query}&page_size=100`, who)
      expect(answer.status, answer.text).toBe(200)
      return JSON.parse(answer.text) as FindingListResponse
    }
    const accountsOf = (fs: ReadonlyArray<Finding>) => [...new Set(fs.map((f) => f.account_id))].sort()
    const mine = await list(`organization_id=${org}`, prodLead)
    const adminsProd = await list(`organization_id=${org}&unit=ou-prod`, admin)
    expect(mine.data.map((f) => f.id)).toEqual(adminsProd.data.map((f) => f.id))
    expect(mine.totals).toEqual(adminsProd.totals)
    expect(accountsOf(mine.data)).toEqual([accounts.db, accounts.web].sort())
    expectNoLeak(JSON.stringify(mine))
    // The unit and the units below it, for the lead (through the units above their accounts) and the admin.
    expect(accountsOf((await list("unit=ou-prod", prodLead)).data)).toEqual([accounts.db, accounts.web].sort())
    expect(accountsOf((await list("unit=r-root", prodLead)).data)).toEqual([accounts.db, accounts.web].sort())
    expect(accountsOf((await list("unit=ou-prod", webLead)).data)).toEqual([accounts.web])
    expect((await list("unit=ou-dev", prodLead)).data).toEqual([])
    expect(accountsOf((await list("unit=r-root", admin)).data)).toEqual([accounts.web, accounts.db, accounts.dev].sort())
    expect(accountsOf((await list("unit=ou-prod", admin)).data)).toEqual([accounts.web, accounts.db].sort())
    // Naming other units' accounts finds nothing.
    expect((await list(`account_id=${accounts.dev},${accounts.solo}`, prodLead)).data).toEqual([])
  })

  it("sync, selection change and fleet scan launch are refused (403); nothing is written", async () => {
    const before = await sql((q) => q<{ syncs: number; fleets: number; ex: Array<string> }>`
      SELECT (SELECT count(*)::int FROM organization_syncs) AS syncs, (SELECT count(*)::int FROM fleet_scans) AS fleets,
             (SELECT exclude_accounts FROM organizations WHERE account_id = ${org}) AS ex`)
    const sync = await call("POST", `/api/accounts/${org}/sync`, prodLead)
    expect(sync.status).toBe(403)
    expect(JSON.parse(sync.text).message).toBe(AccountGroupMessages.limitedCannotManageOrganization)
    const selection = await call("PUT", `/api/organizations/${org}/selection`, prodLead, {
      include_units: [], exclude_units: [], include_accounts: [], exclude_accounts: [],
    })
    expect(selection.status).toBe(403)
    expect(JSON.parse(selection.text).message).toBe(AccountGroupMessages.limitedCannotManageOrganization)
    const fleet = await call("POST", "/api/scans", prodLead, {
      user_id: prodLead.userId, account_id: org, cloud_provider_id: 1, cloud_provider_name: "aws",
    })
    expect(fleet.status).toBe(403)
    expect(JSON.parse(fleet.text).message).toBe(AccountGroupMessages.limitedCannotScanFleet)
    const after = await sql((q) => q<{ syncs: number; fleets: number; ex: Array<string> }>`
      SELECT (SELECT count(*)::int FROM organization_syncs) AS syncs, (SELECT count(*)::int FROM fleet_scans) AS fleets,
             (SELECT exclude_accounts FROM organizations WHERE account_id = ${org}) AS ex`)
    expect(after).toEqual(before)
  })

  it("the account list, the account's own calls: the organisation's account stays out of their reach", async () => {
    const list = await json<{ accounts: ReadonlyArray<{ id: number }> }>("/api/accounts?cloud_provider_id=1", prodLead)
    expect(list.accounts.map((a) => a.id).sort()).toEqual([accounts.db, accounts.gone, accounts.web].sort())
    // Its credentials and its row: not found, as any account outside their groups.
    expect((await call("POST", `/api/accounts/${org}/reveal-secret`, prodLead)).status).toBe(404)
    expect((await call("GET", `/api/accounts/${org}`, prodLead)).status).toBe(404)
    expect((await call("DELETE", `/api/accounts/${org}`, prodLead)).status).toBe(404)
    expect((await sql((q) => q<{ n: number }>`SELECT count(*)::int AS n FROM accounts WHERE id = ${org}`))[0]!.n).toBe(1)
  })

  it("a limited member with no account in the organisation: not found everywhere", async () => {
    for (const path of [
      `/api/organizations/${org}`, `/api/organizations/${org}/fleet`, `/api/organizations/${org}/syncs`, `/api/organizations/${org}/fleet-scans`,
      `/api/organizations/${org}/compliance/${FRAMEWORK}`, `/api/organizations/${org}/compliance/${FRAMEWORK}/csv`,
      `/api/organizations/${org}/compliance/${FRAMEWORK}/pdf`,
    ]) {
      const answer = await call("GET", path, soloLead)
      expect(answer.status, path).toBe(404)
    }
    expect(await json("/api/organizations", soloLead)).toEqual({ organizations: [] })
    const fleet = await call("POST", "/api/scans", soloLead, { user_id: soloLead.userId, account_id: org, cloud_provider_id: 1, cloud_provider_name: "aws" })
    expect(fleet.status).toBe(404)
    expect((await call("GET", `/api/findings?organization_id=${org}`, soloLead)).text).not.toContain(CLOUD.web)
  })

  it("in the database: the organisation's row only under the organisation view, never writable; units only on the way to their accounts", async () => {
    const ws = admin.workspaceId
    // The scope statement checks a live session: the lead's (the world made one).
    const session = (who: WorldMember) => sql((q) => q<{ id: string }>`SELECT id::text AS id FROM refresh_token_families WHERE user_id = ${who.userId} LIMIT 1`)
    const sid = (await session(prodLead))[0]!.id
    const run = <A>(body: Effect.Effect<A, unknown, SqlClient.SqlClient>) =>
      withSql(server.databaseUrl, inScopeForMember({ workspaceId: ws, userId: prodLead.userId }, sid, () => new Error("revoked"), () => body))
    const seen = await run(Effect.gen(function* () {
      const q = yield* SqlClient.SqlClient
      const plain = yield* q<{ id: number }>`SELECT id FROM accounts WHERE is_organization`
      const viewed = yield* withOrganizationView(q<{ id: number; credentials_sealed: string }>`SELECT id, credentials_sealed FROM accounts WHERE is_organization`)
      const after = yield* q<{ id: number }>`SELECT id FROM accounts WHERE is_organization`
      const updated = yield* withOrganizationView(q<{ id: number }>`UPDATE accounts SET account_name = 'taken' WHERE id = ${org} RETURNING id`)
      const locked = yield* withOrganizationView(q<{ id: number }>`SELECT id FROM accounts WHERE id = ${org} FOR UPDATE`)
      const settings = yield* withOrganizationView(q<{ n: number }>`SELECT count(*)::int AS n FROM organizations`)
      const units = yield* q<{ unit_id: string }>`SELECT unit_id FROM organization_units ORDER BY path`
      const members = yield* q<{ id: number }>`SELECT id FROM accounts WHERE NOT is_organization ORDER BY id`
      return { plain, viewed, after, updated, locked, settings, units, members }
    }))
    expect(seen.plain).toEqual([])
    expect(seen.viewed.map((r) => r.id)).toEqual([org])
    expect(seen.after).toEqual([])
    expect(seen.updated).toEqual([])
    expect(seen.locked).toEqual([])
    expect(seen.settings[0]!.n).toBe(0)
    expect(seen.units.map((u) => u.unit_id)).toEqual(["r-root", "ou-prod", "ou-web"])
    expect(seen.members.map((m) => m.id)).toEqual([accounts.web, accounts.db, accounts.gone].sort((a, b) => a - b))
    expect((await sql((q) => q<{ account_name: string }>`SELECT account_name FROM accounts WHERE id = ${org}`))[0]!.account_name).toBe("Acme organisation")
  })
})
