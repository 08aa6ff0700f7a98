/**
 * Issue 16 misses outside EC2/RDS, each with a compliant and a non-compliant case on moto: Lambda (log group,
 * tracing, dead-letter/failure destination, VPC, code signing, shared role, secrets in variables), ECR (customer key,
 * permissive policy), CloudTrail (management events, notifications, Insights, bucket Object Lock and MFA delete),
 * SQS (dead-letter queue, customer key, cross-account), SNS cross-account, DynamoDB backups, S3 Object Lock.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CreateFunctionCommand, PutFunctionEventInvokeConfigCommand } from "@aws-sdk/client-lambda"
import { CreateLogGroupCommand } from "@aws-sdk/client-cloudwatch-logs"
import { CreateRoleCommand } from "@aws-sdk/client-iam"
import { CreateKeyCommand } from "@aws-sdk/client-kms"
import { CreateRepositoryCommand, SetRepositoryPolicyCommand } from "@aws-sdk/client-ecr"
import { CreateBucketCommand } from "@aws-sdk/client-s3"
import { CreateTrailCommand, PutEventSelectorsCommand, PutInsightSelectorsCommand, StartLoggingCommand } from "@aws-sdk/client-cloudtrail"
import { CreateQueueCommand } from "@aws-sdk/client-sqs"
import { CreateTopicCommand, SetTopicAttributesCommand } from "@aws-sdk/client-sns"
import { CreateBackupCommand, CreateTableCommand } from "@aws-sdk/client-dynamodb"
import type { ScanServiceResult } from "../../server/scanner/aws/scan-service.ts"
import { startMoto, type Moto } from "../support/moto.ts"
import { ACCOUNT, expectCases, expectFixed, finding, OTHER_ACCOUNT, rowFor, scan, seedClients } from "./helpers.ts"

const E = "us-east-1"
const W = "eu-west-1"
const EMPTY_ZIP = new Uint8Array(Buffer.from(`504b0506${"00".repeat(18)}`, "hex"))
const trust = JSON.stringify({ Version: "2012-10-17", Statement: [{ Effect: "Allow", Principal: { Service: "lambda.amazonaws.com" }, Action: "sts:AssumeRole" }] })
const policy = (statements: unknown[]) => JSON.stringify({ Version: "2012-10-17", Statement: statements })

describe("issue 16 misses on moto: Lambda, ECR, CloudTrail, SQS, SNS, DynamoDB, S3", () => {
  let moto: Moto
  const r: Record<string, ScanServiceResult> = {}
  const res = (k: string) => r[k] ?? (() => { throw new Error(k) })()
  const q = (name: string, region = E) => `arn:aws:sqs:${region}:${ACCOUNT}:${name}`
  const topic = (name: string) => `arn:aws:sns:${E}:${ACCOUNT}:${name}`

  beforeAll(async () => {
    moto = await startMoto()
    const c = seedClients(moto)
    const iam = c.get("iam", E)
    const ownRole = (await iam.send(new CreateRoleCommand({ RoleName: "good-fn-role", AssumeRolePolicyDocument: trust }))).Role?.Arn
    const sharedRole = (await iam.send(new CreateRoleCommand({ RoleName: "shared-role", AssumeRolePolicyDocument: trust }))).Role?.Arn
    const lambda = c.get("lambda", E)
    await lambda.send(
      new CreateFunctionCommand({
        FunctionName: "good-fn",
        Runtime: "python3.12",
        Role: ownRole,
        Handler: "index.handler",
        Code: { ZipFile: EMPTY_ZIP },
        TracingConfig: { Mode: "Active" },
        VpcConfig: { SubnetIds: ["subnet-12345678"], SecurityGroupIds: ["sg-12345678"] },
        CodeSigningConfigArn: `arn:aws:lambda:${E}:${ACCOUNT}:code-signing-config:csc-0123456789abcdef0`,
        Environment: { Variables: { DB_PASSWORD_SECRET_ARN: `arn:aws:secretsmanager:${E}:${ACCOUNT}:secret:db-AbCdEf`, LOG_LEVEL: "info" } },
      }),
    )
    await lambda.send(new PutFunctionEventInvokeConfigCommand({ FunctionName: "good-fn", DestinationConfig: { OnFailure: { Destination: q("fn-failures") } } }))
    await c.get("logs", E).send(new CreateLogGroupCommand({ logGroupName: "/aws/lambda/good-fn" }))
    for (const [name, region] of [["bad-fn", E], ["bad-fn-west", W]] as const) {
      await c.get("lambda", region).send(
        new CreateFunctionCommand({ FunctionName: name, Runtime: "python3.12", Role: sharedRole, Handler: "index.handler", Code: { ZipFile: EMPTY_ZIP }, Environment: { Variables: { API_TOKEN: "ghp_0123456789abcdef" } } }),
      )
    }

    const cmk = (await c.get("kms", E).send(new CreateKeyCommand({ Description: "app" }))).KeyMetadata?.Arn ?? ""
    const ecr = c.get("ecr", E)
    await ecr.send(new CreateRepositoryCommand({ repositoryName: "cmk-repo", encryptionConfiguration: { encryptionType: "KMS", kmsKey: cmk } }))
    await ecr.send(new SetRepositoryPolicyCommand({ repositoryName: "cmk-repo", policyText: policy([{ Sid: "PullFromProd", Effect: "Allow", Principal: { AWS: `arn:aws:iam::${OTHER_ACCOUNT}:root` }, Action: ["ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer"] }]) }))
    await ecr.send(new CreateRepositoryCommand({ repositoryName: "aes-repo" }))
    await ecr.send(new SetRepositoryPolicyCommand({ repositoryName: "aes-repo", policyText: policy([{ Sid: "PushFromPartner", Effect: "Allow", Principal: { AWS: OTHER_ACCOUNT }, Action: ["ecr:PutImage", "ecr:InitiateLayerUpload"] }]) }))
    await ecr.send(new CreateRepositoryCommand({ repositoryName: "kms-default-repo", encryptionConfiguration: { encryptionType: "KMS", kmsKey: "alias/aws/ecr" } }))
    await ecr.send(new SetRepositoryPolicyCommand({ repositoryName: "kms-default-repo", policyText: policy([{ Sid: "Everything", Effect: "Allow", Principal: { AWS: `arn:aws:iam::${ACCOUNT}:root` }, Action: "ecr:*" }]) }))

    const s3 = c.get("s3", E)
    await s3.send(new CreateBucketCommand({ Bucket: "locked-trail-bucket", ObjectLockEnabledForBucket: true }))
    await s3.send(new CreateBucketCommand({ Bucket: "plain-trail-bucket" }))
    const ct = c.get("cloudtrail", E)
    const sns = c.get("sns", E)
    await sns.send(new CreateTopicCommand({ Name: "trail-delivery" }))
    await ct.send(new CreateTrailCommand({ Name: "good-trail", S3BucketName: "locked-trail-bucket", IsMultiRegionTrail: true, SnsTopicName: "trail-delivery" }))
    await ct.send(new StartLoggingCommand({ Name: "good-trail" }))
    await ct.send(new PutInsightSelectorsCommand({ TrailName: "good-trail", InsightSelectors: [{ InsightType: "ApiCallRateInsight" }] }))
    await ct.send(new CreateTrailCommand({ Name: "data-only-trail", S3BucketName: "plain-trail-bucket" }))
    await ct.send(new PutEventSelectorsCommand({ TrailName: "data-only-trail", EventSelectors: [{ ReadWriteType: "All", IncludeManagementEvents: false, DataResources: [{ Type: "AWS::S3::Object", Values: ["arn:aws:s3"] }] }] }))

    const sqs = c.get("sqs", E)
    await sqs.send(new CreateQueueCommand({ QueueName: "orders-dlq" }))
    await sqs.send(
      new CreateQueueCommand({
        QueueName: "orders",
        Attributes: { KmsMasterKeyId: cmk, RedrivePolicy: JSON.stringify({ deadLetterTargetArn: q("orders-dlq"), maxReceiveCount: 5 }), Policy: policy([{ Sid: "FromBus", Effect: "Allow", Principal: { Service: "events.amazonaws.com" }, Action: "sqs:SendMessage", Resource: q("orders"), Condition: { ArnEquals: { "aws:SourceArn": `arn:aws:events:${E}:${OTHER_ACCOUNT}:rule/x` } } }]) },
      }),
    )
    await sqs.send(new CreateQueueCommand({ QueueName: "jobs", Attributes: { KmsMasterKeyId: "alias/aws/sqs", Policy: policy([{ Sid: "Partner", Effect: "Allow", Principal: { AWS: OTHER_ACCOUNT }, Action: "sqs:*", Resource: q("jobs") }]) } }))
    await sns.send(new CreateTopicCommand({ Name: "own-topic" }))
    await sns.send(new CreateTopicCommand({ Name: "shared-topic" }))
    await sns.send(new SetTopicAttributesCommand({ TopicArn: topic("shared-topic"), AttributeName: "Policy", AttributeValue: policy([{ Sid: "PartnerPublish", Effect: "Allow", Principal: { AWS: `arn:aws:iam::${OTHER_ACCOUNT}:root` }, Action: "sns:Publish", Resource: topic("shared-topic") }]) }))

    const ddb = c.get("dynamodb", E)
    const table = { AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" as const }], KeySchema: [{ AttributeName: "pk", KeyType: "HASH" as const }], BillingMode: "PAY_PER_REQUEST" as const }
    await ddb.send(new CreateTableCommand({ ...table, TableName: "backed-up" }))
    await ddb.send(new CreateBackupCommand({ TableName: "backed-up", BackupName: "nightly" }))
    await ddb.send(new CreateTableCommand({ ...table, TableName: "no-backup" }))
    c.destroy()

    for (const s of ["lambda", "ecr", "cloudtrail", "sqs", "sns", "dynamodb"]) r[s] = await scan(moto, s)
    r.s3 = await scan(moto, "s3", { checkIds: ["s3_bucket_object_lock"] })
    r.dynamodbLater = await scan(moto, "dynamodb", { regions: [E], checkIds: ["dynamodb_table_backed_up"], now: new Date(Date.now() + 40 * 86_400_000) })
    // moto never stores MFADelete (shared/cloud/moto.md): the compliant case answers GetBucketVersioning itself.
    r.mfa = await scan(moto, "cloudtrail", {
      checkIds: ["cloudtrail_bucket_mfa_delete_enabled"],
      stub: ({ command, input }) =>
        command === "GetBucketVersioningCommand" && (input as { Bucket?: string }).Bucket === "locked-trail-bucket" ? { Status: "Enabled", MFADelete: "Enabled" } : undefined,
    })
  })
  afterAll(async () => {
    await moto?.stop()
  })

  it("Lambda hygiene", () => {
    for (const id of ["awslambda_function_log_group_exists", "awslambda_function_tracing_enabled", "awslambda_function_dead_letter_queue_configured", "awslambda_function_inside_vpc", "awslambda_function_code_signing_enabled", "awslambda_function_no_secrets_in_variables", "awslambda_function_unique_execution_role"]) {
      expectCases(res("lambda"), id, { compliant: ["good-fn"], nonCompliant: ["bad-fn"] })
    }
    expect(rowFor(res("lambda"), "awslambda_function_unique_execution_role", "bad-fn").shared_with).toEqual([`bad-fn-west (${W})`])
    expect(rowFor(res("lambda"), "awslambda_function_no_secrets_in_variables", "bad-fn").variables).toEqual(["API_TOKEN"])
  })

  it("ECR customer key and permissive policies", () => {
    expectCases(res("ecr"), "ecr_repositories_encrypted_with_cmk", { compliant: ["cmk-repo"], nonCompliant: ["aes-repo", "kms-default-repo"] })
    expectCases(res("ecr"), "ecr_repositories_policy_not_permissive", { compliant: ["cmk-repo"], nonCompliant: ["aes-repo", "kms-default-repo"] })
  })

  it("CloudTrail management events, notifications, Insights, bucket protections", () => {
    expectCases(res("cloudtrail"), "cloudtrail_management_events_logged", { compliant: ["good-trail"], nonCompliant: ["data-only-trail"] })
    expectCases(res("cloudtrail"), "cloudtrail_sns_notifications_enabled", { compliant: ["good-trail"], nonCompliant: ["data-only-trail"] })
    expectCases(res("cloudtrail"), "cloudtrail_bucket_object_lock_enabled", { compliant: ["good-trail"], nonCompliant: ["data-only-trail"] })
    expectCases(res("cloudtrail"), "cloudtrail_insights_enabled", { compliant: [ACCOUNT] })
    expectCases(res("cloudtrail"), "cloudtrail_bucket_mfa_delete_enabled", { nonCompliant: ["good-trail", "data-only-trail"] })
    expectCases(res("mfa"), "cloudtrail_bucket_mfa_delete_enabled", { compliant: ["good-trail"], nonCompliant: ["data-only-trail"] })
  })

  it("S3 Object Lock", () => {
    expectCases(res("s3"), "s3_bucket_object_lock", { compliant: ["locked-trail-bucket"], nonCompliant: ["plain-trail-bucket"] })
  })

  it("SQS dead-letter queue, customer key, cross-account policy; SNS cross-account policy", () => {
    expectCases(res("sqs"), "sqs_queues_dead_letter_queue_configured", { compliant: [q("orders")], nonCompliant: [q("jobs")] })
    expect(finding(res("sqs"), "sqs_queues_dead_letter_queue_configured").details.some((d) => d.resource_id === q("orders-dlq"))).toBe(false)
    expectCases(res("sqs"), "sqs_queues_encrypted_with_cmk", { compliant: [q("orders")], nonCompliant: [q("jobs"), q("orders-dlq")] })
    expectCases(res("sqs"), "sqs_queues_not_cross_account", { compliant: [q("orders"), q("orders-dlq")], nonCompliant: [q("jobs")] })
    expectCases(res("sns"), "sns_topics_not_cross_account", { compliant: [topic("own-topic")], nonCompliant: [topic("shared-topic")] })
  })

  it("DynamoDB backups (on-demand backup within 35 days, or point-in-time recovery)", () => {
    expectCases(res("dynamodb"), "dynamodb_table_backed_up", { compliant: ["backed-up"], nonCompliant: ["no-backup"] })
    expectCases(res("dynamodbLater"), "dynamodb_table_backed_up", { nonCompliant: ["backed-up"] })
  })
})
