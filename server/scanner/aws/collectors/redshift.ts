/** Redshift inventory per region: provisioned clusters, their audit logging status and whether their parameter group requires SSL. */
import { DescribeClusterParametersCommand, DescribeClustersCommand, DescribeLoggingStatusCommand } from "@aws-sdk/client-redshift"
import type { CollectContext } from "../context.ts"
import type { ItemsInventory } from "./per-region.ts"
import { listPerRegion } from "./per-region.ts"

export const redshiftResourceTypes = ["redshift.clusters", "redshift.logging", "redshift.parameters"] as const

export interface RedshiftCluster {
  readonly id: string
  readonly publiclyAccessible: boolean
  readonly encrypted: boolean
  readonly kmsKeyId: string | undefined
  readonly enhancedVpcRouting: boolean
  readonly allowVersionUpgrade: boolean
  readonly snapshotRetention: number
  readonly masterUsername: string | undefined
  readonly port: number | undefined
  readonly vpcId: string | undefined
  readonly loggingEnabled: boolean | undefined
  /** require_ssl of the first parameter group; undefined when not read. */
  readonly requireSsl: boolean | undefined
}

export type RedshiftInventory = ItemsInventory<RedshiftCluster>

export async function collectRedshift(ctx: CollectContext): Promise<RedshiftInventory> {
  return listPerRegion(
    ctx,
    { type: "redshift.clusters", op: "redshift:DescribeClusters" },
    (region, m, o) => ctx.clients.get("redshift", region).send(new DescribeClustersCommand({ ...(m === undefined ? {} : { Marker: m }) }), o),
    (p) => ({ items: p.Clusters, next: p.Marker }),
    async (c, region): Promise<RedshiftCluster> => {
      const rs = ctx.clients.get("redshift", region)
      const id = c.ClusterIdentifier ?? ""
      const group = c.ClusterParameterGroups?.[0]?.ParameterGroupName
      const [logging, params] = await Promise.all([
        ctx.wants("redshift.logging") ? ctx.call({ type: "redshift.logging", region, op: "redshift:DescribeLoggingStatus", id }, (o) => rs.send(new DescribeLoggingStatusCommand({ ClusterIdentifier: id }), o)) : undefined,
        ctx.wants("redshift.parameters") && group !== undefined
          ? ctx.paginate(
              { type: "redshift.parameters", region, op: "redshift:DescribeClusterParameters", id: group },
              (m, o) => rs.send(new DescribeClusterParametersCommand({ ParameterGroupName: group, ...(m === undefined ? {} : { Marker: m }) }), o),
              (p) => ({ items: p.Parameters, next: p.Marker }),
            )
          : undefined,
      ])
      return {
        id,
        publiclyAccessible: c.PubliclyAccessible === true,
        encrypted: c.Encrypted === true,
        kmsKeyId: c.KmsKeyId,
        enhancedVpcRouting: c.EnhancedVpcRouting === true,
        allowVersionUpgrade: c.AllowVersionUpgrade === true,
        snapshotRetention: c.AutomatedSnapshotRetentionPeriod ?? 0,
        masterUsername: c.MasterUsername,
        port: c.Endpoint?.Port,
        vpcId: c.VpcId,
        loggingEnabled: logging?.LoggingEnabled,
        requireSsl: group === undefined ? false : params === undefined ? undefined : params.some((p) => p.ParameterName === "require_ssl" && p.ParameterValue?.toLowerCase() === "true"),
      }
    },
  )
}
