/** Storage account checks (CIS Azure v3 section 4 / v4 section 10). */
import { defineAzureCheck, resourceRow } from "../define-check.ts"
import { hasDataService, hasFileService, type StorageAccountInfo, type StorageLogService } from "../collectors/storage.ts"
import type { DiagnosticSetting } from "../collectors/keyvault.ts"
import type { DetailRow } from "../../check.ts"
import { internetEntries } from "../address.ts"

type Props = NonNullable<StorageAccountInfo["properties"]>

/** Premium accounts (Premium_LRS, Premium_ZRS) have no geo-redundant option. */
const premium = (a: StorageAccountInfo) => /^premium_/i.test(a.sku?.name ?? "")

/** Allowed IP rules of the account's firewall that admit the internet. */
const internetIpRules = (p: Props | undefined): string[] =>
  internetEntries((p?.networkAcls?.ipRules ?? []).filter((r) => (r.action ?? "Allow") === "Allow").map((r) => r.value), (v) => v)

interface AccountRule {
  readonly id: string
  readonly cis: { readonly v3?: string; readonly v4?: string }
  readonly title: string
  readonly description: string
  readonly severity: "critical" | "high" | "medium" | "low"
  readonly remediation: string
  readonly reads: string
  readonly label: string
  readonly value: (p: Props | undefined, a: StorageAccountInfo) => DetailRow[string]
  readonly ok: (p: Props | undefined, a: StorageAccountInfo) => boolean
  readonly pass: string | ((p: Props | undefined, a: StorageAccountInfo) => string)
  readonly fail: string | ((p: Props | undefined, a: StorageAccountInfo) => string)
}

