/**
 * RDS inventory per region: DB instances, DB clusters (Aurora, and the Neptune/DocumentDB clusters the same API
 * lists), manual DB and cluster snapshots (with their restore attributes), event subscriptions, and who manages the
 * KMS keys the instances and clusters are encrypted with (./keys.ts).
 */
import {
  DescribeDBClusterSnapshotAttributesCommand,
  DescribeDBClusterSnapshotsCommand,
  DescribeDBClustersCommand,
  DescribeDBInstancesCommand,
  DescribeDBSnapshotAttributesCommand,
  DescribeDBSnapshotsCommand,
  DescribeEventSubscriptionsCommand,
} from "@aws-sdk/client-rds"
import type { CollectContext } from "../context.ts"
import { resolveKeyManagers, type KeyManager } from "./keys.ts"

/** The scan service whose checks read a resource of this engine: "neptune", "documentdb" (engine "docdb") or "rds". */
export const engineService = (engine: string): "rds" | "neptune" | "documentdb" =>
  engine === "neptune" ? "neptune" : engine === "docdb" ? "documentdb" : "rds"

export const rdsResourceTypes = ["rds.instances", "rds.snapshots", "rds.clusters", "rds.cluster_snapshots", "rds.event_subscriptions", "rds.kms"] as const

export interface DbInstance {
  readonly id: string
  readonly arn: string
  readonly engine: string
  readonly clusterId: string | undefined
  readonly storageEncrypted: boolean
  readonly publiclyAccessible: boolean
  readonly autoMinorVersionUpgrade: boolean
  readonly multiAz: boolean
  readonly backupRetentionDays: number
  readonly deletionProtection: boolean
  readonly iamAuth: boolean
  readonly port: number | undefined
  readonly masterUsername: string | undefined
  readonly kmsKeyId: string | undefined
  /** Manager of the storage key; undefined when unencrypted, not read, or unreadable. */
  readonly kmsManager: KeyManager | undefined
  readonly copyTagsToSnapshot: boolean
  readonly logExports: ReadonlyArray<string>
  readonly caCertificate: string | undefined
}

export interface DbCluster {
  readonly id: string
  readonly arn: string
  readonly engine: string
  readonly storageEncrypted: boolean
  readonly deletionProtection: boolean
  readonly iamAuth: boolean
  readonly multiAz: boolean
  readonly copyTagsToSnapshot: boolean
  readonly backtrackWindow: number
  readonly masterUsername: string | undefined
  readonly port: number | undefined
  readonly logExports: ReadonlyArray<string>
  readonly backupRetentionDays: number
  readonly kmsKeyId: string | undefined
  readonly kmsManager: KeyManager | undefined
  readonly publiclyAccessible: boolean
}

export interface DbSnapshot {
  readonly id: string
  readonly instanceId: string
  readonly public: boolean | undefined
  readonly encrypted: boolean
}

export interface DbClusterSnapshot {
  readonly id: string
  readonly clusterId: string
  readonly engine: string
  readonly public: boolean | undefined
  readonly encrypted: boolean
}

export interface EventSubscription {
  readonly name: string
  readonly sourceType: string
  readonly enabled: boolean
  readonly categories: ReadonlyArray<string>
  readonly sourceIds: ReadonlyArray<string>
}

export interface RdsRegion {
  readonly region: string
  readonly instances: ReadonlyArray<DbInstance> | undefined
  readonly snapshots: ReadonlyArray<DbSnapshot> | undefined
  readonly clusters: ReadonlyArray<DbCluster> | undefined
  readonly clusterSnapshots: ReadonlyArray<DbClusterSnapshot> | undefined
  readonly eventSubscriptions: ReadonlyArray<EventSubscription> | undefined
}

export interface RdsInventory {
  readonly regions: ReadonlyArray<RdsRegion>
}

