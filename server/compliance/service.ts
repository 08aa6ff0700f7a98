/**
 * The compliance area's operations, in the caller's RLS scope: a scan's summary over its provider's frameworks, one
 * framework's requirement results, a requirement's drill-down (checks → failing resources), an account's trend, and
 * the framework CSV. Fails only with catalogue errors: NotFound (scan, account, framework, requirement — a framework of
 * another provider counts as not found for that scan) and Conflict (scan not completed yet).
 */
import { Effect } from "effect"
import {
  ComplianceMessages as M,
  type FrameworkSummary,
  type RequirementCheck,
  type RequirementDetail,
  type ScanFramework,
  type TrendPoint,
} from "../../src/contracts/compliance.ts"
import { Conflict, NotFound } from "../../src/contracts/errors.ts"
import type { AccountId, FindingId } from "../../src/contracts/ids.ts"
import { csvLine } from "../export/csv.ts"
import { checkInfo, frameworkById, frameworksOfProvider, type CatalogueFramework } from "./catalogue.ts"
import { checkOutcome } from "../posture/algebra.ts"
import { evaluateFramework, openFailing, type FindingOutcome } from "./evaluate.ts"
import { accountHistory, accountProvider, failingPage, scanFacts, scanOutcomes, type ScanFacts } from "./store.ts"

/** The scan, completed, in the workspace. */
export const completedScan = (workspaceId: number, scanId: number) =>
  Effect.gen(function* () {
    const facts = yield* scanFacts(workspaceId, scanId)
    if (facts === undefined) return yield* new NotFound({ message: M.scanNotFound })
    if (facts.status !== "completed") return yield* new Conflict({ message: M.scanNotCompleted })
    return facts
  })

/** The framework, when it applies to the scan's provider. */
export const frameworkFor = (facts: ScanFacts, frameworkId: string) => {
  const fw = frameworkById(frameworkId)
  return fw === undefined || fw.framework.provider !== facts.scan.provider
    ? Effect.fail(new NotFound({ message: fw === undefined ? M.frameworkNotFound : M.frameworkNotForProvider }))
    : Effect.succeed(fw)
}

export const scanSummary = (workspaceId: number, scanId: number) =>
  Effect.gen(function* () {
    const facts = yield* completedScan(workspaceId, scanId)
    const outcomes = yield* scanOutcomes(workspaceId, scanId)
    const frameworks: FrameworkSummary[] = frameworksOfProvider(facts.scan.provider).map((fw) => ({
      framework: fw.framework,
      counts: evaluateFramework(fw, outcomes).counts,
    }))
    return { scan: facts.scan, frameworks }
  })

export const evaluateScanFramework = (facts: ScanFacts, fw: CatalogueFramework, outcomes: ReadonlyMap<string, FindingOutcome>): ScanFramework => {
  const evaluation = evaluateFramework(fw, outcomes)
  return { scan: facts.scan, framework: fw.framework, sections: fw.sections, counts: evaluation.counts, requirements: evaluation.requirements }
}

export const scanFramework = (workspaceId: number, scanId: number, frameworkId: string) =>
  Effect.gen(function* () {
    const facts = yield* completedScan(workspaceId, scanId)
    const fw = yield* frameworkFor(facts, frameworkId)
    return evaluateScanFramework(facts, fw, yield* scanOutcomes(workspaceId, scanId))
  })

