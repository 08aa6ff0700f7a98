/** Virtual machine and disk checks (CIS Azure v3.0 section 8). */
import { defineAzureCheck, resourceRow } from "../define-check.ts"
import type { ManagedDisk } from "../collectors/compute.ts"

const CMK_TYPES = new Set(["EncryptionAtRestWithCustomerKey", "EncryptionAtRestWithPlatformAndCustomerKeys"])
const isAttached = (d: ManagedDisk) => d.properties?.diskState === "Attached" || d.properties?.diskState === "Reserved" || (d.managedBy !== undefined && d.managedBy !== null && d.managedBy !== "")

const cmkCheck = (id: string, v3: string, attached: boolean) =>
  defineAzureCheck({
    id,
    service: "vm",
    title: `${attached ? "OS and data" : "Unattached"} disks should be encrypted with customer-managed keys`,
    description: `Checks every ${attached ? "attached" : "unattached"} managed disk uses a disk encryption set with a customer-managed key.`,
    severity: "low",
    cis: { v3 },
    remediation: "az disk update -g RG -n DISK --encryption-type EncryptionAtRestWithCustomerKey --disk-encryption-set DES_ID (the VM must be deallocated for attached disks).",
    field_labels: { encryption: "Encryption", disk_state: "Disk state" },
    uses: ["vm.disks"],
    reads: "ARM Microsoft.Compute/disks → properties.encryption.type, diskState, managedBy",
    evaluate: (inv) =>
      (inv.vm.disks ?? [])
        .filter((d) => isAttached(d) === attached)
        .map((d) => {
          const t = d.properties?.encryption?.type ?? "EncryptionAtRestWithPlatformKey"
          return resourceRow(d, CMK_TYPES.has(t), CMK_TYPES.has(t) ? "The disk uses a customer-managed key." : "The disk uses a platform-managed key.", { encryption: t, disk_state: d.properties?.diskState ?? null })
        }),
  })

export const vmChecks = [
  defineAzureCheck({
    id: "vm_managed_disks",
    service: "vm",
    title: "Virtual machines should use managed disks",
    description: "Flags VMs whose OS or data disks are unmanaged VHDs in a storage account.",
    severity: "medium",
    cis: { v3: "8.2" },
    remediation: "Deallocate the VM and convert it: az vm convert -g RG -n VM",
    field_labels: { unmanaged_disks: "Unmanaged disks" },
    uses: ["vm.virtual_machines"],
    reads: "ARM Microsoft.Compute/virtualMachines → properties.storageProfile.osDisk/dataDisks[].managedDisk (vs vhd.uri)",
    evaluate: (inv) =>
      (inv.vm.virtualMachines ?? []).map((vm) => {
        const sp = vm.properties?.storageProfile
        const disks = [...(sp?.osDisk === undefined ? [] : [sp.osDisk]), ...(sp?.dataDisks ?? [])]
        const unmanaged = disks.filter((d) => d.managedDisk === undefined).map((d) => d.name ?? d.vhd?.uri ?? "disk")
        return resourceRow(vm, unmanaged.length === 0, unmanaged.length === 0 ? "All disks are managed." : `Unmanaged disks: ${unmanaged.join(", ")}.`, { unmanaged_disks: unmanaged })
      }),
  }),
  cmkCheck("vm_attached_disks_cmk", "8.3", true),
  cmkCheck("vm_unattached_disks_cmk", "8.4", false),
  defineAzureCheck({
    id: "vm_disk_network_access_restricted",
    service: "vm",
    title: "Disk network access should not be open to all networks",
    description: "Checks each managed disk's networkAccessPolicy is AllowPrivate or DenyAll (export/import only through a private link, or never).",
    severity: "medium",
    cis: { v3: "8.5" },
    remediation: "az disk update -g RG -n DISK --network-access-policy DenyAll (or AllowPrivate with a disk access resource).",
    field_labels: { network_access_policy: "Network access policy", public_network_access: "Public network access" },
    uses: ["vm.disks"],
    reads: "ARM Microsoft.Compute/disks → properties.networkAccessPolicy, publicNetworkAccess",
    evaluate: (inv) =>
      (inv.vm.disks ?? []).map((d) => {
        const policy = d.properties?.networkAccessPolicy ?? "AllowAll"
        return resourceRow(d, policy !== "AllowAll", policy === "AllowAll" ? "The disk can be exported from any network." : `Network access policy is ${policy}.`, { network_access_policy: policy, public_network_access: d.properties?.publicNetworkAccess ?? "Enabled" })
      }),
  }),
  defineAzureCheck({
    id: "vm_disk_data_access_entra",
    service: "vm",
    title: "Disk data access should require Microsoft Entra authentication",
    description: "Checks dataAccessAuthMode is AzureActiveDirectory, so disk export/upload SAS needs an Entra-authorized caller.",
    severity: "low",
    cis: { v3: "8.6" },
    remediation: "az disk update -g RG -n DISK --data-access-auth-mode AzureActiveDirectory",
    field_labels: { data_access_auth_mode: "Data access auth mode" },
    uses: ["vm.disks"],
    reads: "ARM Microsoft.Compute/disks → properties.dataAccessAuthMode",
    evaluate: (inv) =>
      (inv.vm.disks ?? []).map((d) => {
        const mode = d.properties?.dataAccessAuthMode ?? "None"
        return resourceRow(d, mode === "AzureActiveDirectory", mode === "AzureActiveDirectory" ? "Disk data access needs Entra authentication." : "Disk data access does not need Entra authentication.", { data_access_auth_mode: mode })
      }),
  }),
  defineAzureCheck({
    id: "vm_trusted_launch",
    service: "vm",
    title: "Trusted Launch should be enabled on virtual machines",
    description: "Checks the VM's security type is TrustedLaunch (or ConfidentialVM) with secure boot and vTPM on.",
    severity: "medium",
    cis: { v3: "8.11" },
    remediation: "Enable Trusted Launch on the deallocated Gen2 VM: az vm update -g RG -n VM --security-type TrustedLaunch --enable-secure-boot true --enable-vtpm true",
    field_labels: { security_type: "Security type", secure_boot: "Secure boot", vtpm: "vTPM" },
    uses: ["vm.virtual_machines"],
    reads: "ARM Microsoft.Compute/virtualMachines → properties.securityProfile.securityType, uefiSettings.secureBootEnabled/vTpmEnabled",
    evaluate: (inv) =>
      (inv.vm.virtualMachines ?? []).map((vm) => {
        const sp = vm.properties?.securityProfile ?? undefined
        const type = sp?.securityType ?? "Standard"
        const secureBoot = sp?.uefiSettings?.secureBootEnabled === true
        const vtpm = sp?.uefiSettings?.vTpmEnabled === true
        const ok = (type === "TrustedLaunch" || type === "ConfidentialVM") && secureBoot && vtpm
        return resourceRow(vm, ok, ok ? `${type} with secure boot and vTPM.` : `Security type ${type}${secureBoot ? "" : ", secure boot off"}${vtpm ? "" : ", vTPM off"}.`, { security_type: type, secure_boot: secureBoot, vtpm })
      }),
  }),
]
