/**
 * Identity: the tenant's Microsoft Graph v1.0 settings — authorization policy, security defaults, Conditional Access
 * policies and named locations, device registration policy, directory (group) settings and the Global Administrator
 * role's members — custom role definitions of the subscription and role assignments at the root scope
 * (Microsoft.Authorization 2022-04-01). Graph needs Policy.Read.All (policies) and Directory.Read.All (group settings,
 * directory roles); a missing permission makes only the checks reading that input "not evaluated".
 */
import { Schema } from "effect"
import { armList, graphGet, graphList, graphOptional, type AzureCollectContext } from "../context.ts"

export const entraResourceTypes = [
  "entra.authorization_policy",
  "entra.security_defaults",
  "entra.conditional_access",
  "entra.named_locations",
  "entra.device_registration",
  "entra.group_settings",
  "entra.global_admins",
] as const

/** The Global Administrator role template (its id is the same in every tenant). */
export const GLOBAL_ADMIN_TEMPLATE = "62e90394-69f5-4237-9190-012177145e10"
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
      /** Permission grant policies users hold: "ManagePermissionGrantsForSelf.*" lets them consent to apps. */
      permissionGrantPoliciesAssigned: Schema.optionalKey(Schema.NullOr(Schema.Array(Schema.String))),
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

/** identitySecurityDefaultsEnforcementPolicy. */
export const SecurityDefaults = Schema.Struct({ id: Schema.optionalKey(Schema.String), isEnabled: Schema.optionalKey(Schema.Boolean) })
export type SecurityDefaults = typeof SecurityDefaults.Type

const Strings = Schema.optionalKey(Schema.NullOr(Schema.Array(Schema.String)))

/** A Conditional Access policy (the conditions and grant controls the CIS checks read). */
export const ConditionalAccessPolicy = Schema.Struct({
  id: Schema.String,
  displayName: Schema.optionalKey(Schema.NullOr(Schema.String)),
  /** enabled | disabled | enabledForReportingButNotEnforced (report-only enforces nothing). */
  state: Schema.optionalKey(Schema.String),
  conditions: Schema.optionalKey(
    Schema.NullOr(
      Schema.Struct({
        users: Schema.optionalKey(Schema.NullOr(Schema.Struct({ includeUsers: Strings, excludeUsers: Strings, includeGroups: Strings, excludeGroups: Strings, includeRoles: Strings, excludeRoles: Strings }))),
        /** includeUserActions: "urn:user:registerdevice" (register or join devices), "urn:user:registersecurityinfo". */
        applications: Schema.optionalKey(Schema.NullOr(Schema.Struct({ includeApplications: Strings, excludeApplications: Strings, includeUserActions: Strings }))),
        clientAppTypes: Strings,
        signInRiskLevels: Strings,
        userRiskLevels: Strings,
        locations: Schema.optionalKey(Schema.NullOr(Schema.Struct({ includeLocations: Strings, excludeLocations: Strings }))),
        /** transferMethods: a comma-separated flags value ("deviceCodeFlow,authenticationTransfer"). */
        authenticationFlows: Schema.optionalKey(Schema.NullOr(Schema.Struct({ transferMethods: Schema.optionalKey(Schema.NullOr(Schema.String)) }))),
      }),
    ),
  ),
  grantControls: Schema.optionalKey(
    Schema.NullOr(Schema.Struct({ operator: Schema.optionalKey(Schema.NullOr(Schema.String)), builtInControls: Strings, authenticationStrength: Schema.optionalKey(Schema.NullOr(Schema.Struct({ id: Schema.optionalKey(Schema.String) }))) })),
  ),
})
export type ConditionalAccessPolicy = typeof ConditionalAccessPolicy.Type

/** A named location: IP ranges (isTrusted) or countries (@odata.type tells which). */
export const NamedLocation = Schema.Struct({
  "@odata.type": Schema.optionalKey(Schema.String),
  id: Schema.String,
  displayName: Schema.optionalKey(Schema.NullOr(Schema.String)),
  isTrusted: Schema.optionalKey(Schema.Boolean),
  ipRanges: Schema.optionalKey(Schema.Array(Schema.Struct({ cidrAddress: Schema.optionalKey(Schema.String) }))),
})
export type NamedLocation = typeof NamedLocation.Type

export const DeviceRegistrationPolicy = Schema.Struct({ id: Schema.optionalKey(Schema.String), multiFactorAuthConfiguration: Schema.optionalKey(Schema.String) })
export type DeviceRegistrationPolicy = typeof DeviceRegistrationPolicy.Type

