/**
 * SQL of the compliance area (read side). Every query runs in the caller's RLS scope and filters on `workspace_id`.
 * Compliance is computed from what a scan already stores (one finding per check with its counts; the failing
 * `results` rows as evidence) — nothing is copied, so a remediation or (later) a mute shows at once.
 *
 * Failing evidence of a finding is its rows of rank 0 in `results` (the non-compliant ones; migration 0020), in `seq`
 * order, minus rows whose remediation succeeded. Muted rows (`results.muted_by`, issue 13)
 * stay in it, marked muted with their rule's reason, expiry and author as the scan's snapshot keeps them
 * (server/posture/algebra.ts): a superseded scan answers what it answered as the latest.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { ComplianceAccount, ComplianceScan, FailingResource } from "../../src/contracts/compliance.ts"
import type { AccountId, FindingId, ScanId } from "../../src/contracts/ids.ts"
import { iso } from "../accounts/accounts-store.ts"
import { providerKeyOf } from "./catalogue.ts"
import { exceptionsOf, joinScanMutes, REMEDIATED_ROW_SQL } from "../posture/algebra.ts"
import type { FindingOutcome } from "./evaluate.ts"
import type { RequirementCheckFacts } from "../../src/contracts/outcomes.ts"

interface ScanRow {
  readonly id: number
  readonly account_id: number
  readonly account_name: string
  readonly cloud_account_id: string
  readonly cloud_provider_id: number
  readonly status: string
  readonly scan_start: Date | string
  readonly scan_end: Date | string | null
}

export interface ScanFacts {
  readonly scan: ComplianceScan
  readonly status: string
}

const toScan = (r: ScanRow): ComplianceScan => ({
  id: r.id as ScanId,
  account_id: r.account_id as AccountId,
  account_name: r.account_name,
  cloud_account_id: r.cloud_account_id,
  provider: providerKeyOf(r.cloud_provider_id) ?? "aws",
  scan_start: iso(r.scan_start),
  scan_end: r.scan_end === null ? null : iso(r.scan_end),
})

/** The scan with its account, or undefined when it is not in the workspace. */
export const scanFacts = Effect.fn("ComplianceStore.scanFacts")(function* (workspaceId: number, scanId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<ScanRow>`
    SELECT s.id, s.account_id, a.account_name, a.cloud_account_id, s.cloud_provider_id::int AS cloud_provider_id, s.status,
           s.scan_start, s.scan_end
    FROM scans s JOIN accounts a ON a.id = s.account_id
    WHERE s.workspace_id = ${workspaceId} AND s.id = ${scanId}`
  const row = rows[0]
  return row === undefined ? undefined : ({ scan: toScan(row), status: row.status } satisfies ScanFacts)
})

interface OutcomeRow extends Omit<FindingOutcome, "mutes"> {
  readonly scan_id: number
}

const outcomesOf = (rows: ReadonlyArray<OutcomeRow>, mutes: ReadonlyMap<number, FindingOutcome["mutes"]>): Map<string, FindingOutcome> =>
  new Map(rows.map(({ scan_id: _s, ...r }) => [r.check_id, { ...r, mutes: mutes.get(r.finding_id) ?? [] }]))

const selectOutcomes = (sql: SqlClient.SqlClient) => sql`
  SELECT f.scan_id, f.id AS finding_id, f.check_id, f.status, f.not_evaluated_reason, f.severity, cs.name AS service_name,
         f.resources_checked, f.resources_failing, f.resources_remediated, f.resources_muted, f.muted
  FROM findings f JOIN cloud_services cs ON cs.id = f.service_id`

/** Every finding of a scan, by check id (one per check: UNIQUE (scan_id, check_id)), with the mutes behind its exceptions. */
export const scanOutcomes = Effect.fn("ComplianceStore.scanOutcomes")(function* (workspaceId: number, scanId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<OutcomeRow>`${selectOutcomes(sql)} WHERE f.workspace_id = ${workspaceId} AND f.scan_id = ${scanId}`
  return outcomesOf(rows, yield* exceptionsOf(workspaceId, [scanId]))
})

/** A check's stored facts in `scans.check_outcomes`: [status, resources checked, failing, remediated, muted]. */
export type StoredCheckFacts = readonly [RequirementCheckFacts["status"], number, number, number, number]

