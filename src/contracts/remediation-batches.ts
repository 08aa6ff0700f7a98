/**
 * Bulk remediation (issue 32 part 4, docs/remediation.md "Bulk"): a selection of rows, or every failing row of a check,
 * across the accounts of the workspace, fixed as one job with progress, a per-resource outcome, a stop button and one
 * undo for the whole batch. Every item goes through the single-resource path (server/scans/remediation.ts), so each
 * fixed item is also a `remediations` row (its own history and undo, ./remediations.ts).
 *
 * Calls (all need remediate_findings; a member limited to account groups sees and acts on their accounts' items only):
 * - POST /api/remediation-batches — `{ rows: [{ finding_id, result_seq }] }` (a selection, at most BATCH_MAX_ROWS) or
 *   `{ check_id, account_ids? }` (every failing, unmuted, not yet remediated row of the check in the latest completed
 *   scan of each account the caller may act on; `account_ids` narrows) → 202 with the batch;
 * - GET  /api/remediation-batches?page&page_size — the workspace's batches, newest first;
 * - GET  /api/remediation-batches/{id} — one batch with its counts;
 * - GET  /api/remediation-batches/{id}/items?cursor&limit&state — its per-resource outcomes, in the batch's order;
 * - POST /api/remediation-batches/{id}/stop — items not yet started become `skipped` (reason: stopped); running ones
 *   finish (409 when the batch is no longer queued or running);
 * - POST /api/remediation-batches/{id}/undo `{ force? }` — one undo of every fixed item (and of items whose undo
 *   failed); an item whose resource changed since its fix ends `undo_failed` with its field differences unless `force`
 *   (409 when nothing can be undone, or the batch is still running).
 *
 * Items on an account that requires approval are not fixed by a batch (four eyes, ./remediation-requests.ts): they are
 * `skipped` with BatchMessages.needsApproval. Each item runs in its starter's name as they stand when it starts; a
 * batch started (or undone) with an API key also within what the key may do then (`api_key`, `undo_api_key`); a stop
 * asked with a key names it (`stop_api_key`).
 * Errors: 400 ValidationError (neither or both of rows / check_id, too many rows, a row that is not a failing row of
 * its finding, no row to fix), 403 without remediate_findings, 404 another workspace's or an unknown batch, 409 Conflict.
 */
import { Schema } from "effect"
import { AccountId, FindingId, UserId, idParam } from "./ids.ts"
import { Count, NullableTimestamp, Pagination, Timestamp, withData } from "./common.ts"
import { StateDifferenceView } from "./remediations.ts"
import { ApiKeyId } from "./api-keys.ts"

export const RemediationBatchId = Schema.Int.check(Schema.isGreaterThan(0)).pipe(Schema.brand("RemediationBatchId"))
export type RemediationBatchId = typeof RemediationBatchId.Type

/** The most rows one batch takes (a selection, or every failing row of a check). */
export const BATCH_MAX_ROWS = 1000

/** How many items of one batch are fixed at the same time. */
export const BATCH_CONCURRENCY = 8

export const BATCH_STATES = ["queued", "running", "stopping", "stopped", "completed", "failed", "undoing", "undone", "undo_failed"] as const
export const BatchState = Schema.Literals(BATCH_STATES)
export type BatchState = typeof BatchState.Type

export const BATCH_ITEM_STATES = ["pending", "running", "fixed", "failed", "skipped", "undoing", "undone", "undo_failed"] as const
export const BatchItemState = Schema.Literals(BATCH_ITEM_STATES)
export type BatchItemState = typeof BatchItemState.Type

/** A batch still working (its stop button is offered). */
export const isBatchActive = (state: BatchState): boolean => state === "queued" || state === "running" || state === "stopping" || state === "undoing"
/** A batch whose stop button is offered. */
export const canStopBatch = (state: BatchState): boolean => state === "queued" || state === "running"

