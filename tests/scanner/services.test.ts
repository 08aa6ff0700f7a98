import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CreateDBInstanceCommand, CreateDBSnapshotCommand, ModifyDBSnapshotAttributeCommand } from "@aws-sdk/client-rds"
import { CreateFileSystemCommand, PutFileSystemPolicyCommand } from "@aws-sdk/client-efs"
import { AddPermissionCommand, CreateFunctionCommand, CreateFunctionUrlConfigCommand } from "@aws-sdk/client-lambda"
import { CreateRoleCommand, UploadServerCertificateCommand } from "@aws-sdk/client-iam"
import { CreateBucketCommand } from "@aws-sdk/client-s3"
import { DescribeSubnetsCommand } from "@aws-sdk/client-ec2"
import {
  CreateListenerCommand,
  CreateLoadBalancerCommand,
  CreateTargetGroupCommand,
  ModifyLoadBalancerAttributesCommand,
} from "@aws-sdk/client-elastic-load-balancing-v2"
import { CreateTableCommand, UpdateContinuousBackupsCommand } from "@aws-sdk/client-dynamodb"
import { CreateRepositoryCommand, PutLifecyclePolicyCommand, SetRepositoryPolicyCommand } from "@aws-sdk/client-ecr"
import { CreateClusterCommand } from "@aws-sdk/client-eks"
import { CreateSecretCommand, RotateSecretCommand } from "@aws-sdk/client-secrets-manager"
import { PutAlternateContactCommand } from "@aws-sdk/client-account"
import type { ScanServiceResult } from "../../server/scanner/aws/scan-service.ts"
import { startMoto, type Moto } from "../support/moto.ts"
import { ACCOUNT, expectCases, expectStatus, finding, OTHER_ACCOUNT, otherAccountKeys, rowFor, scan, seedClients, selfSignedCertificate } from "./helpers.ts"

const E = "us-east-1"
const W = "eu-west-1"
const DAY = 86_400_000
const EMPTY_ZIP = new Uint8Array(Buffer.from(`504b0506${"00".repeat(18)}`, "hex"))
const everyone = (action: string) => JSON.stringify({ Version: "2012-10-17", Statement: [{ Sid: "Everyone", Effect: "Allow", Principal: "*", Action: action }] })

