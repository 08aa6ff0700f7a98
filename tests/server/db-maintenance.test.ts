/**
 * Database maintenance (server/db/maintenance.ts) on a real database (PGlite, or PostgreSQL with TEST_DATABASE_URL):
 * a churned table is vacuumed by one pass and a quiet one is left alone, as autovacuum's default thresholds decide; the
 * pass is bounded and takes the neediest table first; nothing runs while the server reports autovacuum on, and the
 * first pass waits one interval (a TestClock drives the loop); two passes at once vacuum once; on PostgreSQL a pass
 * of another process holding the lock keeps this one out, and tables of another owner are skipped without a warning.
 */
import { Effect, Fiber } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  decideMode, MAINTENANCE_LOCK, maintenanceLoop, maintenancePass, planMaintenance, type PassReport, type TableStats,
} from "../../server/db/maintenance.ts"
import { setLogSink } from "../../server/log.ts"
import { makeTestDatabase, withSql, type TestDatabase } from "../support/db.ts"
import { dropOwners, ownerUrl } from "../support/migration-owner.ts"

const postgres = Boolean(process.env["TEST_DATABASE_URL"])
let db: TestDatabase

beforeAll(async () => {
  db = await makeTestDatabase()
}, 60_000)

afterAll(async () => {
  await db?.close()
  await dropOwners()
})

const run = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>, url = db.url) => withSql(url, effect)

/**
 * Creates `table` with `rows` rows and deletes `deleted` of them, in one transaction whose pending statistics are
 * flushed at its end (`pg_stat_force_next_flush`), so a pass on another connection reads them at once.
 */
const churn = (table: string, rows: number, deleted: number, url = db.url) =>
  run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.withTransaction(Effect.gen(function* () {
    yield* sql`CREATE TABLE ${sql(table)} (id int PRIMARY KEY, payload text NOT NULL)`
    yield* sql`INSERT INTO ${sql(table)} SELECT g, repeat('x', 50) FROM generate_series(1, ${rows}) g`
    yield* sql`DELETE FROM ${sql(table)} WHERE id <= ${deleted}`
    // Only a superuser may call it (PostgreSQL); another role's backend flushes when its pool closes.
    if (url === db.url) yield* sql`SELECT pg_stat_force_next_flush()`
  }))), url).then(() => until(async () => (await stat(table))?.n_dead_tup === deleted))

const until = async (done: () => Promise<boolean>): Promise<void> => {
  for (let i = 0; i < 100 && !(await done()); i++) await new Promise((resolve) => setTimeout(resolve, 100))
}

interface Stat {
  readonly n_dead_tup: number
  readonly vacuum_count: number
  readonly analyze_count: number
  readonly last_vacuum: Date | null
}

const stat = (table: string): Promise<Stat> =>
  run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<Stat>`
    SELECT n_dead_tup::int AS n_dead_tup, vacuum_count::int AS vacuum_count, analyze_count::int AS analyze_count, last_vacuum
      FROM pg_stat_user_tables WHERE relname = ${table}`)).then((rows) => rows[0]!)


const maintainedTables = (report: PassReport) => report.maintained.map((t) => t.table)

describe("autovacuum's decision", () => {
  const t = (live: number, dead: number, modsSinceAnalyze: number): TableStats => ({ schema: "public", table: `t${live}_${dead}`, live, dead, modsSinceAnalyze })

  it("vacuums above 50 + 0.2 × live dead rows and analyzes above 50 + 0.1 × live changes, the most dead rows first", () => {
    expect(planMaintenance([t(1000, 250, 0), t(1000, 251, 0)]).map((p) => p.table)).toEqual(["t1000_251"])
    expect(planMaintenance([t(1000, 0, 150), t(1000, 0, 151)]).map((p) => [p.table, p.vacuum, p.analyze])).toEqual([["t1000_0", false, true]])
    const plan = planMaintenance([t(10, 0, 500), t(100, 200, 0), t(10_000, 5_000, 5_000)])
    expect(plan.map((p) => [p.table, p.vacuum, p.analyze])).toEqual([
      ["t10000_5000", true, true], ["t100_200", true, false], ["t10_0", false, true],
    ])
  })

  it("maintains only the embedded database and a server with autovacuum off, unless switched off", () => {
    expect(decideMode({ setting: "auto", embedded: true, autovacuum: true })).toBe("embedded")
    expect(decideMode({ setting: "auto", embedded: false, autovacuum: false })).toBe("autovacuum-off")
    expect(decideMode({ setting: "auto", embedded: false, autovacuum: true })).toBe("server-autovacuum")
    expect(decideMode({ setting: "off", embedded: true, autovacuum: false })).toBe("off")
  })
})

