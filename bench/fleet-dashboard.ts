/**
 * The fleet dashboard and compliance over an organisation at size (issue 31 benchmark: "with 500 members × 30 completed
 * scans seeded: fleet dashboard … and organisation compliance p95 ≤ 50 ms").
 *
 * Seeds through SQL (as bench/storage.ts's migration part does; the writer is not what is measured): one workspace, an
 * organisation with 10 units (Root → 3 OUs → 2 each), MEMBERS (500) member accounts spread over the 6 leaf units with
 * an `env` tag, and SCANS (30) daily completed scans of each (one member in 20 last scanned 10 days earlier: stale),
 * each scan holding one finding per check of CHECKS (40) CIS AWS v3.0.0 checks (about 25 % failing with 1–5 resources,
 * 5 % not evaluated, a few failing ones muted): 15,000 scans, 600,000 findings, each scan's findings written together as
 * the writer writes them. The scans' counts (and their `outcome_counts`) are then computed by the algebra itself
 * (server/posture/algebra.ts `recountServices`), and VACUUM ANALYZE stands in for autovacuum. Seeding takes minutes
 * (BENCH_VERBOSE=1 shows its steps); `seedFleet` is exported for other benches.
 *
 * Then, over real HTTP against the in-process API with the validated read cache off (READ_CACHE=0: every call is a full
 * read), BENCH_CALLS (100; a p95 of 30 samples is their second slowest, which one collector pause on the shared machine
 * decides) calls each after one cold call: the dashboard (first page of 50 members, default sort; page
 * 10; a unit; a tag with the stale sort), organisation compliance (JSON: first and tenth page of members; CSV both
 * parts) and the PDF — first call, p50, p95 (ms), answer size.
 * Exit code 1 when a p95 of the dashboard or of compliance JSON exceeds 50 ms. Figures also go to
 * bench/results/fleet-dashboard.json, with the machine's load around them.
 *
 *   npm run bench:fleet-dashboard                          # PostgreSQL
 *   BENCH_BACKENDS=postgres,pglite BENCH_MEMBERS=100 node bench/fleet-dashboard.ts
 * PostgreSQL: TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres (a fresh database, dropped after).
 * BENCH_KEEP=1 keeps the seeded database (its URL is printed); BENCH_DATABASE_URL=postgres://…/db then measures it as it
 * is, without seeding (the organisation 'o-bench', a new admin of its workspace). BENCH_ONLY=regex measures only the
 * calls whose name matches (e.g. BENCH_ONLY='^dashboard|JSON'). BENCH_LABEL='stop 39' adds the run, so named, to the runs
 * the results file holds (without it the file holds this run only).
 * `fleetDashboardBench(backend)` answers the figures for another bench (bench:fleet) to print.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { loadavg } from "node:os"
import { resolve } from "node:path"
import { performance } from "node:perf_hooks"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { frameworkById } from "../server/compliance/catalogue.ts"
import { recountServices } from "../server/posture/algebra.ts"
import { makeTestDatabase, withSql } from "../tests/support/db.ts"
import { seedWorldAdmin, seedWorldMember, type WorldMember } from "../tests/support/findings-world.ts"
import { startTestServer } from "../tests/support/server.ts"

const MEMBERS = Number(process.env["BENCH_MEMBERS"] ?? 500)
const SCANS = Number(process.env["BENCH_SCANS"] ?? 30)
const CHECKS = Number(process.env["BENCH_CHECKS"] ?? 40)
const CALLS = Number(process.env["BENCH_CALLS"] ?? 100)
const TARGET_MS = 50
const FRAMEWORK = "cis-aws-3.0.0"
const PG_URL = process.env["TEST_DATABASE_URL"] || "postgres://postgres@127.0.0.1:5432/postgres"
/** A database a previous seeding left (BENCH_KEEP=1): measured as it is. */
const REUSE = process.env["BENCH_DATABASE_URL"]
const KEEP = process.env["BENCH_KEEP"] === "1"
/** BENCH_LABEL names the run (e.g. "stop 39") and keeps the earlier runs of bench/results/fleet-dashboard.json. */
const LABEL = process.env["BENCH_LABEL"]
/** BENCH_ONLY=regex measures the calls whose name matches (e.g. "dashboard|JSON"). */
const ONLY = process.env["BENCH_ONLY"] === undefined ? undefined : new RegExp(process.env["BENCH_ONLY"])

