/**
 * The one algebra of outcomes (issue 28 "One truth"; the words and the rules are written out in docs/outcomes.md).
 * Pure: the server materialises it (server/posture/algebra.ts keeps each finding's counts equal to `checkCounts` of its
 * rows, and sums them), compliance evaluates requirements with `requirementStatus`, and the SPA labels every number
 * with `unitLabel`. Nothing else derives a count.
 *
 * A result row (one resource evaluated by one check in one scan) has exactly one outcome:
 *   pass           — compliant;
 *   fail           — non-compliant, not remediated, not muted;
 *   muted          — non-compliant, not remediated, muted by a rule (an accepted risk, an exception);
 *   remediated     — non-compliant, and its remediation succeeded (a remediated row is never counted muted);
 *   not_evaluated  — no compliance flag: an input the check could not read.
 */
import type { FindingOutcome, Severity } from "./findings.ts"

export const ROW_OUTCOMES = ["pass", "fail", "muted", "remediated", "not_evaluated"] as const
export type RowOutcome = (typeof ROW_OUTCOMES)[number]

/** What decides a row's outcome. */
export interface RowFacts {
  /** true compliant, false non-compliant, null no flag (not evaluated). */
  readonly compliant: boolean | null
  /** Its remediation succeeded (status "remediated" or "pass"). */
  readonly remediated: boolean
  /** A mute rule mutes it (meaningful on non-compliant rows only). */
  readonly muted: boolean
}

export const rowOutcome = (r: RowFacts): RowOutcome =>
  r.compliant === null ? "not_evaluated"
    : r.compliant ? "pass"
    : r.remediated ? "remediated"
    : r.muted ? "muted"
    : "fail"

/** A remediation record's status that counts as remediated. */
export const isRemediatedStatus = (status: unknown): boolean => status === "remediated" || status === "pass"

/**
 * A check's resource counts in one scan (unit: resources), as the API's finding carries them:
 * `resources_failing` is every non-compliant row (historical name; remediated and muted ones included), the open
 * failing resources are `failingResources` below.
 */
export interface CheckCounts {
  readonly resources_checked: number
  readonly resources_failing: number
  readonly resources_remediated: number
  /** Non-compliant rows a rule mutes, remediated ones left out. */
  readonly resources_muted: number
}

export const checkCounts = (rows: ReadonlyArray<RowFacts>): CheckCounts => {
  let failing = 0
  let remediated = 0
  let muted = 0
  for (const r of rows) {
    const o = rowOutcome(r)
    if (o === "fail" || o === "muted" || o === "remediated") failing++
    if (o === "remediated") remediated++
    if (o === "muted") muted++
  }
  return { resources_checked: rows.length, resources_failing: failing, resources_remediated: remediated, resources_muted: muted }
}

/** Resources whose outcome is fail: non-compliant, not remediated, not muted. The "failing resources" of every screen. */
export const failingResources = (c: Pick<CheckCounts, "resources_failing" | "resources_remediated" | "resources_muted">): number =>
  Math.max(0, c.resources_failing - c.resources_remediated - c.resources_muted)

/**
 * A check's outcome in one scan (unit: checks), from the stored finding status (pass, fail, remediated, not_evaluated)
 * and its counts:
 *   failed                  — at least one failing resource;
 *   passed_with_exceptions  — no failing resource, at least one muted one (every open failing resource is muted);
 *   remediated              — every non-compliant resource remediated;
 *   not_evaluated           — the check could not decide (nothing failed, an input could not be read);
 *   passed                  — nothing non-compliant.
 */
export const CHECK_OUTCOMES = ["failed", "passed_with_exceptions", "remediated", "not_evaluated", "passed"] as const
export type CheckOutcome = (typeof CHECK_OUTCOMES)[number]

export interface CheckFacts extends Pick<CheckCounts, "resources_failing" | "resources_remediated" | "resources_muted"> {
  readonly status: FindingOutcome
}

export const checkOutcome = (f: CheckFacts): CheckOutcome => {
  if (f.status === "not_evaluated") return "not_evaluated"
  if (failingResources(f) > 0) return "failed"
  if (f.resources_muted > 0) return "passed_with_exceptions"
  if (f.resources_failing > 0) return "remediated"
  return "passed"
}

/**
 * A service's or a scan's check counts (unit: checks): findings_count = passed + failed + muted + not evaluated, where
 * `passed_findings` holds passed and remediated checks and `muted_findings` the checks passed with exceptions.
 */
