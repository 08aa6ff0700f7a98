/**
 * Bulk remediation (issue 32 part 4; docs/remediation.md "Bulk", src/contracts/remediation-batches.ts): a selection of
 * rows, or every failing row of a check in the latest completed scan of each account, fixed as one job.
 *
 * - `createBatch` (POST /api/remediation-batches): resolves the rows in the caller's scope (row-level security keeps a
 *   member limited to account groups to their accounts), records each as an item — `pending`, or `skipped` with its
 *   reason (no longer failing, muted, already remediated or in progress, superseded scan, no automatic fix, account
 *   requiring approval: a batch never bypasses four eyes, account retired from its organisation) — and enqueues
 *   `remediations.batch`, in one transaction. Rows all of retired members are refused (409 `account_retired`), as the
 *   single remediation is; a retired member's fixed items are not undoable (the batch's undo refuses them likewise).
 * - `remediations.batch` job: BATCH_CONCURRENCY slots each claim the next pending item and, in the SAME transaction,
 *   create its `remediations` row through the single-resource path (`requestRemediationWithId` without a job: the
 *   row's pending mark, the audit), then run it (`runRemediation`: fixer, verification, counts, audit, events) and copy
 *   its outcome to the item. Exactly once: an item is claimed by one transaction (pending → running with its
 *   remediation), so a worker killed mid-batch leaves every item pending (never started: claimed by the retry) or
 *   running with its remediation. The retried job first settles those: a finished remediation's outcome is copied; an
 *   unfinished one is run again, and its fixer re-reads the resource first, so a change the dead attempt already made
 *   is found in place (a plan without calls) and not made twice — the first attempt's pre-image is kept for the undo.
 * - `stopBatch`: pending items become skipped (stopped) under the batch's lock, which every claim takes shared: no item
 *   starts after a stop; running ones finish, then the batch is `stopped`. The stop names its member and, when asked
 *   with an API key, the key (`stop_api_key_id`, migration 0037), as the start and the undo do.
 * - `requestBatchUndo` + `remediations.batch-undo` job: every fixed item (and every item whose undo failed) goes through
 *   the single undo (`requestUndo` without a job, then `runUndo`): a resource changed since its fix ends `undo_failed`
 *   with the field differences unless `force`.
 * - Each item runs in the name of whoever started the batch (its undo: whoever asked for it) as they stand when the item
 *   is claimed (`actorRefusal`): still a member holding remediate_findings on the item's account; when they used an API
 *   key (`api_key_id` / `undo_api_key_id`, migration 0035), the key also still valid and its effective grant (its
 *   role's permissions and its groups' accounts within the member's, docs/api-keys.md) covering it. Otherwise the item
 *   is skipped (its undo fails) with the reason.
 * Start, stop, finish and undo of a batch are audited (`remediation_batch.*`); each item's remediation and undo publish
 * their usual integration events.
 */
import { Data, Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { Conflict, NotFound, ValidationError } from "../../src/contracts/errors.ts"
import type { DetailRow } from "../../src/contracts/findings.ts"
import { ProviderIds } from "../../src/contracts/constants.ts"
import {
  BATCH_CONCURRENCY,
  BATCH_ITEM_STATES,
  BATCH_MAX_ROWS,
  BatchMessages,
  INVALID_ITEM_STATE_FILTER,
  type BatchItem,
  type BatchItemState,
  type BatchState,
  type CreateBatchPayload,
  type RemediationBatch,
} from "../../src/contracts/remediation-batches.ts"
import { ScanningServerMessages } from "../../src/contracts/messages.ts"
import { OrganizationMessages } from "../../src/contracts/organizations.ts"
import type { PermissionName } from "../../src/contracts/permissions.ts"
import { keyEffectiveGrant, keyGrant } from "../auth/api-keys.ts"
import { toMembership, type WorkspaceContext } from "../auth/workspace-context.ts"
import { inScope, readMembership } from "../auth/rls.ts"
import { recordAudit } from "../audit/scanning-audit.ts"
import { defineJob, type JobContext } from "../jobs/queue.ts"
import { logLine } from "../log.ts"
import { fixerInfo } from "./fixers.ts"
import { JOB_HEARTBEAT_SECONDS } from "./jobs.ts"
import { requestRemediationWithId, runRemediation } from "./remediation.ts"
import { requestUndo, runUndo } from "./remediation-undo.ts"
import { enqueueInTransaction } from "./transactional-enqueue.ts"

export const BatchJobPayload = Schema.Struct({ workspace_id: Schema.Int, batch_id: Schema.Int })
export type BatchJobPayload = typeof BatchJobPayload.Type

/** Retries of the batch job (a dead worker's attempt is retried after its heartbeat) and of the batch undo job. */
const BATCH_RETRY_LIMIT = 5
const UNDO_RETRY_LIMIT = 2

type Ctx = Pick<WorkspaceContext, "workspaceId" | "userId" | "ip">
/** A request's caller, with the API key it presented (`WorkspaceContext.apiKeyId`; undefined: a signed-in member). */
type RequestCtx = Ctx & Pick<WorkspaceContext, "apiKeyId">

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString())

// ---------------------------------------------------------------------------------------------------
// Reading batches

interface BatchRow {
  id: number; state: BatchState; check_id: string | null; created_by: number | null; created_email: string | null
  created_at: Date | string; started_at: Date | string | null; finished_at: Date | string | null
  stop_requested_by: number | null; stop_email: string | null; stop_requested_at: Date | string | null
  undo_requested_by: number | null; undo_email: string | null; undo_requested_at: Date | string | null
  counts: Record<string, number> | null; undoable: number; undo_until: Date | string | null
  api_key_id: number | null; api_key_name: string | null; undo_api_key_id: number | null; undo_api_key_name: string | null
  stop_api_key_id: number | null; stop_api_key_name: string | null
}

