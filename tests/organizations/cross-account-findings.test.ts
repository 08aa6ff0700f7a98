/**
 * Findings across accounts (issue 31): GET /api/findings without scan_id lists the findings of every account's latest
 * completed scan — never a superseded scan's, never a running scan's, never another workspace's — narrowed by
 * account, organisation and unit (the unit and every unit below it), with the per-scan list's filters and sorts. Its
 * totals equal the sums of the per-scan lists of those scans with the same filters (the two surfaces agree), and paging
 * through every page, by cursor or by number, answers each finding once. A world of an organisation with units, five
 * accounts (one retired, one outside the organisation) of two or three scans each, written by the real writer.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Finding, FindingListResponse } from "../../src/contracts/findings.ts"
import { makeTestDatabase, withSql, type TestDatabase } from "../support/db.ts"
import {
  seedWorldAccount, seedWorldMember, seedWorldMute, seedWorldScan, seedWorldServices, type WorldCheck, type WorldMember,
} from "../support/findings-world.ts"
import { startTestServer, type TestServer } from "../support/server.ts"

let db: TestDatabase
let server: TestServer
let member: WorldMember
let other: WorldMember
let alpha: number
let beta: number
let org: number
const accounts: Record<"web" | "db" | "dev" | "solo" | "gone", number> = { web: 0, db: 0, dev: 0, solo: 0, gone: 0 }
/** Every completed scan of each account, oldest first. */
const scans: Record<string, Array<number>> = {}
let otherScan: number
let runningScan: number

const c = (check: string, severity: WorldCheck["severity"], rows: WorldCheck["rows"]): WorldCheck => ({ check, severity, rows })
const r = (id: string, flag: boolean | null, region = "us-east-1") => ({ id, region, flag })

/** One scan's services: the same checks each time, their results varying with `n` (so scans differ). */
const world = (n: number) => [
  { id: alpha, key: "alpha", checks: [
    c("alpha_public_access", "high", [r(`gw-${n}`, n % 2 === 0), r("gw-x", false, "eu-west-1")]),
    c("alpha_logging", "critical", [r("trail", n % 3 !== 0)]),
    c("alpha_encryption", "low", [r("key", n === 4 ? null : true)]),
  ] },
  { id: beta, key: "beta", checks: [
    c("beta_public_bucket", "critical", [r(`bucket-${n}`, n % 2 === 1), r("bucket-site", false)]),
    c("beta_versioning", "medium", Array.from({ length: 1 + (n % 3) }, (_, i) => r(`bucket-v${i}`, i % 2 === 0, "eu-west-1"))),
  ] },
]

