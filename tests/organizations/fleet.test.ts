/**
 * The fleet dashboard and compliance over an organisation (issue 31 "See the fleet"), over HTTP against a world written
 * by the real writer: an organisation with units (Root → Production → Web, Root → Development), members placed in
 * them with tags and back-dated completed scans of real CIS AWS checks (one member never scanned, one retired), an
 * account outside the organisation, and another workspace's organisation.
 *
 * The surfaces must agree: each member's numbers on the dashboard equal its own posture overview (failing resources by
 * severity), scan (failed checks) and findings list (failed checks by severity); the trend's days equal the sums of
 * those numbers over the scan each member had that day; each requirement's member counts equal the members' own
 * per-scan compliance answers; the CSV parts and the PDF carry the same numbers. Filters (unit subtree, tag), stale
 * members, sorts, and tenancy (another workspace's organisation, a plain account: 404).
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { ScanFramework } from "../../src/contracts/compliance.ts"
import { FLEET_PAGE_SIZE, FleetResponse, ORG_FAILED_NAMED, type FleetDashboard, type FleetMember, type OrgCompliance } from "../../src/contracts/organizations.ts"
import { riskScore } from "../../src/contracts/outcomes.ts"
import type { PostureOverview } from "../../src/contracts/posture.ts"
import { frameworkById } from "../../server/compliance/catalogue.ts"
import { makeTestDatabase, withSql, type TestDatabase } from "../support/db.ts"
import {
  seedWorldAccount, seedWorldMember, seedWorldMute, seedWorldScan, seedWorldServices, type WorldCheck, type WorldMember,
} from "../support/findings-world.ts"
import { startTestServer, type TestServer } from "../support/server.ts"

const FRAMEWORK = "cis-aws-3.0.0"
const SEVERITIES = ["critical", "high", "medium", "low"] as const
const DAY = 86_400_000

let db: TestDatabase
let server: TestServer
let member: WorldMember
let other: WorldMember
let org: number
let otherOrg: number
let solo: number
const accounts: Record<"web" | "db" | "dev" | "fresh" | "gone", number> = { web: 0, db: 0, dev: 0, fresh: 0, gone: 0 }
/** Each member's completed scans, oldest first, with the days ago they started. */
const scans: Record<string, Array<{ id: number; daysAgo: number }>> = {}

const fw = frameworkById(FRAMEWORK)!
/** Five mapped checks of the framework (each decides at least one requirement). */
const mapped = [...new Set(fw.requirements.flatMap((r) => r.checks))].slice(0, 5)

const c = (check: string, severity: WorldCheck["severity"], rows: WorldCheck["rows"]): WorldCheck => ({ check, severity, rows })
const r = (id: string, flag: boolean | null) => ({ id, region: "us-east-1", flag })

/** A scan's checks: results varying with `n` (failing, passing, not evaluated, nothing in scope). */
const world = (service: number, n: number) => [
  { id: service, key: "fleetsvc", checks: [
    c(mapped[0]!, "critical", [r(`a-${n}`, n % 2 === 0), r("a-x", n % 3 === 0)]),
    c(mapped[1]!, "high", [r("b-1", n % 4 === 1), r("b-2", false), r("b-3", n % 2 === 1)]),
    c(mapped[2]!, "medium", [r("c-1", n === 3 ? null : true)]),
    c(mapped[3]!, "low", n % 3 === 1 ? [] : [r("d-1", false), r("d-2", n % 2 === 0)]),
    c(mapped[4]!, "high", [r("e-1", n % 5 !== 2)]),
  ] },
]

