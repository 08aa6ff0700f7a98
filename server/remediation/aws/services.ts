/** Fixers for the managed data and API services: Redshift, API Gateway stages, OpenSearch domains (moto implements no ElastiCache modify call). */
import { DescribeClustersCommand } from "@aws-sdk/client-redshift"
import { GetStageCommand } from "@aws-sdk/client-api-gateway"
import { DescribeDomainCommand, type UpdateDomainConfigCommandInput } from "@aws-sdk/client-opensearch"
import { DescribeStreamSummaryCommand } from "@aws-sdk/client-kinesis"
import { DescribeDeliveryStreamCommand } from "@aws-sdk/client-firehose"
import { GetDataCatalogEncryptionSettingsCommand } from "@aws-sdk/client-glue"
import { DescribeLoadBalancerAttributesCommand } from "@aws-sdk/client-elastic-load-balancing"
import { GetBlockPublicAccessConfigurationCommand } from "@aws-sdk/client-emr"
import { DescribeDocumentPermissionCommand } from "@aws-sdk/client-ssm"
import { DescribeBrokerCommand, ListBrokersCommand } from "@aws-sdk/client-mq"
import type { Json } from "../plan.ts"
import { awsCall, FixError, nested, registerTerraform, sendOptions, tfBlock, tfName, type Fixer } from "./fixer.ts"

const json = (v: unknown): Json => JSON.parse(JSON.stringify(v ?? null)) as Json

/** A cluster setting changed by ModifyCluster: read the cluster's current values, undo to them. */
const redshift = (checkId: string, description: string, change: Record<string, boolean | number>, done: string, cutsAccess?: string, effects: ReadonlyArray<string> = []): Fixer => ({
  checkIds: [checkId],
  description,
  ...(cutsAccess === undefined ? {} : { cutsAccess }),
  read: async (ctx, row) => {
    const cluster = ((await ctx.clients.get("redshift", ctx.region).send(new DescribeClustersCommand({ ClusterIdentifier: row.resource_id }), sendOptions(ctx))).Clusters?.[0] ?? {}) as Record<string, unknown>
    return Object.fromEntries(Object.keys(change).map((k) => [k, (cluster[k] as boolean | number | undefined) ?? null]))
  },
  plan: (ctx, row, state) => {
    const before = state as Readonly<Record<string, boolean | number | null>>
    const restore = Object.fromEntries(Object.entries(before).filter(([, v]) => v !== null))
    const modify = (values: Readonly<Record<string, unknown>>) => awsCall("redshift", "ModifyCluster", ctx.region, { ClusterIdentifier: row.resource_id, ...values })
    return {
      calls: [modify(change)],
      effects: [...effects],
      summary: `Cluster ${row.resource_id}: ${done}.`,
      undo: Object.keys(restore).length === Object.keys(change).length
        ? { reversible: true, calls: [modify(restore)] }
        : { reversible: false, reason: `The cluster did not report ${Object.keys(change).join(", ")} before the fix.` },
    }
  },
})

/** Stage rows are "<api id>/<stage name>". */
const stageOf = (resourceId: string): { restApiId: string; stageName: string } => {
  const slash = resourceId.indexOf("/")
  if (slash <= 0) throw new FixError(`${resourceId} is not an API/stage id`)
  return { restApiId: resourceId.slice(0, slash), stageName: resourceId.slice(slash + 1) }
}

/**
 * One stage setting set by an UpdateStage "replace" patch. `read` answers the setting as the API means it (a method
 * setting never set reads as API Gateway's default: logging OFF, cache data not encrypted); the undo replaces it back.
 */
