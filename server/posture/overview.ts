/**
 * The dashboard's posture section (issue 13 "Overview and trends"), read from the stored counts through the algebra
 * (server/posture/algebra.ts, docs/outcomes.md), never from result rows: per account its last TREND_SCANS completed
 * scans (failing resources by severity; new failing; fixed; checks passed with exceptions) and whether it is stale (no
 * completed scan in STALE_AFTER_DAYS days); and the checks failing in the most accounts' latest scans. Only an account
 * that is scanned can be stale: an organisation's account never is (its members are scanned), nor a member retired
 * from its organisation (no longer scanned; its trend stays).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { Severity } from "../../src/contracts/findings.ts"
import type { AccountId, ScanId } from "../../src/contracts/ids.ts"
import { STALE_AFTER_DAYS, TREND_SCANS, type PostureOverview, type SeverityCounts } from "../../src/contracts/posture.ts"
import { iso, isoOrNull } from "../accounts/accounts-store.ts"
import { providerDisplayName } from "../accounts/providers.ts"
import { failingBySeverityOf, topFailingChecks } from "./algebra.ts"

/** Top failing checks listed. */
export const TOP_CHECKS = 10

const zero = (): Record<Severity, number> => ({ critical: 0, high: 0, medium: 0, low: 0 })

export const postureOverview = Effect.fn("Posture.overview")(function* (workspaceId: number) {
  const sql = yield* SqlClient.SqlClient
  const accounts = yield* sql<{ id: number; account_name: string; cloud_provider_id: number; last_scan_at: Date | string | null; stale: boolean }>`
    SELECT a.id, a.account_name, a.cloud_provider_id::int AS cloud_provider_id, l.last_scan_at,
           (NOT a.is_organization AND a.retired_at IS NULL
            AND (l.last_scan_at IS NULL OR l.last_scan_at < now() - make_interval(days => ${STALE_AFTER_DAYS}))) AS stale
    FROM accounts a
    LEFT JOIN LATERAL (SELECT max(s.scan_start) AS last_scan_at FROM scans s
                       WHERE s.workspace_id = a.workspace_id AND s.account_id = a.id AND s.status = 'completed') l ON true
    WHERE a.workspace_id = ${workspaceId}
    ORDER BY a.account_name, a.id`
  const scans = yield* sql<{ id: number; account_id: number; scan_start: Date | string; new_failing: number; fixed: number; muted_findings: number; rn: number }>`
    SELECT * FROM (
      SELECT s.id, s.account_id, s.scan_start, s.new_failing, s.fixed, s.muted_findings,
             row_number() OVER (PARTITION BY s.account_id ORDER BY s.scan_start DESC, s.id DESC)::int AS rn
      FROM scans s WHERE s.workspace_id = ${workspaceId} AND s.status = 'completed'
    ) x WHERE x.rn <= ${TREND_SCANS}
    ORDER BY x.account_id, x.scan_start, x.id`
  const bySeverity = yield* failingBySeverityOf(workspaceId, scans.map((s) => s.id))
  const top = yield* topFailingChecks(workspaceId, scans.filter((s) => s.rn === 1).map((s) => s.id), TOP_CHECKS)
  return {
    accounts: accounts.map((a) => ({
      account_id: a.id as AccountId,
      account_name: a.account_name,
      cloud_provider_name: providerDisplayName(a.cloud_provider_id),
      last_scan_at: isoOrNull(a.last_scan_at),
      stale: a.stale,
      scans: scans.filter((s) => s.account_id === a.id).map((s) => ({
        scan_id: s.id as ScanId,
        scan_start: iso(s.scan_start),
        failing: (bySeverity.get(s.id) ?? zero()) satisfies SeverityCounts,
        failing_resources: Object.values(bySeverity.get(s.id) ?? zero()).reduce((n, v) => n + v, 0),
        new_failing: s.new_failing,
        fixed: s.fixed,
        muted_findings: s.muted_findings,
      })),
    })),
    top_failing_checks: top,
    stale_after_days: STALE_AFTER_DAYS,
  } satisfies PostureOverview
})
