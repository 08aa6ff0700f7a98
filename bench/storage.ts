/**
 * Storage that grows with change (issue 30; server/db/migrations/0020_storage_by_change.ts): on PostgreSQL and on
 * embedded PGlite (on disk, as `npm start` runs it), four measurements.
 *
 * 1. Growth: SCANS (30) daily scans of one account of BENCH_ROWS (100,000) result rows each (20 services × 10 real AWS
 *    checks, one check holding 10 % of the rows, about 30 % failing, with reason, setting and tags), 1 % churn per scan
 *    (content changes, pass↔fail flips, resources gone and new), each written through the real writer
 *    (server/scans/run-service.ts `completeService`, the job's write transaction) until the scan is completed. Bytes on
 *    disk after scan 1 and after the last one: pg_total_relation_size (heap + indexes + TOAST) summed over every table of
 *    the public schema, and per result table. No VACUUM is run: the product never runs one (PostgreSQL's autovacuum
 *    may, as in production, when the server has it on; PGlite has none); BENCH_VACUUM=1 runs one after every scan as a
 *    stand-in for autovacuum. The writer's time per scan (first and later ones).
 * 2. Reads of scans 1, 15 and 30 once all are written, over real HTTP against the in-process API (READ_CACHE=0):
 *    findings list page 1, the big check's first and last details page, the scan's compliance summary
 *    (/api/compliance/scans/{id}) — p50/p95 of BENCH_CALLS (25) calls each; every answer is compared (deep equality)
 *    with what the same call answered right after that scan was written, when it was the account's latest. The only
 *    field allowed to differ is the finding's `superseded` (false while latest, true afterwards: by design). Any other
 *    difference fails the run (exit code 1).
 * 3. Retention (server/scans/retention.ts, workspace setting of migration 0021) expiring the 20 oldest scans: wall time
 *    of applying it, and the p95 of a concurrent writer (small scans of another account of the workspace, each service
 *    through `completeService`) while it runs ÷ the same loop's p95 without it. Skipped with a note while the module
 *    does not exist.
 * 4. Migration 0020 on a database at the schema before it (migrations up to 0019), whose old `results` table holds
 *    MIG_SCANS (10) daily scans × BENCH_ROWS rows of one account with 1 % churn (written by SQL, findings consistent
 *    with them): its time, and the bytes before and after.
 *
 *   npm run bench:storage                                   # both databases, 100,000 rows per scan
 *   BENCH_ROWS=10000 BENCH_BACKENDS=pglite npm run bench:storage
 *   BENCH_PARTS=4 npm run bench:storage                     # only the migration (parts: 1 = growth, reads and retention)
 * PostgreSQL: TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres (fresh databases, dropped after).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { isDeepStrictEqual } from "node:util"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import * as Migrator from "effect/sql/Migrator"
import { inScope } from "../server/auth/rls.ts"
import { startEmbeddedPostgres } from "../server/db/client.ts"
import { MIGRATIONS_TABLE } from "../server/db/migrate.ts"
import { migrations } from "../server/db/migrations/index.ts"
import { listAwsChecks } from "../server/scanner/aws/catalogue.ts"
import type { CheckMeta, CheckResult, DetailRow } from "../server/scanner/check.ts"
import { completeService } from "../server/scans/run-service.ts"
import { makeTestDatabase, withSql, type TestDatabase } from "../tests/support/db.ts"
import { seedWorldMember, type WorldMember } from "../tests/support/findings-world.ts"
import { startTestServer } from "../tests/support/server.ts"

const ROWS = Number(process.env["BENCH_ROWS"] ?? 100_000)
const SCANS = Number(process.env["BENCH_SCANS"] ?? 30)
const MIG_SCANS = Number(process.env["BENCH_MIG_SCANS"] ?? 10)
const CALLS = Math.max(20, Number(process.env["BENCH_CALLS"] ?? 25))
const CHURN = 0.01
const EXPIRE = Math.min(20, SCANS - 1)
const BACKENDS = (process.env["BENCH_BACKENDS"] ?? "postgres,pglite").split(",").map((s) => s.trim()) as ReadonlyArray<"postgres" | "pglite">
const PARTS = new Set((process.env["BENCH_PARTS"] ?? "1,4").split(",").map((s) => s.trim()))
/**
 * The product never runs VACUUM itself (PostgreSQL's autovacuum does, where it is on; PGlite has none). BENCH_VACUUM=1
 * runs a plain VACUUM (ANALYZE) after every scan of part 1, as an upper bound of what autovacuum would reclaim.
 */
const VACUUM_EACH_SCAN = process.env["BENCH_VACUUM"] === "1"
const PG_URL = process.env["TEST_DATABASE_URL"] || "postgres://postgres@127.0.0.1:5432/postgres"
const SERVICES = 20
const CHECKS = 10
const READ_SCANS = [...new Set([1, Math.ceil(SCANS / 2), SCANS])]
const REGIONS = ["us-east-1", "eu-west-1", "us-west-2", "ap-southeast-2"]
const ACCOUNT = "123456789012"
/** Tables of the result storage, shown one by one. */
const RESULT_TABLES = ["result_rows", "result_marks", "result_streams", "findings", "resources", "results"]

