/**
 * The server side of the one algebra (issue 28; docs/outcomes.md; the pure rules are src/contracts/outcomes.ts).
 *
 * Stored counts are the algebra materialised: each finding's `resources_remediated`, `resources_muted` and `muted`
 * equal `checkCounts` / `checkOutcome` of its rows (`recountFindings`), each service's and scan's check counts are
 * `scanCheckCounts` of its findings (`recountServices`, below), and every reader below sums those
 * counts with the same rule (`FAILING_RESOURCES_SQL` is `failingResources`). The overview, the digest, the compliance
 * area, the PDF and the exports read through here; none counts rows of its own.
 *
 * History (item 2): mute rules and remediations write only to the account's live scans (`liveScans`): its latest
 * completed scan and any scan started after it (running, or completed later). A scan superseded by a later completed
 * scan is never written again, and what its muted rows show (reason, expiry, author) is the snapshot `scan_mutes`
 * (server/db/migrations/0015_frozen_history.ts) taken while it was live.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { MuteException } from "../../src/contracts/compliance.ts"
import { SEVERITIES, type Severity } from "../../src/contracts/findings.ts"
import { failingBySeverity, isRemediatedStatus } from "../../src/contracts/outcomes.ts"
import { isoOrNull } from "../accounts/accounts-store.ts"

export * from "../../src/contracts/outcomes.ts"

/** `failingResources` of a `findings` row `f`, in SQL. */
/** Critical first: the severity order of every sort over findings `f` (lists, top checks, the digest, resource history). */
export const SEVERITY_ORDER_SQL = `CASE f.severity WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 ELSE 3 END`

export const FAILING_RESOURCES_SQL = `greatest(0, f.resources_failing - f.resources_remediated - f.resources_muted)`

/** Failed (not muted) first, then muted, remediated, not evaluated, passed: the findings list's default order over `f`. */
export const STATUS_ORDER_SQL = `CASE WHEN f.status = 'fail' AND NOT f.muted THEN 0 WHEN f.status = 'fail' THEN 1 WHEN f.status = 'remediated' THEN 2
                      WHEN f.status = 'not_evaluated' THEN 3 ELSE 4 END`

/*
 * The three reads below of scan `s`'s findings name the scan only (`f.scan_id = s.id`): a finding's scan fixes its
 * workspace (foreign key on (scan_id, workspace_id)), and row-level security still scopes the read. With
 * `f.workspace_id = s.workspace_id` as well, PostgreSQL ANDed the scan's index with a walk of every finding of the
 * workspace (findings_stream_idx), so each roll-up of a service's completion cost more with every scan in the history:
 * 5.7 ms after 60 member scans, against 1.7 ms now and flat (bench:fleet, PostgreSQL's CPU rising round by round).
 */

/**
 * SQL: the findings of scan `s` by (status rank, severity rank) — key "0:1" is failed (not muted) high — each
 * `[findings, resources checked, failing resources]`; stored as `scans.outcome_counts` (migration 0024) so totals over
 * the latest scans of many accounts add a few numbers per scan (server/scans/fleet-findings.ts).
 */
export const OUTCOME_COUNTS_SQL = `(SELECT coalesce(jsonb_object_agg(g.k, g.v), '{}'::jsonb) FROM (
    SELECT (${STATUS_ORDER_SQL}) || ':' || (${SEVERITY_ORDER_SQL}) AS k,
           jsonb_build_array(count(*), coalesce(sum(f.resources_checked), 0), coalesce(sum(${FAILING_RESOURCES_SQL}), 0)) AS v
    FROM findings f WHERE f.scan_id = s.id GROUP BY 1) g)`

/**
 * SQL: each finding of scan `s` by check id, `[status, resources checked, resources failing, resources remediated,
 * resources muted]` — the facts a requirement's status reads (`requirementStatus`) — stored as `scans.check_outcomes`
 * (migration 0032) so organisation compliance evaluates a member from one row of its latest scan
 * (server/compliance/store.ts `scansCheckFacts`, `checkFactsOf`).
 */
