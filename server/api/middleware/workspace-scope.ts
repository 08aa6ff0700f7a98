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
 * `signedIn(request, body)`: the same for calls that need a user but no workspace (RLS scope: the user only); an API
 * key gets 403 there (a sign-in-only call).
 *
 * Either workspace call also takes an API key (`Authorization: Bearer ca_live_…` or `X-API-Key`), see `inApiKeyScope`.
 */
import { Effect } from "effect"
import { HttpEffect, HttpServerResponse, type HttpServerRequest } from "effect/http"
import { SqlClient } from "effect/sql"
import { API_KEY_PATTERN, ApiKeyMessages } from "../../../src/contracts/api-keys.ts"
import { Forbidden, RateLimited, Unauthorized, WorkspaceAccessDenied, WorkspaceRequired } from "../../../src/contracts/errors.ts"
import { AccessServerMessages, StatusMessages } from "../../../src/contracts/messages.ts"
import { findPresentedKey, keyEffectiveGrant, keyGrant } from "../../auth/api-keys.ts"
import { AuthConfig } from "../../auth/auth-config.ts"
import { accountLimitSetting, inScopeForMember, inScopeForSession } from "../../auth/rls.ts"
import { allows, toMembership, type Caller, type Policy, type WorkspaceContext } from "../../auth/workspace-context.ts"
import { clientAddress, presentedApiKey, sessionRevoked, verifyBearer } from "./authentication.ts"
import { hit } from "./rate-limit.ts"

// The domain types live below the HTTP layer (server/auth/workspace-context.ts); the handlers take them from here.
export { allows, anyMember, anyOf, holds, toMembership, type Caller, type Policy, type WorkspaceContext } from "../../auth/workspace-context.ts"

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

/**
 * The member scope of the request's caller in the workspace `workspaceOf` names, with the caller's context: a signed-in
 * member (bearer access token, session alive), or an API key (docs/api-keys.md) acting for its creator with the key's
 * permissions and accounts. Not a member → 403 WorkspaceAccessDenied. `inWorkspace` adds the handler's policy;
 * `/api/workspaces/{id}/…` calls name the workspace in the path.
 */
export const memberScope = <A, E, R>(
  request: HttpServerRequest.HttpServerRequest,
  workspaceOf: (caller: Caller) => Effect.Effect<number, WorkspaceRequired>,
  body: (ctx: WorkspaceContext) => Effect.Effect<A, E, R>,
) =>
  Effect.gen(function* () {
    const key = presentedApiKey(request)
    if (key !== undefined) return yield* inApiKeyScope(request, key, workspaceOf, body)
    // Token checked here; the session's liveness and the caller's membership in the statement that opens the scope
    // (BEGIN, that statement, the handler's statements, COMMIT).
    const caller = yield* verifyBearer(request)
    const workspaceId = yield* workspaceOf(caller)
    return yield* inScopeForMember({ workspaceId, userId: caller.userId }, caller.sessionId, sessionRevoked, (row) =>
      Effect.gen(function* () {
        if (row === undefined) return yield* new WorkspaceAccessDenied({ message: AccessServerMessages.workspaceAccessDenied })
        return yield* body({ ...caller, ...toMembership(row), workspaceId, ip: clientAddress(request) })
      }))
  })

const sameLimit = (a: ReadonlyArray<number> | null, b: ReadonlyArray<number> | null) =>
  a === null || b === null ? a === b : a.length === b.length && a.every((id, i) => id === b[i])

/**
 * A request made with an API key (docs/api-keys.md). In order: the key is looked up by the SHA-256 of what was
 * presented (its last use recorded), refused when unknown, revoked or expired (401); the workspace asked for must be
 * the key's (else 403); one hit is counted against the key's rate limit (429 with Retry-After); then the creator's
 * member scope is opened, its statement checking the key again (a revocation since the lookup holds), and the context
 * gets what both the key's role and the creator hold now: permissions intersected, accounts intersected with the key's
 * role's and its own groups' (set as `app.account_ids`, so row-level security applies the key's limit). The creator
 * no longer a member → 401. The owner's keys are not the owner: they hold their role's permissions only.
 */