export interface ScanCheckCounts {
  readonly findings_count: number
  readonly passed_findings: number
  readonly failed_findings: number
  readonly muted_findings: number
  readonly not_evaluated_findings: number
}

export const scanCheckCounts = (checks: ReadonlyArray<CheckFacts>): ScanCheckCounts => {
  const n = (o: ReadonlyArray<CheckOutcome>) => checks.filter((c) => o.includes(checkOutcome(c))).length
  return {
    findings_count: checks.length,
    passed_findings: n(["passed", "remediated"]),
    failed_findings: n(["failed"]),
    muted_findings: n(["passed_with_exceptions"]),
    not_evaluated_findings: n(["not_evaluated"]),
  }
}

/** Resource counts of a service, a scan, an account (its latest completed scan) or a workspace (sum of its accounts). */
export interface ResourceCounts {
  readonly failing: number
  readonly muted: number
  readonly remediated: number
}

export const resourceCounts = (checks: ReadonlyArray<CheckCounts>): ResourceCounts => ({
  failing: checks.reduce((n, c) => n + failingResources(c), 0),
  muted: checks.reduce((n, c) => n + c.resources_muted, 0),
  remediated: checks.reduce((n, c) => n + c.resources_remediated, 0),
})

export const failingBySeverity = (checks: ReadonlyArray<CheckCounts & { readonly severity: Severity }>): Record<Severity, number> => {
  const out: Record<Severity, number> = { critical: 0, high: 0, medium: 0, low: 0 }
  for (const c of checks) out[c.severity] += failingResources(c)
  return out
}

// ---------------------------------------------------------------------------------------------------
// Risk (the fleet dashboard, issue 31)

/** Risk points one failing resource weighs, by the severity of its check. */
export const RISK_WEIGHTS: Readonly<Record<Severity, number>> = { critical: 10, high: 5, medium: 2, low: 1 }

/**
 * An account's risk score (unit: risk points) from the failing resources by severity of its latest completed scan
 * (`failingBySeverity`): each failing resource weighs RISK_WEIGHTS of its severity. Muted, remediated and passing
 * resources weigh nothing; an account without a completed scan scores 0 (the fleet shows it as stale instead).
 */
export const riskScore = (failing: Readonly<Record<Severity, number>>): number =>
  failing.critical * RISK_WEIGHTS.critical + failing.high * RISK_WEIGHTS.high + failing.medium * RISK_WEIGHTS.medium + failing.low * RISK_WEIGHTS.low

// ---------------------------------------------------------------------------------------------------
// Requirements (compliance)

export const REQUIREMENT_STATUSES = ["passed", "passed_with_exceptions", "failed", "not_evaluated", "manual", "not_applicable"] as const
export type RequirementStatus = (typeof REQUIREMENT_STATUSES)[number]

/** What `requirementStatus` needs to know about one mapped check's finding in the scan. */
export interface RequirementCheckFacts extends CheckFacts {
  readonly resources_checked: number
}

/**
 * A requirement's status from its mapped checks' findings in the scan (`mappedChecks`: how many checks map to it;
 * `outcomes`: the findings of those that ran), first rule that holds:
 *   manual                  — no check maps to it;
 *   failed                  — a mapped check failed;
 *   not_evaluated           — a mapped check could not decide;
 *   passed_with_exceptions  — a mapped check passed with exceptions (muted failing resources);
 *   not_applicable          — nothing in scope: no mapped check ran, or those that ran evaluated no resource;
 *   passed                  — otherwise.
 */
export const requirementStatus = (mappedChecks: number, outcomes: ReadonlyArray<RequirementCheckFacts>): RequirementStatus => {
  const o = outcomes.map(checkOutcome)
  return requirementStatusOf(mappedChecks, {
    failed: o.includes("failed"),
    notEvaluated: o.includes("not_evaluated"),
    withExceptions: o.includes("passed_with_exceptions"),
    anyChecked: outcomes.some((c) => c.resources_checked > 0),
  })
}

/** What `requirementStatus` decides on: which outcomes the mapped checks that ran have, and whether any evaluated a resource. */
export interface RequirementEvidence {
  readonly failed: boolean
  readonly notEvaluated: boolean
  readonly withExceptions: boolean
  readonly anyChecked: boolean
}

/**
 * `requirementStatus`'s rule on the evidence alone (organisation compliance gathers it once per check for 500 members
 * instead of once per requirement: server/compliance/evaluate.ts `requirementStatusesOf`).
 */