const sql = <A>(effect: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  withSql(server.databaseUrl, Effect.flatMap(SqlClient.SqlClient, effect))

beforeAll(async () => {
  db = await makeTestDatabase()
  server = await startTestServer({ database: db, env: { LOG_LEVEL: "error" } })
  member = await seedWorldMember(server.databaseUrl, "fleet-findings", server)
  other = await seedWorldMember(server.databaseUrl, "fleet-findings-other", server)
  ;[alpha, beta] = await seedWorldServices(server.databaseUrl, ["alpha", "beta"]) as [number, number]
  const ws = member.workspaceId
  org = (await sql((q) => q<{ id: number }>`
    INSERT INTO accounts (workspace_id, cloud_provider_id, account_name, cloud_account_id, auth_method, credentials_sealed, is_organization)
    VALUES (${ws}, 1, 'Organisation', 'o-world', 'role', 'v1.world', true) RETURNING id`))[0]!.id
  await sql((q) => Effect.gen(function* () {
    yield* q`INSERT INTO organizations (account_id, workspace_id, root_id, root_name) VALUES (${org}, ${ws}, 'r-root', 'Root')`
    yield* q`INSERT INTO organization_units (organization_id, workspace_id, unit_id, parent_unit_id, name, kind, path) VALUES
      (${org}, ${ws}, 'r-root', NULL, 'Root', 'root', 'Root'),
      (${org}, ${ws}, 'ou-prod', 'r-root', 'Production', 'organizational_unit', 'Root / Production'),
      (${org}, ${ws}, 'ou-web', 'ou-prod', 'Web', 'organizational_unit', 'Root / Production / Web'),
      (${org}, ${ws}, 'ou-dev', 'r-root', 'Development', 'organizational_unit', 'Root / Development')`
  }))
  const placed: ReadonlyArray<readonly [keyof typeof accounts, string, string | null, string | null]> = [
    ["web", "111111111111", "ou-web", "Root / Production / Web"],
    ["db", "222222222222", "ou-prod", "Root / Production"],
    ["dev", "333333333333", "ou-dev", "Root / Development"],
    ["gone", "444444444444", "ou-web", "Root / Production / Web"],
    ["solo", "555555555555", null, null],
  ]
  let n = 0
  for (const [name, cloudId, unit, path] of placed) {
    // From here on the rule mutes beta_versioning's failing rows (muted findings among the latest ones).
    if (name === "dev") await seedWorldMute(server.databaseUrl, member, "beta_versioning")
    const id = await seedWorldAccount(server.databaseUrl, member, cloudId)
    accounts[name] = id
    await sql((q) => q`UPDATE accounts SET account_name = ${name}, organization_id = ${unit === null ? null : org}, org_unit_id = ${unit},
                       org_unit_path = ${path} WHERE id = ${id}`)
    scans[name] = []
    for (let k = 0; k < (name === "db" ? 3 : 2); k++) scans[name]!.push(await seedWorldScan(server.databaseUrl, member, id, world(n++)))
  }
  await sql((q) => q`UPDATE accounts SET retired_at = now(), retired_reason = 'removed' WHERE id = ${accounts.gone}`)
  // A scan of "web" still running: the list keeps its latest completed scan.
  runningScan = (await sql((q) => q<{ id: number }>`
    INSERT INTO scans (workspace_id, account_id, cloud_provider_id, status, total_services) VALUES (${ws}, ${accounts.web}, 1, 'running', 2) RETURNING id`))[0]!.id
  const otherAccount = await seedWorldAccount(server.databaseUrl, other, "999999999999")
  otherScan = await seedWorldScan(server.databaseUrl, other, otherAccount, world(7))
}, 180_000)

afterAll(async () => {
  await server?.stop()
  await db?.close()
})

const get = async (query: string, who: WorldMember = member): Promise<{ status: number; body: any }> => {
  const res = await fetch(`${server.baseUrl}/api/findings?${query}`, {
    headers: { authorization: `Bearer ${who.token}`, "x-workspace-id": String(who.workspaceId) },
  })
  return { status: res.status, body: await res.json() }
}

const list = async (query: string, who: WorldMember = member): Promise<FindingListResponse> => {
  const answer = await get(query, who)
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  return answer.body as FindingListResponse
}

const latestOf = (name: string) => scans[name]!.at(-1)!

/** Every page, following next_cursor; asserts each page's number and the answer's totals stay the same. */
const allPages = async (query: string, pageSize: number) => {
  const first = await list(`${query}&page_size=${pageSize}`)
  const out: Array<Finding> = [...first.data]
  let answer = first
  let page = 1
  while (answer.next_cursor !== null && answer.next_cursor !== undefined) {
    answer = await list(`${query}&page_size=${pageSize}&cursor=${encodeURIComponent(answer.next_cursor)}`)
    page++
    expect(answer.pagination.page).toBe(page)
    expect(answer.totals).toEqual(first.totals)
    out.push(...answer.data)
  }
  expect(page).toBe(Math.max(1, first.pagination.total_pages))
  return { first, findings: out }
}

/** The per-scan lists of these scans with the same filters: their findings and summed totals. */
const perScan = async (scanIds: ReadonlyArray<number>, query: string) => {
  const findings: Array<Finding> = []
  const totals = { findings: 0, findings_unfiltered: 0, resources_checked: 0, resources_failing: 0 }
  for (const id of scanIds) {
    const { findings: mine, first } = await allPages(`scan_id=${id}&${query}`, 100)
    findings.push(...mine)
    for (const k of Object.keys(totals) as Array<keyof typeof totals>) totals[k] += first.totals![k]
  }
  return { findings, totals }
}

const ids = (fs: ReadonlyArray<Finding>) => fs.map((f) => f.id).sort((a, b) => a - b)

const live = () => [latestOf("web"), latestOf("db"), latestOf("dev"), latestOf("solo")]

describe("GET /api/findings without scan_id: the latest completed scan of every account (issue 31)", () => {
  it("answers the latest completed scans' findings only, each once, with totals equal to the per-scan lists' sums", async () => {
    for (const query of ["", "status=fail", "severity=critical,high", "status=fail,muted&severity=critical", "check=public", `service_id=${beta}`,
      "change=new", "region=eu-west-1", "sort=failing&order=desc", "sort=service", "sort=check&order=desc"]) {
      const { first, findings } = await allPages(query, 3)
      const expected = await perScan(live(), query)
      expect(ids(findings), query).toEqual(ids(expected.findings))
      expect(new Set(findings.map((f) => f.id)).size, query).toBe(findings.length)
      expect(first.pagination.total, query).toBe(expected.findings.length)
      expect(first.totals, query).toMatchObject(expected.totals)
      expect(first.totals!.accounts, query).toBe(4)
      for (const f of findings) expect(live(), query).toContain(f.scan_id)
    }
  })

  it("keeps the per-scan list's default order across accounts, and numbered pages agree with cursor pages", async () => {
    const { findings } = await allPages("", 4)
    expect(findings.some((f) => f.muted)).toBe(true)
    expect(findings.some((f) => f.outcome === "not_evaluated")).toBe(true)
    const rank = (f: Finding) => [
      f.outcome === "fail" && !f.muted ? 0 : f.outcome === "fail" ? 1 : f.outcome === "remediated" ? 2 : f.outcome === "not_evaluated" ? 3 : 4,
      ["critical", "high", "medium", "low"].indexOf(f.severity), f.id,
    ]
    const sorted = [...findings].sort((a, b) => {
      const [x, y] = [rank(a), rank(b)]
      return x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!
    })
    expect(findings.map((f) => f.id)).toEqual(sorted.map((f) => f.id))
    const numbered: Array<Finding> = []
    for (let page = 1; page <= Math.ceil(findings.length / 4); page++) numbered.push(...(await list(`page=${page}&page_size=4`)).data)
    expect(numbered.map((f) => f.id)).toEqual(findings.map((f) => f.id))
  })

  it("names each finding's account, its cloud account id, its organisation and unit path", async () => {
    const { findings } = await allPages("", 50)
    const web = findings.filter((f) => f.scan_id === latestOf("web"))
    expect(web.length).toBeGreaterThan(0)
    for (const f of web) {
      expect(f).toMatchObject({ account_id: accounts.web, account_name: "web", aws_account_id: "111111111111", organization_id: org, org_unit_path: "Root / Production / Web" })
    }
    for (const f of findings.filter((f) => f.scan_id === latestOf("solo"))) expect(f).toMatchObject({ organization_id: null, org_unit_path: null })
  })

  it("narrows to accounts (retired ones when named), an organisation, a unit and everything below it", async () => {
    const cases: ReadonlyArray<readonly [string, ReadonlyArray<number>, number]> = [
      [`account_id=${accounts.db}`, [latestOf("db")], 1],
      [`account_id=${accounts.db},${accounts.gone}`, [latestOf("db"), latestOf("gone")], 2],
      [`organization_id=${org}`, [latestOf("web"), latestOf("db"), latestOf("dev")], 3],
      ["unit=ou-prod", [latestOf("web"), latestOf("db")], 2],
      ["unit=ou-web", [latestOf("web")], 1],
      ["unit=r-root", [latestOf("web"), latestOf("db"), latestOf("dev")], 3],
      [`unit=ou-prod&account_id=${accounts.web},${accounts.dev}`, [latestOf("web")], 1],
      ["unit=ou-nowhere", [], 0],
    ]
    for (const [query, scanIds, accountCount] of cases) {
      for (const filter of ["", "&status=fail", "&check=bucket", "&sort=severity"]) {
        const { first, findings } = await allPages(`${query}${filter}`, 4)
        const expected = await perScan(scanIds, filter.slice(1))
        expect(ids(findings), query + filter).toEqual(ids(expected.findings))
        expect(first.totals, query + filter).toMatchObject({ ...expected.totals, accounts: accountCount })
      }
    }
  })

  it("marks a named retired member's findings account_retired, as a scan's list does, whatever the order (issue 31)", async () => {
    const query = `account_id=${accounts.db},${accounts.gone}`
    for (const filter of ["", "&check=bucket", "&sort=severity&order=desc"]) {
      const { findings } = await allPages(`${query}${filter}`, 4)
      const gone = findings.filter((f) => f.account_id === accounts.gone)
      expect(gone.length, filter).toBeGreaterThan(0)
      for (const f of gone) expect(f.account_retired, filter).toBe(true)
      // The key is there only when true, as in a scan's list.
      for (const f of findings.filter((f) => f.account_id !== accounts.gone)) expect("account_retired" in f, filter).toBe(false)
      const perScanList = await perScan([latestOf("gone")], filter.slice(1))
      expect(perScanList.findings.every((f) => f.account_retired === true)).toBe(true)
    }
  })

  it("follows the latest scan: a newly completed scan replaces its account's previous one, a running one never answers", async () => {
    const before = await list(`account_id=${accounts.solo}&page_size=100`)
    expect(new Set(before.data.map((f) => f.scan_id))).toEqual(new Set([latestOf("solo")]))
    expect((await list(`account_id=${accounts.web}&page_size=100`)).data.every((f) => f.scan_id !== runningScan)).toBe(true)
    scans["solo"]!.push(await seedWorldScan(server.databaseUrl, member, accounts.solo, world(11)))
    const after = await allPages(`account_id=${accounts.solo}`, 2)
    expect(new Set(after.findings.map((f) => f.scan_id))).toEqual(new Set([latestOf("solo")]))
    expect(ids(after.findings)).toEqual(ids((await perScan([latestOf("solo")], "")).findings))
    expect(after.first.totals).toMatchObject((await perScan([latestOf("solo")], "")).totals)
  })

  it("never answers another workspace's findings, whatever the filter names", async () => {
    const mine = await allPages("", 50)
    expect(mine.findings.some((f) => f.scan_id === otherScan)).toBe(false)
    const theirs = await list("page_size=100", other)
    expect(new Set(theirs.data.map((f) => f.scan_id))).toEqual(new Set([otherScan]))
    expect(theirs.totals!.accounts).toBe(1)
    const named = await list(`account_id=${accounts.web}&page_size=100`, other)
    expect(named.data).toEqual([])
    expect(named.totals).toMatchObject({ findings: 0, findings_unfiltered: 0, accounts: 0 })
    expect((await list(`organization_id=${org}`, other)).data).toEqual([])
  })

  it("refuses a resource search without a scan and an account filter that is not ids; keeps the per-scan list as it was", async () => {
    expect((await get("q=bucket")).status).toBe(400)
    expect((await get("account_id=abc")).status).toBe(400)
    const scan = await list(`scan_id=${latestOf("web")}`)
    expect(scan.data[0]).not.toHaveProperty("org_unit_path")
    expect(scan.totals).not.toHaveProperty("accounts")
    expect((await get("scan_id=999999")).status).toBe(404)
  })
})
