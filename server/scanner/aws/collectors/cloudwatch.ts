/** CloudWatch inventory per region: metric alarms (metric, namespace, actions). */
import { DescribeAlarmsCommand } from "@aws-sdk/client-cloudwatch"
import type { CollectContext } from "../context.ts"

export const cloudwatchResourceTypes = ["cloudwatch.alarms"] as const

export interface MetricAlarm {
  readonly name: string
  readonly metricName: string | undefined
  readonly namespace: string | undefined
  readonly actionsEnabled: boolean
  readonly alarmActions: ReadonlyArray<string>
}

export interface CloudWatchInventory {
  readonly regions: ReadonlyArray<{ readonly region: string; readonly alarms: ReadonlyArray<MetricAlarm> | undefined }>
}

export async function collectCloudWatch(ctx: CollectContext): Promise<CloudWatchInventory> {
  const regions = await ctx.perRegion(async (region) => {
    const alarms = await ctx.paginate(
      { type: "cloudwatch.alarms", region, op: "cloudwatch:DescribeAlarms" },
      (t, o) => ctx.clients.get("cloudwatch", region).send(new DescribeAlarmsCommand({ AlarmTypes: ["MetricAlarm"], ...(t === undefined ? {} : { NextToken: t }) }), o),
      (p) => ({ items: p.MetricAlarms, next: p.NextToken }),
    )
    ctx.countResources(alarms?.length ?? 0)
    return {
      region,
      alarms: alarms?.map((a) => ({
        name: a.AlarmName ?? "",
        metricName: a.MetricName,
        namespace: a.Namespace,
        actionsEnabled: a.ActionsEnabled !== false,
        alarmActions: a.AlarmActions ?? [],
      })),
    }
  })
  return { regions }
}