const rules: ReadonlyArray<AccountRule> = [
  {
    id: "storage_secure_transfer_required",
    cis: { v3: "4.1", v4: "10.3.4" },
    title: "Secure transfer required should be enabled on storage accounts",
    description: "Checks the account refuses plain HTTP (supportsHttpsTrafficOnly).",
    severity: "high",
    remediation: "az storage account update -n ACCOUNT --https-only true",
    reads: "properties.supportsHttpsTrafficOnly",
    label: "HTTPS only",
    // Absent: true ("The default value is true since API version 2019-04-01", collectors/defaults.ts).
    value: (p) => p?.supportsHttpsTrafficOnly ?? true,
    ok: (p) => (p?.supportsHttpsTrafficOnly ?? true) === true,
    pass: "Only HTTPS requests are accepted.",
    fail: "Plain HTTP requests are accepted.",
  },
  {
    id: "storage_infrastructure_encryption",
    cis: { v3: "4.2" },
    title: "Infrastructure encryption should be enabled on storage accounts",
    description: "Checks the account encrypts data a second time at the infrastructure layer (requireInfrastructureEncryption, set at creation).",
    severity: "low",
    remediation: "Infrastructure encryption can only be chosen when the account is created: create a new account with --require-infrastructure-encryption and copy the data.",
    reads: "properties.encryption.requireInfrastructureEncryption",
    label: "Infrastructure encryption",
    value: (p) => p?.encryption?.requireInfrastructureEncryption ?? false,
    ok: (p) => p?.encryption?.requireInfrastructureEncryption === true,
    pass: "Infrastructure (double) encryption is on.",
    fail: "Infrastructure encryption is off.",
  },
  {
    id: "storage_encryption_with_cmk",
    cis: {},
    title: "Storage accounts should encrypt data with a customer-managed key",
    description: "Checks the account's encryption key source is Microsoft.Keyvault (a key you control, rotate and can revoke) rather than Microsoft-managed keys.",
    severity: "low",
    remediation: "Give the account's identity access to a Key Vault key, then: az storage account update -n ACCOUNT --encryption-key-source Microsoft.Keyvault --encryption-key-vault VAULT_URI --encryption-key-name KEY",
    reads: "properties.encryption.keySource",
    label: "Key source",
    value: (p) => p?.encryption?.keySource ?? "Microsoft.Storage",
    ok: (p) => (p?.encryption?.keySource ?? "").toLowerCase() === "microsoft.keyvault",
    pass: "Data is encrypted with a customer-managed key.",
    fail: "Data is encrypted with Microsoft-managed keys.",
  },
  {
    id: "storage_public_network_access_disabled",
    cis: { v3: "4.6", v4: "10.3.2.2" },
    title: "Public network access should be disabled on storage accounts",
    description: "Checks publicNetworkAccess is Disabled.",
    severity: "medium",
    remediation: "After setting up private endpoints: az storage account update -n ACCOUNT --public-network-access Disabled",
    reads: "properties.publicNetworkAccess",
    label: "Public network access",
    value: (p) => p?.publicNetworkAccess ?? "Enabled",
    ok: (p) => (p?.publicNetworkAccess ?? "Enabled").toLowerCase() === "disabled",
    pass: "Public network access is disabled.",
    fail: "Public network access is enabled.",
  },
  {
    id: "storage_default_network_access_deny",
    cis: { v3: "4.7", v4: "10.3.2.3" },
    title: "The default network access rule for storage accounts should be Deny",
    description: "Checks networkAcls.defaultAction is Deny, so only listed networks reach the account, and that the IP rules do not admit the internet.",
    severity: "medium",
    remediation: "az storage account update -n ACCOUNT --default-action Deny (add network rules for legitimate clients first).",
    reads: "properties.networkAcls.defaultAction, ipRules[].value",
    label: "Default action",
    value: (p) => p?.networkAcls?.defaultAction ?? "Allow",
    // Deny with IP rules that admit the internet (0.0.0.0/0, or rules covering it together) restricts nothing.
    ok: (p) => p?.networkAcls?.defaultAction === "Deny" && internetIpRules(p).length === 0,
    pass: "Traffic from unlisted networks is denied.",
    fail: (p) => (p?.networkAcls?.defaultAction === "Deny" ? `The IP rules admit the internet (${internetIpRules(p).join(", ")}).` : "Traffic from all networks is allowed."),
  },
  {
    id: "storage_trusted_azure_services",
    cis: { v3: "4.8", v4: "10.3.5" },
    title: "Trusted Azure services should be allowed to access storage accounts",
    description: "Checks networkAcls.bypass includes AzureServices, so backup, monitoring and other trusted services keep working when the firewall is on.",
    severity: "low",
    remediation: "az storage account update -n ACCOUNT --bypass AzureServices Logging Metrics",
    reads: "properties.networkAcls.bypass",
    label: "Bypass",
    // Absent: AzureServices (storage.json NetworkRuleSet.bypass default, collectors/defaults.ts).
    value: (p) => p?.networkAcls?.bypass ?? "AzureServices",
    ok: (p) => (p?.networkAcls?.bypass ?? "AzureServices").split(",").map((s) => s.trim().toLowerCase()).includes("azureservices"),
    pass: "Trusted Azure services may bypass the firewall.",
    fail: "Trusted Azure services are not allowed through the firewall.",
  },
  {
    id: "storage_private_endpoints",
    cis: { v3: "4.9", v4: "10.3.2.1" },
    title: "Private endpoints should be used to access storage accounts",
    description: "Checks the account has at least one approved private endpoint connection.",
    severity: "medium",
    remediation: "Create a private endpoint for the account (az network private-endpoint create --group-id blob …).",
    reads: "properties.privateEndpointConnections[]",
    label: "Private endpoints",
    value: (p) => (p?.privateEndpointConnections ?? []).filter((c) => (c.properties?.privateLinkServiceConnectionState?.status ?? "Approved") === "Approved").length,
    ok: (p) => (p?.privateEndpointConnections ?? []).some((c) => (c.properties?.privateLinkServiceConnectionState?.status ?? "Approved") === "Approved"),
    pass: "The account has a private endpoint.",
    fail: "The account has no private endpoint.",
  },
  {
    id: "storage_minimum_tls_12",
    cis: { v3: "4.15", v4: "10.3.7" },
    title: "The minimum TLS version for storage accounts should be 1.2",
    description: "Checks minimumTlsVersion is TLS1_2 or later.",
    severity: "high",
    remediation: "az storage account update -n ACCOUNT --min-tls-version TLS1_2",
    reads: "properties.minimumTlsVersion",
    label: "Minimum TLS",
    value: (p) => p?.minimumTlsVersion ?? "TLS1_0",
    ok: (p) => ["TLS1_2", "TLS1_3"].includes(p?.minimumTlsVersion ?? ""),
    pass: "Requests need TLS 1.2 or later.",
    fail: "Requests over TLS 1.0/1.1 are accepted.",
  },
  {
    id: "storage_cross_tenant_replication_disabled",
    cis: { v3: "4.16", v4: "10.3.8" },
    title: "Cross-tenant replication should be disabled on storage accounts",
    description: "Checks allowCrossTenantReplication is false, so object replication cannot copy data to another tenant.",
    severity: "medium",
    remediation: "az storage account update -n ACCOUNT --allow-cross-tenant-replication false",
    reads: "properties.allowCrossTenantReplication",
    label: "Cross-tenant replication",
    // Absent: false ("The default interpretation is false for new accounts", collectors/defaults.ts).
    value: (p) => p?.allowCrossTenantReplication ?? false,
    ok: (p) => (p?.allowCrossTenantReplication ?? false) === false,
    pass: "Cross-tenant replication is disabled.",
    fail: "Cross-tenant replication is allowed.",
  },
  {
    id: "storage_blob_anonymous_access_disabled",
    cis: { v3: "4.17", v4: "10.3.9" },
    title: "Blob anonymous access should be disabled on storage accounts",
    description: "Checks allowBlobPublicAccess is false, so no container can be made public.",
    severity: "critical",
    remediation: "az storage account update -n ACCOUNT --allow-blob-public-access false",
    reads: "properties.allowBlobPublicAccess",
    label: "Blob public access",
    // Absent: false ("The default interpretation is false for this property", collectors/defaults.ts).
    value: (p) => p?.allowBlobPublicAccess ?? false,
    ok: (p) => (p?.allowBlobPublicAccess ?? false) === false,
    pass: "Anonymous blob access is disabled.",
    fail: "Containers can be made publicly readable.",
  },
  {
    id: "storage_shared_key_access_disabled",
    cis: { v4: "10.3.1.3" },
    title: "Storage account key access should be disabled",
    description: "Checks allowSharedKeyAccess is false, so only Entra ID (and user-delegation SAS) can authorize requests.",
    severity: "medium",
    remediation: "Move clients to Entra ID, then az storage account update -n ACCOUNT --allow-shared-key-access false",
    reads: "properties.allowSharedKeyAccess",
    label: "Shared key access",
    value: (p) => p?.allowSharedKeyAccess ?? true,
    ok: (p) => p?.allowSharedKeyAccess === false,
    pass: "Shared key authorization is disabled.",
    fail: "Shared key authorization is allowed.",
  },
  {
    id: "storage_default_to_entra_authorization",
    cis: { v4: "10.3.3.1" },
    title: "'Default to Microsoft Entra authorization in the Azure portal' should be enabled",
    description: "Checks defaultToOAuthAuthentication is true.",
    severity: "low",
    remediation: "az storage account update -n ACCOUNT --set defaultToOAuthAuthentication=true",
    reads: "properties.defaultToOAuthAuthentication",
    label: "Default to Entra authorization",
    value: (p) => p?.defaultToOAuthAuthentication ?? false,
    ok: (p) => p?.defaultToOAuthAuthentication === true,
    pass: "The portal uses Entra authorization by default.",
    fail: "The portal uses account keys by default.",
  },
  {
    id: "storage_geo_redundant",
    cis: { v4: "10.3.12" },
    title: "Storage accounts should use geo-redundant storage",
    description: "Checks the replication SKU is GRS, RA-GRS, GZRS or RA-GZRS (review accounts holding critical data). Premium accounts, which cannot replicate to a second region, are not judged.",
    severity: "low",
    remediation: "az storage account update -n ACCOUNT --sku Standard_GZRS (billable).",
    reads: "sku.name",
    label: "Replication",
    value: (_p, a) => a.sku?.name ?? null,
    ok: (_p, a) => ["Standard_GRS", "Standard_RAGRS", "Standard_GZRS", "Standard_RAGZRS"].includes(a.sku?.name ?? "") || premium(a),
    pass: (_p, a) => (premium(a) ? "Not judged: premium accounts (Premium_LRS, Premium_ZRS) cannot replicate to a second region." : "Data is replicated to a second region."),
    fail: "Data is not replicated to a second region.",
  },
]

