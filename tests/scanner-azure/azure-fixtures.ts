/**
 * Two tenants with one subscription each, in the ARM/Graph wire format (shaped like the azure-rest-api-specs
 * examples): "hardened" passes every check; "insecure" fails every check, with compliant "ok…" resources next to
 * the failing "bad…" ones wherever a check is per resource.
 */
import type { AzureSubscription, AzureTenant, Json } from "./azure-world.ts"
import { put } from "./azure-world.ts"

export const NOW = new Date("2026-06-01T00:00:00Z")
const epoch = (days: number) => Math.floor(NOW.getTime() / 1000) + days * 86_400

export const HARDENED = { tenantId: "aaaaaaaa-0000-4000-8000-000000000001", subscriptionId: "11111111-1111-4111-8111-111111111111", clientId: "c1c1c1c1-0000-4000-8000-000000000001", secret: "hardened~secret.value" }
export const INSECURE = { tenantId: "bbbbbbbb-0000-4000-8000-000000000002", subscriptionId: "22222222-2222-4222-8222-222222222222", clientId: "c2c2c2c2-0000-4000-8000-000000000002", secret: "insecure~secret.value" }

export const RESTRICTED_GUEST = "2af84b1e-32c8-42b7-82bc-daa82404023b"
export const OPERATIONS = [
  "Microsoft.Authorization/policyAssignments/write",
  "Microsoft.Authorization/policyAssignments/delete",
  "Microsoft.Network/networkSecurityGroups/write",
  "Microsoft.Network/networkSecurityGroups/delete",
  "Microsoft.Security/securitySolutions/write",
  "Microsoft.Security/securitySolutions/delete",
  "Microsoft.Sql/servers/firewallRules/write",
  "Microsoft.Sql/servers/firewallRules/delete",
  "Microsoft.Network/publicIPAddresses/write",
  "Microsoft.Network/publicIPAddresses/delete",
  ...["KeyVault/vaults", "Storage/storageAccounts", "Compute/virtualMachines", "Network/loadBalancers", "Network/virtualNetworks", "Network/networkSecurityGroups/securityRules", "Sql/servers", "Sql/servers/databases", "DBforMySQL/flexibleServers", "DBforPostgreSQL/flexibleServers", "Authorization/roleAssignments"].flatMap((t) => [`Microsoft.${t}/write`, `Microsoft.${t}/delete`]),
  "Microsoft.Sql/servers/virtualNetworkRules/write",
  "Microsoft.Compute/virtualMachines/deallocate/action",
  "Microsoft.Compute/virtualMachines/powerOff/action",
  "Microsoft.Security/policies/write",
  "Microsoft.Insights/diagnosticSettings/delete",
]
const PLANS = ["VirtualMachines", "Containers", "StorageAccounts", "AppServices", "CosmosDbs", "OpenSourceRelationalDatabases", "SqlServers", "SqlServerVirtualMachines", "KeyVaults", "Arm", "Dns", "CloudPosture", "Api", "AI"]

export const armId = (sub: string, rg: string, type: string, name: string) => `/subscriptions/${sub}/resourceGroups/${rg}/providers/${type}/${name}`

const resource = (sub: AzureSubscription, rg: string, type: string, name: string, location: string, properties: Json, extra: Json = {}): Json =>
  put(sub, { id: armId(sub.subscriptionId, rg, type, name), name, type, location, tags: {}, ...extra, properties })

const child = (sub: AzureSubscription, parentId: string, path: string, properties: Json, extra: Json = {}): Json =>
  put(sub, { id: `${parentId}/${path}`, name: path.slice(path.lastIndexOf("/") + 1), ...extra, properties })

const subLevel = (sub: AzureSubscription, path: string, properties: Json, extra: Json = {}): Json =>
  put(sub, { id: `/subscriptions/${sub.subscriptionId}/providers/${path}`, name: path.slice(path.lastIndexOf("/") + 1), ...extra, properties })

const pe = (id: string) => [{ id: `${id}/privateEndpointConnections/pe1`, properties: { privateEndpoint: { id: "/subscriptions/x/resourceGroups/net/providers/Microsoft.Network/privateEndpoints/pe1" }, privateLinkServiceConnectionState: { status: "Approved", description: "Auto-approved" }, provisioningState: "Succeeded" } }]

/** A diagnostic setting of a storage data service ("blob" | "queue" | "table"), as Azure Monitor returns it. */
export const storageDiagnostics = (sub: AzureSubscription, accountId: string, service: string, name: string, logs: ReadonlyArray<Json>): Json =>
  child(sub, accountId, `${service}Services/default/providers/Microsoft.Insights/diagnosticSettings/${name}`, {
    storageAccountId: null,
    workspaceId: "/subscriptions/x/resourceGroups/logs/providers/Microsoft.OperationalInsights/workspaces/central",
    eventHubAuthorizationRuleId: null,
    logs: logs.map((l) => ({ category: null, categoryGroup: null, retentionPolicy: { enabled: false, days: 0 }, ...l })),
    metrics: [{ category: "Transaction", enabled: false, retentionPolicy: { enabled: false, days: 0 } }],
    logAnalyticsDestinationType: null,
  }, { type: "Microsoft.Insights/diagnosticSettings" })

/** A diagnostic setting of an App Service site, as Azure Monitor returns it. */
export const appDiagnostics = (sub: AzureSubscription, siteId: string, name: string, logs: ReadonlyArray<Json>): Json =>
  child(sub, siteId, `providers/Microsoft.Insights/diagnosticSettings/${name}`, {
    storageAccountId: null,
    workspaceId: "/subscriptions/x/resourceGroups/logs/providers/Microsoft.OperationalInsights/workspaces/central",
    eventHubAuthorizationRuleId: null,
    logs: logs.map((l) => ({ category: null, categoryGroup: null, retentionPolicy: { enabled: false, days: 0 }, ...l })),
    metrics: [{ category: "AllMetrics", enabled: false, retentionPolicy: { enabled: false, days: 0 } }],
    logAnalyticsDestinationType: null,
  }, { type: "Microsoft.Insights/diagnosticSettings" })

/** The custom parameters every Databricks workspace reports (shaped like WorkspaceGet / the 2024-05-01 examples). */
const databricksParameters = (noPublicIp: boolean): Json => ({
  enableNoPublicIp: { type: "Bool", value: noPublicIp },
  prepareEncryption: { type: "Bool", value: false },
  requireInfrastructureEncryption: { type: "Bool", value: false },
  storageAccountName: { type: "String", value: `dbstorage${noPublicIp ? "a1" : "b2"}` },
  storageAccountSkuName: { type: "String", value: "Standard_GRS" },
  vnetAddressPrefix: { type: "String", value: "10.139" },
  resourceTags: { type: "Object", value: { application: "databricks", "databricks-environment": "true" } },
})

/** An Azure Databricks workspace (Microsoft.Databricks/workspaces 2024-05-01). */
/** An AKS cluster in resource group "k8s". */
const aksCluster = (sub: AzureSubscription, name: string, properties: Json): Json => resource(sub, "k8s", "Microsoft.ContainerService/managedClusters", name, "eastus", { provisioningState: "Succeeded", ...properties })

/** A hardened AKS cluster's properties (API server access given per cluster). */
const hardenedAks = (overrides: Json): Json => ({
  kubernetesVersion: "1.30.4",
  enableRBAC: true,
  disableLocalAccounts: true,
  aadProfile: { managed: true, enableAzureRBAC: true },
  networkProfile: { networkPlugin: "azure", networkPolicy: "azure" },
  autoUpgradeProfile: { upgradeChannel: "stable" },
  securityProfile: { defender: { securityMonitoring: { enabled: true } } },
  addonProfiles: { omsagent: { enabled: true } },
  ...overrides,
})

const databricksWorkspace = (sub: AzureSubscription, rg: string, name: string, location: string, sku: string, properties: Json): Json =>
  resource(sub, rg, "Microsoft.Databricks/workspaces", name, location, {
    managedResourceGroupId: `/subscriptions/${sub.subscriptionId}/resourceGroups/databricks-rg-${name}`,
    provisioningState: "Succeeded",
    workspaceId: String(1_000_000_000_000 + name.length),
    workspaceUrl: `adb-${1_000_000_000_000 + name.length}.7.azuredatabricks.net`,
    createdDateTime: "2026-01-15T10:00:00.000Z",
    publicNetworkAccess: "Enabled",
    requiredNsgRules: "AllRules",
    authorizations: [{ principalId: "9a74af6f-d153-4348-988a-e2672920bee9", roleDefinitionId: "8e3af657-a8ff-443c-a75c-2fe8c4bcb635" }],
    ...properties,
  }, { sku: { name: sku } })

