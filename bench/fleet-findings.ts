/**
 * Findings across accounts (issue 31; server/scans/fleet-findings.ts, migration 0024): an organisation of
 * BENCH_ACCOUNTS (500) member accounts in 8 units under 4 top units, each with BENCH_SCANS (30) completed daily scans of
 * 20 services × 15 checks (300 findings a scan: 4.5M findings, 150,000 of them in the latest scans), seeded through SQL
 * with the product's triggers on (each account's latest scan, the findings' `latest` flag) and each scan's stored counts
 * computed by the algebra's `ROLLUP_SET_SQL` (as a scan's roll-up does). Finding texts have the size of the real
 * AWS checks' (title, description, remediation, compliance). Then, over real HTTP against the in-process API
 * (READ_CACHE=0: every call a full read), BENCH_CALLS (30) calls each, p50/p95 at the client of GET /api/findings
 * without scan_id: first page, a deep page by cursor (the middle of the list; by number the API refuses it), filtered by status and
 * severity, by check, by unit, by service, and sorted by failing resources; and the first page, the deep page and the check
 * filter for a member whose custom role is limited to the account group of unit ou-a (row-level security's group
 * policies in every read).
 *
 *   npm run bench:fleet-findings                                   # PostgreSQL, 500 × 30
 *   BENCH_BACKENDS=pglite BENCH_SCANS=3 npm run bench:fleet-findings
 * BENCH_DATABASE_URL=postgres://…/db measures a database seeded before (by this script's seed or the same SQL) as it is;
 * BENCH_KEEP=1 keeps the database this run seeds (its URL is printed).
 * BENCH_EXPLAIN=20 logs the plan (EXPLAIN ANALYZE) of every statement slower than 20 ms to the PostgreSQL server's log.
 * Each run is appended to bench/results/fleet-findings.json (BENCH_LABEL names it, e.g. "before"/"after"), with the
 * commit and the machine's 1-minute load around the measures; BENCH_RESULTS=0 leaves the file alone.
 * PostgreSQL: TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres (a fresh database, dropped after).
 */
import { execSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { performance } from "node:perf_hooks"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { startEmbeddedPostgres } from "../server/db/client.ts"
import { ROLLUP_SET_SQL, SEVERITY_ORDER_SQL, STATUS_ORDER_SQL } from "../server/posture/algebra.ts"
import { encodeCursor } from "../server/scans/findings-store.ts"
import { makeTestDatabase, withSql, type TestDatabase } from "../tests/support/db.ts"
import { seedWorldAdmin, seedWorldLimitedMember, seedWorldMember, type WorldMember } from "../tests/support/findings-world.ts"
import { startTestServer } from "../tests/support/server.ts"

const ACCOUNTS = Number(process.env["BENCH_ACCOUNTS"] ?? 500)
const SCANS = Number(process.env["BENCH_SCANS"] ?? 30)
const CALLS = Number(process.env["BENCH_CALLS"] ?? 30)
const BACKENDS = (process.env["BENCH_BACKENDS"] ?? "postgres").split(",").map((s) => s.trim()) as ReadonlyArray<"postgres" | "pglite">
const PG_URL = process.env["TEST_DATABASE_URL"] || "postgres://postgres@127.0.0.1:5432/postgres"
const SERVICES = 20
const CHECKS = 15
const PAGE = 50
/** PostgreSQL only: log the plans of statements slower than this many ms to the server's log (auto_explain). */
const EXPLAIN = process.env["BENCH_EXPLAIN"]
/** A database a previous seeding left (not dropped): measured as it is, without seeding. */
const REUSE = process.env["BENCH_DATABASE_URL"]
/** BENCH_KEEP=1 keeps the seeded database (its URL is printed) for BENCH_DATABASE_URL. */
const KEEP = process.env["BENCH_KEEP"] === "1"
/** BENCH_ONLY=regex measures the calls whose name matches (e.g. "first|deep"). */
const ONLY = process.env["BENCH_ONLY"] === undefined ? undefined : new RegExp(process.env["BENCH_ONLY"])

const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : "—")
const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`

const UNITS: ReadonlyArray<readonly [string, string | null, string, string]> = [
  ["r-root", null, "Root", "root"],
  ...["a", "b", "c", "d"].map((u) => [`ou-${u}`, "r-root", u.toUpperCase(), "organizational_unit"] as const),
  ...["a", "b", "c", "d"].flatMap((u) => [1, 2].map((n) => [`ou-${u}${n}`, `ou-${u}`, `${u.toUpperCase()}${n}`, "organizational_unit"] as const)),
]
const LEAVES = UNITS.filter(([id]) => id.length === 5).map(([id]) => id)

/** The organisation, its units and members, their completed scans (oldest first) and the findings of every scan. */
const seed = (workspaceId: number, log: (line: string) => void) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    let t = performance.now()
    const step = (what: string) => {
      log(`    ${what}: ${sec(performance.now() - t)}`)
      t = performance.now()
    }
    yield* sql`INSERT INTO cloud_services (cloud_provider_id, key, name)
               SELECT 1, 'fleet' || lpad(n::text, 2, '0'), 'Fleet ' || n FROM generate_series(0, ${SERVICES - 1}) n
               ON CONFLICT (cloud_provider_id, key) DO NOTHING`
    const org = (yield* sql<{ id: number }>`
      INSERT INTO accounts (workspace_id, cloud_provider_id, account_name, cloud_account_id, auth_method, credentials_sealed, is_organization)
      VALUES (${workspaceId}, 1, 'Bench organisation', 'o-bench', 'role', 'v1.bench', true) RETURNING id`)[0]!.id
    yield* sql`INSERT INTO organizations (account_id, workspace_id, root_id, root_name) VALUES (${org}, ${workspaceId}, 'r-root', 'Root')`
    const path = (id: string): string => {
      const u = UNITS.find(([x]) => x === id)!
      return u[1] === null ? u[2] : `${path(u[1])} / ${u[2]}`
    }
    for (const [id, parent, name, kind] of UNITS) {
      yield* sql`INSERT INTO organization_units (organization_id, workspace_id, unit_id, parent_unit_id, name, kind, path)
                 VALUES (${org}, ${workspaceId}, ${id}, ${parent}, ${name}, ${kind}, ${path(id)})`
    }
    yield* sql`
      INSERT INTO accounts (workspace_id, cloud_provider_id, account_name, cloud_account_id, auth_method, credentials_sealed,
                            organization_id, org_unit_id, org_unit_path)
      SELECT ${workspaceId}, 1, 'Member ' || n, lpad(n::text, 12, '0'), 'role', 'v1.bench', ${org},
             (${LEAVES}::text[])[1 + n % ${LEAVES.length}], (${LEAVES.map(path)}::text[])[1 + n % ${LEAVES.length}]
      FROM generate_series(1, ${ACCOUNTS}) n`
    // Completed scans, oldest first (the product's trigger keeps each account's latest).
    yield* sql`
      INSERT INTO scans (workspace_id, account_id, cloud_provider_id, status, scan_start, scan_end, total_services, completed_services)
      SELECT ${workspaceId}, a.id, 1, 'completed', now() - (${SCANS + 1} - k) * interval '1 day',
             now() - (${SCANS + 1} - k) * interval '1 day' + interval '10 minutes', ${SERVICES}, ${SERVICES}
      FROM accounts a, generate_series(1, ${SCANS}) k WHERE a.workspace_id = ${workspaceId} AND a.organization_id = ${org} ORDER BY k, a.id`
    // Each scan moved its account's `latest_scan_id` (15,000 updates of 500 rows): vacuumed and analysed as autovacuum
    // would, or every finding's `findings_latest` trigger reads the dead versions.
    yield* sql`VACUUM ANALYZE accounts, scans`
    step(`${(ACCOUNTS * SCANS).toLocaleString("en-US")} scans`)
    yield* sql`
      INSERT INTO scan_services (workspace_id, scan_id, service_id, status, last_scanned_at)
      SELECT s.workspace_id, s.id, cs.id, 'completed', s.scan_end FROM scans s, cloud_services cs
      WHERE s.workspace_id = ${workspaceId} AND cs.key LIKE 'fleet%'`
    yield* sql`
      INSERT INTO result_streams (workspace_id, account_id, check_id)
      SELECT a.workspace_id, a.id, cs.key || '_check_' || lpad(c::text, 2, '0')
      FROM accounts a, cloud_services cs, generate_series(0, ${CHECKS - 1}) c
      WHERE a.workspace_id = ${workspaceId} AND a.organization_id = ${org} AND cs.key LIKE 'fleet%'`
    step("scan services and streams")
    const scanIds = (yield* sql<{ id: number }>`SELECT id FROM scans WHERE workspace_id = ${workspaceId} ORDER BY id`).map((r) => r.id)
    // About 40 % failed, 4 % not evaluated, 2 % remediated, the rest passed; some failing findings muted.
    const batch = 500
    for (let i = 0; i < scanIds.length; i += batch) {
      const ids = scanIds.slice(i, i + batch)
      yield* sql`
        INSERT INTO findings (workspace_id, scan_id, scan_service_id, service_id, check_id, severity, status, title, description,
          policy_check, remediation, field_labels, compliance, resources_checked, resources_failing, resources_remediated,
          resources_new, resources_fixed, resources_muted, muted, not_evaluated_reason, resources_by_region, stream_id)
        SELECT ss.workspace_id, ss.scan_id, ss.id, ss.service_id, rs.check_id,
          (ARRAY['critical','high','medium','low'])[1 + (c % 4)],
          CASE WHEN x.v < 40 THEN 'fail' WHEN x.v < 44 THEN 'not_evaluated' WHEN x.v < 46 THEN 'remediated' ELSE 'pass' END,
          'Bench check ' || rs.check_id || ' verifies a setting of every resource',
          'A synthetic check of the fleet findings benchmark: it looks at every resource of the service and reports it.',
          'Resources of ' || cs.key || ' satisfy rule ' || c || ' of the benchmark policy set',
          'Open the console of the service, select the resource, and configure the setting as the rule requires; then rescan the account.',
          '{"resource_id": "Resource", "region": "Region", "setting": "Setting"}'::jsonb,
          ('[{"framework": "cis-aws-1.5", "control": "' || c || '.1"}, {"framework": "fsbp", "control": "S.' || c || '"}]')::jsonb,
          10 + x.v % 40,
          CASE WHEN x.v < 40 THEN 1 + x.v % 9 WHEN x.v >= 44 AND x.v < 46 THEN 2 ELSE 0 END,
          CASE WHEN x.v >= 44 AND x.v < 46 THEN 2 ELSE 0 END,
          CASE WHEN x.v < 40 AND x.v % 5 = 0 THEN 1 ELSE 0 END,
          CASE WHEN x.v >= 46 AND x.v % 7 = 0 THEN 1 ELSE 0 END,
          CASE WHEN x.v < 40 AND x.v % 13 = 0 THEN 1 + x.v % 9 ELSE 0 END,
          x.v < 40 AND x.v % 13 = 0,
          CASE WHEN x.v >= 40 AND x.v < 44 THEN 'Access denied' END,
          '{"us-east-1": 6, "eu-west-1": 4}'::jsonb,
          rs.id
        FROM scan_services ss
        JOIN scans s ON s.id = ss.scan_id
        JOIN cloud_services cs ON cs.id = ss.service_id
        CROSS JOIN generate_series(0, ${CHECKS - 1}) c
        JOIN result_streams rs ON rs.account_id = s.account_id AND rs.check_id = cs.key || '_check_' || lpad(c::text, 2, '0')
        CROSS JOIN LATERAL (SELECT abs(hashint4(ss.scan_id * 1000 + ss.service_id * 20 + c)) % 100 AS v) x
        WHERE ss.workspace_id = ${workspaceId} AND ss.scan_id = ANY(${ids}::int[])`
      if ((i / batch) % 5 === 4 || i + batch >= scanIds.length) step(`findings of scans ${i + 1}–${Math.min(i + batch, scanIds.length)}`)
    }
    // Analysed as autovacuum would after millions of new rows: the counts below read each scan's findings by its index.
    yield* sql`ANALYZE findings`
    // Each scan's stored counts, as its roll-up computes them (the algebra's `ROLLUP_SET_SQL`).
    yield* sql`UPDATE scans s SET ${sql.literal(ROLLUP_SET_SQL)}, findings_count = ${SERVICES * CHECKS}
               WHERE s.workspace_id = ${workspaceId}`
    step("stored counts")
    return { org }
  })

const timed = async (base: string, member: WorldMember, path: string) => {
  const started = performance.now()
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${member.token}`, "x-workspace-id": String(member.workspaceId) } })
  const body = await res.text()
  const ms = performance.now() - started
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body.slice(0, 300)}`)
  return { ms, body: JSON.parse(body) as { data: ReadonlyArray<unknown>; pagination: { total: number; page: number }; totals: unknown } }
}

const measure = async (base: string, member: WorldMember, path: string) => {
  const warm = await timed(base, member, path)
  const samples: Array<number> = []
  for (let i = 0; i < CALLS; i++) samples.push((await timed(base, member, path)).ms)
  samples.sort((a, b) => a - b)
  return { p50: percentile(samples, 50), p95: percentile(samples, 95), rows: warm.body.data.length, total: warm.body.pagination.total, page: warm.body.pagination.page }
}

const runBackend = async (backend: "postgres" | "pglite") => {
  let database: TestDatabase
  let pgliteDir: string | undefined
  if (REUSE !== undefined) {
    database = { url: REUSE, kind: backend, close: async () => {} }
  } else if (backend === "postgres") {
    process.env["TEST_DATABASE_URL"] = PG_URL
    database = await makeTestDatabase({ kind: "postgres" })
    if (EXPLAIN !== undefined && REUSE === undefined) {
      // The plan of every statement slower than BENCH_EXPLAIN ms goes to the server's log (auto_explain, with timings).
      const name = new URL(database.url).pathname.slice(1)
      await withSql(PG_URL, Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.all([
        sql.unsafe(`ALTER DATABASE "${name}" SET session_preload_libraries = 'auto_explain'`),
        sql.unsafe(`ALTER DATABASE "${name}" SET auto_explain.log_min_duration = ${Number(EXPLAIN)}`),
        sql.unsafe(`ALTER DATABASE "${name}" SET auto_explain.log_analyze = on`),
        sql.unsafe(`ALTER DATABASE "${name}" SET auto_explain.log_buffers = on`),
      ])))
    }
  } else {
    pgliteDir = mkdtempSync(join(tmpdir(), "bench-fleet-pglite-"))
    const embedded = await startEmbeddedPostgres({ dataDir: pgliteDir })
    database = { url: embedded.url, kind: "pglite", close: () => embedded.close() }
  }
  const server = await startTestServer({ database, env: { LOG_LEVEL: "error", READ_CACHE: process.env["READ_CACHE"] ?? "0" } })
  try {
    const url = server.databaseUrl
    let member: WorldMember
    if (REUSE !== undefined) {
      // A database seeded before (the organisation 'o-bench' and its members): a new admin of its workspace.
      const workspaceId = (await withSql(url, Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ workspace_id: number }>`
        SELECT workspace_id FROM accounts WHERE cloud_account_id = 'o-bench' AND is_organization`)))[0]!.workspace_id
      member = await seedWorldAdmin(url, workspaceId, `bench-fleet-${Date.now()}`, server)
      console.log(`  ${backend}: reusing ${new URL(url).pathname.slice(1)}, workspace ${workspaceId}`)
    } else {
      member = await seedWorldMember(url, `bench-fleet-${Date.now()}`, server)
      console.log(`  ${backend}: seeding ${ACCOUNTS} accounts × ${SCANS} scans × ${SERVICES * CHECKS} findings`)
      const started = performance.now()
      await withSql(url, seed(member.workspaceId, console.log))
      if (backend === "postgres") await withSql(url, Effect.flatMap(SqlClient.SqlClient, (sql) => sql`VACUUM ANALYZE`))
      console.log(`  ${backend}: seeded in ${sec(performance.now() - started)}${backend === "postgres" ? " (then VACUUM ANALYZE, as autovacuum would)" : ""}`)
      if (KEEP) console.log(`  kept: BENCH_DATABASE_URL=${url}`)
    }
    const org = (await withSql(url, Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ id: number }>`
      SELECT account_id AS id FROM organizations WHERE workspace_id = ${member.workspaceId}`)))[0]!.id
    // A cursor in the middle of the list (the default order), as a client paging that far would hold.
    const middle = await withSql(url, Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ id: number; k2: number; k3: number }>`
      SELECT f.id, ${sql.literal(STATUS_ORDER_SQL)} AS k2, ${sql.literal(SEVERITY_ORDER_SQL)} AS k3 FROM findings f
      WHERE f.workspace_id = ${member.workspaceId} AND f.latest
      ORDER BY 2, 3, 1 OFFSET ${Math.floor((ACCOUNTS * SERVICES * CHECKS) / 2)} LIMIT 1`))
    const m = middle[0]!
    const cursor = encodeURIComponent(encodeCursor(["status", "asc", m.k2, m.k2, m.k3, m.id]))
    const calls: ReadonlyArray<readonly [string, string, "limited"?]> = [
      ["first page", `/api/findings?page_size=${PAGE}`],
      ["deep page (cursor, middle)", `/api/findings?page_size=${PAGE}&cursor=${cursor}`],
      // (A deep page by number is refused past MAX_FLEET_OFFSET: deep pages are read by cursor.)
      ["status=fail, severity=critical", `/api/findings?page_size=${PAGE}&status=fail&severity=critical`],
      ["unit (ou-a: 1/4 of accounts)", `/api/findings?page_size=${PAGE}&unit=ou-a`],
      ["unit, cursor page", `/api/findings?page_size=${PAGE}&unit=ou-a&cursor=${cursor}`],
      ["check (one check id)", `/api/findings?page_size=${PAGE}&check=fleet07_check_03`],
      ["check (text, 20 checks)", `/api/findings?page_size=${PAGE}&check=check_03`],
      ["service", `/api/findings?page_size=${PAGE}&service_id=${(await withSql(url, Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ id: number }>`SELECT id FROM cloud_services WHERE key = 'fleet07'`)))[0]!.id}`],
      ["sort=failing desc", `/api/findings?page_size=${PAGE}&sort=failing&order=desc`],
      // A member limited to the account group of unit ou-a (1/4 of the accounts): the same reads under the group policies.
      ["limited (ou-a): first page", `/api/findings?page_size=${PAGE}`, "limited"],
      ["limited (ou-a): deep page (cursor)", `/api/findings?page_size=${PAGE}&cursor=${cursor}`, "limited"],
      ["limited (ou-a): check (text)", `/api/findings?page_size=${PAGE}&check=check_03`, "limited"],
    ]
    const out: Array<[string, Awaited<ReturnType<typeof measure>>]> = []
    for (const [name, path, who] of calls) {
      if (ONLY !== undefined && !ONLY.test(name)) continue
      // A fresh token per case (access tokens are short-lived).
      // The member limited to unit ou-a: its account group and custom role (docs/permissions.md "Account groups").
      const caller = who === "limited"
        ? await seedWorldLimitedMember(url, member.workspaceId, `bench-fleet-limited-${Date.now()}`, { kind: "unit", organizationId: org, unitId: "ou-a" }, server)
        : await seedWorldAdmin(url, member.workspaceId, `bench-fleet-${Date.now()}`, server)
      const r = await measure(server.baseUrl, caller, path)
      console.log(`    ${name}: p50 ${f1(r.p50)} ms, p95 ${f1(r.p95)} ms`)
      out.push([name, r])
    }
    return out
  } finally {
    await server.stop()
    if (!KEEP) await database.close()
    if (pgliteDir !== undefined) rmSync(pgliteDir, { recursive: true, force: true })
  }
}

const main = async () => {
  console.log(`findings across accounts: ${ACCOUNTS} accounts × ${SCANS} scans × ${SERVICES * CHECKS} findings; ${CALLS} calls per figure (ms at the HTTP client)`)
  const results = resolve(import.meta.dirname, "results/fleet-findings.json")
  for (const backend of BACKENDS) {
    const loadBefore = +loadavg()[0]!.toFixed(2)
    const rows = await runBackend(backend)
    const loadAfter = +loadavg()[0]!.toFixed(2)
    if (process.env["BENCH_RESULTS"] !== "0") {
      const file = existsSync(results)
        ? JSON.parse(readFileSync(results, "utf8")) as { bench: string; runs: Array<unknown> }
        : { bench: "fleet-findings", runs: [] }
      const commit = (() => {
        try {
          return execSync("git rev-parse --short HEAD", { cwd: import.meta.dirname, encoding: "utf8" }).trim()
        } catch {
          return null
        }
      })()
      file.runs.push({
        label: process.env["BENCH_LABEL"] ?? null, at: new Date().toISOString(), commit, backend, accounts: ACCOUNTS,
        scans_per_account: SCANS, calls: CALLS, load_1m: [loadBefore, loadAfter],
        figures: rows.map(([name, r]) => ({ name, p50: +r.p50.toFixed(1), p95: +r.p95.toFixed(1), rows: r.rows, total: r.total, page: r.page })),
      })
      writeFileSync(results, `${JSON.stringify(file, null, 2)}\n`)
    }
    console.log(`\n${backend} (1-minute load ${loadBefore} → ${loadAfter})`)
    console.log(`${"call".padEnd(34)}${"p50".padStart(8)}${"p95".padStart(8)}${"rows".padStart(6)}${"total".padStart(9)}${"page".padStart(6)}`)
    for (const [name, r] of rows) {
      console.log(`${name.padEnd(34)}${f1(r.p50).padStart(8)}${f1(r.p95).padStart(8)}${String(r.rows).padStart(6)}${String(r.total).padStart(9)}${String(r.page).padStart(6)}`)
    }
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  },
)
