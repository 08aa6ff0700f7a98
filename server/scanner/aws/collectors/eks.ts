/** EKS inventory per region: clusters with endpoint access, control plane logging and secrets encryption. */
import { DescribeClusterCommand, ListClustersCommand } from "@aws-sdk/client-eks"
import type { CollectContext } from "../context.ts"

export const eksResourceTypes = ["eks.clusters"] as const

export interface EksCluster {
  readonly name: string
  readonly arn: string
  readonly version: string | undefined
  /** AWS defaults to a public endpoint; an omitted flag (moto) counts as public. */
  readonly endpointPublicAccess: boolean
  readonly publicAccessCidrs: ReadonlyArray<string>
  readonly enabledLogTypes: ReadonlyArray<string>
  readonly secretsEncrypted: boolean
}

export interface EksInventory {
  readonly regions: ReadonlyArray<{ readonly region: string; readonly clusters: ReadonlyArray<EksCluster> | undefined }>
}

export async function collectEks(ctx: CollectContext): Promise<EksInventory> {
  const regions = await ctx.perRegion(async (region) => {
    const eks = ctx.clients.get("eks", region)
    const names = await ctx.paginate(
      { type: "eks.clusters", region, op: "eks:ListClusters" },
      (t, o) => eks.send(new ListClustersCommand({ ...(t === undefined ? {} : { nextToken: t }) }), o),
      (p) => ({ items: p.clusters, next: p.nextToken }),
    )
    const clusters =
      names === undefined
        ? undefined
        : (
            await ctx.map(names, async (name): Promise<EksCluster | undefined> => {
              const d = await ctx.call({ type: "eks.clusters", region, op: "eks:DescribeCluster", id: name }, (o) => eks.send(new DescribeClusterCommand({ name }), o))
              const c = d?.cluster
              if (c === undefined) return undefined
              return {
                name,
                arn: c.arn ?? "",
                version: c.version,
                endpointPublicAccess: c.resourcesVpcConfig?.endpointPublicAccess !== false,
                publicAccessCidrs: c.resourcesVpcConfig?.publicAccessCidrs ?? ["0.0.0.0/0"],
                enabledLogTypes: (c.logging?.clusterLogging ?? []).filter((l) => l.enabled === true).flatMap((l) => l.types ?? []),
                secretsEncrypted: (c.encryptionConfig ?? []).some((e) => (e.resources ?? []).includes("secrets")),
              }
            })
          ).filter((c): c is EksCluster => c !== undefined)
    ctx.countResources(clusters?.length ?? 0)
    return { region, clusters }
  })
  return { regions }
}
