import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock } from "xstate"
import type { ForgotPasswordPayload } from "../../src/contracts/auth.ts"
import type { OkMessage } from "../../src/contracts/common.ts"
import { forgotPasswordMachine, type ForgotPasswordInput } from "../../src/machines/forgot-password.machine.ts"
import type { NotifyParams } from "../../src/machines/auth-effects.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never, networkFailure } from "./auth-fakes.ts"

const start = (input: ForgotPasswordInput = {}) => {
  const forgot = controlled<ForgotPasswordPayload, OkMessage>()
  const toasts: NotifyParams[] = []
  const actor = createActor(
    forgotPasswordMachine.provide({
      actors: { forgotPassword: forgot.logic },
      actions: { notify: (_, params) => void toasts.push(params) },
    }),
    { input, clock: new SimulatedClock() },
  ).start()
  return { forgot, toasts, actor }
}

describe("forgot-password machine: transition coverage", () => {
  it("drives every (state, event) edge", async () => {
    const provided = forgotPasswordMachine.provide({ actors: { forgotPassword: never() } })
    const input = { email: "ada@example.com" }
    const coverage = await coverTransitions(provided, {
      input,
      createActor: (clock) => createActor(provided, { input, clock }),
      events: [
        { type: "dialog.opened" },
        { type: "field.changed", value: "ada@example.com" },
        { type: "form.submitted" },
        { type: "dialog.closed" },
        { type: "xstate.done.actor.forgotPassword", output: { ok: true, message: "sent" } },
        { type: "xstate.error.actor.forgotPassword", error: httpFailure("forgot-password", 500) },
      ],
    })
    console.info(formatCoverage("forgotPassword", coverage))
    expect(coverage.missing).toEqual([])
    // closed: opened; editing: changed, submitted, closed; sending: done, error
    expect(coverage.total).toBe(6)
    expect(coverage.driven).toBe(coverage.total)
  })
})

describe("forgot-password machine: behaviour", () => {
  it("opens prefilled with the sign-in email; send is disabled while the email is empty", () => {
    const { actor } = start()
    try {
      expect(actor.getSnapshot().value).toBe("closed")
      actor.send({ type: "dialog.opened", email: "ada@example.com" })
      expect(actor.getSnapshot().value).toEqual({ open: "editing" })
      expect(actor.getSnapshot().context.email).toBe("ada@example.com")
      expect(actor.getSnapshot().can({ type: "form.submitted" })).toBe(true)
      actor.send({ type: "field.changed", value: "   " })
      expect(actor.getSnapshot().can({ type: "form.submitted" })).toBe(false)
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().value).toEqual({ open: "editing" })
    } finally {
      actor.stop()
    }
  })

  it("a malformed address shows the §5 message instead of calling", () => {
    const { actor, forgot } = start()
    try {
      actor.send({ type: "dialog.opened" })
      actor.send({ type: "field.changed", value: "ada@" })
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.fieldError).toBe("Please enter a valid email address")
      expect(forgot.calls).toEqual([])
      actor.send({ type: "field.changed", value: "ada@example.com" })
      expect(actor.getSnapshot().context.fieldError).toBeUndefined()
    } finally {
      actor.stop()
    }
  })

  it("sends, closes and toasts 'Password reset email sent successfully'", async () => {
    const { actor, forgot, toasts } = start()
    try {
      actor.send({ type: "dialog.opened" })
      actor.send({ type: "field.changed", value: " ada@example.com " })
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().value).toEqual({ open: "sending" })
      expect(forgot.calls).toEqual([{ email: "ada@example.com" }])
      expect(actor.getSnapshot().can({ type: "dialog.closed" })).toBe(false)
      expect(actor.getSnapshot().can({ type: "form.submitted" })).toBe(false)
      await forgot.resolve({ ok: true, message: "If the address exists, an email was sent" })
      expect(actor.getSnapshot().value).toBe("closed")
      expect(toasts).toEqual([{ kind: "success", message: "Password reset email sent successfully" }])
    } finally {
      actor.stop()
    }
  })

  it("a failure keeps the modal open with 'Failed to send password reset email' inline and as a toast", async () => {
    const { actor, forgot, toasts } = start({ email: "ada@example.com" })
    try {
      actor.send({ type: "dialog.opened" })
      actor.send({ type: "form.submitted" })
      await forgot.reject(httpFailure("forgot-password", 500))
      expect(actor.getSnapshot().value).toEqual({ open: "editing" })
      expect(actor.getSnapshot().context.error).toBe("Failed to send password reset email")
      expect(toasts).toEqual([{ kind: "error", message: "Failed to send password reset email" }])
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.error).toBeUndefined()
      await forgot.reject(networkFailure("forgot-password"))
      expect(actor.getSnapshot().context.error).toBe("Unable to connect to the server. Please check your internet connection.")
    } finally {
      actor.stop()
    }
  })

  it("closing and reopening clears the last error", async () => {
    const { actor, forgot } = start({ email: "ada@example.com" })
    try {
      actor.send({ type: "dialog.opened" })
      actor.send({ type: "form.submitted" })
      await forgot.reject(httpFailure("forgot-password", 500))
      actor.send({ type: "dialog.closed" })
      expect(actor.getSnapshot().value).toBe("closed")
      actor.send({ type: "dialog.opened" })
      expect(actor.getSnapshot().context.error).toBeUndefined()
      expect(actor.getSnapshot().context.email).toBe("ada@example.com")
    } finally {
      actor.stop()
    }
  })
})
