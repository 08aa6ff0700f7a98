/**
 * Provider-neutral vocabulary of the scanner: check metadata, detail rows, collection errors and check results.
 * Checks are pure: they turn an inventory into detail rows (one per evaluated resource, each with a boolean
 * `compliant`); the result status is derived here so every provider follows the same rule:
 *   - "fail"  when any row is non-compliant (a known failure is never hidden behind an unreadable sibling),
 *   - "error" when no row failed but some input the check needs could not be read (the reasons are attached),
 *   - "pass"  otherwise (including "no resources of this kind").
 */

export type Severity = "critical" | "high" | "medium" | "low"
export const severities: ReadonlyArray<Severity> = ["critical", "high", "medium", "low"]

export type CheckStatus = "pass" | "fail" | "error"

/** What a row field may hold: scalars, lists of strings, or null for "not set". */
export type RowValue = string | number | boolean | null | ReadonlyArray<string>

/** One evaluated resource. `resource_id` + `region` identify it for remediation. */
export interface DetailRow {
  readonly resource_id: string
  readonly region: string
  readonly compliant: boolean
  /** Why the resource passes or fails, in one sentence. */
  readonly reason: string
  readonly [field: string]: RowValue
}

export type ErrorKind = "access_denied" | "unsupported" | "throttled" | "region_disabled" | "error"

/** An API call the scanner could not complete; recorded in the inventory, never thrown. */
export interface CollectionError {
  readonly resourceType: string
  readonly region: string
  readonly operation: string
  readonly resourceId?: string
  readonly kind: ErrorKind
  readonly code: string
  readonly message: string
}

export interface CisRefs {
  readonly v3?: string
  readonly v7?: string
}

export type TestedWith = "moto" | "sdk-mock"

/** Everything about a check except its evaluation function: what the catalogue lists. */
export interface CheckMeta {
  readonly id: string
  readonly provider: "aws"
  readonly service: string
  readonly title: string
  readonly description: string
  readonly severity: Severity
  readonly cis: CisRefs
  readonly fsbp?: string
  readonly remediation: string
  /** Labels of the check-specific row fields (the standard fields are labelled by `standardFieldLabels`). */
  readonly field_labels: Readonly<Record<string, string>>
  /** Inventory inputs (resource types) the check reads. */
  readonly uses: ReadonlyArray<string>
  readonly testedWith: TestedWith
  /** Why the emulator cannot exercise this check, when testedWith is "sdk-mock". */
  readonly mockReason?: string
}

export const standardFieldLabels: Readonly<Record<string, string>> = {
  resource_id: "Resource",
  region: "Region",
  compliant: "Compliant",
  reason: "Reason",
}

export interface CheckResult {
  readonly check_id: string
  readonly service: string
  readonly title: string
  /** The statement the check verifies, as shown on a finding. */
  readonly policy_check: string
  readonly description: string
  readonly severity: Severity
  readonly cis: CisRefs
  readonly fsbp?: string
  readonly remediation: string
  readonly status: CheckStatus
  readonly field_labels: Readonly<Record<string, string>>
  readonly details: ReadonlyArray<DetailRow>
  /** Reasons the check could not see everything it needs (from the inventory's collection errors). */
  readonly errors: ReadonlyArray<CollectionError>
}

export function deriveStatus(rows: ReadonlyArray<DetailRow>, errors: ReadonlyArray<CollectionError>): CheckStatus {
  if (rows.some((r) => !r.compliant)) return "fail"
  if (errors.length > 0) return "error"
  return "pass"
}

/** Human-readable one-liner for an error, e.g. for a finding's reason column. */
export function describeError(e: CollectionError): string {
  const where = e.resourceId === undefined ? e.region : `${e.region} ${e.resourceId}`
  return `${e.operation} (${where}): ${e.code}: ${e.message}`
}
