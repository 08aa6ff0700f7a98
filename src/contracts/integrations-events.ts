/**
 * Integration events (issue 33, webhooks and Slack; docs/integrations.md): the JSON a workspace's webhooks receive.
 * Every delivery's body is one `IntegrationEvent` envelope — `id` (stable across retries and replays: receivers
 * deduplicate on it, delivery is at least once), `type`, `created_at`, `workspace` and the type's `data` below.
 *
 * The server writes an event in the same transaction as the change that caused it (server/integrations/events.ts), so
 * an event exists if and only if its change committed. Counts are the product's one algebra (docs/outcomes.md): the
 * same numbers the scan page, the digest and the exports show.
 */
import { Schema } from "effect"
import { Count, NullableTimestamp, Timestamp } from "./common.ts"
import { Severity } from "./findings.ts"

export const INTEGRATION_EVENT_TYPES = [
  "scan.completed",
  "findings.new_failing",
  "mute_rule.created",
  "mute_rule.expired",
  "remediation.completed",
  "remediation.undone",
  "report.ready",
] as const
export const IntegrationEventType = Schema.Literals(INTEGRATION_EVENT_TYPES)
export type IntegrationEventType = typeof IntegrationEventType.Type

/** What each event type is, in the words the settings page shows. */
export const INTEGRATION_EVENT_LABELS: Readonly<Record<IntegrationEventType, string>> = {
  "scan.completed": "Scan completed",
  "findings.new_failing": "New failing resources",
  "mute_rule.created": "Mute rule created",
  "mute_rule.expired": "Mute rule expired",
  "remediation.completed": "Remediation done",
  "remediation.undone": "Remediation undone",
  "report.ready": "Compliance report ready",
}

/** Counts by severity (critical, high, medium, low). */
export const SeverityCounts = Schema.Struct({ critical: Count, high: Count, medium: Count, low: Count })
export type SeverityCounts = typeof SeverityCounts.Type

export const EventAccount = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  /** "aws", "gcp" or "azure". */
  provider: Schema.String,
  /** The provider's own id (AWS account id, GCP project id, Azure subscription id). */
  cloud_account_id: Schema.String,
})
export type EventAccount = typeof EventAccount.Type

export const EventScan = Schema.Struct({
  id: Schema.Int,
  account: EventAccount,
  /** "manual", "schedule", … as the scan list shows. */
  trigger: Schema.String,
  started_at: NullableTimestamp,
  completed_at: NullableTimestamp,
  /** The scan's page in the product. */
  url: Schema.String,
})
export type EventScan = typeof EventScan.Type

/** `scan.completed`: a scan finished with every service completed or some failed but at least one completed. */
export const ScanCompletedData = Schema.Struct({
  scan: EventScan,
  /** Checks evaluated: passed, failed (not muted), muted, and the rest not evaluated. */
  findings: Schema.Struct({ total: Count, passed: Count, failed: Count, muted: Count, not_evaluated: Count }),
  /** Resources failing now (not muted, not remediated), by severity. */
  failing_resources: SeverityCounts,
  /** Failing resources that were not failing in the account's previous completed scan. */
  new_failing_resources: SeverityCounts,
  /** Resources failing in the previous scan that pass now. */
  fixed_resources: SeverityCounts,
})
export type ScanCompletedData = typeof ScanCompletedData.Type

export const NewFailingResource = Schema.Struct({
  finding_id: Schema.Int,
  check_id: Schema.String,
  title: Schema.String,
  severity: Severity,
  service: Schema.String,
  resource_id: Schema.String,
  region: Schema.String,
  /** The finding's page in the product. */
  url: Schema.String,
})
export type NewFailingResource = typeof NewFailingResource.Type

/**
 * `findings.new_failing`: resources failing in a completed scan that were not failing in the previous one, at or above
 * the subscription's minimum severity (`minimum_severity`; each delivery lists only those). At most
 * `NEW_FAILING_LISTED` resources are listed, most severe first; `counts` always counts them all.
 */
export const NewFailingData = Schema.Struct({
  scan: EventScan,
  minimum_severity: Severity,
  counts: SeverityCounts,
  total: Count,
  resources: Schema.Array(NewFailingResource),
  truncated: Schema.Boolean,
})
export type NewFailingData = typeof NewFailingData.Type

export const NEW_FAILING_LISTED = 100

