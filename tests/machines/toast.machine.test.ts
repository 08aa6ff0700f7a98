import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock } from "xstate"
import { toastMachine, type ToastKind } from "../../src/machines/toast.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"

const start = () => {
  const clock = new SimulatedClock()
  const actor = createActor(toastMachine, { clock }).start()
  const show = (kind: ToastKind, message: string, durationMs?: number) =>
    actor.send(durationMs === undefined ? { type: "toast.shown", kind, message } : { type: "toast.shown", kind, message, durationMs })
  const messages = () => actor.getSnapshot().context.toasts.map((t) => t.message)
  return { clock, actor, show, messages }
}

describe("toast machine: transition coverage", () => {
  it("drives every (state, event) edge on a simulated clock", async () => {
    const coverage = await coverTransitions(toastMachine, {
      events: [
        { type: "toast.shown", kind: "info", message: "Saved" },
        { type: "toast.dismissed", id: "toast-1" },
        { type: "toast.expired", id: "toast-1" },
      ],
      drivers: {
        // `toast.expired` is raised by the machine itself: let the clock produce it instead of sending it.
        "toast.expired": ({ actor, event, clock }) => {
          const toast = actor.getSnapshot().context.toasts.find((t) => t.id === (event as { id?: string }).id)
          if (toast === undefined) throw new Error(`no toast ${String((event as { id?: string }).id)} to expire`)
          clock.increment(toast.durationMs)
        },
      },
    })
    console.info(formatCoverage("toast", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.total).toBe(4)
    expect(coverage.driven).toBe(coverage.total)
  })
})

describe("toast machine: behaviour", () => {
  it("dismisses a success toast after 2 s", () => {
    const { clock, actor, show, messages } = start()
    try {
      show("success", "Profile updated successfully")
      expect(actor.getSnapshot().value).toBe("showing")
      expect(actor.getSnapshot().context.toasts[0]).toMatchObject({ kind: "success", durationMs: 2000 })
      clock.increment(1999)
      expect(messages()).toEqual(["Profile updated successfully"])
      clock.increment(1)
      expect(messages()).toEqual([])
      expect(actor.getSnapshot().value).toBe("empty")
    } finally {
      actor.stop()
    }
  })

  it("keeps an error toast for 4 s, info and warning for the 4 s default", () => {
    const { clock, actor, show, messages } = start()
    try {
      show("error", "Failed to load team members")
      show("info", "Heads up")
      show("warning", "Careful")
      clock.increment(3999)
      expect(messages()).toEqual(["Failed to load team members", "Heads up", "Careful"])
      clock.increment(1)
      expect(messages()).toEqual([])
      expect(actor.getSnapshot().value).toBe("empty")
    } finally {
      actor.stop()
    }
  })

  it("honours an explicit duration (the 5 s 'You've been added to' toast)", () => {
    const { clock, actor, show, messages } = start()
    try {
      show("success", "You've been added to Acme", 5000)
      clock.increment(4999)
      expect(messages()).toEqual(["You've been added to Acme"])
      clock.increment(1)
      expect(messages()).toEqual([])
    } finally {
      actor.stop()
    }
  })

  it("expires toasts independently, each after its own duration", () => {
    const { clock, actor, show, messages } = start()
    try {
      show("error", "first error")
      clock.increment(1000)
      show("success", "then success")
      clock.increment(2000) // t = 3000: success (shown at 1000, 2 s) gone, error (4 s) still up
      expect(messages()).toEqual(["first error"])
      clock.increment(1000) // t = 4000
      expect(messages()).toEqual([])
    } finally {
      actor.stop()
    }
  })

  it("shows at most 20 toasts and drops the oldest first", () => {
    const { clock, actor, show, messages } = start()
    try {
      for (let i = 1; i <= 25; i++) show("info", `message ${i}`)
      expect(messages()).toHaveLength(20)
      expect(messages()[0]).toBe("message 6")
      expect(messages()[19]).toBe("message 25")
      clock.increment(4000)
      expect(messages()).toEqual([])
      expect(actor.getSnapshot().value).toBe("empty")
    } finally {
      actor.stop()
    }
  })

  it("dismisses one toast by id, cancels its timer, and leaves the others", () => {
    const { clock, actor, show, messages } = start()
    try {
      show("error", "a")
      show("error", "b")
      const [first] = actor.getSnapshot().context.toasts
      actor.send({ type: "toast.dismissed", id: first!.id })
      expect(messages()).toEqual(["b"])
      expect(actor.getSnapshot().value).toBe("showing")
      actor.send({ type: "toast.dismissed", id: "toast-404" })
      expect(messages()).toEqual(["b"])
      actor.send({ type: "toast.dismissed", id: actor.getSnapshot().context.toasts[0]!.id })
      expect(actor.getSnapshot().value).toBe("empty")
      // Timers of dismissed toasts are cancelled: a new toast is not affected by them.
      show("success", "c")
      clock.increment(1999)
      expect(messages()).toEqual(["c"])
    } finally {
      actor.stop()
    }
  })

  it("never reuses an id, so a late expiry cannot remove a newer toast", () => {
    const { actor, show } = start()
    try {
      show("info", "a")
      actor.send({ type: "toast.dismissed", id: "toast-1" })
      show("info", "b")
      expect(actor.getSnapshot().context.toasts.map((t) => t.id)).toEqual(["toast-2"])
      actor.send({ type: "toast.expired", id: "toast-1" })
      expect(actor.getSnapshot().context.toasts.map((t) => t.id)).toEqual(["toast-2"])
    } finally {
      actor.stop()
    }
  })
})
