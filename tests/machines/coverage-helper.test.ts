/**
 * The transition-coverage helper itself, on a machine shaped like the product's request flows: an invoked promise
 * (done and error), a delayed retry, a guard, a nested state and a final state.
 */
import { describe, expect, it } from "vitest"
import { createActor, fromPromise } from "xstate"
import { coverTransitions, formatCoverage, resolveAfterDelay } from "../support/graph.ts"
import { fetchMachine } from "./fetcher.fixture.ts"

// The real promise would resolve on its own; the fake never settles, so only the synthetic events drive the flow.
const quietMachine = fetchMachine.provide({ actors: { fetchRows: fromPromise<ReadonlyArray<string>>(() => new Promise(() => {})) } })

const samples = [
  { type: "xstate.done.actor.fetchRows", output: ["a", "b"] },
  { type: "xstate.error.actor.fetchRows", error: { transient: true } },
  { type: "xstate.error.actor.fetchRows", error: { transient: false } },
]

describe("coverTransitions", () => {
  it("drives invoke done/error, delayed, guarded and nested-final transitions of a machine", async () => {
    const coverage = await coverTransitions(quietMachine, { events: samples })
    console.info(formatCoverage("fetcher", coverage))
    expect(coverage.missing).toEqual([])
    const listed = coverage.edges.map((e) => `${e.source} ${e.event} ${e.target}`).sort()
    expect(listed).toEqual(
      [
        `"failed" fetch.requested "loading"`,
        `"idle" fetch.requested "loading"`,
        `"loading" fetch.cancelled "idle"`,
        `"loading" xstate.done.actor.fetchRows {"loaded":"reviewing"}`,
        `"loading" xstate.error.actor.fetchRows "waiting"`,
        `"loading" xstate.error.actor.fetchRows "failed"`,
        `"waiting" xstate.after.retryDelay.fetcher.waiting "loading"`,
        `{"loaded":"reviewing"} rows.accepted "done"`,
      ].sort(),
    )
    expect(coverage.driven).toBe(coverage.total)
  })

  it("reports edges the running actor does not follow", async () => {
    // A driver that swallows the event: the actor stays put, so the edge must be reported as missing.
    const coverage = await coverTransitions(quietMachine, {
      events: samples,
      drivers: { "fetch.cancelled": () => {} },
    })
    expect(coverage.driven).toBe(coverage.total - 1)
    expect(coverage.missing).toEqual([
      { source: `"loading"`, event: "fetch.cancelled", target: `"idle"`, reason: `reached "loading"` },
    ])
  })

  it("runs the per-edge check on the real actor", async () => {
    const seen: string[] = []
    const coverage = await coverTransitions(quietMachine, {
      events: samples,
      check: (edge, actor) => {
        seen.push(edge.event)
        if (edge.event === "xstate.done.actor.fetchRows") expect(actor.getSnapshot().context.rows).toEqual(["a", "b"])
      },
    })
    expect(coverage.driven).toBe(coverage.total)
    expect(seen).toHaveLength(coverage.total)
  })

  it("resolves named delays from the machine's implementations and the current context", () => {
    const actor = createActor(quietMachine).start()
    try {
      actor.send({ type: "fetch.requested" })
      actor.send({ type: "xstate.error.actor.fetchRows", error: { transient: true } } as never)
      expect(actor.getSnapshot().value).toBe("waiting")
      expect(resolveAfterDelay(actor, "xstate.after.retryDelay.fetcher.waiting")).toBe(2000) // 1000 * 2 ** attempts(1)
    } finally {
      actor.stop()
    }
  })
})
