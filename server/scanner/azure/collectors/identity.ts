/**
 * Identity: the tenant's authorization policy (Microsoft Graph v1.0 /policies/authorizationPolicy), custom role
 * definitions of the subscription and role assignments at the root scope (Microsoft.Authorization 2022-04-01).
 */
import { Schema } from "effect"
import { armList, graphGet, type AzureCollectContext } from "../context.ts"

export const entraResourceTypes = ["entra.authorization_policy"] as const
export const authorizationResourceTypes = ["authorization.custom_roles", "authorization.root_assignments"] as const

const PolicyFields = {
  id: Schema.optionalKey(Schema.String),
  allowInvitesFrom: Schema.optionalKey(Schema.String),
  guestUserRoleId: Schema.optionalKey(Schema.String),
  defaultUserRolePermissions: Schema.optionalKey(
    Schema.Struct({
      allowedToCreateApps: Schema.optionalKey(Schema.Boolean),
      allowedToCreateSecurityGroups: Schema.optionalKey(Schema.Boolean),
      allowedToCreateTenants: Schema.optionalKey(Schema.NullOr(Schema.Boolean)),
      allowedToReadOtherUsers: Schema.optionalKey(Schema.Boolean),
    }),
  ),
}
export const AuthorizationPolicy = Schema.Struct(PolicyFields)
export type AuthorizationPolicy = typeof AuthorizationPolicy.Type
/** v1.0 answers the singleton; older tenants answer a collection with one element. */
const AuthorizationPolicyResponse = Schema.Struct({ ...PolicyFields, value: Schema.optionalKey(Schema.Array(AuthorizationPolicy)) })

export const RoleDefinition = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  properties: Schema.optionalKey(
    Schema.Struct({
      roleName: Schema.optionalKey(Schema.String),
      type: Schema.optionalKey(Schema.String),
      assignableScopes: Schema.optionalKey(Schema.Array(Schema.String)),
      permissions: Schema.optionalKey(Schema.Array(Schema.Struct({ actions: Schema.optionalKey(Schema.Array(Schema.String)), notActions: Schema.optionalKey(Schema.Array(Schema.String)) }))),
    }),
  ),
})
export type RoleDefinition = typeof RoleDefinition.Type

export const RoleAssignment = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  properties: Schema.optionalKey(Schema.Struct({ roleDefinitionId: Schema.optionalKey(Schema.String), principalId: Schema.optionalKey(Schema.String), principalType: Schema.optionalKey(Schema.String), scope: Schema.optionalKey(Schema.String) })),
})
export type RoleAssignment = typeof RoleAssignment.Type

export interface EntraInventory {
  readonly authorizationPolicy: AuthorizationPolicy | undefined
}

export interface AuthorizationInventory {
  readonly customRoles: ReadonlyArray<RoleDefinition> | undefined
  readonly rootAssignments: ReadonlyArray<RoleAssignment> | undefined
}

export async function collectEntra(ctx: AzureCollectContext): Promise<EntraInventory> {
  const r = await graphGet(ctx, { type: "entra.authorization_policy", region: "global", op: "graph.policies.authorizationPolicy.get" }, "/v1.0/policies/authorizationPolicy", AuthorizationPolicyResponse)
  if (r === undefined) return { authorizationPolicy: undefined }
  const { value, ...single } = r
  return { authorizationPolicy: value?.[0] ?? single }
}

export async function collectAuthorization(ctx: AzureCollectContext): Promise<AuthorizationInventory> {
  const [customRoles, rootAssignments] = await Promise.all([
    ctx.wants("authorization.custom_roles")
      ? armList(ctx, { type: "authorization.custom_roles", region: "global", op: "Microsoft.Authorization/roleDefinitions/read" }, `/subscriptions/${ctx.subscriptionId}/providers/Microsoft.Authorization/roleDefinitions?$filter=${encodeURIComponent("type eq 'CustomRole'")}`, "2022-04-01", RoleDefinition)
      : undefined,
    ctx.wants("authorization.root_assignments")
      ? armList(ctx, { type: "authorization.root_assignments", region: "global", op: "Microsoft.Authorization/roleAssignments/read" }, `/providers/Microsoft.Authorization/roleAssignments?$filter=${encodeURIComponent("atScope()")}`, "2022-04-01", RoleAssignment)
      : undefined,
  ])
  ctx.countResources((customRoles?.length ?? 0) + (rootAssignments?.length ?? 0))
  return { customRoles, rootAssignments }
}
