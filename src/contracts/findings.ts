/**
 * Findings (scanning §2, §3, §4, §7): list per scan/service (paginated), detail, remediation of one
 * detail row; severity, finding status, remediation status and the client-side filters and display limits.
 */
import { Schema } from "effect"
import { AccountId, FindingId, ScanId, ServiceId, UserId } from "./ids.ts"
import { Count, NullableTimestamp, Pagination, Timestamp, withData } from "./common.ts"
import { DetailDisplay, DetailPaging } from "./constants.ts"

export const SEVERITIES = ["critical", "high", "medium", "low"] as const
export const Severity = Schema.Literals(SEVERITIES)
export type Severity = typeof Severity.Type

export const FINDING_STATUSES = ["pass", "fail", "remediated"] as const
export const FindingStatus = Schema.Literals(FINDING_STATUSES)
export type FindingStatus = typeof FindingStatus.Type

/**
 * Beyond the spec: what the check concluded. The spec's three statuses for a decided result, or `not_evaluated` when the
 * check could not decide (API not enabled, access denied, throttled beyond retries, region not enabled): never counted
 * as failed nor passed. Such a finding keeps `status: "pass"` (the spec's enum has no fourth value; it is not a failure)
 * and says why in `not_evaluated_reason`; its rows for the inputs that could not be read carry no compliance flag.
 */
export const FINDING_OUTCOMES = ["pass", "fail", "remediated", "not_evaluated"] as const
export const FindingOutcome = Schema.Literals(FINDING_OUTCOMES)
/** Values of the findings list's `status` filter: the outcomes, and `muted` (failing findings whose open rows are all muted). */
export const FINDING_LIST_FILTERS = [...FINDING_OUTCOMES, "muted"] as const
export type FindingListFilter = (typeof FINDING_LIST_FILTERS)[number]
export type FindingOutcome = typeof FindingOutcome.Type
/** The spec status a finding of this outcome carries. */
export const specStatus = (outcome: FindingOutcome): FindingStatus => (outcome === "not_evaluated" ? "pass" : outcome)

/** Scanning §4 remediation status as stored on a detail row: pass, failed (or fail), remediated, pending. */
export const REMEDIATION_STATUSES = ["pass", "failed", "fail", "remediated", "pending"] as const
export const RemediationStatus = Schema.Literals(REMEDIATION_STATUSES)
export type RemediationStatus = typeof RemediationStatus.Type

/** Normalised remediation state (anything else → pending, i.e. in progress). */
export type RemediationState = "pass" | "failed" | "remediated" | "pending"
export const remediationState = (status: unknown): RemediationState =>
  status === "pass" ? "pass" : status === "failed" || status === "fail" ? "failed" : status === "remediated" ? "remediated" : "pending"

/** `attempted_by`: a user object {id, email} or a user id. */
export const AttemptedBy = Schema.Union([Schema.Struct({ id: UserId, email: Schema.String }), UserId])
export type AttemptedBy = typeof AttemptedBy.Type

export const RemediationRecord = Schema.Struct({
  status: Schema.String,
  message: Schema.NullOr(Schema.String),
  attempted_at: NullableTimestamp,
  attempted_by: Schema.NullOr(AttemptedBy),
})
export type RemediationRecord = typeof RemediationRecord.Type

/**
 * A detail row: free fields (resource id, region, …) that may hold a boolean compliance flag and a
 * `remediate` record.
 */
export const DetailRow = Schema.StructWithRest(
  Schema.Struct({
    compliance: Schema.optionalKey(Schema.Boolean),
    remediate: Schema.optionalKey(RemediationRecord),
    /** Beyond the spec (issue 13): the mute rule that mutes this failing row, with its reason. */
    muted: Schema.optionalKey(Schema.Struct({ rule_id: Schema.Int, reason: Schema.String })),
  }),
  [Schema.Record(Schema.String, Schema.Unknown)],
)
export type DetailRow = typeof DetailRow.Type

