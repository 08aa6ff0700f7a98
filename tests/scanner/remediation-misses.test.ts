/** Fixers for issue 16 misses on moto: Lambda log group, SQS dead-letter queue, DynamoDB backups, CloudTrail management events. */
import { afterAll, beforeAll, describe, it } from "vitest"
import { CreateFunctionCommand } from "@aws-sdk/client-lambda"
import { CreateRoleCommand } from "@aws-sdk/client-iam"
import { CreateQueueCommand } from "@aws-sdk/client-sqs"
import { CreateTableCommand } from "@aws-sdk/client-dynamodb"
import { CreateBucketCommand } from "@aws-sdk/client-s3"
import { CreateTrailCommand, PutEventSelectorsCommand } from "@aws-sdk/client-cloudtrail"
import { startMoto, type Moto } from "../support/moto.ts"
import { ACCOUNT, expectFixed, seedClients } from "./helpers.ts"

const E = "us-east-1"
const EMPTY_ZIP = new Uint8Array(Buffer.from(`504b0506${"00".repeat(18)}`, "hex"))

describe("fixers for the issue 16 misses on moto", () => {
  let moto: Moto

  beforeAll(async () => {
    moto = await startMoto()
    const c = seedClients(moto)
    const role = await c.get("iam", E).send(
      new CreateRoleCommand({ RoleName: "fn", AssumeRolePolicyDocument: JSON.stringify({ Version: "2012-10-17", Statement: [{ Effect: "Allow", Principal: { Service: "lambda.amazonaws.com" }, Action: "sts:AssumeRole" }] }) }),
    )
    await c.get("lambda", E).send(new CreateFunctionCommand({ FunctionName: "worker", Runtime: "nodejs22.x", Role: role.Role?.Arn, Handler: "index.handler", Code: { ZipFile: EMPTY_ZIP } }))
    await c.get("sqs", E).send(new CreateQueueCommand({ QueueName: "tasks" }))
    await c.get("dynamodb", E).send(
      new CreateTableCommand({ TableName: "ledger", AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }], KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }], BillingMode: "PAY_PER_REQUEST" }),
    )
    await c.get("s3", E).send(new CreateBucketCommand({ Bucket: "trail-logs-fix" }))
    await c.get("cloudtrail", E).send(new CreateTrailCommand({ Name: "data-trail", S3BucketName: "trail-logs-fix" }))
    await c.get("cloudtrail", E).send(
      new PutEventSelectorsCommand({ TrailName: "data-trail", EventSelectors: [{ ReadWriteType: "WriteOnly", IncludeManagementEvents: false, DataResources: [{ Type: "AWS::S3::Object", Values: ["arn:aws:s3"] }] }] }),
    )
    c.destroy()
  })
  afterAll(async () => {
    await moto?.stop()
  })

  it("Lambda log group (moto ignores TracingConfig on UpdateFunctionConfiguration, so tracing has no fixer)", async () => {
    await expectFixed(moto, "lambda", "awslambda_function_log_group_exists", "worker")
  })

  it("SQS dead-letter queue and DynamoDB backups", async () => {
    await expectFixed(moto, "sqs", "sqs_queues_dead_letter_queue_configured", `arn:aws:sqs:${E}:${ACCOUNT}:tasks`)
    await expectFixed(moto, "dynamodb", "dynamodb_table_backed_up", "ledger")
  })

  it("CloudTrail management events", async () => {
    await expectFixed(moto, "cloudtrail", "cloudtrail_management_events_logged", "data-trail")
  })
})
