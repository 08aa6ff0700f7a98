/** Google Kubernetes Engine checks (beyond CIS GCP Foundations): control-plane exposure, private nodes, network policy, Workload Identity, legacy ABAC, upgrades, shielded nodes, secrets encryption, logging. */
import { onOff, row, type Judgement } from "../../rest/engine.ts"
import { defineGcpCheck } from "../define-check.ts"
import type { GkeCluster, NodePool } from "../collectors/gke.ts"
import { internetRanges } from "../../ip-ranges.ts"

/** What a GKE check says of itself; `judge` looks at one cluster (or one node pool of it). */
interface GkeCheckSpec<Judge> {
  readonly id: string
  readonly title: string
  readonly description: string
  readonly severity: "critical" | "high" | "medium" | "low"
  readonly remediation: string
  readonly label: string
  readonly reads: string
  readonly judge: Judge
}

/** What a GKE check tells of itself, from its spec: it reads the cluster list. */
const gkeMeta = (spec: GkeCheckSpec<unknown>) => ({
  id: spec.id,
  service: "gke",
  title: spec.title,
  description: spec.description,
  severity: spec.severity,
  remediation: spec.remediation,
  uses: ["gke.clusters"] as const,
  reads: `container projects.locations.clusters.list → ${spec.reads}`,
})

/** A setting of every cluster, one row per cluster. */
const clusterCheck = (spec: GkeCheckSpec<(c: GkeCluster) => Judgement>) =>
  defineGcpCheck({
    ...gkeMeta(spec),
    field_labels: { value: spec.label },
    evaluate: (inv) =>
      (inv.gke.clusters ?? []).map((c) => {
        const j = spec.judge(c)
        return row(c.name, c.location ?? "global", j.ok, j.reason, { value: j.value })
      }),
  })

/** A setting of every node pool, one row per pool ("cluster/pool"). */
const poolCheck = (spec: GkeCheckSpec<(p: NodePool, c: GkeCluster) => Judgement>) =>
  defineGcpCheck({
    ...gkeMeta(spec),
    field_labels: { value: spec.label, cluster: "Cluster" },
    evaluate: (inv) =>
      (inv.gke.clusters ?? []).flatMap((c) =>
        (c.nodePools ?? []).map((p) => {
          const j = spec.judge(p, c)
          return row(`${c.name}/${p.name}`, c.location ?? "global", j.ok, j.reason, { value: j.value, cluster: c.name })
        }),
      ),
  })

