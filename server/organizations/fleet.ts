/**
 * The fleet dashboard (issue 31 "See the fleet"; contract `FleetDashboard` in src/contracts/organizations.ts): the
 * organisation's members that are not retired, each by its latest completed scan (`accounts.latest_scan_id`, kept by
 * the trigger of migration 0022), with the fleet's totals and its trend.
 *
 * Every number is the algebra's stored count (docs/outcomes.md), never a count of rows:
 * - a member's failed checks by severity and failing resources by severity are its latest scan's `outcome_counts`
 *   (migration 0024: the scan's findings by (status rank, severity rank), `[findings, resources checked, failing
 *   resources]`, kept by server/posture/algebra.ts `OUTCOME_COUNTS_SQL` as the scan rolls up and as mutes and
 *   remediations recount it). Failed checks are the findings of status rank 0 (failed, not muted: the checks whose
 *   `checkOutcome` is failed, as `scans.failed_findings` counts them); failing resources are the `failingResources` sums
 *   of every rank (only rank 0 holds any). tests/organizations/fleet.test.ts holds them equal to the posture overview
 *   (`failingBySeverityOf`) and to the scan's own counts;
 * - the risk is `riskScore` (src/contracts/outcomes.ts) of the failing resources;
 * - the trend: for each of the last FLEET_TREND_DAYS days (UTC), every member counted by its latest completed scan as
 *   of the end of that day — the posture overview's per-scan sums (failing resources, failed checks), taken at the scan
 *   each member had that day: the scan's stored `failing_resources` (migration 0032; the failing resources of its
 *   failed checks, the rank-0 entries of `outcome_counts`, written with them) and `failed_findings`. A superseded
 *   scan answers forever what it answered as the latest (docs/outcomes.md "History"), so a past day's point does not
 *   move when mutes change today.
 *
 * Paging: the members are sorted over the whole filtered set (every sort ends on the account id, so the order is
 * total and a page is stable), then one page (`page`, `page_size`, default FLEET_PAGE_SIZE) is answered with its
 * `pagination`; `totals` and `trend` stay over every member the filters select. A page past the last has no members.
 *
 * Filters: `unit` selects the unit and every unit under it (`organization_units`, as the last sync saw them);
 * `tag` "key:value" the members whose tags hold that value, "key" those holding the key. A foreign or unknown
 * organisation, or an unknown unit, is NotFound. The answer names every unit of the organisation (`units`, by path,
 * whatever the filters and page): the unit filter's choices come from it, never from the page's members.
 *
 * Cost (bench/fleet-dashboard.ts): one statement for the members (with their latest scan's row), one for the trend's
 * scans (the window's completed scans of the members and, per member, the last one before it: index probes of
 * `scans_account_idx`, index-only since migration 0033), whatever the size of the scans' findings. The trend selects
 * the members by the same condition, so neither waits for the other's answer (`readTogether`).
 */
import { Effect, Exit } from "effect"
import { SqlClient } from "effect/sql"
import { NotFound } from "../../src/contracts/errors.ts"
import { SEVERITIES, type Severity } from "../../src/contracts/findings.ts"
import type { AccountId, ScanId } from "../../src/contracts/ids.ts"
import {
  DEFAULT_STALE_DAYS,
  FLEET_TREND_DAYS,
  memberPageOf,
  memberPagination,
  OrganizationMessages as M,
  type MemberPageQuery,
  type FleetDashboard,
  type FleetFilter,
  type FleetMember,
  type FleetSort,
  type FleetTotals,
  type FleetTrendPoint,
  type FleetUnit,
} from "../../src/contracts/organizations.ts"
import { riskScore } from "../../src/contracts/outcomes.ts"
import { isoOrNull } from "../accounts/accounts-store.ts"

type BySeverity = Record<Severity, number>
const zero = (): BySeverity => ({ critical: 0, high: 0, medium: 0, low: 0 })
const sum = (c: BySeverity): number => c.critical + c.high + c.medium + c.low

