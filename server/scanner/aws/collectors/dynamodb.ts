/** DynamoDB inventory per region: tables with encryption, deletion protection and point-in-time recovery. */
import { DescribeContinuousBackupsCommand, DescribeTableCommand, ListBackupsCommand, ListTablesCommand } from "@aws-sdk/client-dynamodb"
import type { CollectContext } from "../context.ts"

export const dynamodbResourceTypes = ["dynamodb.tables", "dynamodb.backups", "dynamodb.backup_list"] as const

export interface DynamoTable {
  readonly name: string
  readonly arn: string
  readonly deletionProtection: boolean
  /** "KMS" when encrypted with a KMS key (AWS managed or customer); null for the default AWS owned key. */
  readonly sseType: string | null
  readonly kmsKeyArn: string | undefined
  readonly pitr: boolean | undefined
  /** Newest available on-demand or AWS Backup backup of the table; null when none, undefined when not read. */
  readonly lastBackup: Date | null | undefined
  readonly billingMode: string
}

export interface DynamoDbInventory {
  readonly regions: ReadonlyArray<{ readonly region: string; readonly tables: ReadonlyArray<DynamoTable> | undefined }>
}

export async function collectDynamoDb(ctx: CollectContext): Promise<DynamoDbInventory> {
  const regions = await ctx.perRegion(async (region) => {
    const ddb = ctx.clients.get("dynamodb", region)
    const names = await ctx.paginate(
      { type: "dynamodb.tables", region, op: "dynamodb:ListTables" },
      (t, o) => ddb.send(new ListTablesCommand({ ...(t === undefined ? {} : { ExclusiveStartTableName: t }) }), o),
      (p) => ({ items: p.TableNames, next: p.LastEvaluatedTableName }),
    )
    const backupList = ctx.wants("dynamodb.backup_list")
      ? await ctx.paginate(
          { type: "dynamodb.backup_list", region, op: "dynamodb:ListBackups" },
          (t, o) => ddb.send(new ListBackupsCommand({ BackupType: "ALL", ...(t === undefined ? {} : { ExclusiveStartBackupArn: t }) }), o),
          (p) => ({ items: p.BackupSummaries, next: p.LastEvaluatedBackupArn }),
        )
      : undefined
    const lastBackup = (name: string): Date | null | undefined => {
      if (backupList === undefined) return undefined
      const times = backupList.filter((b) => b.TableName === name && b.BackupStatus === "AVAILABLE" && b.BackupCreationDateTime !== undefined).map((b) => b.BackupCreationDateTime?.getTime() ?? 0)
      return times.length === 0 ? null : new Date(Math.max(...times))
    }
    const tables =
      names === undefined
        ? undefined
        : (
            await ctx.map(names, async (name): Promise<DynamoTable | undefined> => {
              const [d, backups] = await Promise.all([
                ctx.call({ type: "dynamodb.tables", region, op: "dynamodb:DescribeTable", id: name }, (o) => ddb.send(new DescribeTableCommand({ TableName: name }), o)),
                ctx.wants("dynamodb.backups")
                  ? ctx.call({ type: "dynamodb.backups", region, op: "dynamodb:DescribeContinuousBackups", id: name }, (o) =>
                      ddb.send(new DescribeContinuousBackupsCommand({ TableName: name }), o),
                    )
                  : Promise.resolve(undefined),
              ])
              const t = d?.Table
              if (t === undefined) return undefined
              return {
                name,
                arn: t.TableArn ?? "",
                deletionProtection: t.DeletionProtectionEnabled === true,
                sseType: t.SSEDescription?.Status === "ENABLED" || t.SSEDescription?.Status === "UPDATING" ? (t.SSEDescription.SSEType ?? null) : null,
                kmsKeyArn: t.SSEDescription?.KMSMasterKeyArn,
                lastBackup: lastBackup(name),
                billingMode: t.BillingModeSummary?.BillingMode ?? "PROVISIONED",
                pitr:
                  backups === undefined
                    ? undefined
                    : backups.ContinuousBackupsDescription?.PointInTimeRecoveryDescription?.PointInTimeRecoveryStatus === "ENABLED",
              }
            })
          ).filter((t): t is DynamoTable => t !== undefined)
    ctx.countResources(tables?.length ?? 0)
    return { region, tables }
  })
  return { regions }
}
