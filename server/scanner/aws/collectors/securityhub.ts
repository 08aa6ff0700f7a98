/** Security Hub inventory per region: whether the account is subscribed (DescribeHub answers InvalidAccessException when not). */
import { DescribeHubCommand } from "@aws-sdk/client-securityhub"
import type { CollectContext } from "../context.ts"

export const securityhubResourceTypes = ["securityhub.hub"] as const

export interface SecurityHubInventory {
  readonly regions: ReadonlyArray<{ readonly region: string; readonly hub: { readonly arn: string; readonly subscribedAt: string | undefined } | null | undefined }>
}

export async function collectSecurityHub(ctx: CollectContext): Promise<SecurityHubInventory> {
  const regions = await ctx.perRegion(async (region) => {
    const hub = await ctx.optional({ type: "securityhub.hub", region, op: "securityhub:DescribeHub" }, ["InvalidAccessException", "ResourceNotFoundException"], (o) =>
      ctx.clients.get("securityhub", region).send(new DescribeHubCommand({}), o),
    )
    return { region, hub: hub === undefined ? undefined : hub === null ? null : { arn: hub.HubArn ?? "", subscribedAt: hub.SubscribedAt } }
  })
  return { regions }
}
