/**
 * Compliance and reports (issue 14): frameworks as data (CIS AWS v3.0.0 / v7.0.0, CIS GCP v4.0.0, CIS Azure v3.0.0 /
 * v4.0.0, AWS Foundational Security Best Practices), each requirement mapped to checks or marked manual; per scan the
 * status of every requirement (passed, failed, manual, not applicable) with a score; the score's trend over an
 * account's scans; a drill-down requirement → checks → failing resources; a framework CSV and a PDF report made by a job.
 *
 * Status of a requirement in a scan: `requirementStatus` of src/contracts/outcomes.ts, the one rule the server, the
 * CSV, the PDF and the SPA share (docs/outcomes.md): manual, failed, not evaluated (a mapped check could not decide,
 * with the reasons), passed with exceptions (its only failing resources are muted, with each mute's reason, expiry and
 * author), not applicable (nothing in scope), passed.
 * Score: (passed + passed with exceptions) / (those + failed), as a whole percentage; null when nothing was decided.
 *
 * Muting (an accepted risk, issue 13): a muted failing resource stays evidence, shown as muted with its rule's reason,
 * expiry and author as they were when the scan was the account's latest (server/posture/algebra.ts).
 */
import { Schema } from "effect"
import { Count, NullableTimestamp, Pagination, Timestamp, withData } from "./common.ts"
import { FindingOutcome as FindingOutcomeSchema, Severity } from "./findings.ts"
import { AccountId, FindingId, ScanId } from "./ids.ts"
import { CHECK_OUTCOMES, REQUIREMENT_STATUSES } from "./outcomes.ts"

const PositiveInt = Schema.Int.check(Schema.isGreaterThan(0))

export const ReportId = PositiveInt.pipe(Schema.brand("ReportId"))
export type ReportId = typeof ReportId.Type

/** "cis-aws-3.0.0", "aws-fsbp", … */
export const FrameworkId = Schema.String.check(Schema.isPattern(/^[a-z0-9][a-z0-9.-]{0,63}$/)).annotate({
  description: "Framework id, e.g. cis-aws-3.0.0",
})
export type FrameworkId = typeof FrameworkId.Type

/** A requirement id as the framework numbers it ("1.10", "2.1.4", "IAM.1"). */
export const RequirementId = Schema.String.check(Schema.isPattern(/^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/))
export type RequirementId = typeof RequirementId.Type

export const COMPLIANCE_PROVIDERS = ["aws", "gcp", "azure"] as const
export const ComplianceProvider = Schema.Literals(COMPLIANCE_PROVIDERS)
export type ComplianceProvider = typeof ComplianceProvider.Type

export { REQUIREMENT_STATUSES, REQUIREMENT_STATUS_LABELS, countStatuses, requirementStatus, scoreOf } from "./outcomes.ts"
export type { RequirementCheckFacts as CheckOutcome } from "./outcomes.ts"
export const RequirementStatus = Schema.Literals(REQUIREMENT_STATUSES)
export type RequirementStatus = typeof RequirementStatus.Type

/** How the benchmark itself classes the requirement (CIS "Automated" / "Manual"). */
export const Assessment = Schema.Literals(["automated", "manual"])
export type Assessment = typeof Assessment.Type

export const Framework = Schema.Struct({
  id: FrameworkId,
  name: Schema.String,
  version: Schema.String,
  provider: ComplianceProvider,
  cloud_provider_id: PositiveInt,
  description: Schema.String,
  requirements_total: Count,
  /** Requirements with at least one mapped check. */
  requirements_mapped: Count,
  /** Requirements without a check (always "manual" in a scan). */
  requirements_manual: Count,
})
export type Framework = typeof Framework.Type

export const FrameworkSection = Schema.Struct({
  id: Schema.String,
  title: Schema.String,
  /** Null for a top-level section. */
  parent_id: Schema.NullOr(Schema.String),
})
export type FrameworkSection = typeof FrameworkSection.Type

export const Requirement = Schema.Struct({
  id: RequirementId,
  section_id: Schema.String,
  title: Schema.String,
  assessment: Assessment,
  /** Check ids that decide it; empty for a manual requirement. */
  checks: Schema.Array(Schema.String),
  /** Why no check decides it (manual requirements only). */
  manual_reason: Schema.NullOr(Schema.String),
})
export type Requirement = typeof Requirement.Type

export const FrameworkListResponse = withData(Schema.Array(Framework))
export type FrameworkListResponse = typeof FrameworkListResponse.Type

export const FrameworkDetail = Schema.Struct({
  framework: Framework,
  sections: Schema.Array(FrameworkSection),
  requirements: Schema.Array(Requirement),
})
export type FrameworkDetail = typeof FrameworkDetail.Type
export const FrameworkDetailResponse = withData(FrameworkDetail)

// ---------------------------------------------------------------------------------------------------
// Per scan

