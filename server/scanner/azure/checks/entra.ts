/**
 * Microsoft Entra ID checks decided from Microsoft Graph (CIS Azure v3.0.0 section 2): security defaults, Conditional
 * Access (trusted locations, geographic and device-code-flow policies, MFA for admins, all users, risky sign-ins,
 * Azure management and admin portals, legacy authentication), user consent, group creation, device registration MFA
 * and the number of Global Administrators. A Conditional Access policy counts only when enforced (state "enabled";
 * report-only enforces nothing); exclusions (break-glass accounts) are allowed, as CIS recommends.
 */
import { row } from "../../rest/engine.ts"
import { defineAzureCheck } from "../define-check.ts"
import type { AzureInventoryWith } from "../inventory.ts"
import type { ConditionalAccessPolicy } from "../collectors/identity.ts"

/** Windows Azure Service Management API (Azure portal, CLI, PowerShell, ARM). */
export const AZURE_MANAGEMENT_APP = "797f4846-ba00-4fd7-ba43-dac1f8f63013"
/** Privileged directory role templates CIS names for the administrators' MFA policy. */
export const ADMIN_ROLES: Readonly<Record<string, string>> = {
  "62e90394-69f5-4237-9190-012177145e10": "Global Administrator",
  "e8611ab8-c189-46e8-94e1-60213ab1f814": "Privileged Role Administrator",
  "194ae4cb-b126-40b2-bd5b-6091b380977d": "Security Administrator",
  "f28a1f50-f6e7-4571-818b-6a12f2af6b6c": "SharePoint Administrator",
  "29232cdf-9323-42fd-ade2-1d097af3e4de": "Exchange Administrator",
  "fe930be7-5e62-47db-91af-98c3a49a38b1": "User Administrator",
  "b0f54661-2d74-4c50-afa3-1ec803f12efe": "Billing Administrator",
  "729827e3-9c14-49f7-bb1b-9608f156bbb8": "Helpdesk Administrator",
  "9b895d92-2cd3-44c7-9d02-a6ac2d5ea5c3": "Application Administrator",
  "158c047a-c907-4556-b7ef-446551a6b5f7": "Cloud Application Administrator",
  "b1be1c3e-b65d-4f19-8427-f6fa0d97feb9": "Conditional Access Administrator",
}

const tenantRow = (inv: { readonly tenantId: string }, ok: boolean, reason: string, fields: Record<string, string | boolean | number | null | string[]>) => row(`tenant:${inv.tenantId}`, "global", ok, reason, fields)
const has = (list: ReadonlyArray<string> | null | undefined, v: string) => (list ?? []).some((x) => x.toLowerCase() === v.toLowerCase())
const enforced = (p: ConditionalAccessPolicy) => p.state === "enabled"
const grants = (p: ConditionalAccessPolicy) => p.grantControls?.builtInControls ?? []
/** MFA is required: the "mfa" control or an authentication strength (alone, or with OR of controls that all are MFA). */
const requiresMfa = (p: ConditionalAccessPolicy) => (has(grants(p), "mfa") || (p.grantControls?.authenticationStrength ?? null) !== null) && ((p.grantControls?.operator ?? "OR").toUpperCase() === "AND" || grants(p).every((g) => g.toLowerCase() === "mfa"))
const blocks = (p: ConditionalAccessPolicy) => has(grants(p), "block")
const allUsers = (p: ConditionalAccessPolicy) => has(p.conditions?.users?.includeUsers, "All")
const appIncluded = (p: ConditionalAccessPolicy, app: string) => has(p.conditions?.applications?.includeApplications, "All") || has(p.conditions?.applications?.includeApplications, app)
const name = (p: ConditionalAccessPolicy) => p.displayName ?? p.id

interface CaSpec {
  readonly id: string
  /** CIS Azure v3.0.0 control; absent beyond the benchmark. */
  readonly v3?: string
  readonly title: string
  readonly description: string
  readonly severity: "high" | "medium" | "low"
  readonly remediation: string
  /** What a qualifying policy does (used in the reasons). */
  readonly what: string
  readonly qualifies: (p: ConditionalAccessPolicy) => boolean
}

