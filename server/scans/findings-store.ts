/**
 * SQL of findings (read side): the paginated list of one scan (optionally one service, optionally some statuses) with
 * counts and no detail rows, one finding with one page of its result rows, and keyset pages of findings and of a
 * finding's rows for the streamed export. Every query runs in an RLS scope and filters on `workspace_id`.
 * Rows are built to the contract's `Finding` shape (src/contracts/findings.ts).
 *
 * Detail pages read a range of the results' primary key (workspace_id, finding_id, seq): the writer numbers every
 * non-compliant row first (server/scans/results.ts), so "all", "fail" and "pass" pages are key ranges computed from the
 * finding's counts — no OFFSET, no count(*), whatever the finding's size. A search (`q`) or the "remediated" filter scans
 * the one finding's rows only.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import {
  specStatus,
  type ComplianceRef,
  type DetailRow,
  type DetailStatus,
  type Finding,
  type FindingChange,
  type FindingOutcome,
  type FindingSort,
  type Severity,
  type SortOrder,
} from "../../src/contracts/findings.ts"
import type { AccountId, FindingId, ScanId, ServiceId } from "../../src/contracts/ids.ts"
import { iso } from "../accounts/accounts-store.ts"
import { providerDisplayName } from "../accounts/providers.ts"
import { FAILING_RESOURCES_SQL, isSuperseded, SEVERITY_ORDER_SQL, STATUS_ORDER_SQL } from "../posture/algebra.ts"
import { selectResultRows, toDetailRow, type ResultRow } from "./results.ts"
import { ORDER_KEY_RANK } from "../export/export-stream.ts"
import { PAGE_MARK } from "../db/migrations/0020_storage_by_change.ts"

export interface FindingRow {
  readonly id: number
  readonly scan_id: number
  readonly service_id: number
  readonly service_name: string
  readonly check_id: string
  readonly severity: Severity
  /** The stored status is the outcome (server/db/migrations/0010_not_evaluated.ts). */
  readonly status: FindingOutcome
  readonly not_evaluated_reason: string | null
  readonly title: string
  readonly description: string
  readonly policy_check: string
  readonly remediation: string | null
  readonly field_labels: Readonly<Record<string, string>>
  readonly compliance: ReadonlyArray<ComplianceRef>
  readonly created_at: Date | string
  readonly account_name: string
  readonly account_id: number
  readonly cloud_account_id: string
  readonly cloud_provider_id: number
  readonly resources_checked: number
  readonly resources_failing: number
  readonly resources_remediated: number
  readonly resources_new: number
  readonly resources_fixed: number
  readonly resources_muted: number
  readonly muted: boolean
}

export const toFinding = (r: FindingRow, details: ReadonlyArray<DetailRow> = []): Finding => ({
  id: r.id as FindingId,
  scan_id: r.scan_id as ScanId,
  service_id: r.service_id as ServiceId,
  description: r.description,
  severity: r.severity,
  status: specStatus(r.status),
  outcome: r.status,
  not_evaluated_reason: r.not_evaluated_reason,
  created_at: iso(r.created_at),
  service_name: r.service_name,
  account_name: r.account_name,
  account_id: r.account_id as AccountId,
  aws_account_id: r.cloud_account_id,
  cloud_provider_name: providerDisplayName(r.cloud_provider_id),
  policy_check: r.policy_check,
  field_labels: r.field_labels,
  details,
  check_id: r.check_id,
  remediation: r.remediation,
  compliance: r.compliance,
  resources_checked: r.resources_checked,
  resources_failing: r.resources_failing,
  resources_remediated: r.resources_remediated,
  resources_new: r.resources_new,
  resources_fixed: r.resources_fixed,
  resources_muted: r.resources_muted,
  muted: r.muted,
})

export interface FindingFilter {
  readonly serviceId?: number | undefined
  readonly statuses?: ReadonlyArray<string> | undefined
  readonly severities?: ReadonlyArray<string> | undefined
  /** Only findings with resources failing since the previous scan. */
  readonly newOnly?: boolean | undefined
  /** new: resources failing since the previous scan; fixed: resources fixed since then (either matches). */
  readonly changes?: ReadonlyArray<FindingChange> | undefined
  /** Check id or check text contains this (case-insensitive). */
  readonly check?: string | undefined
  /** At least one resource in one of these regions. */
  readonly regions?: ReadonlyArray<string> | undefined
  /** At least one resource whose id contains this (case-insensitive). */
  readonly q?: string | undefined
}