const stagePatch = (checkId: string, description: string, path: string, value: string, current: (stage: Record<string, unknown>) => string, done: string, effects: ReadonlyArray<string>): Fixer => ({
  checkIds: [checkId],
  description,
  read: async (ctx, row) => {
    const stage = await ctx.clients.get("apigateway", ctx.region).send(new GetStageCommand(stageOf(row.resource_id)), sendOptions(ctx))
    return { [path]: current(stage as unknown as Record<string, unknown>) }
  },
  plan: (ctx, row, state) => {
    const before = (state as Record<string, string>)[path] ?? ""
    const { restApiId, stageName } = stageOf(row.resource_id)
    const patch = (v: string) => awsCall("apigateway", "UpdateStage", ctx.region, { restApiId, stageName, patchOperations: [{ op: "replace", path, value: v }] }, { action: "apigateway:PATCH" })
    return { calls: [patch(value)], effects: [...effects], summary: `Stage ${stageName} of ${restApiId}: ${done}.`, undo: { reversible: true, calls: [patch(before)] } }
  },
})
const methodSetting = (stage: Record<string, unknown>, key: string, fallback: string): string => {
  const all = (stage["methodSettings"] as Record<string, Record<string, unknown>> | undefined)?.["*/*"]
  const v = all?.[key]
  return v === undefined || v === null ? fallback : String(v)
}

/** An OpenSearch domain setting changed by UpdateDomainConfig; `undo` decides whether it can be set back. */
const domain = (
  checkId: string,
  description: string,
  key: "NodeToNodeEncryptionOptions" | "EncryptionAtRestOptions" | "DomainEndpointOptions",
  change: Omit<UpdateDomainConfigCommandInput, "DomainName">,
  done: string,
  irreversible?: string,
): Fixer => ({
  checkIds: [checkId],
  description,
  read: async (ctx, row) => {
    const status = (await ctx.clients.get("opensearch", ctx.region).send(new DescribeDomainCommand({ DomainName: row.resource_id }), sendOptions(ctx))).DomainStatus as Record<string, unknown> | undefined
    const options = (status?.[key] ?? {}) as Record<string, unknown>
    return key === "DomainEndpointOptions"
      ? { EnforceHTTPS: (options["EnforceHTTPS"] as boolean | undefined) ?? false, TLSSecurityPolicy: (options["TLSSecurityPolicy"] as string | undefined) ?? "Policy-Min-TLS-1-0-2019-07" }
      : { Enabled: (options["Enabled"] as boolean | undefined) ?? false }
  },
  plan: (ctx, row, state) => {
    const update = (values: Omit<UpdateDomainConfigCommandInput, "DomainName">) => awsCall("opensearch", "UpdateDomainConfig", ctx.region, { DomainName: row.resource_id, ...values })
    return {
      calls: [update(change)],
      effects: [irreversible === undefined ? "Clients must connect over HTTPS with TLS 1.2 or later; older clients fail the handshake." : "The domain goes through a blue/green deployment (new nodes, data copied); it stays available meanwhile."],
      summary: `Domain ${row.resource_id}: ${done}.`,
      undo: irreversible === undefined ? { reversible: true, calls: [update({ [key]: state as Record<string, unknown> })] } : { reversible: false, reason: irreversible },
    }
  },
})

const existing = (type: string, block: string): string => `# Set on the existing ${type} (other arguments unchanged):\n${block}`
const snake = (s: string): string => s.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase()

