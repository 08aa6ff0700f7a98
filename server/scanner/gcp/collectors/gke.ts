/**
 * Google Kubernetes Engine (container v1): every cluster of the project in every location (projects.locations.clusters
 * list with location "-"), with its control-plane access, node pools, identity and encryption settings. One call;
 * nothing is read from the clusters' own API servers.
 */
import { Schema } from "effect"
import { listAll, Paged, type GcpCollectContext } from "../context.ts"

export const gkeResourceTypes = ["gke.clusters"] as const

const Enabled = Schema.optionalKey(Schema.Struct({ enabled: Schema.optionalKey(Schema.Boolean) }))

export const GkeCluster = Schema.Struct({
  name: Schema.String,
  location: Schema.optionalKey(Schema.String),
  privateClusterConfig: Schema.optionalKey(Schema.Struct({ enablePrivateNodes: Schema.optionalKey(Schema.Boolean), enablePrivateEndpoint: Schema.optionalKey(Schema.Boolean) })),
  masterAuthorizedNetworksConfig: Enabled,
  networkPolicy: Enabled,
  networkConfig: Schema.optionalKey(Schema.Struct({ datapathProvider: Schema.optionalKey(Schema.String) })),
  workloadIdentityConfig: Schema.optionalKey(Schema.Struct({ workloadPool: Schema.optionalKey(Schema.String) })),
  legacyAbac: Enabled,
  shieldedNodes: Enabled,
  databaseEncryption: Schema.optionalKey(Schema.Struct({ state: Schema.optionalKey(Schema.String), keyName: Schema.optionalKey(Schema.String) })),
  loggingService: Schema.optionalKey(Schema.String),
  monitoringService: Schema.optionalKey(Schema.String),
  nodePools: Schema.optionalKey(
    Schema.Array(Schema.Struct({ name: Schema.String, management: Schema.optionalKey(Schema.Struct({ autoUpgrade: Schema.optionalKey(Schema.Boolean), autoRepair: Schema.optionalKey(Schema.Boolean) })) })),
  ),
})
export type GkeCluster = typeof GkeCluster.Type

export const ClustersPage = Paged({ clusters: Schema.optionalKey(Schema.Array(GkeCluster)) })

export interface GkeInventory {
  readonly clusters: ReadonlyArray<GkeCluster> | undefined
}

export async function collectGke(ctx: GcpCollectContext): Promise<GkeInventory> {
  const clusters = await listAll(
    ctx,
    { type: "gke.clusters", region: "global", op: "container.projects.locations.clusters.list" },
    `${ctx.endpoints.container}/v1/projects/${ctx.projectId}/locations/-/clusters`,
    ClustersPage,
    (page) => page.clusters,
  )
  if (clusters !== undefined) ctx.countResources(clusters.length)
  return { clusters }
}
