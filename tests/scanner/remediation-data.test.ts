/** Fixers for RDS, SQS, SNS, DynamoDB, ECR, Lambda, ELBv2 and EKS on moto: fail -> fix -> re-collect -> pass. */
import { afterAll, beforeAll, describe, it } from "vitest"
import { CreateDBInstanceCommand, CreateDBSnapshotCommand, ModifyDBSnapshotAttributeCommand } from "@aws-sdk/client-rds"
import { CreateQueueCommand } from "@aws-sdk/client-sqs"
import { CreateTopicCommand } from "@aws-sdk/client-sns"
import { CreateTableCommand } from "@aws-sdk/client-dynamodb"
import { CreateRepositoryCommand } from "@aws-sdk/client-ecr"
import { CreateFunctionCommand, CreateFunctionUrlConfigCommand } from "@aws-sdk/client-lambda"
import { CreateRoleCommand } from "@aws-sdk/client-iam"
import { DescribeSubnetsCommand } from "@aws-sdk/client-ec2"
import { CreateLoadBalancerCommand } from "@aws-sdk/client-elastic-load-balancing-v2"
import { CreateClusterCommand } from "@aws-sdk/client-eks"
import { startMoto, type Moto } from "../support/moto.ts"
import { ACCOUNT, expectFixed, seedClients } from "./helpers.ts"

const E = "us-east-1"
const EMPTY_ZIP = new Uint8Array(Buffer.from(`504b0506${"00".repeat(18)}`, "hex"))

describe("data and compute fixers on moto", () => {
  let moto: Moto

  beforeAll(async () => {
    moto = await startMoto()
    const c = seedClients(moto)
    const rds = c.get("rds", E)
    await rds.send(
      new CreateDBInstanceCommand({
        DBInstanceIdentifier: "loose-db",
        DBInstanceClass: "db.t3.micro",
        Engine: "mysql",
        AllocatedStorage: 20,
        MasterUsername: "admin",
        MasterUserPassword: "Secret-Passw0rd",
        PubliclyAccessible: true,
        AutoMinorVersionUpgrade: false,
        BackupRetentionPeriod: 0,
        DeletionProtection: false,
      }),
    )
    await rds.send(new CreateDBSnapshotCommand({ DBInstanceIdentifier: "loose-db", DBSnapshotIdentifier: "shared-snap" }))
    await rds.send(new ModifyDBSnapshotAttributeCommand({ DBSnapshotIdentifier: "shared-snap", AttributeName: "restore", ValuesToAdd: ["all"] }))
    await c.get("sqs", E).send(new CreateQueueCommand({ QueueName: "plain-q", Attributes: { SqsManagedSseEnabled: "false" } }))
    await c.get("sns", E).send(new CreateTopicCommand({ Name: "plain-topic" }))
    await c.get("dynamodb", E).send(
      new CreateTableCommand({
        TableName: "orders",
        AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
        KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
        BillingMode: "PAY_PER_REQUEST",
      }),
    )
    await c.get("ecr", E).send(new CreateRepositoryCommand({ repositoryName: "app" }))
    const role = await c.get("iam", E).send(
      new CreateRoleCommand({
        RoleName: "fn",
        AssumeRolePolicyDocument: JSON.stringify({ Version: "2012-10-17", Statement: [{ Effect: "Allow", Principal: { Service: "lambda.amazonaws.com" }, Action: "sts:AssumeRole" }] }),
      }),
    )
    const lambda = c.get("lambda", E)
    await lambda.send(new CreateFunctionCommand({ FunctionName: "hook", Runtime: "nodejs22.x", Role: role.Role?.Arn, Handler: "index.handler", Code: { ZipFile: EMPTY_ZIP } }))
    await lambda.send(new CreateFunctionUrlConfigCommand({ FunctionName: "hook", AuthType: "NONE" }))
    const subnets = (await c.get("ec2", E).send(new DescribeSubnetsCommand({ Filters: [{ Name: "default-for-az", Values: ["true"] }] }))).Subnets ?? []
    const subnetIds = subnets.slice(0, 2).flatMap((s) => (s.SubnetId === undefined ? [] : [s.SubnetId]))
    await c.get("elbv2", E).send(new CreateLoadBalancerCommand({ Name: "edge", Subnets: subnetIds, Type: "application" }))
    await c.get("eks", E).send(new CreateClusterCommand({ name: "prod", roleArn: `arn:aws:iam::${ACCOUNT}:role/eks`, resourcesVpcConfig: { subnetIds } }))
    c.destroy()
  })
  afterAll(async () => {
    await moto?.stop()
  })

  it("RDS: public access, minor upgrades, backups, deletion protection, public snapshot", async () => {
    for (const id of ["rds_instance_no_public_access", "rds_instance_minor_version_upgrade_enabled", "rds_instance_backup_enabled", "rds_instance_deletion_protection"]) {
      await expectFixed(moto, "rds", id, "loose-db")
    }
    await expectFixed(moto, "rds", "rds_snapshots_public_access", "shared-snap")
  })

  it("SQS and SNS encryption", async () => {
    await expectFixed(moto, "sqs", "sqs_queues_server_side_encryption_enabled", `arn:aws:sqs:${E}:${ACCOUNT}:plain-q`)
    await expectFixed(moto, "sns", "sns_topics_kms_encryption_at_rest_enabled", `arn:aws:sns:${E}:${ACCOUNT}:plain-topic`)
  })

  it("DynamoDB point-in-time recovery and deletion protection", async () => {
    await expectFixed(moto, "dynamodb", "dynamodb_tables_pitr_enabled", "orders")
    await expectFixed(moto, "dynamodb", "dynamodb_table_deletion_protection_enabled", "orders")
  })

  it("ECR scan on push and tag immutability", async () => {
    await expectFixed(moto, "ecr", "ecr_repositories_scan_images_on_push_enabled", "app")
    await expectFixed(moto, "ecr", "ecr_repositories_tag_immutability", "app")
  })

  it("Lambda function URL auth, ELBv2 attributes, EKS endpoint", async () => {
    await expectFixed(moto, "lambda", "awslambda_function_url_public", "hook")
    await expectFixed(moto, "elbv2", "elbv2_deletion_protection", "edge")
    await expectFixed(moto, "elbv2", "elbv2_drop_invalid_header_fields", "edge")
    await expectFixed(moto, "eks", "eks_cluster_not_publicly_accessible", "prod")
  })
})
