/**
 * The scanning area's jobs (registered in server/jobs/registry.ts):
 * - `scans.run-service`: one per (scan, service), see ./run-service.ts. A running attempt's worker refreshes the job's
 *   heartbeat every JOB_HEARTBEAT_SECONDS / 2; the attempt of a worker that died (kill -9, OOM) is failed by the next
 *   supervising pass once its heartbeat is JOB_HEARTBEAT_SECONDS old and retried (RUN_SERVICE_RETRY_LIMIT retries,
 *   exponential backoff): picked up again within a minute, not after the RUN_SERVICE_EXPIRE_SECONDS lease. The new
 *   attempt re-claims the service row (attempts + 1); the old one, if its process is in fact alive, loses its claim
 *   (pg-boss aborts its signal, which aborts the engine) and the one-transaction completion keeps the findings single.
 * - `scans.sweep`: one chain per scan, started with the scan; finishes or fails orphaned work across all scans
 *   (single-flight, ./sweeper.ts) and re-schedules itself while its scan is open.
 * - `findings.remediate`: one per remediation request, see ./remediation.ts; same heartbeat, so a remediation whose
 *   worker died is retried (its claim accepts a 'running' row) instead of sitting 'running' for the 5-minute lease.
 * Payloads carry ids only, never credentials.
 */
import type { SqlClient } from "effect/sql"
import { defineJob, type JobDefinition, type JobQueue } from "../jobs/queue.ts"
import { prewarmScannerThread } from "../scanner/aws/scan-in-thread.ts"
import { RemediatePayload, runRemediation } from "./remediation.ts"
import { RUN_SERVICE_JOB, RUN_SERVICE_RETRY_LIMIT, RunServicePayload, runService } from "./run-service.ts"
import { SweepPayload, sweepChain } from "./sweeper.ts"

/**
 * How long one attempt of a service scan may run at most before pg-boss fails it and retries it. Every service of a scan
 * runs at once and shares the scan's limiter, so an attempt lasts about as long as the whole scan (a large account's
 * can pass 15 minutes); a worker that died is found by the heartbeat within a minute whatever this is, so the lease
 * only bounds an attempt that is alive but stuck (every cloud call times out after 60 s).
 */
export const RUN_SERVICE_EXPIRE_SECONDS = 3_600
/**
 * Service jobs one worker process runs at once (every AWS service of a scan fits; jobs mostly wait on the scan's
 * limiter, so a slot costs a promise, not a connection: claims and completions queue on the database pool).
 */
export const RUN_SERVICE_SLOTS = 64
/** Heartbeat deadline of a running scan-service or remediation attempt (see the module header). */
export const JOB_HEARTBEAT_SECONDS = 15

export const runServiceJob = defineJob(RUN_SERVICE_JOB, RunServicePayload, runService, {
  queue: { retryLimit: RUN_SERVICE_RETRY_LIMIT, retryDelaySeconds: 5, retryBackoff: true, expireInSeconds: RUN_SERVICE_EXPIRE_SECONDS, heartbeatSeconds: JOB_HEARTBEAT_SECONDS },
  // A worker starts the AWS scanner thread (and loads the SDK into it) when it starts, not on its first scan.
  // RUN_SERVICE_SLOTS service jobs at once: the scan's one limiter (SCAN_CONCURRENCY, ../scanner/aws/scan-share.ts)
  // bounds the cloud calls, not the number of jobs, so every service of a scan starts at once and a service of one
  // call does not wait for a slot behind S3's thousand.
  work: { localConcurrency: RUN_SERVICE_SLOTS, pollingIntervalSeconds: 2, prepare: prewarmScannerThread },
})

export const sweepJob: JobDefinition<"scans.sweep", SweepPayload, SqlClient.SqlClient | JobQueue> = defineJob("scans.sweep", SweepPayload, (payload) => sweepChain(payload, sweepJob), {
  queue: { retryLimit: 3, retryDelaySeconds: 30, expireInSeconds: 300 },
  work: { localConcurrency: 1, pollingIntervalSeconds: 2 },
})

export const remediateJob = defineJob("findings.remediate", RemediatePayload, runRemediation, {
  queue: { retryLimit: 1, retryDelaySeconds: 5, expireInSeconds: 300, heartbeatSeconds: JOB_HEARTBEAT_SECONDS },
  work: { localConcurrency: 2, pollingIntervalSeconds: 2 },
})

export const scanningJobs = [runServiceJob, sweepJob, remediateJob] as const
