/**
 * What the account-group limit (migration 0023) costs a read, per row: one workspace, one account, one finding of
 * BENCH_ROWS result rows (default 200,000), read whole through the `results` view (findings × result_rows ×
 * result_marks, each under its restrictive policy) and through `result_rows` alone, in the API role's scope, as
 * - an unlimited member with the policies in place (what every member without a limited role pays),
 * - the same with the restrictive policies dropped (the baseline before migration 0023),
 * - a member limited to that one account (the lookup behind the OR runs for every row).
 * Rounds alternate the variants so drift of the machine falls on all of them; medians of BENCH_ROUNDS (default 7).
 *
 *   node bench/account-limit.ts                      # PGlite and PostgreSQL (TEST_DATABASE_URL or postgres://postgres@127.0.0.1:5432/postgres)
 *   BENCH_BACKENDS=pglite BENCH_ROWS=50000 node bench/account-limit.ts
 */
import { performance } from "node:perf_hooks"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { inScope } from "../server/auth/rls.ts"
import { GROUP_LIMITED_TABLES } from "../server/db/migrations/0023_account_groups.ts"
import { makeTestDatabase, migrateTestDatabase, withSql } from "../tests/support/db.ts"
import { seedScanRows } from "../tests/support/scan-rows.ts"

const ROWS = Number(process.env["BENCH_ROWS"] ?? 200_000)
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 7)
const BACKENDS = (process.env["BENCH_BACKENDS"] ?? "pglite,postgres").split(",").map((s) => s.trim()) as ReadonlyArray<"pglite" | "postgres">
process.env["TEST_DATABASE_URL"] ||= "postgres://postgres@127.0.0.1:5432/postgres"

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const run = async (kind: "pglite" | "postgres") => {
  const db = await makeTestDatabase({ kind })
  try {
    await migrateTestDatabase(db.url)
    const su = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) => withSql(db.url, Effect.flatMap(SqlClient.SqlClient, f))
    const s = await withSql(db.url, seedScanRows({ name: `Limit${kind}`, serviceKey: "limsvc", cloudAccountId: "333333333333", scanStatus: "completed" }))
    const findingId = await su((sql) => Effect.gen(function* () {
      const f = (yield* sql<{ id: number; stream_id: number }>`
        INSERT INTO findings (workspace_id, scan_id, scan_service_id, service_id, check_id, severity, status, title, description, policy_check)
        VALUES (${s.workspaceId}, ${s.scanId}, ${s.scanServiceId}, ${s.serviceId}, 'lim_check', 'high', 'fail', 't', 'd', 'p')
        RETURNING id, stream_id`)[0]!
      yield* sql`INSERT INTO result_rows (workspace_id, stream_id, pos, rank, from_finding, resource_id, resource_uid, region, compliant)
                 SELECT ${s.workspaceId}, ${f.stream_id}, g, CASE WHEN g % 3 = 0 THEN 0 ELSE 1 END, ${f.id},
                        'arn:aws:s3:::bucket-' || g, 'arn:aws:s3:::bucket-' || g, 'us-east-1', g % 3 <> 0
                 FROM generate_series(0, ${ROWS - 1}) g`
      yield* sql`INSERT INTO result_marks (workspace_id, finding_id, pos, muted_by) SELECT ${s.workspaceId}, ${f.id}, g, 1 FROM generate_series(0, ${ROWS - 1}, 10) g`
      if (kind === "postgres") yield* sql.unsafe(`ANALYZE`)
      return f.id
    }))
    const read = (accountIds: ReadonlyArray<number> | null) =>
      withSql(db.url, inScope({ workspaceId: s.workspaceId, accountIds })(Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const t0 = performance.now()
        const viaView = (yield* sql<{ n: number }>`
          SELECT count(*)::int AS n FROM results WHERE workspace_id = ${s.workspaceId} AND finding_id = ${findingId} AND muted_by IS NULL`)[0]!.n
        const t1 = performance.now()
        const rows = (yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM result_rows WHERE workspace_id = ${s.workspaceId}`)[0]!.n
        const t2 = performance.now()
        if (rows !== ROWS || viaView !== ROWS - Math.ceil(ROWS / 10)) throw new Error(`unexpected counts ${rows} ${viaView}`)
        return { view: t1 - t0, rows: t2 - t1 }
      })))
    const policies = (on: boolean) => su((sql) => Effect.gen(function* () {
      for (const [table, condition] of GROUP_LIMITED_TABLES.filter(([t]) => ["findings", "result_rows", "result_marks"].includes(t))) {
        yield* sql.unsafe(on
          ? `CREATE POLICY ${table}_groups ON ${table} AS RESTRICTIVE FOR ALL USING (${condition}) WITH CHECK (${condition})`
          : `DROP POLICY ${table}_groups ON ${table}`)
      }
    }))
    const times: Record<string, { view: Array<number>; rows: Array<number> }> = {
      "unlimited, limit policies": { view: [], rows: [] }, "no limit policies (before 0023)": { view: [], rows: [] }, "limited to the account": { view: [], rows: [] },
    }
    await read(null) // warm
    if (process.env["BENCH_EXPLAIN"] === "1") {
      const plan = (label: string) => withSql(db.url, inScope({ workspaceId: s.workspaceId })(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql.unsafe<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, COSTS OFF) SELECT count(*)::int AS n FROM results WHERE workspace_id = ${s.workspaceId} AND finding_id = ${findingId} AND muted_by IS NULL`))))
        .then((rows) => console.log(`${label}\n${rows.map((r) => r["QUERY PLAN"]).join("\n")}`))
      await plan("with limit policies")
      await policies(false)
      await plan("without")
      await policies(true)
    }
    for (let r = 0; r < ROUNDS; r++) {
      const add = (k: string, t: { view: number; rows: number }) => { times[k]!.view.push(t.view); times[k]!.rows.push(t.rows) }
      add("unlimited, limit policies", await read(null))
      add("limited to the account", await read([s.accountId]))
      await policies(false)
      add("no limit policies (before 0023)", await read(null))
      await policies(true)
    }
    console.log(`${kind}: ${ROWS.toLocaleString("en")} rows, median of ${ROUNDS} (ms): results view | result_rows`)
    for (const [k, t] of Object.entries(times)) {
      console.log(`  ${k.padEnd(34)} ${median(t.view).toFixed(1).padStart(8)} | ${median(t.rows).toFixed(1).padStart(8)}`)
    }
  } finally {
    await db.close()
  }
}

for (const kind of BACKENDS) await run(kind)
