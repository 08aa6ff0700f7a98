/**
 * The orphan sweeper: no scan stays running forever.
 *
 * `sweepOrphans()` looks at every open service row of every open scan (a read-only system scope, migration 0003) and
 * fails the ones nobody will finish, with a reason, then rolls their scans up:
 * - the service's pg-boss job has ended (completed, failed after its retries, cancelled) or no longer exists, while
 *   the row is still pending/running → "The worker running this service stopped without finishing it";
 * - the scan is older than MAX_SCAN_SECONDS → "The scan did not finish in time".
 * A job still created/retry/active is left alone: pg-boss itself retries an attempt whose worker died once the job's
 * heartbeat is JOB_HEARTBEAT_SECONDS old (./jobs.ts; every worker process supervises, every SUPERVISE_INTERVAL_SECONDS),
 * so a dead worker's service is running again within a minute; only when that retry is the last one and fails too does
 * the job end and the sweeper fail the row. Single-flight: the sweep holds a transaction-level advisory lock; a concurrent sweep
 * returns at once. Updates run in each scan's own workspace scope, locking the scan row then the service row.
 *
 * `sweepChain` is the `scans.sweep` job: one chain per scan, started with the scan, re-scheduled every
 * SWEEP_INTERVAL_SECONDS while that scan is open. Any living chain sweeps everything.
 */
import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { ScanningServerMessages } from "../../src/contracts/messages.ts"
import { inScope, setScope } from "../auth/rls.ts"
import { JobQueue, type JobDefinition } from "../jobs/queue.ts"
import { logLine } from "../log.ts"
import { RUN_SERVICE_JOB } from "./run-service.ts"
import { lockScan, rollUpScan } from "./scans-store.ts"
import { transactionDb, warmQueueCache } from "./transactional-enqueue.ts"

export const SweepPayload = Schema.Struct({ workspace_id: Schema.Int, scan_id: Schema.Int })
export type SweepPayload = typeof SweepPayload.Type

export const SWEEP_INTERVAL_SECONDS = 60
/** No scan runs longer than this; past it, its open services are failed. */
export const MAX_SCAN_SECONDS = 6 * 3600
const SWEEPER_LOCK = "cloud-audit:scan-sweeper"

const JOB_ENDED = new Set(["completed", "failed", "cancelled"])

export interface SweepReport {
  readonly skipped: boolean
  readonly examined: number
  readonly failed: ReadonlyArray<{ readonly scanServiceId: number; readonly reason: string }>
}

interface OpenService {
  readonly id: number
  readonly workspace_id: number
  readonly scan_id: number
  readonly job_id: string | null
  readonly age_seconds: number
}

export const sweepOrphans = (options: { readonly maxScanSeconds?: number } = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const queue = yield* JobQueue
    const maxAge = options.maxScanSeconds ?? MAX_SCAN_SECONDS
    yield* warmQueueCache([RUN_SERVICE_JOB])
    return yield* sql.withTransaction(
      Effect.gen(function* () {
        const locked = yield* sql<{ ok: boolean }>`SELECT pg_try_advisory_xact_lock(hashtext(${SWEEPER_LOCK})) AS ok`
        if (locked[0]?.ok !== true) return { skipped: true, examined: 0, failed: [] } satisfies SweepReport
        yield* setScope({})
        yield* sql`SELECT set_config('app.system_scope', 'scan-sweeper', true)`
        const open = yield* sql<OpenService>`
          SELECT ss.id, ss.workspace_id, ss.scan_id, ss.job_id,
                 extract(epoch FROM (now() - s.scan_start))::float8 AS age_seconds
          FROM scan_services ss JOIN scans s ON s.id = ss.scan_id
          WHERE ss.status IN ('pending', 'running') AND s.status IN ('pending', 'running')
          ORDER BY ss.scan_id, ss.id`
        // Open scans without an open service (a roll-up that never happened) are rolled up too.
        const stuck = yield* sql<{ id: number; workspace_id: number }>`
          SELECT s.id, s.workspace_id FROM scans s
          WHERE s.status IN ('pending', 'running')
            AND NOT EXISTS (SELECT 1 FROM scan_services ss WHERE ss.scan_id = s.id AND ss.status IN ('pending', 'running'))`
        yield* sql`SELECT set_config('app.system_scope', '', true)`

        // Job states, read on this transaction's connection as the login role (the API role cannot read pgboss).
        yield* sql`SELECT set_config('role', 'none', true)`
        const db = yield* transactionDb
        const reasons = new Map<number, string>()
        for (const service of open) {
          if (service.age_seconds >= maxAge) reasons.set(service.id, ScanningServerMessages.scanTimedOut)
          else if (service.job_id !== null) {
            const jobId = service.job_id
            const job = yield* Effect.tryPromise(() => queue.boss.getJobById(RUN_SERVICE_JOB, jobId, { db })).pipe(Effect.orDie)
            if (job === null || JOB_ENDED.has(job.state)) reasons.set(service.id, ScanningServerMessages.workerLost)
          }
        }

        const failed: Array<{ scanServiceId: number; reason: string }> = []
        for (const service of open) {
          const reason = reasons.get(service.id)
          if (reason === undefined) continue
          yield* setScope({ workspaceId: service.workspace_id })
          const status = yield* lockScan(service.workspace_id, service.scan_id)
          if (status !== "pending" && status !== "running") continue
          const updated = yield* sql`
            UPDATE scan_services SET status = 'failed', error = ${reason}, last_scanned_at = now()
            WHERE workspace_id = ${service.workspace_id} AND id = ${service.id} AND status IN ('pending', 'running')
            RETURNING id`
          if (updated.length > 0) failed.push({ scanServiceId: service.id, reason })
          yield* rollUpScan(service.workspace_id, service.scan_id)
        }
        for (const scan of stuck) {
          yield* setScope({ workspaceId: scan.workspace_id })
          yield* lockScan(scan.workspace_id, scan.id)
          yield* rollUpScan(scan.workspace_id, scan.id)
        }
        if (failed.length > 0) logLine("warn", "scan sweeper failed orphaned services", { count: failed.length, services: failed })
        return { skipped: false, examined: open.length, failed } satisfies SweepReport
      }),
    )
  })

/** The `scans.sweep` job: sweep, then come back later while this chain's scan is still open. */
export const sweepChain = (payload: SweepPayload, self: JobDefinition<string, SweepPayload, any>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const queue = yield* JobQueue
    yield* sweepOrphans()
    const rows = yield* inScope({ workspaceId: payload.workspace_id })(
      sql<{ status: string }>`SELECT status FROM scans WHERE workspace_id = ${payload.workspace_id} AND id = ${payload.scan_id}`,
    )
    const status = rows[0]?.status
    if (status === "pending" || status === "running") {
      yield* queue.send(self, payload, { startAfterSeconds: SWEEP_INTERVAL_SECONDS })
    }
  })