export const requirementStatusOf = (mappedChecks: number, e: RequirementEvidence): RequirementStatus => {
  if (mappedChecks === 0) return "manual"
  if (e.failed) return "failed"
  if (e.notEvaluated) return "not_evaluated"
  if (e.withExceptions) return "passed_with_exceptions"
  // No mapped check ran, or those that ran evaluated no resource.
  if (!e.anyChecked) return "not_applicable"
  return "passed"
}

/**
 * Score: (passed + passed with exceptions) / (passed + passed with exceptions + failed), floored to a whole
 * percentage; null when none of those. Not evaluated, manual and not applicable requirements are outside the score.
 */
export const scoreOf = (passed: number, failed: number, passedWithExceptions = 0): number | null => {
  const ok = passed + passedWithExceptions
  return ok + failed === 0 ? null : Math.floor((100 * ok) / (ok + failed))
}

export interface RequirementCounts {
  readonly passed: number
  readonly passed_with_exceptions: number
  readonly failed: number
  readonly not_evaluated: number
  readonly manual: number
  readonly not_applicable: number
  readonly total: number
  readonly score: number | null
}

export const countStatuses = (statuses: ReadonlyArray<RequirementStatus>): RequirementCounts => {
  const n = (s: RequirementStatus) => statuses.filter((x) => x === s).length
  const passed = n("passed")
  const failed = n("failed")
  const exceptions = n("passed_with_exceptions")
  return {
    passed,
    passed_with_exceptions: exceptions,
    failed,
    not_evaluated: n("not_evaluated"),
    manual: n("manual"),
    not_applicable: n("not_applicable"),
    total: statuses.length,
    score: scoreOf(passed, failed, exceptions),
  }
}

// ---------------------------------------------------------------------------------------------------
// Words (docs/outcomes.md "Words on every surface")

export const REQUIREMENT_STATUS_LABELS: Readonly<Record<RequirementStatus, string>> = {
  passed: "Passed",
  passed_with_exceptions: "Passed with exceptions",
  failed: "Failed",
  not_evaluated: "Not evaluated",
  manual: "Manual",
  not_applicable: "Not applicable",
}

export const CHECK_OUTCOME_LABELS: Readonly<Record<CheckOutcome, string>> = {
  failed: "Failed",
  passed_with_exceptions: "Passed with exceptions",
  remediated: "Remediated",
  not_evaluated: "Not evaluated",
  passed: "Passed",
}

/** Every counted thing, with its singular and plural words. */
export const UNITS = {
  failedChecks: ["failed check", "failed checks"],
  passedChecks: ["passed check", "passed checks"],
  exceptionChecks: ["check passed with exceptions", "checks passed with exceptions"],
  notEvaluatedChecks: ["check not evaluated", "checks not evaluated"],
  checks: ["check", "checks"],
  failingResources: ["failing resource", "failing resources"],
  mutedResources: ["muted resource", "muted resources"],
  remediatedResources: ["remediated resource", "remediated resources"],
  resources: ["resource", "resources"],
  newFailingResources: ["new failing resource", "new failing resources"],
  fixedResources: ["fixed resource", "fixed resources"],
  requirements: ["requirement", "requirements"],
  /** A finding is one check in one scan (the findings list). */
  findings: ["finding", "findings"],
  /** Resources matching the findings list's region / resource search filters. */
  matchingResources: ["matching resource", "matching resources"],
  /** The fleet dashboard's risk score (`riskScore`). */
  riskPoints: ["risk point", "risk points"],
  /** Member accounts of an organisation (the fleet dashboard, organisation compliance). */
  members: ["member account", "member accounts"],
} as const
export type Unit = keyof typeof UNITS

/** "1 failed check", "66 failed checks", "113 failing resources". */
export const unitLabel = (n: number, unit: Unit): string => `${n.toLocaleString("en-US")} ${UNITS[unit][n === 1 ? 0 : 1]}`

/** Answers about history (docs/outcomes.md "History"). */
export const HistoryMessages = {
  /** 409 to a remediation asked from a scan that a later completed scan of its account superseded. */
  scanSuperseded: "This scan has been superseded by a later scan of the account: remediate from the latest scan",
  /** The finding page of a superseded scan. */
  supersededNotice: "A later scan of this account superseded this one: it keeps what it reported. Mute or remediate from the latest scan.",
} as const
