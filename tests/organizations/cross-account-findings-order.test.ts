/**
 * Findings across accounts (issue 31), page by page against a reference: GET /api/findings without scan_id, followed
 * through every next_cursor, answers the pages a plain reading of the latest completed scans gives — the same findings
 * in the same order on each page, the same next_cursor after each page (the cursor of its last finding, none after
 * the last page) and the same totals — for the default order and every sort, and for the filters whose reading
 * migration 0034 changed: the check filter (by check id, title or policy check, case-insensitive, `_` literal; a
 * check whose title differs between accounts), the service filter, both, with status and severity. A member limited
 * to an account group gets the same reading over their accounts only. The reference is computed here from the
 * findings rows (superuser, no row-level security, no index): the list's documented order (sort key, then status
 * rank, severity rank, id) and filters.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { FindingListResponse } from "../../src/contracts/findings.ts"
import { encodeCursor } from "../../server/scans/findings-store.ts"
import { API_ROLE } from "../../server/auth/rls.ts"
import { makeTestDatabase, withSql, type TestDatabase } from "../support/db.ts"
import {
  seedWorldAccount, seedWorldLimitedMember, seedWorldMember, seedWorldMute, seedWorldScan, seedWorldServices, type WorldCheck,
  type PlainFinding, type WorldMember,
} from "../support/findings-world.ts"
import { startTestServer, type TestServer } from "../support/server.ts"

let db: TestDatabase
let server: TestServer
let member: WorldMember
let limited: WorldMember
const accounts: Array<number> = []

const c = (check: string, severity: WorldCheck["severity"], rows: WorldCheck["rows"]): WorldCheck => ({ check, severity, rows })
const r = (id: string, flag: boolean | null, region = "us-east-1") => ({ id, region, flag })

/** One scan's services; `n` varies the results so accounts and scans differ. */
const world = (ids: ReadonlyArray<number>, n: number) => [
  { id: ids[0]!, key: "alpha", checks: [
    c("alpha_public_access", "high", [r(`gw-${n}`, n % 2 === 0), r("gw-x", n % 3 === 0, "eu-west-1")]),
    c("alpha_logging", "critical", [r("trail", n % 3 !== 0)]),
    c("alpha_encryption", "low", [r("key", n % 4 === 1 ? null : n % 5 !== 0)]),
  ] },
  { id: ids[1]!, key: "beta", checks: [
    c("beta_public_bucket", "critical", [r(`bucket-${n}`, n % 2 === 1), r("bucket-site", false)]),
    c("beta_versioning", "medium", Array.from({ length: 1 + (n % 3) }, (_, i) => r(`bucket-v${i}`, (i + n) % 2 === 0, "eu-west-1"))),
    c("betaXlogging", "low", [r("log", n % 2 === 0)]),
  ] },
  { id: ids[2]!, key: "gamma", checks: [
    c("gamma_mfa", "high", [r("root", n % 3 === 1)]),
    c("gamma_keys", "medium", [r(`key-${n}`, n % 4 !== 2), r("key-old", n % 2 === 0)]),
  ] },
]

interface Row extends PlainFinding {
  readonly account_id: number
}

/** Every finding of every latest completed scan of the workspace's live accounts, read plainly. */
let rows: ReadonlyArray<Row> = []
let serviceIds: ReadonlyArray<number> = []

beforeAll(async () => {
  db = await makeTestDatabase()
  server = await startTestServer({ database: db, env: { LOG_LEVEL: "error" } })
  member = await seedWorldMember(server.databaseUrl, "fleet-order", server)
  serviceIds = await seedWorldServices(server.databaseUrl, ["alpha", "beta", "gamma"])
  for (let a = 0; a < 5; a++) {
    // From the third account on a rule mutes beta_versioning's failing rows (muted findings among the latest).
    if (a === 2) await seedWorldMute(server.databaseUrl, member, "beta_versioning")
    const id = await seedWorldAccount(server.databaseUrl, member, `10000000000${a}`)
    accounts.push(id)
    for (let k = 0; k < 2; k++) await seedWorldScan(server.databaseUrl, member, id, world(serviceIds, a * 3 + k))
  }
  await withSql(server.databaseUrl, Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.gen(function* () {
    // One account's latest alpha_logging finding was written by a scanner whose title said it differently, and one
    // earlier (superseded) finding too: a check with two texts among the latest findings.
    yield* sql`UPDATE findings f SET title = 'Trail delivery is Zeta-verified'
               FROM accounts a WHERE a.id = ${accounts[1]!} AND f.scan_id = a.latest_scan_id AND f.check_id = 'alpha_logging'`
    yield* sql`UPDATE findings f SET title = 'Old Zeta wording'
               FROM accounts a WHERE a.id = ${accounts[2]!} AND f.scan_id <> a.latest_scan_id AND f.check_id = 'gamma_mfa'
                 AND f.workspace_id = a.workspace_id`
    // A check only the first account's latest scan has (outside the limited member's accounts).
    yield* sql`UPDATE findings f SET check_id = 'gamma_solo_check'
               FROM accounts a WHERE a.id = ${accounts[0]!} AND f.scan_id = a.latest_scan_id AND f.check_id = 'gamma_mfa'`
    // A retired account's findings are never listed.
    yield* sql`UPDATE accounts SET retired_at = now(), retired_reason = 'removed' WHERE id = ${accounts[4]!}`
    rows = yield* sql<Row>`
      SELECT f.id, a.id AS account_id, f.service_id, cs.name AS service_name, f.check_id, f.title, f.policy_check, f.status,
             f.muted, f.severity, f.resources_checked, f.resources_failing, f.resources_remediated, f.resources_muted,
             f.resources_new, f.resources_fixed
      FROM accounts a JOIN findings f ON f.scan_id = a.latest_scan_id AND f.workspace_id = a.workspace_id
      JOIN cloud_services cs ON cs.id = f.service_id
      WHERE a.workspace_id = ${member.workspaceId} AND a.retired_at IS NULL`
  })))
  limited = await seedWorldLimitedMember(server.databaseUrl, member.workspaceId, "fleet-order-limited",
    { kind: "manual", accountIds: [accounts[1]!, accounts[3]!] }, server)
}, 180_000)

