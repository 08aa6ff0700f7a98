/** Dataproc (v1): clusters of every Compute region (projects.regions.clusters.list) with their encryption config. */
import { Schema } from "effect"
import { listAll, Paged, type GcpCollectContext } from "../context.ts"

export const dataprocResourceTypes = ["dataproc.clusters"] as const

export const Cluster = Schema.Struct({
  clusterName: Schema.String,
  clusterUuid: Schema.optionalKey(Schema.String),
  config: Schema.optionalKey(Schema.Struct({ encryptionConfig: Schema.optionalKey(Schema.Struct({ gcePdKmsKeyName: Schema.optionalKey(Schema.String), kmsKey: Schema.optionalKey(Schema.String) })) })),
  status: Schema.optionalKey(Schema.Struct({ state: Schema.optionalKey(Schema.String) })),
})
export type Cluster = typeof Cluster.Type

const RegionsPage = Paged({ items: Schema.optionalKey(Schema.Array(Schema.Struct({ name: Schema.String }))) })
const ClustersPage = Paged({ clusters: Schema.optionalKey(Schema.Array(Cluster)) })

export interface DataprocInventory {
  readonly clusters: ReadonlyArray<Cluster & { readonly region: string }> | undefined
}

export async function collectDataproc(ctx: GcpCollectContext): Promise<DataprocInventory> {
  const regions = await listAll(
    ctx,
    { type: "dataproc.clusters", region: "global", op: "compute.regions.list" },
    `${ctx.endpoints.compute}/compute/v1/projects/${ctx.projectId}/regions?maxResults=500`,
    RegionsPage,
    (page) => page.items,
  )
  if (regions === undefined) return { clusters: undefined }
  const perRegion = await ctx.map(regions, async (r) => {
    const list = await listAll(
      ctx,
      { type: "dataproc.clusters", region: r.name, op: "dataproc.projects.regions.clusters.list" },
      `${ctx.endpoints.dataproc}/v1/projects/${ctx.projectId}/regions/${r.name}/clusters?pageSize=100`,
      ClustersPage,
      (page) => page.clusters,
    )
    return (list ?? []).map((c) => ({ ...c, region: r.name }))
  })
  const clusters = perRegion.flat()
  ctx.countResources(clusters.length)
  return { clusters }
}
