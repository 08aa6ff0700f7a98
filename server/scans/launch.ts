/**
 * Launching and canceling scans (issue 5 "Scans").
 *
 * `startScan`, in the caller's RLS transaction: the account must be in the workspace (404) and match the payload's
 * provider ('Invalid cloud provider'); a member retired from its organisation is no longer scanned (409); one open scan
 * per account (409, the account row is locked so two launches serialise); a `pending` scan with one `pending` service
 * row per service the provider's catalogue can scan; one `scans.run-service` job per row plus the scan's sweeper
 * chain, enqueued in the SAME transaction; an audit record.
 * Scope (issue 13): the launch's regions and services, else the account's default scope (server/posture/schedules.ts),
 * recorded on the scan (`scope_regions`, `scope_services`; NULL: all) with its trigger (manual or schedule).
 * Regions: the scope's, else SCAN_REGIONS (comma-separated) when set, else each job scans the account's enabled regions.
 *
 * `cancelScan`: a pending or running scan becomes `failed` ("Canceled by a user"), its open services too; queued jobs
 * are canceled in pg-boss after commit, and running jobs notice at their next heartbeat and abort their API calls.
 */
import { Config, Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import { Conflict, NotFound, ValidationError } from "../../src/contracts/errors.ts"
import { ScanningServerMessages, ValidationMessages } from "../../src/contracts/messages.ts"
import { OrganizationMessages } from "../../src/contracts/organizations.ts"
import type { ScanStartPayload } from "../../src/contracts/scans.ts"
import type { WorkspaceContext } from "../auth/workspace-context.ts"
import { JobQueue, type JobDefinition } from "../jobs/queue.ts"
import { loadSealedAccount } from "../accounts/accounts-store.ts"
import { providerDisplayName } from "../accounts/providers.ts"
import { recordAudit } from "../audit/scanning-audit.ts"
import type { RunServicePayload } from "./run-service.ts"
import { getScan, lockScan } from "./scans-store.ts"
import { accountScope, checkScope, discoveredRegions } from "../posture/schedules.ts"
import { ensureServiceIds, servicesToScan } from "../scanner/service-catalogue.ts"
import { SWEEP_INTERVAL_SECONDS, type SweepPayload } from "./sweeper.ts"
import { enqueueInTransaction } from "./transactional-enqueue.ts"

const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/

/** SCAN_REGIONS from the environment (invalid entries are ignored); null = the account's enabled regions. */
export const configuredRegions = Config.option(Config.String("SCAN_REGIONS")).pipe(
  Effect.map((o) =>
    Option.match(o, {
      onNone: () => null,
      onSome: (value) => {
        const regions = [...new Set(value.split(",").map((r) => r.trim()).filter((r) => REGION.test(r)))]
        return regions.length === 0 ? null : regions
      },
    })),
  Effect.orElseSucceed(() => null),
)

export interface ScanJobs {
  readonly runService: JobDefinition<string, RunServicePayload, any>
  readonly sweep: JobDefinition<string, SweepPayload, any>
}

/** How a scan was asked for: its scope (null: the account's default scope) and who started it. */
export interface LaunchOptions {
  readonly scope?: { readonly regions: ReadonlyArray<string> | null; readonly services: ReadonlyArray<string> | null } | undefined
  readonly trigger?: "manual" | "schedule"
}

export const startScan = (ctx: WorkspaceContext, payload: ScanStartPayload, jobs: ScanJobs, options: LaunchOptions = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const account = yield* loadSealedAccount(ctx.workspaceId, payload.account_id)
    if (account === undefined) return yield* new NotFound({ message: ScanningServerMessages.accountNotFound })
    if (
      payload.cloud_provider_id !== account.cloudProviderId ||
      payload.cloud_provider_name !== providerDisplayName(account.cloudProviderId).toLowerCase()
    ) {
      return yield* new ValidationError({
        message: ValidationMessages.invalidCloudProvider,
        errors: [{ path: "cloud_provider_id", message: ValidationMessages.invalidCloudProvider }],
      })
    }
    const [locked] = yield* sql<{ retired: boolean }>`
      SELECT retired_at IS NOT NULL AS retired FROM accounts WHERE workspace_id = ${ctx.workspaceId} AND id = ${account.id} FOR UPDATE`
    // A member retired from its organisation (issue 31) keeps its history but is no longer scanned: a manual start
    // answers 409, a schedule of it records this reason and skips the slot (server/scans/posture-ticker.ts).
    if (locked?.retired === true) {
      return yield* new Conflict({ message: OrganizationMessages.memberRetired, data: { error_type: "account_retired" } })
    }
    const open = yield* sql<{ id: number }>`
      SELECT id FROM scans WHERE workspace_id = ${ctx.workspaceId} AND account_id = ${account.id} AND status IN ('pending', 'running')
      LIMIT 1`
    if (open.length > 0) return yield* new Conflict({ message: ScanningServerMessages.scanAlreadyRunning, data: { error_type: "scan_running" } })
    // Scope: the caller's (a schedule's), else the launch payload's, else the account's default (its schedule's
    // scope); null lists mean everything. A payload's lists are checked like a schedule's (unknown entries: 400).
    const defaults = yield* accountScope(ctx.workspaceId, account.id)
    const asked = payload.regions !== undefined && payload.regions !== null || payload.services !== undefined && payload.services !== null
    const scope = options.scope ?? (asked
      ? yield* checkScope(
          { cloud_provider_id: account.cloudProviderId, discovered: yield* discoveredRegions(ctx.workspaceId, account.id) },
          { regions: payload.regions ?? defaults.regions, services: payload.services ?? defaults.services },
        )
      : defaults)
    const inScope = servicesToScan(account.cloudProviderId).filter((s) => scope.services === null || scope.services.includes(s.key))
    const services = yield* ensureServiceIds(account.cloudProviderId, inScope)
    if (services.length === 0) {
      return yield* new ValidationError({ message: ScanningServerMessages.noServicesToScan })
    }
    const regions = scope.regions ?? (yield* configuredRegions)
    const textArray = (xs: ReadonlyArray<string> | null) => (xs === null ? null : `{${xs.join(",")}}`)
    const inserted = yield* sql<{ id: number }>`
      INSERT INTO scans (workspace_id, account_id, cloud_provider_id, status, regions, created_by, total_services,
                         scope_regions, scope_services, trigger)
      VALUES (${ctx.workspaceId}, ${account.id}, ${account.cloudProviderId}, 'pending',
              ${textArray(regions)}::text[], ${ctx.userId}, ${services.length},
              ${textArray(scope.regions)}::text[], ${textArray(scope.services)}::text[], ${options.trigger ?? "manual"})
      RETURNING id`
    const scanId = inserted[0]!.id
    const rows = yield* sql<{ id: number; service_id: number }>`
      INSERT INTO scan_services ${sql.insert(
        services.map((s) => ({ workspace_id: ctx.workspaceId, scan_id: scanId, service_id: s.id })) as unknown as readonly [
          Record<string, unknown>,
          ...Array<Record<string, unknown>>,
        ],
      )}
      RETURNING id, service_id`
    const jobScope = { workspaceId: ctx.workspaceId, userId: ctx.userId }
    // Longest services first: the API calls each needed in the account's last completed scan (catalogue order before
    // any scan, and between equals). A long service that starts last would run alone at the end of the scan.
    const previous = yield* sql<{ service_id: number; api_calls: number }>`
      SELECT DISTINCT ON (ss.service_id) ss.service_id, ss.api_calls
      FROM scan_services ss JOIN scans s ON s.id = ss.scan_id
      WHERE s.workspace_id = ${ctx.workspaceId} AND s.account_id = ${account.id} AND s.id <> ${scanId} AND ss.status = 'completed'
      ORDER BY ss.service_id, s.scan_start DESC`
    const cost = new Map(previous.map((r) => [r.service_id, r.api_calls]))
    const order = new Map(services.map((s, i) => [s.id, services.length - i]))
    const jobIds = yield* enqueueInTransaction(
      jobs.runService,
      rows.map((r) => ({
        payload: { workspace_id: ctx.workspaceId, scan_id: scanId, scan_service_id: r.id },
        priority: Math.min(1_000_000, cost.get(r.service_id) ?? 0) * 1000 + (order.get(r.service_id) ?? 0),
      })),
      jobScope,
    )
    yield* enqueueInTransaction(
      jobs.sweep,
      [{ payload: { workspace_id: ctx.workspaceId, scan_id: scanId }, startAfterSeconds: SWEEP_INTERVAL_SECONDS }],
      jobScope,
    )
    // Each service row names its job, in one statement for the scan's services.
    yield* sql`
      UPDATE scan_services ss SET job_id = x.job_id
      FROM unnest(${rows.map((r) => r.id)}::int[], ${rows.map((_, i) => jobIds[i] ?? null)}::text[]) AS x(id, job_id)
      WHERE ss.workspace_id = ${ctx.workspaceId} AND ss.id = x.id`
    yield* recordAudit({
      action: "scan.started",
      workspaceId: ctx.workspaceId,
      actorUserId: ctx.userId,
      targetType: "scan",
      targetId: scanId,
      details: { account_id: account.id, services: services.map((s) => s.key), regions, trigger: options.trigger ?? "manual" },
      ip: ctx.ip,
    })
    return (yield* getScan(ctx.workspaceId, scanId))!
  })

