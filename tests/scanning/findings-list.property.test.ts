/**
 * The findings list's server-side filters, sorts, pages and totals (server/scans/findings-store.ts `listFindings`,
 * through GET /api/findings) equal filtering, sorting and counting the scan's full row set in memory — for random
 * worlds (services, checks of every outcome, rows across regions, a previous scan for new/fixed, mute rules) and
 * random queries (every filter and sort, both orders, any page size), paged by cursor to the end.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  FINDING_LIST_FILTERS, FINDING_SORTS, SEVERITIES, type FindingListFilter, type FindingListResponse, type FindingSort, type Severity,
} from "../../src/contracts/findings.ts"
import { makeTestDatabase, withSql, type TestDatabase } from "../support/db.ts"
import {
  type PlainFinding, seedWorldAccount, seedWorldMember, seedWorldMute, seedWorldScan, seedWorldServices, type WorldCheck, type WorldMember,
} from "../support/findings-world.ts"
import { startTestServer, type TestServer } from "../support/server.ts"

const SERVICE_KEYS = ["alpha", "beta", "gamma"] as const
const REGIONS = ["us-east-1", "eu-west-1", "ap-south-1"] as const
const NAMES = ["bucket", "Trail", "key", "gw"] as const

let db: TestDatabase
let server: TestServer
let serviceIds: ReadonlyArray<number>
let worldNo = 0

beforeAll(async () => {
  db = await makeTestDatabase()
  server = await startTestServer({ database: db, env: { LOG_LEVEL: "error", READ_CACHE: "0" } })
  serviceIds = await seedWorldServices(server.databaseUrl, SERVICE_KEYS)
}, 120_000)

afterAll(async () => {
  await server?.stop()
  await db?.close()
})

const rowArb = fc.record({
  name: fc.constantFrom(...NAMES),
  region: fc.constantFrom(...REGIONS),
  flag: fc.constantFrom<boolean | null>(true, true, false, false, null),
})
const checkArb = fc.record({
  n: fc.integer({ min: 0, max: 5 }),
  severity: fc.constantFrom(...SEVERITIES),
  rows: fc.array(rowArb, { maxLength: 6 }),
})
/** One scan: per service, up to 5 checks (check ids unique per service). */
const scanArb = fc.array(fc.array(checkArb, { maxLength: 5 }), { minLength: SERVICE_KEYS.length, maxLength: SERVICE_KEYS.length })

interface CheckGen {
  readonly n: number
  readonly severity: Severity
  readonly rows: ReadonlyArray<{ readonly name: string; readonly region: string; readonly flag: boolean | null }>
}

interface Query {
  readonly statuses: ReadonlyArray<FindingListFilter>
  readonly severities: ReadonlyArray<Severity>
  readonly service: number | undefined
  readonly check: string | undefined
  readonly regions: ReadonlyArray<string>
  readonly q: string | undefined
  readonly changes: ReadonlyArray<"new" | "fixed">
  readonly sort: FindingSort
  readonly order: "asc" | "desc"
  readonly pageSize: number
}

const toServices = (scan: ReadonlyArray<ReadonlyArray<CheckGen>>) =>
  SERVICE_KEYS.map((key, s) => {
    const seen = new Set<number>()
    const checks: Array<WorldCheck> = []
    for (const c of scan[s] ?? []) {
      if (seen.has(c.n)) continue
      seen.add(c.n)
      checks.push({ check: `${key}chk${c.n}`, severity: c.severity, rows: c.rows.map((r, i) => ({ id: `${r.name}-${i}`, region: r.region, flag: r.flag })) })
    }
    return { id: serviceIds[s]!, key, checks }
  })

