import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock, type SnapshotFrom } from "xstate"
import type { OkMessage } from "../../src/contracts/common.ts"
import type { ChangePasswordPayload } from "../../src/contracts/profile.ts"
import { changePasswordMachine, PASSWORD_FIELDS } from "../../src/machines/change-password.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"
import { toastRecorder } from "./team-fakes.ts"

const start = () => {
  const change = controlled<ChangePasswordPayload, OkMessage>()
  const { toasts, notify } = toastRecorder()
  const actor = createActor(changePasswordMachine.provide({ actors: { changePassword: change.logic }, actions: { notify } }), {
    clock: new SimulatedClock(),
  }).start()
  return { actor, change, toasts }
}

type Actor = ReturnType<typeof start>["actor"]

const fill = (actor: Actor) => {
  actor.send({ type: "field.changed", field: "current_password", value: "Analytical1" })
  actor.send({ type: "field.changed", field: "new_password", value: "Difference2" })
  actor.send({ type: "field.changed", field: "confirm_password", value: "Difference2" })
}

describe("change-password machine: transition coverage", () => {
  it("drives every (state, event) edge", async () => {
    const provided = changePasswordMachine.provide({ actors: { changePassword: never() } })
    // Keyed by value and which fields are filled, so the valid form (and so `confirming`) is reachable.
    const serializeState = (s: SnapshotFrom<typeof provided>) =>
      JSON.stringify([s.value, PASSWORD_FIELDS.map((f) => s.context.values[f] !== "")])
    const coverage = await coverTransitions(provided, {
      serializeState,
      createActor: (clock) => createActor(provided, { clock }),
      events: [
        { type: "field.changed", field: "current_password", value: "Analytical1" },
        { type: "field.changed", field: "new_password", value: "Difference2" },
        { type: "field.changed", field: "confirm_password", value: "Difference2" },
        { type: "visibility.toggled", field: "new_password" },
        { type: "form.reset" },
        { type: "form.submitted" },
        { type: "confirm.accepted" },
        { type: "confirm.cancelled" },
        { type: "xstate.done.actor.changePassword", output: { ok: true, message: "Password updated successfully" } },
        { type: "xstate.error.actor.changePassword", error: httpFailure("password-change", 500) },
      ],
    })
    console.info(formatCoverage("changePassword", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })
})

describe("change-password machine: behaviour (access §2, §4, §5)", () => {
  it("Reset and submit are disabled until something is typed; each toggle shows or hides its field", () => {
    const { actor } = start()
    try {
      expect(actor.getSnapshot().can({ type: "form.submitted" })).toBe(false)
      expect(actor.getSnapshot().can({ type: "form.reset" })).toBe(false)
      actor.send({ type: "visibility.toggled", field: "new_password" })
      expect(actor.getSnapshot().context.visible).toEqual({ current_password: false, new_password: true, confirm_password: false })
      actor.send({ type: "field.changed", field: "current_password", value: "x" })
      expect(actor.getSnapshot().can({ type: "form.reset" })).toBe(true)
      actor.send({ type: "form.reset" })
      expect(actor.getSnapshot().context.values.current_password).toBe("")
      expect(actor.getSnapshot().context.visible.new_password).toBe(false)
    } finally {
      actor.stop()
    }
  })

  it("validates with the §5 rules", () => {
    const { actor } = start()
    try {
      actor.send({ type: "field.changed", field: "new_password", value: "lowercase1" })
      actor.send({ type: "field.changed", field: "confirm_password", value: "other" })
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.fieldErrors).toEqual({
        current_password: "Current password is required",
        new_password: "Password must contain at least one uppercase letter, one lowercase letter, and one number",
        confirm_password: "New passwords don't match",
      })
      expect(actor.getSnapshot().value).toBe("editing")
    } finally {
      actor.stop()
    }
  })

  it("confirms, saves (no dismissing while pending), then clears the form and the toggles", async () => {
    const { actor, change, toasts } = start()
    try {
      fill(actor)
      actor.send({ type: "visibility.toggled", field: "current_password" })
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().value).toBe("confirming")
      actor.send({ type: "confirm.accepted" })
      expect(change.calls).toEqual([{ current_password: "Analytical1", new_password: "Difference2", confirm_password: "Difference2" }])
      expect(actor.getSnapshot().can({ type: "confirm.cancelled" })).toBe(false)
      await change.resolve({ ok: true, message: "Password updated successfully" })
      expect(actor.getSnapshot().value).toBe("editing")
      expect(actor.getSnapshot().context.values).toEqual({ current_password: "", new_password: "", confirm_password: "" })
      expect(actor.getSnapshot().context.visible).toEqual({ current_password: false, new_password: false, confirm_password: false })
      expect(toasts).toEqual([{ kind: "success", message: "Password updated successfully" }])
    } finally {
      actor.stop()
    }
  })

  it("a wrong current password lands on that field; other failures toast 'Failed to update password. Please try again.'", async () => {
    const { actor, change, toasts } = start()
    try {
      fill(actor)
      actor.send({ type: "form.submitted" })
      actor.send({ type: "confirm.accepted" })
      await change.reject(
        httpFailure("password-change", 400, {
          _tag: "ValidationError",
          message: "Current password is incorrect",
          errors: [{ path: "current_password", message: "Current password is incorrect" }],
        }),
      )
      expect(actor.getSnapshot().context.fieldErrors).toEqual({ current_password: "Current password is incorrect" })
      expect(actor.getSnapshot().context.values.new_password).toBe("Difference2")
      actor.send({ type: "form.submitted" })
      actor.send({ type: "confirm.accepted" })
      await change.reject(httpFailure("password-change", 503))
      expect(toasts).toEqual([
        { kind: "error", message: "Current password is incorrect" },
        { kind: "error", message: "Failed to update password. Please try again." },
      ])
    } finally {
      actor.stop()
    }
  })

  it("cancelling the confirmation keeps what was typed", () => {
    const { actor, change } = start()
    try {
      fill(actor)
      actor.send({ type: "form.submitted" })
      actor.send({ type: "confirm.cancelled" })
      expect(actor.getSnapshot().value).toBe("editing")
      expect(actor.getSnapshot().context.values.confirm_password).toBe("Difference2")
      expect(change.calls).toEqual([])
    } finally {
      actor.stop()
    }
  })
})
