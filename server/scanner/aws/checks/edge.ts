/**
 * Route 53, WAFv2, SES, Organizations and MSK checks: DNS query logging and mail domains' SPF, web ACLs that log,
 * filter and measure, signed and private mail identities, organization membership, full features and region guard
 * rails, and Kafka clusters that encrypt, authenticate and stay private.
 */
import type { HostedZone, WebAcl, EmailIdentity } from "../collectors/edge.ts"
import type { KafkaCluster } from "../collectors/kafka.ts"
import { defineCheck, row } from "../define-check.ts"
import { flagChecks, itemCheck } from "../generic.ts"
import type { InventoryWith } from "../inventory.ts"
import { publicAllowStatements, type PolicyDocument } from "../policy.ts"

const zone = flagChecks({
  service: "route53",
  uses: ["route53.hosted_zones"],
  regions: (inv: InventoryWith<"route53">) => [{ region: "global", items: inv.route53.zones }],
  kind: "Hosted zone",
  idOf: (z: HostedZone) => z.id,
  nameOf: (z: HostedZone) => `${z.name} (${z.id})`,
})

export const route53Checks = [
  zone({
    id: "route53_public_hosted_zones_cloudwatch_logging_enabled",
    title: "Public hosted zones should log DNS queries to CloudWatch Logs",
    description: "Finds public hosted zones without a query logging configuration: lookups of the domain (reconnaissance, exfiltration over DNS) leave no trace.",
    severity: "medium",
    remediation: "Create a log group in us-east-1 whose resource policy lets route53.amazonaws.com write, then: aws route53 create-query-logging-config --hosted-zone-id ID --cloud-watch-logs-log-group-arn ARN.",
    label: "Query logging",
    value: (z) => z.queryLogging,
    ok: (z) => z.queryLogging,
    applies: (z) => !z.private,
    pass: "logs DNS queries",
    fail: "does not log DNS queries",
  }),
  zone({
    id: "route53_public_zone_mail_spf_record",
    title: "Domains that receive mail should publish an SPF record",
    description: "Finds public hosted zones whose apex has MX records but no TXT record starting with v=spf1: anyone can send mail claiming to be the domain and receivers cannot tell.",
    severity: "medium",
    remediation: "Add a TXT record at the zone apex listing the hosts allowed to send for the domain, e.g. \"v=spf1 include:amazonses.com -all\" (and publish DMARC).",
    label: "SPF record",
    value: (z) => z.apexSpf ?? null,
    ok: (z) => z.apexSpf === true,
    applies: (z) => !z.private && z.apexMx === true,
    pass: "publishes an SPF record",
    fail: "receives mail but publishes no SPF record",
  }),
]

const acl = flagChecks({
  service: "wafv2",
  uses: ["wafv2.web_acls"],
  regions: (inv: InventoryWith<"wafv2">) => inv.wafv2.regions,
  kind: "Web ACL",
  idOf: (a: WebAcl) => a.name,
  nameOf: (a: WebAcl) => `${a.name} (${a.scope})`,
})

export const wafv2Checks = [
  acl({
    id: "wafv2_webacl_logging_enabled",
    title: "WAF web ACLs should log the requests they inspect",
    description: "Finds web ACLs without a logging configuration (CloudWatch Logs, S3 or Firehose): blocked attacks and false positives cannot be investigated.",
    severity: "medium",
    fsbp: "WAF.11",
    remediation: "aws wafv2 put-logging-configuration --logging-configuration ResourceArn=ACL_ARN,LogDestinationConfigs=DESTINATION_ARN (a log group named aws-waf-logs-…).",
    label: "Logging",
    value: (a) => a.logging,
    ok: (a) => a.logging,
    pass: "logs requests",
    fail: "does not log requests",
  }),
  acl({
    id: "wafv2_webacl_with_rules",
    title: "WAF web ACLs should contain rules (or block by default)",
    description: "Finds web ACLs with no rule and a default action of allow: attached to a resource, they let every request through.",
    severity: "medium",
    fsbp: "WAF.10",
    remediation: "Add managed rule groups (e.g. AWSManagedRulesCommonRuleSet) or your own rules to the web ACL: aws wafv2 update-web-acl … --rules file://rules.json.",
    label: "Rules",
    value: (a) => a.rules,
    ok: (a) => a.rules > 0 || a.defaultAction === "block",
    pass: "filters requests",
    fail: "has no rule and allows every request",
  }),
  acl({
    id: "wafv2_webacl_cloudwatch_metrics_enabled",
    title: "WAF web ACLs and their rules should publish CloudWatch metrics",
    description: "Finds web ACLs where the ACL or one of its rules has CloudWatch metrics turned off, hiding spikes of blocked or allowed requests.",
    severity: "low",
    fsbp: "WAF.12",
    remediation: "Set VisibilityConfig.CloudWatchMetricsEnabled=true on the web ACL and on each rule (aws wafv2 update-web-acl).",
    label: "Without metrics",
    value: (a) => a.metricsOff,
    ok: (a) => a.metricsOff.length === 0,
    pass: "publishes metrics for the ACL and every rule",
    fail: "has metrics turned off",
  }),
]

