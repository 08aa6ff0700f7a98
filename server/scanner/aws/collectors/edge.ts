/**
 * Inventory of the account's edge services: Route 53 hosted zones (global, read once from the home region) with their
 * query logging and apex mail records; WAFv2 web ACLs per region (CloudFront-scope ACLs from us-east-1 when scanned)
 * with rules, default action, metrics and logging; SES identities per region with DKIM signing and sending policies.
 */
import { ListHostedZonesCommand, ListQueryLoggingConfigsCommand, ListResourceRecordSetsCommand } from "@aws-sdk/client-route-53"
import { GetLoggingConfigurationCommand, GetWebACLCommand, ListWebACLsCommand, type Scope } from "@aws-sdk/client-wafv2"
import { GetEmailIdentityCommand, ListEmailIdentitiesCommand } from "@aws-sdk/client-sesv2"
import type { CollectContext } from "../context.ts"
import { listPerRegion, type ItemsInventory } from "./per-region.ts"
import { parsePolicy, type PolicyDocument } from "../policy.ts"

export const route53ResourceTypes = ["route53.hosted_zones"] as const
export const wafv2ResourceTypes = ["wafv2.web_acls"] as const
export const sesResourceTypes = ["ses.identities"] as const

const defined = <T>(inv: ItemsInventory<T | undefined>): ItemsInventory<T> => ({ regions: inv.regions.map((r) => ({ region: r.region, items: r.items?.filter((i): i is T => i !== undefined) })) })

export interface HostedZone {
  readonly id: string
  readonly name: string
  readonly private: boolean
  readonly queryLogging: boolean
  /** Apex records of a public zone (undefined for private zones or when they could not be read). */
  readonly apexMx: boolean | undefined
  readonly apexSpf: boolean | undefined
}

export interface Route53Inventory {
  readonly zones: ReadonlyArray<HostedZone> | undefined
}

const zoneId = (id: string) => id.replace(/^\/hostedzone\//, "")

export async function collectRoute53(ctx: CollectContext): Promise<Route53Inventory> {
  const spec = { type: "route53.hosted_zones", region: "global" }
  const client = ctx.clients.get("route53", ctx.homeRegion)
  const zones = await ctx.paginate(
    { ...spec, op: "route53:ListHostedZones" },
    (m, o) => client.send(new ListHostedZonesCommand({ ...(m === undefined ? {} : { Marker: m }) }), o),
    (p) => ({ items: p.HostedZones, next: p.IsTruncated === true ? p.NextMarker : undefined }),
  )
  if (zones === undefined) return { zones: undefined }
  ctx.countResources(zones.length)
  const logging = await ctx.paginate(
    { ...spec, op: "route53:ListQueryLoggingConfigs" },
    (t, o) => client.send(new ListQueryLoggingConfigsCommand({ ...(t === undefined ? {} : { NextToken: t }) }), o),
    (p) => ({ items: p.QueryLoggingConfigs, next: p.NextToken }),
  )
  if (logging === undefined) return { zones: undefined }
  const logged = new Set(logging.map((c) => zoneId(c.HostedZoneId ?? "")))
  return {
    zones: await ctx.map(zones, async (z): Promise<HostedZone> => {
      const id = zoneId(z.Id ?? "")
      const name = z.Name ?? id
      const isPrivate = z.Config?.PrivateZone === true
      // Records sort by reversed name, so the apex comes first: one page holds its MX and TXT records.
      const records = isPrivate
        ? undefined
        : await ctx.call({ ...spec, op: "route53:ListResourceRecordSets", id }, (o) =>
            client.send(new ListResourceRecordSetsCommand({ HostedZoneId: id, StartRecordName: name, MaxItems: 100 }), o),
          )
      const apex = records?.ResourceRecordSets?.filter((r) => r.Name === name)
      return {
        id,
        name,
        private: isPrivate,
        queryLogging: logged.has(id),
        apexMx: apex === undefined ? undefined : apex.some((r) => r.Type === "MX"),
        apexSpf: apex === undefined ? undefined : apex.some((r) => r.Type === "TXT" && (r.ResourceRecords ?? []).some((v) => /^"?v=spf1[\s"]/i.test(v.Value ?? ""))),
      }
    }),
  }
}