export async function collectRds(ctx: CollectContext): Promise<RdsInventory> {
  const regions = await ctx.perRegion(async (region): Promise<RdsRegion> => {
    const rds = ctx.clients.get("rds", region)
    const marker = (m: string | undefined) => (m === undefined ? {} : { Marker: m })
    const skip = Promise.resolve(undefined)
    const [instances, snaps, clusters, clusterSnaps, subs] = await Promise.all([
      ctx.wants("rds.instances")
        ? ctx.paginate(
            { type: "rds.instances", region, op: "rds:DescribeDBInstances" },
            (m, o) => rds.send(new DescribeDBInstancesCommand({ ...marker(m) }), o),
            (p) => ({ items: p.DBInstances, next: p.Marker }),
          )
        : skip,
      ctx.wants("rds.snapshots")
        ? ctx.paginate(
            { type: "rds.snapshots", region, op: "rds:DescribeDBSnapshots" },
            (m, o) => rds.send(new DescribeDBSnapshotsCommand({ SnapshotType: "manual", ...marker(m) }), o),
            (p) => ({ items: p.DBSnapshots, next: p.Marker }),
          )
        : skip,
      ctx.wants("rds.clusters")
        ? ctx.paginate(
            { type: "rds.clusters", region, op: "rds:DescribeDBClusters" },
            (m, o) => rds.send(new DescribeDBClustersCommand({ ...marker(m) }), o),
            (p) => ({ items: p.DBClusters, next: p.Marker }),
          )
        : skip,
      ctx.wants("rds.cluster_snapshots")
        ? ctx.paginate(
            { type: "rds.cluster_snapshots", region, op: "rds:DescribeDBClusterSnapshots" },
            (m, o) => rds.send(new DescribeDBClusterSnapshotsCommand({ SnapshotType: "manual", ...marker(m) }), o),
            (p) => ({ items: p.DBClusterSnapshots, next: p.Marker }),
          )
        : skip,
      ctx.wants("rds.event_subscriptions")
        ? ctx.paginate(
            { type: "rds.event_subscriptions", region, op: "rds:DescribeEventSubscriptions" },
            (m, o) => rds.send(new DescribeEventSubscriptionsCommand({ ...marker(m) }), o),
            (p) => ({ items: p.EventSubscriptionsList, next: p.Marker }),
          )
        : skip,
    ])
    const [snapshots, clusterSnapshots, keys] = await Promise.all([
      snaps === undefined
        ? skip
        : ctx.map(snaps, async (s): Promise<DbSnapshot> => {
            const id = s.DBSnapshotIdentifier ?? ""
            const attrs = await ctx.call({ type: "rds.snapshots", region, op: "rds:DescribeDBSnapshotAttributes", id }, (o) =>
              rds.send(new DescribeDBSnapshotAttributesCommand({ DBSnapshotIdentifier: id }), o),
            )
            const restore = attrs?.DBSnapshotAttributesResult?.DBSnapshotAttributes?.find((a) => a.AttributeName === "restore")
            return {
              id,
              instanceId: s.DBInstanceIdentifier ?? "",
              encrypted: s.Encrypted === true,
              public: attrs === undefined ? undefined : (restore?.AttributeValues ?? []).includes("all"),
            }
          }),
      clusterSnaps === undefined
        ? skip
        : ctx.map(clusterSnaps, async (s): Promise<DbClusterSnapshot> => {
            const id = s.DBClusterSnapshotIdentifier ?? ""
            const attrs = await ctx.call({ type: "rds.cluster_snapshots", region, op: "rds:DescribeDBClusterSnapshotAttributes", id }, (o) =>
              rds.send(new DescribeDBClusterSnapshotAttributesCommand({ DBClusterSnapshotIdentifier: id }), o),
            )
            const restore = attrs?.DBClusterSnapshotAttributesResult?.DBClusterSnapshotAttributes?.find((a) => a.AttributeName === "restore")
            return {
              id,
              clusterId: s.DBClusterIdentifier ?? "",
              engine: s.Engine ?? "",
              encrypted: s.StorageEncrypted === true,
              public: attrs === undefined ? undefined : (restore?.AttributeValues ?? []).includes("all"),
            }
          }),
      ctx.wants("rds.kms")
        ? resolveKeyManagers(ctx, region, "rds.kms", [
            ...(instances ?? []).filter((i) => i.StorageEncrypted === true && i.DBClusterIdentifier === undefined).map((i) => i.KmsKeyId),
            ...(clusters ?? []).filter((c) => c.StorageEncrypted === true).map((c) => c.KmsKeyId),
          ])
        : Promise.resolve(undefined),
    ])
    const manager = (encrypted: boolean | undefined, key: string | undefined) => (encrypted === true && key !== undefined ? keys?.get(key) : undefined)
    // One API lists RDS, Neptune and DocumentDB alike: each of the three services counts its own engine's resources.
    const own = (engine: string | undefined) => ctx.service === undefined || engineService(engine ?? "") === ctx.service
    ctx.countResources(
      [instances, snaps, clusters, clusterSnaps].reduce((n, list) => n + (list ?? []).filter((r) => own(r.Engine)).length, 0),
    )
    return {
      region,
      instances: instances?.map((i) => ({
        id: i.DBInstanceIdentifier ?? "",
        arn: i.DBInstanceArn ?? "",
        engine: i.Engine ?? "",
        clusterId: i.DBClusterIdentifier,
        storageEncrypted: i.StorageEncrypted === true,
        publiclyAccessible: i.PubliclyAccessible === true,
        autoMinorVersionUpgrade: i.AutoMinorVersionUpgrade === true,
        multiAz: i.MultiAZ === true,
        backupRetentionDays: i.BackupRetentionPeriod ?? 0,
        deletionProtection: i.DeletionProtection === true,
        iamAuth: i.IAMDatabaseAuthenticationEnabled === true,
        port: i.Endpoint?.Port ?? i.DbInstancePort,
        masterUsername: i.MasterUsername,
        kmsKeyId: i.KmsKeyId,
        kmsManager: manager(i.StorageEncrypted, i.KmsKeyId),
        copyTagsToSnapshot: i.CopyTagsToSnapshot === true,
        logExports: i.EnabledCloudwatchLogsExports ?? [],
        caCertificate: i.CACertificateIdentifier,
      })),
      snapshots,
      clusters: clusters?.map((c) => ({
        id: c.DBClusterIdentifier ?? "",
        arn: c.DBClusterArn ?? "",
        engine: c.Engine ?? "",
        storageEncrypted: c.StorageEncrypted === true,
        deletionProtection: c.DeletionProtection === true,
        iamAuth: c.IAMDatabaseAuthenticationEnabled === true,
        multiAz: c.MultiAZ === true,
        copyTagsToSnapshot: c.CopyTagsToSnapshot === true,
        backtrackWindow: c.BacktrackWindow ?? 0,
        masterUsername: c.MasterUsername,
        port: c.Port,
        logExports: c.EnabledCloudwatchLogsExports ?? [],
        backupRetentionDays: c.BackupRetentionPeriod ?? 0,
        kmsKeyId: c.KmsKeyId,
        kmsManager: manager(c.StorageEncrypted, c.KmsKeyId),
        publiclyAccessible: c.PubliclyAccessible === true,
      })),
      clusterSnapshots,
      eventSubscriptions: subs?.map((s) => ({
        name: s.CustSubscriptionId ?? "",
        sourceType: s.SourceType ?? "",
        enabled: s.Enabled === true,
        categories: s.EventCategoriesList ?? [],
        sourceIds: s.SourceIdsList ?? [],
      })),
    }
  })
  return { regions }
}