export const BatchMessages = {
  created: "Bulk remediation started",
  stopRequested: "Stopping: items not yet started are skipped, running ones finish",
  undoQueued: "Undo of the batch queued",
  notFound: "Remediation batch not found",
  rowsOrCheck: "Give either rows (a selection) or check_id (every failing row of a check), not both",
  tooManyRows: `A batch takes at most ${BATCH_MAX_ROWS} rows`,
  noRows: "There is no failing row to remediate",
  rowNotFailing: "This row is not a failing row of its finding (compliant, muted, already remediated or in progress)",
  duplicateRow: "The same row is named twice",
  noFixer: "This check has no automatic fix",
  notStoppable: "This batch is no longer running",
  notUndoable: "Nothing in this batch can be undone",
  stillRunning: "The batch is still running: stop it or wait for it to finish before undoing it",
  undoInProgress: "The batch is being undone",
  stopped: "Stopped before it started",
  needsApproval: "The account requires approval: remediate this resource on its own to request it",
  starterGone: "The person who started the batch is no longer a member of the workspace",
  starterMayNot: "The person who started the batch may no longer remediate this account's findings",
  undoerGone: "The person who asked for this undo is no longer a member of the workspace",
  undoerMayNot: "The person who asked for this undo may no longer remediate this account's findings",
  keyRevoked: "The API key that started this batch was revoked",
  keyExpired: "The API key that started this batch has expired",
  keyMayNot: "The API key that started this batch may not remediate this account's findings",
  undoKeyRevoked: "The API key that asked for this undo was revoked",
  undoKeyExpired: "The API key that asked for this undo has expired",
  undoKeyMayNot: "The API key that asked for this undo may not remediate this account's findings",
  superseded: "A newer scan of the account replaced this row's scan",
  alreadyRemediated: "Already remediated or in progress",
  irreversible: "This fix cannot be undone",
  workerLost: "The worker stopped while fixing this resource; its state was read again",
  loadFailed: "Failed to load the remediation batch. Please try again.",
  startFailed: "Failed to start the bulk remediation. Please try again.",
} as const

// ---------------------------------------------------------------------------------------------------
// Start

export const BatchRowRef = Schema.Struct({
  finding_id: FindingId,
  result_seq: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
})
export type BatchRowRef = typeof BatchRowRef.Type

/** Either `rows` or `check_id` (+ optional `account_ids`); the server answers 400 BatchMessages.rowsOrCheck otherwise. */
export const CreateBatchPayload = Schema.Struct({
  rows: Schema.optionalKey(Schema.Array(BatchRowRef).check(Schema.isMaxLength(BATCH_MAX_ROWS, { message: BatchMessages.tooManyRows }))),
  check_id: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(200))),
  account_ids: Schema.optionalKey(Schema.Array(AccountId).check(Schema.isMaxLength(1000))),
})
export type CreateBatchPayload = typeof CreateBatchPayload.Type

// ---------------------------------------------------------------------------------------------------
// A batch

export const BatchCounts = Schema.Struct({
  pending: Count,
  running: Count,
  fixed: Count,
  failed: Count,
  skipped: Count,
  undoing: Count,
  undone: Count,
  undo_failed: Count,
})
export type BatchCounts = typeof BatchCounts.Type

export const BatchMember = Schema.Struct({ id: UserId, email: Schema.String })

/** The API key a request presented (docs/api-keys.md): the member it acts for is the batch's `created_by`. */
export const BatchApiKey = Schema.Struct({ id: ApiKeyId, name: Schema.String })

export const RemediationBatch = Schema.Struct({
  id: RemediationBatchId,
  state: BatchState,
  /** Null when the member has since been removed. */
  created_by: Schema.NullOr(BatchMember),
  /**
   * The API key the batch was started with (null: by the signed-in member). Each item then runs within what the key
   * may do when it starts — still valid, its role's remediate_findings and its accounts, within its creator's — and is
   * skipped with BatchMessages.keyRevoked, keyExpired or keyMayNot otherwise.
   */
  api_key: Schema.NullOr(BatchApiKey),
  created_at: Timestamp,
  started_at: NullableTimestamp,
  finished_at: NullableTimestamp,
  /** The check of a "every failing row of a check" batch (null for a selection). */
  check_id: Schema.NullOr(Schema.String),
  /** Items the caller may see (all of them unless limited to account groups). */
  total: Count,
  counts: BatchCounts,
  /** Whether the batch undo can be asked now: some item is fixed (or its undo failed), reversible, within retention. */
  reversible: Schema.Boolean,
  /** The earliest end of the fixed items' undo retention (null when nothing can be undone). */
  undo_until: NullableTimestamp,
  stop_requested_at: NullableTimestamp,
  stop_requested_by: Schema.NullOr(BatchMember),
  /** The API key the stop was asked with (null: by the signed-in member, or no stop). */
  stop_api_key: Schema.NullOr(BatchApiKey),
  undo_requested_at: NullableTimestamp,
  undo_requested_by: Schema.NullOr(BatchMember),
  /** The API key the undo was asked with (null: by the signed-in member, or no undo); its items as for `api_key`. */
  undo_api_key: Schema.NullOr(BatchApiKey),
})
export type RemediationBatch = typeof RemediationBatch.Type

