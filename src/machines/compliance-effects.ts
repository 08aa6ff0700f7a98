/**
 * What the Compliance screens' machines need from the outside world (issue 14; GET/POST /api/compliance/…), as types.
 * Nothing here performs an effect: the real `ComplianceEffects` are built from the SPA services by
 * `complianceEffectsFrom(services)` (src/services/compliance-api.ts) and reach the views through
 * `<ComplianceEffectsProvider>` (src/views/compliance/compliance-effects-context.tsx); tests hand fakes to
 * `machine.provide()`. Every call rejects with a catalogue error value `{ type, message }` (the server's message, or the
 * flow's text from `ComplianceMessages`), which the machines show verbatim.
 */
import type {
  ComplianceAccount,
  FrameworkSummary,
  ComplianceScan,
  Report,
  ReportId,
  RequirementDetail,
  ScanFramework,
  TrendPoint,
} from "../contracts/compliance.ts"
import type { AccountId, ScanId } from "../contracts/ids.ts"
import type { EffectCall } from "./auth-effects.ts"

/** A download, ready to be saved by the browser: CSV text or PDF bytes. */
export interface DownloadedFile {
  readonly fileName: string
  readonly contentType: string
  readonly content: string | Blob
}

export interface ScanFrameworkRequest {
  readonly scanId: ScanId
  readonly frameworkId: string
}

export interface RequirementRequest extends ScanFrameworkRequest {
  readonly requirementId: string
  readonly page: number
}

export interface ComplianceEffects {
  /** GET /api/compliance/accounts */
  readonly loadAccounts: EffectCall<void, ReadonlyArray<ComplianceAccount>>
  /** GET /api/compliance/scans/{id}: every framework of the scan's provider with its counts. */
  readonly loadScanSummary: EffectCall<{ readonly scanId: ScanId }, { readonly scan: ComplianceScan; readonly frameworks: ReadonlyArray<FrameworkSummary> }>
  /** GET /api/compliance/scans/{id}/frameworks/{framework} */
  readonly loadScanFramework: EffectCall<ScanFrameworkRequest, ScanFramework>
  /** GET /api/compliance/accounts/{id}/frameworks/{framework}/trend */
  readonly loadTrend: EffectCall<{ readonly accountId: AccountId; readonly frameworkId: string }, ReadonlyArray<TrendPoint>>
  /** GET /api/compliance/scans/{id}/frameworks/{framework}/requirements/{requirement}?page= */
  readonly loadRequirement: EffectCall<RequirementRequest, RequirementDetail>
  /** GET …/csv, as a file. */
  readonly downloadCsv: EffectCall<ScanFrameworkRequest, DownloadedFile>
  /** GET /api/compliance/scans/{id}/reports?framework_id=: the newest report of the framework on screen, if any. */
  readonly loadLatestReport: EffectCall<ScanFrameworkRequest, Report | null>
  /** POST /api/compliance/scans/{id}/reports (the framework on screen only). */
  readonly createReport: EffectCall<ScanFrameworkRequest, Report>
  /** GET /api/compliance/reports/{id} */
  readonly getReport: EffectCall<{ readonly reportId: ReportId }, Report>
  /** GET /api/compliance/reports/{id}/download, as a file. */
  readonly downloadReport: EffectCall<{ readonly reportId: ReportId; readonly scanId: ScanId }, DownloadedFile>
}

/** Where the Compliance screens live. */
export const COMPLIANCE_PATH = "/dashboard/compliance"
export const complianceAccountPath = (accountId: number): string => `${COMPLIANCE_PATH}?account=${accountId}`
export const frameworkPath = (scanId: number, frameworkId: string): string =>
  `${COMPLIANCE_PATH}/scans/${scanId}/${encodeURIComponent(frameworkId)}`
export const requirementPath = (scanId: number, frameworkId: string, requirementId: string): string =>
  `${frameworkPath(scanId, frameworkId)}/${encodeURIComponent(requirementId)}`
/** The existing finding page (with its service, as the findings list links it). */
export const findingPagePath = (scanId: number, findingId: number, serviceName: string | null): string =>
  `/dashboard/scans/${scanId}/findings/${findingId}${serviceName === null ? "" : `?service=${encodeURIComponent(serviceName)}`}`
