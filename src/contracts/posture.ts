/**
 * Continuous posture (beyond the spec, issue 13): mute rules, scan schedules with their scope, and the scan digest
 * preference. Shapes shared by the server (server/api/posture.ts) and the SPA; messages are the texts both show.
 */
import { Schema } from "effect"
import { AccountId, FindingId, ScanId, idParam } from "./ids.ts"
import { NullableTimestamp, OkMessage, Timestamp, withData } from "./common.ts"

export const PostureMessages = {
  muteScopeRequired: "Choose what to mute: an account, a check, a resource pattern or a tag",
  muteReasonRequired: "Give the reason for muting",
  muteExpiryPast: "The expiry must be in the future",
  mutePatternMatchesNothing: "This resource pattern matches no resource",
  muteTagMatchesNothing: "No resource carries this tag",
  muteTagValueWithoutKey: "A tag value needs a tag key",
  muteUnknownCheck: "Unknown check",
  muteAccountNotFound: "Account not found",
  muteRuleNotFound: "Mute rule not found",
  resourceNotFound: "Resource not found",
  loadResourceFailed: "Failed to load the resource. Please try again.",
  muteCreated: "Mute rule created",
  muteUpdated: "Mute rule updated",
  muteDeleted: "Mute rule deleted",
  mutePermissionDenied: "You don't have permission to mute findings",
  muteFailed: "Failed to mute. Please try again.",
  muteDeleteFailed: "Failed to delete the mute rule. Please try again.",
  loadRulesFailed: "Failed to load mute rules. Please try again.",
  loadScheduleFailed: "Failed to load the scan schedule. Please try again.",
  saveScheduleFailed: "Failed to save the scan schedule. Please try again.",
  loadDigestFailed: "Failed to load your email preference. Please try again.",
  saveDigestFailed: "Failed to save your email preference. Please try again.",
  scheduleSaved: "Schedule saved",
  scheduleTimeInvalid: "Enter a time as HH:MM (00:00 to 23:59)",
  scheduleTimezoneInvalid: "Unknown timezone",
  scheduleUnknownRegion: "Unknown region",
  scheduleUnknownService: "Unknown service",
  scheduleEmptyScope: "Choose at least one region and one service, or all of them",
  schedulePermissionDenied: "Permission denied: Cannot launch scans",
  digestSaved: "Email preference saved",
  loadOverviewFailed: "Failed to load the security posture. Please try again.",
} as const

// ---------------------------------------------------------------------------------------------------
// Mute rules

const Reason = Schema.String.check(Schema.isMaxLength(500))
const Pattern = Schema.String.check(Schema.isMaxLength(512))
const CheckIdText = Schema.String.check(Schema.isMaxLength(128))
const TagKey = Schema.String.check(Schema.isMaxLength(128))
const TagValue = Schema.String.check(Schema.isMaxLength(256))

/**
 * A mute rule: failing rows matching every scope it sets (account, check, resource glob with `*` and `?`, tag key and
 * optional value) are muted — kept and shown as muted, left out of failed counts — until `expires_at`.
 */
export const MuteRule = Schema.Struct({
  id: Schema.Int,
  account_id: Schema.NullOr(AccountId),
  account_name: Schema.NullOr(Schema.String),
  check_id: Schema.NullOr(Schema.String),
  resource_pattern: Schema.NullOr(Schema.String),
  tag_key: Schema.NullOr(Schema.String),
  tag_value: Schema.NullOr(Schema.String),
  reason: Schema.String,
  expires_at: NullableTimestamp,
  /** False once `expires_at` has passed. */
  active: Schema.Boolean,
  created_at: Timestamp,
  created_by: Schema.NullOr(Schema.String),
  updated_at: Timestamp,
  updated_by: Schema.NullOr(Schema.String),
})
export type MuteRule = typeof MuteRule.Type

/** POST /api/mute-rules and PUT /api/mute-rules/{id}: the whole rule (a PUT replaces every field). */
export const MuteRulePayload = Schema.Struct({
  reason: Reason.annotate({ description: "Why the risk is accepted (1–500 characters)" }),
  expires_at: Schema.optionalKey(Schema.NullOr(Timestamp).annotate({ description: "When the rule stops muting (future; null: never)" })),
  account_id: Schema.optionalKey(Schema.NullOr(AccountId)),
  check_id: Schema.optionalKey(Schema.NullOr(CheckIdText)),
  resource_pattern: Schema.optionalKey(
    Schema.NullOr(Pattern).annotate({ description: "Resource id or ARN, or a glob (`*`, `?`), case-insensitive" }),
  ),
  tag_key: Schema.optionalKey(Schema.NullOr(TagKey)),
  tag_value: Schema.optionalKey(Schema.NullOr(TagValue)),
})
export type MuteRulePayload = typeof MuteRulePayload.Type

