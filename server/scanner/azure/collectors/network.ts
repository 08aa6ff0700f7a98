/**
 * Networking (Microsoft.Network 2024-05-01): network security groups and their rules, Network Watchers and their
 * flow logs, virtual networks (the regions in use) and Bastion hosts.
 */
import { Schema } from "effect"
import { ArmResource, armList, locationOf, type AzureCollectContext } from "../context.ts"

export const networkResourceTypes = ["network.security_groups", "network.watchers", "network.flow_logs", "network.virtual_networks", "network.bastion_hosts"] as const
export const NETWORK_API = "2024-05-01"

export const SecurityRule = Schema.Struct({
  id: Schema.optionalKey(Schema.String),
  name: Schema.String,
  properties: Schema.optionalKey(
    Schema.Struct({
      protocol: Schema.optionalKey(Schema.String),
      access: Schema.optionalKey(Schema.String),
      direction: Schema.optionalKey(Schema.String),
      priority: Schema.optionalKey(Schema.Number),
      sourceAddressPrefix: Schema.optionalKey(Schema.String),
      sourceAddressPrefixes: Schema.optionalKey(Schema.Array(Schema.String)),
      sourceApplicationSecurityGroups: Schema.optionalKey(Schema.Array(Schema.Struct({ id: Schema.optionalKey(Schema.String) }))),
      destinationPortRange: Schema.optionalKey(Schema.String),
      destinationPortRanges: Schema.optionalKey(Schema.Array(Schema.String)),
    }),
  ),
})
export type SecurityRule = typeof SecurityRule.Type

export const NetworkSecurityGroup = ArmResource({ securityRules: Schema.optionalKey(Schema.Array(SecurityRule)) })
export type NetworkSecurityGroup = typeof NetworkSecurityGroup.Type

export const NetworkWatcher = ArmResource({ provisioningState: Schema.optionalKey(Schema.String) })

export const FlowLog = ArmResource({
  targetResourceId: Schema.optionalKey(Schema.String),
  enabled: Schema.optionalKey(Schema.Boolean),
  retentionPolicy: Schema.optionalKey(Schema.Struct({ days: Schema.optionalKey(Schema.Number), enabled: Schema.optionalKey(Schema.Boolean) })),
})
export type FlowLog = typeof FlowLog.Type

export const Named = ArmResource({})

export interface NetworkInventory {
  readonly securityGroups: ReadonlyArray<NetworkSecurityGroup> | undefined
  readonly watchers: ReadonlyArray<typeof NetworkWatcher.Type> | undefined
  readonly flowLogs: ReadonlyArray<FlowLog> | undefined
  readonly virtualNetworks: ReadonlyArray<typeof Named.Type> | undefined
  readonly bastionHosts: ReadonlyArray<typeof Named.Type> | undefined
}

export async function collectNetwork(ctx: AzureCollectContext): Promise<NetworkInventory> {
  const base = `/subscriptions/${ctx.subscriptionId}/providers/Microsoft.Network`
  const when = <A>(type: string, f: () => Promise<A | undefined>) => (ctx.wants(type) ? f() : Promise.resolve(undefined))
  const wantWatchers = ctx.wants("network.watchers") || ctx.wants("network.flow_logs")
  const [securityGroups, watchers, virtualNetworks, bastionHosts] = await Promise.all([
    when("network.security_groups", () => armList(ctx, { type: "network.security_groups", region: "global", op: "Microsoft.Network/networkSecurityGroups/read" }, `${base}/networkSecurityGroups`, NETWORK_API, NetworkSecurityGroup)),
    wantWatchers ? armList(ctx, { type: "network.watchers", region: "global", op: "Microsoft.Network/networkWatchers/read" }, `${base}/networkWatchers`, NETWORK_API, NetworkWatcher) : undefined,
    when("network.virtual_networks", () => armList(ctx, { type: "network.virtual_networks", region: "global", op: "Microsoft.Network/virtualNetworks/read" }, `${base}/virtualNetworks`, NETWORK_API, Named)),
    when("network.bastion_hosts", () => armList(ctx, { type: "network.bastion_hosts", region: "global", op: "Microsoft.Network/bastionHosts/read" }, `${base}/bastionHosts`, NETWORK_API, Named)),
  ])
  let flowLogs: FlowLog[] | undefined
  if (ctx.wants("network.flow_logs") && watchers !== undefined) {
    let complete = true
    const per = await ctx.map(watchers, async (w) => {
      const logs = await armList(ctx, { type: "network.flow_logs", region: locationOf(w), op: "Microsoft.Network/networkWatchers/flowLogs/read", id: w.id }, `${w.id}/flowLogs`, NETWORK_API, FlowLog)
      if (logs === undefined) complete = false
      return logs ?? []
    })
    flowLogs = complete || per.flat().length > 0 ? per.flat() : undefined
  } else if (ctx.wants("network.flow_logs") && watchers === undefined) {
    const failure = [...ctx.errors].reverse().find((e) => e.resourceType === "network.watchers")
    if (failure !== undefined) ctx.recordError({ ...failure, resourceType: "network.flow_logs" })
  }
  ctx.countResources((securityGroups?.length ?? 0) + (watchers?.length ?? 0) + (flowLogs?.length ?? 0) + (virtualNetworks?.length ?? 0) + (bastionHosts?.length ?? 0))
  return { securityGroups, watchers, flowLogs, virtualNetworks, bastionHosts }
}