export const CHECK_OUTCOMES_SQL = `(SELECT coalesce(jsonb_object_agg(f.check_id, jsonb_build_array(f.status, f.resources_checked, f.resources_failing,
      f.resources_remediated, f.resources_muted)), '{}'::jsonb)
    FROM findings f WHERE f.scan_id = s.id)`

/**
 * SQL: the failing resources of scan `s` (`failingResources` of its failed checks: status fail, not muted — the rank-0
 * entries of `OUTCOME_COUNTS_SQL`), stored as `scans.failing_resources` (migration 0032) for the fleet dashboard's trend.
 */
export const SCAN_FAILING_RESOURCES_SQL = `(SELECT coalesce(sum(${FAILING_RESOURCES_SQL}), 0)::int
    FROM findings f WHERE f.scan_id = s.id AND f.status = 'fail' AND NOT f.muted)`

/**
 * SQL (a SET list on scan `s`): the scan's stored roll-up — `outcome_counts`, `check_outcomes`, `failing_resources` —
 * written together, from its findings, by every statement that rolls a scan up (the roll-up as services complete,
 * server/scans/scans-store.ts `rollUpScan`; `recountServices` below after a mute or a remediation changed a live scan).
 * A superseded scan is never recounted, so what it said stays (docs/outcomes.md "History").
 */
export const ROLLUP_SET_SQL = `outcome_counts = ${OUTCOME_COUNTS_SQL}, check_outcomes = ${CHECK_OUTCOMES_SQL},
                       failing_resources = ${SCAN_FAILING_RESOURCES_SQL}`

/** SQL: the condition on a `results` row `r` that its remediation succeeded (`isRemediatedStatus`). */
export const REMEDIATED_ROW_SQL = `coalesce(r.remediate->>'status', '') IN ('remediated', 'pass')`

/** SQL: scan `s` is superseded — a later completed scan of its account exists. */
export const SUPERSEDED_SQL = `EXISTS (SELECT 1 FROM scans t WHERE t.workspace_id = s.workspace_id AND t.account_id = s.account_id
  AND t.status = 'completed' AND (t.scan_start, t.id) > (s.scan_start, s.id))`

/**
 * The live scans of the workspace (of some accounts when given): not superseded. Open scans of those accounts are
 * locked first (a scan completes only while holding its row lock, server/scans/scans-store.ts), so no scan can become
 * completed — and supersede another — between this answer and the end of the caller's transaction.
 */
export const liveScans = Effect.fn("Algebra.liveScans")(function* (workspaceId: number, accountIds?: ReadonlyArray<number>) {
  const sql = yield* SqlClient.SqlClient
  const accounts = accountIds === undefined ? sql`` : sql`AND s.account_id = ANY(${accountIds as Array<number>}::int[])`
  yield* sql`SELECT s.id FROM scans s WHERE s.workspace_id = ${workspaceId} AND s.status IN ('pending', 'running') ${accounts}
             ORDER BY s.id FOR UPDATE`
  const rows = yield* sql<{ id: number }>`
    SELECT s.id FROM scans s WHERE s.workspace_id = ${workspaceId} ${accounts} AND NOT ${sql.literal(SUPERSEDED_SQL)} ORDER BY s.id`
  return rows.map((r) => r.id)
})

/** Whether the scan is superseded (a later completed scan of its account exists). */
export const isSuperseded = Effect.fn("Algebra.isSuperseded")(function* (workspaceId: number, scanId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ superseded: boolean }>`
    SELECT ${sql.literal(SUPERSEDED_SQL)} AS superseded FROM scans s WHERE s.workspace_id = ${workspaceId} AND s.id = ${scanId}`
  return rows[0]?.superseded === true
})

/**
 * Recomputes findings' remediated and muted counts, their muted flag and their status (remediated once every
 * non-compliant row is) from their non-compliant rows (`checkCounts`, `checkOutcome`). Answers the (scan, service) pairs
 * whose counts must follow (`recountServices`).
 */
