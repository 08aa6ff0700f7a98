/** Azure Kubernetes Service checks (beyond CIS Azure Foundations): API server exposure, RBAC, local accounts, network policy, upgrades, Defender, monitoring. */
import { onOff } from "../../rest/engine.ts"
import { settingCheck } from "../define-check.ts"
import type { ManagedCluster } from "../collectors/aks.ts"
import { internetEntries } from "../address.ts"

/** One setting of every managed cluster. */
const clusterCheck = (spec: Omit<Parameters<typeof settingCheck<"aks.clusters", ManagedCluster>>[0], "service" | "uses" | "resources" | "reads"> & { readonly reads: string }) =>
  settingCheck({
    ...spec,
    service: "aks",
    uses: ["aks.clusters"],
    reads: `ARM Microsoft.ContainerService/managedClusters → ${spec.reads}`,
    resources: (inv) => inv.aks.clusters,
  })

export const aksChecks = [
  clusterCheck({
    id: "aks_cluster_api_server_not_public",
    title: "AKS API servers should not be reachable from the whole internet",
    description: "Flags clusters whose API server is public without authorized IP ranges, or with ranges that admit the internet (0.0.0.0/0, or ranges that together cover it): anyone can reach the Kubernetes API and try credentials or exploits.",
    severity: "high",
    remediation: "Use a private cluster (--enable-private-cluster at creation) or limit the API server: az aks update -g RG -n CLUSTER --api-server-authorized-ip-ranges CIDR1,CIDR2",
    label: "API server access",
    reads: "properties.apiServerAccessProfile.enablePrivateCluster, authorizedIPRanges",
    judge: (c) => {
      const a = c.properties?.apiServerAccessProfile
      const ranges = a?.authorizedIPRanges ?? []
      // Authorized ranges restrict only when they keep the internet out (0.0.0.0/0 or 0.0.0.0/1 + 128.0.0.0/1 do not).
      const open = internetEntries(ranges, (r) => r)
      const value = a?.enablePrivateCluster === true ? "private" : ranges.length > 0 ? ranges.join(", ") : "public"
      const ok = a?.enablePrivateCluster === true || (ranges.length > 0 && open.length === 0)
      return {
        ok,
        value,
        reason:
          a?.enablePrivateCluster === true
            ? "The API server is private."
            : ranges.length === 0
              ? "The API server accepts connections from any address."
              : open.length > 0
                ? `The authorized ranges admit the internet (${open.join(", ")}).`
                : `The API server accepts ${ranges.join(", ")} only.`,
      }
    },
  }),
  clusterCheck({
    id: "aks_cluster_rbac_enabled",
    title: "AKS clusters should enforce Kubernetes RBAC",
    description: "Checks Kubernetes role-based access control is on, so permissions inside the cluster are granted per user and namespace.",
    severity: "high",
    remediation: "RBAC is chosen at creation: recreate the cluster with RBAC (the default) and Entra integration, then move the workloads.",
    label: "Kubernetes RBAC",
    reads: "properties.enableRBAC",
    judge: (c) => onOff(c.properties?.enableRBAC === true, "Kubernetes RBAC is enforced.", "Kubernetes RBAC is off: every authenticated user is cluster admin."),
  }),
  clusterCheck({
    id: "aks_cluster_local_accounts_disabled",
    title: "AKS clusters should disable local accounts and use Entra ID",
    description: "Checks the cluster has Entra ID integration and local accounts disabled: the static cluster-admin credential cannot be fetched and identities are audited.",
    severity: "medium",
    remediation: "az aks update -g RG -n CLUSTER --enable-aad --aad-admin-group-object-ids GROUP_ID --disable-local-accounts",
    label: "Local accounts disabled",
    reads: "properties.aadProfile.managed, disableLocalAccounts",
    judge: (c) => {
      const ok = c.properties?.disableLocalAccounts === true && c.properties.aadProfile?.managed === true
      return { ok, value: c.properties?.disableLocalAccounts === true, reason: ok ? "Only Entra identities can sign in." : "The local cluster-admin account can be used." }
    },
  }),
  clusterCheck({
    id: "aks_cluster_network_policy_enabled",
    title: "AKS clusters should enforce a network policy engine",
    description: "Checks a network policy engine (Azure, Calico or Cilium) is configured, without which Kubernetes NetworkPolicy objects are ignored and every pod can reach every other.",
    severity: "medium",
    remediation: "az aks update -g RG -n CLUSTER --network-policy azure (or calico/cilium, depending on the network plugin), then add NetworkPolicy objects.",
    label: "Network policy",
    reads: "properties.networkProfile.networkPolicy",
    judge: (c) => {
      const v = c.properties?.networkProfile?.networkPolicy ?? null
      const ok = v !== null && v !== "" && v !== "none"
      return { ok, value: v, reason: ok ? `Network policies are enforced by ${v}.` : "No network policy engine: pod traffic is not restricted." }
    },
  }),
  clusterCheck({
    id: "aks_cluster_auto_upgrade_enabled",
    title: "AKS clusters should upgrade automatically",
    description: "Checks an automatic upgrade channel (patch, stable, rapid or node-image) is set, so security patches reach the control plane and nodes.",
    severity: "medium",
    remediation: "az aks update -g RG -n CLUSTER --auto-upgrade-channel patch (or stable), with a planned maintenance window.",
    label: "Upgrade channel",
    reads: "properties.autoUpgradeProfile.upgradeChannel",
    judge: (c) => {
      const v = c.properties?.autoUpgradeProfile?.upgradeChannel ?? "none"
      return { ok: v !== "none", value: v, reason: v === "none" ? "Upgrades are manual." : `Upgrades follow the ${v} channel.` }
    },
  }),
  clusterCheck({
    id: "aks_cluster_defender_enabled",
    title: "Microsoft Defender should monitor AKS clusters",
    description: "Checks the cluster's Defender security profile is on (runtime threat detection on the nodes).",
    severity: "medium",
    remediation: "az aks update -g RG -n CLUSTER --enable-defender (with Defender for Containers on the subscription).",
    label: "Defender",
    reads: "properties.securityProfile.defender.securityMonitoring.enabled",
    judge: (c) => onOff(c.properties?.securityProfile?.defender?.securityMonitoring?.enabled === true, "Defender monitors the cluster.", "Defender does not monitor the cluster."),
  }),
  clusterCheck({
    id: "aks_cluster_monitoring_enabled",
    title: "AKS clusters should send logs and metrics to Azure Monitor",
    description: "Checks the Container Insights (omsagent) add-on is enabled, so node, pod and control-plane signals are kept for investigation.",
    severity: "low",
    remediation: "az aks enable-addons -g RG -n CLUSTER --addons monitoring --workspace-resource-id WORKSPACE_ID",
    label: "Container Insights",
    reads: "properties.addonProfiles.omsagent.enabled",
    judge: (c) =>
      onOff(Object.entries(c.properties?.addonProfiles ?? {}).some(([name, p]) => name.toLowerCase() === "omsagent" && p.enabled === true), "Container Insights is on.", "Container Insights is off."),
  }),
]