const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : "—")
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
const n0 = (n: number) => Math.round(n).toLocaleString("en-US")
const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`

/** Deterministic pseudo-random numbers (mulberry32), so every run writes the same scans. */
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

// ---------------------------------------------------------------------------------------------------------------------
// A synthetic account that changes a little between scans.

interface WorldRow {
  readonly n: number
  /** Content revision: bumped when the resource's configuration changes. */
  v: number
  fail: boolean
}

interface WorldCheck {
  readonly service: number
  readonly meta: CheckMeta
  readonly rows: Array<WorldRow>
}

interface Churned {
  changed: number
  flipped: number
  gone: number
  appeared: number
}

/**
 * `services` × `perService` real AWS checks (their ids, titles and severities, so the compliance summary maps them);
 * the first check holds `bigShare` of the rows; the checks of one service look at the same resources.
 */
class World {
  readonly checks: Array<WorldCheck>
  private readonly nextRes: Array<number>
  private readonly rand: () => number
  readonly services: ReadonlyArray<string>
  constructor(
    services: ReadonlyArray<string>,
    metas: ReadonlyArray<CheckMeta>,
    perService: number,
    total: number,
    bigShare: number,
    seed: number,
  ) {
    this.rand = prng(seed)
    this.services = services
    const count = services.length * perService
    const big = Math.round(total * bigShare)
    const per = Math.floor((total - big) / (count - 1))
    this.checks = []
    this.nextRes = services.map(() => 0)
    for (let s = 0; s < services.length; s++) {
      for (let c = 0; c < perService; c++) {
        const i = s * perService + c
        const size = i === 0 ? big : i === count - 1 ? total - big - per * (count - 2) : per
        // About 30 % failing: every third row, shifted per check.
        const rows = Array.from({ length: size }, (_, n) => ({ n, v: 0, fail: (n + c) % 10 < 3 }))
        this.checks.push({ service: s, meta: metas[i]!, rows })
        this.nextRes[s] = Math.max(this.nextRes[s]!, size)
      }
    }
  }

  get rows(): number {
    return this.checks.reduce((n, c) => n + c.rows.length, 0)
  }

  /** `rate` of the rows change: 60 % of them in content (a third of those flip pass↔fail), 20 % gone, 20 % new. */
  churn(rate: number): Churned {
    const out: Churned = { changed: 0, flipped: 0, gone: 0, appeared: 0 }
    for (const check of this.checks) {
      const expected = check.rows.length * rate
      const events = Math.floor(expected) + (this.rand() < expected - Math.floor(expected) ? 1 : 0)
      for (let e = 0; e < events; e++) {
        const x = this.rand()
        if (x < 0.6 && check.rows.length > 0) {
          const row = check.rows[Math.floor(this.rand() * check.rows.length)]!
          row.v++
          out.changed++
          if (this.rand() < 1 / 3) {
            row.fail = !row.fail
            out.flipped++
          }
        } else if (x < 0.8 && check.rows.length > 1) {
          check.rows.splice(Math.floor(this.rand() * check.rows.length), 1)
          out.gone++
        } else {
          const n = this.nextRes[check.service]!
          this.nextRes[check.service] = n + 1
          check.rows.push({ n, v: 0, fail: this.rand() < 0.3 })
          out.appeared++
        }
      }
    }
    return out
  }

  /** The service's check results as a scanner answers them. */
  results(s: number): { readonly findings: Array<CheckResult>; readonly rows: number } {
    const key = this.services[s]!
    const findings: Array<CheckResult> = []
    let rows = 0
    for (const check of this.checks) {
      if (check.service !== s) continue
      const details: Array<DetailRow> = check.rows.map((r) => detailRow(key, r))
      rows += details.length
      findings.push({
        check_id: check.meta.id,
        service: key,
        title: check.meta.title,
        policy_check: check.meta.title,
        description: check.meta.description,
        severity: check.meta.severity,
        cis: check.meta.cis,
        ...(check.meta.fsbp === undefined ? {} : { fsbp: check.meta.fsbp }),
        remediation: check.meta.remediation,
        status: details.some((d) => d.compliant === false) ? "fail" : "pass",
        field_labels: { resource_id: "Resource", region: "Region", setting: "Setting", encryption: "Encryption", tags: "Tags" },
        details,
        errors: [],
      })
    }
    return { findings, rows }
  }
}

const detailRow = (key: string, r: WorldRow): DetailRow => {
  const region = REGIONS[r.n % REGIONS.length]!
  return {
    resource_id: `arn:aws:${key}:${region}:${ACCOUNT}:resource/${key}-${String(r.n).padStart(7, "0")}`,
    region,
    compliant: !r.fail,
    reason: r.fail ? "The setting is not configured as the rule requires." : "Configured as required.",
    setting: r.fail ? "disabled" : r.v === 0 ? "enabled" : `enabled (revision ${r.v})`,
    encryption: r.n % 5 === 0 ? null : "aws:kms",
    tags: ["team:platform", `env:${r.n % 3 === 0 ? "prod" : "staging"}`, `owner:owner-${r.n % 17}`, ...(r.v > 0 ? [`rev:${r.v}`] : [])],
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Writing scans through the product's writer.

const sqlOf = <A>(url: string, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  withSql(url, Effect.flatMap(SqlClient.SqlClient, f))

const insertServices = (url: string, keys: ReadonlyArray<string>) =>
  sqlOf(url, (sql) =>
    Effect.forEach(keys, (key) =>
      Effect.map(
        sql<{ id: number }>`INSERT INTO cloud_services (cloud_provider_id, key, name) VALUES (1, ${key}, ${`Bench ${key}`})
                            ON CONFLICT (cloud_provider_id, key) DO UPDATE SET name = excluded.name RETURNING id`,
        (rows) => rows[0]!.id,
      )),
  )

const insertAccount = (url: string, workspaceId: number, name: string, cloudAccountId: string) =>
  sqlOf(url, (sql) =>
    sql<{ id: number }>`
      INSERT INTO accounts (workspace_id, cloud_provider_id, account_name, cloud_account_id, auth_method, credentials_sealed)
      VALUES (${workspaceId}, 1, ${name}, ${cloudAccountId}, 'access_key', 'v1.bench') RETURNING id`,
  ).then((r) => r[0]!.id)

/**
 * One scan of `world`, started `ageHours` ago (a daily scan), its services written one by one through
 * `completeService` (only that is timed) until the scan is completed; `scan_end` then set 20 minutes after its start.
 */
const writeScan = (url: string, member: WorldMember, accountId: number, world: World, serviceIds: ReadonlyArray<number>, ageHours: number) =>
  withSql(
    url,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const scanId = (yield* sql<{ id: number }>`
        INSERT INTO scans (workspace_id, account_id, cloud_provider_id, status, total_services, created_by, scan_start)
        VALUES (${member.workspaceId}, ${accountId}, 1, 'running', ${serviceIds.length}, ${member.userId},
                now() - make_interval(hours => ${ageHours})) RETURNING id`)[0]!.id
      const ss = yield* sql<{ id: number }>`
        INSERT INTO scan_services (workspace_id, scan_id, service_id, status, started_at, heartbeat_at)
        SELECT ${member.workspaceId}, ${scanId}, s, 'running', now(), now() FROM unnest(${serviceIds}::int[]) WITH ORDINALITY AS x(s, o)
        ORDER BY o RETURNING id`
      const samples: Array<number> = []
      let startedAt = Number.NaN
      for (let s = 0; s < serviceIds.length; s++) {
        const { findings, rows } = world.results(s)
        const started = performance.now()
        if (s === 0) startedAt = started
        const ok = yield* completeService(
          { workspace_id: member.workspaceId, scan_id: scanId, scan_service_id: ss[s]!.id },
          { findings, resourcesScanned: rows, apiCalls: 0 },
        )
        samples.push(performance.now() - started)
        if (!ok) return yield* Effect.die(new Error(`completeService wrote nothing (scan ${scanId}, service ${s})`))
      }
      const status = yield* sql<{ status: string }>`
        UPDATE scans SET scan_end = scan_start + interval '20 minutes' WHERE id = ${scanId} RETURNING status`
      if (status[0]?.status !== "completed") return yield* Effect.die(new Error(`scan ${scanId} is ${status[0]?.status}, not completed`))
      return { scanId, ms: samples.reduce((a, b) => a + b, 0), samples, startedAt }
    }),
  )

interface SizeReport {
  readonly total: number
  readonly tables: ReadonlyMap<string, number>
  /** Live and dead row versions per table (pg_stat_user_tables; dead ones wait for a VACUUM). */
  readonly tuples: ReadonlyMap<string, { live: number; dead: number }>
}

/** pg_total_relation_size (heap, indexes, TOAST) of every table of the public schema. */
const sizes = (url: string): Promise<SizeReport> =>
  sqlOf(url, (sql) =>
    Effect.gen(function* () {
      const rows = yield* sql<{ relname: string; bytes: string; live: string | null; dead: string | null }>`
        SELECT c.relname, pg_total_relation_size(c.oid)::text AS bytes, st.n_live_tup::text AS live, st.n_dead_tup::text AS dead
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace LEFT JOIN pg_stat_user_tables st ON st.relid = c.oid
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'm')`
      return rows
    }),
  ).then((rows) => {
    const tables = new Map(rows.map((r) => [r.relname, Number(r.bytes)]))
    const tuples = new Map(rows.map((r) => [r.relname, { live: Number(r.live ?? 0), dead: Number(r.dead ?? 0) }]))
    return { total: [...tables.values()].reduce((a, b) => a + b, 0), tables, tuples }
  })

// ---------------------------------------------------------------------------------------------------------------------
// HTTP

const get = async (base: string, member: WorldMember, path: string) => {
  const started = performance.now()
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${member.token}`, "x-workspace-id": String(member.workspaceId) } })
  const text = await res.text()
  const ms = performance.now() - started
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text.slice(0, 300)}`)
  return { ms, body: JSON.parse(text) as unknown, bytes: text.length }
}

/** Paths where `a` and `b` differ (at most 10). */
const differences = (a: unknown, b: unknown, path = "", out: Array<string> = []): Array<string> => {
  if (out.length >= 10 || isDeepStrictEqual(a, b)) return out
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) {
    out.push(`${path || "(root)"}: ${JSON.stringify(a)?.slice(0, 80)} → ${JSON.stringify(b)?.slice(0, 80)}`)
    return out
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)])
  for (const k of keys) differences((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}${Array.isArray(a) ? `[${k}]` : `.${k}`}`, out)
  return out
}

