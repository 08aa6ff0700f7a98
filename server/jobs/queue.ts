/**
 * Background jobs on pg-boss 12 in the application database (schema `pgboss`), shared by any number of
 * API and worker processes.
 *
 * - `defineJob(name, schema, handler, options?)` declares a job: its payload schema (effect/Schema, JSON
 *   encoded into the job row), its Effect handler, its queue policy (retries, expiry). Register a job by
 *   adding it to `server/jobs/registry.ts`.
 * - `JobQueue` (service) starts pg-boss, makes sure every registered queue exists, and offers `send`,
 *   which validates and encodes the payload before enqueuing. Delivery is at-least-once: handlers must
 *   be idempotent.
 * - The worker loop that runs handlers lives in `server/jobs/worker.ts`.
 *
 * Pool size: `Database.bossPoolSize`, so that embedded mode stays within the PGlite socket limit.
 * Errors: `JobQueueError` (start, queue creation, send) and `JobPayloadInvalid` (payload fails its schema).
 */
import { PgBoss } from "pg-boss"
import { Context, Data, Effect, Layer, Redacted, Schema } from "effect"
import type { PgClient } from "@effect/sql-pg"
import { SqlClient } from "effect/sql"
import type { AppConfig } from "../config.ts"
import { Database } from "../db/client.ts"
import { logLine } from "../log.ts"

export class JobQueueError extends Data.TaggedError("JobQueueError")<{ readonly message: string; readonly cause?: unknown }> {}

export class JobPayloadInvalid extends Data.TaggedError("JobPayloadInvalid")<{ readonly job: string; readonly message: string }> {}

/** What a running handler knows about its job. `signal` aborts when the job expires or the worker stops. */
export interface JobContext {
  readonly id: string
  readonly name: string
  readonly retryCount: number
  readonly signal: AbortSignal
}

/** Queue policy, applied when the queue is created or updated at start. */
export interface JobQueueOptions {
  /** Retries after the first failure (pg-boss default 2). */
  readonly retryLimit?: number
  readonly retryDelaySeconds?: number
  readonly retryBackoff?: boolean
  /** With `retryBackoff`: the longest delay between two attempts (default: no limit). */
  readonly retryDelayMaxSeconds?: number
  /** How long one attempt may run before it is failed and retried (pg-boss default 900). */
  readonly expireInSeconds?: number
  /**
   * A running attempt's worker refreshes the job's heartbeat every half of this; an attempt whose heartbeat is older
   * than this (its process died: kill -9, OOM, power loss) is failed by the supervising processes' next pass and
   * retried per the policy, long before `expireInSeconds`. Minimum 10 (pg-boss).
   */
  readonly heartbeatSeconds?: number
  /** How long finished jobs are kept. */
  readonly deleteAfterSeconds?: number
}

export interface JobWorkOptions {
  /** Handlers of this job running at once in one worker process. */
  readonly localConcurrency?: number
  readonly pollingIntervalSeconds?: number
  /**
   * Also worked by processes that serve the API without a worker loop (`npm run api`): light I/O jobs that must not
   * wait for a worker process to exist, such as mail delivery. Worker processes work every job anyway.
   */
  readonly inApiProcesses?: boolean
  /**
   * Called once when a process starts working this job, before its first job: warms what the first job would otherwise
   * wait for (the AWS scanner thread and its SDK modules), so the first scan after a worker starts runs at full speed.
   * Must not throw and must not keep the process alive.
   */
  readonly prepare?: () => void
}

/** Services every job handler may use; the worker provides them. */
export type JobServices = SqlClient.SqlClient | PgClient.PgClient | AppConfig | Database | JobQueue

export interface JobDefinition<Name extends string = string, A = any, R = any> {
  readonly name: Name
  /** Payload schema; the payload is stored as its JSON encoding (`Schema.toCodecJson`). */
  readonly schema: Schema.Codec<A, unknown>
  readonly handler: (payload: A, job: JobContext) => Effect.Effect<void, unknown, R>
  readonly queue: JobQueueOptions
  readonly work: JobWorkOptions
}

export type AnyJob = JobDefinition<string, any, JobServices>

const JOB_NAME = /^[a-z][a-z0-9._-]{0,63}$/

/**
 * Declares a job. Names are lowercase, dotted by area (`scans.run-service`, `mail.send`).
 * The handler fails (or dies) to have pg-boss retry the job per `options.queue`.
 */
