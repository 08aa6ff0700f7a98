/**
 * Issue 32 on moto, the logging and detection fixers converted to the plan vocabulary (server/remediation/aws/logging.ts):
 * CloudTrail management events, multi-region, log file validation and logging, KMS key rotation, GuardDuty and Security
 * Hub. For each, the preview changes nothing, apply is verified by a re-scan, and undo restores the state before the fix
 * field by field (a fresh scan fails the resource again) — `expectRoundTrip` (./helpers.ts). Apply and undo seconds of
 * each are printed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CreateBucketCommand } from "@aws-sdk/client-s3"
import { CreateTrailCommand, DescribeTrailsCommand, GetEventSelectorsCommand, GetTrailStatusCommand, PutEventSelectorsCommand } from "@aws-sdk/client-cloudtrail"
import { CreateKeyCommand, GetKeyRotationStatusCommand } from "@aws-sdk/client-kms"
import { ListDetectorsCommand } from "@aws-sdk/client-guardduty"
import { DescribeHubCommand } from "@aws-sdk/client-securityhub"
import { CreateClusterCommand, DescribeClustersCommand } from "@aws-sdk/client-redshift"
import { CreateDeploymentCommand, CreateRestApiCommand, GetResourcesCommand, GetStageCommand, PutIntegrationCommand, PutMethodCommand, UpdateStageCommand } from "@aws-sdk/client-api-gateway"
import { CreateDomainCommand, DescribeDomainCommand } from "@aws-sdk/client-opensearch"
import { CreateStreamCommand, DescribeStreamSummaryCommand } from "@aws-sdk/client-kinesis"
import { CreateDocumentCommand, DescribeDocumentPermissionCommand, ModifyDocumentPermissionCommand } from "@aws-sdk/client-ssm"
import { CreateBrokerCommand, DescribeBrokerCommand, ListBrokersCommand } from "@aws-sdk/client-mq"
import { CreateLoadBalancerCommand, DescribeLoadBalancerAttributesCommand, ModifyLoadBalancerAttributesCommand } from "@aws-sdk/client-elastic-load-balancing"
import { GetBlockPublicAccessConfigurationCommand, PutBlockPublicAccessConfigurationCommand } from "@aws-sdk/client-emr"
import { CreateDeliveryStreamCommand, DescribeDeliveryStreamCommand } from "@aws-sdk/client-firehose"
import { GetDataCatalogEncryptionSettingsCommand } from "@aws-sdk/client-glue"
import { awsFixers, previewFinding, remediableChecks } from "../../server/remediation/aws/remediate.ts"
import { isPlanFixer } from "../../server/remediation/aws/fixer.ts"
import type { AwsClients } from "../../server/scanner/aws/clients.ts"
import { startMoto, type Moto } from "../support/moto.ts"
import { ACCOUNT, expectRoundTrip, rowFor, scan, seedClients, testKeys, type RoundTrip } from "./helpers.ts"

const E = "us-east-1"

describe("logging and services fixers: preview and undo on moto (issue 32)", () => {
  let moto: Moto
  let c: AwsClients
  let keyId = ""
  const timing = (check: string, r: RoundTrip) => console.info(`round trip ${check}: apply ${r.applySeconds.toFixed(2)} s, undo ${r.undoSeconds.toFixed(2)} s`)
  const trailState = (name: string) => async () => {
    const ct = c.get("cloudtrail", E)
    // moto ignores trailNameList and answers every trail
    const trail = ((await ct.send(new DescribeTrailsCommand({ trailNameList: [name] }))).trailList ?? []).find((t) => t.Name === name) ?? {}
    const { $metadata: _s, LatestDeliveryTime: _l, StartLoggingTime: _st, StopLoggingTime: _sp, ...status } = await ct.send(new GetTrailStatusCommand({ Name: name }))
    const { $metadata: _e, ...selectors } = await ct.send(new GetEventSelectorsCommand({ TrailName: name }))
    return { trail, status, selectors }
  }

  beforeAll(async () => {
    moto = await startMoto()
    c = seedClients(moto)
    await c.get("s3", E).send(new CreateBucketCommand({ Bucket: "u-trail-logs" }))
    const ct = c.get("cloudtrail", E)
    await ct.send(new CreateTrailCommand({ Name: "u-trail", S3BucketName: "u-trail-logs" }))
    await ct.send(new CreateTrailCommand({ Name: "u-cw-trail", S3BucketName: "u-trail-logs", CloudWatchLogsLogGroupArn: `arn:aws:logs:${E}:${ACCOUNT}:log-group:ct:*`, CloudWatchLogsRoleArn: `arn:aws:iam::${ACCOUNT}:role/ct` }))
    await ct.send(new CreateTrailCommand({ Name: "u-data-trail", S3BucketName: "u-trail-logs" }))
    await ct.send(new PutEventSelectorsCommand({ TrailName: "u-data-trail", EventSelectors: [{ ReadWriteType: "WriteOnly", IncludeManagementEvents: false, DataResources: [{ Type: "AWS::S3::Object", Values: ["arn:aws:s3"] }] }] }))
    keyId = (await c.get("kms", E).send(new CreateKeyCommand({ Description: "no rotation" }))).KeyMetadata?.KeyId ?? ""
  }, 120_000)
  afterAll(async () => {
    c?.destroy()
    await moto?.stop()
  })

  it("CloudTrail management events: all recorded (data selectors kept), then the selectors read before by the undo", { timeout: 120_000 }, async () => {
    const check = "cloudtrail_management_events_logged"
    const r = await expectRoundTrip(moto, "cloudtrail", check, "u-data-trail", trailState("u-data-trail"))
    timing(check, r)
    expect(r.preview.calls.map((call) => call.operation)).toEqual(["PutEventSelectors"])
    expect(r.result.pre_image).toMatchObject({ AdvancedEventSelectors: null, EventSelectors: [{ ReadWriteType: "WriteOnly", IncludeManagementEvents: false }] })
  })

  it("CloudTrail log file validation: on, then off by the undo", { timeout: 120_000 }, async () => {
    const check = "cloudtrail_log_file_validation_enabled"
    const r = await expectRoundTrip(moto, "cloudtrail", check, "u-trail", trailState("u-trail"))
    timing(check, r)
    expect(r.result.pre_image).toEqual({ LogFileValidationEnabled: false })
    expect(r.result.post_image).toEqual({ LogFileValidationEnabled: true })
  })

  it("CloudTrail logging of a trail with a log group: started, then stopped by the undo", { timeout: 120_000 }, async () => {
    const check = "cloudtrail_cloudwatch_logging_enabled"
    const r = await expectRoundTrip(moto, "cloudtrail", check, "u-cw-trail", trailState("u-cw-trail"))
    timing(check, r)
    expect(r.preview.calls.map((call) => call.operation)).toEqual(["StartLogging"])
    expect(r.preview.undo_calls.map((call) => call.operation)).toEqual(["StopLogging"])
  })

  it("CloudTrail multi-region: the trail extended to every region and logging, then back to single-region and stopped", { timeout: 120_000 }, async () => {
    const check = "cloudtrail_multi_region_enabled"
    const r = await expectRoundTrip(moto, "cloudtrail", check, `${ACCOUNT}/${E}`, async () => ({ a: await trailState("u-trail")(), b: await trailState("u-cw-trail")(), d: await trailState("u-data-trail")() }))
    timing(check, r)
    expect(r.result.pre_image).toMatchObject({ IsMultiRegionTrail: false })
    expect(r.result.post_image).toMatchObject({ IsMultiRegionTrail: true, IsLogging: true })
  })

  it("KMS key rotation: on, then off by the undo", { timeout: 120_000 }, async () => {
    const check = "kms_cmk_rotation_enabled"
    const r = await expectRoundTrip(moto, "kms", check, keyId, async () => {
      const { $metadata: _m, ...rest } = await c.get("kms", E).send(new GetKeyRotationStatusCommand({ KeyId: keyId }))
      return rest
    })
    timing(check, r)
    expect(r.preview.undo_calls.map((call) => call.operation)).toEqual(["DisableKeyRotation"])
  })

  it("GuardDuty: a detector created, then deleted by the undo (the id answered by the apply)", { timeout: 120_000 }, async () => {
    const check = "guardduty_is_enabled"
    const r = await expectRoundTrip(moto, "guardduty", check, `${ACCOUNT}/${E}`, async () => (await c.get("guardduty", E).send(new ListDetectorsCommand({}))).DetectorIds ?? [])
    timing(check, r)
    expect(r.preview.calls.map((call) => call.operation)).toEqual(["CreateDetector"])
    expect(r.preview.undo_calls[0]?.cli).toContain("answered by step 1 of the fix")
    expect(r.result.pre_image).toEqual({ DetectorId: null, Status: null })
  })

  it("Security Hub: subscribed, then unsubscribed by the undo", { timeout: 120_000 }, async () => {
    const check = "securityhub_enabled"
    const r = await expectRoundTrip(moto, "securityhub", check, `${ACCOUNT}/${E}`, async () => {
      try {
        return (await c.get("securityhub", E).send(new DescribeHubCommand({}))).HubArn ?? null
      } catch {
        return null
      }
    })
    timing(check, r)
    expect(r.preview.undo_calls.map((call) => call.operation)).toEqual(["DisableSecurityHub"])
    expect(r.result.pre_image).toEqual({ HubArn: null })
  })
})

/**
 * The managed-service fixers (server/remediation/aws/services.ts): Redshift, API Gateway stages, OpenSearch, Kinesis,
 * Firehose, Glue, classic ELB, EMR, SSM documents, MQ brokers. OpenSearch node-to-node encryption and encryption at rest
 * cannot be turned off once on: their plan is irreversible and says why before anything changes.
 */