export const gkeChecks = [
  clusterCheck({
    id: "gke_cluster_control_plane_restricted",
    title: "GKE control planes should not accept connections from the whole internet",
    description: "Flags clusters whose control plane has a public endpoint without authorized networks: anyone can reach the Kubernetes API.",
    severity: "high",
    remediation: "gcloud container clusters update CLUSTER --enable-master-authorized-networks --master-authorized-networks=CIDR1,CIDR2 (or recreate with --enable-private-endpoint).",
    label: "Control plane access",
    reads: "controlPlaneEndpointsConfig.ipEndpointsConfig.enabled/enablePublicEndpoint/authorizedNetworksConfig (privateClusterConfig.enablePrivateEndpoint, masterAuthorizedNetworksConfig: their deprecated mirrors), cidrBlocks[].cidrBlock (what they admit)",
    judge: (c) => {
      const ip = c.controlPlaneEndpointsConfig?.ipEndpointsConfig
      // No public IP endpoint: IP access off altogether, the public endpoint off, or (deprecated) the private endpoint on.
      const priv = ip?.enabled === false || ip?.enablePublicEndpoint === false || c.privateClusterConfig?.enablePrivateEndpoint === true
      const networks = ip?.authorizedNetworksConfig ?? c.masterAuthorizedNetworksConfig
      const authorized = networks?.enabled === true || c.masterAuthorizedNetworksConfig?.enabled === true
      const blocks = [...(ip?.authorizedNetworksConfig?.cidrBlocks ?? []), ...(c.masterAuthorizedNetworksConfig?.cidrBlocks ?? [])].flatMap((b) => (b.cidrBlock === undefined ? [] : [b.cidrBlock]))
      // An authorised range that admits the internet (0.0.0.0/0, or halves of it, or a huge block) restricts nothing.
      const wide = authorized ? internetRanges(blocks) : []
      if (priv) return { ok: true, value: "private endpoint", reason: "The control plane has a private endpoint only." }
      if (authorized && wide.length === 0) return { ok: true, value: `authorized networks: ${blocks.join(", ") || "none"}`, reason: "Only authorized networks reach the control plane." }
      if (authorized) return { ok: false, value: `authorized networks: ${blocks.join(", ")}`, reason: `The authorized networks admit the internet (${wide.join(", ")}).` }
      return { ok: false, value: "public", reason: "The control plane accepts connections from any address." }
    },
  }),
  clusterCheck({
    id: "gke_cluster_private_nodes",
    title: "GKE nodes should have no public IP addresses",
    description: "Checks every node pool has private nodes (its own setting, else the cluster default, else the deprecated private cluster setting), so nodes are not directly reachable from the internet.",
    severity: "medium",
    remediation: "gcloud container clusters update CLUSTER --enable-private-nodes, or per pool: gcloud container node-pools update POOL --cluster=CLUSTER --enable-private-nodes (with Cloud NAT for egress).",
    label: "Pools with public nodes",
    reads: "nodePools[].networkConfig.enablePrivateNodes, else networkConfig.defaultEnablePrivateNodes, else privateClusterConfig.enablePrivateNodes (deprecated)",
    judge: (c) => {
      const clusterDefault = c.networkConfig?.defaultEnablePrivateNodes ?? c.privateClusterConfig?.enablePrivateNodes ?? false
      const pools = c.nodePools ?? []
      const open = pools.filter((p) => !(p.networkConfig?.enablePrivateNodes ?? clusterDefault)).map((p) => p.name)
      const ok = pools.length === 0 ? clusterDefault : open.length === 0
      return { ok, value: open, reason: ok ? "Nodes have internal addresses only." : open.length > 0 ? `Node pools with public IP addresses: ${open.join(", ")}.` : "Nodes get public IP addresses by default." }
    },
  }),
  clusterCheck({
    id: "gke_cluster_network_policy_enabled",
    title: "GKE clusters should enforce network policies",
    description: "Checks network policy enforcement is on (the network policy add-on or GKE Dataplane V2), without which NetworkPolicy objects are ignored.",
    severity: "medium",
    remediation: "gcloud container clusters update CLUSTER --update-addons=NetworkPolicy=ENABLED && gcloud container clusters update CLUSTER --enable-network-policy (or use Dataplane V2).",
    label: "Network policy",
    reads: "networkPolicy.enabled, networkConfig.datapathProvider",
    judge: (c) => {
      const v2 = c.networkConfig?.datapathProvider === "ADVANCED_DATAPATH"
      const on = c.networkPolicy?.enabled === true || v2
      return { ok: on, value: on, reason: v2 ? "Dataplane V2 enforces network policies." : on ? "Network policies are enforced." : "Network policies are not enforced: every pod can reach every other." }
    },
  }),
  clusterCheck({
    id: "gke_cluster_workload_identity_enabled",
    title: "GKE clusters should use Workload Identity",
    description: "Checks Workload Identity is on, so pods get their own Google identity instead of the node's service account (and the metadata server is protected).",
    severity: "medium",
    remediation: "gcloud container clusters update CLUSTER --workload-pool=PROJECT_ID.svc.id.goog, then enable GKE_METADATA on the node pools.",
    label: "Workload pool",
    reads: "workloadIdentityConfig.workloadPool",
    judge: (c) => {
      const pool = c.workloadIdentityConfig?.workloadPool ?? ""
      return { ok: pool !== "", value: pool === "" ? null : pool, reason: pool === "" ? "Pods act with the node's service account." : `Pods use Workload Identity (${pool}).` }
    },
  }),
  clusterCheck({
    id: "gke_cluster_legacy_abac_disabled",
    title: "GKE clusters should not use legacy ABAC authorization",
    description: "Flags clusters with legacy attribute-based access control, which grants broad static permissions outside Kubernetes RBAC.",
    severity: "high",
    remediation: "gcloud container clusters update CLUSTER --no-enable-legacy-authorization",
    label: "Legacy ABAC",
    reads: "legacyAbac.enabled",
    judge: (c) => {
      const on = c.legacyAbac?.enabled === true
      return { ok: !on, value: on, reason: on ? "Legacy ABAC is on." : "Authorization uses Kubernetes RBAC only." }
    },
  }),
  clusterCheck({
    id: "gke_nodepool_auto_upgrade_enabled",
    title: "GKE node pools should upgrade automatically",
    description: "Checks every node pool has auto-upgrade on, so node security patches are applied.",
    severity: "medium",
    remediation: "gcloud container node-pools update POOL --cluster=CLUSTER --enable-autoupgrade",
    label: "Pools without auto-upgrade",
    reads: "nodePools[].management.autoUpgrade",
    judge: (c) => {
      const manual = (c.nodePools ?? []).filter((p) => p.management?.autoUpgrade !== true).map((p) => p.name)
      return { ok: manual.length === 0, value: manual, reason: manual.length === 0 ? "Every node pool upgrades automatically." : `Node pools upgraded by hand: ${manual.join(", ")}.` }
    },
  }),
  clusterCheck({
    id: "gke_cluster_shielded_nodes_enabled",
    title: "GKE clusters should use Shielded GKE Nodes",
    description: "Checks Shielded GKE Nodes is on: node identity is verified, so a compromised workload cannot impersonate a node.",
    severity: "medium",
    remediation: "gcloud container clusters update CLUSTER --enable-shielded-nodes",
    label: "Shielded nodes",
    reads: "shieldedNodes.enabled",
    judge: (c) => onOff(c.shieldedNodes?.enabled === true, "Nodes are shielded.", "Shielded GKE Nodes is off."),
  }),
  clusterCheck({
    id: "gke_cluster_secrets_encrypted_with_cmek",
    title: "GKE clusters should encrypt Kubernetes secrets with a Cloud KMS key",
    description: "Checks application-layer secrets encryption is on, so secrets in etcd are encrypted with a key you control.",
    severity: "medium",
    remediation: "gcloud container clusters update CLUSTER --database-encryption-key=projects/P/locations/L/keyRings/R/cryptoKeys/K",
    label: "Secrets encryption",
    reads: "databaseEncryption.state, keyName",
    judge: (c) => {
      const on = c.databaseEncryption?.state === "ENCRYPTED"
      return { ok: on, value: on ? (c.databaseEncryption?.keyName ?? "ENCRYPTED") : (c.databaseEncryption?.state ?? "DECRYPTED"), reason: on ? "Secrets are encrypted with a Cloud KMS key." : "Secrets are stored with Google's default encryption only." }
    },
  }),
  clusterCheck({
    id: "gke_cluster_logging_monitoring_enabled",
    title: "GKE clusters should send logs and metrics to Cloud Logging and Monitoring",
    description: "Checks neither logging nor monitoring is turned off for the cluster.",
    severity: "low",
    remediation: "gcloud container clusters update CLUSTER --logging=SYSTEM,WORKLOAD --monitoring=SYSTEM",
    label: "Logging / monitoring",
    reads: "loggingService, monitoringService",
    judge: (c) => {
      const off = [c.loggingService === "none" ? "logging" : undefined, c.monitoringService === "none" ? "monitoring" : undefined].filter((x): x is string => x !== undefined)
      return { ok: off.length === 0, value: `${c.loggingService ?? "default"} / ${c.monitoringService ?? "default"}`, reason: off.length === 0 ? "Logs and metrics are collected." : `Turned off: ${off.join(", ")}.` }
    },
  }),
  poolCheck({
    id: "gke_nodepool_not_default_sa",
    title: "GKE node pools should not run as the default Compute Engine service account",
    description: "Checks each node pool's service account: without one, nodes run as the Compute Engine default service account, which holds Editor on the project by default, so any pod that reaches the node's credentials can change the project.",
    severity: "high",
    remediation: "Create a least-privileged service account (roles/container.defaultNodeServiceAccount) and a node pool that uses it: gcloud container node-pools create POOL --cluster=CLUSTER --service-account=SA_EMAIL, then move the workloads and delete the old pool.",
    label: "Service account",
    reads: "nodePools[].config.serviceAccount (absent or \"default\" = the Compute Engine default service account)",
    judge: (pool) => {
      const sa = pool.config?.serviceAccount ?? "default"
      const isDefault = sa === "default" || /^\d+-compute@developer\.gserviceaccount\.com$/.test(sa)
      return { ok: !isDefault, value: sa, reason: isDefault ? "The nodes run as the Compute Engine default service account." : `The nodes run as ${sa}.` }
    },
  }),
  poolCheck({
    id: "gke_nodepool_metadata_server_protected",
    title: "GKE node pools should expose the GKE metadata server to workloads",
    description: "Checks each node pool's workload metadata mode is GKE_METADATA: otherwise pods reach the Compute Engine metadata server and can read the node's service account token and instance attributes (kube-env).",
    severity: "medium",
    remediation: "With Workload Identity on the cluster: gcloud container node-pools update POOL --cluster=CLUSTER --workload-metadata=GKE_METADATA",
    label: "Metadata mode",
    reads: "nodePools[].config.workloadMetadataConfig.mode == GKE_METADATA",
    judge: (pool) => {
      const mode = pool.config?.workloadMetadataConfig?.mode ?? "MODE_UNSPECIFIED"
      return { ok: mode === "GKE_METADATA", value: mode, reason: mode === "GKE_METADATA" ? "Workloads see the GKE metadata server only." : "Workloads reach the node's Compute Engine metadata server." }
    },
  }),
]
