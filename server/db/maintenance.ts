/**
 * Database maintenance: VACUUM and ANALYZE where no autovacuum does it.
 *
 * Why: the embedded database (PGlite) is one standalone backend without an autovacuum launcher (`SHOW autovacuum` says
 * on, but nothing ever runs it: `autovacuum_count` stays 0 on every table), and a PostgreSQL server may run with
 * `autovacuum = off` (this project's CI server does). There the dead rows every scan leaves (pg-boss's job table,
 * `scans`, `scan_services`, rate-limit buckets, sessions…) are never reclaimed and every statement reading those tables
 * gets slower, scan after scan (bench:fleet measured PostgreSQL's CPU per fleet scan 55 → 117 → 212 s over three rounds
 * without vacuum, 55 → 58 → 72 s with one between rounds).
 *
 * What runs: every worker process (server/app.ts) runs `DbMaintenanceLive`. It decides its mode once at start and logs
 * it (`decideMode`): `off` (DB_MAINTENANCE=off), `embedded` (PGlite), `autovacuum-off` (the server reports
 * `autovacuum` off), or `server-autovacuum` (the server vacuums; this module does nothing but re-read the setting each
 * interval). Every DB_MAINTENANCE_SECONDS (default 60, as autovacuum_naptime; the first pass one interval after start, so start-up and short
 * test runs never wait for it) a pass (`maintenancePass`):
 *   1. takes the maintenance lock: one pass per process (an in-process flag: on PGlite every connection shares one
 *      session, so an advisory lock is re-entrant there and excludes nothing) and one per database (a session-level
 *      `pg_try_advisory_lock` on a reserved connection, released after; the transaction-level variant cannot be used
 *      since VACUUM cannot run inside a transaction block). A pass that does not get it does nothing;
 *   2. reads the cumulative statistics of every table the login role may vacuum (`pg_stat_user_tables`, schemas
 *      `public` and `pgboss` alike; tables owned by another role are left out, so PostgreSQL never has to warn and
 *      skip them) and chooses tables exactly as autovacuum would with PostgreSQL's default settings: VACUUM when
 *      n_dead_tup > 50 + 0.2 × n_live_tup, ANALYZE when n_mod_since_analyze > 50 + 0.1 × n_live_tup (`needsVacuum`,
 *      `needsAnalyze`);
 *   3. runs one statement per table (`VACUUM (ANALYZE)`, `VACUUM` or `ANALYZE`, the identifier escaped by the SQL
 *      compiler), the table with the most dead rows above its threshold first, until MAX_TABLES_PER_PASS tables or
 *      PASS_BUDGET_MS have gone by; the rest wait for the next pass. The bound matters on PGlite, which runs one
 *      statement at a time: a VACUUM holds every request of an embedded install while it runs.
 * A failed pass is logged and the next interval tries again; it never stops the worker.
 *
 * PGlite's statistics: its single backend counts n_dead_tup etc. like any backend, but flushes its pending counts
 * only when it goes idle at least a second after the previous flush, and having no timer it never flushes them later.
 * So on the embedded database a pass first asks for `pg_stat_force_next_flush()`: the counts are current when read.
 */
import { Clock, Effect, Layer, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import type { Connection } from "effect/sql/SqlConnection"
import type { SqlError } from "effect/sql/SqlError"
import { AppConfig, DEFAULT_DB_MAINTENANCE_SECONDS } from "../config.ts"
import { logLine } from "../log.ts"
import { Database } from "./client.ts"

/** PostgreSQL's defaults: autovacuum_vacuum_threshold, autovacuum_vacuum_scale_factor. */
export const VACUUM_THRESHOLD = 50
export const VACUUM_SCALE_FACTOR = 0.2
/** PostgreSQL's defaults: autovacuum_analyze_threshold, autovacuum_analyze_scale_factor. */
export const ANALYZE_THRESHOLD = 50
export const ANALYZE_SCALE_FACTOR = 0.1
/** Tables one pass maintains at most; the neediest go first, the rest wait for the next pass. */
export const MAX_TABLES_PER_PASS = 20
/** No new statement is started once a pass has run this long (one statement is never cut). */
export const PASS_BUDGET_MS = 10_000
/** Key of the session-level advisory lock that keeps passes of several processes apart. */
export const MAINTENANCE_LOCK = "cloud-audit:db-maintenance"

export interface TableStats {
  readonly schema: string
  readonly table: string
  readonly live: number
  readonly dead: number
  readonly modsSinceAnalyze: number
}

export const needsVacuum = (t: TableStats): boolean => t.dead > VACUUM_THRESHOLD + VACUUM_SCALE_FACTOR * t.live
export const needsAnalyze = (t: TableStats): boolean => t.modsSinceAnalyze > ANALYZE_THRESHOLD + ANALYZE_SCALE_FACTOR * t.live

export interface PlannedTable extends TableStats {
  readonly vacuum: boolean
  readonly analyze: boolean
}

/**
 * The tables autovacuum would pick, neediest first: those to vacuum by their dead rows above the threshold, then those
 * only to analyze by their changes above theirs.
 */
export const planMaintenance = (tables: ReadonlyArray<TableStats>): ReadonlyArray<PlannedTable> =>
  tables
    .map((t) => ({ ...t, vacuum: needsVacuum(t), analyze: needsAnalyze(t) }))
    .filter((t) => t.vacuum || t.analyze)
    .sort((a, b) => {
      if (a.vacuum !== b.vacuum) return a.vacuum ? -1 : 1
      return a.vacuum
        ? b.dead - VACUUM_SCALE_FACTOR * b.live - (a.dead - VACUUM_SCALE_FACTOR * a.live)
        : b.modsSinceAnalyze - ANALYZE_SCALE_FACTOR * b.live - (a.modsSinceAnalyze - ANALYZE_SCALE_FACTOR * a.live)
    })

export type MaintenanceMode = "off" | "embedded" | "autovacuum-off" | "server-autovacuum"

/** Whether this process maintains the database: never when switched off or when the server runs autovacuum. */
export const decideMode = (input: { readonly setting: "auto" | "off"; readonly embedded: boolean; readonly autovacuum: boolean }): MaintenanceMode =>
  input.setting === "off" ? "off" : input.embedded ? "embedded" : input.autovacuum ? "server-autovacuum" : "autovacuum-off"

export const maintains = (mode: MaintenanceMode): boolean => mode === "embedded" || mode === "autovacuum-off"

/** What the server says about `autovacuum` (PGlite says on, though it has no launcher: see `decideMode`). */
export const serverAutovacuum: Effect.Effect<boolean, SqlError, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ on: boolean }>`SELECT current_setting('autovacuum')::boolean AS on`
  return rows[0]?.on === true
})