const publicPolicies = (policies: ReadonlyArray<{ readonly name: string; readonly document: PolicyDocument | undefined }>) =>
  policies.filter((p) => publicAllowStatements(p.document).length > 0).map((p) => p.name)

const identity = flagChecks({
  service: "ses",
  uses: ["ses.identities"],
  regions: (inv: InventoryWith<"ses">) => inv.ses.regions,
  kind: "Identity",
  idOf: (i: EmailIdentity) => i.name,
})

const SES_MOCK = "The SDK lists identities with POST /v2/email/list-identities, which moto does not serve, so the list is a stubbed answer; each identity is then read from moto with GetEmailIdentity, except a DKIM-signed one (moto writes its key timestamp as text the SDK cannot parse)."

export const sesChecks = [
  identity({
    id: "ses_identity_dkim_enabled",
    title: "SES domain identities should sign mail with DKIM",
    description: "Finds verified-domain identities without DKIM signing: receivers cannot check that mail from the domain was not forged or altered.",
    severity: "medium",
    remediation: "Turn on Easy DKIM: aws sesv2 put-email-identity-dkim-attributes --email-identity DOMAIN --signing-enabled, and publish the three CNAME records SES gives.",
    label: "DKIM signing",
    value: (i) => i.dkimSigning,
    ok: (i) => i.dkimSigning,
    applies: (i) => i.type === "DOMAIN",
    pass: "signs mail with DKIM",
    fail: "does not sign mail with DKIM",
  }),
  identity({
    id: "ses_identity_not_publicly_accessible",
    title: "SES identities should not let anyone send as them",
    description: "Finds identities whose sending authorization policy allows any principal (\"*\") without a condition pinning the caller, so any AWS account can send mail as the domain or address.",
    severity: "high",
    remediation: "Name the accounts or roles allowed to send in the policy's Principal, or add an aws:SourceAccount / aws:SourceArn condition: aws sesv2 update-email-identity-policy.",
    label: "Public policies",
    value: (i) => publicPolicies(i.policies),
    ok: (i) => publicPolicies(i.policies).length === 0,
    pass: "lets only named principals send",
    fail: "lets anyone send as it",
  }),
].map((c) => ({ ...c, testedWith: "sdk-mock" as const, mockReason: SES_MOCK }))

export const organizationsChecks = [
  defineCheck({
    id: "organizations_account_part_of_organizations",
    service: "organizations",
    title: "The account should belong to an AWS Organization",
    description: "Checks that the account is a member of an organization, so service control policies, central logging and delegated security services apply to it.",
    severity: "medium",
    cis: {},
    remediation: "Invite the account from your organization's management account (aws organizations invite-account-to-organization) and accept the handshake.",
    field_labels: { organization_id: "Organization" },
    uses: ["organizations.organization"],
    testedWith: "moto",
    evaluate: (inv) => {
      const org = inv.organizations.organization
      if (org === undefined) return []
      return [row(inv.accountId, "global", org !== null, org === null ? "The account is not in an organization." : `The account belongs to organization ${org.id}.`, { organization_id: org?.id ?? null })]
    },
  }),
  defineCheck({
    id: "organizations_all_features_enabled",
    service: "organizations",
    title: "The organization should have all features enabled",
    description: "Checks that the organization runs with all features, not consolidated billing only: without them, service control policies and other organization policies cannot be used.",
    severity: "medium",
    cis: {},
    remediation: "From the management account: aws organizations enable-all-features, then have every member account approve the handshake.",
    field_labels: { feature_set: "Feature set" },
    uses: ["organizations.organization"],
    testedWith: "moto",
    evaluate: (inv) => {
      const org = inv.organizations.organization
      if (org === undefined || org === null) return []
      const all = org.featureSet === "ALL"
      return [row(org.id, "global", all, all ? `Organization ${org.id} has all features enabled.` : `Organization ${org.id} runs with ${org.featureSet} only.`, { feature_set: org.featureSet })]
    },
  }),
  defineCheck({
    id: "organizations_scp_check_deny_regions",
    service: "organizations",
    title: "A service control policy should restrict the regions in use",
    description: "Checks that the organization has a service control policy denying requests outside the regions it uses (a Deny with an aws:RequestedRegion condition), so resources cannot be created where nobody looks.",
    severity: "medium",
    cis: {},
    remediation: "Create an SCP that denies \"*\" (except global services) when aws:RequestedRegion is not one of your regions, and attach it to the root or the workload OUs.",
    field_labels: { policies: "Region policies" },
    uses: ["organizations.organization", "organizations.policies"],
    testedWith: "moto",
    evaluate: (inv) => {
      const org = inv.organizations.organization
      const scps = inv.organizations.scps
      if (org === undefined || org === null || scps === undefined) return []
      const guarding = scps
        .filter((p) => (p.document?.statements ?? []).some((s) => s.effect === "Deny" && s.conditions.some((c) => c.key === "aws:requestedregion" && /^StringNot/i.test(c.operator))))
        .map((p) => p.name)
      return [row(org.id, "global", guarding.length > 0, guarding.length > 0 ? `Regions are restricted by ${guarding.join(", ")}.` : `No service control policy of organization ${org.id} restricts regions.`, { policies: guarding })]
    },
  }),
]

