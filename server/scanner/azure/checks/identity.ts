/** Identity checks (CIS Azure v3 section 2 / v4 section 6): Entra user settings, custom owner roles, root-scope UAA. */
import { defineAzureCheck, subscriptionRow } from "../define-check.ts"
import { row } from "../../rest/engine.ts"
import type { AuthorizationPolicy } from "../collectors/identity.ts"

const RESTRICTED_GUEST_ROLE = "2af84b1e-32c8-42b7-82bc-daa82404023b"
const GUEST_ROLES: Readonly<Record<string, string>> = {
  "a0b1b346-4d3e-4e8b-98f8-753987be4970": "same access as members",
  "10dae51f-b6af-4016-8d66-8c2a99b929b3": "limited access (default)",
  [RESTRICTED_GUEST_ROLE]: "restricted to their own directory objects",
}
const USER_ACCESS_ADMIN = "18d7d88d-d35e-4fb5-a5c3-7773c20a72d9"

const tenantRow = (inv: { readonly tenantId: string }, ok: boolean, reason: string, fields: Record<string, string | boolean | null>) => row(`tenant:${inv.tenantId}`, "global", ok, reason, fields)

const userPermission = (
  id: string,
  cis: { v3: string; v4: string },
  title: string,
  description: string,
  flag: "allowedToCreateTenants" | "allowedToCreateApps",
  setting: string,
) =>
  defineAzureCheck({
    id,
    service: "entra",
    title,
    description,
    severity: "medium",
    cis,
    remediation: `Entra admin center → Identity → Users → User settings: set '${setting}' to ${flag === "allowedToCreateTenants" ? "Yes" : "No"} (Graph: PATCH /v1.0/policies/authorizationPolicy {"defaultUserRolePermissions":{"${flag}":false}}).`,
    field_labels: { [flag]: flag },
    uses: ["entra.authorization_policy"],
    reads: `graph /v1.0/policies/authorizationPolicy → defaultUserRolePermissions.${flag}`,
    evaluate: (inv) => {
      const p: AuthorizationPolicy | undefined = inv.entra.authorizationPolicy
      if (p === undefined) return []
      const v = p.defaultUserRolePermissions?.[flag]
      const ok = v === false
      return [tenantRow(inv, ok, ok ? `Default users cannot ${flag === "allowedToCreateApps" ? "register applications" : "create tenants"}.` : `Default users can ${flag === "allowedToCreateApps" ? "register applications" : "create tenants"}.`, { [flag]: v ?? null })]
    },
  })

export const entraChecks = [
  userPermission(
    "entra_non_admins_cannot_create_tenants",
    { v3: "2.3", v4: "6.4" },
    "Non-admin users should not be able to create tenants",
    "Checks 'Restrict non-admin users from creating tenants' (defaultUserRolePermissions.allowedToCreateTenants is false).",
    "allowedToCreateTenants",
    "Restrict non-admin users from creating tenants",
  ),
  userPermission(
    "entra_users_cannot_register_apps",
    { v3: "2.14", v4: "6.14" },
    "Users should not be able to register applications",
    "Checks 'Users can register applications' is No (defaultUserRolePermissions.allowedToCreateApps is false).",
    "allowedToCreateApps",
    "Users can register applications",
  ),
  defineAzureCheck({
    id: "entra_guest_access_restricted",
    service: "entra",
    title: "Guest user access should be restricted to their own directory objects",
    description: "Checks the guest user role is the most restrictive one (guestUserRoleId 2af84b1e-…).",
    severity: "medium",
    cis: { v3: "2.15", v4: "6.15" },
    remediation: "Entra admin center → External Identities → External collaboration settings: 'Guest users access is restricted to properties and memberships of their own directory objects'.",
    field_labels: { guest_access: "Guest access" },
    uses: ["entra.authorization_policy"],
    reads: "graph /v1.0/policies/authorizationPolicy → guestUserRoleId",
    evaluate: (inv) => {
      const p = inv.entra.authorizationPolicy
      if (p === undefined) return []
      const role = p.guestUserRoleId ?? ""
      const ok = role === RESTRICTED_GUEST_ROLE
      return [tenantRow(inv, ok, `Guest users have ${GUEST_ROLES[role] ?? `role ${role}`}.`, { guest_access: GUEST_ROLES[role] ?? role })]
    },
  }),
  defineAzureCheck({
    id: "entra_guest_invites_admins_only",
    service: "entra",
    title: "Guest invitations should be limited to admins",
    description: "Checks 'Guest invite restrictions' is 'Only users assigned to specific admin roles' or stricter (allowInvitesFrom).",
    severity: "medium",
    cis: { v3: "2.16", v4: "6.16" },
    remediation: "Entra admin center → External Identities → External collaboration settings: 'Only users assigned to specific admin roles can invite guest users'.",
    field_labels: { allow_invites_from: "Who can invite" },
    uses: ["entra.authorization_policy"],
    reads: "graph /v1.0/policies/authorizationPolicy → allowInvitesFrom",
    evaluate: (inv) => {
      const p = inv.entra.authorizationPolicy
      if (p === undefined) return []
      const v = p.allowInvitesFrom ?? "everyone"
      const ok = v === "adminsAndGuestInviters" || v === "none"
      return [tenantRow(inv, ok, ok ? `Only ${v === "none" ? "nobody" : "admins and guest inviters"} can invite guests.` : `Guests can be invited by ${v}.`, { allow_invites_from: v })]
    },
  }),
]

