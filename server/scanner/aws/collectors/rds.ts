/** RDS inventory per region: DB instances and manual DB snapshots (with their restore attributes). */
import { DescribeDBInstancesCommand, DescribeDBSnapshotAttributesCommand, DescribeDBSnapshotsCommand } from "@aws-sdk/client-rds"
import type { CollectContext } from "../context.ts"

export const rdsResourceTypes = ["rds.instances", "rds.snapshots"] as const

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
}

export interface DbSnapshot {
  readonly id: string
  readonly instanceId: string
  readonly public: boolean | undefined
  readonly encrypted: boolean
}

export interface RdsInventory {
  readonly regions: ReadonlyArray<{ readonly region: string; readonly instances: ReadonlyArray<DbInstance> | undefined; readonly snapshots: ReadonlyArray<DbSnapshot> | undefined }>
}

export async function collectRds(ctx: CollectContext): Promise<RdsInventory> {
  const regions = await ctx.perRegion(async (region) => {
    const rds = ctx.clients.get("rds", region)
    const marker = (m: string | undefined) => (m === undefined ? {} : { Marker: m })
    const [instances, snaps] = await Promise.all([
      ctx.wants("rds.instances")
        ? ctx.paginate(
            { type: "rds.instances", region, op: "rds:DescribeDBInstances" },
            (m, o) => rds.send(new DescribeDBInstancesCommand({ ...marker(m) }), o),
            (p) => ({ items: p.DBInstances, next: p.Marker }),
          )
        : Promise.resolve(undefined),
      ctx.wants("rds.snapshots")
        ? ctx.paginate(
            { type: "rds.snapshots", region, op: "rds:DescribeDBSnapshots" },
            (m, o) => rds.send(new DescribeDBSnapshotsCommand({ SnapshotType: "manual", ...marker(m) }), o),
            (p) => ({ items: p.DBSnapshots, next: p.Marker }),
          )
        : Promise.resolve(undefined),
    ])
    const snapshots =
      snaps === undefined
        ? undefined
        : await ctx.map(snaps, async (s): Promise<DbSnapshot> => {
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
          })
    ctx.countResources((instances?.length ?? 0) + (snapshots?.length ?? 0))
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
      })),
      snapshots,
    }
  })
  return { regions }
}
