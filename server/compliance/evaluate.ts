/**
 * Pure evaluation of a framework against one scan's findings: each requirement's status (`requirementStatus` of
 * src/contracts/outcomes.ts), its counts, and the framework's counts and score. No I/O: the store reads the findings,
 * the API, the CSV and the PDF all evaluate through here, so the screen and the downloads cannot disagree
 * (docs/outcomes.md).
 */
import type { MuteException, RequirementResult, RequirementStatus, StatusCounts } from "../../src/contracts/compliance.ts"
import type { FindingOutcome as Outcome, Severity } from "../../src/contracts/findings.ts"
import { checkOutcome, countStatuses, failingResources, requirementStatus, requirementStatusOf, type RequirementCheckFacts } from "../../src/contracts/outcomes.ts"
import type { CatalogueFramework } from "./catalogue.ts"

/** One finding of the scan, as compliance reads it. */
export interface FindingOutcome {
  readonly finding_id: number
  readonly check_id: string
  /** As stored: pass, fail, remediated or not_evaluated (server/db/migrations/0010_not_evaluated.ts). */
  readonly status: Outcome
  readonly not_evaluated_reason: string | null
  readonly severity: Severity
  readonly service_name: string
  readonly resources_checked: number
  /** Non-compliant resources (remediated and muted ones included). */
  readonly resources_failing: number
  readonly resources_remediated: number
  /** Open (not remediated) non-compliant resources that are muted. */
  readonly resources_muted: number
  readonly muted: boolean
  /** The mutes behind its muted resources (empty when none). */
  readonly mutes: ReadonlyArray<MuteException>
}

export interface FrameworkEvaluation {
  readonly counts: StatusCounts
  readonly requirements: ReadonlyArray<RequirementResult>
}

/** Failing resources: non-compliant, not remediated, not muted (docs/outcomes.md). */
export const openFailing = (o: Pick<FindingOutcome, "status" | "resources_failing" | "resources_remediated" | "resources_muted">): number =>
  o.status === "fail" ? failingResources(o) : 0

/** The findings of a requirement's mapped checks that ran in the scan. */
const mappedOutcomes = <O>(checks: ReadonlyArray<string>, outcomes: ReadonlyMap<string, O>): Array<O> => {
  // A loop: organisation compliance asks this for every requirement of every member (500 × 60 at bench/fleet-dashboard.ts).
  const out: Array<O> = []
  for (const id of checks) {
    const o = outcomes.get(id)
    if (o !== undefined) out.push(o)
  }
  return out
}

/** A framework prepared for evaluating many scans: its mapped checks, and per requirement their positions there. */
export interface PreparedFramework {
  readonly framework: CatalogueFramework
  readonly checks: ReadonlyArray<string>
  readonly positions: ReadonlyArray<ReadonlyArray<number>>
}

export const prepareFramework = (framework: CatalogueFramework): PreparedFramework => {
  const checks = [...new Set(framework.requirements.flatMap((r) => r.checks))]
  const at = new Map(checks.map((c, i) => [c, i]))
  return { framework, checks, positions: framework.requirements.map((r) => r.checks.map((c) => at.get(c)!)) }
}

const FAILED = 1
const NOT_EVALUATED = 2
const WITH_EXCEPTIONS = 4
const CHECKED = 8

/** What one check's finding adds to the evidence of the requirements it maps to (`RequirementEvidence` as bits). */
const evidenceBits = (f: RequirementCheckFacts | undefined): number => {
  if (f === undefined) return 0
  const o = checkOutcome(f)
  return (o === "failed" ? FAILED : o === "not_evaluated" ? NOT_EVALUATED : o === "passed_with_exceptions" ? WITH_EXCEPTIONS : 0) | (f.resources_checked > 0 ? CHECKED : 0)
}

/**
 * Each requirement's status alone, by the rule `evaluateFramework` applies (`requirementStatusOf`, `requirementStatus`'s
 * rule), for many scans (organisation compliance: each member's latest): each check's outcome is read
 * once per scan (not once per requirement it maps to) and each requirement decided by `requirementStatusOf`, the rule
 * `requirementStatus` applies; scans whose checks give the same evidence share one evaluation (`memo`, keyed by it).
 * `factOf` answers a check's facts in the scan (undefined: it did not run); each answer is read before the next call,
 * so it may be one object refilled.
 */
export const requirementStatusesOf = (
  prepared: PreparedFramework,
  factOf: (check: string) => RequirementCheckFacts | undefined,
  memo: Map<string, ReadonlyArray<RequirementStatus>>,
): ReadonlyArray<RequirementStatus> => {
  const bits = prepared.checks.map((c) => evidenceBits(factOf(c)))
  const key = String.fromCharCode(...bits.map((b) => 65 + b))
  const known = memo.get(key)
  if (known !== undefined) return known
  const statuses = prepared.framework.requirements.map((r, i) => {
    let b = 0
    for (const p of prepared.positions[i]!) b |= bits[p]!
    return requirementStatusOf(r.checks.length, {
      failed: (b & FAILED) !== 0,
      notEvaluated: (b & NOT_EVALUATED) !== 0,
      withExceptions: (b & WITH_EXCEPTIONS) !== 0,
      anyChecked: (b & CHECKED) !== 0,
    })
  })
  memo.set(key, statuses)
  return statuses
}

export const evaluateFramework = (
  framework: CatalogueFramework,
  outcomes: ReadonlyMap<string, FindingOutcome>,
): FrameworkEvaluation => {
  const requirements = framework.requirements.map((r): RequirementResult => {
    const found = mappedOutcomes(r.checks, outcomes)
    const status = requirementStatus(r.checks.length, found)
    return {
      id: r.id,
      section_id: r.section_id,
      title: r.title,
      assessment: r.assessment,
      status,
      manual_reason: r.manual_reason,
      checks_total: r.checks.length,
      checks_failed: found.filter((o) => checkOutcome(o) === "failed").length,
      checks_not_evaluated: found.filter((o) => checkOutcome(o) === "not_evaluated").length,
      checks_with_exceptions: found.filter((o) => checkOutcome(o) === "passed_with_exceptions").length,
      resources_checked: found.reduce((n, o) => n + o.resources_checked, 0),
      resources_failing: found.reduce((n, o) => n + openFailing(o), 0),
      resources_muted: found.reduce((n, o) => n + o.resources_muted, 0),
      not_evaluated_reasons: found.flatMap((o) =>
        checkOutcome(o) === "not_evaluated" ? [{ check_id: o.check_id, reason: o.not_evaluated_reason ?? "The check could not decide" }] : []),
      exceptions: found.flatMap((o) => o.mutes),
    }
  })
  return { counts: countStatuses(requirements.map((r) => r.status)), requirements }
}
