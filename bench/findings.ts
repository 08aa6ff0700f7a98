/**
 * Findings at size (issue 12): seeds, through the real writer (server/scans/run-service.ts `completeService`, the code a
 * scan job runs), two workspaces each with one account and three completed scans of 10,000, 100,000 and 1,000,000
 * result rows (20 services × 10 checks; one check holds 10 % of the scan's rows: 100,000 resources at 1M; about 30 %
 * of rows failing), on PostgreSQL and on embedded PGlite (on disk, as `npm start` runs it). Then, over real HTTP
 * against the in-process API, ≥ 20 calls each:
 *   findings list page 1 and the last page (with and without filters; every server-side filter, sort and the cursor of
 *   issue 28 item 5: status, severity, check, region, resource search, sort by failing resources, a cursor page),
 *   finding detail first and last details page
 *   (with and without a status filter), scan detail, scans list — p50/p95 per scan size and the 1M ÷ 10k ratio;
 *   export CSV and JSON of the 1M scan: time to first byte, rows/s, peak RSS growth of the process (API + database
 *   when embedded + this client);
 *   the writer's rate (result rows/s while seeding).
 *
 *   npm run bench:findings                        # both databases, 1M rows
 *   BENCH_ROWS=100000 BENCH_BACKENDS=postgres npm run bench:findings
 * The API runs with the validated read cache off (READ_CACHE=0), so every call is a full read; READ_CACHE=1 measures
 * its hits instead.
 * PostgreSQL: TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres (a fresh database is created and dropped).
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { startEmbeddedPostgres } from "../server/db/client.ts"
import { completeService } from "../server/scans/run-service.ts"
import type { CheckResult, DetailRow } from "../server/scanner/check.ts"
import { makeTestDatabase, withSql, type TestDatabase } from "../tests/support/db.ts"
import { seedWorldMember, type WorldMember } from "../tests/support/findings-world.ts"
import { startTestServer } from "../tests/support/server.ts"

const TOP = Number(process.env["BENCH_ROWS"] ?? 1_000_000)
const SIZES = [Math.round(TOP / 100), Math.round(TOP / 10), TOP]
const BACKENDS = (process.env["BENCH_BACKENDS"] ?? "postgres,pglite").split(",").map((s) => s.trim()) as ReadonlyArray<"postgres" | "pglite">
const CALLS = Number(process.env["BENCH_CALLS"] ?? 30)
const SERVICES = 20
const CHECKS = 10
const PG_URL = process.env["TEST_DATABASE_URL"] || "postgres://postgres@127.0.0.1:5432/postgres"

const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : "—")
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`

interface SeededScan {
  readonly size: number
  readonly scanId: number
  readonly serviceIds: ReadonlyArray<number>
  readonly bigFindingId: number
  readonly bigRows: number
  readonly bigFailing: number
}

/**
 * Rows of one synthetic check: every third row non-compliant, ids shaped like ARNs; the checks of one service look at
 * the same resources (as real checks do), so the inventory holds each once.
 */
const rowsFor = (serviceNo: number, count: number, salt: number): ReadonlyArray<DetailRow> =>
  Array.from({ length: count }, (_, i) => ({
    resource_id: `arn:aws:bench:us-east-1:123456789012:res/s${serviceNo}-${i}`,
    region: i % 2 === 0 ? "us-east-1" : "eu-west-1",
    compliant: (i + salt) % 3 !== 0,
    reason: (i + salt) % 3 !== 0 ? "Configured as required." : "Not configured as required.",
    setting: i % 3 !== 0 ? "enabled" : null,
    tags: ["team:bench", `n:${i % 7}`],
  }))

const checkResult = (serviceKey: string, checkNo: number, rows: ReadonlyArray<DetailRow>): CheckResult => ({
  check_id: `${serviceKey}_check_${checkNo}`,
  service: serviceKey,
  title: `Bench check ${checkNo}`,
  policy_check: `Resources of ${serviceKey} satisfy rule ${checkNo}`,
  description: "A synthetic check of the findings benchmark.",
  severity: (["critical", "high", "medium", "low"] as const)[checkNo % 4]!,
  cis: {},
  remediation: "Configure the setting.",
  status: rows.some((r) => !r.compliant) ? "fail" : "pass",
  field_labels: { resource_id: "Resource", region: "Region", setting: "Setting", tags: "Tags" },
  details: rows,
  errors: [],
})

