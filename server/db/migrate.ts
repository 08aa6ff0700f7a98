/**
 * Applies `server/db/migrations` with effect/sql's Migrator (table `effect_sql_migrations`; on PostgreSQL the
 * Migrator takes an ACCESS EXCLUSIVE lock, so concurrent starts apply each migration once). Idempotent:
 * a second run applies nothing.
 *
 * Errors: `MigrationError` from the Migrator, `SqlError`, and `MigrationsOutOfOrder` when a registered
 * migration is numbered below the latest applied one (the Migrator would silently skip it forever).
 */
import { Data, Effect } from "effect"
import { SqlClient } from "effect/sql"
import * as Migrator from "effect/sql/Migrator"
import type { SqlError } from "effect/sql/SqlError"
import { migrations } from "./migrations/index.ts"

export const MIGRATIONS_TABLE = "effect_sql_migrations"

export class MigrationsOutOfOrder extends Data.TaggedError("MigrationsOutOfOrder")<{ readonly message: string }> {}

export class MigrationsPending extends Data.TaggedError("MigrationsPending")<{ readonly message: string }> {}

const registered = (): ReadonlyArray<readonly [id: number, name: string]> =>
  Object.keys(migrations)
    .flatMap((key) => {
      const match = /^(\d+)_(.+)$/.exec(key)
      return match === null ? [] : [[Number(match[1]), match[2]!] as const]
    })
    .sort((a, b) => a[0] - b[0])

const appliedIds = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const exists = yield* sql<{ exists: boolean }>`SELECT to_regclass(${MIGRATIONS_TABLE}) IS NOT NULL AS exists`
  if (exists[0]?.exists !== true) return new Set<number>()
  const rows = yield* sql<{ migration_id: number }>`SELECT migration_id FROM ${sql(MIGRATIONS_TABLE)}`
  return new Set(rows.map((r) => Number(r.migration_id)))
})

const runMigrator = Migrator.make({})({ loader: Migrator.fromRecord(migrations), table: MIGRATIONS_TABLE })

/** Applies pending migrations; returns those applied now (`[]` when the schema was up to date). */
export const runMigrations: Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  Migrator.MigrationError | SqlError | MigrationsOutOfOrder,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const applied = yield* runMigrator
  const ids = yield* appliedIds
  const skipped = registered().filter(([id]) => !ids.has(id))
  if (skipped.length > 0) {
    const names = skipped.map(([id, name]) => `${String(id).padStart(4, "0")}_${name}`).join(", ")
    return yield* new MigrationsOutOfOrder({
      message: `migration(s) ${names} are numbered below the latest applied migration and were not applied; renumber them after ${Math.max(...ids)}`,
    })
  }
  return applied
})

/** Registered migrations not yet applied (for processes that must not migrate themselves). */
export const pendingMigrations: Effect.Effect<ReadonlyArray<string>, SqlError, SqlClient.SqlClient> = Effect.map(
  appliedIds,
  (ids) => registered().filter(([id]) => !ids.has(id)).map(([id, name]) => `${String(id).padStart(4, "0")}_${name}`),
)

/** Fails with `MigrationsPending` unless every registered migration is applied. */
export const requireMigrated: Effect.Effect<void, MigrationsPending | SqlError, SqlClient.SqlClient> = Effect.flatMap(
  pendingMigrations,
  (pending) =>
    pending.length === 0
      ? Effect.void
      : Effect.fail(new MigrationsPending({ message: `database schema is not up to date (pending: ${pending.join(", ")}); run "npm run migrate" first` })),
)
