/** Fixers for the managed data and API services: Redshift, API Gateway stages, OpenSearch domains (moto implements no ElastiCache modify call). */
import { ModifyClusterCommand } from "@aws-sdk/client-redshift"
import { UpdateStageCommand } from "@aws-sdk/client-api-gateway"
import { UpdateDomainConfigCommand, type UpdateDomainConfigCommandInput } from "@aws-sdk/client-opensearch"
import { IncreaseStreamRetentionPeriodCommand, StartStreamEncryptionCommand } from "@aws-sdk/client-kinesis"
import { StartDeliveryStreamEncryptionCommand } from "@aws-sdk/client-firehose"
import { GetDataCatalogEncryptionSettingsCommand, PutDataCatalogEncryptionSettingsCommand } from "@aws-sdk/client-glue"
import { ModifyLoadBalancerAttributesCommand } from "@aws-sdk/client-elastic-load-balancing"
import { PutBlockPublicAccessConfigurationCommand } from "@aws-sdk/client-emr"
import { ModifyDocumentPermissionCommand } from "@aws-sdk/client-ssm"
import { ListBrokersCommand, UpdateBrokerCommand } from "@aws-sdk/client-mq"
import { FixError, sendOptions, type Fixer } from "./fixer.ts"

const redshift = (checkId: string, description: string, change: Record<string, boolean | number>, done: string, cutsAccess?: string): Fixer => ({
  checkIds: [checkId],
  description,
  ...(cutsAccess === undefined ? {} : { cutsAccess }),
  apply: async (ctx, row) => {
    await ctx.clients.get("redshift", ctx.region).send(new ModifyClusterCommand({ ClusterIdentifier: row.resource_id, ...change }), sendOptions(ctx))
    return `Cluster ${row.resource_id}: ${done}.`
  },
})

/** Stage rows are "<api id>/<stage name>". */
const stagePatch = (checkId: string, description: string, ops: ReadonlyArray<{ path: string; value: string }>, done: string): Fixer => ({
  checkIds: [checkId],
  description,
  apply: async (ctx, row) => {
    const slash = row.resource_id.indexOf("/")
    if (slash <= 0) throw new FixError(`${row.resource_id} is not an API/stage id`)
    const restApiId = row.resource_id.slice(0, slash)
    const stageName = row.resource_id.slice(slash + 1)
    await ctx.clients
      .get("apigateway", ctx.region)
      .send(new UpdateStageCommand({ restApiId, stageName, patchOperations: ops.map((o) => ({ op: "replace" as const, path: o.path, value: o.value })) }), sendOptions(ctx))
    return `Stage ${stageName} of ${restApiId}: ${done}.`
  },
})

const domain = (checkId: string, description: string, change: Omit<UpdateDomainConfigCommandInput, "DomainName">, done: string): Fixer => ({
  checkIds: [checkId],
  description,
  apply: async (ctx, row) => {
    await ctx.clients.get("opensearch", ctx.region).send(new UpdateDomainConfigCommand({ DomainName: row.resource_id, ...change }), sendOptions(ctx))
    return `Domain ${row.resource_id}: ${done}.`
  },
})