const subset = <T>(xs: ReadonlyArray<T>) => fc.subarray([...xs])
const queryArb: fc.Arbitrary<Query> = fc.record({
  statuses: subset(FINDING_LIST_FILTERS),
  severities: subset(SEVERITIES),
  service: fc.option(fc.integer({ min: 0, max: SERVICE_KEYS.length - 1 }), { nil: undefined }),
  check: fc.constantFrom(undefined, "chk1", "ALPHA", "gammachk", "satisfy beta"),
  regions: subset(REGIONS),
  q: fc.constantFrom(undefined, "bucket", "TRAIL-0", "-1", "e"),
  changes: subset(["new", "fixed"] as const),
  sort: fc.constantFrom(...FINDING_SORTS),
  order: fc.constantFrom("asc" as const, "desc" as const),
  pageSize: fc.integer({ min: 1, max: 7 }),
})

type FullFinding = PlainFinding

/** The scan's full row set, read straight from the tables. */
const fullRowSet = (scanId: number) =>
  withSql(server.databaseUrl, Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const findings = yield* sql<FullFinding>`
      SELECT f.id, f.service_id, cs.name AS service_name, f.check_id, f.title, f.policy_check, f.severity, f.status, f.muted,
             f.resources_checked, f.resources_failing, f.resources_remediated, f.resources_muted, f.resources_new, f.resources_fixed
      FROM findings f JOIN cloud_services cs ON cs.id = f.service_id WHERE f.scan_id = ${scanId}`
    const rows = yield* sql<{ finding_id: number; resource_id: string; region: string }>`
      SELECT finding_id, resource_id, region FROM results WHERE scan_id = ${scanId}`
    return { findings, rows }
  }))

const SEVERITY_RANK: Record<string, number> = { critical: 0, high: 1, medium: 2, low: 3 }
const statusRank = (f: FullFinding) =>
  f.status === "fail" && !f.muted ? 0 : f.status === "fail" ? 1 : f.status === "remediated" ? 2 : f.status === "not_evaluated" ? 3 : 4
const openFailing = (f: FullFinding) => Math.max(0, f.resources_failing - f.resources_remediated - f.resources_muted)
const has = (hay: string, needle: string) => hay.toLowerCase().includes(needle.toLowerCase())

/** The list in memory: the same filters, order and totals, by their definitions in src/contracts/findings.ts. */
const expected = (world: Awaited<ReturnType<typeof fullRowSet>>, q: Query) => {
  const serviceId = q.service === undefined ? undefined : serviceIds[q.service]
  const scope = world.findings.filter((f) => serviceId === undefined || f.service_id === serviceId)
  const resourceFilter = q.regions.length > 0 || q.q !== undefined
  const matchedOf = (f: FullFinding) =>
    world.rows.filter((r) => r.finding_id === f.id && (q.regions.length === 0 || (q.regions as ReadonlyArray<string>).includes(r.region)) && (q.q === undefined || has(r.resource_id, q.q))).length
  const outcome = (f: FullFinding) => (f.status === "fail" && f.muted ? "muted" : f.status)
  const kept = scope.filter((f) =>
    (q.statuses.length === 0 || (q.statuses as ReadonlyArray<string>).includes(outcome(f))) &&
    (q.severities.length === 0 || (q.severities as ReadonlyArray<string>).includes(f.severity)) &&
    (q.changes.length === 0 || (q.changes.includes("new") && f.resources_new > 0) || (q.changes.includes("fixed") && f.resources_fixed > 0)) &&
    (q.check === undefined || has(f.check_id, q.check) || has(f.title, q.check) || has(f.policy_check, q.check)) &&
    (!resourceFilter || matchedOf(f) > 0))
  const key = (f: FullFinding): number | string =>
    q.sort === "status" ? statusRank(f) : q.sort === "severity" ? SEVERITY_RANK[f.severity]!
      : q.sort === "service" ? f.service_name : q.sort === "check" ? f.check_id
      : q.sort === "failing" ? openFailing(f) : q.sort === "new" ? f.resources_new : f.resources_fixed
  const cmp = (a: number | string, b: number | string) => (a < b ? -1 : a > b ? 1 : 0)
  const sorted = [...kept].sort((a, b) =>
    (q.order === "desc" ? -1 : 1) * cmp(key(a), key(b)) || statusRank(a) - statusRank(b) ||
    SEVERITY_RANK[a.severity]! - SEVERITY_RANK[b.severity]! || a.id - b.id)
  return {
    ids: sorted.map((f) => f.id),
    matched: sorted.map((f) => (resourceFilter ? matchedOf(f) : undefined)),
    totals: {
      findings: kept.length,
      findings_unfiltered: scope.length,
      resources_checked: kept.reduce((n, f) => n + f.resources_checked, 0),
      resources_failing: kept.reduce((n, f) => n + openFailing(f), 0),
      resources_matched: resourceFilter ? kept.reduce((n, f) => n + matchedOf(f), 0) : null,
    },
  }
}

