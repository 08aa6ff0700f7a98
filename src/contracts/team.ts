/**
 * Team area (access §2, §3, §5, §7): team members, add member directly, edit member, delete member,
 * member password-reset email, roles list, and (beyond the spec) custom roles CRUD.
 */
import { Schema } from "effect"
import { RoleId, UserId } from "./ids.ts"
import { NullableTimestamp, withData } from "./common.ts"
import { RoleWithPermissions } from "./workspaces.ts"
import { RoleAccountGroups } from "./account-groups.ts"
import { PERMISSIONS } from "./permissions.ts"
import { ValidationMessages as M } from "./messages.ts"
import { Email, FirstName, LastName, SignInPassword, formErrors, requiredString, type FieldErrors } from "./validation.ts"

/** Access §3 team member (list). */
export const TeamMember = Schema.Struct({
  id: UserId,
  email: Schema.String,
  first_name: Schema.String,
  last_name: Schema.String,
  is_owner: Schema.Boolean,
  role_name: Schema.NullOr(Schema.String),
  role_id: Schema.optionalKey(Schema.NullOr(RoleId)),
  is_custom_role: Schema.optionalKey(Schema.Boolean),
  last_login: NullableTimestamp,
})
export type TeamMember = typeof TeamMember.Type

export const TeamMembersResponse = withData(Schema.Array(TeamMember))
export type TeamMembersResponse = typeof TeamMembersResponse.Type

/** A role id chosen in a select: a positive integer, else 'Please select a role'. */
const roleIdWith = (message: string) =>
  Schema.Int.check(Schema.isGreaterThan(0, { message })).pipe(
    Schema.brand("RoleId"),
    Schema.annotateKey({ messageMissingKey: message }),
  )

/** Access §5 add user: names 1–50, email, password ≥ 8, role required ('Please select a role'). */
export const CreateUserPayload = Schema.Struct({
  first_name: FirstName,
  last_name: LastName,
  email: Email,
  password: SignInPassword,
  role_id: roleIdWith(M.selectRole),
  is_custom_role: Schema.Boolean,
})
export type CreateUserPayload = typeof CreateUserPayload.Type
export const validateAddUser = (input: unknown): FieldErrors => formErrors(CreateUserPayload, input)

export const CreateUserResponse = Schema.Struct({ ok: Schema.Boolean, message: Schema.String, data: TeamMember })
export type CreateUserResponse = typeof CreateUserResponse.Type

/** DELETE /api/admin/users?user_to_delete=… */
export const DeleteUserQuery = Schema.Struct({ user_to_delete: UserId })
export type DeleteUserQuery = typeof DeleteUserQuery.Type

/** Access §3 update payload: user_id, first_name, last_name, role_id, is_custom_role (false). */
export const UpdateTeamMemberPayload = Schema.Struct({
  user_id: UserId,
  first_name: FirstName,
  last_name: LastName,
  role_id: Schema.optionalKey(Schema.NullOr(roleIdWith(M.selectValidRole))),
  is_custom_role: Schema.Boolean,
})
export type UpdateTeamMemberPayload = typeof UpdateTeamMemberPayload.Type

/**
 * Team edit form (access §2, §5): a role must be chosen ('Please select a valid role') unless the row is the
 * owner (the role select is hidden for the owner).
 */
export const validateTeamEdit = (input: unknown, options: { readonly isOwnerRow: boolean }): FieldErrors => {
  const errors = { ...formErrors(UpdateTeamMemberPayload, input) }
  const roleId = typeof input === "object" && input !== null ? (input as Record<string, unknown>)["role_id"] : undefined
  if (options.isOwnerRow) delete errors["role_id"]
  else if (!("role_id" in errors) && (roleId === undefined || roleId === null)) errors["role_id"] = M.selectValidRole
  return errors
}

export const UpdateTeamMemberResponse = Schema.Struct({
  ok: Schema.Boolean,
  message: Schema.String,
  data: Schema.optionalKey(TeamMember),
})
export type UpdateTeamMemberResponse = typeof UpdateTeamMemberResponse.Type

/** Member password reset email (path chosen: POST /api/admin/users/reset-password). */
export const MemberPasswordResetPayload = Schema.Struct({ email: Email })
export type MemberPasswordResetPayload = typeof MemberPasswordResetPayload.Type

/** Roles: data.roles and data.custom_roles. */
export const RolesResponse = withData(
  Schema.Struct({ roles: Schema.Array(RoleWithPermissions), custom_roles: Schema.Array(RoleWithPermissions) }),
)
export type RolesResponse = typeof RolesResponse.Type

/** One of the permission names (access §6), as a schema. */
export const PermissionName = Schema.Literals(PERMISSIONS)

// ---------------------------------------------------------------------------------------------------
// Custom roles (beyond the spec; guarded by create/update/delete_custom_role).

export const CustomRolePayload = Schema.Struct({
  name: requiredString(M.customRoleNameRequired).check(Schema.isMaxLength(50)),
  description: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(200))),
  permissions: Schema.Array(PermissionName).check(Schema.isMinLength(1, { message: M.customRolePermissionsRequired })),
  /** Beyond the spec (issue 31): the account groups the role is limited to (src/contracts/account-groups.ts). */
  account_group_ids: Schema.optionalKey(RoleAccountGroups),
})
export type CustomRolePayload = typeof CustomRolePayload.Type
export const validateCustomRole = (input: unknown): FieldErrors => formErrors(CustomRolePayload, input)

export const CustomRoleResponse = Schema.Struct({ ok: Schema.Boolean, message: Schema.String, data: RoleWithPermissions })
export type CustomRoleResponse = typeof CustomRoleResponse.Type


/** Access §2 team table: "full name or else email". */
export const displayName = (m: { readonly first_name: string; readonly last_name: string; readonly email: string }): string => {
  const full = `${m.first_name} ${m.last_name}`.trim()
  return full === "" ? m.email : full
}
