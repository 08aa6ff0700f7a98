/**
 * A bulk remediation's page machine (issue 32 part 4): every (state, event) edge is driven (model-based,
 * xstate/graph), then the flows step by step — polling while the batch works and settling once done, Stop confirmed,
 * Undo of the whole batch, "Undo anyway" (force) after conflicts, refusals toasted, Load more once done, a failed load
 * and its retry — asserting the snapshot, the fakes' call log and the toasts.
 */
import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock } from "xstate"
import { BatchMessages, type RemediationBatchId } from "../../src/contracts/remediation-batches.ts"
import type { BatchActed, BatchItemsPage, BatchView } from "../../src/machines/remediation-batches-effects.ts"
import { BATCH_POLL_MS, canUndoBatch, refreshLimit, remediationBatchMachine } from "../../src/machines/remediation-batch.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"
import { environment } from "./scan-fakes.ts"
import { BATCH_ID, batch, completed, item, running, undoFailed, undone, view } from "./remediation-batch-fakes.ts"

const notRunning = httpFailure("generic", 409, { _tag: "Conflict", message: BatchMessages.notStoppable })

const start = () => {
  const loadBatch = controlled<{ readonly id: RemediationBatchId; readonly limit: number }, BatchView>()
  const loadItems = controlled<{ readonly id: RemediationBatchId; readonly cursor: string }, BatchItemsPage>()
  const stopBatch = controlled<{ readonly id: RemediationBatchId }, BatchActed>()
  const undoBatch = controlled<{ readonly id: RemediationBatchId; readonly force: boolean }, BatchActed>()
  const env = environment()
  const clock = new SimulatedClock()
  const actor = createActor(
    remediationBatchMachine.provide({
      actors: { loadBatch: loadBatch.logic, loadItems: loadItems.logic, stopBatch: stopBatch.logic, undoBatch: undoBatch.logic },
      actions: { notify: env.notify },
    }),
    { input: { batchId: BATCH_ID }, clock },
  ).start()
  return { actor, loadBatch, loadItems, stopBatch, undoBatch, env, clock }
}

