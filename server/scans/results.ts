/**
 * Resource-level results (issue 12), stored by change (issue 30; schema in server/db/migrations/0020_storage_by_change.ts):
 * the writer of a service's findings and the rows they hold, the account's resource inventory, and the mapping between
 * a stored row and the contract's detail row (src/contracts/findings.ts `DetailRow`).
 *
 * Writer (`writeFindings`), inside the caller's transaction (run-service's `completeService`, which holds the scan and
 * service row locks, so a re-delivered job writes nothing twice):
 *   1. each row is classified against the previous completed scan of the account (`classify`: first, new, unchanged,
 *      fixed; migration 0008), reading only that scan's failing rows of the same service, and hashed (`rowDigest`);
 *   2. the checks' streams (one per account and check) are created or locked, in key order, and their open versions
 *      read (position, rank, digest);
 *   3. findings in multi-row INSERTs carrying their counts, their stream and their page marks,
 *      `ON CONFLICT (scan_id, check_id) DO NOTHING RETURNING id`: rows are written only for findings this call created;
 *   4. each row reuses an open version of the same content (nothing written) or becomes a new version (batches of
 *      RESULT_BATCH rows, one `unnest` statement per batch: a fixed number of bind parameters whatever the batch size,
 *      the same SQL on PostgreSQL and PGlite); open versions no row reused are closed at the new finding; rows that are
 *      new or fixed get a mark saying so;
 *   5. the inventory: each resource whose row was written (new or changed) once, upserted in key order (two scans of
 *      one account never deadlock); an unchanged rescan leaves it alone.
 *
 * Identity (`resourceIdentity`): what the check shows as `resource_id` when it already is a global identity (an ARN,
 * a GCP self link or `//service/...` name, an Azure resource id, lower-cased); the account itself for account-level rows
 * (`<provider>:account:<id>[/<region>]`); otherwise `<provider>:<service>:<region>:<resource id>`.
 */
import { createHash } from "node:crypto"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { OPEN_VERSION, PAGE_MARK } from "../db/migrations/0020_storage_by_change.ts"
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
export const selectResultRows = (sql: SqlClient.SqlClient, extra = sql``, from = sql`results`) =>
  sql`SELECT seq, resource_id, resource_uid, region, compliant, fields, remediate, delta, muted_by,
             (SELECT sm.reason FROM scan_mutes sm WHERE sm.workspace_id = r.workspace_id AND sm.scan_id = r.scan_id AND sm.rule_id = r.muted_by)
               AS mute_reason${extra} FROM ${from} r`

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
  /** Rows the written findings hold. */
  readonly results: number
  /** Rows actually written: the versions the findings needed (migration 0020). */
  readonly versions: number
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

/**
 * The latest completed scan of the account before this one, and each of its checks' failing resources in this service,
 * in one statement (the scan's id on every row; one row with no check when that scan has no finding of the service).
 */