export const defineJob = <const Name extends string, S extends Schema.Codec<any, any>, R extends JobServices = never>(
  name: Name,
  schema: S,
  handler: (payload: S["Type"], job: JobContext) => Effect.Effect<void, unknown, R>,
  options?: { readonly queue?: JobQueueOptions; readonly work?: JobWorkOptions },
): JobDefinition<Name, S["Type"], R> => {
  if (!JOB_NAME.test(name)) throw new Error(`invalid job name ${JSON.stringify(name)}: use lowercase letters, digits, ".", "_" or "-"`)
  return { name, schema: schema as unknown as Schema.Codec<S["Type"], unknown>, handler, queue: options?.queue ?? {}, work: options?.work ?? {} }
}

/** Job rows carry `{ payload: <JSON encoding> }` (pg-boss needs an object). */
interface JobData {
  readonly payload: unknown
}

const jsonCodec = (job: AnyJob) => Schema.toCodecJson(job.schema as Schema.Codec<unknown, unknown>)

export const encodePayload = (job: AnyJob, payload: unknown): Effect.Effect<JobData, JobPayloadInvalid> =>
  Schema.encodeUnknownEffect(jsonCodec(job))(payload).pipe(
    Effect.map((encoded) => ({ payload: encoded })),
    Effect.mapError((error) => new JobPayloadInvalid({ job: job.name, message: error.message })),
  )

export const decodePayload = (job: AnyJob, data: unknown): Effect.Effect<unknown, JobPayloadInvalid> =>
  Schema.decodeUnknownEffect(jsonCodec(job))((data as JobData | null)?.payload).pipe(
    Effect.mapError((error) => new JobPayloadInvalid({ job: job.name, message: error.message })),
  )

const queueSettings = (options: JobQueueOptions) => ({
  ...(options.retryLimit !== undefined ? { retryLimit: options.retryLimit } : {}),
  ...(options.retryDelaySeconds !== undefined ? { retryDelay: options.retryDelaySeconds } : {}),
  ...(options.retryBackoff !== undefined ? { retryBackoff: options.retryBackoff } : {}),
  ...(options.retryDelayMaxSeconds !== undefined ? { retryDelayMax: options.retryDelayMaxSeconds } : {}),
  ...(options.expireInSeconds !== undefined ? { expireInSeconds: options.expireInSeconds } : {}),
  ...(options.deleteAfterSeconds !== undefined ? { deleteAfterSeconds: options.deleteAfterSeconds } : {}),
  ...(options.heartbeatSeconds !== undefined ? { heartbeatSeconds: options.heartbeatSeconds } : {}),
})

/**
 * How often a supervising process (every worker) fails attempts whose heartbeat or lease ran out, and refreshes the
 * queue statistics (pg-boss defaults: 60 s each). With a queue's `heartbeatSeconds` of 15 a dead worker's job is
 * retried within about 15 + 15 + the retry delay seconds.
 */
export const SUPERVISE_INTERVAL_SECONDS = 15

export interface SendOptions {
  /** Run no earlier than this many seconds from now. */
  readonly startAfterSeconds?: number
  /** At most one queued job per key (pg-boss singletonKey). */
  readonly singletonKey?: string
  readonly priority?: number
}

export interface JobQueueShape {
  readonly boss: PgBoss
  readonly jobs: ReadonlyArray<AnyJob>
  /**
   * Validates + encodes the payload and enqueues it through the caller's `SqlClient`, so inside
   * `sql.withTransaction` the job is inserted in that transaction: it exists only if the transaction
   * commits, and (embedded database) no second connection is needed while the transaction holds the
   * session. Returns the job id (null when a singleton already exists).
   */
  readonly send: <A>(
    job: JobDefinition<string, A, any>,
    payload: A,
    options?: SendOptions,
  ) => Effect.Effect<string | null, JobQueueError | JobPayloadInvalid, SqlClient.SqlClient>
}

export interface JobQueueLayerOptions {
  /** Jobs whose queues must exist (normally the registry). */
  readonly jobs: ReadonlyArray<AnyJob>
  /** Run pg-boss maintenance (expiry, retention, monitoring) in this process; worker processes do. */
  readonly supervise: boolean
}

