/** Data-store fixers: RDS (public access, minor upgrades, backups, deletion protection, public snapshots), SQS/SNS encryption, DynamoDB PITR and deletion protection. */
import { DescribeDBClusterSnapshotAttributesCommand, DescribeDBClustersCommand, DescribeDBInstancesCommand, DescribeDBSnapshotAttributesCommand } from "@aws-sdk/client-rds"
import { GetQueueAttributesCommand, GetQueueUrlCommand } from "@aws-sdk/client-sqs"
import { GetTopicAttributesCommand } from "@aws-sdk/client-sns"
import { DescribeContinuousBackupsCommand, DescribeTableCommand } from "@aws-sdk/client-dynamodb"
import { ref } from "../plan.ts"
import { awsCall, FixError, isAbsent, registerTerraform, sendOptions, tfBlock, tfName, type FixContext, type Fixer } from "./fixer.ts"
import type { DetailRow } from "../../scanner/check.ts"

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

/** The queue's name (the last part of its ARN) and URL. */
const queueOf = async (ctx: FixContext, row: DetailRow): Promise<{ name: string; url: string }> => {
  const name = row.resource_id.slice(row.resource_id.lastIndexOf(":") + 1)
  const url = (await ctx.clients.get("sqs", ctx.region).send(new GetQueueUrlCommand({ QueueName: name }), sendOptions(ctx))).QueueUrl
  if (url === undefined) throw new FixError(`Queue ${name} has no URL`)
  return { name, url }
}

const queueAttributes = async (ctx: FixContext, url: string): Promise<Record<string, string>> =>
  (await ctx.clients.get("sqs", ctx.region).send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["All"] }), sendOptions(ctx))).Attributes ?? {}

/** The dead-letter queue name the fix uses for a queue (FIFO queues need a FIFO dead-letter queue). */
const dlqNameOf = (name: string): string => (name.endsWith(".fifo") ? `${name.slice(0, -5)}-dlq.fifo` : `${name}-dlq`)

/**
 * A snapshot's "restore" attribute (the accounts that may restore it, "all" for public): `read` answers the values,
 * the fix removes "all" and the undo adds it back when it was there.
 */
const snapshotRestore = (kind: "instance" | "cluster"): Fixer => {
  const idParam = kind === "instance" ? "DBSnapshotIdentifier" : "DBClusterSnapshotIdentifier"
  const operation = kind === "instance" ? "ModifyDBSnapshotAttribute" : "ModifyDBClusterSnapshotAttribute"
  const label = kind === "instance" ? "Snapshot" : "Cluster snapshot"
  return {
    checkIds: [kind === "instance" ? "rds_snapshots_public_access" : "rds_cluster_snapshots_public_access"],
    description: `Removes 'all' from the ${kind === "instance" ? "" : "cluster "}snapshot's restore attribute.`,
    cutsAccess: `Other accounts can no longer restore this ${kind === "instance" ? "" : "cluster "}snapshot.`,
    read: async (ctx, row) => {
      const rds = ctx.clients.get("rds", ctx.region)
      const attrs =
        kind === "instance"
          ? (await rds.send(new DescribeDBSnapshotAttributesCommand({ DBSnapshotIdentifier: row.resource_id }), sendOptions(ctx))).DBSnapshotAttributesResult?.DBSnapshotAttributes
          : (await rds.send(new DescribeDBClusterSnapshotAttributesCommand({ DBClusterSnapshotIdentifier: row.resource_id }), sendOptions(ctx))).DBClusterSnapshotAttributesResult?.DBClusterSnapshotAttributes
      const restore = (attrs ?? []).find((a) => a.AttributeName === "restore")?.AttributeValues ?? []
      return { restore: [...restore].sort() }
    },
    plan: (ctx, row, state) => {
      const before = (state as { restore: ReadonlyArray<string> }).restore
      const modify = (change: Record<string, ReadonlyArray<string>>) => awsCall("rds", operation, ctx.region, { [idParam]: row.resource_id, AttributeName: "restore", ...change })
      const accounts = before.filter((v) => v !== "all")
      return {
        calls: [modify({ ValuesToRemove: ["all"] })],
        effects: [
          accounts.length === 0
            ? "No account is named in the restore attribute: only this account can restore the snapshot afterwards."
            : `The accounts named in the restore attribute keep access: ${accounts.join(", ")}.`,
        ],
        summary: `${label} ${row.resource_id} is private.`,
        undo: before.includes("all") ? { reversible: true, calls: [modify({ ValuesToAdd: ["all"] })] } : { reversible: true, calls: [], note: "The snapshot was not public before the fix." },
      }
    },
  }
}

