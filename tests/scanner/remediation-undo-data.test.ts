/**
 * Issue 32 on moto, the data-store fixers converted to the plan vocabulary (server/remediation/aws/data.ts): DynamoDB
 * point-in-time recovery and deletion protection, and the RDS instance settings (deletion protection, public access,
 * minor version upgrades, backup retention, tags copied to snapshots), the RDS and Neptune cluster settings and SNS topic
 * encryption. For each, the preview changes nothing (the table's full state and
 * the fixer's state are identical before and after it), apply is verified by a re-scan, and undo restores the state
 * before the fix field by field (a fresh scan fails the table again) — `expectRoundTrip` (./helpers.ts).
 * Also the SQS dead-letter queue (created, then deleted by the undo) and SSE-SQS, RDS CloudWatch log exports and public
 * DB / cluster snapshots. Apply and undo seconds of each are printed (`timing`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CreateTableCommand, DescribeContinuousBackupsCommand, DescribeTableCommand } from "@aws-sdk/client-dynamodb"
import {
  CreateDBClusterCommand, CreateDBClusterSnapshotCommand, CreateDBInstanceCommand, CreateDBSnapshotCommand, DescribeDBClusterSnapshotAttributesCommand, DescribeDBClustersCommand,
  DescribeDBInstancesCommand, DescribeDBSnapshotAttributesCommand, ModifyDBClusterSnapshotAttributeCommand, ModifyDBSnapshotAttributeCommand,
} from "@aws-sdk/client-rds"
import { CreateQueueCommand, GetQueueAttributesCommand, GetQueueUrlCommand, ListQueuesCommand } from "@aws-sdk/client-sqs"
import { CreateTopicCommand, GetTopicAttributesCommand } from "@aws-sdk/client-sns"
import { remediableChecks } from "../../server/remediation/aws/remediate.ts"
import type { AwsClients } from "../../server/scanner/aws/clients.ts"
import { startMoto, type Moto } from "../support/moto.ts"
import { ACCOUNT, expectRoundTrip, seedClients, type RoundTrip } from "./helpers.ts"

const E = "us-east-1"

describe("data-store fixers: preview and undo on moto (issue 32)", () => {
  let moto: Moto
  let c: AwsClients
  let topicArn = ""
  const tableState = (name: string) => async () => {
    const ddb = c.get("dynamodb", E)
    const table = (await ddb.send(new DescribeTableCommand({ TableName: name }))).Table
    const backups = (await ddb.send(new DescribeContinuousBackupsCommand({ TableName: name }))).ContinuousBackupsDescription
    return {
      status: table?.TableStatus,
      deletion_protection: table?.DeletionProtectionEnabled ?? false,
      pitr: backups?.PointInTimeRecoveryDescription?.PointInTimeRecoveryStatus ?? null,
      keys: table?.KeySchema,
    }
  }

  const instanceState = (id: string) => async () => {
    const db = (await c.get("rds", E).send(new DescribeDBInstancesCommand({ DBInstanceIdentifier: id }))).DBInstances?.[0]
    return {
      status: db?.DBInstanceStatus,
      deletion_protection: db?.DeletionProtection,
      public: db?.PubliclyAccessible,
      minor: db?.AutoMinorVersionUpgrade,
      retention: db?.BackupRetentionPeriod,
      copy_tags: db?.CopyTagsToSnapshot,
      engine: db?.Engine,
    }
  }

  const timing = (check: string, r: RoundTrip) => console.info(`round trip ${check}: apply ${r.applySeconds.toFixed(2)} s, undo ${r.undoSeconds.toFixed(2)} s`)
  const queueState = (name: string) => async () => {
    const sqs = c.get("sqs", E)
    const url = (await sqs.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl
    const attrs = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["All"] }))).Attributes ?? {}
    const { LastModifiedTimestamp: _t, ...rest } = attrs
    const queues = ((await sqs.send(new ListQueuesCommand({}))).QueueUrls ?? []).sort()
    return { ...rest, queues }
  }

  beforeAll(async () => {
    moto = await startMoto()
    c = seedClients(moto)
    await c.get("sqs", E).send(new CreateQueueCommand({ QueueName: "u-plain-q", Attributes: { SqsManagedSseEnabled: "false" } }))
    await c.get("sqs", E).send(new CreateQueueCommand({ QueueName: "u-work-q" }))
    await c.get("rds", E).send(new CreateDBClusterCommand({
      DBClusterIdentifier: "u-cluster", Engine: "aurora-postgresql", MasterUsername: "dbadmin", MasterUserPassword: "not-a-real-secret-1",
      DeletionProtection: false, CopyTagsToSnapshot: false,
    }))
    await c.get("rds", E).send(new CreateDBClusterCommand({ DBClusterIdentifier: "u-graph", Engine: "neptune", DeletionProtection: false, CopyTagsToSnapshot: false, BackupRetentionPeriod: 1 }))
    topicArn = (await c.get("sns", E).send(new CreateTopicCommand({ Name: "u-alerts" }))).TopicArn ?? ""
    await c.get("rds", E).send(new CreateDBInstanceCommand({
      DBInstanceIdentifier: "u-db", Engine: "postgres", DBInstanceClass: "db.t3.micro", AllocatedStorage: 20,
      MasterUsername: "dbadmin", MasterUserPassword: "not-a-real-secret-1", PubliclyAccessible: true, AutoMinorVersionUpgrade: false,
      BackupRetentionPeriod: 0, DeletionProtection: false, CopyTagsToSnapshot: false,
    }))
    await c.get("rds", E).send(new CreateDBSnapshotCommand({ DBInstanceIdentifier: "u-db", DBSnapshotIdentifier: "u-snap" }))
    await c.get("rds", E).send(new ModifyDBSnapshotAttributeCommand({ DBSnapshotIdentifier: "u-snap", AttributeName: "restore", ValuesToAdd: ["all", "123456789012"] }))
    await c.get("rds", E).send(new CreateDBClusterSnapshotCommand({ DBClusterIdentifier: "u-cluster", DBClusterSnapshotIdentifier: "u-csnap" }))
    await c.get("rds", E).send(new ModifyDBClusterSnapshotAttributeCommand({ DBClusterSnapshotIdentifier: "u-csnap", AttributeName: "restore", ValuesToAdd: ["all"] }))
    for (const name of ["u-ddb-pitr", "u-ddb-protect"]) {
      await c.get("dynamodb", E).send(new CreateTableCommand({
        TableName: name,
        KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
        AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
        BillingMode: "PAY_PER_REQUEST",
      }))
    }
  }, 120_000)
  afterAll(async () => {
    c?.destroy()
    await moto?.stop()
  })

  it("DynamoDB point-in-time recovery: turned on, then off again by the undo", { timeout: 120_000 }, async () => {
    const r = await expectRoundTrip(moto, "dynamodb", "dynamodb_tables_pitr_enabled", "u-ddb-pitr", tableState("u-ddb-pitr"))
    expect(r.preview.calls.map((call) => call.operation)).toEqual(["UpdateContinuousBackups"])
    expect(r.result.pre_image).toEqual({ PointInTimeRecoveryStatus: "DISABLED" })
    expect(r.result.post_image).toEqual({ PointInTimeRecoveryStatus: "ENABLED" })
  })

  it("DynamoDB deletion protection: turned on, then off again by the undo", { timeout: 120_000 }, async () => {
    const r = await expectRoundTrip(moto, "dynamodb", "dynamodb_table_deletion_protection_enabled", "u-ddb-protect", tableState("u-ddb-protect"))
    expect(r.preview.calls.map((call) => call.operation)).toEqual(["UpdateTable"])
    expect(r.result.pre_image).toEqual({ DeletionProtectionEnabled: false })
    expect(r.result.post_image).toEqual({ DeletionProtectionEnabled: true })
  })

  it("RDS instance: deletion protection, public access, minor upgrades, backups, tags to snapshots — each undone to the value read", { timeout: 240_000 }, async () => {
    const cases: ReadonlyArray<readonly [string, Record<string, unknown>, Record<string, unknown>]> = [
      ["rds_instance_deletion_protection", { DeletionProtection: false }, { DeletionProtection: true }],
      ["rds_instance_no_public_access", { PubliclyAccessible: true }, { PubliclyAccessible: false }],
      ["rds_instance_minor_version_upgrade_enabled", { AutoMinorVersionUpgrade: false }, { AutoMinorVersionUpgrade: true }],
      ["rds_instance_backup_enabled", { BackupRetentionPeriod: 0 }, { BackupRetentionPeriod: 7 }],
      ["rds_instance_copy_tags_to_snapshots", { CopyTagsToSnapshot: false }, { CopyTagsToSnapshot: true }],
    ]
    for (const [check, before, after] of cases) {
      const r = await expectRoundTrip(moto, "rds", check, "u-db", instanceState("u-db"))
      expect(r.preview.calls.map((call) => call.operation), check).toEqual(["ModifyDBInstance"])
      expect(r.result.pre_image, check).toEqual(before)
      expect(r.result.post_image, check).toEqual(after)
    }
  })

  it("RDS cluster: deletion protection and tags to snapshots, each undone to the value read", { timeout: 120_000 }, async () => {
    const clusterState = async () => {
      const cl = (await c.get("rds", E).send(new DescribeDBClustersCommand({ DBClusterIdentifier: "u-cluster" }))).DBClusters?.[0]
      return { status: cl?.Status, deletion_protection: cl?.DeletionProtection, copy_tags: cl?.CopyTagsToSnapshot, engine: cl?.Engine }
    }
    for (const [check, field] of [["rds_cluster_deletion_protection", "DeletionProtection"], ["rds_cluster_copy_tags_to_snapshots", "CopyTagsToSnapshot"]] as const) {
      const r = await expectRoundTrip(moto, "rds", check, "u-cluster", clusterState)
      expect(r.preview.calls.map((call) => call.operation), check).toEqual(["ModifyDBCluster"])
      expect(r.result.pre_image, check).toEqual({ [field]: false })
      expect(r.result.post_image, check).toEqual({ [field]: true })
    }
  })

  it("Neptune cluster (the RDS API): deletion protection, tags to snapshots, 7-day backups, each undone to the value read", { timeout: 120_000 }, async () => {
    const graphState = async () => {
      const cl = (await c.get("rds", E).send(new DescribeDBClustersCommand({ DBClusterIdentifier: "u-graph" }))).DBClusters?.[0]
      return { deletion_protection: cl?.DeletionProtection, copy_tags: cl?.CopyTagsToSnapshot, retention: cl?.BackupRetentionPeriod }
    }
    const cases = [
      ["neptune_cluster_deletion_protection", { DeletionProtection: false }],
      ["neptune_cluster_copy_tags_to_snapshots", { CopyTagsToSnapshot: false }],
      ["neptune_cluster_backup_retention_7_days", { BackupRetentionPeriod: 1 }],
    ] as const
    for (const [check, before] of cases) {
      const r = await expectRoundTrip(moto, "neptune", check, "u-graph", graphState)
      expect(r.result.pre_image, check).toEqual(before)
    }
  })

  it("SNS topic encryption: aws/sns on, then the key id read before (none) by the undo", { timeout: 120_000 }, async () => {
    const topicState = async () => {
      const { $metadata: _m, ...rest } = await c.get("sns", E).send(new GetTopicAttributesCommand({ TopicArn: topicArn }))
      return rest
    }
    const r = await expectRoundTrip(moto, "sns", "sns_topics_kms_encryption_at_rest_enabled", topicArn, topicState)
    expect(r.preview.calls.map((call) => call.operation)).toEqual(["SetTopicAttributes"])
    expect(r.result.pre_image).toEqual({ KmsMasterKeyId: null })
    expect(r.result.post_image).toEqual({ KmsMasterKeyId: "alias/aws/sns" })
  })

  it("SQS encryption: SSE-SQS on, then off again by the undo", { timeout: 120_000 }, async () => {
    const check = "sqs_queues_server_side_encryption_enabled"
    const r = await expectRoundTrip(moto, "sqs", check, `arn:aws:sqs:${E}:${ACCOUNT}:u-plain-q`, queueState("u-plain-q"))
    timing(check, r)
    expect(r.preview.calls.map((call) => call.operation)).toEqual(["SetQueueAttributes"])
    expect(r.result.pre_image).toMatchObject({ SqsManagedSseEnabled: "false" })
    expect(r.result.post_image).toMatchObject({ SqsManagedSseEnabled: "true" })
  })

  it("SQS dead-letter queue: created and redriven to, then the redrive policy removed and the queue deleted by the undo", { timeout: 120_000 }, async () => {
    const check = "sqs_queues_dead_letter_queue_configured"
    const r = await expectRoundTrip(moto, "sqs", check, `arn:aws:sqs:${E}:${ACCOUNT}:u-work-q`, queueState("u-work-q"))
    timing(check, r)
    expect(r.preview.calls.map((call) => call.operation)).toEqual(["CreateQueue", "SetQueueAttributes"])
    expect(r.preview.reversible).toBe(true)
    expect(r.result.pre_image).toMatchObject({ RedrivePolicy: null, DeadLetterQueueUrl: null })
    expect(r.result.post_image).toMatchObject({ DeadLetterQueueUrl: expect.stringContaining("u-work-q-dlq") })
    expect((await queueState("u-work-q")()).queues.some((u) => u.endsWith("/u-work-q-dlq"))).toBe(false)
  })

  it("RDS CloudWatch log exports: postgresql exported, then no longer by the undo", { timeout: 120_000 }, async () => {
    const check = "rds_instance_integration_cloudwatch_logs"
    const logsState = async () => ({ ...(await instanceState("u-db")()), exports: (await c.get("rds", E).send(new DescribeDBInstancesCommand({ DBInstanceIdentifier: "u-db" }))).DBInstances?.[0]?.EnabledCloudwatchLogsExports ?? [] })
    const r = await expectRoundTrip(moto, "rds", check, "u-db", logsState)
    timing(check, r)
    expect(r.preview.calls.map((call) => call.params)).toEqual([{ DBInstanceIdentifier: "u-db", ApplyImmediately: true, CloudwatchLogsExportConfiguration: { EnableLogTypes: ["postgresql"] } }])
    expect(r.result.pre_image).toEqual({ Engine: "postgres", EnabledCloudwatchLogsExports: [] })
    expect(r.result.post_image).toEqual({ Engine: "postgres", EnabledCloudwatchLogsExports: ["postgresql"] })
  })

  it("public DB snapshot and cluster snapshot: 'all' removed (named accounts kept), then added back by the undo", { timeout: 120_000 }, async () => {
    const snapState = async () =>
      (await c.get("rds", E).send(new DescribeDBSnapshotAttributesCommand({ DBSnapshotIdentifier: "u-snap" }))).DBSnapshotAttributesResult?.DBSnapshotAttributes
    const r = await expectRoundTrip(moto, "rds", "rds_snapshots_public_access", "u-snap", snapState)
    timing("rds_snapshots_public_access", r)
    expect(r.preview.calls.map((call) => call.operation)).toEqual(["ModifyDBSnapshotAttribute"])
    expect(r.preview.effects.join(" ")).toContain("123456789012")
    expect(r.result.pre_image).toEqual({ restore: ["123456789012", "all"] })
    expect(r.result.post_image).toEqual({ restore: ["123456789012"] })
    const clusterSnapState = async () =>
      (await c.get("rds", E).send(new DescribeDBClusterSnapshotAttributesCommand({ DBClusterSnapshotIdentifier: "u-csnap" }))).DBClusterSnapshotAttributesResult?.DBClusterSnapshotAttributes
    const rc = await expectRoundTrip(moto, "rds", "rds_cluster_snapshots_public_access", "u-csnap", clusterSnapState)
    timing("rds_cluster_snapshots_public_access", rc)
    expect(rc.preview.calls.map((call) => call.operation)).toEqual(["ModifyDBClusterSnapshotAttribute"])
    expect(rc.result.pre_image).toEqual({ restore: ["all"] })
    expect(rc.result.post_image).toEqual({ restore: [] })
  })

  it("lists both DynamoDB fixes as previewable", () => {
    const previewable = remediableChecks().filter((r) => r.previewable).map((r) => r.checkId)
    for (const check of ["dynamodb_tables_pitr_enabled", "dynamodb_table_backed_up", "dynamodb_table_deletion_protection_enabled", "rds_instance_deletion_protection", "rds_instance_no_public_access"]) expect(previewable).toContain(check)
  })
})