const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

const sqlOf = <A>(url: string, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) => withSql(url, Effect.flatMap(SqlClient.SqlClient, f))

const UNITS: ReadonlyArray<readonly [string, string | null, string]> = [
  ["r-root", null, "Root"],
  ...[1, 2, 3].flatMap((i): ReadonlyArray<readonly [string, string | null, string]> => [
    [`ou-${i}`, "r-root", `Root / OU ${i}`],
    [`ou-${i}-a`, `ou-${i}`, `Root / OU ${i} / A`],
    [`ou-${i}-b`, `ou-${i}`, `Root / OU ${i} / B`],
  ]),
]
const LEAVES = UNITS.filter(([id]) => /-[ab]$/.test(id))

/** The organisation, its units, members and their scans with findings; answers the organisation's id. */
export const seedFleet = async (url: string, member: WorldMember) => {
  const ws = member.workspaceId
  const fw = frameworkById(FRAMEWORK)!
  const mapped = [...new Set(fw.requirements.flatMap((r) => r.checks))]
  const checks = Array.from({ length: CHECKS }, (_, i) => mapped[i] ?? `bench_check_${i}`)
  const severities = checks.map((_, i) => (["critical", "high", "medium", "low"] as const)[i % 4]!)
  const started = performance.now()
  const step = (name: string) => {
    if (process.env["BENCH_VERBOSE"] === "1") console.log(`  seed: ${name} at ${((performance.now() - started) / 1000).toFixed(1)} s`)
  }
  const org = (await sqlOf(url, (sql) => sql<{ id: number }>`
    INSERT INTO accounts (workspace_id, cloud_provider_id, account_name, cloud_account_id, auth_method, credentials_sealed, is_organization)
    VALUES (${ws}, 1, 'Bench organisation', 'o-bench', 'role', 'v1.bench', true) RETURNING id`))[0]!.id
  const serviceId = (await sqlOf(url, (sql) => sql<{ id: number }>`
    INSERT INTO cloud_services (cloud_provider_id, key, name) VALUES (1, 'fleetbench', 'Fleet bench')
    ON CONFLICT (cloud_provider_id, key) DO UPDATE SET name = excluded.name RETURNING id`))[0]!.id
  await sqlOf(url, (sql) => Effect.gen(function* () {
    yield* sql`INSERT INTO organizations (account_id, workspace_id, root_id, root_name) VALUES (${org}, ${ws}, 'r-root', 'Root')`
    for (const [id, parent, path] of UNITS) {
      yield* sql`INSERT INTO organization_units (organization_id, workspace_id, unit_id, parent_unit_id, name, kind, path)
                 VALUES (${org}, ${ws}, ${id}, ${parent}, ${path.split(" / ").at(-1)!}, ${parent === null ? "root" : "organizational_unit"}, ${path})`
    }
    yield* sql`
      INSERT INTO accounts (workspace_id, cloud_provider_id, account_name, cloud_account_id, auth_method, credentials_sealed,
                            organization_id, org_unit_id, org_unit_path, tags)
      SELECT ${ws}, 1, 'member-' || lpad(n::text, 4, '0'), lpad((100000000000 + n)::text, 12, '0'), 'role', 'v1.bench', ${org},
             (${LEAVES.map(([id]) => id)}::text[])[1 + n % ${LEAVES.length}], (${LEAVES.map(([, , p]) => p)}::text[])[1 + n % ${LEAVES.length}],
             jsonb_build_object('env', (ARRAY['prod', 'dev', 'test'])[1 + n % 3], 'team', 'team-' || (n % 7))
      FROM generate_series(1, ${MEMBERS}) AS n`
    step("members")
    // Daily scans, oldest first per member (the trigger keeps each member's latest); one member in 20 is 10 days behind.
    yield* sql`
      INSERT INTO scans (workspace_id, account_id, cloud_provider_id, status, total_services, completed_services, created_by, scan_start, scan_end)
      SELECT ${ws}, a.id, 1, 'completed', 1, 1, ${member.userId},
             date_trunc('day', now()) - make_interval(days => d + CASE WHEN a.id % 20 = 0 THEN 10 ELSE 0 END) + make_interval(mins => a.id % 600),
             date_trunc('day', now()) - make_interval(days => d + CASE WHEN a.id % 20 = 0 THEN 10 ELSE 0 END) + make_interval(mins => a.id % 600 + 20)
      FROM accounts a CROSS JOIN generate_series(${SCANS - 1}, 0, -1) AS d
      WHERE a.workspace_id = ${ws} AND a.organization_id = ${org}
      ORDER BY a.id, d DESC`
    // Each scan moved its member's `latest_scan_id` (15,000 updates of 500 rows): vacuumed and analysed as autovacuum
    // would, or every finding's `findings_latest` trigger reads the dead versions (most of the 47 minutes seeding took).
    yield* sql`VACUUM ANALYZE accounts, scans`
    step("scans")
    yield* sql`
      INSERT INTO scan_services (workspace_id, scan_id, service_id, status, started_at, last_scanned_at)
      SELECT ${ws}, s.id, ${serviceId}, 'completed', s.scan_start, s.scan_end FROM scans s WHERE s.workspace_id = ${ws} ORDER BY s.id`
    step("scan services")
    // Each member's (account, check) result streams, made once as the writer's first scan makes them: findings that name
    // their stream skip the per-row upsert of the `findings_stream` trigger (600,000 upserts of 20,000 rows: most of
    // the seeding's time before).
    yield* sql`
      INSERT INTO result_streams (workspace_id, account_id, check_id)
      SELECT ${ws}, a.id, c.check_id FROM accounts a CROSS JOIN unnest(${checks}::text[]) AS c(check_id)
      WHERE a.workspace_id = ${ws} AND a.organization_id = ${org}`
    step("result streams")
    // Findings change weekly per (member, check): h decides status, resources and mutes. A scan's findings are written
    // together, as the writer does (its services one after another), so they sit on neighbouring pages.
    yield* sql`
      INSERT INTO findings (workspace_id, scan_id, scan_service_id, service_id, check_id, severity, status, title, description, policy_check,
                            resources_checked, resources_failing, resources_muted, muted, not_evaluated_reason, stream_id)
      SELECT ${ws}, ss.scan_id, ss.id, ss.service_id, c.check_id, c.severity,
             CASE WHEN x.h % 100 < 25 THEN 'fail' WHEN x.h % 100 < 30 THEN 'not_evaluated' ELSE 'pass' END,
             'Bench ' || c.check_id, 'A check of the fleet benchmark.', 'Resources satisfy ' || c.check_id,
             1 + x.h % 5,
             CASE WHEN x.h % 100 < 25 THEN 1 + (x.h / 7) % (1 + x.h % 5) ELSE 0 END,
             CASE WHEN x.h % 100 < 25 AND (x.h / 11) % 20 = 0 THEN 1 + (x.h / 7) % (1 + x.h % 5) ELSE 0 END,
             x.h % 100 < 25 AND (x.h / 11) % 20 = 0,
             CASE WHEN x.h % 100 BETWEEN 25 AND 29 THEN 'AccessDenied: not authorized' END,
             rs.id
      FROM scan_services ss JOIN scans s ON s.id = ss.scan_id
      CROSS JOIN unnest(${checks}::text[], ${severities}::text[]) WITH ORDINALITY AS c(check_id, severity, k)
      JOIN result_streams rs ON rs.workspace_id = ${ws} AND rs.account_id = s.account_id AND rs.check_id = c.check_id
      CROSS JOIN LATERAL (SELECT abs(hashtext(s.account_id || ':' || c.k || ':' || (extract(epoch FROM s.scan_start)::bigint / 604800))) AS h) x
      WHERE ss.workspace_id = ${ws}
      ORDER BY ss.scan_id, c.k`
  }))
  // Analysed as autovacuum would after 600,000 new rows: the roll-up below reads each scan's findings by its index.
  await sqlOf(url, (sql) => sql`ANALYZE findings, scan_services`)
  step("findings")
  const pairs = await sqlOf(url, (sql) => sql<{ scan_id: number; service_id: number }>`
    SELECT scan_id, service_id FROM scan_services WHERE workspace_id = ${ws}`)
  // In batches: the scans' roll-up matches each scan against the batch's list.
  for (let i = 0; i < pairs.length; i += 250) await withSql(url, recountServices(ws, pairs.slice(i, i + 250)))
  step("recount")
  // A settled database, as autovacuum leaves it: seeding updated every member's row once per scan (its latest scan).
  await sqlOf(url, (sql) => sql`VACUUM ANALYZE`)
  const [facts] = await sqlOf(url, (sql) => sql<{ scans: number; findings: number; failing: number }>`
    SELECT (SELECT count(*)::int FROM scans WHERE workspace_id = ${ws}) AS scans,
           (SELECT count(*)::int FROM findings WHERE workspace_id = ${ws}) AS findings,
           (SELECT count(*)::int FROM scans WHERE workspace_id = ${ws} AND outcome_counts <> '{}'::jsonb) AS failing`)
  if (facts!.failing !== facts!.scans) throw new Error(`scans without outcome_counts: ${facts!.scans - facts!.failing}`)
  return { org, scans: facts!.scans, findings: facts!.findings, seedSeconds: (performance.now() - started) / 1000 }
}