/** Starts pg-boss on `url` (installing or upgrading its schema when needed) and creates the queues. */
export const startBoss = async (url: string, options: { readonly poolSize: number; readonly supervise: boolean; readonly jobs: ReadonlyArray<AnyJob> }): Promise<PgBoss> => {
  const boss = new PgBoss({
    connectionString: url,
    max: options.poolSize,
    application_name: "cloud-audit-jobs",
    supervise: options.supervise,
    superviseIntervalSeconds: SUPERVISE_INTERVAL_SECONDS,
    monitorIntervalSeconds: SUPERVISE_INTERVAL_SECONDS,
    schedule: false,
    migrate: true,
  })
  boss.on("error", (error: Error) => logLine("error", "job queue error", { error: error.message }))
  boss.on("warning", (warning: { message: string; data: object }) => logLine("warn", "job queue warning", { warning: warning.message, data: warning.data }))
  await boss.start()
  try {
    for (const job of options.jobs) {
      const settings = queueSettings(job.queue)
      await boss.createQueue(job.name, settings)
      if (Object.keys(settings).length > 0) await boss.updateQueue(job.name, settings)
      // Puts the queue into pg-boss's queue cache now (a cache miss during `send` would query on
      // pg-boss's own pool, which inside a caller's transaction waits for that transaction on PGlite).
      await boss.deleteJob(job.name, "00000000-0000-0000-0000-000000000000")
    }
  } catch (error) {
    await boss.stop({ graceful: false, close: true }).catch(() => undefined)
    throw error
  }
  return boss
}

/**
 * Wakes this process's workers of queue `name` so they fetch now instead of at their next poll. Jobs are created
 * in the caller's transaction, so callers wake after the commit (`JobQueueShape.send` and `enqueueInTransaction` do).
 * Workers in other processes find the job at their next poll (every 2 s for the app's queues). pg-boss's LISTEN/NOTIFY
 * is not used: the embedded database's bridge cannot route notifications (server/db/pglite-bridge.ts).
 */
export const wakeLocalWorkers = (boss: PgBoss, name: string): void => {
  // Busy workers too: a worker woken while it runs a job fetches again right after it instead of sleeping.
  for (const worker of boss.getWipData()) {
    if (worker.name === name) boss.notifyWorker(worker.id)
  }
}

/** Seconds pg-boss waits for running handlers when the process stops. */
export const STOP_TIMEOUT_MS = 15_000

export class JobQueue extends Context.Service<JobQueue, JobQueueShape>()("app/server/jobs/JobQueue") {
  static readonly layer = (options: JobQueueLayerOptions): Layer.Layer<JobQueue, JobQueueError, Database> =>
    Layer.effect(
      JobQueue,
      Effect.gen(function* () {
        const db = yield* Database
        const boss = yield* Effect.acquireRelease(
          Effect.tryPromise({
            try: () => startBoss(Redacted.value(db.url), { poolSize: db.bossPoolSize, supervise: options.supervise, jobs: options.jobs }),
            catch: (cause) => new JobQueueError({ message: `job queue failed to start: ${(cause as Error).message ?? String(cause)}`, cause }),
          }),
          (boss) =>
            Effect.promise(() => boss.stop({ graceful: true, timeout: STOP_TIMEOUT_MS, close: true })).pipe(
              Effect.tap(() => Effect.sync(() => logLine("info", "job queue stopped"))),
            ),
        )
        logLine("info", "job queue started", { queues: options.jobs.map((j) => j.name) })
        const known = new Set(options.jobs.map((j) => j.name))
        return {
          boss,
          jobs: options.jobs,
          send: (job, payload, sendOptions) =>
            Effect.gen(function* () {
              if (!known.has(job.name)) {
                return yield* new JobQueueError({ message: `job ${job.name} is not registered in server/jobs/registry.ts` })
              }
              const data = yield* encodePayload(job as AnyJob, payload)
              const sql = yield* SqlClient.SqlClient
              // The caller's context carries its transaction connection, if any.
              const runSql = Effect.runPromiseWith(yield* Effect.context<SqlClient.SqlClient>())
              const db = {
                executeSql: (text: string, values?: Array<unknown>) =>
                  runSql(sql.unsafe<Record<string, unknown>>(text, (values ?? []) as Array<never>)).then((rows) => ({ rows: [...rows] })),
              }
              const id = yield* Effect.tryPromise({
                try: () =>
                  boss.send(job.name, data, {
                    db,
                    ...(sendOptions?.startAfterSeconds !== undefined ? { startAfter: sendOptions.startAfterSeconds } : {}),
                    ...(sendOptions?.singletonKey !== undefined ? { singletonKey: sendOptions.singletonKey } : {}),
                    ...(sendOptions?.priority !== undefined ? { priority: sendOptions.priority } : {}),
                  }),
                catch: (cause) => new JobQueueError({ message: `could not enqueue ${job.name}: ${(cause as Error).message ?? String(cause)}`, cause }),
              })
              if (id !== null && (sendOptions?.startAfterSeconds ?? 0) <= 0) yield* sql.afterCommit(Effect.sync(() => wakeLocalWorkers(boss, job.name)))
              return id
            }),
        } satisfies JobQueueShape
      }),
    )
}