export const serviceFixers: ReadonlyArray<Fixer> = [
  {
    checkIds: ["ssm_document_not_public"],
    description: "Stops sharing the document with all AWS accounts (named accounts it is shared with keep access).",
    cutsAccess: "Accounts that run the document through the public share lose access to it.",
    apply: async (ctx, row) => {
      await ctx.clients.get("ssm", ctx.region).send(new ModifyDocumentPermissionCommand({ Name: row.resource_id, PermissionType: "Share", AccountIdsToRemove: ["all"] }), sendOptions(ctx))
      return `Document ${row.resource_id} is no longer public.`
    },
  },
  {
    checkIds: ["mq_broker_auto_minor_version_upgrade"],
    description: "Enables automatic minor version upgrades on the broker (applied in its maintenance window).",
    apply: async (ctx, row) => {
      const mq = ctx.clients.get("mq", ctx.region)
      const brokers = (await mq.send(new ListBrokersCommand({}), sendOptions(ctx))).BrokerSummaries ?? []
      const id = brokers.find((b) => b.BrokerName === row.resource_id)?.BrokerId
      if (id === undefined) throw new FixError(`Broker ${row.resource_id} was not found in ${ctx.region}`)
      await mq.send(new UpdateBrokerCommand({ BrokerId: id, AutoMinorVersionUpgrade: true }), sendOptions(ctx))
      return `Broker ${row.resource_id} upgrades minor versions automatically.`
    },
  },
  {
    checkIds: ["elb_cross_zone_load_balancing"],
    description: "Enables cross-zone load balancing on the classic load balancer.",
    apply: async (ctx, row) => {
      await ctx.clients.get("elb", ctx.region).send(new ModifyLoadBalancerAttributesCommand({ LoadBalancerName: row.resource_id, LoadBalancerAttributes: { CrossZoneLoadBalancing: { Enabled: true } } }), sendOptions(ctx))
      return `Load balancer ${row.resource_id} balances across zones.`
    },
  },
  {
    checkIds: ["elb_connection_draining"],
    description: "Enables connection draining (300 s) on the classic load balancer.",
    apply: async (ctx, row) => {
      await ctx.clients.get("elb", ctx.region).send(new ModifyLoadBalancerAttributesCommand({ LoadBalancerName: row.resource_id, LoadBalancerAttributes: { ConnectionDraining: { Enabled: true, Timeout: 300 } } }), sendOptions(ctx))
      return `Load balancer ${row.resource_id} drains connections for 300 s.`
    },
  },
  {
    checkIds: ["emr_block_public_access_enabled"],
    description: "Turns EMR block public access on in the region, allowing only SSH (22) from the internet.",
    cutsAccess: "New EMR clusters whose security groups open other ports to the internet will fail to launch.",
    apply: async (ctx) => {
      await ctx.clients
        .get("emr", ctx.region)
        .send(new PutBlockPublicAccessConfigurationCommand({ BlockPublicAccessConfiguration: { BlockPublicSecurityGroupRules: true, PermittedPublicSecurityGroupRuleRanges: [{ MinRange: 22, MaxRange: 22 }] } }), sendOptions(ctx))
      return `EMR block public access is on in ${ctx.region}.`
    },
  },
  {
    checkIds: ["kinesis_stream_encrypted_at_rest"],
    description: "Starts server-side encryption of the stream with the AWS managed key alias/aws/kinesis.",
    apply: async (ctx, row) => {
      await ctx.clients.get("kinesis", ctx.region).send(new StartStreamEncryptionCommand({ StreamName: row.resource_id, EncryptionType: "KMS", KeyId: "alias/aws/kinesis" }), sendOptions(ctx))
      return `Stream ${row.resource_id} is encrypted with aws/kinesis.`
    },
  },
  {
    checkIds: ["kinesis_stream_retention_7_days"],
    description: "Raises the stream's retention to 168 hours (billed per shard-hour of extended retention).",
    apply: async (ctx, row) => {
      await ctx.clients.get("kinesis", ctx.region).send(new IncreaseStreamRetentionPeriodCommand({ StreamName: row.resource_id, RetentionPeriodHours: 168 }), sendOptions(ctx))
      return `Stream ${row.resource_id} keeps records for 7 days.`
    },
  },
  {
    checkIds: ["firehose_stream_encrypted_at_rest"],
    description: "Starts server-side encryption of the delivery stream with an AWS owned key.",
    apply: async (ctx, row) => {
      await ctx.clients
        .get("firehose", ctx.region)
        .send(new StartDeliveryStreamEncryptionCommand({ DeliveryStreamName: row.resource_id, DeliveryStreamEncryptionConfigurationInput: { KeyType: "AWS_OWNED_CMK" } }), sendOptions(ctx))
      return `Delivery stream ${row.resource_id} is encrypted.`
    },
  },
  {
    checkIds: ["glue_data_catalog_encrypted", "glue_data_catalog_connection_passwords_encrypted"],
    description: "Encrypts the region's Data Catalog and connection passwords with the AWS managed key alias/aws/glue (settings already in place are kept).",
    apply: async (ctx) => {
      const glue = ctx.clients.get("glue", ctx.region)
      const current = (await glue.send(new GetDataCatalogEncryptionSettingsCommand({}), sendOptions(ctx))).DataCatalogEncryptionSettings
      const atRest = current?.EncryptionAtRest?.CatalogEncryptionMode === "SSE-KMS" || current?.EncryptionAtRest?.CatalogEncryptionMode === "SSE-KMS-WITH-SERVICE-ROLE" ? current.EncryptionAtRest : { CatalogEncryptionMode: "SSE-KMS" as const, SseAwsKmsKeyId: "alias/aws/glue" }
      const passwords = current?.ConnectionPasswordEncryption?.ReturnConnectionPasswordEncrypted === true ? current.ConnectionPasswordEncryption : { ReturnConnectionPasswordEncrypted: true, AwsKmsKeyId: "alias/aws/glue" }
      await glue.send(new PutDataCatalogEncryptionSettingsCommand({ DataCatalogEncryptionSettings: { EncryptionAtRest: atRest, ConnectionPasswordEncryption: passwords } }), sendOptions(ctx))
      return `The Data Catalog in ${ctx.region} and its connection passwords are encrypted.`
    },
  },
  redshift("redshift_cluster_public_access", "Turns off PubliclyAccessible on the cluster.", { PubliclyAccessible: false }, "no longer publicly accessible", "Clients connecting from outside the VPC lose access to the cluster."),
  redshift("redshift_cluster_automatic_upgrades", "Allows major version upgrades during the maintenance window.", { AllowVersionUpgrade: true }, "version upgrades allowed"),
  redshift("redshift_cluster_automated_snapshots", "Keeps automated snapshots for 7 days.", { AutomatedSnapshotRetentionPeriod: 7 }, "automated snapshots kept for 7 days"),
  redshift("redshift_cluster_enhanced_vpc_routing", "Routes COPY/UNLOAD traffic through the VPC.", { EnhancedVpcRouting: true }, "enhanced VPC routing on", "COPY/UNLOAD to S3 or other endpoints fails unless the VPC has a route to them (S3 gateway endpoint or NAT)."),
  stagePatch("apigateway_restapi_stage_logging_enabled", "Sets the stage's execution logging level to ERROR for every method (the account needs a CloudWatch Logs role for API Gateway).", [{ path: "/*/*/logging/loglevel", value: "ERROR" }], "execution logging at ERROR"),
  stagePatch("apigateway_restapi_stage_xray_tracing", "Turns on X-Ray tracing for the stage.", [{ path: "/tracingEnabled", value: "true" }], "X-Ray tracing on"),
  stagePatch("apigateway_restapi_stage_cache_encrypted", "Encrypts the stage's cache data.", [{ path: "/*/*/caching/dataEncrypted", value: "true" }], "cache data encrypted"),
  domain("opensearch_domain_node_to_node_encryption", "Enables node-to-node encryption on the domain (a blue/green deployment).", { NodeToNodeEncryptionOptions: { Enabled: true } }, "node-to-node encryption on"),
  domain("opensearch_domain_encryption_at_rest", "Enables encryption at rest with the AWS managed key (a blue/green deployment).", { EncryptionAtRestOptions: { Enabled: true } }, "encrypted at rest"),
  domain(
    "opensearch_domain_https_tls12",
    "Requires HTTPS with the TLS 1.2 (PFS) security policy.",
    { DomainEndpointOptions: { EnforceHTTPS: true, TLSSecurityPolicy: "Policy-Min-TLS-1-2-PFS-2023-10" } },
    "HTTPS with TLS 1.2+ required",
  ),
]
