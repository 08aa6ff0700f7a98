import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CreateBucketCommand, PutBucketAclCommand, PutBucketLoggingCommand } from "@aws-sdk/client-s3"
import { CreateTrailCommand, PutEventSelectorsCommand, StartLoggingCommand } from "@aws-sdk/client-cloudtrail"
import { CreateLogGroupCommand, PutMetricFilterCommand, PutRetentionPolicyCommand } from "@aws-sdk/client-cloudwatch-logs"
import { PutMetricAlarmCommand } from "@aws-sdk/client-cloudwatch"
import { CreateTopicCommand, SetTopicAttributesCommand, SubscribeCommand } from "@aws-sdk/client-sns"
import { CreateQueueCommand } from "@aws-sdk/client-sqs"
import { PutConfigurationRecorderCommand, PutDeliveryChannelCommand, StartConfigurationRecorderCommand } from "@aws-sdk/client-config-service"
import { CreateKeyCommand, EnableKeyRotationCommand, PutKeyPolicyCommand, ScheduleKeyDeletionCommand } from "@aws-sdk/client-kms"
import { EnableSecurityHubCommand } from "@aws-sdk/client-securityhub"
import { CreateDetectorCommand } from "@aws-sdk/client-guardduty"
import type { AwsClients } from "../../server/scanner/aws/clients.ts"
import { monitoringSpecs } from "../../server/scanner/aws/checks/cloudwatch.ts"
import type { ScanServiceResult } from "../../server/scanner/aws/scan-service.ts"
import { startMoto, type Moto } from "../support/moto.ts"
import { ACCOUNT, expectCases, expectStatus, finding, OTHER_ACCOUNT, otherAccountKeys, rowFor, scan, seedClients } from "./helpers.ts"

const LOG_DELIVERY = "http://acs.amazonaws.com/groups/s3/LogDelivery"
const E = "us-east-1"
const W = "eu-west-1"
const publicPolicy = (resource: string, action: string) =>
  JSON.stringify({ Version: "2012-10-17", Statement: [{ Sid: "Everyone", Effect: "Allow", Principal: "*", Action: action, Resource: resource }] })

async function seedMonitoring(c: AwsClients, keyArn: string) {
  const logs = c.get("logs", E)
  await logs.send(new CreateLogGroupCommand({ logGroupName: "cloudtrail-logs", kmsKeyId: keyArn }))
  await logs.send(new PutRetentionPolicyCommand({ logGroupName: "cloudtrail-logs", retentionInDays: 400 }))
  await logs.send(new CreateLogGroupCommand({ logGroupName: "app-logs" }))
  await logs.send(new PutRetentionPolicyCommand({ logGroupName: "app-logs", retentionInDays: 7 }))
  const sns = c.get("sns", E)
  const alerts = (await sns.send(new CreateTopicCommand({ Name: "security-alerts", Attributes: { KmsMasterKeyId: "alias/aws/sns" } }))).TopicArn ?? ""
  await sns.send(new SubscribeCommand({ TopicArn: alerts, Protocol: "email", Endpoint: "secops@example.com" }))
  const silent = (await sns.send(new CreateTopicCommand({ Name: "no-subscribers" }))).TopicArn ?? ""
  await sns.send(new SetTopicAttributesCommand({ TopicArn: silent, AttributeName: "Policy", AttributeValue: publicPolicy(silent, "SNS:Publish") }))
  const cw = c.get("cloudwatch", E)
  for (const spec of monitoringSpecs) {
    if (spec.cis === "4.15") {
      // Organizations changes: filter without an alarm.
      await logs.send(new PutMetricFilterCommand({ logGroupName: "cloudtrail-logs", filterName: spec.id, filterPattern: spec.pattern, metricTransformations: [{ metricName: spec.id, metricNamespace: "CISBenchmark", metricValue: "1" }] }))
      continue
    }
    await logs.send(new PutMetricFilterCommand({ logGroupName: "cloudtrail-logs", filterName: spec.id, filterPattern: spec.pattern, metricTransformations: [{ metricName: spec.id, metricNamespace: "CISBenchmark", metricValue: "1" }] }))
    await cw.send(
      new PutMetricAlarmCommand({
        AlarmName: `${spec.id}-alarm`,
        MetricName: spec.id,
        Namespace: "CISBenchmark",
        Statistic: "Sum",
        Period: 300,
        EvaluationPeriods: 1,
        Threshold: 1,
        ComparisonOperator: "GreaterThanOrEqualToThreshold",
        // VPC changes alarm to a topic nobody subscribed to.
        AlarmActions: [spec.cis === "4.14" ? silent : alerts],
      }),
    )
  }
  // A log group without a retention setting never expires events (compliant for the retention check).
  await logs.send(new CreateLogGroupCommand({ logGroupName: "other-trail-logs" }))
}

