/** Data-store fixers: RDS (public access, minor upgrades, backups, deletion protection, public snapshots), SQS/SNS encryption, DynamoDB PITR and deletion protection. */
import { DescribeDBClustersCommand, DescribeDBInstancesCommand, ModifyDBClusterSnapshotAttributeCommand, ModifyDBInstanceCommand, ModifyDBSnapshotAttributeCommand } from "@aws-sdk/client-rds"
import { CreateQueueCommand, GetQueueAttributesCommand, GetQueueUrlCommand, SetQueueAttributesCommand } from "@aws-sdk/client-sqs"
import { GetTopicAttributesCommand } from "@aws-sdk/client-sns"
import { DescribeContinuousBackupsCommand, DescribeTableCommand } from "@aws-sdk/client-dynamodb"
import { awsCall, FixError, sendOptions, type Fixer } from "./fixer.ts"

/**
 * A DB instance setting changed by ModifyDBInstance (applied immediately): `read` answers the instance's current values
 * of exactly the fields `change` sets, `plan` sets them and its undo sets the values read back.
 */
const modifyDb = (checkId: string, description: string, change: Record<string, boolean | number>, done: string, cutsAccess?: string, effects: ReadonlyArray<string> = []): Fixer => ({
  checkIds: [checkId],
  description,
  ...(cutsAccess === undefined ? {} : { cutsAccess }),
  read: async (ctx, row) => {
    const out = await ctx.clients.get("rds", ctx.region).send(new DescribeDBInstancesCommand({ DBInstanceIdentifier: row.resource_id }), sendOptions(ctx))
    const instance = (out.DBInstances?.[0] ?? {}) as Record<string, unknown>
    return Object.fromEntries(Object.keys(change).map((k) => [k, (instance[k] as boolean | number | undefined) ?? null]))
  },
  plan: (ctx, row, state) => {
    const before = state as Readonly<Record<string, boolean | number | null>>
    const restore = Object.fromEntries(Object.entries(before).filter(([, v]) => v !== null))
    const modify = (values: Readonly<Record<string, unknown>>) =>
      awsCall("rds", "ModifyDBInstance", ctx.region, { DBInstanceIdentifier: row.resource_id, ApplyImmediately: true, ...values })
    return {
      calls: [modify(change)],
      effects: [...effects],
      summary: `DB instance ${row.resource_id}: ${done}.`,
      undo: Object.keys(restore).length === Object.keys(change).length
        ? { reversible: true, calls: [modify(restore)] }
        : { reversible: false, reason: `The instance did not report ${Object.keys(change).join(", ")} before the fix.` },
    }
  },
})

/** A cluster setting changed by ModifyDBCluster (applied immediately), read and undone like `modifyDb`. */
const modifyCluster = (checkIds: ReadonlyArray<string>, description: string, change: Record<string, boolean | number>, done: string): Fixer => ({
  checkIds,
  description,
  read: async (ctx, row) => {
    const out = await ctx.clients.get("rds", ctx.region).send(new DescribeDBClustersCommand({ DBClusterIdentifier: row.resource_id }), sendOptions(ctx))
    const cluster = (out.DBClusters?.[0] ?? {}) as Record<string, unknown>
    return Object.fromEntries(Object.keys(change).map((k) => [k, (cluster[k] as boolean | number | undefined) ?? null]))
  },
  plan: (ctx, row, state) => {
    const before = state as Readonly<Record<string, boolean | number | null>>
    const restore = Object.fromEntries(Object.entries(before).filter(([, v]) => v !== null))
    const modify = (values: Readonly<Record<string, unknown>>) =>
      awsCall("rds", "ModifyDBCluster", ctx.region, { DBClusterIdentifier: row.resource_id, ApplyImmediately: true, ...values })
    return {
      calls: [modify(change)],
      effects: [],
      summary: `Cluster ${row.resource_id}: ${done}.`,
      undo: Object.keys(restore).length === Object.keys(change).length
        ? { reversible: true, calls: [modify(restore)] }
        : { reversible: false, reason: `The cluster did not report ${Object.keys(change).join(", ")} before the fix.` },
    }
  },
})

/** Log types each engine family can export (the fix enables the error/audit-style ones). */
const LOG_TYPES: ReadonlyArray<[RegExp, ReadonlyArray<string>]> = [
  [/mysql|mariadb/, ["error", "slowquery"]],
  [/postgres/, ["postgresql"]],
  [/^oracle/, ["alert", "listener"]],
  [/^sqlserver/, ["error", "agent"]],
]