const accountChecks = rules.map((r) =>
  defineAzureCheck({
    id: r.id,
    service: "storage",
    title: r.title,
    description: r.description,
    severity: r.severity,
    cis: r.cis,
    remediation: r.remediation,
    field_labels: { value: r.label },
    uses: ["storage.accounts"],
    reads: `ARM Microsoft.Storage/storageAccounts → ${r.reads}`,
    evaluate: (inv) =>
      (inv.storage.accounts ?? []).map((a) => {
        const ok = r.ok(a.properties, a)
        const reason = ok ? (typeof r.pass === "string" ? r.pass : r.pass(a.properties, a)) : typeof r.fail === "string" ? r.fail : r.fail(a.properties, a)
        return resourceRow(a, ok, reason, { value: r.value(a.properties, a) })
      }),
  }),
)

const serviceCheck = (spec: {
  id: string
  cis: { v3?: string; v4?: string }
  title: string
  description: string
  remediation: string
  reads: string
  input: "storage.blob_services" | "storage.file_services"
  label: string
  evaluate: (a: StorageAccountInfo) => { ok: boolean; value: DetailRow[string]; reason: string } | undefined
}) =>
  defineAzureCheck({
    id: spec.id,
    service: "storage",
    title: spec.title,
    description: spec.description,
    severity: "medium",
    cis: spec.cis,
    remediation: spec.remediation,
    field_labels: { value: spec.label },
    uses: ["storage.accounts", spec.input],
    reads: spec.reads,
    evaluate: (inv) =>
      (inv.storage.accounts ?? []).flatMap((a) => {
        const r = spec.evaluate(a)
        return r === undefined ? [] : [resourceRow(a, r.ok, r.reason, { value: r.value })]
      }),
  })

