/**
 * Retention the operator controls, and what the scan history occupies (issue 30; contract src/contracts/storage.ts,
 * table `workspace_retention` of migration 0021, storage by change of migration 0020).
 *
 * `retentionPlan(workspaceId, setting)`: the scans applying `setting` now would expire. An ended scan (completed or
 * failed) of an account expires when it ended (else started) more than `keep_days` days ago, or when it is not among
 * the newest `keep_scans` ended scans of its account (newest by start, as the writer orders them). Whatever the setting,
 * these are kept: the latest completed scan of each account and every scan started after it (pending, running or
 * ended later: the writer compares a new scan with the latest completed one, and the live scans take mutes and
 * remediations), every scan a compliance report references (retention never removes a report), and every scan with a
 * remediation still pending or running (its job would lose its finding). An account without a completed scan has no
 * such anchor: its failed scans expire by the setting alone.
 *
 * `storageFigures(workspaceId, setting)`: the contract's `WorkspaceStorage`, per account and in all.
 *   - `scans`: ended scans; `results`: the sum of their findings' `resources_checked` (the rows a reader sees);
 *   - `rows`: the versions of the account's streams (`result_rows`) plus its findings' marks (`result_marks`);
 *   - `bytes`: an estimate: for each table holding scan history (scans, scan_services, findings, result_streams,
 *     result_rows, result_marks, remediations, scan_mutes), `pg_total_relation_size` (heap, indexes and TOAST) times the
 *     account's share of the table's rows. The table's rows are `greatest(pg_class.reltuples, this workspace's rows)`:
 *     the planner's estimate, kept by (auto)vacuum and analyze, across every workspace; a table never analysed
 *     (reltuples -1, e.g. embedded PGlite, which has no autovacuum) counts this workspace's rows, exact when it is
 *     the only one. Counts go through the primary keys (no per-row size is read), so the figures stay cheap with a
 *     million result rows.
 *   - `frees`: the same figures for the plan's scans: the scans, their findings (`results`), their findings' marks and
 *     the versions whose whole range [from_finding, to_finding) would then hold no kept finding of the stream (`rows`:
 *     versions and marks, as `used` counts them, so frees never exceeds used; the findings themselves, with their scan
 *     services, remediations and mute snapshots, count in `bytes`).
 *
 * `applyRetention(workspaceId)` applies the stored setting without long locks or table rewrites (run it outside any
 * transaction: it opens its own, each in the workspace's row-level-security scope):
 *   1. one scan per short transaction: the scan row is locked first (a compliance report being created for it waits,
 *      then fails on its foreign key; one created before is seen by the check that follows), the plan's conditions are
 *      checked again on the locked row, and the scan is deleted: the foreign keys cascade to scan_services → findings →
 *      remediations, and to scan_mutes; the findings' delete trigger removes their marks (migration 0020);
 *   2. the versions of the touched streams (and of streams left over by an earlier run) whose range holds no remaining
 *      finding of the stream are deleted in batches of GC_BATCH, one stream per short transaction that first locks the
 *      stream row `FOR UPDATE SKIP LOCKED`: a stream a scan is writing right now (the writer holds that row until it
 *      commits, and reuses open versions) is skipped and kept in `workspace_retention.gc_streams` for the next run. A
 *      stream left without versions and findings is deleted with them (the writer creates it again when needed);
 *   3. the run is recorded (`applied_at`, `applied_expired`) and audited (`retention.applied`) when it removed anything.
 *
 * What else names a scan or a finding, and what happens to it (no foreign key, or one that cascades):
 *   - compliance_reports (and their chunks): a referenced scan is never expired, so nothing cascades;
 *   - remediations: cascade with their findings (a pending or running one keeps its scan, above);
 *   - scan_mutes, result_marks: cascade / trigger with their scan and findings;
 *   - scans.previous_scan_id of a kept scan may name an expired one: kept as written, it is the history of what that
 *     scan was compared with (its new and fixed counts stay true; the page shows the number, it links nowhere);
 *   - scan_schedules.last_scan_id, resources.first_scan_id / last_scan_id: kept as written (the schedule's last
 *     launch, the inventory's write markers: the writer only compares them with the scan it writes); the inventory's
 *     first and last seen dates stay true;
 *   - audit_log: append-only, its scan ids are history;
 *   - queued jobs: scan jobs belong to open scans (never expired), report jobs to referenced scans, remediation jobs
 *     to pending or running remediations (kept); a digest queued for a scan expired within the hour finds no scan and
 *     sends nothing.
 *
 * The daily run: the posture ticker (./posture-ticker.ts) lists the workspaces whose setting limits something and
 * was last applied a day ago or more (`retentionDue`), claims each (`claimRetention`, one winner among the workers)
 * and applies it; a workspace without a setting is not even listed.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { AccountId } from "../../src/contracts/ids.ts"
import type { AccountStorage, RetentionSetting, StorageFigures, WorkspaceStorage } from "../../src/contracts/storage.ts"
import { providerDisplayName } from "../accounts/providers.ts"
import { recordAudit } from "../audit/scanning-audit.ts"
import { inScope } from "../auth/rls.ts"
import { OPEN_VERSION } from "../db/migrations/0020_storage_by_change.ts"

/** Versions deleted per statement (and per transaction) by the collector. */
export const GC_BATCH = 1_000
/** How often the ticker applies a workspace's retention. */
export const RETENTION_INTERVAL = "1 day"

