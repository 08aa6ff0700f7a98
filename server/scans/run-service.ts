/**
 * The per-(scan, service) job: claim the service row, open the account's credentials in memory, run the provider's engine
 * (AWS `scanService` in the scanner thread, GCP `scanGcpService`, Azure `scanAzureService`: collectors once per service, pure checks), write
 * the findings and roll the counts up to the scan.
 *
 * Idempotent (pg-boss delivers at least once):
 * - the claim is refused when the service or its scan is already finished (a re-delivered job changes nothing);
 * - findings and the service's completion are written in ONE transaction, with `ON CONFLICT (scan_id, check_id) DO
 *   NOTHING`, after locking the scan row then the service row: of two deliveries racing, the second finds the service
 *   completed and writes nothing.
 * Failures:
 * - unusable credentials (the engine's ScanSetupError invalid_credentials/access_denied/invalid_input/unknown_service)
 *   fail the service at once, with the reason: retrying cannot help;
 * - anything else (endpoint unreachable, a crash) fails the attempt so pg-boss retries it with backoff; the last attempt
 *   marks the service failed. One failing service never fails the others; the scan rolls up from its services.
 * While it runs, the job refreshes `heartbeat_at` and watches the scan, one statement per scan for all its jobs in this
 * process (./scan-watch.ts): a canceled scan aborts the engine's calls.
 *
 * Lock order everywhere in this area: scan row, then service rows (no deadlock with cancel or the sweeper).
 */
