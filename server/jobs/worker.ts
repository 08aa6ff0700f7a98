/**
 * The worker loop: subscribes this process to every queue of `JobQueue.jobs` and runs each job's Effect
 * handler with the process's services (`JobServices`). Any number of worker processes may run; pg-boss
 * hands each job to one of them at a time (SKIP LOCKED).
 *
 * Per job: decode the payload with the job's schema, run the handler (interrupted when pg-boss aborts the
 * job: expiry or shutdown), log one line at the end (job, job_id, attempt, outcome, ms). A failure or
 * defect is logged and rethrown to pg-boss, which retries per the queue policy. An undecodable payload
 * also fails the attempt (the log names the schema error).
 *
 * Shutdown: stop fetching (offWork, waiting for running handlers), then `JobQueue` stops pg-boss.
 *
 * `WorkerLive` works every job (worker processes); `ApiWorkerLive` only the jobs marked `work.inApiProcesses` (mail),
 * in processes that serve the API without a worker loop.
 */
import { Cause, Effect, Exit, Layer } from "effect"
import type { Job, PgBoss } from "pg-boss"
import { logLine } from "../log.ts"
import { type AnyJob, decodePayload, JobQueue, JobQueueError, type JobServices } from "./queue.ts"

const DEFAULT_POLLING_SECONDS = 1
/** Slots of a queue that poll at its `pollingIntervalSeconds`; the others poll SPARE_SLOT_POLL_FACTOR times slower. */
export const POLLING_SLOTS = 2
export const SPARE_SLOT_POLL_FACTOR = 8

/**
 * Wakes one idle worker of queue `name` in this process (not `self`): called by a worker that has just fetched a job,
 * so a burst of jobs (a scan's service jobs, sent by another process) is taken up by a chain of fetches, one per
 * job, instead of waiting for each idle slot's next poll. The chain ends at the first empty fetch.
 */
export const wakeOneIdleWorker = (boss: PgBoss, name: string, self: string | undefined): void => {
  const idle = boss.getWipData().find((w) => w.name === name && w.id !== self && w.count === 0 && w.state === "active")
  if (idle !== undefined) boss.notifyWorker(idle.id)
}

const runOne = (job: AnyJob, row: Job<unknown>) =>
  Effect.gen(function* () {
    const payload = yield* decodePayload(job, row.data)
    yield* job.handler(payload, { id: row.id, name: job.name, retryCount: row.retryCount, signal: row.signal })
  }).pipe(Effect.annotateLogs({ job: job.name, job_id: row.id, attempt: row.retryCount + 1 }))

/** Works the jobs of `JobQueue.jobs` that `select` keeps (`WorkerLive`: all of them). */
export const workerLayer = (select: (job: AnyJob) => boolean): Layer.Layer<never, JobQueueError, JobServices> => Layer.effectDiscard(
  Effect.gen(function* () {
    const queue = yield* JobQueue
    const context = yield* Effect.context<JobServices>()
    const run = Effect.runPromiseExitWith(context)
    const working: Array<string> = []
    const selected = queue.jobs.filter(select)
    if (selected.length === 0) return

    yield* Effect.addFinalizer(() =>
      Effect.promise(async () => {
        logLine("info", "worker stopping", { queues: working })
        await Promise.all(working.map((name) => queue.boss.offWork(name, { wait: true }).catch(() => undefined)))
        logLine("info", "worker stopped")
      }),
    )

    for (const job of selected) {
      job.work.prepare?.()
      // One pg-boss worker per slot (localConcurrency 1 each), so each knows its own id: after a job it wakes itself
      // and fetches again at once while the queue has work; only an empty fetch waits for the next poll. A slot that
      // gets a job wakes one idle sibling (wakeOneIdleWorker), so only the first POLLING_SLOTS slots need to poll
      // often: the spare ones poll SPARE_SLOT_POLL_FACTOR times slower and are woken by the chain (or by `send` in
      // this process), which keeps an idle process's fetches low however many slots a queue has.
      const polling = job.work.pollingIntervalSeconds ?? DEFAULT_POLLING_SECONDS
      for (let slot = 0; slot < (job.work.localConcurrency ?? 1); slot++) {
        let self: string | undefined
        self = yield* Effect.tryPromise({
          try: () =>
            queue.boss.work<unknown>(
              job.name,
              { batchSize: 1, localConcurrency: 1, pollingIntervalSeconds: slot < POLLING_SLOTS ? polling : polling * SPARE_SLOT_POLL_FACTOR },
              async (rows: Array<Job<unknown>>) => {
                if (rows.length > 0) wakeOneIdleWorker(queue.boss, job.name, self)
                try {
                  for (const row of rows) {
                    const started = performance.now()
                    const exit = await run(runOne(job, row), { signal: row.signal })
                    const fields = { job: job.name, job_id: row.id, attempt: row.retryCount + 1, ms: Math.round(performance.now() - started) }
                    if (Exit.isSuccess(exit)) {
                      logLine("info", "job completed", fields)
                    } else {
                      const detail = Cause.pretty(exit.cause)
                      logLine("error", "job failed", { ...fields, cause: detail })
                      throw new Error(`${job.name} failed: ${Cause.squash(exit.cause) instanceof Error ? (Cause.squash(exit.cause) as Error).message : detail}`)
                    }
                  }
                } finally {
                  if (self !== undefined) queue.boss.notifyWorker(self)
                }
              },
            ),
          catch: (cause) => new JobQueueError({ message: `could not start working ${job.name}: ${(cause as Error).message ?? String(cause)}`, cause }),
        })
      }
      working.push(job.name)
    }
    logLine("info", "worker started", { queues: working })
  }),
)

export const WorkerLive: Layer.Layer<never, JobQueueError, JobServices> = workerLayer(() => true)

/** What a process that serves the API without a worker loop works: the jobs marked `work.inApiProcesses`. */
export const ApiWorkerLive: Layer.Layer<never, JobQueueError, JobServices> = workerLayer((job) => job.work.inApiProcesses === true)
