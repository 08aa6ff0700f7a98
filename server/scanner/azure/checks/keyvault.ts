/** Key Vault checks (CIS Azure v3 3.3.x / v4 9.3.x) and Key Vault logging (v3 6.1.4 / v4 7.1.1.4). */
import type { DetailRow } from "../../check.ts"
import { defineAzureCheck, resourceRow } from "../define-check.ts"
import { settingsSendingLogs, type VaultInfo, type VaultKey, type VaultSecret } from "../collectors/keyvault.ts"
import { locationOf } from "../context.ts"
import { row } from "../../rest/engine.ts"

const isRbac = (v: VaultInfo) => v.properties?.enableRbacAuthorization === true
const approvedEndpoints = (v: VaultInfo) => (v.properties?.privateEndpointConnections ?? []).filter((c) => (c.properties?.privateLinkServiceConnectionState?.status ?? "Approved") === "Approved")

const expiryCheck = (id: string, cis: { v3: string; v4: string }, kind: "keys" | "secrets", rbac: boolean) =>
  defineAzureCheck({
    id,
    service: "keyvault",
    title: `The expiration date should be set for all ${kind === "keys" ? "keys" : "secrets"} in ${rbac ? "RBAC" : "non-RBAC"} key vaults`,
    description: `Checks every enabled ${kind === "keys" ? "key" : "secret"} of ${rbac ? "vaults using Azure RBAC" : "vaults using access policies"} has an expiration date.`,
    severity: "medium",
    cis,
    remediation: `az keyvault ${kind === "keys" ? "key" : "secret"} set-attributes --vault-name VAULT --name NAME --expires YYYY-MM-DDThh:mm:ssZ`,
    field_labels: { vault: "Vault", expires: "Expires" },
    uses: kind === "keys" ? ["keyvault.vaults", "keyvault.keys"] : ["keyvault.vaults", "keyvault.secrets"],
    reads: `ARM Microsoft.KeyVault/vaults → properties.enableRbacAuthorization; vaults/${kind} → properties.attributes.exp`,
    evaluate: (inv) =>
      (inv.keyvault.vaults ?? [])
        .filter((v) => isRbac(v) === rbac)
        .flatMap((v) =>
          ((kind === "keys" ? v.keys : v.secrets) ?? [])
            .filter((item: VaultKey | VaultSecret) => item.properties?.attributes?.enabled !== false)
            .map((item: VaultKey | VaultSecret): DetailRow => {
              const exp = item.properties?.attributes?.exp
              return row(item.id, locationOf(v), exp !== undefined, exp !== undefined ? `Expires ${new Date(exp * 1000).toISOString()}.` : "No expiration date is set.", {
                name: item.name,
                vault: v.name,
                expires: exp === undefined ? null : new Date(exp * 1000).toISOString(),
              })
            }),
        ),
  })