import { Config, Effect, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { inScope } from "../auth/rls.ts"
import { AppConfig } from "../config.ts"
import type { JobContext } from "../jobs/queue.ts"
import { logLine } from "../log.ts"
import { ScanSetupError, type ScanServiceResult } from "../scanner/aws/scan-service.ts"
import { scanServiceInThread } from "../scanner/aws/scan-in-thread.ts"
import { scanAzureService } from "../scanner/azure/scan-service.ts"
import { scanGcpService } from "../scanner/gcp/scan-service.ts"
import { openCredentials } from "../accounts/credential-vault.ts"
import { toFindingDraft } from "./finding-rows.ts"
import { writeFindings } from "./results.ts"
import { fixTargetFor, type FixTarget } from "./fixers.ts"
import { SERVICE_COUNTS_SET_SQL, SERVICE_COUNTS_SQL } from "../posture/algebra.ts"
import { applyMutes } from "../posture/mutes.ts"
import { lockScan, rollUpScan } from "./scans-store.ts"
import { ScanningTexts } from "./texts.ts"
import { ScanWatch } from "./scan-watch.ts"

export const RunServicePayload = Schema.Struct({
  workspace_id: Schema.Int,
  scan_id: Schema.Int,
  scan_service_id: Schema.Int,
})
export type RunServicePayload = typeof RunServicePayload.Type

export const RUN_SERVICE_JOB = "scans.run-service"

/** Retries after the first failed attempt (pg-boss retryLimit of the queue). */
export const RUN_SERVICE_RETRY_LIMIT = 2
/** How often a running job proves it is alive and checks for cancellation. */
export const HEARTBEAT_MS = 3_000

const isOpen = (status: string | undefined) => status === "pending" || status === "running"

/**
 * Scanner knob from the environment: SCAN_CONCURRENCY, the cloud API calls one scan keeps in flight in one worker
 * process (default 16), shared by the scan's service jobs there (server/scanner/aws/scan-share.ts).
 */
export const scanConcurrency = Config.option(Config.Int("SCAN_CONCURRENCY")).pipe(
  Effect.map((o) => Math.min(64, Math.max(1, Option.getOrElse(o, () => 16)))),
  Effect.orElseSucceed(() => 16),
)

/**
 * PRINCIPAL_API_CONCURRENCY: the GCP / Azure API calls in flight per principal and per cloud API in one worker process
 * (default 32, 1-256), whatever the number of scans signed in as it: an organisation's member scans share its service
 * account or app registration, hence its quotas (server/scanner/rest/principal-gate.ts).
 */
export const principalApiConcurrency = Config.option(Config.Int("PRINCIPAL_API_CONCURRENCY")).pipe(
  Effect.map((o) => Math.min(256, Math.max(1, Option.getOrElse(o, () => 32)))),
  Effect.orElseSucceed(() => 32),
)

interface Claim {
  readonly serviceKey: string
  readonly accountId: number
  readonly regions: ReadonlyArray<string> | null
  /** The account's provider and sealed credentials (server/accounts/credential-vault.ts), read with the claim. */
  readonly cloudProviderId: number
  readonly credentialsSealed: string
}

/**
 * The claim's and the completion's transactions commit without waiting for their WAL flush (`synchronous_commit = off`
 * for that transaction only): a fleet scan commits two of them per service job, and the flush was their slowest
 * statement, held under the scan row's lock that the scan's other jobs wait for. Nothing acknowledged can be lost by
 * it: the job's completion in pg-boss commits afterwards, synchronously, and a flush covers every WAL record before its
 * own, so once pg-boss has the job done the service's writes are durable; a server crash before that loses both, and
 * pg-boss runs the job again (the claim and the completion are idempotent). A column of the statement's answer.
 */
const ASYNC_COMMIT_SQL = ", set_config('synchronous_commit', 'off', true) AS async_commit"

/** The open statuses of a scan or a service, as a SQL list. */
const OPEN_SQL = "('pending', 'running')"

/**
 * Claims the service for this attempt in ONE statement: locks the scan row and then, while the scan is open, the
 * service row (the lateral subquery runs after the scan row is locked and only when the scan is open, so the lock order
 * stays scan then service), reads the account's sealed credentials, and, when both are still open, marks the service
 * running (and a pending scan running). The updates depend on the locking subquery, so they run after its locks; the
 * statuses it answers are those before the claim (what the caller decides on).
 */
export const claimService = (p: RunServicePayload, jobId: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{
      status: string | null; service_key: string; account_id: number; regions: ReadonlyArray<string> | null
      cloud_provider_id: number; credentials_sealed: string
    }>`
      WITH x AS (
        SELECT sc.status AS scan_status, x.status, x.service_key, x.account_id, x.regions, x.cloud_provider_id, x.credentials_sealed
        FROM (SELECT status FROM scans WHERE workspace_id = ${p.workspace_id} AND id = ${p.scan_id} FOR UPDATE) sc
        LEFT JOIN LATERAL (
          SELECT ss.status, cs.key AS service_key, s.account_id, s.regions, a.cloud_provider_id::int AS cloud_provider_id, a.credentials_sealed
          FROM scan_services ss JOIN scans s ON s.id = ss.scan_id JOIN cloud_services cs ON cs.id = ss.service_id
            JOIN accounts a ON a.workspace_id = s.workspace_id AND a.id = s.account_id
          WHERE ss.workspace_id = ${p.workspace_id} AND ss.id = ${p.scan_service_id} AND ss.scan_id = ${p.scan_id}
            AND sc.status IN ${sql.literal(OPEN_SQL)}
          FOR UPDATE OF ss) x ON true),
      started AS (
        UPDATE scans SET status = 'running'
        WHERE workspace_id = ${p.workspace_id} AND id = ${p.scan_id} AND status = 'pending'
          AND EXISTS (SELECT 1 FROM x WHERE x.scan_status = 'pending' AND x.status IN ${sql.literal(OPEN_SQL)})
        RETURNING id),
      service AS (
        UPDATE scan_services SET status = 'running', started_at = coalesce(started_at, now()), heartbeat_at = now(),
          attempts = attempts + 1, job_id = ${jobId}
        WHERE workspace_id = ${p.workspace_id} AND id = ${p.scan_service_id}
          AND EXISTS (SELECT 1 FROM x WHERE x.status IN ${sql.literal(OPEN_SQL)})
        RETURNING id)
      SELECT x.status, x.service_key, x.account_id, x.regions, x.cloud_provider_id, x.credentials_sealed${sql.literal(ASYNC_COMMIT_SQL)} FROM x`
    const row = rows[0]
    if (row === undefined || !isOpen(row.status ?? undefined)) return undefined
    return {
      serviceKey: row.service_key, accountId: row.account_id, regions: row.regions,
      cloudProviderId: row.cloud_provider_id, credentialsSealed: row.credentials_sealed,
    } satisfies Claim
  })