export interface MaintainedTable {
  readonly table: string
  readonly statement: "VACUUM (ANALYZE)" | "VACUUM" | "ANALYZE"
  readonly deadBefore: number
  readonly ms: number
}

export interface PassReport {
  /** Another pass (this process or another) held the lock: nothing was done. */
  readonly skipped: boolean
  readonly maintained: ReadonlyArray<MaintainedTable>
  /** Tables that needed maintenance but were left for the next pass by the bound. */
  readonly deferred: number
}

export interface PassOptions {
  /** PGlite: flush its pending statistics before reading them (see the module header). */
  readonly flushStats: boolean
  readonly maxTables?: number
  readonly budgetMs?: number
}

/** One pass in this process at a time (see the module header: PGlite's shared session makes the lock re-entrant). */
let passRunning = false

const readStats = (conn: Connection) =>
  conn.execute(
    `SELECT s.schemaname AS schema, s.relname AS table, s.n_live_tup::float8 AS live, s.n_dead_tup::float8 AS dead,
            s.n_mod_since_analyze::float8 AS mods_since_analyze
       FROM pg_stat_user_tables s
       JOIN pg_class c ON c.oid = s.relid
      WHERE c.relkind IN ('r', 'm') AND c.relpersistence <> 't'
        AND (pg_has_role(c.relowner, 'USAGE')
             OR (NOT c.relisshared AND pg_has_role((SELECT datdba FROM pg_database WHERE datname = current_database()), 'USAGE')))`,
    [],
    undefined,
  ).pipe(
    Effect.map((rows) =>
      (rows as ReadonlyArray<{ schema: string; table: string; live: number; dead: number; mods_since_analyze: number }>).map(
        (r): TableStats => ({ schema: r.schema, table: r.table, live: r.live, dead: r.dead, modsSinceAnalyze: r.mods_since_analyze }),
      ),
    ),
  )

/** One maintenance pass (see the module header). Fails only on a database error; the loop logs it. */
export const maintenancePass = (options: PassOptions): Effect.Effect<PassReport, SqlError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const skipped: PassReport = { skipped: true, maintained: [], deferred: 0 }
    if (passRunning) return skipped
    passRunning = true
    return yield* Effect.scoped(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const conn = yield* sql.reserve
        const [lockSql, lockParams] = sql`SELECT pg_try_advisory_lock(hashtext(${MAINTENANCE_LOCK})) AS ok`.compile(true)
        const locked = yield* conn.execute(lockSql, lockParams, undefined)
        if ((locked[0] as { ok?: boolean } | undefined)?.ok !== true) return skipped
        const [unlockSql, unlockParams] = sql`SELECT pg_advisory_unlock(hashtext(${MAINTENANCE_LOCK}))`.compile(true)
        yield* Effect.addFinalizer(() => Effect.ignore(conn.execute(unlockSql, unlockParams, undefined)))

        if (options.flushStats) yield* conn.execute("SELECT pg_stat_force_next_flush()", [], undefined)
        const plan = planMaintenance(yield* readStats(conn))
        const maxTables = options.maxTables ?? MAX_TABLES_PER_PASS
        const budgetMs = options.budgetMs ?? PASS_BUDGET_MS
        const started = yield* Clock.currentTimeMillis
        const maintained: Array<MaintainedTable> = []
        for (const t of plan) {
          if (maintained.length >= maxTables || (yield* Clock.currentTimeMillis) - started >= budgetMs) break
          const statement = t.vacuum ? (t.analyze ? "VACUUM (ANALYZE)" : "VACUUM") : "ANALYZE"
          // VACUUM cannot run inside a transaction block: one statement per table, on the reserved connection.
          const [text, params] = sql`${sql.literal(statement)} ${sql(t.schema)}.${sql(t.table)}`.compile(true)
          const t0 = performance.now()
          yield* conn.executeUnprepared(text, params, undefined)
          maintained.push({ table: `${t.schema}.${t.table}`, statement, deadBefore: t.dead, ms: Math.round(performance.now() - t0) })
        }
        return { skipped: false, maintained, deferred: plan.length - maintained.length } satisfies PassReport
      }),
    ).pipe(Effect.ensuring(Effect.sync(() => { passRunning = false })))
  })