describe("remediation-batch machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = remediationBatchMachine.provide({ actors: { loadBatch: never(), loadItems: never(), stopBatch: never(), undoBatch: never() } })
    const input = { batchId: BATCH_ID }
    const coverage = await coverTransitions(provided, {
      input,
      createActor: (clock) => createActor(provided, { input, clock }),
      events: [
        { type: "xstate.done.actor.loadBatch", output: view(running) },
        { type: "xstate.done.actor.loadBatch", output: view(completed, [item(0)], "c1") },
        { type: "xstate.error.actor.loadBatch", error: httpFailure("generic", 404, { _tag: "NotFound", message: BatchMessages.notFound }) },
        { type: "batch.retryRequested" },
        { type: "xstate.done.actor.refreshBatch", output: view(running) },
        { type: "xstate.done.actor.refreshBatch", output: view(completed) },
        { type: "xstate.error.actor.refreshBatch", error: httpFailure("generic", 500) },
        { type: "stop.requested" },
        { type: "undo.requested", force: false },
        { type: "action.confirmed" },
        { type: "action.canceled" },
        { type: "xstate.done.actor.stopBatch", output: { message: BatchMessages.stopRequested, batch: batch("stopping", { pending: 2, running: 1 }) } },
        { type: "xstate.error.actor.stopBatch", error: notRunning },
        { type: "xstate.done.actor.undoBatch", output: { message: BatchMessages.undoQueued, batch: batch("undoing", { fixed: 3 }) } },
        { type: "xstate.error.actor.undoBatch", error: httpFailure("generic", 409, { _tag: "Conflict", message: BatchMessages.notUndoable }) },
        { type: "items.loadMoreRequested" },
        { type: "xstate.done.actor.loadItems", output: { items: [item(1)], nextCursor: null } },
        { type: "xstate.error.actor.loadItems", error: httpFailure("generic", 500) },
        { type: "batch.changed" },
      ],
      serializeState: (s) => JSON.stringify([s.value, s.context.batch?.state ?? null, s.context.nextCursor !== null]),
    })
    console.info(formatCoverage("remediationBatch", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  it("polls while the batch runs, with as many items as are shown, and settles once it completes", async () => {
    const { actor, loadBatch, clock } = start()
    try {
      expect(loadBatch.calls).toEqual([{ id: BATCH_ID, limit: 100 }])
      await loadBatch.resolve(view(running, [item(0, { state: "running" })]))
      expect(actor.getSnapshot().matches({ ready: { poll: "waiting" } })).toBe(true)
      clock.increment(BATCH_POLL_MS - 1)
      expect(loadBatch.calls).toHaveLength(1)
      clock.increment(1)
      expect(loadBatch.calls).toHaveLength(2)
      // A failed read keeps what is shown and tries again after the next pause.
      await loadBatch.reject(httpFailure("generic", 500))
      expect(actor.getSnapshot().context.batch?.state).toBe("running")
      clock.increment(BATCH_POLL_MS)
      await loadBatch.resolve(view(completed, [item(0)]))
      expect(actor.getSnapshot().matches({ ready: { poll: "settled" } })).toBe(true)
      expect(actor.getSnapshot().context.items[0]?.state).toBe("fixed")
      clock.increment(BATCH_POLL_MS * 5)
      expect(loadBatch.calls).toHaveLength(3)
      expect(refreshLimit(0)).toBe(100)
      expect(refreshLimit(250)).toBe(250)
      expect(refreshLimit(2000)).toBe(500)
    } finally {
      actor.stop()
    }
  })

  it("stops a running batch after confirmation and keeps watching it until it settles", async () => {
    const { actor, loadBatch, stopBatch, env, clock } = start()
    try {
      await loadBatch.resolve(view(running))
      // Undo is not offered while it runs; Load more neither.
      actor.send({ type: "undo.requested", force: false })
      actor.send({ type: "items.loadMoreRequested" })
      expect(actor.getSnapshot().matches({ ready: { action: "idle" } })).toBe(true)
      actor.send({ type: "stop.requested" })
      actor.send({ type: "action.canceled" })
      expect(stopBatch.calls).toEqual([])
      actor.send({ type: "stop.requested" })
      actor.send({ type: "action.confirmed" })
      expect(stopBatch.calls).toEqual([{ id: BATCH_ID }])
      await stopBatch.resolve({ message: BatchMessages.stopRequested, batch: batch("stopping", { pending: 2, running: 1, fixed: 1 }) })
      expect(actor.getSnapshot().context.batch?.state).toBe("stopping")
      expect(env.toasts).toEqual([{ kind: "success", message: BatchMessages.stopRequested }])
      // Stop is no longer offered while stopping.
      actor.send({ type: "stop.requested" })
      expect(actor.getSnapshot().matches({ ready: { action: "idle" } })).toBe(true)
      clock.increment(BATCH_POLL_MS)
      await loadBatch.resolve(view(batch("stopped", { fixed: 2, skipped: 2 }, { reversible: true })))
      expect(actor.getSnapshot().matches({ ready: { poll: "settled" } })).toBe(true)
    } finally {
      actor.stop()
    }
  })

  it("toasts a refused stop in the server's words", async () => {
    const { actor, loadBatch, stopBatch, env } = start()
    try {
      await loadBatch.resolve(view(running))
      actor.send({ type: "stop.requested" })
      actor.send({ type: "action.confirmed" })
      await stopBatch.reject(notRunning)
      expect(actor.getSnapshot().matches({ ready: { action: "idle" } })).toBe(true)
      expect(env.toasts).toEqual([{ kind: "error", message: BatchMessages.notStoppable }])
    } finally {
      actor.stop()
    }
  })

  it("undoes a completed batch, then offers Undo anyway after conflicts and sends force", async () => {
    const { actor, loadBatch, undoBatch, env, clock } = start()
    try {
      await loadBatch.resolve(view(completed))
      expect(canUndoBatch(actor.getSnapshot().context.batch)).toBe(true)
      actor.send({ type: "stop.requested" })
      expect(actor.getSnapshot().matches({ ready: { action: "idle" } })).toBe(true)
      actor.send({ type: "undo.requested", force: false })
      actor.send({ type: "action.confirmed" })
      expect(undoBatch.calls).toEqual([{ id: BATCH_ID, force: false }])
      await undoBatch.resolve({ message: BatchMessages.undoQueued, batch: batch("undoing", { fixed: 3, skipped: 1 }) })
      expect(actor.getSnapshot().matches({ ready: { poll: "waiting" } })).toBe(true)
      clock.increment(BATCH_POLL_MS)
      await loadBatch.resolve(view(undoFailed, [item(0, { state: "undo_failed", message: "changed", differences: [{ path: "Versioning", expected: "Enabled", actual: "Suspended" }] })]))
      expect(actor.getSnapshot().matches({ ready: { poll: "settled" } })).toBe(true)
      actor.send({ type: "undo.requested", force: true })
      expect(actor.getSnapshot().context.force).toBe(true)
      actor.send({ type: "action.confirmed" })
      expect(undoBatch.calls.at(-1)).toEqual({ id: BATCH_ID, force: true })
      await undoBatch.reject(httpFailure("generic", 409, { _tag: "Conflict", message: BatchMessages.undoInProgress }))
      expect(env.toasts).toEqual([
        { kind: "success", message: BatchMessages.undoQueued },
        { kind: "error", message: BatchMessages.undoInProgress },
      ])
      // An undone batch offers nothing more.
      expect(canUndoBatch(undone)).toBe(false)
    } finally {
      actor.stop()
    }
  })

  it("loads more items of a finished batch by cursor, keeps them on a failed page, and retries a failed load", async () => {
    const { actor, loadBatch, loadItems, env } = start()
    try {
      await loadBatch.reject(httpFailure("generic", 404, { _tag: "NotFound", message: BatchMessages.notFound }))
      expect(actor.getSnapshot().value).toBe("failed")
      expect(actor.getSnapshot().context.error).toBe(BatchMessages.notFound)
      actor.send({ type: "batch.retryRequested" })
      await loadBatch.resolve(view(completed, [item(0)], "c1"))
      actor.send({ type: "items.loadMoreRequested" })
      expect(loadItems.calls).toEqual([{ id: BATCH_ID, cursor: "c1" }])
      await loadItems.reject(httpFailure("generic", 500))
      expect(actor.getSnapshot().context.items).toHaveLength(1)
      expect(env.toasts).toHaveLength(1)
      actor.send({ type: "items.loadMoreRequested" })
      await loadItems.resolve({ items: [item(1), item(2)], nextCursor: null })
      expect(actor.getSnapshot().context.items.map((i) => i.position)).toEqual([0, 1, 2])
      expect(actor.getSnapshot().can({ type: "items.loadMoreRequested" })).toBe(false)
    } finally {
      actor.stop()
    }
  })
})