/** The facts of one entry of `scans.check_outcomes` (server/posture/algebra.ts `CHECK_OUTCOMES_SQL`). */
export const checkFactsOf = ([status, resources_checked, resources_failing, resources_remediated, resources_muted]: StoredCheckFacts): RequirementCheckFacts => ({
  status,
  resources_checked,
  resources_failing,
  resources_remediated,
  resources_muted,
})

export type Mutable<A> = { -readonly [K in keyof A]: A[K] }

/** `checkFactsOf` written into `into` (organisation compliance refills one object per check of 500 members). */
export const checkFactsInto = (
  into: Mutable<RequirementCheckFacts>,
  [status, resources_checked, resources_failing, resources_remediated, resources_muted]: StoredCheckFacts,
): RequirementCheckFacts => {
  into.status = status
  into.resources_checked = resources_checked
  into.resources_failing = resources_failing
  into.resources_remediated = resources_remediated
  into.resources_muted = resources_muted
  return into
}

/**
 * What a requirement's status needs of each finding of several completed scans (each member's latest, for organisation
 * compliance), by scan then check id: the stored status and counts only (`requirementStatus`; read one with
 * `checkFactsOf`). They are the scan's stored roll-up (`scans.check_outcomes`, written from its findings with its other
 * counts, migration 0032), so one row per scan: no pass over its findings. The object is sent as stored and the
 * framework's checks picked by the caller, as it evaluates (server/compliance/evaluate.ts `requirementStatusesOf`): at
 * 500 members × 40 checks that cost a third of reading the findings, while picking them in SQL (`jsonb_each` and an
 * aggregate per scan) cost as much as the findings (bench/fleet-dashboard.ts). A requirement's status never reads the
 * mutes behind exceptions, and the organisation view lists none.
 */
export const scansCheckFacts = Effect.fn("ComplianceStore.scansCheckFacts")(function* (workspaceId: number, scanIds: ReadonlyArray<number>) {
  const out = new Map<number, Readonly<Record<string, StoredCheckFacts>>>()
  if (scanIds.length === 0) return out
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ readonly id: number; readonly facts: Record<string, StoredCheckFacts> | string }>`
    SELECT s.id, s.check_outcomes AS facts FROM scans s
    WHERE s.workspace_id = ${workspaceId} AND s.id = ANY(${scanIds as Array<number>}::int[])`
  for (const r of rows) out.set(r.id, typeof r.facts === "string" ? (JSON.parse(r.facts) as Record<string, StoredCheckFacts>) : r.facts)
  return out
})

/** The account's latest `limit` completed scans (oldest first) with their findings, for the trend. */
export const accountHistory = Effect.fn("ComplianceStore.accountHistory")(function* (workspaceId: number, accountId: number, limit: number) {
  const sql = yield* SqlClient.SqlClient
  const scans = yield* sql<{ id: number; scan_end: Date | string | null; scan_start: Date | string }>`
    SELECT id, scan_end, scan_start FROM scans
    WHERE workspace_id = ${workspaceId} AND account_id = ${accountId} AND status = 'completed'
    ORDER BY scan_start DESC, id DESC LIMIT ${limit}`
  if (scans.length === 0) return []
  const rows = yield* sql<OutcomeRow>`${selectOutcomes(sql)}
    WHERE f.workspace_id = ${workspaceId} AND f.scan_id IN ${sql.in(scans.map((s) => s.id))}`
  const mutes = yield* exceptionsOf(workspaceId, scans.map((s) => s.id))
  return [...scans].reverse().map((s) => ({
    scanId: s.id as ScanId,
    scanEnd: iso(s.scan_end ?? s.scan_start),
    outcomes: outcomesOf(rows.filter((r) => r.scan_id === s.id), mutes),
  }))
})

/** The account's provider, or undefined when the account is not in the workspace. */
export const accountProvider = Effect.fn("ComplianceStore.accountProvider")(function* (workspaceId: number, accountId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ cloud_provider_id: number }>`
    SELECT cloud_provider_id::int AS cloud_provider_id FROM accounts WHERE workspace_id = ${workspaceId} AND id = ${accountId}`
  return rows[0] === undefined ? undefined : providerKeyOf(rows[0].cloud_provider_id)
})

