/**
 * Azure Container Registry (Microsoft.ContainerRegistry 2023-07-01): the subscription's registries with their admin
 * user, anonymous pull, public network access and firewall, private endpoints and encryption. One list call; nothing
 * is read from the registries' data plane.
 */
import { Schema } from "effect"
import { ArmResource, armList, type AzureCollectContext } from "../context.ts"

export const acrResourceTypes = ["acr.registries"] as const
export const ACR_API = "2023-07-01"

export const Registry = ArmResource({
  adminUserEnabled: Schema.optionalKey(Schema.Boolean),
  anonymousPullEnabled: Schema.optionalKey(Schema.Boolean),
  publicNetworkAccess: Schema.optionalKey(Schema.String),
  networkRuleSet: Schema.optionalKey(
    Schema.NullOr(Schema.Struct({ defaultAction: Schema.optionalKey(Schema.String), ipRules: Schema.optionalKey(Schema.Array(Schema.Struct({ value: Schema.String, action: Schema.optionalKey(Schema.String) }))) })),
  ),
  privateEndpointConnections: Schema.optionalKey(
    Schema.Array(Schema.Struct({ id: Schema.optionalKey(Schema.String), properties: Schema.optionalKey(Schema.Struct({ privateLinkServiceConnectionState: Schema.optionalKey(Schema.Struct({ status: Schema.optionalKey(Schema.String) })) })) })),
  ),
  encryption: Schema.optionalKey(Schema.NullOr(Schema.Struct({ status: Schema.optionalKey(Schema.String) }))),
})
export type Registry = typeof Registry.Type

export interface AcrInventory {
  readonly registries: ReadonlyArray<Registry> | undefined
}

export async function collectAcr(ctx: AzureCollectContext): Promise<AcrInventory> {
  const registries = await armList(ctx, { type: "acr.registries", region: "global", op: "Microsoft.ContainerRegistry/registries/read" }, `/subscriptions/${ctx.subscriptionId}/providers/Microsoft.ContainerRegistry/registries`, ACR_API, Registry)
  if (registries !== undefined) ctx.countResources(registries.length)
  return { registries }
}