/** Marks the service failed with a reason (unless it already finished) and rolls the scan up. */
export const failService = (p: RunServicePayload, reason: string) =>
  inScope({ workspaceId: p.workspace_id })(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      if (!isOpen(yield* lockScan(p.workspace_id, p.scan_id))) return
      yield* sql`UPDATE scan_services SET status = 'failed', error = ${reason.slice(0, 2000)}, last_scanned_at = now()
                 WHERE workspace_id = ${p.workspace_id} AND id = ${p.scan_service_id} AND status IN ('pending', 'running')`
      yield* rollUpScan(p.workspace_id, p.scan_id)
    }),
  )

/** Writes the findings and completes the service in one transaction; false when the work was already done or canceled. */
export const completeService = (
  p: RunServicePayload,
  result: Pick<ScanServiceResult, "findings" | "resourcesScanned" | "apiCalls"> & Partial<Pick<ScanServiceResult, "regions" | "errors">>,
) =>
  inScope({ workspaceId: p.workspace_id })(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      // The scan row, then (scan open) the service row locked in one statement, as in `claim`; with whether the
      // workspace has any mute rule (server/posture/mutes.ts applies them to the new rows).
      const rows = yield* sql<{
        status: string | null; service_id: number; service_key: string; account_id: number; cloud_account_id: string; cloud_provider_id: number
        any_mute_rule: boolean
      }>`
        SELECT x.status, x.service_id, x.service_key, x.account_id, x.cloud_account_id, x.cloud_provider_id, x.any_mute_rule${sql.literal(ASYNC_COMMIT_SQL)}
        FROM (SELECT status FROM scans WHERE workspace_id = ${p.workspace_id} AND id = ${p.scan_id} FOR UPDATE) sc
        LEFT JOIN LATERAL (
          SELECT ss.status, ss.service_id, cs.key AS service_key, s.account_id, a.cloud_account_id, s.cloud_provider_id::int AS cloud_provider_id,
                 EXISTS (SELECT 1 FROM mute_rules m WHERE m.workspace_id = ${p.workspace_id}) AS any_mute_rule
          FROM scan_services ss JOIN scans s ON s.id = ss.scan_id JOIN accounts a ON a.id = s.account_id
            JOIN cloud_services cs ON cs.id = ss.service_id
          WHERE ss.workspace_id = ${p.workspace_id} AND ss.id = ${p.scan_service_id} AND sc.status IN ${sql.literal(OPEN_SQL)}
          FOR UPDATE OF ss) x ON true`
      const row = rows[0]
      if (row === undefined || !isOpen(row.status ?? undefined)) return false
      const written = yield* writeFindings(
        {
          workspaceId: p.workspace_id,
          scanId: p.scan_id,
          scanServiceId: p.scan_service_id,
          serviceId: row.service_id,
          serviceKey: row.service_key,
          accountId: row.account_id,
          cloudAccountId: row.cloud_account_id,
          cloudProviderId: row.cloud_provider_id,
        },
        result.findings.map(toFindingDraft),
      )
      // The workspace's mute rules apply to the new rows at once (server/posture/mutes.ts).
      if (row.any_mute_rule) yield* applyMutes(p.workspace_id, { scanId: p.scan_id, serviceId: row.service_id })
      // The first service to discover the account's enabled regions shares them with the services still to run,
      // so each of those skips DescribeRegions (unless discovery itself failed and fell back to the home region); the
      // first service to complete writes the scan it was compared with. Both in the statement completing the service.
      const regions = result.regions !== undefined && result.regions.length > 0 && !(result.errors ?? []).some((e) => e.resourceType === "regions")
        ? `{${result.regions.join(",")}}`
        : undefined
      const scanSets = [
        ...(regions === undefined ? [] : [sql`regions = coalesce(regions, ${regions}::text[])`]),
        ...(written.previousScanId === null ? [] : [sql`previous_scan_id = coalesce(previous_scan_id, ${written.previousScanId}::int)`]),
      ]
      const scanWrite = scanSets.length === 0 ? sql`` : sql`
        WITH scan AS (
          UPDATE scans SET ${sql.csv(scanSets)}
          WHERE workspace_id = ${p.workspace_id} AND id = ${p.scan_id}
            AND (${sql.or([
              ...(regions === undefined ? [] : [sql`regions IS NULL`]),
              ...(written.previousScanId === null ? [] : [sql`previous_scan_id IS NULL`]),
            ])})
          RETURNING id)`
      // The service's counts as `recountServices` writes them (server/posture/algebra.ts), in the same statement.
      yield* sql`${scanWrite}
        UPDATE scan_services ss SET status = 'completed', last_scanned_at = now(), heartbeat_at = now(), error = NULL,
          new_failing = c.new_failing, fixed = c.fixed,
          resources_scanned = ${result.resourcesScanned}, api_calls = ${result.apiCalls}, ${sql.literal(SERVICE_COUNTS_SET_SQL)}
        FROM (SELECT coalesce(sum(f.resources_new), 0)::int AS new_failing, coalesce(sum(f.resources_fixed), 0)::int AS fixed,
                     ${sql.literal(SERVICE_COUNTS_SQL)}
              FROM findings f WHERE f.workspace_id = ${p.workspace_id} AND f.scan_id = ${p.scan_id} AND f.service_id = ${row.service_id}) c
        WHERE ss.workspace_id = ${p.workspace_id} AND ss.id = ${p.scan_service_id}`
      yield* rollUpScan(p.workspace_id, p.scan_id)
      return true
    }),
  )