export interface WebAcl {
  readonly name: string
  readonly arn: string
  readonly scope: Scope
  readonly rules: number
  readonly defaultAction: "allow" | "block"
  /** ACL and rules without CloudWatch metrics. */
  readonly metricsOff: ReadonlyArray<string>
  /** null: no logging configuration. */
  readonly logging: boolean
}
export type Wafv2Inventory = ItemsInventory<WebAcl>

export async function collectWafv2(ctx: CollectContext): Promise<Wafv2Inventory> {
  const collect = (scope: Scope, c: CollectContext) =>
    listPerRegion(
      c,
      { type: "wafv2.web_acls", op: "wafv2:ListWebACLs" },
      (region, m, o) => c.clients.get("wafv2", region).send(new ListWebACLsCommand({ Scope: scope, ...(m === undefined ? {} : { NextMarker: m }) }), o),
      (p) => ({ items: p.WebACLs, next: p.NextMarker }),
      async (acl, region): Promise<WebAcl | undefined> => {
        const client = c.clients.get("wafv2", region)
        const spec = { type: "wafv2.web_acls", region, id: acl.Name ?? "" }
        const got = await c.call({ ...spec, op: "wafv2:GetWebACL" }, (o) => client.send(new GetWebACLCommand({ Name: acl.Name, Id: acl.Id, Scope: scope }), o))
        const log = await c.optional({ ...spec, op: "wafv2:GetLoggingConfiguration" }, ["WAFNonexistentItemException"], (o) =>
          client.send(new GetLoggingConfigurationCommand({ ResourceArn: acl.ARN }), o),
        )
        const w = got?.WebACL
        if (w === undefined || log === undefined) return undefined
        return {
          name: w.Name ?? acl.Name ?? "",
          arn: w.ARN ?? acl.ARN ?? "",
          scope,
          rules: w.Rules?.length ?? 0,
          defaultAction: w.DefaultAction?.Block !== undefined ? "block" : "allow",
          metricsOff: [
            ...(w.VisibilityConfig?.CloudWatchMetricsEnabled === true ? [] : [w.Name ?? ""]),
            ...(w.Rules ?? []).filter((r) => r.VisibilityConfig?.CloudWatchMetricsEnabled !== true).map((r) => `rule ${r.Name ?? ""}`),
          ],
          logging: log !== null && log.LoggingConfiguration !== undefined,
        }
      },
    )
  const regional = defined(await collect("REGIONAL", ctx))
  if (!ctx.regions.includes("us-east-1")) return regional
  // CloudFront-scope ACLs are listed in us-east-1 only, apart from the regional ones there.
  const edge = defined(await collect("CLOUDFRONT", { ...ctx, perRegion: (fn) => Promise.all([fn("us-east-1")]) }))
  const extra = edge.regions[0]?.items
  return {
    regions: regional.regions.map((r) =>
      r.region !== "us-east-1" ? r : { region: r.region, items: r.items === undefined || extra === undefined ? undefined : [...r.items, ...extra] },
    ),
  }
}

export interface EmailIdentity {
  readonly name: string
  readonly type: string
  readonly dkimSigning: boolean
  readonly policies: ReadonlyArray<{ readonly name: string; readonly document: PolicyDocument | undefined }>
}
export type SesInventory = ItemsInventory<EmailIdentity>

export async function collectSes(ctx: CollectContext): Promise<SesInventory> {
  return defined(
    await listPerRegion(
      ctx,
      { type: "ses.identities", op: "ses:ListEmailIdentities" },
      (region, t, o) => ctx.clients.get("sesv2", region).send(new ListEmailIdentitiesCommand({ ...(t === undefined ? {} : { NextToken: t }) }), o),
      (p) => ({ items: p.EmailIdentities, next: p.NextToken }),
      async (i, region): Promise<EmailIdentity | undefined> => {
        const name = i.IdentityName ?? ""
        const got = await ctx.call({ type: "ses.identities", region, op: "ses:GetEmailIdentity", id: name }, (o) =>
          ctx.clients.get("sesv2", region).send(new GetEmailIdentityCommand({ EmailIdentity: name }), o),
        )
        if (got === undefined) return undefined
        return {
          name,
          type: got.IdentityType ?? i.IdentityType ?? "",
          dkimSigning: got.DkimAttributes?.SigningEnabled === true,
          policies: Object.entries(got.Policies ?? {}).map(([policyName, text]) => ({ name: policyName, document: parsePolicy(text) })),
        }
      },
    ),
  )
}