/** Status rank 0 of `outcome_counts`: failed checks (status fail, not muted; server/posture/algebra.ts STATUS_ORDER_SQL). */
const FAILED_RANK = "0"

/**
 * A scan's failed checks and failing resources by severity, from its stored `outcome_counts` (keys
 * "statusRank:severityRank", severity ranks in SEVERITIES order; values [findings, resources checked, failing resources]).
 */
export const severityCountsOf = (outcomeCounts: Readonly<Record<string, ReadonlyArray<number>>> | null | undefined) => {
  const failing_resources = zero()
  const failed_checks = zero()
  // Read for every member of every dashboard call (500 at bench/fleet-dashboard.ts): no array per key.
  const counts = outcomeCounts ?? {}
  for (const key in counts) {
    const value = counts[key]!
    const colon = key.indexOf(":")
    if (colon < 0) continue
    const s = SEVERITIES[Number(key.slice(colon + 1))]
    if (s === undefined) continue
    failing_resources[s] += Number(value[2] ?? 0)
    if (key.slice(0, colon) === FAILED_RANK) failed_checks[s] += Number(value[0] ?? 0)
  }
  return { failing_resources, failed_checks }
}

/** The organisation account (provider), or NotFound when `id` is not an organisation of the workspace. */
export const organizationAccount = Effect.fn("Fleet.organizationAccount")(function* (workspaceId: number, id: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ id: number; cloud_provider_id: number; account_name: string; cloud_account_id: string }>`
    SELECT id, cloud_provider_id::int AS cloud_provider_id, account_name, cloud_account_id FROM accounts
    WHERE workspace_id = ${workspaceId} AND id = ${id} AND is_organization`
  const row = rows[0]
  if (row === undefined) return yield* new NotFound({ message: M.organizationNotFound })
  return row
})

export interface MemberRow {
  readonly id: number
  readonly account_name: string
  readonly cloud_account_id: string
  readonly org_unit_id: string | null
  readonly unit_path: string
  readonly tags: Record<string, string> | string
  readonly latest_scan_id: number | null
  readonly latest_scan_at: Date | string | null
  readonly stale: boolean
  readonly outcome_counts: Record<string, ReadonlyArray<number>> | string | null
}

const parsed = <A>(value: A | string): A => (typeof value === "string" ? (JSON.parse(value) as A) : value)

/** The organisation's members that are not retired, as the filters select them. */
export interface MemberSelection {
  readonly organizationId: number
  readonly filter: FleetFilter
}

/** The condition on `accounts a` of a selection (`unit`: that unit and every unit under it; `tag`: "key:value" or "key"). */
export const selectionWhere = (sql: SqlClient.SqlClient, workspaceId: number, { organizationId, filter }: MemberSelection) => {
  const unit = filter.unit === undefined ? sql`` : sql`AND a.org_unit_id IN (
      WITH RECURSIVE below AS (
        SELECT unit_id FROM organization_units
        WHERE workspace_id = ${workspaceId} AND organization_id = ${organizationId} AND unit_id = ${filter.unit}
        UNION
        SELECT u.unit_id FROM organization_units u JOIN below b ON u.parent_unit_id = b.unit_id
        WHERE u.workspace_id = ${workspaceId} AND u.organization_id = ${organizationId})
      SELECT unit_id FROM below)`
  const colon = filter.tag?.indexOf(":") ?? -1
  const tag = filter.tag === undefined ? sql``
    : colon < 0 ? sql`AND a.tags ->> ${filter.tag} IS NOT NULL`
    : sql`AND a.tags ->> ${filter.tag.slice(0, colon)} = ${filter.tag.slice(colon + 1)}`
  return sql`a.workspace_id = ${workspaceId} AND a.organization_id = ${organizationId} AND a.retired_at IS NULL ${unit} ${tag}`
}

