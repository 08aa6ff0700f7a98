/**
 * Azure Kubernetes Service (Microsoft.ContainerService 2024-05-01): the subscription's managed clusters with their
 * API server access (private cluster, authorized IP ranges), Kubernetes RBAC and Entra integration, local accounts,
 * network policy, automatic upgrades and Defender/monitoring profiles. One list call; nothing is read from the
 * clusters' own API servers.
 */
import { Schema } from "effect"
import { ArmResource, armList, type AzureCollectContext } from "../context.ts"

export const aksResourceTypes = ["aks.clusters"] as const
export const AKS_API = "2024-05-01"

export const ManagedCluster = ArmResource({
  kubernetesVersion: Schema.optionalKey(Schema.String),
  enableRBAC: Schema.optionalKey(Schema.Boolean),
  disableLocalAccounts: Schema.optionalKey(Schema.Boolean),
  aadProfile: Schema.optionalKey(Schema.NullOr(Schema.Struct({ managed: Schema.optionalKey(Schema.Boolean), enableAzureRBAC: Schema.optionalKey(Schema.Boolean) }))),
  apiServerAccessProfile: Schema.optionalKey(
    Schema.NullOr(Schema.Struct({ enablePrivateCluster: Schema.optionalKey(Schema.Boolean), authorizedIPRanges: Schema.optionalKey(Schema.NullOr(Schema.Array(Schema.String))) })),
  ),
  networkProfile: Schema.optionalKey(Schema.NullOr(Schema.Struct({ networkPlugin: Schema.optionalKey(Schema.String), networkPolicy: Schema.optionalKey(Schema.NullOr(Schema.String)) }))),
  autoUpgradeProfile: Schema.optionalKey(Schema.NullOr(Schema.Struct({ upgradeChannel: Schema.optionalKey(Schema.NullOr(Schema.String)) }))),
  securityProfile: Schema.optionalKey(Schema.NullOr(Schema.Struct({ defender: Schema.optionalKey(Schema.NullOr(Schema.Struct({ securityMonitoring: Schema.optionalKey(Schema.Struct({ enabled: Schema.optionalKey(Schema.Boolean) })) }))) }))),
  addonProfiles: Schema.optionalKey(Schema.NullOr(Schema.Record(Schema.String, Schema.Struct({ enabled: Schema.optionalKey(Schema.Boolean) })))),
})
export type ManagedCluster = typeof ManagedCluster.Type

export interface AksInventory {
  readonly clusters: ReadonlyArray<ManagedCluster> | undefined
}

export async function collectAks(ctx: AzureCollectContext): Promise<AksInventory> {
  const clusters = await armList(ctx, { type: "aks.clusters", region: "global", op: "Microsoft.ContainerService/managedClusters/read" }, `/subscriptions/${ctx.subscriptionId}/providers/Microsoft.ContainerService/managedClusters`, AKS_API, ManagedCluster)
  if (clusters !== undefined) ctx.countResources(clusters.length)
  return { clusters }
}
