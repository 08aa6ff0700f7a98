/** Azure Container Registry checks (beyond CIS Azure Foundations; the peers' ACR checks): admin user, anonymous pull, network exposure, private endpoints, CMK. */
import { onOff } from "../../rest/engine.ts"
import { settingCheck } from "../define-check.ts"
import type { Registry } from "../collectors/acr.ts"
import { internetEntries } from "../address.ts"

const registryCheck = (spec: Omit<Parameters<typeof settingCheck<"acr.registries", Registry>>[0], "service" | "uses" | "resources" | "reads"> & { readonly reads: string }) =>
  settingCheck({
    ...spec,
    service: "acr",
    uses: ["acr.registries"],
    reads: `ARM Microsoft.ContainerRegistry/registries → ${spec.reads}`,
    resources: (inv) => inv.acr.registries,
  })

const approved = (r: Registry) => (r.properties?.privateEndpointConnections ?? []).filter((c) => (c.properties?.privateLinkServiceConnectionState?.status ?? "").toLowerCase() === "approved")

export const acrChecks = [
  registryCheck({
    id: "acr_admin_user_disabled",
    title: "Container registries should have the admin user disabled",
    description: "Checks adminUserEnabled is false: the admin account is a shared username/password with push and pull rights that never expires.",
    severity: "high",
    remediation: "Give pipelines and clusters Entra identities with AcrPull/AcrPush, then: az acr update -n REGISTRY --admin-enabled false",
    label: "Admin user",
    reads: "properties.adminUserEnabled",
    // Absent: false ("The value that indicates whether the admin user is enabled", "default": false).
    judge: (r) => onOff(r.properties?.adminUserEnabled !== true, "The admin user is disabled.", "The admin user is enabled (shared credentials with push rights)."),
  }),
  registryCheck({
    id: "acr_anonymous_pull_disabled",
    title: "Container registries should not allow anonymous pull",
    description: "Checks anonymousPullEnabled is false, so images cannot be pulled without credentials.",
    severity: "high",
    remediation: "az acr update -n REGISTRY --anonymous-pull-enabled false",
    label: "Anonymous pull",
    reads: "properties.anonymousPullEnabled",
    judge: (r) => onOff(r.properties?.anonymousPullEnabled !== true, "Anonymous pull is disabled.", "Anyone can pull images without credentials."),
  }),
  registryCheck({
    id: "acr_not_publicly_accessible",
    title: "Container registries should not be reachable from the whole internet",
    description: "Checks public network access is disabled, or the firewall denies by default with IP rules that do not admit the internet (firewall rules need the Premium SKU).",
    severity: "medium",
    remediation: "Premium SKU: az acr update -n REGISTRY --public-network-enabled false (with a private endpoint), or --default-action Deny with the allowed ranges.",
    label: "Public access",
    reads: "properties.publicNetworkAccess, networkRuleSet.defaultAction, networkRuleSet.ipRules[].value",
    judge: (r) => {
      const p = r.properties
      // Absent publicNetworkAccess: Enabled; absent networkRuleSet: no firewall (default action Allow).
      const pna = p?.publicNetworkAccess ?? "Enabled"
      if (pna.toLowerCase() === "disabled") return { ok: true, value: "disabled", reason: "Public network access is disabled." }
      const action = p?.networkRuleSet?.defaultAction ?? "Allow"
      const open = internetEntries((p?.networkRuleSet?.ipRules ?? []).map((x) => x.value), (v) => v)
      if (action.toLowerCase() === "deny" && open.length === 0) return { ok: true, value: "firewall", reason: "Only the listed networks can reach the registry." }
      return { ok: false, value: "public", reason: action.toLowerCase() === "deny" ? `The IP rules admit the internet (${open.join(", ")}).` : "The registry accepts connections from any network." }
    },
  }),
  registryCheck({
    id: "acr_private_endpoints",
    title: "Container registries should use private endpoints",
    description: "Checks the registry has an approved private endpoint connection (Premium SKU).",
    severity: "low",
    remediation: "az network private-endpoint create --group-id registry --private-connection-resource-id REGISTRY_ID … (Premium SKU).",
    label: "Private endpoints",
    reads: "properties.privateEndpointConnections[].properties.privateLinkServiceConnectionState.status",
    judge: (r) => {
      const n = approved(r).length
      return { ok: n > 0, value: n, reason: n > 0 ? `${n} approved private endpoint(s).` : "The registry has no approved private endpoint." }
    },
  }),
  registryCheck({
    id: "acr_cmk_encryption",
    title: "Container registries should encrypt with a customer-managed key",
    description: "Checks encryption.status is enabled (a Key Vault key you control), rather than Microsoft-managed keys (Premium SKU, chosen at creation).",
    severity: "low",
    remediation: "Customer-managed keys are chosen at creation: create a Premium registry with --identity and --key-encryption-key KEY_ID, then import the images.",
    label: "Customer-managed key",
    reads: "properties.encryption.status",
    // Absent: disabled ("Indicates whether or not the encryption is enabled for container registry", default disabled).
    judge: (r) => onOff((r.properties?.encryption?.status ?? "disabled").toLowerCase() === "enabled", "Images are encrypted with a customer-managed key.", "Images are encrypted with Microsoft-managed keys."),
  }),
]