/** Cancels in the database; answers the scan and the pg-boss job ids to cancel once committed. */
export const cancelScan = (ctx: WorkspaceContext, scanId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const status = yield* lockScan(ctx.workspaceId, scanId)
    if (status === undefined) return yield* new NotFound({ message: ScanningServerMessages.scanNotFound })
    if (status !== "pending" && status !== "running") return yield* new Conflict({ message: ScanningServerMessages.scanNotCancelable })
    const services = yield* sql<{ job_id: string | null }>`
      UPDATE scan_services SET status = 'failed', error = ${ScanningServerMessages.canceledReason}, last_scanned_at = now()
      WHERE workspace_id = ${ctx.workspaceId} AND scan_id = ${scanId} AND status IN ('pending', 'running')
      RETURNING job_id`
    yield* sql`
      UPDATE scans s SET status = 'failed', scan_end = now(), failure_reason = ${ScanningServerMessages.canceledReason},
        canceled_at = now(), canceled_by = ${ctx.userId},
        completed_services = a.completed, findings_count = a.findings, passed_findings = a.passed, failed_findings = a.failed
      FROM (SELECT count(*) FILTER (WHERE status = 'completed')::int AS completed, coalesce(sum(findings_count), 0)::int AS findings,
                   coalesce(sum(passed_findings), 0)::int AS passed, coalesce(sum(failed_findings), 0)::int AS failed
            FROM scan_services WHERE workspace_id = ${ctx.workspaceId} AND scan_id = ${scanId}) a
      WHERE s.workspace_id = ${ctx.workspaceId} AND s.id = ${scanId}`
    yield* recordAudit({
      action: "scan.canceled",
      workspaceId: ctx.workspaceId,
      actorUserId: ctx.userId,
      targetType: "scan",
      targetId: scanId,
      details: { open_services: services.length },
      ip: ctx.ip,
    })
    return { scan: (yield* getScan(ctx.workspaceId, scanId))!, jobIds: services.flatMap((s) => (s.job_id === null ? [] : [s.job_id])) }
  })

/** Best effort: queued jobs of a canceled scan are canceled in pg-boss (a job that already started sees the cancel). */
export const cancelJobs = (jobName: string, jobIds: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    if (jobIds.length === 0) return
    const queue = yield* JobQueue
    yield* Effect.tryPromise(() => queue.boss.cancel(jobName, [...jobIds])).pipe(Effect.ignore)
  })
