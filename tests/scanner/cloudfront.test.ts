/** CloudFront checks on moto (a global service: one read from the home region, rows in "global"). */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CreateDistributionCommand, type DistributionConfig } from "@aws-sdk/client-cloudfront"
import type { ScanServiceResult } from "../../server/scanner/aws/scan-service.ts"
import { startMoto, type Moto } from "../support/moto.ts"
import { ACCOUNT, expectCases, scan, seedClients } from "./helpers.ts"

const E = "us-east-1"

describe("CloudFront distributions on moto", () => {
  let moto: Moto
  let result: ScanServiceResult
  let stubbed: ScanServiceResult
  const ids: Record<string, string> = {}

  beforeAll(async () => {
    moto = await startMoto()
    const c = seedClients(moto)
    const cf = c.get("cloudfront", E)
    const config = (ref: string, secure: boolean): DistributionConfig => ({
      CallerReference: ref,
      Comment: ref,
      Enabled: true,
      ...(secure ? { WebACLId: `arn:aws:wafv2:${E}:${ACCOUNT}:global/webacl/edge/1111` } : {}),
      Origins: {
        Quantity: 2,
        Items: [
          { Id: "assets", DomainName: "assets-bucket.s3.amazonaws.com", S3OriginConfig: { OriginAccessIdentity: secure ? "origin-access-identity/cloudfront/E1234567890" : "" } },
          { Id: "api", DomainName: "api.example.com", CustomOriginConfig: { HTTPPort: 80, HTTPSPort: 443, OriginProtocolPolicy: secure ? "https-only" : "http-only" } },
        ],
      },
      DefaultCacheBehavior: { TargetOriginId: "assets", ViewerProtocolPolicy: secure ? "redirect-to-https" : "allow-all", CachePolicyId: "658327ea-f89d-4fab-a63d-7e88639e58f6" },
      ViewerCertificate: secure
        ? { ACMCertificateArn: `arn:aws:acm:${E}:${ACCOUNT}:certificate/abc`, SSLSupportMethod: "sni-only", MinimumProtocolVersion: "TLSv1.2_2021" }
        : { ACMCertificateArn: `arn:aws:acm:${E}:${ACCOUNT}:certificate/def`, SSLSupportMethod: "sni-only", MinimumProtocolVersion: "TLSv1" },
    })
    ids.secure = (await cf.send(new CreateDistributionCommand({ DistributionConfig: config("secure", true) }))).Distribution?.Id ?? ""
    ids.loose = (await cf.send(new CreateDistributionCommand({ DistributionConfig: config("loose", false) }))).Distribution?.Id ?? ""
    c.destroy()
    result = await scan(moto, "cloudfront", { regions: [E] })
    // moto drops S3OriginConfig from GetDistribution: the origin access identity of the secure distribution is stubbed.
    stubbed = await scan(moto, "cloudfront", {
      regions: [E],
      checkIds: ["cloudfront_distribution_s3_origin_access_control"],
      stub: ({ command, input }) =>
        command === "GetDistributionCommand" && (input as { Id?: string }).Id === ids.secure
          ? {
              Distribution: {
                Id: ids.secure,
                DistributionConfig: {
                  DefaultCacheBehavior: { TargetOriginId: "assets", ViewerProtocolPolicy: "redirect-to-https" },
                  Origins: { Quantity: 1, Items: [{ Id: "assets", DomainName: "assets-bucket.s3.amazonaws.com", S3OriginConfig: { OriginAccessIdentity: "origin-access-identity/cloudfront/E1234567890" } }] },
                },
              },
            }
          : undefined,
    })
  })
  afterAll(async () => {
    await moto?.stop()
  })

  it("HTTPS, TLS, WAF, origin access control, origin encryption", () => {
    for (const check of ["cloudfront_distribution_https_only", "cloudfront_distribution_modern_tls", "cloudfront_distribution_waf_enabled", "cloudfront_distribution_origin_traffic_encrypted"]) {
      expectCases(result, check, { compliant: [ids.secure ?? ""], nonCompliant: [ids.loose ?? ""], region: "global" })
    }
    expect(result.errors).toEqual([])
    expectCases(result, "cloudfront_distribution_s3_origin_access_control", { nonCompliant: [ids.loose ?? ""], region: "global" })
    expectCases(stubbed, "cloudfront_distribution_s3_origin_access_control", { compliant: [ids.secure ?? ""], nonCompliant: [ids.loose ?? ""], region: "global" })
  })
})
