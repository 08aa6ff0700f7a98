/**
 * The `posture` group (beyond the spec, issue 13): mute rules (list needs read access; create, replace and delete need
 * remediate_findings — muting is a decision about findings — "You don't have permission to mute findings"), an
 * account's scan schedule and default scope (read: read access; replace: scan_service), and the signed-in member's
 * scan digest preference. Stores: server/posture/mute-rules.ts, server/posture/schedules.ts.
 */
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { SqlClient } from "effect/sql"
import { Api } from "../../src/contracts/api.ts"
import { PostureMessages as M } from "../../src/contracts/posture.ts"
import { AuthConfigFromApp } from "../auth/identity-layer.ts"
import { createMuteRule, deleteMuteRule, listMuteRules, updateMuteRule } from "../posture/mute-rules.ts"
import { getSchedule, putSchedule } from "../posture/schedules.ts"
import { postureOverview } from "../posture/overview.ts"
import { resourceHistory } from "../posture/resource-history.ts"
import { LAUNCH_SCANS, READ, REMEDIATE, scoped } from "./middleware/scanning-access.ts"
import { signedIn } from "./middleware/workspace-scope.ts"
import { sqlDefects } from "../auth/sql-errors.ts"

export const PostureHandlers = HttpApiBuilder.group(Api, "posture", (handlers) =>
  handlers
    .handle("listMuteRules", ({ request, query }) =>
      scoped(request, READ, (ctx) => Effect.map(listMuteRules(ctx.workspaceId, query.account_id), (data) => ({ ok: true, data }))))
    .handle("createMuteRule", ({ request, payload }) =>
      scoped(
        request,
        REMEDIATE,
        (ctx) => Effect.map(createMuteRule(ctx, payload), (r) => ({ ok: true, message: M.muteCreated, data: r.rule, rows_changed: r.changed })),
        M.mutePermissionDenied,
      ))
    .handle("updateMuteRule", ({ request, params, payload }) =>
      scoped(
        request,
        REMEDIATE,
        (ctx) => Effect.map(updateMuteRule(ctx, params.id, payload), (r) => ({ ok: true, message: M.muteUpdated, data: r.rule, rows_changed: r.changed })),
        M.mutePermissionDenied,
      ))
    .handle("deleteMuteRule", ({ request, params }) =>
      scoped(request, REMEDIATE, (ctx) => Effect.as(deleteMuteRule(ctx, params.id), { ok: true, message: M.muteDeleted }), M.mutePermissionDenied))
    .handle("getSchedule", ({ request, params }) =>
      scoped(request, READ, (ctx) => Effect.map(getSchedule(ctx.workspaceId, params.id), (data) => ({ ok: true, data }))))
    .handle("putSchedule", ({ request, params, payload }) =>
      scoped(
        request,
        LAUNCH_SCANS,
        (ctx) => Effect.map(putSchedule(ctx, params.id, payload), (data) => ({ ok: true, message: M.scheduleSaved, data })),
        M.schedulePermissionDenied,
      ))
    .handle("resourceHistory", ({ request, query }) =>
      scoped(request, READ, (ctx) => Effect.map(resourceHistory(ctx.workspaceId, query.account_id, query.uid), (data) => ({ ok: true, data }))))
    .handle("overview", ({ request }) =>
      scoped(request, READ, (ctx) => Effect.map(postureOverview(ctx.workspaceId), (data) => ({ ok: true, data }))))
    .handle("getDigest", ({ request }) =>
      signedIn(request, (caller) =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const rows = yield* sql<{ scan_digest: boolean }>`SELECT scan_digest FROM users WHERE id = ${caller.userId}`
          return { ok: true, data: { scan_digest: rows[0]?.scan_digest ?? false } }
        })).pipe(sqlDefects))
    .handle("putDigest", ({ request, payload }) =>
      signedIn(request, (caller) =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* sql`UPDATE users SET scan_digest = ${payload.scan_digest}, updated_at = now() WHERE id = ${caller.userId}`
          return { ok: true, message: M.digestSaved, data: { scan_digest: payload.scan_digest } }
        })).pipe(sqlDefects)),
).pipe(Layer.provide(AuthConfigFromApp))
