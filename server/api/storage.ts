/**
 * The `storage` group (beyond the spec, issue 30; contract src/contracts/storage.ts, domain server/scans/retention.ts):
 *   GET /api/workspaces/{id}/storage    → what the workspace's scan history occupies and what its retention would free;
 *   PUT /api/workspaces/{id}/retention  → saves the retention setting (audited `retention.updated`: who, before, after)
 *                                         and answers the storage page recomputed.
 *
 * The workspace is the one in the path (X-Workspace-ID is not read): the caller's membership of it is read in the
 * statement that opens its row-level-security scope (server/auth/rls.ts `inScopeForMember`, through `memberScope`, which
 * also takes an admin's API key), as for every workspace-scoped call; not a member (or no such workspace) → 403 WorkspaceAccessDenied, the same answer either way.
 * Workspace admins only: the owner, or a member whose roles grant all 12 permissions; anyone else → 403 Forbidden
 * with StorageMessages.storagePermissionDenied. A body that does not decode as `RetentionSetting` → 400 with field
 * errors carrying the contract's messages (HttpApi's decoding, server/http/errors.ts).
 *
 * Not served through the read cache: sizes change without a write of the workspace (other workspaces' rows).
 */
import { Effect, Layer } from "effect"
import type { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../src/contracts/api.ts"
import { Forbidden } from "../../src/contracts/errors.ts"
import { PERMISSIONS } from "../../src/contracts/permissions.ts"
import { StorageMessages as M } from "../../src/contracts/storage.ts"
import { AuthConfigFromApp } from "../auth/identity-layer.ts"
import { saveRetention, readRetention, storageFigures } from "../scans/retention.ts"
import { memberScope, type WorkspaceContext } from "./middleware/workspace-scope.ts"

/** A workspace admin: the owner, or a member holding every one of the 12 permissions. */
export const isWorkspaceAdmin = (ctx: Pick<WorkspaceContext, "isOwner" | "permissions">): boolean =>
  ctx.isOwner || PERMISSIONS.every((p) => ctx.permissions.includes(p))

/** Runs `body` in the scope of the path's workspace for one of its admins (see the module comment). */
const asAdmin = <A, E, R>(
  request: HttpServerRequest.HttpServerRequest,
  workspaceId: number,
  body: (ctx: WorkspaceContext) => Effect.Effect<A, E, R>,
) =>
  memberScope(request, () => Effect.succeed(workspaceId), (ctx) =>
    Effect.gen(function* () {
      if (!isWorkspaceAdmin(ctx)) return yield* new Forbidden({ message: M.storagePermissionDenied })
      return yield* body(ctx)
    })).pipe(Effect.catchTag("SqlError", (error) => Effect.die(error)))

export const StorageHandlers = HttpApiBuilder.group(Api, "storage", (handlers) =>
  handlers
    .handle("getStorage", ({ request, params }) =>
      asAdmin(request, params.id, (ctx) =>
        Effect.gen(function* () {
          const stored = yield* readRetention(ctx.workspaceId)
          return { ok: true, data: yield* storageFigures(ctx.workspaceId, stored.setting) }
        })))
    .handle("putRetention", ({ request, params, payload }) =>
      asAdmin(request, params.id, (ctx) =>
        Effect.gen(function* () {
          yield* saveRetention({ workspaceId: ctx.workspaceId, userId: ctx.userId, ip: ctx.ip }, payload)
          return { ok: true, message: M.retentionSaved, data: yield* storageFigures(ctx.workspaceId, payload) }
        }))),
).pipe(Layer.provide(AuthConfigFromApp))
