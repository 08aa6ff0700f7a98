/**
 * Logging and monitoring: log sinks (logging v2 projects.sinks.list), log-based metrics (projects.metrics.list),
 * alert policies (monitoring v3 projects.alertPolicies.list), and for sinks exporting to Cloud Storage the
 * destination bucket's retention policy (storage v1 buckets.get).
 */
import { Schema } from "effect"
import { listAll, Paged, type GcpCollectContext } from "../context.ts"

export const loggingResourceTypes = ["logging.sinks", "logging.metrics", "logging.alert_policies", "logging.sink_buckets"] as const

export const LogSink = Schema.Struct({
  name: Schema.String,
  destination: Schema.String,
  filter: Schema.optionalKey(Schema.String),
  disabled: Schema.optionalKey(Schema.Boolean),
  includeChildren: Schema.optionalKey(Schema.Boolean),
  exclusions: Schema.optionalKey(Schema.Array(Schema.Struct({ name: Schema.optionalKey(Schema.String), filter: Schema.optionalKey(Schema.String), disabled: Schema.optionalKey(Schema.Boolean) }))),
  writerIdentity: Schema.optionalKey(Schema.String),
})
export type LogSink = typeof LogSink.Type

export const LogMetric = Schema.Struct({
  name: Schema.String,
  filter: Schema.String,
  disabled: Schema.optionalKey(Schema.Boolean),
})
export type LogMetric = typeof LogMetric.Type

const FilterCondition = Schema.optionalKey(Schema.Struct({ filter: Schema.optionalKey(Schema.String) }))
const QueryCondition = Schema.optionalKey(Schema.Struct({ query: Schema.optionalKey(Schema.String) }))

/**
 * An alert policy with every condition type of the Monitoring API: metric threshold and absence (filter on the
 * metric type), log match (a Logging filter on the entries
 * themselves), MQL and PromQL (a query naming the metric), SQL (Log Analytics). Unknown condition types decode too
 * and simply match nothing.
 */
export const AlertCondition = Schema.Struct({
  name: Schema.optionalKey(Schema.String),
  displayName: Schema.optionalKey(Schema.String),
  conditionThreshold: FilterCondition,
  conditionAbsent: FilterCondition,
  conditionMatchedLog: FilterCondition,
  conditionMonitoringQueryLanguage: QueryCondition,
  conditionPrometheusQueryLanguage: QueryCondition,
  conditionSql: QueryCondition,
})
export type AlertCondition = typeof AlertCondition.Type

export const AlertPolicy = Schema.Struct({
  name: Schema.String,
  displayName: Schema.optionalKey(Schema.String),
  enabled: Schema.optionalKey(Schema.Boolean),
  combiner: Schema.optionalKey(Schema.String),
  conditions: Schema.optionalKey(Schema.Array(AlertCondition)),
})
export type AlertPolicy = typeof AlertPolicy.Type

export const BucketRetention = Schema.Struct({
  name: Schema.String,
  retentionPolicy: Schema.optionalKey(
    Schema.Struct({ retentionPeriod: Schema.optionalKey(Schema.String), isLocked: Schema.optionalKey(Schema.Boolean), effectiveTime: Schema.optionalKey(Schema.String) }),
  ),
})
export type BucketRetention = typeof BucketRetention.Type

const SinksPage = Paged({ sinks: Schema.optionalKey(Schema.Array(LogSink)) })
const MetricsPage = Paged({ metrics: Schema.optionalKey(Schema.Array(LogMetric)) })
const AlertsPage = Paged({ alertPolicies: Schema.optionalKey(Schema.Array(AlertPolicy)) })

export interface LoggingInventory {
  readonly sinks: ReadonlyArray<LogSink> | undefined
  readonly metrics: ReadonlyArray<LogMetric> | undefined
  readonly alertPolicies: ReadonlyArray<AlertPolicy> | undefined
  /** Storage sink destinations by bucket name; null when the bucket does not exist (or is not visible). */
  readonly sinkBuckets: ReadonlyMap<string, BucketRetention | null | undefined> | undefined
}

/** "storage.googleapis.com/my-bucket" → "my-bucket". */
export const storageSinkBucket = (destination: string): string | undefined => {
  const m = /^storage\.googleapis\.com\/([^/]+)$/.exec(destination)
  return m?.[1]
}

export async function collectLogging(ctx: GcpCollectContext): Promise<LoggingInventory> {
  const p = ctx.projectId
  const e = ctx.endpoints
  const wantsSinks = ctx.wants("logging.sinks") || ctx.wants("logging.sink_buckets")
  const [sinks, metrics, alertPolicies] = await Promise.all([
    wantsSinks
      ? listAll(ctx, { type: "logging.sinks", region: "global", op: "logging.projects.sinks.list" }, `${e.logging}/v2/projects/${p}/sinks?pageSize=200`, SinksPage, (page) => page.sinks)
      : undefined,
    ctx.wants("logging.metrics")
      ? listAll(ctx, { type: "logging.metrics", region: "global", op: "logging.projects.metrics.list" }, `${e.logging}/v2/projects/${p}/metrics?pageSize=200`, MetricsPage, (page) => page.metrics)
      : undefined,
    ctx.wants("logging.alert_policies")
      ? listAll(
          ctx,
          { type: "logging.alert_policies", region: "global", op: "monitoring.projects.alertPolicies.list" },
          `${e.monitoring}/v3/projects/${p}/alertPolicies?pageSize=200`,
          AlertsPage,
          (page) => page.alertPolicies,
        )
      : undefined,
  ])
  ctx.countResources((sinks?.length ?? 0) + (metrics?.length ?? 0) + (alertPolicies?.length ?? 0))
  let sinkBuckets: Map<string, BucketRetention | null | undefined> | undefined
  if (ctx.wants("logging.sink_buckets") && sinks !== undefined) {
    const names = [...new Set(sinks.flatMap((s) => storageSinkBucket(s.destination) ?? []))]
    const buckets = await ctx.map(names, (name) =>
      ctx.optional(
        { type: "logging.sink_buckets", region: "global", op: "storage.buckets.get", id: name },
        { url: `${e.storage}/storage/v1/b/${encodeURIComponent(name)}?fields=name,retentionPolicy` },
        BucketRetention,
      ),
    )
    sinkBuckets = new Map(names.map((n, i) => [n, buckets[i]]))
  }
  return { sinks, metrics, alertPolicies, sinkBuckets }
}