export const NO_RETENTION: RetentionSetting = { keep_days: null, keep_scans: null }

export const limits = (setting: RetentionSetting): boolean => setting.keep_days !== null || setting.keep_scans !== null

export interface StoredRetention {
  readonly setting: RetentionSetting
  readonly updated_at: string | null
  readonly updated_by: string | null
  readonly applied_at: string | null
}

const iso = (v: Date | string | null): string | null => (v === null ? null : new Date(v).toISOString())

/** The workspace's stored setting (none: keep everything), in the caller's scope. */
export const readRetention = Effect.fn("Retention.read")(function* (workspaceId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{
    keep_days: number | null; keep_scans: number | null; updated_at: Date | string; updated_by: string | null; applied_at: Date | string | null
  }>`
    SELECT r.keep_days, r.keep_scans, r.updated_at, u.email AS updated_by, r.applied_at
    FROM workspace_retention r LEFT JOIN users u ON u.id = r.updated_by
    WHERE r.workspace_id = ${workspaceId}`
  const r = rows[0]
  if (r === undefined) return { setting: NO_RETENTION, updated_at: null, updated_by: null, applied_at: null } satisfies StoredRetention
  return {
    setting: { keep_days: r.keep_days, keep_scans: r.keep_scans },
    updated_at: iso(r.updated_at),
    updated_by: r.updated_by,
    applied_at: iso(r.applied_at),
  } satisfies StoredRetention
})

/** Saves the setting (in the caller's scope) and audits who changed what; answers the previous setting. */
export const saveRetention = Effect.fn("Retention.save")(function* (
  actor: { readonly workspaceId: number; readonly userId: number; readonly ip?: string | undefined },
  setting: RetentionSetting,
) {
  const sql = yield* SqlClient.SqlClient
  const before = (yield* readRetention(actor.workspaceId)).setting
  yield* sql`
    INSERT INTO workspace_retention (workspace_id, keep_days, keep_scans, updated_at, updated_by)
    VALUES (${actor.workspaceId}, ${setting.keep_days}, ${setting.keep_scans}, now(), ${actor.userId})
    ON CONFLICT (workspace_id) DO UPDATE
      SET keep_days = excluded.keep_days, keep_scans = excluded.keep_scans, updated_at = now(), updated_by = excluded.updated_by`
  yield* recordAudit({
    action: "retention.updated",
    workspaceId: actor.workspaceId,
    actorUserId: actor.userId,
    targetType: "workspace",
    targetId: actor.workspaceId,
    details: { before, after: setting },
    ip: actor.ip,
  })
  return before
})

export interface PlannedScan {
  readonly scan_id: number
  readonly account_id: number
}

/**
 * The condition under which scan `s` (an alias of `scans`) may expire whatever the setting says (see the module
 * comment): ended, before the latest completed scan of its account, no report, no remediation under way.
 */
