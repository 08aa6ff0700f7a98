import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock, type ActorRefFrom } from "xstate"
import type {
  ResendVerificationPayload,
  ResendVerificationResponse,
  SignupPayload,
  SignupResponse,
} from "../../src/contracts/auth.ts"
import { resendVerificationMachine } from "../../src/machines/resend-verification.machine.ts"
import { signupMachine, type SignupInput, type SignupValues } from "../../src/machines/signup.machine.ts"
import type { NavigateParams } from "../../src/machines/auth-effects.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never, networkFailure, resendAnswer } from "./auth-fakes.ts"

const VALID: SignupValues = {
  first_name: " Ada ",
  last_name: "Lovelace",
  email: " ada@example.com ",
  password: "Engine-1843",
  confirm_password: "Engine-1843",
  workspace_name: " Analytical Engines ",
}

const pending: SignupResponse = {
  ok: true,
  status_code: 201,
  message: "Account created",
  data: { note: "verification_pending", email: "ada@example.com" },
}
/** A success without the verification note (the contract's current server always sends it). */
const plainSuccess = { ok: true, status_code: 201, message: "Account created", data: {} } as unknown as SignupResponse

const start = (input: SignupInput = { timezone: "Europe/London" }) => {
  const signup = controlled<SignupPayload, SignupResponse>()
  const resend = controlled<ResendVerificationPayload, ResendVerificationResponse>()
  const navigations: NavigateParams[] = []
  const actor = createActor(
    signupMachine.provide({
      actors: {
        signup: signup.logic,
        resendVerification: resendVerificationMachine.provide({ actors: { resendVerification: resend.logic } }),
      },
      actions: { navigate: (_, params) => void navigations.push(params) },
    }),
    { input, clock: new SimulatedClock() },
  ).start()
  const fill = (values: Partial<SignupValues>) => {
    for (const [field, value] of Object.entries(values)) {
      actor.send({ type: "field.changed", field: field as keyof SignupValues, value: value as string })
    }
  }
  const submitValid = () => {
    fill(VALID)
    actor.send({ type: "form.submitted" })
  }
  return { signup, resend, navigations, actor, fill, submitValid }
}

describe("signup machine: transition coverage", () => {
  it("drives every (state, event) edge", async () => {
    const provided = signupMachine.provide({
      actors: {
        signup: never(),
        resendVerification: resendVerificationMachine.provide({ actors: { resendVerification: never() } }),
      },
    })
    const input: SignupInput = { timezone: "Europe/London", initialValues: VALID }
    const coverage = await coverTransitions(provided, {
      input,
      createActor: (clock) => createActor(provided, { input, clock }),
      events: [
        { type: "field.changed", field: "first_name", value: "Ada" },
        { type: "form.submitted" },
        { type: "signIn.requested" },
        { type: "xstate.done.actor.signup", output: pending },
        { type: "xstate.done.actor.signup", output: plainSuccess },
        { type: "xstate.error.actor.signup", error: httpFailure("signup", 409, { message: "Email already registered", data: { error_type: "account_unverified" } }) },
        { type: "xstate.error.actor.signup", error: httpFailure("signup", 429) },
      ],
    })
    console.info(formatCoverage("signup", coverage))
    expect(coverage.missing).toEqual([])
    // editing: changed, submitted; submitting: 2 done, 2 error; sent: signIn.requested
    expect(coverage.total).toBe(7)
    expect(coverage.driven).toBe(coverage.total)
  })
})