const ALL_STORAGE_LOGS = [{ category: "StorageRead", enabled: true }, { category: "StorageWrite", enabled: true }, { category: "StorageDelete", enabled: true }]

/** A Defender for Cloud assessment of one resource (shaped like ListAssessments_example.json, 2020-01-01). */
export const assessment = (sub: AzureSubscription, resourceId: string, key: string, displayName: string, status: Json): Json =>
  put(sub, { id: `${resourceId}/providers/Microsoft.Security/assessments/${key}`, name: key, type: "Microsoft.Security/assessments", properties: { resourceDetails: { source: "Azure", id: resourceId }, displayName, status } })

export const SYSTEM_UPDATES = "4ab6e3c5-74dd-8b35-9ab9-f61b30875b27"
export const SYSTEM_UPDATES_AUM = "e1145ab1-eb4f-43d8-911b-36ddf771d13f"
export const PERIODIC_UPDATE_CHECK = "90386950-71ca-4357-a12e-486d1679427c"
export const ENDPOINT_PROTECTION = "21300918-b2e3-0346-785f-c77ff57d243b"

export function emptySubscription(ids: { readonly tenantId: string; readonly subscriptionId: string }, displayName: string): AzureSubscription {
  return { subscriptionId: ids.subscriptionId, tenantId: ids.tenantId, displayName, resources: new Map(), unregistered: new Set() }
}

function goodStorageAccount(sub: AzureSubscription, rg: string, name: string, kind: string, extra: Json = {}): Json {
  const a = resource(sub, rg, "Microsoft.Storage/storageAccounts", name, "eastus", {
    supportsHttpsTrafficOnly: true,
    minimumTlsVersion: "TLS1_2",
    allowBlobPublicAccess: false,
    allowCrossTenantReplication: false,
    allowSharedKeyAccess: false,
    defaultToOAuthAuthentication: true,
    publicNetworkAccess: "Disabled",
    networkAcls: { bypass: "AzureServices, Logging, Metrics", defaultAction: "Deny", ipRules: [], virtualNetworkRules: [] },
    encryption: { keySource: "Microsoft.Keyvault", requireInfrastructureEncryption: true, services: { blob: { enabled: true, keyType: "Account" } }, keyvaultproperties: { keyname: "storage-cmk", keyvaulturi: "https://ok-kv.vault.azure.net/" } },
    privateEndpointConnections: [],
    provisioningState: "Succeeded",
    ...extra,
  }, { kind, sku: { name: "Standard_GZRS", tier: "Standard" } })
  ;(a["properties"] as Json)["privateEndpointConnections"] = pe(String(a["id"]))
  child(sub, String(a["id"]), "blobServices/default", { deleteRetentionPolicy: { enabled: true, days: 14 }, containerDeleteRetentionPolicy: { enabled: true, days: 7 }, isVersioningEnabled: true }, { type: "Microsoft.Storage/storageAccounts/blobServices" })
  storageDiagnostics(sub, String(a["id"]), "blob", "blob-logs", ALL_STORAGE_LOGS)
  if (kind === "StorageV2" || kind === "Storage") {
    storageDiagnostics(sub, String(a["id"]), "queue", "queue-all-logs", [{ categoryGroup: "allLogs", enabled: true }, { categoryGroup: "audit", enabled: false }])
    storageDiagnostics(sub, String(a["id"]), "table", "table-logs", ALL_STORAGE_LOGS)
  }
  if (kind !== "BlockBlobStorage") {
    child(sub, String(a["id"]), "fileServices/default", { shareDeleteRetentionPolicy: { enabled: true, days: 14 }, protocolSettings: { smb: { versions: "SMB3.1.1", channelEncryption: "AES-256-GCM", authenticationMethods: "Kerberos" } } }, { type: "Microsoft.Storage/storageAccounts/fileServices" })
  }
  return a
}

const flexibleConfig = (sub: AzureSubscription, serverId: string, values: Record<string, string>) => {
  for (const [name, value] of Object.entries(values)) child(sub, serverId, `configurations/${name}`, { value, defaultValue: "", dataType: "String", source: "user-override" })
}

const BREAK_GLASS = "0f0f0f0f-0000-4000-8000-0000000000bb"
const GLOBAL_ADMIN = "62e90394-69f5-4237-9190-012177145e10"
const caPolicy = (id: string, displayName: string, state: string, conditions: Json, grantControls: Json | null): Json => ({
  id,
  displayName,
  state,
  createdDateTime: "2025-01-10T09:00:00Z",
  modifiedDateTime: null,
  conditions: { userRiskLevels: [], signInRiskLevels: [], clientAppTypes: ["all"], platforms: null, locations: null, devices: null, ...conditions, users: { includeUsers: ["All"], excludeUsers: [BREAK_GLASS], includeGroups: [], excludeGroups: [], includeRoles: [], excludeRoles: [], ...(conditions["users"] as Json | undefined) }, applications: { includeApplications: ["All"], excludeApplications: [], includeUserActions: [], ...(conditions["applications"] as Json | undefined) } },
  grantControls,
  sessionControls: null,
})
const mfa = { operator: "OR", builtInControls: ["mfa"], customAuthenticationFactors: [], termsOfUse: [] }
const block = { operator: "OR", builtInControls: ["block"], customAuthenticationFactors: [], termsOfUse: [] }
const admin = (i: number): Json => ({ "@odata.type": "#microsoft.graph.user", id: `a0a0a0a0-0000-4000-8000-00000000000${i}`, displayName: `Admin ${i}`, userPrincipalName: `admin${i}@contoso.example` })

/** Entra settings of the hardened tenant as Graph v1.0 answers them (Conditional Access in use, so security defaults off). */
function hardenedGraph(): Record<string, Json | Json[]> {
  return {
    "policies/identitySecurityDefaultsEnforcementPolicy": { id: "00000000-0000-0000-0000-000000000005", displayName: "Security Defaults", isEnabled: false },
    "identity/conditionalAccess/policies": [
      caPolicy("ca-01", "Require MFA for all users", "enabled", {}, mfa),
      // Administrators: an authentication strength (phishing-resistant MFA) rather than the mfa control.
      caPolicy("ca-02", "Require phishing-resistant MFA for admins", "enabled", { users: { includeUsers: [], includeRoles: [GLOBAL_ADMIN, "e8611ab8-c189-46e8-94e1-60213ab1f814"] } }, { operator: "OR", builtInControls: [], authenticationStrength: { id: "00000000-0000-0000-0000-000000000004", displayName: "Phishing-resistant MFA" } }),
      caPolicy("ca-03", "MFA for risky sign-ins", "enabled", { signInRiskLevels: ["high", "medium"] }, mfa),
      caPolicy("ca-04", "Block legacy authentication", "enabled", { clientAppTypes: ["exchangeActiveSync", "other"] }, block),
      caPolicy("ca-05", "Block sign-ins from outside allowed countries", "enabled", { locations: { includeLocations: ["All"], excludeLocations: ["AllTrusted", "loc-countries"] } }, block),
      caPolicy("ca-06", "Block device code flow", "enabled", { authenticationFlows: { transferMethods: "deviceCodeFlow,authenticationTransfer" } }, block),
    ],
    "identity/conditionalAccess/namedLocations": [
      { "@odata.type": "#microsoft.graph.ipNamedLocation", id: "loc-office", displayName: "Head office", isTrusted: true, ipRanges: [{ "@odata.type": "#microsoft.graph.iPv4CidrRange", cidrAddress: "203.0.113.0/24" }] },
      { "@odata.type": "#microsoft.graph.countryNamedLocation", id: "loc-countries", displayName: "Allowed countries", countriesAndRegions: ["FR", "DE"], includeUnknownCountriesAndRegions: false },
    ],
    "policies/deviceRegistrationPolicy": { id: "deviceRegistrationPolicy", displayName: "Device Registration Policy", userDeviceQuota: 50, multiFactorAuthConfiguration: "required" },
    groupSettings: [{ id: "gs-1", displayName: "Group.Unified", templateId: "62375ab9-6b52-47ed-826b-58e47e0e304b", values: [{ name: "EnableGroupCreation", value: "false" }, { name: "GroupCreationAllowedGroupId", value: "" }] }],
    [`directoryRoles(roleTemplateId='${GLOBAL_ADMIN}')/members`]: [admin(1), admin(2)],
  }
}