/** Differences allowed by design: the finding's `superseded` (false while its scan was the latest). */
const ALLOWED = /^\.data\.superseded: false → true$/

interface ReadCall {
  readonly name: string
  readonly path: string
}

const readCalls = async (url: string, scanId: number): Promise<ReadonlyArray<ReadCall>> => {
  const big = await sqlOf(url, (sql) =>
    sql<{ id: number; resources_checked: number }>`
      SELECT id, resources_checked FROM findings WHERE scan_id = ${scanId} ORDER BY resources_checked DESC, id LIMIT 1`)
  const { id, resources_checked } = big[0]!
  return [
    { name: "findings list, page 1", path: `/api/findings?scan_id=${scanId}&page=1&page_size=20` },
    { name: "big finding, first details page", path: `/api/findings/${id}` },
    { name: "big finding, last details page", path: `/api/findings/${id}?details_page=${Math.max(1, Math.ceil(resources_checked / 50))}` },
    { name: "compliance summary", path: `/api/compliance/scans/${scanId}` },
  ]
}

// ---------------------------------------------------------------------------------------------------------------------
// Part 3: retention (server/scans/retention.ts, written by another change; run only when it exists).

const RETENTION_MODULE = new URL("../server/scans/retention.ts", import.meta.url)

interface RetentionRun {
  readonly note?: string
  readonly ms?: number
  readonly expired?: number
  readonly versions?: number
  readonly before?: number
  readonly after?: number
  readonly baseline?: { p50: number; p95: number; n: number }
  readonly during?: { p50: number; p95: number; n: number }
  readonly sizeAfter?: SizeReport
}