/** NotFound for a `unit` filter the organisation does not have (as the last sync saw its units). */
export const knownUnit = Effect.fn("Fleet.knownUnit")(function* (workspaceId: number, organizationId: number, filter: FleetFilter) {
  if (filter.unit === undefined) return
  const sql = yield* SqlClient.SqlClient
  const known = yield* sql<{ n: number }>`
    SELECT count(*)::int AS n FROM organization_units
    WHERE workspace_id = ${workspaceId} AND organization_id = ${organizationId} AND unit_id = ${filter.unit}`
  if ((known[0]?.n ?? 0) === 0) return yield* new NotFound({ message: M.unitIdInvalid })
})

/** Every unit of the organisation, as its last sync saw them (by path): the unit filter's choices. */
export const organizationUnits = Effect.fn("Fleet.units")(function* (workspaceId: number, organizationId: number) {
  const sql = yield* SqlClient.SqlClient
  return yield* sql<FleetUnit>`
    SELECT unit_id, path FROM organization_units
    WHERE workspace_id = ${workspaceId} AND organization_id = ${organizationId} ORDER BY path, unit_id`
})

/**
 * The organisation's members that are not retired, as the filters select them (by name), each with its latest
 * completed scan's row. The filters are not checked here (`knownUnit`): an unknown unit selects no member.
 */
export const fleetMembers = Effect.fn("Fleet.members")(function* (
  workspaceId: number,
  selection: MemberSelection,
  staleDays: number = DEFAULT_STALE_DAYS,
  /** Read the latest scan's `outcome_counts` (the dashboard's numbers); compliance reads its own facts and goes without. */
  withCounts = true,
) {
  const sql = yield* SqlClient.SqlClient
  const counts = withCounts ? sql`s.outcome_counts` : sql`NULL::jsonb AS outcome_counts`
  return yield* sql<MemberRow>`
    SELECT a.id, a.account_name, a.cloud_account_id, a.org_unit_id, coalesce(a.org_unit_path, '') AS unit_path, a.tags,
           a.latest_scan_id, s.scan_start AS latest_scan_at, ${counts},
           (s.scan_start IS NULL OR s.scan_start < now() - make_interval(days => ${staleDays})) AS stale
    FROM accounts a
    -- One probe of the scans' key per member (a plain join may hash every scan of the workspace).
    LEFT JOIN LATERAL (SELECT s.scan_start, ${counts} FROM scans s
                       WHERE s.workspace_id = a.workspace_id AND s.id = a.latest_scan_id LIMIT 1) s ON true
    WHERE ${selectionWhere(sql, workspaceId, selection)}
    ORDER BY a.account_name, a.id`
})

/**
 * Several reads of one answer started together, failing as they would one after the other: the first failure in
 * their order. Outside a transaction each takes its own connection and the database works on them at once; inside
 * the API's request transaction (server/auth/rls.ts `inScopeForMember`: one connection, the caller's row-level scope)
 * they queue on it, none waiting for another's answer to be built.
 */
export const readTogether = <const T extends ReadonlyArray<Effect.Effect<unknown, unknown, unknown>>>(reads: T) =>
  Effect.gen(function* () {
    const exits = yield* Effect.all(reads.map((r) => Effect.exit(r)), { concurrency: "unbounded" })
    for (const exit of exits) if (Exit.isFailure(exit)) return yield* exit
    return exits.map((exit) => (exit as Exit.Success<unknown, unknown>).value) as unknown as {
      -readonly [K in keyof T]: Effect.Success<T[K]>
    }
  }) as Effect.Effect<{ -readonly [K in keyof T]: Effect.Success<T[K]> }, Effect.Error<T[number]>, Effect.Services<T[number]>>

const byRisk = (a: FleetMember, b: FleetMember) =>
  b.risk - a.risk || b.failed_checks_total - a.failed_checks_total || a.account_name.localeCompare(b.account_name) || a.account_id - b.account_id
const byName = (a: FleetMember, b: FleetMember) => a.account_name.localeCompare(b.account_name) || a.account_id - b.account_id
const SORTS: Readonly<Record<FleetSort, (a: FleetMember, b: FleetMember) => number>> = {
  risk: byRisk,
  name: byName,
  failing: (a, b) => b.failing_resources_total - a.failing_resources_total || byRisk(a, b),
  // Stale first; among them never scanned, then the oldest latest scan; then the others by risk.
  stale: (a, b) =>
    Number(b.stale) - Number(a.stale) ||
    (a.stale ? (a.latest_scan_at ?? "").localeCompare(b.latest_scan_at ?? "") : 0) ||
    byRisk(a, b),
}

