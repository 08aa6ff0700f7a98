import { describe, expect, it } from "vitest"
import { createActor, createMachine, SimulatedClock } from "xstate"
import type { FindingId } from "../../src/contracts/ids.ts"
import type { Remediation, RemediationId } from "../../src/contracts/remediations.ts"
import { HISTORY_POLL_MS, remediationHistoryMachine, undoTarget } from "../../src/machines/remediation-history.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"
import { environment } from "./scan-fakes.ts"
import { conflictFailure, remediation, rid } from "./remediation-fakes.ts"

const FINDING_ID = 5 as FindingId

const start = () => {
  const listRemediations = controlled<{ readonly finding_id: FindingId }, ReadonlyArray<Remediation>>()
  const undoRemediation = controlled<{ readonly id: RemediationId; readonly force: boolean }, Remediation>()
  const env = environment()
  const clock = new SimulatedClock()
  let settled = 0
  const actor = createActor(
    remediationHistoryMachine.provide({
      actors: { listRemediations: listRemediations.logic, undoRemediation: undoRemediation.logic },
      actions: { notify: env.notify, reportSettled: () => void (settled += 1) },
    }),
    { input: { findingId: FINDING_ID }, clock },
  ).start()
  return { actor, listRemediations, undoRemediation, env, clock, settled: () => settled }
}