/** A CIS "a Conditional Access policy exists that …" check: one tenant row naming the enforced policies that qualify. */
const caCheck = (s: CaSpec) =>
  defineAzureCheck({
    id: s.id,
    service: "entra",
    title: s.title,
    description: `${s.description} Only enforced policies count (report-only and disabled ones do not).`,
    severity: s.severity,
    cis: s.v3 === undefined ? {} : { v3: s.v3 },
    remediation: s.remediation,
    field_labels: { policies: "Qualifying policies", not_enforced: "Matching but not enforced" },
    uses: ["entra.conditional_access"],
    reads: "graph /v1.0/identity/conditionalAccess/policies → state, conditions (users, applications, clientAppTypes, signInRiskLevels, locations, authenticationFlows), grantControls",
    evaluate: (inv: AzureInventoryWith<"entra">) => {
      const list = inv.entra.conditionalAccessPolicies
      if (list === undefined) return []
      const matching = list.filter(s.qualifies)
      const on = matching.filter(enforced)
      const off = matching.filter((p) => !enforced(p))
      return [
        tenantRow(
          inv,
          on.length > 0,
          on.length > 0 ? `Enforced by ${on.map(name).join(", ")}.` : off.length > 0 ? `No enforced policy ${s.what}: ${off.map((p) => `${name(p)} is ${p.state ?? "disabled"}`).join(", ")}.` : `No Conditional Access policy ${s.what}.`,
          { policies: on.map(name), not_enforced: off.map(name) },
        ),
      ]
    },
  })

/** Microsoft Graph reads of one tenant setting. */
const settingCheck = (s: {
  readonly id: string
  readonly v3: string
  readonly title: string
  readonly description: string
  readonly severity: "high" | "medium" | "low"
  readonly remediation: string
  readonly uses: ReadonlyArray<"entra.authorization_policy" | "entra.security_defaults" | "entra.conditional_access" | "entra.named_locations" | "entra.device_registration" | "entra.group_settings" | "entra.global_admins">
  readonly reads: string
  readonly label: string
  readonly judge: (inv: AzureInventoryWith<"entra">) => { readonly ok: boolean; readonly value: string | boolean | number | null | string[]; readonly reason: string } | undefined
}) =>
  defineAzureCheck({
    id: s.id,
    service: "entra",
    title: s.title,
    description: s.description,
    severity: s.severity,
    cis: { v3: s.v3 },
    remediation: s.remediation,
    field_labels: { value: s.label },
    uses: s.uses,
    reads: s.reads,
    evaluate: (inv) => {
      const j = s.judge(inv)
      return j === undefined ? [] : [tenantRow(inv, j.ok, j.reason, { value: j.value })]
    },
  })

const ADMIN_ROLE_IDS = Object.keys(ADMIN_ROLES)