export const dataFixers: ReadonlyArray<Fixer> = [
  {
    checkIds: ["sqs_queues_dead_letter_queue_configured"],
    description: "Creates a dead-letter queue NAME-dlq (14-day retention, same encryption) and redrives messages to it after 5 failed receives.",
    apply: async (ctx, row) => {
      const name = row.resource_id.slice(row.resource_id.lastIndexOf(":") + 1)
      const sqs = ctx.clients.get("sqs", ctx.region)
      const url = (await sqs.send(new GetQueueUrlCommand({ QueueName: name }), sendOptions(ctx))).QueueUrl
      const attrs = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["All"] }), sendOptions(ctx))).Attributes ?? {}
      const fifo = name.endsWith(".fifo")
      const dlqName = fifo ? `${name.slice(0, -5)}-dlq.fifo` : `${name}-dlq`
      const dlqUrl = (
        await sqs.send(
          new CreateQueueCommand({
            QueueName: dlqName,
            Attributes: {
              MessageRetentionPeriod: "1209600",
              ...(fifo ? { FifoQueue: "true" } : {}),
              ...(attrs["KmsMasterKeyId"] ? { KmsMasterKeyId: attrs["KmsMasterKeyId"] } : { SqsManagedSseEnabled: "true" }),
            },
          }),
          sendOptions(ctx),
        )
      ).QueueUrl
      const dlqArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ["QueueArn"] }), sendOptions(ctx))).Attributes?.["QueueArn"]
      if (dlqArn === undefined) throw new FixError(`Queue ${dlqName} has no ARN`)
      await sqs.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes: { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 5 }) } }), sendOptions(ctx))
      return `Queue ${name} redrives to ${dlqName} after 5 receives.`
    },
  },
  modifyDb("rds_instance_copy_tags_to_snapshots", "Makes the DB instance copy its tags to new snapshots.", { CopyTagsToSnapshot: true }, "tags are copied to snapshots"),
  {
    checkIds: ["rds_instance_integration_cloudwatch_logs"],
    description: "Exports the engine's error logs (error/slow query for MySQL and MariaDB, postgresql for PostgreSQL, alert/listener for Oracle, error/agent for SQL Server) to CloudWatch Logs.",
    apply: async (ctx, row) => {
      const engine = typeof row["engine"] === "string" ? row["engine"] : ""
      const types = LOG_TYPES.find(([re]) => re.test(engine))?.[1]
      if (types === undefined) throw new FixError(`No log types known for engine ${engine}`)
      await ctx.clients
        .get("rds", ctx.region)
        .send(new ModifyDBInstanceCommand({ DBInstanceIdentifier: row.resource_id, ApplyImmediately: true, CloudwatchLogsExportConfiguration: { EnableLogTypes: [...types] } }), sendOptions(ctx))
      return `DB instance ${row.resource_id} exports ${types.join(", ")} logs.`
    },
  },
  modifyCluster(["rds_cluster_deletion_protection", "neptune_cluster_deletion_protection"], "Enables deletion protection on the cluster.", { DeletionProtection: true }, "deletion protection enabled"),
  modifyCluster(["rds_cluster_copy_tags_to_snapshots", "neptune_cluster_copy_tags_to_snapshots"], "Makes the cluster copy its tags to new snapshots.", { CopyTagsToSnapshot: true }, "tags are copied to snapshots"),
  modifyCluster(["neptune_cluster_backup_retention_7_days"], "Sets the automated backup retention of the cluster to 7 days.", { BackupRetentionPeriod: 7 }, "backups kept for 7 days"),
  {
    checkIds: ["rds_cluster_snapshots_public_access"],
    description: "Removes 'all' from the cluster snapshot's restore attribute.",
    cutsAccess: "Other accounts can no longer restore this cluster snapshot.",
    apply: async (ctx, row) => {
      await ctx.clients
        .get("rds", ctx.region)
        .send(new ModifyDBClusterSnapshotAttributeCommand({ DBClusterSnapshotIdentifier: row.resource_id, AttributeName: "restore", ValuesToRemove: ["all"] }), sendOptions(ctx))
      return `Cluster snapshot ${row.resource_id} is private.`
    },
  },
  modifyDb(
    "rds_instance_no_public_access",
    "Turns off PubliclyAccessible on the DB instance (applied immediately).",
    { PubliclyAccessible: false },
    "no longer publicly accessible",
    "Clients connecting from outside the VPC (over the internet) lose access to the database.",
    ["The instance's endpoint resolves to its private address only; the change is applied at once, not in the maintenance window."],
  ),
  modifyDb("rds_instance_minor_version_upgrade_enabled", "Enables automatic minor engine version upgrades (during the maintenance window).", { AutoMinorVersionUpgrade: true }, "minor versions upgrade automatically"),
  modifyDb("rds_instance_backup_enabled", "Sets the automated backup retention to 7 days.", { BackupRetentionPeriod: 7 }, "backups kept for 7 days"),
  modifyDb("rds_instance_deletion_protection", "Enables deletion protection.", { DeletionProtection: true }, "deletion protection enabled"),
  {
    checkIds: ["rds_snapshots_public_access"],
    description: "Removes 'all' from the snapshot's restore attribute.",
    cutsAccess: "Other accounts can no longer restore this snapshot.",
    apply: async (ctx, row) => {
      await ctx.clients.get("rds", ctx.region).send(new ModifyDBSnapshotAttributeCommand({ DBSnapshotIdentifier: row.resource_id, AttributeName: "restore", ValuesToRemove: ["all"] }), sendOptions(ctx))
      return `Snapshot ${row.resource_id} is private.`
    },
  },
  {
    checkIds: ["sqs_queues_server_side_encryption_enabled"],
    description: "Enables SQS-managed server-side encryption (SSE-SQS) on the queue.",
    apply: async (ctx, row) => {
      const name = row.resource_id.slice(row.resource_id.lastIndexOf(":") + 1)
      const sqs = ctx.clients.get("sqs", ctx.region)
      const url = (await sqs.send(new GetQueueUrlCommand({ QueueName: name }), sendOptions(ctx))).QueueUrl
      await sqs.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes: { SqsManagedSseEnabled: "true" } }), sendOptions(ctx))
      return `Queue ${name} is encrypted with SSE-SQS.`
    },
  },
  {
    checkIds: ["sns_topics_kms_encryption_at_rest_enabled"],
    description: "Encrypts the topic with the AWS managed key alias/aws/sns.",
    cutsAccess: "Publishers from other AWS services (e.g. CloudWatch alarms, S3 events) need kms:GenerateDataKey/Decrypt on the key; with aws/sns they cannot, so use a customer managed key for those topics.",
    read: async (ctx, row) => {
      const out = await ctx.clients.get("sns", ctx.region).send(new GetTopicAttributesCommand({ TopicArn: row.resource_id }), sendOptions(ctx))
      return { KmsMasterKeyId: out.Attributes?.["KmsMasterKeyId"] ?? null }
    },
    plan: (ctx, row, state) => {
      const before = (state as { KmsMasterKeyId: string | null }).KmsMasterKeyId
      const set = (value: string) => awsCall("sns", "SetTopicAttributes", ctx.region, { TopicArn: row.resource_id, AttributeName: "KmsMasterKeyId", AttributeValue: value })
      return {
        calls: [set("alias/aws/sns")],
        effects: ["Messages are encrypted at rest with aws/sns; AWS services publishing to the topic need a customer managed key instead."],
        summary: `Topic ${row.resource_id} is encrypted with aws/sns.`,
        undo: { reversible: true, calls: [set(before ?? "")], ...(before === null ? { note: "An empty key id turns encryption off again." } : {}) },
      }
    },
  },
  {
    checkIds: ["dynamodb_tables_pitr_enabled", "dynamodb_table_backed_up"],
    description: "Enables point-in-time recovery (continuous backups) on the table.",
    read: async (ctx, row) => {
      const out = await ctx.clients.get("dynamodb", ctx.region).send(new DescribeContinuousBackupsCommand({ TableName: row.resource_id }), sendOptions(ctx))
      return { PointInTimeRecoveryStatus: out.ContinuousBackupsDescription?.PointInTimeRecoveryDescription?.PointInTimeRecoveryStatus ?? null }
    },
    plan: (ctx, row, state) => {
      const before = (state as { PointInTimeRecoveryStatus: string | null }).PointInTimeRecoveryStatus
      const set = (enabled: boolean) =>
        awsCall("dynamodb", "UpdateContinuousBackups", ctx.region, { TableName: row.resource_id, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: enabled } })
      return {
        calls: [set(true)],
        effects: ["Continuous backups are billed by the table's size; the table can be restored to any second of the last 35 days."],
        summary: `Table ${row.resource_id} has point-in-time recovery.`,
        undo: { reversible: true, calls: [set(before === "ENABLED")], note: "Turning point-in-time recovery off again drops the restore window built meanwhile." },
      }
    },
  },
  {
    checkIds: ["dynamodb_table_deletion_protection_enabled"],
    description: "Enables deletion protection on the table.",
    read: async (ctx, row) => {
      const out = await ctx.clients.get("dynamodb", ctx.region).send(new DescribeTableCommand({ TableName: row.resource_id }), sendOptions(ctx))
      return { DeletionProtectionEnabled: out.Table?.DeletionProtectionEnabled ?? false }
    },
    plan: (ctx, row, state) => {
      const before = (state as { DeletionProtectionEnabled: boolean }).DeletionProtectionEnabled
      const set = (enabled: boolean) => awsCall("dynamodb", "UpdateTable", ctx.region, { TableName: row.resource_id, DeletionProtectionEnabled: enabled })
      return {
        calls: [set(true)],
        effects: ["DeleteTable on this table is refused until deletion protection is turned off again (for instance by CloudFormation or Terraform stacks that replace it)."],
        summary: `Table ${row.resource_id} has deletion protection.`,
        undo: { reversible: true, calls: [set(before)] },
      }
    },
  },
]
