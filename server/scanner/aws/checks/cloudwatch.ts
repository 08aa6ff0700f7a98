/**
 * CloudWatch checks. CIS AWS v3.0 4.1–4.15 ("ensure a log metric filter and alarm exist for ...") follow the
 * whole chain the benchmark audits: a logging multi-region trail delivering management events to CloudWatch
 * Logs -> a metric filter on that log group whose pattern covers the CIS terms -> an alarm on the filter's metric
 * -> an SNS topic in the alarm actions -> at least one confirmed subscription. Filter patterns are matched as
 * text (whitespace and quotes ignored), like the benchmark's own audit procedure.
 */
import type { DetailRow } from "../../check.ts"
import { defineCheck, row, type AwsCheck } from "../define-check.ts"
import type { InventoryWith } from "../inventory.ts"
import { logsAllManagementEvents } from "./cloudtrail.ts"

const normalize = (s: string) => s.replace(/\s+/g, "").replace(/["']/g, "").toLowerCase()

/** Whether a filter pattern contains every required term (terms written as in the CIS pattern). */
export function patternCovers(pattern: string, terms: ReadonlyArray<string>): boolean {
  const p = normalize(pattern)
  return terms.every((t) => p.includes(normalize(t)))
}

const names = (field: string, values: ReadonlyArray<string>) => values.map((v) => `$.${field}=${v}`)

export interface MonitoringSpec {
  readonly id: string
  readonly cis: string
  readonly v7: string
  readonly subject: string
  readonly terms: ReadonlyArray<string>
  readonly pattern: string
}

export const monitoringSpecs: ReadonlyArray<MonitoringSpec> = [
  {
    id: "cloudwatch_log_metric_filter_unauthorized_api_calls",
    cis: "4.1",
    v7: "5.1",
    subject: "unauthorized API calls",
    terms: ["$.errorCode=*UnauthorizedOperation", "$.errorCode=AccessDenied*"],
    pattern: '{ ($.errorCode = "*UnauthorizedOperation") || ($.errorCode = "AccessDenied*") }',
  },
  {
    id: "cloudwatch_log_metric_filter_sign_in_without_mfa",
    cis: "4.2",
    v7: "5.2",
    subject: "management console sign-in without MFA",
    terms: ["$.eventName=ConsoleLogin", "$.additionalEventData.MFAUsed!=Yes"],
    pattern: '{ ($.eventName = "ConsoleLogin") && ($.additionalEventData.MFAUsed != "Yes") }',
  },
  {
    id: "cloudwatch_log_metric_filter_root_usage",
    cis: "4.3",
    v7: "5.3",
    subject: "usage of the root account",
    terms: ["$.userIdentity.type=Root", "$.userIdentity.invokedBy NOT EXISTS", "$.eventType!=AwsServiceEvent"],
    pattern: '{ $.userIdentity.type = "Root" && $.userIdentity.invokedBy NOT EXISTS && $.eventType != "AwsServiceEvent" }',
  },
  {
    id: "cloudwatch_log_metric_filter_iam_policy_changes",
    cis: "4.4",
    v7: "5.4",
    subject: "IAM policy changes",
    terms: names("eventName", [
      "DeleteGroupPolicy", "DeleteRolePolicy", "DeleteUserPolicy", "PutGroupPolicy", "PutRolePolicy", "PutUserPolicy", "CreatePolicy", "DeletePolicy",
      "CreatePolicyVersion", "DeletePolicyVersion", "AttachRolePolicy", "DetachRolePolicy", "AttachUserPolicy", "DetachUserPolicy", "AttachGroupPolicy", "DetachGroupPolicy",
    ]),
    pattern:
      "{($.eventName=DeleteGroupPolicy)||($.eventName=DeleteRolePolicy)||($.eventName=DeleteUserPolicy)||($.eventName=PutGroupPolicy)||($.eventName=PutRolePolicy)||($.eventName=PutUserPolicy)||($.eventName=CreatePolicy)||($.eventName=DeletePolicy)||($.eventName=CreatePolicyVersion)||($.eventName=DeletePolicyVersion)||($.eventName=AttachRolePolicy)||($.eventName=DetachRolePolicy)||($.eventName=AttachUserPolicy)||($.eventName=DetachUserPolicy)||($.eventName=AttachGroupPolicy)||($.eventName=DetachGroupPolicy)}",
  },
  {
    id: "cloudwatch_log_metric_filter_cloudtrail_configuration_changes",
    cis: "4.5",
    v7: "5.5",
    subject: "CloudTrail configuration changes",
    terms: names("eventName", ["CreateTrail", "UpdateTrail", "DeleteTrail", "StartLogging", "StopLogging"]),
    pattern: "{ ($.eventName = CreateTrail) || ($.eventName = UpdateTrail) || ($.eventName = DeleteTrail) || ($.eventName = StartLogging) || ($.eventName = StopLogging) }",
  },
  {
    id: "cloudwatch_log_metric_filter_authentication_failures",
    cis: "4.6",
    v7: "5.6",
    subject: "management console authentication failures",
    terms: ["$.eventName=ConsoleLogin", "$.errorMessage=Failed authentication"],
    pattern: '{ ($.eventName = ConsoleLogin) && ($.errorMessage = "Failed authentication") }',
  },
  {
    id: "cloudwatch_log_metric_filter_disable_or_scheduled_deletion_of_kms_cmk",
    cis: "4.7",
    v7: "5.7",
    subject: "disabling or scheduled deletion of customer created CMKs",
    terms: ["$.eventSource=kms.amazonaws.com", "$.eventName=DisableKey", "$.eventName=ScheduleKeyDeletion"],
    pattern: "{ ($.eventSource = kms.amazonaws.com) && (($.eventName = DisableKey) || ($.eventName = ScheduleKeyDeletion)) }",
  },
  {
    id: "cloudwatch_log_metric_filter_s3_bucket_policy_changes",
    cis: "4.8",
    v7: "5.8",
    subject: "S3 bucket policy changes",
    terms: [
      "$.eventSource=s3.amazonaws.com",
      ...names("eventName", ["PutBucketAcl", "PutBucketPolicy", "PutBucketCors", "PutBucketLifecycle", "PutBucketReplication", "DeleteBucketPolicy", "DeleteBucketCors", "DeleteBucketLifecycle", "DeleteBucketReplication"]),
    ],
    pattern:
      "{ ($.eventSource = s3.amazonaws.com) && (($.eventName = PutBucketAcl) || ($.eventName = PutBucketPolicy) || ($.eventName = PutBucketCors) || ($.eventName = PutBucketLifecycle) || ($.eventName = PutBucketReplication) || ($.eventName = DeleteBucketPolicy) || ($.eventName = DeleteBucketCors) || ($.eventName = DeleteBucketLifecycle) || ($.eventName = DeleteBucketReplication)) }",
  },
  {
    id: "cloudwatch_log_metric_filter_aws_config_configuration_changes",
    cis: "4.9",
    v7: "5.9",
    subject: "AWS Config configuration changes",
    terms: ["$.eventSource=config.amazonaws.com", ...names("eventName", ["StopConfigurationRecorder", "DeleteDeliveryChannel", "PutDeliveryChannel", "PutConfigurationRecorder"])],
    pattern:
      "{ ($.eventSource = config.amazonaws.com) && (($.eventName = StopConfigurationRecorder) || ($.eventName = DeleteDeliveryChannel) || ($.eventName = PutDeliveryChannel) || ($.eventName = PutConfigurationRecorder)) }",
  },
  {
    id: "cloudwatch_log_metric_filter_security_group_changes",
    cis: "4.10",
    v7: "5.10",
    subject: "security group changes",
    terms: names("eventName", ["AuthorizeSecurityGroupIngress", "AuthorizeSecurityGroupEgress", "RevokeSecurityGroupIngress", "RevokeSecurityGroupEgress", "CreateSecurityGroup", "DeleteSecurityGroup"]),
    pattern:
      "{ ($.eventName = AuthorizeSecurityGroupIngress) || ($.eventName = AuthorizeSecurityGroupEgress) || ($.eventName = RevokeSecurityGroupIngress) || ($.eventName = RevokeSecurityGroupEgress) || ($.eventName = CreateSecurityGroup) || ($.eventName = DeleteSecurityGroup) }",
  },
  {
    id: "cloudwatch_log_metric_filter_network_acl_changes",
    cis: "4.11",
    v7: "5.11",
    subject: "network ACL changes",
    terms: names("eventName", ["CreateNetworkAcl", "CreateNetworkAclEntry", "DeleteNetworkAcl", "DeleteNetworkAclEntry", "ReplaceNetworkAclEntry", "ReplaceNetworkAclAssociation"]),
    pattern:
      "{ ($.eventName = CreateNetworkAcl) || ($.eventName = CreateNetworkAclEntry) || ($.eventName = DeleteNetworkAcl) || ($.eventName = DeleteNetworkAclEntry) || ($.eventName = ReplaceNetworkAclEntry) || ($.eventName = ReplaceNetworkAclAssociation) }",
  },
  {
    id: "cloudwatch_log_metric_filter_network_gateway_changes",
    cis: "4.12",
    v7: "5.12",
    subject: "changes to network gateways",
    terms: names("eventName", ["CreateCustomerGateway", "DeleteCustomerGateway", "AttachInternetGateway", "CreateInternetGateway", "DeleteInternetGateway", "DetachInternetGateway"]),
    pattern:
      "{ ($.eventName = CreateCustomerGateway) || ($.eventName = DeleteCustomerGateway) || ($.eventName = AttachInternetGateway) || ($.eventName = CreateInternetGateway) || ($.eventName = DeleteInternetGateway) || ($.eventName = DetachInternetGateway) }",
  },
  {
    id: "cloudwatch_log_metric_filter_route_table_changes",
    cis: "4.13",
    v7: "5.13",
    subject: "route table changes",
    terms: names("eventName", ["CreateRoute", "CreateRouteTable", "ReplaceRoute", "ReplaceRouteTableAssociation", "DeleteRouteTable", "DeleteRoute", "DisassociateRouteTable"]),
    pattern:
      "{ ($.eventSource = ec2.amazonaws.com) && (($.eventName = CreateRoute) || ($.eventName = CreateRouteTable) || ($.eventName = ReplaceRoute) || ($.eventName = ReplaceRouteTableAssociation) || ($.eventName = DeleteRouteTable) || ($.eventName = DeleteRoute) || ($.eventName = DisassociateRouteTable)) }",
  },
  {
    id: "cloudwatch_log_metric_filter_vpc_changes",
    cis: "4.14",
    v7: "5.14",
    subject: "VPC changes",
    terms: names("eventName", [
      "CreateVpc", "DeleteVpc", "ModifyVpcAttribute", "AcceptVpcPeeringConnection", "CreateVpcPeeringConnection", "DeleteVpcPeeringConnection",
      "RejectVpcPeeringConnection", "AttachClassicLinkVpc", "DetachClassicLinkVpc", "DisableVpcClassicLink", "EnableVpcClassicLink",
    ]),
    pattern:
      "{ ($.eventName = CreateVpc) || ($.eventName = DeleteVpc) || ($.eventName = ModifyVpcAttribute) || ($.eventName = AcceptVpcPeeringConnection) || ($.eventName = CreateVpcPeeringConnection) || ($.eventName = DeleteVpcPeeringConnection) || ($.eventName = RejectVpcPeeringConnection) || ($.eventName = AttachClassicLinkVpc) || ($.eventName = DetachClassicLinkVpc) || ($.eventName = DisableVpcClassicLink) || ($.eventName = EnableVpcClassicLink) }",
  },
  {
    id: "cloudwatch_log_metric_filter_aws_organizations_changes",
    cis: "4.15",
    v7: "5.15",
    subject: "AWS Organizations changes",
    terms: [
      "$.eventSource=organizations.amazonaws.com",
      ...names("eventName", [
        "AcceptHandshake", "AttachPolicy", "CreateAccount", "CreateOrganizationalUnit", "CreatePolicy", "DeclineHandshake", "DeleteOrganization", "DeleteOrganizationalUnit",
        "DeletePolicy", "DetachPolicy", "DisablePolicyType", "EnablePolicyType", "InviteAccountToOrganization", "LeaveOrganization", "MoveAccount",
        "RemoveAccountFromOrganization", "UpdatePolicy", "UpdateOrganizationalUnit",
      ]),
    ],
    pattern:
      "{ ($.eventSource = organizations.amazonaws.com) && (($.eventName = AcceptHandshake) || ($.eventName = AttachPolicy) || ($.eventName = CreateAccount) || ($.eventName = CreateOrganizationalUnit) || ($.eventName = CreatePolicy) || ($.eventName = DeclineHandshake) || ($.eventName = DeleteOrganization) || ($.eventName = DeleteOrganizationalUnit) || ($.eventName = DeletePolicy) || ($.eventName = DetachPolicy) || ($.eventName = DisablePolicyType) || ($.eventName = EnablePolicyType) || ($.eventName = InviteAccountToOrganization) || ($.eventName = LeaveOrganization) || ($.eventName = MoveAccount) || ($.eventName = RemoveAccountFromOrganization) || ($.eventName = UpdatePolicy) || ($.eventName = UpdateOrganizationalUnit)) }",
  },
]

type MonitoringInventory = InventoryWith<"cloudtrail" | "logs" | "cloudwatch" | "sns">

/** Parses arn:aws:logs:REGION:ACCOUNT:log-group:NAME[:*]. */
const logGroupOf = (arn: string) => {
  const m = /^arn:[^:]+:logs:([^:]+):\d*:log-group:(.+?)(?::\*)?$/.exec(arn)
  return m === null ? undefined : { region: m[1] ?? "", name: m[2] ?? "" }
}

export function evaluateMonitoring(inv: MonitoringInventory, spec: MonitoringSpec): DetailRow[] {
  const trails = inv.cloudtrail.trails
  if (trails === undefined) return []
  const fields = (f: { trail?: string; logGroup?: string; filter?: string; alarm?: string; topic?: string }) => ({
    trail: f.trail ?? null,
    log_group: f.logGroup ?? null,
    metric_filter: f.filter ?? null,
    alarm: f.alarm ?? null,
    sns_topic: f.topic ?? null,
  })
  const candidates = trails.filter((t) => t.multiRegion && t.isLogging === true && t.cloudWatchLogsLogGroupArn !== undefined && logsAllManagementEvents(t) === true)
  if (candidates.length === 0) {
    return [row(inv.accountId, "global", false, "No logging multi-region trail delivers all management events to CloudWatch Logs.", fields({}))]
  }
  let best: { depth: number; reason: string; f: Parameters<typeof fields>[0] } = { depth: 0, reason: "", f: {} }
  const reach = (depth: number, reason: string, f: Parameters<typeof fields>[0]) => {
    if (depth > best.depth) best = { depth, reason, f }
  }
  for (const trail of candidates) {
    const group = logGroupOf(trail.cloudWatchLogsLogGroupArn ?? "")
    if (group === undefined) continue
    const logsRegion = inv.logs.regions.find((r) => r.region === group.region)
    reach(1, `No metric filter on log group ${group.name} matches the CIS pattern for ${spec.subject}.`, { trail: trail.name, logGroup: group.name })
    const filters = (logsRegion?.metricFilters ?? []).filter((f) => f.logGroupName === group.name && patternCovers(f.pattern, spec.terms))
    for (const filter of filters) {
      reach(2, `No alarm watches the metric of filter ${filter.name}.`, { trail: trail.name, logGroup: group.name, filter: filter.name })
      const alarms = (inv.cloudwatch.regions.find((r) => r.region === group.region)?.alarms ?? []).filter((a) =>
        filter.metrics.some((m) => m.name === a.metricName && m.namespace === a.namespace),
      )
      for (const alarm of alarms) {
        const topics = alarm.alarmActions.filter((a) => a.startsWith("arn:") && a.split(":")[2] === "sns")
        reach(3, `Alarm ${alarm.name} has no SNS topic action.`, { trail: trail.name, logGroup: group.name, filter: filter.name, alarm: alarm.name })
        for (const topic of topics) {
          const region = topic.split(":")[3] ?? ""
          const subs = (inv.sns.regions.find((r) => r.region === region)?.subscriptions ?? []).filter((s) => s.topicArn === topic && s.confirmed)
          reach(4, `SNS topic ${topic} of alarm ${alarm.name} has no confirmed subscriber.`, { trail: trail.name, logGroup: group.name, filter: filter.name, alarm: alarm.name, topic })
          if (subs.length > 0) {
            return [
              row(inv.accountId, "global", true, `${spec.subject[0]?.toUpperCase()}${spec.subject.slice(1)} are alarmed: ${filter.name} -> ${alarm.name} -> ${topic} (${subs.length} subscriber(s)).`, fields({
                trail: trail.name,
                logGroup: group.name,
                filter: filter.name,
                alarm: alarm.name,
                topic,
              })),
            ]
          }
        }
      }
    }
  }
  return [row(inv.accountId, "global", false, best.reason, fields(best.f))]
}

const monitoringLabels = { trail: "Trail", log_group: "Log group", metric_filter: "Metric filter", alarm: "Alarm", sns_topic: "SNS topic" }

const monitoringChecks: AwsCheck[] = monitoringSpecs.map((spec) =>
  defineCheck({
    id: spec.id,
    service: "cloudwatch",
    title: `A log metric filter and alarm should exist for ${spec.subject}`,
    description: `Checks that CloudTrail events for ${spec.subject} reach an alarm: multi-region trail -> CloudWatch Logs -> metric filter -> alarm -> SNS topic with a subscriber.`,
    severity: spec.cis === "4.3" || spec.cis === "4.1" ? "high" : "medium",
    cis: { v3: spec.cis, v7: spec.v7 },
    remediation: `Create a metric filter on the trail's log group with pattern ${spec.pattern}, an alarm on its metric (threshold >= 1 over 5 minutes), and send the alarm to an SNS topic with at least one subscriber.`,
    field_labels: monitoringLabels,
    uses: ["cloudtrail.trails", "cloudtrail.status", "cloudtrail.selectors", "logs.metric_filters", "cloudwatch.alarms", "sns.subscriptions"],
    testedWith: "moto",
    evaluate: (inv) => evaluateMonitoring(inv, spec),
  }),
)

export const RETENTION_DAYS = 365

export const cloudwatchChecks: AwsCheck[] = [
  ...monitoringChecks,
  defineCheck({
    id: "cloudwatch_log_group_retention_policy_specific_days_enabled",
    service: "cloudwatch",
    title: `CloudWatch log groups should retain logs for at least ${RETENTION_DAYS} days`,
    description: `Finds log groups whose retention is shorter than ${RETENTION_DAYS} days (groups that never expire pass).`,
    severity: "low",
    cis: {},
    remediation: `aws logs put-retention-policy --log-group-name GROUP --retention-in-days ${RETENTION_DAYS} (or longer, per your retention requirements).`,
    field_labels: { retention_days: "Retention (days)" },
    uses: ["logs.log_groups"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.logs.regions.flatMap((r) =>
        (r.logGroups ?? []).map((g) => {
          const ok = g.retentionDays === null || g.retentionDays >= RETENTION_DAYS
          return row(g.name, r.region, ok, g.retentionDays === null ? `Log group ${g.name} never expires events.` : `Log group ${g.name} keeps events for ${g.retentionDays} days.`, {
            retention_days: g.retentionDays,
          })
        }),
      ),
  }),
  defineCheck({
    id: "cloudwatch_log_group_kms_encryption_enabled",
    service: "cloudwatch",
    title: "CloudWatch log groups should be encrypted with KMS keys",
    description: "Finds log groups not encrypted with a customer managed KMS key.",
    severity: "low",
    cis: {},
    remediation: "Create the log group with --kms-key-id, or associate a key: aws logs associate-kms-key --log-group-name GROUP --kms-key-id KEY_ARN (the key policy must allow logs.REGION.amazonaws.com).",
    field_labels: { kms_key: "KMS key" },
    uses: ["logs.log_groups"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.logs.regions.flatMap((r) =>
        (r.logGroups ?? []).map((g) =>
          row(g.name, r.region, g.kmsKeyId !== undefined, g.kmsKeyId !== undefined ? `Log group ${g.name} is encrypted with ${g.kmsKeyId}.` : `Log group ${g.name} is not encrypted with a KMS key.`, {
            kms_key: g.kmsKeyId ?? null,
          }),
        ),
      ),
  }),
]