/** Every account of the workspace with its latest completed scan. */
export const complianceAccounts = Effect.fn("ComplianceStore.accounts")(function* (workspaceId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{
    id: number
    account_name: string
    cloud_account_id: string
    cloud_provider_id: number
    latest_scan_id: number | null
    latest_scan_end: Date | string | null
    completed_scans: number
  }>`
    SELECT a.id, a.account_name, a.cloud_account_id, a.cloud_provider_id::int AS cloud_provider_id,
           l.id AS latest_scan_id, l.scan_end AS latest_scan_end,
           (SELECT count(*)::int FROM scans c WHERE c.workspace_id = a.workspace_id AND c.account_id = a.id AND c.status = 'completed')
             AS completed_scans
    FROM accounts a
    LEFT JOIN LATERAL (
      SELECT s.id, s.scan_end FROM scans s
      WHERE s.workspace_id = a.workspace_id AND s.account_id = a.id AND s.status = 'completed'
      ORDER BY s.scan_start DESC, s.id DESC LIMIT 1) l ON true
    WHERE a.workspace_id = ${workspaceId}
    ORDER BY a.account_name, a.id`
  return rows.flatMap((r): ComplianceAccount[] => {
    const provider = providerKeyOf(r.cloud_provider_id)
    return provider === undefined
      ? []
      : [{
          account_id: r.id as AccountId,
          account_name: r.account_name,
          cloud_account_id: r.cloud_account_id,
          provider,
          latest_scan_id: r.latest_scan_id === null ? null : (r.latest_scan_id as ScanId),
          latest_scan_end: r.latest_scan_end === null ? null : iso(r.latest_scan_end),
          completed_scans: r.completed_scans,
        }]
  })
})

interface FailingRow {
  readonly finding_id: number
  readonly check_id: string
  readonly seq: number
  readonly resource_id: string
  readonly region: string
  readonly reason: string | null
  readonly muted_reason: string | null
  readonly muted_expires_at: Date | string | null
  readonly muted_author: string | null
  readonly muted_by: number | null
}

const toFailing = (r: FailingRow): FailingResource => ({
  finding_id: r.finding_id as FindingId,
  check_id: r.check_id,
  result_seq: r.seq,
  resource_id: r.resource_id,
  region: r.region,
  reason: r.reason ?? "",
  muted: r.muted_by !== null,
  muted_reason: r.muted_by === null ? null : (r.muted_reason ?? ""),
  ...(r.muted_by === null ? {} : { muted_expires_at: r.muted_expires_at === null ? null : iso(r.muted_expires_at), muted_author: r.muted_author }),
})

const selectFailing = (sql: SqlClient.SqlClient) => sql`
  SELECT r.finding_id, f.check_id, r.seq, r.resource_id, r.region, r.fields->>'reason' AS reason, r.muted_by,
         sm.reason AS muted_reason, sm.expires_at AS muted_expires_at, sm.author AS muted_author
  FROM results r JOIN findings f ON f.id = r.finding_id
  ${joinScanMutes(sql)}`

const failingWhere = (sql: SqlClient.SqlClient, workspaceId: number, findingIds: ReadonlyArray<number>) => sql`
  r.workspace_id = ${workspaceId} AND r.finding_id IN ${sql.in(findingIds)} AND f.workspace_id = ${workspaceId}
  AND f.status = 'fail' AND r.rank = 0 AND r.compliant = false
  AND NOT ${sql.literal(REMEDIATED_ROW_SQL)}`

/** One page of the open failing rows of some findings (finding id, then row order). */
export const failingPage = Effect.fn("ComplianceStore.failingPage")(function* (
  workspaceId: number,
  findingIds: ReadonlyArray<number>,
  page: number,
  pageSize: number,
) {
  if (findingIds.length === 0) return []
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<FailingRow>`${selectFailing(sql)}
    WHERE ${failingWhere(sql, workspaceId, findingIds)}
    ORDER BY r.finding_id, r.seq LIMIT ${pageSize} OFFSET ${(page - 1) * pageSize}`
  return rows.map(toFailing)
})

/** Up to `limit` open failing rows of one finding after row `afterSeq` (keyset), for the PDF. */
export const failingAfter = Effect.fn("ComplianceStore.failingAfter")(function* (
  workspaceId: number,
  findingId: number,
  afterSeq: number,
  limit: number,
) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<FailingRow>`${selectFailing(sql)}
    WHERE ${failingWhere(sql, workspaceId, [findingId])} AND r.seq > ${afterSeq}
    ORDER BY r.seq LIMIT ${limit}`
  return rows.map(toFailing)
})
