/**
 * Who is calling, in which workspace, with which permissions: the domain types every workspace-scoped module reads
 * (posture, compliance, scans, remediation), and the permission policies declared next to each handler. They live
 * below `server/api` so that the domain never imports the HTTP layer; `server/api/middleware/workspace-scope.ts` builds
 * a `WorkspaceContext` from a request (token, X-Workspace-ID, membership) and re-exports these for the handlers.
 * `toMembership` turns a membership row into the context's permission fields, for a request and for a job acting
 * later in a member's name alike (server/scans/remediation-batches.ts).
 */
import { PERMISSION_IDS, PERMISSIONS, type PermissionName } from "../../src/contracts/permissions.ts"
import { parseAccountLimit, type MembershipRow } from "./rls.ts"

export interface Caller {
  readonly userId: number
  readonly sessionId: string
  /** The workspace the access token was issued for (the default when no X-Workspace-ID header is sent). */
  readonly tokenWorkspaceId: number | undefined
  /**
   * Set when the request presented an API key (docs/api-keys.md) instead of a session: `userId` is then the key's
   * creator, `sessionId` names the key, and the context's permissions and accounts are the key's.
   */
  readonly apiKeyId?: number | undefined
}

export interface WorkspaceContext extends Caller {
  readonly workspaceId: number
  readonly workspaceName: string
  readonly isOwner: boolean
  readonly roleId: number | null
  readonly customRoleId: number | null
  readonly roleName: string | null
  readonly permissions: ReadonlyArray<PermissionName>
  /**
   * The account groups the caller's custom role is limited to (docs/permissions.md "Account groups"); null: every
   * account (the owner, built-in roles, unlimited custom roles).
   */
  readonly accountGroupIds: ReadonlyArray<number> | null
  /**
   * The accounts those groups held when the request's scope was opened (what row-level security lets it see); null:
   * every account. A later scope of the same request passes it on (server/auth/rls.ts `RlsScope.accountIds`).
   */
  readonly accountIds: ReadonlyArray<number> | null
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

/**
 * A membership row (server/auth/rls.ts: the request scope's `inScopeForMember`, a job's `readMembership`) as the
 * context's role and permission fields. The owner holds every permission and every account.
 */
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