export const toFleetMember = (r: MemberRow): FleetMember => {
  const counts = severityCountsOf(r.outcome_counts === null ? null : parsed(r.outcome_counts))
  return {
    account_id: r.id as AccountId,
    account_name: r.account_name,
    cloud_account_id: r.cloud_account_id,
    unit_id: r.org_unit_id,
    unit_path: r.unit_path,
    tags: parsed(r.tags),
    latest_scan_id: r.latest_scan_id === null ? null : (r.latest_scan_id as ScanId),
    latest_scan_at: isoOrNull(r.latest_scan_at),
    stale: r.stale,
    failing_resources: counts.failing_resources,
    failed_checks: counts.failed_checks,
    failing_resources_total: sum(counts.failing_resources),
    failed_checks_total: sum(counts.failed_checks),
    risk: riskScore(counts.failing_resources),
  }
}

export const fleetTotals = (members: ReadonlyArray<FleetMember>): FleetTotals => {
  const failing_resources = zero()
  const failed_checks = zero()
  for (const m of members) {
    for (const s of SEVERITIES) {
      failing_resources[s] += m.failing_resources[s]
      failed_checks[s] += m.failed_checks[s]
    }
  }
  return {
    members: members.length,
    members_scanned: members.filter((m) => m.latest_scan_id !== null).length,
    members_stale: members.filter((m) => m.stale).length,
    failing_resources,
    failed_checks,
    failing_resources_total: sum(failing_resources),
    failed_checks_total: sum(failed_checks),
    risk: riskScore(failing_resources),
  }
}

const DAY_MS = 86_400_000

/** The trend's days: FLEET_TREND_DAYS UTC dates ending today, with the instant each ends. */
export const trendDays = (now: Date): ReadonlyArray<{ readonly day: string; readonly end: number }> => {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
  return Array.from({ length: FLEET_TREND_DAYS }, (_, i) => {
    const start = today - (FLEET_TREND_DAYS - 1 - i) * DAY_MS
    return { day: new Date(start).toISOString().slice(0, 10), end: start + DAY_MS }
  })
}

/**
 * The fleet's trend over the members: per day, each member's latest completed scan as of the end of the day (by
 * scan_start, then id, as `accounts.latest_scan_id` orders them), summed. Each scan is read as its start and its two
 * stored numbers (`failing_resources` and `failed_findings`); summing them per day here cost the database less than
 * doing it in SQL (a window and a series per scan, or a delta per member and day: 3 to 5 times the statement below)
 * at 500 members × 30 daily scans (bench/fleet-dashboard.ts).
 *
 * One row per member: its scans of the window as arrays, read in order off `scans_account_idx` (a backward index-only
 * range scan per member, no sort), and its last scan before the window. One row per scan (15,000 at the bench) cost
 * this process more to decode than the database to send.
 */
