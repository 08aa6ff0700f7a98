/**
 * Property tests of the compliance rule (src/contracts/compliance.ts `requirementStatus`, `countStatuses`, `scoreOf`)
 * and of the evaluation over a whole framework (server/compliance/evaluate.ts), on arbitrary scans.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { countStatuses, REQUIREMENT_STATUSES, requirementStatus, scoreOf } from "../../src/contracts/compliance.ts"
import { frameworkById } from "../../server/compliance/catalogue.ts"
import { evaluateFramework, prepareFramework, requirementStatusesOf, type FindingOutcome } from "../../server/compliance/evaluate.ts"
import type { RequirementCheckFacts } from "../../src/contracts/outcomes.ts"

/** A mapped check's finding: muted means every open failing resource is muted (its failing resources are all muted). */
const outcome = fc.record({
  status: fc.constantFrom("pass" as const, "fail" as const, "remediated" as const),
  resources_checked: fc.nat({ max: 50 }),
  muted: fc.boolean(),
}).map(({ status, resources_checked, muted }) => ({
  status,
  resources_checked,
  resources_failing: status === "pass" ? 0 : 2,
  resources_remediated: status === "remediated" ? 2 : 0,
  resources_muted: status === "fail" && muted ? 2 : 0,
  muted: status === "fail" && muted,
}))
const unmutedFail = { status: "fail" as const, resources_checked: 1, resources_failing: 1, resources_remediated: 0, resources_muted: 0 }

describe("score and status rules", () => {
  it("score is a whole percentage of decided requirements, null when none is decided", () => {
    fc.assert(
      fc.property(fc.nat({ max: 500 }), fc.nat({ max: 500 }), (passed, failed) => {
        const s = scoreOf(passed, failed)
        if (passed + failed === 0) {
          expect(s).toBeNull()
          return
        }
        expect(Number.isInteger(s)).toBe(true)
        expect(s!).toBeGreaterThanOrEqual(0)
        expect(s!).toBeLessThanOrEqual(100)
        expect(s === 100).toBe(failed === 0)
        expect(s === 0).toBe(passed === 0 || (100 * passed) / (passed + failed) < 1)
        // One more pass never lowers it, one more failure never raises it.
        expect(scoreOf(passed + 1, failed)!).toBeGreaterThanOrEqual(s!)
        expect(scoreOf(passed, failed + 1)!).toBeLessThanOrEqual(s!)
      }),
    )
  })

  it("counts partition the requirements and the score follows them", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...REQUIREMENT_STATUSES), { maxLength: 200 }), (statuses) => {
        const c = countStatuses(statuses)
        expect(c.passed + c.passed_with_exceptions + c.failed + c.not_evaluated + c.manual + c.not_applicable).toBe(c.total)
        expect(c.total).toBe(statuses.length)
        expect(c.score).toBe(scoreOf(c.passed, c.failed, c.passed_with_exceptions))
      }),
    )
  })

  it("a requirement is manual iff nothing maps to it, failed iff an unmuted failing check decides it", () => {
    fc.assert(
      fc.property(fc.nat({ max: 4 }), fc.array(outcome, { maxLength: 4 }), (mapped, outcomes) => {
        const status = requirementStatus(mapped, outcomes)
        if (mapped === 0) {
          expect(status).toBe("manual")
          return
        }
        expect(status === "failed").toBe(outcomes.some((o) => o.status === "fail" && !o.muted))
        if (status !== "failed") {
          expect(status === "passed_with_exceptions").toBe(outcomes.some((o) => o.muted))
          if (!outcomes.some((o) => o.muted)) expect(status === "not_applicable").toBe(outcomes.every((o) => o.resources_checked === 0))
        }
        // Muting every failing check never makes a requirement fail; one failing check with an unmuted resource does.
        const allMuted = outcomes.map((o) => (o.status === "fail" ? { ...o, resources_muted: o.resources_failing, muted: true } : o))
        expect(requirementStatus(mapped, allMuted)).not.toBe("failed")
        expect(requirementStatus(mapped, [...outcomes, unmutedFail])).toBe("failed")
      }),
    )
  })

  it("evaluating a framework: a failing check fails exactly the requirements it decides", () => {
    const fw = frameworkById("cis-aws-3.0.0")!
    const checks = [...new Set(fw.requirements.flatMap((r) => r.checks))]
    fc.assert(
      fc.property(fc.subarray(checks), fc.subarray(checks), (ran, failing) => {
        const outcomes = new Map<string, FindingOutcome>(
          ran.map((id, i) => [id, {
            finding_id: i + 1,
            check_id: id,
            status: failing.includes(id) ? "fail" : "pass",
            not_evaluated_reason: null,
            mutes: [],
            severity: "high",
            service_name: "IAM",
            resources_checked: 3,
            resources_failing: failing.includes(id) ? 2 : 0,
            resources_remediated: 0,
            resources_muted: 0,
            muted: false,
          }]),
        )
        const result = evaluateFramework(fw, outcomes)
        for (const r of result.requirements) {
          const decided = fw.requirements.find((x) => x.id === r.id)!.checks
          const fails = decided.some((c) => ran.includes(c) && failing.includes(c))
          expect(r.status === "failed", r.id).toBe(fails)
          if (decided.length > 0 && !decided.some((c) => ran.includes(c))) expect(r.status).toBe("not_applicable")
          expect(r.resources_failing).toBe(decided.filter((c) => ran.includes(c) && failing.includes(c)).length * 2)
        }
        expect(result.counts.total).toBe(62)
      }),
      { numRuns: 200 },
    )
  })

  it("organisation compliance's evaluation of many scans (each check read once, equal evidence shared) gives each scan's own statuses", () => {
    const fw = frameworkById("cis-aws-3.0.0")!
    const prepared = prepareFramework(fw)
    const facts: fc.Arbitrary<RequirementCheckFacts> = fc.record({
      status: fc.constantFrom("pass" as const, "fail" as const, "remediated" as const, "not_evaluated" as const),
      resources_checked: fc.nat({ max: 3 }),
      resources_failing: fc.nat({ max: 3 }),
      resources_remediated: fc.nat({ max: 2 }),
      resources_muted: fc.nat({ max: 2 }),
    })
    const scan = fc.dictionary(fc.constantFrom(...prepared.checks), facts, { maxKeys: prepared.checks.length })
    fc.assert(
      fc.property(fc.array(scan, { minLength: 1, maxLength: 8 }), (scans) => {
        const memo = new Map()
        // Twice over: the second pass answers from the memo.
        for (const one of [...scans, ...scans]) {
          // The statuses the scan's own compliance page gives (evaluateFramework over its findings).
          const findings = new Map(Object.entries(one).map(([check_id, f], i): [string, FindingOutcome] => [check_id, {
            ...f, finding_id: i + 1, check_id, not_evaluated_reason: null, severity: "low", service_name: "s", muted: false, mutes: [],
          }]))
          const own = evaluateFramework(fw, findings).requirements.map((r) => r.status)
          expect(requirementStatusesOf(prepared, (check) => one[check], memo)).toEqual(own)
        }
      }),
      { numRuns: 300 },
    )
  })
})