/**
 * Refreshes the heartbeat of the scan's services `ids` that this process runs; answers those still open (their service
 * and the scan pending or running). One statement for every job of the scan in this process (./scan-watch.ts).
 */
const heartbeat = (workspaceId: number, scanId: number) => (ids: ReadonlyArray<number>) =>
  inScope({ workspaceId })(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ id: number }>`
        UPDATE scan_services ss SET heartbeat_at = now() FROM scans s
        WHERE ss.workspace_id = ${workspaceId} AND ss.scan_id = ${scanId} AND ss.id IN ${sql.in(ids)} AND s.id = ss.scan_id
          AND ss.status IN ('pending', 'running') AND s.status IN ('pending', 'running')
        RETURNING ss.id`
      return rows.map((r) => r.id)
    }),
  )

/** The running service jobs of this process, one heartbeat per scan. */
const scanWatch = new ScanWatch(HEARTBEAT_MS)

/**
 * The AWS engine's ScanSetupError, or the GCP/Azure one (server/scanner/rest/engine.ts, a different class with the same
 * name and reasons): matched by name so both count.
 */
const asSetupError = (e: unknown): { readonly reason: string; readonly message: string } | undefined =>
  e instanceof ScanSetupError || (e instanceof Error && e.name === "ScanSetupError" && typeof (e as { reason?: unknown }).reason === "string")
    ? (e as unknown as { reason: string; message: string })
    : undefined

const setupFailureIsFinal = (e: { readonly reason: string }) => e.reason !== "unreachable"

