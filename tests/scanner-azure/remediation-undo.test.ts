/**
 * Azure plan fixers (issue 32) on the fake Azure: for every fixer with a plan, the preview changes nothing (the whole
 * subscription's resources identical before and after, no write sent), the apply is verified by re-reading, and the
 * undo restores the resource field by field (or the preview said before the fix why it cannot: a setting that was
 * never set). A resource changed after the fix makes the undo refuse with the difference.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { azureEndpointsAt } from "../../server/scanner/azure/endpoints.ts"
import { azureRemediableChecks, previewAzureFinding, readAzureFixedState, remediateAzureFinding, undoAzureFinding } from "../../server/remediation/azure/remediate.ts"
import { diffStates } from "../../server/remediation/plan.ts"
import type { DetailRow } from "../../server/scanner/check.ts"
import { INSECURE, insecureSubscription, insecureTenant, NOW } from "./azure-fixtures.ts"
import type { Json } from "./azure-world.ts"
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

const input = (checkId: string, row: DetailRow) => ({ credentials: fx.credentialsFor(S), endpoints: azureEndpointsAt(fx.server.origin), checkId, row, now: NOW })

async function failingRow(checkId: string) {
  const t = targets[checkId]!
  const scan = await fx.scan(S, t.service, { checkIds: [checkId] })
  const row = rowOf(findingOf([scan], checkId), t.resource)
  expect(row.compliant, `${checkId} should fail first: ${row.reason}`).toBe(false)
  return row
}

const snapshot = () => JSON.stringify([...fx.world.subscriptions.get(S)!.resources.entries()])
const planned = azureRemediableChecks().filter((c) => c.previewable).map((c) => c.checkId)

describe("Azure plan fixers: preview, apply, undo", () => {
  it("the storage account, resource and App Service settings fixers are planned", () => {
    expect(planned.length).toBeGreaterThanOrEqual(28)
    expect(planned.every((c) => targets[c] !== undefined)).toBe(true)
  })

  for (const checkId of planned) {
    it(checkId, async () => {
      const row = await failingRow(checkId)
      const before = snapshot()
      const writes = fx.world.writes.length
      const preview = await previewAzureFinding(input(checkId, row))
      expect(snapshot()).toBe(before)
      expect(fx.world.writes.length).toBe(writes)
      expect(preview.calls).toHaveLength(1)
      expect(preview.cli).toMatch(/^az rest --method patch --url /)
      expect(preview.terraform).toMatch(/no Terraform is generated for this call/)

      const result = await remediateAzureFinding(input(checkId, row))
      expect(result.status, result.message).toBe("remediated")
      expect(result.pre_image).toEqual(preview.state)
      expect(fx.world.writes.slice(writes).map((w) => w.body)).toEqual(preview.calls.map((c) => (c.params as { body: unknown }).body))
      if (!preview.reversible) {
        expect(preview.undo_note).toMatch(/was not set on the resource/)
        return
      }
      const undone = await undoAzureFinding({ ...input(checkId, row), plan: result.plan!, outputs: result.outputs ?? [], preImage: result.pre_image!, postImage: result.post_image!, force: false })
      expect(undone.status, undone.message).toBe("undone")
      expect(diffStates(result.pre_image, await readAzureFixedState(input(checkId, row)))).toEqual([])
      await failingRow(checkId)
    })
  }

  it("a resource changed after the fix: undo is refused with the difference", async () => {
    const checkId = "acr_admin_user_disabled"
    const row = await failingRow(checkId)
    const result = await remediateAzureFinding(input(checkId, row))
    expect(result.status, result.message).toBe("remediated")
    const key = targets[checkId]!.resource.toLowerCase()
    const res = fx.world.subscriptions.get(S)!.resources.get(key)!
    fx.world.subscriptions.get(S)!.resources.set(key, { ...res, properties: { ...(res["properties"] as Json), adminUserEnabled: true } })
    const before = snapshot()
    const undo = { ...input(checkId, row), plan: result.plan!, outputs: result.outputs ?? [], preImage: result.pre_image!, postImage: result.post_image! }
    const refused = await undoAzureFinding({ ...undo, force: false })
    expect(refused.status).toBe("conflict")
    expect(refused.differences).toEqual([{ path: "properties.adminUserEnabled", expected: false, actual: true }])
    expect(snapshot()).toBe(before)
  })
})
