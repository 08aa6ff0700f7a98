/** CloudFront checks (FSBP CloudFront.x): HTTPS to viewers, modern TLS, WAF, origin access control, encrypted origin traffic. */
import type { Distribution } from "../collectors/cloudfront.ts"
import { flagChecks } from "../generic.ts"
import type { InventoryWith } from "../inventory.ts"

const distribution = flagChecks({
  service: "cloudfront",
  uses: ["cloudfront.distributions"],
  regions: (inv: InventoryWith<"cloudfront">) => [{ region: "global", items: inv.cloudfront.distributions }],
  kind: "Distribution",
  idOf: (d: Distribution) => d.id,
  nameOf: (d: Distribution) => `${d.id} (${d.domain})`,
})

const OLD_TLS = /^(SSLv3|TLSv1|TLSv1_2016|TLSv1\.1_2016)$/

export const cloudfrontChecks = [
  distribution({
    id: "cloudfront_distribution_https_only",
    title: "CloudFront distributions should require HTTPS between viewers and CloudFront",
    description: "Finds distributions with a cache behavior whose viewer protocol policy is allow-all (plain HTTP served).",
    severity: "medium",
    fsbp: "CloudFront.3",
    remediation: "Set ViewerProtocolPolicy to redirect-to-https (or https-only) on every cache behavior: aws cloudfront update-distribution --id ID --distribution-config file://config.json --if-match ETAG.",
    label: "Viewer protocol policies",
    value: (d) => d.viewerPolicies,
    ok: (d) => d.viewerPolicies.every((p) => p !== "allow-all"),
    pass: "serves viewers over HTTPS only",
    fail: "serves viewers over plain HTTP",
  }),
  distribution({
    id: "cloudfront_distribution_modern_tls",
    title: "CloudFront distributions should not accept TLS below 1.2",
    description: "Finds distributions with a custom certificate whose minimum viewer protocol allows SSLv3, TLS 1.0 or TLS 1.1.",
    severity: "medium",
    fsbp: "CloudFront.15",
    remediation: "Set ViewerCertificate.MinimumProtocolVersion to TLSv1.2_2021 and update the distribution.",
    label: "Minimum protocol",
    value: (d) => d.minimumProtocol ?? null,
    ok: (d) => d.minimumProtocol === undefined || !OLD_TLS.test(d.minimumProtocol),
    applies: (d) => d.customCertificate,
    pass: "requires TLS 1.2 or later",
    fail: "accepts TLS below 1.2",
  }),
  distribution({
    id: "cloudfront_distribution_waf_enabled",
    title: "CloudFront distributions should be protected by AWS WAF",
    description: "Finds distributions without a WAF web ACL.",
    severity: "medium",
    fsbp: "CloudFront.6",
    remediation: "Create a CLOUDFRONT-scope web ACL (us-east-1) and set it as the distribution's WebACLId.",
    label: "Web ACL",
    value: (d) => d.webAclId ?? null,
    ok: (d) => d.webAclId !== undefined,
    pass: "is protected by a WAF web ACL",
    fail: "has no WAF web ACL",
  }),
  distribution({
    id: "cloudfront_distribution_s3_origin_access_control",
    title: "CloudFront S3 origins should use origin access control",
    description: "Finds distributions with S3 origins that have neither an origin access control nor an origin access identity, which forces the bucket to be readable by everyone.",
    severity: "high",
    fsbp: "CloudFront.13",
    remediation: "Create an origin access control (aws cloudfront create-origin-access-control), set it on the S3 origin, allow it in the bucket policy, then block public access on the bucket.",
    label: "Open S3 origins",
    value: (d) => d.openS3Origins,
    ok: (d) => d.openS3Origins.length === 0,
    testedWith: "sdk-mock",
    mockReason: "moto's GetDistribution drops S3OriginConfig (and its origin access identity), so the compliant case needs a stubbed GetDistribution.",
    pass: "reaches its S3 origins through origin access control",
    fail: "has S3 origins without origin access control",
  }),
  distribution({
    id: "cloudfront_distribution_origin_traffic_encrypted",
    title: "CloudFront should encrypt traffic to custom origins",
    description: "Finds distributions that fetch from a custom origin over plain HTTP (origin protocol policy http-only).",
    severity: "medium",
    fsbp: "CloudFront.9",
    remediation: "Set the origin's OriginProtocolPolicy to https-only (the origin needs a valid certificate) and update the distribution.",
    label: "HTTP-only origins",
    value: (d) => d.httpOrigins,
    ok: (d) => d.httpOrigins.length === 0,
    pass: "reaches its origins over HTTPS",
    fail: "reaches origins over plain HTTP",
  }),
]
