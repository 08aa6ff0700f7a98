/**
 * SQL of findings (read side): the paginated list of one scan (optionally one service, optionally some statuses), one
 * finding, and keyset pages for the streamed export. Every query runs in an RLS scope and filters on `workspace_id`.
 * Rows are built to the contract's `Finding` shape (src/contracts/findings.ts).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { ComplianceRef, DetailRow, Finding, FindingStatus, Severity } from "../../src/contracts/findings.ts"
import type { FindingId, ScanId, ServiceId } from "../../src/contracts/ids.ts"
import { iso } from "../accounts/accounts-store.ts"
import { providerDisplayName } from "../accounts/providers.ts"

export interface FindingRow {
  readonly id: number
  readonly scan_id: number
  readonly service_id: number
  readonly service_name: string
  readonly check_id: string
  readonly severity: Severity
  readonly status: FindingStatus
  readonly title: string
  readonly description: string
  readonly policy_check: string
  readonly remediation: string | null
  readonly field_labels: Readonly<Record<string, string>>
  readonly details: ReadonlyArray<DetailRow>
  readonly compliance: ReadonlyArray<ComplianceRef>
  readonly created_at: Date | string
  readonly account_name: string
  readonly cloud_account_id: string
  readonly cloud_provider_id: number
}

export const toFinding = (r: FindingRow): Finding => ({
  id: r.id as FindingId,
  scan_id: r.scan_id as ScanId,
  service_id: r.service_id as ServiceId,
  description: r.description,
  severity: r.severity,
  status: r.status,
  created_at: iso(r.created_at),
  service_name: r.service_name,
  account_name: r.account_name,
  aws_account_id: r.cloud_account_id,
  cloud_provider_name: providerDisplayName(r.cloud_provider_id),
  policy_check: r.policy_check,
  field_labels: r.field_labels,
  details: r.details,
  check_id: r.check_id,
  remediation: r.remediation,
  compliance: r.compliance,
})

export interface FindingFilter {
  readonly serviceId?: number | undefined
  readonly statuses?: ReadonlyArray<string> | undefined
  readonly severities?: ReadonlyArray<string> | undefined
}

const SEVERITY_ORDER = `CASE f.severity WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 ELSE 3 END`

const selectFindings = (sql: SqlClient.SqlClient) => sql`
  SELECT f.id, f.scan_id, f.service_id, cs.name AS service_name, f.check_id, f.severity, f.status, f.title, f.description,
         f.policy_check, f.remediation, f.field_labels, f.details, f.compliance, f.created_at,
         a.account_name, a.cloud_account_id, a.cloud_provider_id::int AS cloud_provider_id
  FROM findings f
  JOIN cloud_services cs ON cs.id = f.service_id
  JOIN scans s ON s.id = f.scan_id
  JOIN accounts a ON a.id = s.account_id`

const filterClause = (sql: SqlClient.SqlClient, workspaceId: number, scanId: number, filter: FindingFilter) =>
  sql.and([
    sql`f.workspace_id = ${workspaceId}`,
    sql`f.scan_id = ${scanId}`,
    ...(filter.serviceId === undefined ? [] : [sql`f.service_id = ${filter.serviceId}`]),
    ...(filter.statuses === undefined || filter.statuses.length === 0 ? [] : [sql`f.status IN ${sql.in(filter.statuses)}`]),
    ...(filter.severities === undefined || filter.severities.length === 0 ? [] : [sql`f.severity IN ${sql.in(filter.severities)}`]),
  ])

/** Failed findings first, then by severity, then by id (a stable order for paging). */
export const listFindings = Effect.fn("FindingsStore.list")(function* (
  workspaceId: number,
  scanId: number,
  filter: FindingFilter,
  page: number,
  pageSize: number,
) {
  const sql = yield* SqlClient.SqlClient
  const where = filterClause(sql, workspaceId, scanId, filter)
  const total = (yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM findings f WHERE ${where}`)[0]!.n
  const rows = yield* sql<FindingRow>`${selectFindings(sql)} WHERE ${where}
    ORDER BY CASE f.status WHEN 'fail' THEN 0 WHEN 'remediated' THEN 1 ELSE 2 END, ${sql.literal(SEVERITY_ORDER)}, f.id
    LIMIT ${pageSize} OFFSET ${(page - 1) * pageSize}`
  return {
    data: rows.map(toFinding),
    pagination: { page, page_size: pageSize, total, total_pages: Math.ceil(total / pageSize) },
  }
})

export const getFinding = Effect.fn("FindingsStore.get")(function* (workspaceId: number, findingId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<FindingRow>`${selectFindings(sql)} WHERE f.workspace_id = ${workspaceId} AND f.id = ${findingId}`
  const row = rows[0]
  return row === undefined ? undefined : toFinding(row)
})

/** One keyset page (ids above `afterId`, ascending) for the streamed export. */
export const findingsPage = Effect.fn("FindingsStore.page")(function* (
  workspaceId: number,
  scanId: number,
  filter: FindingFilter,
  afterId: number,
  limit: number,
) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<FindingRow>`${selectFindings(sql)}
    WHERE ${filterClause(sql, workspaceId, scanId, filter)} AND f.id > ${afterId}
    ORDER BY f.id LIMIT ${limit}`
  return rows.map(toFinding)
})

/** Whether the scan has this service (the findings route's service must be in the scan). */
export const scanHasService = Effect.fn("FindingsStore.scanHasService")(function* (workspaceId: number, scanId: number, serviceId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ ok: number }>`
    SELECT 1 AS ok FROM scan_services WHERE workspace_id = ${workspaceId} AND scan_id = ${scanId} AND service_id = ${serviceId}`
  return rows.length > 0
})