export const recountFindings = Effect.fn("Algebra.recountFindings")(function* (workspaceId: number, findingIds: ReadonlyArray<number>) {
  const sql = yield* SqlClient.SqlClient
  if (findingIds.length === 0) return [] as ReadonlyArray<{ scan_id: number; service_id: number }>
  return yield* sql<{ scan_id: number; service_id: number }>`
    UPDATE findings f SET resources_remediated = c.remediated, resources_muted = c.muted,
      muted = c.muted > 0 AND c.open_unmuted = 0,
      status = CASE WHEN f.status IN ('fail', 'remediated') AND f.resources_failing > 0
                    THEN CASE WHEN c.remediated >= f.resources_failing THEN 'remediated' ELSE 'fail' END
                    ELSE f.status END
    FROM (
      SELECT f2.id,
             count(r.seq) FILTER (WHERE ${sql.literal(REMEDIATED_ROW_SQL)})::int AS remediated,
             count(r.seq) FILTER (WHERE r.muted_by IS NOT NULL AND NOT ${sql.literal(REMEDIATED_ROW_SQL)})::int AS muted,
             count(r.seq) FILTER (WHERE r.muted_by IS NULL AND NOT ${sql.literal(REMEDIATED_ROW_SQL)})::int AS open_unmuted
      FROM findings f2 LEFT JOIN results r ON r.workspace_id = f2.workspace_id AND r.finding_id = f2.id AND r.rank = 0
      WHERE f2.workspace_id = ${workspaceId} AND f2.id = ANY(${findingIds as Array<number>}::int[])
      GROUP BY f2.id
    ) c
    WHERE f.workspace_id = ${workspaceId} AND f.id = c.id
    RETURNING f.scan_id, f.service_id`
})

/**
 * Records a remediation's outcome on its row of a live scan; a remediated row is no longer muted (`rowOutcome`:
 * remediated wins). The caller then recounts (`recountFindings`, `recountServices`).
 */
export const recordRemediation = Effect.fn("Algebra.recordRemediation")(function* (
  workspaceId: number,
  findingId: number,
  seq: number,
  record: Readonly<Record<string, unknown>>,
) {
  const sql = yield* SqlClient.SqlClient
  yield* sql`INSERT INTO result_marks (workspace_id, finding_id, pos, remediate)
             VALUES (${workspaceId}, ${findingId}, ${seq}, ${JSON.stringify(record)}::jsonb)
             ON CONFLICT (workspace_id, finding_id, pos) DO UPDATE SET remediate = excluded.remediate,
               muted_by = CASE WHEN ${isRemediatedStatus(record["status"])} THEN NULL ELSE result_marks.muted_by END`
})

/**
 * Takes the snapshot of the mutes behind the muted rows of live scans (`scanIds`; one service of one scan with
 * `serviceId`): each rule's reason, expiry and author as they stand now. Replaces the scans' snapshot unless a service
 * is named (then adds to it).
 */
export const snapshotMutes = Effect.fn("Algebra.snapshotMutes")(function* (
  workspaceId: number,
  scanIds: ReadonlyArray<number>,
  serviceId?: number,
) {
  const sql = yield* SqlClient.SqlClient
  if (scanIds.length === 0) return
  const scans = scanIds as Array<number>
  if (serviceId === undefined) yield* sql`DELETE FROM scan_mutes WHERE workspace_id = ${workspaceId} AND scan_id = ANY(${scans}::int[])`
  yield* sql`
    INSERT INTO scan_mutes (workspace_id, scan_id, rule_id, reason, expires_at, author)
    SELECT ${workspaceId}, u.scan_id, m.id, m.reason, m.expires_at, coalesce(uu.email, cu.email)
    FROM (SELECT DISTINCT f.scan_id, r.muted_by
          FROM findings f JOIN results r ON r.workspace_id = f.workspace_id AND r.finding_id = f.id AND r.rank = 0
          WHERE f.workspace_id = ${workspaceId} AND f.scan_id = ANY(${scans}::int[]) AND f.resources_muted > 0
            ${serviceId === undefined ? sql`` : sql`AND f.service_id = ${serviceId}`} AND r.muted_by IS NOT NULL) u
    JOIN mute_rules m ON m.workspace_id = ${workspaceId} AND m.id = u.muted_by
    LEFT JOIN users uu ON uu.id = m.updated_by LEFT JOIN users cu ON cu.id = m.created_by
    ON CONFLICT (workspace_id, scan_id, rule_id) DO UPDATE SET reason = excluded.reason, expires_at = excluded.expires_at, author = excluded.author`
})

