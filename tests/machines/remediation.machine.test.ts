import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock } from "xstate"
import type { DetailRow, RemediateResponse } from "../../src/contracts/findings.ts"
import type { FindingId } from "../../src/contracts/ids.ts"
import { previewPayload, remediationMachine, type RemediationInput } from "../../src/machines/remediation.machine.ts"
import type { RemediationPreview, RemediationPreviewPayload } from "../../src/contracts/remediations.ts"
import type { RemediationRequestedResponse } from "../../src/contracts/remediation-requests.ts"
import { preview } from "./remediation-fakes.ts"
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
  const remediate = controlled<{ readonly id: FindingId; readonly details: DetailRow }, RemediateResponse | RemediationRequestedResponse>()
  const previewRemediation = controlled<{ readonly id: FindingId; readonly payload: RemediationPreviewPayload }, RemediationPreview>()
  const env = environment()
  const reported: unknown[] = []
  const actor = createActor(
    remediationMachine.provide({
      actors: { remediate: remediate.logic, previewRemediation: previewRemediation.logic },
      actions: { notify: env.notify, reportRow: ({ context }) => void reported.push(context.row) },
    }),
    { input: input(overrides), clock: new SimulatedClock() },
  ).start()
  return { actor, remediate, previewRemediation, env, reported }
}

const approvalAnswer: RemediationRequestedResponse = {
  ok: true,
  message: "Remediation request sent for approval",
  data: { details: nonCompliantRow, approval_request: { id: 3 as never, state: "pending", expires_at: "2025-03-04T11:00:00.000Z" } },
}

describe("remediation machine", () => {
  it("drives every (state, event) edge (with and without the permission, with and without a record)", async () => {
    const provided = remediationMachine.provide({ actors: { remediate: never(), previewRemediation: never() }, actions: { reportRow: () => {} } })
    const events = [
      { type: "xstate.done.actor.previewRemediation", output: preview() },
      { type: "xstate.error.actor.previewRemediation", error: httpFailure("generic", 409, { message: "This check's fix has no preview yet" }) },
      { type: "xstate.done.actor.remediate", output: approvalAnswer },
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
    const { actor, remediate, previewRemediation, env, reported } = start()
    try {
      expect(actor.getSnapshot().value).toBe("previewing")
      expect(previewRemediation.calls).toEqual([{ id: 5, payload: { details: nonCompliantRow } }])
      await previewRemediation.resolve(preview())
      expect(actor.getSnapshot().value).toBe("confirming")
      expect(actor.getSnapshot().context.preview?.calls[0]?.operation).toBe("PutPublicAccessBlock")
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
    const { actor, remediate, previewRemediation, env } = start()
    try {
      await previewRemediation.resolve(preview())
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

  it("a member retired from its organisation since the page was read: the dialog shows the server's refusal as the error (issue 31)", async () => {
    const { actor, remediate, previewRemediation, env } = start()
    const refusal = "This account was retired from its organization: its findings can no longer be remediated"
    try {
      await previewRemediation.resolve(preview())
      actor.send({ type: "remediation.confirmed" })
      await remediate.reject(httpFailure("remediation", 409, { message: refusal, data: { error_type: "account_retired" } }))
      expect(actor.getSnapshot().value).toBe("failed")
      expect(actor.getSnapshot().context.error).toBe(refusal)
      expect(actor.getSnapshot().context.errorDetail).toBeNull()
      expect(env.toasts).toEqual([{ kind: "error", message: refusal }])
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
    const { actor, remediate, previewRemediation, env } = start({ canRemediate: false })
    try {
      await previewRemediation.resolve(preview())
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

  it("a preview that fails to load shows the server's reason with Retry; Retry reads it again; the row is asked by result_seq", async () => {
    const row = { ...nonCompliantRow, result_seq: 4 }
    const { actor, previewRemediation, remediate } = start({ row })
    try {
      expect(previewRemediation.calls).toEqual([{ id: 5, payload: { result_seq: 4 } }])
      await previewRemediation.reject(httpFailure("generic", 409, { message: "This check's fix has no preview yet" }))
      expect(actor.getSnapshot().value).toBe("previewFailed")
      expect(actor.getSnapshot().context.error).toBe("This check's fix has no preview yet")
      actor.send({ type: "preview.retried" })
      expect(actor.getSnapshot().value).toBe("previewing")
      await previewRemediation.reject(httpFailure("generic", 500))
      expect(actor.getSnapshot().context.error).not.toBe("")
      actor.send({ type: "dialog.closed" })
      expect(actor.getSnapshot().status).toBe("done")
      expect(actor.getSnapshot().output).toEqual({ rowIndex: 0, row, changed: false })
      expect(remediate.calls).toEqual([])
    } finally {
      actor.stop()
    }
  })

  it("on an account that requires approval the answer is the request: 'Approval requested', the row unchanged", async () => {
    const { actor, previewRemediation, remediate, env, reported } = start()
    try {
      await previewRemediation.resolve(preview())
      actor.send({ type: "remediation.confirmed" })
      await remediate.resolve(approvalAnswer)
      expect(actor.getSnapshot().value).toBe("requested")
      expect(actor.getSnapshot().context.approval).toEqual(approvalAnswer.data.approval_request)
      expect(reported).toEqual([])
      expect(env.toasts).toEqual([{ kind: "success", message: "Remediation request sent for approval" }])
      actor.send({ type: "dialog.closed" })
      expect(actor.getSnapshot().output).toEqual({ rowIndex: 0, row: nonCompliantRow, changed: false })
    } finally {
      actor.stop()
    }
  })

  it("previewPayload: result_seq when the row has one, else the row", () => {
    expect(previewPayload({ ...nonCompliantRow, result_seq: 0 })).toEqual({ result_seq: 0 })
    expect(previewPayload(nonCompliantRow)).toEqual({ details: nonCompliantRow })
  })
})
