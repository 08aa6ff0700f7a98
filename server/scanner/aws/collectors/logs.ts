/** CloudWatch Logs inventory per region: log groups (retention, KMS key) and metric filters. */
import { DescribeLogGroupsCommand, DescribeMetricFiltersCommand } from "@aws-sdk/client-cloudwatch-logs"
import type { CollectContext } from "../context.ts"

export const logsResourceTypes = ["logs.log_groups", "logs.metric_filters"] as const

export interface LogGroup {
  readonly name: string
  readonly arn: string
  readonly retentionDays: number | null
  readonly kmsKeyId: string | undefined
}

export interface MetricFilter {
  readonly name: string
  readonly logGroupName: string
  readonly pattern: string
  readonly metrics: ReadonlyArray<{ readonly name: string; readonly namespace: string }>
}

export interface LogsRegion {
  readonly region: string
  readonly logGroups: ReadonlyArray<LogGroup> | undefined
  readonly metricFilters: ReadonlyArray<MetricFilter> | undefined
}

export interface LogsInventory {
  readonly regions: ReadonlyArray<LogsRegion>
}

export async function collectLogs(ctx: CollectContext): Promise<LogsInventory> {
  const regions = await ctx.perRegion(async (region): Promise<LogsRegion> => {
    const logs = ctx.clients.get("logs", region)
    const token = (t: string | undefined) => (t === undefined ? {} : { nextToken: t })
    const [groups, filters] = await Promise.all([
      ctx.wants("logs.log_groups")
        ? ctx.paginate(
            { type: "logs.log_groups", region, op: "logs:DescribeLogGroups" },
            (t, o) => logs.send(new DescribeLogGroupsCommand({ ...token(t) }), o),
            (p) => ({ items: p.logGroups, next: p.nextToken }),
          )
        : Promise.resolve(undefined),
      ctx.wants("logs.metric_filters")
        ? ctx.paginate(
            { type: "logs.metric_filters", region, op: "logs:DescribeMetricFilters" },
            (t, o) => logs.send(new DescribeMetricFiltersCommand({ ...token(t) }), o),
            (p) => ({ items: p.metricFilters, next: p.nextToken }),
          )
        : Promise.resolve(undefined),
    ])
    ctx.countResources((groups?.length ?? 0) + (filters?.length ?? 0))
    return {
      region,
      logGroups: groups?.map((g) => ({
        name: g.logGroupName ?? "",
        arn: g.arn ?? "",
        retentionDays: g.retentionInDays ?? null,
        kmsKeyId: g.kmsKeyId,
      })),
      metricFilters: filters?.map((f) => ({
        name: f.filterName ?? "",
        logGroupName: f.logGroupName ?? "",
        pattern: f.filterPattern ?? "",
        metrics: (f.metricTransformations ?? []).map((m) => ({ name: m.metricName ?? "", namespace: m.metricNamespace ?? "" })),
      })),
    }
  })
  return { regions }
}
