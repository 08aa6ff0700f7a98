import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock, type ActorRefFrom } from "xstate"
import type { ResendVerificationPayload, ResendVerificationResponse } from "../../src/contracts/auth.ts"
import { resendVerificationMachine } from "../../src/machines/resend-verification.machine.ts"
import { verificationPendingMachine, type VerificationPendingInput } from "../../src/machines/verification-pending.machine.ts"
import type { NotifyParams } from "../../src/machines/auth-effects.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never, resendAnswer } from "./auth-fakes.ts"

const start = (input: VerificationPendingInput = {}) => {
  const clock = new SimulatedClock()
  const resend = controlled<ResendVerificationPayload, ResendVerificationResponse>()
  const toasts: NotifyParams[] = []
  const actor = createActor(
    verificationPendingMachine.provide({
      actors: {
        resendVerification: resendVerificationMachine.provide({
          actors: { resendVerification: resend.logic },
          actions: { notify: (_, params) => void toasts.push(params) },
        }),
      },
    }),
    { input, clock },
  ).start()
  const child = () => actor.getSnapshot().children["resend"] as ActorRefFrom<typeof resendVerificationMachine>
  return { clock, resend, toasts, actor, child }
}

describe("verification-pending machine: transition coverage", () => {
  it("drives every (state, event) edge", async () => {
    const provided = verificationPendingMachine.provide({
      actors: { resendVerification: resendVerificationMachine.provide({ actors: { resendVerification: never() } }) },
    })
    const coverage = await coverTransitions(provided, {
      createActor: (clock) => createActor(provided, { input: {}, clock }),
      input: {},
      events: [{ type: "field.changed", value: "ada@example.com" }, { type: "form.submitted" }],
    })
    console.info(formatCoverage("verificationPending", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.total).toBe(2)
    expect(coverage.driven).toBe(coverage.total)
  })
})

describe("verification-pending machine: behaviour", () => {
  it("starts with the address carried from sign-up and resends to it", async () => {
    const { actor, resend, child, toasts } = start({ email: "ada@example.com" })
    try {
      expect(actor.getSnapshot().context.email).toBe("ada@example.com")
      actor.send({ type: "form.submitted" })
      expect(resend.calls).toEqual([{ email: "ada@example.com" }])
      expect(child().getSnapshot().value).toBe("sending")
      await resend.resolve(resendAnswer("ada@example.com", 30))
      expect(child().getSnapshot().context.message).toBe("Verification email sent to ada@example.com. The link expires in 30 minutes.")
      expect(toasts).toHaveLength(1)
    } finally {
      actor.stop()
    }
  })

  it("validates the address on the field", () => {
    const { actor, resend } = start()
    try {
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.fieldError).toBe("Email is required")
      actor.send({ type: "field.changed", value: "ada@" })
      expect(actor.getSnapshot().context.fieldError).toBeUndefined()
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.fieldError).toBe("Please enter a valid email address")
      expect(resend.calls).toEqual([])
    } finally {
      actor.stop()
    }
  })

  it("429 → 'Please wait N minute(s)…' and no resend until the wait is over", async () => {
    const { actor, resend, child, clock } = start({ email: "ada@example.com" })
    try {
      actor.send({ type: "form.submitted" })
      await resend.reject(httpFailure("resend", 429, { retry_after_seconds: 45 }))
      expect(child().getSnapshot().context.message).toBe("Please wait 1 minute(s) before requesting another verification email")
      // A second submit while waiting is swallowed by the child.
      actor.send({ type: "form.submitted" })
      expect(resend.calls).toHaveLength(1)
      expect(child().getSnapshot().can({ type: "resend.requested", email: "ada@example.com" })).toBe(false)
      clock.increment(45_000)
      expect(child().getSnapshot().can({ type: "resend.requested", email: "ada@example.com" })).toBe(true)
      actor.send({ type: "field.changed", value: "grace@example.com" })
      actor.send({ type: "form.submitted" })
      expect(resend.calls).toEqual([{ email: "ada@example.com" }, { email: "grace@example.com" }])
    } finally {
      actor.stop()
    }
  })
})