export const fleetTrend = Effect.fn("Fleet.trend")(function* (workspaceId: number, selection: MemberSelection, now: Date) {
  const sql = yield* SqlClient.SqlClient
  const days = trendDays(now)
  const from = new Date(days[0]!.end - DAY_MS)
  type Num = number | string
  // The members as `fleetMembers` selects them (read at the same time as they are).
  const rows = yield* sql<{
    at: ReadonlyArray<Num> | null; ids: ReadonlyArray<Num> | null; failed: ReadonlyArray<Num> | null; failing: ReadonlyArray<Num> | null
    before_at: Num | null; before_id: number | null; before_failed: number | null; before_failing: number | null
  }>`
    SELECT w.at, w.ids, w.failed, w.failing, b.at AS before_at, b.id AS before_id, b.failed AS before_failed, b.failing AS before_failing
    FROM accounts a
    CROSS JOIN LATERAL (
      SELECT array_agg((extract(epoch FROM s.scan_start) * 1000)::float8) AS at, array_agg(s.id) AS ids,
             array_agg(s.failed_findings) AS failed, array_agg(s.failing_resources) AS failing
      FROM (SELECT s.scan_start, s.id, s.failed_findings, s.failing_resources FROM scans s
            WHERE s.workspace_id = ${workspaceId} AND s.account_id = a.id AND s.status = 'completed' AND s.scan_start >= ${from}
            ORDER BY s.scan_start, s.id) s) w
    LEFT JOIN LATERAL (
      SELECT (extract(epoch FROM s.scan_start) * 1000)::float8 AS at, s.id, s.failed_findings AS failed, s.failing_resources AS failing FROM scans s
      WHERE s.workspace_id = ${workspaceId} AND s.account_id = a.id AND s.status = 'completed' AND s.scan_start < ${from}
      ORDER BY s.scan_start DESC, s.id DESC LIMIT 1) b ON true
    WHERE ${selectionWhere(sql, workspaceId, selection)}`
  const points = days.map((d) => ({ day: d.day, members_scanned: 0, failing_resources: 0, failed_checks: 0 }))
  for (const r of rows) {
    const scans: Array<{ at: number; id: number; failed: number; failing: number }> = []
    if (r.before_at !== null) scans.push({ at: Number(r.before_at), id: r.before_id!, failed: r.before_failed!, failing: r.before_failing! })
    for (let k = 0; k < (r.at?.length ?? 0); k++) {
      scans.push({ at: Number(r.at![k]), id: Number(r.ids![k]), failed: Number(r.failed![k]), failing: Number(r.failing![k]) })
    }
    // The arrays come in the subquery's order; sorted here only should the database ever hand them otherwise.
    const inOrder = (a: (typeof scans)[number], b: (typeof scans)[number]) => a.at - b.at || a.id - b.id
    if (scans.some((x, k) => k > 0 && inOrder(scans[k - 1]!, x) > 0)) scans.sort(inOrder)
    let next = 0
    let current: (typeof scans)[number] | undefined
    for (let i = 0; i < days.length; i++) {
      while (next < scans.length && scans[next]!.at < days[i]!.end) current = scans[next++]
      if (current === undefined) continue
      const p = points[i]!
      p.members_scanned++
      p.failing_resources += current.failing
      p.failed_checks += current.failed
    }
  }
  return points as ReadonlyArray<FleetTrendPoint>
})

export interface FleetOptions extends FleetFilter, MemberPageQuery {
  readonly sort?: FleetSort
  readonly stale_days?: number
}

export const fleetDashboard = Effect.fn("Fleet.dashboard")(function* (workspaceId: number, organizationId: number, options: FleetOptions, now: Date = new Date()) {
  const sort = options.sort ?? "risk"
  const staleDays = options.stale_days ?? DEFAULT_STALE_DAYS
  const selection: MemberSelection = { organizationId, filter: options }
  // The organisation, the unit, the members, the trend and the units are read at once; a foreign organisation is
  // NotFound first.
  const [, , rows, trend, units] = yield* readTogether([
    organizationAccount(workspaceId, organizationId),
    knownUnit(workspaceId, organizationId, options),
    fleetMembers(workspaceId, selection, staleDays),
    fleetTrend(workspaceId, selection, now),
    organizationUnits(workspaceId, organizationId),
  ])
  // Sorted and totalled over every member the filters select; only the page asked for is answered.
  const members = rows.map(toFleetMember).sort(SORTS[sort])
  const pagination = memberPagination(members.length, options)
  return {
    organization_account_id: organizationId as AccountId,
    sort,
    stale_days: staleDays,
    unit: options.unit ?? null,
    tag: options.tag ?? null,
    members: memberPageOf(members, pagination),
    pagination,
    totals: fleetTotals(members),
    trend,
    units: units.map((u) => ({ unit_id: u.unit_id, path: u.path })),
  } satisfies FleetDashboard
})
