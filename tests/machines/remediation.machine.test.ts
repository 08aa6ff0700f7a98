import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock } from "xstate"
import type { DetailRow, RemediateResponse } from "../../src/contracts/findings.ts"
import type { FindingId } from "../../src/contracts/ids.ts"
import { remediationMachine, type RemediationInput } from "../../src/machines/remediation.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"
import { environment, failedRow, nonCompliantRow, pendingRow, remediatedRow } from "./scan-fakes.ts"

const input = (overrides: Partial<RemediationInput> = {}): RemediationInput => ({
  findingId: 5 as FindingId,
  rowIndex: 0,
  row: nonCompliantRow,
  canRemediate: true,
  ...overrides,
})

const start = (overrides: Partial<RemediationInput> = {}) => {
  const remediate = controlled<{ readonly id: FindingId; readonly details: DetailRow }, RemediateResponse>()
  const env = environment()
  const reported: unknown[] = []
  const actor = createActor(
    remediationMachine.provide({
      actors: { remediate: remediate.logic },
      actions: { notify: env.notify, reportRow: ({ context }) => void reported.push(context.row) },
    }),
    { input: input(overrides), clock: new SimulatedClock() },
  ).start()
  return { actor, remediate, env, reported }
}

describe("remediation machine", () => {
  it("drives every (state, event) edge (with and without the permission, with and without a record)", async () => {
    const provided = remediationMachine.provide({ actors: { remediate: never() }, actions: { reportRow: () => {} } })
    const events = [
      { type: "xstate.done.actor.remediate", output: { ok: true, message: "Remediation started", data: { details: pendingRow } } },
      { type: "xstate.done.actor.remediate", output: { ok: true, message: "Remediation failed", data: { details: failedRow() } } },
      { type: "xstate.error.actor.remediate", error: httpFailure("remediation", 500) },
      { type: "row.updated", row: remediatedRow(nonCompliantRow) },
      { type: "row.updated", row: failedRow() },
    ]
    const serializeState = (s: { value: unknown; context: { row: DetailRow } }) =>
      JSON.stringify([s.value, s.context.row.remediate?.status ?? null])
    let total = 0
    let driven = 0
    for (const variant of [input(), input({ canRemediate: false }), input({ row: failedRow() }), input({ row: failedRow(), canRemediate: false })]) {
      const coverage = await coverTransitions(provided, {
        input: variant,
        createActor: (clock) => createActor(provided, { input: variant, clock }),
        events,
        serializeState,
      })
      expect(coverage.missing).toEqual([])
      total += coverage.total
      driven += coverage.driven
    }
    console.info(formatCoverage("remediation", { total, driven, missing: [], edges: [] }))
    expect(driven).toBe(total)
  })

  it("confirms, sends the row, shows the answer and reports it to the finding page", async () => {
    const { actor, remediate, env, reported } = start()
    try {
      expect(actor.getSnapshot().value).toBe("confirming")
      actor.send({ type: "remediation.confirmed" })
      expect(remediate.calls).toEqual([{ id: 5, details: nonCompliantRow }])
      await remediate.resolve({ ok: true, message: "Remediation started", data: { details: pendingRow } })
      expect(actor.getSnapshot().value).toBe("viewing")
      expect(reported).toEqual([pendingRow])
      expect(env.toasts).toEqual([{ kind: "success", message: "Remediation started" }])
      actor.send({ type: "dialog.closed" })
      expect(actor.getSnapshot().output).toEqual({ rowIndex: 0, row: pendingRow, changed: true })
    } finally {
      actor.stop()
    }
  })

  it("a failed call toasts 'Failed to remediate finding. Please try again.' and offers Try again", async () => {
    const { actor, remediate, env } = start()
    try {
      actor.send({ type: "remediation.confirmed" })
      await remediate.reject(httpFailure("remediation", 500))
      expect(actor.getSnapshot().value).toBe("failed")
      expect(actor.getSnapshot().context.error).toBe("Failed to remediate finding. Please try again.")
      expect(env.toasts).toEqual([{ kind: "error", message: "Failed to remediate finding. Please try again." }])
      expect(actor.getSnapshot().context.errorDetail).toBeNull()
      actor.send({ type: "remediation.retried" })
      await remediate.reject(httpFailure("remediation", 409, { message: "No automatic remediation is available for this check" }))
      expect(actor.getSnapshot().context.error).toBe("Failed to remediate finding. Please try again.")
      expect(actor.getSnapshot().context.errorDetail).toBe("No automatic remediation is available for this check")
      actor.send({ type: "remediation.retried" })
      expect(remediate.calls).toHaveLength(3)
      await remediate.reject(httpFailure("remediation", 403))
      expect(actor.getSnapshot().context.error).toBe("You don't have permission to remediate findings")
    } finally {
      actor.stop()
    }
  })

  it("a failed remediation record can be retried ('Try again'); a long message collapses", async () => {
    const long = "x".repeat(150)
    const { actor, remediate } = start({ row: failedRow(long) })
    try {
      expect(actor.getSnapshot().value).toBe("viewing")
      expect(actor.getSnapshot().context.expanded).toBe(false)
      actor.send({ type: "message.toggled" })
      expect(actor.getSnapshot().context.expanded).toBe(true)
      actor.send({ type: "message.toggled" })
      expect(actor.getSnapshot().context.expanded).toBe(false)
      actor.send({ type: "remediation.retried" })
      expect(remediate.calls).toEqual([{ id: 5, details: failedRow(long) }])
    } finally {
      actor.stop()
    }
  })

  it("without remediate_findings nothing is sent and the spec's toast shows", async () => {
    const { actor, remediate, env } = start({ canRemediate: false })
    try {
      actor.send({ type: "remediation.confirmed" })
      expect(remediate.calls).toEqual([])
      expect(env.toasts).toEqual([{ kind: "error", message: "You don't have permission to remediate findings" }])
      expect(actor.getSnapshot().value).toBe("confirming")
    } finally {
      actor.stop()
    }
  })

  it("a remediated record cannot be retried", async () => {
    const { actor, remediate } = start({ row: remediatedRow(nonCompliantRow) })
    try {
      actor.send({ type: "remediation.retried" })
      expect(remediate.calls).toEqual([])
      expect(actor.getSnapshot().value).toBe("viewing")
    } finally {
      actor.stop()
    }
  })
})
