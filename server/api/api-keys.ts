/**
 * The `apiKeys` group (beyond the spec, issue 33; contract src/contracts/api-keys.ts, domain server/auth/api-keys.ts,
 * docs/api-keys.md):
 *   GET    /api/api-keys       → the caller's keys (a workspace admin: every key of the workspace), with last use;
 *   POST   /api/api-keys       → creates a key with a role the caller may grant; the answer holds the secret, once;
 *   DELETE /api/api-keys/{id}  → revokes it at once (the caller's own; a workspace admin: any key of the workspace).
 *
 * Any member of the workspace (X-Workspace-ID, else the token's) may manage their own keys. These calls are sign-in
 * only: a request made with an API key gets 403 (a leaked key must not mint or revoke keys).
 */
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import type { HttpServerRequest } from "effect/http"
import { ApiKeyMessages as M } from "../../src/contracts/api-keys.ts"
import { Api } from "../../src/contracts/api.ts"
import { Forbidden } from "../../src/contracts/errors.ts"
import { createKey, listKeys, revokeKey } from "../auth/api-keys.ts"
import { AuthConfigFromApp } from "../auth/identity-layer.ts"
import { MEMBER, scoped } from "./middleware/scanning-access.ts"
import type { WorkspaceContext } from "./middleware/workspace-scope.ts"
import { isWorkspaceAdmin } from "./storage.ts"

/** A signed-in member (never a key) of the request's workspace. */
const signedInMember = <A, E, R>(request: HttpServerRequest.HttpServerRequest, body: (ctx: WorkspaceContext) => Effect.Effect<A, E, R>) =>
  scoped(request, MEMBER, (ctx) =>
    Effect.gen(function* () {
      if (ctx.apiKeyId !== undefined) return yield* new Forbidden({ message: M.signInOnly })
      return yield* body(ctx)
    }))

export const ApiKeysHandlers = HttpApiBuilder.group(Api, "apiKeys", (handlers) =>
  handlers
    .handle("list", ({ request }) =>
      signedInMember(request, (ctx) => Effect.map(listKeys(ctx, isWorkspaceAdmin(ctx)), (data) => ({ ok: true, data }))))
    .handle("create", ({ request, payload }) =>
      signedInMember(request, (ctx) => Effect.map(createKey(ctx, payload), (data) => ({ ok: true, message: M.created, data }))))
    .handle("revoke", ({ request, params }) =>
      signedInMember(request, (ctx) => Effect.as(revokeKey(ctx, params.id, isWorkspaceAdmin(ctx)), { ok: true, message: M.revoked }))),
).pipe(Layer.provide(AuthConfigFromApp))
