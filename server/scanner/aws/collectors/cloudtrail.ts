/**
 * CloudTrail inventory: every trail visible from the scanned regions (deduplicated by ARN; multi-region trails
 * appear as shadow trails elsewhere), read in its home region: status (IsLogging) and event selectors (basic or
 * advanced). A trail with no selectors at all is treated as AWS's default (all management events): moto leaves
 * new trails without selectors while AWS creates the default selector.
 */
import { DescribeTrailsCommand, GetEventSelectorsCommand, GetInsightSelectorsCommand, GetTrailStatusCommand } from "@aws-sdk/client-cloudtrail"
import type { CollectContext } from "../context.ts"

export const cloudtrailResourceTypes = ["cloudtrail.trails", "cloudtrail.status", "cloudtrail.selectors", "cloudtrail.insights"] as const

export interface BasicSelector {
  readonly readWriteType: string
  readonly includeManagementEvents: boolean
  readonly dataResources: ReadonlyArray<{ readonly type: string; readonly values: ReadonlyArray<string> }>
}

export interface AdvancedSelector {
  readonly name: string
  readonly fields: ReadonlyArray<{ readonly field: string; readonly equals: ReadonlyArray<string>; readonly startsWith: ReadonlyArray<string>; readonly notEquals: ReadonlyArray<string> }>
}

export interface Trail {
  readonly name: string
  readonly arn: string
  readonly homeRegion: string
  readonly multiRegion: boolean
  readonly organizationTrail: boolean
  readonly includeGlobalServiceEvents: boolean
  readonly logFileValidation: boolean
  readonly kmsKeyId: string | undefined
  readonly s3BucketName: string | undefined
  readonly cloudWatchLogsLogGroupArn: string | undefined
  readonly snsTopicArn: string | undefined
  /** Insight types enabled (ApiCallRateInsight, ApiErrorRateInsight); undefined when not read. */
  readonly insights: ReadonlyArray<string> | undefined
  readonly isLogging: boolean | undefined
  /** undefined: could not read; otherwise basic and advanced selectors (both empty = AWS default). */
  readonly selectors: { readonly basic: ReadonlyArray<BasicSelector>; readonly advanced: ReadonlyArray<AdvancedSelector> } | undefined
}

export interface CloudTrailInventory {
  readonly trails: ReadonlyArray<Trail> | undefined
}

export async function collectCloudTrail(ctx: CollectContext): Promise<CloudTrailInventory> {
  const perRegion = await ctx.perRegion((region) =>
    ctx.call({ type: "cloudtrail.trails", region, op: "cloudtrail:DescribeTrails" }, (o) =>
      ctx.clients.get("cloudtrail", region).send(new DescribeTrailsCommand({ includeShadowTrails: true }), o),
    ),
  )
  // A region that could not be listed is recorded as an error (checks report it); the other regions' trails count.
  const byArn = new Map<string, NonNullable<NonNullable<(typeof perRegion)[number]>["trailList"]>[number]>()
  for (const out of perRegion) for (const t of out?.trailList ?? []) if (t.TrailARN !== undefined && !byArn.has(t.TrailARN)) byArn.set(t.TrailARN, t)
  if (perRegion.every((r) => r === undefined)) return { trails: undefined }

  const trails = await ctx.map([...byArn.values()], async (t): Promise<Trail> => {
    const arn = t.TrailARN ?? ""
    const home = t.HomeRegion ?? ctx.homeRegion
    const ct = ctx.clients.get("cloudtrail", home)
    const [status, selectors, insights] = await Promise.all([
      ctx.wants("cloudtrail.status")
        ? ctx.call({ type: "cloudtrail.status", region: home, op: "cloudtrail:GetTrailStatus", id: arn }, (o) => ct.send(new GetTrailStatusCommand({ Name: arn }), o))
        : Promise.resolve(undefined),
      ctx.wants("cloudtrail.selectors")
        ? ctx.call({ type: "cloudtrail.selectors", region: home, op: "cloudtrail:GetEventSelectors", id: arn }, (o) => ct.send(new GetEventSelectorsCommand({ TrailName: arn }), o))
        : Promise.resolve(undefined),
      ctx.wants("cloudtrail.insights")
        ? ctx.optional({ type: "cloudtrail.insights", region: home, op: "cloudtrail:GetInsightSelectors", id: arn }, ["InsightNotEnabledException"], (o) =>
            ct.send(new GetInsightSelectorsCommand({ TrailName: arn }), o),
          )
        : Promise.resolve(undefined),
    ])
    return {
      name: t.Name ?? "",
      arn,
      homeRegion: home,
      multiRegion: t.IsMultiRegionTrail === true,
      organizationTrail: t.IsOrganizationTrail === true,
      includeGlobalServiceEvents: t.IncludeGlobalServiceEvents === true,
      logFileValidation: t.LogFileValidationEnabled === true,
      kmsKeyId: t.KmsKeyId || undefined,
      s3BucketName: t.S3BucketName || undefined,
      cloudWatchLogsLogGroupArn: t.CloudWatchLogsLogGroupArn || undefined,
      snsTopicArn: t.SnsTopicARN || undefined,
      insights: insights === undefined ? undefined : insights === null ? [] : (insights.InsightSelectors ?? []).flatMap((i) => (i.InsightType === undefined ? [] : [i.InsightType])),
      isLogging: status?.IsLogging,
      selectors:
        selectors === undefined
          ? undefined
          : {
              basic: (selectors.EventSelectors ?? []).map((s) => ({
                readWriteType: s.ReadWriteType ?? "All",
                includeManagementEvents: s.IncludeManagementEvents !== false,
                dataResources: (s.DataResources ?? []).map((d) => ({ type: d.Type ?? "", values: d.Values ?? [] })),
              })),
              advanced: (selectors.AdvancedEventSelectors ?? []).map((s) => ({
                name: s.Name ?? "",
                fields: (s.FieldSelectors ?? []).map((f) => ({
                  field: f.Field ?? "",
                  equals: f.Equals ?? [],
                  startsWith: f.StartsWith ?? [],
                  notEquals: f.NotEquals ?? [],
                })),
              })),
            },
    }
  })
  ctx.countResources(trails.length)
  return { trails }
}
