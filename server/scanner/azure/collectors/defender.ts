/**
 * Microsoft Defender for Cloud (Microsoft.Security): plan pricing tiers and extensions, auto-provisioning, the
 * MCAS/WDATP integration settings and the security contact's notification settings.
 */
import { Schema } from "effect"
import { armList, type AzureCollectContext } from "../context.ts"

export const defenderResourceTypes = ["defender.pricings", "defender.auto_provisioning", "defender.settings", "defender.contacts"] as const

export const Pricing = Schema.Struct({
  id: Schema.optionalKey(Schema.String),
  name: Schema.String,
  properties: Schema.optionalKey(
    Schema.Struct({
      pricingTier: Schema.optionalKey(Schema.String),
      subPlan: Schema.optionalKey(Schema.NullOr(Schema.String)),
      deprecated: Schema.optionalKey(Schema.Boolean),
      extensions: Schema.optionalKey(Schema.Array(Schema.Struct({ name: Schema.String, isEnabled: Schema.optionalKey(Schema.String) }))),
    }),
  ),
})
export type Pricing = typeof Pricing.Type

export const AutoProvisioning = Schema.Struct({ name: Schema.String, properties: Schema.optionalKey(Schema.Struct({ autoProvision: Schema.optionalKey(Schema.String) })) })
export const SecuritySetting = Schema.Struct({ name: Schema.String, kind: Schema.optionalKey(Schema.String), properties: Schema.optionalKey(Schema.Struct({ enabled: Schema.optionalKey(Schema.Boolean) })) })

export const SecurityContact = Schema.Struct({
  id: Schema.optionalKey(Schema.String),
  name: Schema.String,
  properties: Schema.optionalKey(
    Schema.Struct({
      emails: Schema.optionalKey(Schema.String),
      isEnabled: Schema.optionalKey(Schema.Boolean),
      notificationsByRole: Schema.optionalKey(Schema.Struct({ state: Schema.optionalKey(Schema.String), roles: Schema.optionalKey(Schema.Array(Schema.String)) })),
      notificationsSources: Schema.optionalKey(
        Schema.Array(Schema.Struct({ sourceType: Schema.String, minimalSeverity: Schema.optionalKey(Schema.String), minimalRiskLevel: Schema.optionalKey(Schema.String) })),
      ),
    }),
  ),
})
export type SecurityContact = typeof SecurityContact.Type

export interface DefenderInventory {
  readonly pricings: ReadonlyArray<Pricing> | undefined
  readonly autoProvisioning: ReadonlyArray<typeof AutoProvisioning.Type> | undefined
  readonly settings: ReadonlyArray<typeof SecuritySetting.Type> | undefined
  readonly contacts: ReadonlyArray<SecurityContact> | undefined
}

export async function collectDefender(ctx: AzureCollectContext): Promise<DefenderInventory> {
  const base = `/subscriptions/${ctx.subscriptionId}/providers/Microsoft.Security`
  const when = <A>(type: string, f: () => Promise<A | undefined>) => (ctx.wants(type) ? f() : Promise.resolve(undefined))
  const [pricings, autoProvisioning, settings, contacts] = await Promise.all([
    when("defender.pricings", () => armList(ctx, { type: "defender.pricings", region: "global", op: "Microsoft.Security/pricings/read" }, `${base}/pricings`, "2024-01-01", Pricing)),
    when("defender.auto_provisioning", () =>
      armList(ctx, { type: "defender.auto_provisioning", region: "global", op: "Microsoft.Security/autoProvisioningSettings/read" }, `${base}/autoProvisioningSettings`, "2017-08-01-preview", AutoProvisioning),
    ),
    when("defender.settings", () => armList(ctx, { type: "defender.settings", region: "global", op: "Microsoft.Security/settings/read" }, `${base}/settings`, "2022-05-01", SecuritySetting)),
    when("defender.contacts", () => armList(ctx, { type: "defender.contacts", region: "global", op: "Microsoft.Security/securityContacts/read" }, `${base}/securityContacts`, "2023-12-01-preview", SecurityContact)),
  ])
  return { pricings, autoProvisioning, settings, contacts }
}
