/**
 * Google Kubernetes Engine (container v1): every cluster of the project in every location (projects.locations.clusters
 * list with location "-"), with its control-plane access, node pools, identity and encryption settings. One call;
 * nothing is read from the clusters' own API servers.
 */
import { Schema } from "effect"
import type { GcpCollectContext } from "../context.ts"

export const gkeResourceTypes = ["gke.clusters"] as const

const Enabled = Schema.optionalKey(Schema.Struct({ enabled: Schema.optionalKey(Schema.Boolean) }))

export const NodePool = Schema.Struct({
  name: Schema.String,
  networkConfig: Schema.optionalKey(Schema.Struct({ enablePrivateNodes: Schema.optionalKey(Schema.Boolean) })),
  management: Schema.optionalKey(Schema.Struct({ autoUpgrade: Schema.optionalKey(Schema.Boolean) })),
  config: Schema.optionalKey(
    Schema.Struct({
      serviceAccount: Schema.optionalKey(Schema.String),
      workloadMetadataConfig: Schema.optionalKey(Schema.Struct({ mode: Schema.optionalKey(Schema.String) })),
    }),
  ),
})
export type NodePool = typeof NodePool.Type

export const GkeCluster = Schema.Struct({
  name: Schema.String,
  location: Schema.optionalKey(Schema.String),
  privateClusterConfig: Schema.optionalKey(Schema.Struct({ enablePrivateNodes: Schema.optionalKey(Schema.Boolean), enablePrivateEndpoint: Schema.optionalKey(Schema.Boolean) })),
  masterAuthorizedNetworksConfig: Schema.optionalKey(
    Schema.Struct({
      enabled: Schema.optionalKey(Schema.Boolean),
      gcpPublicCidrsAccessEnabled: Schema.optionalKey(Schema.Boolean),
      cidrBlocks: Schema.optionalKey(Schema.Array(Schema.Struct({ displayName: Schema.optionalKey(Schema.String), cidrBlock: Schema.optionalKey(Schema.String) }))),
    }),
  ),
  networkPolicy: Enabled,
  networkConfig: Schema.optionalKey(Schema.Struct({ datapathProvider: Schema.optionalKey(Schema.String), defaultEnablePrivateNodes: Schema.optionalKey(Schema.Boolean) })),
  /** The current control-plane endpoint settings (privateClusterConfig.enablePrivateEndpoint is their deprecated mirror). */
  controlPlaneEndpointsConfig: Schema.optionalKey(
    Schema.Struct({
      ipEndpointsConfig: Schema.optionalKey(
        Schema.Struct({
          enabled: Schema.optionalKey(Schema.Boolean),
          enablePublicEndpoint: Schema.optionalKey(Schema.Boolean),
          authorizedNetworksConfig: Schema.optionalKey(
            Schema.Struct({
              enabled: Schema.optionalKey(Schema.Boolean),
              cidrBlocks: Schema.optionalKey(Schema.Array(Schema.Struct({ displayName: Schema.optionalKey(Schema.String), cidrBlock: Schema.optionalKey(Schema.String) }))),
            }),
          ),
        }),
      ),
    }),
  ),
  workloadIdentityConfig: Schema.optionalKey(Schema.Struct({ workloadPool: Schema.optionalKey(Schema.String) })),
  legacyAbac: Enabled,
  shieldedNodes: Enabled,
  databaseEncryption: Schema.optionalKey(Schema.Struct({ state: Schema.optionalKey(Schema.String), keyName: Schema.optionalKey(Schema.String) })),
  loggingService: Schema.optionalKey(Schema.String),
  monitoringService: Schema.optionalKey(Schema.String),
  nodePools: Schema.optionalKey(Schema.Array(NodePool)),
})
export type GkeCluster = typeof GkeCluster.Type

/** clusters.list answers every cluster at once; `missingZones` names the zones whose clusters may be missing. */
export const ClustersPage = Schema.Struct({ clusters: Schema.optionalKey(Schema.Array(GkeCluster)), missingZones: Schema.optionalKey(Schema.Array(Schema.String)) })

export interface GkeInventory {
  readonly clusters: ReadonlyArray<GkeCluster> | undefined
}

export async function collectGke(ctx: GcpCollectContext): Promise<GkeInventory> {
  const spec = { type: "gke.clusters", region: "global", op: "container.projects.locations.clusters.list" }
  const page = await ctx.get(spec, { url: `${ctx.endpoints.container}/v1/projects/${ctx.projectId}/locations/-/clusters` }, ClustersPage)
  if (page === undefined) return { clusters: undefined }
  // A partial answer: the clusters of the missing zones were not seen, so the checks must not pass on them.
  for (const zone of page.missingZones ?? []) {
    ctx.recordError({ resourceType: "gke.clusters", region: zone, operation: spec.op, kind: "error", code: "MISSING_ZONE", message: `Clusters in ${zone} could not be listed: the answer is incomplete` })
  }
  const clusters = page.clusters ?? []
  ctx.countResources(clusters.length)
  return { clusters }
}