export const keyvaultChecks = [
  expiryCheck("keyvault_rbac_key_expiration", { v3: "3.3.1", v4: "9.3.1" }, "keys", true),
  expiryCheck("keyvault_non_rbac_key_expiration", { v3: "3.3.2", v4: "9.3.2" }, "keys", false),
  expiryCheck("keyvault_rbac_secret_expiration", { v3: "3.3.3", v4: "9.3.3" }, "secrets", true),
  expiryCheck("keyvault_non_rbac_secret_expiration", { v3: "3.3.4", v4: "9.3.4" }, "secrets", false),
  defineAzureCheck({
    id: "keyvault_recoverable",
    service: "keyvault",
    title: "Key vaults should be recoverable (soft delete and purge protection)",
    description: "Checks soft delete and purge protection are both enabled, so deleted vaults and objects can be recovered.",
    severity: "high",
    cis: { v3: "3.3.5", v4: "9.3.5" },
    remediation: "az keyvault update --name VAULT --enable-purge-protection true (irreversible by design; soft delete is on by default).",
    field_labels: { soft_delete: "Soft delete", purge_protection: "Purge protection" },
    uses: ["keyvault.vaults"],
    reads: "ARM Microsoft.KeyVault/vaults → properties.enableSoftDelete, enablePurgeProtection",
    evaluate: (inv) =>
      (inv.keyvault.vaults ?? []).map((v) => {
        const soft = v.properties?.enableSoftDelete !== false
        const purge = v.properties?.enablePurgeProtection === true
        return resourceRow(v, soft && purge, soft && purge ? "Soft delete and purge protection are on." : `${soft ? "" : "Soft delete is off. "}${purge ? "" : "Purge protection is off."}`.trim(), { soft_delete: soft, purge_protection: purge })
      }),
  }),
  defineAzureCheck({
    id: "keyvault_rbac_enabled",
    service: "keyvault",
    title: "Key vaults should use Azure RBAC for authorization",
    description: "Checks the vault uses the Azure RBAC permission model instead of vault access policies.",
    severity: "medium",
    cis: { v3: "3.3.6", v4: "9.3.6" },
    remediation: "Migrate the access policies to role assignments, then az keyvault update --name VAULT --enable-rbac-authorization true.",
    field_labels: { rbac: "RBAC authorization" },
    uses: ["keyvault.vaults"],
    reads: "ARM Microsoft.KeyVault/vaults → properties.enableRbacAuthorization",
    evaluate: (inv) => (inv.keyvault.vaults ?? []).map((v) => resourceRow(v, isRbac(v), isRbac(v) ? "The vault uses Azure RBAC." : "The vault uses access policies.", { rbac: isRbac(v) })),
  }),
  defineAzureCheck({
    id: "keyvault_private_endpoints",
    service: "keyvault",
    title: "Key vaults should use private endpoints",
    description: "Checks the vault has at least one approved private endpoint connection.",
    severity: "medium",
    cis: { v3: "3.3.7", v4: "9.3.8" },
    remediation: "Create a private endpoint for the vault (az network private-endpoint create --group-id vault …) and a private DNS zone privatelink.vaultcore.azure.net.",
    field_labels: { private_endpoints: "Private endpoints" },
    uses: ["keyvault.vaults"],
    reads: "ARM Microsoft.KeyVault/vaults → properties.privateEndpointConnections[].privateLinkServiceConnectionState.status",
    evaluate: (inv) =>
      (inv.keyvault.vaults ?? []).map((v) => {
        const n = approvedEndpoints(v).length
        return resourceRow(v, n > 0, n > 0 ? `${n} approved private endpoint(s).` : "No private endpoint.", { private_endpoints: n })
      }),
  }),
  defineAzureCheck({
    id: "keyvault_public_network_access_disabled",
    service: "keyvault",
    title: "Public network access should be disabled on key vaults",
    description: "Checks publicNetworkAccess is Disabled, so the vault is only reachable through its private endpoints.",
    severity: "medium",
    cis: { v4: "9.3.7" },
    remediation: "After creating a private endpoint: az keyvault update --name VAULT --public-network-access Disabled",
    field_labels: { public_network_access: "Public network access" },
    uses: ["keyvault.vaults"],
    reads: "ARM Microsoft.KeyVault/vaults → properties.publicNetworkAccess",
    evaluate: (inv) =>
      (inv.keyvault.vaults ?? []).map((v) => {
        // Key Vault spells the values in lower case ("enabled"/"disabled"); absent is "enabled" (collectors/defaults.ts).
        const pna = v.properties?.publicNetworkAccess ?? "enabled"
        return resourceRow(v, pna.toLowerCase() === "disabled", `Public network access is ${pna.toLowerCase()}.`, { public_network_access: pna })
      }),
  }),
  defineAzureCheck({
    id: "keyvault_key_auto_rotation",
    service: "keyvault",
    title: "Automatic key rotation should be enabled for key vault keys",
    description: "Checks every enabled key has a rotation policy with a Rotate lifetime action.",
    severity: "medium",
    cis: { v3: "3.3.8", v4: "9.3.9" },
    remediation: "az keyvault key rotation-policy update --vault-name VAULT --name KEY --value policy.json (with a lifetimeActions entry of type Rotate).",
    field_labels: { vault: "Vault", rotation: "Rotation action" },
    // The key list (keyvault.keys) and each key's rotation policy (keyvault.key_rotation): a failure of either leaves keys unjudged.
    uses: ["keyvault.vaults", "keyvault.keys", "keyvault.key_rotation"],
    reads: "ARM vaults/keys/{key} → properties.rotationPolicy.lifetimeActions[].action.type == Rotate",
    evaluate: (inv) =>
      (inv.keyvault.vaults ?? []).flatMap((v) =>
        (v.keys ?? [])
          .filter((k) => k.properties?.attributes?.enabled !== false)
          .map((k) => {
            const rotates = (k.properties?.rotationPolicy?.lifetimeActions ?? []).some((a) => a.action?.type?.toLowerCase() === "rotate")
            return row(k.id, locationOf(v), rotates, rotates ? "The key rotates automatically." : "The key has no automatic rotation.", { name: k.name, vault: v.name, rotation: rotates })
          }),
      ),
  }),
  defineAzureCheck({
    id: "keyvault_logging_enabled",
    service: "keyvault",
    title: "Logging should be enabled for Azure Key Vault",
    description: "Checks the vault has a diagnostic setting sending the AuditEvent category (or the audit / allLogs category group) to a destination.",
    severity: "medium",
    cis: { v3: "6.1.4", v4: "7.1.1.4" },
    remediation: "az monitor diagnostic-settings create --resource VAULT_ID --name audit --workspace WORKSPACE_ID --logs '[{\"categoryGroup\":\"audit\",\"enabled\":true}]'",
    field_labels: { settings: "Diagnostic settings" },
    uses: ["keyvault.vaults", "keyvault.diagnostics"],
    reads: "ARM {vault}/providers/Microsoft.Insights/diagnosticSettings → properties.logs[category=AuditEvent | categoryGroup=audit|allLogs].enabled",
    evaluate: (inv) =>
      (inv.keyvault.vaults ?? []).flatMap((v) => {
        if (v.diagnostics === undefined) return []
        const logging = settingsSendingLogs(v.diagnostics, { categories: ["AuditEvent"], groups: ["audit", "allLogs"] })
        return [resourceRow(v, logging.length > 0, logging.length > 0 ? `Audit events are sent by ${logging.map((d) => d.name).join(", ")}.` : "Audit events are not logged.", { settings: logging.map((d) => d.name) })]
      }),
  }),
]