const expirable = (sql: SqlClient.SqlClient, workspaceId: number) => sql`
  s.status IN ('completed', 'failed')
  AND (EXISTS (SELECT 1 FROM scans l WHERE l.workspace_id = ${workspaceId} AND l.account_id = s.account_id AND l.status = 'completed'
                 AND (l.scan_start, l.id) > (s.scan_start, s.id))
       OR NOT EXISTS (SELECT 1 FROM scans l WHERE l.workspace_id = ${workspaceId} AND l.account_id = s.account_id AND l.status = 'completed'))
  AND NOT EXISTS (SELECT 1 FROM compliance_reports cr WHERE cr.workspace_id = ${workspaceId} AND cr.scan_id = s.id)
  AND NOT EXISTS (SELECT 1 FROM remediations rm JOIN findings f ON f.id = rm.finding_id
                  WHERE rm.workspace_id = ${workspaceId} AND f.workspace_id = ${workspaceId} AND f.scan_id = s.id
                    AND rm.status IN ('pending', 'running'))`

/** The scans applying `setting` now would expire (in the caller's scope), oldest first. */
export const retentionPlan = Effect.fn("Retention.plan")(function* (workspaceId: number, setting: RetentionSetting) {
  const sql = yield* SqlClient.SqlClient
  if (!limits(setting)) return [] as ReadonlyArray<PlannedScan>
  return yield* sql<PlannedScan>`
    SELECT s.id AS scan_id, s.account_id
    FROM (SELECT id, account_id, status, scan_start, scan_end,
                 row_number() OVER (PARTITION BY account_id ORDER BY scan_start DESC, id DESC) AS n
          FROM scans WHERE workspace_id = ${workspaceId} AND status IN ('completed', 'failed')) s
    WHERE (${setting.keep_days === null ? sql`false` : sql`coalesce(s.scan_end, s.scan_start) < now() - make_interval(days => ${setting.keep_days})`}
           OR ${setting.keep_scans === null ? sql`false` : sql`s.n > ${setting.keep_scans}`})
      AND ${expirable(sql, workspaceId)}
    ORDER BY s.scan_start, s.id`
})

// ---------------------------------------------------------------------------------------------------------------------
// Figures

/** The tables holding scan history whose size is shared out among the accounts (see the module comment). */
const TABLES = ["scans", "scan_services", "findings", "result_streams", "result_rows", "result_marks", "remediations", "scan_mutes"] as const
type Table = (typeof TABLES)[number]

/** Rows per account and table. */
type Counts = Map<number, Partial<Record<Table, number>>>

const add = (counts: Counts, accountId: number, table: Table, n: number) => {
  let c = counts.get(accountId)
  if (c === undefined) counts.set(accountId, (c = {}))
  c[table] = (c[table] ?? 0) + n
}

const zero: StorageFigures = { scans: 0, results: 0, rows: 0, bytes: 0 }

const sum = (xs: ReadonlyArray<StorageFigures>): StorageFigures =>
  xs.reduce((a, b) => ({ scans: a.scans + b.scans, results: a.results + b.results, rows: a.rows + b.rows, bytes: a.bytes + b.bytes }), zero)

/**
 * Per account: scans (all of them, and the ended ones), and their findings, results, scan services, mute snapshots,
 * remediations and marks; of the scans `ids` only when given. Grouped per scan through each table's scan or finding
 * index, then per account.
 */