/** The remediation button of a row (scanning §4): null when the row is compliant. */
export const remediationAction = (
  row: { readonly compliance?: boolean; readonly remediate?: { readonly status: string } },
): "Remediate" | "View Success" | "View Remediated" | "View Error" | "View Status" | null => {
  if (row.remediate === undefined) return row.compliance === false ? "Remediate" : null
  switch (remediationState(row.remediate.status)) {
    case "pass":
      return "View Success"
    case "remediated":
      return "View Remediated"
    case "failed":
      return "View Error"
    default:
      return "View Status"
  }
}
/** A failed remediation can be retried ('Try again'). */
export const canRetryRemediation = (row: { readonly remediate?: { readonly status: string } }): boolean =>
  row.remediate !== undefined && remediationState(row.remediate.status) === "failed"

export const ComplianceRef = Schema.Struct({
  framework: Schema.String,
  control: Schema.String,
  title: Schema.optionalKey(Schema.String),
})
export type ComplianceRef = typeof ComplianceRef.Type

/**
 * Which detail rows a finding detail page holds (`details_status`): non-compliant rows (`fail`, remediated ones
 * included), rows that are not non-compliant (`pass`), non-compliant rows whose remediation succeeded (`remediated`),
 * or rows failing since the previous completed scan of the account (`new`), or failing rows a mute rule mutes (`muted`;
 * `fail` then leaves them out).
 */
export const DETAIL_STATUSES = ["fail", "pass", "remediated", "new", "muted"] as const
export const DetailStatus = Schema.Literals(DETAIL_STATUSES)
export type DetailStatus = typeof DetailStatus.Type

/**
 * Beyond the spec: the page of `details[]` a finding detail carries (rows in stored order: every non-compliant row
 * first), with the filter it was read with. Only on GET /api/findings/{id}; list items carry counts and no rows.
 */
export const DetailsPagination = Schema.Struct({
  page: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  page_size: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  total: Count,
  total_pages: Count,
  status: Schema.NullOr(DetailStatus),
  q: Schema.NullOr(Schema.String),
})
export type DetailsPagination = typeof DetailsPagination.Type

/** Scanning §3 finding, plus check_id, remediation guidance and compliance references. */
export const Finding = Schema.Struct({
  id: FindingId,
  scan_id: Schema.optionalKey(ScanId),
  service_id: Schema.optionalKey(ServiceId),
  description: Schema.String,
  severity: Severity,
  status: FindingStatus,
  /** Beyond the spec: the status, or `not_evaluated` (see `FindingOutcome`). */
  outcome: FindingOutcome.annotate({
    description: "Beyond the spec: pass, fail or remediated as status, or not_evaluated when the check could not decide (status then reads pass; never counted as failed or passed)",
  }),
  /** Why the check could not decide (null when it did). */
  not_evaluated_reason: Schema.NullOr(Schema.String).annotate({
    description: "Why the check could not decide (API not enabled, access denied, throttled beyond retries, region not enabled); null when it decided",
  }),
  created_at: Timestamp,
  service_name: Schema.String,
  account_name: Schema.String,
  /** Beyond the spec: our id of the scanned account (mute rules name it). */
  account_id: Schema.optionalKey(AccountId),
  /** Beyond the spec (issue 31; list across accounts only): the organisation the account belongs to, and its unit's path. */
  organization_id: Schema.optionalKey(Schema.NullOr(AccountId)),
  org_unit_path: Schema.optionalKey(Schema.NullOr(Schema.String)),
  /** The cloud account id of any provider (spec name): AWS account id, GCP project id, Azure subscription id. */
  aws_account_id: Schema.NullOr(Schema.String),
  cloud_provider_name: Schema.String,
  policy_check: Schema.String,
  field_labels: Schema.Record(Schema.String, Schema.String),
  details: Schema.Array(DetailRow),
  check_id: Schema.String,
  remediation: Schema.NullOr(Schema.String),
  compliance: Schema.Array(ComplianceRef),
  /** Resources the check evaluated (detail rows in all). */
  resources_checked: Count,
  /** Non-compliant resources (rows with compliance false, remediated ones included). */
  resources_failing: Count,
  /** Non-compliant resources whose remediation succeeded. */
  resources_remediated: Count,
  /** Resources failing now that did not fail in the previous completed scan of the account (0 on its first scan). */
  resources_new: Count,
  /** Resources that failed in the previous completed scan and pass now or are gone. */
  resources_fixed: Count,
  /** Beyond the spec (issue 13): failing resources a mute rule mutes. */
  resources_muted: Count,
  /** Beyond the spec: the finding fails and every failing resource still open is muted (not counted as failed). */
  muted: Schema.Boolean,
  /** Beyond the spec (list only, with a `region` or `q` filter): this finding's resources in this scan matching it. */
  resources_matched: Schema.optionalKey(Count),
  details_pagination: Schema.optionalKey(DetailsPagination),
  /**
   * Beyond the spec (issue 28, detail only): a later completed scan of the account superseded this finding's scan, which
   * keeps what it reported; mutes and remediations act on the latest scan (docs/outcomes.md "History").
   */
  superseded: Schema.optionalKey(Schema.Boolean),
  /**
   * Beyond the spec (issue 31): the account is a member retired from its organisation: its findings stay readable but
   * take no remediation (nor an undo of an earlier fix). In the detail always; in a scan's list and the list across
   * accounts only when true.
   */
  account_retired: Schema.optionalKey(Schema.Boolean),
})
export type Finding = typeof Finding.Type

