/**
 * SQL of scans and their per-service rows, read side and status roll-up. Every function runs inside an RLS scope and
 * also filters on `workspace_id`, so another workspace's id finds nothing (→ 404).
 *
 * Status rules (scanning §4, issue 5):
 * - a service row moves pending → running → completed | failed; the scan is `running` while any service is open,
 *   then `completed` when at least one service completed, `failed` when every service failed (or it was canceled);
 * - counts: a service's findings_count / failed_findings (findings with status fail) / passed_findings (pass and
 *   remediated) / not_evaluated_findings (the rest: checks that could not decide, derived, never stored); the scan's counts are the sums over its services, `completed_services` counts services
 *   with status completed.
 * The roll-up always locks the scan row first (`lockScan`), so two workers finishing services of the same scan at
 * once serialise and the second sees the first's committed service row.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { Scan, ScanService } from "../../src/contracts/scans.ts"
import { toRunStatus } from "../../src/contracts/common.ts"
import type { AccountId, ScanId, ScanServiceId, ServiceId } from "../../src/contracts/ids.ts"
import { ScanningServerMessages } from "../../src/contracts/messages.ts"
import { iso, isoOrNull } from "../accounts/accounts-store.ts"
import { providerDisplayName } from "../accounts/providers.ts"
import { CHECK_OUTCOMES_SQL, OUTCOME_COUNTS_SQL, SCAN_FAILING_RESOURCES_SQL } from "../posture/algebra.ts"
import { publishScanCompletion } from "../integrations/events.ts"
import { onScanCompleted } from "../integrations/jobs.ts"

interface ScanRow {
  readonly id: number
  readonly account_id: number
  readonly account_name: string
  readonly cloud_provider_id: number
  readonly status: string
  readonly scan_start: Date | string
  readonly scan_end: Date | string | null
  readonly total_services: number
  readonly completed_services: number
  readonly findings_count: number
  readonly passed_findings: number
  readonly failed_findings: number
  readonly muted_findings: number
  readonly new_failing: number
  readonly fixed: number
  readonly previous_scan_id: number | null
  readonly scope_regions: ReadonlyArray<string> | null
  readonly scope_services: ReadonlyArray<string> | null
  readonly trigger: "manual" | "schedule"
}

interface ServiceRow {
  readonly id: number
  readonly scan_id: number
  readonly service_id: number
  readonly service_name: string
  readonly status: string
  readonly last_scanned_at: Date | string | null
  readonly findings_count: number
  readonly passed_findings: number
  readonly failed_findings: number
  readonly muted_findings: number
  readonly new_failing: number
  readonly fixed: number
}

const notEvaluated = (r: Pick<ServiceRow, "findings_count" | "passed_findings" | "failed_findings" | "muted_findings">) =>
  Math.max(0, r.findings_count - r.passed_findings - r.failed_findings - r.muted_findings)

const toService = (r: ServiceRow): ScanService => ({
  id: r.id as ScanServiceId,
  service_id: r.service_id as ServiceId,
  service_name: r.service_name,
  status: toRunStatus(r.status),
  last_scanned_at: isoOrNull(r.last_scanned_at),
  findings_count: r.findings_count,
  passed_findings: r.passed_findings,
  failed_findings: r.failed_findings,
  not_evaluated_findings: notEvaluated(r),
  muted_findings: r.muted_findings,
  new_failing: r.new_failing,
  fixed: r.fixed,
})

const toScan = (r: ScanRow, services: ReadonlyArray<ServiceRow>): Scan => ({
  id: r.id as ScanId,
  account_name: r.account_name,
  account_id: r.account_id as AccountId,
  cloud_provider: providerDisplayName(r.cloud_provider_id),
  scan_start: iso(r.scan_start),
  scan_end: isoOrNull(r.scan_end),
  status: toRunStatus(r.status),
  total_services: r.total_services,
  completed_services: r.completed_services,
  findings_count: r.findings_count,
  passed_findings: r.passed_findings,
  failed_findings: r.failed_findings,
  not_evaluated_findings: notEvaluated(r),
  muted_findings: r.muted_findings,
  new_failing: r.new_failing,
  fixed: r.fixed,
  previous_scan_id: r.previous_scan_id === null ? null : (r.previous_scan_id as ScanId),
  scope: { regions: r.scope_regions, services: r.scope_services },
  trigger: r.trigger,
  services: services.filter((s) => s.scan_id === r.id).map(toService),
})

const servicesOf = Effect.fn("ScansStore.servicesOf")(function* (workspaceId: number, scanIds: ReadonlyArray<number>) {
  const sql = yield* SqlClient.SqlClient
  if (scanIds.length === 0) return [] as ReadonlyArray<ServiceRow>
  return yield* sql<ServiceRow>`
    SELECT ss.id, ss.scan_id, ss.service_id, cs.name AS service_name, ss.status, ss.last_scanned_at,
           ss.findings_count, ss.passed_findings, ss.failed_findings, ss.muted_findings, ss.new_failing, ss.fixed
    FROM scan_services ss JOIN cloud_services cs ON cs.id = ss.service_id
    WHERE ss.workspace_id = ${workspaceId} AND ss.scan_id IN ${sql.in(scanIds)}
    ORDER BY ss.scan_id, ss.id`
})

export const getScan = Effect.fn("ScansStore.get")(function* (workspaceId: number, scanId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<ScanRow>`
    SELECT s.id, s.account_id, a.account_name, s.cloud_provider_id::int AS cloud_provider_id, s.status, s.scan_start, s.scan_end,
           s.total_services, s.completed_services, s.findings_count, s.passed_findings, s.failed_findings,
           s.muted_findings, s.new_failing, s.fixed, s.previous_scan_id, s.scope_regions, s.scope_services, s.trigger
    FROM scans s JOIN accounts a ON a.id = s.account_id
    WHERE s.workspace_id = ${workspaceId} AND s.id = ${scanId}`
  const row = rows[0]
  if (row === undefined) return undefined
  return toScan(row, yield* servicesOf(workspaceId, [row.id]))
})

/** A service of `listScans` as its JSON array: the columns of `ServiceRow`, in `serviceOfTuple`'s order. */
type ServiceTuple = readonly [number, number, number, string, string, string | null, number, number, number, number, number, number]

