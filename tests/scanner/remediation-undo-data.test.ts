/**
 * Issue 32 on moto, the data-store fixers converted to the plan vocabulary (server/remediation/aws/data.ts): DynamoDB
 * point-in-time recovery and deletion protection, and the RDS instance settings (deletion protection, public access,
 * minor version upgrades, backup retention, tags copied to snapshots), the RDS and Neptune cluster settings and SNS topic
 * encryption. For each, the preview changes nothing (the table's full state and
 * the fixer's state are identical before and after it), apply is verified by a re-scan, and undo restores the state
 * before the fix field by field (a fresh scan fails the table again) — `expectRoundTrip` (./helpers.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CreateTableCommand, DescribeContinuousBackupsCommand, DescribeTableCommand } from "@aws-sdk/client-dynamodb"
import { CreateDBClusterCommand, CreateDBInstanceCommand, DescribeDBClustersCommand, DescribeDBInstancesCommand } from "@aws-sdk/client-rds"
import { CreateTopicCommand, GetTopicAttributesCommand } from "@aws-sdk/client-sns"
import { remediableChecks } from "../../server/remediation/aws/remediate.ts"
import type { AwsClients } from "../../server/scanner/aws/clients.ts"
import { startMoto, type Moto } from "../support/moto.ts"
import { expectRoundTrip, seedClients } from "./helpers.ts"

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

  beforeAll(async () => {
    moto = await startMoto()
    c = seedClients(moto)
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

  it("lists both DynamoDB fixes as previewable", () => {
    const previewable = remediableChecks().filter((r) => r.previewable).map((r) => r.checkId)
    for (const check of ["dynamodb_tables_pitr_enabled", "dynamodb_table_backed_up", "dynamodb_table_deletion_protection_enabled", "rds_instance_deletion_protection", "rds_instance_no_public_access"]) expect(previewable).toContain(check)
  })
})