const SEVERITY_ORDER = SEVERITY_ORDER_SQL
/** Failed (not muted) first, then muted, remediated, not evaluated, passed: the list's default order. */
const STATUS_ORDER = STATUS_ORDER_SQL

export const selectFindings = (sql: SqlClient.SqlClient, extra = sql``, from = sql`findings f`) => sql`
  SELECT f.id, f.scan_id, f.service_id, cs.name AS service_name, f.check_id, f.severity, f.status, f.title, f.description,
         f.policy_check, f.remediation, f.field_labels, f.compliance, f.created_at, f.not_evaluated_reason,
         f.resources_checked, f.resources_failing, f.resources_remediated, f.resources_new, f.resources_fixed, f.resources_muted, f.muted, a.id AS account_id, a.account_name, a.cloud_account_id, a.cloud_provider_id::int AS cloud_provider_id${extra}
  FROM ${from}
  JOIN cloud_services cs ON cs.id = f.service_id
  JOIN scans s ON s.id = f.scan_id
  JOIN accounts a ON a.id = s.account_id`

/**
 * The `account_retired` column (issue 31: the account is a member retired from its organisation), for `extra` of
 * `selectFindings`: read from the accounts row it already joins, so the flag costs the lists no read of their own.
 */
export const ACCOUNT_RETIRED_COLUMN = "a.retired_at IS NOT NULL AS account_retired"

/** A list's finding carries `account_retired` only when true (the lists then offer it no bulk remediation). */
export const retiredKey = (r: { readonly account_retired: boolean }): { readonly account_retired?: true } =>
  r.account_retired ? { account_retired: true } : {}

/**
 * The list's status filter: outcomes, where `fail` means failing and not muted, and `muted` means failing with every
 * open failing row muted (issue 13).
 */
export const statusClause = (sql: SqlClient.SqlClient, statuses: ReadonlyArray<string>) => {
  const plain = statuses.filter((s) => s !== "fail" && s !== "muted")
  return sql.or([
    ...(plain.length === 0 ? [] : [sql`f.status IN ${sql.in(plain)}`]),
    ...(statuses.includes("fail") ? [sql`(f.status = 'fail' AND NOT f.muted)`] : []),
    ...(statuses.includes("muted") ? [sql`(f.status = 'fail' AND f.muted)`] : []),
  ])
}

const some = <T>(xs: ReadonlyArray<T> | undefined): xs is ReadonlyArray<T> => xs !== undefined && xs.length > 0
const text = (s: string | undefined): s is string => s !== undefined && s.trim() !== ""

/** The finding-level filters (the resource-level ones, region and q, are joined in by `listFindings`). */
export const findingClauses = (sql: SqlClient.SqlClient, filter: FindingFilter) => {
  const changes = [...(filter.changes ?? []), ...(filter.newOnly === true ? ["new" as const] : [])]
  return [
    ...(some(filter.statuses) ? [statusClause(sql, filter.statuses)] : []),
    ...(some(filter.severities) ? [sql`f.severity IN ${sql.in(filter.severities)}`] : []),
    ...(changes.length === 0 ? [] : [sql.or([
      ...(changes.includes("new") ? [sql`f.resources_new > 0`] : []),
      ...(changes.includes("fixed") ? [sql`f.resources_fixed > 0`] : []),
    ])]),
    ...(text(filter.check)
      ? [sql`(f.check_id ILIKE ${containsPattern(filter.check.trim())} OR f.title ILIKE ${containsPattern(filter.check.trim())}
              OR f.policy_check ILIKE ${containsPattern(filter.check.trim())})`]
      : []),
  ]
}

/**
 * The findings of scan `scanId` holding a row of the resource `inv.resource_uid` whose id matches `q` (and region is
 * one of `regions`): the resource's versions by `result_rows_resource_idx`, then each version's finding in that scan
 * by `findings_stream_idx` (a LATERAL probe: the plan holds without statistics, migration 0019's reasoning).
 */
