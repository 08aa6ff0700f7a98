/** Redshift, API Gateway stage and OpenSearch fixers on moto: fail -> fix -> re-collect -> pass. */
import { afterAll, beforeAll, describe, it } from "vitest"
import { CreateClusterCommand } from "@aws-sdk/client-redshift"
import { CreateDeploymentCommand, CreateRestApiCommand, GetResourcesCommand, PutIntegrationCommand, PutMethodCommand, UpdateStageCommand } from "@aws-sdk/client-api-gateway"
import { CreateDomainCommand } from "@aws-sdk/client-opensearch"
import { CreateStreamCommand } from "@aws-sdk/client-kinesis"
import { CreateDocumentCommand, ModifyDocumentPermissionCommand } from "@aws-sdk/client-ssm"
import { CreateBrokerCommand } from "@aws-sdk/client-mq"
import { CreateLoadBalancerCommand, ModifyLoadBalancerAttributesCommand } from "@aws-sdk/client-elastic-load-balancing"
import { PutBlockPublicAccessConfigurationCommand } from "@aws-sdk/client-emr"
import { CreateDeliveryStreamCommand } from "@aws-sdk/client-firehose"
import { startMoto, type Moto } from "../support/moto.ts"
import { ACCOUNT, expectFixed, seedClients } from "./helpers.ts"

const E = "us-east-1"

describe("managed service fixers on moto", () => {
  let moto: Moto
  let stage = ""

  beforeAll(async () => {
    moto = await startMoto()
    const c = seedClients(moto)
    await c.get("redshift", E).send(new CreateClusterCommand({ ClusterIdentifier: "dw", NodeType: "ra3.xlplus", MasterUsername: "dw_owner", MasterUserPassword: "Secret-Passw0rd", PubliclyAccessible: true, AllowVersionUpgrade: false, AutomatedSnapshotRetentionPeriod: 1 }))
    const gw = c.get("apigateway", E)
    const api = await gw.send(new CreateRestApiCommand({ name: "orders" }))
    const root = (await gw.send(new GetResourcesCommand({ restApiId: api.id }))).items?.[0]?.id
    await gw.send(new PutMethodCommand({ restApiId: api.id, resourceId: root, httpMethod: "GET", authorizationType: "AWS_IAM" }))
    await gw.send(new PutIntegrationCommand({ restApiId: api.id, resourceId: root, httpMethod: "GET", type: "MOCK" }))
    await gw.send(new CreateDeploymentCommand({ restApiId: api.id, stageName: "prod" }))
    await gw.send(new UpdateStageCommand({ restApiId: api.id, stageName: "prod", patchOperations: [{ op: "replace", path: "/cacheClusterEnabled", value: "true" }] }))
    stage = `${api.id}/prod`
    await c.get("opensearch", E).send(new CreateDomainCommand({ DomainName: "search" }))
    await c.get("kinesis", E).send(new CreateStreamCommand({ StreamName: "clicks", ShardCount: 1 }))
    const content = JSON.stringify({ schemaVersion: "2.2", description: "noop", mainSteps: [{ action: "aws:runShellScript", name: "noop", inputs: { runCommand: ["true"] } }] })
    await c.get("ssm", E).send(new CreateDocumentCommand({ Name: "shared-doc", Content: content, DocumentType: "Command" }))
    await c.get("ssm", E).send(new ModifyDocumentPermissionCommand({ Name: "shared-doc", PermissionType: "Share", AccountIdsToAdd: ["all"] }))
    await c.get("mq", E).send(new CreateBrokerCommand({ BrokerName: "queue", DeploymentMode: "SINGLE_INSTANCE", EngineType: "ACTIVEMQ", EngineVersion: "5.17.6", HostInstanceType: "mq.t3.micro", Users: [{ Username: "admin_user", Password: "Secret-Passw0rd-1" }], PubliclyAccessible: false, AutoMinorVersionUpgrade: false }))

    await c.get("elb", E).send(new CreateLoadBalancerCommand({ LoadBalancerName: "legacy", Listeners: [{ Protocol: "HTTP", LoadBalancerPort: 80, InstanceProtocol: "HTTP", InstancePort: 80 }], AvailabilityZones: ["us-east-1a"] }))
    await c.get("elb", E).send(new ModifyLoadBalancerAttributesCommand({ LoadBalancerName: "legacy", LoadBalancerAttributes: { CrossZoneLoadBalancing: { Enabled: false }, ConnectionDraining: { Enabled: false } } }))
    await c.get("emr", E).send(new PutBlockPublicAccessConfigurationCommand({ BlockPublicAccessConfiguration: { BlockPublicSecurityGroupRules: true, PermittedPublicSecurityGroupRuleRanges: [{ MinRange: 0, MaxRange: 65535 }] } }))
    await c.get("firehose", E).send(new CreateDeliveryStreamCommand({ DeliveryStreamName: "to-s3", ExtendedS3DestinationConfiguration: { RoleARN: `arn:aws:iam::${ACCOUNT}:role/fh`, BucketARN: "arn:aws:s3:::dest" } }))
    c.destroy()
  })
  afterAll(async () => {
    await moto?.stop()
  })

  it("Redshift", async () => {
    for (const id of ["redshift_cluster_public_access", "redshift_cluster_automatic_upgrades", "redshift_cluster_automated_snapshots", "redshift_cluster_enhanced_vpc_routing"]) await expectFixed(moto, "redshift", id, "dw")
  })

  it("API Gateway stages", async () => {
    for (const id of ["apigateway_restapi_stage_cache_encrypted", "apigateway_restapi_stage_logging_enabled", "apigateway_restapi_stage_xray_tracing"]) await expectFixed(moto, "apigateway", id, stage)
  })

  it("Kinesis, Firehose, Glue (moto has no UpdateTerminationProtection)", async () => {
    await expectFixed(moto, "kinesis", "kinesis_stream_encrypted_at_rest", "clicks")
    await expectFixed(moto, "kinesis", "kinesis_stream_retention_7_days", "clicks")
    await expectFixed(moto, "firehose", "firehose_stream_encrypted_at_rest", "to-s3")
    await expectFixed(moto, "glue", "glue_data_catalog_encrypted", `${ACCOUNT}/${E}`)
    await expectFixed(moto, "glue", "glue_data_catalog_connection_passwords_encrypted", `${ACCOUNT}/eu-west-1`, { region: "eu-west-1" })
  })

  it("classic ELB and EMR (moto has no ECS UpdateClusterSettings)", async () => {
    await expectFixed(moto, "elb", "elb_cross_zone_load_balancing", "legacy")
    await expectFixed(moto, "elb", "elb_connection_draining", "legacy")
    await expectFixed(moto, "emr", "emr_block_public_access_enabled", `${ACCOUNT}/${E}`)
  })

  it("SSM documents and MQ brokers (moto has no Transfer UpdateServer)", async () => {
    await expectFixed(moto, "ssm", "ssm_document_not_public", "shared-doc")
    await expectFixed(moto, "mq", "mq_broker_auto_minor_version_upgrade", "queue")
  })

  it("OpenSearch domains", async () => {
    for (const id of ["opensearch_domain_node_to_node_encryption", "opensearch_domain_encryption_at_rest", "opensearch_domain_https_tls12"]) await expectFixed(moto, "opensearch", id, "search")
  })
})
