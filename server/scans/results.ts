/**
 * Resource-level results (issue 12; schema in server/db/migrations/0006_results.ts): the writer of a service's findings
 * with one `results` row per evaluated resource, the account's resource inventory, and the mapping between a stored
 * row and the contract's detail row (src/contracts/findings.ts `DetailRow`).
 *
 * Writer (`writeFindings`), inside the caller's transaction (run-service's `completeService`, which holds the scan and
 * service row locks, so a re-delivered job writes nothing twice):
 *   1. findings in multi-row INSERTs carrying their counts (checked, failing, and checked per region:
 *      `resources_by_region`), `ON CONFLICT (scan_id, check_id) DO NOTHING RETURNING id` — rows are written only for
 *      findings this call created;
 *   2. their result rows in batches of RESULT_BATCH rows, one statement per batch (`unnest` of one array parameter per
 *      column: a fixed number of bind parameters whatever the batch size, the same SQL on PostgreSQL and PGlite, and
 *      about three times the rate of one JSON parameter through `json_to_recordset`),
 *      `seq` numbering every non-compliant row first, `ON CONFLICT DO NOTHING`;
 *   3. the inventory: each distinct resource once, upserted in key order (two scans of one account never deadlock).
 * Before writing, each row is classified against the previous completed scan of the account (`classify`: first, new,
 * unchanged, fixed; server/db/migrations/0008_delta.ts), reading only that scan's failing rows of the same service
 * (key ranges), and each finding counts its new and fixed resources.
 *
 * Identity (`resourceIdentity`): what the check shows as `resource_id` when it already is a global identity (an ARN,
 * a GCP self link or `//service/...` name, an Azure resource id, lower-cased); the account itself for account-level rows
 * (`<provider>:account:<id>[/<region>]`); otherwise `<provider>:<service>:<region>:<resource id>`.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { DetailRow } from "../../src/contracts/findings.ts"
import type { FindingDraft, StoredRow } from "./finding-rows.ts"

/** Result rows per INSERT statement. */
export const RESULT_BATCH = 5_000
/** Findings per INSERT statement. */
export const FINDING_BATCH = 200

const PROVIDER_KEYS: Readonly<Record<number, string>> = { 1: "aws", 2: "gcp", 3: "azure" }

const GLOBAL_ID = /^(arn:|\/\/|https?:\/\/)/i
const AZURE_ID = /^\/subscriptions\//i

/** The stable identity of a resource in its account (see the module comment). */
export const resourceIdentity = (
  cloudProviderId: number,
  serviceKey: string,
  resourceId: string,
  region: string,
  cloudAccountId?: string,
): string => {
  if (AZURE_ID.test(resourceId)) return resourceId.toLowerCase()
  if (GLOBAL_ID.test(resourceId)) return resourceId
  const provider = PROVIDER_KEYS[cloudProviderId] ?? `p${cloudProviderId}`
  if (cloudAccountId !== undefined && cloudAccountId !== "" && (resourceId === cloudAccountId || resourceId.startsWith(`${cloudAccountId}/`))) {
    return `${provider}:account:${resourceId}`
  }
  return `${provider}:${serviceKey}:${region}:${resourceId}`
}

export interface SplitRow {
  readonly resource_id: string
  readonly region: string
  readonly compliant: boolean | null
  readonly fields: Readonly<Record<string, unknown>>
  readonly remediate: Readonly<Record<string, unknown>> | null
}

/** A stored detail row (contract shape) split into the `results` columns. */
export const splitStoredRow = (row: StoredRow): SplitRow => {
  const { resource_id, region, compliance, remediate, result_seq: _seq, delta: _delta, muted: _muted, resource_uid: _uid, ...fields } = row
  return {
    resource_id: resource_id === undefined || resource_id === null ? "" : String(resource_id),
    region: region === undefined || region === null ? "global" : String(region),
    compliant: typeof compliance === "boolean" ? compliance : null,
    fields,
    remediate: typeof remediate === "object" && remediate !== null ? (remediate as Record<string, unknown>) : null,
  }
}

export interface ResultRow {
  readonly seq: number
  readonly delta?: Delta | null
  readonly resource_id: string
  /** The resource's identity in its account (its resource page); absent on rows not read from `results`. */
  readonly resource_uid?: string
  readonly region: string
  readonly compliant: boolean | null
  readonly fields: Readonly<Record<string, unknown>>
  readonly remediate: Readonly<Record<string, unknown>> | null
  /** The mute rule muting this failing row, and its reason as the scan's snapshot keeps it (server/posture/algebra.ts). */
  readonly muted_by?: number | null
  readonly mute_reason?: string | null
}

/** The columns of a `results` row as `ResultRow` reads them (one list for every reader). */
export const selectResultRows = (sql: SqlClient.SqlClient, extra = sql``) =>
  sql`SELECT seq, resource_id, resource_uid, region, compliant, fields, remediate, delta, muted_by,
             (SELECT sm.reason FROM scan_mutes sm WHERE sm.workspace_id = r.workspace_id AND sm.scan_id = r.scan_id AND sm.rule_id = r.muted_by)
               AS mute_reason${extra} FROM results r`

