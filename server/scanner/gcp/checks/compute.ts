/**
 * Compute Engine checks (CIS GCP v4.0 section 4). Instances managed by GKE (name prefix "gke-" or the
 * goog-gke-node label) are skipped, as the benchmark says: their configuration belongs to the node pool.
 */
import type { DetailRow } from "../../check.ts"
import { row } from "../../rest/engine.ts"
import { lastSegment } from "../context.ts"
import { defineGcpCheck } from "../define-check.ts"
import { metadataValue, type ComputeInventory, type Instance, type Scoped } from "../collectors/compute.ts"

const CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform"

const isGke = (i: Instance) => i.name.startsWith("gke-") || i.labels?.["goog-gke-node"] !== undefined

const vms = (c: ComputeInventory): ReadonlyArray<Scoped<Instance>> => (c.instances ?? []).filter((s) => !isGke(s.item))

const isDefaultSa = (email: string, project: ComputeInventory["project"]) =>
  (project?.defaultServiceAccount !== undefined && email === project.defaultServiceAccount) || /^\d+-compute@developer\.gserviceaccount\.com$/.test(email)

const truthy = (v: string | undefined) => v !== undefined && ["true", "1", "yes", "on"].includes(v.trim().toLowerCase())
const falsy = (v: string | undefined) => v !== undefined && ["false", "0", "no", "off"].includes(v.trim().toLowerCase())

const perVm = (c: ComputeInventory, f: (i: Instance, zone: string) => DetailRow) => vms(c).map((s) => f(s.item, s.scope))

