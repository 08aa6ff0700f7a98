/**
 * CSV export of findings, RFC 4180: CRLF line ends, a header line, every field that holds a comma, a double quote, CR or
 * LF enclosed in double quotes with inner quotes doubled.
 *
 * Formula injection (OWASP "CSV Injection"): a cell a spreadsheet would evaluate (first character = + - @, or a
 * leading tab / carriage return) is neutralised by prefixing a single quote, so `=HYPERLINK(...)` from a resource
 * name or tag is shown as text, never run.
 *
 * One line per detail row (a resource), repeating the finding's columns; a finding without rows gives one line.
 */
import type { Finding } from "../../src/contracts/findings.ts"
import { checkOutcome, isRemediatedStatus, rowOutcome, type RowOutcome } from "../../src/contracts/outcomes.ts"

/** A detail row's outcome (the algebra's `rowOutcome`), for the exports. */
export const detailRowOutcome = (row: Readonly<Record<string, unknown>>): RowOutcome =>
  rowOutcome({
    compliant: typeof row["compliance"] === "boolean" ? row["compliance"] : null,
    remediated: isRemediatedStatus((row["remediate"] as { status?: unknown } | undefined)?.status),
    muted: row["muted"] !== undefined,
  })

export const CSV_COLUMNS = [
  "scan_id",
  "finding_id",
  "check_id",
  "service",
  "severity",
  "finding_status",
  "policy_check",
  "description",
  "resource_id",
  "region",
  "compliant",
  "reason",
  "remediation_status",
  "remediation_message",
  "compliance",
  "remediation",
  "account_name",
  "aws_account_id",
  "created_at",
  "delta",
  /** The row's outcome (docs/outcomes.md): pass, fail, muted, remediated, not_evaluated. */
  "outcome",
  /** The check's outcome: failed, passed_with_exceptions, remediated, not_evaluated, passed. */
  "check_outcome",
  /** The mute of a muted row, as the scan keeps it. */
  "mute_reason",
] as const

const DANGEROUS_START = /^[=+\-@\t\r]/

/** Neutralises a cell a spreadsheet would evaluate as a formula. */
export const neutralise = (value: string): string => (DANGEROUS_START.test(value) ? `'${value}` : value)

/** One RFC 4180 field (neutralised, then quoted when needed). */
export const csvField = (value: unknown): string => {
  const text = neutralise(
    value === null || value === undefined
      ? ""
      : typeof value === "string"
        ? value
        : Array.isArray(value)
          ? value.map(String).join("; ")
          : typeof value === "object"
            ? JSON.stringify(value)
            : String(value),
  )
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

export const csvLine = (fields: ReadonlyArray<unknown>): string => `${fields.map(csvField).join(",")}\r\n`

export const csvHeader = (): string => csvLine(CSV_COLUMNS)

const complianceText = (f: Finding) => f.compliance.map((c) => `${c.framework} ${c.control}`).join("; ")

/** The lines of one finding. */
export const findingCsvLines = (f: Finding): string => {
  const common = (row: Readonly<Record<string, unknown>> | undefined) => {
    const remediate = row?.["remediate"] as { status?: unknown; message?: unknown } | undefined
    return [
      f.scan_id ?? "",
      f.id,
      f.check_id,
      f.service_name,
      f.severity,
      f.outcome,
      f.policy_check,
      f.description,
      row?.["resource_id"] ?? "",
      row?.["region"] ?? "",
      row === undefined || typeof row["compliance"] !== "boolean" ? "" : row["compliance"] ? "true" : "false",
      row?.["reason"] ?? "",
      remediate?.status ?? "",
      remediate?.message ?? "",
      complianceText(f),
      f.remediation ?? "",
      f.account_name,
      f.aws_account_id ?? "",
      f.created_at,
      row?.["delta"] ?? "",
      row === undefined ? "" : detailRowOutcome(row),
      checkOutcome({ ...f, status: f.outcome }),
      (row?.["muted"] as { reason?: unknown } | undefined)?.reason ?? "",
    ]
  }
  if (f.details.length === 0) return csvLine(common(undefined))
  return f.details.map((row) => csvLine(common(row))).join("")
}
