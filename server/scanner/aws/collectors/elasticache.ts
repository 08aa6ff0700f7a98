/** ElastiCache inventory per region: Redis/Valkey replication groups (encryption, AUTH, failover, backups) and cache clusters (engine, upgrades, subnet group). */
import { DescribeCacheClustersCommand, DescribeReplicationGroupsCommand } from "@aws-sdk/client-elasticache"
import type { CollectContext } from "../context.ts"

export const elasticacheResourceTypes = ["elasticache.replication_groups", "elasticache.clusters"] as const

export interface ReplicationGroup {
  readonly id: string
  readonly atRest: boolean
  readonly inTransit: boolean
  readonly authToken: boolean
  readonly userGroups: boolean
  readonly automaticFailover: string
  readonly multiAz: string
  readonly snapshotRetention: number
  readonly kmsKeyId: string | undefined
}

export interface CacheCluster {
  readonly id: string
  readonly engine: string
  readonly engineVersion: string
  readonly replicationGroupId: string | undefined
  readonly autoMinorVersionUpgrade: boolean
  readonly subnetGroup: string | undefined
  readonly snapshotRetention: number
  readonly atRest: boolean
  readonly inTransit: boolean
}

export interface ElastiCacheInventory {
  readonly regions: ReadonlyArray<{ readonly region: string; readonly groups: ReadonlyArray<ReplicationGroup> | undefined; readonly clusters: ReadonlyArray<CacheCluster> | undefined }>
}

export async function collectElastiCache(ctx: CollectContext): Promise<ElastiCacheInventory> {
  const regions = await ctx.perRegion(async (region) => {
    const ec = ctx.clients.get("elasticache", region)
    const [groups, clusters] = await Promise.all([
      ctx.wants("elasticache.replication_groups")
        ? ctx.paginate(
            { type: "elasticache.replication_groups", region, op: "elasticache:DescribeReplicationGroups" },
            (m, o) => ec.send(new DescribeReplicationGroupsCommand({ ...(m === undefined ? {} : { Marker: m }) }), o),
            (p) => ({ items: p.ReplicationGroups, next: p.Marker }),
          )
        : undefined,
      ctx.wants("elasticache.clusters")
        ? ctx.paginate(
            { type: "elasticache.clusters", region, op: "elasticache:DescribeCacheClusters" },
            (m, o) => ec.send(new DescribeCacheClustersCommand({ ...(m === undefined ? {} : { Marker: m }) }), o),
            (p) => ({ items: p.CacheClusters, next: p.Marker }),
          )
        : undefined,
    ])
    ctx.countResources((groups?.length ?? 0) + (clusters?.length ?? 0))
    return {
      region,
      groups: groups?.map((g) => ({
        id: g.ReplicationGroupId ?? "",
        atRest: g.AtRestEncryptionEnabled === true,
        inTransit: g.TransitEncryptionEnabled === true,
        authToken: g.AuthTokenEnabled === true,
        userGroups: (g.UserGroupIds ?? []).length > 0,
        automaticFailover: g.AutomaticFailover ?? "disabled",
        multiAz: g.MultiAZ ?? "disabled",
        snapshotRetention: g.SnapshotRetentionLimit ?? 0,
        kmsKeyId: g.KmsKeyId,
      })),
      clusters: clusters?.map((c) => ({
        id: c.CacheClusterId ?? "",
        engine: c.Engine ?? "",
        engineVersion: c.EngineVersion ?? "",
        replicationGroupId: c.ReplicationGroupId,
        autoMinorVersionUpgrade: c.AutoMinorVersionUpgrade === true,
        subnetGroup: c.CacheSubnetGroupName,
        snapshotRetention: c.SnapshotRetentionLimit ?? 0,
        atRest: c.AtRestEncryptionEnabled === true,
        inTransit: c.TransitEncryptionEnabled === true,
      })),
    }
  })
  return { regions }
}
