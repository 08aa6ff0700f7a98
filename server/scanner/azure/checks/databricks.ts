/** Azure Databricks checks (CIS Azure v4.0 section 3.1, Analytics Services). */
import { defineAzureCheck, resourceRow } from "../define-check.ts"
import type { Workspace } from "../collectors/databricks.ts"

const isKeyVault = (keySource: string | null | undefined) => keySource?.toLowerCase() === "microsoft.keyvault"

/** The workspace's storage scopes and whether each uses a customer-managed key. */
function cmkScopes(w: Workspace): ReadonlyArray<readonly [string, boolean]> {
  const p = w.properties
  return [
    ["managed services", isKeyVault(p?.encryption?.entities?.managedServices?.keySource)],
    ["managed disks", isKeyVault(p?.encryption?.entities?.managedDisk?.keySource)],
    ["DBFS root", isKeyVault(p?.parameters?.encryption?.value?.keySource)],
  ]
}

export const databricksChecks = [
  defineAzureCheck({
    id: "databricks_vnet_injection",
    service: "databricks",
    title: "Azure Databricks workspaces should be deployed in a customer-managed virtual network (VNet injection)",
    description: "Checks the workspace's custom parameter customVirtualNetworkId names a virtual network of the customer, so clusters run in a network the customer controls (NSGs, routes, private endpoints).",
    severity: "medium",
    cis: { v4: "3.1.1" },
    remediation: "VNet injection is chosen at creation: create a new workspace in your VNet (az databricks workspace create -g RG -n NAME -l LOCATION --sku premium --vnet VNET_ID --public-subnet PUBLIC_SUBNET --private-subnet PRIVATE_SUBNET) and migrate the workloads.",
    field_labels: { virtual_network: "Virtual network" },
    uses: ["databricks.workspaces"],
    reads: "ARM Microsoft.Databricks/workspaces → properties.parameters.customVirtualNetworkId.value",
    evaluate: (inv) =>
      (inv.databricks.workspaces ?? []).map((w) => {
        const vnet = w.properties?.parameters?.customVirtualNetworkId?.value ?? ""
        const ok = vnet.trim() !== ""
        return resourceRow(w, ok, ok ? `Clusters run in the customer VNet ${vnet.slice(vnet.lastIndexOf("/") + 1)}.` : "Clusters run in a VNet managed by Databricks.", { virtual_network: ok ? vnet : null })
      }),
  }),
  defineAzureCheck({
    id: "databricks_cmk_encryption",
    service: "databricks",
    title: "Azure Databricks workspaces should encrypt data with a customer-managed key",
    description:
      "Checks the workspace uses a customer-managed key from Key Vault (keySource Microsoft.Keyvault) for at least one of its storage scopes: managed services (notebooks, secrets, queries), managed disks or the DBFS root. Customer-managed keys need the Premium tier.",
    severity: "medium",
    cis: { v4: "3.1.8" },
    remediation:
      "On a Premium workspace: az databricks workspace update -g RG -n NAME --prepare-encryption, grant the workspace's storage identity get/wrapKey/unwrapKey on the key, then az databricks workspace update -g RG -n NAME --key-source Microsoft.Keyvault --key-vault VAULT_URI --key-name KEY --key-version VERSION (DBFS root); keys for managed services and managed disks are set under the workspace's Encryption settings (properties.encryption.entities).",
    field_labels: { cmk_scopes: "Customer-managed key", platform_key_scopes: "Microsoft-managed key", sku: "Pricing tier" },
    uses: ["databricks.workspaces"],
    reads: "ARM Microsoft.Databricks/workspaces → properties.encryption.entities.{managedServices,managedDisk}.keySource, properties.parameters.encryption.value.keySource",
    evaluate: (inv) =>
      (inv.databricks.workspaces ?? []).map((w) => {
        const scopes = cmkScopes(w)
        const cmk = scopes.filter(([, on]) => on).map(([name]) => name)
        const platform = scopes.filter(([, on]) => !on).map(([name]) => name)
        return resourceRow(w, cmk.length > 0, cmk.length > 0 ? `Customer-managed key for ${cmk.join(", ")}.` : "Every scope uses Microsoft-managed keys.", {
          cmk_scopes: cmk,
          platform_key_scopes: platform,
          sku: w.sku?.name ?? null,
        })
      }),
  }),
]