const scanRowsOf = (sql: SqlClient.SqlClient, workspaceId: number, scanId: number, q: string, regions: ReadonlyArray<string> | undefined) => sql`
  SELECT fx.id AS finding_id FROM result_rows rv
  CROSS JOIN LATERAL (
    SELECT f.id FROM findings f
    WHERE f.workspace_id = rv.workspace_id AND f.stream_id = rv.stream_id AND f.id >= rv.from_finding AND f.id < rv.to_finding
      AND f.scan_id = ${scanId}
    OFFSET 0) fx
  WHERE rv.workspace_id = ${workspaceId} AND rv.resource_uid = inv.resource_uid AND rv.resource_id ILIKE ${q}
    ${regions === undefined ? sql`` : sql`AND rv.region IN ${sql.in(regions)}`}`

/**
 * Every filter as conditions on `f` (the export's pages): the resource-level ones as "has a matching resource" — a
 * region through the finding's per-region counts, a search through the inventory lookup (computed once per statement).
 */
const filterClause = (sql: SqlClient.SqlClient, workspaceId: number, scanId: number, filter: FindingFilter) => {
  const regions = some(filter.regions) ? filter.regions : undefined
  const q = text(filter.q) ? containsPattern(filter.q.trim()) : undefined
  return sql.and([
    sql`f.workspace_id = ${workspaceId}`,
    sql`f.scan_id = ${scanId}`,
    ...(filter.serviceId === undefined ? [] : [sql`f.service_id = ${filter.serviceId}`]),
    ...findingClauses(sql, filter),
    ...(q !== undefined
      ? [sql`f.id IN (
          SELECT r.finding_id
          FROM findings_resource_uids((SELECT sc.account_id FROM scans sc WHERE sc.workspace_id = ${workspaceId} AND sc.id = ${scanId}), ${q}) inv
          CROSS JOIN LATERAL (${scanRowsOf(sql, workspaceId, scanId, q, regions)}) r)`]
      : regions !== undefined
        ? [sql`EXISTS (SELECT 1 FROM jsonb_object_keys(f.resources_by_region) k WHERE k IN ${sql.in(regions)})`]
        : []),
  ])
}

export interface FindingOrder {
  readonly sort: FindingSort
  readonly order: SortOrder
}

/** The position of a finding in a list order: its sort key, then the default order's keys and its id. */
export type ListCursor = readonly [sort: FindingSort, order: SortOrder, k1: number | string, k2: number, k3: number, id: number]

/** Opaque to the client: base64url of the last row's position. */
export const encodeCursor = (c: ListCursor): string => Buffer.from(JSON.stringify(c)).toString("base64url")
/** The cursor, or undefined when it is not one of ours or was made for another order. */
export const decodeCursor = (raw: string, order: FindingOrder): ListCursor | undefined => {
  try {
    const c: unknown = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"))
    if (!Array.isArray(c) || c.length !== 6) return undefined
    const [sort, dir, k1, k2, k3, id] = c as Array<unknown>
    const textKey = sort === "service" || sort === "check"
    if (sort !== order.sort || dir !== order.order) return undefined
    if (textKey ? typeof k1 !== "string" : !Number.isInteger(k1)) return undefined
    if (![k2, k3, id].every(Number.isInteger)) return undefined
    return [order.sort, order.order, k1 as number | string, k2 as number, k3 as number, id as number]
  } catch {
    return undefined
  }
}

/** The sort key of a finding in the statement below (`f` is the scope row, `cs` its service). */
export const sortKey = (sort: FindingSort): string =>
  sort === "status" ? STATUS_ORDER
    : sort === "severity" ? SEVERITY_ORDER
    : sort === "service" ? "cs.name"
    : sort === "check" ? "f.check_id"
    : sort === "failing" ? FAILING_RESOURCES_SQL
    : sort === "new" ? "f.resources_new"
    : "f.resources_fixed"

export interface ListPaging {
  readonly page: number
  readonly pageSize: number
  /** When given, the page after this position (and `page` is computed). */
  readonly cursor?: ListCursor | undefined
}

interface ListRow extends FindingRow {
  readonly k1: number | string
  readonly k2: number
  readonly k3: number
  readonly matched: number | null
  /** The account is a member retired from its organisation (issue 31). */
  readonly account_retired: boolean
}

