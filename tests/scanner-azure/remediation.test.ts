/**
 * Azure fixers on the fake Azure: every fixer goes fail → fix → re-read → pass, long-running operations
 * (202 + Azure-AsyncOperation) are waited for, whole-object updates keep the other settings, rows pointing outside
 * the subscription are refused, and a refused write is reported honestly.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { azureEndpointsAt } from "../../server/scanner/azure/endpoints.ts"
import { azureRemediableChecks, remediateAzureFinding } from "../../server/remediation/azure/remediate.ts"
import type { DetailRow } from "../../server/scanner/check.ts"
import { INSECURE, insecureSubscription, insecureTenant, NOW } from "./azure-fixtures.ts"
import { armError, type Json } from "./azure-world.ts"
import { findingOf, rowOf } from "../scanner-gcp/helpers.ts"
import { startAzureFixture, type AzureFixture } from "./helpers.ts"

let fx: AzureFixture
const S = INSECURE.subscriptionId
const id = (rg: string, type: string, name: string) => `/subscriptions/${S}/resourceGroups/${rg}/providers/${type}/${name}`
const STORAGE = id("data", "Microsoft.Storage/storageAccounts", "badstorage")
const APP = id("app", "Microsoft.Web/sites", "bad-app")
const PG = id("data", "Microsoft.DBforPostgreSQL/flexibleServers", "bad-pg")
const MYSQL = id("data", "Microsoft.DBforMySQL/flexibleServers", "bad-mysql")
const COSMOS = id("data", "Microsoft.DocumentDB/databaseAccounts", "bad-cosmos")

/** The checks each insecure resource is fixed for: [service, resource, check ids]. */
const groups: ReadonlyArray<readonly [string, string, ReadonlyArray<string>]> = [
  ["storage", STORAGE, [
    "storage_secure_transfer_required", "storage_minimum_tls_12", "storage_blob_anonymous_access_disabled", "storage_cross_tenant_replication_disabled",
    "storage_default_to_entra_authorization", "storage_trusted_azure_services", "storage_blob_soft_delete", "storage_container_soft_delete",
    "storage_blob_versioning", "storage_file_share_soft_delete", "storage_shared_key_access_disabled", "storage_public_network_access_disabled",
    "storage_default_network_access_deny",
  ]],
  ["sql", `${id("data", "Microsoft.Sql/servers", "bad-sql")}/databases/baddb`, ["sql_database_tde_enabled"]],
  ["sql", id("data", "Microsoft.Sql/servers", "bad-sql"), ["sql_minimal_tls_12", "sql_public_network_access_disabled"]],
  ["appservice", APP, [
    "app_https_only", "app_managed_identity", "app_ftps_only", "app_min_tls_12", "app_http2_enabled", "app_remote_debugging_off",
    "app_ftp_deployment_disabled", "app_scm_min_tls_12", "app_client_certificates_on",
  ]],
  ["cosmosdb", COSMOS, ["cosmosdb_account_minimum_tls_version", "cosmosdb_account_public_network_access_disabled", "cosmosdb_account_use_aad_and_rbac", "cosmosdb_account_automatic_failover_enabled"]],
  ["postgresql", PG, [
    "postgresql_flexible_server_public_network_access_disabled", "postgresql_require_secure_transport", "postgresql_log_checkpoints",
    "postgresql_connection_throttling", "postgresql_log_retention_days", "postgresql_log_connections", "postgresql_log_disconnections",
  ]],
  ["mysql", MYSQL, ["mysql_flexible_server_public_network_access_disabled", "mysql_require_secure_transport", "mysql_tls_version_12", "mysql_audit_log_enabled", "mysql_audit_log_connection_events"]],
  ["keyvault", id("security", "Microsoft.KeyVault/vaults", "bad-kv-rbac"), ["keyvault_public_network_access_disabled"]],
  ["keyvault", id("security", "Microsoft.KeyVault/vaults", "bad-kv-policy"), ["keyvault_rbac_enabled"]],
  ["acr", id("images", "Microsoft.ContainerRegistry/registries", "badacr"), ["acr_admin_user_disabled", "acr_anonymous_pull_disabled"]],
  ["recovery", id("backup", "Microsoft.RecoveryServices/vaults", "bad-rsv"), ["recovery_vault_soft_delete_enabled", "recovery_vault_immutability_enabled"]],
]
const targets: Record<string, { service: string; resource: string }> = Object.fromEntries(
  groups.flatMap(([service, resource, checks]) => checks.map((checkId) => [checkId, { service, resource }])),
)

beforeAll(async () => {
  fx = await startAzureFixture([insecureTenant()], [insecureSubscription()])
})

afterAll(async () => {
  await fx.close()
})

const remediate = (checkId: string, row: DetailRow) => remediateAzureFinding({ credentials: fx.credentialsFor(S), endpoints: azureEndpointsAt(fx.server.origin), checkId, row, now: NOW })

