/**
 * Typed calls for the compliance endpoints (issue 14; `ComplianceGroup` in src/contracts/api.ts) on the shared API
 * client, and the Compliance screens' effects built from them (`complianceEffectsFrom(services)`, handed to
 * `<ComplianceEffectsProvider>` by the composition root). Answers are decoded with the contract's schemas; failures
 * reject with the client's catalogue error (the server's message for 4xx). Downloads come through the same client
 * (auth, refresh, retries): the CSV arrives as text, the PDF as a Blob; each is named as the server names it.
 */
import { Schema } from "effect"
import {
  ComplianceAccountsResponse,
  complianceCsvFileName,
  COMPLIANCE_CSV_CONTENT_TYPE,
  REPORT_CONTENT_TYPE,
  reportFileName,
  ReportListResponse,
  ReportResponse,
  RequirementDetailResponse,
  ScanComplianceResponse,
  ScanFrameworkResponse,
  TrendResponse,
} from "../contracts/compliance.ts"
import type { ComplianceEffects } from "../machines/compliance-effects.ts"
import { endpoint, pathWith, type ApiClient, type Endpoint } from "./api-client.ts"
import type { AppServices } from "./app-services.ts"

export const COMPLIANCE_ENDPOINTS = {
  accounts: endpoint({ method: "GET", path: "/api/compliance/accounts", response: ComplianceAccountsResponse }),
  scan: endpoint({ method: "GET", path: "/api/compliance/scans/:scan_id", response: ScanComplianceResponse }),
  scanFramework: endpoint({ method: "GET", path: "/api/compliance/scans/:scan_id/frameworks/:framework_id", response: ScanFrameworkResponse }),
  requirement: endpoint({
    method: "GET",
    path: "/api/compliance/scans/:scan_id/frameworks/:framework_id/requirements/:requirement_id",
    response: RequirementDetailResponse,
  }),
  trend: endpoint({ method: "GET", path: "/api/compliance/accounts/:account_id/frameworks/:framework_id/trend", response: TrendResponse }),
  /** The body is a file (text/csv). */
  csv: endpoint({ method: "GET", path: "/api/compliance/scans/:scan_id/frameworks/:framework_id/csv", response: Schema.Unknown }),
  reports: endpoint({ method: "GET", path: "/api/compliance/scans/:scan_id/reports", response: ReportListResponse }),
  createReport: endpoint({ method: "POST", path: "/api/compliance/scans/:scan_id/reports", response: ReportResponse }),
  report: endpoint({ method: "GET", path: "/api/compliance/reports/:report_id", response: ReportResponse }),
  /** The body is a file (application/pdf, a Blob). */
  downloadReport: endpoint({ method: "GET", path: "/api/compliance/reports/:report_id/download", response: Schema.Unknown }),
} satisfies Record<string, Endpoint<unknown>>

const at = <A>(e: Endpoint<A>, params: Readonly<Record<string, string | number>>): Endpoint<A> => ({ ...e, path: pathWith(e.path, params) })
const signalOpt = (signal: AbortSignal | undefined) => (signal === undefined ? {} : { signal })

export const complianceEffectsFrom = (services: Pick<AppServices, "client">): ComplianceEffects => {
  const client: ApiClient = services.client
  const E = COMPLIANCE_ENDPOINTS
  return {
    loadAccounts: (_, signal) => client.request(E.accounts, signalOpt(signal)).then((r) => r.data),
    loadScanSummary: ({ scanId }, signal) => client.request(at(E.scan, { scan_id: scanId }), signalOpt(signal)).then((r) => r.data),
    loadScanFramework: ({ scanId, frameworkId }, signal) =>
      client.request(at(E.scanFramework, { scan_id: scanId, framework_id: frameworkId }), signalOpt(signal)).then((r) => r.data),
    loadTrend: ({ accountId, frameworkId }, signal) =>
      client.request(at(E.trend, { account_id: accountId, framework_id: frameworkId }), signalOpt(signal)).then((r) => r.data.points),
    loadRequirement: ({ scanId, frameworkId, requirementId, page }, signal) =>
      client
        .request(at(E.requirement, { scan_id: scanId, framework_id: frameworkId, requirement_id: requirementId }), { query: { page }, ...signalOpt(signal) })
        .then((r) => r.data),
    downloadCsv: async ({ scanId, frameworkId }, signal) => {
      const body = await client.request(at(E.csv, { scan_id: scanId, framework_id: frameworkId }), signalOpt(signal))
      return { fileName: complianceCsvFileName(scanId, frameworkId), contentType: COMPLIANCE_CSV_CONTENT_TYPE, content: typeof body === "string" ? body : String(body) }
    },
    loadLatestReport: ({ scanId, frameworkId }, signal) =>
      client.request(at(E.reports, { scan_id: scanId }), { query: { framework_id: frameworkId }, ...signalOpt(signal) }).then((r) => r.data[0] ?? null),
    createReport: ({ scanId, frameworkId }, signal) =>
      client.request(at(E.createReport, { scan_id: scanId }), { body: { framework_ids: [frameworkId] }, ...signalOpt(signal) }).then((r) => r.data),
    getReport: ({ reportId }, signal) => client.request(at(E.report, { report_id: reportId }), signalOpt(signal)).then((r) => r.data),
    downloadReport: async ({ reportId, scanId }, signal) => {
      const body = await client.request(at(E.downloadReport, { report_id: reportId }), signalOpt(signal))
      const content = body instanceof Blob ? body : new Blob([body as BlobPart], { type: REPORT_CONTENT_TYPE })
      return { fileName: reportFileName(scanId), contentType: REPORT_CONTENT_TYPE, content }
    },
  }
}
