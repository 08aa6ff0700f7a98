/**
 * The `remediations` group (issue 32, docs/remediation.md): the preview of a row's fix, a finding's remediations with
 * their state, one remediation, and its undo. Every call needs remediate_findings ("You don't have permission to
 * remediate findings"): the preview reads the cloud with the account's credentials, and the history shows what a fix
 * changed. Work is in server/scans/remediation-undo.ts.
 */
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../src/contracts/api.ts"
import { ScanningMessages } from "../../src/contracts/messages.ts"
import { AuthConfigFromApp } from "../auth/identity-layer.ts"
import { REMEDIATE, scoped } from "./middleware/scanning-access.ts"
import { getRemediation, listRemediations, previewRemediation, requestUndo, undoJob } from "../scans/remediation-undo.ts"
import { warmQueueCache } from "../scans/transactional-enqueue.ts"

export const RemediationsHandlers = HttpApiBuilder.group(Api, "remediations", (handlers) =>
  handlers
    .handle("preview", ({ request, params, payload }) =>
      scoped(request, REMEDIATE, (ctx) => Effect.map(previewRemediation(ctx, params.id, payload), (data) => ({ ok: true, data })), ScanningMessages.remediatePermissionDenied))
    .handle("list", ({ request, query }) =>
      scoped(request, REMEDIATE, (ctx) => Effect.map(listRemediations(ctx.workspaceId, query.finding_id), (data) => ({ ok: true, data })), ScanningMessages.remediatePermissionDenied))
    .handle("get", ({ request, params }) =>
      scoped(request, REMEDIATE, (ctx) => Effect.map(getRemediation(ctx.workspaceId, Number(params.id)), (data) => ({ ok: true, data })), ScanningMessages.remediatePermissionDenied))
    .handle("undo", ({ request, params, payload }) =>
      Effect.andThen(
        warmQueueCache([undoJob.name]),
        scoped(
          request,
          REMEDIATE,
          (ctx) =>
            Effect.map(requestUndo(ctx, Number(params.id), payload.force === true, undoJob), (data) => ({ ok: true, message: "Undo queued", data })).pipe(
              Effect.catchTag("JobQueueError", (e) => Effect.die(e)),
              Effect.catchTag("JobPayloadInvalid", (e) => Effect.die(e)),
            ),
          ScanningMessages.remediatePermissionDenied,
        ),
      )),
).pipe(Layer.provide(AuthConfigFromApp))
