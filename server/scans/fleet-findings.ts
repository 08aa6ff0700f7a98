/**
 * Findings across accounts (issue 31, "findings across accounts"; docs/api.md "Findings across accounts"): one page of
 * the findings of every account's latest completed scan (`accounts.latest_scan_id`, migration 0022), narrowed to some
 * accounts, an organisation or an organisation unit (and every unit below it), with the per-scan list's finding
 * filters and sorts (server/scans/findings-store.ts `listFindings`) and its totals — one statement per page. Retired
 * accounts are left out unless `account_id` names them; their findings then carry `account_retired`, as in a scan's list.
 *
 * The latest scans' findings carry `latest` (migration 0024), so the list never reads the workspace's earlier scans.
 * In the default order (status then severity then id, ascending) a page is read from `findings_latest_order_idx` in
 * that order — the first page or the page after a cursor costs its own rows and the rows its filters skip — and the
 * totals come from each latest scan's stored counts by (status, severity) (`scans.outcome_counts`, the algebra's
 * `OUTCOME_COUNTS_SQL`): a sum over one small object per account, never a pass over 150,000 findings. Any other sort
 * reads every latest finding of the scope once (still never an earlier scan's) for its page, its totals still from
 * the stored counts when no other filter is given. The service filter reads that service's latest findings, one range
 * of `findings_latest_check_idx` (migration 0034); the check filter those of the (service, check) keys whose texts
 * match it (`latest_checks_matching`: a walk over the distinct keys, the pattern tested once per distinct texts), and
 * still tests the filter on each finding read; change and region filters read every latest finding of the scope. The
 * resource search (`q`) stays within one scan. The statement is planned without JIT compilation (its estimated cost
 * made PostgreSQL compile it for ~1 s, longer than the read itself).
 */
import { Effect } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import { SEVERITIES } from "../../src/contracts/findings.ts"
import type { AccountId } from "../../src/contracts/ids.ts"
import { FAILING_RESOURCES_SQL, SEVERITY_ORDER_SQL, STATUS_ORDER_SQL } from "../posture/algebra.ts"
import {
  ACCOUNT_RETIRED_COLUMN,
  containsPattern,
  encodeCursor,
  findingClauses,
  retiredKey,
  selectFindings,
  sortKey,
  toFinding,
  type FindingFilter,
  type FindingOrder,
  type FindingRow,
  type ListPaging,
} from "./findings-store.ts"

/** Which accounts' latest scans the list spans (all of them, retired ones aside, when nothing is given). */
export interface FleetScope {
  /** These accounts only (retired ones included). */
  readonly accountIds?: ReadonlyArray<number> | undefined
  /** The member accounts of this organisation only. */
  readonly organizationId?: number | undefined
  /** The accounts of this unit and of every unit below it. */
  readonly unit?: string | undefined
}

/** The status rank (`STATUS_ORDER_SQL`) of each value of the status filter. */
const STATUS_RANK: Readonly<Record<string, number>> = { fail: 0, muted: 1, remediated: 2, not_evaluated: 3, pass: 4 }

/** The accounts of the scope, as conditions on `a` (an `accounts` row). */
const scopeClause = (sql: SqlClient.SqlClient, workspaceId: number, scope: FleetScope) =>
  sql.and([
    sql`a.workspace_id = ${workspaceId}`,
    sql`a.latest_scan_id IS NOT NULL`,
    scope.accountIds === undefined ? sql`a.retired_at IS NULL` : sql`a.id = ANY(${scope.accountIds as Array<number>}::int[])`,
    ...(scope.organizationId === undefined ? [] : [sql`a.organization_id = ${scope.organizationId}`]),
    // The unit and its descendants, as the organisation's last sync saw them (the units walk of account groups,
    // migration 0023); an account placed in the unit itself counts even when the walk does not know it.
    ...(scope.unit === undefined ? [] : [sql`(a.org_unit_id = ${scope.unit} OR (a.organization_id, a.org_unit_id) IN (
      WITH RECURSIVE u AS (
        SELECT ou.organization_id, ou.unit_id FROM organization_units ou WHERE ou.workspace_id = ${workspaceId} AND ou.unit_id = ${scope.unit}
        UNION
        SELECT c.organization_id, c.unit_id FROM u
        JOIN organization_units c ON c.workspace_id = ${workspaceId} AND c.organization_id = u.organization_id AND c.parent_unit_id = u.unit_id
      ) SELECT u.organization_id, u.unit_id FROM u))`]),
  ])

