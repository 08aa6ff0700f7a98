/**
 * The `workspaces` group (access §3, §4, §7): the user's workspace list, switching (new tokens scoped to the chosen
 * workspace), accepting a workspace invitation while signed in, the current user's permissions and the current
 * workspace info. Paths the spec does not show are the contract's (docs/identity.md lists them).
 *
 * Permissions: any signed-in user for list/switch/accept (membership checked for switch); any member for permissions
 * and info (the workspace comes from X-Workspace-ID and is checked against membership).
 */
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { SqlClient } from "effect/sql"
import { Api } from "../../src/contracts/api.ts"
import { Unauthorized, WorkspaceAccessDenied } from "../../src/contracts/errors.ts"
import type { UserId, WorkspaceId } from "../../src/contracts/ids.ts"
import { AccessServerMessages, addedToWorkspaceMessage, RefreshMessages } from "../../src/contracts/messages.ts"
import { BuiltInRoleIds } from "../../src/contracts/permissions.ts"
import type { Workspace } from "../../src/contracts/workspaces.ts"
import { record } from "../audit/audit-log.ts"
import { signAccessToken } from "../auth/access-token.ts"
import { captureIdentity, IdentityLive } from "../auth/identity-layer.ts"
import { moveSession } from "../auth/refresh-tokens.ts"
import { setScope } from "../auth/rls.ts"
import { builtInRoles, customRoles } from "../auth/roles.ts"
import { sqlDefects } from "../auth/sql-errors.ts"
import { acceptAsUser } from "./invitations.ts"
import { authenticate, clientAddress } from "./middleware/authentication.ts"
import { anyMember, inWorkspace, signedIn } from "./middleware/workspace-scope.ts"
import { guard } from "./middleware/input-guard.ts"

export const WorkspacePolicies = {
  permissions: anyMember,
  info: anyMember,
} as const

export const WorkspacesHandlers = HttpApiBuilder.group(
  Api,
  "workspaces",
  Effect.fn(function* (handlers) {
    const sql = yield* SqlClient.SqlClient
    const provide = yield* captureIdentity
    const run = <A, E, R>(effect: Effect.Effect<A, E, R>) => provide(sqlDefects(effect))

    const list = (userId: number) =>
      Effect.gen(function* () {
        const rows = yield* sql<{
          workspace_id: number; workspace_name: string; is_owner: boolean; role: string | null; joined_at: Date
        }>`SELECT m.workspace_id, w.name AS workspace_name, w.owner_id = ${userId} AS is_owner,
                  coalesce(r.name, cr.name) AS role, m.joined_at
           FROM memberships m
           JOIN workspaces w ON w.id = m.workspace_id
           LEFT JOIN roles r ON r.id = m.role_id
           LEFT JOIN custom_roles cr ON cr.id = m.custom_role_id
           WHERE m.user_id = ${userId}
           ORDER BY lower(w.name), m.workspace_id`
        const data: Array<Workspace> = []
        for (const row of rows) {
          // Member counts need the workspace's own scope (RLS shows a user only their own memberships elsewhere).
          yield* setScope({ userId, workspaceId: row.workspace_id })
          const count = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM memberships WHERE workspace_id = ${row.workspace_id}`
          data.push({
            workspace_id: row.workspace_id as WorkspaceId,
            workspace_name: row.workspace_name,
            is_owner: row.is_owner,
            role: row.role,
            member_count: count[0]?.n ?? 0,
            joined_at: row.joined_at.toISOString(),
          })
        }
        return { ok: true, data }
      })

    return handlers
      .handle("list", guard(({ request }) => run(signedIn(request, (caller) => list(caller.userId)))))
      .handle("switch", guard(({ payload, request }) =>
        run(signedIn(request, (caller) =>
          Effect.gen(function* () {
            const workspaceId = payload.workspace_id
            const rows = yield* sql<{ workspace_name: string }>`
              SELECT w.name AS workspace_name FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
              WHERE m.user_id = ${caller.userId} AND m.workspace_id = ${workspaceId}`
            if (rows[0] === undefined) return yield* new WorkspaceAccessDenied({ message: AccessServerMessages.workspaceAccessDenied })
            const session = yield* moveSession(caller.sessionId, workspaceId)
            if (session === undefined) return yield* new Unauthorized({ message: RefreshMessages.sessionExpired })
            const access_token = yield* signAccessToken({ userId: caller.userId, workspaceId, sessionId: caller.sessionId })
            yield* setScope({ userId: caller.userId, workspaceId })
            yield* record({ action: "workspace.switched", workspaceId, actorUserId: caller.userId, ip: caller.ip })
            return {
              access_token,
              refresh_token: session.refreshToken,
              data: { workspace_id: workspaceId, workspace_name: rows[0].workspace_name },
            }
          })))))
      .handle("acceptInvitation", guard(({ payload, request }) =>
        run(Effect.gen(function* () {
          const caller = yield* authenticate(request)
          const joined = yield* acceptAsUser({ ...caller, ip: clientAddress(request) }, payload.invitation_token)
          return {
            ok: true,
            message: addedToWorkspaceMessage(joined.workspace_name),
            data: { workspace_id: joined.workspace_id, workspace_name: joined.workspace_name },
          }
        }))))
      .handle("permissions", guard(({ request }) =>
        run(inWorkspace(request, WorkspacePolicies.permissions, (ctx) =>
          Effect.gen(function* () {
            // The owner holds everything whatever their membership row says.
            const roles = ctx.isOwner
              ? yield* builtInRoles(BuiltInRoleIds.Admin)
              : ctx.roleId !== null
              ? yield* builtInRoles(ctx.roleId)
              : []
            const custom = !ctx.isOwner && ctx.customRoleId !== null ? yield* customRoles(ctx.customRoleId) : []
            return { ok: true, is_owner: ctx.isOwner, roles, custom_roles: custom }
          })))))
      .handle("info", guard(({ request }) =>
        run(inWorkspace(request, WorkspacePolicies.info, (ctx) =>
          Effect.succeed({
            ok: true,
            is_owner: ctx.isOwner,
            user_id: ctx.userId as UserId,
            workspace_id: ctx.workspaceId as WorkspaceId,
            workspace_name: ctx.workspaceName,
          })))))
  }),
).pipe(Layer.provide(IdentityLive))