const logPass = (report: PassReport) =>
  Effect.sync(() => {
    if (report.maintained.length === 0 && report.deferred === 0) return
    logLine("info", "database maintenance pass", {
      tables: report.maintained.map((t) => `${t.statement} ${t.table} (${t.deadBefore} dead, ${t.ms} ms)`),
      ms: report.maintained.reduce((sum, t) => sum + t.ms, 0),
      deferred: report.deferred,
    })
  })

const describeMode = (mode: MaintenanceMode): string => {
  switch (mode) {
    case "off":
      return "database maintenance off (DB_MAINTENANCE=off)"
    case "embedded":
      return "database maintenance on: the embedded database has no autovacuum, this process vacuums and analyzes it"
    case "autovacuum-off":
      return "database maintenance on: the server runs with autovacuum off, this process vacuums and analyzes it"
    case "server-autovacuum":
      return "database maintenance left to the server's autovacuum"
  }
}

export interface MaintenanceLoopOptions {
  readonly setting: "auto" | "off"
  readonly embedded: boolean
  readonly intervalSeconds: number
  /** The server's `autovacuum` setting (tests inject one); read again before every pass of an external database. */
  readonly autovacuum?: Effect.Effect<boolean, SqlError, SqlClient.SqlClient>
  readonly pass?: Omit<PassOptions, "flushStats">
  /** Called after every pass that ran (tests). */
  readonly onPass?: (report: PassReport) => void
}

/**
 * Logs the mode, then, unless it is off, sleeps one interval and runs a pass every `intervalSeconds` (the Effect
 * `Clock`: a TestClock drives it in the tests). An external server's setting is read again before each pass, so
 * turning its autovacuum on or off takes effect (and is logged) at the next interval. Failures are logged, never
 * raised.
 */
export const maintenanceLoop = (options: MaintenanceLoopOptions): Effect.Effect<void, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const readAutovacuum = options.autovacuum ?? serverAutovacuum
    const modeNow = options.setting === "off" || options.embedded
      ? Effect.succeed(decideMode({ setting: options.setting, embedded: options.embedded, autovacuum: true }))
      : Effect.map(readAutovacuum, (autovacuum) => decideMode({ setting: options.setting, embedded: false, autovacuum }))
    const first = yield* modeNow.pipe(
      Effect.catchCause((cause) => Effect.sync(() => {
        logLine("error", "database maintenance: could not read the server's autovacuum setting, trying again next interval", { cause: String(cause) })
        return undefined
      })),
    )
    if (first !== undefined) logLine("info", describeMode(first), { mode: first, interval_seconds: options.intervalSeconds })
    if (first === "off") return
    let last: MaintenanceMode | undefined = first
    const tick = Effect.gen(function* () {
      const mode = yield* modeNow
      if (mode !== last) logLine("info", describeMode(mode), { mode, interval_seconds: options.intervalSeconds })
      last = mode
      if (!maintains(mode)) return
      const report = yield* maintenancePass({ ...options.pass, flushStats: options.embedded })
      options.onPass?.(report)
      yield* logPass(report)
    }).pipe(
      Effect.catchCause((cause) => Effect.sync(() => logLine("error", "database maintenance pass failed; trying again next interval", { cause: String(cause) }))),
    )
    yield* Effect.sleep(`${options.intervalSeconds} seconds`)
    yield* tick.pipe(Effect.repeat(Schedule.spaced(`${options.intervalSeconds} seconds`)))
  })

/** Runs the maintenance loop in the background of a worker process (see the module header). */
export const DbMaintenanceLive: Layer.Layer<never, never, SqlClient.SqlClient | Database | AppConfig> = Layer.effectDiscard(
  Effect.gen(function* () {
    const config = yield* AppConfig
    const db = yield* Database
    yield* maintenanceLoop({
      setting: config.dbMaintenance?.setting ?? "auto",
      embedded: db.embedded,
      intervalSeconds: config.dbMaintenance?.intervalSeconds ?? DEFAULT_DB_MAINTENANCE_SECONDS,
    }).pipe(Effect.forkScoped)
  }),
)
