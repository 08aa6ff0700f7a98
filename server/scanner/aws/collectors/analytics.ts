/** Inventory of the streaming and analytics services, per region: Kinesis streams, Firehose delivery streams, Step Functions state machines, Athena workgroups, Glue catalog settings and jobs. */
import { DescribeStreamSummaryCommand, ListStreamsCommand } from "@aws-sdk/client-kinesis"
import { DescribeDeliveryStreamCommand, ListDeliveryStreamsCommand } from "@aws-sdk/client-firehose"
import { DescribeStateMachineCommand, ListStateMachinesCommand } from "@aws-sdk/client-sfn"
import { GetWorkGroupCommand, ListWorkGroupsCommand } from "@aws-sdk/client-athena"
import { GetDataCatalogEncryptionSettingsCommand, GetJobsCommand } from "@aws-sdk/client-glue"
import type { CollectContext } from "../context.ts"
import { listPerRegion, type ItemsInventory } from "./per-region.ts"

export const kinesisResourceTypes = ["kinesis.streams"] as const
export const firehoseResourceTypes = ["firehose.streams"] as const
export const sfnResourceTypes = ["sfn.state_machines"] as const
export const athenaResourceTypes = ["athena.workgroups"] as const
export const glueResourceTypes = ["glue.catalog", "glue.jobs"] as const

export interface KinesisStream {
  readonly name: string
  readonly encryption: string
  readonly kmsKeyId: string | undefined
  readonly retentionHours: number
}
export type KinesisInventory = ItemsInventory<KinesisStream>

export async function collectKinesis(ctx: CollectContext): Promise<KinesisInventory> {
  return listPerRegion(
    ctx,
    { type: "kinesis.streams", op: "kinesis:ListStreams" },
    (region, t, o) => ctx.clients.get("kinesis", region).send(new ListStreamsCommand({ ...(t === undefined ? {} : { NextToken: t }) }), o),
    (p) => ({ items: p.StreamNames, next: p.HasMoreStreams === true ? p.NextToken : undefined }),
    async (name, region): Promise<KinesisStream | undefined> => {
      const d = await ctx.call({ type: "kinesis.streams", region, op: "kinesis:DescribeStreamSummary", id: name }, (o) =>
        ctx.clients.get("kinesis", region).send(new DescribeStreamSummaryCommand({ StreamName: name }), o),
      )
      const s = d?.StreamDescriptionSummary
      return s === undefined ? undefined : { name, encryption: s.EncryptionType ?? "NONE", kmsKeyId: s.KeyId, retentionHours: s.RetentionPeriodHours ?? 24 }
    },
  ).then(compact)
}

export interface DeliveryStream {
  readonly name: string
  readonly encryption: string
  readonly keyType: string | undefined
}
export type FirehoseInventory = ItemsInventory<DeliveryStream>

export async function collectFirehose(ctx: CollectContext): Promise<FirehoseInventory> {
  return listPerRegion(
    ctx,
    { type: "firehose.streams", op: "firehose:ListDeliveryStreams" },
    (region, t, o) => ctx.clients.get("firehose", region).send(new ListDeliveryStreamsCommand({ ...(t === undefined ? {} : { ExclusiveStartDeliveryStreamName: t }) }), o),
    (p) => ({ items: p.DeliveryStreamNames, next: p.HasMoreDeliveryStreams === true ? p.DeliveryStreamNames?.at(-1) : undefined }),
    async (name, region): Promise<DeliveryStream | undefined> => {
      const d = await ctx.call({ type: "firehose.streams", region, op: "firehose:DescribeDeliveryStream", id: name }, (o) =>
        ctx.clients.get("firehose", region).send(new DescribeDeliveryStreamCommand({ DeliveryStreamName: name }), o),
      )
      const s = d?.DeliveryStreamDescription
      if (s === undefined) return undefined
      return { name, encryption: s.DeliveryStreamEncryptionConfiguration?.Status ?? "DISABLED", keyType: s.DeliveryStreamEncryptionConfiguration?.KeyType }
    },
  ).then(compact)
}

export interface StateMachine {
  readonly name: string
  readonly arn: string
  readonly loggingLevel: string
  readonly tracing: boolean
}
export type SfnInventory = ItemsInventory<StateMachine>