const LOG_CATEGORIES = ["StorageRead", "StorageWrite", "StorageDelete"] as const

/** The Storage* categories a service's diagnostic settings send somewhere ("allLogs" covers all three). */
export function loggedStorageCategories(settings: ReadonlyArray<DiagnosticSetting>): ReadonlyArray<string> {
  const on = new Set<string>()
  for (const d of settings)
    for (const l of d.properties?.logs ?? []) {
      if (!l.enabled) continue
      if (l.categoryGroup?.toLowerCase() === "alllogs") LOG_CATEGORIES.forEach((c) => on.add(c))
      const c = LOG_CATEGORIES.find((x) => x.toLowerCase() === (l.category ?? "").toLowerCase())
      if (c !== undefined) on.add(c)
    }
  return LOG_CATEGORIES.filter((c) => on.has(c))
}

const loggingCheck = (service: StorageLogService, v3: string, what: string) =>
  defineAzureCheck({
    id: `storage_${service}_logging_read_write_delete`,
    service: "storage",
    title: `Storage logging should be enabled for the ${what} service for read, write and delete requests`,
    description: `Checks a diagnostic setting of the account's ${what.toLowerCase()} service sends the StorageRead, StorageWrite and StorageDelete resource logs (or allLogs) to a destination.`,
    severity: "medium",
    cis: { v3 },
    remediation: `az monitor diagnostic-settings create --name ${service}-logs --resource ACCOUNT_ID/${service}Services/default --workspace WORKSPACE_ID --logs '[{"category":"StorageRead","enabled":true},{"category":"StorageWrite","enabled":true},{"category":"StorageDelete","enabled":true}]' (log ingestion is billable).`,
    field_labels: { settings: "Diagnostic settings", missing_categories: "Missing categories" },
    uses: ["storage.accounts", `storage.${service}_diagnostics`],
    reads: `ARM storageAccounts/{a}/${service}Services/default/providers/Microsoft.Insights/diagnosticSettings → properties.logs[category ∈ StorageRead, StorageWrite, StorageDelete | categoryGroup=allLogs].enabled`,
    evaluate: (inv) =>
      (inv.storage.accounts ?? []).flatMap((a) => {
        const settings = a.diagnostics[service]
        if (!hasDataService(a, service) || settings === undefined) return []
        const logged = loggedStorageCategories(settings)
        const missing = LOG_CATEGORIES.filter((c) => !logged.includes(c))
        const sending = settings.filter((d) => (d.properties?.logs ?? []).some((l) => l.enabled)).map((d) => d.name)
        const reason =
          missing.length === 0
            ? `${what} read, write and delete requests are logged by ${sending.join(", ")}.`
            : settings.length === 0
              ? `The ${what.toLowerCase()} service has no diagnostic setting: its requests are not logged.`
              : `${what} requests not logged: ${missing.join(", ")}.`
        return [resourceRow(a, missing.length === 0, reason, { settings: settings.map((d) => d.name), missing_categories: missing })]
      }),
  })

