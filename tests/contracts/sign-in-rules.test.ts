/**
 * The sign-in page's schema-free rules (src/contracts/sign-in-rules.ts, loaded before effect/Schema) give exactly the
 * messages of the schemas every other form and the server use (`LoginForm`, `ForgotPasswordPayload`), on any input.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { validateForgotPassword, validateLogin } from "../../src/contracts/auth.ts"
import { ValidationMessages as M } from "../../src/contracts/messages.ts"
import { emailProblem, signInFormErrors } from "../../src/contracts/sign-in-rules.ts"

// Strings near the rules' edges: empty, short, with and without '@' and '.', whitespace, unicode.
const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.emailAddress(),
  fc.tuple(fc.string({ maxLength: 6 }), fc.constantFrom("@", " @", "@."), fc.string({ maxLength: 6 }), fc.constantFrom("", ".", ".io", " .x")).map((p) => p.join("")),
  fc.string({ unit: "grapheme", maxLength: 10 }),
)

describe("sign-in rules without a schema library", () => {
  it("the sign-in form gets the same field errors as the LoginForm schema", () => {
    let invalid = 0
    fc.assert(
      fc.property(text, text, (email, password) => {
        const expected = validateLogin({ email, password })
        if (Object.keys(expected).length > 0) invalid++
        expect(signInFormErrors({ email, password })).toEqual(expected)
      }),
      { numRuns: 2_000 },
    )
    // Both outcomes were exercised.
    expect(invalid).toBeGreaterThan(100)
    expect(invalid).toBeLessThan(2_000)
  })

  it("the forgot-password email gets the same message as the ForgotPasswordPayload schema", () => {
    fc.assert(
      fc.property(text, (email) => {
        expect(emailProblem(email)).toBe(validateForgotPassword({ email })["email"])
      }),
      { numRuns: 2_000 },
    )
    expect(emailProblem("")).toBe(M.emailRequired)
    expect(emailProblem("ada@example")).toBe(M.emailInvalid)
    expect(emailProblem("ada@example.com")).toBeUndefined()
  })
})