/** One completed scan of `size` rows, written service by service through `completeService`. */
const seedScan = async (url: string, member: WorldMember, accountId: number, size: number, serviceIds: ReadonlyArray<number>) => {
  const big = Math.round(size / 10)
  const perCheck = Math.floor((size - big) / (SERVICES * CHECKS - 1))
  const { scanId, scanServiceIds } = await withSql(
    url,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const scanId = (yield* sql<{ id: number }>`
        INSERT INTO scans (workspace_id, account_id, cloud_provider_id, status, total_services, created_by)
        VALUES (${member.workspaceId}, ${accountId}, 1, 'running', ${SERVICES}, ${member.userId}) RETURNING id`)[0]!.id
      const rows = yield* sql<{ id: number }>`
        INSERT INTO scan_services (workspace_id, scan_id, service_id, status, started_at, heartbeat_at)
        SELECT ${member.workspaceId}, ${scanId}, s, 'running', now(), now() FROM unnest(${serviceIds}::int[]) AS s RETURNING id`
      return { scanId, scanServiceIds: rows.map((r) => r.id) }
    }),
  )
  // One client for the whole scan; only `completeService` (the job's write transaction) is timed.
  const { written, ms } = await withSql(
    url,
    Effect.gen(function* () {
      let written = 0
      let ms = 0
      for (let s = 0; s < SERVICES; s++) {
        const serviceKey = `bench${String(s).padStart(2, "0")}`
        const findings: Array<CheckResult> = []
        let rows = 0
        for (let c = 0; c < CHECKS; c++) {
          const count = s === 0 && c === 0 ? big : s === SERVICES - 1 && c === CHECKS - 1 ? size - big - perCheck * (SERVICES * CHECKS - 2) : perCheck
          findings.push(checkResult(serviceKey, c, rowsFor(s, count, c)))
          rows += count
        }
        const started = performance.now()
        const ok = yield* completeService(
          { workspace_id: member.workspaceId, scan_id: scanId, scan_service_id: scanServiceIds[s]! },
          { findings, resourcesScanned: rows, apiCalls: 0 },
        )
        ms += performance.now() - started
        if (!ok) return yield* Effect.die(new Error("completeService wrote nothing"))
        written += rows
      }
      return { written, ms }
    }),
  )
  const big0 = await withSql(
    url,
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ id: number; resources_checked: number; resources_failing: number }>`
        SELECT id, resources_checked, resources_failing FROM findings WHERE scan_id = ${scanId} ORDER BY resources_checked DESC LIMIT 1`),
  )
  return {
    scan: { size, scanId, serviceIds, bigFindingId: big0[0]!.id, bigRows: big0[0]!.resources_checked, bigFailing: big0[0]!.resources_failing } satisfies SeededScan,
    written,
    ms,
  }
}

const timed = async (base: string, member: WorldMember, path: string) => {
  const started = performance.now()
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${member.token}`, "x-workspace-id": String(member.workspaceId) } })
  const body = await res.arrayBuffer()
  const ms = performance.now() - started
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${new TextDecoder().decode(body).slice(0, 300)}`)
  return { ms, bytes: body.byteLength }
}

