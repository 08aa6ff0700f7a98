/**
 * Scans (scanning §2, §3, §4, §5, §7): start, list (paginated), detail with per-service rows, export of
 * findings (a file), and (beyond the spec) cancel. Launch-scan validation with the spec's messages.
 */
import { Schema } from "effect"
import { AccountId, CloudProviderId, ScanId, ScanServiceId, ServiceId, UserId } from "./ids.ts"
import { Count, NullableTimestamp, RunStatus, Timestamp, paginated, withData } from "./common.ts"
import { DetailPaging, ExportFormats, PageSizes, ProviderIds } from "./constants.ts"
import { ScanningMessages, ValidationMessages as M } from "./messages.ts"
import { FleetScan } from "./organizations.ts"

/** Scanning §3 service row of a scan. */
export const ScanService = Schema.Struct({
  id: ScanServiceId,
  service_id: ServiceId,
  service_name: Schema.String,
  status: RunStatus,
  last_scanned_at: NullableTimestamp,
  findings_count: Count,
  passed_findings: Count,
  failed_findings: Count,
  /** Beyond the spec: checks that could not decide (findings_count = passed + failed + not evaluated). */
  not_evaluated_findings: Count.annotate({ description: "Beyond the spec: checks that could not decide (findings_count = passed + failed + muted + not evaluated)" }),
  muted_findings: Count.annotate({ description: "Beyond the spec: failing checks whose failing resources are all muted (not in failed_findings)" }),
  /** Beyond the spec: resources failing now that did not fail in the previous completed scan of the account. */
  new_failing: Count,
  /** Beyond the spec: resources that failed in the previous completed scan and pass now or are gone. */
  fixed: Count,
})
export type ScanService = typeof ScanService.Type

/** Scanning §3 scan. */
export const Scan = Schema.Struct({
  id: ScanId,
  account_name: Schema.String,
  account_id: AccountId,
  cloud_provider: Schema.String,
  scan_start: Timestamp,
  scan_end: NullableTimestamp,
  status: RunStatus,
  total_services: Count,
  completed_services: Count,
  findings_count: Count,
  passed_findings: Count,
  failed_findings: Count,
  /** Beyond the spec: checks that could not decide (findings_count = passed + failed + not evaluated). */
  not_evaluated_findings: Count.annotate({ description: "Beyond the spec: checks that could not decide (findings_count = passed + failed + muted + not evaluated)" }),
  muted_findings: Count.annotate({ description: "Beyond the spec: failing checks whose failing resources are all muted (not in failed_findings)" }),
  /** Beyond the spec: sums of the services' `new_failing` and `fixed`. */
  new_failing: Count,
  fixed: Count,
  /** Beyond the spec: the completed scan of the account this one was compared with (null: its first). */
  previous_scan_id: Schema.NullOr(ScanId),
  /** Beyond the spec (issue 13): what the scan covered (null lists: everything enabled) and how it was started. */
  scope: Schema.Struct({ regions: Schema.NullOr(Schema.Array(Schema.String)), services: Schema.NullOr(Schema.Array(Schema.String)) }),
  trigger: Schema.Literals(["manual", "schedule"]),
  services: Schema.Array(ScanService),
})
export type Scan = typeof Scan.Type

/** Scan start payload: user_id, account_id, cloud_provider_id, cloud_provider_name (lower-case). */
export const ScanStartPayload = Schema.Struct({
  user_id: UserId.pipe(Schema.annotateKey({ messageMissingKey: M.userAuthRequired })),
  account_id: AccountId.pipe(Schema.annotateKey({ messageMissingKey: M.selectAccountToScan })),
  cloud_provider_id: CloudProviderId.pipe(Schema.annotateKey({ messageMissingKey: M.invalidCloudProvider })),
  cloud_provider_name: Schema.String.check(
    Schema.isMinLength(1, { message: M.invalidCloudProvider }),
    Schema.isLowercased({ message: M.invalidCloudProvider }),
  ),
  /** Beyond the spec (issue 13): this launch's scope; absent or null: the account's default scope (its schedule's). */
  regions: Schema.optionalKey(
    Schema.NullOr(Schema.Array(Schema.String.check(Schema.isMaxLength(32))).check(Schema.isMaxLength(64))).annotate({
      description: "Beyond the spec: regions to scan (AWS); null or absent: the account's default scope",
    }),
  ),
  services: Schema.optionalKey(
    Schema.NullOr(Schema.Array(Schema.String.check(Schema.isMaxLength(64))).check(Schema.isMaxLength(200))).annotate({
      description: "Beyond the spec: service keys to scan; null or absent: the account's default scope",
    }),
  ),
})
export type ScanStartPayload = typeof ScanStartPayload.Type

/** The started scan; for an organisation (issue 31) the fleet scan, one member scan per included member. */
export const ScanStartResponse = Schema.Struct({ ok: Schema.Boolean, message: Schema.String, data: Schema.Union([Scan, FleetScan]) })
export type ScanStartResponse = typeof ScanStartResponse.Type