/** One service of one account through the provider's engine; the result in the shape `completeService` writes. */
const scanWith = (
  target: FixTarget,
  input: {
    readonly service: string
    readonly regions: ReadonlyArray<string> | null
    readonly concurrency: number
    /** GCP/Azure: calls in flight per principal and API in this process (`principalApiConcurrency`). */
    readonly principalConcurrency: number
    readonly signal: AbortSignal
    /** Names the scan's share in this process (AWS: one limiter and the account-wide reads for all its service jobs). */
    readonly shareKey: string
  },
): Promise<Pick<ScanServiceResult, "findings" | "resourcesScanned" | "apiCalls" | "durationMs"> & Partial<Pick<ScanServiceResult, "regions" | "errors">>> => {
  switch (target.provider) {
    case "gcp":
      return scanGcpService({
        credentials: target.credentials,
        service: input.service,
        ...(target.endpoints === undefined ? {} : { endpoints: target.endpoints }),
        concurrency: input.concurrency,
        principalConcurrency: input.principalConcurrency,
        signal: input.signal,
        // GCP/Azure regions are resource locations, not scan partitions: never shared between services.
      }).then(({ regions: _regions, ...rest }) => rest)
    case "azure":
      return scanAzureService({
        credentials: target.credentials,
        service: input.service,
        ...(target.endpoints === undefined ? {} : { endpoints: target.endpoints }),
        concurrency: input.concurrency,
        principalConcurrency: input.principalConcurrency,
        signal: input.signal,
      }).then(({ regions: _regions, ...rest }) => rest)
    case "aws":
      // In the scanner thread (server/scanner/aws/scan-in-thread.ts): the SDK's CPU work stays off this event loop.
      return scanServiceInThread({
        credentials: target.credentials,
        service: input.service,
        ...(input.regions === null || input.regions.length === 0 ? {} : { regions: input.regions }),
        ...(target.endpoint === undefined ? {} : { endpoint: target.endpoint }),
        concurrency: input.concurrency,
        shareKey: input.shareKey,
        signal: input.signal,
      })
  }
}

export const runService = (p: RunServicePayload, job: JobContext) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    // The claim reads the account's sealed credentials too (one transaction, one statement besides its scope).
    const claimed = yield* inScope({ workspaceId: p.workspace_id })(claimService(p, job.id))
    if (claimed === undefined) return
    const stored = openCredentials(config.appSecretKey, claimed.credentialsSealed, { workspaceId: p.workspace_id, accountId: claimed.accountId })
    if (stored === undefined) return yield* failService(p, ScanningTexts.credentialsUnreadable)
    const target = fixTargetFor(claimed.cloudProviderId, stored, config.awsEndpointUrl)
    if (target === undefined) return yield* failService(p, "No cloud credentials are available to sign the scan's requests")
    const concurrency = yield* scanConcurrency
    const principalConcurrency = yield* principalApiConcurrency

    const cancel = new AbortController()
    const signal = AbortSignal.any([job.signal, cancel.signal])
    const outcome = yield* Effect.tryPromise({
      try: () => scanWith(target, { service: claimed.serviceKey, regions: claimed.regions, concurrency, principalConcurrency, signal, shareKey: `scan:${p.scan_id}` }),
      catch: (error) => error,
    }).pipe(
      Effect.result,
      scanWatch.watch(
        `${p.workspace_id}:${p.scan_id}`,
        p.scan_service_id,
        { onClosed: () => cancel.abort(new Error(ScanningTexts.canceledReason)) },
        heartbeat(p.workspace_id, p.scan_id),
      ),
    )

    if (outcome._tag === "Success") {
      const written = yield* completeService(p, outcome.success)
      logLine("info", "scan service finished", {
        scan_id: p.scan_id,
        scan_service_id: p.scan_service_id,
        service: claimed.serviceKey,
        written,
        findings: outcome.success.findings.length,
        resources: outcome.success.resourcesScanned,
        api_calls: outcome.success.apiCalls,
        ms: outcome.success.durationMs,
      })
      return
    }
    const error = outcome.failure
    if (cancel.signal.aborted) return // the scan was canceled or finished elsewhere: nothing to write
    const setup = asSetupError(error)
    if (setup !== undefined && setupFailureIsFinal(setup)) return yield* failService(p, setup.message)
    const message = error instanceof Error ? error.message : String(error)
    if (job.retryCount >= RUN_SERVICE_RETRY_LIMIT) return yield* failService(p, message)
    return yield* Effect.fail(new Error(`scan of ${claimed.serviceKey} failed (attempt ${job.retryCount + 1}): ${message}`))
  })