export const EventMuteRule = Schema.Struct({
  id: Schema.Int,
  /** null: every account of the workspace. */
  account_id: Schema.NullOr(Schema.Int),
  check_id: Schema.NullOr(Schema.String),
  resource_pattern: Schema.NullOr(Schema.String),
  tag_key: Schema.NullOr(Schema.String),
  tag_value: Schema.NullOr(Schema.String),
  reason: Schema.String,
  expires_at: NullableTimestamp,
})

/** `mute_rule.created` (`rows` = result rows the rule muted at once) and `mute_rule.expired` (`rows` = rows unmuted). */
export const MuteRuleEventData = Schema.Struct({
  rule: EventMuteRule,
  rows: Count,
  /** Who created it (null for an expiry). */
  actor: Schema.NullOr(Schema.Struct({ id: Schema.Int, email: Schema.String })),
  /** The account's mute rules in the product (the dashboard for a workspace-wide rule). */
  url: Schema.String,
})
export type MuteRuleEventData = typeof MuteRuleEventData.Type

/** `remediation.completed` (the re-check passed) and `remediation.undone` (the change was reverted). */
export const RemediationEventData = Schema.Struct({
  remediation: Schema.Struct({
    id: Schema.Int,
    finding_id: Schema.Int,
    scan_id: Schema.Int,
    account_id: Schema.Int,
    check_id: Schema.String,
    resource_id: Schema.String,
    region: Schema.String,
    message: Schema.String,
  }),
  actor: Schema.NullOr(Schema.Struct({ id: Schema.Int, email: Schema.String })),
  /** The finding's page in the product. */
  url: Schema.String,
})
export type RemediationEventData = typeof RemediationEventData.Type

/** `report.ready`: a compliance PDF report finished; `download_url` needs a signed-in member's token. */
export const ReportReadyData = Schema.Struct({
  report: Schema.Struct({
    id: Schema.Int,
    scan_id: Schema.Int,
    framework_ids: Schema.Array(Schema.String),
    pages: Count,
    bytes: Count,
  }),
  download_url: Schema.String,
  /** The scan's compliance page in the product. */
  url: Schema.String,
})
export type ReportReadyData = typeof ReportReadyData.Type

/** `webhook.test`: sent by "Send test" only (no subscription needed); says which destination asked. */
export const WebhookTestData = Schema.Struct({ message: Schema.String, webhook: Schema.Struct({ id: Schema.Int, name: Schema.String }) })
export type WebhookTestData = typeof WebhookTestData.Type

const envelope = <T extends IntegrationEventType | "webhook.test", D extends Schema.Top>(type: T, data: D) =>
  Schema.Struct({
    /** Stable across retries and replays of this event: deduplicate on it. */
    id: Schema.String,
    type: Schema.Literal(type),
    created_at: Timestamp,
    workspace: Schema.Struct({ id: Schema.Int, name: Schema.String }),
    data,
  })

/** Every event a webhook may receive, told apart by `type`. */
export const IntegrationEvent = Schema.Union([
  envelope("scan.completed", ScanCompletedData),
  envelope("findings.new_failing", NewFailingData),
  envelope("mute_rule.created", MuteRuleEventData),
  envelope("mute_rule.expired", MuteRuleEventData),
  envelope("remediation.completed", RemediationEventData),
  envelope("remediation.undone", RemediationEventData),
  envelope("report.ready", ReportReadyData),
  envelope("webhook.test", WebhookTestData),
])
export type IntegrationEvent = typeof IntegrationEvent.Type

/** The data of each event type. */
export interface IntegrationEventData {
  readonly "scan.completed": ScanCompletedData
  readonly "findings.new_failing": NewFailingData
  readonly "mute_rule.created": MuteRuleEventData
  readonly "mute_rule.expired": MuteRuleEventData
  readonly "remediation.completed": RemediationEventData
  readonly "remediation.undone": RemediationEventData
  readonly "report.ready": ReportReadyData
  readonly "webhook.test": WebhookTestData
}

/** The header carrying the signature: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
export const SIGNATURE_HEADER = "X-Cloud-Audit-Signature"
export const EVENT_TYPE_HEADER = "X-Cloud-Audit-Event"
export const EVENT_ID_HEADER = "X-Cloud-Audit-Event-Id"
export const DELIVERY_ID_HEADER = "X-Cloud-Audit-Delivery"

/** Severity at or above `minimum` (critical > high > medium > low). */
export const atLeast = (severity: string, minimum: string): boolean => {
  const order = ["low", "medium", "high", "critical"]
  return order.indexOf(severity) >= order.indexOf(minimum)
}