/**
 * The insecure tenant: security defaults off and no enforced Conditional Access policy — the look-alikes are report-only
 * or disabled — an untrusted IP location, no MFA to join devices, no group settings (the defaults), six Global
 * Administrators.
 */
function insecureGraph(): Record<string, Json | Json[]> {
  return {
    "policies/identitySecurityDefaultsEnforcementPolicy": { id: "00000000-0000-0000-0000-000000000005", isEnabled: false },
    "identity/conditionalAccess/policies": [
      caPolicy("ca-11", "MFA for everyone (report-only)", "enabledForReportingButNotEnforced", {}, mfa),
      caPolicy("ca-12", "Block legacy auth (disabled)", "disabled", { clientAppTypes: ["exchangeActiveSync", "other"] }, block),
      caPolicy("ca-13", "Admins MFA (report-only)", "enabledForReportingButNotEnforced", { users: { includeUsers: [], includeRoles: [GLOBAL_ADMIN] } }, mfa),
    ],
    "identity/conditionalAccess/namedLocations": [{ "@odata.type": "#microsoft.graph.ipNamedLocation", id: "loc-vpn", displayName: "VPN", isTrusted: false, ipRanges: [{ cidrAddress: "198.51.100.0/24" }] }],
    "policies/deviceRegistrationPolicy": { id: "deviceRegistrationPolicy", multiFactorAuthConfiguration: "notRequired" },
    groupSettings: [],
    [`directoryRoles(roleTemplateId='${GLOBAL_ADMIN}')/members`]: [1, 2, 3, 4, 5, 6].map(admin),
  }
}

export function hardenedTenant(): AzureTenant {
  return {
    tenantId: HARDENED.tenantId,
    apps: new Map([[HARDENED.clientId, { clientId: HARDENED.clientId, secret: HARDENED.secret, subscriptions: "*", graphPolicyRead: true }]]),
    authorizationPolicy: {
      id: "authorizationPolicy",
      displayName: "Authorization Policy",
      allowInvitesFrom: "adminsAndGuestInviters",
      allowedToSignUpEmailBasedSubscriptions: false,
      guestUserRoleId: RESTRICTED_GUEST,
      defaultUserRolePermissions: { allowedToCreateApps: false, allowedToCreateSecurityGroups: false, allowedToCreateTenants: false, allowedToReadOtherUsers: true, permissionGrantPoliciesAssigned: [] },
    },
    graph: hardenedGraph(),
    rootAssignments: [],
  }
}

