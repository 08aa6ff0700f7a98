/**
 * Every Azure check against the fake Azure through the whole path (client secret → Entra token per audience →
 * ARM/Graph pages → schema decoding → checks): the hardened subscription passes every check with a compliant row,
 * the insecure one fails every check with a non-compliant row, and named resources land on the expected side.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { azureChecks, azureServices, listAzureChecks, scannableAzureServices } from "../../server/scanner/azure/catalogue.ts"
import type { AzureScanResult } from "../../server/scanner/azure/scan-service.ts"
import { HARDENED, hardenedSubscription, hardenedTenant, INSECURE, insecureSubscription, insecureTenant } from "./azure-fixtures.ts"
import { expectRows, findingOf, rowOf } from "../scanner-gcp/helpers.ts"
import { startAzureFixture, type AzureFixture } from "./helpers.ts"

let fx: AzureFixture
let hardened: AzureScanResult[]
let insecure: AzureScanResult[]

beforeAll(async () => {
  fx = await startAzureFixture([hardenedTenant(), insecureTenant()], [hardenedSubscription(), insecureSubscription()])
  const services = scannableAzureServices().map((s) => s.id)
  ;[hardened, insecure] = await Promise.all([
    Promise.all(services.map((s) => fx.scan(HARDENED.subscriptionId, s))),
    Promise.all(services.map((s) => fx.scan(INSECURE.subscriptionId, s))),
  ])
})

afterAll(async () => {
  await fx.close()
})

const I = INSECURE.subscriptionId
const id = (rg: string, type: string, name: string) => `/subscriptions/${I}/resourceGroups/${rg}/providers/${type}/${name}`
const SA = (n: string) => id(n === "badlogs" ? "logs" : "data", "Microsoft.Storage/storageAccounts", n)
const SUB = `/subscriptions/${I}`
const TENANT = `tenant:${INSECURE.tenantId}`

describe("Azure catalogue", () => {
  it("lists every check once, each with CIS Azure v3.0 and/or v4.0 references unless it goes beyond the benchmark", () => {
    expect(azureChecks.length).toBeGreaterThanOrEqual(100)
    expect(new Set(azureChecks.map((c) => c.id)).size).toBe(azureChecks.length)
    expect(azureChecks.filter((c) => c.compliance.length > 0).length).toBeGreaterThanOrEqual(112)
    for (const c of azureChecks) {
      expect(azureServices.some((s) => s.id === c.service), c.id).toBe(true)
      for (const r of c.compliance) expect(r.framework).toMatch(/^CIS Microsoft Azure Foundations Benchmark v[34]\.0\.0$/)
    }
    const v3 = new Set(azureChecks.flatMap((c) => (c.cisRefs["v3"] === undefined ? [] : [c.cisRefs["v3"]])))
    const v4 = new Set(azureChecks.flatMap((c) => (c.cisRefs["v4"] === undefined ? [] : [c.cisRefs["v4"]])))
    expect(v3.size).toBeGreaterThanOrEqual(85)
    expect(v4.size).toBeGreaterThanOrEqual(60)
    expect(listAzureChecks("storage").every((c) => c.service === "storage" && !("evaluate" in c))).toBe(true)
  })
})

describe("Azure checks: compliant and non-compliant case of every check", () => {
  it("the hardened subscription passes every check, each with a compliant row", () => {
    for (const c of azureChecks) {
      const f = findingOf(hardened, c.id)
      expect(f.errors, `${c.id} errors`).toEqual([])
      expect(f.status, `${c.id}: ${JSON.stringify(f.details.map((d) => [d.resource_id, d.reason]))}`).toBe("pass")
    }
    const withoutRows = azureChecks.filter((c) => !findingOf(hardened, c.id).details.some((d) => d.compliant)).map((c) => c.id)
    // Non-RBAC vault checks need an access-policy vault, which fails the RBAC check: their compliant rows live in the insecure subscription.
    expect(withoutRows.sort()).toEqual(["keyvault_non_rbac_key_expiration", "keyvault_non_rbac_secret_expiration"])
    for (const c of withoutRows) expect(findingOf(insecure, c).details.some((d) => d.compliant), c).toBe(true)
  })

  it("the insecure subscription fails every check with a non-compliant row", () => {
    for (const c of azureChecks) {
      const f = findingOf(insecure, c.id)
      expect(f.errors, `${c.id} errors`).toEqual([])
      expect(f.status, c.id).toBe("fail")
      expect(f.details.some((d) => !d.compliant), c.id).toBe(true)
    }
  })
})

describe("Azure checks: named resources", () => {
  const kv = (vault: string, kind: string, name: string) => `${id("security", "Microsoft.KeyVault/vaults", vault)}/${kind}/${name}`
  const cases: ReadonlyArray<[string, { compliant?: string[]; nonCompliant?: string[] }]> = [
    ["entra_non_admins_cannot_create_tenants", { nonCompliant: [TENANT] }],
    ["iam_no_custom_subscription_owner_roles", { compliant: [`${SUB}/providers/Microsoft.Authorization/roleDefinitions/ok-narrow-role`], nonCompliant: [`${SUB}/providers/Microsoft.Authorization/roleDefinitions/bad-owner-clone`] }],
    ["iam_user_access_admin_restricted", { nonCompliant: [SUB] }],
    ["keyvault_rbac_key_expiration", { compliant: [kv("bad-kv-rbac", "keys", "ok-exp-key")], nonCompliant: [kv("bad-kv-rbac", "keys", "bad-noexp-key")] }],
    ["keyvault_non_rbac_key_expiration", { compliant: [kv("bad-kv-policy", "keys", "ok-exp-key2")], nonCompliant: [kv("bad-kv-policy", "keys", "bad-noexp-key2")] }],
    ["keyvault_rbac_secret_expiration", { compliant: [kv("bad-kv-rbac", "secrets", "ok-exp-secret")], nonCompliant: [kv("bad-kv-rbac", "secrets", "bad-noexp-secret")] }],
    ["keyvault_non_rbac_secret_expiration", { compliant: [kv("bad-kv-policy", "secrets", "ok-exp-secret2")], nonCompliant: [kv("bad-kv-policy", "secrets", "bad-noexp-secret2")] }],
    ["keyvault_recoverable", { compliant: [id("security", "Microsoft.KeyVault/vaults", "bad-kv-policy")], nonCompliant: [id("security", "Microsoft.KeyVault/vaults", "bad-kv-rbac")] }],
    ["keyvault_rbac_enabled", { compliant: [id("security", "Microsoft.KeyVault/vaults", "bad-kv-rbac")], nonCompliant: [id("security", "Microsoft.KeyVault/vaults", "bad-kv-policy")] }],
    ["keyvault_private_endpoints", { compliant: [id("security", "Microsoft.KeyVault/vaults", "bad-kv-policy")], nonCompliant: [id("security", "Microsoft.KeyVault/vaults", "bad-kv-rbac")] }],
    ["keyvault_public_network_access_disabled", { compliant: [id("security", "Microsoft.KeyVault/vaults", "bad-kv-policy")], nonCompliant: [id("security", "Microsoft.KeyVault/vaults", "bad-kv-rbac")] }],
    ["keyvault_key_auto_rotation", { compliant: [kv("bad-kv-rbac", "keys", "ok-exp-key"), kv("bad-kv-policy", "keys", "ok-exp-key2")], nonCompliant: [kv("bad-kv-rbac", "keys", "bad-noexp-key")] }],
    ["keyvault_logging_enabled", { compliant: [id("security", "Microsoft.KeyVault/vaults", "bad-kv-policy")], nonCompliant: [id("security", "Microsoft.KeyVault/vaults", "bad-kv-rbac")] }],
    ["storage_secure_transfer_required", { compliant: [SA("okblob")], nonCompliant: [SA("badstorage"), SA("badlogs")] }],
    ["storage_minimum_tls_12", { compliant: [SA("okblob")], nonCompliant: [SA("badstorage")] }],
    ["storage_blob_anonymous_access_disabled", { compliant: [SA("okblob")], nonCompliant: [SA("badstorage")] }],
    ["storage_trusted_azure_services", { compliant: [SA("okblob")], nonCompliant: [SA("badstorage")] }],
    ["storage_geo_redundant", { compliant: [SA("okblob"), SA("badlogs")], nonCompliant: [SA("badstorage")] }],
    ["storage_blob_soft_delete", { compliant: [SA("okblob"), SA("badlogs")], nonCompliant: [SA("badstorage")] }],
    ["storage_file_share_soft_delete", { compliant: [SA("badlogs")], nonCompliant: [SA("badstorage")] }],
    ["storage_smb_protocol_latest", { compliant: [SA("badlogs")], nonCompliant: [SA("badstorage")] }],
    ["storage_smb_channel_encryption", { compliant: [SA("badlogs")], nonCompliant: [SA("badstorage")] }],
    ["storage_queue_logging_read_write_delete", { compliant: [SA("badlogs")], nonCompliant: [SA("badstorage")] }],
    ["storage_blob_logging_read_write_delete", { compliant: [SA("okblob"), SA("badlogs")], nonCompliant: [SA("badstorage")] }],
    ["storage_table_logging_read_write_delete", { compliant: [SA("badlogs")], nonCompliant: [SA("badstorage")] }],
    ["defender_system_updates_applied", { compliant: [id("app", "Microsoft.Compute/virtualMachines", "ok-vm2")], nonCompliant: [id("app", "Microsoft.Compute/virtualMachines", "bad-vm")] }],
    ["sql_auditing_enabled", { compliant: [id("data", "Microsoft.Sql/servers", "ok-sql2")], nonCompliant: [id("data", "Microsoft.Sql/servers", "bad-sql")] }],
    ["sql_no_ingress_from_any_ip", { compliant: [id("data", "Microsoft.Sql/servers", "ok-sql2")], nonCompliant: [id("data", "Microsoft.Sql/servers", "bad-sql")] }],
    ["sql_tde_protector_cmk", { compliant: [id("data", "Microsoft.Sql/servers", "ok-sql2")], nonCompliant: [id("data", "Microsoft.Sql/servers", "bad-sql")] }],
    ["sql_entra_admin_configured", { compliant: [id("data", "Microsoft.Sql/servers", "ok-sql2")], nonCompliant: [id("data", "Microsoft.Sql/servers", "bad-sql")] }],
    ["sql_database_tde_enabled", { compliant: [`${id("data", "Microsoft.Sql/servers", "bad-sql")}/databases/okdb`], nonCompliant: [`${id("data", "Microsoft.Sql/servers", "bad-sql")}/databases/baddb`] }],
    ["sql_audit_retention_90_days", { nonCompliant: [id("data", "Microsoft.Sql/servers", "bad-sql"), id("data", "Microsoft.Sql/servers", "ok-sql2")] }],
    ["postgresql_require_secure_transport", { compliant: [id("data", "Microsoft.DBforPostgreSQL/flexibleServers", "ok-pg2")], nonCompliant: [id("data", "Microsoft.DBforPostgreSQL/flexibleServers", "bad-pg")] }],
    ["postgresql_log_retention_days", { compliant: [id("data", "Microsoft.DBforPostgreSQL/flexibleServers", "ok-pg2")], nonCompliant: [id("data", "Microsoft.DBforPostgreSQL/flexibleServers", "bad-pg")] }],
    ["postgresql_no_allow_azure_services", { compliant: [id("data", "Microsoft.DBforPostgreSQL/flexibleServers", "ok-pg2")], nonCompliant: [id("data", "Microsoft.DBforPostgreSQL/flexibleServers", "bad-pg")] }],
    ["mysql_tls_version_12", { compliant: [id("data", "Microsoft.DBforMySQL/flexibleServers", "ok-mysql2")], nonCompliant: [id("data", "Microsoft.DBforMySQL/flexibleServers", "bad-mysql")] }],
    ["mysql_audit_log_connection_events", { compliant: [id("data", "Microsoft.DBforMySQL/flexibleServers", "ok-mysql2")], nonCompliant: [id("data", "Microsoft.DBforMySQL/flexibleServers", "bad-mysql")] }],
    ["cosmosdb_selected_networks", { compliant: [id("data", "Microsoft.DocumentDB/databaseAccounts", "ok-cosmos2")], nonCompliant: [id("data", "Microsoft.DocumentDB/databaseAccounts", "bad-cosmos")] }],
    ["cosmosdb_private_endpoints", { compliant: [id("data", "Microsoft.DocumentDB/databaseAccounts", "ok-cosmos2")], nonCompliant: [id("data", "Microsoft.DocumentDB/databaseAccounts", "bad-cosmos")] }],
    ["monitor_activity_log_storage_cmk", { nonCompliant: [SA("badlogs")] }],
    ["monitor_alert_write_nsg", { nonCompliant: [SUB] }],
    ["aks_cluster_api_server_not_public", { compliant: [id("k8s", "Microsoft.ContainerService/managedClusters", "ok-aks2")], nonCompliant: [id("k8s", "Microsoft.ContainerService/managedClusters", "bad-aks")] }],
    ["aks_cluster_network_policy_enabled", { compliant: [id("k8s", "Microsoft.ContainerService/managedClusters", "ok-aks2")], nonCompliant: [id("k8s", "Microsoft.ContainerService/managedClusters", "bad-aks")] }],
    ["network_redis_internet_restricted", { compliant: [id("net", "Microsoft.Network/networkSecurityGroups", "ok-nsg2")], nonCompliant: [id("net", "Microsoft.Network/networkSecurityGroups", "bad-redis-nsg"), id("net", "Microsoft.Network/networkSecurityGroups", "bad-any-nsg")] }],
    ["network_mongodb_internet_restricted", { compliant: [id("net", "Microsoft.Network/networkSecurityGroups", "bad-redis-nsg")], nonCompliant: [id("net", "Microsoft.Network/networkSecurityGroups", "bad-any-nsg")] }],
    ["network_dns_internet_restricted", { compliant: [id("net", "Microsoft.Network/networkSecurityGroups", "bad-redis-nsg")], nonCompliant: [id("net", "Microsoft.Network/networkSecurityGroups", "bad-nsg"), id("net", "Microsoft.Network/networkSecurityGroups", "bad-any-nsg")] }],
    ["network_telnet_internet_restricted", { compliant: [id("net", "Microsoft.Network/networkSecurityGroups", "bad-redis-nsg")], nonCompliant: [id("net", "Microsoft.Network/networkSecurityGroups", "bad-nsg")] }],
    ["network_all_ports_internet_restricted", { compliant: [id("net", "Microsoft.Network/networkSecurityGroups", "bad-nsg"), id("net", "Microsoft.Network/networkSecurityGroups", "bad-redis-nsg")], nonCompliant: [id("net", "Microsoft.Network/networkSecurityGroups", "bad-any-nsg")] }],
    ["network_rdp_internet_restricted", { compliant: [id("net", "Microsoft.Network/networkSecurityGroups", "ok-nsg2")], nonCompliant: [id("net", "Microsoft.Network/networkSecurityGroups", "bad-nsg")] }],
    ["network_ssh_internet_restricted", { compliant: [id("net", "Microsoft.Network/networkSecurityGroups", "ok-nsg2")], nonCompliant: [id("net", "Microsoft.Network/networkSecurityGroups", "bad-nsg")] }],
    ["network_udp_internet_restricted", { compliant: [id("net", "Microsoft.Network/networkSecurityGroups", "ok-nsg2")], nonCompliant: [id("net", "Microsoft.Network/networkSecurityGroups", "bad-nsg")] }],
    ["network_http_internet_restricted", { compliant: [id("net", "Microsoft.Network/networkSecurityGroups", "ok-nsg2")], nonCompliant: [id("net", "Microsoft.Network/networkSecurityGroups", "bad-nsg")] }],
    ["network_nsg_flow_log_retention", { nonCompliant: [`${id("NetworkWatcherRG", "Microsoft.Network/networkWatchers", "NetworkWatcher_westeurope")}/flowLogs/bad-nsg-flow`] }],
    ["network_watcher_enabled", { compliant: [`${SUB}/locations/westeurope`], nonCompliant: [`${SUB}/locations/eastus`] }],
    ["vm_managed_disks", { compliant: [id("app", "Microsoft.Compute/virtualMachines", "ok-vm2")], nonCompliant: [id("app", "Microsoft.Compute/virtualMachines", "bad-vm")] }],
    ["vm_attached_disks_cmk", { compliant: [id("app", "Microsoft.Compute/disks", "ok-cmk-disk")], nonCompliant: [id("app", "Microsoft.Compute/disks", "bad-os-disk")] }],
    ["vm_unattached_disks_cmk", { compliant: [id("app", "Microsoft.Compute/disks", "ok-spare-cmk")], nonCompliant: [id("app", "Microsoft.Compute/disks", "bad-spare")] }],
    ["vm_disk_network_access_restricted", { compliant: [id("app", "Microsoft.Compute/disks", "ok-cmk-disk"), id("app", "Microsoft.Compute/disks", "ok-spare-cmk")], nonCompliant: [id("app", "Microsoft.Compute/disks", "bad-spare"), id("app", "Microsoft.Compute/disks", "bad-os-disk")] }],
    ["vm_trusted_launch", { compliant: [id("app", "Microsoft.Compute/virtualMachines", "ok-vm2")], nonCompliant: [id("app", "Microsoft.Compute/virtualMachines", "bad-vm")] }],
    ["app_https_only", { compliant: [id("app", "Microsoft.Web/sites", "ok-app2")], nonCompliant: [id("app", "Microsoft.Web/sites", "bad-app")] }],
    ["app_authentication_enabled", { compliant: [id("app", "Microsoft.Web/sites", "ok-app2")], nonCompliant: [id("app", "Microsoft.Web/sites", "bad-app")] }],
    ["app_ftps_only", { compliant: [id("app", "Microsoft.Web/sites", "ok-app2")], nonCompliant: [id("app", "Microsoft.Web/sites", "bad-app")] }],
    ["app_min_tls_12", { compliant: [id("app", "Microsoft.Web/sites", "ok-app2")], nonCompliant: [id("app", "Microsoft.Web/sites", "bad-app")] }],
    ["app_managed_identity", { compliant: [id("app", "Microsoft.Web/sites", "ok-app2")], nonCompliant: [id("app", "Microsoft.Web/sites", "bad-app")] }],
    ["app_http2_enabled", { compliant: [id("app", "Microsoft.Web/sites", "ok-app2")], nonCompliant: [id("app", "Microsoft.Web/sites", "bad-app")] }],
    ["app_remote_debugging_off", { compliant: [id("app", "Microsoft.Web/sites", "ok-app2")], nonCompliant: [id("app", "Microsoft.Web/sites", "bad-app")] }],
    ["app_http_logs_enabled", { compliant: [id("app", "Microsoft.Web/sites", "ok-web3")], nonCompliant: [id("app", "Microsoft.Web/sites", "bad-app")] }],
    ["databricks_vnet_injection", { compliant: [id("analytics", "Microsoft.Databricks/workspaces", "ok-dbw2")], nonCompliant: [id("analytics", "Microsoft.Databricks/workspaces", "bad-dbw")] }],
    ["databricks_cmk_encryption", { compliant: [id("analytics", "Microsoft.Databricks/workspaces", "ok-dbw2")], nonCompliant: [id("analytics", "Microsoft.Databricks/workspaces", "bad-dbw")] }],
  ]
  for (const [checkId, c] of cases) {
    it(checkId, () => {
      expectRows(findingOf(insecure, checkId), c)
    })
  }

  it("explains the failures with the offending settings", () => {
    expect(rowOf(findingOf(insecure, "network_rdp_internet_restricted"), id("net", "Microsoft.Network/networkSecurityGroups", "bad-nsg"))).toMatchObject({ exposing_rules: ["allow-rdp"] })
    expect(rowOf(findingOf(insecure, "network_ssh_internet_restricted"), id("net", "Microsoft.Network/networkSecurityGroups", "bad-nsg"))).toMatchObject({ exposing_rules: ["allow-ssh-range"] })
    expect(rowOf(findingOf(insecure, "network_http_internet_restricted"), id("net", "Microsoft.Network/networkSecurityGroups", "bad-nsg"))).toMatchObject({ exposing_rules: ["allow-web"] })
    expect(rowOf(findingOf(insecure, "network_udp_internet_restricted"), id("net", "Microsoft.Network/networkSecurityGroups", "bad-nsg"))).toMatchObject({ exposing_rules: ["allow-dns-udp", "allow-web"] })
    expect(rowOf(findingOf(insecure, "network_redis_internet_restricted"), id("net", "Microsoft.Network/networkSecurityGroups", "bad-redis-nsg"))).toMatchObject({ exposing_rules: ["allow-redis"], exposed: ["tcp/6379"] })
    expect(rowOf(findingOf(insecure, "network_memcached_internet_restricted"), id("net", "Microsoft.Network/networkSecurityGroups", "bad-any-nsg"))).toMatchObject({ exposed: ["tcp/11211", "udp/11211"] })
    expect(rowOf(findingOf(insecure, "sql_no_ingress_from_any_ip"), id("data", "Microsoft.Sql/servers", "bad-sql"))).toMatchObject({ open_rules: ["AllowAllWindowsAzureIps", "anywhere"] })
    expect(rowOf(findingOf(insecure, "monitor_activity_log_categories"), SUB)).toMatchObject({ missing_categories: ["Policy", "Security"] })
    // Alerts that name the operation but watch one resource group, fire on failures only, or are disabled do not count.
    expect(rowOf(findingOf(insecure, "monitor_alert_create_policy_assignment"), SUB)).toMatchObject({ compliant: false, alerts: [], narrower_alerts: [`policy-write-one-rg watches only resource group /subscriptions/${I}/resourceGroups/monitoring`] })
    expect(rowOf(findingOf(insecure, "monitor_alert_delete_nsg"), SUB)).toMatchObject({ compliant: false, narrower_alerts: ["nsg-delete-failed-only fires only when status = Failed"] })
    expect(rowOf(findingOf(insecure, "monitor_alert_write_nsg"), SUB)).toMatchObject({ compliant: false, narrower_alerts: ["nsg-write-disabled is disabled"] })
    expect(rowOf(findingOf(insecure, "monitor_service_health_alert"), SUB)).toMatchObject({ compliant: false, narrower_alerts: ["incidents-only fires only when properties.incidentType = Incident"] })
    expect(rowOf(findingOf(insecure, "app_client_certificates_on"), id("app", "Microsoft.Web/sites", "bad-app"))).toMatchObject({ compliant: false, reason: "Client certificates are optional (Optional): clients without one get in." })
    expect(rowOf(findingOf(insecure, "network_ssh_internet_restricted"), id("net", "Microsoft.Network/networkSecurityGroups", "ok-nsg2"))).toMatchObject({ compliant: true, exposing_rules: [] })
    const acr = (n: string) => id("images", "Microsoft.ContainerRegistry/registries", n)
    expect(rowOf(findingOf(insecure, "acr_not_publicly_accessible"), acr("badacr2"))).toMatchObject({ compliant: false, reason: "The IP rules admit the internet (0.0.0.0/1, 128.0.0.0/1)." })
    expect(rowOf(findingOf(insecure, "acr_not_publicly_accessible"), acr("okacr2"))).toMatchObject({ compliant: true })
    expect(rowOf(findingOf(insecure, "acr_admin_user_disabled"), acr("okacr2"))).toMatchObject({ compliant: true })
    const rsv = (n: string) => id("backup", "Microsoft.RecoveryServices/vaults", n)
    expect(rowOf(findingOf(insecure, "recovery_vault_soft_delete_enabled"), rsv("ok-rsv2"))).toMatchObject({ compliant: true, value: "Enabled" })
    expect(rowOf(findingOf(insecure, "recovery_vault_geo_redundant"), rsv("ok-rsv2"))).toMatchObject({ compliant: true })
    expect(rowOf(findingOf(insecure, "recovery_vault_immutability_enabled"), rsv("ok-rsv2"))).toMatchObject({ compliant: false, value: "Disabled" })
    // Kinds a check does not judge: a read replica, a Burstable server, a deprecated Defender plan.
    const pgReplica = id("data", "Microsoft.DBforPostgreSQL/flexibleServers", "ok-pg-replica")
    expect(rowOf(findingOf(insecure, "postgresql_flexible_server_geo_redundant_backup_enabled"), pgReplica)).toMatchObject({ compliant: true, reason: "Not judged: a read replica (AsyncReplica) follows its primary's backups." })
    expect(rowOf(findingOf(insecure, "postgresql_flexible_server_high_availability_enabled"), pgReplica)).toMatchObject({ compliant: true })
    expect(rowOf(findingOf(insecure, "mysql_flexible_server_high_availability_enabled"), id("data", "Microsoft.DBforMySQL/flexibleServers", "ok-mysql-burstable"))).toMatchObject({ compliant: true, reason: "Not judged: the Burstable tier offers no high availability." })
    expect(rowOf(findingOf(hardened, "defender_dns_on"), `/subscriptions/${HARDENED.subscriptionId}`)).toMatchObject({ compliant: true, reason: "The Dns plan is deprecated; its protection comes with VirtualMachines, which is on." })
    // containsAny, anyOf, other letter cases, a trailing slash on the scope and `enabled` left out all count.
    expect(rowOf(findingOf(hardened, "monitor_alert_write_key_vault"), `/subscriptions/${HARDENED.subscriptionId}`)).toMatchObject({ compliant: true, alerts: ["alert-changes"] })
    expect(rowOf(findingOf(hardened, "monitor_alert_delete_diagnostic_setting"), `/subscriptions/${HARDENED.subscriptionId}`)).toMatchObject({ compliant: true, alerts: ["alert-diagnostics"] })
    expect(rowOf(findingOf(hardened, "monitor_alert_delete_policy_assignment"), `/subscriptions/${HARDENED.subscriptionId}`)).toMatchObject({ compliant: true, alerts: ["alert-1"] })
    expect(rowOf(findingOf(insecure, "iam_user_access_admin_restricted"), SUB)).toMatchObject({ principals: ["bad-principal-0001"] })
    expect(rowOf(findingOf(insecure, "entra_guest_access_restricted"), TENANT).reason).toBe("Guest users have limited access (default).")
    expect(rowOf(findingOf(insecure, "defender_servers_on"), SUB).reason).toBe("Defender for Servers is off (Free tier).")
    expect(rowOf(findingOf(insecure, "storage_smb_protocol_latest"), SA("badstorage")).reason).toBe("SMB versions allowed: SMB2.1, SMB3.0, SMB3.1.1.")
    expect(rowOf(findingOf(insecure, "mysql_tls_version_12"), id("data", "Microsoft.DBforMySQL/flexibleServers", "bad-mysql")).reason).toBe("'tls_version' is TLSv1,TLSv1.1,TLSv1.2.")
    expect(rowOf(findingOf(insecure, "storage_blob_logging_read_write_delete"), SA("badstorage"))).toMatchObject({ settings: ["blob-writes"], missing_categories: ["StorageRead"], reason: "Blob requests not logged: StorageRead." })
    expect(rowOf(findingOf(insecure, "storage_table_logging_read_write_delete"), SA("badstorage"))).toMatchObject({ missing_categories: ["StorageWrite", "StorageDelete"] })
    expect(rowOf(findingOf(insecure, "storage_queue_logging_read_write_delete"), SA("badstorage"))).toMatchObject({ settings: [], reason: "The queue service has no diagnostic setting: its requests are not logged." })
    expect(rowOf(findingOf(hardened, "storage_queue_logging_read_write_delete"), `/subscriptions/${HARDENED.subscriptionId}/resourceGroups/data/providers/Microsoft.Storage/storageAccounts/okstorage`)).toMatchObject({ compliant: true, missing_categories: [] })
    expect(rowOf(findingOf(insecure, "defender_system_updates_applied"), id("app", "Microsoft.Compute/virtualMachines", "bad-vm"))).toMatchObject({
      name: "bad-vm",
      resource_group: "app",
      unhealthy: ["System updates should be installed on your machines", "Machines should be configured to periodically check for missing system updates"],
    })
    expect(rowOf(findingOf(insecure, "defender_system_updates_applied"), id("app", "Microsoft.Compute/virtualMachines", "bad-vm")).reason).toContain("3 critical and 5 security updates are missing")
    expect(rowOf(findingOf(insecure, "app_authentication_enabled"), id("app", "Microsoft.Web/sites", "bad-app")).reason).toBe("App Service Authentication is disabled: the platform lets anonymous requests through.")
    // Queues and tables exist on general-purpose accounts only; assessments that do not apply (or are about other
    // recommendations, like endpoint protection on ok-vm2) give no row.
    expect(findingOf(insecure, "storage_queue_logging_read_write_delete").details.map((d) => d.name)).not.toContain("okblob")
    expect(findingOf(insecure, "storage_table_logging_read_write_delete").details.map((d) => d.name)).not.toContain("okblob")
    expect(findingOf(insecure, "defender_system_updates_applied").details.map((d) => d.name).sort()).toEqual(["bad-vm", "ok-vm2"])
    // master is never evaluated; disabled keys are skipped; BlockBlobStorage accounts have no file service.
    expect(findingOf(insecure, "sql_database_tde_enabled").details.map((d) => d.name)).toEqual(["baddb", "okdb"])
    expect(findingOf(insecure, "keyvault_rbac_key_expiration").details.map((d) => d.name)).not.toContain("disabled-key")
    expect(findingOf(insecure, "storage_file_share_soft_delete").details.map((d) => d.name)).not.toContain("okblob")
  })

  it("App Service HTTP logs: per web app, AppServiceHTTPLogs or allLogs enabled; function apps are skipped", () => {
    const http = findingOf(insecure, "app_http_logs_enabled")
    expect(rowOf(http, id("app", "Microsoft.Web/sites", "bad-app"))).toMatchObject({ compliant: false, settings: [], reason: "HTTP logs are not enabled in app-audit." })
    expect(rowOf(http, id("app", "Microsoft.Web/sites", "ok-web3"))).toMatchObject({ compliant: true, settings: ["http-to-workspace"], reason: "HTTP logs are sent by http-to-workspace.", region: "westeurope" })
    expect(http.details.map((d) => d.name).sort()).toEqual(["bad-app", "ok-web3"])
    const hardenedApp = `/subscriptions/${HARDENED.subscriptionId}/resourceGroups/app/providers/Microsoft.Web/sites/ok-app`
    expect(rowOf(findingOf(hardened, "app_http_logs_enabled"), hardenedApp)).toMatchObject({ compliant: true, settings: ["app-all-logs"] })
  })

  it("Databricks: VNet injection and customer-managed keys, scope by scope", () => {
    const bad = id("analytics", "Microsoft.Databricks/workspaces", "bad-dbw")
    const ok = id("analytics", "Microsoft.Databricks/workspaces", "ok-dbw2")
    const vnet = findingOf(insecure, "databricks_vnet_injection")
    expect(rowOf(vnet, bad)).toMatchObject({ compliant: false, virtual_network: null, reason: "Clusters run in a VNet managed by Databricks.", resource_group: "analytics", region: "eastus" })
    expect(rowOf(vnet, ok)).toMatchObject({ compliant: true, virtual_network: id("net", "Microsoft.Network/virtualNetworks", "vnet-eastus"), reason: "Clusters run in the customer VNet vnet-eastus." })
    const cmk = findingOf(insecure, "databricks_cmk_encryption")
    expect(rowOf(cmk, bad)).toMatchObject({ compliant: false, cmk_scopes: [], platform_key_scopes: ["managed services", "managed disks", "DBFS root"], sku: "standard", reason: "Every scope uses Microsoft-managed keys." })
    expect(rowOf(cmk, ok)).toMatchObject({ compliant: true, cmk_scopes: ["managed services"], platform_key_scopes: ["managed disks", "DBFS root"], sku: "premium" })
    const hardenedWorkspace = `/subscriptions/${HARDENED.subscriptionId}/resourceGroups/analytics/providers/Microsoft.Databricks/workspaces/ok-dbw`
    expect(rowOf(findingOf(hardened, "databricks_cmk_encryption"), hardenedWorkspace)).toMatchObject({ compliant: true, cmk_scopes: ["managed services", "managed disks", "DBFS root"], platform_key_scopes: [] })
    expect(insecure.find((r) => r.service === "databricks")!.resourcesScanned).toBe(2)
  })

  it("rows carry the resource name, group and region", () => {
    expect(rowOf(findingOf(insecure, "keyvault_recoverable"), id("security", "Microsoft.KeyVault/vaults", "bad-kv-rbac"))).toMatchObject({ name: "bad-kv-rbac", resource_group: "security", region: "eastus" })
    const storage = insecure.find((r) => r.service === "storage")!
    expect(storage.accountId).toBe(I)
    expect(storage.resourcesScanned).toBe(3)
  })
})