const scanCounts = (sql: SqlClient.SqlClient, workspaceId: number, ids: ReadonlyArray<number> | undefined) =>
  Effect.gen(function* () {
    const only = (column: string) => (ids === undefined ? sql`` : sql`AND ${sql(column)} = ANY(${ids}::int[])`)
    const counts: Counts = new Map()
    const scans = new Map<number, { scans: number; results: number }>()
    const rows = yield* sql<{
      account_id: number; all: number; ended: number; findings: string; results: string; services: string; mutes: string
      remediations: string; marks: string
    }>`
      WITH f AS (SELECT scan_id, count(*) AS n, sum(resources_checked) AS results FROM findings
                 WHERE workspace_id = ${workspaceId} ${only("scan_id")} GROUP BY scan_id),
           m AS (SELECT x.scan_id, count(*) AS n FROM result_marks m JOIN findings x ON x.id = m.finding_id
                 WHERE m.workspace_id = ${workspaceId} AND x.workspace_id = ${workspaceId} ${only("x.scan_id")} GROUP BY x.scan_id),
           r AS (SELECT x.scan_id, count(*) AS n FROM remediations r JOIN findings x ON x.id = r.finding_id
                 WHERE r.workspace_id = ${workspaceId} AND x.workspace_id = ${workspaceId} ${only("x.scan_id")} GROUP BY x.scan_id),
           ss AS (SELECT scan_id, count(*) AS n FROM scan_services WHERE workspace_id = ${workspaceId} ${only("scan_id")} GROUP BY scan_id),
           sm AS (SELECT scan_id, count(*) AS n FROM scan_mutes WHERE workspace_id = ${workspaceId} ${only("scan_id")} GROUP BY scan_id)
      SELECT s.account_id, count(*)::int AS all, count(*) FILTER (WHERE s.status IN ('completed', 'failed'))::int AS ended,
             coalesce(sum(f.n), 0)::text AS findings, coalesce(sum(f.results), 0)::text AS results,
             coalesce(sum(ss.n), 0)::text AS services, coalesce(sum(sm.n), 0)::text AS mutes,
             coalesce(sum(r.n), 0)::text AS remediations, coalesce(sum(m.n), 0)::text AS marks
      FROM scans s
      LEFT JOIN f ON f.scan_id = s.id LEFT JOIN m ON m.scan_id = s.id LEFT JOIN r ON r.scan_id = s.id
      LEFT JOIN ss ON ss.scan_id = s.id LEFT JOIN sm ON sm.scan_id = s.id
      WHERE s.workspace_id = ${workspaceId} ${only("s.id")}
      GROUP BY s.account_id`
    for (const r of rows) {
      add(counts, r.account_id, "scans", r.all)
      add(counts, r.account_id, "findings", Number(r.findings))
      add(counts, r.account_id, "scan_services", Number(r.services))
      add(counts, r.account_id, "scan_mutes", Number(r.mutes))
      add(counts, r.account_id, "remediations", Number(r.remediations))
      add(counts, r.account_id, "result_marks", Number(r.marks))
      scans.set(r.account_id, { scans: r.ended, results: Number(r.results) })
    }
    return { counts, scans }
  })

/** What the scan history of each account occupies. */
const usedCounts = (sql: SqlClient.SqlClient, workspaceId: number) =>
  Effect.gen(function* () {
    const used = yield* scanCounts(sql, workspaceId, undefined)
    for (const r of yield* sql<{ account_id: number; streams: number; versions: string }>`
      SELECT rs.account_id, count(*)::int AS streams, coalesce(sum(v.n), 0)::text AS versions
      FROM result_streams rs
      LEFT JOIN (SELECT stream_id, count(*) AS n FROM result_rows WHERE workspace_id = ${workspaceId} GROUP BY stream_id) v ON v.stream_id = rs.id
      WHERE rs.workspace_id = ${workspaceId}
      GROUP BY rs.account_id`) {
      add(used.counts, r.account_id, "result_streams", r.streams)
      add(used.counts, r.account_id, "result_rows", Number(r.versions))
    }
    return used
  })

/** What the plan's scans would free, per account (see the module comment). */
const freedCounts = (sql: SqlClient.SqlClient, workspaceId: number, plan: ReadonlyArray<PlannedScan>) =>
  Effect.gen(function* () {
    if (plan.length === 0) return { counts: new Map() as Counts, scans: new Map<number, { scans: number; results: number }>() }
    const ids = plan.map((p) => p.scan_id)
    const freed = yield* scanCounts(sql, workspaceId, ids)
    // Versions of the touched streams left holding no kept finding: `keptRange` below, with the stream's first and
    // last kept findings (`k`) and the kept findings (those not of the plan's scans).
    for (const r of yield* sql<{ account_id: number; n: number }>`
      WITH touched AS (SELECT DISTINCT stream_id FROM findings WHERE workspace_id = ${workspaceId} AND scan_id = ANY(${ids}::int[])),
           k AS (SELECT stream_id, min(id) AS first, max(id) AS last FROM findings
                 WHERE workspace_id = ${workspaceId} AND NOT (scan_id = ANY(${ids}::int[])) AND stream_id IN (SELECT stream_id FROM touched)
                 GROUP BY stream_id)
      SELECT rs.account_id, count(*)::int AS n
      FROM result_rows v JOIN result_streams rs ON rs.id = v.stream_id LEFT JOIN k ON k.stream_id = v.stream_id
      WHERE v.workspace_id = ${workspaceId} AND rs.workspace_id = ${workspaceId} AND v.stream_id IN (SELECT stream_id FROM touched)
        AND ${unheld(sql, workspaceId, sql`NOT (f.scan_id = ANY(${ids}::int[]))`)}
      GROUP BY rs.account_id`) {
      add(freed.counts, r.account_id, "result_rows", r.n)
    }
    return freed
  })

