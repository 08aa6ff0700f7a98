/** CloudTrail checks (CIS AWS v3.0 3.1, 3.2, 3.4, 3.5, 3.8, 3.9 / v7.0 4.x, FSBP CloudTrail.x). */
import type { Trail } from "../collectors/cloudtrail.ts"
import { defineCheck, row } from "../define-check.ts"

const ALL_S3 = new Set(["arn:aws:s3", "arn:aws:s3:::", "arn:aws-us-gov:s3", "arn:aws-cn:s3"])

/** Logs all (read and write) management events; no selectors at all is AWS's default, which does. */
export function logsAllManagementEvents(t: Trail): boolean | undefined {
  if (t.selectors === undefined) return undefined
  const { basic, advanced } = t.selectors
  if (basic.length === 0 && advanced.length === 0) return true
  if (basic.some((s) => s.includeManagementEvents && s.readWriteType === "All")) return true
  return advanced.some((s) => {
    const category = s.fields.find((f) => f.field === "eventCategory")
    const readOnly = s.fields.find((f) => f.field === "readOnly")
    return category?.equals.includes("Management") === true && readOnly === undefined
  })
}

/** Logs S3 object-level read or write data events for all buckets. */
export function logsS3DataEvents(t: Trail, kind: "read" | "write"): boolean {
  if (t.selectors === undefined) return false
  const wanted = kind === "read" ? "ReadOnly" : "WriteOnly"
  const basic = t.selectors.basic.some(
    (s) => (s.readWriteType === "All" || s.readWriteType === wanted) && s.dataResources.some((d) => d.type === "AWS::S3::Object" && d.values.some((v) => ALL_S3.has(v))),
  )
  const advanced = t.selectors.advanced.some((s) => {
    const get = (name: string) => s.fields.find((f) => f.field === name)
    const readOnly = get("readOnly")
    return (
      get("eventCategory")?.equals.includes("Data") === true &&
      get("resources.type")?.equals.includes("AWS::S3::Object") === true &&
      get("resources.ARN") === undefined &&
      (readOnly === undefined || readOnly.equals.includes(kind === "read" ? "true" : "false"))
    )
  })
  return basic || advanced
}

const trailFields = (t: Trail) => ({ trail_arn: t.arn, home_region: t.homeRegion, is_logging: t.isLogging ?? null })
const trailLabels = { trail_arn: "Trail ARN", home_region: "Home region", is_logging: "Logging" }

/** Trails whose home region is scanned (a multi-region trail is reported once, in its home region). */
const ownTrails = (trails: ReadonlyArray<Trail> | undefined, regions: ReadonlyArray<string>) => (trails ?? []).filter((t) => regions.includes(t.homeRegion) || t.multiRegion)