describe("remediation history machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = remediationHistoryMachine.provide({
      actors: { listRemediations: never(), undoRemediation: never() },
      actions: { reportSettled: () => {} },
    })
    const input = { findingId: FINDING_ID }
    const coverage = await coverTransitions(provided, {
      input,
      createActor: (clock) => createActor(provided, { input, clock }),
      events: [
        { type: "xstate.done.actor.listRemediations", output: [remediation(1)] },
        { type: "xstate.done.actor.listRemediations", output: [remediation(1, { state: "applied" }, { available: false })] },
        { type: "xstate.done.actor.listRemediations", output: [] },
        { type: "xstate.error.actor.listRemediations", error: httpFailure("generic", 500) },
        { type: "history.refreshRequested" },
        { type: "history.retried" },
        { type: "undo.requested", id: rid(1) },
        { type: "undo.requested", id: rid(9) },
        { type: "undo.confirmed" },
        { type: "undo.forced" },
        { type: "undo.cancelled" },
        { type: "xstate.done.actor.undoRemediation", output: remediation(1, { state: "undoing" }, { available: false }) },
        { type: "xstate.error.actor.undoRemediation", error: conflictFailure() },
        { type: "xstate.error.actor.undoRemediation", error: httpFailure("generic", 409, { message: "This fix was already undone" }) },
        { type: "xstate.error.actor.undoRemediation", error: httpFailure("generic", 500) },
      ],
      serializeState: (s) =>
        JSON.stringify([
          s.value,
          s.context.remediations === null ? null : s.context.remediations.map((r) => [r.state, r.undo.available]),
        ]),
    })
    console.info(formatCoverage("remediationHistory", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  it("lists the finding's remediations; a failed read shows the catalogue's text with Retry", async () => {
    const { actor, listRemediations } = start()
    try {
      expect(listRemediations.calls).toEqual([{ finding_id: 5 }])
      await listRemediations.reject(httpFailure("generic", 500))
      expect(actor.getSnapshot().value).toMatchObject({ list: "failed" })
      expect(actor.getSnapshot().context.error).not.toBeNull()
      actor.send({ type: "history.retried" })
      await listRemediations.resolve([remediation(1)])
      expect(actor.getSnapshot().value).toMatchObject({ list: "still" })
      expect(actor.getSnapshot().context.remediations?.map((r) => r.id)).toEqual([1])
      actor.send({ type: "history.refreshRequested" })
      expect(listRemediations.calls).toHaveLength(3)
    } finally {
      actor.stop()
    }
  })

  it("undo: confirm → undoing ('Undo queued'), polls every 5 s until undone, then the finding page reloads", async () => {
    const { actor, listRemediations, undoRemediation, env, clock, settled } = start()
    try {
      await listRemediations.resolve([remediation(1)])
      // An unknown remediation, or one whose undo is not offered, opens nothing.
      actor.send({ type: "undo.requested", id: rid(2) })
      expect(actor.getSnapshot().value).toMatchObject({ undo: "idle" })
      actor.send({ type: "undo.requested", id: rid(1) })
      expect(actor.getSnapshot().value).toMatchObject({ undo: "confirming" })
      expect(undoTarget(actor.getSnapshot().context)?.id).toBe(1)
      actor.send({ type: "undo.confirmed" })
      expect(undoRemediation.calls).toEqual([{ id: 1, force: false }])
      await undoRemediation.resolve(remediation(1, { state: "undoing" }, { available: false }))
      expect(env.toasts).toEqual([{ kind: "success", message: "Undo queued" }])
      expect(actor.getSnapshot().value).toEqual({ list: "watching", undo: "idle" })
      expect(actor.getSnapshot().context.remediations?.[0]?.state).toBe("undoing")

      clock.increment(HISTORY_POLL_MS)
      expect(listRemediations.calls).toHaveLength(2)
      await listRemediations.resolve([remediation(1, { state: "undoing" }, { available: false })])
      expect(settled()).toBe(0)
      clock.increment(HISTORY_POLL_MS)
      await listRemediations.resolve([remediation(1, { state: "undone" }, { available: false, reason: "This fix was already undone" })])
      expect(settled()).toBe(1)
      expect(actor.getSnapshot().value).toMatchObject({ list: "still" })
      clock.increment(60_000)
      expect(listRemediations.calls).toHaveLength(3)
    } finally {
      actor.stop()
    }
  })

  it("a conflict shows the field differences; 'Undo anyway' sends force; another refusal stays in the confirmation", async () => {
    const { actor, listRemediations, undoRemediation } = start()
    try {
      await listRemediations.resolve([remediation(1)])
      actor.send({ type: "undo.requested", id: rid(1) })
      actor.send({ type: "undo.confirmed" })
      await undoRemediation.reject(conflictFailure())
      expect(actor.getSnapshot().value).toMatchObject({ undo: "conflict" })
      expect(actor.getSnapshot().context.conflict?.differences).toEqual([
        { path: "PublicAccessBlockConfiguration.RestrictPublicBuckets", expected: true, actual: false },
      ])
      actor.send({ type: "undo.forced" })
      expect(undoRemediation.calls).toEqual([{ id: 1, force: false }, { id: 1, force: true }])
      await undoRemediation.reject(httpFailure("generic", 409, { message: "This fix is being undone" }))
      expect(actor.getSnapshot().value).toMatchObject({ undo: "confirming" })
      expect(actor.getSnapshot().context.undoError).toBe("This fix is being undone")
      expect(actor.getSnapshot().context.conflict).toBeNull()
      actor.send({ type: "undo.cancelled" })
      expect(actor.getSnapshot().value).toMatchObject({ undo: "idle" })
      expect(actor.getSnapshot().context.target).toBeNull()
    } finally {
      actor.stop()
    }
  })

  it("an undo refused because the member retired from its organisation since keeps the server's words and reads the list again: Undo goes (issue 31)", async () => {
    const { actor, listRemediations, undoRemediation } = start()
    const refusal = "This account was retired from its organization: its fixes can no longer be undone"
    try {
      await listRemediations.resolve([remediation(1)])
      actor.send({ type: "undo.requested", id: rid(1) })
      actor.send({ type: "undo.confirmed" })
      await undoRemediation.reject(httpFailure("generic", 409, { message: refusal, data: { error_type: "account_retired" } }))
      expect(actor.getSnapshot().value).toMatchObject({ undo: "confirming" })
      expect(actor.getSnapshot().context.undoError).toBe(refusal)
      expect(actor.getSnapshot().context.conflict).toBeNull()
      // The stale list is read again; the server no longer offers the undo.
      expect(listRemediations.calls).toEqual([{ finding_id: 5 }, { finding_id: 5 }])
      await listRemediations.resolve([remediation(1, {}, { available: false, reason: refusal })])
      expect(actor.getSnapshot().context.remediations?.[0]?.undo.available).toBe(false)
      expect(actor.getSnapshot().context.undoError).toBe(refusal)
      expect(actor.getSnapshot().value).toEqual({ list: "still", undo: "confirming" })
      // The confirmation offers no Undo any more: confirming again sends nothing.
      expect(actor.getSnapshot().can({ type: "undo.confirmed" })).toBe(false)
      actor.send({ type: "undo.confirmed" })
      expect(undoRemediation.calls).toHaveLength(1)
      actor.send({ type: "undo.cancelled" })
      actor.send({ type: "undo.requested", id: rid(1) })
      expect(actor.getSnapshot().value).toMatchObject({ undo: "idle" })
    } finally {
      actor.stop()
    }
  })

  it("after a conflict the list is read again; a failure that is not a refusal keeps the list; a read in flight starts over", async () => {
    const { actor, listRemediations, undoRemediation, clock } = start()
    try {
      await listRemediations.resolve([remediation(1)])
      actor.send({ type: "undo.requested", id: rid(1) })
      actor.send({ type: "undo.confirmed" })
      await undoRemediation.reject(conflictFailure())
      expect(actor.getSnapshot().value).toMatchObject({ undo: "conflict" })
      expect(listRemediations.calls).toHaveLength(2)
      await listRemediations.resolve([remediation(1)])
      // Still offered: "Undo anyway" stays.
      expect(actor.getSnapshot().can({ type: "undo.forced" })).toBe(true)
      actor.send({ type: "undo.forced" })
      await undoRemediation.reject(httpFailure("generic", 500))
      expect(actor.getSnapshot().value).toEqual({ list: "still", undo: "confirming" })
      expect(listRemediations.calls).toHaveLength(2)

      // A poll in flight when the undo is refused: the read starts over, its answer postdates the refusal.
      actor.send({ type: "undo.cancelled" })
      actor.send({ type: "history.refreshRequested" })
      await listRemediations.resolve([remediation(1), remediation(2, { state: "pending" }, { available: false })])
      clock.increment(HISTORY_POLL_MS)
      expect(actor.getSnapshot().value).toEqual({ list: "loading", undo: "idle" })
      actor.send({ type: "undo.requested", id: rid(1) })
      actor.send({ type: "undo.confirmed" })
      await undoRemediation.reject(httpFailure("generic", 409, { message: "This fix was already undone" }))
      expect(listRemediations.calls).toHaveLength(5)
      expect(listRemediations.aborted()).toBe(1)
    } finally {
      actor.stop()
    }
  })

  it("a failed poll keeps the list and tries again 5 s later", async () => {
    const { actor, listRemediations, clock } = start()
    try {
      await listRemediations.resolve([remediation(1, { state: "pending" }, { available: false })])
      clock.increment(HISTORY_POLL_MS)
      await listRemediations.reject(httpFailure("generic", 500))
      expect(actor.getSnapshot().value).toMatchObject({ list: "watching" })
      expect(actor.getSnapshot().context.remediations).toHaveLength(1)
      clock.increment(HISTORY_POLL_MS)
      expect(listRemediations.calls).toHaveLength(3)
    } finally {
      actor.stop()
    }
  })

  it("tells its parent to reload the finding when a remediation settles", async () => {
    const listRemediations = controlled<{ readonly finding_id: FindingId }, ReadonlyArray<Remediation>>()
    const received: string[] = []
    const parent = createActor(
      createMachine({
        invoke: {
          id: "history",
          src: remediationHistoryMachine.provide({ actors: { listRemediations: listRemediations.logic, undoRemediation: never() } }),
          input: { findingId: FINDING_ID },
        },
        on: { "finding.reloadRequested": { actions: () => void received.push("finding.reloadRequested") } },
      }),
      { clock: new SimulatedClock() },
    ).start()
    try {
      await listRemediations.resolve([remediation(1, { state: "applied" }, { available: false })])
      const child = parent.getSnapshot().children["history"]!
      child.send({ type: "history.refreshRequested" })
      await listRemediations.resolve([remediation(1)])
      expect(received).toEqual(["finding.reloadRequested"])
    } finally {
      parent.stop()
    }
  })
})