/**
 * Version `v` holds no kept finding of its stream (kept: the findings matching `kept`, alias `f`; `k`: the stream's
 * first and last kept finding, NULLs when none). Cheap tests first, each deciding most versions without a probe:
 *   - an open version holds the stream's last finding: it is free only when it starts after the last kept one;
 *   - a version always holds the finding that wrote it (from_finding): it is free only when that one is not kept (a
 *     hash anti-join);
 *   - then it is free when it ends at or before the first kept finding, or starts after the last; it is held when it
 *     starts at or before the first kept finding (and ends after it); only a version starting between two kept findings
 *     is checked against the stream's findings (one index probe).
 */
const unheld = (sql: SqlClient.SqlClient, workspaceId: number, kept: ReturnType<SqlClient.SqlClient["literal"]>) => sql`
  (v.to_finding <> ${OPEN_VERSION} OR k.last IS NULL OR v.from_finding > k.last)
  AND NOT EXISTS (SELECT 1 FROM findings f WHERE f.id = v.from_finding AND ${kept})
  AND (k.first IS NULL OR v.to_finding <= k.first OR v.from_finding > k.last
       OR (v.from_finding > k.first
           AND NOT EXISTS (SELECT 1 FROM findings f
                           WHERE f.workspace_id = ${workspaceId} AND f.stream_id = v.stream_id AND f.id >= v.from_finding
                             AND f.id < v.to_finding AND ${kept})))`

/** Bytes per row of each table: its total size over its rows (see the module comment). */
const bytesPerRow = (sql: SqlClient.SqlClient, workspaceRows: Partial<Record<Table, number>>) =>
  Effect.gen(function* () {
    const rows = yield* sql<{ relname: Table; bytes: string; tuples: number }>`
      SELECT c.relname, pg_total_relation_size(c.oid)::text AS bytes, c.reltuples::float8 AS tuples
      FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r' AND c.relname = ANY(${[...TABLES]}::text[])`
    const out: Partial<Record<Table, number>> = {}
    for (const r of rows) out[r.relname] = Number(r.bytes) / Math.max(1, r.tuples, workspaceRows[r.relname] ?? 0)
    return out
  })

const figures = (
  c: Partial<Record<Table, number>> | undefined,
  s: { scans: number; results: number } | undefined,
  perRow: Partial<Record<Table, number>>,
): StorageFigures => ({
  scans: s?.scans ?? 0,
  results: s?.results ?? 0,
  rows: (c?.result_rows ?? 0) + (c?.result_marks ?? 0),
  bytes: Math.round(TABLES.reduce((b, t) => b + (c?.[t] ?? 0) * (perRow[t] ?? 0), 0)),
})

/** The storage page: what each account occupies and what applying `setting` now would free (in the caller's scope). */
export const storageFigures = Effect.fn("Retention.figures")(function* (workspaceId: number, setting: RetentionSetting) {
  const sql = yield* SqlClient.SqlClient
  const stored = yield* readRetention(workspaceId)
  const accounts = yield* sql<{ id: number; account_name: string; cloud_provider_id: number }>`
    SELECT id, account_name, cloud_provider_id::int AS cloud_provider_id FROM accounts WHERE workspace_id = ${workspaceId} ORDER BY account_name, id`
  const used = yield* usedCounts(sql, workspaceId)
  const plan = yield* retentionPlan(workspaceId, setting)
  const freed = yield* freedCounts(sql, workspaceId, plan)
  const workspaceRows: Partial<Record<Table, number>> = {}
  for (const c of used.counts.values()) for (const t of TABLES) workspaceRows[t] = (workspaceRows[t] ?? 0) + (c[t] ?? 0)
  const perRow = yield* bytesPerRow(sql, workspaceRows)
  const list: Array<AccountStorage> = accounts.map((a) => ({
    account_id: a.id as AccountId,
    account_name: a.account_name,
    provider: providerDisplayName(a.cloud_provider_id).toLowerCase(),
    used: figures(used.counts.get(a.id), used.scans.get(a.id), perRow),
    frees: figures(freed.counts.get(a.id), freed.scans.get(a.id), perRow),
  }))
  return {
    used: sum(list.map((a) => a.used)),
    frees: sum(list.map((a) => a.frees)),
    accounts: list,
    retention: setting,
    retention_updated_at: stored.updated_at,
    retention_updated_by: stored.updated_by,
    retention_applied_at: stored.applied_at,
  } satisfies WorkspaceStorage
})

