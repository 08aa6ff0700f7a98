/**
 * Azure plan fixers (issue 32) on the fake Azure: every fixer is a plan fixer; for each, the preview changes nothing
 * (the whole subscription's resources identical before and after, no write sent), the apply sends exactly the previewed
 * calls and is verified by re-reading, and the undo restores the resource field by field (or the preview said before
 * the fix why it cannot: a setting that was never set). A resource changed after the fix makes the undo refuse with the
 * difference. Assigning a managed identity creates a service principal; its undo removes it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { azureEndpointsAt } from "../../server/scanner/azure/endpoints.ts"
import { azureRemediableChecks, previewAzureFinding, readAzureFixedState, remediateAzureFinding, undoAzureFinding } from "../../server/remediation/azure/remediate.ts"
import { diffStates } from "../../server/remediation/plan.ts"
import { renderRestTerraform } from "../../server/remediation/rest.ts"
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
/** Whether each fixer's preview (on the insecure resource, before its fix) said it is reversible. */
const reversible = new Map<string, boolean>()

describe("Azure plan fixers: preview, apply, undo", () => {
  it("every Azure fixer is planned (previewable)", () => {
    expect(azureRemediableChecks()).toHaveLength(47)
    expect([...planned].sort()).toEqual(Object.keys(targets).sort())
  })

  for (const checkId of planned) {
    it(checkId, async () => {
      const row = await failingRow(checkId)
      const before = snapshot()
      const writes = fx.world.writes.length
      const preview = await previewAzureFinding(input(checkId, row))
      expect(snapshot()).toBe(before)
      expect(fx.world.writes.length).toBe(writes)
      reversible.set(checkId, preview.reversible)
      expect(preview.calls).toHaveLength(1)
      expect(preview.cli).toMatch(/^az rest --method (patch|put) --url '?https?:\/\/[^ ]+\?api-version=\d{4}-\d{2}-\d{2}(-preview)?'? --body /)
      if (/configurations\/write$|transparentDataEncryption\/write$/.test(preview.calls[0]!.operation)) expect(preview.terraform).toMatch(/^(# In the existing azurerm_mssql_database .*\n)?resource "azurerm_(postgresql|mysql)?_?(flexible_server_configuration|mssql_database)" /)
      else expect(preview.terraform).toMatch(/no Terraform is generated for this call/)

      const result = await remediateAzureFinding(input(checkId, row))
      expect(result.status, result.message).toBe("remediated")
      expect(result.pre_image).toEqual(preview.state)
      expect(fx.world.writes.slice(writes).map((w) => w.body)).toEqual(preview.calls.map((c) => (c.params as { body: unknown }).body))
      if (!preview.reversible) {
        expect(preview.undo_note).toMatch(/was not set on the resource|did not report/)
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

  const undoInput = (checkId: string, row: DetailRow, result: Awaited<ReturnType<typeof remediateAzureFinding>>) => ({
    ...input(checkId, row), plan: result.plan!, outputs: result.outputs ?? [], preImage: result.pre_image!, postImage: result.post_image!,
  })
  const stored = (path: string) => fx.world.subscriptions.get(S)!.resources.get(path.toLowerCase())!

  it("managed identity: the preview says a service principal is created; the undo removes it (verified)", async () => {
    const checkId = "app_managed_identity"
    const row = await failingRow(checkId)
    const preview = await previewAzureFinding(input(checkId, row))
    expect(preview.state).toEqual({ identity: { type: "None", principalId: null, userAssignedIdentities: [] } })
    expect(preview.effects.join(" ")).toMatch(/creates a service principal/)
    expect(preview.reversible).toBe(true)
    expect(preview.undo_note).toMatch(/deletes the service principal the fix created/)
    expect(preview.undo_calls.map((c) => c.params)).toEqual([{ method: "PATCH", url: expect.stringContaining(`${APP}?api-version=`), body: { identity: { type: "None" } } }])
    const result = await remediateAzureFinding(input(checkId, row))
    expect(result.status, result.message).toBe("remediated")
    const principal = (result.post_image as { identity: { principalId: string } }).identity.principalId
    expect(principal).toMatch(/^[0-9a-f-]{36}$/)
    const undone = await undoAzureFinding({ ...undoInput(checkId, row, result), force: false })
    expect(undone.status, undone.message).toBe("undone")
    expect(stored(APP)["identity"]).toEqual({ type: "None" })
    expect(JSON.stringify(stored(APP))).not.toContain(principal)
  })

  it("managed identity next to a user-assigned one (preview): the fix keeps it, the undo goes back to UserAssigned only", async () => {
    const uai = `/subscriptions/${S}/resourceGroups/app/providers/Microsoft.ManagedIdentity/userAssignedIdentities/deployer`
    const key = APP.toLowerCase()
    const site = fx.world.subscriptions.get(S)!.resources.get(key)!
    fx.world.subscriptions.get(S)!.resources.set(key, { ...site, identity: { type: "UserAssigned", userAssignedIdentities: { [uai]: { principalId: "u-principal", clientId: "u-client" } } } })
    try {
      // The check passes with a user-assigned identity alone, so the job would not fix it; the plan still keeps it.
      const row: DetailRow = { resource_id: APP, region: "eastus", compliant: false, reason: "x", name: "bad-app" }
      const before = snapshot()
      const preview = await previewAzureFinding(input("app_managed_identity", row))
      expect(snapshot()).toBe(before)
      expect(preview.state).toEqual({ identity: { type: "UserAssigned", principalId: null, userAssignedIdentities: [uai] } })
      expect(preview.calls.map((c) => (c.params as { body: unknown }).body)).toEqual([{ identity: { type: "SystemAssigned, UserAssigned", userAssignedIdentities: { [uai]: {} } } }])
      expect(preview.undo_calls.map((c) => (c.params as { body: unknown }).body)).toEqual([{ identity: { type: "UserAssigned", userAssignedIdentities: { [uai]: {} } } }])
      expect(preview.effects).toContain(`The user-assigned identities stay assigned: ${uai}.`)
    } finally {
      fx.world.subscriptions.get(S)!.resources.set(key, site)
    }
  })

  it("a server parameter at its system default: the undo puts the default back with source system-default", async () => {
    const checkId = "postgresql_log_connections"
    const cfg = `${PG}/configurations/log_connections`
    const original = stored(cfg)
    fx.world.subscriptions.get(S)!.resources.set(cfg.toLowerCase(), { ...original, properties: { ...(original["properties"] as Json), value: "off", defaultValue: "off", source: "system-default", isDynamicConfig: true } })
    try {
      const row = await failingRow(checkId)
      const preview = await previewAzureFinding(input(checkId, row))
      expect(preview.state).toEqual({ properties: { value: "off", source: "system-default" } })
      expect(preview.calls.map((c) => c.params)).toEqual([{ method: "PUT", url: expect.stringMatching(/\/configurations\/log_connections\?api-version=2022-12-01$/), body: { properties: { value: "ON", source: "user-override" } } }])
      expect(preview.undo_calls.map((c) => (c.params as { body: unknown }).body)).toEqual([{ properties: { value: "off", source: "system-default" } }])
      expect(preview.undo_note).toMatch(/source system-default/)
      expect(preview.terraform).toBe(`resource "azurerm_postgresql_flexible_server_configuration" "bad_pg_log_connections" {\n  name      = "log_connections"\n  server_id = "${PG}"\n  value     = "ON"\n}`)
      const result = await remediateAzureFinding(input(checkId, row))
      expect(result.status, result.message).toBe("remediated")
      expect(result.post_image).toEqual({ properties: { value: "ON", source: "user-override" } })
      const undone = await undoAzureFinding({ ...undoInput(checkId, row, result), force: false })
      expect(undone.status, undone.message).toBe("undone")
      expect(stored(cfg)["properties"]).toMatchObject({ value: "off", source: "system-default", defaultValue: "off" })
    } finally {
      fx.world.subscriptions.get(S)!.resources.set(cfg.toLowerCase(), original)
    }
  })

  it("a static server parameter: the preview says the new value needs a restart", async () => {
    const checkId = "mysql_audit_log_enabled"
    const cfg = `${MYSQL}/configurations/audit_log_enabled`
    const original = stored(cfg)
    // MySQL answers the string "False" (IsDynamicConfig), PostgreSQL a boolean.
    fx.world.subscriptions.get(S)!.resources.set(cfg.toLowerCase(), { ...original, properties: { ...(original["properties"] as Json), isDynamicConfig: "False" } })
    try {
      const preview = await previewAzureFinding(input(checkId, await failingRow(checkId)))
      expect(preview.effects).toEqual(["'audit_log_enabled' is a static parameter: the new value takes effect after the server restarts (the fix does not restart it)."])
    } finally {
      fx.world.subscriptions.get(S)!.resources.set(cfg.toLowerCase(), original)
    }
  })

  it("a blob service changed after the fix: undo is refused with the difference (the PUT would overwrite it)", async () => {
    const checkId = "storage_blob_soft_delete"
    const row = await failingRow(checkId)
    const result = await remediateAzureFinding(input(checkId, row))
    expect(result.status, result.message).toBe("remediated")
    const key = `${STORAGE}/blobServices/default`.toLowerCase()
    const svc = fx.world.subscriptions.get(S)!.resources.get(key)!
    fx.world.subscriptions.get(S)!.resources.set(key, { ...svc, properties: { ...(svc["properties"] as Json), isVersioningEnabled: true } })
    const before = snapshot()
    const refused = await undoAzureFinding({ ...undoInput(checkId, row, result), force: false })
    expect(refused.status).toBe("conflict")
    expect(refused.differences).toEqual([{ path: "properties.isVersioningEnabled", expected: false, actual: true }])
    expect(snapshot()).toBe(before)
    // Forced, the undo writes the pre-image back whole (versioning included) and verifies it.
    const forced = await undoAzureFinding({ ...undoInput(checkId, row, result), force: true })
    expect(forced.status, forced.message).toBe("undone")
    expect(stored(`${STORAGE}/blobServices/default`)["properties"]).toEqual({ deleteRetentionPolicy: { enabled: false }, containerDeleteRetentionPolicy: { enabled: false }, isVersioningEnabled: false })
  })

  it("a server parameter changed after the fix: undo is refused with the difference", async () => {
    const checkId = "mysql_tls_version_12"
    const row = await failingRow(checkId)
    const result = await remediateAzureFinding(input(checkId, row))
    expect(result.status, result.message).toBe("remediated")
    const key = `${MYSQL}/configurations/tls_version`.toLowerCase()
    const cfg = fx.world.subscriptions.get(S)!.resources.get(key)!
    fx.world.subscriptions.get(S)!.resources.set(key, { ...cfg, properties: { ...(cfg["properties"] as Json), value: "TLSv1.3" } })
    const before = snapshot()
    expect(result.plan && renderRestTerraform(result.plan.calls)).toBe(`resource "azurerm_mysql_flexible_server_configuration" "bad_mysql_tls_version" {\n  name                = "tls_version"\n  resource_group_name = "data"\n  server_name         = "bad-mysql"\n  value               = "TLSv1.2,TLSv1.3"\n}`)
    const refused = await undoAzureFinding({ ...undoInput(checkId, row, result), force: false })
    expect(refused.status).toBe("conflict")
    expect(refused.differences).toEqual([{ path: "properties.value", expected: "TLSv1.2,TLSv1.3", actual: "TLSv1.3" }])
    expect(snapshot()).toBe(before)
  })

  it("the storage firewall changed after the fix: undo is refused with the difference", async () => {
    const checkId = "storage_default_network_access_deny"
    const row = await failingRow(checkId)
    const result = await remediateAzureFinding(input(checkId, row))
    expect(result.status, result.message).toBe("remediated")
    const key = STORAGE.toLowerCase()
    const acct = fx.world.subscriptions.get(S)!.resources.get(key)!
    const props = acct["properties"] as Json
    fx.world.subscriptions.get(S)!.resources.set(key, { ...acct, properties: { ...props, networkAcls: { ...(props["networkAcls"] as Json), ipRules: [{ value: "203.0.113.0/24", action: "Allow" }] } } })
    const refused = await undoAzureFinding({ ...undoInput(checkId, row, result), force: false })
    expect(refused.status).toBe("conflict")
    expect(refused.differences).toEqual([
      { path: "properties.networkAcls.ipRules.0", actual: { value: "203.0.113.0/24", action: "Allow" } },
    ])
  })

  it("reversibility on the insecure subscription: every fixer but the fields Azure never reported", () => {
    const irreversible = planned.filter((c) => reversible.get(c) === false).sort()
    expect(reversible.size).toBe(planned.length)
    console.log(`Azure fixers: ${planned.length} planned, ${planned.length - irreversible.length} reversible on the insecure fixture; irreversible: ${irreversible.join(", ")}`)
    expect(irreversible).toEqual(["app_scm_min_tls_12", "cosmosdb_account_minimum_tls_version", "mysql_flexible_server_public_network_access_disabled", "postgresql_flexible_server_public_network_access_disabled", "sql_minimal_tls_12"])
  })
})
