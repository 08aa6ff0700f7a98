import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock } from "xstate"
import type { ResendVerificationPayload, ResendVerificationResponse } from "../../src/contracts/auth.ts"
import { resendVerificationMachine, type ResendVerificationInput } from "../../src/machines/resend-verification.machine.ts"
import type { NotifyParams } from "../../src/machines/auth-effects.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, flush, httpFailure, never, networkFailure, resendAnswer } from "./auth-fakes.ts"

const start = (input: ResendVerificationInput = { email: "ada@example.com" }) => {
  const clock = new SimulatedClock()
  const resend = controlled<ResendVerificationPayload, ResendVerificationResponse>()
  const toasts: NotifyParams[] = []
  const actor = createActor(
    resendVerificationMachine.provide({
      actors: { resendVerification: resend.logic },
      actions: { notify: (_, params) => void toasts.push(params) },
    }),
    { input, clock },
  ).start()
  return { clock, resend, toasts, actor }
}

describe("resend verification machine: transition coverage", () => {
  it("drives every (state, event) edge, the cool-down and the rate-limit wait on a simulated clock", async () => {
    const coverage = await coverTransitions(resendVerificationMachine, {
      input: { email: "ada@example.com" },
      createActor: (clock) =>
        createActor(resendVerificationMachine.provide({ actors: { resendVerification: never() } }), {
          input: { email: "ada@example.com" },
          clock,
        }),
      events: [
        { type: "resend.requested" },
        { type: "xstate.done.actor.resendVerification", output: resendAnswer("ada@example.com") },
        { type: "xstate.error.actor.resendVerification", error: httpFailure("resend", 429, { retry_after_seconds: 120 }) },
        { type: "xstate.error.actor.resendVerification", error: httpFailure("resend", 409, { message: "Email already verified" }) },
        { type: "xstate.error.actor.resendVerification", error: networkFailure("resend") },
      ],
    })
    console.info(formatCoverage("resendVerification", coverage))
    expect(coverage.missing).toEqual([])
    // idle: requested; sending: done, 3 errors; sent: after; rateLimited: after; failed: requested
    expect(coverage.total).toBe(8)
    expect(coverage.driven).toBe(coverage.total)
  })
})

