/**
 * Enqueues pg-boss jobs INSIDE the current SQL transaction (pg-boss `insert(..., { db })` with an adapter that runs its
 * statements on this transaction's connection): the jobs exist if and only if the rows that describe them commit, so a
 * scan is never left with service rows but no jobs (or jobs for a scan that rolled back).
 *
 * Row-level security: the API's transactions run as the non-owner role `cloud_audit_app`, which has no rights on the
 * `pgboss` schema. The job rows are therefore inserted as the login role (`role = none`), and the caller's RLS scope
 * (role + settings) is re-applied right after.
 *
 * Payloads are validated and encoded with the job's own schema (server/jobs/queue.ts `encodePayload`); they carry ids
 * only, never credentials.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { setScope, type RlsScope } from "../auth/rls.ts"
import { encodePayload, JobQueue, JobQueueError, wakeLocalWorkers, type AnyJob, type JobDefinition } from "../jobs/queue.ts"

export interface EnqueueItem<A> {
  readonly payload: A
  readonly startAfterSeconds?: number
  readonly singletonKey?: string
  /** pg-boss priority: workers take higher values first (default 0). */
  readonly priority?: number
}

/**
 * A pg-boss `db` adapter that runs pg-boss's statements on the CURRENT transaction's connection. The caller must have
 * switched to the login role first (`SELECT set_config('role', 'none', true)`): the API role cannot touch `pgboss`.
 */
export const transactionDb = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const context = yield* Effect.context<never>()
  const run = Effect.runPromiseWith(context)
  return {
    executeSql: (text: string, values?: Array<unknown>) =>
      run(sql.unsafe<Record<string, unknown>>(text, values ?? [])).then((rows) => ({ rows: [...rows] })),
  }
})

/**
 * Loads pg-boss's queue cache for these jobs OUTSIDE any transaction: a cache miss makes pg-boss query through its own
 * pool, which inside one of our transactions would wait on the embedded (single-session) database forever.
 */
export const warmQueueCache = (names: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const queue = yield* JobQueue
    // getJobById fills the cache entry of its queue (the lookup itself finds nothing).
    yield* Effect.forEach(
      names,
      (name) => Effect.tryPromise(() => queue.boss.getJobById(name, "00000000-0000-4000-8000-000000000000")).pipe(Effect.ignore),
      { discard: true },
    )
  })

/** Returns the job ids, in the order given (null for a job pg-boss refused as a duplicate singleton). */
export const enqueueInTransaction = <A>(job: JobDefinition<string, A, any>, items: ReadonlyArray<EnqueueItem<A>>, scope: RlsScope) =>
  Effect.gen(function* () {
    if (items.length === 0) return [] as ReadonlyArray<string | null>
    const queue = yield* JobQueue
    const sql = yield* SqlClient.SqlClient
    const db = yield* transactionDb
    const encoded = yield* Effect.forEach(items, (item) => encodePayload(job as AnyJob, item.payload))
    const rows = items.map((item, i) => ({
      id: randomUUID(),
      data: encoded[i]!,
      ...(item.startAfterSeconds === undefined ? {} : { startAfter: item.startAfterSeconds }),
      ...(item.singletonKey === undefined ? {} : { singletonKey: item.singletonKey }),
      ...(item.priority === undefined ? {} : { priority: item.priority }),
    }))
    yield* sql`SELECT set_config('role', 'none', true)`
    const inserted = yield* Effect.tryPromise({
      try: () => queue.boss.insert(job.name, rows, { db, returnId: true }),
      catch: (cause) => new JobQueueError({ message: `could not enqueue ${job.name}: ${(cause as Error).message ?? String(cause)}`, cause }),
    })
    yield* setScope(scope)
    if (items.some((item) => (item.startAfterSeconds ?? 0) <= 0)) yield* sql.afterCommit(Effect.sync(() => wakeLocalWorkers(queue.boss, job.name)))
    const created = new Set(inserted ?? [])
    return rows.map((r) => (created.has(r.id) ? r.id : null))
  })
