/**
 * What bulk remediation (issue 32 part 4, src/contracts/remediation-batches.ts) needs from the outside world, as types,
 * and the one orchestration the selection needs: the failing rows of the selected findings. Nothing here performs an
 * effect of its own: the real `RemediationBatchesEffects` are built from the SPA services by
 * `remediationBatchesEffectsFrom(services)` (src/services/remediation-batches-api.ts) and reach the views through
 * `<RemediationBatchesEffectsProvider>` (the selection's permission and rows come from the scanning effects:
 * `loadViewer`, and `failingRowsOf(getFinding)`); tests hand fakes to `machine.provide()`. Failures reject with a catalogue
 * error value `{ type, message, status?, data? }`.
 */
import { DetailPaging } from "../contracts/constants.ts"
import { remediationAction, type Finding } from "../contracts/findings.ts"
import type { FindingId } from "../contracts/ids.ts"
import {
  BATCH_MAX_ROWS,
  BatchMessages,
  type BatchItem,
  type BatchRowRef,
  type CreateBatchPayload,
  type RemediationBatch,
  type RemediationBatchId,
  type RemediationBatchesResponse,
} from "../contracts/remediation-batches.ts"
import type { EffectCall } from "./auth-effects.ts"

/** One page of a batch's items and the cursor of the next (null on the last). */
export interface BatchItemsPage {
  readonly items: ReadonlyArray<BatchItem>
  readonly nextCursor: string | null
}

/** A batch as its page shows it: its counts and the first items. */
export interface BatchView extends BatchItemsPage {
  readonly batch: RemediationBatch
}

/** The server's message and the batch as it stands after stop or undo. */
export interface BatchActed {
  readonly message: string
  readonly batch: RemediationBatch
}

export interface RemediationBatchesEffects {
  /** POST /api/remediation-batches: the batch as created (202). */
  readonly createBatch: EffectCall<CreateBatchPayload, BatchActed>
  /** GET /api/remediation-batches?page&page_size. */
  readonly listBatches: EffectCall<{ readonly page: number; readonly page_size: number }, RemediationBatchesResponse>
  /** GET /api/remediation-batches/{id} and the first `limit` items (GET …/items?limit). */
  readonly loadBatch: EffectCall<{ readonly id: RemediationBatchId; readonly limit: number }, BatchView>
  /** GET /api/remediation-batches/{id}/items?cursor: the page after `cursor`. */
  readonly loadItems: EffectCall<{ readonly id: RemediationBatchId; readonly cursor: string }, BatchItemsPage>
  /** POST /api/remediation-batches/{id}/stop. */
  readonly stopBatch: EffectCall<{ readonly id: RemediationBatchId }, BatchActed>
  /** POST /api/remediation-batches/{id}/undo { force }. */
  readonly undoBatch: EffectCall<{ readonly id: RemediationBatchId; readonly force: boolean }, BatchActed>
}

/** Where a batch lives (members with remediate_findings). */
export const BATCHES_PATH = "/dashboard/remediations/batches"
export const batchPath = (id: number): string => `${BATCHES_PATH}/${id}`

/** The rows of one page of a finding that the single Remediate button offers: failing, unmuted, without a remediation. */
export const remediableRows = (finding: Pick<Finding, "id" | "details">): ReadonlyArray<BatchRowRef> =>
  finding.details.flatMap((row) =>
    remediationAction(row) === "Remediate" && row.muted === undefined && typeof row.result_seq === "number"
      ? [{ finding_id: finding.id, result_seq: row.result_seq }]
      : [],
  )

/**
 * The failing rows of the given findings, read page by page (GET /api/findings/{id}?details_status=fail, the largest
 * page), keeping the rows `remediableRows` keeps; stops once BATCH_MAX_ROWS + 1 rows are known (the server refuses
 * more, and says so). Rejects with BatchMessages.noRows when no row is left to fix.
 */
export const failingRowsOf =
  (getFinding: EffectCall<{ readonly id: FindingId; readonly details_page: number; readonly details_page_size: number; readonly details_status: "fail" }, Finding>) =>
  async ({ findingIds }: { readonly findingIds: ReadonlyArray<FindingId> }, signal?: AbortSignal): Promise<ReadonlyArray<BatchRowRef>> => {
    const rows: BatchRowRef[] = []
    for (const id of findingIds) {
      for (let page = 1; rows.length <= BATCH_MAX_ROWS; page++) {
        const finding = await getFinding({ id, details_page: page, details_page_size: DetailPaging.maxPageSize, details_status: "fail" }, signal)
        rows.push(...remediableRows(finding))
        if (page >= (finding.details_pagination?.total_pages ?? 1)) break
      }
      if (rows.length > BATCH_MAX_ROWS) break
    }
    if (rows.length === 0) throw { type: "VALIDATION_ERROR", message: BatchMessages.noRows }
    return rows
  }