/** SQL of a muted row's snapshot columns (`sm`, joined on `r.scan_id` and `r.muted_by`). */
export const joinScanMutes = (sql: SqlClient.SqlClient) =>
  sql`LEFT JOIN scan_mutes sm ON sm.workspace_id = r.workspace_id AND sm.scan_id = r.scan_id AND sm.rule_id = r.muted_by`

/** Per finding of the scans, the mutes behind its open muted rows (rule, snapshot, how many rows), for compliance. */
export const exceptionsOf = Effect.fn("Algebra.exceptionsOf")(function* (workspaceId: number, scanIds: ReadonlyArray<number>) {
  const sql = yield* SqlClient.SqlClient
  const out = new Map<number, Array<MuteException>>()
  if (scanIds.length === 0) return out
  const rows = yield* sql<{
    finding_id: number; check_id: string; rule_id: number; reason: string | null; expires_at: Date | string | null; author: string | null; n: number
  }>`
    SELECT f.id AS finding_id, f.check_id, r.muted_by AS rule_id, sm.reason, sm.expires_at, sm.author, count(*)::int AS n
    FROM findings f JOIN results r ON r.workspace_id = f.workspace_id AND r.finding_id = f.id AND r.rank = 0
    ${joinScanMutes(sql)}
    WHERE f.workspace_id = ${workspaceId} AND f.scan_id = ANY(${scanIds as Array<number>}::int[]) AND f.resources_muted > 0
      AND r.muted_by IS NOT NULL AND NOT ${sql.literal(REMEDIATED_ROW_SQL)}
    GROUP BY f.id, f.check_id, r.muted_by, sm.reason, sm.expires_at, sm.author
    ORDER BY f.id, r.muted_by`
  for (const r of rows) {
    const list = out.get(r.finding_id) ?? []
    list.push({ check_id: r.check_id, rule_id: r.rule_id, reason: r.reason ?? "", expires_at: isoOrNull(r.expires_at), author: r.author, resources: r.n })
    out.set(r.finding_id, list)
  }
  return out
})

/** Failing resources by severity of each scan (`failingBySeverity` over its findings' counts). */
export const failingBySeverityOf = Effect.fn("Algebra.failingBySeverityOf")(function* (workspaceId: number, scanIds: ReadonlyArray<number>) {
  const sql = yield* SqlClient.SqlClient
  const out = new Map<number, Record<Severity, number>>()
  if (scanIds.length === 0) return out
  const rows = yield* sql<{ scan_id: number; severity: Severity; resources_failing: number; resources_remediated: number; resources_muted: number; resources_checked: number }>`
    SELECT f.scan_id, f.severity, sum(f.resources_failing)::int AS resources_failing, sum(f.resources_remediated)::int AS resources_remediated,
           sum(f.resources_muted)::int AS resources_muted, 0 AS resources_checked
    FROM findings f
    WHERE f.workspace_id = ${workspaceId} AND f.scan_id = ANY(${scanIds as Array<number>}::int[]) AND f.status = 'fail'
    GROUP BY f.scan_id, f.severity`
  for (const id of scanIds) {
    const mine = rows.filter((r) => r.scan_id === id && (SEVERITIES as ReadonlyArray<string>).includes(r.severity))
    out.set(id, failingBySeverity(mine))
  }
  return out
})

