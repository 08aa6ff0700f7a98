/**
 * The `webhooks` group (beyond the spec, issue 33; contract src/contracts/webhooks.ts, domain
 * server/integrations/webhooks-store.ts and ./events.ts; docs/integrations.md):
 *   GET    /api/integrations/webhooks                                   → the workspace's destinations;
 *   POST   /api/integrations/webhooks                                   → creates one (webhook or Slack); the answer
 *                                                                         carries the signing secret, shown this once;
 *   PATCH  /api/integrations/webhooks/{id}                              → name, URL, events, minimum severity, enabled;
 *   DELETE /api/integrations/webhooks/{id};
 *   POST   /api/integrations/webhooks/{id}/test                         → queues a `webhook.test` event to it;
 *   GET    /api/integrations/webhooks/{id}/deliveries?before=           → the delivery log, newest first;
 *   POST   /api/integrations/webhooks/{id}/deliveries/{delivery_id}/replay → sends a delivery's body again.
 *
 * Workspace admins only (docs/permissions.md: configuring integrations needs `isWorkspaceAdmin`); anyone else → 403 with
 * WebhookMessages.permissionDenied. A URL on a private, loopback or link-local address → 400 naming the address
 * (unless INTEGRATIONS_ALLOW_PRIVATE_TARGETS=1); another workspace's webhook → 404; test or replay of a disabled
 * webhook → 409.
 */
import { Effect, Layer } from "effect"
import type { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../src/contracts/api.ts"
import { Forbidden } from "../../src/contracts/errors.ts"
import { WebhookMessages as M } from "../../src/contracts/webhooks.ts"
import { AuthConfigFromApp } from "../auth/identity-layer.ts"
import {
  createWebhook,
  deleteWebhook,
  listDeliveries,
  listWebhooks,
  replayDelivery,
  testWebhook,
  updateWebhook,
} from "../integrations/webhooks-store.ts"
import { MEMBER, scoped } from "./middleware/scanning-access.ts"
import type { WorkspaceContext } from "./middleware/workspace-scope.ts"
import { isWorkspaceAdmin } from "./storage.ts"

/** Runs `body` for a workspace admin of the request's workspace; anyone else gets 403. */
const asAdmin = <A, E, R>(request: HttpServerRequest.HttpServerRequest, body: (ctx: WorkspaceContext) => Effect.Effect<A, E, R>) =>
  scoped(request, MEMBER, (ctx) =>
    Effect.gen(function* () {
      if (!isWorkspaceAdmin(ctx)) return yield* new Forbidden({ message: M.permissionDenied })
      return yield* body(ctx)
    }))

export const WebhooksHandlers = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  handlers
    .handle("list", ({ request }) =>
      asAdmin(request, (ctx) => Effect.map(listWebhooks(ctx.workspaceId), (webhooks) => ({ ok: true as const, data: { webhooks } }))))
    .handle("create", ({ request, payload }) =>
      asAdmin(request, (ctx) => Effect.map(createWebhook(ctx, payload), (data) => ({ ok: true as const, message: M.created, data }))))
    .handle("update", ({ request, params, payload }) =>
      asAdmin(request, (ctx) => Effect.map(updateWebhook(ctx, params.id, payload), (webhook) => ({ ok: true as const, message: M.updated, data: { webhook } }))))
    .handle("remove", ({ request, params }) =>
      asAdmin(request, (ctx) => Effect.as(deleteWebhook(ctx, params.id), { ok: true as const, message: M.deleted })))
    .handle("test", ({ request, params }) =>
      asAdmin(request, (ctx) => Effect.map(testWebhook(ctx, params.id), (delivery) => ({ ok: true as const, message: M.testQueued, data: { delivery } }))))
    .handle("deliveries", ({ request, params, query }) =>
      asAdmin(request, (ctx) => Effect.map(listDeliveries(ctx.workspaceId, params.id, query.before), (data) => ({ ok: true as const, data }))))
    .handle("replay", ({ request, params }) =>
      asAdmin(request, (ctx) =>
        Effect.map(replayDelivery(ctx, params.id, params.delivery_id), (delivery) => ({ ok: true as const, message: M.replayQueued, data: { delivery } })))),
).pipe(Layer.provide(AuthConfigFromApp))