const serviceOfTuple = (t: ServiceTuple): ServiceRow => ({
  id: t[0], scan_id: t[1], service_id: t[2], service_name: t[3], status: t[4], last_scanned_at: t[5], findings_count: t[6],
  passed_findings: t[7], failed_findings: t[8], muted_findings: t[9], new_failing: t[10], fixed: t[11],
})

export const listScans = Effect.fn("ScansStore.list")(function* (workspaceId: number, page: number, pageSize: number) {
  const sql = yield* SqlClient.SqlClient
  // One statement: the page (with its total, a window count before LIMIT) and each listed scan's services as JSON,
  // one array per service (no key names: PostgreSQL builds and the driver parses a quarter less per request than
  // with objects). Only a page past the end needs its own count.
  const rows = yield* sql<ScanRow & { total_count: number; services: ReadonlyArray<ServiceTuple> | string }>`
    SELECT p.*, (
      SELECT coalesce(json_agg(json_build_array(
               ss.id, ss.scan_id, ss.service_id, cs.name, ss.status, ss.last_scanned_at, ss.findings_count,
               ss.passed_findings, ss.failed_findings, ss.muted_findings, ss.new_failing, ss.fixed) ORDER BY ss.id), '[]'::json)
      FROM scan_services ss JOIN cloud_services cs ON cs.id = ss.service_id
      WHERE ss.workspace_id = ${workspaceId} AND ss.scan_id = p.id) AS services
    FROM (
      SELECT s.id, s.account_id, a.account_name, s.cloud_provider_id::int AS cloud_provider_id, s.status, s.scan_start, s.scan_end,
             s.total_services, s.completed_services, s.findings_count, s.passed_findings, s.failed_findings,
             s.muted_findings, s.new_failing, s.fixed, s.previous_scan_id, s.scope_regions, s.scope_services, s.trigger,
             count(*) OVER ()::int AS total_count
      FROM scans s JOIN accounts a ON a.id = s.account_id
      WHERE s.workspace_id = ${workspaceId}
      ORDER BY s.scan_start DESC, s.id DESC
      LIMIT ${pageSize} OFFSET ${(page - 1) * pageSize}) p
    ORDER BY p.scan_start DESC, p.id DESC`
  const total = rows[0]?.total_count
    ?? (page === 1 ? 0 : (yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM scans WHERE workspace_id = ${workspaceId}`)[0]!.n)
  return {
    data: rows.map((r) =>
      toScan(r, (typeof r.services === "string" ? JSON.parse(r.services) as ReadonlyArray<ServiceTuple> : r.services).map(serviceOfTuple))),
    pagination: { page, page_size: pageSize, total, total_pages: Math.ceil(total / pageSize) },
  }
})

/** Locks the scan row for the rest of the transaction; answers its status (undefined when gone). */
export const lockScan = Effect.fn("ScansStore.lockScan")(function* (workspaceId: number, scanId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ status: string }>`
    SELECT status FROM scans WHERE workspace_id = ${workspaceId} AND id = ${scanId} FOR UPDATE`
  return rows[0]?.status
})

/**
 * Recomputes the scan's status and counts from its service rows (call with the scan row locked). When this completes
 * the scan, the integrations that follow completed scans are told in the same transaction (Security Hub export).
 */
export const rollUpScan = Effect.fn("ScansStore.rollUp")(function* (workspaceId: number, scanId: number) {
  const sql = yield* SqlClient.SqlClient
  const rolled = yield* sql<{ status: string; account_id: number }>`
    UPDATE scans s SET
      completed_services = a.completed,
      findings_count = a.findings,
      passed_findings = a.passed,
      failed_findings = a.failed,
      muted_findings = a.muted,
      new_failing = a.new_failing,
      fixed = a.fixed,
      outcome_counts = ${sql.literal(OUTCOME_COUNTS_SQL)},
      -- The rest of the stored roll-up (algebra ROLLUP_SET_SQL) once every service is done: what the scan says then.
      check_outcomes = CASE WHEN a.open = 0 THEN ${sql.literal(CHECK_OUTCOMES_SQL)} ELSE s.check_outcomes END,
      failing_resources = CASE WHEN a.open = 0 THEN ${sql.literal(SCAN_FAILING_RESOURCES_SQL)} ELSE s.failing_resources END,
      status = CASE WHEN a.open > 0 THEN (CASE WHEN a.started > 0 THEN 'running' ELSE s.status END)
                    WHEN a.completed > 0 THEN 'completed' ELSE 'failed' END,
      scan_end = CASE WHEN a.open > 0 THEN NULL ELSE coalesce(s.scan_end, now()) END,
      failure_reason = CASE WHEN a.open = 0 AND a.completed = 0 THEN coalesce(s.failure_reason, ${ScanningServerMessages.everyServiceFailed})
                            ELSE s.failure_reason END
    FROM (
      SELECT count(*) FILTER (WHERE status IN ('pending', 'running'))::int AS open,
             count(*) FILTER (WHERE status <> 'pending')::int AS started,
             count(*) FILTER (WHERE status = 'completed')::int AS completed,
             coalesce(sum(findings_count), 0)::int AS findings,
             coalesce(sum(passed_findings), 0)::int AS passed,
             coalesce(sum(failed_findings), 0)::int AS failed,
             coalesce(sum(muted_findings), 0)::int AS muted,
             coalesce(sum(new_failing), 0)::int AS new_failing,
             coalesce(sum(fixed), 0)::int AS fixed
      FROM scan_services WHERE workspace_id = ${workspaceId} AND scan_id = ${scanId}
    ) a
    WHERE s.workspace_id = ${workspaceId} AND s.id = ${scanId} AND s.status IN ('pending', 'running')
    RETURNING s.status, s.account_id`
  if (rolled[0]?.status === "completed") yield* onScanCompleted(workspaceId, rolled[0].account_id, scanId)
  // Webhooks and Slack: `scan.completed` and `findings.new_failing`, once, when the scan is completed (no-op otherwise:
  // a scan the roll-up left open or failed, its row locked here, has nothing to publish, so its read is skipped).
  if (rolled[0] === undefined || rolled[0].status === "completed") yield* publishScanCompletion(workspaceId, scanId)
})

