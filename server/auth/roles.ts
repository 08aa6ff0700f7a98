/**
 * Roles of a workspace: the built-in roles (global, read-only, from the contract) and the workspace's custom roles
 * (RLS-scoped). Built-in and custom roles share one id space: built-in ids ≤ CUSTOM_ROLE_ID_FLOOR < custom ids; the
 * request's `is_custom_role` must agree with the id.
 *
 * Grant rule (ours, against privilege escalation): a member other than the owner may grant (add, invite, assign) or
 * put into a custom role only permissions they hold themselves; and a member whose role is limited to account groups
 * (docs/permissions.md "Account groups") may grant only roles limited to some of their own groups (never a built-in
 * or unlimited role).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { AccountGroupId } from "../../src/contracts/account-groups.ts"
import type { PermissionId, RoleId } from "../../src/contracts/ids.ts"
import { CUSTOM_ROLE_ID_FLOOR, PERMISSIONS, type PermissionName } from "../../src/contracts/permissions.ts"
import type { RoleWithPermissions } from "../../src/contracts/workspaces.ts"

export interface ResolvedRole {
  readonly roleId: number | null
  readonly customRoleId: number | null
  readonly name: string
  readonly isCustom: boolean
  readonly permissions: ReadonlyArray<PermissionName>
  /** The account groups the role is limited to; null: every account (built-in roles, unlimited custom roles). */
  readonly accountGroupIds: ReadonlyArray<number> | null
}

const toPermissionList = (names: ReadonlyArray<string>): ReadonlyArray<PermissionName> =>
  PERMISSIONS.filter((p) => names.includes(p))

/** The role a request names, when it exists (custom roles only in the scoped workspace). */
export const resolveRole = Effect.fn("Roles.resolve")(function* (roleId: number, isCustom: boolean) {
  const sql = yield* SqlClient.SqlClient
  if (isCustom !== roleId > CUSTOM_ROLE_ID_FLOOR) return undefined
  if (!isCustom) {
    const rows = yield* sql<{ name: string }>`SELECT name FROM roles WHERE id = ${roleId}`
    if (rows[0] === undefined) return undefined
    const perms = yield* sql<{ name: string }>`SELECT p.name FROM role_permissions rp JOIN permissions p ON p.id = rp.permission_id
      WHERE rp.role_id = ${roleId}`
    return {
      roleId, customRoleId: null, name: rows[0].name, isCustom: false,
      permissions: toPermissionList(perms.map((p) => p.name)), accountGroupIds: null,
    } satisfies ResolvedRole
  }
  const rows = yield* sql<{ name: string; account_group_ids: ReadonlyArray<number> | null }>`
    SELECT name, CASE WHEN limited_to_groups THEN ARRAY(
             SELECT g.group_id FROM custom_role_account_groups g WHERE g.custom_role_id = custom_roles.id ORDER BY g.group_id) END AS account_group_ids
    FROM custom_roles WHERE id = ${roleId} AND workspace_id = app_current_workspace_id()`
  if (rows[0] === undefined) return undefined
  const perms = yield* sql<{ name: string }>`SELECT p.name FROM custom_role_permissions crp JOIN permissions p ON p.id = crp.permission_id
    WHERE crp.custom_role_id = ${roleId}`
  return {
    roleId: null, customRoleId: roleId, name: rows[0].name, isCustom: true,
    permissions: toPermissionList(perms.map((p) => p.name)), accountGroupIds: rows[0].account_group_ids,
  } satisfies ResolvedRole
})

export const canGrant = (
  granter: { readonly isOwner: boolean; readonly permissions: ReadonlyArray<PermissionName>; readonly accountGroupIds: ReadonlyArray<number> | null },
  permissions: ReadonlyArray<PermissionName>,
  accountGroupIds: ReadonlyArray<number> | null,
): boolean =>
  granter.isOwner || (
    permissions.every((p) => granter.permissions.includes(p)) &&
    (granter.accountGroupIds === null || (accountGroupIds !== null && accountGroupIds.every((g) => granter.accountGroupIds!.includes(g)))))

type RolePermissionRow = {
  role_id: number; name: string; description: string; permission_id: number | null; permission: string | null
  account_group_ids?: ReadonlyArray<number> | null
}

const group = (rows: ReadonlyArray<RolePermissionRow>, isCustom: boolean): Array<RoleWithPermissions> => {
  const byId = new Map<number, RoleWithPermissions & { permissions: Array<{ id: PermissionId; name: string }> }>()
  for (const r of rows) {
    let role = byId.get(r.role_id)
    if (role === undefined) {
      role = {
        id: r.role_id as RoleId, name: r.name, description: r.description, is_custom: isCustom, permissions: [],
        ...(isCustom ? { account_group_ids: (r.account_group_ids ?? null) as ReadonlyArray<AccountGroupId> | null } : {}),
      }
      byId.set(r.role_id, role)
    }
    if (r.permission_id !== null && r.permission !== null) role.permissions.push({ id: r.permission_id as PermissionId, name: r.permission })
  }
  return [...byId.values()]
}

export const builtInRoles = Effect.fn("Roles.builtIn")(function* (onlyId?: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<RolePermissionRow>`
    SELECT r.id AS role_id, r.name, r.description, p.id::int AS permission_id, p.name AS permission
    FROM roles r LEFT JOIN role_permissions rp ON rp.role_id = r.id LEFT JOIN permissions p ON p.id = rp.permission_id
    WHERE ${onlyId === undefined ? sql`true` : sql`r.id = ${onlyId}`}
    ORDER BY r.id, p.id`
  return group(rows, false)
})

/** Custom roles of the scoped workspace (optionally one of them). */
export const customRoles = Effect.fn("Roles.custom")(function* (onlyId?: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<RolePermissionRow>`
    SELECT r.id AS role_id, r.name, r.description, p.id::int AS permission_id, p.name AS permission,
           CASE WHEN r.limited_to_groups THEN ARRAY(
             SELECT g.group_id FROM custom_role_account_groups g WHERE g.custom_role_id = r.id ORDER BY g.group_id) END AS account_group_ids
    FROM custom_roles r LEFT JOIN custom_role_permissions crp ON crp.custom_role_id = r.id
    LEFT JOIN permissions p ON p.id = crp.permission_id
    WHERE r.workspace_id = app_current_workspace_id() AND ${onlyId === undefined ? sql`true` : sql`r.id = ${onlyId}`}
    ORDER BY r.id, p.id`
  return group(rows, true)
})