const some = <T>(xs: ReadonlyArray<T> | undefined): xs is ReadonlyArray<T> => xs !== undefined && xs.length > 0
const text = (s: string | undefined): s is string => s !== undefined && s.trim() !== ""

interface TotalsRow {
  readonly accounts: number
  readonly total: number
  readonly unfiltered: number
  readonly checked: number
  readonly failing: number
  readonly total_matched: number | null
  readonly before: number
}

interface PageRow extends FindingRow {
  readonly k1: number | string
  readonly k2: number
  readonly k3: number
  readonly matched: number | null
  readonly organization_id: number | null
  readonly org_unit_path: string | null
  /** The account is a member retired from its organisation (listed only when `account_id` names it). */
  readonly account_retired: boolean
}

/** Whether the stored counts answer the totals: no filter but status and severity (the two ranks they are keyed by). */
const byCounts = (filter: FindingFilter) =>
  filter.serviceId === undefined && filter.newOnly !== true && !some(filter.changes) && !text(filter.check) && !some(filter.regions)

/** Whether the order index answers the page as well: the default order. */
const byIndex = (filter: FindingFilter, order: FindingOrder) => order.sort === "status" && order.order === "asc" && byCounts(filter)

/** One page of the findings of the latest completed scans of the scope's accounts, with the list's totals. */
export const listFleetFindings = Effect.fn("FleetFindings.list")(function* (
  workspaceId: number,
  scope: FleetScope,
  filter: FindingFilter,
  order: FindingOrder,
  paging: ListPaging,
) {
  const sql = yield* SqlClient.SqlClient
  // No JIT compilation for this statement (transaction-local): its plans are estimated costly (a hashed sub-plan per
  // finding read) and PostgreSQL compiled them for ~1 s on the benchmark machine, longer than the whole read.
  yield* sql`SELECT set_config('jit', 'off', true)`
  const inScope = scopeClause(sql, workspaceId, scope)
  const regions = some(filter.regions) ? filter.regions : undefined
  const desc = order.order === "desc"
  const c = paging.cursor
  const offset = c === undefined ? (paging.page - 1) * paging.pageSize : 0
  const status = sql.literal(STATUS_ORDER_SQL)
  const severity = sql.literal(SEVERITY_ORDER_SQL)
  // The rollup keys the status and severity filters keep (every key when a filter is absent).
  const k2s = some(filter.statuses) ? filter.statuses.map((s) => STATUS_RANK[s]!) : [0, 1, 2, 3, 4]
  const k3s = some(filter.severities) ? filter.severities.map((s) => SEVERITIES.indexOf(s as never)) : [0, 1, 2, 3]
  // The stored counts' keys ("status rank:severity rank") the filters keep, and those of the groups before a cursor's.
  const kept = k2s.flatMap((k2) => k3s.map((k3) => [k2, k3] as const))
  const keys = kept.map(([k2, k3]) => `${k2}:${k3}`)
  const keysBefore = c === undefined ? [] : kept.filter(([k2, k3]) => k2 < c[3] || (k2 === c[3] && k3 < c[4])).map(([k2, k3]) => `${k2}:${k3}`)
  // The scope's latest scans, and their stored counts summed by key (one pass over the objects), then every key, the
  // kept ones, and the kept ones before the cursor's group.
  const counted = sql`
    sc AS (SELECT a.latest_scan_id AS scan_id FROM accounts a WHERE ${inScope}),
    ek AS (
      SELECT x.key, sum((x.value->>0)::int) AS n, sum((x.value->>1)::int) AS checked, sum((x.value->>2)::int) AS failing
      FROM sc JOIN scans s ON s.workspace_id = ${workspaceId} AND s.id = sc.scan_id CROSS JOIN jsonb_each(s.outcome_counts) x
      GROUP BY x.key
    ),
    e AS (
      SELECT coalesce(sum(ek.n), 0)::int AS unfiltered,
             coalesce(sum(ek.n) FILTER (WHERE ek.key = ANY(${keys}::text[])), 0)::int AS total,
             coalesce(sum(ek.checked) FILTER (WHERE ek.key = ANY(${keys}::text[])), 0)::int AS checked,
             coalesce(sum(ek.failing) FILTER (WHERE ek.key = ANY(${keys}::text[])), 0)::int AS failing,
             coalesce(sum(ek.n) FILTER (WHERE ek.key = ANY(${keysBefore}::text[])), 0)::int AS before
      FROM ek
    )`
  // A latest finding of the scope. The scope's scans are one hashed set per statement: the IN sits under IS TRUE so the
  // planner never turns it into a join that would drive the read from the accounts (scan by scan, then a sort), with or
  // without table statistics (the embedded database has none); every finding read is then one hash probe.
  const latest = sql`findings f`
  // The check filter: the latest findings of the (service, check) keys whose texts match it
  // (`latest_checks_matching`, migration 0034: a walk over the distinct keys), each key's findings one range of
  // `findings_latest_check_idx`. A key whose check id matches holds matching findings only, read from that index
  // alone; a key matched by a title or check text has the filter (findingClauses) tested on each of its findings.
  const byCheck = text(filter.check)
  const keyed = sql`lc JOIN findings f ON f.workspace_id = ${workspaceId} AND f.latest AND f.service_id = lc.service_id AND f.check_id = lc.check_id`
  const ofScope = sql`(f.scan_id IN (SELECT a.latest_scan_id FROM accounts a WHERE ${inScope})) IS TRUE`
  const where = sql.and([sql`f.workspace_id = ${workspaceId}`, sql`f.latest`, ofScope, ...findingClauses(sql, filter)])
  // The accounts row is selectFindings' own join: the organisation, unit and retired flag cost no further read.
  const extra = sql`, p.k1, p.k2, p.k3, p.matched, a.organization_id, a.org_unit_path, ${sql.literal(ACCOUNT_RETIRED_COLUMN)}`

  let rows: ReadonlyArray<Partial<PageRow> & TotalsRow>
  if (byIndex(filter, order)) {
    // After the cursor in (status rank, severity rank, id): a range of the order index.
    const after = c === undefined ? sql`true` : sql`((${status}), (${severity}), f.id) > (${c[3]}, ${c[4]}, ${c[5]})`
    // Rows before the cursor: whole (status, severity) groups from the stored counts, and the cursor's own group up
    // to it from the index.
    const before = c === undefined ? sql`${offset}::int` : sql`(
      (SELECT e.before FROM e)
      + (SELECT count(*) FROM ${latest} WHERE ${where} AND (${status}) = ${c[3]} AND (${severity}) = ${c[4]} AND f.id <= ${c[5]}))::int`
    rows = yield* sql<Partial<PageRow> & TotalsRow>`
      WITH ${counted},
      page AS (
        SELECT f.id, (${status}) AS k1, (${status}) AS k2, (${severity}) AS k3, NULL::int AS matched
        FROM ${latest}
        WHERE ${where} AND ${after}
        ORDER BY (${status}), (${severity}), f.id LIMIT ${paging.pageSize} OFFSET ${offset}
      ),
      totals AS (
        SELECT (SELECT count(*)::int FROM sc) AS accounts, e.unfiltered, e.total, e.checked, e.failing,
               NULL::int AS total_matched, ${before} AS before
        FROM e
      )
      SELECT t.*, w.*
      FROM totals t
      LEFT JOIN (${selectFindings(sql, extra, sql`page p JOIN findings f ON f.id = p.id`)}) w ON true
      ORDER BY w.k2, w.k3, w.id`
  } else {
    const k1 = sql.literal(sortKey(order.sort))
    const dir = sql.literal(desc ? "DESC" : "ASC")
    const matched = regions !== undefined
      ? sql`(SELECT coalesce(sum(x.value::int), 0)::int FROM jsonb_each_text(f.resources_by_region) x WHERE x.key IN ${sql.in(regions)})`
      : sql`NULL::int`
    const after = c === undefined ? sql`true`
      : sql`(m.k1 ${sql.literal(desc ? "<" : ">")} ${c[2]} OR (m.k1 = ${c[2]} AND (m.k2, m.k3, m.id) > (${c[3]}, ${c[4]}, ${c[5]})))`
    const serviceOnly = filter.serviceId === undefined ? [] : [sql`f.service_id = ${filter.serviceId}`]
    const rest = [...serviceOnly,
      ...(regions === undefined ? [] : [sql`EXISTS (SELECT 1 FROM jsonb_object_keys(f.resources_by_region) k WHERE k IN ${sql.in(regions)})`])]
    const read = (from: Statement.Fragment, conditions: ReadonlyArray<Statement.Fragment>) => sql`
        SELECT f.id, ${k1} AS k1, (${status}) AS k2, (${severity}) AS k3, ${matched} AS matched,
               f.resources_checked AS checked, ${sql.literal(FAILING_RESOURCES_SQL)} AS failing
        FROM ${from}
        ${order.sort === "service" ? sql`JOIN cloud_services cs ON cs.id = f.service_id` : sql``}
        WHERE ${sql.and(conditions)}`
    const whereNoCheck = sql.and([sql`f.workspace_id = ${workspaceId}`, sql`f.latest`, ofScope, ...findingClauses(sql, { ...filter, check: undefined })])
    rows = yield* sql<Partial<PageRow> & TotalsRow>`
      WITH ${counted},
      ${byCheck ? sql`lc AS MATERIALIZED (SELECT * FROM latest_checks_matching(${containsPattern(filter.check!.trim())})),` : sql``}
      m AS (${byCheck
        ? sql`${read(keyed, [sql`lc.by_id`, whereNoCheck, ...rest])}
        UNION ALL ${read(keyed, [sql`NOT lc.by_id`, where, ...rest])}`
        : read(latest, [where, ...rest])}
      ),
      page AS (
        SELECT m.* FROM m WHERE ${after} ORDER BY m.k1 ${dir}, m.k2, m.k3, m.id LIMIT ${paging.pageSize} OFFSET ${offset}
      ),
      ${byCounts(filter)
        // The totals from the stored counts (m is then read once, for the page, unless a cursor needs its rank).
        ? sql`mt AS (
        SELECT e.total, e.checked, e.failing, NULL::int AS total_matched,
               ${c === undefined ? sql`${offset}::int` : sql`(SELECT count(*)::int FROM m WHERE NOT ${after})`} AS before
        FROM e
      ),`
        // The totals of the filtered findings in one pass.
        : sql`mt AS (
        SELECT count(*)::int AS total, coalesce(sum(m.checked), 0)::int AS checked, coalesce(sum(m.failing), 0)::int AS failing,
               sum(m.matched)::int AS total_matched,
               ${c === undefined ? sql`${offset}::int` : sql`(count(*) FILTER (WHERE NOT ${after}))::int`} AS before
        FROM m
      ),`}
      totals AS (
        SELECT (SELECT count(*)::int FROM sc) AS accounts,
               ${filter.serviceId === undefined
                 ? sql`(SELECT e.unfiltered FROM e)`
                 : sql`(SELECT count(*)::int FROM ${latest} WHERE f.workspace_id = ${workspaceId} AND f.latest AND ${ofScope} AND f.service_id = ${filter.serviceId})`} AS unfiltered,
               mt.total, mt.checked, mt.failing, mt.total_matched, mt.before
        FROM mt
      )
      SELECT t.*, w.*
      FROM totals t
      LEFT JOIN (${selectFindings(sql, extra, sql`page p JOIN findings f ON f.id = p.id`)}) w ON true
      ORDER BY w.k1 ${dir}, w.k2, w.k3, w.id`
  }

  const head = rows[0]
  const total = head?.total ?? 0
  const before = head?.before ?? 0
  const data = rows.filter((r): r is PageRow & TotalsRow => r.id !== null && r.id !== undefined)
  const last = data.at(-1)
  const textKey = order.sort === "service" || order.sort === "check"
  return {
    data: data.map((r) => ({
      ...toFinding(r),
      organization_id: r.organization_id === null ? null : (r.organization_id as AccountId),
      org_unit_path: r.org_unit_path,
      ...(regions !== undefined ? { resources_matched: r.matched ?? 0 } : {}),
      // As in a scan's list (issue 31): a retired member's findings say so, and are offered no bulk remediation.
      ...retiredKey(r),
    })),
    pagination: { page: Math.floor(before / paging.pageSize) + 1, page_size: paging.pageSize, total, total_pages: Math.ceil(total / paging.pageSize) },
    totals: {
      findings: total,
      findings_unfiltered: head?.unfiltered ?? 0,
      resources_checked: head?.checked ?? 0,
      resources_failing: head?.failing ?? 0,
      resources_matched: regions !== undefined ? (head?.total_matched ?? 0) : null,
      accounts: head?.accounts ?? 0,
    },
    next_cursor: last !== undefined && before + data.length < total
      ? encodeCursor([order.sort, order.order, textKey ? String(last.k1) : Number(last.k1), Number(last.k2), Number(last.k3), last.id])
      : null,
  }
})
