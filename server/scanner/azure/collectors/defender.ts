/**
 * Microsoft Defender for Cloud (Microsoft.Security): plan pricing tiers and extensions, auto-provisioning, the
 * MCAS/WDATP integration settings, the security contact's notification settings, and the security assessments
 * (recommendation status per resource) of the whole subscription.
 */
import { Schema } from "effect"
import { armList, type AzureCollectContext } from "../context.ts"

export const defenderResourceTypes = ["defender.pricings", "defender.auto_provisioning", "defender.settings", "defender.contacts", "defender.assessments"] as const

export const Pricing = Schema.Struct({
  id: Schema.optionalKey(Schema.String),
  name: Schema.String,
  properties: Schema.optionalKey(
    Schema.Struct({
      pricingTier: Schema.optionalKey(Schema.String),
      subPlan: Schema.optionalKey(Schema.NullOr(Schema.String)),
      deprecated: Schema.optionalKey(Schema.Boolean),
      /** The plans that took over a deprecated one (Dns → VirtualMachines). */
      replacedBy: Schema.optionalKey(Schema.NullOr(Schema.Array(Schema.String))),
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

/**
 * A security assessment (api-version 2020-01-01): one recommendation's status for one resource. `name` is the
 * assessment key (the recommendation's metadata GUID); the id is `{resourceId}/providers/Microsoft.Security/
 * assessments/{key}`; `resourceDetails` is `{source:"Azure", id}` for Azure resources and machine details on-premises.
 */
export const Assessment = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  type: Schema.optionalKey(Schema.String),
  properties: Schema.optionalKey(
    Schema.Struct({
      displayName: Schema.optionalKey(Schema.String),
      resourceDetails: Schema.optionalKey(Schema.Struct({ source: Schema.optionalKey(Schema.String), id: Schema.optionalKey(Schema.String) })),
      status: Schema.optionalKey(Schema.Struct({ code: Schema.String, cause: Schema.optionalKey(Schema.String), description: Schema.optionalKey(Schema.String) })),
    }),
  ),
})
export type Assessment = typeof Assessment.Type

export interface DefenderInventory {
  readonly pricings: ReadonlyArray<Pricing> | undefined
  readonly autoProvisioning: ReadonlyArray<typeof AutoProvisioning.Type> | undefined
  readonly settings: ReadonlyArray<typeof SecuritySetting.Type> | undefined
  readonly contacts: ReadonlyArray<SecurityContact> | undefined
  readonly assessments: ReadonlyArray<Assessment> | undefined
}

export async function collectDefender(ctx: AzureCollectContext): Promise<DefenderInventory> {
  const base = `/subscriptions/${ctx.subscriptionId}/providers/Microsoft.Security`
  const when = <A>(type: string, f: () => Promise<A | undefined>) => (ctx.wants(type) ? f() : Promise.resolve(undefined))
  const [pricings, autoProvisioning, settings, contacts, assessments] = await Promise.all([
    when("defender.pricings", () => armList(ctx, { type: "defender.pricings", region: "global", op: "Microsoft.Security/pricings/read" }, `${base}/pricings`, "2024-01-01", Pricing)),
    when("defender.auto_provisioning", () =>
      armList(ctx, { type: "defender.auto_provisioning", region: "global", op: "Microsoft.Security/autoProvisioningSettings/read" }, `${base}/autoProvisioningSettings`, "2017-08-01-preview", AutoProvisioning),
    ),
    when("defender.settings", () => armList(ctx, { type: "defender.settings", region: "global", op: "Microsoft.Security/settings/read" }, `${base}/settings`, "2022-05-01", SecuritySetting)),
    when("defender.contacts", () => armList(ctx, { type: "defender.contacts", region: "global", op: "Microsoft.Security/securityContacts/read" }, `${base}/securityContacts`, "2023-12-01-preview", SecurityContact)),
    when("defender.assessments", () => armList(ctx, { type: "defender.assessments", region: "global", op: "Microsoft.Security/assessments/read" }, `${base}/assessments`, "2020-01-01", Assessment)),
  ])
  return { pricings, autoProvisioning, settings, contacts, assessments }
}