afterAll(async () => {
  await server?.stop()
  await db?.close()
})

const list = async (query: string, who: WorldMember): Promise<FindingListResponse> => {
  const res = await fetch(`${server.baseUrl}/api/findings?${query}`, {
    headers: { authorization: `Bearer ${who.token}`, "x-workspace-id": String(who.workspaceId) },
  })
  const body = await res.json()
  expect(res.status, JSON.stringify(body)).toBe(200)
  return body as FindingListResponse
}

const statusRank = (f: Row) =>
  f.status === "fail" && !f.muted ? 0 : f.status === "fail" ? 1 : f.status === "remediated" ? 2 : f.status === "not_evaluated" ? 3 : 4
const severityRank = (f: Row) => ["critical", "high", "medium", "low"].indexOf(f.severity)
const failing = (f: Row) => Math.max(0, f.resources_failing - f.resources_remediated - f.resources_muted)
const sortKey = (sort: string, f: Row): number | string =>
  sort === "status" ? statusRank(f) : sort === "severity" ? severityRank(f) : sort === "service" ? f.service_name
    : sort === "check" ? f.check_id : sort === "failing" ? failing(f) : sort === "new" ? f.resources_new : f.resources_fixed
const cmp = (a: number | string, b: number | string) => (a < b ? -1 : a > b ? 1 : 0)
const contains = (s: string, q: string) => s.toLowerCase().includes(q.trim().toLowerCase())

interface Query {
  readonly status?: ReadonlyArray<string>
  readonly severity?: ReadonlyArray<string>
  readonly service?: number
  readonly check?: string
  readonly sort?: string
  readonly order?: "asc" | "desc"
}

/** The reference pages of `q` over the findings of `allowed` accounts: ids per page, next_cursor after each, totals. */
const reference = (q: Query, pageSize: number, allowed: ReadonlyArray<number>) => {
  const sort = q.sort ?? "status"
  const order = q.order ?? "asc"
  const scope = rows.filter((f) => allowed.includes(f.account_id))
  const matched = scope.filter((f) =>
    (q.status === undefined || q.status.some((s) =>
      s === "fail" ? f.status === "fail" && !f.muted : s === "muted" ? f.status === "fail" && f.muted : f.status === s))
    && (q.severity === undefined || q.severity.includes(f.severity))
    && (q.service === undefined || f.service_id === q.service)
    && (q.check === undefined || contains(f.check_id, q.check) || contains(f.title, q.check) || contains(f.policy_check, q.check)))
  const sorted = [...matched].sort((a, b) =>
    (order === "desc" ? -1 : 1) * cmp(sortKey(sort, a), sortKey(sort, b))
    || statusRank(a) - statusRank(b) || severityRank(a) - severityRank(b) || a.id - b.id)
  const pages: Array<{ ids: Array<number>; next: string | null }> = []
  for (let i = 0; i < Math.max(1, sorted.length); i += pageSize) {
    const page = sorted.slice(i, i + pageSize)
    const last = page.at(-1)
    pages.push({
      ids: page.map((f) => f.id),
      next: last !== undefined && i + page.length < sorted.length
        ? encodeCursor([sort as never, order, sortKey(sort, last), statusRank(last), severityRank(last), last.id])
        : null,
    })
  }
  return {
    pages,
    totals: {
      findings: matched.length,
      findings_unfiltered: scope.filter((f) => q.service === undefined || f.service_id === q.service).length,
      resources_checked: matched.reduce((n, f) => n + f.resources_checked, 0),
      resources_failing: matched.reduce((n, f) => n + failing(f), 0),
      accounts: new Set(scope.map((f) => f.account_id)).size,
    },
  }
}