/**
 * A `results` row as the contract's detail row: resource id, region, compliance, the free fields, the remediation
 * record when there is one, and `result_seq` (the row's position in its finding, which names the row to remediate).
 */
export const toDetailRow = (r: ResultRow): DetailRow =>
  ({
    resource_id: r.resource_id,
    region: r.region,
    ...(r.compliant === null ? {} : { compliance: r.compliant }),
    ...r.fields,
    ...(r.remediate === null ? {} : { remediate: r.remediate }),
    ...(r.delta === undefined || r.delta === null ? {} : { delta: r.delta }),
    ...(r.muted_by === undefined || r.muted_by === null ? {} : { muted: { rule_id: r.muted_by, reason: r.mute_reason ?? "" } }),
    ...(r.resource_uid === undefined ? {} : { resource_uid: r.resource_uid }),
    result_seq: r.seq,
  }) as unknown as DetailRow

/** Rows in stored order: every non-compliant row first, each group in the check's own order. */
export const orderRows = (details: ReadonlyArray<StoredRow>): { readonly rows: ReadonlyArray<StoredRow>; readonly failing: number } => {
  const failing = details.filter((d) => d["compliance"] === false)
  return { rows: failing.length === 0 ? details : [...failing, ...details.filter((d) => d["compliance"] !== false)], failing: failing.length }
}

export interface WriteTarget {
  readonly workspaceId: number
  readonly scanId: number
  readonly scanServiceId: number
  readonly serviceId: number
  readonly serviceKey: string
  readonly accountId: number
  readonly cloudAccountId: string
  readonly cloudProviderId: number
}

export interface WriteCounts {
  readonly findings: number
  readonly results: number
  readonly resources: number
  /** The scan the rows were compared with (null: the account's first completed scan). */
  readonly previousScanId: number | null
}

const nonEmpty = <T>(xs: ReadonlyArray<T>) => xs as unknown as readonly [T, ...Array<T>]

export type Delta = "first" | "new" | "unchanged" | "fixed"

/**
 * A row's change since the previous completed scan of the account (`previous` = the check's failing resources then,
 * `undefined` when there was no previous scan): see server/db/migrations/0008_delta.ts.
 */
export const classify = (failingNow: boolean, uid: string, previous: ReadonlySet<string> | undefined): Delta =>
  previous === undefined ? "first" : failingNow ? (previous.has(uid) ? "unchanged" : "new") : previous.has(uid) ? "fixed" : "unchanged"

/** The latest completed scan of the account before this one, and each of its checks' failing resources in this service. */
const previousFailing = (target: WriteTarget) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const scans = yield* sql<{ id: number }>`
      SELECT id FROM scans
      WHERE workspace_id = ${target.workspaceId} AND account_id = ${target.accountId} AND status = 'completed' AND id <> ${target.scanId}
      ORDER BY scan_start DESC, id DESC LIMIT 1`
    const previousScanId = scans[0]?.id
    if (previousScanId === undefined) return undefined
    const rows = yield* sql<{ check_id: string; resource_uid: string | null }>`
      SELECT f.check_id, r.resource_uid
      FROM findings f LEFT JOIN results r ON r.workspace_id = f.workspace_id AND r.finding_id = f.id AND r.seq < f.resources_failing
      WHERE f.workspace_id = ${target.workspaceId} AND f.scan_id = ${previousScanId} AND f.service_id = ${target.serviceId}`
    const byCheck = new Map<string, Set<string>>()
    for (const r of rows) {
      let set = byCheck.get(r.check_id)
      if (set === undefined) byCheck.set(r.check_id, (set = new Set()))
      if (r.resource_uid !== null) set.add(r.resource_uid)
    }
    return { previousScanId, byCheck }
  })

/** How many of a finding's rows are in each region (server/db/migrations/0016_findings_regions.ts). */
const byRegion = (rows: ReadonlyArray<{ readonly split: SplitRow }>): Record<string, number> => {
  const counts: Record<string, number> = {}
  for (const { split } of rows) counts[split.region] = (counts[split.region] ?? 0) + 1
  return counts
}