/** GET /api/findings/{id}?details_page&details_page_size&details_status&details_q (beyond the spec: paged rows). */
export const FindingDetailQuery = Schema.Struct({
  details_page: Schema.optionalKey(
    Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).annotate({ description: "Page of detail rows, from 1 (default 1); past the last page: no rows" }),
  ),
  details_page_size: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: DetailPaging.maxPageSize })).annotate({
      description: `Detail rows per page, 1–${DetailPaging.maxPageSize} (default ${DetailPaging.defaultPageSize})`,
    }),
  ),
  details_status: Schema.optionalKey(
    DetailStatus.annotate({
      description: "fail: non-compliant rows not muted; pass: every other row; remediated: non-compliant rows remediated; new: failing since the previous scan; muted: failing rows a mute rule mutes (default: all)",
    }),
  ),
  /** Rows whose resource id contains this text (case-insensitive). */
  details_q: Schema.optionalKey(
    Schema.String.check(Schema.isMaxLength(DetailPaging.maxQueryLength)).annotate({ description: "Rows whose resource id contains this text (case-insensitive)" }),
  ),
})
export type FindingDetailQuery = typeof FindingDetailQuery.Type

/**
 * Beyond the spec (issue 28 item 5): how the findings list is sorted (`sort`, with `order` asc or desc). Whatever the
 * key, ties fall back to the default order (failed, muted, remediated, not evaluated, passed; then critical → low; then
 * id), so every order is total and pages never overlap.
 */
export const FINDING_SORTS = ["status", "severity", "service", "check", "failing", "new", "fixed"] as const
export const FindingSort = Schema.Literals(FINDING_SORTS)
export type FindingSort = typeof FindingSort.Type
export const SORT_ORDERS = ["asc", "desc"] as const
export const SortOrder = Schema.Literals(SORT_ORDERS)
export type SortOrder = typeof SortOrder.Type

/** Beyond the spec: the `change` filter, against the previous completed scan of the account. */
export const FINDING_CHANGES = ["new", "fixed"] as const
export type FindingChange = (typeof FINDING_CHANGES)[number]

