/**
 * Fakes for the scanning machines: contract-shaped samples (providers, accounts, scans, services, findings, detail
 * rows), decoded through the contract schemas so a sample that drifts from the contract fails loudly, and a toast
 * recorder for the `notify` environment action.
 */
import { Schema } from "effect"
import { Account, AccountDetail } from "../../src/contracts/accounts.ts"
import { Finding, type DetailRow } from "../../src/contracts/findings.ts"
import type { MuteRule, ScanSchedule } from "../../src/contracts/posture.ts"
import type { AccountId, ScanId } from "../../src/contracts/ids.ts"
import { CloudProvider } from "../../src/contracts/providers.ts"
import { Scan, ScanService, type ScanListResponse } from "../../src/contracts/scans.ts"
import type { NavigateParams, NotifyParams } from "../../src/machines/auth-effects.ts"
import type { ScanViewer } from "../../src/machines/scan-effects.ts"
import type { UserId } from "../../src/contracts/ids.ts"

const decode = <S extends Schema.Top>(schema: S) => (value: unknown): S["Type"] =>
  Schema.decodeUnknownSync(schema as unknown as Schema.Decoder<S["Type"]>)(value)

export const providers: ReadonlyArray<CloudProvider> = [
  { id: 1, name: "AWS", is_enable: true },
  { id: 2, name: "GCP", is_enable: false },
  { id: 3, name: "Azure", is_enable: false },
].map(decode(CloudProvider))

export const account = (id: number, overrides: Record<string, unknown> = {}): Account =>
  decode(Account)({
    id,
    account_name: `Production ${id}`,
    account_id: `12345678901${id}`,
    cloud_provider_id: 1,
    cloud_provider_name: "AWS",
    last_scan_date: "2025-03-01T10:00:00.000Z",
    total_scans: 2,
    failed_findings: 3,
    status: "completed",
    ...overrides,
  })

export const accountDetail = (id: number, overrides: Record<string, unknown> = {}): AccountDetail =>
  decode(AccountDetail)({
    id,
    account_name: `Production ${id}`,
    cloud_provider_name: "AWS",
    cloud_provider_id: 1,
    created_at: "2025-02-01T09:00:00.000Z",
    credential_data: { aws_account_id: "123456789012", access_key: "AKIAEXAMPLE", secret_key: "••••••••••••••••" },
    recent_scans: [
      { id: 11, status: "completed", scan_start: "2025-03-01T10:00:00.000Z", scan_end: "2025-03-01T10:05:00.000Z", findings_count: 40, failed_findings: 3, passed_findings: 35, muted_findings: 1, not_evaluated_findings: 1 },
    ],
    ...overrides,
  })

export const service = (id: number, name: string, overrides: Record<string, unknown> = {}): ScanService =>
  decode(ScanService)({
    id,
    service_id: id + 100,
    service_name: name,
    status: "completed",
    last_scanned_at: "2025-03-01T10:04:00.000Z",
    findings_count: 10,
    passed_findings: 8,
    failed_findings: 2,
    not_evaluated_findings: 0,
    muted_findings: 0,
    new_failing: 0,
    fixed: 0,
    ...overrides,
  })

export const scan = (id: number, overrides: Record<string, unknown> = {}): Scan =>
  decode(Scan)({
    id,
    account_name: "Production 1",
    account_id: 1,
    cloud_provider: "aws",
    scan_start: "2025-03-01T10:00:00.000Z",
    scan_end: "2025-03-01T10:05:00.000Z",
    status: "completed",
    total_services: 2,
    completed_services: 2,
    findings_count: 20,
    passed_findings: 16,
    failed_findings: 4,
    not_evaluated_findings: 0,
    muted_findings: 0,
    new_failing: 0,
    fixed: 0,
    previous_scan_id: null,
    scope: { regions: null, services: null },
    trigger: "manual",
    services: [service(1, "s3"), service(2, "iam", { status: "running" })],
    ...overrides,
  })

export const scanPage = (scans: ReadonlyArray<Scan>, page: number, totalPages: number, total = scans.length): ScanListResponse => ({
  ok: true,
  data: scans,
  pagination: { page, total_pages: totalPages, total, page_size: 20 },
})