/** The `next_cursor` of a findings list answer (for timing the page after it). */
const nextCursor = async (base: string, member: WorldMember, path: string): Promise<string> => {
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${member.token}`, "x-workspace-id": String(member.workspaceId) } })
  const body = (await res.json()) as { next_cursor?: string | null }
  if (typeof body.next_cursor !== "string") throw new Error(`${path}: no next_cursor`)
  return encodeURIComponent(body.next_cursor)
}

const measure = async (base: string, member: WorldMember, path: string) => {
  await timed(base, member, path) // warm
  const samples: Array<number> = []
  let bytes = 0
  for (let i = 0; i < CALLS; i++) {
    const r = await timed(base, member, path)
    samples.push(r.ms)
    bytes = r.bytes
  }
  samples.sort((a, b) => a - b)
  return { p50: percentile(samples, 50), p95: percentile(samples, 95), bytes }
}

const exportRun = async (base: string, member: WorldMember, scanId: number, format: "csv" | "json") => {
  globalThis.gc?.()
  const baseline = process.memoryUsage().rss
  let peak = baseline
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }, 50)
  const started = performance.now()
  const res = await fetch(`${base}/api/scans/${scanId}/export?format=${format}`, {
    headers: { authorization: `Bearer ${member.token}`, "x-workspace-id": String(member.workspaceId) },
  })
  if (res.status !== 200 || res.body === null) throw new Error(`export ${format}: ${res.status}`)
  let ttfb = Number.NaN
  let bytes = 0
  let lines = 0
  let rowsJson = 0
  let carry = ""
  const decoder = new TextDecoder()
  const reader = res.body.getReader()
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    if (Number.isNaN(ttfb)) ttfb = performance.now() - started
    bytes += value.byteLength
    if (format === "csv") {
      for (let i = 0; i < value.length; i++) if (value[i] === 10) lines++
    } else {
      // `"result_seq":` occurs once per detail row in JSON
      const text = carry + decoder.decode(value, { stream: true })
      rowsJson += text.split('"result_seq":').length - 1
      carry = text.slice(-12)
    }
  }
  const total = performance.now() - started
  clearInterval(sampler)
  peak = Math.max(peak, process.memoryUsage().rss)
  const rows = format === "csv" ? lines - 1 : rowsJson
  return { ttfb, total, bytes, rows, rowsPerSec: rows / (total / 1000), rssGrowth: peak - baseline }
}

interface BackendReport {
  readonly backend: string
  readonly writeRate: number
  readonly table: Map<string, Map<number, { p50: number; p95: number; bytes: number }>>
  readonly exports: ReadonlyArray<{ format: string; ttfb: number; total: number; rows: number; rowsPerSec: number; rssGrowth: number; bytes: number }>
}

const runBackend = async (backend: "postgres" | "pglite"): Promise<BackendReport> => {
  let database: TestDatabase
  let pgliteDir: string | undefined
  if (backend === "postgres") {
    process.env["TEST_DATABASE_URL"] = PG_URL
    database = await makeTestDatabase({ kind: "postgres" })
  } else {
    pgliteDir = mkdtempSync(join(tmpdir(), "bench-findings-pglite-"))
    const embedded = await startEmbeddedPostgres({ dataDir: pgliteDir })
    database = { url: embedded.url, kind: "pglite", close: () => embedded.close() }
  }
  // Full reads: each call repeats a URL, which the validated read cache would answer after the first (READ_CACHE=1
  // measures those hits instead).
  const server = await startTestServer({ database, env: { LOG_LEVEL: "error", READ_CACHE: process.env["READ_CACHE"] ?? "0" } })
  try {
    const url = server.databaseUrl
    const members = [await seedWorldMember(url, `bench-a-${Date.now()}`, server), await seedWorldMember(url, `bench-b-${Date.now()}`, server)]
    const serviceIds = await withSql(
      url,
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ id: number }>`
          INSERT INTO cloud_services (cloud_provider_id, key, name)
          SELECT 1, 'bench' || lpad(n::text, 2, '0'), 'Bench ' || n FROM generate_series(0, ${SERVICES - 1}) AS n
          ON CONFLICT (cloud_provider_id, key) DO UPDATE SET name = excluded.name RETURNING id`),
    ).then((rows) => rows.map((r) => r.id))
    const scans: Array<Array<SeededScan>> = []
    let written = 0
    let writeMs = 0
    for (const member of members) {
      const accountId = await withSql(
        url,
        Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql<{ id: number }>`
            INSERT INTO accounts (workspace_id, cloud_provider_id, account_name, cloud_account_id, auth_method, credentials_sealed)
            VALUES (${member.workspaceId}, 1, 'Bench account', '123456789012', 'access_key', 'v1.bench') RETURNING id`),
      ).then((r) => r[0]!.id)
      const mine: Array<SeededScan> = []
      for (const size of SIZES) {
        const seeded = await seedScan(url, member, accountId, size, serviceIds)
        mine.push(seeded.scan)
        written += seeded.written
        writeMs += seeded.ms
        console.log(`  ${backend}: workspace ${member.workspaceId} scan ${seeded.scan.scanId}: ${size.toLocaleString("en-US")} rows in ${(seeded.ms / 1000).toFixed(1)} s (${Math.round(seeded.written / (seeded.ms / 1000)).toLocaleString("en-US")} rows/s)`)
      }
      scans.push(mine)
    }
    if (backend === "postgres") await withSql(url, Effect.flatMap(SqlClient.SqlClient, (sql) => sql`ANALYZE`))

    const base = server.baseUrl
    const member = members[0]!
    const table = new Map<string, Map<number, { p50: number; p95: number; bytes: number }>>()
    const record = (name: string, size: number, m: { p50: number; p95: number; bytes: number }) => {
      if (!table.has(name)) table.set(name, new Map())
      table.get(name)!.set(size, m)
    }
    for (const scan of scans[0]!) {
      const lastPage = Math.ceil((SERVICES * CHECKS) / 20)
      const detailLast = Math.ceil(scan.bigRows / 50)
      const passLast = Math.ceil((scan.bigRows - scan.bigFailing) / 50)
      const calls: ReadonlyArray<[string, string]> = [
        ["findings list, page 1", `/api/findings?scan_id=${scan.scanId}&page=1&page_size=20`],
        ["findings list, last page", `/api/findings?scan_id=${scan.scanId}&page=${lastPage}&page_size=20`],
        ["findings list, status=fail p1", `/api/findings?scan_id=${scan.scanId}&status=fail&page=1&page_size=20`],
        ["findings list, service p1", `/api/findings?scan_id=${scan.scanId}&service_id=${scan.serviceIds[0]}&page=1&page_size=20`],
        // Issue 28 item 5: every filter and sort on the server, over the whole scan.
        ["list, status+severity+check+region", `/api/findings?scan_id=${scan.scanId}&status=fail,muted&severity=critical,high&check=check_1&region=eu-west-1&page_size=20`],
        ["list, region, sort failing desc", `/api/findings?scan_id=${scan.scanId}&region=eu-west-1&sort=failing&order=desc&page_size=20`],
        ["list, search q (1 resource)", `/api/findings?scan_id=${scan.scanId}&q=s7-4242&page_size=20`],
        ["list, search q (~1.1k resources)", `/api/findings?scan_id=${scan.scanId}&q=s0-77&page_size=20`],
        ["list, sort check, cursor page 2", `/api/findings?scan_id=${scan.scanId}&sort=check&page_size=20&cursor=${await nextCursor(base, member, `/api/findings?scan_id=${scan.scanId}&sort=check&page_size=20`)}`],
        ["finding detail, first page", `/api/findings/${scan.bigFindingId}`],
        ["finding detail, last page", `/api/findings/${scan.bigFindingId}?details_page=${detailLast}`],
        ["detail, status=pass last page", `/api/findings/${scan.bigFindingId}?details_status=pass&details_page=${passLast}`],
        ["detail, search (q)", `/api/findings/${scan.bigFindingId}?details_q=s0-77`],
        ["scan detail", `/api/scans/${scan.scanId}`],
        ["scans list", `/api/scans?page=1&page_size=20`],
      ]
      for (const [name, path] of calls) record(name, scan.size, await measure(base, member, path))
    }
    const top = scans[0]!.at(-1)!
    const exports = [
      { format: "csv", ...(await exportRun(base, member, top.scanId, "csv")) },
      { format: "json", ...(await exportRun(base, member, top.scanId, "json")) },
    ]
    return { backend, writeRate: written / (writeMs / 1000), table, exports }
  } finally {
    await server.stop()
    await database.close()
    if (pgliteDir !== undefined) rmSync(pgliteDir, { recursive: true, force: true })
  }
}

const print = (r: BackendReport) => {
  console.log(`\n${r.backend}: writer ${Math.round(r.writeRate).toLocaleString("en-US")} result rows/s`)
  const head = SIZES.map((s) => `${(s >= 1e6 ? `${s / 1e6}M` : `${s / 1e3}k`).padStart(6)} p50/p95`.padStart(18)).join("")
  console.log(`${"call".padEnd(32)}${head}${"ratio p95".padStart(11)}${"bytes".padStart(9)}`)
  for (const [name, bySize] of r.table) {
    const cells = SIZES.map((s) => {
      const m = bySize.get(s)!
      return `${f1(m.p50)}/${f1(m.p95)}`.padStart(18)
    }).join("")
    const ratio = bySize.get(SIZES[2]!)!.p95 / bySize.get(SIZES[0]!)!.p95
    console.log(`${name.padEnd(32)}${cells}${ratio.toFixed(2).padStart(11)}${String(bySize.get(SIZES[2]!)!.bytes).padStart(9)}`)
  }
  for (const e of r.exports) {
    console.log(
      `export ${e.format.padEnd(5)} ${e.rows.toLocaleString("en-US")} rows, ${mb(e.bytes)}: first byte ${f1(e.ttfb)} ms, total ${(e.total / 1000).toFixed(1)} s, ${Math.round(e.rowsPerSec).toLocaleString("en-US")} rows/s, RSS growth ${mb(e.rssGrowth)}`,
    )
  }
}

const main = async () => {
  console.log(`findings benchmark: scans of ${SIZES.map((s) => s.toLocaleString("en-US")).join(", ")} rows in 2 workspaces; ${CALLS} calls per figure (ms at the HTTP client)`)
  const reports: Array<BackendReport> = []
  for (const backend of BACKENDS) {
    const r = await runBackend(backend)
    print(r)
    reports.push(r)
  }
  const pg = reports.find((r) => r.backend === "postgres")
  const lite = reports.find((r) => r.backend === "pglite")
  if (pg !== undefined && lite !== undefined) {
    console.log(`\nPGlite ÷ PostgreSQL at ${SIZES[2]!.toLocaleString("en-US")} rows (p95):`)
    for (const [name, bySize] of lite.table) {
      console.log(`  ${name.padEnd(32)}${(bySize.get(SIZES[2]!)!.p95 / pg.table.get(name)!.get(SIZES[2]!)!.p95).toFixed(2)}`)
    }
    console.log(`  ${"writer rows/s".padEnd(32)}${(lite.writeRate / pg.writeRate).toFixed(2)}`)
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  },
)