export const cloudtrailChecks = [
  defineCheck({
    id: "cloudtrail_multi_region_enabled",
    service: "cloudtrail",
    title: "CloudTrail should be enabled in all regions with a multi-region trail",
    description: "Checks, for each scanned region, that a logging multi-region trail records all read and write management events.",
    severity: "high",
    cis: { v3: "3.1", v7: "4.1" },
    fsbp: "CloudTrail.1",
    remediation: "Create (or update) a trail with --is-multi-region-trail, --include-global-service-events, a management event selector of ReadWriteType All, and start logging.",
    field_labels: { trail: "Covering trail" },
    uses: ["cloudtrail.trails", "cloudtrail.status", "cloudtrail.selectors"],
    testedWith: "moto",
    evaluate: (inv) => {
      const trails = inv.cloudtrail.trails
      if (trails === undefined) return []
      const good = trails.find((t) => t.multiRegion && t.isLogging === true && logsAllManagementEvents(t) === true)
      return inv.regions.map((region) => {
        const regional = trails.find((t) => t.homeRegion === region && t.isLogging === true && logsAllManagementEvents(t) === true)
        return row(
          `${inv.accountId}/${region}`,
          region,
          good !== undefined,
          good !== undefined
            ? `${region} is covered by multi-region trail ${good.name}.`
            : regional !== undefined
              ? `${region} is logged by the single-region trail ${regional.name}, but no multi-region trail records all management events.`
              : `No logging multi-region trail records all management events for ${region}.`,
          { trail: good?.name ?? null },
        )
      })
    },
  }),
  defineCheck({
    id: "cloudtrail_log_file_validation_enabled",
    service: "cloudtrail",
    title: "CloudTrail log file validation should be enabled",
    description: "Checks that each trail writes signed digest files so tampering with delivered logs can be detected.",
    severity: "medium",
    cis: { v3: "3.2", v7: "4.2" },
    fsbp: "CloudTrail.4",
    remediation: "aws cloudtrail update-trail --name TRAIL --enable-log-file-validation.",
    field_labels: { ...trailLabels, log_file_validation: "Log file validation" },
    uses: ["cloudtrail.trails", "cloudtrail.status"],
    testedWith: "moto",
    evaluate: (inv) =>
      ownTrails(inv.cloudtrail.trails, inv.regions).map((t) =>
        row(t.name, t.homeRegion, t.logFileValidation, t.logFileValidation ? `Trail ${t.name} validates log files.` : `Trail ${t.name} does not validate log files.`, {
          ...trailFields(t),
          log_file_validation: t.logFileValidation,
        }),
      ),
  }),
  defineCheck({
    id: "cloudtrail_kms_encryption_enabled",
    service: "cloudtrail",
    title: "CloudTrail logs should be encrypted at rest with KMS CMKs",
    description: "Checks that each trail encrypts its log files with a customer managed KMS key (SSE-KMS).",
    severity: "medium",
    cis: { v3: "3.5", v7: "4.5" },
    fsbp: "CloudTrail.2",
    remediation: "Create a KMS key whose policy allows CloudTrail to encrypt, then aws cloudtrail update-trail --name TRAIL --kms-key-id KEY.",
    field_labels: { ...trailLabels, kms_key: "KMS key" },
    uses: ["cloudtrail.trails", "cloudtrail.status"],
    testedWith: "moto",
    evaluate: (inv) =>
      ownTrails(inv.cloudtrail.trails, inv.regions).map((t) =>
        row(t.name, t.homeRegion, t.kmsKeyId !== undefined, t.kmsKeyId !== undefined ? `Trail ${t.name} encrypts logs with ${t.kmsKeyId}.` : `Trail ${t.name} does not use SSE-KMS.`, {
          ...trailFields(t),
          kms_key: t.kmsKeyId ?? null,
        }),
      ),
  }),
  defineCheck({
    id: "cloudtrail_cloudwatch_logging_enabled",
    service: "cloudtrail",
    title: "CloudTrail trails should be integrated with CloudWatch Logs",
    description: "Checks that each logging trail also delivers events to a CloudWatch Logs log group, needed for the CIS metric-filter alarms.",
    severity: "low",
    cis: {},
    fsbp: "CloudTrail.5",
    remediation: "aws cloudtrail update-trail --name TRAIL --cloud-watch-logs-log-group-arn LOG_GROUP_ARN --cloud-watch-logs-role-arn ROLE_ARN.",
    field_labels: { ...trailLabels, log_group: "Log group" },
    uses: ["cloudtrail.trails", "cloudtrail.status"],
    testedWith: "moto",
    evaluate: (inv) =>
      ownTrails(inv.cloudtrail.trails, inv.regions).map((t) => {
        const ok = t.cloudWatchLogsLogGroupArn !== undefined && t.isLogging === true
        return row(t.name, t.homeRegion, ok, ok ? `Trail ${t.name} delivers to ${t.cloudWatchLogsLogGroupArn}.` : t.isLogging !== true ? `Trail ${t.name} is not logging.` : `Trail ${t.name} has no CloudWatch Logs log group.`, {
          ...trailFields(t),
          log_group: t.cloudWatchLogsLogGroupArn ?? null,
        })
      }),
  }),
  defineCheck({
    id: "cloudtrail_logs_s3_bucket_access_logging_enabled",
    service: "cloudtrail",
    title: "S3 bucket access logging should be enabled on the CloudTrail S3 bucket",
    description: "Checks that each trail's destination bucket (when it is in this account) has server access logging enabled.",
    severity: "medium",
    cis: { v3: "3.4", v7: "4.4" },
    remediation: "Enable server access logging on the trail's bucket, targeting a separate log bucket.",
    field_labels: { ...trailLabels, bucket: "Trail bucket", access_log_target: "Access logs to" },
    uses: ["cloudtrail.trails", "s3.buckets", "s3.logging"],
    testedWith: "moto",
    evaluate: (inv) =>
      ownTrails(inv.cloudtrail.trails, inv.regions).flatMap((t) => {
        const bucket = (inv.s3.buckets ?? []).find((b) => b.name === t.s3BucketName)
        // Buckets of another (log archive) account cannot be read from here.
        if (bucket === undefined || bucket.logging === undefined) return []
        return [
          row(t.name, t.homeRegion, bucket.logging !== null, bucket.logging !== null ? `Trail bucket ${bucket.name} logs access to ${bucket.logging.targetBucket}.` : `Trail bucket ${bucket.name} has access logging disabled.`, {
            ...trailFields(t),
            bucket: bucket.name,
            access_log_target: bucket.logging?.targetBucket ?? null,
          }),
        ]
      }),
  }),
  ...(["write", "read"] as const).map((kind) =>
    defineCheck({
      id: `cloudtrail_s3_dataevents_${kind}_enabled`,
      service: "cloudtrail",
      title: `Object-level logging for ${kind} events should be enabled for S3 buckets`,
      description: `Checks that a logging trail records S3 data events (object-level ${kind === "read" ? "GetObject and other reads" : "PutObject, DeleteObject and other writes"}) for all buckets.`,
      severity: "low",
      cis: kind === "write" ? { v3: "3.8", v7: "4.8" } : { v3: "3.9", v7: "4.9" },
      remediation: `Add an event selector to a trail: aws cloudtrail put-event-selectors --trail-name TRAIL --event-selectors '[{"ReadWriteType":"${kind === "read" ? "ReadOnly" : "WriteOnly"}","IncludeManagementEvents":true,"DataResources":[{"Type":"AWS::S3::Object","Values":["arn:aws:s3"]}]}]' (or ReadWriteType All).`,
      field_labels: { trails: "Trails logging S3 data events" },
      uses: ["cloudtrail.trails", "cloudtrail.status", "cloudtrail.selectors"],
      testedWith: "moto",
      evaluate: (inv) => {
        const trails = inv.cloudtrail.trails
        if (trails === undefined) return []
        const logging = trails.filter((t) => t.isLogging === true && logsS3DataEvents(t, kind)).map((t) => t.name)
        return [
          row(inv.accountId, "global", logging.length > 0, logging.length > 0 ? `S3 object-level ${kind} events are logged by ${logging.join(", ")}.` : `No logging trail records S3 object-level ${kind} events for all buckets.`, {
            trails: logging,
          }),
        ]
      },
    }),
  ),
  defineCheck({
    id: "cloudtrail_management_events_logged",
    service: "cloudtrail",
    title: "CloudTrail trails should record management events",
    description: "Finds trails whose event selectors exclude management events (or keep only read or only write events), so console sign-ins, IAM and security-group changes go unrecorded.",
    severity: "medium",
    cis: {},
    remediation: "aws cloudtrail put-event-selectors --trail-name TRAIL --event-selectors '[{\"ReadWriteType\":\"All\",\"IncludeManagementEvents\":true}]' (keep any data-event selectors).",
    field_labels: { ...trailLabels, management_events: "All management events" },
    uses: ["cloudtrail.trails", "cloudtrail.status", "cloudtrail.selectors"],
    testedWith: "moto",
    evaluate: (inv) =>
      ownTrails(inv.cloudtrail.trails, inv.regions).flatMap((t) => {
        const all = logsAllManagementEvents(t)
        if (all === undefined) return []
        return [row(t.name, t.homeRegion, all, all ? `Trail ${t.name} records all management events.` : `Trail ${t.name} does not record all (read and write) management events.`, { ...trailFields(t), management_events: all })]
      }),
  }),
  defineCheck({
    id: "cloudtrail_sns_notifications_enabled",
    service: "cloudtrail",
    title: "CloudTrail trails should notify an SNS topic on log delivery",
    description: "Finds trails without an SNS topic, so nothing downstream learns that a new log file was delivered (or stops being delivered).",
    severity: "low",
    cis: {},
    remediation: "aws cloudtrail update-trail --name TRAIL --sns-topic-name TOPIC (the topic policy must allow cloudtrail.amazonaws.com to publish).",
    field_labels: { ...trailLabels, sns_topic: "SNS topic" },
    uses: ["cloudtrail.trails", "cloudtrail.status"],
    testedWith: "moto",
    evaluate: (inv) =>
      ownTrails(inv.cloudtrail.trails, inv.regions).map((t) =>
        row(t.name, t.homeRegion, t.snsTopicArn !== undefined, t.snsTopicArn !== undefined ? `Trail ${t.name} notifies ${t.snsTopicArn}.` : `Trail ${t.name} sends no delivery notifications.`, {
          ...trailFields(t),
          sns_topic: t.snsTopicArn ?? null,
        }),
      ),
  }),
  defineCheck({
    id: "cloudtrail_insights_enabled",
    service: "cloudtrail",
    title: "CloudTrail Insights should be enabled on a logging trail",
    description: "Checks that at least one logging trail has Insights (unusual API call rate or error rate detection) enabled.",
    severity: "low",
    cis: {},
    remediation: "aws cloudtrail put-insight-selectors --trail-name TRAIL --insight-selectors '[{\"InsightType\":\"ApiCallRateInsight\"},{\"InsightType\":\"ApiErrorRateInsight\"}]'.",
    field_labels: { trails: "Trails with Insights" },
    uses: ["cloudtrail.trails", "cloudtrail.status", "cloudtrail.insights"],
    testedWith: "moto",
    evaluate: (inv) => {
      const trails = inv.cloudtrail.trails
      if (trails === undefined) return []
      const withInsights = trails.filter((t) => t.isLogging === true && (t.insights ?? []).length > 0).map((t) => t.name)
      return [
        row(inv.accountId, "global", withInsights.length > 0, withInsights.length > 0 ? `Insights are enabled on ${withInsights.join(", ")}.` : "No logging trail has CloudTrail Insights enabled.", { trails: withInsights }),
      ]
    },
  }),
  ...(["object_lock", "mfa_delete"] as const).map((what) =>
    defineCheck({
      id: what === "object_lock" ? "cloudtrail_bucket_object_lock_enabled" : "cloudtrail_bucket_mfa_delete_enabled",
      service: "cloudtrail",
      title: what === "object_lock" ? "The CloudTrail S3 bucket should have Object Lock enabled" : "The CloudTrail S3 bucket should require MFA delete",
      description:
        what === "object_lock"
          ? "Checks that each trail's destination bucket (when it is in this account) has S3 Object Lock enabled, so delivered log files cannot be deleted or overwritten during the retention period."
          : "Checks that each trail's destination bucket (when it is in this account) is versioned with MFA delete, so log file versions cannot be deleted without the root user's MFA device.",
      severity: "medium",
      cis: {},
      remediation:
        what === "object_lock"
          ? "aws s3api put-object-lock-configuration --bucket BUCKET --object-lock-configuration '{\"ObjectLockEnabled\":\"Enabled\",\"Rule\":{\"DefaultRetention\":{\"Mode\":\"GOVERNANCE\",\"Days\":365}}}' (versioning must be on; older buckets need Object Lock enabled through AWS Support or a new bucket)."
          : "As the root user with its MFA device: aws s3api put-bucket-versioning --bucket BUCKET --versioning-configuration Status=Enabled,MFADelete=Enabled --mfa 'SERIAL CODE'.",
      field_labels: { ...trailLabels, bucket: "Trail bucket", setting: what === "object_lock" ? "Object Lock" : "MFA delete" },
      uses: ["cloudtrail.trails", "s3.buckets", what === "object_lock" ? "s3.object_lock" : "s3.versioning"],
      testedWith: what === "object_lock" ? "moto" : "sdk-mock",
      ...(what === "mfa_delete" ? { mockReason: "moto accepts MFADelete=Enabled but never stores it, so the compliant case needs a stubbed GetBucketVersioning." } : {}),
      evaluate: (inv) =>
        ownTrails(inv.cloudtrail.trails, inv.regions).flatMap((t) => {
          const bucket = (inv.s3.buckets ?? []).find((b) => b.name === t.s3BucketName)
          if (bucket === undefined) return []
          if (what === "object_lock") {
            if (bucket.objectLock === undefined) return []
            const ok = bucket.objectLock !== null
            return [row(t.name, t.homeRegion, ok, ok ? `Trail bucket ${bucket.name} has Object Lock${bucket.objectLock?.mode === null ? "" : ` (${bucket.objectLock?.mode})`}.` : `Trail bucket ${bucket.name} has no Object Lock.`, { ...trailFields(t), bucket: bucket.name, setting: ok })]
          }
          if (bucket.versioning === undefined) return []
          const ok = bucket.versioning.mfaDelete === "Enabled"
          return [row(t.name, t.homeRegion, ok, ok ? `Trail bucket ${bucket.name} requires MFA delete.` : `Trail bucket ${bucket.name} does not require MFA delete.`, { ...trailFields(t), bucket: bucket.name, setting: ok })]
        }),
    }),
  ),
]
