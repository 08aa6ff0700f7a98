/**
 * Fixed-window rate limits kept in PostgreSQL (table rate_limit_buckets), so every API process shares them.
 * A bucket only ever delays (429 with the seconds until its window ends); nothing locks an account permanently.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { RateRule } from "../../auth/auth-config.ts"
import { standalone } from "../../auth/rls.ts"

export interface RateState {
  readonly allowed: boolean
  readonly retryAfterSeconds: number
  readonly hits: number
}

/** Counts one hit against `key` and answers whether it was within the rule. */
const hitUnsafe = Effect.fn("RateLimit.hit")(function* (key: string, rule: RateRule) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ hits: number; left: number }>`
    INSERT INTO rate_limit_buckets AS b (key, window_started_at, hits) VALUES (${key}, now(), 1)
    ON CONFLICT (key) DO UPDATE SET
      hits = CASE WHEN b.window_started_at + make_interval(secs => ${rule.windowSeconds}) <= now() THEN 1 ELSE b.hits + 1 END,
      window_started_at = CASE WHEN b.window_started_at + make_interval(secs => ${rule.windowSeconds}) <= now()
                               THEN now() ELSE b.window_started_at END
    RETURNING hits, ceil(extract(epoch FROM (window_started_at + make_interval(secs => ${rule.windowSeconds}) - now())))::int AS left`
  const row = rows[0]!
  return { allowed: row.hits <= rule.limit, retryAfterSeconds: Math.max(1, row.left), hits: row.hits } satisfies RateState
})
export const hit: typeof hitUnsafe = (...args) => standalone(hitUnsafe(...args))

/**
 * Answers whether each key is currently over its rule, without counting a hit, in one statement (the sign-in checks
 * five before any hashing): the states in the order of `checks`.
 */
const peekManyUnsafe = Effect.fn("RateLimit.peekMany")(function* (
  checks: ReadonlyArray<{ readonly key: string; readonly rule: RateRule }>,
) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ key: string; hits: number; started: number }>`
    SELECT key, hits, extract(epoch FROM (now() - window_started_at))::float8 AS started
    FROM rate_limit_buckets WHERE key IN ${sql.in(checks.map((c) => c.key))}`
  const byKey = new Map(rows.map((r) => [r.key, r]))
  return checks.map(({ key, rule }): RateState => {
    const row = byKey.get(key)
    const left = row === undefined ? 0 : Math.ceil(rule.windowSeconds - row.started)
    if (row === undefined || left <= 0) return { allowed: true, retryAfterSeconds: 0, hits: 0 }
    return { allowed: row.hits < rule.limit, retryAfterSeconds: Math.max(1, left), hits: row.hits }
  })
})
export const peekMany: typeof peekManyUnsafe = (...args) => standalone(peekManyUnsafe(...args))

/** `peekMany` for one key. */
export const peek = (key: string, rule: RateRule) =>
  peekMany([{ key, rule }]).pipe(Effect.map((states) => states[0]!))

/** The wait of a refusal: the longest retry of the states that are not allowed, 0 when all are. */
export const refusalWait = (...states: ReadonlyArray<RateState>): number =>
  Math.max(0, ...states.map((s) => (s.allowed ? 0 : s.retryAfterSeconds)))

const resetUnsafe = Effect.fn("RateLimit.reset")(function* (key: string) {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DELETE FROM rate_limit_buckets WHERE key = ${key}`
})
export const reset: typeof resetUnsafe = (...args) => standalone(resetUnsafe(...args))