registerTerraform("redshift", "ModifyCluster", (call) => {
  const { ClusterIdentifier: id, ...rest } = call.params as Record<string, unknown>
  return existing("aws_redshift_cluster", tfBlock("resource", "aws_redshift_cluster", tfName(String(id)), [["cluster_identifier", id], ...Object.entries(rest).map(([k, v]) => [snake(k), v] as const)]))
})
registerTerraform("kinesis", "StartStreamEncryption", (call) =>
  existing("aws_kinesis_stream", tfBlock("resource", "aws_kinesis_stream", tfName(String(call.params["StreamName"])), [["name", call.params["StreamName"]], ["encryption_type", call.params["EncryptionType"]], ["kms_key_id", call.params["KeyId"]]])),
)
registerTerraform("kinesis", "IncreaseStreamRetentionPeriod", (call) =>
  existing("aws_kinesis_stream", tfBlock("resource", "aws_kinesis_stream", tfName(String(call.params["StreamName"])), [["name", call.params["StreamName"]], ["retention_period", call.params["RetentionPeriodHours"]]])),
)
registerTerraform("firehose", "StartDeliveryStreamEncryption", (call) =>
  existing("aws_kinesis_firehose_delivery_stream", tfBlock("resource", "aws_kinesis_firehose_delivery_stream", tfName(String(call.params["DeliveryStreamName"])), [["name", call.params["DeliveryStreamName"]], ["server_side_encryption", nested([["enabled", true], ["key_type", "AWS_OWNED_CMK"]])]])),
)
registerTerraform("emr", "PutBlockPublicAccessConfiguration", (call) => {
  const c = call.params["BlockPublicAccessConfiguration"] as { BlockPublicSecurityGroupRules: boolean; PermittedPublicSecurityGroupRuleRanges?: ReadonlyArray<{ MinRange: number; MaxRange: number }> }
  return tfBlock("resource", "aws_emr_block_public_access_configuration", "this", [
    ["block_public_security_group_rules", c.BlockPublicSecurityGroupRules],
    ...(c.PermittedPublicSecurityGroupRuleRanges ?? []).map((r) => ["permitted_public_security_group_rule_range", nested([["min_range", r.MinRange], ["max_range", r.MaxRange]])] as const),
  ])
})
registerTerraform("elb", "ModifyLoadBalancerAttributes", (call) => {
  const a = call.params["LoadBalancerAttributes"] as { CrossZoneLoadBalancing?: { Enabled: boolean }; ConnectionDraining?: { Enabled: boolean; Timeout?: number } }
  return existing("aws_elb", tfBlock("resource", "aws_elb", tfName(String(call.params["LoadBalancerName"])), [
    ["name", call.params["LoadBalancerName"]],
    ...(a.CrossZoneLoadBalancing === undefined ? [] : [["cross_zone_load_balancing", a.CrossZoneLoadBalancing.Enabled] as const]),
    ...(a.ConnectionDraining === undefined ? [] : [["connection_draining", a.ConnectionDraining.Enabled] as const, ["connection_draining_timeout", a.ConnectionDraining.Timeout ?? 300] as const]),
  ]))
})
registerTerraform("mq", "UpdateBroker", (call) => existing("aws_mq_broker", tfBlock("resource", "aws_mq_broker", "broker", [["auto_minor_version_upgrade", call.params["AutoMinorVersionUpgrade"]]])))
registerTerraform("opensearch", "UpdateDomainConfig", (call) => {
  const p = call.params as Record<string, Record<string, unknown> | string>
  const body: Array<readonly [string, unknown]> = [["domain_name", p["DomainName"]]]
  const n2n = p["NodeToNodeEncryptionOptions"] as Record<string, unknown> | undefined
  const rest = p["EncryptionAtRestOptions"] as Record<string, unknown> | undefined
  const endpoint = p["DomainEndpointOptions"] as Record<string, unknown> | undefined
  if (n2n !== undefined) body.push(["node_to_node_encryption", nested([["enabled", n2n["Enabled"]]])])
  if (rest !== undefined) body.push(["encrypt_at_rest", nested([["enabled", rest["Enabled"]]])])
  if (endpoint !== undefined) body.push(["domain_endpoint_options", nested([["enforce_https", endpoint["EnforceHTTPS"]], ["tls_security_policy", endpoint["TLSSecurityPolicy"]]])])
  return existing("aws_opensearch_domain", tfBlock("resource", "aws_opensearch_domain", tfName(String(p["DomainName"])), body))
})