registerTerraform("rds", "ModifyDBInstance", (call) => {
  const p = call.params as Record<string, unknown>
  const attrs: Array<readonly [string, unknown]> = [["identifier", p["DBInstanceIdentifier"]], ["apply_immediately", true]]
  const names: Readonly<Record<string, string>> = { DeletionProtection: "deletion_protection", PubliclyAccessible: "publicly_accessible", AutoMinorVersionUpgrade: "auto_minor_version_upgrade", BackupRetentionPeriod: "backup_retention_period", CopyTagsToSnapshot: "copy_tags_to_snapshot" }
  for (const [k, v] of Object.entries(p)) if (names[k] !== undefined) attrs.push([names[k], v])
  const logs = p["CloudwatchLogsExportConfiguration"] as { EnableLogTypes?: ReadonlyArray<string> } | undefined
  if (logs?.EnableLogTypes !== undefined) attrs.push(["enabled_cloudwatch_logs_exports", logs.EnableLogTypes])
  return `# Set on the existing aws_db_instance (other arguments unchanged):\n${tfBlock("resource", "aws_db_instance", tfName(String(p["DBInstanceIdentifier"])), attrs)}`
})
registerTerraform("sqs", "SetQueueAttributes", (call) => {
  const p = call.params as { QueueUrl: unknown; Attributes: Record<string, string> }
  const attrs: Array<readonly [string, unknown]> = [["url", p.QueueUrl]]
  if (p.Attributes["SqsManagedSseEnabled"] !== undefined) attrs.push(["sqs_managed_sse_enabled", p.Attributes["SqsManagedSseEnabled"] === "true"])
  if (p.Attributes["RedrivePolicy"] !== undefined) attrs.push(["redrive_policy", p.Attributes["RedrivePolicy"]])
  return `# Set on the existing aws_sqs_queue (other arguments unchanged):\n${tfBlock("resource", "aws_sqs_queue", "queue", attrs)}`
})
registerTerraform("sqs", "CreateQueue", (call) => {
  const p = call.params as { QueueName: string; Attributes: Record<string, string> }
  return tfBlock("resource", "aws_sqs_queue", tfName(p.QueueName), [
    ["name", p.QueueName],
    ["message_retention_seconds", Number(p.Attributes["MessageRetentionPeriod"])],
    ...(p.Attributes["FifoQueue"] === "true" ? [["fifo_queue", true] as const] : []),
    ...(p.Attributes["KmsMasterKeyId"] !== undefined ? [["kms_master_key_id", p.Attributes["KmsMasterKeyId"]] as const] : [["sqs_managed_sse_enabled", true] as const]),
  ])
})

