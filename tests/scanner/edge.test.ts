/**
 * Route 53, WAFv2, SES, Organizations and MSK checks on moto (issue 16): a compliant and a non-compliant case of each,
 * the CloudFront-scope web ACLs read from us-east-1, and organization policies that only a management account can read.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ChangeResourceRecordSetsCommand, CreateHostedZoneCommand, CreateQueryLoggingConfigCommand } from "@aws-sdk/client-route-53"
import { CreateLogGroupCommand, DescribeLogGroupsCommand } from "@aws-sdk/client-cloudwatch-logs"
import { CreateWebACLCommand, PutLoggingConfigurationCommand } from "@aws-sdk/client-wafv2"
import { CreateEmailIdentityCommand, CreateEmailIdentityPolicyCommand } from "@aws-sdk/client-sesv2"
import { CreateOrganizationCommand, CreatePolicyCommand } from "@aws-sdk/client-organizations"
import { CreateKeyCommand } from "@aws-sdk/client-kms"
import type { CommandStub } from "../../server/scanner/aws/clients.ts"
import type { ScanServiceResult } from "../../server/scanner/aws/scan-service.ts"
import { startMoto, type Moto } from "../support/moto.ts"
import { ACCOUNT, expectCases, expectStatus, OTHER_ACCOUNT, otherAccountKeys, rowFor, scan, seedClients } from "./helpers.ts"

const EAST = "us-east-1"
const partnerPolicy = JSON.stringify({ Version: "2012-10-17", Statement: [{ Effect: "Allow", Principal: { AWS: `arn:aws:iam::${OTHER_ACCOUNT}:root` }, Action: "ses:SendEmail", Resource: "*" }] })

/**
 * The SDK lists identities with POST /v2/email/list-identities, which moto does not serve: the list is a stubbed answer
 * naming the identities created on moto, each then read from moto — except the DKIM-signed one, whose
 * LastKeyGenerationTimestamp moto writes as text the SDK cannot parse.
 */
const sesStub: CommandStub = ({ command, input, region }) =>
  command === "ListEmailIdentitiesCommand"
    ? { EmailIdentities: region !== EAST ? [] : ["signed.example", "unsigned.example", "alerts@signed.example"].map((IdentityName) => ({ IdentityName, IdentityType: IdentityName.includes("@") ? "EMAIL_ADDRESS" : "DOMAIN" })) }
    : command === "GetEmailIdentityCommand" && (input as { EmailIdentity?: string }).EmailIdentity === "signed.example"
      ? { IdentityType: "DOMAIN", DkimAttributes: { SigningEnabled: true, Status: "SUCCESS" }, Policies: { partner: partnerPolicy } }
      : undefined

/** moto's MSK cluster creation time is not RFC 3339, so ListClustersV2 cannot be parsed: both clusters are stubbed answers. */
const kafkaStub = (keyArn: string): CommandStub => ({ command, region }) => {
  if (command !== "ListClustersV2Command") return undefined
  if (region !== EAST) return { ClusterInfoList: [] }
  const brokers = { ClientSubnets: ["subnet-1", "subnet-2"], InstanceType: "kafka.m5.large" }
  return {
    ClusterInfoList: [
      {
        ClusterName: "secure",
        ClusterArn: `arn:aws:kafka:${EAST}:${ACCOUNT}:cluster/secure/1`,
        ClusterType: "PROVISIONED",
        Provisioned: {
          BrokerNodeGroupInfo: { ...brokers, ConnectivityInfo: { PublicAccess: { Type: "DISABLED" } } },
          EncryptionInfo: { EncryptionAtRest: { DataVolumeKMSKeyId: keyArn }, EncryptionInTransit: { ClientBroker: "TLS", InCluster: true } },
          ClientAuthentication: { Sasl: { Iam: { Enabled: true } }, Unauthenticated: { Enabled: false } },
          EnhancedMonitoring: "PER_BROKER",
        },
      },
      {
        ClusterName: "open",
        ClusterArn: `arn:aws:kafka:${EAST}:${ACCOUNT}:cluster/open/2`,
        ClusterType: "PROVISIONED",
        Provisioned: {
          BrokerNodeGroupInfo: { ...brokers, ConnectivityInfo: { PublicAccess: { Type: "SERVICE_PROVIDED_EIPS" } } },
          EncryptionInfo: { EncryptionInTransit: { ClientBroker: "TLS_PLAINTEXT", InCluster: true } },
          ClientAuthentication: { Unauthenticated: { Enabled: true } },
          EnhancedMonitoring: "DEFAULT",
        },
      },
      { ClusterName: "serverless", ClusterType: "SERVERLESS", Serverless: { VpcConfigs: [] } },
    ],
  }
}
const visibility = (on: boolean, name: string) => ({ SampledRequestsEnabled: on, CloudWatchMetricsEnabled: on, MetricName: name })