describe("RDS, EFS, Lambda, ELBv2, DynamoDB, ECR, EKS, Secrets Manager, Account and Access Analyzer checks on moto", () => {
  let moto: Moto
  const r: Record<string, ScanServiceResult> = {}
  const ids: Record<string, string> = {}
  const res = (k: string) => {
    const v = r[k]
    if (v === undefined) throw new Error(`no scan ${k}`)
    return v
  }

  beforeAll(async () => {
    moto = await startMoto()
    const c = seedClients(moto)

    const rds = c.get("rds", E)
    const db = { DBInstanceClass: "db.t3.micro", Engine: "postgres", AllocatedStorage: 20, MasterUsername: "admin", MasterUserPassword: "Secret-Passw0rd" }
    await rds.send(
      new CreateDBInstanceCommand({
        ...db,
        DBInstanceIdentifier: "secure-db",
        StorageEncrypted: true,
        PubliclyAccessible: false,
        AutoMinorVersionUpgrade: true,
        MultiAZ: true,
        BackupRetentionPeriod: 7,
        DeletionProtection: true,
        EnableIAMDatabaseAuthentication: true,
      }),
    )
    await rds.send(
      new CreateDBInstanceCommand({
        ...db,
        DBInstanceIdentifier: "open-db",
        StorageEncrypted: false,
        PubliclyAccessible: true,
        AutoMinorVersionUpgrade: false,
        MultiAZ: false,
        BackupRetentionPeriod: 0,
        DeletionProtection: false,
      }),
    )
    await rds.send(new CreateDBSnapshotCommand({ DBInstanceIdentifier: "secure-db", DBSnapshotIdentifier: "private-snap" }))
    await rds.send(new CreateDBSnapshotCommand({ DBInstanceIdentifier: "open-db", DBSnapshotIdentifier: "public-snap" }))
    await rds.send(new ModifyDBSnapshotAttributeCommand({ DBSnapshotIdentifier: "public-snap", AttributeName: "restore", ValuesToAdd: ["all"] }))

    const efs = c.get("efs", E)
    ids.encFs = (await efs.send(new CreateFileSystemCommand({ CreationToken: "enc", Encrypted: true, Backup: true }))).FileSystemId ?? ""
    ids.plainFs = (await efs.send(new CreateFileSystemCommand({ CreationToken: "plain", Encrypted: false }))).FileSystemId ?? ""
    await efs.send(
      new PutFileSystemPolicyCommand({
        FileSystemId: ids.encFs,
        Policy: JSON.stringify({
          Version: "2012-10-17",
          Statement: [{ Sid: "AppOnly", Effect: "Allow", Principal: { AWS: `arn:aws:iam::${ACCOUNT}:role/app` }, Action: ["elasticfilesystem:ClientMount"], Resource: "*" }],
        }),
      }),
    )

    const role = await c.get("iam", E).send(
      new CreateRoleCommand({
        RoleName: "lambda-exec",
        AssumeRolePolicyDocument: JSON.stringify({ Version: "2012-10-17", Statement: [{ Effect: "Allow", Principal: { Service: "lambda.amazonaws.com" }, Action: "sts:AssumeRole" }] }),
      }),
    )
    const lambda = c.get("lambda", E)
    const fn = async (name: string, runtime: "python3.12" | "python3.7") =>
      lambda.send(new CreateFunctionCommand({ FunctionName: name, Runtime: runtime, Role: role.Role?.Arn, Handler: "index.handler", Code: { ZipFile: EMPTY_ZIP } }))
    const privateFn = await fn("private-fn", "python3.12")
    await fn("public-fn", "python3.7")
    await lambda.send(new CreateFunctionUrlConfigCommand({ FunctionName: "private-fn", AuthType: "AWS_IAM" }))
    await lambda.send(new CreateFunctionUrlConfigCommand({ FunctionName: "public-fn", AuthType: "NONE" }))
    await lambda.send(new AddPermissionCommand({ FunctionName: "public-fn", StatementId: "everyone", Action: "lambda:InvokeFunction", Principal: "*" }))

    const subnets = (await c.get("ec2", E).send(new DescribeSubnetsCommand({ Filters: [{ Name: "default-for-az", Values: ["true"] }] }))).Subnets ?? []
    const subnetIds = subnets.slice(0, 2).flatMap((s) => (s.SubnetId === undefined ? [] : [s.SubnetId]))
    const elb = c.get("elbv2", E)
    const tg = await elb.send(new CreateTargetGroupCommand({ Name: "web", Protocol: "HTTP", Port: 80, VpcId: subnets[0]?.VpcId }))
    const forward = [{ Type: "forward" as const, TargetGroupArn: tg.TargetGroups?.[0]?.TargetGroupArn }]
    const pem = selfSignedCertificate(30)
    const uploaded = await c.get("iam", E).send(new UploadServerCertificateCommand({ ServerCertificateName: "alb", CertificateBody: pem.cert, PrivateKey: pem.key }))
    const cert = uploaded.ServerCertificateMetadata?.Arn ?? ""
    await c.get("s3", E).send(new CreateBucketCommand({ Bucket: "alb-logs-1" }))
    for (const [name, good] of [["good-alb", true], ["bad-alb", false]] as const) {
      const lb = await elb.send(new CreateLoadBalancerCommand({ Name: name, Subnets: subnetIds, Type: "application", Scheme: "internet-facing" }))
      const arn = lb.LoadBalancers?.[0]?.LoadBalancerArn ?? ""
      await elb.send(
        new CreateListenerCommand({
          LoadBalancerArn: arn,
          Protocol: "HTTP",
          Port: 80,
          DefaultActions: good ? [{ Type: "redirect", RedirectConfig: { Protocol: "HTTPS", Port: "443", StatusCode: "HTTP_301" } }] : forward,
        }),
      )
      await elb.send(
        new CreateListenerCommand({
          LoadBalancerArn: arn,
          Protocol: "HTTPS",
          Port: 443,
          SslPolicy: good ? "ELBSecurityPolicy-TLS13-1-2-2021-06" : "ELBSecurityPolicy-2016-08",
          Certificates: [{ CertificateArn: cert }],
          DefaultActions: forward,
        }),
      )
      if (good) {
        await elb.send(
          new ModifyLoadBalancerAttributesCommand({
            LoadBalancerArn: arn,
            Attributes: [
              { Key: "deletion_protection.enabled", Value: "true" },
              { Key: "access_logs.s3.enabled", Value: "true" },
              { Key: "access_logs.s3.bucket", Value: "alb-logs-1" },
              { Key: "routing.http.drop_invalid_header_fields.enabled", Value: "true" },
            ],
          }),
        )
      }
    }

    const ddb = c.get("dynamodb", E)
    const table = { AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" as const }], KeySchema: [{ AttributeName: "pk", KeyType: "HASH" as const }], BillingMode: "PAY_PER_REQUEST" as const }
    await ddb.send(new CreateTableCommand({ ...table, TableName: "good-table", DeletionProtectionEnabled: true, SSESpecification: { Enabled: true, SSEType: "KMS", KMSMasterKeyId: "alias/aws/dynamodb" } }))
    await ddb.send(new UpdateContinuousBackupsCommand({ TableName: "good-table", PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } }))
    await ddb.send(new CreateTableCommand({ ...table, TableName: "plain-table" }))

    const ecr = c.get("ecr", E)
    await ecr.send(new CreateRepositoryCommand({ repositoryName: "good-repo", imageScanningConfiguration: { scanOnPush: true }, imageTagMutability: "IMMUTABLE" }))
    await ecr.send(
      new PutLifecyclePolicyCommand({
        repositoryName: "good-repo",
        lifecyclePolicyText: JSON.stringify({ rules: [{ rulePriority: 1, selection: { tagStatus: "untagged", countType: "sinceImagePushed", countUnit: "days", countNumber: 14 }, action: { type: "expire" } }] }),
      }),
    )
    await ecr.send(new CreateRepositoryCommand({ repositoryName: "bad-repo" }))
    await ecr.send(new SetRepositoryPolicyCommand({ repositoryName: "bad-repo", policyText: everyone("ecr:BatchGetImage") }))

    const eks = c.get("eks", E)
    await eks.send(
      new CreateClusterCommand({
        name: "private-cluster",
        roleArn: `arn:aws:iam::${ACCOUNT}:role/eks`,
        resourcesVpcConfig: { subnetIds, endpointPublicAccess: false, endpointPrivateAccess: true },
        logging: { clusterLogging: [{ types: ["api", "audit", "authenticator", "controllerManager", "scheduler"], enabled: true }] },
        encryptionConfig: [{ resources: ["secrets"], provider: { keyArn: `arn:aws:kms:${E}:${ACCOUNT}:key/11111111-2222-3333-4444-555555555555` } }],
      }),
    )
    await eks.send(new CreateClusterCommand({ name: "public-cluster", roleArn: `arn:aws:iam::${ACCOUNT}:role/eks`, resourcesVpcConfig: { subnetIds } }))

    const sm = c.get("secretsmanager", E)
    await sm.send(new CreateSecretCommand({ Name: "rotated", SecretString: "s3cr3t" }))
    await sm.send(new RotateSecretCommand({ SecretId: "rotated", RotationLambdaARN: privateFn.FunctionArn, RotationRules: { AutomaticallyAfterDays: 30 } }))
    await sm.send(new CreateSecretCommand({ Name: "static", SecretString: "s3cr3t" }))

    await c.get("account", E).send(new PutAlternateContactCommand({ AlternateContactType: "SECURITY", Name: "SecOps", Title: "Security", EmailAddress: "secops@example.com", PhoneNumber: "+1-555-0100" }))
    c.destroy()

    for (const service of ["rds", "efs", "lambda", "elbv2", "dynamodb", "ecr", "eks", "secretsmanager", "account", "accessanalyzer"]) r[service] = await scan(moto, service)
    r.secretsLater = await scan(moto, "secretsmanager", { now: new Date(Date.now() + 100 * DAY) })
    r.accountOther = await scan(moto, "account", {
      credentials: otherAccountKeys,
      checkIds: ["account_security_contact_information_is_registered"],
    })
    // moto lacks GetContactInformation and the whole Access Analyzer service (moto.md §7): AWS answers via stubs.
    r.accountStub = await scan(moto, "account", {
      stub: ({ command }) =>
        command === "GetContactInformationCommand" ? { ContactInformation: { FullName: "Ada Lovelace", PhoneNumber: "+44 20 7946 0000", AddressLine1: "1 Main St", City: "London", PostalCode: "N1", CountryCode: "GB" } } : undefined,
    })
    r.accountStubEmpty = await scan(moto, "account", {
      credentials: otherAccountKeys,
      stub: ({ command }) => (command === "GetContactInformationCommand" ? { ContactInformation: { FullName: "", PhoneNumber: "", AddressLine1: "", City: "", PostalCode: "", CountryCode: "US" } } : undefined),
    })
    r.analyzerStub = await scan(moto, "accessanalyzer", {
      stub: ({ command, region }) =>
        command === "ListAnalyzersCommand"
          ? {
              analyzers:
                region === E
                  ? [{ arn: `arn:aws:access-analyzer:${E}:${ACCOUNT}:analyzer/account`, name: "account", type: "ACCOUNT", status: "ACTIVE", createdAt: new Date() }]
                  : [{ arn: `arn:aws:access-analyzer:${W}:${ACCOUNT}:analyzer/old`, name: "old", type: "ACCOUNT", status: "DISABLED", createdAt: new Date() }],
            }
          : undefined,
    })
  })
  afterAll(async () => {
    await moto?.stop()
  })

  it("RDS instance checks", () => {
    for (const id of [
      "rds_instance_storage_encrypted",
      "rds_instance_minor_version_upgrade_enabled",
      "rds_instance_no_public_access",
      "rds_instance_multi_az",
      "rds_instance_backup_enabled",
      "rds_instance_deletion_protection",
      "rds_instance_iam_authentication_enabled",
    ]) {
      expectCases(res("rds"), id, { compliant: ["secure-db"], nonCompliant: ["open-db"] })
    }
  })

  it("rds_snapshots_public_access (manual snapshots only)", () => {
    expectCases(res("rds"), "rds_snapshots_public_access", { compliant: ["private-snap"], nonCompliant: ["public-snap"] })
    expect(finding(res("rds"), "rds_snapshots_public_access").details).toHaveLength(2)
  })

  it("EFS checks", () => {
    expectCases(res("efs"), "efs_encryption_at_rest_enabled", { compliant: [ids.encFs ?? ""], nonCompliant: [ids.plainFs ?? ""] })
    expectCases(res("efs"), "efs_have_backup_enabled", { compliant: [ids.encFs ?? ""], nonCompliant: [ids.plainFs ?? ""] })
    expectCases(res("efs"), "efs_not_publicly_accessible", { compliant: [ids.encFs ?? ""], nonCompliant: [ids.plainFs ?? ""] })
  })

  it("Lambda checks", () => {
    expectCases(res("lambda"), "awslambda_function_not_publicly_accessible", { compliant: ["private-fn"], nonCompliant: ["public-fn"] })
    expectCases(res("lambda"), "awslambda_function_url_public", { compliant: ["private-fn"], nonCompliant: ["public-fn"] })
    expectCases(res("lambda"), "awslambda_function_using_supported_runtimes", { compliant: ["private-fn"], nonCompliant: ["public-fn"] })
    expect(rowFor(res("lambda"), "awslambda_function_using_supported_runtimes", "public-fn").deprecated_on).toBe("2023-12-04")
  })

  it("ELBv2 checks", () => {
    for (const id of ["elbv2_listeners_https_or_redirect", "elbv2_ssl_listeners_use_tls12", "elbv2_deletion_protection", "elbv2_logging_enabled", "elbv2_drop_invalid_header_fields"]) {
      expectCases(res("elbv2"), id, { compliant: ["good-alb"], nonCompliant: ["bad-alb"] })
    }
  })

  it("DynamoDB checks", () => {
    for (const id of ["dynamodb_tables_pitr_enabled", "dynamodb_table_deletion_protection_enabled", "dynamodb_tables_kms_cmk_encryption_enabled"]) {
      expectCases(res("dynamodb"), id, { compliant: ["good-table"], nonCompliant: ["plain-table"] })
    }
  })

  it("ECR checks", () => {
    for (const id of ["ecr_repositories_scan_images_on_push_enabled", "ecr_repositories_tag_immutability", "ecr_repositories_lifecycle_policy_enabled"]) {
      expectCases(res("ecr"), id, { compliant: ["good-repo"], nonCompliant: ["bad-repo"] })
    }
    expectCases(res("ecr"), "ecr_repositories_not_publicly_accessible", { compliant: ["good-repo"], nonCompliant: ["bad-repo"] })
    expect(rowFor(res("ecr"), "ecr_repositories_not_publicly_accessible", "bad-repo").public_statements).toEqual(["Everyone"])
  })

  it("EKS checks (an omitted endpointPublicAccess counts as public, as in AWS)", () => {
    for (const id of ["eks_cluster_not_publicly_accessible", "eks_control_plane_logging_all_types_enabled", "eks_cluster_secrets_encryption_enabled"]) {
      expectCases(res("eks"), id, { compliant: ["private-cluster"], nonCompliant: ["public-cluster"] })
    }
  })

  it("Secrets Manager checks", () => {
    expectCases(res("secretsmanager"), "secretsmanager_automatic_rotation_enabled", { compliant: ["rotated"], nonCompliant: ["static"] })
    expectCases(res("secretsmanager"), "secretsmanager_secret_rotated_periodically", { compliant: ["rotated", "static"] })
    expectCases(res("secretsLater"), "secretsmanager_secret_rotated_periodically", { nonCompliant: ["rotated", "static"] })
  })

  it("account_security_contact_information_is_registered", () => {
    expectCases(res("account"), "account_security_contact_information_is_registered", { compliant: [ACCOUNT] })
    expectCases(res("accountOther"), "account_security_contact_information_is_registered", { nonCompliant: [OTHER_ACCOUNT] })
  })

  it("account_maintain_current_contact_details: moto's missing API surfaces as an error, AWS answers via stub", () => {
    const f = finding(res("account"), "account_maintain_current_contact_details")
    expect(f.status).toBe("error")
    expect(f.errors[0]?.kind).toBe("unsupported")
    expect(f.errors[0]?.operation).toBe("account:GetContactInformation")
    expectStatus(res("account"), "account_security_contact_information_is_registered", "pass")
    expectCases(res("accountStub"), "account_maintain_current_contact_details", { compliant: [ACCOUNT] })
    expectCases(res("accountStubEmpty"), "account_maintain_current_contact_details", { nonCompliant: [OTHER_ACCOUNT] })
  })

  it("accessanalyzer_enabled: error on moto (no backend), pass/fail per region via stub", () => {
    const f = finding(res("accessanalyzer"), "accessanalyzer_enabled")
    expect(f.status).toBe("error")
    expect(f.errors.map((e) => e.region).sort()).toEqual([E, W].sort())
    expect(f.errors.every((e) => e.kind === "unsupported")).toBe(true)
    expectCases(res("analyzerStub"), "accessanalyzer_enabled", { compliant: [`${ACCOUNT}/${E}`], nonCompliant: [`${ACCOUNT}/${W}`] })
  })
})
