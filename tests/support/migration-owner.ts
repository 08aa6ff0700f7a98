/**
 * Migration tests run as production does: on PostgreSQL, as a non-superuser role that owns the database (whose own
 * rows FORCE ROW LEVEL SECURITY would otherwise hide); on PGlite, as the embedded superuser. `ownerUrl` answers the URL
 * to migrate with; `dropOwners` removes the roles made (call it in afterAll).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { withSql, type TestDatabase } from "./db.ts"

const made: Array<string> = []

export const ownerUrl = async (db: TestDatabase, prefix: string): Promise<string> => {
  if (db.kind !== "postgres") return db.url
  const owner = `${prefix}_${Date.now().toString(36)}`
  made.push(owner)
  await withSql(db.url, Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      yield* sql.unsafe(`CREATE ROLE ${owner} LOGIN CREATEROLE`)
      yield* sql.unsafe(`GRANT ALL ON DATABASE "${new URL(db.url).pathname.slice(1)}" TO ${owner}`)
      yield* sql.unsafe(`GRANT ALL ON SCHEMA public TO ${owner}`)
      yield* sql.unsafe(`ALTER SCHEMA public OWNER TO ${owner}`)
    })))
  const u = new URL(db.url)
  u.username = owner
  return u.toString()
}

export const dropOwners = async (): Promise<void> => {
  const admin = process.env["TEST_DATABASE_URL"]
  if (admin === undefined || admin === "") return
  for (const role of made.splice(0)) await withSql(admin, Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`DROP ROLE IF EXISTS ${role}`)))
}
