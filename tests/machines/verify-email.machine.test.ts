import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock, type ActorRefFrom } from "xstate"
import type {
  ResendVerificationPayload,
  ResendVerificationResponse,
  VerifyEmailParams,
  VerifyEmailResponse,
} from "../../src/contracts/auth.ts"
import { resendVerificationMachine } from "../../src/machines/resend-verification.machine.ts"
import { verifyEmailMachine, type VerifyEmailInput } from "../../src/machines/verify-email.machine.ts"
import type { NavigateParams } from "../../src/machines/auth-effects.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, LONG_TOKEN, never, networkFailure, resendAnswer } from "./auth-fakes.ts"

const verified: VerifyEmailResponse = { ok: true, message: "Email verified", data: { email: "ada@example.com" } }

const start = (input: VerifyEmailInput) => {
  const verify = controlled<VerifyEmailParams, VerifyEmailResponse>()
  const resend = controlled<ResendVerificationPayload, ResendVerificationResponse>()
  const navigations: NavigateParams[] = []
  const actor = createActor(
    verifyEmailMachine.provide({
      actors: {
        verifyEmail: verify.logic,
        resendVerification: resendVerificationMachine.provide({ actors: { resendVerification: resend.logic } }),
      },
      actions: { navigate: (_, params) => void navigations.push(params) },
    }),
    { input, clock: new SimulatedClock() },
  ).start()
  const resendChild = () => actor.getSnapshot().children["resend"] as ActorRefFrom<typeof resendVerificationMachine> | undefined
  return { verify, resend, navigations, actor, resendChild }
}

describe("verify-email machine: transition coverage", () => {
  it("drives every (state, event) edge", async () => {
    const provided = verifyEmailMachine.provide({
      actors: {
        verifyEmail: never(),
        resendVerification: resendVerificationMachine.provide({ actors: { resendVerification: never() } }),
      },
    })
    const input = { token: LONG_TOKEN, email: "ada@example.com" }
    const coverage = await coverTransitions(provided, {
      input,
      createActor: (clock) => createActor(provided, { input, clock }),
      events: [
        { type: "verification.retried" },
        { type: "xstate.done.actor.verifyEmail", output: verified },
        { type: "xstate.error.actor.verifyEmail", error: httpFailure("verification", 409, { _tag: "AlreadyVerified", message: "Email already verified" }) },
        { type: "xstate.error.actor.verifyEmail", error: httpFailure("verification", 410, {}) },
        { type: "xstate.error.actor.verifyEmail", error: networkFailure("verification") },
      ],
    })
    console.info(formatCoverage("verifyEmail", coverage))
    expect(coverage.missing).toEqual([])
    // verifying: done + 3 errors; problem.failed: retried
    expect(coverage.total).toBe(5)
    expect(coverage.driven).toBe(coverage.total)
  })
})

describe("verify-email machine: behaviour", () => {
  it.each([
    [{ token: null, email: "ada@example.com" }, "Invalid verification link. Missing required parameters."],
    [{ token: LONG_TOKEN, email: "" }, "Invalid verification link. Missing required parameters."],
    [{ token: "a".repeat(31), email: "ada@example.com" }, "Invalid verification token format."],
    [{ token: LONG_TOKEN, email: "ada-at-example.com" }, "Invalid email format in verification link."],
  ])("checks the link before calling: %j → %s", (input, message) => {
    const { actor, verify } = start(input)
    try {
      expect(actor.getSnapshot().value).toEqual({ problem: "invalid" })
      expect(actor.getSnapshot().context.message).toBe(message)
      expect(verify.calls).toEqual([])
    } finally {
      actor.stop()
    }
  })

  it("a token of exactly 32 characters is accepted", () => {
    const { actor, verify } = start({ token: "b".repeat(32), email: "ada@example.com" })
    try {
      expect(actor.getSnapshot().value).toBe("verifying")
      expect(verify.calls).toEqual([{ token: "b".repeat(32), email: "ada@example.com" }])
    } finally {
      actor.stop()
    }
  })

  it("verifies (loading) and goes to /email-verification-success with 'Email verified successfully!'", async () => {
    const { actor, verify, navigations } = start({ token: LONG_TOKEN, email: "ada+1@example.com" })
    try {
      expect(actor.getSnapshot().value).toBe("verifying")
      await verify.resolve(verified)
      expect(actor.getSnapshot().value).toBe("verified")
      expect(navigations).toEqual([
        {
          to: "/email-verification-success?email=ada%2B1%40example.com",
          state: { message: "Email verified successfully!" },
          replace: true,
        },
      ])
    } finally {
      actor.stop()
    }
  })

  it("an 'already verified' answer is a success ('Email is already verified!')", async () => {
    const { actor, verify, navigations } = start({ token: LONG_TOKEN, email: "ada@example.com" })
    try {
      await verify.reject(httpFailure("verification", 409, { message: "Email already verified" }))
      expect(actor.getSnapshot().value).toBe("verified")
      expect(navigations[0]?.state).toEqual({ message: "Email is already verified!" })
    } finally {
      actor.stop()
    }
  })

  it.each([
    [httpFailure("verification", 400, { _tag: "InvalidToken", message: "invalid token" }), { problem: "invalid" }, "Invalid or expired verification link. Please request a new one."],
    [httpFailure("verification", 410, {}), { problem: "invalid" }, "Verification link has expired. Please request a new one."],
    [httpFailure("verification", 404, {}), { problem: "invalid" }, "User not found. Please sign up again."],
    [httpFailure("verification", 400, { message: "bad input" }), { problem: "failed" }, "Invalid verification data. Please try again."],
    [networkFailure("verification"), { problem: "failed" }, "Network error. Please check your connection and try again."],
    [httpFailure("verification", 500, {}), { problem: "failed" }, "An unexpected error occurred during verification"],
  ])("failure %# shows the §8 screen text", async (failure, state, message) => {
    const { actor, verify, navigations } = start({ token: LONG_TOKEN, email: "ada@example.com" })
    try {
      await verify.reject(failure)
      expect(actor.getSnapshot().value).toEqual(state)
      expect(actor.getSnapshot().context.message).toBe(message)
      expect(navigations).toEqual([])
    } finally {
      actor.stop()
    }
  })

  it("offers a resend to the link's address on failure, and a retry when it was not the link's fault", async () => {
    const { actor, verify, resend, resendChild } = start({ token: LONG_TOKEN, email: "ada@example.com" })
    try {
      await verify.reject(networkFailure("verification"))
      const child = resendChild()!
      expect(child.getSnapshot().can({ type: "resend.requested" })).toBe(true)
      child.send({ type: "resend.requested" })
      expect(resend.calls).toEqual([{ email: "ada@example.com" }])
      await resend.resolve(resendAnswer("ada@example.com"))
      expect(child.getSnapshot().value).toBe("sent")
      expect(actor.getSnapshot().can({ type: "verification.retried" })).toBe(true)
      actor.send({ type: "verification.retried" })
      expect(actor.getSnapshot().value).toBe("verifying")
      expect(verify.calls).toHaveLength(2)
    } finally {
      actor.stop()
    }
  })

  it("an invalid link cannot be retried, and a malformed address cannot be resent to", () => {
    const { actor, resendChild } = start({ token: LONG_TOKEN, email: "nope" })
    try {
      expect(actor.getSnapshot().can({ type: "verification.retried" })).toBe(false)
      expect(resendChild()!.getSnapshot().can({ type: "resend.requested" })).toBe(false)
    } finally {
      actor.stop()
    }
  })
})