/** The item `i`'s account retired from its organisation (issue 31): nothing is fixed or undone in it any more. */
const itemRetired = (sql: SqlClient.SqlClient) => sql`EXISTS (SELECT 1 FROM accounts ra
  WHERE ra.workspace_id = i.workspace_id AND ra.id = i.account_id AND ra.retired_at IS NOT NULL)`

/** Undo of an item's remediation is possible now (the single undo's own rule, server/scans/remediation-undo.ts). */
const undoableRemediation = (sql: SqlClient.SqlClient) => sql`(r.state IN ('verified', 'undo_failed') AND r.plan IS NOT NULL
  AND r.pre_image IS NOT NULL AND r.post_image IS NOT NULL AND (r.plan -> 'undo' ->> 'reversible') = 'true'
  AND (r.undo_until IS NULL OR r.undo_until >= now()) AND NOT ${itemRetired(sql)})`

const selectBatches = (sql: SqlClient.SqlClient) => sql`
  SELECT b.id, b.state, b.check_id, b.created_by, cu.email AS created_email, b.created_at, b.started_at, b.finished_at,
         b.stop_requested_by, su.email AS stop_email, b.stop_requested_at, b.undo_requested_by, uu.email AS undo_email,
         b.undo_requested_at, c.counts, coalesce(u.undoable, 0)::int AS undoable, u.undo_until,
         b.api_key_id, ck.name AS api_key_name, b.undo_api_key_id, uk.name AS undo_api_key_name, b.stop_api_key_id, sk.name AS stop_api_key_name
  FROM remediation_batches b
  LEFT JOIN users cu ON cu.id = b.created_by LEFT JOIN users su ON su.id = b.stop_requested_by LEFT JOIN users uu ON uu.id = b.undo_requested_by
  LEFT JOIN api_keys ck ON ck.workspace_id = b.workspace_id AND ck.id = b.api_key_id
  LEFT JOIN api_keys uk ON uk.workspace_id = b.workspace_id AND uk.id = b.undo_api_key_id
  LEFT JOIN api_keys sk ON sk.workspace_id = b.workspace_id AND sk.id = b.stop_api_key_id
  LEFT JOIN LATERAL (
    SELECT jsonb_object_agg(state, n) AS counts FROM (
      SELECT i.state, count(*)::int AS n FROM remediation_batch_items i WHERE i.workspace_id = b.workspace_id AND i.batch_id = b.id GROUP BY i.state) g
  ) c ON true
  LEFT JOIN LATERAL (
    SELECT count(*)::int AS undoable, min(r.undo_until) AS undo_until
    FROM remediation_batch_items i JOIN remediations r ON r.workspace_id = i.workspace_id AND r.id = i.remediation_id
    WHERE i.workspace_id = b.workspace_id AND i.batch_id = b.id AND i.state IN ('fixed', 'undo_failed') AND ${undoableRemediation(sql)}
  ) u ON true`

const toBatch = (b: BatchRow): RemediationBatch => {
  const counts = Object.fromEntries(BATCH_ITEM_STATES.map((s) => [s, b.counts?.[s] ?? 0])) as Record<BatchItemState, number>
  const total = Object.values(counts).reduce((a, n) => a + n, 0)
  const finished = b.state === "completed" || b.state === "stopped" || b.state === "failed" || b.state === "undo_failed"
  const member = (id: number | null, email: string | null) => (id === null ? null : { id, email: email ?? "" })
  const key = (id: number | null, name: string | null) => (id === null ? null : { id, name: name ?? "" })
  return {
    id: b.id,
    state: b.state,
    created_by: member(b.created_by, b.created_email),
    api_key: key(b.api_key_id, b.api_key_name),
    created_at: new Date(b.created_at).toISOString(),
    started_at: iso(b.started_at),
    finished_at: iso(b.finished_at),
    check_id: b.check_id,
    total,
    counts: { pending: counts.pending, running: counts.running, fixed: counts.fixed, failed: counts.failed, skipped: counts.skipped, undoing: counts.undoing, undone: counts.undone, undo_failed: counts.undo_failed },
    reversible: finished && b.undoable > 0,
    undo_until: b.undoable > 0 ? iso(b.undo_until) : null,
    stop_requested_at: iso(b.stop_requested_at),
    stop_requested_by: member(b.stop_requested_by, b.stop_email),
    stop_api_key: key(b.stop_api_key_id, b.stop_api_key_name),
    undo_requested_at: iso(b.undo_requested_at),
    undo_requested_by: member(b.undo_requested_by, b.undo_email),
    undo_api_key: key(b.undo_api_key_id, b.undo_api_key_name),
  } as RemediationBatch
}

const loadBatch = (workspaceId: number, id: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<BatchRow>`${selectBatches(sql)} WHERE b.workspace_id = ${workspaceId} AND b.id = ${id}`
    return rows[0] === undefined ? undefined : toBatch(rows[0])
  })

/** GET /api/remediation-batches/{id}. */
export const getBatch = (workspaceId: number, id: number) =>
  Effect.gen(function* () {
    const batch = yield* loadBatch(workspaceId, id)
    if (batch === undefined) return yield* new NotFound({ message: BatchMessages.notFound })
    return batch
  })

