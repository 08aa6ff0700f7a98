/**
 * Workspace scoping and permission checks for workspace-scoped calls.
 *
 * `inWorkspace(request, policy, body)`: authenticates the bearer token, takes the workspace from `X-Workspace-ID`
 * (else the one the access token was issued for), opens an RLS-scoped transaction for (workspace, user) whose first
 * statement also checks the session and reads the caller's membership (server/auth/rls.ts `inScopeForMember`), checks the
 * membership (none → 403 WorkspaceAccessDenied; an unknown workspace answers the same, so ids of other
 * workspaces reveal nothing), then the handler's declared policy (missing permission → 403 Forbidden), and runs
 * `body` inside the same transaction. The owner holds every permission.
 *
 * `signedIn(request, body)`: the same for calls that need a user but no workspace (RLS scope: the user only).
 */
import { Effect } from "effect"
import type { HttpServerRequest } from "effect/http"
import { Forbidden, WorkspaceAccessDenied, WorkspaceRequired } from "../../../src/contracts/errors.ts"
import { AccessServerMessages, StatusMessages } from "../../../src/contracts/messages.ts"
import { PERMISSION_IDS, PERMISSIONS, type PermissionName } from "../../../src/contracts/permissions.ts"
import { inScopeForMember, inScopeForSession, parseAccountLimit, type MembershipRow } from "../../auth/rls.ts"
import { allows, type Caller, type Policy, type WorkspaceContext } from "../../auth/workspace-context.ts"
import { clientAddress, sessionRevoked, verifyBearer } from "./authentication.ts"

// The domain types live below the HTTP layer (server/auth/workspace-context.ts); the handlers take them from here.
export { allows, anyMember, anyOf, holds, type Caller, type Policy, type WorkspaceContext } from "../../auth/workspace-context.ts"

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

/** The membership row (server/auth/rls.ts `inScopeForMember`) as the context's role and permission fields. */
export const toMembership = (row: MembershipRow) => {
  const ids = row.granted ?? []
  const granted = row.is_owner ? PERMISSIONS : PERMISSIONS.filter((p) => ids.includes(PERMISSION_IDS[p]))
  return {
    workspaceName: row.workspace_name,
    isOwner: row.is_owner,
    roleId: row.role_id,
    customRoleId: row.custom_role_id,
    roleName: row.role_name,
    permissions: granted,
    accountGroupIds: row.is_owner ? null : row.account_group_ids,
    accountIds: row.is_owner ? null : parseAccountLimit(row.account_ids),
  }
}

export const inWorkspace = <A, E, R>(
  request: HttpServerRequest.HttpServerRequest,
  policy: Policy,
  body: (ctx: WorkspaceContext) => Effect.Effect<A, E, R>,
) =>
  Effect.gen(function* () {
    // Token checked here; the session's liveness and the caller's membership in the statement that opens the scope
    // (BEGIN, that statement, the handler's statements, COMMIT).
    const caller = yield* verifyBearer(request)
    const workspaceId = yield* requestedWorkspaceId(request, caller)
    return yield* inScopeForMember({ workspaceId, userId: caller.userId }, caller.sessionId, sessionRevoked, (row) =>
      Effect.gen(function* () {
        if (row === undefined) return yield* new WorkspaceAccessDenied({ message: AccessServerMessages.workspaceAccessDenied })
        const ctx: WorkspaceContext = { ...caller, ...toMembership(row), workspaceId, ip: clientAddress(request) }
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