export const entraGraphChecks = [
  settingCheck({
    id: "entra_security_defaults_enabled",
    v3: "2.1.1",
    title: "Security defaults should be enabled (unless Conditional Access is used)",
    description: "Checks identitySecurityDefaultsEnforcementPolicy.isEnabled; a tenant enforcing Conditional Access policies cannot use security defaults and is not judged.",
    severity: "high",
    remediation: "Entra admin center → Identity → Overview → Properties → Manage security defaults: Enabled (or protect the tenant with Conditional Access policies).",
    uses: ["entra.security_defaults", "entra.conditional_access"],
    reads: "graph /v1.0/policies/identitySecurityDefaultsEnforcementPolicy → isEnabled; /identity/conditionalAccess/policies → state",
    label: "Security defaults",
    judge: (inv) => {
      const d = inv.entra.securityDefaults
      const ca = inv.entra.conditionalAccessPolicies
      if (d === undefined || ca === undefined) return undefined
      const on = d.isEnabled === true
      const policies = ca.filter(enforced).map(name)
      if (!on && policies.length > 0) return { ok: true, value: false, reason: `Not judged: Conditional Access is used instead (${policies.join(", ")}).` }
      return { ok: on, value: on, reason: on ? "Security defaults are enabled." : "Security defaults are off and no Conditional Access policy is enforced." }
    },
  }),
  settingCheck({
    id: "entra_trusted_locations_defined",
    v3: "2.2.1",
    title: "Trusted locations should be defined for Conditional Access",
    description: "Checks at least one IP-range named location is marked trusted.",
    severity: "low",
    remediation: "Entra admin center → Protection → Conditional Access → Named locations: add the organisation's egress ranges and mark them trusted.",
    uses: ["entra.named_locations"],
    reads: "graph /v1.0/identity/conditionalAccess/namedLocations → @odata.type ipNamedLocation, isTrusted, ipRanges",
    label: "Trusted locations",
    judge: (inv) => {
      const list = inv.entra.namedLocations
      if (list === undefined) return undefined
      const trusted = list.filter((l) => /ipNamedLocation$/i.test(l["@odata.type"] ?? "") && l.isTrusted === true && (l.ipRanges ?? []).length > 0).map((l) => l.displayName ?? l.id)
      return { ok: trusted.length > 0, value: trusted, reason: trusted.length > 0 ? `Trusted locations: ${trusted.join(", ")}.` : "No trusted IP location is defined." }
    },
  }),
  caCheck({
    id: "entra_ca_geographic_policy",
    v3: "2.2.2",
    title: "A Conditional Access policy should block access from unexpected locations",
    description: "Checks a policy blocks sign-ins by location (a locations condition with the Block grant).",
    severity: "medium",
    remediation: "Conditional Access → New policy: All users (exclude break-glass), All cloud apps, Locations: include Any location, exclude the allowed countries/trusted locations; Grant: Block access.",
    what: "blocking by location",
    qualifies: (p) => blocks(p) && ((p.conditions?.locations?.includeLocations ?? []).length > 0 || (p.conditions?.locations?.excludeLocations ?? []).length > 0),
  }),
  caCheck({
    id: "entra_ca_device_code_flow_blocked",
    v3: "2.2.3",
    title: "A Conditional Access policy should block the device code flow",
    description: "Checks a policy blocks authentication flows that include deviceCodeFlow (phishing-prone sign-in on another device).",
    severity: "medium",
    remediation: "Conditional Access → New policy: All users, All cloud apps, Conditions → Authentication flows: Device code flow; Grant: Block access.",
    what: "blocking the device code flow",
    qualifies: (p) => blocks(p) && (p.conditions?.authenticationFlows?.transferMethods ?? "").split(",").some((m) => m.trim().toLowerCase() === "devicecodeflow"),
  }),
  caCheck({
    id: "entra_ca_mfa_admins",
    v3: "2.2.4",
    title: "A Conditional Access policy should require MFA for administrative roles",
    description: "Checks a policy requires MFA of all users or of the privileged directory roles (Global Administrator at least), for all cloud apps.",
    severity: "high",
    remediation: "Conditional Access → New policy: Users → Directory roles: Global Administrator and the other privileged roles; All cloud apps; Grant: Require multifactor authentication.",
    what: "requiring MFA of administrators",
    qualifies: (p) => requiresMfa(p) && appIncluded(p, "All") && (allUsers(p) || has(p.conditions?.users?.includeRoles, "62e90394-69f5-4237-9190-012177145e10") || ADMIN_ROLE_IDS.filter((r) => has(p.conditions?.users?.includeRoles, r)).length >= 3),
  }),
  caCheck({
    id: "entra_ca_mfa_all_users",
    v3: "2.2.5",
    title: "A Conditional Access policy should require MFA for all users",
    description: "Checks a policy requires MFA of all users for all cloud apps.",
    severity: "high",
    remediation: "Conditional Access → New policy: All users (exclude break-glass accounts), All cloud apps; Grant: Require multifactor authentication.",
    what: "requiring MFA of all users",
    qualifies: (p) => requiresMfa(p) && allUsers(p) && appIncluded(p, "All"),
  }),
  caCheck({
    id: "entra_ca_mfa_risky_signins",
    v3: "2.2.6",
    title: "A Conditional Access policy should require MFA for risky sign-ins",
    description: "Checks a policy requires MFA of all users when the sign-in risk is medium or high.",
    severity: "high",
    remediation: "Conditional Access → New policy: All users, All cloud apps, Conditions → Sign-in risk: High and Medium; Grant: Require multifactor authentication (needs Entra ID P2).",
    what: "requiring MFA for medium and high sign-in risk",
    qualifies: (p) => requiresMfa(p) && allUsers(p) && appIncluded(p, "All") && has(p.conditions?.signInRiskLevels, "high") && has(p.conditions?.signInRiskLevels, "medium"),
  }),
  caCheck({
    id: "entra_ca_mfa_azure_management",
    v3: "2.2.7",
    title: "A Conditional Access policy should require MFA for Azure management",
    description: "Checks a policy requires MFA of all users for the Windows Azure Service Management API (portal, CLI, PowerShell) or all cloud apps.",
    severity: "high",
    remediation: `Conditional Access → New policy: All users, Cloud apps: Windows Azure Service Management API (${AZURE_MANAGEMENT_APP}); Grant: Require multifactor authentication.`,
    what: "requiring MFA for Azure management",
    qualifies: (p) => requiresMfa(p) && allUsers(p) && appIncluded(p, AZURE_MANAGEMENT_APP),
  }),
  caCheck({
    id: "entra_ca_mfa_admin_portals",
    v3: "2.2.8",
    title: "A Conditional Access policy should require MFA to access Microsoft admin portals",
    description: "Checks a policy requires MFA of all users for Microsoft Admin Portals (or all cloud apps).",
    severity: "high",
    remediation: "Conditional Access → New policy: All users, Cloud apps: Microsoft Admin Portals; Grant: Require multifactor authentication.",
    what: "requiring MFA for the admin portals",
    qualifies: (p) => requiresMfa(p) && allUsers(p) && appIncluded(p, "MicrosoftAdminPortals"),
  }),
  caCheck({
    id: "entra_ca_legacy_auth_blocked",
    title: "A Conditional Access policy should block legacy authentication",
    description: "Checks a policy blocks the legacy client app types (Exchange ActiveSync and other clients), which cannot do MFA (beyond the benchmark).",
    severity: "high",
    remediation: "Conditional Access → New policy: All users, All cloud apps, Conditions → Client apps: Exchange ActiveSync clients and Other clients; Grant: Block access.",
    what: "blocking legacy authentication",
    qualifies: (p) => blocks(p) && allUsers(p) && appIncluded(p, "All") && has(p.conditions?.clientAppTypes, "exchangeActiveSync") && has(p.conditions?.clientAppTypes, "other"),
  }),
  settingCheck({
    id: "entra_user_consent_disabled",
    v3: "2.12",
    title: "User consent for applications should be 'Do not allow user consent'",
    description: "Checks default users hold no ManagePermissionGrantsForSelf.* permission grant policy (which lets them consent to apps reading company data).",
    severity: "medium",
    remediation: "Entra admin center → Enterprise apps → Consent and permissions → User consent settings: Do not allow user consent (Graph: PATCH /v1.0/policies/authorizationPolicy {\"defaultUserRolePermissions\":{\"permissionGrantPoliciesAssigned\":[]}}).",
    uses: ["entra.authorization_policy"],
    reads: "graph /v1.0/policies/authorizationPolicy → defaultUserRolePermissions.permissionGrantPoliciesAssigned",
    label: "User consent policies",
    judge: (inv) => {
      const p = inv.entra.authorizationPolicy
      if (p === undefined) return undefined
      // Absent: the tenant default, users may consent (microsoft-user-default-legacy), as Graph documents.
      const assigned = p.defaultUserRolePermissions?.permissionGrantPoliciesAssigned ?? ["ManagePermissionGrantsForSelf.microsoft-user-default-legacy"]
      const consent = assigned.filter((x) => x.toLowerCase().startsWith("managepermissiongrantsforself."))
      return { ok: consent.length === 0, value: consent, reason: consent.length === 0 ? "Users cannot consent to applications." : `Users can consent to applications (${consent.map((c) => c.slice(c.indexOf(".") + 1)).join(", ")}).` }
    },
  }),
  settingCheck({
    id: "entra_users_cannot_create_security_groups",
    v3: "2.19",
    title: "Users should not be able to create security groups",
    description: "Checks 'Users can create security groups in Azure portals, API or PowerShell' is No (defaultUserRolePermissions.allowedToCreateSecurityGroups is false).",
    severity: "low",
    remediation: "Entra admin center → Groups → General: 'Users can create security groups in Azure portals, API or PowerShell' = No.",
    uses: ["entra.authorization_policy"],
    reads: "graph /v1.0/policies/authorizationPolicy → defaultUserRolePermissions.allowedToCreateSecurityGroups",
    label: "allowedToCreateSecurityGroups",
    judge: (inv) => {
      const p = inv.entra.authorizationPolicy
      if (p === undefined) return undefined
      // Absent: true (Graph default: users can create security groups).
      const v = p.defaultUserRolePermissions?.allowedToCreateSecurityGroups ?? true
      return { ok: v === false, value: v, reason: v === false ? "Users cannot create security groups." : "Users can create security groups." }
    },
  }),
  settingCheck({
    id: "entra_users_cannot_create_m365_groups",
    v3: "2.21",
    title: "Users should not be able to create Microsoft 365 groups",
    description: "Checks the Group.Unified directory setting has EnableGroupCreation false (no setting means the default, true).",
    severity: "low",
    remediation: "Entra admin center → Groups → General: 'Users can create Microsoft 365 groups in Azure portals, API or PowerShell' = No (Graph: a groupSettings object from the Group.Unified template with EnableGroupCreation=false).",
    uses: ["entra.group_settings"],
    reads: "graph /v1.0/groupSettings → [templateId 62375ab9-6b52-47ed-826b-58e47e0e304b | displayName Group.Unified].values[name=EnableGroupCreation]",
    label: "EnableGroupCreation",
    judge: (inv) => {
      const list = inv.entra.groupSettings
      if (list === undefined) return undefined
      const unified = list.find((s) => s.templateId === "62375ab9-6b52-47ed-826b-58e47e0e304b" || (s.displayName ?? "").toLowerCase() === "group.unified")
      const v = unified?.values?.find((x) => (x.name ?? "").toLowerCase() === "enablegroupcreation")?.value ?? "true"
      const ok = v.toLowerCase() === "false"
      return { ok, value: v, reason: ok ? "Users cannot create Microsoft 365 groups." : unified === undefined ? "No Group.Unified setting: users can create Microsoft 365 groups (default)." : "Users can create Microsoft 365 groups." }
    },
  }),
  settingCheck({
    id: "entra_device_join_requires_mfa",
    v3: "2.22",
    title: "Registering or joining devices should require multifactor authentication",
    description: "Checks the device registration policy's multiFactorAuthConfiguration is required, or an enforced Conditional Access policy requires MFA for the 'Register or join devices' user action (Microsoft's recommended way, which needs the device setting left at No).",
    severity: "medium",
    remediation: "Entra admin center → Devices → Device settings: 'Require Multifactor Authentication to register or join devices with Microsoft Entra' = Yes (or a Conditional Access policy on the user action 'Register or join devices' granting with MFA).",
    uses: ["entra.device_registration", "entra.conditional_access"],
    reads: "graph /v1.0/policies/deviceRegistrationPolicy → multiFactorAuthConfiguration; /identity/conditionalAccess/policies → applications.includeUserActions ∋ urn:user:registerdevice",
    label: "MFA to join devices",
    judge: (inv) => {
      const p = inv.entra.deviceRegistrationPolicy
      const ca = inv.entra.conditionalAccessPolicies
      if (p === undefined || ca === undefined) return undefined
      const v = p.multiFactorAuthConfiguration ?? "notRequired"
      const viaCa = ca.filter((x) => enforced(x) && requiresMfa(x) && allUsers(x) && has(x.conditions?.applications?.includeUserActions, "urn:user:registerdevice")).map(name)
      if (v !== "required" && viaCa.length > 0) return { ok: true, value: v, reason: `Conditional Access requires MFA to register or join devices (${viaCa.join(", ")}).` }
      return { ok: v === "required", value: v, reason: v === "required" ? "Joining or registering a device requires MFA." : "Devices can be joined or registered without MFA." }
    },
  }),
  settingCheck({
    id: "entra_global_admins_fewer_than_5",
    v3: "2.26",
    title: "Fewer than 5 users should hold the Global Administrator role",
    description: "Counts the members of the Global Administrator directory role (users, groups and service principals).",
    severity: "medium",
    remediation: "Entra admin center → Roles and administrators → Global Administrator: remove the assignments that a less privileged role can serve; keep at least two (break-glass).",
    uses: ["entra.global_admins"],
    reads: "graph /v1.0/directoryRoles(roleTemplateId='62e90394-69f5-4237-9190-012177145e10')/members",
    label: "Global Administrators",
    judge: (inv) => {
      const m = inv.entra.globalAdmins
      if (m === undefined) return undefined
      const names = m.map((x) => x.userPrincipalName ?? x.displayName ?? x.id)
      return { ok: m.length < 5, value: names, reason: `${m.length} Global Administrator${m.length === 1 ? "" : "s"}${m.length < 5 ? "." : ": more than 4."}` }
    },
  }),
]