export const MuteRulesQuery = Schema.Struct({ account_id: Schema.optionalKey(AccountId) })
export type MuteRulesQuery = typeof MuteRulesQuery.Type

export const MuteRuleListResponse = Schema.Struct({ ok: Schema.Boolean, data: Schema.Array(MuteRule) })
export type MuteRuleListResponse = typeof MuteRuleListResponse.Type

/** Answer of a create or an update: the rule, and how many result rows (all scans) changed their muted state. */
export const MuteRuleResponse = Schema.Struct({
  ok: Schema.Boolean,
  message: Schema.String,
  data: MuteRule,
  rows_changed: Schema.Int,
})
export type MuteRuleResponse = typeof MuteRuleResponse.Type

export const MuteRuleIdParams = Schema.Struct({ id: idParam(Schema.Int.check(Schema.isGreaterThan(0))) })

export const MuteRuleDeleteResponse = OkMessage

/** The scope a rule shows as (the most specific description of the fields it sets). */
export const describeMuteScope = (r: Pick<MuteRule, "account_name" | "check_id" | "resource_pattern" | "tag_key" | "tag_value">): string => {
  const parts: Array<string> = []
  if (r.check_id !== null) parts.push(`check ${r.check_id}`)
  if (r.resource_pattern !== null) parts.push(/[*?]/.test(r.resource_pattern) ? `resources ${r.resource_pattern}` : `resource ${r.resource_pattern}`)
  if (r.tag_key !== null) parts.push(r.tag_value === null ? `tag ${r.tag_key}` : `tag ${r.tag_key}=${r.tag_value}`)
  if (r.account_name !== null) parts.push(`account ${r.account_name}`)
  return parts.join(", ")
}

// ---------------------------------------------------------------------------------------------------
// Schedules and scope

export const SCHEDULE_FREQUENCIES = ["off", "daily", "weekly", "monthly"] as const
export const ScheduleFrequency = Schema.Literals(SCHEDULE_FREQUENCIES)
export type ScheduleFrequency = typeof ScheduleFrequency.Type

export const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const

/** HH:MM on a 24-hour clock. */
export const TIME_OF_DAY = /^([01][0-9]|2[0-3]):[0-5][0-9]$/

/** An account's scan schedule and default scope (regions / services null: everything enabled). */
export const ScanSchedule = Schema.Struct({
  account_id: AccountId,
  frequency: ScheduleFrequency,
  time_of_day: Schema.String,
  /** 0 = Sunday … 6 = Saturday (weekly). */
  weekday: Schema.Int,
  /** 1–31 (monthly; in a shorter month, its last day). */
  day_of_month: Schema.Int,
  timezone: Schema.String,
  regions: Schema.NullOr(Schema.Array(Schema.String)),
  services: Schema.NullOr(Schema.Array(Schema.String)),
  next_run_at: NullableTimestamp,
  last_run_at: NullableTimestamp,
  last_scan_id: Schema.NullOr(ScanId),
  last_error: Schema.NullOr(Schema.String),
  updated_at: NullableTimestamp,
  updated_by: Schema.NullOr(Schema.String),
  /** What the scope may name: the account's regions (as last discovered, or the provider's list) and services. */
  available_regions: Schema.Array(Schema.String),
  available_services: Schema.Array(Schema.Struct({ key: Schema.String, name: Schema.String })),
})
export type ScanSchedule = typeof ScanSchedule.Type

export const ScanSchedulePayload = Schema.Struct({
  frequency: ScheduleFrequency,
  time_of_day: Schema.String.annotate({ description: "HH:MM, 24-hour clock, in `timezone`" }),
  weekday: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 6 }))),
  day_of_month: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 31 }))),
  timezone: Schema.String.check(Schema.isMaxLength(64)),
  regions: Schema.optionalKey(Schema.NullOr(Schema.Array(Schema.String.check(Schema.isMaxLength(32))).check(Schema.isMaxLength(64)))),
  services: Schema.optionalKey(Schema.NullOr(Schema.Array(Schema.String.check(Schema.isMaxLength(64))).check(Schema.isMaxLength(200)))),
})
export type ScanSchedulePayload = typeof ScanSchedulePayload.Type

export const ScanScheduleResponse = withData(ScanSchedule)
export type ScanScheduleResponse = typeof ScanScheduleResponse.Type

// ---------------------------------------------------------------------------------------------------
// Digest preference