export const StatusCounts = Schema.Struct({
  passed: Count,
  /** Passed only because every open failing resource of its checks is muted (an accepted risk). */
  passed_with_exceptions: Count,
  failed: Count,
  /** A mapped check could not decide. */
  not_evaluated: Count,
  manual: Count,
  /** Nothing in scope. */
  not_applicable: Count,
  total: Count,
  /** (passed + passed with exceptions) / (those + failed) as a whole percentage; null when no requirement was decided. */
  score: Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100 }))),
})
export type StatusCounts = typeof StatusCounts.Type

/** The scan a compliance answer is about. */
export const ComplianceScan = Schema.Struct({
  id: ScanId,
  account_id: AccountId,
  account_name: Schema.String,
  cloud_account_id: Schema.String,
  provider: ComplianceProvider,
  scan_start: Timestamp,
  scan_end: NullableTimestamp,
})
export type ComplianceScan = typeof ComplianceScan.Type

export const FrameworkSummary = Schema.Struct({ framework: Framework, counts: StatusCounts })
export type FrameworkSummary = typeof FrameworkSummary.Type

export const ScanComplianceResponse = withData(Schema.Struct({ scan: ComplianceScan, frameworks: Schema.Array(FrameworkSummary) }))
export type ScanComplianceResponse = typeof ScanComplianceResponse.Type

/** Why a mapped check could not decide (a not evaluated requirement carries one per such check). */
export const NotEvaluatedReason = Schema.Struct({ check_id: Schema.String, reason: Schema.String })
export type NotEvaluatedReason = typeof NotEvaluatedReason.Type

/**
 * A mute behind an exception, as it stood when the scan was the account's latest (reason, expiry and author are kept
 * with the scan: a later edit or deletion of the rule does not change them).
 */
export const MuteException = Schema.Struct({
  check_id: Schema.String,
  rule_id: Schema.Int,
  reason: Schema.String,
  expires_at: NullableTimestamp,
  /** Email of who set the rule as it was applied; null when unknown. */
  author: Schema.NullOr(Schema.String),
  /** Muted resources of the check this rule covers. */
  resources: Count,
})
export type MuteException = typeof MuteException.Type

export const RequirementResult = Schema.Struct({
  id: RequirementId,
  section_id: Schema.String,
  title: Schema.String,
  assessment: Assessment,
  status: RequirementStatus,
  manual_reason: Schema.NullOr(Schema.String),
  checks_total: Count,
  checks_failed: Count,
  /** Mapped checks that could not decide. */
  checks_not_evaluated: Count,
  /** Mapped checks passed with exceptions. */
  checks_with_exceptions: Count,
  resources_checked: Count,
  /** Failing resources: non-compliant, not remediated, not muted. */
  resources_failing: Count,
  /** Muted resources: non-compliant, not remediated, muted (not in `resources_failing`). */
  resources_muted: Count,
  not_evaluated_reasons: Schema.Array(NotEvaluatedReason),
  exceptions: Schema.Array(MuteException),
})
export type RequirementResult = typeof RequirementResult.Type

export const ScanFramework = Schema.Struct({
  scan: ComplianceScan,
  framework: Framework,
  sections: Schema.Array(FrameworkSection),
  counts: StatusCounts,
  requirements: Schema.Array(RequirementResult),
})
export type ScanFramework = typeof ScanFramework.Type
export const ScanFrameworkResponse = withData(ScanFramework)
export type ScanFrameworkResponse = typeof ScanFrameworkResponse.Type

export const RequirementCheck = Schema.Struct({
  check_id: Schema.String,
  title: Schema.String,
  severity: Severity,
  /** The scan's finding of this check; null when the check did not run in the scan. */
  finding_id: Schema.NullOr(FindingId),
  /** The check's finding outcome in the scan (not_evaluated: it could not decide); null when it did not run. */
  status: Schema.NullOr(FindingOutcomeSchema),
  /** The check's outcome (docs/outcomes.md); null when it did not run. */
  outcome: Schema.NullOr(Schema.Literals(CHECK_OUTCOMES)),
  not_evaluated_reason: Schema.NullOr(Schema.String),
  service_name: Schema.NullOr(Schema.String),
  resources_checked: Count,
  /** Failing resources: non-compliant, not remediated, not muted. */
  resources_failing: Count,
  resources_remediated: Count,
  resources_muted: Count,
})
export type RequirementCheck = typeof RequirementCheck.Type

export const FailingResource = Schema.Struct({
  finding_id: FindingId,
  check_id: Schema.String,
  /** The row's position in its finding (as on the finding page). */
  result_seq: Count,
  resource_id: Schema.String,
  region: Schema.String,
  reason: Schema.String,
  muted: Schema.Boolean,
  /** The mute rule's reason, expiry and author, when muted (as they stood when the scan was the latest). */
  muted_reason: Schema.NullOr(Schema.String),
  muted_expires_at: Schema.optionalKey(NullableTimestamp),
  muted_author: Schema.optionalKey(Schema.NullOr(Schema.String)),
})
export type FailingResource = typeof FailingResource.Type