/** Writes findings, their result rows and the inventory (see the module comment); answers what it wrote. */
export const writeFindings = Effect.fn("Results.writeFindings")(function* (target: WriteTarget, drafts: ReadonlyArray<FindingDraft>) {
  const sql = yield* SqlClient.SqlClient
  const previous = yield* previousFailing(target)
  const EMPTY: ReadonlySet<string> = new Set()
  // Each draft's rows in stored order, split into columns, with identity and delta, and the finding's counts.
  const prepared = new Map(
    drafts.map((d) => {
      const o = orderRows(d.details)
      const before = previous === undefined ? undefined : (previous.byCheck.get(d.check_id) ?? EMPTY)
      const seen = new Set<string>()
      let fresh = 0
      let fixed = 0
      const rows = o.rows.map((row, seq) => {
        const split = splitStoredRow(row)
        const uid = resourceIdentity(target.cloudProviderId, target.serviceKey, split.resource_id, split.region, target.cloudAccountId)
        const delta = classify(seq < o.failing, uid, before)
        if (delta === "new") fresh++
        else if (delta === "fixed") fixed++
        seen.add(uid)
        return { split, uid, delta }
      })
      // Failing before and gone now counts as fixed too, unless some input could not be read (rows without a
      // compliance flag): then a resource missing now may just be unreadable.
      const unread = o.rows.some((r) => typeof r["compliance"] !== "boolean")
      if (before !== undefined && !unread) for (const uid of before) if (!seen.has(uid)) fixed++
      return [d.check_id, { rows, failing: o.failing, fresh, fixed }] as const
    }),
  )
  const created: Array<{ id: number; check_id: string }> = []
  for (let i = 0; i < drafts.length; i += FINDING_BATCH) {
    const batch = drafts.slice(i, i + FINDING_BATCH).map((d) => {
      const o = prepared.get(d.check_id)!
      return {
        workspace_id: target.workspaceId,
        scan_id: target.scanId,
        scan_service_id: target.scanServiceId,
        service_id: target.serviceId,
        check_id: d.check_id,
        severity: d.severity,
        status: d.status,
        not_evaluated_reason: d.not_evaluated_reason,
        title: d.title,
        description: d.description,
        policy_check: d.policy_check,
        remediation: d.remediation,
        field_labels: JSON.stringify(d.field_labels),
        compliance: JSON.stringify(d.compliance),
        resources_checked: o.rows.length,
        resources_failing: o.failing,
        resources_new: o.fresh,
        resources_fixed: o.fixed,
        resources_by_region: JSON.stringify(byRegion(o.rows)),
      }
    })
    if (batch.length === 0) continue
    created.push(
      ...(yield* sql<{ id: number; check_id: string }>`
        INSERT INTO findings ${sql.insert(nonEmpty(batch))} ON CONFLICT (scan_id, check_id) DO NOTHING RETURNING id, check_id`),
    )
  }

  // Column buffers of the next batch (one array parameter per column; `c`: 1 compliant, 0 non-compliant, -1 no flag,
  // so no array is ever all-NULL, which the driver cannot type).
  const empty = () => ({
    f: [] as Array<number>, s: [] as Array<number>, r: [] as Array<string>, u: [] as Array<string>, g: [] as Array<string>,
    c: [] as Array<number>, d: [] as Array<string>, t: [] as Array<string>,
  })
  let cols = empty()
  let results = 0
  const flush = Effect.gen(function* () {
    if (cols.f.length === 0) return
    const b = cols
    results += b.f.length
    cols = empty()
    yield* sql`
      INSERT INTO results (workspace_id, finding_id, seq, scan_id, resource_id, resource_uid, region, compliant, fields, delta)
      SELECT ${target.workspaceId}, x.f, x.s, ${target.scanId}, x.r, x.u, x.g, CASE x.c WHEN 1 THEN true WHEN 0 THEN false END, x.d::jsonb, x.t
      FROM unnest(${b.f}::int[], ${b.s}::int[], ${b.r}::text[], ${b.u}::text[], ${b.g}::text[], ${b.c}::int[], ${b.d}::text[], ${b.t}::text[])
        AS x(f, s, r, u, g, c, d, t)
      ON CONFLICT DO NOTHING`
  })
  const inventory = new Map<string, { readonly r: string; readonly g: string }>()
  for (const finding of created) {
    const rows = prepared.get(finding.check_id)?.rows ?? []
    for (let seq = 0; seq < rows.length; seq++) {
      const { split, uid, delta } = rows[seq]!
      if (!inventory.has(uid)) inventory.set(uid, { r: split.resource_id, g: split.region })
      cols.f.push(finding.id)
      cols.s.push(seq)
      cols.r.push(split.resource_id)
      cols.u.push(uid)
      cols.g.push(split.region)
      cols.c.push(split.compliant === null ? -1 : split.compliant ? 1 : 0)
      cols.d.push(JSON.stringify(split.fields))
      cols.t.push(delta)
      if (cols.f.length >= RESULT_BATCH) yield* flush
    }
  }
  yield* flush

  const uids = [...inventory.keys()].sort()
  for (let i = 0; i < uids.length; i += RESULT_BATCH) {
    const batch = uids.slice(i, i + RESULT_BATCH)
    yield* sql`
      INSERT INTO resources (workspace_id, account_id, resource_uid, resource_id, service_key, region, first_scan_id, last_scan_id)
      SELECT ${target.workspaceId}, ${target.accountId}, x.u, x.r, ${target.serviceKey}, x.g, ${target.scanId}, ${target.scanId}
      FROM unnest(${batch}::text[], ${batch.map((u) => inventory.get(u)!.r)}::text[], ${batch.map((u) => inventory.get(u)!.g)}::text[]) AS x(u, r, g)
      ORDER BY x.u
      ON CONFLICT (account_id, resource_uid) DO UPDATE SET
        last_seen_at = now(), last_scan_id = excluded.last_scan_id, resource_id = excluded.resource_id, region = excluded.region
      WHERE resources.last_scan_id <> excluded.last_scan_id`
  }
  return { findings: created.length, results, resources: uids.length, previousScanId: previous?.previousScanId ?? null } satisfies WriteCounts
})