describe("signup machine: behaviour", () => {
  it("shows the §5 messages on step 1 and does not call the server", () => {
    const { actor, fill, signup } = start()
    try {
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.fieldErrors).toMatchObject({
        first_name: "First name is required",
        last_name: "Last name is required",
        email: "Email is required",
        password: "Password is required",
        confirm_password: "Please confirm your password",
        workspace_name: "Workspace name must be at least 3 characters",
      })
      fill({
        first_name: "A".repeat(51),
        last_name: "Lovelace",
        email: "ada@example",
        password: "alllowercase1",
        confirm_password: "different",
        workspace_name: " ab ",
      })
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.fieldErrors).toEqual({
        first_name: "First name must be less than 50 characters",
        email: "Please enter a valid email address",
        password: "Password must contain at least one uppercase letter, one lowercase letter, and one number",
        confirm_password: "Passwords don't match",
        workspace_name: "Workspace name must be at least 3 characters",
      })
      fill({ password: "Engine-1843", confirm_password: "Engine-1844" })
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.fieldErrors["confirm_password"]).toBe("Passwords don't match")
      fill({ confirm_password: "Engine-1843" })
      expect(actor.getSnapshot().context.fieldErrors["confirm_password"]).toBeUndefined()
      expect(signup.calls).toEqual([])
      expect(actor.getSnapshot().value).toEqual({ form: "editing" })
    } finally {
      actor.stop()
    }
  })

  it("sends the trimmed payload with the browser's timezone and no confirmation field", () => {
    const { signup, submitValid, actor } = start()
    try {
      submitValid()
      expect(actor.getSnapshot().value).toEqual({ form: "submitting" })
      expect(actor.getSnapshot().can({ type: "form.submitted" })).toBe(false)
      expect(signup.calls).toEqual([
        {
          first_name: "Ada",
          last_name: "Lovelace",
          email: "ada@example.com",
          password: "Engine-1843",
          workspace_name: "Analytical Engines",
          timezone: "Europe/London",
        },
      ])
    } finally {
      actor.stop()
    }
  })

  it("verification_pending → /verification-pending carrying the address", async () => {
    const { signup, submitValid, actor, navigations } = start()
    try {
      submitValid()
      await signup.resolve(pending)
      expect(actor.getSnapshot().value).toBe("redirected")
      expect(navigations).toEqual([{ to: "/verification-pending", state: { email: "ada@example.com" } }])
    } finally {
      actor.stop()
    }
  })

  it("any other success shows step 2 with resend, and the sign-in link carries the §4 message", async () => {
    const { signup, resend, submitValid, actor, navigations } = start()
    try {
      submitValid()
      await signup.resolve(plainSuccess)
      expect(actor.getSnapshot().value).toBe("sent")
      expect(actor.getSnapshot().context.values.password).toBe("")
      const child = actor.getSnapshot().children["resend"] as ActorRefFrom<typeof resendVerificationMachine>
      expect(resend.calls).toEqual([])
      child.send({ type: "resend.requested" })
      expect(resend.calls).toEqual([{ email: "ada@example.com" }])
      await resend.resolve(resendAnswer("ada@example.com"))
      expect(child.getSnapshot().value).toBe("sent")
      actor.send({ type: "signIn.requested" })
      expect(navigations).toEqual([
        {
          to: "/login",
          state: {
            email: "ada@example.com",
            message: "Verification email sent! Please check your inbox and follow the link to activate your account.",
          },
        },
      ])
    } finally {
      actor.stop()
    }
  })

  it("409 for an existing account → /login with the resend hint (unverified) or the sign-in hint (verified)", async () => {
    const unverified = start()
    const verified = start()
    try {
      unverified.submitValid()
      await unverified.signup.reject(
        httpFailure("signup", 409, { _tag: "Conflict", message: "Email already registered", data: { error_type: "account_unverified" } }),
      )
      expect(unverified.actor.getSnapshot().value).toBe("redirected")
      expect(unverified.navigations).toEqual([
        {
          to: "/login",
          state: {
            email: "ada@example.com",
            message:
              "An account with this email already exists but is not verified. Please check your inbox or request a new verification email.",
            error: true,
          },
        },
      ])
      verified.submitValid()
      await verified.signup.reject(httpFailure("signup", 409, { _tag: "Conflict", message: "Email already registered" }))
      expect(verified.navigations[0]?.state).toMatchObject({ message: "An account with this email already exists. Please sign in." })
    } finally {
      unverified.actor.stop()
      verified.actor.stop()
    }
  })

  it("409 workspace exists, 400, 401, 422, 429, 5xx and no response stay on step 1 with the §8 texts", async () => {
    const { signup, submitValid, actor, navigations } = start()
    const cases: Array<[Parameters<typeof signup.reject>[0], string]> = [
      [
        httpFailure("signup", 409, { message: "Workspace already exists. Please choose a different workspace name.", data: { error_type: "workspace_exists" } }),
        "Workspace already exists. Please choose a different workspace name.",
      ],
      [httpFailure("signup", 400, { message: "Email is required" }), "Email is required"],
      [httpFailure("signup", 400, {}), "Invalid input. Please check your details and try again."],
      [httpFailure("signup", 401, {}), "Authentication failed. Please try again."],
      [httpFailure("signup", 422, { message: "whatever" }), "Please check your input and try again."],
      [httpFailure("signup", 429, {}), "Too many signup attempts. Please try again later."],
      [httpFailure("signup", 502, {}), "Server is temporarily unavailable. Please try again later."],
      [httpFailure("signup", 418, {}), "Failed to create account. Please try again."],
      [networkFailure("signup"), "Unable to connect to the server. Please check your internet connection."],
    ]
    try {
      submitValid()
      for (const [failure, text] of cases) {
        await signup.reject(failure)
        expect(actor.getSnapshot().value).toEqual({ form: "editing" })
        expect(actor.getSnapshot().context.error).toBe(text)
        actor.send({ type: "form.submitted" })
        expect(actor.getSnapshot().context.error).toBeUndefined()
      }
      expect(navigations).toEqual([])
    } finally {
      actor.stop()
    }
  })
})