const retention = (p: { readonly enabled?: boolean; readonly days?: number } | undefined) => (p?.enabled === true ? `${p.days ?? 7} days` : "off")
const smbList = (v: string | null | undefined) => (v ?? "").split(";").map((s) => s.trim()).filter((s) => s !== "")

export const storageChecks = [
  ...accountChecks,
  serviceCheck({
    id: "storage_blob_soft_delete",
    cis: { v3: "4.10", v4: "10.2.1" },
    title: "Soft delete should be enabled for blobs",
    description: "Checks the blob service keeps deleted blobs (deleteRetentionPolicy.enabled).",
    remediation: "az storage account blob-service-properties update -n ACCOUNT --enable-delete-retention true --delete-retention-days 7",
    reads: "ARM storageAccounts/{a}/blobServices/default → properties.deleteRetentionPolicy.enabled",
    input: "storage.blob_services",
    label: "Blob soft delete",
    evaluate: (a) => {
      if (a.blobService === undefined) return undefined
      const p = a.blobService.properties?.deleteRetentionPolicy
      return { ok: p?.enabled === true, value: retention(p), reason: p?.enabled === true ? `Deleted blobs are kept ${p.days ?? 7} days.` : "Deleted blobs cannot be recovered." }
    },
  }),
  serviceCheck({
    id: "storage_container_soft_delete",
    cis: { v3: "4.10", v4: "10.3.6" },
    title: "Soft delete should be enabled for containers",
    description: "Checks the blob service keeps deleted containers (containerDeleteRetentionPolicy.enabled).",
    remediation: "az storage account blob-service-properties update -n ACCOUNT --enable-container-delete-retention true --container-delete-retention-days 7",
    reads: "ARM storageAccounts/{a}/blobServices/default → properties.containerDeleteRetentionPolicy.enabled",
    input: "storage.blob_services",
    label: "Container soft delete",
    evaluate: (a) => {
      if (a.blobService === undefined) return undefined
      const p = a.blobService.properties?.containerDeleteRetentionPolicy
      return { ok: p?.enabled === true, value: retention(p), reason: p?.enabled === true ? `Deleted containers are kept ${p.days ?? 7} days.` : "Deleted containers cannot be recovered." }
    },
  }),
  serviceCheck({
    id: "storage_blob_versioning",
    cis: { v4: "10.2.2" },
    title: "Versioning should be enabled for blobs",
    description: "Checks blob versioning is on, so overwritten data can be restored.",
    remediation: "az storage account blob-service-properties update -n ACCOUNT --enable-versioning true",
    reads: "ARM storageAccounts/{a}/blobServices/default → properties.isVersioningEnabled",
    input: "storage.blob_services",
    label: "Versioning",
    evaluate: (a) => {
      if (a.blobService === undefined) return undefined
      const on = a.blobService.properties?.isVersioningEnabled === true
      return { ok: on, value: on, reason: on ? "Blob versioning is on." : "Blob versioning is off." }
    },
  }),
  serviceCheck({
    id: "storage_file_share_soft_delete",
    cis: { v4: "10.1.1" },
    title: "Soft delete should be enabled for Azure file shares",
    description: "Checks the file service keeps deleted shares (shareDeleteRetentionPolicy.enabled).",
    remediation: "az storage account file-service-properties update -n ACCOUNT --enable-delete-retention true --delete-retention-days 7",
    reads: "ARM storageAccounts/{a}/fileServices/default → properties.shareDeleteRetentionPolicy.enabled",
    input: "storage.file_services",
    label: "Share soft delete",
    evaluate: (a) => {
      if (!hasFileService(a) || a.fileService === undefined) return undefined
      const p = a.fileService.properties?.shareDeleteRetentionPolicy
      return { ok: p?.enabled === true, value: retention(p), reason: p?.enabled === true ? `Deleted shares are kept ${p.days ?? 7} days.` : "Deleted file shares cannot be recovered." }
    },
  }),
  serviceCheck({
    id: "storage_smb_protocol_latest",
    cis: { v4: "10.1.2" },
    title: "The SMB protocol version for file shares should be SMB 3.1.1 or higher",
    description: "Checks the file service allows only SMB 3.1.1 (an empty setting allows every version).",
    remediation: "az storage account file-service-properties update -n ACCOUNT --versions SMB3.1.1 (older Windows clients cannot connect).",
    reads: "ARM storageAccounts/{a}/fileServices/default → properties.protocolSettings.smb.versions",
    input: "storage.file_services",
    label: "SMB versions",
    evaluate: (a) => {
      if (!hasFileService(a) || a.fileService === undefined) return undefined
      const versions = smbList(a.fileService.properties?.protocolSettings?.smb?.versions)
      const ok = versions.length > 0 && versions.every((v) => v === "SMB3.1.1")
      return { ok, value: versions.length === 0 ? "all" : versions.join(";"), reason: ok ? "Only SMB 3.1.1 is allowed." : `SMB versions allowed: ${versions.length === 0 ? "all" : versions.join(", ")}.` }
    },
  }),
  serviceCheck({
    id: "storage_smb_channel_encryption",
    cis: { v4: "10.1.3" },
    title: "SMB channel encryption for file shares should be AES-256-GCM or higher",
    description: "Checks the file service allows only AES-256-GCM SMB channel encryption (an empty setting allows every algorithm).",
    remediation: "az storage account file-service-properties update -n ACCOUNT --channel-encryption AES-256-GCM",
    reads: "ARM storageAccounts/{a}/fileServices/default → properties.protocolSettings.smb.channelEncryption",
    input: "storage.file_services",
    label: "Channel encryption",
    evaluate: (a) => {
      if (!hasFileService(a) || a.fileService === undefined) return undefined
      const algs = smbList(a.fileService.properties?.protocolSettings?.smb?.channelEncryption)
      const ok = algs.length > 0 && algs.every((v) => v === "AES-256-GCM")
      return { ok, value: algs.length === 0 ? "all" : algs.join(";"), reason: ok ? "Only AES-256-GCM is allowed." : `Channel encryption allowed: ${algs.length === 0 ? "all" : algs.join(", ")}.` }
    },
  }),
  loggingCheck("queue", "4.12", "Queue"),
  loggingCheck("blob", "4.13", "Blob"),
  loggingCheck("table", "4.14", "Table"),
]
