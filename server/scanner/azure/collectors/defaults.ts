/**
 * Documented defaults (issue 29): what an absent optional field means, for every optional field an Azure check reads,
 * with the reference it comes from. The references are the official models (the `@azure/arm-*` packages carry the REST
 * specification's descriptions: "The default interpretation is false for this property") or, where the package does
 * not carry it, the REST specification in azure-rest-api-specs (`"default": …`).
 *
 * The checks read absent fields this way; tests/scanner-azure/defaults.property.test.ts generates inventories with each
 * field present (any documented value) or absent and checks that every check decides the same as with the default
 * filled in. Fields whose absence is itself the state a check judges (a key without `exp` never expires, a resource
 * without private endpoint connections has none) have no default and are not listed.
 */
import type { AzureInventories } from "../inventory.ts"

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [k: string]: Json }

export interface DocumentedDefault {
  /** "storage.accounts properties.allowBlobPublicAccess" (what the table shows). */
  readonly id: string
  /** The objects holding the field, from the collector's section (e.g. every storage account). */
  readonly items: (inv: Partial<AzureInventories>) => ReadonlyArray<object>
  /** Dotted path from the item; the parent must exist for the field to be filled ("[]" walks an array). */
  readonly path: string
  /** What absent means, possibly depending on the item (Cosmos DB's minimal TLS version depends on the API). */
  readonly absent: Json | ((item: object) => Json)
  /** Documented values the field can take when present (drawn by the property test). */
  readonly values: ReadonlyArray<Json>
  readonly reference: string
}

const storage = (inv: Partial<AzureInventories>) => inv.storage?.accounts ?? []
const vaults = (inv: Partial<AzureInventories>) => inv.keyvault?.vaults ?? []
const sites = (inv: Partial<AzureInventories>) => inv.appservice?.sites ?? []
const siteConfigs = (inv: Partial<AzureInventories>) => sites(inv).flatMap((s) => (s.config === undefined ? [] : [s.config]))
const flexible = (inv: Partial<AzureInventories>) => [...(inv.postgresql?.servers ?? []), ...(inv.mysql?.servers ?? [])]
const cosmos = (inv: Partial<AzureInventories>) => inv.cosmosdb?.accounts ?? []
const clusters = (inv: Partial<AzureInventories>) => inv.aks?.clusters ?? []
const disks = (inv: Partial<AzureInventories>) => inv.vm?.disks ?? []
const registries = (inv: Partial<AzureInventories>) => inv.acr?.registries ?? []
const rsvs = (inv: Partial<AzureInventories>) => inv.recovery?.vaults ?? []
const alerts = (inv: Partial<AzureInventories>) => inv.monitor?.activityLogAlerts ?? []

const authz = (inv: Partial<AzureInventories>) => (inv.entra?.authorizationPolicy === undefined ? [] : [inv.entra.authorizationPolicy])
const GRAPH = "@microsoft/microsoft-graph-types AuthorizationPolicy (Microsoft Graph v1.0 authorizationPolicy)"
const STORAGE = "@azure/arm-storage StorageAccount (Microsoft.Storage storage.json)"
const KEYVAULT = "@azure/arm-keyvault VaultProperties (Microsoft.KeyVault keyvault.json)"

/** Cosmos DB: "The default is Tls 1.0, except for Cassandra and Mongo API's, which only work with Tls 1.2." */
export const cosmosDefaultTls = (account: object): string => {
  const a = account as { readonly kind?: string; readonly properties?: { readonly capabilities?: ReadonlyArray<{ readonly name?: string }> } }
  const cassandra = (a.properties?.capabilities ?? []).some((c) => (c.name ?? "").toLowerCase() === "enablecassandra")
  return a.kind === "MongoDB" || cassandra ? "Tls12" : "Tls"
}

