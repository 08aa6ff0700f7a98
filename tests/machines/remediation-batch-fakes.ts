/** Batches and items of bulk remediation (issue 32 part 4) for the machine and view tests. */
import type { AccountId, FindingId, UserId } from "../../src/contracts/ids.ts"
import type { BatchItem, BatchState, RemediationBatch, RemediationBatchId } from "../../src/contracts/remediation-batches.ts"
import type { BatchView } from "../../src/machines/remediation-batches-effects.ts"

const ZERO = { pending: 0, running: 0, fixed: 0, failed: 0, skipped: 0, undoing: 0, undone: 0, undo_failed: 0 }

export const BATCH_ID = 5 as RemediationBatchId

export const batch = (state: BatchState, counts: Partial<RemediationBatch["counts"]> = {}, patch: Partial<RemediationBatch> = {}): RemediationBatch => {
  const all = { ...ZERO, ...counts }
  return {
    id: BATCH_ID,
    state,
    created_by: { id: 7 as UserId, email: "owner@example.com" },
    api_key: null,
    created_at: "2026-11-27T10:00:00.000Z",
    started_at: "2026-11-27T10:00:01.000Z",
    finished_at: state === "running" || state === "queued" ? null : "2026-11-27T10:01:00.000Z",
    check_id: null,
    total: Object.values(all).reduce((n, c) => n + c, 0),
    counts: all,
    reversible: false,
    undo_until: null,
    stop_requested_at: null,
    stop_requested_by: null,
    stop_api_key: null,
    undo_requested_at: null,
    undo_requested_by: null,
    undo_api_key: null,
    ...patch,
  }
}

export const item = (position: number, patch: Partial<BatchItem> = {}): BatchItem => ({
  position,
  finding_id: 40 as FindingId,
  scan_id: 11,
  result_seq: position,
  account_id: 3 as AccountId,
  account_name: "Production",
  check_id: "s3_bucket_versioning_enabled",
  resource_id: `bucket-${position}`,
  region: "us-east-1",
  state: "fixed",
  message: null,
  remediation_id: 100 + position,
  differences: [],
  updated_at: "2026-11-27T10:00:30.000Z",
  ...patch,
})

export const view = (b: RemediationBatch, items: ReadonlyArray<BatchItem> = [item(0)], nextCursor: string | null = null): BatchView => ({
  batch: b,
  items,
  nextCursor,
})

export const running = batch("running", { pending: 2, running: 1, fixed: 1 })
export const completed = batch("completed", { fixed: 3, skipped: 1 }, { reversible: true, undo_until: "2026-12-27T10:01:00.000Z" })
export const undone = batch("undone", { undone: 3, skipped: 1 })
export const undoFailed = batch("undo_failed", { undone: 2, undo_failed: 1, skipped: 1 }, { reversible: true, undo_until: "2026-12-27T10:01:00.000Z" })