export function hardenedSubscription(): AzureSubscription {
  const sub = emptySubscription(HARDENED, "Production")
  const s = sub.subscriptionId
  put(sub, { id: `/subscriptions/${s}/providers/Microsoft.Authorization/roleDefinitions/0b5fe924-9a61-425c-96af-cfe6e287ca2d`, name: "0b5fe924-9a61-425c-96af-cfe6e287ca2d", type: "Microsoft.Authorization/roleDefinitions", properties: { roleName: "ok-vm-reader", type: "CustomRole", assignableScopes: [`/subscriptions/${s}`], permissions: [{ actions: ["Microsoft.Compute/*/read"], notActions: [] }] } })
  for (const plan of PLANS) {
    // Defender for DNS is deprecated (folded into Defender for Servers): it stays Free and is judged by its successor.
    if (plan === "Dns") {
      subLevel(sub, `Microsoft.Security/pricings/${plan}`, { pricingTier: "Free", deprecated: true, replacedBy: ["VirtualMachines"] }, { type: "Microsoft.Security/pricings" })
      continue
    }
    subLevel(sub, `Microsoft.Security/pricings/${plan}`, { pricingTier: "Standard", ...(plan === "Containers" ? { extensions: [{ name: "AgentlessDiscoveryForKubernetes", isEnabled: "True" }, { name: "ContainerRegistriesVulnerabilityAssessments", isEnabled: "True" }] } : {}) }, { type: "Microsoft.Security/pricings" })
  }
  subLevel(sub, "Microsoft.Security/autoProvisioningSettings/default", { autoProvision: "On" }, { type: "Microsoft.Security/autoProvisioningSettings" })
  subLevel(sub, "Microsoft.Security/settings/MCAS", { enabled: true }, { kind: "DataExportSettings", type: "Microsoft.Security/settings" })
  subLevel(sub, "Microsoft.Security/securityContacts/default", {
    emails: "security@contoso.com;soc@contoso.com",
    phone: "",
    isEnabled: true,
    notificationsByRole: { state: "On", roles: ["Owner", "ServiceAdmin"] },
    notificationsSources: [{ sourceType: "Alert", minimalSeverity: "Medium" }, { sourceType: "AttackPath", minimalRiskLevel: "Critical" }],
  }, { type: "Microsoft.Security/securityContacts" })

  const kv = resource(sub, "security", "Microsoft.KeyVault/vaults", "ok-kv", "eastus", { tenantId: HARDENED.tenantId, sku: { family: "A", name: "standard" }, enableSoftDelete: true, softDeleteRetentionInDays: 90, enablePurgeProtection: true, enableRbacAuthorization: true, publicNetworkAccess: "Disabled", vaultUri: "https://ok-kv.vault.azure.net/" })
  ;(kv["properties"] as Json)["privateEndpointConnections"] = pe(String(kv["id"]))
  child(sub, String(kv["id"]), "keys/ok-key", { attributes: { enabled: true, exp: epoch(300), created: epoch(-30) }, kty: "RSA", keyUri: "https://ok-kv.vault.azure.net/keys/ok-key", rotationPolicy: { lifetimeActions: [{ trigger: { timeAfterCreate: "P90D" }, action: { type: "rotate" } }, { trigger: { timeBeforeExpiry: "P30D" }, action: { type: "notify" } }] } }, { type: "Microsoft.KeyVault/vaults/keys", location: "eastus" })
  child(sub, String(kv["id"]), "secrets/ok-secret", { attributes: { enabled: true, exp: epoch(90) }, contentType: "text/plain" }, { type: "Microsoft.KeyVault/vaults/secrets", location: "eastus" })
  child(sub, String(kv["id"]), "providers/Microsoft.Insights/diagnosticSettings/audit", { workspaceId: "/subscriptions/x/resourceGroups/logs/providers/Microsoft.OperationalInsights/workspaces/central", logs: [{ categoryGroup: "audit", enabled: true }, { categoryGroup: "allLogs", enabled: false }] })

  goodStorageAccount(sub, "data", "okstorage", "StorageV2")
  const logs = goodStorageAccount(sub, "logs", "oklogs", "StorageV2")

  const sql = resource(sub, "data", "Microsoft.Sql/servers", "ok-sql", "eastus", { version: "12.0", publicNetworkAccess: "Disabled", minimalTlsVersion: "1.2", administrators: { administratorType: "ActiveDirectory", login: "sql-admins" } }, { kind: "v12.0" })
  const sqlId = String(sql["id"])
  child(sub, sqlId, "auditingSettings/default", { state: "Enabled", retentionDays: 120, isAzureMonitorTargetEnabled: true })
  child(sub, sqlId, "firewallRules/office", { startIpAddress: "203.0.113.0", endIpAddress: "203.0.113.255" })
  child(sub, sqlId, "encryptionProtector/current", { serverKeyName: "ok-kv_ok-key_v1", serverKeyType: "AzureKeyVault", uri: "https://ok-kv.vault.azure.net/keys/ok-key/v1" }, { kind: "azurekeyvault" })
  child(sub, sqlId, "administrators/ActiveDirectory", { administratorType: "ActiveDirectory", login: "sql-admins", sid: "00000000-0000-4000-8000-0000000000aa", tenantId: HARDENED.tenantId })
  for (const db of ["master", "appdb"]) {
    child(sub, sqlId, `databases/${db}`, { status: "Online" }, { location: "eastus", type: "Microsoft.Sql/servers/databases" })
    child(sub, `${sqlId}/databases/${db}`, "transparentDataEncryption/current", { state: "Enabled" })
  }

  const resilient = { backup: { geoRedundantBackup: "Enabled", backupRetentionDays: 14 }, highAvailability: { mode: "ZoneRedundant" }, network: { publicNetworkAccess: "Disabled" } }
  const pg = resource(sub, "data", "Microsoft.DBforPostgreSQL/flexibleServers", "ok-pg", "eastus", { version: "16", state: "Ready", ...resilient }, { sku: { name: "Standard_D2ds_v5", tier: "GeneralPurpose" } })
  flexibleConfig(sub, String(pg["id"]), { require_secure_transport: "on", log_checkpoints: "on", "connection_throttle.enable": "on", "logfiles.retention_days": "7", log_connections: "on", log_disconnections: "on" })
  child(sub, String(pg["id"]), "firewallRules/office", { startIpAddress: "203.0.113.0", endIpAddress: "203.0.113.255" })
  const my = resource(sub, "data", "Microsoft.DBforMySQL/flexibleServers", "ok-mysql", "eastus", { version: "8.0.21", state: "Ready", ...resilient })
  flexibleConfig(sub, String(my["id"]), { require_secure_transport: "ON", tls_version: "TLSv1.2,TLSv1.3", audit_log_enabled: "ON", audit_log_events: "CONNECTION,DDL" })
  const cosmos = resource(sub, "data", "Microsoft.DocumentDB/databaseAccounts", "ok-cosmos", "eastus", { publicNetworkAccess: "Disabled", minimalTlsVersion: "Tls12", disableLocalAuth: true, enableAutomaticFailover: true, backupPolicy: { type: "Continuous" }, isVirtualNetworkFilterEnabled: true, ipRules: [], virtualNetworkRules: [{ id: "/subscriptions/x/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/ok-vnet/subnets/app" }] }, { kind: "GlobalDocumentDB" })
  ;(cosmos["properties"] as Json)["privateEndpointConnections"] = pe(String(cosmos["id"]))

  subLevel(sub, "Microsoft.Insights/diagnosticSettings/activity-to-storage", {
    storageAccountId: logs["id"],
    workspaceId: null,
    logs: ["Administrative", "Security", "ServiceHealth", "Alert", "Recommendation", "Policy", "Autoscale", "ResourceHealth"].map((category) => ({ category, enabled: true })),
  })
  // The CIS operations one alert each (some spelt in other cases: Azure compares case-insensitively, and `enabled`
  // left out means enabled); the others in one alert with containsAny, and one through an anyOf.
  const actions = { actionGroups: [{ actionGroupId: "/subscriptions/x/resourceGroups/monitoring/providers/microsoft.insights/actionGroups/soc" }] }
  OPERATIONS.slice(0, 10).forEach((op, i) =>
    resource(sub, "monitoring", "Microsoft.Insights/activityLogAlerts", `alert-${i}`, "Global", {
      scopes: [`/subscriptions/${s}`],
      ...(i % 3 === 0 ? {} : { enabled: true }),
      condition: { allOf: [{ field: i % 2 === 0 ? "category" : "Category", equals: "Administrative" }, { field: i % 2 === 0 ? "operationName" : "OperationName", equals: i % 4 === 1 ? op.toLowerCase() : op }] },
      actions,
    }),
  )
  resource(sub, "monitoring", "Microsoft.Insights/activityLogAlerts", "alert-changes", "Global", {
    scopes: [`/subscriptions/${s}`],
    enabled: true,
    condition: { allOf: [{ field: "category", equals: "Administrative" }, { field: "operationName", containsAny: OPERATIONS.slice(10, -1) }] },
    actions,
  })
  resource(sub, "monitoring", "Microsoft.Insights/activityLogAlerts", "alert-diagnostics", "Global", {
    scopes: [`/subscriptions/${s}/`],
    condition: { allOf: [{ field: "category", equals: "Administrative" }, { anyOf: [{ field: "operationName", equals: OPERATIONS.at(-1) }, { field: "operationName", equals: "Microsoft.Insights/diagnosticSettings/write" }] }] },
    actions,
  })
  // "All event types" as the portal writes it: an anyOf naming every documented incident type.
  resource(sub, "monitoring", "Microsoft.Insights/activityLogAlerts", "service-health", "Global", {
    scopes: [`/subscriptions/${s}`],
    enabled: true,
    condition: { allOf: [{ field: "category", equals: "ServiceHealth" }, { anyOf: ["Incident", "Maintenance", "Informational", "ActionRequired", "Security"].map((t) => ({ field: "properties.incidentType", equals: t })) }] },
  })
  resource(sub, "monitoring", "Microsoft.Insights/components", "ok-appinsights", "eastus", { Application_Type: "web", Flow_Type: "Bluefield" }, { kind: "web" })

  const nsg = resource(sub, "net", "Microsoft.Network/networkSecurityGroups", "ok-nsg", "eastus", {
    securityRules: [
      { name: "https-from-corp", properties: { protocol: "Tcp", sourcePortRange: "*", destinationPortRange: "443", sourceAddressPrefix: "10.0.0.0/8", destinationAddressPrefix: "*", access: "Allow", priority: 100, direction: "Inbound" } },
      { name: "ssh-from-vnet", properties: { protocol: "Tcp", sourcePortRange: "*", destinationPortRange: "22", sourceAddressPrefix: "VirtualNetwork", destinationAddressPrefix: "*", access: "Allow", priority: 110, direction: "Inbound" } },
    ],
  })
  const vnet = resource(sub, "net", "Microsoft.Network/virtualNetworks", "ok-vnet", "eastus", { addressSpace: { addressPrefixes: ["10.0.0.0/16"] } })
  const nw = resource(sub, "NetworkWatcherRG", "Microsoft.Network/networkWatchers", "NetworkWatcher_eastus", "eastus", { provisioningState: "Succeeded" })
  child(sub, String(nw["id"]), "flowLogs/ok-nsg-flow", { targetResourceId: nsg["id"], storageId: logs["id"], enabled: true, retentionPolicy: { days: 90, enabled: true }, format: { type: "JSON", version: 2 } }, { location: "eastus" })
  child(sub, String(nw["id"]), "flowLogs/ok-vnet-flow", { targetResourceId: vnet["id"], storageId: logs["id"], enabled: true, retentionPolicy: { days: 0, enabled: true } }, { location: "eastus" })
  resource(sub, "net", "Microsoft.Network/bastionHosts", "ok-bastion", "eastus", { scaleUnits: 2 })

  const vmId = armId(s, "app", "Microsoft.Compute/virtualMachines", "ok-vm")
  resource(sub, "app", "Microsoft.Compute/virtualMachines", "ok-vm", "eastus", {
    storageProfile: { osDisk: { name: "ok-vm-os", osType: "Linux", managedDisk: { id: armId(s, "app", "Microsoft.Compute/disks", "ok-vm-os"), storageAccountType: "Premium_LRS" } }, dataDisks: [] },
    securityProfile: { securityType: "TrustedLaunch", uefiSettings: { secureBootEnabled: true, vTpmEnabled: true } },
  })
  resource(sub, "app", "Microsoft.Compute/disks", "ok-vm-os", "eastus", { diskState: "Attached", encryption: { type: "EncryptionAtRestWithCustomerKey", diskEncryptionSetId: "/subscriptions/x/resourceGroups/security/providers/Microsoft.Compute/diskEncryptionSets/des" }, networkAccessPolicy: "DenyAll", publicNetworkAccess: "Disabled", dataAccessAuthMode: "AzureActiveDirectory" }, { managedBy: vmId })
  assessment(sub, vmId, SYSTEM_UPDATES, "System updates should be installed on your machines", { code: "Healthy" })
  assessment(sub, vmId, PERIODIC_UPDATE_CHECK, "Machines should be configured to periodically check for missing system updates", { code: "Healthy" })
  assessment(sub, vmId, ENDPOINT_PROTECTION, "Install endpoint protection solution on virtual machines", { code: "Healthy" })
  resource(sub, "app", "Microsoft.Compute/disks", "ok-spare-disk", "eastus", { diskState: "Unattached", encryption: { type: "EncryptionAtRestWithPlatformAndCustomerKeys" }, networkAccessPolicy: "AllowPrivate", dataAccessAuthMode: "AzureActiveDirectory" })

  const site = resource(sub, "app", "Microsoft.Web/sites", "ok-app", "eastus", { httpsOnly: true, state: "Running", clientCertEnabled: true, siteConfig: null }, { kind: "app,linux", identity: { type: "SystemAssigned", principalId: "p1", tenantId: HARDENED.tenantId } })
  child(sub, String(site["id"]), "config/web", { ftpsState: "Disabled", minTlsVersion: "1.3", scmMinTlsVersion: "1.2", http20Enabled: true, remoteDebuggingEnabled: false }, { type: "Microsoft.Web/sites/config" })
  child(sub, String(site["id"]), "config/authsettingsV2", {
    platform: { enabled: true, runtimeVersion: "~1" },
    globalValidation: { requireAuthentication: true, unauthenticatedClientAction: "RedirectToLoginPage", redirectToProvider: "azureactivedirectory" },
    identityProviders: { azureActiveDirectory: { enabled: true, registration: { openIdIssuer: `https://sts.windows.net/${HARDENED.tenantId}/v2.0`, clientId: "a1b2c3d4-0000-4000-8000-00000000000a", clientSecretSettingName: "MICROSOFT_PROVIDER_AUTHENTICATION_SECRET" } } },
    login: { tokenStore: { enabled: true } },
    httpSettings: { requireHttps: true },
  }, { type: "Microsoft.Web/sites/config", location: "East US" })
  appDiagnostics(sub, String(site["id"]), "app-all-logs", [{ categoryGroup: "allLogs", enabled: true }, { categoryGroup: "audit", enabled: false }])

  aksCluster(sub, "ok-aks", hardenedAks({ apiServerAccessProfile: { enablePrivateCluster: true } }))
  aksCluster(sub, "ok-aks-ranges", hardenedAks({ apiServerAccessProfile: { enablePrivateCluster: false, authorizedIPRanges: ["203.0.113.0/24"] } }))
  databricksWorkspace(sub, "analytics", "ok-dbw", "eastus", "premium", {
    parameters: {
      ...databricksParameters(false),
      customVirtualNetworkId: { type: "String", value: vnet["id"] },
      customPublicSubnetName: { type: "String", value: "dbw-public" },
      customPrivateSubnetName: { type: "String", value: "dbw-private" },
      prepareEncryption: { type: "Bool", value: true },
      encryption: { type: "Object", value: { keySource: "Microsoft.Keyvault", KeyName: "dbfs-cmk", keyversion: "0123456789abcdef0123456789abcdef", keyvaulturi: "https://ok-kv.vault.azure.net/" } },
    },
    encryption: {
      entities: {
        managedServices: { keySource: "Microsoft.Keyvault", keyVaultProperties: { keyVaultUri: "https://ok-kv.vault.azure.net/", keyName: "dbw-services", keyVersion: "11111111111111111111111111111111" } },
        managedDisk: { keySource: "Microsoft.Keyvault", keyVaultProperties: { keyVaultUri: "https://ok-kv.vault.azure.net/", keyName: "dbw-disks", keyVersion: "22222222222222222222222222222222" }, rotationToLatestKeyVersionEnabled: true },
      },
    },
    diskEncryptionSetId: "/subscriptions/x/resourceGroups/databricks-rg-ok-dbw/providers/Microsoft.Compute/diskEncryptionSets/dbw-des",
  })

  // Container registry and Recovery Services vault, every setting hardened.
  const acr = resource(sub, "images", "Microsoft.ContainerRegistry/registries", "okacr", "eastus", {
    loginServer: "okacr.azurecr.io",
    adminUserEnabled: false,
    anonymousPullEnabled: false,
    publicNetworkAccess: "Disabled",
    networkRuleSet: { defaultAction: "Deny", ipRules: [] },
    encryption: { status: "enabled", keyVaultProperties: { keyIdentifier: "https://ok-kv.vault.azure.net/keys/acr", identity: "c1" } },
    zoneRedundancy: "Enabled",
  }, { sku: { name: "Premium", tier: "Premium" } })
  ;(acr["properties"] as Json)["privateEndpointConnections"] = pe(String(acr["id"]))
  resource(sub, "backup", "Microsoft.RecoveryServices/vaults", "ok-rsv", "eastus", {
    provisioningState: "Succeeded",
    publicNetworkAccess: "Disabled",
    securitySettings: { immutabilitySettings: { state: "Locked" }, softDeleteSettings: { softDeleteState: "AlwaysON", softDeleteRetentionPeriodInDays: 14 } },
    redundancySettings: { standardTierStorageRedundancy: "GeoRedundant", crossRegionRestore: "Enabled" },
    encryption: { keyVaultProperties: { keyUri: "https://ok-kv.vault.azure.net/keys/backup" }, kekIdentity: { useSystemAssignedIdentity: true }, infrastructureEncryption: "Enabled" },
  }, { sku: { name: "RS0", tier: "Standard" } })
  return sub
}

