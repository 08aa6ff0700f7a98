/**
 * Database access: ONE driver (@effect/sql-pg) and one code path for both deployments.
 *
 * - DATABASE_URL set: connect to that PostgreSQL.
 * - DATABASE_URL unset (embedded mode): start PGlite persisted under DATA_DIR/pgdata, expose it on
 *   127.0.0.1 (free port) through `PgliteBridge` (./pglite-bridge.ts: one transaction or statement cycle
 *   at a time, so concurrent connections cannot corrupt each other's extended-protocol state, which
 *   pglite-socket's server does not guarantee), and connect the same PgClient to it, in-process (an
 *   in-memory stream per connection, `Database.connect`: no loopback socket per statement). pg-boss
 *   connects to the same bridge through its port (see `Database.url`).
 *
 * Invariants: the bridge's `maxConnections` (EMBEDDED_MAX_CONNECTIONS) is far above the sum of all pools
 * opened on it (Effect pool + pg-boss pool, see the *_POOL constants). A connection that keeps the shared
 * session idle inside a transaction while others wait is terminated after IDLE_IN_TRANSACTION_TIMEOUT_MS
 * (logged as a warning), so one forgotten transaction cannot stall the whole process. Only one process may open
 * DATA_DIR/pgdata at a time (PGlite is single-process), enforced with DATA_DIR/pgdata.lock.
 *
 * Errors: `DatabaseStartError` (embedded database could not start, or is in use by another process).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Duplex } from "node:stream"
import { PGlite } from "@electric-sql/pglite"
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm"
import { PgClient } from "@effect/sql-pg"
import { Context, Data, Effect, Layer, Redacted } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { AppConfig } from "../config.ts"
import { logLine } from "../log.ts"
import { PgliteBridge } from "./pglite-bridge.ts"

/** Connections the embedded socket server accepts (connections are cheap: queries are serialised anyway). */
export const EMBEDDED_MAX_CONNECTIONS = 64
/** Effect SQL pool size per process. */
export const SQL_POOL_EMBEDDED = 8
export const SQL_POOL_EXTERNAL = 10
/** pg-boss pool size per process (server/jobs/queue.ts). */
export const BOSS_POOL_EMBEDDED = 4
export const BOSS_POOL_EXTERNAL = 5

export class DatabaseStartError extends Data.TaggedError("DatabaseStartError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

export interface EmbeddedPostgres {
  /** postgres://postgres:postgres@127.0.0.1:<port>/postgres */
  readonly url: string
  readonly port: number
  /** A new in-process connection to the bridge (the wire protocol over an in-memory stream, no socket). */
  connect(): Duplex
  close(): Promise<void>
}

const isAlive = (pid: number): boolean => {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

const acquireLock = (lockFile: string): void => {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lockFile, String(process.pid), { flag: "wx" })
      return
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
      const owner = Number(readFileSync(lockFile, "utf8").trim())
      if (owner !== process.pid && isAlive(owner)) {
        throw new Error(
          `the embedded database is in use by process ${owner} (${lockFile}); run api and worker in one process with "npm start", or set DATABASE_URL to run them separately`,
        )
      }
      rmSync(lockFile, { force: true }) // stale lock from a crashed process
    }
  }
  throw new Error(`could not take the embedded database lock ${lockFile}`)
}

/**
 * Starts PGlite behind a Postgres wire-protocol socket on 127.0.0.1 and a free port.
 * `dataDir` undefined = in memory (tests); otherwise `<dataDir>/pgdata`, locked against other processes.
 */