const timed = async (base: string, member: WorldMember, path: string) => {
  const started = performance.now()
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${member.token}`, "x-workspace-id": String(member.workspaceId) } })
  const body = await res.arrayBuffer()
  const ms = performance.now() - started
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${new TextDecoder().decode(body).slice(0, 300)}`)
  return { ms, bytes: body.byteLength }
}

export interface FleetFigure {
  readonly name: string
  readonly path: string
  readonly first: number
  readonly p50: number
  readonly p95: number
  readonly bytes: number
  readonly target: boolean
}

const measure = async (base: string, member: WorldMember, name: string, path: string, target: boolean): Promise<FleetFigure> => {
  const first = await timed(base, member, path)
  const samples: Array<number> = []
  for (let i = 0; i < CALLS; i++) samples.push((await timed(base, member, path)).ms)
  samples.sort((a, b) => a - b)
  return { name, path, first: first.ms, p50: percentile(samples, 50), p95: percentile(samples, 95), bytes: first.bytes, target }
}

/** Seeds a fresh database of `backend`, measures, and answers the figures. */
export const fleetDashboardBench = async (backend: "postgres" | "pglite") => {
  if (backend === "postgres") process.env["TEST_DATABASE_URL"] = PG_URL
  const database = REUSE !== undefined ? { url: REUSE, kind: backend, close: async () => {} } : await makeTestDatabase({ kind: backend })
  const server = await startTestServer({ database, env: { LOG_LEVEL: "error", READ_CACHE: "0" } })
  try {
    let member: WorldMember
    let seeded: Awaited<ReturnType<typeof seedFleet>>
    if (REUSE !== undefined) {
      const [org] = await sqlOf(server.databaseUrl, (sql) => sql<{ id: number; workspace_id: number }>`
        SELECT id, workspace_id FROM accounts WHERE cloud_account_id = 'o-bench' AND is_organization ORDER BY id DESC LIMIT 1`)
      member = await seedWorldAdmin(server.databaseUrl, org!.workspace_id, `fleet-bench-${Date.now()}`, server)
      const [facts] = await sqlOf(server.databaseUrl, (sql) => sql<{ scans: number; findings: number }>`
        SELECT (SELECT count(*)::int FROM scans WHERE workspace_id = ${org!.workspace_id}) AS scans,
               (SELECT count(*)::int FROM findings WHERE workspace_id = ${org!.workspace_id}) AS findings`)
      seeded = { org: org!.id, scans: facts!.scans, findings: facts!.findings, seedSeconds: 0 }
    } else {
      const seeder = await seedWorldMember(server.databaseUrl, `fleet-bench-${Date.now()}`, server)
      seeded = await seedFleet(server.databaseUrl, seeder)
      // Seeding can outlast an access token (15 minutes): the calls are made by an administrator minted now.
      member = await seedWorldAdmin(server.databaseUrl, seeder.workspaceId, `fleet-bench-${Date.now()}`, server)
      if (KEEP) console.log(`  kept: BENCH_DATABASE_URL=${server.databaseUrl}`)
    }
    const o = `/api/organizations/${seeded.org}`
    const figures: Array<FleetFigure> = []
    for (const [name, path, target] of [
      ["dashboard", `${o}/fleet`, true],
      ["dashboard, page 10", `${o}/fleet?page=10`, true],
      ["dashboard, one OU and below", `${o}/fleet?unit=ou-2`, true],
      ["dashboard, tag env:prod, stale first", `${o}/fleet?tag=env:prod&sort=stale`, true],
      ["compliance JSON", `${o}/compliance/${FRAMEWORK}`, true],
      ["compliance JSON, members page 10", `${o}/compliance/${FRAMEWORK}?page=10`, true],
      ["compliance CSV (requirements)", `${o}/compliance/${FRAMEWORK}/csv`, true],
      ["compliance CSV (members)", `${o}/compliance/${FRAMEWORK}/csv?part=members`, true],
      ["compliance PDF", `${o}/compliance/${FRAMEWORK}/pdf`, false],
    ] as const) if (ONLY === undefined || ONLY.test(name)) figures.push(await measure(server.baseUrl, member, name, path, target))
    return { backend, ...seeded, figures }
  } finally {
    await server.stop()
    if (!KEEP) await database.close()
  }
}