/**
 * Applies the workspace's retention so that only the newest SCANS − EXPIRE scans of the account stay, timing it, with a
 * concurrent writer (small scans of another account) measured during it and, before, without it.
 */
const runRetention = async (url: string, member: WorldMember, accountId: number): Promise<RetentionRun> => {
  if (!existsSync(RETENTION_MODULE)) {
    return { note: "server/scans/retention.ts does not exist yet: part 3 skipped (rerun with BENCH_PARTS=1 once it lands)" }
  }
  const retention = (await import(RETENTION_MODULE.href)) as Partial<RetentionModule>
  if (typeof retention.applyRetention !== "function" || typeof retention.saveRetention !== "function") {
    return { note: "server/scans/retention.ts has no applyRetention / saveRetention: part 3 skipped" }
  }
  const { applyRetention, saveRetention } = retention as RetentionModule
  // The writer loop: one small scan (1 service, 10 checks, 1,000 rows, 1 % churn) of another account per iteration.
  const [serviceId] = await insertServices(url, ["benchw"])
  const otherAccount = await insertAccount(url, member.workspaceId, "Bench writer account", "210987654321")
  const world = new World(["benchw"], listAwsChecks().slice(SERVICES * CHECKS, SERVICES * CHECKS + CHECKS), CHECKS, 1_000, 0.1, 7)
  // Each sample: when its write transaction started and how long it took (ms).
  const loop = async (until: () => boolean, min: number) => {
    const samples: Array<{ at: number; ms: number }> = []
    while (samples.length < min || !until()) {
      world.churn(CHURN)
      const at = performance.now()
      const w = await writeScan(url, member, otherAccount, world, [serviceId!], 0)
      samples.push({ at: at + (w.startedAt - at), ms: w.ms })
    }
    return samples
  }
  const stats = (xs: Array<{ ms: number }>) => {
    const s = xs.map((x) => x.ms).sort((a, b) => a - b)
    return { p50: percentile(s, 50), p95: percentile(s, 95), n: s.length }
  }
  await loop(() => true, 3) // warm
  const baseline = stats(await loop(() => true, 30))
  const count = () =>
    sqlOf(url, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM scans WHERE account_id = ${accountId}`).then((r) => r[0]!.n)
  const before = await count()
  // The setting, saved as the API saves it (in the workspace's scope): keep SCANS − EXPIRE days. Scan k of the account
  // ended SCANS − k days and 40 minutes ago, so the EXPIRE oldest go; the writer's scans (just ended) stay.
  await withSql(url, inScope({ workspaceId: member.workspaceId })(saveRetention({ workspaceId: member.workspaceId, userId: member.userId }, { keep_days: SCANS - EXPIRE, keep_scans: null })))
  let done = false
  const writer = loop(() => done, 3)
  const started = performance.now()
  // As the daily run applies it: outside any transaction (it opens its own, one scan or one stream batch each).
  const run = await withSql(url, applyRetention(member.workspaceId))
  const ms = performance.now() - started
  done = true
  // The writes that overlapped the run.
  const during = stats((await writer).filter((x) => x.at < started + ms && x.at + x.ms > started))
  const after = await count()
  return { ms, expired: before - after, versions: run.versions, before, after, baseline, during, sizeAfter: await sizes(url) }
}

/** What the benchmark calls of server/scans/retention.ts (imported when it exists). */
interface RetentionModule {
  readonly saveRetention: (
    actor: { readonly workspaceId: number; readonly userId: number },
    setting: { readonly keep_days: number | null; readonly keep_scans: number | null },
  ) => Effect.Effect<unknown, unknown, SqlClient.SqlClient>
  readonly applyRetention: (workspaceId: number) => Effect.Effect<{ readonly expired: ReadonlyArray<number>; readonly versions: number }, unknown, SqlClient.SqlClient>
}

// ---------------------------------------------------------------------------------------------------------------------
// Parts 1–3 on one backend.

interface GrowthReport {
  readonly backend: string
  readonly rowsFirst: number
  readonly rowsLast: number
  readonly size1: SizeReport
  readonly sizeN: SizeReport
  readonly versions1: number
  readonly versionsN: number
  readonly marksN: number
  readonly writeFirst: number
  readonly writeLater: ReadonlyArray<number>
  readonly churn: Churned
  /** The server's autovacuum setting (on/off). */
  readonly autovacuum: string | undefined
  readonly reads: Array<{ scan: number; name: string; p50: number; p95: number; bytes: number; identical: boolean; diffs: ReadonlyArray<string> }>
  readonly retention: RetentionRun
}

const count = (url: string, table: string) =>
  sqlOf(url, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql(table)}`).then((r) => r[0]!.n)

const makeDatabase = async (backend: "postgres" | "pglite", label: string) => {
  if (backend === "postgres") {
    process.env["TEST_DATABASE_URL"] = PG_URL
    return { database: await makeTestDatabase({ kind: "postgres" }), dir: undefined }
  }
  const dir = mkdtempSync(join(tmpdir(), `bench-storage-${label}-`))
  const embedded = await startEmbeddedPostgres({ dataDir: dir })
  return { database: { url: embedded.url, kind: "pglite", close: () => embedded.close() } satisfies TestDatabase, dir }
}

const runGrowth = async (backend: "postgres" | "pglite"): Promise<GrowthReport> => {
  const { database, dir } = await makeDatabase(backend, "growth")
  const server = await startTestServer({ database, env: { LOG_LEVEL: "error", READ_CACHE: "0" } })
  try {
    const url = server.databaseUrl
    const base = server.baseUrl
    const member = await seedWorldMember(url, `bench-storage-${Date.now()}`, server)
    const keys = Array.from({ length: SERVICES }, (_, s) => `bench${String(s).padStart(2, "0")}`)
    const serviceIds = await insertServices(url, keys)
    const accountId = await insertAccount(url, member.workspaceId, "Bench account", ACCOUNT)
    const world = new World(keys, listAwsChecks().slice(0, SERVICES * CHECKS), CHECKS, ROWS, 0.1, 30)
    const rowsFirst = world.rows
    const churn: Churned = { changed: 0, flipped: 0, gone: 0, appeared: 0 }
    const captured = new Map<number, { scanId: number; calls: ReadonlyArray<ReadCall>; bodies: Array<unknown> }>()
    let size1: SizeReport | undefined
    let versions1 = 0
    let writeFirst = 0
    const writeLater: Array<number> = []
    for (let k = 1; k <= SCANS; k++) {
      if (k > 1) {
        const c = world.churn(CHURN)
        churn.changed += c.changed
        churn.flipped += c.flipped
        churn.gone += c.gone
        churn.appeared += c.appeared
      }
      // Daily: scan k started SCANS − k days (and an hour) ago.
      const { scanId, ms } = await writeScan(url, member, accountId, world, serviceIds, (SCANS - k) * 24 + 1)
      if (k === 1) writeFirst = ms
      else writeLater.push(ms)
      // BENCH_VACUUM=1: a plain VACUUM (ANALYZE) after each scan, standing in for autovacuum on a server where it is off.
      if (VACUUM_EACH_SCAN) await sqlOf(url, (sql) => sql`VACUUM (ANALYZE)`)
      if (k === 1) {
        size1 = await sizes(url)
        versions1 = await count(url, "result_rows")
      }
      if (READ_SCANS.includes(k)) {
        // What the API answers right after the scan was written, while it is the latest.
        const calls = await readCalls(url, scanId)
        const bodies: Array<unknown> = []
        for (const call of calls) bodies.push((await get(base, member, call.path)).body)
        captured.set(k, { scanId, calls, bodies })
      }
      if (k === 1 || k % 5 === 0 || k === SCANS) console.log(`  ${backend}: scan ${k}/${SCANS} (${n0(world.rows)} rows) written in ${sec(ms)}`)
    }
    const sizeN = await sizes(url)
    const autovacuum = await sqlOf(url, (sql) => sql<{ setting: string }>`SELECT setting FROM pg_settings WHERE name = 'autovacuum'`).then((r) => r[0]?.setting)
    const versionsN = await count(url, "result_rows")
    const marksN = await count(url, "result_marks")

    const reads: GrowthReport["reads"] = []
    for (const k of READ_SCANS) {
      const { calls, bodies } = captured.get(k)!
      for (let i = 0; i < calls.length; i++) {
        const call = calls[i]!
        await get(base, member, call.path) // warm
        const samples: Array<number> = []
        const diffs = new Set<string>()
        let bytes = 0
        for (let j = 0; j < CALLS; j++) {
          const r = await get(base, member, call.path)
          samples.push(r.ms)
          bytes = r.bytes
          for (const d of differences(bodies[i], r.body)) diffs.add(d)
        }
        samples.sort((a, b) => a - b)
        const unexpected = [...diffs].filter((d) => !ALLOWED.test(d))
        reads.push({ scan: k, name: call.name, p50: percentile(samples, 50), p95: percentile(samples, 95), bytes, identical: unexpected.length === 0, diffs: [...diffs] })
      }
    }
    const retention = await runRetention(url, member, accountId)
    return {
      backend,
      rowsFirst,
      rowsLast: world.rows,
      size1: size1!,
      sizeN,
      versions1,
      versionsN,
      marksN,
      writeFirst,
      writeLater,
      autovacuum,
      churn,
      reads,
      retention,
    }
  } finally {
    await server.stop()
    await database.close()
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  }
}

const printGrowth = (r: GrowthReport): boolean => {
  console.log(`\n${r.backend} — 1. growth: ${SCANS} daily scans of ${n0(r.rowsFirst)} → ${n0(r.rowsLast)} rows, churn per scan ${f1((100 * (r.churn.changed + r.churn.gone + r.churn.appeared)) / (SCANS - 1) / r.rowsFirst)} % ` +
    `(over all scans: ${n0(r.churn.changed)} changed incl. ${n0(r.churn.flipped)} pass↔fail flips, ${n0(r.churn.gone)} gone, ${n0(r.churn.appeared)} new); ${VACUUM_EACH_SCAN ? "VACUUM (ANALYZE) after every scan (BENCH_VACUUM=1)" : `no VACUUM run${r.autovacuum === undefined ? "" : ` (server autovacuum: ${r.autovacuum})`}`}`)
  const names = [...new Set([...RESULT_TABLES.filter((t) => r.sizeN.tables.has(t)), "(every public table)"])]
  console.log(`  ${"table".padEnd(22)}${"after scan 1".padStart(14)}${`after scan ${SCANS}`.padStart(16)}${"ratio".padStart(8)}   row versions after scan ${SCANS}: live / dead`)
  for (const name of names) {
    const a = name === "(every public table)" ? r.size1.total : (r.size1.tables.get(name) ?? 0)
    const b = name === "(every public table)" ? r.sizeN.total : (r.sizeN.tables.get(name) ?? 0)
    const t = r.sizeN.tuples.get(name)
    console.log(`  ${name.padEnd(22)}${mb(a).padStart(14)}${mb(b).padStart(16)}${(a === 0 ? "—" : (b / a).toFixed(2)).padStart(8)}   ${t === undefined ? "" : `${n0(t.live)} / ${n0(t.dead)}`}`)
  }
  const total = r.sizeN.total / r.size1.total
  console.log(`  bytes ratio scan ${SCANS} ÷ scan 1: ${total.toFixed(2)} (goal ≤ 2: ${total <= 2 ? "met" : "NOT met"}); versions ${n0(r.versions1)} → ${n0(r.versionsN)}, marks ${n0(r.marksN)}`)
  const later = [...r.writeLater].sort((a, b) => a - b)
  console.log(`  writer per scan (20 completeService): scan 1 ${sec(r.writeFirst)}; scans 2–${SCANS} p50 ${sec(percentile(later, 50))}, p95 ${sec(percentile(later, 95))}, max ${sec(later.at(-1) ?? Number.NaN)}`)

  console.log(`\n${r.backend} — 2. reads after all ${SCANS} scans (${CALLS} calls each, ms at the HTTP client; identical = same answer as when it was the latest)`)
  console.log(`  ${"scan".padEnd(6)}${"call".padEnd(34)}${"p50".padStart(8)}${"p95".padStart(8)}${"bytes".padStart(9)}  identical`)
  let ok = true
  for (const x of r.reads) {
    const allowed = x.diffs.filter((d) => ALLOWED.test(d))
    console.log(`  ${String(x.scan).padEnd(6)}${x.name.padEnd(34)}${f1(x.p50).padStart(8)}${f1(x.p95).padStart(8)}${String(x.bytes).padStart(9)}  ${x.identical ? "yes" : "NO"}${allowed.length > 0 ? " (superseded false → true, by design)" : ""}`)
    if (!x.identical) {
      ok = false
      for (const d of x.diffs) console.log(`        ${d}`)
    }
  }
  const worst = Math.max(...r.reads.map((x) => x.p95))
  console.log(`  worst p95 ${f1(worst)} ms (goal ≤ 25 ms: ${worst <= 25 ? "met" : "NOT met"}); identical: ${ok ? "yes" : "NO"}`)

  console.log(`\n${r.backend} — 3. retention expiring ${EXPIRE} of ${SCANS} scans`)
  const t = r.retention
  if (t.note !== undefined) console.log(`  ${t.note}`)
  else {
    console.log(`  applyRetention: ${sec(t.ms!)}, scans of the account ${t.before} → ${t.after} (expired ${t.expired}), ${n0(t.versions!)} versions collected; bytes ${mb(r.sizeN.total)} → ${mb(t.sizeAfter!.total)} (no VACUUM)`)
    console.log(`  concurrent writer (small scan: 1 service, 10 checks, 1,000 rows): without retention p50 ${f1(t.baseline!.p50)} / p95 ${f1(t.baseline!.p95)} ms (n=${t.baseline!.n}); ` +
      `during p50 ${f1(t.during!.p50)} / p95 ${f1(t.during!.p95)} ms (n=${t.during!.n}); p95 ratio ${(t.during!.p95 / t.baseline!.p95).toFixed(2)} (goal ≤ 1.2)`)
  }
  return ok
}

// ---------------------------------------------------------------------------------------------------------------------
// Part 4: migration 0020 over old `results` rows.

const before0020 = Object.fromEntries(Object.entries(migrations).filter(([key]) => key < "0020"))
const through0020 = Object.fromEntries(Object.entries(migrations).filter(([key]) => key < "0021"))

/**
 * The old table filled by SQL: MIG_SCANS daily scans × ROWS rows of one account, 200 checks (one with 10 % of the
 * rows), about 30 % failing. Row `n` of a check exists in scan k when shift(k) ≤ n < size + shift(k) (0.2 % gone and
 * 0.2 % new per scan in the checks big enough to have any); its content changes at the one scan k (≥ 2) with
 * 3k ≤ b < 3k + 3, b = (419 n + 37 check) mod 500, a permutation of the check's rows (0.6 % per scan; a third of those
 * flip pass↔fail). `seq` numbers failing rows first; `delta` as the old writer classified it.
 */
const fillOld = (url: string) =>
  withSql(
    url,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const user = (yield* sql<{ id: number }>`INSERT INTO users (email, email_verified, password_hash) VALUES ('mig@bench.example', true, 'x') RETURNING id`)[0]!.id
      const ws = (yield* sql<{ id: number }>`INSERT INTO workspaces (name, owner_id) VALUES ('Migration bench', ${user}) RETURNING id`)[0]!.id
      const account = (yield* sql<{ id: number }>`
        INSERT INTO accounts (workspace_id, cloud_provider_id, account_name, cloud_account_id, auth_method, credentials_sealed)
        VALUES (${ws}, 1, 'Bench account', ${ACCOUNT}, 'access_key', 'v1.bench') RETURNING id`)[0]!.id
      const keys = Array.from({ length: SERVICES }, (_, s) => `bench${String(s).padStart(2, "0")}`)
      const services = yield* sql<{ id: number; key: string }>`
        INSERT INTO cloud_services (cloud_provider_id, key, name) SELECT 1, k, 'Bench ' || k FROM unnest(${keys}::text[]) AS k
        ON CONFLICT (cloud_provider_id, key) DO UPDATE SET name = excluded.name RETURNING id, key`
      const serviceId = new Map(services.map((s) => [s.key, s.id]))
      const metas = listAwsChecks().slice(0, SERVICES * CHECKS)
      const big = Math.round(ROWS / 10)
      const per = Math.floor((ROWS - big) / (SERVICES * CHECKS - 1))
      const checks = metas.map((m, i) => ({
        no: i,
        check_id: m.id,
        service_id: serviceId.get(keys[Math.floor(i / CHECKS)]!)!,
        service_key: keys[Math.floor(i / CHECKS)]!,
        severity: m.severity,
        title: m.title,
        size: i === 0 ? big : i === SERVICES * CHECKS - 1 ? ROWS - big - per * (SERVICES * CHECKS - 2) : per,
      }))
      // A plain table (the pool's statements may run on different connections), dropped before measuring.
      yield* sql.unsafe(`CREATE TABLE bench_mig_checks (no int, check_id text, service_id int, service_key text, size int)`)
      yield* sql`INSERT INTO bench_mig_checks SELECT * FROM unnest(${checks.map((c) => c.no)}::int[], ${checks.map((c) => c.check_id)}::text[],
                   ${checks.map((c) => c.service_id)}::int[], ${checks.map((c) => c.service_key)}::text[], ${checks.map((c) => c.size)}::int[])`
      let written = 0
      for (let k = 1; k <= MIG_SCANS; k++) {
        const scan = (yield* sql<{ id: number }>`
          INSERT INTO scans (workspace_id, account_id, cloud_provider_id, status, total_services, completed_services, created_by, scan_start, scan_end)
          VALUES (${ws}, ${account}, 1, 'completed', ${SERVICES}, ${SERVICES}, ${user},
                  now() - make_interval(days => ${MIG_SCANS - k}), now() - make_interval(days => ${MIG_SCANS - k}) + interval '20 minutes')
          RETURNING id`)[0]!.id
        const ss = yield* sql<{ id: number; service_id: number }>`
          INSERT INTO scan_services (workspace_id, scan_id, service_id, status, started_at, last_scanned_at)
          SELECT ${ws}, ${scan}, s, 'completed', now(), now() FROM unnest(${[...serviceId.values()]}::int[]) AS s RETURNING id, service_id`
        const ssOf = new Map(ss.map((r) => [r.service_id, r.id]))
        const findings = checks.map((c) => ({
          workspace_id: ws,
          scan_id: scan,
          scan_service_id: ssOf.get(c.service_id)!,
          service_id: c.service_id,
          check_id: c.check_id,
          severity: c.severity,
          status: "fail",
          title: c.title,
          description: "A check of the storage benchmark.",
          policy_check: c.title,
          remediation: "Configure the setting.",
          field_labels: JSON.stringify({ resource_id: "Resource", region: "Region", setting: "Setting", encryption: "Encryption", tags: "Tags" }),
        }))
        yield* sql`INSERT INTO findings ${sql.insert(findings as unknown as readonly [Record<string, unknown>, ...Array<Record<string, unknown>>])}`
        // Row n of check c in scan k: rev (content revision), fail now and before, present before.
        yield* sql.unsafe(`
          INSERT INTO results (workspace_id, finding_id, seq, scan_id, resource_id, resource_uid, region, compliant, fields, delta)
          SELECT ${ws}, f.id, (row_number() OVER (PARTITION BY f.id ORDER BY x.fail DESC, x.n) - 1)::int, ${scan},
                 x.rid, x.rid, x.region, NOT x.fail,
                 jsonb_build_object('reason', CASE WHEN x.fail THEN 'The setting is not configured as the rule requires.' ELSE 'Configured as required.' END,
                                    'setting', CASE WHEN x.fail THEN 'disabled' WHEN x.rev = 0 THEN 'enabled' ELSE 'enabled (revision 1)' END,
                                    'encryption', CASE WHEN x.n % 5 = 0 THEN NULL ELSE 'aws:kms' END,
                                    'tags', jsonb_build_array('team:platform', CASE WHEN x.n % 3 = 0 THEN 'env:prod' ELSE 'env:staging' END,
                                                              'owner:owner-' || (x.n % 17)) || CASE WHEN x.rev > 0 THEN '["rev:1"]'::jsonb ELSE '[]'::jsonb END),
                 CASE WHEN ${k} = 1 THEN 'first'
                      WHEN x.fail AND NOT (x.was AND x.failed) THEN 'new'
                      WHEN NOT x.fail AND x.was AND x.failed THEN 'fixed'
                      ELSE 'unchanged' END
          FROM bench_mig_checks c
          JOIN findings f ON f.scan_id = ${scan} AND f.check_id = c.check_id
          CROSS JOIN LATERAL (
            SELECT n, rev, region, rid,
                   base <> (rev > 0 AND n % 3 = 1) AS fail,
                   base <> (prev > 0 AND n % 3 = 1) AS failed,
                   n >= floor(${k - 2} * c.size * 0.002)::int AND n < c.size + floor(${k - 2} * c.size * 0.002)::int AS was
            FROM (
              SELECT n, (n + c.no % 10) % 10 < 3 AS base,
                     CASE WHEN (n * 419 + c.no * 37) % 500 >= 6 AND (n * 419 + c.no * 37) % 500 < 3 * ${k} + 3 THEN 1 ELSE 0 END AS rev,
                     CASE WHEN (n * 419 + c.no * 37) % 500 >= 6 AND (n * 419 + c.no * 37) % 500 < 3 * ${k} THEN 1 ELSE 0 END AS prev,
                     (ARRAY['us-east-1', 'eu-west-1', 'us-west-2', 'ap-southeast-2'])[1 + n % 4] AS region,
                     'arn:aws:' || c.service_key || ':' || (ARRAY['us-east-1', 'eu-west-1', 'us-west-2', 'ap-southeast-2'])[1 + n % 4]
                       || ':${ACCOUNT}:resource/' || c.service_key || '-' || lpad(n::text, 7, '0') AS rid
              FROM generate_series(floor(${k - 1} * c.size * 0.002)::int, c.size + floor(${k - 1} * c.size * 0.002)::int - 1) AS n
            ) y
          ) x`)
        // The findings' counts, as the old writer kept them (the scan's rows: its findings' key range).
        const first = (yield* sql<{ id: number }>`SELECT min(id)::int AS id FROM findings WHERE scan_id = ${scan}`)[0]!.id
        yield* sql.unsafe(`
          UPDATE findings f SET resources_checked = a.checked, resources_failing = a.failing, resources_new = a.new, resources_fixed = a.fixed,
                 resources_by_region = a.by_region, status = CASE WHEN a.failing > 0 THEN 'fail' ELSE 'pass' END
          FROM (SELECT finding_id, sum(checked)::int AS checked, sum(failing)::int AS failing, sum(new)::int AS new, sum(fixed)::int AS fixed,
                       jsonb_object_agg(region, checked) AS by_region
                FROM (SELECT finding_id, region, count(*)::int AS checked, count(*) FILTER (WHERE NOT compliant)::int AS failing,
                             count(*) FILTER (WHERE delta = 'new')::int AS new, count(*) FILTER (WHERE delta = 'fixed')::int AS fixed
                      FROM results WHERE workspace_id = ${ws} AND finding_id >= ${first} GROUP BY finding_id, region) g
                GROUP BY finding_id) a
          WHERE f.id = a.finding_id`)
        yield* sql.unsafe(`
          UPDATE scans s SET findings_count = a.n, passed_findings = a.passed, failed_findings = a.failed
          FROM (SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'pass')::int AS passed, count(*) FILTER (WHERE status = 'fail')::int AS failed
                FROM findings WHERE scan_id = ${scan}) a WHERE s.id = ${scan}`)
        written += (yield* sql<{ n: number }>`SELECT coalesce(sum(resources_checked), 0)::int AS n FROM findings WHERE scan_id = ${scan}`)[0]!.n
      }
      // The inventory: each resource once.
      yield* sql.unsafe(`
        INSERT INTO resources (workspace_id, account_id, resource_uid, resource_id, service_key, region, first_scan_id, last_scan_id)
        SELECT DISTINCT ON (r.resource_uid) r.workspace_id, ${account}, r.resource_uid, r.resource_id, c.service_key, r.region,
               min(r.scan_id) OVER (PARTITION BY r.resource_uid), max(r.scan_id) OVER (PARTITION BY r.resource_uid)
        FROM results r JOIN findings f ON f.id = r.finding_id JOIN bench_mig_checks c ON c.check_id = f.check_id
        ORDER BY r.resource_uid`)
      yield* sql.unsafe(`DROP TABLE bench_mig_checks`)
      return written
    }),
  )