export const RemediationBatchIdParams = Schema.Struct({ id: idParam(RemediationBatchId) })

/** 202: the batch as created (queued). */
export const BatchCreatedResponse = Schema.Struct({
  ok: Schema.Boolean,
  message: Schema.String,
  data: RemediationBatch,
}).annotate({ httpApiStatus: 202 })
export type BatchCreatedResponse = typeof BatchCreatedResponse.Type

export const RemediationBatchResponse = withData(RemediationBatch)
export type RemediationBatchResponse = typeof RemediationBatchResponse.Type

/** Stop and undo answer the batch as it stands. */
export const BatchActionResponse = Schema.Struct({ ok: Schema.Boolean, message: Schema.String, data: RemediationBatch })
export type BatchActionResponse = typeof BatchActionResponse.Type

export const BatchesQuery = Schema.Struct({
  page: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
  page_size: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100 }))),
})
export type BatchesQuery = typeof BatchesQuery.Type

export const RemediationBatchesResponse = Schema.Struct({
  ok: Schema.optionalKey(Schema.Boolean),
  data: Schema.Array(RemediationBatch),
  pagination: Pagination,
})
export type RemediationBatchesResponse = typeof RemediationBatchesResponse.Type

// ---------------------------------------------------------------------------------------------------
// Items

export const BatchItem = Schema.Struct({
  /** The item's position in the batch (the cursor of the items list follows it). */
  position: Schema.Int,
  finding_id: FindingId,
  /** The finding's scan (its page is /dashboard/scans/{scan_id}/findings/{finding_id}). */
  scan_id: Schema.Int,
  result_seq: Schema.Int,
  account_id: AccountId,
  account_name: Schema.String,
  check_id: Schema.String,
  resource_id: Schema.String,
  region: Schema.String,
  state: BatchItemState,
  /** Why it was skipped or failed, or what its undo said. */
  message: Schema.NullOr(Schema.String),
  /** The item's remediation (GET /api/remediations/{id}); null until it starts, and for skipped items. */
  remediation_id: Schema.NullOr(Schema.Int),
  /** When its undo found the resource changed since the fix: the field differences (undo the batch with force). */
  differences: Schema.Array(StateDifferenceView),
  updated_at: Timestamp,
})
export type BatchItem = typeof BatchItem.Type

export const BatchItemsQuery = Schema.Struct({
  cursor: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(64)).annotate({ description: "The previous page's next_cursor" })),
  limit: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 500 }))),
  state: Schema.optionalKey(Schema.String.annotate({ description: "Comma-joined item states" })),
})
export type BatchItemsQuery = typeof BatchItemsQuery.Type

export const DEFAULT_BATCH_ITEMS_LIMIT = 100
export const INVALID_ITEM_STATE_FILTER = `state must be comma-joined item states (${BATCH_ITEM_STATES.join(", ")})`

export const BatchItemsResponse = Schema.Struct({
  ok: Schema.optionalKey(Schema.Boolean),
  data: Schema.Array(BatchItem),
  /** The cursor of the next page (null on the last). */
  next_cursor: Schema.NullOr(Schema.String),
})
export type BatchItemsResponse = typeof BatchItemsResponse.Type

export const BatchUndoPayload = Schema.Struct({ force: Schema.optionalKey(Schema.Boolean) })
export type BatchUndoPayload = typeof BatchUndoPayload.Type

/** Items done (neither pending nor running) over the total: the progress bar's fraction. */
export const batchProgress = (b: Pick<RemediationBatch, "total" | "counts">): number =>
  b.total === 0 ? 1 : (b.total - b.counts.pending - b.counts.running) / b.total