/**
 * GET /api/findings?scan_id&service_id&page&page_size[&status=a,b] (scanning §7). Beyond the spec, every filter and
 * sort runs on the server over the whole scan (issue 28 item 5): without `service_id` the list spans every service of
 * the scan. Finding-level filters: status, severity, service, check, change. Resource-level filters (`region`, `q`):
 * a finding matches when at least one of its resources in this scan matches both, and then carries how many do.
 * Pages are numbered (`page`) or follow a `cursor` (the previous answer's `next_cursor`), which takes precedence.
 *
 * Beyond the spec (issue 31, findings across accounts): without `scan_id` the list spans the latest completed scan of
 * every account of the workspace (retired accounts only when `account_id` names them), narrowed by `account_id`,
 * `organization_id` and `unit`; every finding filter and sort applies, except the resource search `q`.
 */
export const FindingsQuery = Schema.Struct({
  scan_id: Schema.optionalKey(ScanId.annotate({
    description: "The scan whose findings are listed; without it, the latest completed scan of every account (beyond the spec)",
  })),
  account_id: Schema.optionalKey(
    Schema.String.check(Schema.isMaxLength(2000)).annotate({
      description: "Without scan_id: comma-joined account ids whose latest scans are listed (retired accounts included when named)",
    }),
  ),
  organization_id: Schema.optionalKey(
    AccountId.annotate({ description: "Without scan_id: the member accounts of this organisation only" }),
  ),
  unit: Schema.optionalKey(
    Schema.String.check(Schema.isMaxLength(256)).annotate({
      description: "Without scan_id: the accounts of this organisation unit (its id) and of every unit below it",
    }),
  ),
  service_id: Schema.optionalKey(ServiceId),
  page: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
  page_size: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100 }))),
  status: Schema.optionalKey(
    Schema.String.annotate({
      description: "Comma-joined outcomes: pass, fail, remediated (spec) and, beyond the spec, not_evaluated and muted (fail then means failing and not muted)",
    }),
  ),
  /** Beyond the spec: `true` keeps only findings with resources failing since the previous scan (same as `change=new`). */
  new_only: Schema.optionalKey(Schema.Literals(["true", "false"])),
  severity: Schema.optionalKey(Schema.String.annotate({ description: "Comma-joined severities: critical, high, medium, low" })),
  check: Schema.optionalKey(
    Schema.String.check(Schema.isMaxLength(DetailPaging.maxQueryLength)).annotate({
      description: "Findings whose check id or check text contains this text (case-insensitive)",
    }),
  ),
  region: Schema.optionalKey(
    Schema.String.check(Schema.isMaxLength(DetailPaging.maxQueryLength)).annotate({
      description: "Comma-joined regions: findings with at least one resource in one of them (and `resources_matched` counts)",
    }),
  ),
  q: Schema.optionalKey(
    Schema.String.check(Schema.isMaxLength(DetailPaging.maxQueryLength)).annotate({
      description: "Resource search: findings with at least one resource whose id contains this text (case-insensitive)",
    }),
  ),
  change: Schema.optionalKey(
    Schema.String.annotate({ description: "Comma-joined: new (resources failing since the previous scan), fixed (resources fixed since then)" }),
  ),
  sort: Schema.optionalKey(FindingSort.annotate({ description: "Sort key (default status: failed first); ties keep the default order" })),
  order: Schema.optionalKey(SortOrder.annotate({ description: "asc (default) or desc, of the sort key" })),
  cursor: Schema.optionalKey(
    Schema.String.check(Schema.isMaxLength(512)).annotate({ description: "The previous page's next_cursor: the page after it (takes precedence over page)" }),
  ),
})
export type FindingsQuery = typeof FindingsQuery.Type

/**
 * Beyond the spec: the list's totals, counted by the server over the whole scan in the statement that reads the page.
 * Unit findings: `findings` matches the filters (= pagination.total); `findings_unfiltered` is the scan's findings (of
 * the service when `service_id` is given) without any other filter. Unit resources, over the matching findings:
 * `resources_checked` evaluated, `resources_failing` failing (non-compliant, not remediated, not muted);
 * `resources_matched` the resources matching `region` / `q` (null without those filters).
 */