const cluster = flagChecks({
  service: "kafka",
  uses: ["kafka.clusters"],
  regions: (inv: InventoryWith<"kafka">) => inv.kafka.regions,
  kind: "Cluster",
  idOf: (c: KafkaCluster) => c.name,
})

const KAFKA_MOCK = "moto answers ListClustersV2 with a creation time that is not RFC 3339, which the SDK cannot parse, so both clusters are stubbed ListClustersV2 answers (the customer key is read from moto's KMS)."

export const kafkaChecks = [
  cluster({
    id: "kafka_cluster_in_transit_encryption_enabled",
    title: "MSK clusters should encrypt traffic with clients and between brokers",
    description: "Finds clusters that accept plaintext from clients (ClientBroker PLAINTEXT or TLS_PLAINTEXT) or do not encrypt traffic between brokers.",
    severity: "high",
    fsbp: "MSK.1",
    remediation: "aws kafka update-security --cluster-arn ARN --current-version V --encryption-info 'EncryptionInTransit={ClientBroker=TLS,InCluster=true}' (in-cluster encryption is set at creation).",
    label: "Client-broker encryption",
    value: (c) => c.clientBroker,
    ok: (c) => c.clientBroker === "TLS" && c.inCluster,
    pass: "encrypts all traffic",
    fail: "carries plaintext traffic",
  }),
  cluster({
    id: "kafka_cluster_not_publicly_accessible",
    title: "MSK clusters should not be publicly accessible",
    description: "Finds clusters with public access turned on: their brokers answer from the internet.",
    severity: "critical",
    fsbp: "MSK.4",
    remediation: "aws kafka update-connectivity --cluster-arn ARN --current-version V --connectivity-info 'PublicAccess={Type=DISABLED}'.",
    label: "Public access",
    value: (c) => c.publicAccess,
    ok: (c) => !c.publicAccess,
    pass: "is private",
    fail: "is publicly accessible",
  }),
  cluster({
    id: "kafka_cluster_unrestricted_access_disabled",
    title: "MSK clusters should require clients to authenticate",
    description: "Finds clusters that allow unauthenticated clients (no IAM, SASL/SCRAM or mutual TLS required): anyone who reaches the brokers can read and write every topic.",
    severity: "critical",
    remediation: "Turn on IAM, SASL/SCRAM or TLS client authentication and turn off unauthenticated access: aws kafka update-security --client-authentication file://auth.json.",
    label: "Unauthenticated access",
    value: (c) => c.unauthenticated,
    ok: (c) => !c.unauthenticated,
    pass: "requires authenticated clients",
    fail: "allows unauthenticated clients",
  }),
  itemCheck({
    id: "kafka_cluster_encryption_at_rest_uses_cmk",
    service: "kafka",
    title: "MSK clusters should encrypt data volumes with a customer managed key",
    description: "Finds clusters whose broker storage is encrypted with the AWS managed key, whose use you cannot restrict or audit per cluster.",
    severity: "medium",
    remediation: "Encryption at rest is set at creation: create a cluster with EncryptionAtRest.DataVolumeKMSKeyId set to a customer managed key and mirror the topics to it.",
    field_labels: { customer_key: "Customer managed key" },
    uses: ["kafka.clusters"],
    regions: (inv: InventoryWith<"kafka">) => inv.kafka.regions,
    judge: (c: KafkaCluster) =>
      c.customerKey === undefined
        ? undefined
        : { id: c.name, ok: c.customerKey, reason: `Cluster ${c.name} encrypts its volumes with ${c.customerKey ? "a customer managed key" : "the AWS managed key"}.`, fields: { customer_key: c.customerKey } },
  }),
  cluster({
    id: "kafka_cluster_enhanced_monitoring_enabled",
    title: "MSK clusters should publish per-broker metrics",
    description: "Finds clusters at the DEFAULT monitoring level, which lacks per-broker and per-topic metrics needed to spot abuse or saturation.",
    severity: "low",
    remediation: "aws kafka update-monitoring --cluster-arn ARN --current-version V --enhanced-monitoring PER_BROKER.",
    label: "Monitoring level",
    value: (c) => c.enhancedMonitoring,
    ok: (c) => c.enhancedMonitoring !== "DEFAULT",
    pass: "publishes enhanced metrics",
    fail: "publishes default metrics only",
  }),
].map((c) => ({ ...c, testedWith: "sdk-mock" as const, mockReason: KAFKA_MOCK }))