export function insecureTenant(): AzureTenant {
  return {
    tenantId: INSECURE.tenantId,
    apps: new Map([[INSECURE.clientId, { clientId: INSECURE.clientId, secret: INSECURE.secret, subscriptions: "*", graphPolicyRead: true }]]),
    authorizationPolicy: {
      id: "authorizationPolicy",
      allowInvitesFrom: "everyone",
      guestUserRoleId: "10dae51f-b6af-4016-8d66-8c2a99b929b3",
      // permissionGrantPoliciesAssigned left out: the tenant default (users may consent).
      defaultUserRolePermissions: { allowedToCreateApps: true, allowedToCreateSecurityGroups: true, allowedToCreateTenants: true, allowedToReadOtherUsers: true },
    },
    graph: insecureGraph(),
    rootAssignments: [
      { id: "/providers/Microsoft.Authorization/roleAssignments/5a1e0bcd-0000-4000-8000-00000000000a", name: "5a1e0bcd-0000-4000-8000-00000000000a", type: "Microsoft.Authorization/roleAssignments", properties: { roleDefinitionId: "/providers/Microsoft.Authorization/roleDefinitions/18d7d88d-d35e-4fb5-a5c3-7773c20a72d9", principalId: "bad-principal-0001", principalType: "User", scope: "/" } },
      { id: "/providers/Microsoft.Authorization/roleAssignments/5a1e0bcd-0000-4000-8000-00000000000b", name: "5a1e0bcd-0000-4000-8000-00000000000b", type: "Microsoft.Authorization/roleAssignments", properties: { roleDefinitionId: "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7", principalId: "reader-0002", principalType: "User", scope: "/" } },
    ],
  }
}