export const RequirementDetail = Schema.Struct({
  scan: ComplianceScan,
  framework: Framework,
  requirement: RequirementResult,
  checks: Schema.Array(RequirementCheck),
  failing: Schema.Array(FailingResource),
  failing_pagination: Pagination,
})
export type RequirementDetail = typeof RequirementDetail.Type
export const RequirementDetailResponse = withData(RequirementDetail)
export type RequirementDetailResponse = typeof RequirementDetailResponse.Type

/** Query integers are coerced from their string form by the HttpApi builder, as in the other groups. */
const QueryInt = (min: number, max: number) => Schema.Int.check(Schema.isBetween({ minimum: min, maximum: max }))

export const COMPLIANCE_FAILING_PAGE_SIZE = 25
export const RequirementDetailQuery = Schema.Struct({
  page: Schema.optionalKey(QueryInt(1, 1_000_000)),
  page_size: Schema.optionalKey(QueryInt(1, 200)),
})
export type RequirementDetailQuery = typeof RequirementDetailQuery.Type

// ---------------------------------------------------------------------------------------------------
// Per account

export const ComplianceAccount = Schema.Struct({
  account_id: AccountId,
  account_name: Schema.String,
  cloud_account_id: Schema.String,
  provider: ComplianceProvider,
  /** The latest completed scan; null when the account has none yet. */
  latest_scan_id: Schema.NullOr(ScanId),
  latest_scan_end: NullableTimestamp,
  completed_scans: Count,
})
export type ComplianceAccount = typeof ComplianceAccount.Type
export const ComplianceAccountsResponse = withData(Schema.Array(ComplianceAccount))
export type ComplianceAccountsResponse = typeof ComplianceAccountsResponse.Type

export const TrendPoint = Schema.Struct({ scan_id: ScanId, scan_end: Timestamp, counts: StatusCounts })
export type TrendPoint = typeof TrendPoint.Type
export const TREND_DEFAULT_LIMIT = 20
export const TrendQuery = Schema.Struct({ limit: Schema.optionalKey(QueryInt(1, 100)) })
export const TrendResponse = withData(
  Schema.Struct({ account_id: AccountId, framework_id: FrameworkId, points: Schema.Array(TrendPoint) }),
)
export type TrendResponse = typeof TrendResponse.Type

// ---------------------------------------------------------------------------------------------------
// Reports

export const REPORT_STATUSES = ["pending", "running", "completed", "failed"] as const
export const ReportStatus = Schema.Literals(REPORT_STATUSES)
export type ReportStatus = typeof ReportStatus.Type

export const Report = Schema.Struct({
  id: ReportId,
  scan_id: ScanId,
  framework_ids: Schema.Array(FrameworkId),
  status: ReportStatus,
  /** 0–100. */
  progress: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100 })),
  pages: Schema.NullOr(Count),
  bytes: Schema.NullOr(Count),
  error: Schema.NullOr(Schema.String),
  created_at: Timestamp,
  finished_at: NullableTimestamp,
})
export type Report = typeof Report.Type
export const ReportResponse = withData(Report)
export type ReportResponse = typeof ReportResponse.Type
/** A scan's reports, newest first (at most the five kept); `framework_id` keeps those that include it. */
export const ReportListQuery = Schema.Struct({ framework_id: Schema.optionalKey(FrameworkId) })
export type ReportListQuery = typeof ReportListQuery.Type
export const ReportListResponse = withData(Schema.Array(Report))
export type ReportListResponse = typeof ReportListResponse.Type

/** The frameworks to report on (1–10, each of the scan's provider). Required: a misspelt key is a 400, not a surprise. */
export const CreateReportPayload = Schema.Struct({
  framework_ids: Schema.Array(FrameworkId).check(Schema.isMinLength(1), Schema.isMaxLength(10)),
})
export type CreateReportPayload = typeof CreateReportPayload.Type

export const REPORT_CONTENT_TYPE = "application/pdf"
export const COMPLIANCE_CSV_CONTENT_TYPE = "text/csv"

/** Download names: `scan-<id>-<framework>-compliance.csv`, `scan-<id>-compliance-report.pdf`. */
export const complianceCsvFileName = (scanId: number, frameworkId: string): string => `scan-${scanId}-${frameworkId}-compliance.csv`
export const reportFileName = (scanId: number): string => `scan-${scanId}-compliance-report.pdf`

// ---------------------------------------------------------------------------------------------------
// The rule (shared by server, CSV, PDF and SPA)

/** The compliance area's answers (errors in the catalogue shape; texts here, beside the calls that use them). */
export const ComplianceMessages = {
  frameworkNotFound: "Framework not found",
  frameworkNotForProvider: "This framework does not apply to the scan's cloud provider",
  requirementNotFound: "Requirement not found in this framework",
  scanNotFound: "Scan not found",
  accountNotFound: "Account not found",
  scanNotCompleted: "Compliance is available once the scan has completed",
  reportNotFound: "Report not found",
  reportNotReady: "The report is not ready yet",
  reportQueued: "Report generation started",
  reportFailed: "The report could not be generated",
  loadFailed: "Failed to load compliance",
  csvFailed: "Failed to download the compliance CSV",
  reportRequestFailed: "Failed to start the report",
  downloadFailed: "Failed to download the report",
} as const