const inApiKeyScope = <A, E, R>(
  request: HttpServerRequest.HttpServerRequest,
  secret: string,
  workspaceOf: (caller: Caller) => Effect.Effect<number, WorkspaceRequired>,
  body: (ctx: WorkspaceContext) => Effect.Effect<A, E, R>,
) =>
  Effect.gen(function* () {
    const config = yield* AuthConfig
    const ip = clientAddress(request)
    const key = API_KEY_PATTERN.test(secret) ? yield* findPresentedKey(secret, ip).pipe(Effect.orDie) : undefined
    if (key === undefined) return yield* new Unauthorized({ message: ApiKeyMessages.invalidKey })
    if (key.revoked) return yield* new Unauthorized({ message: ApiKeyMessages.revokedKey })
    if (key.expired) return yield* new Unauthorized({ message: ApiKeyMessages.expiredKey })
    const caller: Caller = { userId: key.userId, sessionId: `api-key:${key.id}`, tokenWorkspaceId: key.workspaceId, apiKeyId: key.id }
    const workspaceId = yield* workspaceOf(caller)
    if (workspaceId !== key.workspaceId) return yield* new WorkspaceAccessDenied({ message: ApiKeyMessages.otherWorkspace })
    const rate = yield* hit(`api-key:${key.id}`, config.apiKeyRequests).pipe(Effect.orDie)
    if (!rate.allowed) {
      yield* HttpEffect.appendPreResponseHandler((_request, response) =>
        Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(rate.retryAfterSeconds))))
      return yield* new RateLimited({ message: ApiKeyMessages.rateLimited, retry_after_seconds: rate.retryAfterSeconds })
    }
    const credential = { apiKeyId: key.id, secretHash: key.secretHash }
    return yield* inScopeForMember({ workspaceId, userId: key.userId }, credential, () => new Unauthorized({ message: ApiKeyMessages.revokedKey }), (row) =>
      Effect.gen(function* () {
        if (row === undefined) return yield* new Unauthorized({ message: ApiKeyMessages.creatorGone })
        const member = toMembership(row)
        const grant = yield* keyGrant(key.id).pipe(Effect.orDie)
        if (grant === undefined) return yield* new Unauthorized({ message: ApiKeyMessages.invalidKey })
        const { permissions, accountIds } = keyEffectiveGrant(member, grant)
        if (!sameLimit(accountIds, member.accountIds)) {
          const sql = yield* SqlClient.SqlClient
          yield* sql`SELECT set_config('app.account_ids', ${accountLimitSetting(accountIds)}, true)`.pipe(Effect.orDie)
        }
        const ctx: WorkspaceContext = {
          ...caller, ...member, isOwner: false, permissions, accountIds,
          accountGroupIds: grant.keyGroupIds ?? grant.roleGroupIds ?? member.accountGroupIds,
          workspaceId, ip,
        }
        return yield* body(ctx)
      }))
  })

export const inWorkspace = <A, E, R>(
  request: HttpServerRequest.HttpServerRequest,
  policy: Policy,
  body: (ctx: WorkspaceContext) => Effect.Effect<A, E, R>,
) =>
  memberScope(request, (caller) => requestedWorkspaceId(request, caller), (ctx) =>
    Effect.gen(function* () {
      if (!allows(policy, ctx)) {
        return yield* new Forbidden({
          message: StatusMessages.forbidden,
          ...(policy._tag === "anyOf" && policy.permissions.length === 1 ? { permission: policy.permissions[0]! } : {}),
        })
      }
      return yield* body(ctx)
    }))

export const signedIn = <A, E, R>(
  request: HttpServerRequest.HttpServerRequest,
  body: (caller: Caller & { readonly ip: string }) => Effect.Effect<A, E, R>,
) =>
  Effect.gen(function* () {
    const caller = yield* verifyBearer(request)
    return yield* inScopeForSession({ userId: caller.userId }, caller.sessionId, sessionRevoked)(body({ ...caller, ip: clientAddress(request) }))
  })