export function insecureSubscription(): AzureSubscription {
  const sub = emptySubscription(INSECURE, "Legacy")
  const s = sub.subscriptionId
  put(sub, { id: `/subscriptions/${s}/providers/Microsoft.Authorization/roleDefinitions/bad-owner-clone`, name: "bad-owner-clone", type: "Microsoft.Authorization/roleDefinitions", properties: { roleName: "Contoso Owner", type: "CustomRole", assignableScopes: [`/subscriptions/${s}`], permissions: [{ actions: ["*"], notActions: [] }] } })
  put(sub, { id: `/subscriptions/${s}/providers/Microsoft.Authorization/roleDefinitions/ok-narrow-role`, name: "ok-narrow-role", type: "Microsoft.Authorization/roleDefinitions", properties: { roleName: "Contoso Star in one RG", type: "CustomRole", assignableScopes: [`/subscriptions/${s}/resourceGroups/sandbox`], permissions: [{ actions: ["*"], notActions: [] }] } })
  put(sub, { id: `/subscriptions/${s}/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7`, name: "acdd72a7-3385-48ef-bd42-f606fba81ae7", type: "Microsoft.Authorization/roleDefinitions", properties: { roleName: "Reader", type: "BuiltInRole", assignableScopes: ["/"], permissions: [{ actions: ["*/read"] }] } })
  for (const plan of PLANS) subLevel(sub, `Microsoft.Security/pricings/${plan}`, { pricingTier: "Free", ...(plan === "Containers" ? { extensions: [{ name: "AgentlessDiscoveryForKubernetes", isEnabled: "False" }] } : {}) }, { type: "Microsoft.Security/pricings" })
  subLevel(sub, "Microsoft.Security/autoProvisioningSettings/default", { autoProvision: "Off" })
  subLevel(sub, "Microsoft.Security/settings/MCAS", { enabled: false }, { kind: "DataExportSettings" })
  subLevel(sub, "Microsoft.Security/settings/WDATP", { enabled: true }, { kind: "DataExportSettings" })
  subLevel(sub, "Microsoft.Security/securityContacts/default", { emails: "", isEnabled: false, notificationsByRole: { state: "Off", roles: [] }, notificationsSources: [{ sourceType: "Alert", minimalSeverity: "High" }] })

  const rbacKv = resource(sub, "security", "Microsoft.KeyVault/vaults", "bad-kv-rbac", "eastus", { tenantId: INSECURE.tenantId, enableSoftDelete: true, enablePurgeProtection: false, enableRbacAuthorization: true, publicNetworkAccess: "Enabled", privateEndpointConnections: [] })
  const rbacId = String(rbacKv["id"])
  child(sub, rbacId, "keys/bad-noexp-key", { attributes: { enabled: true }, kty: "RSA" }, { location: "eastus" })
  child(sub, rbacId, "keys/ok-exp-key", { attributes: { enabled: true, exp: epoch(30) }, kty: "EC", rotationPolicy: { lifetimeActions: [{ trigger: { timeAfterCreate: "P60D" }, action: { type: "Rotate" } }] } }, { location: "eastus" })
  child(sub, rbacId, "keys/disabled-key", { attributes: { enabled: false }, kty: "RSA" }, { location: "eastus" })
  child(sub, rbacId, "secrets/bad-noexp-secret", { attributes: { enabled: true } }, { location: "eastus" })
  child(sub, rbacId, "secrets/ok-exp-secret", { attributes: { enabled: true, exp: epoch(10) } }, { location: "eastus" })
  const policyKv = resource(sub, "security", "Microsoft.KeyVault/vaults", "bad-kv-policy", "westeurope", { tenantId: INSECURE.tenantId, enableSoftDelete: true, enablePurgeProtection: true, enableRbacAuthorization: false, publicNetworkAccess: "Disabled", accessPolicies: [] })
  const policyId = String(policyKv["id"])
  ;(policyKv["properties"] as Json)["privateEndpointConnections"] = pe(policyId)
  child(sub, policyId, "keys/bad-noexp-key2", { attributes: { enabled: true } }, { location: "westeurope" })
  child(sub, policyId, "keys/ok-exp-key2", { attributes: { enabled: true, exp: epoch(200) }, rotationPolicy: { lifetimeActions: [{ action: { type: "Rotate" } }] } }, { location: "westeurope" })
  child(sub, policyId, "secrets/bad-noexp-secret2", { attributes: { enabled: true } }, { location: "westeurope" })
  child(sub, policyId, "secrets/ok-exp-secret2", { attributes: { enabled: true, exp: epoch(200) } }, { location: "westeurope" })
  child(sub, policyId, "providers/Microsoft.Insights/diagnosticSettings/kv-audit", { storageAccountId: "x", logs: [{ category: "AuditEvent", enabled: true }] })
  child(sub, rbacId, "providers/Microsoft.Insights/diagnosticSettings/metrics-only", { workspaceId: "w", logs: [{ category: "AuditEvent", enabled: false }] })

  const bad = resource(sub, "data", "Microsoft.Storage/storageAccounts", "badstorage", "eastus", {
    supportsHttpsTrafficOnly: false,
    minimumTlsVersion: "TLS1_0",
    allowBlobPublicAccess: true,
    allowCrossTenantReplication: true,
    defaultToOAuthAuthentication: false,
    publicNetworkAccess: "Enabled",
    networkAcls: { bypass: "None", defaultAction: "Allow", ipRules: [], virtualNetworkRules: [] },
    encryption: { keySource: "Microsoft.Storage", requireInfrastructureEncryption: false },
    privateEndpointConnections: [],
  }, { kind: "StorageV2", sku: { name: "Standard_LRS", tier: "Standard" } })
  child(sub, String(bad["id"]), "blobServices/default", { deleteRetentionPolicy: { enabled: false }, containerDeleteRetentionPolicy: { enabled: false }, isVersioningEnabled: false })
  child(sub, String(bad["id"]), "fileServices/default", { shareDeleteRetentionPolicy: { enabled: false }, protocolSettings: { smb: { versions: "SMB2.1;SMB3.0;SMB3.1.1", channelEncryption: "AES-128-CCM;AES-128-GCM;AES-256-GCM" } } })
  storageDiagnostics(sub, String(bad["id"]), "blob", "blob-writes", [{ category: "StorageRead", enabled: false }, { category: "StorageWrite", enabled: true }, { category: "StorageDelete", enabled: true }])
  storageDiagnostics(sub, String(bad["id"]), "table", "table-reads", [{ category: "StorageRead", enabled: true }, { category: "StorageWrite", enabled: false }, { category: "StorageDelete", enabled: false }])
  const badLogs = resource(sub, "logs", "Microsoft.Storage/storageAccounts", "badlogs", "eastus", { supportsHttpsTrafficOnly: false, encryption: { keySource: "Microsoft.Storage" } }, { kind: "Storage", sku: { name: "Standard_RAGRS" } })
  child(sub, String(badLogs["id"]), "blobServices/default", { deleteRetentionPolicy: { enabled: true, days: 7 }, containerDeleteRetentionPolicy: { enabled: true, days: 7 }, isVersioningEnabled: true })
  child(sub, String(badLogs["id"]), "fileServices/default", { shareDeleteRetentionPolicy: { enabled: true, days: 7 }, protocolSettings: { smb: { versions: "SMB3.1.1", channelEncryption: "AES-256-GCM" } } })
  for (const service of ["blob", "queue", "table"]) storageDiagnostics(sub, String(badLogs["id"]), service, `${service}-to-workspace`, ALL_STORAGE_LOGS)
  goodStorageAccount(sub, "data", "okblob", "BlockBlobStorage")

  const sql = resource(sub, "data", "Microsoft.Sql/servers", "bad-sql", "eastus", { version: "12.0", publicNetworkAccess: "Enabled", administrators: null })
  const sqlId = String(sql["id"])
  child(sub, sqlId, "auditingSettings/default", { state: "Disabled", retentionDays: 0 })
  child(sub, sqlId, "firewallRules/AllowAllWindowsAzureIps", { startIpAddress: "0.0.0.0", endIpAddress: "0.0.0.0" })
  child(sub, sqlId, "firewallRules/anywhere", { startIpAddress: "0.0.0.0", endIpAddress: "255.255.255.255" })
  child(sub, sqlId, "encryptionProtector/current", { serverKeyName: "ServiceManaged", serverKeyType: "ServiceManaged" })
  for (const [db, state] of [["baddb", "Disabled"], ["okdb", "Enabled"]] as const) {
    child(sub, sqlId, `databases/${db}`, { status: "Online" }, { location: "eastus" })
    child(sub, `${sqlId}/databases/${db}`, "transparentDataEncryption/current", { state })
  }
  const sql2 = resource(sub, "data", "Microsoft.Sql/servers", "ok-sql2", "westeurope", { version: "12.0" })
  const sql2Id = String(sql2["id"])
  child(sub, sql2Id, "auditingSettings/default", { state: "Enabled", retentionDays: 30 })
  child(sub, sql2Id, "firewallRules/office", { startIpAddress: "198.51.100.10", endIpAddress: "198.51.100.10" })
  child(sub, sql2Id, "encryptionProtector/current", { serverKeyType: "AzureKeyVault", serverKeyName: "kv_key_v1" })
  child(sub, sql2Id, "administrators/ActiveDirectory", { administratorType: "ActiveDirectory", login: "dba-group" })

  const pg = resource(sub, "data", "Microsoft.DBforPostgreSQL/flexibleServers", "bad-pg", "eastus", { version: "13" })
  flexibleConfig(sub, String(pg["id"]), { require_secure_transport: "off", log_checkpoints: "off", "connection_throttle.enable": "off", "logfiles.retention_days": "3", log_connections: "off", log_disconnections: "off" })
  child(sub, String(pg["id"]), "firewallRules/AllowAllAzureServicesAndResourcesWithinAzureIps_2026-1-1", { startIpAddress: "0.0.0.0", endIpAddress: "0.0.0.0" })
  // A read replica and a Burstable server: their backup / availability settings are not theirs to judge.
  resource(sub, "data", "Microsoft.DBforPostgreSQL/flexibleServers", "ok-pg-replica", "westus", { version: "16", replicationRole: "AsyncReplica", backup: { geoRedundantBackup: "Disabled", backupRetentionDays: 7 }, highAvailability: { mode: "Disabled" }, network: { publicNetworkAccess: "Disabled" } }, { sku: { name: "Standard_D2ds_v5", tier: "GeneralPurpose" } })
  resource(sub, "data", "Microsoft.DBforMySQL/flexibleServers", "ok-mysql-burstable", "eastus", { version: "8.0.21", backup: { geoRedundantBackup: "Enabled" }, network: { publicNetworkAccess: "Disabled" } }, { sku: { name: "Standard_B1ms", tier: "Burstable" } })
  const pg2 = resource(sub, "data", "Microsoft.DBforPostgreSQL/flexibleServers", "ok-pg2", "eastus", { version: "16" })
  flexibleConfig(sub, String(pg2["id"]), { require_secure_transport: "ON", log_checkpoints: "on", "connection_throttle.enable": "ON", "logfiles.retention_days": "14", log_connections: "ON", log_disconnections: "on" })
  const my = resource(sub, "data", "Microsoft.DBforMySQL/flexibleServers", "bad-mysql", "eastus", { version: "5.7" })
  flexibleConfig(sub, String(my["id"]), { require_secure_transport: "OFF", tls_version: "TLSv1,TLSv1.1,TLSv1.2", audit_log_enabled: "OFF", audit_log_events: "DDL,DML" })
  const my2 = resource(sub, "data", "Microsoft.DBforMySQL/flexibleServers", "ok-mysql2", "eastus", { version: "8.0.21" })
  flexibleConfig(sub, String(my2["id"]), { require_secure_transport: "ON", tls_version: "TLSv1.3", audit_log_enabled: "ON", audit_log_events: "CONNECTION" })
  resource(sub, "data", "Microsoft.DocumentDB/databaseAccounts", "bad-cosmos", "eastus", { publicNetworkAccess: "Enabled", isVirtualNetworkFilterEnabled: false, ipRules: [], privateEndpointConnections: [] }, { kind: "GlobalDocumentDB" })
  const cosmos2 = resource(sub, "data", "Microsoft.DocumentDB/databaseAccounts", "ok-cosmos2", "eastus", { publicNetworkAccess: "Enabled", isVirtualNetworkFilterEnabled: false, ipRules: [{ ipAddressOrRange: "203.0.113.7" }] }, { kind: "MongoDB" })
  ;(cosmos2["properties"] as Json)["privateEndpointConnections"] = pe(String(cosmos2["id"]))

  subLevel(sub, "Microsoft.Insights/diagnosticSettings/partial", { storageAccountId: badLogs["id"], logs: [{ category: "Administrative", enabled: true }, { category: "Security", enabled: false }, { category: "Alert", enabled: true }] })
  resource(sub, "monitoring", "Microsoft.Insights/activityLogAlerts", "nsg-write-disabled", "Global", { scopes: [`/subscriptions/${s}`], enabled: false, condition: { allOf: [{ field: "category", equals: "Administrative" }, { field: "operationName", equals: "Microsoft.Network/networkSecurityGroups/write" }] } })
  // Alerts that name an operation but fall short: one resource group only, failed operations only, incidents only.
  resource(sub, "monitoring", "Microsoft.Insights/activityLogAlerts", "policy-write-one-rg", "Global", { scopes: [`/subscriptions/${s}/resourceGroups/monitoring`], enabled: true, condition: { allOf: [{ field: "category", equals: "Administrative" }, { field: "operationName", equals: "Microsoft.Authorization/policyAssignments/write" }] } })
  resource(sub, "monitoring", "Microsoft.Insights/activityLogAlerts", "nsg-delete-failed-only", "Global", { scopes: [`/subscriptions/${s}`], enabled: true, condition: { allOf: [{ field: "operationName", containsAny: ["Microsoft.Network/networkSecurityGroups/delete"] }, { field: "status", equals: "Failed" }] } })
  resource(sub, "monitoring", "Microsoft.Insights/activityLogAlerts", "incidents-only", "Global", { scopes: [`/subscriptions/${s}`], enabled: true, condition: { allOf: [{ field: "category", equals: "ServiceHealth" }, { anyOf: [{ field: "properties.incidentType", equals: "Incident" }] }] } })

  const rule = (name: string, protocol: string, ports: string | string[], source: string | string[], access = "Allow", direction = "Inbound", priority = 100) => ({
    name,
    properties: {
      protocol,
      sourcePortRange: "*",
      ...(Array.isArray(ports) ? { destinationPortRanges: ports } : { destinationPortRange: ports }),
      ...(Array.isArray(source) ? { sourceAddressPrefixes: source } : { sourceAddressPrefix: source }),
      destinationAddressPrefix: "*",
      access,
      priority,
      direction,
    },
  })
  const badNsg = resource(sub, "net", "Microsoft.Network/networkSecurityGroups", "bad-nsg", "eastus", {
    securityRules: [rule("allow-rdp", "Tcp", "3389", "*"), rule("allow-ssh-range", "Tcp", "20-30", "Internet", "Allow", "Inbound", 110), rule("allow-dns-udp", "Udp", "53", "0.0.0.0/0", "Allow", "Inbound", 120), rule("allow-web", "*", ["80", "443"], ["Internet"], "Allow", "Inbound", 130)],
  })
  // Service ports: one NSG open on Redis only (from ::/0), one open on everything.
  resource(sub, "net", "Microsoft.Network/networkSecurityGroups", "bad-redis-nsg", "eastus", {
    securityRules: [rule("allow-redis", "Tcp", "6379", "::/0"), rule("redis-corp", "Tcp", "6380", "10.0.0.0/8", "Allow", "Inbound", 110)],
  })
  resource(sub, "net", "Microsoft.Network/networkSecurityGroups", "bad-any-nsg", "eastus", {
    securityRules: [rule("allow-any", "*", "*", "Internet", "Allow", "Inbound", 100)],
  })
  resource(sub, "net", "Microsoft.Network/networkSecurityGroups", "ok-nsg2", "westeurope", {
    // An Allow for SSH from anywhere behind a higher-priority Deny from the Internet admits nothing.
    securityRules: [rule("ssh-corp", "Tcp", "22", "10.0.0.0/8"), rule("deny-ssh-internet", "Tcp", "22", "Internet", "Deny", "Inbound", 200), rule("ssh-any-shadowed", "Tcp", "22", "*", "Allow", "Inbound", 300), rule("deny-all", "*", "*", "*", "Deny", "Inbound", 4000), rule("outbound-any", "*", "*", "*", "Allow", "Outbound", 100)],
  })
  const vnetE = resource(sub, "net", "Microsoft.Network/virtualNetworks", "vnet-eastus", "eastus", {})
  resource(sub, "net", "Microsoft.Network/virtualNetworks", "vnet-westeurope", "westeurope", {})
  const nw = resource(sub, "NetworkWatcherRG", "Microsoft.Network/networkWatchers", "NetworkWatcher_westeurope", "westeurope", { provisioningState: "Succeeded" })
  child(sub, String(nw["id"]), "flowLogs/bad-nsg-flow", { targetResourceId: badNsg["id"], enabled: true, retentionPolicy: { days: 30, enabled: true } }, { location: "westeurope" })
  child(sub, String(nw["id"]), "flowLogs/bad-vnet-flow", { targetResourceId: vnetE["id"], enabled: true, retentionPolicy: { days: 0, enabled: false } }, { location: "westeurope" })

  resource(sub, "app", "Microsoft.Compute/virtualMachines", "bad-vm", "eastus", { storageProfile: { osDisk: { name: "bad-vm-os", osType: "Windows", vhd: { uri: "https://badstorage.blob.core.windows.net/vhds/bad-vm-os.vhd" } }, dataDisks: [] }, securityProfile: null })
  resource(sub, "app", "Microsoft.Compute/virtualMachines", "ok-vm2", "eastus", { storageProfile: { osDisk: { name: "ok-cmk-disk", managedDisk: { id: "x" } }, dataDisks: [{ name: "data1", managedDisk: { id: "y" } }] }, securityProfile: { securityType: "TrustedLaunch", uefiSettings: { secureBootEnabled: true, vTpmEnabled: true } } })
  const badVm = armId(s, "app", "Microsoft.Compute/virtualMachines", "bad-vm")
  const okVm2 = armId(s, "app", "Microsoft.Compute/virtualMachines", "ok-vm2")
  assessment(sub, badVm, SYSTEM_UPDATES, "System updates should be installed on your machines", { code: "Unhealthy", cause: "", description: "3 critical and 5 security updates are missing" })
  assessment(sub, badVm, PERIODIC_UPDATE_CHECK, "Machines should be configured to periodically check for missing system updates", { code: "Unhealthy" })
  assessment(sub, okVm2, SYSTEM_UPDATES_AUM, "System updates should be installed on your machines (powered by Azure Update Manager)", { code: "Healthy" })
  assessment(sub, okVm2, PERIODIC_UPDATE_CHECK, "Machines should be configured to periodically check for missing system updates", { code: "Healthy" })
  assessment(sub, okVm2, ENDPOINT_PROTECTION, "Install endpoint protection solution on virtual machines", { code: "Unhealthy" })
  assessment(sub, armId(s, "app", "Microsoft.Compute/virtualMachineScaleSets", "off-vmss"), SYSTEM_UPDATES, "System updates should be installed on your machines", { code: "NotApplicable", cause: "OffByPolicy", description: "The effective policy for the assessment was evaluated to off - use Microsoft.Authorization/policyAssignments to turn this assessment on" })
  resource(sub, "app", "Microsoft.Compute/disks", "bad-os-disk", "eastus", { diskState: "Attached", encryption: { type: "EncryptionAtRestWithPlatformKey" } }, { managedBy: armId(s, "app", "Microsoft.Compute/virtualMachines", "ok-vm2") })
  resource(sub, "app", "Microsoft.Compute/disks", "bad-spare", "eastus", { diskState: "Unattached", encryption: { type: "EncryptionAtRestWithPlatformKey" }, networkAccessPolicy: "AllowAll", publicNetworkAccess: "Enabled" })
  resource(sub, "app", "Microsoft.Compute/disks", "ok-cmk-disk", "eastus", { diskState: "Attached", encryption: { type: "EncryptionAtRestWithCustomerKey" }, networkAccessPolicy: "DenyAll", dataAccessAuthMode: "AzureActiveDirectory" }, { managedBy: "vm" })
  resource(sub, "app", "Microsoft.Compute/disks", "ok-spare-cmk", "eastus", { diskState: "Unattached", encryption: { type: "EncryptionAtRestWithCustomerKey" }, networkAccessPolicy: "AllowPrivate", dataAccessAuthMode: "AzureActiveDirectory" })

  // Client certificates enabled but optional: clients without one still get in.
  const badApp = resource(sub, "app", "Microsoft.Web/sites", "bad-app", "eastus", { httpsOnly: false, state: "Running", clientCertEnabled: true, clientCertMode: "Optional" }, { kind: "app" })
  child(sub, String(badApp["id"]), "config/web", { ftpsState: "AllAllowed", minTlsVersion: "1.0", http20Enabled: false, remoteDebuggingEnabled: true })
  const okApp = resource(sub, "app", "Microsoft.Web/sites", "ok-app2", "westeurope", { httpsOnly: true }, { kind: "functionapp", identity: { type: "SystemAssigned, UserAssigned" } })
  child(sub, String(okApp["id"]), "config/web", { ftpsState: "FtpsOnly", minTlsVersion: "1.2", http20Enabled: true, remoteDebuggingEnabled: false })
  child(sub, String(okApp["id"]), "config/authsettingsV2", { platform: { enabled: true, runtimeVersion: "~1" }, globalValidation: { requireAuthentication: true, unauthenticatedClientAction: "Return401" }, identityProviders: { azureActiveDirectory: { enabled: true } } }, { type: "Microsoft.Web/sites/config" })
  // Function apps have no HTTP log category: ok-app2's setting is never read for the HTTP logs check.
  appDiagnostics(sub, String(okApp["id"]), "function-logs", [{ category: "FunctionAppLogs", enabled: true }])
  appDiagnostics(sub, String(badApp["id"]), "app-audit", [{ category: "AppServiceHTTPLogs", enabled: false }, { category: "AppServiceConsoleLogs", enabled: true }, { category: "AppServiceAuditLogs", enabled: true }])
  const okWeb = resource(sub, "app", "Microsoft.Web/sites", "ok-web3", "westeurope", { httpsOnly: true, state: "Running" }, { kind: "app", identity: { type: "SystemAssigned" } })
  child(sub, String(okWeb["id"]), "config/web", { ftpsState: "Disabled", minTlsVersion: "1.2", http20Enabled: true, remoteDebuggingEnabled: false })
  child(sub, String(okWeb["id"]), "config/authsettingsV2", { platform: { enabled: true, runtimeVersion: "~1" }, globalValidation: { requireAuthentication: true, unauthenticatedClientAction: "RedirectToLoginPage" } }, { type: "Microsoft.Web/sites/config" })
  appDiagnostics(sub, String(okWeb["id"]), "metrics-only", [])
  appDiagnostics(sub, String(okWeb["id"]), "http-to-workspace", [{ category: "AppServiceHTTPLogs", enabled: true }, { category: "AppServiceAuditLogs", enabled: false }])

  aksCluster(sub, "bad-aks", { kubernetesVersion: "1.27.3", enableRBAC: false, disableLocalAccounts: false, aadProfile: null, apiServerAccessProfile: { enablePrivateCluster: false }, networkProfile: { networkPlugin: "kubenet" }, autoUpgradeProfile: { upgradeChannel: "none" }, addonProfiles: { omsagent: { enabled: false } } })
  aksCluster(sub, "ok-aks2", hardenedAks({ apiServerAccessProfile: { authorizedIPRanges: ["198.51.100.7/32"] } }))
  databricksWorkspace(sub, "analytics", "bad-dbw", "eastus", "standard", { parameters: { ...databricksParameters(false), encryption: { type: "Object", value: { keySource: "Default" } } } })
  databricksWorkspace(sub, "analytics", "ok-dbw2", "westeurope", "premium", {
    parameters: {
      ...databricksParameters(true),
      customVirtualNetworkId: { type: "String", value: String(vnetE["id"]) },
      customPublicSubnetName: { type: "String", value: "public" },
      customPrivateSubnetName: { type: "String", value: "private" },
    },
    encryption: { entities: { managedServices: { keySource: "Microsoft.KeyVault", keyVaultProperties: { keyVaultUri: "https://bad-kv-rbac.vault.azure.net/", keyName: "dbw", keyVersion: "33333333333333333333333333333333" } } } },
  })

  // Registries: all open; firewall rules that admit the internet together; a Premium one behind a real firewall with
  // the admin user left out (absent = disabled) and no private endpoint or CMK.
  resource(sub, "images", "Microsoft.ContainerRegistry/registries", "badacr", "eastus", { adminUserEnabled: true, anonymousPullEnabled: true, publicNetworkAccess: "Enabled" }, { sku: { name: "Standard", tier: "Standard" } })
  resource(sub, "images", "Microsoft.ContainerRegistry/registries", "badacr2", "eastus", { publicNetworkAccess: "Enabled", networkRuleSet: { defaultAction: "Deny", ipRules: [{ action: "Allow", value: "0.0.0.0/1" }, { action: "Allow", value: "128.0.0.0/1" }] } }, { sku: { name: "Premium", tier: "Premium" } })
  resource(sub, "images", "Microsoft.ContainerRegistry/registries", "okacr2", "westeurope", { networkRuleSet: { defaultAction: "Deny", ipRules: [{ action: "Allow", value: "203.0.113.7" }] } }, { sku: { name: "Premium", tier: "Premium" } })
  // Vaults: everything off; and one with the security and redundancy settings left out (soft delete and geo-redundancy are the defaults).
  resource(sub, "backup", "Microsoft.RecoveryServices/vaults", "bad-rsv", "eastus", { publicNetworkAccess: "Enabled", securitySettings: { immutabilitySettings: { state: "Disabled" }, softDeleteSettings: { softDeleteState: "Disabled" } }, redundancySettings: { standardTierStorageRedundancy: "LocallyRedundant" } }, { sku: { name: "RS0", tier: "Standard" } })
  resource(sub, "backup", "Microsoft.RecoveryServices/vaults", "ok-rsv2", "westeurope", { provisioningState: "Succeeded" }, { sku: { name: "RS0", tier: "Standard" } })
  return sub
}