/** A directory setting (groupSettings): name/value pairs of a template ("Group.Unified" for Microsoft 365 groups). */
export const GroupSetting = Schema.Struct({
  id: Schema.String,
  displayName: Schema.optionalKey(Schema.NullOr(Schema.String)),
  templateId: Schema.optionalKey(Schema.NullOr(Schema.String)),
  values: Schema.optionalKey(Schema.Array(Schema.Struct({ name: Schema.optionalKey(Schema.NullOr(Schema.String)), value: Schema.optionalKey(Schema.NullOr(Schema.String)) }))),
})
export type GroupSetting = typeof GroupSetting.Type

/** A member of a directory role: a user, group or service principal (@odata.type). */
export const DirectoryMember = Schema.Struct({
  "@odata.type": Schema.optionalKey(Schema.String),
  id: Schema.String,
  displayName: Schema.optionalKey(Schema.NullOr(Schema.String)),
  userPrincipalName: Schema.optionalKey(Schema.NullOr(Schema.String)),
})
export type DirectoryMember = typeof DirectoryMember.Type

export interface EntraInventory {
  readonly authorizationPolicy: AuthorizationPolicy | undefined
  readonly securityDefaults: SecurityDefaults | undefined
  readonly conditionalAccessPolicies: ReadonlyArray<ConditionalAccessPolicy> | undefined
  readonly namedLocations: ReadonlyArray<NamedLocation> | undefined
  readonly deviceRegistrationPolicy: DeviceRegistrationPolicy | undefined
  readonly groupSettings: ReadonlyArray<GroupSetting> | undefined
  /** Members of the Global Administrator role; [] when the role was never activated in the tenant. */
  readonly globalAdmins: ReadonlyArray<DirectoryMember> | undefined
}

export interface AuthorizationInventory {
  readonly customRoles: ReadonlyArray<RoleDefinition> | undefined
  readonly rootAssignments: ReadonlyArray<RoleAssignment> | undefined
}

export async function collectEntra(ctx: AzureCollectContext): Promise<EntraInventory> {
  const when = <A>(type: string, f: () => Promise<A | undefined>) => (ctx.wants(type) ? f() : Promise.resolve(undefined))
  const spec = (type: string, op: string) => ({ type, region: "global", op })
  const [policy, securityDefaults, conditionalAccessPolicies, namedLocations, deviceRegistrationPolicy, groupSettings, admins] = await Promise.all([
    when("entra.authorization_policy", () => graphGet(ctx, spec("entra.authorization_policy", "graph.policies.authorizationPolicy.get"), "/v1.0/policies/authorizationPolicy", AuthorizationPolicyResponse)),
    when("entra.security_defaults", () => graphGet(ctx, spec("entra.security_defaults", "graph.policies.identitySecurityDefaultsEnforcementPolicy.get"), "/v1.0/policies/identitySecurityDefaultsEnforcementPolicy", SecurityDefaults)),
    when("entra.conditional_access", () => graphList(ctx, spec("entra.conditional_access", "graph.identity.conditionalAccess.policies.list"), "/v1.0/identity/conditionalAccess/policies", ConditionalAccessPolicy)),
    when("entra.named_locations", () => graphList(ctx, spec("entra.named_locations", "graph.identity.conditionalAccess.namedLocations.list"), "/v1.0/identity/conditionalAccess/namedLocations", NamedLocation)),
    when("entra.device_registration", () => graphGet(ctx, spec("entra.device_registration", "graph.policies.deviceRegistrationPolicy.get"), "/v1.0/policies/deviceRegistrationPolicy", DeviceRegistrationPolicy)),
    when("entra.group_settings", () => graphList(ctx, spec("entra.group_settings", "graph.groupSettings.list"), "/v1.0/groupSettings", GroupSetting)),
    // A role that was never activated has no directoryRole object: 404, i.e. no members.
    when("entra.global_admins", () => graphOptional(ctx, spec("entra.global_admins", "graph.directoryRoles.members.list"), `/v1.0/directoryRoles(roleTemplateId='${GLOBAL_ADMIN_TEMPLATE}')/members`, DirectoryMember)),
  ])
  const authorizationPolicy = policy === undefined ? undefined : (() => {
    const { value, ...single } = policy
    return value?.[0] ?? single
  })()
  ctx.countResources((conditionalAccessPolicies?.length ?? 0) + (namedLocations?.length ?? 0) + (groupSettings?.length ?? 0))
  return { authorizationPolicy, securityDefaults, conditionalAccessPolicies, namedLocations, deviceRegistrationPolicy, groupSettings, globalAdmins: admins === null ? [] : admins }
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