interface MigrationReport {
  readonly backend: string
  readonly rows: number
  readonly fillMs: number
  readonly ms: number
  readonly before: SizeReport
  readonly after: SizeReport
  readonly versions: number
  readonly marks: number
  readonly viewRows: number
}

const runMigration = async (backend: "postgres" | "pglite"): Promise<MigrationReport> => {
  const { database, dir } = await makeDatabase(backend, "migration")
  try {
    const url = database.url
    await withSql(url, Migrator.make({})({ loader: Migrator.fromRecord(before0020), table: MIGRATIONS_TABLE }))
    let started = performance.now()
    const rows = await fillOld(url)
    const fillMs = performance.now() - started
    console.log(`  ${backend}: old results filled: ${n0(rows)} rows in ${sec(fillMs)}`)
    if (backend === "postgres") await sqlOf(url, (sql) => sql`ANALYZE`) // as autovacuum would have, long before
    const before = await sizes(url)
    started = performance.now()
    const applied = await withSql(url, Migrator.make({})({ loader: Migrator.fromRecord(through0020), table: MIGRATIONS_TABLE }))
    const ms = performance.now() - started
    if (!applied.some(([id]) => id === 20)) throw new Error(`migration 0020 was not applied (${JSON.stringify(applied)})`)
    const after = await sizes(url)
    const viewRows = await count(url, "results")
    if (viewRows !== rows) throw new Error(`after migration 0020 the results view holds ${viewRows} rows, not ${rows}`)
    return { backend, rows, fillMs, ms, before, after, versions: await count(url, "result_rows"), marks: await count(url, "result_marks"), viewRows }
  } finally {
    await database.close()
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  }
}

