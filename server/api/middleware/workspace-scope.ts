/**
 * Workspace scoping and permission checks for workspace-scoped calls.
 *
 * `inWorkspace(request, policy, body)`: authenticates the bearer token, takes the workspace from `X-Workspace-ID`
 * (else the one the access token was issued for), opens an RLS-scoped transaction for (workspace, user), checks the
 * caller's membership (none → 403 WorkspaceAccessDenied; an unknown workspace answers the same, so ids of other
 * workspaces reveal nothing), then the handler's declared policy (missing permission → 403 Forbidden), and runs
 * `body` inside the same transaction. The owner holds every permission.
 *
 * `signedIn(request, body)`: the same for calls that need a user but no workspace (RLS scope: the user only).
 */
import { Effect } from "effect"
import type { HttpServerRequest } from "effect/http"
import { SqlClient } from "effect/sql"
import { Forbidden, WorkspaceAccessDenied, WorkspaceRequired } from "../../../src/contracts/errors.ts"
import { AccessServerMessages, StatusMessages } from "../../../src/contracts/messages.ts"
import { PERMISSIONS, type PermissionName } from "../../../src/contracts/permissions.ts"
import { inScopeForSession } from "../../auth/rls.ts"
import { type Caller, clientAddress, sessionRevoked, verifyBearer } from "./authentication.ts"

export interface WorkspaceContext extends Caller {
  readonly workspaceId: number
  readonly workspaceName: string
  readonly isOwner: boolean
  readonly roleId: number | null
  readonly customRoleId: number | null
  readonly roleName: string | null
  readonly permissions: ReadonlyArray<PermissionName>
  readonly ip: string
}

/**
 * Who may call a handler: any member, or a member holding at least one of the listed permissions.
 * Declared next to each handler (server/api/{team,invitations,workspaces}.ts).
 */
export type Policy = { readonly _tag: "member" } | { readonly _tag: "anyOf"; readonly permissions: ReadonlyArray<PermissionName> }
export const anyMember: Policy = { _tag: "member" }
export const anyOf = (...permissions: ReadonlyArray<PermissionName>): Policy => ({ _tag: "anyOf", permissions })

export const holds = (ctx: Pick<WorkspaceContext, "isOwner" | "permissions">, permission: PermissionName): boolean =>
  ctx.isOwner || ctx.permissions.includes(permission)

export const allows = (policy: Policy, ctx: Pick<WorkspaceContext, "isOwner" | "permissions">): boolean =>
  policy._tag === "member" || policy.permissions.some((p) => holds(ctx, p))

const WORKSPACE_HEADER = /^[1-9][0-9]{0,9}$/

/** The requested workspace id: X-Workspace-ID when present (must be a positive integer), else the token's. */
export const requestedWorkspaceId = (request: HttpServerRequest.HttpServerRequest, caller: Caller) => {
  const header = request.headers["x-workspace-id"]
  if (header === undefined || header.trim() === "") {
    return caller.tokenWorkspaceId === undefined
      ? Effect.fail(new WorkspaceRequired({ message: AccessServerMessages.workspaceRequired }))
      : Effect.succeed(caller.tokenWorkspaceId)
  }
  const n = Number(header.trim())
  return WORKSPACE_HEADER.test(header.trim()) && n <= 2147483647
    ? Effect.succeed(n)
    : Effect.fail(new WorkspaceRequired({ message: AccessServerMessages.workspaceRequired }))
}

/** Membership of the caller in the scoped workspace, with role and permissions (must run inside the RLS scope). */
export const loadMembership = Effect.fn("WorkspaceScope.loadMembership")(function* (userId: number, workspaceId: number) {
  const sql = yield* SqlClient.SqlClient
  // One statement: the membership, its role and (for members other than the owner) the granted permission names.
  const rows = yield* sql<{
    workspace_name: string; is_owner: boolean; role_id: number | null; custom_role_id: number | null; role_name: string | null
    granted: ReadonlyArray<string> | null
  }>`SELECT w.name AS workspace_name, w.owner_id = ${userId} AS is_owner, m.role_id, m.custom_role_id,
            coalesce(r.name, cr.name) AS role_name,
            CASE WHEN w.owner_id = ${userId} THEN NULL ELSE ARRAY(
              SELECT p.name FROM role_permissions rp JOIN permissions p ON p.id = rp.permission_id
              WHERE rp.role_id = m.role_id
              UNION
              SELECT p.name FROM custom_role_permissions crp JOIN permissions p ON p.id = crp.permission_id
              WHERE crp.custom_role_id = m.custom_role_id) END AS granted
     FROM memberships m
     JOIN workspaces w ON w.id = m.workspace_id
     LEFT JOIN roles r ON r.id = m.role_id
     LEFT JOIN custom_roles cr ON cr.id = m.custom_role_id
     WHERE m.workspace_id = ${workspaceId} AND m.user_id = ${userId}`
  const row = rows[0]
  if (row === undefined) return undefined
  const granted = row.is_owner ? [...PERMISSIONS] : [...(row.granted ?? [])]
  return {
    workspaceName: row.workspace_name,
    isOwner: row.is_owner,
    roleId: row.role_id,
    customRoleId: row.custom_role_id,
    roleName: row.role_name,
    permissions: PERMISSIONS.filter((p) => granted.includes(p)),
  }
})

export const inWorkspace = <A, E, R>(
  request: HttpServerRequest.HttpServerRequest,
  policy: Policy,
  body: (ctx: WorkspaceContext) => Effect.Effect<A, E, R>,
) =>
  Effect.gen(function* () {
    // Token checked here; the session's liveness in the statement that opens the scope (one round trip less).
    const caller = yield* verifyBearer(request)
    const workspaceId = yield* requestedWorkspaceId(request, caller)
    return yield* inScopeForSession({ workspaceId, userId: caller.userId }, caller.sessionId, sessionRevoked)(Effect.gen(function* () {
      const membership = yield* loadMembership(caller.userId, workspaceId)
      if (membership === undefined) return yield* new WorkspaceAccessDenied({ message: AccessServerMessages.workspaceAccessDenied })
      const ctx: WorkspaceContext = { ...caller, ...membership, workspaceId, ip: clientAddress(request) }
      if (!allows(policy, ctx)) {
        return yield* new Forbidden({
          message: StatusMessages.forbidden,
          ...(policy._tag === "anyOf" && policy.permissions.length === 1 ? { permission: policy.permissions[0]! } : {}),
        })
      }
      return yield* body(ctx)
    }))
  })

export const signedIn = <A, E, R>(
  request: HttpServerRequest.HttpServerRequest,
  body: (caller: Caller & { readonly ip: string }) => Effect.Effect<A, E, R>,
) =>
  Effect.gen(function* () {
    const caller = yield* verifyBearer(request)
    return yield* inScopeForSession({ userId: caller.userId }, caller.sessionId, sessionRevoked)(body({ ...caller, ip: clientAddress(request) }))
  })
