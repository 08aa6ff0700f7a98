/**
 * Scale: a subscription with 520 resources scanned service by service (all services concurrently) against the
 * fixture server with 50 items per page; every resource is read and evaluated. Prints the wall time.
 */
import { afterAll, beforeAll, expect, it } from "vitest"
import { scannableAzureServices } from "../../server/scanner/azure/catalogue.ts"
import { findingOf } from "../scanner-gcp/helpers.ts"
import { emptySubscription, HARDENED, hardenedTenant } from "./azure-fixtures.ts"
import { put } from "./azure-world.ts"
import { startAzureFixture, type AzureFixture } from "./helpers.ts"

const S = "55555555-5555-4555-8555-555555555555"
let fx: AzureFixture

beforeAll(async () => {
  const sub = emptySubscription({ tenantId: HARDENED.tenantId, subscriptionId: S }, "Scale")
  const rid = (type: string, name: string) => `/subscriptions/${S}/resourceGroups/rg-${name.length % 4}/providers/${type}/${name}`
  for (let i = 0; i < 100; i++) {
    const sa = put(sub, { id: rid("Microsoft.Storage/storageAccounts", `st${i}`), name: `st${i}`, location: "eastus", kind: "StorageV2", sku: { name: "Standard_LRS" }, properties: { supportsHttpsTrafficOnly: i % 4 !== 0, minimumTlsVersion: "TLS1_2" } })
    put(sub, { id: `${String(sa["id"])}/blobServices/default`, name: "default", properties: { deleteRetentionPolicy: { enabled: true, days: 7 } } })
    put(sub, { id: `${String(sa["id"])}/fileServices/default`, name: "default", properties: {} })
    put(sub, { id: rid("Microsoft.Network/networkSecurityGroups", `nsg${i}`), name: `nsg${i}`, location: "eastus", properties: { securityRules: [{ name: "r", properties: { protocol: "Tcp", access: "Allow", direction: "Inbound", sourceAddressPrefix: i % 10 === 0 ? "*" : "10.0.0.0/8", destinationPortRange: "22" } }] } })
    const site = put(sub, { id: rid("Microsoft.Web/sites", `app${i}`), name: `app${i}`, location: "eastus", properties: { httpsOnly: true } })
    put(sub, { id: `${String(site["id"])}/config/web`, name: "web", properties: { ftpsState: "Disabled", minTlsVersion: "1.2", http20Enabled: true, remoteDebuggingEnabled: false } })
    put(sub, { id: rid("Microsoft.Compute/disks", `disk${i}`), name: `disk${i}`, location: "eastus", properties: { diskState: "Unattached" } })
  }
  for (let i = 0; i < 20; i++) {
    put(sub, { id: rid("Microsoft.Databricks/workspaces", `dbw${i}`), name: `dbw${i}`, location: "eastus", sku: { name: "premium" }, properties: { parameters: i % 2 === 0 ? { customVirtualNetworkId: { type: "String", value: "/subscriptions/x/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/v" } } : {} } })
  }
  for (let i = 0; i < 50; i++) {
    put(sub, { id: rid("Microsoft.Compute/virtualMachines", `vm${i}`), name: `vm${i}`, location: "eastus", properties: { storageProfile: { osDisk: { managedDisk: { id: "x" } } } } })
    put(sub, { id: rid("Microsoft.KeyVault/vaults", `kv${i}`), name: `kv${i}`, location: "eastus", properties: { enableRbacAuthorization: true, enableSoftDelete: true, enablePurgeProtection: i % 2 === 0 } })
  }
  fx = await startAzureFixture([hardenedTenant()], [sub], 50)
})

afterAll(async () => {
  await fx.close()
})

it("scans 520 resources across every service", async () => {
  const started = Date.now()
  const results = await Promise.all(scannableAzureServices().map((s) => fx.scan(S, s.id)))
  const wall = Date.now() - started
  // Storage accounts are read by the storage scan and again by the monitor scan (activity-log CMK check).
  const resources = results.reduce((n, r) => n + (r.service === "monitor" ? 0 : r.resourcesScanned), 0)
  const calls = results.reduce((n, r) => n + r.apiCalls, 0)
  console.info(`[scale] Azure: ${resources} resources, ${calls} API calls, ${results.length} services, wall ${wall} ms`)
  expect(resources).toBeGreaterThanOrEqual(520)
  expect(findingOf(results, "storage_secure_transfer_required").details.filter((d) => !d.compliant)).toHaveLength(25)
  expect(findingOf(results, "network_ssh_internet_restricted").details.filter((d) => !d.compliant)).toHaveLength(10)
  expect(findingOf(results, "app_min_tls_12").details).toHaveLength(100)
  expect(findingOf(results, "app_authentication_enabled").details.filter((d) => !d.compliant)).toHaveLength(100)
  expect(findingOf(results, "storage_blob_logging_read_write_delete").details.filter((d) => !d.compliant)).toHaveLength(100)
  expect(findingOf(results, "keyvault_recoverable").details.filter((d) => !d.compliant)).toHaveLength(25)
  expect(findingOf(results, "app_http_logs_enabled").details.filter((d) => !d.compliant)).toHaveLength(100)
  expect(findingOf(results, "databricks_vnet_injection").details.filter((d) => !d.compliant)).toHaveLength(10)
  expect(findingOf(results, "databricks_cmk_encryption").details.filter((d) => !d.compliant)).toHaveLength(20)
  expect(results.every((r) => r.errors.length === 0)).toBe(true)
  expect(wall).toBeLessThan(20_000)
})
