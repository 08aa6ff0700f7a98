/**
 * A fresh, empty database per call, for integration tests:
 *
 * - TEST_DATABASE_URL set (e.g. postgres://postgres@127.0.0.1:5432/postgres): `CREATE DATABASE` with a
 *   random name on that server; `close()` drops it (WITH (FORCE), so leftover connections do not block).
 * - otherwise (or with `{ kind: "pglite" }`): an in-memory PGlite behind pglite-socket on 127.0.0.1 and a free port; `close()` stops it.
 *
 *   const db = await makeTestDatabase()
 *   // connect anything Postgres-speaking to db.url (run migrations with `migrateTestDatabase(db.url)`)
 *   await db.close()
 */
import { randomBytes } from "node:crypto"
import { Effect, Layer, Redacted } from "effect"
import { PgClient } from "@effect/sql-pg"
import { SqlClient } from "effect/sql"
import { startEmbeddedPostgres } from "../../server/db/client.ts"
import { runMigrations } from "../../server/db/migrate.ts"

export interface TestDatabase {
  /** Connection URL of the fresh database. */
  readonly url: string
  /** "postgres" (TEST_DATABASE_URL) or "pglite". */
  readonly kind: "postgres" | "pglite"
  close(): Promise<void>
}

/** Runs `effect` with a short-lived SqlClient on `url`. */
export const withSql = <A, E>(url: string, effect: Effect.Effect<A, E, SqlClient.SqlClient>): Promise<A> =>
  Effect.runPromise(effect.pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 2 }) as Layer.Layer<SqlClient.SqlClient, unknown>)) as Effect.Effect<A>)

/** Applies every migration of server/db/migrations to the database at `url`. */
export const migrateTestDatabase = (url: string): Promise<ReadonlyArray<readonly [number, string]>> => withSql(url, runMigrations)

const withDatabase = (adminUrl: string, name: string): string => {
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.toString()
}

/**
 * `kind` forces one backend: "pglite", or "postgres" (needs TEST_DATABASE_URL). By default PostgreSQL
 * when TEST_DATABASE_URL is set, else PGlite. PGlite keeps its files in memory unless `pgliteDataDir` names a
 * directory, as `npm start` does (the benchmarks measure that).
 */
export const makeTestDatabase = async (
  options?: { readonly kind?: "postgres" | "pglite"; readonly pgliteDataDir?: string },
): Promise<TestDatabase> => {
  const adminUrl = process.env["TEST_DATABASE_URL"]
  const kind = options?.kind ?? (adminUrl === undefined || adminUrl.trim() === "" ? "pglite" : "postgres")
  if (kind === "postgres" && (adminUrl === undefined || adminUrl.trim() === "")) {
    throw new Error("makeTestDatabase({ kind: \"postgres\" }) needs TEST_DATABASE_URL")
  }
  if (kind === "pglite" || adminUrl === undefined) {
    const embedded = await startEmbeddedPostgres({ dataDir: options?.pgliteDataDir })
    return { url: embedded.url, kind: "pglite", close: () => embedded.close() }
  }
  const name = `test_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`
  await withSql(adminUrl, Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`CREATE DATABASE "${name}"`)))
  let closed: Promise<void> | undefined
  return {
    url: withDatabase(adminUrl, name),
    kind: "postgres",
    close: () =>
      (closed ??= withSql(adminUrl, Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`))).then(
        () => undefined,
      )),
  }
}