/** What the launch dialog knows when the user presses Launch. */
export interface LaunchScanInput {
  readonly canLaunch: boolean
  readonly userId: number | null | undefined
  readonly accountId: number | string | null | undefined
  readonly cloudProviderId: number | null | undefined
  /** Provider ids the client knows (server list ∪ built-in mapping). */
  readonly knownProviderIds?: ReadonlyArray<number>
  readonly cloudProviderName?: string | null | undefined
}

/**
 * Scanning §5/§6 launch rules, in order: permission ('Permission denied: Cannot launch scans'), account
 * selected, provider known, numeric account id, signed-in user. Returns the payload or the one message.
 */
export const checkLaunchScan = (
  input: LaunchScanInput,
): { readonly ok: true; readonly payload: ScanStartPayload } | { readonly ok: false; readonly message: string } => {
  if (!input.canLaunch) return { ok: false, message: ScanningMessages.launchPermissionDenied }
  if (input.accountId === null || input.accountId === undefined || input.accountId === "")
    return { ok: false, message: M.selectAccountToScan }
  const known = input.knownProviderIds ?? Object.values(ProviderIds)
  if (input.cloudProviderId === null || input.cloudProviderId === undefined || !known.includes(input.cloudProviderId))
    return { ok: false, message: M.invalidCloudProvider }
  const accountId = typeof input.accountId === "number" ? input.accountId : /^\d+$/.test(input.accountId) ? Number(input.accountId) : NaN
  if (!Number.isInteger(accountId) || accountId <= 0) return { ok: false, message: M.invalidAccountId }
  if (input.userId === null || input.userId === undefined || !Number.isInteger(input.userId) || input.userId <= 0)
    return { ok: false, message: M.userAuthRequired }
  const name =
    input.cloudProviderName ??
    (Object.keys(ProviderIds) as Array<keyof typeof ProviderIds>).find((k) => ProviderIds[k] === input.cloudProviderId) ??
    ""
  return {
    ok: true,
    payload: {
      user_id: input.userId as UserId,
      account_id: accountId as AccountId,
      cloud_provider_id: input.cloudProviderId as CloudProviderId,
      cloud_provider_name: name.toLowerCase(),
    },
  }
}

/** Scanning §5: starting a scan from the scan list needs at least one account. */
export const checkCanStartFromList = (accountCount: number): string | undefined =>
  accountCount > 0 ? undefined : M.needAccountBeforeScan

/** GET /api/scans?page&page_size (defaults 1 and 20). */
export const ScansQuery = Schema.Struct({
  page: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
  page_size: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100 }))),
})
export type ScansQuery = typeof ScansQuery.Type
export const DEFAULT_SCANS_QUERY = { page: 1, page_size: PageSizes.scans } as const

export const ScanListResponse = paginated(Scan)
export type ScanListResponse = typeof ScanListResponse.Type

export const ScanResponse = withData(Scan)
export type ScanResponse = typeof ScanResponse.Type

export const CancelScanResponse = Schema.Struct({ ok: Schema.Boolean, message: Schema.String, data: Scan })
export type CancelScanResponse = typeof CancelScanResponse.Type

// ---------------------------------------------------------------------------------------------------
// Export

export const ExportFormat = Schema.Literals(ExportFormats)
export type ExportFormat = typeof ExportFormat.Type

/**
 * GET /api/scans/{id}/export?format=csv|json|ocsf[&service_id][&status=a,b][&severity=a,b]; beyond the spec, the findings
 * list's other filters (issue 28 item 5: check, change, region, q), so an export holds the findings the list shows —
 * each with all its rows.
 */
const exportText = (description: string) =>
  Schema.optionalKey(Schema.String.check(Schema.isMaxLength(DetailPaging.maxQueryLength)).annotate({ description }))
export const ExportQuery = Schema.Struct({
  format: ExportFormat,
  service_id: Schema.optionalKey(ServiceId),
  status: Schema.optionalKey(Schema.String),
  severity: Schema.optionalKey(Schema.String),
  check: exportText("Findings whose check id or check text contains this text (case-insensitive)"),
  change: exportText("Comma-joined: new, fixed (since the previous scan)"),
  region: exportText("Comma-joined regions: findings with at least one resource in one of them"),
  q: exportText("Findings with at least one resource whose id contains this text (case-insensitive)"),
})
export type ExportQuery = typeof ExportQuery.Type

/** Content type of each export format. */
export const EXPORT_CONTENT_TYPES: { readonly [K in ExportFormat]: string } = {
  csv: "text/csv; charset=utf-8",
  json: "application/json",
  ocsf: "application/json",
}

/** Scanning §7: the file name is made of the scan id, 'findings' and a timestamp. */
export const exportFileName = (scanId: number, format: ExportFormat, at: Date): string => {
  const stamp = at.toISOString().replace(/[:.]/g, "-")
  const ext = format === "csv" ? "csv" : "json"
  return `scan-${scanId}-findings-${stamp}${format === "ocsf" ? ".ocsf" : ""}.${ext}`
}

/** Comma-joined filter list for the query string (`status=fail,remediated`). */
export const joinFilter = (values: ReadonlyArray<string>): string | undefined =>
  values.length === 0 ? undefined : values.join(",")
/** Inverse of `joinFilter`. */
export const splitFilter = (value: string | undefined): ReadonlyArray<string> =>
  value === undefined ? [] : value.split(",").map((s) => s.trim()).filter((s) => s !== "")