export const authorizationChecks = [
  defineAzureCheck({
    id: "iam_no_custom_subscription_owner_roles",
    service: "iam",
    title: "No custom subscription administrator roles should exist",
    description: "Flags custom roles that allow every action ('*') and are assignable at the subscription or management-group/root scope.",
    severity: "high",
    cis: { v3: "2.23", v4: "6.23" },
    remediation: "Delete the custom role, or replace '*' with the specific actions it needs (az role definition update / delete).",
    field_labels: { role_name: "Role name", assignable_scopes: "Assignable scopes" },
    uses: ["authorization.custom_roles"],
    reads: "ARM Microsoft.Authorization/roleDefinitions?$filter=type eq 'CustomRole' → properties.permissions[].actions ∋ '*', assignableScopes",
    evaluate: (inv) =>
      (inv.authorization.customRoles ?? [])
        .filter((r) => (r.properties?.type ?? "CustomRole") === "CustomRole")
        .map((r) => {
          const scopes = r.properties?.assignableScopes ?? []
          const broad = scopes.some((s) => s === "/" || /^\/subscriptions\/[^/]+\/?$/i.test(s) || /managementGroups/i.test(s))
          const star = (r.properties?.permissions ?? []).some((p) => (p.actions ?? []).includes("*"))
          const bad = broad && star
          return row(r.id, "global", !bad, bad ? `Custom role '${r.properties?.roleName ?? r.name}' grants every action at subscription scope.` : `Custom role '${r.properties?.roleName ?? r.name}' is not an owner-equivalent role.`, {
            role_name: r.properties?.roleName ?? r.name,
            assignable_scopes: [...scopes],
          })
        }),
  }),
  defineAzureCheck({
    id: "iam_user_access_admin_restricted",
    service: "iam",
    title: "'User Access Administrator' should not be assigned at the root scope",
    description: "Global administrators can elevate themselves to User Access Administrator at the root scope '/', which controls access to every subscription; the assignment should be removed after use.",
    severity: "high",
    cis: { v4: "6.3.3" },
    remediation: "Remove the elevated access: az role assignment delete --role 'User Access Administrator' --scope '/' --assignee PRINCIPAL (or the 'Access management for Azure resources' toggle in Entra properties).",
    field_labels: { principals: "Principals at root scope" },
    uses: ["authorization.root_assignments"],
    reads: "ARM /providers/Microsoft.Authorization/roleAssignments?$filter=atScope() → properties.scope '/', roleDefinitionId 18d7d88d-…",
    evaluate: (inv) => {
      const a = inv.authorization.rootAssignments
      if (a === undefined) return []
      const uaa = a.filter((x) => (x.properties?.scope ?? "") === "/" && (x.properties?.roleDefinitionId ?? "").toLowerCase().endsWith(USER_ACCESS_ADMIN))
      const principals = uaa.map((x) => x.properties?.principalId ?? x.name)
      return [subscriptionRow(inv, uaa.length === 0, uaa.length === 0 ? "No User Access Administrator assignment at the root scope." : `User Access Administrator is assigned at '/' to ${principals.join(", ")}.`, { principals })]
    },
  }),
]