const main = async () => {
  const backends = (process.env["BENCH_BACKENDS"] ?? "postgres").split(",").map((s) => s.trim()) as ReadonlyArray<"postgres" | "pglite">
  let failed = false
  const runs: Array<unknown> = []
  for (const backend of backends) {
    const loadBefore = +loadavg()[0]!.toFixed(2)
    const run = await fleetDashboardBench(backend)
    // The machine's 1-minute load (as `uptime` prints it) around the measures: other work moves every figure.
    runs.push({
      ...(LABEL === undefined ? {} : { label: LABEL }),
      ...run,
      members: MEMBERS,
      scans_per_member: SCANS,
      calls: CALLS,
      load_1m: [loadBefore, +loadavg()[0]!.toFixed(2)],
      at: new Date().toISOString(),
    })
    console.log(`\n${backend}: ${MEMBERS} members × ${SCANS} completed scans (${run.scans.toLocaleString("en-US")} scans, ` +
      `${run.findings.toLocaleString("en-US")} findings) seeded in ${run.seedSeconds.toFixed(1)} s; ${CALLS} calls each, read cache off`)
    console.log("  call                                      first ms   p50 ms   p95 ms   answer")
    for (const f of run.figures) {
      const over = f.target && f.p95 > TARGET_MS
      failed ||= over
      console.log(`  ${f.name.padEnd(40)} ${f.first.toFixed(1).padStart(9)} ${f.p50.toFixed(1).padStart(8)} ${f.p95.toFixed(1).padStart(8)}   ` +
        `${(f.bytes / 1024).toFixed(0)} KB${over ? `   OVER ${TARGET_MS} ms` : ""}`)
    }
  }
  const results = resolve(import.meta.dirname, "results/fleet-dashboard.json")
  mkdirSync(resolve(results, ".."), { recursive: true })
  // A labelled run (BENCH_LABEL="stop 39") is added to the runs kept there; an unlabelled one replaces them.
  const kept = LABEL !== undefined && existsSync(results) ? ((JSON.parse(readFileSync(results, "utf8")) as { runs?: Array<unknown> }).runs ?? []) : []
  writeFileSync(results, `${JSON.stringify({ bench: "fleet-dashboard", runs: [...kept, ...runs], at: new Date().toISOString() }, null, 2)}\n`)
  console.log(`(written to ${results})`)
  if (failed) process.exitCode = 1
}

if (process.argv[1]?.endsWith("fleet-dashboard.ts")) await main()