const printMigration = (r: MigrationReport) => {
  console.log(`\n${r.backend} — 4. migration 0020 over ${n0(r.rows)} old result rows (${MIG_SCANS} daily scans × ${n0(ROWS)} rows, 1 % churn)`)
  console.log(`  time ${sec(r.ms)} (${n0(r.rows / (r.ms / 1000))} rows/s); versions ${n0(r.versions)}, marks ${n0(r.marks)}; the results view reads back ${n0(r.viewRows)} rows`)
  console.log(`  bytes (every public table) ${mb(r.before.total)} → ${mb(r.after.total)} (ratio ${(r.after.total / r.before.total).toFixed(2)}; no VACUUM)`)
  console.log(`    old results ${mb(r.before.tables.get("results") ?? 0)}, findings ${mb(r.before.tables.get("findings") ?? 0)} → result_rows ${mb(r.after.tables.get("result_rows") ?? 0)}, ` +
    `result_marks ${mb(r.after.tables.get("result_marks") ?? 0)}, findings ${mb(r.after.tables.get("findings") ?? 0)}`)
}

const main = async () => {
  console.log(`storage benchmark: ${SCANS} scans × ${n0(ROWS)} rows, ${CHURN * 100} % churn per scan; reads of scans ${READ_SCANS.join(", ")}; ` +
    `migration over ${MIG_SCANS} × ${n0(ROWS)} old rows; backends ${BACKENDS.join(", ")}`)
  let ok = true
  for (const backend of BACKENDS) {
    if (PARTS.has("1")) {
      const started = performance.now()
      ok = printGrowth(await runGrowth(backend)) && ok
      console.log(`  (${backend} parts 1–3 in ${sec(performance.now() - started)})`)
    }
    if (PARTS.has("4")) {
      const started = performance.now()
      printMigration(await runMigration(backend))
      console.log(`  (${backend} part 4 in ${sec(performance.now() - started)})`)
    }
  }
  if (!ok) throw new Error("a superseded scan's answers are NOT identical to what it answered as the latest")
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  },
)