/** GET /api/remediation-batches?page&page_size (newest first). */
export const listBatches = (workspaceId: number, page: number, pageSize: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const total = (yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM remediation_batches WHERE workspace_id = ${workspaceId}`)[0]?.n ?? 0
    const rows = yield* sql<BatchRow>`${selectBatches(sql)} WHERE b.workspace_id = ${workspaceId}
      ORDER BY b.created_at DESC, b.id DESC LIMIT ${pageSize} OFFSET ${(page - 1) * pageSize}`
    return {
      ok: true,
      data: rows.map(toBatch),
      pagination: { page, page_size: pageSize, total, total_pages: Math.ceil(total / pageSize) },
    }
  })

interface ItemRow {
  position: number; finding_id: number; scan_id: number; result_seq: number; account_id: number; account_name: string
  check_id: string; resource_id: string; region: string; state: BatchItemState; message: string | null
  remediation_id: number | null; differences: BatchItem["differences"] | null; updated_at: Date | string
}

/** GET /api/remediation-batches/{id}/items?cursor&limit&state (in the batch's order; the cursor is the last position). */
export const listItems = (workspaceId: number, id: number, query: { readonly cursor?: string | undefined; readonly limit: number; readonly state?: string | undefined }) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const exists = yield* sql`SELECT 1 FROM remediation_batches WHERE workspace_id = ${workspaceId} AND id = ${id}`
    if (exists.length === 0) return yield* new NotFound({ message: BatchMessages.notFound })
    let after = -1
    if (query.cursor !== undefined && query.cursor !== "") {
      if (!/^(0|[1-9][0-9]{0,8})$/.test(query.cursor)) {
        return yield* new ValidationError({ message: ScanningServerMessages.invalidCursor, errors: [{ path: "cursor", message: ScanningServerMessages.invalidCursor }] })
      }
      after = Number(query.cursor)
    }
    const wanted = (query.state ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "")
    if (wanted.some((s) => !(BATCH_ITEM_STATES as ReadonlyArray<string>).includes(s))) {
      return yield* new ValidationError({ message: INVALID_ITEM_STATE_FILTER, errors: [{ path: "state", message: INVALID_ITEM_STATE_FILTER }] })
    }
    const rows = yield* sql<ItemRow>`
      SELECT i.position, i.finding_id, f.scan_id, i.result_seq, i.account_id, a.account_name, i.check_id, i.resource_id, i.region,
             i.state, i.message, i.remediation_id, i.differences, i.updated_at
      FROM remediation_batch_items i JOIN findings f ON f.workspace_id = i.workspace_id AND f.id = i.finding_id
      JOIN accounts a ON a.workspace_id = i.workspace_id AND a.id = i.account_id
      WHERE i.workspace_id = ${workspaceId} AND i.batch_id = ${id} AND i.position > ${after}
        ${wanted.length === 0 ? sql`` : sql`AND i.state = ANY(${wanted}::text[])`}
      ORDER BY i.position LIMIT ${query.limit + 1}`
    const page = rows.slice(0, query.limit)
    return {
      ok: true,
      data: page.map((r): BatchItem => ({
        position: r.position,
        finding_id: r.finding_id as BatchItem["finding_id"],
        scan_id: r.scan_id,
        result_seq: r.result_seq,
        account_id: r.account_id as BatchItem["account_id"],
        account_name: r.account_name,
        check_id: r.check_id,
        resource_id: r.resource_id,
        region: r.region,
        state: r.state,
        message: r.message,
        remediation_id: r.remediation_id,
        differences: r.differences ?? [],
        updated_at: new Date(r.updated_at).toISOString(),
      })),
      next_cursor: rows.length > query.limit ? String(page[page.length - 1]!.position) : null,
    }
  })

// ---------------------------------------------------------------------------------------------------
// Starting a batch

interface Candidate {
  ord: number; finding_id: number | null; check_id: string | null; scan_id: number | null; account_id: number | null
  cloud_provider_id: number | null; seq: number | null; resource_id: string | null; region: string | null
  compliant: boolean | null; remediate_status: string | null; muted: boolean | null; error_code: string | null
  requires_approval: boolean | null; latest: boolean | null; retired: boolean | null
}

const candidateColumns = (sql: SqlClient.SqlClient) => sql`
  f.id AS finding_id, f.check_id, f.scan_id, s.account_id, s.cloud_provider_id::int AS cloud_provider_id, r.seq, r.resource_id,
  r.region, r.compliant, r.remediate ->> 'status' AS remediate_status, (r.muted_by IS NOT NULL) AS muted,
  r.fields ->> 'error_code' AS error_code, a.requires_approval, (a.latest_scan_id = f.scan_id) AS latest,
  (a.retired_at IS NOT NULL) AS retired`

/** Why a resolved row is not fixed by the batch (undefined: it is). */
const skipReason = (c: Candidate): string | undefined => {
  if (c.retired === true) return OrganizationMessages.memberRetiredRemediation
  if (c.latest !== true) return BatchMessages.superseded
  if (c.compliant !== false || c.muted === true) return BatchMessages.rowNotFailing
  if (c.remediate_status === "remediated" || c.remediate_status === "pending" || c.remediate_status === "running") return BatchMessages.alreadyRemediated
  if (c.error_code !== null || fixerInfo(c.check_id ?? "", c.cloud_provider_id ?? ProviderIds.AWS) === undefined) return BatchMessages.noFixer
  if (c.requires_approval === true) return BatchMessages.needsApproval
  return undefined
}

const invalid = (message: string, path: string) => new ValidationError({ message, errors: [{ path, message }] })

/** POST /api/remediation-batches: validates, records the batch and its items, enqueues the job (one transaction). */
export const createBatch = (ctx: RequestCtx, payload: CreateBatchPayload, job: typeof batchJob) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const hasRows = payload.rows !== undefined
    const hasCheck = payload.check_id !== undefined
    if (hasRows === hasCheck || (hasRows && payload.account_ids !== undefined)) {
      return yield* invalid(BatchMessages.rowsOrCheck, hasRows ? "account_ids" : "rows")
    }
    let candidates: ReadonlyArray<Candidate>
    if (payload.rows !== undefined) {
      const rows = payload.rows
      if (rows.length === 0) return yield* invalid(BatchMessages.noRows, "rows")
      if (rows.length > BATCH_MAX_ROWS) return yield* invalid(BatchMessages.tooManyRows, "rows")
      const seen = new Set<string>()
      for (const [i, r] of rows.entries()) {
        const key = `${r.finding_id}:${r.result_seq}`
        if (seen.has(key)) return yield* invalid(BatchMessages.duplicateRow, `rows.${i}`)
        seen.add(key)
      }
      candidates = yield* sql<Candidate>`
        SELECT x.ord::int AS ord, ${candidateColumns(sql)}
        FROM unnest(${rows.map((r) => r.finding_id)}::int[], ${rows.map((r) => r.result_seq)}::int[]) WITH ORDINALITY AS x(finding_id, seq, ord)
        LEFT JOIN findings f ON f.workspace_id = ${ctx.workspaceId} AND f.id = x.finding_id
        LEFT JOIN scans s ON s.workspace_id = f.workspace_id AND s.id = f.scan_id
        LEFT JOIN accounts a ON a.workspace_id = s.workspace_id AND a.id = s.account_id
        LEFT JOIN results r ON r.workspace_id = f.workspace_id AND r.finding_id = f.id AND r.seq = x.seq
        ORDER BY x.ord`
      for (const c of candidates) {
        if (c.finding_id === null || c.account_id === null) return yield* new NotFound({ message: ScanningServerMessages.findingNotFound })
        if (c.seq === null) return yield* invalid(ScanningServerMessages.rowNotInFinding, `rows.${c.ord - 1}.result_seq`)
      }
    } else {
      const checkId = payload.check_id!
      if (![ProviderIds.AWS, ProviderIds.GCP, ProviderIds.Azure].some((p) => fixerInfo(checkId, p) !== undefined)) {
        return yield* invalid(BatchMessages.noFixer, "check_id")
      }
      const accounts = payload.account_ids
      candidates = yield* sql<Candidate>`
        SELECT (row_number() OVER (ORDER BY a.id, f.id, r.seq))::int AS ord, ${candidateColumns(sql)}
        FROM accounts a
        JOIN findings f ON f.workspace_id = a.workspace_id AND f.scan_id = a.latest_scan_id AND f.check_id = ${checkId}
        JOIN scans s ON s.workspace_id = f.workspace_id AND s.id = f.scan_id
        JOIN results r ON r.workspace_id = f.workspace_id AND r.finding_id = f.id
        WHERE a.workspace_id = ${ctx.workspaceId} AND a.latest_scan_id IS NOT NULL AND a.retired_at IS NULL
          ${accounts === undefined ? sql`` : sql`AND a.id = ANY(${[...accounts] as Array<number>}::int[])`}
          AND r.compliant = false AND r.muted_by IS NULL
          AND coalesce(r.remediate ->> 'status', '') NOT IN ('remediated', 'pending', 'running')
        ORDER BY a.id, f.id, r.seq
        LIMIT ${BATCH_MAX_ROWS + 1}`
      if (candidates.length > BATCH_MAX_ROWS) return yield* invalid(BatchMessages.tooManyRows, "check_id")
    }
    const items = candidates.map((c) => ({ c, skip: skipReason(c) }))
    // Only retired members' rows: the single remediation's refusal, not "no rows" (their rows are there, failing).
    if (items.length > 0 && items.every((i) => i.c.retired === true)) {
      return yield* new Conflict({ message: OrganizationMessages.memberRetiredRemediation, data: { error_type: "account_retired" } })
    }
    if (!items.some((i) => i.skip === undefined)) return yield* invalid(BatchMessages.noRows, hasRows ? "rows" : "check_id")

    const inserted = yield* sql<{ id: number }>`
      INSERT INTO remediation_batches (workspace_id, state, check_id, created_by, api_key_id)
      VALUES (${ctx.workspaceId}, 'queued', ${payload.check_id ?? null}, ${ctx.userId}, ${ctx.apiKeyId ?? null}) RETURNING id`
    const batchId = inserted[0]!.id
    yield* sql`
      INSERT INTO remediation_batch_items (workspace_id, batch_id, position, account_id, finding_id, result_seq, check_id, resource_id, region, state, message)
      SELECT ${ctx.workspaceId}, ${batchId}, x.position, x.account_id, x.finding_id, x.result_seq, x.check_id, x.resource_id, x.region, x.state, nullif(x.message, '')
      FROM unnest(${items.map((_, i) => i)}::int[], ${items.map((i) => i.c.account_id!)}::int[], ${items.map((i) => i.c.finding_id!)}::int[],
                  ${items.map((i) => i.c.seq!)}::int[], ${items.map((i) => i.c.check_id!)}::text[], ${items.map((i) => i.c.resource_id!)}::text[],
                  ${items.map((i) => i.c.region!)}::text[], ${items.map((i) => (i.skip === undefined ? "pending" : "skipped"))}::text[],
                  ${items.map((i) => i.skip ?? "")}::text[])
        AS x(position, account_id, finding_id, result_seq, check_id, resource_id, region, state, message)`
    const [jobId] = yield* enqueueInTransaction(job, [{ payload: { workspace_id: ctx.workspaceId, batch_id: batchId } }], { workspaceId: ctx.workspaceId, userId: ctx.userId })
    yield* sql`UPDATE remediation_batches SET job_id = ${jobId ?? null} WHERE workspace_id = ${ctx.workspaceId} AND id = ${batchId}`
    yield* recordAudit({
      action: "remediation_batch.started",
      workspaceId: ctx.workspaceId,
      actorUserId: ctx.userId,
      targetType: "remediation_batch",
      targetId: batchId,
      details: {
        check_id: payload.check_id ?? null,
        items: items.length,
        pending: items.filter((i) => i.skip === undefined).length,
        accounts: [...new Set(items.map((i) => i.c.account_id))].length,
      },
      ip: ctx.ip,
    })
    return (yield* loadBatch(ctx.workspaceId, batchId))!
  })

// ---------------------------------------------------------------------------------------------------
// Stop and undo requests

/** POST /api/remediation-batches/{id}/stop. */
export const stopBatch = (ctx: RequestCtx, id: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const locked = yield* sql<{ state: BatchState }>`SELECT state FROM remediation_batches WHERE workspace_id = ${ctx.workspaceId} AND id = ${id} FOR UPDATE`
    const state = locked[0]?.state
    if (state === undefined) return yield* new NotFound({ message: BatchMessages.notFound })
    if (state !== "queued" && state !== "running") return yield* new Conflict({ message: BatchMessages.notStoppable })
    const skipped = yield* sql`UPDATE remediation_batch_items SET state = 'skipped', message = ${BatchMessages.stopped}, updated_at = now()
      WHERE workspace_id = ${ctx.workspaceId} AND batch_id = ${id} AND state = 'pending' RETURNING 1`
    const running = (yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM remediation_batch_items
      WHERE workspace_id = ${ctx.workspaceId} AND batch_id = ${id} AND state = 'running'`)[0]?.n ?? 0
    yield* sql`UPDATE remediation_batches SET state = ${running > 0 ? "stopping" : "stopped"}, stop_requested_by = ${ctx.userId},
                 stop_api_key_id = ${ctx.apiKeyId ?? null}, stop_requested_at = now(), finished_at = CASE WHEN ${running === 0} THEN now() ELSE finished_at END
               WHERE workspace_id = ${ctx.workspaceId} AND id = ${id}`
    yield* recordAudit({
      action: "remediation_batch.stop_requested",
      workspaceId: ctx.workspaceId,
      actorUserId: ctx.userId,
      targetType: "remediation_batch",
      targetId: id,
      details: { skipped: skipped.length, running },
      ip: ctx.ip,
    })
    return (yield* loadBatch(ctx.workspaceId, id))!
  })

