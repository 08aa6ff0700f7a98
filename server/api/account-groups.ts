/**
 * The `accountGroups` group (beyond the spec, issue 31 item 5; contract src/contracts/account-groups.ts, domain
 * server/accounts/account-groups.ts):
 *   GET    /api/account-groups       → the workspace's groups, each with the accounts it holds now and the roles it limits;
 *   POST   /api/account-groups       → creates a group (audited `account_group.created`);
 *   PUT    /api/account-groups/{id}  → redefines it (audited `account_group.updated`: before and after);
 *   DELETE /api/account-groups/{id}  → deletes it (audited; 409 while a role is limited to it).
 *
 * The workspace is X-Workspace-ID (else the token's), scoped as every workspace call (`inWorkspace`). Workspace admins
 * only, as for storage (server/api/storage.ts `isWorkspaceAdmin`: the owner, or a member holding all 12 permissions),
 * and, beyond it, not limited to account groups themselves: a limited admin redefining a group could widen their own
 * access. Anyone else → 403 Forbidden with AccountGroupMessages.adminOnly.
 */
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { AccountGroupMessages as M } from "../../src/contracts/account-groups.ts"
import { Api } from "../../src/contracts/api.ts"
import { Forbidden } from "../../src/contracts/errors.ts"
import { createAccountGroup, deleteAccountGroup, listAccountGroups, updateAccountGroup } from "../accounts/account-groups.ts"
import { AuthConfigFromApp } from "../auth/identity-layer.ts"
import { MEMBER, scoped } from "./middleware/scanning-access.ts"
import { isWorkspaceAdmin } from "./storage.ts"
import type { HttpServerRequest } from "effect/http"
import type { WorkspaceContext } from "./middleware/workspace-scope.ts"

/** Manages account groups: a workspace admin whose own access is not limited to groups. */
export const isGroupAdmin = (ctx: Pick<WorkspaceContext, "isOwner" | "permissions" | "accountGroupIds">): boolean =>
  isWorkspaceAdmin(ctx) && (ctx.isOwner || ctx.accountGroupIds === null)

const asGroupAdmin = <A, E, R>(request: HttpServerRequest.HttpServerRequest, body: (ctx: WorkspaceContext) => Effect.Effect<A, E, R>) =>
  scoped(request, MEMBER, (ctx) =>
    Effect.gen(function* () {
      if (!isGroupAdmin(ctx)) return yield* new Forbidden({ message: M.adminOnly })
      return yield* body(ctx)
    }))

export const AccountGroupsHandlers = HttpApiBuilder.group(Api, "accountGroups", (handlers) =>
  handlers
    .handle("list", ({ request }) =>
      asGroupAdmin(request, (ctx) => Effect.map(listAccountGroups(ctx.workspaceId), (data) => ({ ok: true, data }))))
    .handle("create", ({ request, payload }) =>
      asGroupAdmin(request, (ctx) =>
        Effect.map(createAccountGroup(ctx, payload), (data) => ({ ok: true, message: M.groupCreated, data }))))
    .handle("update", ({ request, params, payload }) =>
      asGroupAdmin(request, (ctx) =>
        Effect.map(updateAccountGroup(ctx, params.id, payload), (data) => ({ ok: true, message: M.groupUpdated, data }))))
    .handle("delete", ({ request, params }) =>
      asGroupAdmin(request, (ctx) => Effect.as(deleteAccountGroup(ctx, params.id), { ok: true, message: M.groupDeleted }))),
).pipe(Layer.provide(AuthConfigFromApp))