const previousFailing = (target: WriteTarget) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ scan_id: number; check_id: string | null; resource_uid: string | null }>`
      SELECT p.id AS scan_id, f.check_id, r.resource_uid
      FROM (SELECT id FROM scans
            WHERE workspace_id = ${target.workspaceId} AND account_id = ${target.accountId} AND status = 'completed' AND id <> ${target.scanId}
            ORDER BY scan_start DESC, id DESC LIMIT 1) p
      LEFT JOIN findings f ON f.workspace_id = ${target.workspaceId} AND f.scan_id = p.id AND f.service_id = ${target.serviceId}
      LEFT JOIN results r ON r.workspace_id = f.workspace_id AND r.finding_id = f.id AND r.rank = 0`
    const previousScanId = rows[0]?.scan_id
    if (previousScanId === undefined) return undefined
    const byCheck = new Map<string, Set<string>>()
    for (const r of rows) {
      if (r.check_id === null) continue
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

/** JSON with every object's keys sorted: one text per content, whatever order the keys were written or stored in. */
const stableJson = (value: unknown): string =>
  value === null || typeof value !== "object"
    ? (JSON.stringify(value) ?? "null")
    : Array.isArray(value)
      ? `[${value.map(stableJson).join(",")}]`
      : `{${Object.keys(value).sort().filter((k) => (value as Record<string, unknown>)[k] !== undefined)
          .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`).join(",")}}`

/**
 * The content hash of a version (`result_rows.digest`, migration 0020): the first 8 bytes of SHA-1 over the row's
 * identity and content, as a signed 64-bit decimal; never 0 (0 marks a converted row whose hash was not computed).
 */
export const rowDigest = (resourceId: string, uid: string, region: string, compliant: boolean | null, fields: Readonly<Record<string, unknown>>): string => {
  const h = createHash("sha1").update(stableJson([resourceId, uid, region, compliant, fields])).digest()
  const n = h.readBigInt64BE(0)
  return (n === 0n ? 1n : n).toString()
}

interface OpenVersion {
  readonly stream_id: number
  readonly pos: number
  readonly rank: number
  readonly digest: string
  readonly resource_id: string | null
  readonly resource_uid: string | null
  readonly region: string | null
  readonly compliant: boolean | null
  readonly fields: Readonly<Record<string, unknown>> | null
}

/** The pos at positions PAGE_MARK, 2·PAGE_MARK, … of a finding's order (rank, pos). */
const pageMarks = (visible: ReadonlyArray<{ readonly rank: number; readonly pos: number }>): Array<number> => {
  const sorted = [...visible].sort((a, b) => a.rank - b.rank || a.pos - b.pos)
  const marks: Array<number> = []
  for (let n = PAGE_MARK; n < sorted.length; n += PAGE_MARK) marks.push(sorted[n]!.pos)
  return marks
}

/**
 * Writes findings, the versions their rows need and the inventory (see the module comment); answers what it wrote.
 * `results` counts the rows the findings hold (as before); `versions` the rows it actually wrote.
 */
export const writeFindings = Effect.fn("Results.writeFindings")(function* (target: WriteTarget, drafts: ReadonlyArray<FindingDraft>) {
  const sql = yield* SqlClient.SqlClient
  const previous = yield* previousFailing(target)
  const EMPTY: ReadonlySet<string> = new Set()
  // Each draft's rows in stored order, split into columns, with identity, delta and digest, and the finding's counts.
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
        return { split, uid, delta, rank: split.compliant === false ? 0 : 1, digest: rowDigest(split.resource_id, uid, split.region, split.compliant, split.fields) }
      })
      // Failing before and gone now counts as fixed too, unless some input could not be read (rows without a
      // compliance flag): then a resource missing now may just be unreadable.
      const unread = o.rows.some((r) => typeof r["compliance"] !== "boolean")
      if (before !== undefined && !unread) for (const uid of before) if (!seen.has(uid)) fixed++
      return [d.check_id, { rows, failing: o.failing, fresh, fixed }] as const
    }),
  )
  if (drafts.length === 0) return { findings: 0, results: 0, versions: 0, resources: 0, previousScanId: previous?.previousScanId ?? null } satisfies WriteCounts

  // The checks' streams, created when new and locked (in key order: two writers never deadlock) until commit, so the
  // findings of one stream are written one at a time and their ids follow that order (migration 0020).
  const checkIds = [...new Set(drafts.map((d) => d.check_id))].sort()
  const streams = yield* sql<{ id: number; check_id: string; next_pos: number }>`
    INSERT INTO result_streams (workspace_id, account_id, check_id)
    SELECT ${target.workspaceId}, ${target.accountId}, c FROM unnest(${checkIds}::text[]) AS c ORDER BY c
    ON CONFLICT (account_id, check_id) DO UPDATE SET next_pos = result_streams.next_pos
    RETURNING id, check_id, next_pos`
  const streamOf = new Map(streams.map((s) => [s.check_id, s]))
  const open = yield* sql<OpenVersion>`
    SELECT stream_id, pos, rank, digest::text AS digest,
           CASE WHEN digest = 0 THEN resource_id END AS resource_id, CASE WHEN digest = 0 THEN resource_uid END AS resource_uid,
           CASE WHEN digest = 0 THEN region END AS region, CASE WHEN digest = 0 THEN compliant END AS compliant,
           CASE WHEN digest = 0 THEN fields END AS fields
    FROM result_rows
    WHERE workspace_id = ${target.workspaceId} AND stream_id = ANY(${streams.map((s) => s.id)}::int[]) AND to_finding = ${OPEN_VERSION}`
  // Per stream: digest → the open versions holding that content (a finding may hold the same row twice).
  const openByStream = new Map<number, Map<string, Array<OpenVersion>>>()
  for (const v of open) {
    const digest = v.digest !== "0" ? v.digest : rowDigest(v.resource_id ?? "", v.resource_uid ?? "", v.region ?? "", v.compliant, v.fields ?? {})
    let byDigest = openByStream.get(v.stream_id)
    if (byDigest === undefined) openByStream.set(v.stream_id, (byDigest = new Map()))
    const list = byDigest.get(digest)
    if (list === undefined) byDigest.set(digest, [v])
    else list.push(v)
  }
  // Each draft's plan: its rows reuse an open version of the same content, or get a new one; open versions left over
  // are closed by the finding.
  const plans = new Map(
    drafts.map((d) => {
      const stream = streamOf.get(d.check_id)!
      const byDigest = openByStream.get(stream.id) ?? new Map<string, Array<OpenVersion>>()
      let next = stream.next_pos
      const rows = prepared.get(d.check_id)!.rows.map((row) => {
        const reused = byDigest.get(row.digest)?.pop()
        return { ...row, pos: reused === undefined ? next++ : reused.pos, rank: reused === undefined ? row.rank : reused.rank, created: reused === undefined }
      })
      const closed = [...byDigest.values()].flat().map((v) => v.pos)
      return [d.check_id, { stream, rows, closed, nextPos: next, marks: pageMarks(rows) }] as const
    }),
  )

  const created: Array<{ id: number; check_id: string }> = []
  for (let i = 0; i < drafts.length; i += FINDING_BATCH) {
    const batch = drafts.slice(i, i + FINDING_BATCH).map((d) => {
      const o = prepared.get(d.check_id)!
      const plan = plans.get(d.check_id)!
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
        stream_id: plan.stream.id,
        row_delta: previous === undefined ? "first" : "unchanged",
        page_marks: `{${plan.marks.join(",")}}`,
      }
    })
    if (batch.length === 0) continue
    created.push(
      ...(yield* sql<{ id: number; check_id: string }>`
        INSERT INTO findings ${sql.insert(nonEmpty(batch))} ON CONFLICT (scan_id, check_id) DO NOTHING RETURNING id, check_id`),
    )
  }

  // Column buffers of the next batch of versions (one array parameter per column; `c`: 1 compliant, 0 non-compliant,
  // -1 no flag, so no array is ever all-NULL, which the driver cannot type).
  const empty = () => ({
    st: [] as Array<number>, p: [] as Array<number>, k: [] as Array<number>, f: [] as Array<number>, h: [] as Array<string>,
    r: [] as Array<string>, u: [] as Array<string>, g: [] as Array<string>, c: [] as Array<number>, d: [] as Array<string>,
  })
  let cols = empty()
  let versions = 0
  let results = 0
  const flush = Effect.gen(function* () {
    if (cols.st.length === 0) return
    const b = cols
    versions += b.st.length
    cols = empty()
    yield* sql`
      INSERT INTO result_rows (workspace_id, stream_id, pos, rank, from_finding, digest, resource_id, resource_uid, region, compliant, fields)
      SELECT ${target.workspaceId}, x.st, x.p, x.k, x.f, x.h::bigint, x.r, x.u, x.g, CASE x.c WHEN 1 THEN true WHEN 0 THEN false END, x.d::jsonb
      FROM unnest(${b.st}::int[], ${b.p}::int[], ${b.k}::int[], ${b.f}::int[], ${b.h}::text[], ${b.r}::text[], ${b.u}::text[],
                  ${b.g}::text[], ${b.c}::int[], ${b.d}::text[]) AS x(st, p, k, f, h, r, u, g, c, d)
      ON CONFLICT DO NOTHING`
  })
  const closing = { st: [] as Array<number>, p: [] as Array<number>, f: [] as Array<number> }
  const marks = { f: [] as Array<number>, p: [] as Array<number>, t: [] as Array<string> }
  const inventory = new Map<string, { readonly r: string; readonly g: string }>()
  const seen = new Set<string>()
  for (const finding of created) {
    const plan = plans.get(finding.check_id)!
    results += plan.rows.length
    for (const pos of plan.closed) {
      closing.st.push(plan.stream.id)
      closing.p.push(pos)
      closing.f.push(finding.id)
    }
    for (const row of plan.rows) {
      seen.add(row.uid)
      // The inventory hears of a resource when one of its rows is written (new or changed): an unchanged rescan leaves
      // it alone (its last sighting is read from its rows, server/posture/resource-history.ts).
      if (row.created && !inventory.has(row.uid)) inventory.set(row.uid, { r: row.split.resource_id, g: row.split.region })
      if (row.delta === "new" || row.delta === "fixed") {
        marks.f.push(finding.id)
        marks.p.push(row.pos)
        marks.t.push(row.delta)
      }
      if (!row.created) continue
      cols.st.push(plan.stream.id)
      cols.p.push(row.pos)
      cols.k.push(row.rank)
      cols.f.push(finding.id)
      cols.h.push(row.digest)
      cols.r.push(row.split.resource_id)
      cols.u.push(row.uid)
      cols.g.push(row.split.region)
      cols.c.push(row.split.compliant === null ? -1 : row.split.compliant ? 1 : 0)
      cols.d.push(JSON.stringify(row.split.fields))
      if (cols.st.length >= RESULT_BATCH) yield* flush
    }
  }
  yield* flush
  for (let i = 0; i < closing.st.length; i += RESULT_BATCH) {
    yield* sql`
      UPDATE result_rows r SET to_finding = x.f
      FROM unnest(${closing.st.slice(i, i + RESULT_BATCH)}::int[], ${closing.p.slice(i, i + RESULT_BATCH)}::int[],
                  ${closing.f.slice(i, i + RESULT_BATCH)}::int[]) AS x(st, p, f)
      WHERE r.workspace_id = ${target.workspaceId} AND r.stream_id = x.st AND r.pos = x.p AND r.to_finding = ${OPEN_VERSION}`
  }
  for (let i = 0; i < marks.f.length; i += RESULT_BATCH) {
    yield* sql`
      INSERT INTO result_marks (workspace_id, finding_id, pos, delta)
      SELECT ${target.workspaceId}, x.f, x.p, x.t
      FROM unnest(${marks.f.slice(i, i + RESULT_BATCH)}::int[], ${marks.p.slice(i, i + RESULT_BATCH)}::int[], ${marks.t.slice(i, i + RESULT_BATCH)}::text[]) AS x(f, p, t)
      ON CONFLICT DO NOTHING`
  }
  const advanced = created.map((c) => plans.get(c.check_id)!).filter((p) => p.nextPos !== p.stream.next_pos)
  if (advanced.length > 0) {
    yield* sql`
      UPDATE result_streams s SET next_pos = x.n
      FROM unnest(${advanced.map((p) => p.stream.id)}::int[], ${advanced.map((p) => p.nextPos)}::int[]) AS x(id, n)
      WHERE s.workspace_id = ${target.workspaceId} AND s.id = x.id`
  }

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
  return { findings: created.length, results, versions, resources: seen.size, previousScanId: previous?.previousScanId ?? null } satisfies WriteCounts
})
