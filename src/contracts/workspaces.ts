/**
 * Workspaces area (access §3, §4, §7): list, switch (select), accept a workspace invitation, the current
 * user's permissions and the current workspace info, and the persisted workspace store with the 7-day
 * "New" badge rule.
 */
import { Schema } from "effect"
import { PermissionId, RoleId, UserId, WorkspaceId } from "./ids.ts"
import { Timestamp, withData } from "./common.ts"
import { RoleAccountGroups } from "./account-groups.ts"
import { Workspaces as WorkspaceConstants } from "./constants.ts"
import { requiredString } from "./validation.ts"
import { ValidationMessages as M } from "./messages.ts"

/** Access §3 Workspace. `role` is the role name in that workspace (null for the owner without a role). */
export const Workspace = Schema.Struct({
  workspace_id: WorkspaceId,
  workspace_name: Schema.String,
  is_owner: Schema.Boolean,
  role: Schema.NullOr(Schema.String),
  member_count: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  joined_at: Timestamp,
})
export type Workspace = typeof Workspace.Type

/** Workspace list: data array. */
export const WorkspaceListResponse = withData(Schema.Array(Workspace))
export type WorkspaceListResponse = typeof WorkspaceListResponse.Type

export const SwitchWorkspacePayload = Schema.Struct({ workspace_id: WorkspaceId })
export type SwitchWorkspacePayload = typeof SwitchWorkspacePayload.Type

/** Select workspace: access_token, refresh_token (scoped to the workspace), plus the workspace. */
export const SwitchWorkspaceResponse = Schema.Struct({
  access_token: Schema.String,
  refresh_token: Schema.String,
  data: Schema.optionalKey(Schema.Struct({ workspace_id: WorkspaceId, workspace_name: Schema.String })),
})
export type SwitchWorkspaceResponse = typeof SwitchWorkspaceResponse.Type

export const AcceptWorkspaceInvitationPayload = Schema.Struct({
  invitation_token: requiredString(M.invitationTokenInvalid),
})
export type AcceptWorkspaceInvitationPayload = typeof AcceptWorkspaceInvitationPayload.Type

/** Answer data.workspace_id, data.workspace_name. */
export const AcceptWorkspaceInvitationResponse = Schema.Struct({
  ok: Schema.Boolean,
  message: Schema.String,
  data: Schema.Struct({ workspace_id: WorkspaceId, workspace_name: Schema.String }),
})
export type AcceptWorkspaceInvitationResponse = typeof AcceptWorkspaceInvitationResponse.Type

/** Permission (id, name). `name` is one of the 12 names; kept a string so unknown server names decode. */
export const PermissionRef = Schema.Struct({ id: PermissionId, name: Schema.String })
export type PermissionRef = typeof PermissionRef.Type

/** A role with its permissions (built-in or custom). */
export const RoleWithPermissions = Schema.Struct({
  id: RoleId,
  name: Schema.String,
  description: Schema.optionalKey(Schema.String),
  is_custom: Schema.optionalKey(Schema.Boolean),
  permissions: Schema.Array(PermissionRef),
  /** Custom roles (beyond the spec, issue 31): the account groups it is limited to; null or absent: every account. */
  account_group_ids: Schema.optionalKey(RoleAccountGroups),
})
export type RoleWithPermissions = typeof RoleWithPermissions.Type

/** Permissions of the current user (access §3): roles and custom_roles, each with permissions. */
export const UserPermissionsResponse = Schema.Struct({
  ok: Schema.optionalKey(Schema.Boolean),
  is_owner: Schema.optionalKey(Schema.Boolean),
  roles: Schema.Array(RoleWithPermissions),
  custom_roles: Schema.Array(RoleWithPermissions),
})
export type UserPermissionsResponse = typeof UserPermissionsResponse.Type

/** Current workspace info (access §3): is_owner, user_id, workspace_name. */
export const WorkspaceInfoResponse = Schema.Struct({
  ok: Schema.optionalKey(Schema.Boolean),
  is_owner: Schema.Boolean,
  user_id: UserId,
  workspace_id: Schema.optionalKey(WorkspaceId),
  workspace_name: Schema.String,
})
export type WorkspaceInfoResponse = typeof WorkspaceInfoResponse.Type

// ---------------------------------------------------------------------------------------------------
// Persisted store (browser side, key `workspace-store`).

export const WorkspaceStore = Schema.Struct({
  selectedWorkspaceId: Schema.NullOr(Schema.Number),
  lastAccessedWorkspaces: Schema.Record(Schema.String, Timestamp),
  newlyAddedWorkspaces: Schema.Record(Schema.String, Timestamp),
})
export type WorkspaceStore = typeof WorkspaceStore.Type

export { emptyWorkspaceStore } from "./constants.ts"

/** Access §4/§9: a "New" badge counts for 7 days after being marked. */
export const isNewWorkspace = (store: WorkspaceStore, workspaceId: number, nowMs: number): boolean => {
  const marked = store.newlyAddedWorkspaces[String(workspaceId)]
  if (marked === undefined) return false
  const t = Date.parse(marked)
  return Number.isFinite(t) && nowMs - t >= 0 && nowMs - t < WorkspaceConstants.newBadgeMs
}

/** Access §2: the search box shows only above 3 workspaces. */
export const showWorkspaceSearch = (count: number): boolean => count > WorkspaceConstants.searchAbove