export const startEmbeddedPostgres = async (options: {
  readonly dataDir: string | undefined
  readonly maxConnections?: number
  /** See `PgliteBridgeOptions.idleInTransactionTimeoutMs` (default IDLE_IN_TRANSACTION_TIMEOUT_MS). */
  readonly idleInTransactionTimeoutMs?: number
}): Promise<EmbeddedPostgres> => {
  let lockFile: string | undefined
  let dataPath = "memory://"
  if (options.dataDir !== undefined) {
    mkdirSync(options.dataDir, { recursive: true })
    lockFile = join(options.dataDir, "pgdata.lock")
    acquireLock(lockFile)
    dataPath = join(options.dataDir, "pgdata")
  }
  let db: PGlite | undefined
  try {
    // pg_trgm: the findings list's resource search index (migration 0017).
    db = await PGlite.create(dataPath, { extensions: { pg_trgm } })
    const server = new PgliteBridge(db, {
      host: "127.0.0.1",
      port: 0,
      maxConnections: options.maxConnections ?? EMBEDDED_MAX_CONNECTIONS,
      ...(options.idleInTransactionTimeoutMs !== undefined ? { idleInTransactionTimeoutMs: options.idleInTransactionTimeoutMs } : {}),
      onIdleTermination: ({ idleMs, waiting }) =>
        logLine("warn", "embedded database: terminated a connection idle in a transaction while others waited", { idle_ms: idleMs, waiting }),
    })
    const port = await server.start()
    const pglite = db
    let closing: Promise<void> | undefined
    return {
      url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
      port,
      connect: () => server.connect(),
      close: () =>
        (closing ??= (async () => {
          try {
            await server.stop()
          } finally {
            try {
              if (!pglite.closed) await pglite.close()
            } finally {
              if (lockFile !== undefined) rmSync(lockFile, { force: true })
            }
          }
        })()),
    }
  } catch (error) {
    if (db !== undefined && !db.closed) await db.close().catch(() => undefined)
    if (lockFile !== undefined) rmSync(lockFile, { force: true })
    throw error
  }
}

export interface DatabaseShape {
  /** The effective connection URL (DATABASE_URL, or the embedded socket server's URL). */
  readonly url: Redacted.Redacted<string>
  readonly embedded: boolean
  /** Embedded mode: opens an in-process connection (used by this process's SQL pool instead of the URL's port). */
  readonly connect?: (() => Duplex) | undefined
  /** Pool sizes for this process, chosen so that embedded mode stays within EMBEDDED_MAX_CONNECTIONS. */
  readonly sqlPoolSize: number
  readonly bossPoolSize: number
}

/** Where the database is. Releasing the layer stops the embedded database (after every pool using it). */
export class Database extends Context.Service<Database, DatabaseShape>()("app/server/db/Database") {
  static readonly layer: Layer.Layer<Database, DatabaseStartError, AppConfig> = Layer.effect(
    Database,
    Effect.gen(function* () {
      const config = yield* AppConfig
      if (config.databaseUrl !== undefined) {
        return { url: config.databaseUrl, embedded: false, sqlPoolSize: SQL_POOL_EXTERNAL, bossPoolSize: BOSS_POOL_EXTERNAL }
      }
      const started = Date.now()
      const embedded = yield* Effect.acquireRelease(
        Effect.tryPromise({
          try: () => startEmbeddedPostgres({ dataDir: config.dataDir }),
          catch: (cause) =>
            new DatabaseStartError({ message: `embedded database failed to start: ${(cause as Error).message ?? String(cause)}`, cause }),
        }),
        (db) =>
          Effect.promise(() => db.close()).pipe(
            Effect.tap(() => Effect.sync(() => logLine("info", "embedded database stopped"))),
          ),
      )
      logLine("info", "embedded database started", {
        data_dir: join(config.dataDir, "pgdata"),
        port: embedded.port,
        ms: Date.now() - started,
      })
      return { url: Redacted.make(embedded.url), embedded: true, connect: embedded.connect, sqlPoolSize: SQL_POOL_EMBEDDED, bossPoolSize: BOSS_POOL_EMBEDDED }
    }),
  )

  /** A fixed database URL (tests). */
  static readonly layerUrl = (url: string): Layer.Layer<Database> =>
    Layer.succeed(Database, { url: Redacted.make(url), embedded: false, sqlPoolSize: SQL_POOL_EXTERNAL, bossPoolSize: BOSS_POOL_EXTERNAL })
}

/** The effective connection URL, for clients other than Effect's (pg-boss). */
export const effectiveDatabaseUrl: Effect.Effect<string, never, Database> = Effect.map(Database, (db) => Redacted.value(db.url))

/** @effect/sql-pg client on the `Database` URL; provides `SqlClient` (effect/sql) and `PgClient`. */
export const SqlLive: Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, SqlError, Database> = Layer.unwrap(
  Effect.map(Database, (db) =>
    PgClient.layer({
      url: db.url,
      ...(db.connect === undefined ? {} : { stream: db.connect }),
      maxConnections: db.sqlPoolSize,
      applicationName: "cloud-audit",
      connectTimeout: "10 seconds",
    }),
  ),
)

/** Database + SQL client, from the configuration. */
export const DbLive: Layer.Layer<Database | PgClient.PgClient | SqlClient.SqlClient, DatabaseStartError | SqlError, AppConfig> =
  SqlLive.pipe(Layer.provideMerge(Database.layer))