export const serviceFixers: ReadonlyArray<Fixer> = [
  {
    checkIds: ["ssm_document_not_public"],
    description: "Stops sharing the document with all AWS accounts (named accounts it is shared with keep access).",
    cutsAccess: "Accounts that run the document through the public share lose access to it.",
    read: async (ctx, row) => {
      const out = await ctx.clients.get("ssm", ctx.region).send(new DescribeDocumentPermissionCommand({ Name: row.resource_id, PermissionType: "Share" }), sendOptions(ctx))
      return { AccountIds: [...(out.AccountIds ?? [])].sort() }
    },
    plan: (ctx, row, state) => {
      const before = (state as { AccountIds: ReadonlyArray<string> }).AccountIds
      const modify = (change: Record<string, ReadonlyArray<string>>) => awsCall("ssm", "ModifyDocumentPermission", ctx.region, { Name: row.resource_id, PermissionType: "Share", ...change })
      const named = before.filter((a) => a !== "all")
      return {
        calls: [modify({ AccountIdsToRemove: ["all"] })],
        effects: [named.length === 0 ? "No account is named in the share: only this account can run the document afterwards." : `The accounts named in the share keep access: ${named.join(", ")}.`],
        summary: `Document ${row.resource_id} is no longer public.`,
        undo: { reversible: true, calls: before.includes("all") ? [modify({ AccountIdsToAdd: ["all"] })] : [] },
      }
    },
  },
  {
    checkIds: ["mq_broker_auto_minor_version_upgrade"],
    description: "Enables automatic minor version upgrades on the broker (applied in its maintenance window).",
    read: async (ctx, row) => {
      const mq = ctx.clients.get("mq", ctx.region)
      const brokers = (await mq.send(new ListBrokersCommand({}), sendOptions(ctx))).BrokerSummaries ?? []
      const id = brokers.find((b) => b.BrokerName === row.resource_id)?.BrokerId
      if (id === undefined) throw new FixError(`Broker ${row.resource_id} was not found in ${ctx.region}`)
      const broker = await mq.send(new DescribeBrokerCommand({ BrokerId: id }), sendOptions(ctx))
      return { BrokerId: id, AutoMinorVersionUpgrade: broker.AutoMinorVersionUpgrade ?? false }
    },
    plan: (ctx, row, state) => {
      const before = state as { BrokerId: string; AutoMinorVersionUpgrade: boolean }
      const update = (on: boolean) => awsCall("mq", "UpdateBroker", ctx.region, { BrokerId: before.BrokerId, AutoMinorVersionUpgrade: on })
      return {
        calls: [update(true)],
        effects: ["The broker is upgraded to new minor engine versions during its maintenance window (a short restart)."],
        summary: `Broker ${row.resource_id} upgrades minor versions automatically.`,
        undo: { reversible: true, calls: [update(before.AutoMinorVersionUpgrade)] },
      }
    },
  },
  ...(["CrossZoneLoadBalancing", "ConnectionDraining"] as const).map(
    (attr): Fixer => ({
      checkIds: [attr === "CrossZoneLoadBalancing" ? "elb_cross_zone_load_balancing" : "elb_connection_draining"],
      description: attr === "CrossZoneLoadBalancing" ? "Enables cross-zone load balancing on the classic load balancer." : "Enables connection draining (300 s) on the classic load balancer.",
      read: async (ctx, row) => {
        const attrs = (await ctx.clients.get("elb", ctx.region).send(new DescribeLoadBalancerAttributesCommand({ LoadBalancerName: row.resource_id }), sendOptions(ctx))).LoadBalancerAttributes
        return attr === "CrossZoneLoadBalancing"
          ? { CrossZoneLoadBalancing: { Enabled: attrs?.CrossZoneLoadBalancing?.Enabled ?? false } }
          : { ConnectionDraining: { Enabled: attrs?.ConnectionDraining?.Enabled ?? false, Timeout: attrs?.ConnectionDraining?.Timeout ?? 300 } }
      },
      plan: (ctx, row, state) => {
        const set = (value: Json) => awsCall("elb", "ModifyLoadBalancerAttributes", ctx.region, { LoadBalancerName: row.resource_id, LoadBalancerAttributes: value })
        return attr === "CrossZoneLoadBalancing"
          ? {
              calls: [set({ CrossZoneLoadBalancing: { Enabled: true } })],
              effects: ["Each node spreads requests over the registered instances of every zone, not only its own."],
              summary: `Load balancer ${row.resource_id} balances across zones.`,
              undo: { reversible: true, calls: [set(state)] },
            }
          : {
              calls: [set({ ConnectionDraining: { Enabled: true, Timeout: 300 } })],
              effects: ["An instance being deregistered or failing health checks keeps its open requests for up to 300 s."],
              summary: `Load balancer ${row.resource_id} drains connections for 300 s.`,
              undo: { reversible: true, calls: [set(state)] },
            }
      },
    }),
  ),
  {
    checkIds: ["emr_block_public_access_enabled"],
    description: "Turns EMR block public access on in the region, allowing only SSH (22) from the internet.",
    cutsAccess: "New EMR clusters whose security groups open other ports to the internet will fail to launch.",
    read: async (ctx) => {
      const config = (await ctx.clients.get("emr", ctx.region).send(new GetBlockPublicAccessConfigurationCommand({}), sendOptions(ctx))).BlockPublicAccessConfiguration
      return json({ BlockPublicSecurityGroupRules: config?.BlockPublicSecurityGroupRules ?? false, PermittedPublicSecurityGroupRuleRanges: config?.PermittedPublicSecurityGroupRuleRanges ?? [] })
    },
    plan: (ctx, _row, state) => {
      const put = (config: Json) => awsCall("emr", "PutBlockPublicAccessConfiguration", ctx.region, { BlockPublicAccessConfiguration: config })
      return {
        calls: [put({ BlockPublicSecurityGroupRules: true, PermittedPublicSecurityGroupRuleRanges: [{ MinRange: 22, MaxRange: 22 }] })],
        effects: ["Running clusters are not changed; a new cluster whose security groups open a port other than 22 to 0.0.0.0/0 or ::/0 fails to launch."],
        summary: `EMR block public access is on in ${ctx.region}.`,
        undo: { reversible: true, calls: [put(state)] },
      }
    },
  },
  {
    checkIds: ["kinesis_stream_encrypted_at_rest"],
    description: "Starts server-side encryption of the stream with the AWS managed key alias/aws/kinesis.",
    read: async (ctx, row) => {
      const s = (await ctx.clients.get("kinesis", ctx.region).send(new DescribeStreamSummaryCommand({ StreamName: row.resource_id }), sendOptions(ctx))).StreamDescriptionSummary
      return { EncryptionType: s?.EncryptionType ?? "NONE", KeyId: s?.KeyId ?? null }
    },
    plan: (ctx, row, state) => {
      const before = state as { EncryptionType: string; KeyId: string | null }
      const call = (operation: string) => awsCall("kinesis", operation, ctx.region, { StreamName: row.resource_id, EncryptionType: "KMS", KeyId: "alias/aws/kinesis" })
      return {
        calls: [call("StartStreamEncryption")],
        effects: ["Records written from now on are encrypted with aws/kinesis; producers and consumers in the account need no KMS permission change."],
        summary: `Stream ${row.resource_id} is encrypted with aws/kinesis.`,
        undo: before.EncryptionType === "NONE" ? { reversible: true, calls: [call("StopStreamEncryption")], note: "Records already encrypted stay encrypted until they expire." } : { reversible: true, calls: [] },
      }
    },
  },
  {
    checkIds: ["kinesis_stream_retention_7_days"],
    description: "Raises the stream's retention to 168 hours (billed per shard-hour of extended retention).",
    read: async (ctx, row) => {
      const s = (await ctx.clients.get("kinesis", ctx.region).send(new DescribeStreamSummaryCommand({ StreamName: row.resource_id }), sendOptions(ctx))).StreamDescriptionSummary
      return { RetentionPeriodHours: s?.RetentionPeriodHours ?? 24 }
    },
    plan: (ctx, row, state) => {
      const before = (state as { RetentionPeriodHours: number }).RetentionPeriodHours
      return {
        calls: [awsCall("kinesis", "IncreaseStreamRetentionPeriod", ctx.region, { StreamName: row.resource_id, RetentionPeriodHours: 168 })],
        effects: ["Records stay readable for 7 days; extended retention is billed per shard-hour."],
        summary: `Stream ${row.resource_id} keeps records for 7 days.`,
        undo: { reversible: true, calls: [awsCall("kinesis", "DecreaseStreamRetentionPeriod", ctx.region, { StreamName: row.resource_id, RetentionPeriodHours: before })], note: `Records older than ${before} hours become unreadable at once.` },
      }
    },
  },
  {
    checkIds: ["firehose_stream_encrypted_at_rest"],
    description: "Starts server-side encryption of the delivery stream with an AWS owned key.",
    read: async (ctx, row) => {
      const d = (await ctx.clients.get("firehose", ctx.region).send(new DescribeDeliveryStreamCommand({ DeliveryStreamName: row.resource_id }), sendOptions(ctx))).DeliveryStreamDescription
      return { Status: d?.DeliveryStreamEncryptionConfiguration?.Status ?? "DISABLED" }
    },
    plan: (ctx, row, state) => {
      const before = (state as { Status: string }).Status
      return {
        calls: [awsCall("firehose", "StartDeliveryStreamEncryption", ctx.region, { DeliveryStreamName: row.resource_id, DeliveryStreamEncryptionConfigurationInput: { KeyType: "AWS_OWNED_CMK" } })],
        effects: ["Records buffered in the delivery stream are encrypted at rest with an AWS owned key; the destination's own encryption is unchanged."],
        summary: `Delivery stream ${row.resource_id} is encrypted.`,
        undo: { reversible: true, calls: before === "ENABLED" ? [] : [awsCall("firehose", "StopDeliveryStreamEncryption", ctx.region, { DeliveryStreamName: row.resource_id })] },
      }
    },
  },
  {
    checkIds: ["glue_data_catalog_encrypted", "glue_data_catalog_connection_passwords_encrypted"],
    description: "Encrypts the region's Data Catalog and connection passwords with the AWS managed key alias/aws/glue (settings already in place are kept).",
    read: async (ctx) => {
      const current = (await ctx.clients.get("glue", ctx.region).send(new GetDataCatalogEncryptionSettingsCommand({}), sendOptions(ctx))).DataCatalogEncryptionSettings
      return json({
        EncryptionAtRest: { CatalogEncryptionMode: "DISABLED", ...current?.EncryptionAtRest },
        ConnectionPasswordEncryption: { ReturnConnectionPasswordEncrypted: false, ...current?.ConnectionPasswordEncryption },
      })
    },
    plan: (ctx, _row, state) => {
      type Settings = { EncryptionAtRest: { CatalogEncryptionMode: string }; ConnectionPasswordEncryption: { ReturnConnectionPasswordEncrypted: boolean } }
      const before = state as Settings
      const mode = before.EncryptionAtRest.CatalogEncryptionMode
      const atRest = mode === "SSE-KMS" || mode === "SSE-KMS-WITH-SERVICE-ROLE" ? before.EncryptionAtRest : { CatalogEncryptionMode: "SSE-KMS", SseAwsKmsKeyId: "alias/aws/glue" }
      const passwords = before.ConnectionPasswordEncryption.ReturnConnectionPasswordEncrypted ? before.ConnectionPasswordEncryption : { ReturnConnectionPasswordEncrypted: true, AwsKmsKeyId: "alias/aws/glue" }
      const put = (settings: unknown) => awsCall("glue", "PutDataCatalogEncryptionSettings", ctx.region, { DataCatalogEncryptionSettings: settings })
      return {
        calls: [put({ EncryptionAtRest: atRest, ConnectionPasswordEncryption: passwords })],
        effects: ["Catalog objects written from now on are encrypted with aws/glue; callers reading connection passwords need kms:Decrypt on the key."],
        summary: `The Data Catalog in ${ctx.region} and its connection passwords are encrypted.`,
        undo: { reversible: true, calls: [put(before)], note: "Catalog objects written while encryption was on stay encrypted." },
      }
    },
  },
  redshift("redshift_cluster_public_access", "Turns off PubliclyAccessible on the cluster.", { PubliclyAccessible: false }, "no longer publicly accessible", "Clients connecting from outside the VPC lose access to the cluster.", ["The cluster's endpoint resolves to its private address only."]),
  redshift("redshift_cluster_automatic_upgrades", "Allows major version upgrades during the maintenance window.", { AllowVersionUpgrade: true }, "version upgrades allowed", undefined, ["The cluster may be upgraded to a new major version in its maintenance window."]),
  redshift("redshift_cluster_automated_snapshots", "Keeps automated snapshots for 7 days.", { AutomatedSnapshotRetentionPeriod: 7 }, "automated snapshots kept for 7 days", undefined, ["Automated snapshots beyond the free storage are billed."]),
  redshift("redshift_cluster_enhanced_vpc_routing", "Routes COPY/UNLOAD traffic through the VPC.", { EnhancedVpcRouting: true }, "enhanced VPC routing on", "COPY/UNLOAD to S3 or other endpoints fails unless the VPC has a route to them (S3 gateway endpoint or NAT).", ["The cluster restarts to apply the change."]),
  stagePatch("apigateway_restapi_stage_logging_enabled", "Sets the stage's execution logging level to ERROR for every method (the account needs a CloudWatch Logs role for API Gateway).", "/*/*/logging/loglevel", "ERROR", (s) => methodSetting(s, "loggingLevel", "OFF"), "execution logging at ERROR", ["Errors of every method are logged to the log group API-Gateway-Execution-Logs_<api>/<stage> (CloudWatch Logs is billed)."]),
  stagePatch("apigateway_restapi_stage_xray_tracing", "Turns on X-Ray tracing for the stage.", "/tracingEnabled", "true", (s) => String(s["tracingEnabled"] ?? false), "X-Ray tracing on", ["Sampled requests are traced in X-Ray (billed per trace beyond the free tier)."]),
  stagePatch("apigateway_restapi_stage_cache_encrypted", "Encrypts the stage's cache data.", "/*/*/caching/dataEncrypted", "true", (s) => methodSetting(s, "cacheDataEncrypted", "false"), "cache data encrypted", ["Responses cached from now on are encrypted."]),
  domain(
    "opensearch_domain_node_to_node_encryption",
    "Enables node-to-node encryption on the domain (a blue/green deployment).",
    "NodeToNodeEncryptionOptions",
    { NodeToNodeEncryptionOptions: { Enabled: true } },
    "node-to-node encryption on",
    "OpenSearch cannot turn node-to-node encryption off once it is on.",
  ),
  domain(
    "opensearch_domain_encryption_at_rest",
    "Enables encryption at rest with the AWS managed key (a blue/green deployment).",
    "EncryptionAtRestOptions",
    { EncryptionAtRestOptions: { Enabled: true } },
    "encrypted at rest",
    "OpenSearch cannot turn encryption at rest off once it is on.",
  ),
  domain(
    "opensearch_domain_https_tls12",
    "Requires HTTPS with the TLS 1.2 (PFS) security policy.",
    "DomainEndpointOptions",
    { DomainEndpointOptions: { EnforceHTTPS: true, TLSSecurityPolicy: "Policy-Min-TLS-1-2-PFS-2023-10" } },
    "HTTPS with TLS 1.2+ required",
  ),
]
