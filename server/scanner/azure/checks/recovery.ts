/** Recovery Services vault checks (beyond CIS Azure Foundations): backups that survive deletion and ransomware, private access, redundancy, CMK. */
import { settingCheck } from "../define-check.ts"
import type { RecoveryVault } from "../collectors/recovery.ts"

const vaultCheck = (spec: Omit<Parameters<typeof settingCheck<"recovery.vaults", RecoveryVault>>[0], "service" | "uses" | "resources" | "reads"> & { readonly reads: string }) =>
  settingCheck({
    ...spec,
    service: "recovery",
    uses: ["recovery.vaults"],
    reads: `ARM Microsoft.RecoveryServices/vaults → ${spec.reads}`,
    resources: (inv) => inv.recovery.vaults,
  })

export const recoveryChecks = [
  vaultCheck({
    id: "recovery_vault_soft_delete_enabled",
    title: "Recovery Services vaults should keep deleted backups (soft delete)",
    description: "Checks soft delete is Enabled or AlwaysON (absent: Enabled, the default for vaults), so deleted backup data can be recovered for at least 14 days.",
    severity: "high",
    remediation: "az backup vault backup-properties set -n VAULT -g RG --soft-delete-feature-state AlwaysON (always-on cannot be turned off again).",
    label: "Soft delete",
    reads: "properties.securitySettings.softDeleteSettings.softDeleteState",
    judge: (v) => {
      const state = v.properties?.securitySettings?.softDeleteSettings?.softDeleteState ?? "Enabled"
      const ok = ["enabled", "alwayson"].includes(state.toLowerCase())
      return { ok, value: state, reason: ok ? `Soft delete is ${state}.` : "Deleted backup data is purged at once." }
    },
  }),
  vaultCheck({
    id: "recovery_vault_immutability_enabled",
    title: "Recovery Services vaults should make backups immutable",
    description: "Checks vault immutability is Unlocked or Locked (absent: Disabled), so recovery points cannot be deleted or shortened before they expire.",
    severity: "medium",
    remediation: "az backup vault update -n VAULT -g RG --immutability-state Unlocked (then Locked, which is irreversible).",
    label: "Immutability",
    reads: "properties.securitySettings.immutabilitySettings.state",
    judge: (v) => {
      const state = v.properties?.securitySettings?.immutabilitySettings?.state ?? "Disabled"
      const ok = ["unlocked", "locked"].includes(state.toLowerCase())
      return { ok, value: state, reason: ok ? `Immutability is ${state}.` : "Recovery points can be deleted before they expire." }
    },
  }),
  vaultCheck({
    id: "recovery_vault_public_network_access_disabled",
    title: "Recovery Services vaults should not accept backup traffic from the public network",
    description: "Checks publicNetworkAccess is Disabled (absent: Enabled), so backups flow through private endpoints only.",
    severity: "medium",
    remediation: "Create private endpoints for the vault, then: az backup vault update -n VAULT -g RG --public-network-access Disable",
    label: "Public network access",
    reads: "properties.publicNetworkAccess",
    judge: (v) => {
      const pna = v.properties?.publicNetworkAccess ?? "Enabled"
      const ok = pna.toLowerCase() === "disabled"
      return { ok, value: pna, reason: ok ? "Public network access is disabled." : "The vault accepts traffic from the public network." }
    },
  }),
  vaultCheck({
    id: "recovery_vault_geo_redundant",
    title: "Recovery Services vaults should store backups geo-redundantly",
    description: "Checks the standard-tier storage redundancy is GeoRedundant (absent: GeoRedundant, the default), so a regional outage does not take the backups with it.",
    severity: "low",
    remediation: "Storage redundancy can only be changed before the first backup: create the vault with --backup-storage-redundancy GeoRedundant (billable).",
    label: "Storage redundancy",
    reads: "properties.redundancySettings.standardTierStorageRedundancy",
    judge: (v) => {
      const r = v.properties?.redundancySettings?.standardTierStorageRedundancy ?? "GeoRedundant"
      const ok = r.toLowerCase() === "georedundant"
      return { ok, value: r, reason: ok ? "Backups are replicated to the paired region." : `Backups are ${r}: a regional outage can lose them.` }
    },
  }),
  vaultCheck({
    id: "recovery_vault_cmk_encryption",
    title: "Recovery Services vaults should encrypt backups with a customer-managed key",
    description: "Checks the vault's encryption names a Key Vault key (keyVaultProperties.keyUri); absent means platform-managed keys.",
    severity: "low",
    remediation: "az backup vault encryption update -n VAULT -g RG --encryption-key-id KEY_URI --mi-system-assigned (before protecting items).",
    label: "Encryption key",
    reads: "properties.encryption.keyVaultProperties.keyUri",
    judge: (v) => {
      const key = v.properties?.encryption?.keyVaultProperties?.keyUri
      return { ok: key !== undefined && key !== "", value: key ?? null, reason: key !== undefined && key !== "" ? "Backups are encrypted with a customer-managed key." : "Backups are encrypted with platform-managed keys." }
    },
  }),
]