export const documentedDefaults: ReadonlyArray<DocumentedDefault> = [
  // Storage accounts
  { id: "storage.accounts properties.supportsHttpsTrafficOnly", items: storage, path: "properties.supportsHttpsTrafficOnly", absent: true, values: [true, false], reference: `${STORAGE}: "The default value is true since API version 2019-04-01."` },
  { id: "storage.accounts properties.allowBlobPublicAccess", items: storage, path: "properties.allowBlobPublicAccess", absent: false, values: [true, false], reference: `${STORAGE}: "The default interpretation is false for this property."` },
  { id: "storage.accounts properties.minimumTlsVersion", items: storage, path: "properties.minimumTlsVersion", absent: "TLS1_0", values: ["TLS1_0", "TLS1_1", "TLS1_2", "TLS1_3"], reference: `${STORAGE}: "The default interpretation is TLS 1.0 for this property."` },
  { id: "storage.accounts properties.allowCrossTenantReplication", items: storage, path: "properties.allowCrossTenantReplication", absent: false, values: [true, false], reference: `${STORAGE}: "The default interpretation is false for new accounts to follow best security practices by default."` },
  { id: "storage.accounts properties.allowSharedKeyAccess", items: storage, path: "properties.allowSharedKeyAccess", absent: true, values: [true, false, null], reference: `${STORAGE}: "The default value is null, which is equivalent to true."` },
  { id: "storage.accounts properties.defaultToOAuthAuthentication", items: storage, path: "properties.defaultToOAuthAuthentication", absent: false, values: [true, false], reference: `${STORAGE}: "The default interpretation is false for this property."` },
  { id: "storage.accounts properties.publicNetworkAccess", items: storage, path: "properties.publicNetworkAccess", absent: "Enabled", values: ["Enabled", "Disabled", "SecuredByPerimeter"], reference: `${STORAGE}: optional ("Value is optional but if passed in, must be 'Enabled', 'Disabled' or 'SecuredByPerimeter'"); unset, the network rules alone govern public access` },
  { id: "storage.accounts properties.networkAcls", items: storage, path: "properties.networkAcls", absent: { bypass: "AzureServices", defaultAction: "Allow" }, values: [], reference: `${STORAGE}: NetworkRuleSet absent = no firewall (defaultAction Allow; bypass default "AzureServices" in storage.json)` },
  { id: "storage.accounts properties.networkAcls.bypass", items: storage, path: "properties.networkAcls.bypass", absent: "AzureServices", values: ["None", "AzureServices", "Logging, Metrics", "Logging, Metrics, AzureServices"], reference: `Microsoft.Storage storage.json NetworkRuleSet.bypass: "default": "AzureServices"` },
  { id: "storage.accounts properties.networkAcls.ipRules[].action", items: storage, path: "properties.networkAcls.ipRules[].action", absent: "Allow", values: ["Allow"], reference: `${STORAGE} IPRule.action: "The action of IP ACL rule." (only Allow; default "Allow" in storage.json)` },
  { id: "storage.accounts properties.encryption.keySource", items: storage, path: "properties.encryption.keySource", absent: "Microsoft.Storage", values: ["Microsoft.Storage", "Microsoft.Keyvault"], reference: `${STORAGE} Encryption.keySource: "default": "Microsoft.Storage" (storage.json)` },
  { id: "storage.accounts properties.encryption.requireInfrastructureEncryption", items: storage, path: "properties.encryption.requireInfrastructureEncryption", absent: false, values: [true, false], reference: `${STORAGE} Encryption.requireInfrastructureEncryption: a secondary layer "with platform managed keys for data at rest" only when true` },
  { id: "storage.blob_services properties.isVersioningEnabled", items: (inv) => storage(inv).flatMap((a) => (a.blobService === undefined ? [] : [a.blobService])), path: "properties.isVersioningEnabled", absent: false, values: [true, false], reference: "@azure/arm-storage BlobServiceProperties.isVersioningEnabled: versioning is on only when true" },
  { id: "storage.blob_services properties.deleteRetentionPolicy", items: (inv) => storage(inv).flatMap((a) => (a.blobService === undefined ? [] : [a.blobService])), path: "properties.deleteRetentionPolicy", absent: { enabled: false }, values: [{ enabled: true, days: 7 }, { enabled: false }], reference: "@azure/arm-storage DeleteRetentionPolicy: soft delete is on only when `enabled` is true" },
  { id: "storage.blob_services properties.containerDeleteRetentionPolicy", items: (inv) => storage(inv).flatMap((a) => (a.blobService === undefined ? [] : [a.blobService])), path: "properties.containerDeleteRetentionPolicy", absent: { enabled: false }, values: [{ enabled: true, days: 7 }, { enabled: false }], reference: "@azure/arm-storage DeleteRetentionPolicy: soft delete is on only when `enabled` is true" },
  { id: "storage.file_services properties.shareDeleteRetentionPolicy", items: (inv) => storage(inv).flatMap((a) => (a.fileService === undefined ? [] : [a.fileService])), path: "properties.shareDeleteRetentionPolicy", absent: { enabled: false }, values: [{ enabled: true, days: 7 }, { enabled: false }], reference: "@azure/arm-storage DeleteRetentionPolicy: soft delete is on only when `enabled` is true" },
  { id: "storage.file_services properties.protocolSettings.smb.versions", items: (inv) => storage(inv).flatMap((a) => (a.fileService === undefined ? [] : [a.fileService])), path: "properties.protocolSettings.smb.versions", absent: null, values: ["SMB3.1.1", "SMB3.0;SMB3.1.1", "SMB2.1;SMB3.0;SMB3.1.1"], reference: "@azure/arm-storage SmbSetting.versions: \"SMB protocol versions supported by server\"; unset = every version" },
  { id: "storage.file_services properties.protocolSettings.smb.channelEncryption", items: (inv) => storage(inv).flatMap((a) => (a.fileService === undefined ? [] : [a.fileService])), path: "properties.protocolSettings.smb.channelEncryption", absent: null, values: ["AES-256-GCM", "AES-128-GCM;AES-256-GCM", "AES-128-CCM;AES-128-GCM;AES-256-GCM"], reference: "@azure/arm-storage SmbSetting.channelEncryption: unset = every algorithm" },
  // Key Vault
  { id: "keyvault.vaults properties.enableSoftDelete", items: vaults, path: "properties.enableSoftDelete", absent: true, values: [true, false], reference: `${KEYVAULT}: "If it's not set to any value(true or false) when creating new key vault, it will be set to true by default."` },
  { id: "keyvault.vaults properties.enablePurgeProtection", items: vaults, path: "properties.enablePurgeProtection", absent: false, values: [true], reference: `${KEYVAULT}: "Setting this property to true activates protection against purge" (it cannot be set to false)` },
  { id: "keyvault.vaults properties.enableRbacAuthorization", items: vaults, path: "properties.enableRbacAuthorization", absent: false, values: [true, false], reference: `${KEYVAULT}: "If null or not specified, the vault is created with the default value of false."` },
  { id: "keyvault.vaults properties.publicNetworkAccess", items: vaults, path: "properties.publicNetworkAccess", absent: "enabled", values: ["enabled", "disabled", "Enabled", "Disabled"], reference: `Microsoft.KeyVault keyvault.json VaultProperties.publicNetworkAccess: "default": "enabled"` },
  { id: "keyvault.vaults properties.networkAcls.bypass", items: vaults, path: "properties.networkAcls.bypass", absent: "AzureServices", values: ["AzureServices", "None"], reference: `${KEYVAULT} NetworkRuleSet.bypass: "If not specified the default is 'AzureServices'."` },
  { id: "keyvault.keys properties.attributes.enabled", items: (inv) => vaults(inv).flatMap((v) => v.keys ?? []), path: "properties.attributes.enabled", absent: true, values: [true, false], reference: "@azure/arm-keyvault KeyAttributes.enabled: Key Vault creates keys enabled unless `enabled` is false" },
  { id: "keyvault.secrets properties.attributes.enabled", items: (inv) => vaults(inv).flatMap((v) => v.secrets ?? []), path: "properties.attributes.enabled", absent: true, values: [true, false], reference: "@azure/arm-keyvault Attributes.enabled: Key Vault creates secrets enabled unless `enabled` is false" },
  // Databases
  { id: "sql.servers properties.publicNetworkAccess", items: (inv) => inv.sql?.servers ?? [], path: "properties.publicNetworkAccess", absent: "Enabled", values: ["Enabled", "Disabled", "SecuredByPerimeter"], reference: "@azure/arm-sql Server.publicNetworkAccess: \"Value is optional but if passed in, must be 'Enabled' or 'Disabled' or 'SecuredByPerimeter'\"; unset, the public endpoint is on (firewall rules govern it)" },
  { id: "sql.servers properties.minimalTlsVersion", items: (inv) => inv.sql?.servers ?? [], path: "properties.minimalTlsVersion", absent: "None", values: ["None", "1.0", "1.1", "1.2", "1.3"], reference: "@azure/arm-sql Server.minimalTlsVersion: \"Allowed values: 'None', 1.0, 1.1, 1.2, 1.3\"; unset = None (no minimum)" },
  { id: "flexible.servers properties.backup.geoRedundantBackup", items: flexible, path: "properties.backup.geoRedundantBackup", absent: "Disabled", values: ["Enabled", "Disabled"], reference: "@azure/arm-postgresql-flexible / arm-mysql-flexible Backup.geoRedundantBackup: \"default\": \"Disabled\"" },
  { id: "flexible.servers properties.highAvailability.mode", items: flexible, path: "properties.highAvailability.mode", absent: "Disabled", values: ["Disabled", "ZoneRedundant", "SameZone"], reference: "@azure/arm-postgresql-flexible / arm-mysql-flexible HighAvailability.mode: \"default\": \"Disabled\"" },
  { id: "cosmosdb.accounts properties.publicNetworkAccess", items: cosmos, path: "properties.publicNetworkAccess", absent: "Enabled", values: ["Enabled", "Disabled", "SecuredByPerimeter"], reference: "@azure/arm-cosmosdb DatabaseAccountGetResults.publicNetworkAccess: \"Whether requests from Public Network are allowed\"; unset = allowed" },
  { id: "cosmosdb.accounts properties.isVirtualNetworkFilterEnabled", items: cosmos, path: "properties.isVirtualNetworkFilterEnabled", absent: false, values: [true, false], reference: "@azure/arm-cosmosdb: \"Flag to indicate whether to enable/disable Virtual Network ACL rules.\" (off unless true)" },
  { id: "cosmosdb.accounts properties.minimalTlsVersion", items: cosmos, path: "properties.minimalTlsVersion", absent: cosmosDefaultTls, values: ["Tls", "Tls11", "Tls12"], reference: "@azure/arm-cosmosdb: \"The default is Tls 1.0, except for Cassandra and Mongo API's, which only work with Tls 1.2.\"" },
  { id: "cosmosdb.accounts properties.disableLocalAuth", items: cosmos, path: "properties.disableLocalAuth", absent: false, values: [true, false], reference: "@azure/arm-cosmosdb: \"Opt-out of local authentication and ensure only MSI and AAD can be used exclusively for authentication.\" (keys work unless true)" },
  { id: "cosmosdb.accounts properties.enableAutomaticFailover", items: cosmos, path: "properties.enableAutomaticFailover", absent: false, values: [true, false], reference: "@azure/arm-cosmosdb: \"Enables automatic failover of the write region\" (off unless true)" },
  { id: "cosmosdb.accounts properties.backupPolicy", items: cosmos, path: "properties.backupPolicy", absent: { type: "Periodic" }, values: [{ type: "Periodic" }, { type: "Continuous" }], reference: "@azure/arm-cosmosdb BackupPolicy: accounts without a policy use periodic backup (the default mode)" },
  // Monitor
  { id: "monitor.activity_log_alerts properties.enabled", items: alerts, path: "properties.enabled", absent: true, values: [true, false], reference: "@azure/arm-monitor ActivityLogAlertResource.enabled: \"If an Activity Log Alert rule is not enabled, then none of its actions will be activated.\" (\"default\": true in activityLogAlerts.json)" },
  // Compute
  { id: "vm.disks properties.networkAccessPolicy", items: disks, path: "properties.networkAccessPolicy", absent: "AllowAll", values: ["AllowAll", "AllowPrivate", "DenyAll"], reference: "@azure/arm-compute Disk.networkAccessPolicy: policy for accessing the disk via network; unset = AllowAll (the service default)" },
  { id: "vm.disks properties.encryption.type", items: disks, path: "properties.encryption.type", absent: "EncryptionAtRestWithPlatformKey", values: ["EncryptionAtRestWithPlatformKey", "EncryptionAtRestWithCustomerKey", "EncryptionAtRestWithPlatformAndCustomerKeys"], reference: "@azure/arm-compute Encryption.type: \"Disk is encrypted at rest with Platform managed key. It is the default encryption type.\"" },
  // App Service
  { id: "appservice.sites properties.httpsOnly", items: sites, path: "properties.httpsOnly", absent: false, values: [true, false], reference: "@azure/arm-appservice Site.httpsOnly: \"configures a web site to accept only https requests\" (\"default\": false in WebApps.json)" },
  { id: "appservice.sites properties.clientCertEnabled", items: sites, path: "properties.clientCertEnabled", absent: false, values: [true, false], reference: "@azure/arm-appservice Site.clientCertEnabled: \"Default is false.\"" },
  { id: "appservice.sites properties.clientCertMode", items: sites, path: "properties.clientCertMode", absent: "Required", values: ["Required", "Optional", "OptionalInteractiveUser"], reference: "Microsoft.Web WebApps.json Site.clientCertMode: \"ClientCertEnabled: true and ClientCertMode: Required means ClientCert is required\" (\"default\": \"Required\")" },
  { id: "appservice.site_config properties.http20Enabled", items: siteConfigs, path: "properties.http20Enabled", absent: true, values: [true, false], reference: "Microsoft.Web CommonDefinitions.json SiteConfig.http20Enabled: \"default\": true" },
  { id: "appservice.site_config properties.remoteDebuggingEnabled", items: siteConfigs, path: "properties.remoteDebuggingEnabled", absent: false, values: [true, false], reference: "@azure/arm-appservice SiteConfig.remoteDebuggingEnabled: \"true if remote debugging is enabled; otherwise, false\" (off unless true)" },
  // Microsoft Entra ID (Microsoft Graph v1.0)
  { id: "entra.authorization_policy defaultUserRolePermissions.allowedToCreateApps", items: authz, path: "defaultUserRolePermissions.allowedToCreateApps", absent: true, values: [true, false], reference: `${GRAPH} defaultUserRolePermissions.allowedToCreateApps: "Indicates whether the default user role can create applications." (tenant default: Yes)` },
  { id: "entra.authorization_policy defaultUserRolePermissions.allowedToCreateTenants", items: authz, path: "defaultUserRolePermissions.allowedToCreateTenants", absent: true, values: [true, false, null], reference: `${GRAPH} defaultUserRolePermissions.allowedToCreateTenants: "Indicates whether the default user role can create tenants." (tenant default: Yes)` },
  { id: "entra.authorization_policy defaultUserRolePermissions.allowedToCreateSecurityGroups", items: authz, path: "defaultUserRolePermissions.allowedToCreateSecurityGroups", absent: true, values: [true, false], reference: `${GRAPH} defaultUserRolePermissions.allowedToCreateSecurityGroups (tenant default: Yes)` },
  { id: "entra.authorization_policy defaultUserRolePermissions.permissionGrantPoliciesAssigned", items: authz, path: "defaultUserRolePermissions.permissionGrantPoliciesAssigned", absent: ["ManagePermissionGrantsForSelf.microsoft-user-default-legacy"], values: [[], ["ManagePermissionGrantsForSelf.microsoft-user-default-low"], ["ManagePermissionGrantsForSelf.microsoft-user-default-legacy"]], reference: `${GRAPH} permissionGrantPoliciesAssigned: the tenant default assigns microsoft-user-default-legacy (users may consent)` },
  { id: "entra.authorization_policy allowInvitesFrom", items: authz, path: "allowInvitesFrom", absent: "everyone", values: ["none", "adminsAndGuestInviters", "adminsGuestInvitersAndAllMembers", "everyone"], reference: `${GRAPH} allowInvitesFrom: "everyone is the default setting for all cloud environments except US Government"` },
  { id: "entra.security_defaults isEnabled", items: (inv) => (inv.entra?.securityDefaults === undefined ? [] : [inv.entra.securityDefaults]), path: "isEnabled", absent: false, values: [true, false], reference: "@microsoft/microsoft-graph-types IdentitySecurityDefaultsEnforcementPolicy.isEnabled: \"If set to true, Microsoft Entra security defaults are enabled\"" },
  { id: "entra.conditional_access grantControls.operator", items: (inv) => (inv.entra?.conditionalAccessPolicies ?? []).flatMap((p) => (p.grantControls == null ? [] : [p])), path: "grantControls.operator", absent: "OR", values: ["OR", "AND"], reference: "@microsoft/microsoft-graph-types ConditionalAccessGrantControls.operator: \"Defines the relationship of the grant controls. Possible values: AND, OR.\" (one control: either)" },
  { id: "entra.named_locations isTrusted", items: (inv) => inv.entra?.namedLocations ?? [], path: "isTrusted", absent: false, values: [true, false], reference: "@microsoft/microsoft-graph-types IpNamedLocation.isTrusted: \"true if this location is explicitly trusted\"" },
  { id: "entra.device_registration multiFactorAuthConfiguration", items: (inv) => (inv.entra?.deviceRegistrationPolicy === undefined ? [] : [inv.entra.deviceRegistrationPolicy]), path: "multiFactorAuthConfiguration", absent: "notRequired", values: ["notRequired", "required"], reference: "@microsoft/microsoft-graph-types DeviceRegistrationPolicy.multiFactorAuthConfiguration: \"The default value is notRequired.\"" },
  // Container registries
  { id: "acr.registries properties.adminUserEnabled", items: registries, path: "properties.adminUserEnabled", absent: false, values: [true, false], reference: "@azure/arm-containerregistry Registry.adminUserEnabled: \"The value that indicates whether the admin user is enabled.\" (\"default\": false in containerregistry.json)" },
  { id: "acr.registries properties.anonymousPullEnabled", items: registries, path: "properties.anonymousPullEnabled", absent: false, values: [true, false], reference: "@azure/arm-containerregistry Registry.anonymousPullEnabled: \"Enables registry-wide pull from unauthenticated clients.\" (\"default\": false)" },
  { id: "acr.registries properties.publicNetworkAccess", items: registries, path: "properties.publicNetworkAccess", absent: "Enabled", values: ["Enabled", "Disabled"], reference: "@azure/arm-containerregistry Registry.publicNetworkAccess: \"Whether or not public network access is allowed for the container registry.\" (\"default\": \"Enabled\")" },
  { id: "acr.registries properties.networkRuleSet", items: registries, path: "properties.networkRuleSet", absent: { defaultAction: "Allow" }, values: [{ defaultAction: "Allow" }, { defaultAction: "Deny", ipRules: [] }], reference: "@azure/arm-containerregistry NetworkRuleSet.defaultAction: \"The default action of allow or deny when no other rules match.\" (\"default\": \"Allow\"; no rule set = no firewall)" },
  { id: "acr.registries properties.encryption.status", items: registries, path: "properties.encryption.status", absent: "disabled", values: ["enabled", "disabled"], reference: "@azure/arm-containerregistry EncryptionProperty.status: \"Indicates whether or not the encryption is enabled for container registry.\" (disabled unless a key is configured)" },
  // Recovery Services vaults
  { id: "recovery.vaults properties.securitySettings.softDeleteSettings.softDeleteState", items: rsvs, path: "properties.securitySettings.softDeleteSettings.softDeleteState", absent: "Enabled", values: ["Enabled", "Disabled", "AlwaysON"], reference: "@azure/arm-recoveryservices SoftDeleteSettings.softDeleteState; soft delete is on by default for every vault (Azure Backup documentation)" },
  { id: "recovery.vaults properties.securitySettings.immutabilitySettings.state", items: rsvs, path: "properties.securitySettings.immutabilitySettings.state", absent: "Disabled", values: ["Disabled", "Unlocked", "Locked"], reference: "@azure/arm-recoveryservices ImmutabilitySettings.state (Disabled | Unlocked | Locked); off until set" },
  { id: "recovery.vaults properties.publicNetworkAccess", items: rsvs, path: "properties.publicNetworkAccess", absent: "Enabled", values: ["Enabled", "Disabled"], reference: "@azure/arm-recoveryservices VaultProperties.publicNetworkAccess: \"property to enable or disable resource provider inbound network traffic from public clients\" (enabled unless disabled)" },
  { id: "recovery.vaults properties.redundancySettings.standardTierStorageRedundancy", items: rsvs, path: "properties.redundancySettings.standardTierStorageRedundancy", absent: "GeoRedundant", values: ["LocallyRedundant", "GeoRedundant", "ZoneRedundant"], reference: "@azure/arm-recoveryservices VaultPropertiesRedundancySettings.standardTierStorageRedundancy; vaults are created geo-redundant by default (Azure Backup documentation)" },
  // AKS
  { id: "aks.clusters properties.autoUpgradeProfile.upgradeChannel", items: clusters, path: "properties.autoUpgradeProfile.upgradeChannel", absent: "none", values: ["none", "patch", "stable", "rapid", "node-image"], reference: "@azure/arm-containerservice ManagedClusterAutoUpgradeProfile.upgradeChannel: \"The default is 'none'.\"" },
  { id: "aks.clusters properties.disableLocalAccounts", items: clusters, path: "properties.disableLocalAccounts", absent: false, values: [true, false], reference: "@azure/arm-containerservice: \"If set to true, getting static credentials will be disabled for this cluster.\" (local accounts work unless true)" },
  { id: "aks.clusters properties.apiServerAccessProfile.enablePrivateCluster", items: clusters, path: "properties.apiServerAccessProfile.enablePrivateCluster", absent: false, values: [true, false], reference: "@azure/arm-containerservice ManagedClusterAPIServerAccessProfile.enablePrivateCluster: private only when true" },
]

/** The value an absent field stands for, for one item. */
export const absentValue = (d: DocumentedDefault, item: object): Json => (typeof d.absent === "function" ? d.absent(item) : d.absent)
