/**
 * A check that could not decide (finding outcome not_evaluated, issue 16) is neither a pass nor a fail for compliance:
 * a requirement whose only mapped checks were not evaluated is not applicable, never passed.
 */
import { describe, expect, it } from "vitest"
import { requirementStatus, type CheckOutcome } from "../../src/contracts/compliance.ts"

const outcome = (status: CheckOutcome["status"], resources = 1): CheckOutcome => ({ status, resources_checked: resources, muted: false })

describe("requirement status with not-evaluated checks", () => {
  it("does not pass a requirement on checks that could not decide", () => {
    expect(requirementStatus(1, [outcome("not_evaluated")])).toBe("not_applicable")
    expect(requirementStatus(2, [outcome("not_evaluated"), outcome("pass")])).toBe("passed")
    expect(requirementStatus(2, [outcome("not_evaluated"), outcome("fail")])).toBe("failed")
    expect(requirementStatus(2, [outcome("not_evaluated"), outcome("pass", 0)])).toBe("not_applicable")
  })
})