export const DigestPreference = Schema.Struct({ scan_digest: Schema.Boolean })
export type DigestPreference = typeof DigestPreference.Type
export const DigestPreferenceResponse = withData(DigestPreference)
export type DigestPreferenceResponse = typeof DigestPreferenceResponse.Type

// ---------------------------------------------------------------------------------------------------
// Overview and trends (the dashboard's posture section)

/** Accounts whose latest completed scan is older than this (or that were never scanned) are listed as stale. */
export const STALE_AFTER_DAYS = 7
/** Completed scans per account in the trend. */
export const TREND_SCANS = 10

export const SeverityCounts = Schema.Struct({ critical: Schema.Int, high: Schema.Int, medium: Schema.Int, low: Schema.Int })
export type SeverityCounts = typeof SeverityCounts.Type

/** One completed scan in an account's trend: failing resources (not muted, not remediated) by severity, new and fixed. */
export const TrendPoint = Schema.Struct({
  scan_id: ScanId,
  scan_start: Timestamp,
  failing: SeverityCounts,
  /** Failing resources of every severity (the algebra's, server/posture/algebra.ts). */
  failing_resources: Schema.Int,
  new_failing: Schema.Int,
  fixed: Schema.Int,
  muted_findings: Schema.Int,
})
export type TrendPoint = typeof TrendPoint.Type

export const AccountTrend = Schema.Struct({
  account_id: AccountId,
  account_name: Schema.String,
  cloud_provider_name: Schema.String,
  last_scan_at: NullableTimestamp,
  /** Not scanned (completed) in the last STALE_AFTER_DAYS days. */
  stale: Schema.Boolean,
  /** The last TREND_SCANS completed scans, oldest first. */
  scans: Schema.Array(TrendPoint),
})
export type AccountTrend = typeof AccountTrend.Type

/** A check failing in the latest completed scan of one or more accounts (muted findings left out). */
export const TopFailingCheck = Schema.Struct({
  check_id: Schema.String,
  title: Schema.String,
  severity: Schema.String,
  resources: Schema.Int,
  accounts: Schema.Int,
})
export type TopFailingCheck = typeof TopFailingCheck.Type

export const PostureOverview = Schema.Struct({
  accounts: Schema.Array(AccountTrend),
  top_failing_checks: Schema.Array(TopFailingCheck),
  stale_after_days: Schema.Int,
})
export type PostureOverview = typeof PostureOverview.Type

export const PostureOverviewResponse = withData(PostureOverview)
export type PostureOverviewResponse = typeof PostureOverviewResponse.Type

// ---------------------------------------------------------------------------------------------------
// A resource's history (the resource page)

/** Completed scans of the account a resource page covers. */
export const HISTORY_SCANS = 20

export const ResourceCheckResult = Schema.Struct({
  finding_id: FindingId,
  check_id: Schema.String,
  title: Schema.String,
  severity: Schema.String,
  /** null: the check could not decide for this resource. */
  compliant: Schema.NullOr(Schema.Boolean),
  delta: Schema.NullOr(Schema.String),
  muted_reason: Schema.NullOr(Schema.String),
  remediation_status: Schema.NullOr(Schema.String),
})
export type ResourceCheckResult = typeof ResourceCheckResult.Type

export const ResourceScan = Schema.Struct({
  scan_id: ScanId,
  scan_start: Timestamp,
  /** Checks whose row for this resource failed in that scan (outcome fail: not muted, not remediated; docs/outcomes.md). */
  failing_checks: Schema.Int,
  results: Schema.Array(ResourceCheckResult),
})
export type ResourceScan = typeof ResourceScan.Type

export const ResourceHistory = Schema.Struct({
  account_id: AccountId,
  account_name: Schema.String,
  resource_uid: Schema.String,
  resource_id: Schema.String,
  service_key: Schema.String,
  region: Schema.String,
  first_seen_at: Timestamp,
  last_seen_at: Timestamp,
  /** The resource's results in the account's last HISTORY_SCANS completed scans, newest first. */
  scans: Schema.Array(ResourceScan),
})
export type ResourceHistory = typeof ResourceHistory.Type

export const ResourceHistoryQuery = Schema.Struct({
  account_id: AccountId,
  uid: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(2048)).annotate({ description: "The resource's identity (`resource_uid` of a finding's row)" }),
})
export type ResourceHistoryQuery = typeof ResourceHistoryQuery.Type

export const ResourceHistoryResponse = withData(ResourceHistory)
export type ResourceHistoryResponse = typeof ResourceHistoryResponse.Type

/** The SPA's path of a resource page. */
export const resourcePath = (accountId: number, uid: string): string => `/dashboard/accounts/${accountId}/resource?uid=${encodeURIComponent(uid)}`