describe("resend verification machine: behaviour", () => {
  it("sends on request, reports the link lifetime inline and as a toast, then refuses resends for 60 s", async () => {
    const { clock, resend, toasts, actor } = start()
    try {
      expect(actor.getSnapshot().value).toBe("idle")
      actor.send({ type: "resend.requested" })
      expect(actor.getSnapshot().value).toBe("sending")
      expect(resend.calls).toEqual([{ email: "ada@example.com" }])
      expect(actor.getSnapshot().can({ type: "resend.requested" })).toBe(false)
      await resend.resolve(resendAnswer("ada@example.com", 30))
      expect(actor.getSnapshot().value).toBe("sent")
      const message = "Verification email sent to ada@example.com. The link expires in 30 minutes."
      expect(actor.getSnapshot().context).toMatchObject({ message, tone: "success" })
      expect(toasts).toEqual([{ kind: "success", message }])
      expect(actor.getSnapshot().can({ type: "resend.requested" })).toBe(false)
      clock.increment(59_999)
      expect(actor.getSnapshot().value).toBe("sent")
      clock.increment(1)
      expect(actor.getSnapshot().value).toBe("idle")
      expect(actor.getSnapshot().can({ type: "resend.requested" })).toBe(true)
    } finally {
      actor.stop()
    }
  })

  it("sends at once when started with autoSend (the login's automatic resend)", async () => {
    const { resend, actor } = start({ email: " ada@example.com ", autoSend: true })
    try {
      expect(actor.getSnapshot().value).toBe("sending")
      expect(resend.calls).toEqual([{ email: "ada@example.com" }])
    } finally {
      actor.stop()
    }
  })

  it("does not auto-send without a usable address", () => {
    const { resend, actor } = start({ email: "not-an-email", autoSend: true })
    try {
      expect(actor.getSnapshot().value).toBe("idle")
      expect(resend.calls).toEqual([])
      expect(actor.getSnapshot().can({ type: "resend.requested" })).toBe(false)
      expect(actor.getSnapshot().can({ type: "resend.requested", email: "grace@example.com" })).toBe(true)
    } finally {
      actor.stop()
    }
  })

  it("uses the address of the request over the one it started with", () => {
    const { resend, actor } = start({})
    try {
      actor.send({ type: "resend.requested", email: "  grace@example.com " })
      expect(resend.calls).toEqual([{ email: "grace@example.com" }])
      expect(actor.getSnapshot().context.email).toBe("grace@example.com")
    } finally {
      actor.stop()
    }
  })

  it("429 says 'Please wait N minute(s)…' from retry_after_seconds and waits exactly that long", async () => {
    const { clock, resend, toasts, actor } = start()
    try {
      actor.send({ type: "resend.requested" })
      await resend.reject(httpFailure("resend", 429, { message: "Too many requests", retry_after_seconds: 150 }))
      expect(actor.getSnapshot().value).toBe("rateLimited")
      expect(actor.getSnapshot().context).toMatchObject({
        message: "Please wait 3 minute(s) before requesting another verification email",
        tone: "warning",
      })
      expect(toasts).toEqual([])
      expect(actor.getSnapshot().can({ type: "resend.requested" })).toBe(false)
      clock.increment(149_999)
      expect(actor.getSnapshot().value).toBe("rateLimited")
      clock.increment(1)
      expect(actor.getSnapshot().value).toBe("idle")
    } finally {
      actor.stop()
    }
  })

  it("429 without retry_after_seconds waits the 60 s default", async () => {
    const { clock, resend, actor } = start()
    try {
      actor.send({ type: "resend.requested" })
      await resend.reject(httpFailure("resend", 429, {}))
      expect(actor.getSnapshot().context.message).toBe("Please wait 1 minute(s) before requesting another verification email")
      clock.increment(60_000)
      expect(actor.getSnapshot().value).toBe("idle")
    } finally {
      actor.stop()
    }
  })

  it("an already verified address is final: the user can sign in", async () => {
    const { resend, actor } = start()
    try {
      actor.send({ type: "resend.requested" })
      await resend.reject(httpFailure("resend", 409, { message: "Email already verified" }))
      expect(actor.getSnapshot().value).toBe("alreadyVerified")
      expect(actor.getSnapshot().context.message).toBe("Email is already verified! You can sign in now.")
      expect(actor.getSnapshot().can({ type: "resend.requested" })).toBe(false)
    } finally {
      actor.stop()
    }
  })

  it("other failures show the §8 resend text and allow another try", async () => {
    const { resend, actor } = start()
    try {
      actor.send({ type: "resend.requested" })
      await resend.reject(httpFailure("resend", 500, {}))
      expect(actor.getSnapshot().value).toBe("failed")
      expect(actor.getSnapshot().context).toMatchObject({
        message: "Failed to resend verification email. Please try again.",
        tone: "error",
      })
      actor.send({ type: "resend.requested" })
      await resend.reject(networkFailure("resend"))
      expect(actor.getSnapshot().context.message).toBe("Unable to connect to the server. Please check your internet connection.")
      actor.send({ type: "resend.requested" })
      expect(actor.getSnapshot().value).toBe("sending")
      await resend.reject(httpFailure("resend", 400, { message: "bad" }))
      expect(actor.getSnapshot().context.message).toBe("Invalid email address. Please check and try again.")
    } finally {
      actor.stop()
    }
  })

  it("cancels the request when stopped mid-flight", async () => {
    const { resend, actor } = start({ email: "ada@example.com", autoSend: true })
    actor.stop()
    await flush()
    expect(resend.aborted()).toBe(1)
  })
})
