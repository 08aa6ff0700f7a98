/**
 * Pure evaluation of a framework against one scan's findings: each requirement's status (the contract's
 * `requirementStatus`), its counts, and the framework's counts and score. No I/O: the store reads the findings, the
 * API, the CSV and the PDF all evaluate through here, so the screen and the downloads cannot disagree.
 */
import {
  countStatuses,
  requirementStatus,
  type RequirementResult,
  type StatusCounts,
} from "../../src/contracts/compliance.ts"
import type { FindingOutcome as Outcome, Severity } from "../../src/contracts/findings.ts"
import type { CatalogueFramework } from "./catalogue.ts"

/** One finding of the scan, as compliance reads it. */
export interface FindingOutcome {
  readonly finding_id: number
  readonly check_id: string
  /** As stored: pass, fail, remediated or not_evaluated (server/db/migrations/0010_not_evaluated.ts). */
  readonly status: Outcome
  readonly severity: Severity
  readonly service_name: string
  readonly resources_checked: number
  readonly resources_failing: number
  readonly resources_remediated: number
  /** Open failing resources that are muted, and whether that is all of them. */
  readonly resources_muted: number
  readonly muted: boolean
}

export interface FrameworkEvaluation {
  readonly counts: StatusCounts
  readonly requirements: ReadonlyArray<RequirementResult>
}

/** Failing and not remediated. */
export const openFailing = (o: Pick<FindingOutcome, "status" | "resources_failing" | "resources_remediated">): number =>
  o.status === "fail" ? Math.max(0, o.resources_failing - o.resources_remediated) : 0

export const evaluateFramework = (
  framework: CatalogueFramework,
  outcomes: ReadonlyMap<string, FindingOutcome>,
): FrameworkEvaluation => {
  const requirements = framework.requirements.map((r): RequirementResult => {
    const found = r.checks.flatMap((id) => {
      const o = outcomes.get(id)
      return o === undefined ? [] : [o]
    })
    return {
      id: r.id,
      section_id: r.section_id,
      title: r.title,
      assessment: r.assessment,
      status: requirementStatus(r.checks.length, found),
      manual_reason: r.manual_reason,
      checks_total: r.checks.length,
      checks_failed: found.filter((o) => o.status === "fail" && !o.muted).length,
      resources_checked: found.reduce((n, o) => n + o.resources_checked, 0),
      resources_failing: found.reduce((n, o) => n + openFailing(o), 0),
      resources_muted: found.reduce((n, o) => n + o.resources_muted, 0),
    }
  })
  return { counts: countStatuses(requirements.map((r) => r.status)), requirements }
}