export async function collectSfn(ctx: CollectContext): Promise<SfnInventory> {
  return listPerRegion(
    ctx,
    { type: "sfn.state_machines", op: "states:ListStateMachines" },
    (region, t, o) => ctx.clients.get("sfn", region).send(new ListStateMachinesCommand({ ...(t === undefined ? {} : { nextToken: t }) }), o),
    (p) => ({ items: p.stateMachines, next: p.nextToken }),
    async (m, region): Promise<StateMachine | undefined> => {
      const arn = m.stateMachineArn ?? ""
      const d = await ctx.call({ type: "sfn.state_machines", region, op: "states:DescribeStateMachine", id: arn }, (o) =>
        ctx.clients.get("sfn", region).send(new DescribeStateMachineCommand({ stateMachineArn: arn }), o),
      )
      if (d === undefined) return undefined
      return { name: m.name ?? "", arn, loggingLevel: d.loggingConfiguration?.level ?? "OFF", tracing: d.tracingConfiguration?.enabled === true }
    },
  ).then(compact)
}

export interface WorkGroup {
  readonly name: string
  readonly state: string
  readonly encryption: string | undefined
  readonly enforced: boolean
  readonly metrics: boolean
}
export type AthenaInventory = ItemsInventory<WorkGroup>

export async function collectAthena(ctx: CollectContext): Promise<AthenaInventory> {
  return listPerRegion(
    ctx,
    { type: "athena.workgroups", op: "athena:ListWorkGroups" },
    (region, t, o) => ctx.clients.get("athena", region).send(new ListWorkGroupsCommand({ ...(t === undefined ? {} : { NextToken: t }) }), o),
    (p) => ({ items: p.WorkGroups, next: p.NextToken }),
    async (w, region): Promise<WorkGroup | undefined> => {
      const name = w.Name ?? ""
      const d = await ctx.call({ type: "athena.workgroups", region, op: "athena:GetWorkGroup", id: name }, (o) => ctx.clients.get("athena", region).send(new GetWorkGroupCommand({ WorkGroup: name }), o))
      const g = d?.WorkGroup
      if (g === undefined) return undefined
      return {
        name,
        state: g.State ?? "ENABLED",
        encryption: g.Configuration?.ResultConfiguration?.EncryptionConfiguration?.EncryptionOption,
        enforced: g.Configuration?.EnforceWorkGroupConfiguration === true,
        metrics: g.Configuration?.PublishCloudWatchMetricsEnabled === true,
      }
    },
  ).then(compact)
}

export interface GlueRegion {
  readonly region: string
  readonly catalog: { readonly encryptionMode: string; readonly passwordsEncrypted: boolean } | undefined
  readonly jobs: ReadonlyArray<{ readonly name: string; readonly securityConfiguration: string | undefined }> | undefined
}
export interface GlueInventory {
  readonly regions: ReadonlyArray<GlueRegion>
}

export async function collectGlue(ctx: CollectContext): Promise<GlueInventory> {
  const regions = await ctx.perRegion(async (region): Promise<GlueRegion> => {
    const glue = ctx.clients.get("glue", region)
    const [settings, jobs] = await Promise.all([
      ctx.wants("glue.catalog") ? ctx.call({ type: "glue.catalog", region, op: "glue:GetDataCatalogEncryptionSettings" }, (o) => glue.send(new GetDataCatalogEncryptionSettingsCommand({}), o)) : undefined,
      ctx.wants("glue.jobs")
        ? ctx.paginate(
            { type: "glue.jobs", region, op: "glue:GetJobs" },
            (t, o) => glue.send(new GetJobsCommand({ ...(t === undefined ? {} : { NextToken: t }) }), o),
            (p) => ({ items: p.Jobs, next: p.NextToken }),
          )
        : undefined,
    ])
    ctx.countResources(jobs?.length ?? 0)
    const s = settings?.DataCatalogEncryptionSettings
    return {
      region,
      catalog: settings === undefined ? undefined : { encryptionMode: s?.EncryptionAtRest?.CatalogEncryptionMode ?? "DISABLED", passwordsEncrypted: s?.ConnectionPasswordEncryption?.ReturnConnectionPasswordEncrypted === true },
      jobs: jobs?.map((j) => ({ name: j.Name ?? "", securityConfiguration: j.SecurityConfiguration || undefined })),
    }
  })
  return { regions }
}

function compact<T>(inv: ItemsInventory<T | undefined>): ItemsInventory<T> {
  return { regions: inv.regions.map((r) => ({ region: r.region, items: r.items?.filter((i): i is T => i !== undefined) })) }
}