/** The checks failing in the most of the given (latest) scans, with their failing resources. */
export const topFailingChecks = Effect.fn("Algebra.topFailingChecks")(function* (workspaceId: number, scanIds: ReadonlyArray<number>, limit: number) {
  const sql = yield* SqlClient.SqlClient
  if (scanIds.length === 0) return []
  return yield* sql<{ check_id: string; title: string; severity: string; resources: number; accounts: number }>`
    SELECT f.check_id, min(f.title) AS title, min(f.severity) AS severity,
           coalesce(sum(${sql.literal(FAILING_RESOURCES_SQL)}), 0)::int AS resources,
           count(DISTINCT s.account_id)::int AS accounts
    FROM findings f JOIN scans s ON s.id = f.scan_id
    WHERE f.workspace_id = ${workspaceId} AND f.scan_id = ANY(${scanIds as Array<number>}::int[]) AND f.status = 'fail'
      AND ${sql.literal(FAILING_RESOURCES_SQL)} > 0
    GROUP BY f.check_id
    ORDER BY count(DISTINCT s.account_id) DESC,
             min(${sql.literal(SEVERITY_ORDER_SQL)}),
             sum(${sql.literal(FAILING_RESOURCES_SQL)}) DESC, f.check_id
    LIMIT ${limit}`
})

/**
 * A scan's digest numbers by severity: new failing (failing rows new since the previous scan), still failing (the
 * other failing rows) and fixed (the findings' fixed resources); and its top new failing checks. "Failing" is the row
 * outcome fail: non-compliant, not remediated, not muted.
 */
export const digestNumbers = Effect.fn("Algebra.digestNumbers")(function* (workspaceId: number, scanId: number, top: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ severity: string; new_failing: number; still_failing: number }>`
    SELECT f.severity,
           count(r.seq) FILTER (WHERE r.delta = 'new')::int AS new_failing,
           count(r.seq) FILTER (WHERE r.delta IS DISTINCT FROM 'new')::int AS still_failing
    FROM findings f JOIN results r ON r.workspace_id = f.workspace_id AND r.finding_id = f.id AND r.rank = 0
    WHERE f.workspace_id = ${workspaceId} AND f.scan_id = ${scanId} AND f.status = 'fail' AND r.muted_by IS NULL
      AND NOT ${sql.literal(REMEDIATED_ROW_SQL)}
    GROUP BY f.severity`
  const fixed = yield* sql<{ severity: string; fixed: number }>`
    SELECT severity, coalesce(sum(resources_fixed), 0)::int AS fixed FROM findings
    WHERE workspace_id = ${workspaceId} AND scan_id = ${scanId} GROUP BY severity`
  const counts = SEVERITIES.map((severity) => ({
    severity,
    newFailing: rows.find((r) => r.severity === severity)?.new_failing ?? 0,
    stillFailing: rows.find((r) => r.severity === severity)?.still_failing ?? 0,
    fixed: fixed.find((r) => r.severity === severity)?.fixed ?? 0,
  }))
  const topNew = yield* sql<{ id: number; title: string; severity: string; resources: number }>`
    SELECT f.id, f.title, f.severity, count(r.seq)::int AS resources
    FROM findings f JOIN results r ON r.workspace_id = f.workspace_id AND r.finding_id = f.id AND r.rank = 0
    WHERE f.workspace_id = ${workspaceId} AND f.scan_id = ${scanId} AND f.status = 'fail' AND f.resources_new > 0 AND r.delta = 'new'
      AND r.muted_by IS NULL AND NOT ${sql.literal(REMEDIATED_ROW_SQL)}
    GROUP BY f.id
    ORDER BY ${sql.literal(SEVERITY_ORDER_SQL)}, count(r.seq) DESC, f.id
    LIMIT ${top}`
  return { counts, topNew }
})

/**
 * A finding counted as muted (issue 13): it fails and every failing row still open is muted (server/posture/mutes.ts).
 * Counted on `f` (a `findings` row). Failed findings are the failing ones that are not muted.
 */
export const FULLY_MUTED = `f.status = 'fail' AND f.muted`

/**
 * SQL: a service's check counts from its findings `f` — total, failed (not muted), muted, not evaluated — as columns of
 * one row (`recountServices`; server/scans/run-service.ts computes them in the statement that completes the service).
 */