async function failingRow(checkId: string, resource: string) {
  const scan = await fx.scan(S, targets[checkId]?.service ?? "storage", { checkIds: [checkId] })
  const row = rowOf(findingOf([scan], checkId), resource)
  expect(row.compliant, `${checkId} should fail first: ${row.reason}`).toBe(false)
  return row
}

const stored = (path: string) => fx.world.subscriptions.get(S)!.resources.get(path.toLowerCase())!

describe("Azure fixers: fail -> fix -> verified pass", () => {
  it("covers every fixer", () => {
    expect(azureRemediableChecks().map((c) => c.checkId).sort()).toEqual(Object.keys(targets).sort())
  })

  for (const checkId of Object.keys(targets)) {
    it(checkId, async () => {
      const t = targets[checkId]!
      const row = await failingRow(checkId, t.resource)
      const result = await remediate(checkId, row)
      expect(result.status, result.message).toBe("remediated")
      expect(result.after?.compliant).toBe(true)
      const again = await fx.scan(S, t.service, { checkIds: [checkId] })
      expect(rowOf(findingOf([again], checkId), t.resource).compliant).toBe(true)
    })
  }

  it("kept the other settings when writing whole objects", () => {
    const acls = (stored(STORAGE)["properties"] as Json)["networkAcls"] as Json
    expect(acls).toMatchObject({ defaultAction: "Deny", bypass: "AzureServices", ipRules: [], virtualNetworkRules: [] })
    expect(stored(`${MYSQL}/configurations/audit_log_events`)["properties"]).toMatchObject({ value: "DDL,DML,CONNECTION" })
    const blob = stored(`${STORAGE}/blobServices/default`)["properties"] as Json
    expect(blob).toEqual({ deleteRetentionPolicy: { enabled: true, days: 7 }, containerDeleteRetentionPolicy: { enabled: true, days: 7 }, isVersioningEnabled: true })
    const file = stored(`${STORAGE}/fileServices/default`)["properties"] as Json
    expect((file["protocolSettings"] as Json)["smb"]).toEqual({ versions: "SMB2.1;SMB3.0;SMB3.1.1", channelEncryption: "AES-128-CCM;AES-128-GCM;AES-256-GCM" })
    // Assigning the system identity created its service principal.
    expect(stored(APP)["identity"]).toEqual({ type: "SystemAssigned", principalId: expect.stringMatching(/^[0-9a-f-]{36}$/), tenantId: INSECURE.tenantId })
    // The vault's two security settings were written one at a time: each PATCH kept the other.
    expect((stored(id("backup", "Microsoft.RecoveryServices/vaults", "bad-rsv"))["properties"] as Json)["securitySettings"]).toEqual({ immutabilitySettings: { state: "Unlocked" }, softDeleteSettings: { softDeleteState: "Enabled" } })
  })

  it("waited for the TDE operation (202 + Azure-AsyncOperation) before verifying", () => {
    const polls = fx.server.requests.filter((r) => /\/operationResults\//.test(r.path))
    expect(polls.length).toBeGreaterThanOrEqual(2)
  })
})

describe("Azure remediation outcomes", () => {
  it("refuses a row whose resource is outside the credentials' subscription", async () => {
    const row: DetailRow = { resource_id: "/subscriptions/99999999-9999-4999-8999-999999999999/resourceGroups/x/providers/Microsoft.Storage/storageAccounts/other", region: "eastus", compliant: false, reason: "x", name: "other" }
    const result = await remediate("storage_minimum_tls_12", row)
    expect(result.status).toBe("failed")
    expect(result.message).toContain("is not a resource of subscription")
  })

  it("AuthorizationFailed on the write: failed with Azure's reason, nothing claimed", async () => {
    const p = fx.world.subscriptions.get(S)!
    const name = "badstorage2"
    const sid = id("data", "Microsoft.Storage/storageAccounts", name)
    p.resources.set(sid.toLowerCase(), { id: sid, name, location: "eastus", kind: "StorageV2", properties: { minimumTlsVersion: "TLS1_0" } })
    const row = await failingRow("storage_minimum_tls_12", sid)
    fx.server.fault({ host: "management.azure.com", method: "PATCH", times: 1, reply: armError(403, "AuthorizationFailed", "The client does not have authorization to perform action 'Microsoft.Storage/storageAccounts/write'.") })
    const result = await remediate("storage_minimum_tls_12", row)
    expect(result.status).toBe("failed")
    expect(result.message).toContain("AuthorizationFailed")
    expect(result.action).toBeUndefined()
  })

  it("an already compliant row is left alone; a check without fixer is refused", async () => {
    const scan = await fx.scan(S, "storage", { checkIds: ["storage_minimum_tls_12"] })
    const ok = rowOf(findingOf([scan], "storage_minimum_tls_12"), id("data", "Microsoft.Storage/storageAccounts", "okblob"))
    const before = fx.world.writes.length
    expect((await remediate("storage_minimum_tls_12", ok)).status).toBe("pass")
    expect((await remediate("storage_private_endpoints", ok)).status).toBe("failed")
    expect(fx.world.writes.length).toBe(before)
  })
})
