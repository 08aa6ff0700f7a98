/** SNS inventory per region: topics (KMS key, policy) and subscriptions. */
import { GetTopicAttributesCommand, ListSubscriptionsCommand, ListTopicsCommand } from "@aws-sdk/client-sns"
import type { CollectContext } from "../context.ts"
import { parsePolicy, type PolicyDocument } from "../policy.ts"

export const snsResourceTypes = ["sns.topics", "sns.subscriptions"] as const

export interface SnsTopic {
  readonly arn: string
  readonly name: string
  readonly kmsKeyId: string | undefined
  readonly policy: PolicyDocument | undefined
}

export interface SnsSubscription {
  readonly arn: string
  readonly topicArn: string
  readonly protocol: string
  readonly confirmed: boolean
}

export interface SnsRegion {
  readonly region: string
  readonly topics: ReadonlyArray<SnsTopic> | undefined
  readonly subscriptions: ReadonlyArray<SnsSubscription> | undefined
}

export interface SnsInventory {
  readonly regions: ReadonlyArray<SnsRegion>
}

export async function collectSns(ctx: CollectContext): Promise<SnsInventory> {
  const regions = await ctx.perRegion(async (region): Promise<SnsRegion> => {
    const sns = ctx.clients.get("sns", region)
    const token = (t: string | undefined) => (t === undefined ? {} : { NextToken: t })
    const [topicList, subs] = await Promise.all([
      ctx.wants("sns.topics")
        ? ctx.paginate(
            { type: "sns.topics", region, op: "sns:ListTopics" },
            (t, o) => sns.send(new ListTopicsCommand({ ...token(t) }), o),
            (p) => ({ items: p.Topics, next: p.NextToken }),
          )
        : Promise.resolve(undefined),
      ctx.wants("sns.subscriptions")
        ? ctx.paginate(
            { type: "sns.subscriptions", region, op: "sns:ListSubscriptions" },
            (t, o) => sns.send(new ListSubscriptionsCommand({ ...token(t) }), o),
            (p) => ({ items: p.Subscriptions, next: p.NextToken }),
          )
        : Promise.resolve(undefined),
    ])
    const topics =
      topicList === undefined
        ? undefined
        : (
            await ctx.map(topicList, async (t): Promise<SnsTopic | undefined> => {
              const arn = t.TopicArn ?? ""
              const attrs = await ctx.call({ type: "sns.topics", region, op: "sns:GetTopicAttributes", id: arn }, (o) =>
                sns.send(new GetTopicAttributesCommand({ TopicArn: arn }), o),
              )
              if (attrs === undefined) return undefined
              const a = attrs.Attributes ?? {}
              return { arn, name: arn.slice(arn.lastIndexOf(":") + 1), kmsKeyId: a["KmsMasterKeyId"] || undefined, policy: parsePolicy(a["Policy"]) }
            })
          ).filter((t): t is SnsTopic => t !== undefined)
    ctx.countResources(topics?.length ?? 0)
    return {
      region,
      topics,
      subscriptions: subs?.map((s) => ({
        arn: s.SubscriptionArn ?? "",
        topicArn: s.TopicArn ?? "",
        protocol: s.Protocol ?? "",
        confirmed: s.SubscriptionArn !== undefined && s.SubscriptionArn.startsWith("arn:"),
      })),
    }
  })
  return { regions }
}