export const FindingListTotals = Schema.Struct({
  findings: Count,
  findings_unfiltered: Count,
  resources_checked: Count,
  resources_failing: Count,
  resources_matched: Schema.NullOr(Count),
  /** Beyond the spec (list across accounts only): the accounts whose latest completed scans the list spans. */
  accounts: Schema.optionalKey(Count),
})
export type FindingListTotals = typeof FindingListTotals.Type

/** The validation message of a resource search (`q`) without `scan_id`: the search runs within one scan. */
/** Across accounts (issue 31): the deepest page reachable by number; past it, pages are read with `cursor`. */
export const MAX_FLEET_OFFSET = 10_000
export const FLEET_DEEP_PAGE_NEEDS_CURSOR = "Pages past the first 10,000 findings across accounts are read with the cursor (next_cursor)"
export const FLEET_SEARCH_NEEDS_SCAN = "Search by resource within one scan: add scan_id"
/** The validation message of an `account_id` filter that is not a comma-joined list of account ids. */
export const INVALID_ACCOUNT_FILTER = "account_id must be comma-joined account ids"

export const FindingListResponse = Schema.Struct({
  ok: Schema.optionalKey(Schema.Boolean),
  data: Schema.Array(Finding),
  pagination: Pagination,
  totals: Schema.optionalKey(FindingListTotals),
  /** Beyond the spec: the cursor of the next page (null on the last). */
  next_cursor: Schema.optionalKey(Schema.NullOr(Schema.String)),
  /** Beyond the spec: the regions of the scan's resources (of the service when `service_id` is given), for the region filter. */
  regions: Schema.optionalKey(Schema.Array(Schema.String)),
})
export type FindingListResponse = typeof FindingListResponse.Type

export const FindingResponse = withData(Finding)
export type FindingResponse = typeof FindingResponse.Type

/**
 * POST /api/findings/{id}/remediate body: details (the detail row). Beyond the spec (issue 32): `comment`, the
 * requester's reason, kept on the approval request when the account requires approval (ignored otherwise).
 */
export const RemediatePayload = Schema.Struct({
  details: DetailRow,
  comment: Schema.optionalKey(Schema.NullOr(Schema.String.check(Schema.isMaxLength(1000, { message: "Comments are at most 1000 characters" })))),
})
export type RemediatePayload = typeof RemediatePayload.Type

/** Answer (not shown in the spec): the row with its `remediate` record as it stands now. */
export const RemediateResponse = Schema.Struct({
  ok: Schema.Boolean,
  message: Schema.String,
  /** Beyond the spec (issue 32): the remediation's id (GET /api/remediations/{id}, its undo). */
  id: Schema.optionalKey(Schema.Int),
  data: Schema.Struct({ details: DetailRow }),
})
export type RemediateResponse = typeof RemediateResponse.Type

// ---------------------------------------------------------------------------------------------------
// Display rules. (The list's filters run on the server since issue 28: `FindingsQuery`.)

/** Scanning §2: strings over 150 characters are cut to 97 characters plus a length note. */
export const truncateDetailString = (s: string): { readonly text: string; readonly truncated: boolean; readonly length: number } =>
  s.length > DetailDisplay.longStringAbove
    ? { text: `${s.slice(0, DetailDisplay.truncateTo)}...`, truncated: true, length: s.length }
    : { text: s, truncated: false, length: s.length }

/** Scanning §2: array values show up to 5 items. */
export const limitDetailArray = <T>(xs: ReadonlyArray<T>): { readonly items: ReadonlyArray<T>; readonly hidden: number } => ({
  items: xs.slice(0, DetailDisplay.maxArrayItems),
  hidden: Math.max(0, xs.length - DetailDisplay.maxArrayItems),
})

/** Scanning §2: remediation messages over 100 characters collapse with Show more / Show less. */
export const shouldCollapseRemediationMessage = (message: string | null | undefined): boolean =>
  (message ?? "").length > DetailDisplay.remediationCollapseAbove
