import { describe, expect, it } from "vitest"
import { createActor, fromCallback, SimulatedClock } from "xstate"
import { rowActionMenuMachine } from "../../src/machines/row-action-menu.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"

/** A fake viewport: `change()` is a scroll or resize; `listening()` tells whether listeners are attached. */
const fakeViewport = () => {
  let send: ((e: { type: "viewport.changed" }) => void) | undefined
  const logic = fromCallback(({ sendBack }) => {
    send = sendBack
    return () => {
      send = undefined
    }
  })
  return { logic, listening: () => send !== undefined, change: () => send?.({ type: "viewport.changed" }) }
}

const start = () => {
  const viewport = fakeViewport()
  const clock = new SimulatedClock()
  const actor = createActor(rowActionMenuMachine.provide({ actors: { watchViewport: viewport.logic } }), { clock }).start()
  return { actor, viewport, clock }
}

describe("row action menu machine: transition coverage", () => {
  it("drives every (state, event) edge", async () => {
    const coverage = await coverTransitions(rowActionMenuMachine, {
      events: [{ type: "menu.opened", rowId: "3" }, { type: "menu.closed" }, { type: "viewport.changed" }],
    })
    console.info(formatCoverage("rowActionMenu", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })
})

describe("row action menu machine: closing rules (access §2, §9)", () => {
  it("attaches the scroll/resize listeners only 100 ms after opening", () => {
    const { actor, viewport, clock } = start()
    try {
      actor.send({ type: "menu.opened", rowId: "3" })
      expect(actor.getSnapshot().context.openRowId).toBe("3")
      expect(viewport.listening()).toBe(false)
      clock.increment(99)
      expect(viewport.listening()).toBe(false)
      clock.increment(1)
      expect(viewport.listening()).toBe(true)
    } finally {
      actor.stop()
    }
  })

  it("a scroll or resize closes the menu and detaches the listeners", () => {
    const { actor, viewport, clock } = start()
    try {
      actor.send({ type: "menu.opened", rowId: "3" })
      clock.increment(100)
      viewport.change()
      expect(actor.getSnapshot().value).toBe("closed")
      expect(actor.getSnapshot().context.openRowId).toBeNull()
      expect(viewport.listening()).toBe(false)
    } finally {
      actor.stop()
    }
  })

  it("Escape / outside click (menu.closed) closes it at any time", () => {
    const { actor, viewport } = start()
    try {
      actor.send({ type: "menu.opened", rowId: "3" })
      actor.send({ type: "menu.closed" })
      expect(actor.getSnapshot().value).toBe("closed")
      expect(viewport.listening()).toBe(false)
    } finally {
      actor.stop()
    }
  })

  it("opening another row's menu moves it there and re-arms the delay", () => {
    const { actor, viewport, clock } = start()
    try {
      actor.send({ type: "menu.opened", rowId: "3" })
      clock.increment(100)
      actor.send({ type: "menu.opened", rowId: "4" })
      expect(actor.getSnapshot().context.openRowId).toBe("4")
      expect(viewport.listening()).toBe(false)
      clock.increment(100)
      expect(viewport.listening()).toBe(true)
    } finally {
      actor.stop()
    }
  })
})
