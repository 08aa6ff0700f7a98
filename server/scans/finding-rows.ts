/**
 * From the engine's check results (server/scanner/check.ts `CheckResult`) to stored findings, purely.
 *
 * - A finding is one check in one scan: status "fail" when any row is non-compliant (a known failure is never hidden
 *   behind an unreadable sibling), "not_evaluated" when none is but the check could not read an input it needs (engine
 *   status "error": access denied, API not enabled, throttled beyond retries, region not enabled), "pass" otherwise.
 *   Each collection error becomes a detail row without a compliance flag, with the operation, the error code and kind
 *   and the reason, so the account's missing permission is visible on the finding (issue 5: "recorded on the finding,
 *   not swallowed"), and a not-evaluated finding carries its reason (issue 16: never a pass, never a fail).
 * - Detail rows follow the contract (src/contracts/findings.ts `DetailRow`): the engine's `compliant` flag is stored as
 *   `compliance`, with its label.
 * - Compliance references: CIS AWS Foundations v3.0.0 and v7.0.0 ids, and the AWS FSBP control id; GCP and Azure
 *   results carry their own list (`compliance`: CIS GCP v4.0, CIS Azure v3.0/v4.0), used as is.
 */
import type { ComplianceRef } from "../../src/contracts/findings.ts"
import { ErrorRowLabels, notEvaluatedReason, notEvaluatedSummary } from "../../src/contracts/messages.ts"
import type { CheckResult, CollectionError, DetailRow as EngineRow } from "../scanner/check.ts"

export type StoredRow = Readonly<Record<string, unknown>>

export interface FindingDraft {
  readonly check_id: string
  readonly severity: CheckResult["severity"]
  readonly status: "pass" | "fail" | "not_evaluated"
  /** Why the check could not decide (status not_evaluated only). */
  readonly not_evaluated_reason: string | null
  readonly title: string
  readonly description: string
  readonly policy_check: string
  readonly remediation: string
  readonly field_labels: Readonly<Record<string, string>>
  readonly details: ReadonlyArray<StoredRow>
  readonly compliance: ReadonlyArray<ComplianceRef>
}

export const CIS_V3 = "CIS AWS Foundations Benchmark v3.0.0"
export const CIS_V7 = "CIS AWS Foundations Benchmark v7.0.0"
export const FSBP = "AWS Foundational Security Best Practices"

export const complianceRefs = (
  result: Pick<CheckResult, "cis" | "fsbp"> & { readonly compliance?: ReadonlyArray<ComplianceRef> },
): ReadonlyArray<ComplianceRef> =>
  result.compliance !== undefined && result.compliance.length > 0
    ? result.compliance.map((c) => ({ framework: c.framework, control: c.control }))
    : awsComplianceRefs(result)

const awsComplianceRefs = (result: Pick<CheckResult, "cis" | "fsbp">): ReadonlyArray<ComplianceRef> => [
  ...(result.cis.v3 === undefined ? [] : [{ framework: CIS_V3, control: result.cis.v3 }]),
  ...(result.cis.v7 === undefined ? [] : [{ framework: CIS_V7, control: result.cis.v7 }]),
  ...(result.fsbp === undefined ? [] : [{ framework: FSBP, control: result.fsbp }]),
]

/** The engine row with `compliant` renamed `compliance` (resource id, region, compliance and reason first). */
export const toStoredRow = (row: EngineRow): StoredRow => {
  const { resource_id, region, compliant, reason, ...rest } = row
  return { resource_id, region, compliance: compliant, reason, ...rest }
}

/** A row saying which input could not be read, and why (no compliance flag: nothing was decided). */
export const errorRow = (error: CollectionError): StoredRow => ({
  resource_id: error.resourceId ?? error.resourceType,
  region: error.region,
  reason: notEvaluatedReason(error.operation, error.code, error.kind, error.message),
  operation: error.operation,
  error_code: error.code,
  error_kind: error.kind,
})

export const toFindingDraft = (result: CheckResult & { readonly compliance?: ReadonlyArray<ComplianceRef> }): FindingDraft => {
  const labels: Record<string, string> = {}
  for (const [k, v] of Object.entries(result.field_labels)) labels[k === "compliant" ? "compliance" : k] = v
  const errorRows = result.errors.map(errorRow)
  if (errorRows.length > 0) Object.assign(labels, ErrorRowLabels)
  return {
    check_id: result.check_id,
    severity: result.severity,
    status: result.status === "error" ? "not_evaluated" : result.status,
    not_evaluated_reason: result.status === "error" && errorRows.length > 0 ? notEvaluatedSummary(String(errorRows[0]!["reason"]), errorRows.length - 1) : null,
    title: result.title,
    description: result.description,
    policy_check: result.policy_check,
    remediation: result.remediation,
    field_labels: labels,
    details: [...result.details.map(toStoredRow), ...errorRows],
    compliance: complianceRefs(result),
  }
}

/**
 * A finding is remediated once every non-compliant row has a successful remediation record ("remediated", or "pass":
 * the re-read found it already compliant): from the finding's counts (server/scans/results.ts keeps them).
 */
export const findingRemediated = (counts: { readonly failing: number; readonly remediated: number }): boolean =>
  counts.failing > 0 && counts.remediated >= counts.failing