interface TotalsRow {
  readonly total: number
  readonly unfiltered: number
  readonly checked: number
  readonly failing: number
  readonly matched: number | null
  readonly before: number
  readonly regions: ReadonlyArray<string> | null
}

/**
 * One page of a scan's findings (of one service, or of every service), filtered and sorted on the server, with the
 * list's totals — in one statement. The scan's findings (a few hundred, by `findings_scan_idx`) are filtered on their
 * own columns; a region filter reads each finding's per-region counts (`resources_by_region`, migration 0016) rather
 * than its rows; a resource search (`q`) looks the text up in the account's inventory (`resources`, one row per
 * resource; trigram index, migrations 0017 and 0018) and reaches this scan's rows of the resources found through
 * `results_resource_idx` (migration 0012), so no
 * filter reads the scan's result rows at large. The page is cut by keyset (`cursor`) or by offset (`page`) in a total
 * order (the sort key, then the default order, then id); its wide rows (texts, JSON) are read by id afterwards.
 */
export const listFindings = Effect.fn("FindingsStore.list")(function* (
  workspaceId: number,
  scanId: number,
  filter: FindingFilter,
  order: FindingOrder,
  paging: ListPaging,
) {
  const sql = yield* SqlClient.SqlClient
  const regions = some(filter.regions) ? filter.regions : undefined
  const q = text(filter.q) ? containsPattern(filter.q.trim()) : undefined
  const k1 = sql.literal(sortKey(order.sort))
  const desc = order.order === "desc"
  const dir = sql.literal(desc ? "DESC" : "ASC")
  // Resource search: this scan's rows of the account's resources whose id contains the text, counted per finding.
  // (The inventory lookup goes through findings_resource_uids, migration 0018: under row-level security an ILIKE is
  // never an index condition, the function's lookup uses the trigram index of migration 0017.)
  // Each uid found reaches this scan's rows by a LATERAL lookup of results_resource_idx: a plan that holds without
  // table statistics (the embedded database never analyzes; migration 0019).
  const hits = q === undefined ? sql`` : sql`, hits AS (
      SELECT r.finding_id, count(*)::int AS n
      FROM findings_resource_uids((SELECT sc.account_id FROM scans sc WHERE sc.workspace_id = ${workspaceId} AND sc.id = ${scanId}), ${q}) inv
      CROSS JOIN LATERAL (${scanRowsOf(sql, workspaceId, scanId, q, regions)}) r
      GROUP BY r.finding_id)`
  const matched = q !== undefined ? sql`h.n`
    : regions !== undefined ? sql`(SELECT coalesce(sum(e.value::int), 0)::int FROM jsonb_each_text(f.resources_by_region) e WHERE e.key IN ${sql.in(regions)})`
    : sql`NULL::int`
  const where = sql.and([
    sql`true`,
    ...findingClauses(sql, filter),
    ...(q === undefined && regions !== undefined
      ? [sql`EXISTS (SELECT 1 FROM jsonb_object_keys(f.resources_by_region) k WHERE k IN ${sql.in(regions)})`]
      : []),
  ])
  const c = paging.cursor
  // After the cursor in the list's order: a later sort key, or the same one and a later (default order, id).
  const after = c === undefined ? sql`true`
    : sql`(m.k1 ${sql.literal(desc ? "<" : ">")} ${c[2]} OR (m.k1 = ${c[2]} AND (m.k2, m.k3, m.id) > (${c[3]}, ${c[4]}, ${c[5]})))`
  const offset = c === undefined ? (paging.page - 1) * paging.pageSize : 0
  const rows = yield* sql<Partial<ListRow> & TotalsRow>`
    WITH scope AS (
      SELECT f.id, f.service_id, f.status, f.muted, f.severity, f.check_id, f.title, f.policy_check, f.resources_checked,
             f.resources_failing, f.resources_remediated, f.resources_muted, f.resources_new, f.resources_fixed, f.resources_by_region
      FROM findings f
      WHERE f.workspace_id = ${workspaceId} AND f.scan_id = ${scanId}
        ${filter.serviceId === undefined ? sql`` : sql`AND f.service_id = ${filter.serviceId}`}
    )${hits},
    m AS (
      SELECT f.id, ${k1} AS k1, ${sql.literal(STATUS_ORDER)} AS k2, ${sql.literal(SEVERITY_ORDER)} AS k3, ${matched} AS matched,
             f.resources_checked AS checked, ${sql.literal(FAILING_RESOURCES_SQL)} AS failing
      FROM scope f
      ${order.sort === "service" ? sql`JOIN cloud_services cs ON cs.id = f.service_id` : sql``}
      ${q === undefined ? sql`` : sql`JOIN hits h ON h.finding_id = f.id`}
      WHERE ${where}
    ),
    page AS (
      SELECT m.* FROM m WHERE ${after} ORDER BY m.k1 ${dir}, m.k2, m.k3, m.id LIMIT ${paging.pageSize} OFFSET ${offset}
    ),
    totals AS (
      SELECT (SELECT count(*)::int FROM m) AS total,
             (SELECT count(*)::int FROM scope) AS unfiltered,
             (SELECT coalesce(sum(m.checked), 0)::int FROM m) AS checked,
             (SELECT coalesce(sum(m.failing), 0)::int FROM m) AS failing,
             (SELECT sum(m.matched)::int FROM m) AS matched,
             ${c === undefined ? sql`${offset}::int` : sql`(SELECT count(*)::int FROM m WHERE NOT ${after})`} AS before,
             (SELECT array_agg(DISTINCT k ORDER BY k) FROM scope f, jsonb_object_keys(f.resources_by_region) k) AS regions
    )
    SELECT t.total, t.unfiltered, t.checked, t.failing, t.matched AS total_matched, t.before, t.regions, w.*
    FROM totals t
    LEFT JOIN (${selectFindings(sql, sql`, p.k1, p.k2, p.k3, p.matched, ${sql.literal(ACCOUNT_RETIRED_COLUMN)}`, sql`page p JOIN findings f ON f.id = p.id`)}) w ON true
    ORDER BY w.k1 ${dir}, w.k2, w.k3, w.id`
  const head = rows[0] as (TotalsRow & { readonly total_matched: number | null }) | undefined
  const total = head?.total ?? 0
  const before = head?.before ?? 0
  const data = rows.filter((r): r is ListRow & TotalsRow => r.id !== null && r.id !== undefined)
  const last = data.at(-1)
  const page = Math.floor(before / paging.pageSize) + 1
  const resourceFilter = regions !== undefined || q !== undefined
  return {
    // A retired member's findings say so (issue 31: the list offers them no bulk remediation); others carry no such key.
    data: data.map((r) => ({ ...toFinding(r), ...(resourceFilter ? { resources_matched: r.matched ?? 0 } : {}), ...retiredKey(r) })),
    pagination: { page, page_size: paging.pageSize, total, total_pages: Math.ceil(total / paging.pageSize) },
    totals: {
      findings: total,
      findings_unfiltered: head?.unfiltered ?? 0,
      resources_checked: head?.checked ?? 0,
      resources_failing: head?.failing ?? 0,
      resources_matched: resourceFilter ? (head?.total_matched ?? 0) : null,
    },
    next_cursor: last !== undefined && before + data.length < total
      ? encodeCursor([order.sort, order.order, order.sort === "service" || order.sort === "check" ? String(last.k1) : Number(last.k1), Number(last.k2), Number(last.k3), last.id])
      : null,
    regions: head?.regions ?? [],
  }
})

