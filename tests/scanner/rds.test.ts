/**
 * RDS beyond the CIS basics (issue 16 misses: unencrypted snapshots, default port, default master user name,
 * AWS-managed key), Aurora clusters and cluster snapshots, event subscriptions, Neptune on moto, DocumentDB stubbed
 * (moto rejects the docdb engine).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  CreateDBClusterCommand,
  CreateDBClusterSnapshotCommand,
  CreateDBInstanceCommand,
  CreateDBSnapshotCommand,
  CreateEventSubscriptionCommand,
  ModifyDBClusterSnapshotAttributeCommand,
} from "@aws-sdk/client-rds"
import { CreateKeyCommand } from "@aws-sdk/client-kms"
import type { ScanServiceResult } from "../../server/scanner/aws/scan-service.ts"
import { startMoto, type Moto } from "../support/moto.ts"
import { ACCOUNT, expectCases, expectFixed, finding, rowFor, scan, seedClients } from "./helpers.ts"

const E = "us-east-1"
const W = "eu-west-1"
const password = "Secret-Passw0rd"

describe("RDS instances, clusters, snapshots, Neptune and DocumentDB on moto", () => {
  let moto: Moto
  const r: Record<string, ScanServiceResult> = {}
  const res = (k: string) => r[k] ?? (() => { throw new Error(k) })()

  beforeAll(async () => {
    moto = await startMoto()
    const c = seedClients(moto)
    const rds = c.get("rds", E)
    const cmk = (await c.get("kms", E).send(new CreateKeyCommand({ Description: "db" }))).KeyMetadata?.Arn ?? ""
    const db = { DBInstanceClass: "db.t3.micro", AllocatedStorage: 20, MasterUserPassword: password }
    await rds.send(
      new CreateDBInstanceCommand({
        ...db,
        DBInstanceIdentifier: "custom-db",
        Engine: "mysql",
        Port: 3307,
        MasterUsername: "orders_owner",
        StorageEncrypted: true,
        KmsKeyId: cmk,
        CopyTagsToSnapshot: true,
        EnableCloudwatchLogsExports: ["error", "slowquery"],
      }),
    )
    await rds.send(new CreateDBInstanceCommand({ ...db, DBInstanceIdentifier: "default-db", Engine: "postgres", MasterUsername: "postgres", StorageEncrypted: true, KmsKeyId: "alias/aws/rds" }))
    await rds.send(new CreateDBInstanceCommand({ ...db, DBInstanceIdentifier: "plain-db", Engine: "mysql", MasterUsername: "admin", StorageEncrypted: false }))
    await c.get("rds", W).send(new CreateDBInstanceCommand({ ...db, DBInstanceIdentifier: "west-db", Engine: "mysql", MasterUsername: "west_owner" }))
    await rds.send(new CreateDBSnapshotCommand({ DBInstanceIdentifier: "custom-db", DBSnapshotIdentifier: "enc-snap" }))
    await rds.send(new CreateDBSnapshotCommand({ DBInstanceIdentifier: "plain-db", DBSnapshotIdentifier: "plain-snap" }))
    await rds.send(new CreateEventSubscriptionCommand({ SubscriptionName: "db-critical", SnsTopicArn: `arn:aws:sns:${E}:${ACCOUNT}:ops`, SourceType: "db-instance", EventCategories: ["failure", "maintenance", "configuration change"], Enabled: true }))

    await rds.send(
      new CreateDBClusterCommand({
        DBClusterIdentifier: "good-cluster",
        Engine: "aurora-mysql",
        MasterUsername: "app_owner",
        MasterUserPassword: password,
        Port: 3310,
        StorageEncrypted: true,
        KmsKeyId: cmk,
        DeletionProtection: true,
        EnableIAMDatabaseAuthentication: true,
        CopyTagsToSnapshot: true,
        BacktrackWindow: 3600,
        AvailabilityZones: ["us-east-1a", "us-east-1b", "us-east-1c"],
      }),
    )
    for (const az of ["us-east-1a", "us-east-1b"]) {
      await rds.send(new CreateDBInstanceCommand({ DBInstanceIdentifier: `good-cluster-${az}`, DBInstanceClass: "db.r6g.large", Engine: "aurora-mysql", DBClusterIdentifier: "good-cluster", AvailabilityZone: az }))
    }
    await rds.send(new CreateDBClusterCommand({ DBClusterIdentifier: "bad-cluster", Engine: "aurora-mysql", MasterUsername: "admin", MasterUserPassword: password, StorageEncrypted: true, KmsKeyId: "alias/aws/rds" }))
    await rds.send(new CreateDBClusterCommand({ DBClusterIdentifier: "plain-cluster", Engine: "aurora-postgresql", MasterUsername: "postgres", MasterUserPassword: password }))
    await rds.send(new CreateDBClusterSnapshotCommand({ DBClusterIdentifier: "good-cluster", DBClusterSnapshotIdentifier: "good-csnap" }))
    await rds.send(new CreateDBClusterSnapshotCommand({ DBClusterIdentifier: "plain-cluster", DBClusterSnapshotIdentifier: "open-csnap" }))
    await rds.send(new ModifyDBClusterSnapshotAttributeCommand({ DBClusterSnapshotIdentifier: "open-csnap", AttributeName: "restore", ValuesToAdd: ["all"] }))

    await rds.send(
      new CreateDBClusterCommand({
        DBClusterIdentifier: "np-good",
        Engine: "neptune",
        StorageEncrypted: true,
        DeletionProtection: true,
        BackupRetentionPeriod: 7,
        CopyTagsToSnapshot: true,
        EnableCloudwatchLogsExports: ["audit"],
      }),
    )
    await rds.send(new CreateDBClusterCommand({ DBClusterIdentifier: "np-bad", Engine: "neptune" }))
    c.destroy()

    r.rds = await scan(moto, "rds")
    r.neptune = await scan(moto, "neptune")
    r.neptuneIam = await scan(moto, "neptune", {
      regions: [E],
      checkIds: ["neptune_cluster_iam_authentication_enabled"],
      stub: ({ command }) => (command === "DescribeDBClustersCommand" ? { DBClusters: [{ DBClusterIdentifier: "np-iam", Engine: "neptune", IAMDatabaseAuthenticationEnabled: true }] } : undefined),
    })
    const docdb = (id: string, good: boolean) => ({
      DBClusterIdentifier: id,
      Engine: "docdb",
      StorageEncrypted: good,
      DeletionProtection: good,
      BackupRetentionPeriod: good ? 14 : 1,
      EnabledCloudwatchLogsExports: good ? ["audit", "profiler"] : [],
    })
    r.documentdb = await scan(moto, "documentdb", {
      regions: [E],
      stub: ({ command }) => {
        if (command === "DescribeDBClustersCommand") return { DBClusters: [docdb("docs-good", true), docdb("docs-bad", false)] }
        if (command === "DescribeDBClusterSnapshotsCommand") return { DBClusterSnapshots: ["docs-private", "docs-public"].map((id) => ({ DBClusterSnapshotIdentifier: id, DBClusterIdentifier: "docs-good", Engine: "docdb", StorageEncrypted: true })) }
        if (command === "DescribeDBClusterSnapshotAttributesCommand") return { DBClusterSnapshotAttributesResult: { DBClusterSnapshotAttributes: [{ AttributeName: "restore", AttributeValues: [] }] } }
        return undefined
      },
    })
    r.documentdbPublic = await scan(moto, "documentdb", {
      regions: [E],
      checkIds: ["documentdb_cluster_snapshots_public_access"],
      stub: ({ command, input }) => {
        if (command === "DescribeDBClusterSnapshotsCommand") return { DBClusterSnapshots: [{ DBClusterSnapshotIdentifier: "docs-public", DBClusterIdentifier: "docs-good", Engine: "docdb", StorageEncrypted: true }] }
        if (command === "DescribeDBClusterSnapshotAttributesCommand") return { DBClusterSnapshotAttributesResult: { DBClusterSnapshotIdentifier: (input as { DBClusterSnapshotIdentifier: string }).DBClusterSnapshotIdentifier, DBClusterSnapshotAttributes: [{ AttributeName: "restore", AttributeValues: ["all"] }] } }
        return undefined
      },
    })
  })
  afterAll(async () => {
    await moto?.stop()
  })

  it("instance hygiene: default port, default master user, AWS-managed key, tags, log exports, CA", () => {
    expectCases(res("rds"), "rds_instance_default_port", { compliant: ["custom-db"], nonCompliant: ["default-db", "plain-db"] })
    expectCases(res("rds"), "rds_instance_default_admin_username", { compliant: ["custom-db"], nonCompliant: ["default-db", "plain-db"] })
    expectCases(res("rds"), "rds_instance_encrypted_with_cmk", { compliant: ["custom-db"], nonCompliant: ["default-db"] })
    expect(finding(res("rds"), "rds_instance_encrypted_with_cmk").details.some((d) => d.resource_id === "plain-db")).toBe(false)
    expectCases(res("rds"), "rds_instance_copy_tags_to_snapshots", { compliant: ["custom-db"], nonCompliant: ["default-db"] })
    expectCases(res("rds"), "rds_instance_integration_cloudwatch_logs", { compliant: ["custom-db"], nonCompliant: ["default-db"] })
    expectCases(res("rds"), "rds_instance_certificate_not_expired_authority", { compliant: ["custom-db", "default-db"] })
  })

  it("rds_snapshots_encrypted", () => {
    expectCases(res("rds"), "rds_snapshots_encrypted", { compliant: ["enc-snap"], nonCompliant: ["plain-snap"] })
  })

  it("event subscription per region with instances", () => {
    expectCases(res("rds"), "rds_instance_event_subscription_critical_events", { compliant: [`${ACCOUNT}/${E}`], nonCompliant: [`${ACCOUNT}/${W}`] })
  })

  it("Aurora cluster checks (Neptune clusters are left to the neptune service)", () => {
    for (const id of ["rds_cluster_multi_az", "rds_cluster_deletion_protection", "rds_cluster_iam_authentication_enabled", "rds_cluster_copy_tags_to_snapshots", "rds_cluster_backtrack_enabled", "rds_cluster_default_admin_username", "rds_cluster_default_port", "rds_cluster_encrypted_with_cmk"]) {
      expectCases(res("rds"), id, { compliant: ["good-cluster"], nonCompliant: ["bad-cluster"] })
    }
    expectCases(res("rds"), "rds_cluster_storage_encrypted", { compliant: ["good-cluster", "bad-cluster"], nonCompliant: ["plain-cluster"] })
    expect(finding(res("rds"), "rds_cluster_storage_encrypted").details.some((d) => String(d.resource_id).startsWith("np-"))).toBe(false)
    expect(rowFor(res("rds"), "rds_cluster_default_port", "bad-cluster").setting).toBe(3306)
  })

  it("rds_cluster_multi_az follows the cluster's MultiAZ flag", () => {
    const rows = finding(res("rds"), "rds_cluster_multi_az").details
    expect(rows.map((d) => d.resource_id).sort()).toEqual(["bad-cluster", "good-cluster", "plain-cluster"])
    expectCases(res("rds"), "rds_cluster_multi_az", { compliant: ["good-cluster"], nonCompliant: ["bad-cluster"] })
  })

  it("cluster snapshots: public and unencrypted", () => {
    expectCases(res("rds"), "rds_cluster_snapshots_public_access", { compliant: ["good-csnap"], nonCompliant: ["open-csnap"] })
    expectCases(res("rds"), "rds_cluster_snapshots_encrypted", { compliant: ["good-csnap"], nonCompliant: ["open-csnap"] })
  })

  it("Neptune cluster checks", () => {
    for (const id of ["neptune_cluster_storage_encrypted", "neptune_cluster_deletion_protection", "neptune_cluster_backup_retention_7_days", "neptune_cluster_audit_logs_exported", "neptune_cluster_copy_tags_to_snapshots"]) {
      expectCases(res("neptune"), id, { compliant: ["np-good"], nonCompliant: ["np-bad"] })
    }
    expectCases(res("neptune"), "neptune_cluster_iam_authentication_enabled", { nonCompliant: ["np-bad"] })
    expectCases(res("neptuneIam"), "neptune_cluster_iam_authentication_enabled", { compliant: ["np-iam"] })
    expect(finding(res("neptune"), "neptune_cluster_storage_encrypted").details).toHaveLength(2)
  })

  it("one API lists all three engines: each service counts only its own resources", () => {
    // RDS: 6 instances (4 standalone in two regions, 2 Aurora members), 2 snapshots, 3 Aurora clusters, 2 cluster
    // snapshots; Neptune: its 2 clusters; DocumentDB: its 2 clusters and 2 cluster snapshots.
    expect(res("rds").resourcesScanned).toBe(13)
    expect(res("neptune").resourcesScanned).toBe(2)
    expect(res("documentdb").resourcesScanned).toBe(4)
  })

  it("DocumentDB cluster checks (stubbed)", () => {
    for (const id of ["documentdb_cluster_storage_encrypted", "documentdb_cluster_deletion_protection", "documentdb_cluster_backup_retention_7_days", "documentdb_cluster_audit_logs_exported"]) {
      expectCases(res("documentdb"), id, { compliant: ["docs-good"], nonCompliant: ["docs-bad"] })
    }
    expectCases(res("documentdb"), "documentdb_cluster_snapshots_public_access", { compliant: ["docs-private"] })
    expectCases(res("documentdbPublic"), "documentdb_cluster_snapshots_public_access", { nonCompliant: ["docs-public"] })
  })
})
