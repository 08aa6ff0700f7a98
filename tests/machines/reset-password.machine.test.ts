import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock } from "xstate"
import type { ResetPasswordPayload, ValidateResetTokenPayload, ValidateResetTokenResponse } from "../../src/contracts/auth.ts"
import type { OkMessage } from "../../src/contracts/common.ts"
import { resetPasswordMachine, type ResetPasswordInput } from "../../src/machines/reset-password.machine.ts"
import type { NavigateParams } from "../../src/machines/auth-effects.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never, networkFailure } from "./auth-fakes.ts"

const validToken: ValidateResetTokenResponse = { ok: true, data: { email: "ada@example.com" } }

const start = (input: ResetPasswordInput = { token: "reset-token-1" }) => {
  const validate = controlled<ValidateResetTokenPayload, ValidateResetTokenResponse>()
  const reset = controlled<ResetPasswordPayload, OkMessage>()
  const navigations: NavigateParams[] = []
  const actor = createActor(
    resetPasswordMachine.provide({
      actors: { validateResetToken: validate.logic, resetPassword: reset.logic },
      actions: { navigate: (_, params) => void navigations.push(params) },
    }),
    { input, clock: new SimulatedClock() },
  ).start()
  const type = (field: "new_password" | "confirm_password", value: string) => actor.send({ type: "field.changed", field, value })
  return { validate, reset, navigations, actor, type }
}

describe("reset-password machine: transition coverage", () => {
  it("drives every (state, event) edge", async () => {
    const provided = resetPasswordMachine.provide({ actors: { validateResetToken: never(), resetPassword: never() } })
    const input: ResetPasswordInput = { token: "reset-token-1", initialValues: { new_password: "Engine-1843", confirm_password: "Engine-1843" } }
    const coverage = await coverTransitions(provided, {
      input,
      createActor: (clock) => createActor(provided, { input, clock }),
      events: [
        { type: "field.changed", field: "new_password", value: "Engine-1843" },
        { type: "visibility.toggled", field: "new_password" },
        { type: "form.submitted" },
        { type: "validation.retried" },
        { type: "signIn.requested" },
        { type: "xstate.done.actor.validateResetToken", output: validToken },
        { type: "xstate.error.actor.validateResetToken", error: httpFailure("reset-password", 400, { _tag: "InvalidToken", message: "Invalid token" }) },
        { type: "xstate.error.actor.validateResetToken", error: networkFailure("reset-password") },
        { type: "xstate.done.actor.resetPassword", output: { ok: true, message: "Password reset" } },
        { type: "xstate.error.actor.resetPassword", error: httpFailure("reset-password", 410, {}) },
        { type: "xstate.error.actor.resetPassword", error: httpFailure("reset-password", 500, {}) },
      ],
    })
    console.info(formatCoverage("resetPassword", coverage))
    expect(coverage.missing).toEqual([])
    // validating: done + 2 errors; unavailable: retried; editing: changed, toggled, submitted;
    // submitting: changed, toggled, done + 2 errors; succeeded: signIn.requested
    expect(coverage.total).toBe(13)
    expect(coverage.driven).toBe(coverage.total)
  })
})