// ---------------------------------------------------------------------------------------------------------------------
// Applying

export interface RetentionRun {
  /** Scans deleted. */
  readonly expired: ReadonlyArray<number>
  /** Versions deleted. */
  readonly versions: number
  /** Streams deleted (no version and no finding left). */
  readonly streams: number
  /** Streams being written during the run, left for the next one. */
  readonly skipped: ReadonlyArray<number>
}

/** Deletes one planned scan if it may still expire (see the module comment); answers its streams, or undefined. */
const expireScan = (workspaceId: number, scanId: number) =>
  inScope({ workspaceId })(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const locked = yield* sql<{ id: number }>`SELECT id FROM scans WHERE workspace_id = ${workspaceId} AND id = ${scanId} FOR UPDATE`
      if (locked.length === 0) return undefined
      const still = yield* sql<{ id: number }>`SELECT s.id FROM scans s WHERE s.workspace_id = ${workspaceId} AND s.id = ${scanId} AND ${expirable(sql, workspaceId)}`
      if (still.length === 0) return undefined
      const streams = yield* sql<{ stream_id: number }>`
        SELECT DISTINCT stream_id FROM findings WHERE workspace_id = ${workspaceId} AND scan_id = ${scanId}`
      yield* sql`DELETE FROM scans WHERE workspace_id = ${workspaceId} AND id = ${scanId}`
      return streams.map((s) => s.stream_id)
    }),
  )

/**
 * Collects one stream: versions whose range holds no finding left, GC_BATCH per transaction (`paced`), each transaction holding
 * the stream row (`FOR UPDATE SKIP LOCKED`). Answers the versions deleted, whether the stream itself went, or
 * undefined when a writer holds it.
 */
const collectStream = (workspaceId: number, streamId: number) =>
  Effect.gen(function* () {
    let versions = 0
    for (;;) {
      const step = yield* paced(inScope({ workspaceId })(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const held = yield* sql<{ id: number }>`
            SELECT id FROM result_streams WHERE workspace_id = ${workspaceId} AND id = ${streamId} FOR UPDATE SKIP LOCKED`
          if (held.length === 0) {
            const exists = yield* sql<{ id: number }>`SELECT id FROM result_streams WHERE workspace_id = ${workspaceId} AND id = ${streamId}`
            return exists.length === 0 ? { deleted: 0, gone: true, busy: false } : { deleted: 0, gone: false, busy: true }
          }
          const deleted = yield* sql<{ pos: number }>`
            DELETE FROM result_rows d
            WHERE d.workspace_id = ${workspaceId} AND d.stream_id = ${streamId} AND d.pos IN (
              SELECT v.pos FROM result_rows v
              LEFT JOIN (SELECT ${streamId}::int AS stream_id, min(f.id) AS first, max(f.id) AS last FROM findings f
                         WHERE f.workspace_id = ${workspaceId} AND f.stream_id = ${streamId}) k ON k.stream_id = v.stream_id
              WHERE v.workspace_id = ${workspaceId} AND v.stream_id = ${streamId} AND ${unheld(sql, workspaceId, sql`true`)}
              LIMIT ${GC_BATCH})
            RETURNING d.pos`
          if (deleted.length === GC_BATCH) return { deleted: deleted.length, gone: false, busy: false, more: true }
          // The stream itself goes when nothing of it is left (the writer creates it again when needed).
          const gone = yield* sql<{ id: number }>`
            DELETE FROM result_streams rs WHERE rs.workspace_id = ${workspaceId} AND rs.id = ${streamId}
              AND NOT EXISTS (SELECT 1 FROM result_rows v WHERE v.workspace_id = ${workspaceId} AND v.stream_id = ${streamId})
              AND NOT EXISTS (SELECT 1 FROM findings f WHERE f.workspace_id = ${workspaceId} AND f.stream_id = ${streamId})
            RETURNING rs.id`
          return { deleted: deleted.length, gone: gone.length > 0, busy: false }
        }),
      ))
      versions += step.deleted
      if (step.busy) return undefined
      if (!("more" in step)) return { versions, gone: step.gone }
    }
  })