const search = (q: Query) => [
  ...(q.status === undefined ? [] : [`status=${q.status.join(",")}`]),
  ...(q.severity === undefined ? [] : [`severity=${q.severity.join(",")}`]),
  ...(q.service === undefined ? [] : [`service_id=${q.service}`]),
  ...(q.check === undefined ? [] : [`check=${encodeURIComponent(q.check)}`]),
  ...(q.sort === undefined ? [] : [`sort=${q.sort}`]),
  ...(q.order === undefined ? [] : [`order=${q.order}`]),
].join("&")

/** Follows every next_cursor of `q` and compares each page, its next_cursor and the totals with the reference. */
const agree = async (q: Query, pageSize: number, who: WorldMember, allowed: ReadonlyArray<number>) => {
  const expected = reference(q, pageSize, allowed)
  const label = `${search(q)} (page size ${pageSize})`
  let cursor: string | null = null
  for (let p = 0; p < expected.pages.length; p++) {
    const answer: FindingListResponse = await list(
      [search(q), `page_size=${pageSize}`, ...(cursor === null ? [] : [`cursor=${encodeURIComponent(cursor)}`])].filter((s) => s !== "").join("&"), who)
    expect(answer.data.map((f) => f.id), `${label}, page ${p + 1}`).toEqual(expected.pages[p]!.ids)
    expect(answer.next_cursor ?? null, `${label}, next_cursor after page ${p + 1}`).toBe(expected.pages[p]!.next)
    expect(answer.pagination.page, label).toBe(p + 1)
    expect(answer.pagination.total, label).toBe(expected.totals.findings)
    expect(answer.totals, label).toMatchObject(expected.totals)
    for (const f of answer.data) expect(allowed, label).toContain(f.account_id)
    cursor = answer.next_cursor ?? null
  }
  expect(cursor, label).toBeNull()
}

const live = () => accounts.slice(0, 4)

const QUERIES = (): ReadonlyArray<Query> => [
  {},
  { status: ["fail"], severity: ["critical", "high"] },
  { status: ["muted", "not_evaluated"] },
  { check: "alpha_logging" },
  { check: "LOGGING" },
  { check: "zeta" },
  { check: "satisfy beta" },
  { check: "a_l" },
  { check: "%" },
  { check: "nothing matches this" },
  { check: "public", status: ["fail"], sort: "failing", order: "desc" },
  { service: serviceIds[1]! },
  { service: serviceIds[0]!, check: "check" },
  { service: serviceIds[2]!, severity: ["high"], sort: "check", order: "desc" },
  { sort: "severity" },
  { sort: "service", order: "desc" },
  { sort: "check" },
  { sort: "failing", order: "desc" },
  { sort: "new" },
  { sort: "fixed", order: "desc" },
  { check: "key", sort: "service" },
  { check: "solo" },
]

describe("GET /api/findings without scan_id, page by page against a plain reading of the latest scans (issue 31)", () => {
  it("answers each page, its next_cursor and the totals of the reference, for every sort and the check and service filters", async () => {
    expect(rows.some((f) => f.title.includes("Zeta"))).toBe(true)
    for (const q of QUERIES()) {
      for (const pageSize of [3, 7]) await agree(q, pageSize, member, live())
    }
  })

  it("gives a member limited to an account group the same reading over their accounts only", async () => {
    for (const q of QUERIES()) await agree(q, 4, limited, [accounts[1]!, accounts[3]!])
  })

  it("answers a limited member's check filter only with the keys their accounts' latest findings have", async () => {
    // The walk behind the check filter (migration 0034 `latest_checks_matching`) runs as its owner: it must still keep
    // to the caller's workspace and, for a limited member, to their accounts.
    const keys = (limit: string) => withSql(server.databaseUrl, Effect.flatMap(SqlClient.SqlClient, (sql) => sql.withTransaction(Effect.gen(function* () {
      yield* sql`SELECT set_config('app.workspace_id', ${String(member.workspaceId)}, true), set_config('app.account_ids', ${limit}, true),
                        set_config('role', ${API_ROLE}, true)`
      return (yield* sql<{ check_id: string }>`SELECT check_id FROM latest_checks_matching('%solo%')`).map((k) => k.check_id)
    }))))
    expect(await keys("")).toEqual(["gamma_solo_check"])
    expect(await keys(`{${accounts[0]!}}`)).toEqual(["gamma_solo_check"])
    expect(await keys(`{${accounts[1]!},${accounts[3]!}}`)).toEqual([])
    expect(await keys("{}")).toEqual([])
  })
})