/** POST /api/remediation-batches/{id}/undo. */
export const requestBatchUndo = (ctx: RequestCtx, id: number, force: boolean, job: typeof batchUndoJob) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const locked = yield* sql<{ state: BatchState }>`SELECT state FROM remediation_batches WHERE workspace_id = ${ctx.workspaceId} AND id = ${id} FOR UPDATE`
    const state = locked[0]?.state
    if (state === undefined) return yield* new NotFound({ message: BatchMessages.notFound })
    if (state === "queued" || state === "running" || state === "stopping") return yield* new Conflict({ message: BatchMessages.stillRunning })
    if (state === "undoing") return yield* new Conflict({ message: BatchMessages.undoInProgress })
    const marked = yield* sql`
      UPDATE remediation_batch_items i SET state = 'undoing', message = NULL, differences = NULL, updated_at = now()
      FROM remediations r
      WHERE i.workspace_id = ${ctx.workspaceId} AND i.batch_id = ${id} AND i.state IN ('fixed', 'undo_failed')
        AND r.workspace_id = i.workspace_id AND r.id = i.remediation_id AND ${undoableRemediation(sql)}
      RETURNING 1`
    if (marked.length === 0) {
      // Nothing undoable because the fixed items' accounts all retired from their organisation: say so, as the single undo does.
      const retired = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM remediation_batch_items i
        WHERE i.workspace_id = ${ctx.workspaceId} AND i.batch_id = ${id} AND i.state IN ('fixed', 'undo_failed') AND ${itemRetired(sql)}`
      if ((retired[0]?.n ?? 0) > 0) return yield* new Conflict({ message: OrganizationMessages.memberRetiredUndo, data: { error_type: "account_retired" } })
      return yield* new Conflict({ message: BatchMessages.notUndoable })
    }
    yield* sql`UPDATE remediation_batches SET state = 'undoing', undo_requested_by = ${ctx.userId}, undo_api_key_id = ${ctx.apiKeyId ?? null},
                 undo_requested_at = now(), undo_force = ${force}, finished_at = NULL WHERE workspace_id = ${ctx.workspaceId} AND id = ${id}`
    const [jobId] = yield* enqueueInTransaction(job, [{ payload: { workspace_id: ctx.workspaceId, batch_id: id } }], { workspaceId: ctx.workspaceId, userId: ctx.userId })
    yield* sql`UPDATE remediation_batches SET undo_job_id = ${jobId ?? null} WHERE workspace_id = ${ctx.workspaceId} AND id = ${id}`
    yield* recordAudit({
      action: "remediation_batch.undo_requested",
      workspaceId: ctx.workspaceId,
      actorUserId: ctx.userId,
      targetType: "remediation_batch",
      targetId: id,
      details: { items: marked.length, forced: force },
      ip: ctx.ip,
    })
    return (yield* loadBatch(ctx.workspaceId, id))!
  })

// ---------------------------------------------------------------------------------------------------
// The jobs

interface ClaimedItem { id: number; finding_id: number; result_seq: number; resource_id: string; region: string; account_id: number }

/** An item's outcome from its remediation, once that finished (fixed | failed). */
const settleItem = (workspaceId: number, itemId: number) =>
  inScope({ workspaceId })(Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`UPDATE remediation_batch_items i
      SET state = CASE WHEN r.status = 'remediated' THEN 'fixed' ELSE 'failed' END, message = r.message, updated_at = now()
      FROM remediations r
      WHERE i.workspace_id = ${workspaceId} AND i.id = ${itemId} AND i.state = 'running'
        AND r.workspace_id = i.workspace_id AND r.id = i.remediation_id AND r.status IN ('remediated', 'failed')`
  }))

/** Who a batch's items (or its undo's items) run in the name of: a member, and the API key they used (null: none). */
interface Actor { readonly userId: number | null; readonly apiKeyId: number | null }

/** The reasons an item is refused, for the start and for the undo. */
const STARTER_REFUSALS = {
  gone: BatchMessages.starterGone, mayNot: BatchMessages.starterMayNot,
  keyRevoked: BatchMessages.keyRevoked, keyExpired: BatchMessages.keyExpired, keyMayNot: BatchMessages.keyMayNot,
} as const
const UNDOER_REFUSALS = {
  gone: BatchMessages.undoerGone, mayNot: BatchMessages.undoerMayNot,
  keyRevoked: BatchMessages.undoKeyRevoked, keyExpired: BatchMessages.undoKeyExpired, keyMayNot: BatchMessages.undoKeyMayNot,
} as const
type Refusals = { readonly [K in keyof typeof STARTER_REFUSALS]: string }

/**
 * Why `actor` may no longer have `accountId`'s resource fixed (or put back) now (undefined: they may), read in the
 * batch's workspace scope as a request made now would decide: the API key they used revoked or expired (a request
 * with it answers 401); the member no longer a member, no longer holding remediate_findings (the owner holds every
 * permission) or no longer allowed that account (`readMembership`, `toMembership`: the request scope's rules); with
 * a key, the key's effective grant (`keyEffectiveGrant`: its role's permissions and its groups' accounts within the
 * member's, as server/api/middleware/workspace-scope.ts applies to a request) without remediate_findings or that account.
 */
const actorRefusal = (sql: SqlClient.SqlClient, workspaceId: number, actor: Actor, accountId: number, m: Refusals) =>
  Effect.gen(function* () {
    if (actor.apiKeyId !== null) {
      const key = yield* sql<{ revoked: boolean; expired: boolean }>`
        SELECT revoked_at IS NOT NULL AS revoked, expires_at <= now() AS expired FROM api_keys
        WHERE workspace_id = ${workspaceId} AND id = ${actor.apiKeyId}`
      if (key[0] === undefined || key[0].revoked) return m.keyRevoked
      if (key[0].expired) return m.keyExpired
    }
    if (actor.userId === null) return m.gone
    const row = yield* readMembership(workspaceId, actor.userId)
    if (row === undefined) return m.gone
    const member = toMembership(row)
    const allowed = (may: { readonly permissions: ReadonlyArray<PermissionName>; readonly accountIds: ReadonlyArray<number> | null }) =>
      may.permissions.includes("remediate_findings") && (may.accountIds === null || may.accountIds.includes(accountId))
    if (!allowed(member)) return m.mayNot
    if (actor.apiKeyId === null) return undefined
    const grant = yield* keyGrant(actor.apiKeyId)
    if (grant === undefined) return m.keyRevoked
    return allowed(keyEffectiveGrant(member, grant)) ? undefined : m.keyMayNot
  })

/**
 * Claims the batch's next pending item (pending → running) and creates its remediation in the same transaction; the
 * batch row is read shared, so a stop (which locks it) either sees the item running or skips it. Answers the item and
 * its remediation id (undefined: skipped now), or undefined when nothing is left to claim.
 */
const claimNext = (p: BatchJobPayload, starter: Actor) =>
  inScope({ workspaceId: p.workspace_id })(Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const batch = yield* sql<{ state: BatchState }>`SELECT state FROM remediation_batches WHERE workspace_id = ${p.workspace_id} AND id = ${p.batch_id} FOR SHARE`
    if (batch[0]?.state !== "running") return undefined
    const claimed = yield* sql<ClaimedItem>`
      UPDATE remediation_batch_items SET state = 'running', updated_at = now()
      WHERE id = (SELECT id FROM remediation_batch_items WHERE workspace_id = ${p.workspace_id} AND batch_id = ${p.batch_id} AND state = 'pending'
                  ORDER BY position LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING id, finding_id, result_seq, resource_id, region, account_id`
    const item = claimed[0]
    if (item === undefined) return undefined
    const skip = (message: string) =>
      sql`UPDATE remediation_batch_items SET state = 'skipped', message = ${message}, updated_at = now() WHERE workspace_id = ${p.workspace_id} AND id = ${item.id}`
    // The account's setting may have changed since the batch started: four eyes are never bypassed.
    const account = yield* sql<{ requires_approval: boolean }>`SELECT requires_approval FROM accounts WHERE workspace_id = ${p.workspace_id} AND id = ${item.account_id}`
    if (account[0]?.requires_approval !== false) {
      yield* skip(account[0] === undefined ? ScanningServerMessages.findingNotFound : BatchMessages.needsApproval)
      return { item, remediationId: undefined }
    }
    // Each item runs in its starter's name: what they (and the API key they started it with) may do now, not when they
    // started (a revoked role or key stops the rest).
    const refusal = yield* actorRefusal(sql, p.workspace_id, starter, item.account_id, STARTER_REFUSALS)
    if (refusal !== undefined) {
      yield* skip(refusal)
      return { item, remediationId: undefined }
    }
    const ctx: Ctx = { workspaceId: p.workspace_id, userId: starter.userId as number, ip: "" }
    const wanted = { resource_id: item.resource_id, region: item.region, result_seq: item.result_seq } as unknown as DetailRow
    const requested = yield* requestRemediationWithId(ctx, item.finding_id, wanted, undefined).pipe(
      Effect.map((r) => ({ id: r.id, message: undefined })),
      Effect.catchTags({
        Conflict: (e) => Effect.succeed({ id: undefined, message: e.message }),
        NotFound: (e) => Effect.succeed({ id: undefined, message: e.message }),
        ValidationError: (e) => Effect.succeed({ id: undefined, message: e.message }),
        JobQueueError: (e) => Effect.die(e),
        JobPayloadInvalid: (e) => Effect.die(e),
      }),
    )
    if (requested.id === undefined) {
      yield* skip(requested.message ?? BatchMessages.alreadyRemediated)
      return { item, remediationId: undefined }
    }
    yield* sql`UPDATE remediation_batch_items SET remediation_id = ${requested.id} WHERE workspace_id = ${p.workspace_id} AND id = ${item.id}`
    return { item, remediationId: requested.id }
  }))

/** Marks the batch finished when nothing is pending or running; answers whether it is. */
const finishBatch = (p: BatchJobPayload, from: ReadonlyArray<BatchState>, to: (state: BatchState, counts: Record<string, number>) => BatchState, action: "remediation_batch.finished" | "remediation_batch.undo_finished") =>
  inScope({ workspaceId: p.workspace_id })(Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const locked = yield* sql<{ state: BatchState }>`SELECT state FROM remediation_batches WHERE workspace_id = ${p.workspace_id} AND id = ${p.batch_id} FOR UPDATE`
    const state = locked[0]?.state
    if (state === undefined) return true
    if (!from.includes(state)) return true
    const rows = yield* sql<{ state: string; n: number }>`SELECT state, count(*)::int AS n FROM remediation_batch_items
      WHERE workspace_id = ${p.workspace_id} AND batch_id = ${p.batch_id} GROUP BY state`
    const counts = Object.fromEntries(rows.map((r) => [r.state, r.n]))
    if ((counts["pending"] ?? 0) + (counts["running"] ?? 0) + (counts["undoing"] ?? 0) > 0) return false
    const next = to(state, counts)
    yield* sql`UPDATE remediation_batches SET state = ${next}, finished_at = now() WHERE workspace_id = ${p.workspace_id} AND id = ${p.batch_id}`
    yield* recordAudit({ action, workspaceId: p.workspace_id, targetType: "remediation_batch", targetId: p.batch_id, details: { state: next, counts } })
    logLine("info", "remediation batch finished", { batch_id: p.batch_id, state: next, counts, pid: process.pid })
    return true
  }))

class BatchUnfinished extends Data.TaggedError("BatchUnfinished")<{ readonly message: string }> {}

/** The `remediations.batch` job. */
export const runBatch = (p: BatchJobPayload, job: JobContext) =>
  Effect.gen(function* () {
    const started = yield* inScope({ workspaceId: p.workspace_id })(Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      return yield* sql<{ state: BatchState; created_by: number | null; api_key_id: number | null }>`
        UPDATE remediation_batches SET state = CASE WHEN state = 'queued' THEN 'running' ELSE state END, started_at = coalesce(started_at, now())
        WHERE workspace_id = ${p.workspace_id} AND id = ${p.batch_id} RETURNING state, created_by, api_key_id`
    }))
    const batch = started[0]
    if (batch === undefined) return
    logLine("info", "remediation batch started", { batch_id: p.batch_id, job_id: job.id, attempt: job.retryCount + 1, pid: process.pid })
    // A dead attempt's items: each is tied to its remediation; finish those (the fixer re-reads first), copy the rest.
    const orphans = yield* inScope({ workspaceId: p.workspace_id })(Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      return yield* sql<{ id: number; remediation_id: number | null; status: string | null }>`
        SELECT i.id, i.remediation_id, r.status FROM remediation_batch_items i
        LEFT JOIN remediations r ON r.workspace_id = i.workspace_id AND r.id = i.remediation_id
        WHERE i.workspace_id = ${p.workspace_id} AND i.batch_id = ${p.batch_id} AND i.state = 'running' ORDER BY i.position`
    }))
    if (orphans.length > 0) logLine("warn", "remediation batch resumed", { batch_id: p.batch_id, running_items: orphans.length, job_id: job.id })
    yield* Effect.forEach(orphans, (o) =>
      Effect.gen(function* () {
        if (o.remediation_id === null) {
          // Cannot happen (the claim ties both in one transaction); answered as never started.
          yield* inScope({ workspaceId: p.workspace_id })(Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            yield* sql`UPDATE remediation_batch_items SET state = 'pending' WHERE workspace_id = ${p.workspace_id} AND id = ${o.id} AND remediation_id IS NULL`
          }))
          return
        }
        if (o.status === "pending" || o.status === "running") {
          logLine("info", "remediation batch item re-checked", { batch_id: p.batch_id, remediation_id: o.remediation_id, was: o.status })
          yield* runRemediation({ workspace_id: p.workspace_id, remediation_id: o.remediation_id }, job)
        }
        yield* settleItem(p.workspace_id, o.id)
      }), { concurrency: BATCH_CONCURRENCY, discard: true })

    const slot = Effect.gen(function* () {
      while (!job.signal.aborted) {
        const next = yield* claimNext(p, { userId: batch.created_by, apiKeyId: batch.api_key_id })
        if (next === undefined) return
        if (next.remediationId === undefined) continue
        yield* runRemediation({ workspace_id: p.workspace_id, remediation_id: next.remediationId }, job)
        yield* settleItem(p.workspace_id, next.item.id)
      }
    })
    yield* Effect.forEach(Array.from({ length: BATCH_CONCURRENCY }, (_, i) => i), () => slot, { concurrency: BATCH_CONCURRENCY, discard: true })
    const done = yield* finishBatch(p, ["running", "stopping"], (state) => (state === "stopping" ? "stopped" : "completed"), "remediation_batch.finished")
    // Stopped before its items ran out (the worker is shutting down, the attempt expired): fail the attempt so it is retried.
    if (!done) return yield* new BatchUnfinished({ message: `remediation batch ${p.batch_id} has items left; retried` })
  }).pipe(Effect.tapError(() => markFailedOnLastAttempt(p, job, BATCH_RETRY_LIMIT, "failed")))

/** After the last attempt failed, the batch is recorded as failed (its pending items skipped) instead of staying busy. */
const markFailedOnLastAttempt = (p: BatchJobPayload, job: JobContext, retryLimit: number, state: "failed" | "undo_failed") =>
  job.retryCount < retryLimit ? Effect.void : inScope({ workspaceId: p.workspace_id })(Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`UPDATE remediation_batch_items SET state = 'skipped', message = ${ScanningServerMessages.remediationWorkerLost}, updated_at = now()
      WHERE workspace_id = ${p.workspace_id} AND batch_id = ${p.batch_id} AND state = 'pending'`
    yield* sql`UPDATE remediation_batches SET state = ${state}, finished_at = now() WHERE workspace_id = ${p.workspace_id} AND id = ${p.batch_id}
      AND state IN ('queued', 'running', 'stopping', 'undoing')`
  })).pipe(Effect.ignore)

/** An undoing item's outcome from its remediation's undo, once that finished. */
const settleUndo = (workspaceId: number, itemId: number) =>
  inScope({ workspaceId })(Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`UPDATE remediation_batch_items i
      SET state = r.state, message = r.undo_message, differences = r.undo_differences, updated_at = now()
      FROM remediations r
      WHERE i.workspace_id = ${workspaceId} AND i.id = ${itemId} AND i.state = 'undoing'
        AND r.workspace_id = i.workspace_id AND r.id = i.remediation_id AND r.state IN ('undone', 'undo_failed')`
  }))

/** The `remediations.batch-undo` job: each undoing item through the single undo, BATCH_CONCURRENCY at a time. */
export const runBatchUndo = (p: BatchJobPayload, job: JobContext) =>
  Effect.gen(function* () {
    const rows = yield* inScope({ workspaceId: p.workspace_id })(Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      return yield* sql<{
        id: number; account_id: number; remediation_id: number | null; rstate: string | null
        undo_requested_by: number | null; undo_api_key_id: number | null; undo_force: boolean
      }>`
        SELECT i.id, i.account_id, i.remediation_id, r.state AS rstate, b.undo_requested_by, b.undo_api_key_id, b.undo_force
        FROM remediation_batch_items i JOIN remediation_batches b ON b.workspace_id = i.workspace_id AND b.id = i.batch_id
        LEFT JOIN remediations r ON r.workspace_id = i.workspace_id AND r.id = i.remediation_id
        WHERE i.workspace_id = ${p.workspace_id} AND i.batch_id = ${p.batch_id} AND i.state = 'undoing' AND b.state = 'undoing'
        ORDER BY i.position`
    }))
    logLine("info", "remediation batch undo started", { batch_id: p.batch_id, items: rows.length, job_id: job.id, attempt: job.retryCount + 1 })
    yield* Effect.forEach(rows, (row) =>
      Effect.gen(function* () {
        if (job.signal.aborted) return
        const fail = (message: string, differences: unknown = []) => inScope({ workspaceId: p.workspace_id })(Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* sql`UPDATE remediation_batch_items SET state = 'undo_failed', message = ${message.slice(0, 2000)},
                       differences = ${JSON.stringify(differences)}::jsonb, updated_at = now()
                     WHERE workspace_id = ${p.workspace_id} AND id = ${row.id} AND state = 'undoing'`
        }))
        if (row.remediation_id === null) return yield* fail(BatchMessages.notUndoable)
        const remediationId = row.remediation_id
        // Not asked yet (verified, or an earlier undo failed): the single undo's request, its conflict check included,
        // in the name of whoever asked for the batch's undo (and the API key they used) as they stand now.
        if (row.rstate === "verified" || row.rstate === "undo_failed") {
          // The check and the request in one transaction, as an item's claim does for the fix.
          const ctx: Ctx = { workspaceId: p.workspace_id, userId: row.undo_requested_by as number, ip: "" }
          const asked = yield* inScope({ workspaceId: p.workspace_id })(Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            const refusal = yield* actorRefusal(sql, p.workspace_id, { userId: row.undo_requested_by, apiKeyId: row.undo_api_key_id }, row.account_id, UNDOER_REFUSALS)
            if (refusal !== undefined) return { message: refusal, differences: [] }
            yield* requestUndo(ctx, remediationId, row.undo_force, undefined)
            return undefined
          })).pipe(
            Effect.catchTags({
              RemediationConflict: (e) => Effect.succeed({ message: e.message, differences: e.differences }),
              Conflict: (e) => Effect.succeed({ message: e.message, differences: [] }),
              NotFound: (e) => Effect.succeed({ message: e.message, differences: [] }),
              JobQueueError: (e) => Effect.die(e),
              JobPayloadInvalid: (e) => Effect.die(e),
            }),
          )
          if (asked !== undefined) return yield* fail(asked.message, asked.differences)
        }
        yield* runUndo({ workspace_id: p.workspace_id, remediation_id: remediationId }, job)
        yield* settleUndo(p.workspace_id, row.id)
      }), { concurrency: BATCH_CONCURRENCY, discard: true })
    const done = yield* finishBatch(p, ["undoing"], (_, counts) => ((counts["undo_failed"] ?? 0) > 0 ? "undo_failed" : "undone"), "remediation_batch.undo_finished")
    if (!done) return yield* new BatchUnfinished({ message: `remediation batch ${p.batch_id} has items left to undo; retried` })
  }).pipe(Effect.tapError(() => markFailedOnLastAttempt(p, job, UNDO_RETRY_LIMIT, "undo_failed")))

export const batchJob = defineJob("remediations.batch", BatchJobPayload, runBatch, {
  queue: { retryLimit: BATCH_RETRY_LIMIT, retryDelaySeconds: 5, expireInSeconds: 3600, heartbeatSeconds: JOB_HEARTBEAT_SECONDS },
  work: { localConcurrency: 2, pollingIntervalSeconds: 2 },
})

export const batchUndoJob = defineJob("remediations.batch-undo", BatchJobPayload, runBatchUndo, {
  queue: { retryLimit: UNDO_RETRY_LIMIT, retryDelaySeconds: 5, expireInSeconds: 3600, heartbeatSeconds: JOB_HEARTBEAT_SECONDS },
  work: { localConcurrency: 2, pollingIntervalSeconds: 2 },
})

export const remediationBatchJobs = [batchJob, batchUndoJob] as const
