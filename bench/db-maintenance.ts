/**
 * How long the database maintenance (server/db/maintenance.ts) holds the embedded database: PGlite on disk, as
 * `npm start` runs it, with a pg-boss job table and a `scans` table bloated as scans leave them (every job fetched
 * and completed: two updates per job; every scan row updated three times), then one maintenance pass with no bound,
 * each table's VACUUM timed. PGlite runs one statement at a time, so each figure is how long every request of an
 * embedded install waits at most behind that VACUUM. `BENCH_JOBS` (default 20,000), `BENCH_SCANS` (default 5,000).
 *
 *   node_modules/.bin/node bench/db-maintenance.ts
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PgBoss } from "pg-boss"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { startEmbeddedPostgres } from "../server/db/client.ts"
import { maintenancePass } from "../server/db/maintenance.ts"
import { migrateTestDatabase, withSql } from "../tests/support/db.ts"
import { seedScanRows } from "../tests/support/scan-rows.ts"

const JOBS = Number(process.env["BENCH_JOBS"] ?? 20_000)
const SCANS = Number(process.env["BENCH_SCANS"] ?? 5_000)
const dir = mkdtempSync(join(tmpdir(), "bench-db-maintenance-"))
const db = await startEmbeddedPostgres({ dataDir: dir })
try {
  await migrateTestDatabase(db.url)
  const base = await withSql(db.url, seedScanRows({ name: "Bench", serviceKey: "benchsvc", cloudAccountId: "111111111111", scanStatus: "completed" }))
  await withSql(db.url, Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.gen(function* () {
    yield* sql`INSERT INTO scans (workspace_id, account_id, cloud_provider_id, status, total_services, completed_services)
               SELECT ${base.workspaceId}, ${base.accountId}, 1, 'completed', 54, 54 FROM generate_series(1, ${SCANS})`
    for (let round = 0; round < 3; round++) yield* sql`UPDATE scans SET completed_services = completed_services WHERE workspace_id = ${base.workspaceId}`
  })))
  const boss = new PgBoss({ connectionString: db.url, max: 2, supervise: false, schedule: false })
  boss.on("error", () => undefined)
  await boss.start()
  await boss.createQueue("bench")
  for (let i = 0; i < JOBS; i += 1000) await boss.insert("bench", Array.from({ length: Math.min(1000, JOBS - i) }, (_, k) => ({ data: { n: i + k } })))
  for (;;) {
    const jobs = await boss.fetch("bench", { batchSize: 1000 })
    if (jobs.length === 0) break
    await boss.complete("bench", jobs.map((j) => j.id))
  }
  await boss.stop({ graceful: false })
  const report = await withSql(db.url, maintenancePass({ flushStats: true, maxTables: 1000, budgetMs: Number.MAX_SAFE_INTEGER }))
  console.log(`jobs ${JOBS}, scans ${SCANS}; one pass on PGlite (disk):`)
  for (const t of report.maintained) console.log(`  ${t.statement.padEnd(16)} ${t.table.padEnd(40)} ${String(t.deadBefore).padStart(7)} dead  ${String(t.ms).padStart(6)} ms`)
  console.log(`  total ${report.maintained.reduce((s, t) => s + t.ms, 0)} ms over ${report.maintained.length} tables`)
  const again = await withSql(db.url, maintenancePass({ flushStats: true }))
  console.log(`second pass: ${again.maintained.length} tables`)
} finally {
  await db.close()
  rmSync(dir, { recursive: true, force: true })
}