export const nonCompliantRow: DetailRow = { resource_id: "bucket-a", region: "us-east-1", compliance: false }
export const compliantRow: DetailRow = { resource_id: "bucket-b", region: "us-east-1", compliance: true }
export const pendingRow: DetailRow = {
  resource_id: "bucket-c",
  region: "us-east-1",
  compliance: false,
  remediate: { status: "pending", message: null, attempted_at: "2025-03-01T11:00:00.000Z", attempted_by: 7 as UserId },
}
export const failedRow = (message = "Access denied while applying the fix"): DetailRow => ({
  resource_id: "bucket-d",
  region: "us-east-1",
  compliance: false,
  remediate: { status: "failed", message, attempted_at: "2025-03-01T11:00:00.000Z", attempted_by: { id: 7 as UserId, email: "ada@example.com" } },
})
export const remediatedRow = (row: DetailRow): DetailRow => ({
  ...row,
  remediate: { status: "remediated", message: "Public access blocked", attempted_at: "2025-03-01T11:01:00.000Z", attempted_by: 7 as UserId },
})

export const finding = (id: number, overrides: Record<string, unknown> = {}): Finding =>
  decode(Finding)({
    id,
    scan_id: 11,
    service_id: 101,
    description: "S3 bucket allows public access",
    severity: "high",
    status: "fail",
    // The outcome follows an overridden status unless given (a not-evaluated finding overrides both).
    outcome: overrides["status"] ?? "fail",
    not_evaluated_reason: null,
    created_at: "2025-03-01T10:04:00.000Z",
    service_name: "s3",
    account_name: "Production 1",
    account_id: 1,
    aws_account_id: "123456789012",
    cloud_provider_name: "AWS",
    policy_check: "s3_bucket_public_access",
    field_labels: { resource_id: "Bucket", region: "Region" },
    details: [nonCompliantRow, compliantRow],
    check_id: "s3.public_access",
    remediation: "Block public access on the bucket.",
    compliance: [],
    resources_checked: 2,
    resources_failing: 1,
    resources_remediated: 0,
    resources_new: 0,
    resources_fixed: 0,
    resources_muted: 0,
    muted: false,
    ...overrides,
  })

/** A finding detail page: `page` of `totalPages` (50 rows a page) holding `details`. */
export const findingPage = (id: number, page: number, totalPages: number, overrides: Record<string, unknown> = {}): Finding =>
  finding(id, {
    resources_checked: totalPages * 50,
    resources_failing: totalPages * 25,
    details_pagination: { page, page_size: 50, total: totalPages * 50, total_pages: totalPages, status: null, q: null },
    ...overrides,
  })

export const viewer = (overrides: Partial<ScanViewer> = {}): ScanViewer => ({
  userId: 7 as UserId,
  canLaunchScans: true,
  canRemediate: true,
  ...overrides,
})

export const SCAN_ID = 11 as ScanId
export const ACCOUNT_ID = 1 as AccountId

/** Records the environment actions (`notify`, `navigate`, `saveFile`). */
export const environment = () => {
  const toasts: NotifyParams[] = []
  const navigations: string[] = []
  const files: unknown[] = []
  return {
    toasts,
    navigations,
    files,
    notify: (_: unknown, params: NotifyParams) => void toasts.push(params),
    navigate: (_: unknown, params: NavigateParams) => void navigations.push(params.to),
    saveFile: (_: unknown, params: unknown) => void files.push(params),
  }
}

// ---------------------------------------------------------------------------------------------------
// Posture (issue 13)

export const mutedRow: DetailRow = { ...nonCompliantRow, muted: { rule_id: 3, reason: "Accepted risk" } }

export const muteRule = (id: number, overrides: Partial<MuteRule> = {}): MuteRule => ({
  id,
  account_id: ACCOUNT_ID,
  account_name: "Production 1",
  check_id: "s3.public_access",
  resource_pattern: null,
  tag_key: null,
  tag_value: null,
  reason: "Accepted risk",
  expires_at: null,
  active: true,
  created_at: "2025-03-01T10:04:00.000Z",
  created_by: "owner@example.com",
  updated_at: "2025-03-01T10:04:00.000Z",
  updated_by: "owner@example.com",
  ...overrides,
})

export const schedule = (overrides: Partial<ScanSchedule> = {}): ScanSchedule => ({
  account_id: ACCOUNT_ID,
  frequency: "off",
  time_of_day: "02:00",
  weekday: 1,
  day_of_month: 1,
  timezone: "UTC",
  regions: null,
  services: null,
  next_run_at: null,
  last_run_at: null,
  last_scan_id: null,
  last_error: null,
  updated_at: null,
  updated_by: null,
  available_regions: ["eu-west-1", "us-east-1"],
  available_services: [{ key: "iam", name: "IAM" }, { key: "s3", name: "S3" }],
  ...overrides,
})