describe("reset-password machine: behaviour", () => {
  it("without a token the link is invalid at once", () => {
    const { actor, validate } = start({ token: null })
    try {
      expect(actor.getSnapshot().value).toBe("invalid")
      expect(actor.getSnapshot().context.error).toBe("Invalid or expired reset link")
      expect(validate.calls).toEqual([])
    } finally {
      actor.stop()
    }
  })

  it("validates the token first, then offers the form", async () => {
    const { actor, validate } = start({ token: " reset-token-1 " })
    try {
      expect(actor.getSnapshot().value).toBe("validating")
      expect(validate.calls).toEqual([{ token: "reset-token-1" }])
      await validate.resolve(validToken)
      expect(actor.getSnapshot().value).toEqual({ valid: "editing" })
      expect(actor.getSnapshot().context.email).toBe("ada@example.com")
    } finally {
      actor.stop()
    }
  })

  it.each([
    [httpFailure("reset-password", 400, { _tag: "InvalidToken", message: "Invalid token" })],
    [httpFailure("reset-password", 410, { message: "Token expired" })],
    [httpFailure("reset-password", 404, {})],
    [httpFailure("reset-password", 400, { message: "token is required" })],
  ])("a refused token (%#) shows 'Invalid or expired reset link'", async (failure) => {
    const { actor, validate } = start()
    try {
      await validate.reject(failure)
      expect(actor.getSnapshot().value).toBe("invalid")
      expect(actor.getSnapshot().context.error).toBe("Invalid or expired reset link")
    } finally {
      actor.stop()
    }
  })

  it("a check that could not run (network, 5xx) offers a retry instead of calling the link dead", async () => {
    const { actor, validate } = start()
    try {
      await validate.reject(networkFailure("reset-password"))
      expect(actor.getSnapshot().value).toBe("unavailable")
      expect(actor.getSnapshot().context.error).toBe("Unable to connect to the server. Please check your internet connection.")
      actor.send({ type: "validation.retried" })
      expect(actor.getSnapshot().value).toBe("validating")
      await validate.reject(httpFailure("reset-password", 503, {}))
      expect(actor.getSnapshot().context.error).toBe("Failed to reset password")
      actor.send({ type: "validation.retried" })
      await validate.resolve(validToken)
      expect(actor.getSnapshot().value).toEqual({ valid: "editing" })
    } finally {
      actor.stop()
    }
  })

  it("applies the sign-up password rules and the match rule to the form", async () => {
    const { actor, validate, reset, type } = start()
    try {
      await validate.resolve(validToken)
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.fieldErrors).toEqual({
        new_password: "Password is required",
        confirm_password: "Please confirm your password",
      })
      type("new_password", "short")
      type("confirm_password", "short")
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.fieldErrors).toEqual({ new_password: "Password must be at least 8 characters" })
      type("new_password", "lowercase-only-1")
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.fieldErrors["new_password"]).toBe(
        "Password must contain at least one uppercase letter, one lowercase letter, and one number",
      )
      type("new_password", "Engine-1843")
      type("confirm_password", "Engine-1844")
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.fieldErrors).toEqual({ confirm_password: "Passwords don't match" })
      expect(reset.calls).toEqual([])
    } finally {
      actor.stop()
    }
  })

  it("toggles each field's visibility independently", async () => {
    const { actor, validate } = start()
    try {
      await validate.resolve(validToken)
      actor.send({ type: "visibility.toggled", field: "confirm_password" })
      expect(actor.getSnapshot().context.visible).toEqual({ new_password: false, confirm_password: true })
    } finally {
      actor.stop()
    }
  })

  it("resets, shows the success screen, and the sign-in button carries 'Password reset successfully!'", async () => {
    const { actor, validate, reset, type, navigations } = start()
    try {
      await validate.resolve(validToken)
      type("new_password", "Engine-1843")
      type("confirm_password", "Engine-1843")
      actor.send({ type: "visibility.toggled", field: "new_password" })
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().value).toEqual({ valid: "submitting" })
      expect(reset.calls).toEqual([{ token: "reset-token-1", new_password: "Engine-1843", confirm_password: "Engine-1843" }])
      await reset.resolve({ ok: true, message: "Password reset" })
      expect(actor.getSnapshot().value).toBe("succeeded")
      expect(actor.getSnapshot().context.values).toEqual({ new_password: "", confirm_password: "" })
      expect(actor.getSnapshot().context.visible).toEqual({ new_password: false, confirm_password: false })
      actor.send({ type: "signIn.requested" })
      expect(navigations).toEqual([{ to: "/login", state: { email: "ada@example.com", message: "Password reset successfully!" } }])
    } finally {
      actor.stop()
    }
  })

  it("a reset refused for the token ends on the invalid screen; other failures stay on the form", async () => {
    const { actor, validate, reset, type } = start()
    try {
      await validate.resolve(validToken)
      type("new_password", "Engine-1843")
      type("confirm_password", "Engine-1843")
      actor.send({ type: "form.submitted" })
      await reset.reject(httpFailure("reset-password", 400, { message: "Password must contain at least one uppercase letter, one lowercase letter, and one number" }))
      expect(actor.getSnapshot().value).toEqual({ valid: "editing" })
      expect(actor.getSnapshot().context.error).toBe(
        "Password must contain at least one uppercase letter, one lowercase letter, and one number",
      )
      actor.send({ type: "form.submitted" })
      await reset.reject(httpFailure("reset-password", 500, {}))
      expect(actor.getSnapshot().context.error).toBe("Failed to reset password")
      actor.send({ type: "form.submitted" })
      await reset.reject(httpFailure("reset-password", 410, {}))
      expect(actor.getSnapshot().value).toBe("invalid")
      expect(actor.getSnapshot().context.error).toBe("Invalid or expired reset link")
      expect(actor.getSnapshot().context.values).toEqual({ new_password: "", confirm_password: "" })
    } finally {
      actor.stop()
    }
  })
})
