/**
 * The `securityHub` group (beyond the spec, issue 33 part 6; contract src/contracts/security-hub.ts, domain
 * server/integrations/security-hub*.ts; docs/integrations-security-hub.md):
 *   GET  /api/integrations/security-hub/accounts             → the workspace's AWS accounts with their export setting
 *                                                              and the last export's outcome;
 *   PUT  /api/integrations/security-hub/accounts/{id}        → turns the export on or off, sets its regions (audited);
 *   POST /api/integrations/security-hub/accounts/{id}/export → queues the export of the latest completed scan now.
 *
 * Workspace admins only (docs/permissions.md: configuring integrations), as for storage (`isWorkspaceAdmin`); anyone
 * else → 403 with SecurityHubMessages.adminOnly. A non-AWS account → 400; another workspace's account → 404.
 */
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../src/contracts/api.ts"
import { Forbidden } from "../../src/contracts/errors.ts"
import { SecurityHubMessages as M } from "../../src/contracts/security-hub.ts"
import { AuthConfigFromApp } from "../auth/identity-layer.ts"
import { listSecurityHubAccounts, requestSecurityHubExport, saveSecurityHubSettings } from "../integrations/security-hub-settings.ts"
import { MEMBER, scoped } from "./middleware/scanning-access.ts"
import { isWorkspaceAdmin } from "./storage.ts"
import type { HttpServerRequest } from "effect/http"
import type { WorkspaceContext } from "./middleware/workspace-scope.ts"

/** Runs `body` for a workspace admin; anyone else gets 403 with the integrations' text. */
export const asIntegrationAdmin = <A, E, R>(request: HttpServerRequest.HttpServerRequest, body: (ctx: WorkspaceContext) => Effect.Effect<A, E, R>) =>
  scoped(request, MEMBER, (ctx) =>
    Effect.gen(function* () {
      if (!isWorkspaceAdmin(ctx)) return yield* new Forbidden({ message: M.adminOnly })
      return yield* body(ctx)
    }))

export const SecurityHubHandlers = HttpApiBuilder.group(Api, "securityHub", (handlers) =>
  handlers
    .handle("list", ({ request }) =>
      asIntegrationAdmin(request, (ctx) => Effect.map(listSecurityHubAccounts(ctx.workspaceId), (data) => ({ ok: true, data }))))
    .handle("put", ({ request, params, payload }) =>
      asIntegrationAdmin(request, (ctx) =>
        Effect.map(saveSecurityHubSettings(ctx, params.id, payload), (data) => ({ ok: true, message: M.settingsSaved, data }))))
    .handle("exportNow", ({ request, params }) =>
      asIntegrationAdmin(request, (ctx) =>
        Effect.as(requestSecurityHubExport(ctx, params.id).pipe(
          Effect.catchTag("JobQueueError", (e) => Effect.die(e)), Effect.catchTag("JobPayloadInvalid", (e) => Effect.die(e)),
        ), { ok: true, message: M.exportQueued }))),
).pipe(Layer.provide(AuthConfigFromApp))
