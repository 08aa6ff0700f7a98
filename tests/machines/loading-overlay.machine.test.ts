import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock } from "xstate"
import { loadingOverlayMachine } from "../../src/machines/loading-overlay.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"

const start = () => {
  const clock = new SimulatedClock()
  const actor = createActor(loadingOverlayMachine, { clock }).start()
  return { clock, actor }
}

describe("loading overlay machine: transition coverage", () => {
  it("drives every (state, event) edge, including the 30 s timeout, on a simulated clock", async () => {
    const coverage = await coverTransitions(loadingOverlayMachine, {
      events: [
        { type: "overlay.shown", message: "Launching scan", progress: 10 },
        { type: "overlay.progressed", progress: 50 },
        { type: "overlay.hidden" },
      ],
    })
    console.info(formatCoverage("loadingOverlay", coverage))
    expect(coverage.missing).toEqual([])
    // hidden: shown; visible: shown, progressed, hidden, after 30 s
    expect(coverage.total).toBe(5)
    expect(coverage.driven).toBe(coverage.total)
    expect(coverage.edges.map((e) => e.event)).toContain("xstate.after.overlayTimeout.loadingOverlay.visible")
  })
})

describe("loading overlay machine: behaviour", () => {
  it("shows a message with optional progress and hides on request", () => {
    const { actor } = start()
    try {
      expect(actor.getSnapshot().value).toBe("hidden")
      actor.send({ type: "overlay.shown", message: "Deleting account" })
      expect(actor.getSnapshot().value).toBe("visible")
      expect(actor.getSnapshot().context).toEqual({ message: "Deleting account", progress: undefined })
      actor.send({ type: "overlay.progressed", progress: 40 })
      expect(actor.getSnapshot().context).toEqual({ message: "Deleting account", progress: 40 })
      actor.send({ type: "overlay.progressed", progress: 140, message: "Almost there" })
      expect(actor.getSnapshot().context).toEqual({ message: "Almost there", progress: 100 })
      actor.send({ type: "overlay.progressed", progress: -3 })
      expect(actor.getSnapshot().context.progress).toBe(0)
      actor.send({ type: "overlay.hidden" })
      expect(actor.getSnapshot().value).toBe("hidden")
      expect(actor.getSnapshot().context).toEqual({ message: "", progress: undefined })
    } finally {
      actor.stop()
    }
  })

  it("ignores progress while hidden", () => {
    const { actor } = start()
    try {
      actor.send({ type: "overlay.progressed", progress: 30 })
      expect(actor.getSnapshot().value).toBe("hidden")
      expect(actor.getSnapshot().context.progress).toBeUndefined()
    } finally {
      actor.stop()
    }
  })

  it("auto-clears after 30 s", () => {
    const { clock, actor } = start()
    try {
      actor.send({ type: "overlay.shown", message: "Working", progress: 20 })
      clock.increment(29_999)
      expect(actor.getSnapshot().value).toBe("visible")
      clock.increment(1)
      expect(actor.getSnapshot().value).toBe("hidden")
      expect(actor.getSnapshot().context).toEqual({ message: "", progress: undefined })
    } finally {
      actor.stop()
    }
  })

  it("restarts the 30 s timer when shown again", () => {
    const { clock, actor } = start()
    try {
      actor.send({ type: "overlay.shown", message: "Step 1" })
      clock.increment(20_000)
      actor.send({ type: "overlay.shown", message: "Step 2" })
      clock.increment(20_000) // 40 s after the first show, 20 s after the second
      expect(actor.getSnapshot().value).toBe("visible")
      expect(actor.getSnapshot().context.message).toBe("Step 2")
      clock.increment(10_000)
      expect(actor.getSnapshot().value).toBe("hidden")
    } finally {
      actor.stop()
    }
  })

  it("progress does not extend the 30 s limit", () => {
    const { clock, actor } = start()
    try {
      actor.send({ type: "overlay.shown", message: "Uploading" })
      clock.increment(29_000)
      actor.send({ type: "overlay.progressed", progress: 99 })
      clock.increment(1_000)
      expect(actor.getSnapshot().value).toBe("hidden")
    } finally {
      actor.stop()
    }
  })
})
