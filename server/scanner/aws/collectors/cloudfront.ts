/**
 * CloudFront inventory (global, read once from the home region): distributions with their viewer policies, TLS, WAF
 * and origins. AWS lists all of it in ListDistributions; a summary without cache behaviors (moto's) is completed with
 * GetDistribution.
 */
import { GetDistributionCommand, ListDistributionsCommand, type DistributionConfig, type DistributionSummary } from "@aws-sdk/client-cloudfront"
import type { CollectContext } from "../context.ts"

export const cloudfrontResourceTypes = ["cloudfront.distributions"] as const

export interface Distribution {
  readonly id: string
  readonly domain: string
  /** Viewer protocol policy of every cache behavior (default first). */
  readonly viewerPolicies: ReadonlyArray<string>
  readonly minimumProtocol: string | undefined
  /** Served with the account's own certificate (ACM or IAM), whose minimum TLS version the owner chooses. */
  readonly customCertificate: boolean
  readonly webAclId: string | undefined
  /** S3 origins without an origin access control or identity (bucket must be public to serve them). */
  readonly openS3Origins: ReadonlyArray<string>
  /** Custom origins reached over plain HTTP. */
  readonly httpOrigins: ReadonlyArray<string>
}

export interface CloudFrontInventory {
  readonly distributions: ReadonlyArray<Distribution> | undefined
}

/** An S3 REST endpoint origin (website endpoints are custom origins and cannot use origin access control). */
const isS3RestOrigin = (o: { readonly S3OriginConfig?: unknown; readonly CustomOriginConfig?: unknown; readonly DomainName?: string | undefined }) =>
  o.S3OriginConfig !== undefined || (o.CustomOriginConfig === undefined && /\.s3[.-]([a-z0-9-]+\.)?amazonaws\.com$/.test(o.DomainName ?? "") && !/s3-website/.test(o.DomainName ?? ""))

export async function collectCloudFront(ctx: CollectContext): Promise<CloudFrontInventory> {
  const list = await ctx.paginate(
    { type: "cloudfront.distributions", region: "global", op: "cloudfront:ListDistributions" },
    (m, o) => ctx.clients.get("cloudfront", ctx.homeRegion).send(new ListDistributionsCommand({ ...(m === undefined ? {} : { Marker: m }) }), o),
    (p) => ({ items: p.DistributionList?.Items, next: p.DistributionList?.IsTruncated === true ? p.DistributionList.NextMarker : undefined }),
  )
  const full =
    list === undefined
      ? undefined
      : await ctx.map(list, async (d): Promise<DistributionSummary | DistributionConfig | undefined> => {
          if (d.DefaultCacheBehavior !== undefined) return d
          const id = d.Id ?? ""
          const got = await ctx.call({ type: "cloudfront.distributions", region: "global", op: "cloudfront:GetDistribution", id }, (o) =>
            ctx.clients.get("cloudfront", ctx.homeRegion).send(new GetDistributionCommand({ Id: id }), o),
          )
          return got?.Distribution?.DistributionConfig
        })
  ctx.countResources(list?.length ?? 0)
  return {
    distributions: list?.flatMap((summary, i) => {
      const d = full?.[i]
      if (d === undefined) return []
      const origins = d.Origins?.Items ?? []
      return [
        {
          id: summary.Id ?? "",
          domain: summary.DomainName ?? "",
          viewerPolicies: [d.DefaultCacheBehavior?.ViewerProtocolPolicy ?? "allow-all", ...(d.CacheBehaviors?.Items ?? []).map((b) => b.ViewerProtocolPolicy ?? "allow-all")],
          minimumProtocol: d.ViewerCertificate?.MinimumProtocolVersion,
          customCertificate: Boolean(d.ViewerCertificate?.ACMCertificateArn || d.ViewerCertificate?.IAMCertificateId),
          webAclId: d.WebACLId || undefined,
          openS3Origins: origins.filter((o) => isS3RestOrigin(o) && !o.S3OriginConfig?.OriginAccessIdentity && !o.OriginAccessControlId).map((o) => o.Id ?? ""),
          httpOrigins: origins.filter((o) => o.CustomOriginConfig?.OriginProtocolPolicy === "http-only").map((o) => o.Id ?? ""),
        },
      ]
    }),
  }
}