/**
 * Applies the workspace's stored retention now (outside any transaction; see the module comment): expires the plan's
 * scans one per transaction, collects the versions they leave, records and audits the run.
 */
/**
 * Runs one of retention's transactions, then rests twice as long as it took (at most two seconds): retention takes at
 * most about a third of the database's time, so a writer waiting behind it — on the embedded database, which runs one
 * statement at a time, every writer — gets its turn between two of retention's (short) transactions.
 */
const paced = <A, E, R>(step: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const started = Date.now()
    const out = yield* step
    yield* Effect.sleep(`${Math.min(2_000, Math.max(2, 2 * (Date.now() - started)))} millis`)
    return out
  })

export const applyRetention = Effect.fn("Retention.apply")(function* (workspaceId: number) {
  const start = yield* inScope({ workspaceId })(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ gc_streams: ReadonlyArray<number> }>`
        SELECT gc_streams FROM workspace_retention WHERE workspace_id = ${workspaceId}`
      if (rows[0] === undefined) return undefined
      const stored = yield* readRetention(workspaceId)
      return { plan: yield* retentionPlan(workspaceId, stored.setting), pending: rows[0].gc_streams }
    }),
  )
  if (start === undefined) return { expired: [], versions: 0, streams: 0, skipped: [] } satisfies RetentionRun
  const expired: Array<number> = []
  const touched = new Set<number>(start.pending)
  for (const p of start.plan) {
    const streams = yield* paced(expireScan(workspaceId, p.scan_id))
    if (streams === undefined) continue
    expired.push(p.scan_id)
    for (const s of streams) touched.add(s)
  }
  let versions = 0
  let streams = 0
  const skipped: Array<number> = []
  for (const streamId of [...touched].sort((a, b) => a - b)) {
    const r = yield* collectStream(workspaceId, streamId)
    if (r === undefined) skipped.push(streamId)
    else {
      versions += r.versions
      if (r.gone) streams++
    }
  }
  yield* inScope({ workspaceId })(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`
        UPDATE workspace_retention SET applied_at = now(), applied_expired = ${expired.length}, gc_streams = ${skipped}::int[]
        WHERE workspace_id = ${workspaceId}`
      if (expired.length + versions > 0) {
        yield* recordAudit({
          action: "retention.applied",
          workspaceId,
          actorUserId: null,
          targetType: "workspace",
          targetId: workspaceId,
          details: { scans_expired: expired, versions_deleted: versions, streams_deleted: streams, streams_skipped: skipped },
        })
      }
    }),
  )
  return { expired, versions, streams, skipped } satisfies RetentionRun
})

/** The workspaces whose retention is due at `now` (in the `posture-ticker` system scope: migration 0021's policy). */
export const retentionDue = (sql: SqlClient.SqlClient, now: Date) => sql`
  SELECT workspace_id FROM workspace_retention
  WHERE (keep_days IS NOT NULL OR keep_scans IS NOT NULL OR cardinality(gc_streams) > 0)
    AND (applied_at IS NULL OR applied_at <= ${now}::timestamptz - ${RETENTION_INTERVAL}::interval)`

/**
 * Claims the workspace's due run at `now` (one winner among concurrent tickers: the row's update) and applies it;
 * answers the run, or undefined when another ticker claimed it or it is not due.
 */
export const applyDueRetention = (workspaceId: number, now: Date) =>
  Effect.gen(function* () {
    const claimed = yield* inScope({ workspaceId })(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        return yield* sql<{ workspace_id: number }>`
          UPDATE workspace_retention SET applied_at = ${now}
          WHERE workspace_id = ${workspaceId} AND (applied_at IS NULL OR applied_at <= ${now}::timestamptz - ${RETENTION_INTERVAL}::interval)
          RETURNING workspace_id`
      }),
    )
    if (claimed.length === 0) return undefined
    return yield* applyRetention(workspaceId)
  })