export const SERVICE_COUNTS_SQL = `count(f.id)::int AS total,
             count(f.id) FILTER (WHERE f.status = 'fail' AND NOT f.muted)::int AS failed,
             count(f.id) FILTER (WHERE ${FULLY_MUTED})::int AS muted,
             count(f.id) FILTER (WHERE f.status = 'not_evaluated')::int AS not_evaluated`

/** SQL (a SET list on a service row): its stored check counts from `c`, a row of `SERVICE_COUNTS_SQL`. */
export const SERVICE_COUNTS_SET_SQL = `findings_count = c.total, failed_findings = c.failed, muted_findings = c.muted,
                                passed_findings = c.total - c.failed - c.muted - c.not_evaluated`

/**
 * Recounts the services holding `pairs` (scan, service) from their findings — findings, failed (not muted), muted,
 * passed (pass and remediated; not evaluated ones are the rest) — and then, unless told not to, their scans, whatever
 * the scan's status (after a service completed, a remediation, or a mute rule changed findings). The findings are found
 * through (scan_id, service_id), the leading columns of an index, never by a scan of every finding.
 */
export const recountServices = Effect.fn("Algebra.recountServices")(function* (
  workspaceId: number,
  pairs: ReadonlyArray<{ readonly scan_id: number; readonly service_id: number }>,
  options: { readonly scans: boolean } = { scans: true },
) {
  const sql = yield* SqlClient.SqlClient
  const unique = [...new Map(pairs.map((p) => [`${p.scan_id}:${p.service_id}`, p])).values()]
  if (unique.length === 0) return
  const counts = sql.literal(SERVICE_COUNTS_SQL)
  const only = unique.length === 1 ? unique[0]! : undefined
  if (only !== undefined) {
    // One service (every completed service job): plain equalities. The unnest join below, once PostgreSQL has switched
    // the prepared statement to its generic plan, cost about 7–12 ms of embedded database time per call (0.4–0.66 s of
    // the main thread's time per 54-service scan in bench:scan), this one under 2 ms.
    yield* sql`
    UPDATE scan_services ss SET ${sql.literal(SERVICE_COUNTS_SET_SQL)}
    FROM (
      SELECT ${counts}
      FROM findings f WHERE f.workspace_id = ${workspaceId} AND f.scan_id = ${only.scan_id} AND f.service_id = ${only.service_id}
    ) c
    WHERE ss.workspace_id = ${workspaceId} AND ss.scan_id = ${only.scan_id} AND ss.service_id = ${only.service_id}`
  } else {
    yield* sql`
    UPDATE scan_services ss SET ${sql.literal(SERVICE_COUNTS_SET_SQL)}
    FROM (
      SELECT p.scan_id, p.service_id, ${counts}
      FROM unnest(${unique.map((p) => p.scan_id)}::int[], ${unique.map((p) => p.service_id)}::int[]) AS p(scan_id, service_id)
      LEFT JOIN findings f ON f.workspace_id = ${workspaceId} AND f.scan_id = p.scan_id AND f.service_id = p.service_id
      GROUP BY p.scan_id, p.service_id
    ) c
    WHERE ss.workspace_id = ${workspaceId} AND ss.scan_id = c.scan_id AND ss.service_id = c.service_id`
  }
  if (!options.scans) return
  const scans = [...new Set(unique.map((p) => p.scan_id))]
  yield* sql`
    UPDATE scans s SET findings_count = a.findings, passed_findings = a.passed, failed_findings = a.failed, muted_findings = a.muted,
                       ${sql.literal(ROLLUP_SET_SQL)}
    FROM (SELECT scan_id, coalesce(sum(findings_count), 0)::int AS findings, coalesce(sum(passed_findings), 0)::int AS passed,
                 coalesce(sum(failed_findings), 0)::int AS failed, coalesce(sum(muted_findings), 0)::int AS muted
          FROM scan_services WHERE workspace_id = ${workspaceId} AND scan_id = ANY(${scans}::int[]) GROUP BY scan_id) a
    WHERE s.workspace_id = ${workspaceId} AND s.id = a.scan_id`
})