describe("edge and governance services on moto", () => {
  let moto: Moto
  const results: Record<string, ScanServiceResult> = {}
  let keyArn = ""

  beforeAll(async () => {
    moto = await startMoto()
    const c = seedClients(moto)

    // Route 53: a logged mail domain with SPF, an unlogged mail domain without, an unlogged domain without mail.
    const r53 = c.get("route53", EAST)
    const logs = c.get("logs", EAST)
    await logs.send(new CreateLogGroupCommand({ logGroupName: "/aws/route53/good.example" }))
    const group = (await logs.send(new DescribeLogGroupsCommand({ logGroupNamePrefix: "/aws/route53/" }))).logGroups![0]!
    const zones: Record<string, string> = {}
    for (const name of ["good.example", "nospf.example", "web-only.example"]) {
      const z = await r53.send(new CreateHostedZoneCommand({ Name: name, CallerReference: name }))
      zones[name] = z.HostedZone!.Id!.replace("/hostedzone/", "")
    }
    const records = (name: string, sets: ReadonlyArray<[string, string]>) =>
      r53.send(new ChangeResourceRecordSetsCommand({
        HostedZoneId: zones[name],
        ChangeBatch: { Changes: sets.map(([type, value]) => ({ Action: "CREATE" as const, ResourceRecordSet: { Name: `${name}.`, Type: type as "MX", TTL: 300, ResourceRecords: [{ Value: value }] } })) },
      }))
    await records("good.example", [["MX", "10 mx.good.example."], ["TXT", "\"v=spf1 include:amazonses.com -all\""]])
    await records("nospf.example", [["MX", "10 mx.nospf.example."], ["TXT", "\"google-site-verification=abc\""]])
    await records("web-only.example", [["A", "192.0.2.10"]])
    await r53.send(new CreateQueryLoggingConfigCommand({ HostedZoneId: zones["good.example"], CloudWatchLogsLogGroupArn: `${group.arn!.replace(/:\*$/, "")}:*` }))

    // WAFv2: a regional ACL with a rule, metrics and logging; an empty allow-all ACL; a CloudFront-scope ACL that blocks by default.
    const waf = c.get("wafv2", EAST)
    const good = await waf.send(new CreateWebACLCommand({
      Name: "good-acl",
      Scope: "REGIONAL",
      DefaultAction: { Allow: {} },
      VisibilityConfig: visibility(true, "good"),
      Rules: [{ Name: "common", Priority: 0, Statement: { ManagedRuleGroupStatement: { VendorName: "AWS", Name: "AWSManagedRulesCommonRuleSet" } }, OverrideAction: { None: {} }, VisibilityConfig: visibility(true, "common") }],
    }))
    await waf.send(new PutLoggingConfigurationCommand({ LoggingConfiguration: { ResourceArn: good.Summary!.ARN!, LogDestinationConfigs: [`arn:aws:logs:${EAST}:${ACCOUNT}:log-group:aws-waf-logs-good`] } }))
    await waf.send(new CreateWebACLCommand({ Name: "empty-acl", Scope: "REGIONAL", DefaultAction: { Allow: {} }, VisibilityConfig: visibility(false, "empty"), Rules: [] }))
    await waf.send(new CreateWebACLCommand({ Name: "edge-acl", Scope: "CLOUDFRONT", DefaultAction: { Block: {} }, VisibilityConfig: visibility(true, "edge"), Rules: [] }))

    // SES: a DKIM-signed domain, an unsigned domain anyone may send as, an address identity (DKIM not judged).
    const ses = c.get("sesv2", EAST)
    await ses.send(new CreateEmailIdentityCommand({ EmailIdentity: "signed.example" }))
    await ses.send(new CreateEmailIdentityCommand({ EmailIdentity: "unsigned.example" }))
    await ses.send(new CreateEmailIdentityCommand({ EmailIdentity: "alerts@signed.example" }))
    await ses.send(new CreateEmailIdentityPolicyCommand({
      EmailIdentity: "unsigned.example",
      PolicyName: "anyone",
      Policy: JSON.stringify({ Version: "2012-10-17", Statement: [{ Effect: "Allow", Principal: "*", Action: "ses:SendEmail", Resource: "*" }] }),
    }))
    await ses.send(new CreateEmailIdentityPolicyCommand({ EmailIdentity: "alerts@signed.example", PolicyName: "partner", Policy: partnerPolicy }))

    // MSK: a customer key for the locked-down cluster (the clusters themselves are stubbed answers, see kafkaStub).
    keyArn = (await c.get("kms", EAST).send(new CreateKeyCommand({ Description: "msk" }))).KeyMetadata!.Arn!

    // Organizations: this account runs an organization with a region guard rail; the audited other account has none.
    const orgs = c.get("organizations", EAST)
    await orgs.send(new CreateOrganizationCommand({ FeatureSet: "ALL" }))
    await orgs.send(new CreatePolicyCommand({
      Name: "deny-other-regions",
      Description: "regions",
      Type: "SERVICE_CONTROL_POLICY",
      Content: JSON.stringify({ Version: "2012-10-17", Statement: [{ Effect: "Deny", NotAction: ["iam:*", "sts:*"], Resource: "*", Condition: { StringNotEquals: { "aws:RequestedRegion": ["eu-west-1", "us-east-1"] } } }] }),
    }))

    for (const service of ["route53", "wafv2", "organizations"]) results[service] = await scan(moto, service)
    results["ses"] = await scan(moto, "ses", { stub: sesStub })
    results["kafka"] = await scan(moto, "kafka", { stub: kafkaStub(keyArn) })
    results["organizations-other"] = await scan(moto, "organizations", { credentials: otherAccountKeys })
  }, 180_000)

  afterAll(async () => {
    await moto?.stop()
  })

  it("route53: query logging on public zones, SPF on zones that receive mail (zones without MX are not judged)", () => {
    const r = results["route53"]!
    const id = (name: string) => rowsByName(r, "route53_public_hosted_zones_cloudwatch_logging_enabled", name)
    expect(id("good.example").compliant).toBe(true)
    expect(id("nospf.example").compliant).toBe(false)
    expect(rowsByName(r, "route53_public_zone_mail_spf_record", "good.example").compliant).toBe(true)
    expect(rowsByName(r, "route53_public_zone_mail_spf_record", "nospf.example").compliant).toBe(false)
    expect(r.findings.find((f) => f.check_id === "route53_public_zone_mail_spf_record")!.details.some((d) => String(d.reason).includes("web-only"))).toBe(false)
  })

  it("wafv2: logging, rules and metrics, with the CloudFront-scope ACL read in us-east-1", () => {
    const r = results["wafv2"]!
    expectCases(r, "wafv2_webacl_logging_enabled", { compliant: ["good-acl"], nonCompliant: ["empty-acl", "edge-acl"], region: EAST })
    expectCases(r, "wafv2_webacl_with_rules", { compliant: ["good-acl", "edge-acl"], nonCompliant: ["empty-acl"], region: EAST })
    expectCases(r, "wafv2_webacl_cloudwatch_metrics_enabled", { compliant: ["good-acl", "edge-acl"], nonCompliant: ["empty-acl"], region: EAST })
  })

  it("ses: DKIM on domain identities only, and sending policies open to anyone", () => {
    const r = results["ses"]!
    expectCases(r, "ses_identity_dkim_enabled", { compliant: ["signed.example"], nonCompliant: ["unsigned.example"], region: EAST })
    expect(() => rowFor(r, "ses_identity_dkim_enabled", "alerts@signed.example")).toThrow(/no row/)
    expectCases(r, "ses_identity_not_publicly_accessible", { compliant: ["signed.example", "alerts@signed.example"], nonCompliant: ["unsigned.example"], region: EAST })
    expect(rowFor(r, "ses_identity_not_publicly_accessible", "unsigned.example", EAST)["setting"]).toEqual(["anyone"])
  })

  it("kafka: encryption in transit, public access, unauthenticated clients, customer key and monitoring", () => {
    const r = results["kafka"]!
    for (const id of ["kafka_cluster_in_transit_encryption_enabled", "kafka_cluster_not_publicly_accessible", "kafka_cluster_unrestricted_access_disabled", "kafka_cluster_encryption_at_rest_uses_cmk", "kafka_cluster_enhanced_monitoring_enabled"]) {
      expectCases(r, id, { compliant: ["secure"], nonCompliant: ["open"], region: EAST })
    }
    // Serverless clusters have none of these settings and are not judged; the key was read from KMS once.
    expect(r.findings.every((f) => f.details.every((d) => d.resource_id !== "serverless"))).toBe(true)
    expect(r.errors).toEqual([])
  })

  it("organizations: membership, all features and a region guard rail; an account outside any organization fails membership only", () => {
    const r = results["organizations"]!
    expectCases(r, "organizations_account_part_of_organizations", { compliant: [ACCOUNT] })
    const org = String(rowFor(r, "organizations_account_part_of_organizations", ACCOUNT)["organization_id"])
    expectCases(r, "organizations_all_features_enabled", { compliant: [org] })
    expectCases(r, "organizations_scp_check_deny_regions", { compliant: [org] })
    expect(rowFor(r, "organizations_scp_check_deny_regions", org)["policies"]).toEqual(["deny-other-regions"])
    const other = results["organizations-other"]!
    expectCases(other, "organizations_account_part_of_organizations", { nonCompliant: [OTHER_ACCOUNT] })
    expectStatus(other, "organizations_scp_check_deny_regions", "pass")
    expect(other.findings.find((f) => f.check_id === "organizations_scp_check_deny_regions")!.details).toEqual([])
  })
})

/** The row of a hosted zone by its name (rows are keyed by zone id). */
const rowsByName = (r: ScanServiceResult, checkId: string, name: string) => {
  const f = r.findings.find((x) => x.check_id === checkId)!
  const row = f.details.find((d) => String(d.reason).includes(`${name}.`))
  if (row === undefined) throw new Error(`${checkId}: no row for ${name}: ${JSON.stringify(f.details)} ${JSON.stringify(f.errors)}`)
  return row
}