describe("logging and monitoring checks on moto (CloudTrail, Config, KMS, CloudWatch, SNS, SQS, Security Hub, GuardDuty)", () => {
  let moto: Moto
  const r: Record<string, ScanServiceResult> = {}
  const keys: Record<string, string> = {}
  const topics: Record<string, string> = {}
  const queues: Record<string, string> = {}

  beforeAll(async () => {
    moto = await startMoto()
    const c = seedClients(moto)
    const s3e = c.get("s3", E)
    await s3e.send(new CreateBucketCommand({ Bucket: "access-logs-1" }))
    await s3e.send(new PutBucketAclCommand({ Bucket: "access-logs-1", GrantWrite: `uri="${LOG_DELIVERY}"`, GrantReadACP: `uri="${LOG_DELIVERY}"` }))
    await s3e.send(new CreateBucketCommand({ Bucket: "trail-bucket-1" }))
    await s3e.send(new PutBucketLoggingCommand({ Bucket: "trail-bucket-1", BucketLoggingStatus: { LoggingEnabled: { TargetBucket: "access-logs-1", TargetPrefix: "trail/" } } }))
    await c.get("s3", W).send(new CreateBucketCommand({ Bucket: "trail-bucket-eu", CreateBucketConfiguration: { LocationConstraint: W } }))

    const kms = c.get("kms", E)
    const key = async (name: string) => (await kms.send(new CreateKeyCommand({ Description: name }))).KeyMetadata
    const rotating = await key("rotating")
    keys.rotating = rotating?.KeyId ?? ""
    await kms.send(new EnableKeyRotationCommand({ KeyId: keys.rotating }))
    keys.static = (await key("static"))?.KeyId ?? ""
    keys.doomed = (await key("doomed"))?.KeyId ?? ""
    await kms.send(new ScheduleKeyDeletionCommand({ KeyId: keys.doomed, PendingWindowInDays: 7 }))
    keys.public = (await key("public"))?.KeyId ?? ""
    await kms.send(new PutKeyPolicyCommand({ KeyId: keys.public, PolicyName: "default", Policy: publicPolicy("*", "kms:*") }))

    await seedMonitoring(c, rotating?.Arn ?? "")

    const ct = c.get("cloudtrail", E)
    await ct.send(
      new CreateTrailCommand({
        Name: "org-trail",
        S3BucketName: "trail-bucket-1",
        IsMultiRegionTrail: true,
        IncludeGlobalServiceEvents: true,
        EnableLogFileValidation: true,
        KmsKeyId: rotating?.Arn,
        CloudWatchLogsLogGroupArn: `arn:aws:logs:${E}:${ACCOUNT}:log-group:cloudtrail-logs:*`,
        CloudWatchLogsRoleArn: `arn:aws:iam::${ACCOUNT}:role/cloudtrail-to-logs`,
      }),
    )
    await ct.send(
      new PutEventSelectorsCommand({
        TrailName: "org-trail",
        EventSelectors: [{ ReadWriteType: "All", IncludeManagementEvents: true, DataResources: [{ Type: "AWS::S3::Object", Values: ["arn:aws:s3"] }] }],
      }),
    )
    await ct.send(new StartLoggingCommand({ Name: "org-trail" }))
    await c.get("cloudtrail", W).send(new CreateTrailCommand({ Name: "eu-trail", S3BucketName: "trail-bucket-eu" }))

    const cfg = c.get("config", E)
    await cfg.send(new PutConfigurationRecorderCommand({ ConfigurationRecorder: { name: "default", roleARN: `arn:aws:iam::${ACCOUNT}:role/config`, recordingGroup: { allSupported: true, includeGlobalResourceTypes: true } } }))
    await cfg.send(new PutDeliveryChannelCommand({ DeliveryChannel: { name: "default", s3BucketName: "access-logs-1" } }))
    await cfg.send(new StartConfigurationRecorderCommand({ ConfigurationRecorderName: "default" }))

    await c.get("securityhub", E).send(new EnableSecurityHubCommand({}))
    await c.get("guardduty", E).send(new CreateDetectorCommand({ Enable: true }))

    const sqs = c.get("sqs", E)
    queues.enc = (await sqs.send(new CreateQueueCommand({ QueueName: "enc-q", Attributes: { KmsMasterKeyId: "alias/aws/sqs" } }))).QueueUrl ?? ""
    queues.plain = (await sqs.send(new CreateQueueCommand({ QueueName: "plain-q", Attributes: { SqsManagedSseEnabled: "false" } }))).QueueUrl ?? ""
    queues.public = (
      await sqs.send(new CreateQueueCommand({ QueueName: "public-q", Attributes: { SqsManagedSseEnabled: "true", Policy: publicPolicy(`arn:aws:sqs:${E}:${ACCOUNT}:public-q`, "sqs:SendMessage") } }))
    ).QueueUrl ?? ""
    topics.alerts = `arn:aws:sns:${E}:${ACCOUNT}:security-alerts`
    topics.silent = `arn:aws:sns:${E}:${ACCOUNT}:no-subscribers`
    c.destroy()

    for (const service of ["cloudtrail", "config", "kms", "cloudwatch", "securityhub", "guardduty", "sns", "sqs"]) r[service] = await scan(moto, service)
    r.cloudwatchOther = await scan(moto, "cloudwatch", { credentials: otherAccountKeys })
  })
  afterAll(async () => {
    await moto?.stop()
  })

  const res = (k: string) => {
    const v = r[k]
    if (v === undefined) throw new Error(`no scan ${k}`)
    return v
  }

  it("cloudtrail_multi_region_enabled", () => {
    expectCases(res("cloudtrail"), "cloudtrail_multi_region_enabled", { compliant: [`${ACCOUNT}/${E}`, `${ACCOUNT}/${W}`] })
    expectStatus(res("cloudtrail"), "cloudtrail_multi_region_enabled", "pass")
    expectCases(res("cloudwatchOther"), "cloudwatch_log_metric_filter_root_usage", { nonCompliant: [OTHER_ACCOUNT] })
  })

  it("trail settings: validation, KMS, CloudWatch Logs, bucket access logging", () => {
    const ct = res("cloudtrail")
    for (const id of ["cloudtrail_log_file_validation_enabled", "cloudtrail_kms_encryption_enabled", "cloudtrail_cloudwatch_logging_enabled", "cloudtrail_logs_s3_bucket_access_logging_enabled"]) {
      expectCases(ct, id, { compliant: ["org-trail"], nonCompliant: ["eu-trail"] })
    }
    // the multi-region trail is reported once, not once per region it shadows
    expect(finding(ct, "cloudtrail_log_file_validation_enabled").details.filter((d) => d.resource_id === "org-trail")).toHaveLength(1)
    expect(rowFor(ct, "cloudtrail_logs_s3_bucket_access_logging_enabled", "org-trail").access_log_target).toBe("access-logs-1")
  })

  it("cloudtrail_s3_dataevents_write_enabled and _read_enabled", () => {
    expectCases(res("cloudtrail"), "cloudtrail_s3_dataevents_write_enabled", { compliant: [ACCOUNT] })
    expectCases(res("cloudtrail"), "cloudtrail_s3_dataevents_read_enabled", { compliant: [ACCOUNT] })
  })

  it("config_recorder_all_regions_enabled", () => {
    expectCases(res("config"), "config_recorder_all_regions_enabled", { compliant: [`${ACCOUNT}/${E}`], nonCompliant: [`${ACCOUNT}/${W}`] })
  })

  it("KMS: rotation, pending deletion, public key policy (AWS-managed keys ignored)", () => {
    const k = res("kms")
    expectCases(k, "kms_cmk_rotation_enabled", { compliant: [keys.rotating ?? ""], nonCompliant: [keys.static ?? "", keys.public ?? ""] })
    expectCases(k, "kms_cmk_not_scheduled_for_deletion", { compliant: [keys.rotating ?? ""], nonCompliant: [keys.doomed ?? ""] })
    expectCases(k, "kms_key_not_publicly_accessible", { compliant: [keys.static ?? ""], nonCompliant: [keys.public ?? ""] })
    // moto pre-seeds alias/aws/* keys as CUSTOMER: they must not show up as customer keys
    expect(finding(k, "kms_cmk_rotation_enabled").details.every((d) => !(d.aliases as string[]).some((a) => a.startsWith("alias/aws/")))).toBe(true)
  })

  it("CIS 4.1–4.13 metric filter chains pass end to end", () => {
    const cw = res("cloudwatch")
    for (const spec of monitoringSpecs.filter((s) => s.cis !== "4.14" && s.cis !== "4.15")) {
      expectCases(cw, spec.id, { compliant: [ACCOUNT] })
      expect(rowFor(cw, spec.id, ACCOUNT).sns_topic).toBe(topics.alerts)
    }
  })

  it("CIS 4.14/4.15 fail at the broken link, and every monitoring check fails without a trail", () => {
    const cw = res("cloudwatch")
    const vpc = rowFor(cw, "cloudwatch_log_metric_filter_vpc_changes", ACCOUNT)
    expect(vpc.compliant).toBe(false)
    expect(vpc.reason).toContain("has no confirmed subscriber")
    const org = rowFor(cw, "cloudwatch_log_metric_filter_aws_organizations_changes", ACCOUNT)
    expect(org.compliant).toBe(false)
    expect(org.reason).toContain("No alarm watches the metric")
    for (const spec of monitoringSpecs) {
      expectCases(res("cloudwatchOther"), spec.id, { nonCompliant: [OTHER_ACCOUNT] })
    }
  })

  it("log group retention and KMS encryption", () => {
    expectCases(res("cloudwatch"), "cloudwatch_log_group_retention_policy_specific_days_enabled", { compliant: ["cloudtrail-logs", "other-trail-logs"], nonCompliant: ["app-logs"] })
    expectCases(res("cloudwatch"), "cloudwatch_log_group_kms_encryption_enabled", { compliant: ["cloudtrail-logs"], nonCompliant: ["app-logs"] })
  })

  it("securityhub_enabled and guardduty_is_enabled per region", () => {
    expectCases(res("securityhub"), "securityhub_enabled", { compliant: [`${ACCOUNT}/${E}`], nonCompliant: [`${ACCOUNT}/${W}`] })
    expectCases(res("guardduty"), "guardduty_is_enabled", { compliant: [`${ACCOUNT}/${E}`], nonCompliant: [`${ACCOUNT}/${W}`] })
  })

  it("SNS topics: encryption and public policy", () => {
    expectCases(res("sns"), "sns_topics_kms_encryption_at_rest_enabled", { compliant: [topics.alerts ?? ""], nonCompliant: [topics.silent ?? ""] })
    expectCases(res("sns"), "sns_topics_not_publicly_accessible", { compliant: [topics.alerts ?? ""], nonCompliant: [topics.silent ?? ""] })
  })

  it("SQS queues: encryption and public policy", () => {
    const arn = (n: string) => `arn:aws:sqs:${E}:${ACCOUNT}:${n}`
    expectCases(res("sqs"), "sqs_queues_server_side_encryption_enabled", { compliant: [arn("enc-q"), arn("public-q")], nonCompliant: [arn("plain-q")] })
    expectCases(res("sqs"), "sqs_queues_not_publicly_accessible", { compliant: [arn("enc-q")], nonCompliant: [arn("public-q")] })
  })

  it("no collection errors on these services", () => {
    for (const [k, v] of Object.entries(r)) expect(v.errors, k).toEqual([])
  })
})