describe(`a maintenance pass (${postgres ? "PostgreSQL" : "PGlite"})`, () => {
  it("vacuums a churned table and leaves a quiet one alone", async () => {
    await churn("m_churned", 2000, 1500)
    await churn("m_quiet", 40, 5)
    expect((await stat("m_churned")).n_dead_tup).toBe(1500)
    const report = await run(maintenancePass({ flushStats: true }))
    expect(report.skipped).toBe(false)
    expect(report.maintained[0]).toMatchObject({ table: "public.m_churned", statement: "VACUUM (ANALYZE)", deadBefore: 1500 })
    expect(maintainedTables(report)).not.toContain("public.m_quiet")
    const churned = await stat("m_churned")
    expect(churned.n_dead_tup).toBe(0)
    expect(churned.vacuum_count).toBe(1)
    expect(churned.last_vacuum).not.toBeNull()
    expect(await stat("m_quiet")).toMatchObject({ n_dead_tup: 5, vacuum_count: 0, analyze_count: 0, last_vacuum: null })
    // Nothing left to do: the next pass touches neither.
    const next = await run(maintenancePass({ flushStats: true }))
    expect(maintainedTables(next)).not.toContain("public.m_churned")
  }, 60_000)

  it.runIf(!postgres)("reads the counts PGlite has not flushed yet (it flushes on idle only a second after the last flush)", async () => {
    await run(Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.gen(function* () {
      yield* sql`CREATE TABLE m_pending (id int PRIMARY KEY)`
      yield* sql`INSERT INTO m_pending SELECT generate_series(1, 2000)`
      yield* sql`SELECT pg_stat_force_next_flush()`
      yield* sql`DELETE FROM m_pending WHERE id <= 1500` // within the second: still pending in PGlite's backend
    })))
    const report = await run(maintenancePass({ flushStats: true }))
    expect(report.maintained).toContainEqual(expect.objectContaining({ table: "public.m_pending", statement: "VACUUM (ANALYZE)", deadBefore: 1500 }))
    expect((await stat("m_pending")).n_dead_tup).toBe(0)
  }, 60_000)

  it("is bounded: the neediest table first, the rest deferred to the next pass", async () => {
    await churn("m_big", 3000, 2500)
    await churn("m_small", 1000, 600)
    const first = await run(maintenancePass({ flushStats: true, maxTables: 1 }))
    expect(maintainedTables(first)).toEqual(["public.m_big"])
    expect(first.deferred).toBeGreaterThanOrEqual(1)
    expect((await stat("m_small")).vacuum_count).toBe(0)
    const second = await run(maintenancePass({ flushStats: true, maxTables: 1 }))
    expect(maintainedTables(second)).toEqual(["public.m_small"])
    expect((await stat("m_small")).n_dead_tup).toBe(0)
  }, 60_000)

  it("two passes at once: one vacuums, the other does nothing", async () => {
    await churn("m_race", 2000, 1000)
    const [a, b] = await run(Effect.all([maintenancePass({ flushStats: true }), maintenancePass({ flushStats: true })], { concurrency: "unbounded" }))
    expect([a.skipped, b.skipped].sort()).toEqual([false, true])
    expect([...maintainedTables(a), ...maintainedTables(b)].filter((t) => t === "public.m_race")).toHaveLength(1)
    expect((await stat("m_race")).vacuum_count).toBe(1)
  }, 60_000)

  it.runIf(postgres)("does nothing while another process's pass holds the lock", async () => {
    await churn("m_locked", 2000, 1000)
    // Another session holds the lock (as another process's pass would) while this process runs its pass.
    const report = await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.withTransaction(Effect.gen(function* () {
      yield* sql`SELECT pg_advisory_xact_lock(hashtext(${MAINTENANCE_LOCK}))`
      return yield* Effect.promise(() => run(maintenancePass({ flushStats: false })))
    }))))
    expect(report).toEqual({ skipped: true, maintained: [], deferred: 0 })
    expect((await stat("m_locked")).vacuum_count).toBe(0)
    // Released, the next pass does it.
    expect(maintainedTables(await run(maintenancePass({ flushStats: false })))).toContain("public.m_locked")
  }, 60_000)

  it.runIf(postgres)("leaves out the tables its login role does not own (PostgreSQL would warn and skip them)", async () => {
    const appUrl = await ownerUrl(db, "maint")
    await churn("m_foreign", 2000, 1500) // owned by the superuser
    await churn("m_own", 2000, 1500, appUrl)
    const report = await withSql(appUrl, maintenancePass({ flushStats: false }))
    expect(maintainedTables(report)).toContain("public.m_own")
    expect(maintainedTables(report)).not.toContain("public.m_foreign")
    expect((await stat("m_foreign")).vacuum_count).toBe(0)
    expect((await stat("m_own")).vacuum_count).toBe(1)
  }, 60_000)
})