export const requirementDetail = (
  workspaceId: number,
  scanId: number,
  frameworkId: string,
  requirementId: string,
  page: number,
  pageSize: number,
) =>
  Effect.gen(function* () {
    const facts = yield* completedScan(workspaceId, scanId)
    const fw = yield* frameworkFor(facts, frameworkId)
    const outcomes = yield* scanOutcomes(workspaceId, scanId)
    const evaluated = evaluateScanFramework(facts, fw, outcomes)
    const requirement = evaluated.requirements.find((r) => r.id === requirementId)
    const mapped = fw.requirements.find((r) => r.id === requirementId)
    if (requirement === undefined || mapped === undefined) return yield* new NotFound({ message: M.requirementNotFound })
    const checks: RequirementCheck[] = mapped.checks.map((checkId) => {
      const o = outcomes.get(checkId)
      const info = checkInfo(fw.framework.provider, checkId)
      return {
        check_id: checkId,
        title: info?.title ?? checkId,
        severity: o?.severity ?? info?.severity ?? "medium",
        finding_id: o === undefined ? null : (o.finding_id as FindingId),
        status: o?.status ?? null,
        outcome: o === undefined ? null : checkOutcome(o),
        not_evaluated_reason: o?.status === "not_evaluated" ? (o.not_evaluated_reason ?? "") : null,
        service_name: o?.service_name ?? null,
        resources_checked: o?.resources_checked ?? 0,
        resources_failing: o === undefined ? 0 : openFailing(o),
        resources_remediated: o?.resources_remediated ?? 0,
        resources_muted: o?.resources_muted ?? 0,
      }
    })
    // The evidence: failing and muted resources (muted ones marked, with their mute).
    const failingFindings = checks.flatMap((c) => (c.finding_id !== null && c.status === "fail" && c.resources_failing + c.resources_muted > 0 ? [c.finding_id] : []))
    const total = requirement.resources_failing + requirement.resources_muted
    const failing = yield* failingPage(workspaceId, failingFindings, page, pageSize)
    return {
      scan: facts.scan,
      framework: fw.framework,
      requirement,
      checks,
      failing,
      failing_pagination: { page, page_size: pageSize, total, total_pages: Math.ceil(total / pageSize) },
    } satisfies RequirementDetail
  })

export const accountTrend = (workspaceId: number, accountId: number, frameworkId: string, limit: number) =>
  Effect.gen(function* () {
    const provider = yield* accountProvider(workspaceId, accountId)
    if (provider === undefined) return yield* new NotFound({ message: M.accountNotFound })
    const fw = frameworkById(frameworkId)
    if (fw === undefined || fw.framework.provider !== provider) {
      return yield* new NotFound({ message: fw === undefined ? M.frameworkNotFound : M.frameworkNotForProvider })
    }
    const history = yield* accountHistory(workspaceId, accountId, limit)
    const points: TrendPoint[] = history.map((h) => ({ scan_id: h.scanId, scan_end: h.scanEnd, counts: evaluateFramework(fw, h.outcomes).counts }))
    return { account_id: accountId as AccountId, framework_id: fw.framework.id, points }
  })

export const COMPLIANCE_CSV_COLUMNS = [
  "framework",
  "version",
  "section",
  "requirement_id",
  "title",
  "assessment",
  "status",
  "checks",
  "checks_failed",
  "checks_not_evaluated",
  "checks_with_exceptions",
  "resources_checked",
  "resources_failing",
  "resources_muted",
  "not_evaluated_reasons",
  "exceptions",
  "scan_id",
  "account_name",
  "cloud_account_id",
] as const

/**
 * The framework CSV: one line per requirement (RFC 4180, formula-neutralised cells as in the findings export), with
 * the algebra's status and counts (docs/outcomes.md): `resources_failing` are failing resources (not remediated, not
 * muted), `resources_muted` the muted ones; a not evaluated requirement says why, one passed with exceptions names its
 * mutes (reason, expiry, author).
 */
export const frameworkCsv = (result: ScanFramework): string => {
  const sectionTitle = new Map(result.sections.map((s) => [s.id, s.title]))
  const fw = frameworkById(result.framework.id)
  const checksOf = new Map((fw?.requirements ?? []).map((r) => [r.id, r.checks.join(" ")]))
  return [
    csvLine(COMPLIANCE_CSV_COLUMNS),
    ...result.requirements.map((r) =>
      csvLine([
        result.framework.name,
        result.framework.version,
        `${r.section_id} ${sectionTitle.get(r.section_id) ?? ""}`.trim(),
        r.id,
        r.title,
        r.assessment,
        r.status,
        checksOf.get(r.id) ?? "",
        r.checks_failed,
        r.checks_not_evaluated,
        r.checks_with_exceptions,
        r.resources_checked,
        r.resources_failing,
        r.resources_muted,
        r.not_evaluated_reasons.map((n) => `${n.check_id}: ${n.reason}`).join("; "),
        r.exceptions
          .map((e) => `${e.check_id}: ${e.resources} muted, "${e.reason}", expires ${e.expires_at ?? "never"}, by ${e.author ?? "unknown"}`)
          .join("; "),
        result.scan.id,
        result.scan.account_name,
        result.scan.cloud_account_id,
      ])),
  ].join("")
}