describe("managed service fixers: preview and undo on moto (issue 32)", () => {
  let moto: Moto
  let c: AwsClients
  let stage = ""
  const timing = (check: string, r: RoundTrip) => console.info(`round trip ${check}: apply ${r.applySeconds.toFixed(2)} s, undo ${r.undoSeconds.toFixed(2)} s`)
  const strip = <T extends object>(o: T) => {
    const { $metadata: _m, ...rest } = o as T & { $metadata?: unknown }
    return rest
  }

  beforeAll(async () => {
    moto = await startMoto()
    c = seedClients(moto)
    await c.get("redshift", E).send(new CreateClusterCommand({ ClusterIdentifier: "u-dw", NodeType: "ra3.xlplus", MasterUsername: "dw_owner", MasterUserPassword: "Secret-Passw0rd", PubliclyAccessible: true, AllowVersionUpgrade: false, AutomatedSnapshotRetentionPeriod: 1 }))
    const gw = c.get("apigateway", E)
    const api = await gw.send(new CreateRestApiCommand({ name: "u-orders" }))
    const root = (await gw.send(new GetResourcesCommand({ restApiId: api.id }))).items?.[0]?.id
    await gw.send(new PutMethodCommand({ restApiId: api.id, resourceId: root, httpMethod: "GET", authorizationType: "AWS_IAM" }))
    await gw.send(new PutIntegrationCommand({ restApiId: api.id, resourceId: root, httpMethod: "GET", type: "MOCK" }))
    await gw.send(new CreateDeploymentCommand({ restApiId: api.id, stageName: "prod" }))
    await gw.send(new UpdateStageCommand({ restApiId: api.id, stageName: "prod", patchOperations: [{ op: "replace", path: "/cacheClusterEnabled", value: "true" }] }))
    stage = `${api.id}/prod`
    await c.get("opensearch", E).send(new CreateDomainCommand({ DomainName: "u-search" }))
    await c.get("kinesis", E).send(new CreateStreamCommand({ StreamName: "u-clicks", ShardCount: 1 }))
    const content = JSON.stringify({ schemaVersion: "2.2", description: "noop", mainSteps: [{ action: "aws:runShellScript", name: "noop", inputs: { runCommand: ["true"] } }] })
    await c.get("ssm", E).send(new CreateDocumentCommand({ Name: "u-doc", Content: content, DocumentType: "Command" }))
    await c.get("ssm", E).send(new ModifyDocumentPermissionCommand({ Name: "u-doc", PermissionType: "Share", AccountIdsToAdd: ["all"] }))
    await c.get("mq", E).send(new CreateBrokerCommand({ BrokerName: "u-queue", DeploymentMode: "SINGLE_INSTANCE", EngineType: "ACTIVEMQ", EngineVersion: "5.17.6", HostInstanceType: "mq.t3.micro", Users: [{ Username: "admin_user", Password: "Secret-Passw0rd-1" }], PubliclyAccessible: false, AutoMinorVersionUpgrade: false }))
    await c.get("elb", E).send(new CreateLoadBalancerCommand({ LoadBalancerName: "u-legacy", Listeners: [{ Protocol: "HTTP", LoadBalancerPort: 80, InstanceProtocol: "HTTP", InstancePort: 80 }], AvailabilityZones: ["us-east-1a"] }))
    await c.get("elb", E).send(new ModifyLoadBalancerAttributesCommand({ LoadBalancerName: "u-legacy", LoadBalancerAttributes: { CrossZoneLoadBalancing: { Enabled: false }, ConnectionDraining: { Enabled: false } } }))
    await c.get("emr", E).send(new PutBlockPublicAccessConfigurationCommand({ BlockPublicAccessConfiguration: { BlockPublicSecurityGroupRules: true, PermittedPublicSecurityGroupRuleRanges: [{ MinRange: 0, MaxRange: 65535 }] } }))
    await c.get("firehose", E).send(new CreateDeliveryStreamCommand({ DeliveryStreamName: "u-to-s3", ExtendedS3DestinationConfiguration: { RoleARN: `arn:aws:iam::${ACCOUNT}:role/fh`, BucketARN: "arn:aws:s3:::dest" } }))
  }, 120_000)
  afterAll(async () => {
    c?.destroy()
    await moto?.stop()
  })

  it("Redshift: public access, version upgrades, snapshot retention, enhanced VPC routing — each undone to the value read", { timeout: 240_000 }, async () => {
    const clusterState = async () => {
      const cl = (await c.get("redshift", E).send(new DescribeClustersCommand({ ClusterIdentifier: "u-dw" }))).Clusters?.[0]
      return { public: cl?.PubliclyAccessible, upgrade: cl?.AllowVersionUpgrade, retention: cl?.AutomatedSnapshotRetentionPeriod, vpc: cl?.EnhancedVpcRouting, status: cl?.ClusterStatus }
    }
    for (const check of ["redshift_cluster_public_access", "redshift_cluster_automatic_upgrades", "redshift_cluster_automated_snapshots", "redshift_cluster_enhanced_vpc_routing"]) {
      const r = await expectRoundTrip(moto, "redshift", check, "u-dw", clusterState)
      timing(check, r)
      expect(r.preview.calls.map((call) => call.operation), check).toEqual(["ModifyCluster"])
    }
  })

  it("API Gateway stage: logging level, X-Ray tracing, cache encryption — each replaced back by the undo", { timeout: 240_000 }, async () => {
    const stageState = async () => {
      const [restApiId, stageName] = stage.split("/")
      const { lastUpdatedDate: _u, createdDate: _c, ...rest } = strip(await c.get("apigateway", E).send(new GetStageCommand({ restApiId, stageName })))
      return rest
    }
    // Cache encryption first: moto fills a "*/*" method setting created by another patch with its own defaults
    // (cacheDataEncrypted included), which AWS does not.
    for (const check of ["apigateway_restapi_stage_cache_encrypted", "apigateway_restapi_stage_logging_enabled", "apigateway_restapi_stage_xray_tracing"]) {
      const r = await expectRoundTrip(moto, "apigateway", check, stage, stageState)
      timing(check, r)
      expect(r.preview.permissions.map((p) => p.action), check).toEqual(["apigateway:PATCH"])
    }
  })

  it("Kinesis encryption and retention, Firehose encryption, Glue catalog encryption", { timeout: 240_000 }, async () => {
    const streamState = async () => {
      const s = (await c.get("kinesis", E).send(new DescribeStreamSummaryCommand({ StreamName: "u-clicks" }))).StreamDescriptionSummary
      return { enc: s?.EncryptionType, key: s?.KeyId ?? null, hours: s?.RetentionPeriodHours, shards: s?.OpenShardCount }
    }
    for (const check of ["kinesis_stream_encrypted_at_rest", "kinesis_stream_retention_7_days"]) timing(check, await expectRoundTrip(moto, "kinesis", check, "u-clicks", streamState))
    const fh = await expectRoundTrip(moto, "firehose", "firehose_stream_encrypted_at_rest", "u-to-s3", async () => (await c.get("firehose", E).send(new DescribeDeliveryStreamCommand({ DeliveryStreamName: "u-to-s3" }))).DeliveryStreamDescription?.DeliveryStreamEncryptionConfiguration ?? null)
    timing("firehose_stream_encrypted_at_rest", fh)
    const glueState = async () => (await c.get("glue", E).send(new GetDataCatalogEncryptionSettingsCommand({}))).DataCatalogEncryptionSettings ?? null
    const glue = await expectRoundTrip(moto, "glue", "glue_data_catalog_encrypted", `${ACCOUNT}/${E}`, glueState)
    timing("glue_data_catalog_encrypted", glue)
    expect(glue.result.pre_image).toMatchObject({ EncryptionAtRest: { CatalogEncryptionMode: "DISABLED" } })
  })

  it("classic ELB cross-zone and draining, EMR block public access, SSM public document, MQ minor upgrades", { timeout: 240_000 }, async () => {
    const elbState = async () => strip(await c.get("elb", E).send(new DescribeLoadBalancerAttributesCommand({ LoadBalancerName: "u-legacy" })))
    for (const check of ["elb_cross_zone_load_balancing", "elb_connection_draining"]) timing(check, await expectRoundTrip(moto, "elb", check, "u-legacy", elbState))
    const emr = await expectRoundTrip(moto, "emr", "emr_block_public_access_enabled", `${ACCOUNT}/${E}`, async () => (await c.get("emr", E).send(new GetBlockPublicAccessConfigurationCommand({}))).BlockPublicAccessConfiguration ?? null)
    timing("emr_block_public_access_enabled", emr)
    expect(emr.preview.terraform).toContain('resource "aws_emr_block_public_access_configuration"')
    expect(emr.result.pre_image).toEqual({ BlockPublicSecurityGroupRules: true, PermittedPublicSecurityGroupRuleRanges: [{ MinRange: 0, MaxRange: 65535 }] })
    const ssm = await expectRoundTrip(moto, "ssm", "ssm_document_not_public", "u-doc", async () => strip(await c.get("ssm", E).send(new DescribeDocumentPermissionCommand({ Name: "u-doc", PermissionType: "Share" }))))
    timing("ssm_document_not_public", ssm)
    expect(ssm.result.pre_image).toEqual({ AccountIds: ["all"] })
    const brokerState = async () => {
      const id = (await c.get("mq", E).send(new ListBrokersCommand({}))).BrokerSummaries?.find((b) => b.BrokerName === "u-queue")?.BrokerId
      const b = await c.get("mq", E).send(new DescribeBrokerCommand({ BrokerId: id }))
      return { minor: b.AutoMinorVersionUpgrade, state: b.BrokerState, engine: b.EngineVersion }
    }
    timing("mq_broker_auto_minor_version_upgrade", await expectRoundTrip(moto, "mq", "mq_broker_auto_minor_version_upgrade", "u-queue", brokerState))
  })

  it("OpenSearch: TLS 1.2 undone to the policy read; node-to-node and at-rest encryption are irreversible and say so in the preview", { timeout: 240_000 }, async () => {
    const domainState = async () => {
      const d = (await c.get("opensearch", E).send(new DescribeDomainCommand({ DomainName: "u-search" }))).DomainStatus
      return { n2n: d?.NodeToNodeEncryptionOptions ?? null, rest: d?.EncryptionAtRestOptions ?? null, endpoint: d?.DomainEndpointOptions ?? null }
    }
    timing("opensearch_domain_https_tls12", await expectRoundTrip(moto, "opensearch", "opensearch_domain_https_tls12", "u-search", domainState))
    for (const [check, reason] of [["opensearch_domain_node_to_node_encryption", "node-to-node"], ["opensearch_domain_encryption_at_rest", "encryption at rest"]] as const) {
      const row = rowFor(await scan(moto, "opensearch", { checkIds: [check], regions: [E] }), check, "u-search")
      expect(row.compliant, check).toBe(false)
      const before = await domainState()
      const preview = await previewFinding({ credentials: testKeys, checkId: check, row, endpoint: moto.endpoint, maxAttempts: 1 })
      expect(preview.reversible, check).toBe(false)
      expect(preview.terraform, check).toContain('resource "aws_opensearch_domain" "u_search"')
      expect(preview.undo_note, check).toContain(reason)
      expect(await domainState(), `${check}: the preview changed nothing`).toEqual(before)
    }
  })
})

it("every AWS fixer plans (read, plan, undo): none is left in the older apply shape", () => {
  expect(awsFixers.filter((f) => !isPlanFixer(f)).flatMap((f) => f.checkIds)).toEqual([])
  expect(remediableChecks().every((r) => r.previewable)).toBe(true)
})
