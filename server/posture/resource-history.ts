/**
 * One resource's results across the account's last HISTORY_SCANS completed scans (issue 13 "resource page"): every
 * check that evaluated it in each scan, with its outcome, its change since the scan before, its mute and its
 * remediation, as each scan said it at the time (a superseded scan is never rewritten and its mutes are its own snapshot,
 * server/posture/algebra.ts). The resource comes from the inventory (`resources`); its rows are found by identity through the index of
 * migration 0012, never by reading whole findings.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { NotFound } from "../../src/contracts/errors.ts"
import type { AccountId, FindingId, ScanId } from "../../src/contracts/ids.ts"
import { HISTORY_SCANS, PostureMessages, type ResourceHistory } from "../../src/contracts/posture.ts"
import { iso } from "../accounts/accounts-store.ts"
import { isRemediatedStatus, joinScanMutes, rowOutcome, SEVERITY_ORDER_SQL } from "./algebra.ts"

/** Rows listed at most (20 scans of about 50 checks on one resource). */
const MAX_ROWS = 2_000

export const resourceHistory = Effect.fn("Posture.resourceHistory")(function* (workspaceId: number, accountId: number, uid: string) {
  const sql = yield* SqlClient.SqlClient
  const found = yield* sql<{
    account_name: string; resource_uid: string; resource_id: string; service_key: string; region: string
    first_seen_at: Date | string; last_seen_at: Date | string
  }>`
    SELECT a.account_name, r.resource_uid, r.resource_id, r.service_key, r.region, r.first_seen_at, r.last_seen_at
    FROM resources r JOIN accounts a ON a.id = r.account_id
    WHERE r.workspace_id = ${workspaceId} AND r.account_id = ${accountId} AND r.resource_uid = ${uid}`
  const resource = found[0]
  if (resource === undefined) return yield* new NotFound({ message: PostureMessages.resourceNotFound })
  const scans = yield* sql<{ id: number; scan_start: Date | string; scan_end: Date | string | null }>`
    SELECT id, scan_start, scan_end FROM scans
    WHERE workspace_id = ${workspaceId} AND account_id = ${accountId} AND status = 'completed'
    ORDER BY scan_start DESC, id DESC LIMIT ${HISTORY_SCANS}`
  const ids = scans.map((s) => s.id)
  const rows = ids.length === 0 ? [] : yield* sql<{
    scan_id: number; finding_id: number; check_id: string; title: string; severity: string; compliant: boolean | null
    delta: string | null; muted_reason: string | null; remediation_status: string | null
  }>`
    SELECT r.scan_id, f.id AS finding_id, f.check_id, f.title, f.severity, r.compliant, r.delta,
           CASE WHEN r.muted_by IS NULL THEN NULL ELSE coalesce(sm.reason, '') END AS muted_reason, r.remediate->>'status' AS remediation_status
    FROM results r JOIN findings f ON f.workspace_id = r.workspace_id AND f.id = r.finding_id
    ${joinScanMutes(sql)}
    WHERE r.workspace_id = ${workspaceId} AND r.resource_uid = ${uid} AND r.scan_id = ANY(${ids}::int[])
    ORDER BY r.scan_id DESC, CASE WHEN r.compliant = false THEN 0 WHEN r.compliant IS NULL THEN 1 ELSE 2 END,
             ${sql.literal(SEVERITY_ORDER_SQL)}, f.check_id
    LIMIT ${MAX_ROWS}`
  // The inventory row is written when one of the resource's rows is (new or changed); an unchanged rescan still saw
  // it: its last sighting is the end of the latest scan holding a row of it, when that is later.
  const holding = new Set(rows.map((r) => r.scan_id))
  const latest = scans.find((s) => holding.has(s.id))
  const latestAt = latest === undefined ? undefined : new Date(latest.scan_end ?? latest.scan_start)
  const lastSeen = latestAt !== undefined && latestAt > new Date(resource.last_seen_at) ? latestAt : resource.last_seen_at
  return {
    account_id: accountId as AccountId,
    account_name: resource.account_name,
    resource_uid: resource.resource_uid,
    resource_id: resource.resource_id,
    service_key: resource.service_key,
    region: resource.region,
    first_seen_at: iso(resource.first_seen_at),
    last_seen_at: iso(lastSeen),
    scans: scans
      .map((s) => ({
        scan_id: s.id as ScanId,
        scan_start: iso(s.scan_start),
        failing_checks: rows.filter((r) => r.scan_id === s.id && rowOutcome({
          compliant: r.compliant, remediated: isRemediatedStatus(r.remediation_status), muted: r.muted_reason !== null,
        }) === "fail").length,
        results: rows.filter((r) => r.scan_id === s.id).map(({ scan_id: _s, finding_id, ...r }) => ({ ...r, finding_id: finding_id as FindingId })),
      }))
      .filter((s) => s.results.length > 0),
  } satisfies ResourceHistory
})