const queryString = (scanId: number, q: Query) => {
  const p = new URLSearchParams({ scan_id: String(scanId), sort: q.sort, order: q.order, page_size: String(q.pageSize) })
  if (q.statuses.length > 0) p.set("status", q.statuses.join(","))
  if (q.severities.length > 0) p.set("severity", q.severities.join(","))
  if (q.service !== undefined) p.set("service_id", String(serviceIds[q.service]))
  if (q.check !== undefined) p.set("check", q.check)
  if (q.regions.length > 0) p.set("region", q.regions.join(","))
  if (q.q !== undefined) p.set("q", q.q)
  if (q.changes.length > 0) p.set("change", q.changes.join(","))
  return p.toString()
}

const get = async (member: WorldMember, query: string): Promise<FindingListResponse> => {
  const res = await fetch(`${server.baseUrl}/api/findings?${query}`, {
    headers: { authorization: `Bearer ${member.token}`, "x-workspace-id": String(member.workspaceId) },
  })
  const body = await res.json()
  if (res.status !== 200) throw new Error(`${query}: ${res.status} ${JSON.stringify(body)}`)
  return body as FindingListResponse
}

describe("findings list on the server (property)", () => {
  it("filters, orders, pages and totals equal the full row set filtered in memory", async () => {
    await fc.assert(
      fc.asyncProperty(
        scanArb, scanArb, fc.subarray([0, 1, 2, 3, 4, 5]), fc.array(queryArb, { minLength: 6, maxLength: 6 }),
        async (before, now, mutedChecks, queries) => {
          const url = server.databaseUrl
          const member = await seedWorldMember(url, `world-${worldNo++}`, server)
          const account = await seedWorldAccount(url, member)
          await seedWorldScan(url, member, account, toServices(before))
          for (const n of mutedChecks) await seedWorldMute(url, member, `${SERVICE_KEYS[n % SERVICE_KEYS.length]}chk${n}`)
          const scanId = await seedWorldScan(url, member, account, toServices(now))
          const world = await fullRowSet(scanId)
          for (const q of queries) {
            const want = expected(world, q)
            const ids: Array<number> = []
            const matched: Array<number | undefined> = []
            let cursor: string | null | undefined
            let pageNo = 0
            do {
              const body = await get(member, `${queryString(scanId, q)}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`)
              pageNo++
              expect(body.totals).toEqual(want.totals)
              expect(body.pagination).toMatchObject({ page: pageNo, total: want.totals.findings, total_pages: Math.ceil(want.totals.findings / q.pageSize) })
              ids.push(...body.data.map((f) => f.id))
              matched.push(...body.data.map((f) => f.resources_matched))
              cursor = body.next_cursor
            } while (cursor)
            expect(ids).toEqual(want.ids)
            expect(matched).toEqual(want.matched)
            // A numbered page cuts the same order.
            const second = await get(member, `${queryString(scanId, q)}&page=2`)
            expect(second.data.map((f) => f.id)).toEqual(want.ids.slice(q.pageSize, 2 * q.pageSize))
          }
        },
      ),
      { numRuns: 12 },
    )
  }, 240_000)
})