const sql = <A>(effect: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  withSql(server.databaseUrl, Effect.flatMap(SqlClient.SqlClient, effect))

const seedOrganization = async (who: WorldMember, cloudId: string) => {
  const ws = who.workspaceId
  const id = (await sql((q) => q<{ id: number }>`
    INSERT INTO accounts (workspace_id, cloud_provider_id, account_name, cloud_account_id, auth_method, credentials_sealed, is_organization)
    VALUES (${ws}, 1, 'Organisation', ${cloudId}, 'role', 'v1.world', true) RETURNING id`))[0]!.id
  await sql((q) => Effect.gen(function* () {
    yield* q`INSERT INTO organizations (account_id, workspace_id, root_id, root_name) VALUES (${id}, ${ws}, 'r-root', 'Root')`
    yield* q`INSERT INTO organization_units (organization_id, workspace_id, unit_id, parent_unit_id, name, kind, path) VALUES
      (${id}, ${ws}, 'r-root', NULL, 'Root', 'root', 'Root'),
      (${id}, ${ws}, 'ou-prod', 'r-root', 'Production', 'organizational_unit', 'Root / Production'),
      (${id}, ${ws}, 'ou-web', 'ou-prod', 'Web', 'organizational_unit', 'Root / Production / Web'),
      (${id}, ${ws}, 'ou-dev', 'r-root', 'Development', 'organizational_unit', 'Root / Development')`
  }))
  return id
}

beforeAll(async () => {
  db = await makeTestDatabase()
  server = await startTestServer({ database: db, env: { LOG_LEVEL: "error", READ_CACHE: "0" } })
  member = await seedWorldMember(server.databaseUrl, "fleet-dashboard", server)
  other = await seedWorldMember(server.databaseUrl, "fleet-dashboard-other", server)
  const [service] = (await seedWorldServices(server.databaseUrl, ["fleetsvc"])) as [number]
  org = await seedOrganization(member, "o-fleet")
  otherOrg = await seedOrganization(other, "o-other")
  const placed: ReadonlyArray<readonly [keyof typeof accounts, string, string, string, Record<string, string>, ReadonlyArray<number>]> = [
    ["web", "111111111111", "ou-web", "Root / Production / Web", { env: "prod", team: "web" }, [20, 2]],
    ["db", "222222222222", "ou-prod", "Root / Production", { env: "prod" }, [40, 25, 10]],
    ["dev", "333333333333", "ou-dev", "Root / Development", { env: "dev", team: "web" }, [15, 1]],
    ["fresh", "444444444444", "ou-dev", "Root / Development", { env: "dev" }, []],
    ["gone", "555555555555", "ou-web", "Root / Production / Web", { env: "prod" }, [5]],
  ]
  let n = 0
  for (const [name, cloudId, unit, path, tags, daysAgo] of placed) {
    // From "dev" on, a rule mutes mapped[3]'s failing rows (requirements passed with exceptions).
    if (name === "dev") await seedWorldMute(server.databaseUrl, member, mapped[3]!)
    const id = await seedWorldAccount(server.databaseUrl, member, cloudId)
    accounts[name] = id
    await sql((q) => q`UPDATE accounts SET account_name = ${name}, organization_id = ${org}, org_unit_id = ${unit}, org_unit_path = ${path},
                       tags = ${JSON.stringify(tags)}::jsonb WHERE id = ${id}`)
    scans[name] = []
    for (const ago of daysAgo) {
      const scanId = await seedWorldScan(server.databaseUrl, member, id, world(service, n++))
      // Back-dated in the order they were written (the latest stays the latest).
      await sql((q) => q`UPDATE scans SET scan_start = now() - make_interval(days => ${ago}), scan_end = now() - make_interval(days => ${ago}) + interval '5 minutes'
                         WHERE id = ${scanId}`)
      scans[name]!.push({ id: scanId, daysAgo: ago })
    }
  }
  await sql((q) => q`UPDATE accounts SET retired_at = now(), retired_reason = 'removed' WHERE id = ${accounts.gone}`)
  solo = await seedWorldAccount(server.databaseUrl, member, "666666666666")
  await seedWorldScan(server.databaseUrl, member, solo, world(service, 9))
  const otherMember = await seedWorldAccount(server.databaseUrl, other, "777777777777")
  await sql((q) => q`UPDATE accounts SET organization_id = ${otherOrg}, org_unit_id = 'ou-web' WHERE id = ${otherMember}`)
  await seedWorldScan(server.databaseUrl, other, otherMember, world(service, 11))
}, 180_000)

afterAll(async () => {
  await server?.stop()
  await db?.close()
})

const call = async (path: string, who: WorldMember = member) => {
  const res = await fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${who.token}`, "x-workspace-id": String(who.workspaceId) } })
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) }
}
const json = async <A>(path: string, who: WorldMember = member): Promise<A> => {
  const answer = await call(path, who)
  const text = new TextDecoder().decode(answer.bytes)
  expect(answer.status, text).toBe(200)
  return (JSON.parse(text) as { data: A }).data
}
const fleet = (query = "") => json<FleetDashboard>(`/api/organizations/${org}/fleet${query}`)
const names = (members: ReadonlyArray<FleetMember>) => members.map((m) => m.account_name)

describe("the fleet dashboard", () => {
  it("lists the members that are not retired, each by its latest completed scan, with the numbers of its own surfaces", async () => {
    const dashboard = await fleet()
    expect(names(dashboard.members).sort()).toEqual(["db", "dev", "fresh", "web"])
    const overview = await json<PostureOverview>("/api/posture/overview")
    for (const m of dashboard.members) {
      const latest = scans[m.account_name]!.at(-1)
      expect(m.latest_scan_id).toBe(latest?.id ?? null)
      if (latest === undefined) {
        expect(m.failing_resources_total + m.failed_checks_total + m.risk).toBe(0)
        continue
      }
      // Failing resources by severity: the posture overview's point of that scan.
      const point = overview.accounts.find((a) => a.account_id === m.account_id)!.scans.find((s) => s.scan_id === latest.id)!
      expect(m.failing_resources).toEqual(point.failing)
      expect(m.failing_resources_total).toBe(point.failing_resources)
      expect(m.risk).toBe(riskScore(point.failing))
      // Failed checks: the scan's own count, and by severity the findings list's failed (not muted) findings.
      const scan = await json<{ failed_findings: number }>(`/api/scans/${latest.id}`)
      expect(m.failed_checks_total).toBe(scan.failed_findings)
      for (const s of SEVERITIES) {
        const list = await call(`/api/findings?scan_id=${latest.id}&status=fail&severity=${s}&page_size=1`)
        const body = JSON.parse(new TextDecoder().decode(list.bytes)) as { pagination: { total: number } }
        expect(m.failed_checks[s], `${m.account_name} ${s}`).toBe(body.pagination.total)
      }
    }
    // Some member fails something, or the comparison above proved little.
    expect(dashboard.totals.failing_resources_total).toBeGreaterThan(0)
    expect(dashboard.totals.failed_checks_total).toBeGreaterThan(0)
  })

  it("totals are the sums of the members; sorted by risk by default, and by name, failing resources or staleness on request", async () => {
    const dashboard = await fleet()
    const total = (f: (m: FleetMember) => number) => dashboard.members.reduce((n, m) => n + f(m), 0)
    expect(dashboard.sort).toBe("risk")
    expect(dashboard.totals.members).toBe(4)
    expect(dashboard.totals.members_scanned).toBe(3)
    expect(dashboard.totals.failing_resources_total).toBe(total((m) => m.failing_resources_total))
    expect(dashboard.totals.failed_checks_total).toBe(total((m) => m.failed_checks_total))
    expect(dashboard.totals.risk).toBe(total((m) => m.risk))
    for (const s of SEVERITIES) expect(dashboard.totals.failing_resources[s]).toBe(total((m) => m.failing_resources[s]))
    const risks = dashboard.members.map((m) => m.risk)
    expect(risks).toEqual([...risks].sort((a, b) => b - a))
    expect(names((await fleet("?sort=name")).members)).toEqual(["db", "dev", "fresh", "web"])
    const failing = (await fleet("?sort=failing")).members.map((m) => m.failing_resources_total)
    expect(failing).toEqual([...failing].sort((a, b) => b - a))
    // Stale first: never scanned, then the oldest latest scan (db, 10 days ago).
    expect(names((await fleet("?sort=stale")).members).slice(0, 2)).toEqual(["fresh", "db"])
  })

  it("stale members: no completed scan, or the latest older than stale_days (default 7)", async () => {
    const stale = (d: FleetDashboard) => names(d.members.filter((m) => m.stale)).sort()
    const byDefault = await fleet()
    expect(byDefault.stale_days).toBe(7)
    expect(stale(byDefault)).toEqual(["db", "fresh"])
    expect(byDefault.totals.members_stale).toBe(2)
    expect(stale(await fleet("?stale_days=14"))).toEqual(["fresh"])
    // web started 2 days ago (just over 2 days by now), dev 1 day ago.
    expect(stale(await fleet("?stale_days=2"))).toEqual(["db", "fresh", "web"])
    expect((await call(`/api/organizations/${org}/fleet?stale_days=0`)).status).toBe(400)
  })

  it("filters by unit (the unit and every unit under it) and by tag (key:value, or key)", async () => {
    expect(names((await fleet("?unit=ou-prod")).members).sort()).toEqual(["db", "web"])
    expect(names((await fleet("?unit=ou-web")).members)).toEqual(["web"])
    expect(names((await fleet("?unit=r-root")).members).sort()).toEqual(["db", "dev", "fresh", "web"])
    expect(names((await fleet("?tag=env:dev")).members).sort()).toEqual(["dev", "fresh"])
    expect(names((await fleet("?tag=team")).members).sort()).toEqual(["dev", "web"])
    expect(names((await fleet("?unit=ou-prod&tag=team:web")).members)).toEqual(["web"])
    const filtered = await fleet("?unit=ou-dev")
    expect(filtered.totals.members).toBe(2)
    expect(filtered.totals.failing_resources_total).toBe(filtered.members.reduce((n, m) => n + m.failing_resources_total, 0))
    expect((await call(`/api/organizations/${org}/fleet?unit=ou-nowhere`)).status).toBe(404)
  })

  it("names every unit of the organisation, whatever the filters and the page (the unit filter's choices)", async () => {
    const every = [
      { unit_id: "r-root", path: "Root" },
      { unit_id: "ou-dev", path: "Root / Development" },
      { unit_id: "ou-prod", path: "Root / Production" },
      { unit_id: "ou-web", path: "Root / Production / Web" },
    ]
    // Decoded by the shared contract; the organisation's units only (the other organisation has units of the same ids),
    // the root holding no member among them.
    const raw = await call(`/api/organizations/${org}/fleet`)
    const whole = Schema.decodeUnknownSync(FleetResponse)(JSON.parse(new TextDecoder().decode(raw.bytes))).data
    expect(whole.units).toEqual(every)
    expect(whole.members.some((m) => m.unit_id === "r-root")).toBe(false)
    // A page of one member, a unit filter, a tag no member has, a page past the last: the same units.
    for (const query of ["?page_size=1&page=2", "?unit=ou-web", "?unit=ou-dev&page_size=1", "?tag=env:nowhere", "?page=9"]) {
      const answer = await fleet(query)
      expect(answer.units, query).toEqual(every)
      expect(new Set(answer.members.map((m) => m.unit_id)).size, query).toBeLessThan(every.length)
    }
  })

  it("pages the members: the sort runs over every member, pages follow it without overlap, totals and trend do not depend on the page", async () => {
    const whole = await fleet()
    expect(whole.pagination).toEqual({ page: 1, page_size: FLEET_PAGE_SIZE, total: 4, total_pages: 1 })
    for (const sort of ["risk", "name", "failing", "stale"] as const) {
      const all = await fleet(`?sort=${sort}&page_size=4`)
      const pages = [await fleet(`?sort=${sort}&page_size=3&page=1`), await fleet(`?sort=${sort}&page_size=3&page=2`)]
      expect(pages.map((p) => p.pagination)).toEqual([
        { page: 1, page_size: 3, total: 4, total_pages: 2 },
        { page: 2, page_size: 3, total: 4, total_pages: 2 },
      ])
      // Page 1 is full, the last page holds the rest; together they are the whole sorted list (stable: the same order).
      expect(pages.map((p) => p.members.length)).toEqual([3, 1])
      expect(pages.flatMap((p) => p.members), sort).toEqual(all.members)
      for (const p of pages) {
        expect(p.totals, sort).toEqual(whole.totals)
        expect(p.trend, sort).toEqual(whole.trend)
      }
    }
    // One truth: the totals are the sums over all the pages.
    const pages = await Promise.all([1, 2, 3, 4].map((page) => fleet(`?page_size=1&page=${page}`)))
    const members = pages.flatMap((p) => p.members)
    expect(members.map((m) => m.account_id).sort()).toEqual(whole.members.map((m) => m.account_id).sort())
    const total = (f: (m: FleetMember) => number) => members.reduce((n, m) => n + f(m), 0)
    expect(whole.totals.members).toBe(members.length)
    expect(whole.totals.members_scanned).toBe(members.filter((m) => m.latest_scan_id !== null).length)
    expect(whole.totals.members_stale).toBe(members.filter((m) => m.stale).length)
    expect(whole.totals.failing_resources_total).toBe(total((m) => m.failing_resources_total))
    expect(whole.totals.failed_checks_total).toBe(total((m) => m.failed_checks_total))
    expect(whole.totals.risk).toBe(total((m) => m.risk))
    for (const s of SEVERITIES) {
      expect(whole.totals.failing_resources[s]).toBe(total((m) => m.failing_resources[s]))
      expect(whole.totals.failed_checks[s]).toBe(total((m) => m.failed_checks[s]))
    }
    // A filtered set pages too, its totals over the filtered members only.
    const prod = await fleet("?unit=ou-prod&page_size=1&page=2")
    expect(prod.pagination).toEqual({ page: 2, page_size: 1, total: 2, total_pages: 2 })
    expect(prod.totals.members).toBe(2)
    // Past the last page: no members, the pagination and totals as ever; a page or size outside the contract: 400.
    const past = await fleet("?page=3&page_size=3")
    expect(past.members).toEqual([])
    expect(past.pagination).toEqual({ page: 3, page_size: 3, total: 4, total_pages: 2 })
    expect(past.totals).toEqual(whole.totals)
    for (const bad of ["page=0", "page_size=0", "page_size=201", "page=x"]) {
      expect((await call(`/api/organizations/${org}/fleet?${bad}`)).status, bad).toBe(400)
    }
  })

  it("the trend: per day of the last 30, each member counted by its latest completed scan as of that day", async () => {
    const dashboard = await fleet()
    const overview = await json<PostureOverview>("/api/posture/overview")
    const pointOf = (scanId: number) => overview.accounts.flatMap((a) => a.scans).find((s) => s.scan_id === scanId)!
    const failedOf = new Map<number, number>()
    for (const list of Object.values(scans)) for (const s of list) failedOf.set(s.id, (await json<{ failed_findings: number }>(`/api/scans/${s.id}`)).failed_findings)
    expect(dashboard.trend).toHaveLength(30)
    const today = new Date().toISOString().slice(0, 10)
    expect(dashboard.trend.at(-1)!.day).toBe(today)
    const starts = await sql((q) => q<{ id: number; scan_start: Date }>`SELECT id, scan_start FROM scans`)
    const startOf = new Map(starts.map((s) => [s.id, new Date(s.scan_start).getTime()]))
    for (const point of dashboard.trend) {
      const end = Date.parse(`${point.day}T00:00:00Z`) + DAY
      let failing = 0
      let failed = 0
      let scanned = 0
      for (const name of ["web", "db", "dev", "fresh"]) {
        const asOf = scans[name]!.filter((s) => startOf.get(s.id)! < end).at(-1)
        if (asOf === undefined) continue
        scanned++
        failing += pointOf(asOf.id).failing_resources
        failed += failedOf.get(asOf.id)!
      }
      expect(point, point.day).toEqual({ day: point.day, members_scanned: scanned, failing_resources: failing, failed_checks: failed })
    }
    // Today's point is the totals; 29 days ago db (scanned 40 days ago) was the only member scanned.
    expect(dashboard.trend.at(-1)!.failing_resources).toBe(dashboard.totals.failing_resources_total)
    expect(dashboard.trend.at(-1)!.failed_checks).toBe(dashboard.totals.failed_checks_total)
    expect(dashboard.trend[0]!.members_scanned).toBe(1)
  })
})

describe("compliance over the organisation", () => {
  const base = () => `/api/organizations/${org}/compliance/${FRAMEWORK}`

  it("per requirement, the members by the status of their own latest scan's compliance answer", async () => {
    const answer = await json<OrgCompliance>(base())
    expect(answer.members_total).toBe(4)
    expect(answer.members_scanned).toBe(3)
    const own = new Map<number, ScanFramework>()
    for (const name of ["web", "db", "dev"]) {
      own.set(accounts[name as "web"], await json<ScanFramework>(`/api/compliance/scans/${scans[name]!.at(-1)!.id}/frameworks/${FRAMEWORK}`))
    }
    for (const req of answer.requirements) {
      const expected = { passed: 0, passed_with_exceptions: 0, failed: 0, not_evaluated: 0, manual: 0, not_applicable: 0, not_scanned: 1 }
      const failing: Array<number> = []
      for (const [accountId, framework] of own) {
        const status = framework.requirements.find((x) => x.id === req.id)!.status
        expected[status]++
        if (status === "failed") failing.push(accountId)
      }
      expect(req.members, req.id).toEqual(expected)
      // The failing members named: the first ORG_FAILED_NAMED by name (here every one: three members are scanned).
      const byName = failing.map((id) => ({ account_id: id, account_name: Object.entries(accounts).find(([, a]) => a === id)![0] }))
        .sort((a, b) => a.account_name.localeCompare(b.account_name))
      expect(req.failed_members, req.id).toEqual(byName.slice(0, ORG_FAILED_NAMED))
    }
    for (const m of answer.members) {
      if (m.account_name === "fresh") expect(m.counts).toBeNull()
      else expect(m.counts).toEqual(own.get(m.account_id)!.counts)
    }
    // The world exercises failed, passed-with-exceptions and not evaluated requirements.
    const sum = (k: "failed" | "passed_with_exceptions" | "passed") => answer.requirements.reduce((n, x) => n + x.members[k], 0)
    expect(sum("failed")).toBeGreaterThan(0)
    expect(sum("passed")).toBeGreaterThan(0)
    expect(sum("passed_with_exceptions")).toBeGreaterThan(0)
  })

  it("pages its members (by name) while the requirements' counts stay over every member", async () => {
    const whole = await json<OrgCompliance>(base())
    expect(whole.members_pagination).toEqual({ page: 1, page_size: FLEET_PAGE_SIZE, total: 4, total_pages: 1 })
    expect(whole.members.map((m) => m.account_name)).toEqual(["db", "dev", "fresh", "web"])
    const pages = await Promise.all([1, 2].map((page) => json<OrgCompliance>(`${base()}?page_size=3&page=${page}`)))
    expect(pages.map((p) => p.members.length)).toEqual([3, 1])
    expect(pages.flatMap((p) => p.members)).toEqual(whole.members)
    for (const p of pages) {
      expect(p.members_pagination.total).toBe(4)
      expect(p.members_pagination.total_pages).toBe(2)
      expect(p.requirements).toEqual(whole.requirements)
      expect([p.members_total, p.members_scanned]).toEqual([whole.members_total, whole.members_scanned])
    }
    // One truth: per requirement, the members counted failing are those whose own counts hold it failed (across pages).
    const scanned = pages.flatMap((p) => p.members).filter((m) => m.counts !== null).length
    for (const req of whole.requirements) {
      expect(Object.values(req.members).reduce((n, x) => n + x, 0), req.id).toBe(whole.members_total)
      expect(req.members.not_scanned).toBe(whole.members_total - scanned)
    }
    const past = await json<OrgCompliance>(`${base()}?page=9`)
    expect(past.members).toEqual([])
    expect(past.members_pagination).toEqual({ page: 9, page_size: FLEET_PAGE_SIZE, total: 4, total_pages: 1 })
    expect(past.requirements).toEqual(whole.requirements)
    expect((await call(`${base()}?page_size=500`)).status).toBe(400)
  })

  it("the CSV parts carry the same numbers (one row per requirement; members × requirements)", async () => {
    const answer = await json<OrgCompliance>(`${base()}?unit=ou-prod`)
    expect(answer.members_total).toBe(2)
    const requirements = await call(`${base()}/csv?unit=ou-prod`)
    expect(requirements.status).toBe(200)
    expect(requirements.headers.get("content-type")).toContain("text/csv")
    const lines = new TextDecoder().decode(requirements.bytes).trim().split("\r\n")
    const header = lines[0]!.split(",")
    expect(lines).toHaveLength(answer.requirements.length + 1)
    for (const [i, req] of answer.requirements.entries()) {
      const cells = lines[i + 1]!.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((x) => x.replace(/,$/, ""))
      const at = (col: string) => Number(cells[header.indexOf(col)])
      expect(cells[header.indexOf("requirement_id")]).toBe(req.id)
      expect(at("members_failed")).toBe(req.members.failed)
      expect(at("members_passed")).toBe(req.members.passed)
      expect(at("members_passed_with_exceptions")).toBe(req.members.passed_with_exceptions)
      expect(at("members_not_evaluated")).toBe(req.members.not_evaluated)
      expect(at("members_total")).toBe(2)
    }
    const members = new TextDecoder().decode((await call(`${base()}/csv?part=members`)).bytes).trim().split("\r\n")
    const full = await json<OrgCompliance>(base())
    const mHeader = members[0]!.split(",")
    expect(mHeader.slice(11)).toEqual(full.requirements.map((x) => x.id))
    expect(members).toHaveLength(full.members.length + 1)
    for (const [i, m] of full.members.entries()) {
      const cells = members[i + 1]!.split(",")
      expect(cells[0]).toBe(m.account_name)
      expect(cells[mHeader.indexOf("failed")]).toBe(m.counts === null ? "" : String(m.counts.failed))
      const statuses = cells.slice(11)
      full.requirements.forEach((req, k) => {
        const expected = m.counts === null ? "not_scanned" : req.failed_members.some((f) => f.account_id === m.account_id) ? "failed" : undefined
        if (expected !== undefined) expect(statuses[k]).toBe(expected)
        else expect(statuses[k]).not.toBe("failed")
      })
    }
  })

  it.skipIf(!existsSync("/usr/bin/pdftotext"))("the PDF shows the same member counts", async () => {
    const answer = await json<OrgCompliance>(base())
    const pdf = await call(`${base()}/pdf`)
    expect(pdf.status).toBe(200)
    expect(pdf.headers.get("content-type")).toContain("application/pdf")
    const dir = mkdtempSync(join(tmpdir(), "org-pdf-"))
    writeFileSync(join(dir, "r.pdf"), pdf.bytes)
    const text = execFileSync("pdftotext", [join(dir, "r.pdf"), "-"], { encoding: "utf8" }).replace(/\s+/g, " ")
    expect(text).toContain("Organization compliance report")
    for (const req of answer.requirements.slice(0, 20)) {
      expect(text).toContain(`Passed ${req.members.passed} · Passed with exceptions ${req.members.passed_with_exceptions} · Failed ${req.members.failed} · Not evaluated ${req.members.not_evaluated}`)
    }
    for (const m of answer.members) expect(text).toContain(`${m.account_name} (${m.cloud_account_id})`)
  })
})

describe("tenancy", () => {
  it("another workspace's organisation, a plain account or a framework of another provider is not found", async () => {
    expect((await call(`/api/organizations/${otherOrg}/fleet`)).status).toBe(404)
    expect((await call(`/api/organizations/${otherOrg}/compliance/${FRAMEWORK}`)).status).toBe(404)
    expect((await call(`/api/organizations/${otherOrg}/compliance/${FRAMEWORK}/csv`)).status).toBe(404)
    expect((await call(`/api/organizations/${otherOrg}/compliance/${FRAMEWORK}/pdf`)).status).toBe(404)
    expect((await call(`/api/organizations/${solo}/fleet`)).status).toBe(404)
    expect((await call(`/api/organizations/${org}/compliance/cis-gcp-4.0.0`)).status).toBe(404)
    // The other workspace sees its own organisation only: its one member.
    const theirs = await json<FleetDashboard>(`/api/organizations/${otherOrg}/fleet`, other)
    expect(theirs.members).toHaveLength(1)
    expect((await call(`/api/organizations/${org}/fleet`, other)).status).toBe(404)
  })
})

describe("the stored roll-up (migration 0032)", () => {
  type Facts = readonly [string, number, number, number, number]
  interface Stored { id: number; superseded: boolean; check_outcomes: Record<string, Facts>; failing_resources: number; outcome_counts: Record<string, ReadonlyArray<number>> }
  /** Every completed scan of the workspace: its stored roll-up, and whether a later completed scan supersedes it. */
  const stored = () => sql((q) => q<Stored>`
    SELECT s.id, s.check_outcomes, s.failing_resources, s.outcome_counts,
           EXISTS (SELECT 1 FROM scans t WHERE t.workspace_id = s.workspace_id AND t.account_id = s.account_id AND t.status = 'completed'
                   AND (t.scan_start, t.id) > (s.scan_start, s.id)) AS superseded
    FROM scans s WHERE s.workspace_id = ${member.workspaceId} AND s.status = 'completed' ORDER BY s.id`)
  /** The roll-up computed here from the scan's findings, as they stand (`failingResources` of its failed checks). */
  const computed = async (scanId: number) => {
    const rows = await sql((q) => q<{ check_id: string; status: string; muted: boolean; resources_checked: number; resources_failing: number; resources_remediated: number; resources_muted: number }>`
      SELECT check_id, status, muted, resources_checked, resources_failing, resources_remediated, resources_muted
      FROM findings WHERE workspace_id = ${member.workspaceId} AND scan_id = ${scanId}`)
    return {
      check_outcomes: Object.fromEntries(rows.map((f) => [f.check_id, [f.status, f.resources_checked, f.resources_failing, f.resources_remediated, f.resources_muted]])),
      failing_resources: rows.filter((f) => f.status === "fail" && !f.muted)
        .reduce((n, f) => n + Math.max(0, f.resources_failing - f.resources_remediated - f.resources_muted), 0),
    }
  }
  const failingOfCounts = (counts: Stored["outcome_counts"]) =>
    Object.entries(counts).filter(([k]) => k.startsWith("0:")).reduce((n, [, v]) => n + Number(v[2] ?? 0), 0)

  it("each completed scan stores its checks' facts and failing resources as its findings give them, and a mute rewrites the live scans only", async () => {
    const before = await stored()
    expect(before).toHaveLength(9)
    for (const s of before) {
      expect({ check_outcomes: s.check_outcomes, failing_resources: s.failing_resources }, `scan ${s.id}`).toEqual(await computed(s.id))
      // The trend's number is the dashboard members' own: the failed entries of `outcome_counts`.
      expect(s.failing_resources).toBe(failingOfCounts(s.outcome_counts))
    }
    expect(before.some((s) => s.failing_resources > 0)).toBe(true)
    // A mute of a check failing in every scan (mapped[1]: b-2 always fails): live scans are recounted, superseded ones keep
    // what they said (docs/outcomes.md "History").
    const res = await fetch(`${server.baseUrl}/api/mute-rules`, {
      method: "POST",
      headers: { authorization: `Bearer ${member.token}`, "x-workspace-id": String(member.workspaceId), "content-type": "application/json" },
      body: JSON.stringify({ reason: "Accepted for the roll-up test", check_id: mapped[1] }),
    })
    expect(res.status, await res.text()).toBe(200)
    const after = await stored()
    let changed = 0
    for (const [i, s] of after.entries()) {
      const was = before[i]!
      expect(s.id).toBe(was.id)
      if (s.superseded) {
        expect(s, `superseded scan ${s.id}`).toEqual(was)
      } else {
        expect({ check_outcomes: s.check_outcomes, failing_resources: s.failing_resources }, `live scan ${s.id}`).toEqual(await computed(s.id))
        if (s.failing_resources !== was.failing_resources) changed++
        expect(s.check_outcomes[mapped[1]!]![4]).toBeGreaterThan(0)
      }
    }
    expect(changed).toBeGreaterThan(0)
    // The surfaces follow: each member's dashboard numbers are still its latest scan's stored ones.
    const dash = await fleet()
    for (const m of dash.members) {
      const own = after.find((s) => s.id === m.latest_scan_id)
      if (own !== undefined) expect(m.failing_resources_total, m.account_name).toBe(own.failing_resources)
    }
    expect(dash.trend.at(-1)!.failing_resources).toBe(dash.members.filter((m) => m.latest_scan_id !== null).reduce((n, m) => n + m.failing_resources_total, 0))
  }, 60_000)
})