export const dataFixers: ReadonlyArray<Fixer> = [
  {
    checkIds: ["sqs_queues_dead_letter_queue_configured"],
    description: "Creates a dead-letter queue NAME-dlq (14-day retention, same encryption) and redrives messages to it after 5 failed receives.",
    read: async (ctx, row) => {
      const { name, url } = await queueOf(ctx, row)
      const attrs = await queueAttributes(ctx, url)
      let dlq: string | null = null
      try {
        dlq = (await ctx.clients.get("sqs", ctx.region).send(new GetQueueUrlCommand({ QueueName: dlqNameOf(name) }), sendOptions(ctx))).QueueUrl ?? null
      } catch (error) {
        if (!isAbsent(error, "AWS.SimpleQueueService.NonExistentQueue", "QueueDoesNotExist")) throw error
      }
      return { QueueUrl: url, KmsMasterKeyId: attrs["KmsMasterKeyId"] ?? null, RedrivePolicy: attrs["RedrivePolicy"] ?? null, DeadLetterQueueUrl: dlq }
    },
    plan: (ctx, row, state) => {
      const before = state as { QueueUrl: string; KmsMasterKeyId: string | null; RedrivePolicy: string | null; DeadLetterQueueUrl: string | null }
      const name = row.resource_id.slice(row.resource_id.lastIndexOf(":") + 1)
      const fifo = name.endsWith(".fifo")
      const dlqName = dlqNameOf(name)
      const dlqArn = `arn:${ctx.partition}:sqs:${ctx.region}:${ctx.accountId}:${dlqName}`
      const redrive = (policy: string) => awsCall("sqs", "SetQueueAttributes", ctx.region, { QueueUrl: before.QueueUrl, Attributes: { RedrivePolicy: policy } })
      const created = before.DeadLetterQueueUrl === null
      return {
        calls: [
          awsCall("sqs", "CreateQueue", ctx.region, {
            QueueName: dlqName,
            Attributes: {
              MessageRetentionPeriod: "1209600",
              ...(fifo ? { FifoQueue: "true" } : {}),
              ...(before.KmsMasterKeyId !== null ? { KmsMasterKeyId: before.KmsMasterKeyId } : { SqsManagedSseEnabled: "true" }),
            },
          }),
          redrive(JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 5 })),
        ],
        effects: [
          created ? `A new queue ${dlqName} is created (billed like any queue).` : `The existing queue ${dlqName} becomes the dead-letter queue.`,
          "A message received 5 times without being deleted moves to the dead-letter queue instead of being retried.",
          ...(before.RedrivePolicy !== null ? [`The queue's current redrive policy is replaced: ${before.RedrivePolicy}.`] : []),
        ],
        summary: `Queue ${name} redrives to ${dlqName} after 5 receives.`,
        undo: {
          reversible: true,
          calls: [redrive(before.RedrivePolicy ?? ""), ...(created ? [awsCall("sqs", "DeleteQueue", ctx.region, { QueueUrl: ref(0, "QueueUrl") })] : [])],
          note: created
            ? `The undo deletes ${dlqName} with the messages it holds; AWS refuses a new queue of that name for 60 seconds afterwards.`
            : "An empty redrive policy removes it.",
        },
      }
    },
  },
  modifyDb("rds_instance_copy_tags_to_snapshots", "Makes the DB instance copy its tags to new snapshots.", { CopyTagsToSnapshot: true }, "tags are copied to snapshots"),
  {
    checkIds: ["rds_instance_integration_cloudwatch_logs"],
    description: "Exports the engine's error logs (error/slow query for MySQL and MariaDB, postgresql for PostgreSQL, alert/listener for Oracle, error/agent for SQL Server) to CloudWatch Logs.",
    read: async (ctx, row) => {
      const out = await ctx.clients.get("rds", ctx.region).send(new DescribeDBInstancesCommand({ DBInstanceIdentifier: row.resource_id }), sendOptions(ctx))
      const instance = out.DBInstances?.[0]
      return { Engine: instance?.Engine ?? null, EnabledCloudwatchLogsExports: [...(instance?.EnabledCloudwatchLogsExports ?? [])].sort() }
    },
    plan: (ctx, row, state) => {
      const before = state as { Engine: string | null; EnabledCloudwatchLogsExports: ReadonlyArray<string> }
      const engine = before.Engine ?? (typeof row["engine"] === "string" ? row["engine"] : "")
      const types = LOG_TYPES.find(([re]) => re.test(engine))?.[1]
      if (types === undefined) throw new FixError(`No log types known for engine ${engine}`)
      const added = types.filter((t) => !before.EnabledCloudwatchLogsExports.includes(t))
      const modify = (config: Record<string, ReadonlyArray<string>>) =>
        awsCall("rds", "ModifyDBInstance", ctx.region, { DBInstanceIdentifier: row.resource_id, ApplyImmediately: true, CloudwatchLogsExportConfiguration: config })
      return {
        calls: [modify({ EnableLogTypes: added })],
        effects: [`The ${added.join(", ")} logs are sent to the log groups /aws/rds/instance/${row.resource_id}/<type> (CloudWatch Logs ingestion and storage are billed).`],
        summary: `DB instance ${row.resource_id} exports ${types.join(", ")} logs.`,
        undo: { reversible: true, calls: [modify({ DisableLogTypes: added })], note: "The log groups and the logs already exported stay in CloudWatch Logs." },
      }
    },
  },
  modifyCluster(["rds_cluster_deletion_protection", "neptune_cluster_deletion_protection"], "Enables deletion protection on the cluster.", { DeletionProtection: true }, "deletion protection enabled"),
  modifyCluster(["rds_cluster_copy_tags_to_snapshots", "neptune_cluster_copy_tags_to_snapshots"], "Makes the cluster copy its tags to new snapshots.", { CopyTagsToSnapshot: true }, "tags are copied to snapshots"),
  modifyCluster(["neptune_cluster_backup_retention_7_days"], "Sets the automated backup retention of the cluster to 7 days.", { BackupRetentionPeriod: 7 }, "backups kept for 7 days"),
  snapshotRestore("cluster"),
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
  snapshotRestore("instance"),
  {
    checkIds: ["sqs_queues_server_side_encryption_enabled"],
    description: "Enables SQS-managed server-side encryption (SSE-SQS) on the queue.",
    read: async (ctx, row) => {
      const { url } = await queueOf(ctx, row)
      const attrs = await queueAttributes(ctx, url)
      return { QueueUrl: url, SqsManagedSseEnabled: attrs["SqsManagedSseEnabled"] ?? "false", KmsMasterKeyId: attrs["KmsMasterKeyId"] ?? null }
    },
    plan: (ctx, row, state) => {
      const before = state as { QueueUrl: string; SqsManagedSseEnabled: string }
      const set = (value: string) => awsCall("sqs", "SetQueueAttributes", ctx.region, { QueueUrl: before.QueueUrl, Attributes: { SqsManagedSseEnabled: value } })
      return {
        calls: [set("true")],
        effects: ["Messages sent from now on are encrypted at rest with an SQS owned key; producers and consumers need no KMS permission."],
        summary: `Queue ${row.resource_id.slice(row.resource_id.lastIndexOf(":") + 1)} is encrypted with SSE-SQS.`,
        undo: { reversible: true, calls: [set(before.SqsManagedSseEnabled)], note: "Messages already encrypted stay readable after the undo." },
      }
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
