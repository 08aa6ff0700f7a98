/** Sample compliance answers for the Compliance machine and view tests (shapes from src/contracts/compliance.ts). */
import type {
  ComplianceAccount,
  ComplianceScan,
  Framework,
  Report,
  ReportId,
  RequirementDetail,
  RequirementResult,
  ScanFramework,
  TrendPoint,
} from "../../src/contracts/compliance.ts"
import type { AccountId, FindingId, ScanId } from "../../src/contracts/ids.ts"
import type { ScanSummary } from "../../src/machines/compliance-overview.machine.ts"

export const C_SCAN_ID = 21 as ScanId
export const C_ACCOUNT_ID = 4 as AccountId

export const complianceAccount = (id: number, overrides: Partial<ComplianceAccount> = {}): ComplianceAccount => ({
  account_id: id as AccountId,
  account_name: `Account ${id}`,
  cloud_account_id: `1111222233${String(id).padStart(2, "0")}`,
  provider: "aws",
  latest_scan_id: C_SCAN_ID,
  latest_scan_end: "2026-11-25T10:00:00.000Z",
  completed_scans: 2,
  ...overrides,
})

export const complianceScan: ComplianceScan = {
  id: C_SCAN_ID,
  account_id: C_ACCOUNT_ID,
  account_name: "Production",
  cloud_account_id: "111122223333",
  provider: "aws",
  scan_start: "2026-11-25T09:59:00.000Z",
  scan_end: "2026-11-25T10:00:00.000Z",
}

export const framework = (id = "cis-aws-3.0.0"): Framework => ({
  id,
  name: "CIS Amazon Web Services Foundations Benchmark",
  version: "3.0.0",
  provider: "aws",
  cloud_provider_id: 1,
  description: "CIS AWS Foundations Benchmark v3.0.0",
  requirements_total: 4,
  requirements_mapped: 3,
  requirements_manual: 1,
})

const counts = { passed: 1, passed_with_exceptions: 0, failed: 1, not_evaluated: 0, manual: 1, not_applicable: 1, total: 4, score: 50 }

export const summary: ScanSummary = {
  scan: complianceScan,
  frameworks: [{ framework: framework(), counts }, { framework: { ...framework("aws-fsbp"), name: "AWS Foundational Security Best Practices" }, counts }],
}

export const requirement = (id: string, overrides: Partial<RequirementResult> = {}): RequirementResult => ({
  id,
  section_id: id.split(".")[0]!,
  title: `Requirement ${id}`,
  assessment: "automated",
  status: "passed",
  manual_reason: null,
  checks_total: 1,
  checks_failed: 0,
  checks_not_evaluated: 0,
  checks_with_exceptions: 0,
  resources_checked: 3,
  resources_failing: 0,
  resources_muted: 0,
  not_evaluated_reasons: [],
  exceptions: [],
  ...overrides,
})

export const scanFramework: ScanFramework = {
  scan: complianceScan,
  framework: framework(),
  sections: [
    { id: "1", title: "Identity and Access Management", parent_id: null },
    { id: "2", title: "Storage", parent_id: null },
    { id: "2.1", title: "Simple Storage Service (S3)", parent_id: "2" },
  ],
  counts,
  requirements: [
    requirement("1.3", { status: "manual", assessment: "manual", manual_reason: "No API", checks_total: 0, resources_checked: 0 }),
    requirement("1.10", { title: "Ensure MFA is enabled for console users", status: "failed", checks_failed: 1, resources_failing: 3, resources_muted: 1 }),
    requirement("2.1.1", { section_id: "2.1", status: "passed" }),
    requirement("2.1.4", { section_id: "2.1", status: "not_applicable", resources_checked: 0 }),
  ],
}

export const trend: ReadonlyArray<TrendPoint> = [
  { scan_id: 20 as ScanId, scan_end: "2026-11-24T10:00:00.000Z", counts: { ...counts, passed: 0, failed: 2, score: 0 } },
  { scan_id: C_SCAN_ID, scan_end: "2026-11-25T10:00:00.000Z", counts },
]

export const report = (status: Report["status"], overrides: Partial<Report> = {}): Report => ({
  id: 5 as ReportId,
  scan_id: C_SCAN_ID,
  framework_ids: ["cis-aws-3.0.0"],
  status,
  progress: status === "completed" ? 100 : status === "running" ? 40 : 0,
  pages: status === "completed" ? 12 : null,
  bytes: status === "completed" ? 40_000 : null,
  error: status === "failed" ? "The report could not be generated" : null,
  created_at: "2026-11-25T10:05:00.000Z",
  finished_at: status === "completed" || status === "failed" ? "2026-11-25T10:05:03.000Z" : null,
  ...overrides,
})

export const requirementDetail = (page = 1, totalPages = 2): RequirementDetail => ({
  scan: complianceScan,
  framework: framework(),
  requirement: scanFramework.requirements[1]!,
  checks: [
    {
      check_id: "iam_user_mfa_enabled_console_access",
      title: "Console users have MFA",
      severity: "high",
      finding_id: 77 as FindingId,
      status: "fail",
      outcome: "failed",
      not_evaluated_reason: null,
      service_name: "IAM",
      resources_checked: 5,
      resources_failing: 3,
      resources_remediated: 0,
      resources_muted: 1,
    },
  ],
  failing: [
    { finding_id: 77 as FindingId, check_id: "iam_user_mfa_enabled_console_access", result_seq: (page - 1) * 2, resource_id: `user-${page}-a`, region: "global", reason: "No MFA", muted: page === 1, muted_reason: page === 1 ? "Break-glass user" : null },
  ],
  failing_pagination: { page, page_size: 2, total: 3, total_pages: totalPages },
})

export const csvFile = { fileName: "scan-21-cis-aws-3.0.0-compliance.csv", contentType: "text/csv", content: "framework\r\n" }
export const pdfFile = { fileName: "scan-21-compliance-report.pdf", contentType: "application/pdf", content: "%PDF-1.3" }