describe(`the maintenance loop (${postgres ? "PostgreSQL" : "PGlite"})`, () => {
  /** Live waits: the database round trips take real time while the loop's sleeps follow the TestClock. */
  const waitFor = (done: () => boolean, ms: number) =>
    TestClock.withLive(Effect.gen(function* () {
      const deadline = Date.now() + ms
      while (!done() && Date.now() < deadline) yield* Effect.sleep("10 millis")
      yield* Effect.sleep("30 millis") // the loop goes back to its sleep
    }))

  /**
   * Runs the loop (intervals of 60 s) on a TestClock, the server's autovacuum setting injected: first to 59 s (calling
   * `atFiftyNine`), then `intervals` intervals on. Answers its passes and its log lines.
   */
  const drive = async (options: { readonly autovacuum: boolean; readonly intervals: number; readonly atFiftyNine?: () => Promise<void> }) => {
    const passes: Array<PassReport> = []
    const lines: Array<Record<string, unknown>> = []
    const restore = setLogSink((line) => lines.push(JSON.parse(line) as Record<string, unknown>))
    try {
      await run(Effect.gen(function* () {
        const fiber = yield* Effect.forkChild(maintenanceLoop({
          setting: "auto", embedded: false, intervalSeconds: 60, autovacuum: Effect.succeed(options.autovacuum),
          onPass: (report) => passes.push(report),
        }))
        yield* waitFor(() => lines.length > 0, 10_000)
        yield* TestClock.adjust("59 seconds")
        yield* waitFor(() => passes.length > 0, 100)
        if (options.atFiftyNine !== undefined) yield* Effect.promise(options.atFiftyNine)
        yield* TestClock.adjust("1 second")
        for (let i = 1; i <= options.intervals; i++) {
          yield* waitFor(() => passes.length >= i, options.autovacuum ? 200 : 20_000)
          if (i < options.intervals) yield* TestClock.adjust("60 seconds")
        }
        yield* Fiber.interrupt(fiber)
      }).pipe(Effect.provide(TestClock.layer())))
    } finally {
      restore()
    }
    return { passes, lines }
  }

  it("does nothing while the server reports autovacuum on, and says so once at start", async () => {
    await churn("m_server_vacuums", 2000, 1500)
    const { passes, lines } = await drive({ autovacuum: true, intervals: 3 })
    expect(passes).toEqual([])
    expect(lines.filter((l) => l["msg"] === "database maintenance left to the server's autovacuum")).toHaveLength(1)
    expect(lines.filter((l) => l["msg"] === "database maintenance pass")).toEqual([])
    expect((await stat("m_server_vacuums")).vacuum_count).toBe(0)
  }, 60_000)

  it("with autovacuum off: the first pass one interval after start, which vacuums the churned tables", async () => {
    await churn("m_off", 2000, 1500)
    let atFiftyNine: Stat | undefined
    const { passes, lines } = await drive({ autovacuum: false, intervals: 2, atFiftyNine: async () => { atFiftyNine = await stat("m_off") } })
    expect(lines[0]).toMatchObject({ msg: "database maintenance on: the server runs with autovacuum off, this process vacuums and analyzes it", mode: "autovacuum-off" })
    expect(atFiftyNine?.vacuum_count).toBe(0)
    expect(passes).toHaveLength(2)
    expect(maintainedTables(passes[0]!)).toEqual(expect.arrayContaining(["public.m_server_vacuums", "public.m_off"]))
    expect(maintainedTables(passes[1]!)).not.toContain("public.m_off")
    expect(await stat("m_off")).toMatchObject({ n_dead_tup: 0, vacuum_count: 1 })
    expect(lines.filter((l) => l["msg"] === "database maintenance pass")).toHaveLength(1)
  }, 60_000)
})
