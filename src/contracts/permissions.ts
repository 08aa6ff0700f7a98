/**
 * Access §6 permissions: the 12 names (lower-case on the wire; some screens use the upper-case form),
 * the checks (one, all, any, role), the eight user-management permissions, and the built-in roles we
 * define (documented in docs/permissions.md). The workspace owner holds every permission.
 */

export const PERMISSIONS = [
  "create_account",
  "create_user",
  "delete_user",
  "update_user_permissions",
  "assign_role_to_user",
  "revoke_role_from_user",
  "create_custom_role",
  "update_custom_role",
  "delete_custom_role",
  "scan_service",
  "remediate_findings",
  "read_only",
] as const

// Plain data, no schema: the route gates read these on the first page load (its schema is in team.ts, where a
// payload carries permission names).
export type PermissionName = (typeof PERMISSIONS)[number]

export type PermissionUpper = Uppercase<PermissionName>
/** Upper-case constants: `Permission.SCAN_SERVICE === "scan_service"`. */
export const Permission = Object.fromEntries(PERMISSIONS.map((p) => [p.toUpperCase(), p])) as {
  readonly [K in PermissionName as Uppercase<K>]: K
}
export const toUpperPermission = (p: PermissionName): PermissionUpper => p.toUpperCase() as PermissionUpper
/** Accepts either form ("SCAN_SERVICE" or "scan_service"); undefined for unknown names. */
export const normalizePermission = (name: string): PermissionName | undefined => {
  const lower = name.toLowerCase()
  return (PERMISSIONS as ReadonlyArray<string>).includes(lower) ? (lower as PermissionName) : undefined
}

/** Access §6: the eight user and role management permissions (create_user through delete_custom_role). */
export const USER_MANAGEMENT_PERMISSIONS = [
  "create_user",
  "delete_user",
  "update_user_permissions",
  "assign_role_to_user",
  "revoke_role_from_user",
  "create_custom_role",
  "update_custom_role",
  "delete_custom_role",
] as const satisfies ReadonlyArray<PermissionName>

/** Scans entry and routes: scan_service or read_only. Account details: create_account or read_only. */
export const SCANS_ROUTE_PERMISSIONS = ["scan_service", "read_only"] as const satisfies ReadonlyArray<PermissionName>
export const ACCOUNT_ROUTE_PERMISSIONS = ["create_account", "read_only"] as const satisfies ReadonlyArray<PermissionName>
/** Issue 14: the Compliance area needs only read access (read_only, or any scanning permission, as its API). */
export const COMPLIANCE_ROUTE_PERMISSIONS = ["read_only", "create_account", "scan_service", "remediate_findings"] as const satisfies ReadonlyArray<PermissionName>
/** Issue 32: the approvals inbox is for the members who may remediate, and so approve. */
export const APPROVALS_ROUTE_PERMISSIONS = ["remediate_findings"] as const satisfies ReadonlyArray<PermissionName>

/** What the checks need to know about the current user in the selected workspace. */
export interface PermissionSubject {
  readonly isOwner: boolean
  readonly permissions: ReadonlyArray<string>
  readonly roles: ReadonlyArray<string>
}

const held = (subject: PermissionSubject, p: string): boolean => {
  if (subject.isOwner) return true
  const wanted = normalizePermission(p)
  if (wanted === undefined) return false
  return subject.permissions.some((q) => normalizePermission(q) === wanted)
}

export const hasPermission = (subject: PermissionSubject, permission: string): boolean => held(subject, permission)
export const hasAll = (subject: PermissionSubject, permissions: ReadonlyArray<string>): boolean =>
  permissions.every((p) => held(subject, p))
/** True when any one is held; an empty list holds nothing (a guard with no permission listed never opens). */
export const hasAny = (subject: PermissionSubject, permissions: ReadonlyArray<string>): boolean =>
  permissions.some((p) => held(subject, p))
/** Role names compare case-insensitively; the owner holds the pseudo-role "Owner". */
export const hasRole = (subject: PermissionSubject, role: string): boolean => {
  const r = role.trim().toLowerCase()
  return (subject.isOwner && r === "owner") || subject.roles.some((x) => x.trim().toLowerCase() === r)
}

/** Access §6: permissions are the union over built-in and custom roles. */
export const unionPermissions = (
  roles: ReadonlyArray<{ readonly permissions: ReadonlyArray<{ readonly name: string }> }>,
): ReadonlyArray<PermissionName> => {
  const out = new Set<PermissionName>()
  for (const role of roles) for (const p of role.permissions) {
    const n = normalizePermission(p.name)
    if (n !== undefined) out.add(n)
  }
  return PERMISSIONS.filter((p) => out.has(p))
}

/** Stable ids of the 12 permissions (1-based, in the order above). */
export const PERMISSION_IDS: { readonly [K in PermissionName]: number } = Object.fromEntries(
  PERMISSIONS.map((p, i) => [p, i + 1]),
) as { readonly [K in PermissionName]: number }

export interface BuiltInRole {
  readonly id: number
  readonly name: string
  readonly description: string
  readonly permissions: ReadonlyArray<PermissionName>
}

/** Built-in roles with fixed ids (custom roles get ids above 100). See docs/permissions.md. */
export const BUILT_IN_ROLES = [
  { id: 1, name: "Admin", description: "Everything in the workspace.", permissions: PERMISSIONS },
  {
    id: 2,
    name: "Security Engineer",
    description: "Connects accounts, runs scans and remediates findings.",
    permissions: ["create_account", "scan_service", "remediate_findings", "read_only"],
  },
  { id: 3, name: "Auditor", description: "Reads accounts, scans and findings.", permissions: ["read_only"] },
  {
    id: 4,
    name: "Member Manager",
    description: "Manages members, invitations and custom roles; reads everything.",
    permissions: [...USER_MANAGEMENT_PERMISSIONS, "read_only"],
  },
] as const satisfies ReadonlyArray<BuiltInRole>

export const BuiltInRoleIds = { Admin: 1, SecurityEngineer: 2, Auditor: 3, MemberManager: 4 } as const
/** Custom role ids start above this. */
export const CUSTOM_ROLE_ID_FLOOR = 100

export const OWNER_LABEL = "Owner"
/** Access §6: Owner and Admin badges are emphasised. */
export const isEmphasisedRole = (name: string | null | undefined, isOwner: boolean): boolean =>
  isOwner || (name ?? "").trim().toLowerCase() === "admin" || (name ?? "").trim().toLowerCase() === "owner"

/**
 * Issue 30: what only workspace admins may see or change (storage and retention): the owner, or a member holding all
 * 12 permissions (the built-in Admin role, or custom roles that together grant them).
 */
export interface AllPermissionsRequired {
  readonly all: ReadonlyArray<string>
}
export const ADMIN_REQUIREMENT: AllPermissionsRequired = { all: PERMISSIONS }
export const isWorkspaceAdmin = (subject: PermissionSubject): boolean => hasAll(subject, ADMIN_REQUIREMENT.all)

/** A route's permission rule: any one of a list (the spec's routes), or every one of a list (admin pages). */
export type PermissionRequirement = ReadonlyArray<string> | AllPermissionsRequired

/** The subject meets the rule (an empty "any" list is never met, as `hasAny`). */
export const meetsRequirement = (subject: PermissionSubject, requirement: PermissionRequirement): boolean =>
  "all" in requirement ? hasAll(subject, requirement.all) : hasAny(subject, requirement)