export const computeChecks = [
  defineGcpCheck({
    id: "compute_instance_not_default_sa",
    service: "compute",
    title: "Instances should not use the default Compute Engine service account",
    description: "The default service account has the Editor role on the project by default; VMs should run as a dedicated, least-privileged service account.",
    severity: "medium",
    cis: "4.1",
    remediation: "Stop the VM, set a dedicated service account (gcloud compute instances set-service-account VM --service-account=SA --scopes=…), start it.",
    field_labels: { service_accounts: "Service accounts" },
    uses: ["compute.instances", "compute.project"],
    reads: "compute instances.aggregatedList → serviceAccounts[].email; projects.get → defaultServiceAccount",
    evaluate: (inv) =>
      perVm(inv.compute, (i, zone) => {
        const emails = (i.serviceAccounts ?? []).map((s) => s.email)
        const usesDefault = emails.some((e) => isDefaultSa(e, inv.compute.project))
        return row(i.name, zone, !usesDefault, usesDefault ? "The VM runs as the default Compute Engine service account." : "The VM does not use the default service account.", { service_accounts: emails })
      }),
  }),
  defineGcpCheck({
    id: "compute_instance_default_sa_no_full_access",
    service: "compute",
    title: "Instances should not use the default service account with full access to all Cloud APIs",
    description: "Flags VMs running as the default service account with the cloud-platform scope, which gives any process on the VM the project's Editor rights.",
    severity: "high",
    cis: "4.2",
    remediation: "Stop the VM and set a dedicated service account, or at least narrow the access scopes.",
    field_labels: { scopes: "Scopes" },
    uses: ["compute.instances", "compute.project"],
    reads: "compute instances → serviceAccounts[].email, serviceAccounts[].scopes ∋ cloud-platform",
    evaluate: (inv) =>
      perVm(inv.compute, (i, zone) => {
        const sa = (i.serviceAccounts ?? []).find((s) => isDefaultSa(s.email, inv.compute.project))
        const full = sa !== undefined && (sa.scopes ?? []).includes(CLOUD_PLATFORM)
        return row(i.name, zone, !full, full ? "The default service account has full access to all Cloud APIs." : "No default service account with full API access.", { scopes: [...(sa?.scopes ?? [])] })
      }),
  }),
  defineGcpCheck({
    id: "compute_instance_block_project_ssh_keys",
    service: "compute",
    title: "Instances should block project-wide SSH keys",
    description: "With block-project-ssh-keys, a key added to project metadata does not open every VM of the project.",
    severity: "medium",
    cis: "4.3",
    remediation: "gcloud compute instances add-metadata VM --metadata=block-project-ssh-keys=TRUE (make sure instance-level keys or OS Login still give the right people access).",
    field_labels: { block_project_ssh_keys: "block-project-ssh-keys" },
    uses: ["compute.instances"],
    reads: "compute instances → metadata.items[block-project-ssh-keys]",
    evaluate: (inv) =>
      perVm(inv.compute, (i, zone) => {
        const v = metadataValue(i.metadata, "block-project-ssh-keys")
        return row(i.name, zone, truthy(v), truthy(v) ? "Project-wide SSH keys are blocked." : "Project-wide SSH keys are accepted.", { block_project_ssh_keys: v ?? null })
      }),
  }),
  defineGcpCheck({
    id: "compute_project_os_login_enabled",
    service: "compute",
    title: "OS Login should be enabled for the project",
    description: "Checks OS Login is on for the project — enable-oslogin=TRUE in the common instance metadata, or the compute.requireOsLogin organization policy (which enables it without metadata) — and that no VM turns it off in its own metadata. When the metadata does not enable it and the organization policy cannot be read, the project is not evaluated.",
    severity: "medium",
    cis: "4.4",
    remediation: "gcloud compute project-info add-metadata --metadata=enable-oslogin=TRUE, and remove enable-oslogin=FALSE from instance metadata.",
    field_labels: { enable_oslogin: "enable-oslogin" },
    uses: ["compute.project", "compute.instances", "project.org_policies"],
    reads: "compute projects.get → commonInstanceMetadata.items[enable-oslogin]; instances → metadata.items[enable-oslogin]; orgpolicy getEffectivePolicy compute.requireOsLogin",
    evaluate: (inv) => {
      const project = inv.compute.project
      if (project === undefined) return []
      const v = metadataValue(project.commonInstanceMetadata, "enable-oslogin")
      const required = inv.project.orgPolicies?.["compute.requireOsLogin"]
      const on = truthy(v) || required === true
      const overrides = vms(inv.compute).filter((s) => falsy(metadataValue(s.item.metadata, "enable-oslogin")))
      // The metadata does not enable it, and the organization policy that could was not readable: not evaluated.
      const projectRow =
        !on && required === undefined
          ? []
          : [row(inv.projectId, "global", on, truthy(v) ? "OS Login is enabled in project metadata." : on ? "OS Login is required by the compute.requireOsLogin organization policy." : "OS Login is not enabled in project metadata.", { enable_oslogin: v ?? null })]
      return [
        ...projectRow,
        ...overrides.map((s) => row(s.item.name, s.scope, false, "The VM disables OS Login in its own metadata.", { enable_oslogin: metadataValue(s.item.metadata, "enable-oslogin") ?? null })),
      ]
    },
  }),
  defineGcpCheck({
    id: "compute_project_os_login_2fa_enabled",
    service: "compute",
    title: "OS Login should require two-step verification",
    description: "Checks enable-oslogin-2fa=TRUE in the project's common instance metadata (with OS Login on) and that no VM turns OS Login or its two-step verification off in its own metadata: an SSH login then needs the user's second factor, not only a key.",
    severity: "medium",
    remediation: "gcloud compute project-info add-metadata --metadata=enable-oslogin=TRUE,enable-oslogin-2fa=TRUE, and remove enable-oslogin-2fa=FALSE from instance metadata.",
    field_labels: { enable_oslogin_2fa: "enable-oslogin-2fa", enable_oslogin: "enable-oslogin" },
    uses: ["compute.project", "compute.instances"],
    reads: "compute projects.get → commonInstanceMetadata.items[enable-oslogin, enable-oslogin-2fa]; instances → metadata.items[enable-oslogin, enable-oslogin-2fa]",
    evaluate: (inv) => {
      const project = inv.compute.project
      if (project === undefined) return []
      const login = metadataValue(project.commonInstanceMetadata, "enable-oslogin")
      const twoFa = metadataValue(project.commonInstanceMetadata, "enable-oslogin-2fa")
      const ok = truthy(login) && truthy(twoFa)
      const overrides = vms(inv.compute).filter((s) => falsy(metadataValue(s.item.metadata, "enable-oslogin-2fa")) || falsy(metadataValue(s.item.metadata, "enable-oslogin")))
      return [
        row(inv.projectId, "global", ok, ok ? "OS Login with two-step verification is enabled in project metadata." : !truthy(login) ? "OS Login is not enabled in project metadata, so neither is its two-step verification." : "OS Login does not require two-step verification.", {
          enable_oslogin_2fa: twoFa ?? null,
          enable_oslogin: login ?? null,
        }),
        ...overrides.map((s) =>
          row(s.item.name, s.scope, false, "The VM turns OS Login or its two-step verification off in its own metadata.", {
            enable_oslogin_2fa: metadataValue(s.item.metadata, "enable-oslogin-2fa") ?? null,
            enable_oslogin: metadataValue(s.item.metadata, "enable-oslogin") ?? null,
          }),
        ),
      ]
    },
  }),
  defineGcpCheck({
    id: "compute_instance_serial_port_disabled",
    service: "compute",
    title: "Interactive serial console access should be disabled on instances",
    description: "Checks serial-port-enable is not true for the VM (its own metadata, else the project's), unless the compute.disableSerialPortAccess organization policy turns serial access off for every VM (when that policy cannot be read, a VM that enables it is not evaluated).",
    severity: "medium",
    cis: "4.5",
    remediation: "gcloud compute instances add-metadata VM --metadata=serial-port-enable=false",
    field_labels: { serial_port_enable: "serial-port-enable", source: "Set in" },
    uses: ["compute.instances", "compute.project", "project.org_policies"],
    reads: "compute instances → metadata.items[serial-port-enable]; projects.get → commonInstanceMetadata; orgpolicy getEffectivePolicy compute.disableSerialPortAccess",
    evaluate: (inv) =>
      vms(inv.compute).flatMap(({ item: i, scope: zone }) => {
        const own = metadataValue(i.metadata, "serial-port-enable")
        // Without the project metadata, an instance that does not set the key cannot be judged.
        if (own === undefined && inv.compute.project === undefined) return []
        const projectValue = metadataValue(inv.compute.project?.commonInstanceMetadata, "serial-port-enable")
        const v = own ?? projectValue
        const blocked = inv.project.orgPolicies?.["compute.disableSerialPortAccess"]
        const on = truthy(v) && blocked !== true
        // The metadata enables it, but the organization policy that could turn it off was not readable.
        if (truthy(v) && blocked === undefined) return []
        return [
          row(i.name, zone, !on, on ? "Interactive serial console access is enabled." : truthy(v) ? "The metadata enables serial access, but the compute.disableSerialPortAccess organization policy turns it off." : "Serial console access is disabled.", {
            serial_port_enable: v ?? null,
            source: own !== undefined ? "instance" : projectValue !== undefined ? "project" : null,
          }),
        ]
      }),
  }),
  defineGcpCheck({
    id: "compute_instance_ip_forwarding_disabled",
    service: "compute",
    title: "IP forwarding should not be enabled on instances",
    description: "A VM with canIpForward can route packets that are not addressed to it, bypassing network controls.",
    severity: "medium",
    cis: "4.6",
    remediation: "IP forwarding can only be set at creation: recreate the VM without --can-ip-forward.",
    field_labels: { can_ip_forward: "IP forwarding" },
    uses: ["compute.instances"],
    reads: "compute instances → canIpForward",
    evaluate: (inv) => perVm(inv.compute, (i, zone) => row(i.name, zone, i.canIpForward !== true, i.canIpForward === true ? "IP forwarding is enabled." : "IP forwarding is disabled.", { can_ip_forward: i.canIpForward === true })),
  }),
  defineGcpCheck({
    id: "compute_disk_csek_encryption",
    service: "compute",
    title: "VM disks for critical VMs should be encrypted with customer-supplied encryption keys (CSEK)",
    description: "Reports every persistent disk that is not encrypted with a customer-supplied key (diskEncryptionKey.sha256).",
    severity: "low",
    cis: "4.7",
    remediation: "CSEK can only be set when a disk is created: snapshot the disk and create a new one with --csek-key-file.",
    field_labels: { attached_to: "Attached to", kms_key: "KMS key" },
    uses: ["compute.disks"],
    reads: "compute disks.aggregatedList → diskEncryptionKey.sha256",
    evaluate: (inv) =>
      (inv.compute.disks ?? []).map((s) => {
        const csek = s.item.diskEncryptionKey?.sha256 !== undefined
        return row(s.item.name, s.scope, csek, csek ? "The disk is encrypted with a customer-supplied key." : "The disk is not encrypted with a customer-supplied key.", {
          attached_to: (s.item.users ?? []).map(lastSegment),
          kms_key: s.item.diskEncryptionKey?.kmsKeyName ?? null,
        })
      }),
  }),
  defineGcpCheck({
    id: "compute_instance_shielded_vm_enabled",
    service: "compute",
    title: "Compute instances should be launched with Shielded VM enabled",
    description: "Checks vTPM and integrity monitoring are on (secure boot is reported too). Both are enabled by default: an answer without them is a shielded VM.",
    severity: "medium",
    cis: "4.8",
    remediation: "Stop the VM and run gcloud compute instances update VM --shielded-vtpm --shielded-integrity-monitoring --shielded-secure-boot.",
    field_labels: { vtpm: "vTPM", integrity_monitoring: "Integrity monitoring", secure_boot: "Secure boot" },
    uses: ["compute.instances"],
    reads: "compute instances → shieldedInstanceConfig.enableVtpm, enableIntegrityMonitoring, enableSecureBoot",
    evaluate: (inv) =>
      perVm(inv.compute, (i, zone) => {
        // Documented defaults (defaults.ts): vTPM and integrity monitoring enabled, secure boot disabled.
        const c = i.shieldedInstanceConfig
        const vtpm = c?.enableVtpm ?? true
        const integrity = c?.enableIntegrityMonitoring ?? true
        const ok = vtpm && integrity
        const off = [vtpm ? undefined : "vTPM", integrity ? undefined : "integrity monitoring"].filter((x): x is string => x !== undefined)
        return row(i.name, zone, ok, ok ? "Shielded VM (vTPM and integrity monitoring) is enabled." : `Shielded VM is not fully enabled: ${off.join(" and ")} off.`, {
          vtpm,
          integrity_monitoring: integrity,
          secure_boot: c?.enableSecureBoot ?? false,
        })
      }),
  }),
  defineGcpCheck({
    id: "compute_instance_no_public_ip",
    service: "compute",
    title: "Compute instances should not have public IP addresses",
    description: "Flags VMs with an external IPv4 (access config) or external IPv6 address on any network interface.",
    severity: "high",
    cis: "4.9",
    remediation: "Remove the access config (gcloud compute instances delete-access-config VM --access-config-name=…) and reach the VM through IAP, a bastion or Cloud NAT.",
    field_labels: { external_ips: "External IPs" },
    uses: ["compute.instances"],
    reads: "compute instances → networkInterfaces[].accessConfigs[].natIP, ipv6AccessConfigs[]",
    evaluate: (inv) =>
      perVm(inv.compute, (i, zone) => {
        const ips = (i.networkInterfaces ?? []).flatMap((n) => [
          ...(n.accessConfigs ?? []).map((a) => a.natIP ?? "ephemeral"),
          ...(n.ipv6AccessConfigs ?? []).map((a) => a.externalIpv6 ?? "ipv6"),
        ])
        return row(i.name, zone, ips.length === 0, ips.length === 0 ? "The VM has no external IP." : `The VM has external IP(s) ${ips.join(", ")}.`, { external_ips: ips })
      }),
  }),
  defineGcpCheck({
    id: "compute_instance_confidential_computing",
    service: "compute",
    title: "Confidential Computing should be enabled for compute instances",
    description: "Checks the VM is a Confidential VM (confidentialInstanceConfig.enableConfidentialCompute, or a confidentialInstanceType such as SEV, SEV_SNP or TDX), which encrypts VM memory in use.",
    severity: "low",
    cis: "4.11",
    remediation: "Confidential VM is set at creation on supported machine types (N2D, C2D, C3…): recreate the VM with --confidential-compute.",
    field_labels: { confidential_compute: "Confidential compute" },
    uses: ["compute.instances"],
    reads: "compute instances → confidentialInstanceConfig.enableConfidentialCompute | confidentialInstanceType",
    evaluate: (inv) =>
      perVm(inv.compute, (i, zone) => {
        const c = i.confidentialInstanceConfig
        const type = c?.confidentialInstanceType ?? "CONFIDENTIAL_INSTANCE_TYPE_UNSPECIFIED"
        const on = c?.enableConfidentialCompute === true || type !== "CONFIDENTIAL_INSTANCE_TYPE_UNSPECIFIED"
        return row(i.name, zone, on, on ? `Confidential Computing is enabled${type === "CONFIDENTIAL_INSTANCE_TYPE_UNSPECIFIED" ? "" : ` (${type})`}.` : "Confidential Computing is not enabled.", { confidential_compute: on })
      }),
  }),
]