export interface DetailPageRequest {
  readonly page: number
  readonly pageSize: number
  readonly status: DetailStatus | null
  readonly q: string | null
}

/** LIKE pattern matching `q` anywhere, with the wildcards of `q` itself taken literally. */
export const containsPattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`


/**
 * One page of a finding's rows and how many rows the filter matches. The finding's order is failing rows first, then by
 * `seq` (`(rank, seq)`, the key of `result_rows_order_idx`, migration 0020). An unfiltered page (all rows, passing rows,
 * or failing rows while none is muted) starts from the finding's page mark at or before its position — a key — and
 * skips fewer than PAGE_MARK rows, so the last page of a 100,000-row finding costs what the first does. Rows a mark
 * names (muted, remediated, new) are read from the finding's marks; a search reads the finding's rows once.
 */
export const detailPage = Effect.fn("FindingsStore.detailPage")(function* (
  workspaceId: number,
  finding: Pick<FindingRow, "id" | "resources_checked" | "resources_failing" | "resources_remediated" | "resources_new" | "resources_muted">,
  req: DetailPageRequest,
) {
  const sql = yield* SqlClient.SqlClient
  // The positions holding the rows of the status filter.
  const [lo, hi] = req.status === "pass" ? [finding.resources_failing, finding.resources_checked]
    : req.status === null ? [0, finding.resources_checked]
    : [0, finding.resources_failing]
  const offset = (req.page - 1) * req.pageSize
  // "fail" is all rank-0 rows only while no row of the finding is muted (muted rows are left out of it).
  const counted = req.status === "remediated" || req.status === "new" || req.status === "muted" || (req.status === "fail" && finding.resources_muted > 0)
  const plain = req.q === null && !counted
  const from = lo + offset
  if (plain && from >= hi) return { rows: [], total: hi - lo }
  // Start from the nearest known key at or before the position: the last page mark, or the first passing row.
  const mark = plain ? Math.floor(from / PAGE_MARK) : 0
  const passStart = plain && from >= finding.resources_failing && finding.resources_failing > mark * PAGE_MARK
  const base = passStart ? finding.resources_failing : mark * PAGE_MARK
  const head = (yield* sql<{ stream_id: number; mark: number | null }>`
    SELECT stream_id, ${mark > 0 && !passStart ? sql`page_marks[${mark}]` : sql`NULL::int`} AS mark
    FROM findings WHERE workspace_id = ${workspaceId} AND id = ${finding.id}`)[0]
  if (head === undefined) return { rows: [], total: 0 }

  // First the page's positions, straight from the stream's versions (the order index, a constant stream) — and from
  // the finding's marks when the filter is one a mark names — then the page's rows through the view by key.
  const visible = sql`r.workspace_id = ${workspaceId} AND r.stream_id = ${head.stream_id}
    AND r.from_finding <= ${finding.id} AND r.to_finding > ${finding.id}`
  const rank = req.status === "pass" ? [sql`r.rank = 1`] : req.status === null ? [] : [sql`r.rank = 0`]
  const marked = req.status === "remediated" ? sql`m.remediate->>'status' IN ('remediated', 'pass')`
    : req.status === "new" ? sql`m.delta = 'new'`
    : req.status === "muted" ? sql`m.muted_by IS NOT NULL`
    : undefined
  const search = req.q === null ? [] : [sql`r.resource_id ILIKE ${containsPattern(req.q)}`]
  // The filtered rows' positions from `skip` on, each with how many rows the filter matches.
  const filtered = (skip: number, limit: number) =>
    marked !== undefined
      ? sql<{ rank: number; pos: number; total: number }>`
          SELECT r.rank, r.pos, count(*) OVER ()::int AS total
          FROM result_marks m JOIN result_rows r ON r.workspace_id = m.workspace_id AND r.stream_id = ${head.stream_id} AND r.pos = m.pos
          WHERE m.workspace_id = ${workspaceId} AND m.finding_id = ${finding.id} AND ${marked}
            AND ${sql.and([visible, ...rank, ...search])}
          ORDER BY r.rank, r.pos OFFSET ${skip} LIMIT ${limit}`
      : sql<{ rank: number; pos: number; total: number }>`
          SELECT r.rank, r.pos, count(*) OVER ()::int AS total
          FROM result_rows r
          ${req.status === "fail" && finding.resources_muted > 0
            ? sql`LEFT JOIN result_marks m ON m.workspace_id = r.workspace_id AND m.finding_id = ${finding.id} AND m.pos = r.pos` : sql``}
          WHERE ${sql.and([visible, ...rank, ...search,
            ...(req.status === "fail" && finding.resources_muted > 0 ? [sql`m.muted_by IS NULL`] : [])])}
          ORDER BY r.rank, r.pos OFFSET ${skip} LIMIT ${limit}`
  const positions = plain
    ? yield* sql<{ rank: number; pos: number; total: number }>`
        SELECT p.rank, p.pos, 0 AS total
        FROM result_page_positions(${workspaceId}, ${head.stream_id}, ${finding.id},
          ${passStart ? 1 : head.mark === null ? 0 : base < finding.resources_failing ? 0 : 1}, ${head.mark ?? -1},
          ${from - base}, ${Math.min(hi - from, req.pageSize)}) p`
    : yield* filtered(offset, req.pageSize)
  const rows = positions.length === 0 ? [] : yield* sql<ResultRow>`${selectResultRows(sql, sql``,
    sql`result_rows_at(${workspaceId}, ${finding.id}, ${positions.map((p) => p.rank)}::int[], ${positions.map((p) => p.pos)}::int[])`)}
    ORDER BY r.rank, r.seq`
  const total = plain ? hi - lo
    : req.q === null
      ? (req.status === "new" ? finding.resources_new
        : req.status === "muted" ? finding.resources_muted
        : req.status === "fail" ? finding.resources_failing - finding.resources_muted
        : finding.resources_remediated)
      // A page past the last one holds no row to carry the total: the first row does.
      : (positions[0]?.total ?? (offset === 0 ? 0 : ((yield* filtered(0, 1))[0]?.total ?? 0)))
  return { rows: rows.map(toDetailRow), total }
})

/** One finding with one page of its rows (the first `DetailPaging.defaultPageSize` rows unless asked otherwise). */
export const getFinding = Effect.fn("FindingsStore.get")(function* (workspaceId: number, findingId: number, req: DetailPageRequest) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<FindingRow & { readonly account_retired: boolean }>`${selectFindings(sql, sql`, ${sql.literal(ACCOUNT_RETIRED_COLUMN)}`)}
    WHERE f.workspace_id = ${workspaceId} AND f.id = ${findingId}`
  const row = rows[0]
  if (row === undefined) return undefined
  const page = yield* detailPage(workspaceId, row, req)
  return {
    ...toFinding(row, page.rows),
    superseded: yield* isSuperseded(workspaceId, row.scan_id),
    account_retired: row.account_retired,
    details_pagination: {
      page: req.page,
      page_size: req.pageSize,
      total: page.total,
      total_pages: Math.ceil(page.total / req.pageSize),
      status: req.status,
      q: req.q,
    },
  } satisfies Finding
})

/** Up to `limit` rows of a finding after the row whose order key is `afterKey` (`rowOrderKey`; -1: from the first), for the streamed export. */
export const resultRowsAfter = Effect.fn("FindingsStore.resultRowsAfter")(function* (
  workspaceId: number,
  findingId: number,
  afterKey: number,
  limit: number,
) {
  const sql = yield* SqlClient.SqlClient
  const after = afterKey < 0 ? sql`` : sql`AND (r.rank, r.seq) > (${Math.floor(afterKey / ORDER_KEY_RANK)}, ${afterKey % ORDER_KEY_RANK})`
  const rows = yield* sql<ResultRow>`${selectResultRows(sql)}
    WHERE r.workspace_id = ${workspaceId} AND r.finding_id = ${findingId} ${after} ORDER BY r.rank, r.seq LIMIT ${limit}`
  return rows
})

/** One keyset page of findings (ids above `afterId`, ascending, without rows) for the streamed export. */
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
  return rows.map((r) => toFinding(r))
})

/**
 * In one statement: whether the scan exists in the workspace and, when a service is named, whether the scan has it (the
 * findings route's service must be in the scan).
 */
export const scanAndService = Effect.fn("FindingsStore.scanAndService")(function* (workspaceId: number, scanId: number, serviceId: number | undefined) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ has_service: boolean }>`
    SELECT EXISTS (SELECT 1 FROM scan_services ss
                   WHERE ss.workspace_id = ${workspaceId} AND ss.scan_id = s.id AND ss.service_id = ${serviceId ?? -1}) AS has_service
    FROM scans s WHERE s.workspace_id = ${workspaceId} AND s.id = ${scanId}`
  const row = rows[0]
  return { scan: row !== undefined, service: serviceId === undefined || row?.has_service === true }
})

/** Whether the scan has this service (the findings route's service must be in the scan). */
export const scanHasService = Effect.fn("FindingsStore.scanHasService")(function* (workspaceId: number, scanId: number, serviceId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ ok: number }>`
    SELECT 1 AS ok FROM scan_services WHERE workspace_id = ${workspaceId} AND scan_id = ${scanId} AND service_id = ${serviceId}`
  return rows.length > 0
})
