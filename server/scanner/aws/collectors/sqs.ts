/** SQS inventory per region: queues with their encryption settings and access policy. */
import { GetQueueAttributesCommand, ListQueuesCommand } from "@aws-sdk/client-sqs"
import type { CollectContext } from "../context.ts"
import { parsePolicy, type PolicyDocument } from "../policy.ts"

export const sqsResourceTypes = ["sqs.queues"] as const

export interface SqsQueue {
  readonly url: string
  readonly name: string
  readonly arn: string
  readonly sqsManagedSse: boolean
  readonly kmsKeyId: string | undefined
  readonly policy: PolicyDocument | undefined
}

export interface SqsInventory {
  readonly regions: ReadonlyArray<{ readonly region: string; readonly queues: ReadonlyArray<SqsQueue> | undefined }>
}

export async function collectSqs(ctx: CollectContext): Promise<SqsInventory> {
  const regions = await ctx.perRegion(async (region) => {
    const sqs = ctx.clients.get("sqs", region)
    const urls = await ctx.paginate(
      { type: "sqs.queues", region, op: "sqs:ListQueues" },
      (t, o) => sqs.send(new ListQueuesCommand({ MaxResults: 1000, ...(t === undefined ? {} : { NextToken: t }) }), o),
      (p) => ({ items: p.QueueUrls, next: p.NextToken }),
    )
    const queues =
      urls === undefined
        ? undefined
        : (
            await ctx.map(urls, async (url): Promise<SqsQueue | undefined> => {
              const attrs = await ctx.call({ type: "sqs.queues", region, op: "sqs:GetQueueAttributes", id: url }, (o) =>
                sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["All"] }), o),
              )
              if (attrs === undefined) return undefined
              const a = attrs.Attributes ?? {}
              return {
                url,
                name: url.slice(url.lastIndexOf("/") + 1),
                arn: a["QueueArn"] ?? "",
                sqsManagedSse: a["SqsManagedSseEnabled"] === "true",
                kmsKeyId: a["KmsMasterKeyId"] || undefined,
                policy: parsePolicy(a["Policy"]),
              }
            })
          ).filter((q): q is SqsQueue => q !== undefined)
    ctx.countResources(queues?.length ?? 0)
    return { region, queues }
  })
  return { regions }
}
