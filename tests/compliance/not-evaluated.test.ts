/**
 * A check that could not decide (finding outcome not_evaluated, issue 16) is neither a pass nor a fail for compliance,
 * and (issue 28 item 4) never "not applicable" either: a requirement resting on a check that could not decide is
 * "not evaluated", with the reasons; "not applicable" stays for "nothing in scope". A requirement whose only failing
 * resources are muted is "passed with exceptions" (item 3), never plain "passed".
 */
import { describe, expect, it } from "vitest"
import { requirementStatus, type CheckOutcome } from "../../src/contracts/compliance.ts"
import { frameworkById } from "../../server/compliance/catalogue.ts"
import { evaluateFramework, type FindingOutcome } from "../../server/compliance/evaluate.ts"

const outcome = (status: CheckOutcome["status"], resources = 1, muted = 0): CheckOutcome => ({
  status,
  resources_checked: resources,
  resources_failing: status === "fail" ? Math.max(1, muted) : 0,
  resources_remediated: 0,
  resources_muted: muted,
})

describe("requirement status with not-evaluated checks", () => {
  it("says not evaluated, never passed nor not applicable, on checks that could not decide", () => {
    expect(requirementStatus(1, [outcome("not_evaluated")])).toBe("not_evaluated")
    expect(requirementStatus(2, [outcome("not_evaluated"), outcome("pass")])).toBe("not_evaluated")
    expect(requirementStatus(2, [outcome("not_evaluated"), outcome("fail")])).toBe("failed")
    expect(requirementStatus(2, [outcome("not_evaluated"), outcome("pass", 0)])).toBe("not_evaluated")
    // Nothing in scope: no mapped check ran, or those that ran evaluated no resource.
    expect(requirementStatus(2, [])).toBe("not_applicable")
    expect(requirementStatus(2, [outcome("pass", 0)])).toBe("not_applicable")
  })

  it("says passed with exceptions when the only failing resources are muted", () => {
    expect(requirementStatus(1, [outcome("fail", 3, 1)])).toBe("passed_with_exceptions")
    expect(requirementStatus(2, [outcome("fail", 3, 1), outcome("pass", 2)])).toBe("passed_with_exceptions")
    expect(requirementStatus(2, [outcome("fail", 3, 1), outcome("not_evaluated")])).toBe("not_evaluated")
    expect(requirementStatus(2, [outcome("fail", 3, 1), { ...outcome("fail", 3, 1), resources_failing: 2 }])).toBe("failed")
  })

  it("carries the reasons and the mutes on the evaluated requirement", () => {
    const fw = frameworkById("cis-aws-3.0.0")!
    const mfa = fw.requirements.find((r) => r.checks.includes("iam_user_mfa_enabled_console_access"))!
    const root = fw.requirements.find((r) => r.checks.length === 1 && r.checks[0] === "iam_root_mfa_enabled")!
    const base = { severity: "high" as const, service_name: "IAM", resources_remediated: 0, muted: false, mutes: [] }
    const outcomes = new Map<string, FindingOutcome>([
      ["iam_user_mfa_enabled_console_access", {
        ...base, finding_id: 1, check_id: "iam_user_mfa_enabled_console_access", status: "not_evaluated",
        not_evaluated_reason: "iam:ListUsers: AccessDenied", resources_checked: 1, resources_failing: 0, resources_muted: 0,
      }],
      ["iam_root_mfa_enabled", {
        ...base, finding_id: 2, check_id: "iam_root_mfa_enabled", status: "fail", not_evaluated_reason: null, muted: true,
        resources_checked: 1, resources_failing: 1, resources_muted: 1,
        mutes: [{ check_id: "iam_root_mfa_enabled", rule_id: 7, reason: "break-glass", expires_at: null, author: "a@example.com", resources: 1 }],
      }],
    ])
    const ev = evaluateFramework(fw, outcomes)
    const m = ev.requirements.find((r) => r.id === mfa.id)!
    expect(m).toMatchObject({ status: "not_evaluated", checks_not_evaluated: 1 })
    expect(m.not_evaluated_reasons).toContainEqual({ check_id: "iam_user_mfa_enabled_console_access", reason: "iam:ListUsers: AccessDenied" })
    const r = ev.requirements.find((x) => x.id === root.id)!
    expect(r).toMatchObject({ status: "passed_with_exceptions", checks_with_exceptions: 1, resources_failing: 0, resources_muted: 1 })
    expect(r.exceptions[0]).toMatchObject({ reason: "break-glass", author: "a@example.com", expires_at: null })
    expect(ev.counts.not_evaluated).toBeGreaterThanOrEqual(1)
    expect(ev.counts.passed_with_exceptions).toBe(1)
  })
})
