/**
 * The `remediationBatches` group (issue 32 part 4, docs/remediation.md "Bulk"): start a bulk remediation (a selection of
 * rows, or every failing row of a check across the accounts), follow it (the batch with its counts, its per-resource
 * items), stop it, undo it. Every call needs remediate_findings ("You don't have permission to remediate findings"); a
 * member limited to account groups sees and starts items of their accounts only (row-level security). Work is in
 * server/scans/remediation-batches.ts.
 */
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../src/contracts/api.ts"
import { ScanningMessages } from "../../src/contracts/messages.ts"
import { BatchMessages, DEFAULT_BATCH_ITEMS_LIMIT } from "../../src/contracts/remediation-batches.ts"
import { AuthConfigFromApp } from "../auth/identity-layer.ts"
import { REMEDIATE, scoped } from "./middleware/scanning-access.ts"
import { batchJob, batchUndoJob, createBatch, getBatch, listBatches, listItems, requestBatchUndo, stopBatch } from "../scans/remediation-batches.ts"
import { warmQueueCache } from "../scans/transactional-enqueue.ts"

const denied = ScanningMessages.remediatePermissionDenied

export const RemediationBatchesHandlers = HttpApiBuilder.group(Api, "remediationBatches", (handlers) =>
  handlers
    .handle("create", ({ request, payload }) =>
      Effect.andThen(
        warmQueueCache([batchJob.name]),
        scoped(
          request,
          REMEDIATE,
          (ctx) =>
            Effect.map(createBatch(ctx, payload, batchJob), (data) => ({ ok: true, message: BatchMessages.created, data })).pipe(
              Effect.catchTag("JobQueueError", (e) => Effect.die(e)),
              Effect.catchTag("JobPayloadInvalid", (e) => Effect.die(e)),
            ),
          denied,
        ),
      ))
    .handle("list", ({ request, query }) =>
      scoped(request, REMEDIATE, (ctx) => listBatches(ctx.workspaceId, query.page ?? 1, query.page_size ?? 20), denied))
    .handle("get", ({ request, params }) =>
      scoped(request, REMEDIATE, (ctx) => Effect.map(getBatch(ctx.workspaceId, Number(params.id)), (data) => ({ ok: true, data })), denied))
    .handle("items", ({ request, params, query }) =>
      scoped(
        request,
        REMEDIATE,
        (ctx) => listItems(ctx.workspaceId, Number(params.id), { cursor: query.cursor, limit: query.limit ?? DEFAULT_BATCH_ITEMS_LIMIT, state: query.state }),
        denied,
      ))
    .handle("stop", ({ request, params }) =>
      scoped(request, REMEDIATE, (ctx) => Effect.map(stopBatch(ctx, Number(params.id)), (data) => ({ ok: true, message: BatchMessages.stopRequested, data })), denied))
    .handle("undo", ({ request, params, payload }) =>
      Effect.andThen(
        warmQueueCache([batchUndoJob.name]),
        scoped(
          request,
          REMEDIATE,
          (ctx) =>
            Effect.map(requestBatchUndo(ctx, Number(params.id), payload.force === true, batchUndoJob), (data) => ({ ok: true, message: BatchMessages.undoQueued, data })).pipe(
              Effect.catchTag("JobQueueError", (e) => Effect.die(e)),
              Effect.catchTag("JobPayloadInvalid", (e) => Effect.die(e)),
            ),
          denied,
        ),
      )),
).pipe(Layer.provide(AuthConfigFromApp))
