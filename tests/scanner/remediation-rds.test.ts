/** RDS cluster, instance and Neptune fixers on moto: fail -> fix -> re-collect -> pass. */
import { afterAll, beforeAll, describe, it } from "vitest"
import { CreateDBClusterCommand, CreateDBClusterSnapshotCommand, CreateDBInstanceCommand, ModifyDBClusterSnapshotAttributeCommand } from "@aws-sdk/client-rds"
import { startMoto, type Moto } from "../support/moto.ts"
import { expectFixed, seedClients } from "./helpers.ts"

const E = "us-east-1"

describe("RDS and Neptune fixers on moto", () => {
  let moto: Moto

  beforeAll(async () => {
    moto = await startMoto()
    const c = seedClients(moto)
    const rds = c.get("rds", E)
    await rds.send(new CreateDBInstanceCommand({ DBInstanceIdentifier: "pg", DBInstanceClass: "db.t3.micro", Engine: "postgres", AllocatedStorage: 20, MasterUsername: "pg_owner", MasterUserPassword: "Secret-Passw0rd" }))
    await rds.send(new CreateDBClusterCommand({ DBClusterIdentifier: "aur", Engine: "aurora-postgresql", MasterUsername: "aur_owner", MasterUserPassword: "Secret-Passw0rd" }))
    await rds.send(new CreateDBClusterSnapshotCommand({ DBClusterIdentifier: "aur", DBClusterSnapshotIdentifier: "aur-snap" }))
    await rds.send(new ModifyDBClusterSnapshotAttributeCommand({ DBClusterSnapshotIdentifier: "aur-snap", AttributeName: "restore", ValuesToAdd: ["all"] }))
    await rds.send(new CreateDBClusterCommand({ DBClusterIdentifier: "graph", Engine: "neptune" }))
    c.destroy()
  })
  afterAll(async () => {
    await moto?.stop()
  })

  it("instances: copy tags to snapshots, log exports", async () => {
    await expectFixed(moto, "rds", "rds_instance_copy_tags_to_snapshots", "pg")
    await expectFixed(moto, "rds", "rds_instance_integration_cloudwatch_logs", "pg")
  })

  it("Aurora clusters and cluster snapshots", async () => {
    await expectFixed(moto, "rds", "rds_cluster_deletion_protection", "aur")
    await expectFixed(moto, "rds", "rds_cluster_copy_tags_to_snapshots", "aur")
    await expectFixed(moto, "rds", "rds_cluster_snapshots_public_access", "aur-snap")
  })

  it("Neptune clusters", async () => {
    await expectFixed(moto, "neptune", "neptune_cluster_deletion_protection", "graph")
    await expectFixed(moto, "neptune", "neptune_cluster_copy_tags_to_snapshots", "graph")
    await expectFixed(moto, "neptune", "neptune_cluster_backup_retention_7_days", "graph")
  })
})
