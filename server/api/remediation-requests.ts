/**
 * The `remediationRequests` group (beyond the spec, issue 32; docs/remediation-approvals.md): an account's approval
 * setting (read: read access; change: create_account, the permission that edits accounts — "You don't have permission
 * to change this account"), the approvals inbox and the decisions (remediate_findings — "You don't have permission to
 * approve remediation requests"; the requester cannot decide their own request, only withdraw it). Store and rules:
 * server/remediation/approvals.ts. The remediate call's side is in ./findings.ts.
 */
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../src/contracts/api.ts"
import { Forbidden, NotFound, ValidationError } from "../../src/contracts/errors.ts"
import { ScanningServerMessages } from "../../src/contracts/messages.ts"
import { ApprovalMessages as M, INVALID_STATE_FILTER, parseStateFilter } from "../../src/contracts/remediation-requests.ts"
import { AuthConfigFromApp } from "../auth/identity-layer.ts"
import { approvalSetting, approveRequest, cancelRequest, listRequests, rejectRequest, saveApprovalSetting } from "../remediation/approvals.ts"
import { remediateJob } from "../scans/jobs.ts"
import { warmQueueCache } from "../scans/transactional-enqueue.ts"
import { MANAGE_ACCOUNTS, READ, REMEDIATE, scoped } from "./middleware/scanning-access.ts"

/**
 * `scoped` with remediate_findings, where only the permission refusal (the one naming the permission) takes the text
 * "You don't have permission to approve remediation requests": the rules' own refusals (the requester deciding their
 * own request) keep theirs.
 */
const deciding = <A, E, R>(request: Parameters<typeof scoped>[0], body: (ctx: Parameters<Parameters<typeof scoped>[2]>[0]) => Effect.Effect<A, E, R>) =>
  scoped(request, REMEDIATE, body).pipe(
    Effect.mapError((error) =>
      error instanceof Forbidden && error.permission !== undefined ? new Forbidden({ message: M.approvePermissionDenied, permission: error.permission }) : error),
  )

export const RemediationRequestsHandlers = HttpApiBuilder.group(Api, "remediationRequests", (handlers) =>
  handlers
    .handle("getApproval", ({ request, params }) =>
      scoped(request, READ, (ctx) =>
        Effect.gen(function* () {
          const data = yield* approvalSetting(ctx.workspaceId, params.id)
          if (data === undefined) return yield* new NotFound({ message: ScanningServerMessages.accountNotFound })
          return { ok: true, data }
        })))
    .handle("putApproval", ({ request, params, payload }) =>
      scoped(
        request,
        MANAGE_ACCOUNTS,
        (ctx) =>
          Effect.gen(function* () {
            const data = yield* saveApprovalSetting(ctx, params.id, payload)
            if (data === undefined) return yield* new NotFound({ message: ScanningServerMessages.accountNotFound })
            return { ok: true, message: M.settingSaved, data }
          }),
        M.settingPermissionDenied,
      ))
    .handle("list", ({ request, query }) =>
      Effect.gen(function* () {
        const states = parseStateFilter(query.state)
        if (states === undefined) {
          return yield* new ValidationError({ message: INVALID_STATE_FILTER, errors: [{ path: "query.state", message: INVALID_STATE_FILTER }] })
        }
        return yield* scoped(
          request,
          REMEDIATE,
          (ctx) =>
            Effect.map(listRequests(ctx.workspaceId, ctx.userId, { states, accountId: query.account_id, findingId: query.finding_id }), (data) => ({ ok: true, data })),
          M.approvePermissionDenied,
        )
      }))
    .handle("approve", ({ request, params, payload }) =>
      Effect.andThen(warmQueueCache([remediateJob.name]), deciding(request, (ctx) =>
        Effect.map(approveRequest(ctx, params.id, payload.comment, remediateJob), (data) => ({ ok: true, message: M.requestApproved, data })).pipe(
          Effect.catchTag("JobQueueError", (e) => Effect.die(e)),
          Effect.catchTag("JobPayloadInvalid", (e) => Effect.die(e)),
        ))))
    .handle("reject", ({ request, params, payload }) =>
      deciding(request, (ctx) => Effect.map(rejectRequest(ctx, params.id, payload.comment), (data) => ({ ok: true, message: M.requestRejected, data }))))
    .handle("cancel", ({ request, params, payload }) =>
      deciding(request, (ctx) => Effect.map(cancelRequest(ctx, params.id, payload.comment), (data) => ({ ok: true, message: M.requestCancelled, data })))),
).pipe(Layer.provide(AuthConfigFromApp))
