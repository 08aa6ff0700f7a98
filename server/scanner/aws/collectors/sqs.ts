/** SQS inventory per region: queues with their encryption settings and access policy. */
import { GetQueueAttributesCommand, ListQueuesCommand } from "@aws-sdk/client-sqs"
import type { CollectContext } from "../context.ts"
import { parsePolicy, type PolicyDocument } from "../policy.ts"
import { resolveKeyManagers, type KeyManager } from "./keys.ts"

export const sqsResourceTypes = ["sqs.queues", "sqs.kms"] as const

export interface SqsQueue {
  readonly url: string
  readonly name: string
  readonly arn: string
  readonly sqsManagedSse: boolean
  readonly kmsKeyId: string | undefined
  readonly policy: PolicyDocument | undefined
  /** Dead-letter queue ARN of the redrive policy. */
  readonly deadLetterTarget: string | undefined
  readonly kmsManager: KeyManager | undefined
}

export interface SqsInventory {
  readonly regions: ReadonlyArray<{ readonly region: string; readonly queues: ReadonlyArray<SqsQueue> | undefined }>
}

const redriveTarget = (text: string | undefined): string | undefined => {
  if (text === undefined || text === "") return undefined
  try {
    const v = (JSON.parse(text) as { deadLetterTargetArn?: unknown }).deadLetterTargetArn
    return typeof v === "string" && v !== "" ? v : undefined
  } catch {
    return undefined
  }
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
                deadLetterTarget: redriveTarget(a["RedrivePolicy"]),
                kmsManager: undefined,
              }
            })
          ).filter((q): q is SqsQueue => q !== undefined)
    const keys = ctx.wants("sqs.kms") && queues !== undefined ? await resolveKeyManagers(ctx, region, "sqs.kms", queues.map((q) => q.kmsKeyId)) : undefined
    ctx.countResources(queues?.length ?? 0)
    return { region, queues: queues?.map((q) => ({ ...q, kmsManager: q.kmsKeyId === undefined ? undefined : keys?.get(q.kmsKeyId) })) }
  })
  return { regions }
}
