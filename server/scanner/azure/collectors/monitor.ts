/**
 * Azure Monitor (Microsoft.Insights): the subscription's activity-log diagnostic settings, activity log alerts and
 * Application Insights components.
 */
import { Schema } from "effect"
import { armList, type AzureCollectContext } from "../context.ts"
import { DIAGNOSTICS_API, DiagnosticSetting } from "./keyvault.ts"

export const monitorResourceTypes = ["monitor.diagnostic_settings", "monitor.activity_log_alerts", "monitor.components"] as const

/**
 * An activity-log alert condition leaf (AlertRuleLeafCondition, 2020-10-01): `field` (an event property, compared
 * case-insensitively) equal to `equals`, or to one of `containsAny`.
 */
const LeafFields = {
  field: Schema.optionalKey(Schema.NullOr(Schema.String)),
  equals: Schema.optionalKey(Schema.NullOr(Schema.String)),
  containsAny: Schema.optionalKey(Schema.NullOr(Schema.Array(Schema.String))),
}
export const AlertLeafCondition = Schema.Struct(LeafFields)
export type AlertLeafCondition = typeof AlertLeafCondition.Type

/**
 * Activity log alerts (Microsoft.Insights/activityLogAlerts 2020-10-01). `scopes` are the resource ids (a
 * subscription, resource group or resource) whose events the alert watches; `condition.allOf` must all hold, each
 * a leaf or an `anyOf` of leaves (AlertRuleAnyOfOrLeafCondition). `enabled` absent means true (REST reference:
 * "default value is true").
 */
export const ActivityLogAlert = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  properties: Schema.optionalKey(
    Schema.Struct({
      enabled: Schema.optionalKey(Schema.Boolean),
      scopes: Schema.optionalKey(Schema.Array(Schema.String)),
      condition: Schema.optionalKey(
        Schema.Struct({
          allOf: Schema.optionalKey(Schema.Array(Schema.Struct({ ...LeafFields, anyOf: Schema.optionalKey(Schema.NullOr(Schema.Array(AlertLeafCondition))) }))),
        }),
      ),
    }),
  ),
})
export type ActivityLogAlert = typeof ActivityLogAlert.Type

export const Component = Schema.Struct({ id: Schema.String, name: Schema.String, location: Schema.optionalKey(Schema.String) })

export interface MonitorInventory {
  readonly diagnosticSettings: ReadonlyArray<DiagnosticSetting> | undefined
  readonly activityLogAlerts: ReadonlyArray<ActivityLogAlert> | undefined
  readonly components: ReadonlyArray<typeof Component.Type> | undefined
}

export async function collectMonitor(ctx: AzureCollectContext): Promise<MonitorInventory> {
  const sub = `/subscriptions/${ctx.subscriptionId}`
  const when = <A>(type: string, f: () => Promise<A | undefined>) => (ctx.wants(type) ? f() : Promise.resolve(undefined))
  const [diagnosticSettings, activityLogAlerts, components] = await Promise.all([
    when("monitor.diagnostic_settings", () =>
      armList(ctx, { type: "monitor.diagnostic_settings", region: "global", op: "Microsoft.Insights/diagnosticSettings/read" }, `${sub}/providers/Microsoft.Insights/diagnosticSettings`, DIAGNOSTICS_API, DiagnosticSetting),
    ),
    when("monitor.activity_log_alerts", () =>
      armList(ctx, { type: "monitor.activity_log_alerts", region: "global", op: "Microsoft.Insights/activityLogAlerts/read" }, `${sub}/providers/Microsoft.Insights/activityLogAlerts`, "2020-10-01", ActivityLogAlert),
    ),
    when("monitor.components", () => armList(ctx, { type: "monitor.components", region: "global", op: "Microsoft.Insights/components/read" }, `${sub}/providers/Microsoft.Insights/components`, "2020-02-02", Component)),
  ])
  ctx.countResources((activityLogAlerts?.length ?? 0) + (components?.length ?? 0))
  return { diagnosticSettings, activityLogAlerts, components }
}
