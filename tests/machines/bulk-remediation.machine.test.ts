/**
 * Starting a bulk remediation (issue 32 part 4): every (state, event) edge is driven (model-based, xstate/graph), then
 * the flows — a member without remediate_findings gets nothing, failing findings are ticked (one, a page, cleared),
 * their failing rows are read and confirmed with their number, the batch is created and its page opens; a refusal stays
 * in the dialog; the cross-account "every failing row of a check" start; `failingRowsOf` and `checkScopeOf` on real
 * sizes (1,200 rows stop at the server's limit + 1).
 */
import { describe, expect, it } from "vitest"
import { createActor } from "xstate"
import type { DetailRow, Finding, FindingDetailQuery } from "../../src/contracts/findings.ts"
import type { FindingId } from "../../src/contracts/ids.ts"
import { BATCH_MAX_ROWS, BatchMessages, type BatchRowRef, type CreateBatchPayload } from "../../src/contracts/remediation-batches.ts"
import { bulkRemediationMachine, checkScopeOf, payloadOf, selectedResources } from "../../src/machines/bulk-remediation.machine.ts"
import { failingRowsOf, remediableRows, type BatchActed } from "../../src/machines/remediation-batches-effects.ts"
import type { ScanViewer } from "../../src/machines/scan-effects.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"
import { environment, finding, viewer } from "./scan-fakes.ts"
import { BATCH_ID, batch } from "./remediation-batch-fakes.ts"

const failing = (id: number, patch: Record<string, unknown> = {}) => finding(id, { resources_failing: 3, resources_checked: 5, ...patch })
const passing = finding(9, { status: "pass", resources_failing: 0 })
const created: BatchActed = { message: BatchMessages.created, batch: batch("queued", { pending: 4 }) }
const rows: ReadonlyArray<BatchRowRef> = [
  { finding_id: 1 as FindingId, result_seq: 0 },
  { finding_id: 2 as FindingId, result_seq: 4 },
]

const start = () => {
  const loadViewer = controlled<void, ScanViewer>()
  const resolveRows = controlled<{ readonly findingIds: ReadonlyArray<FindingId> }, ReadonlyArray<BatchRowRef>>()
  const createBatch = controlled<CreateBatchPayload, BatchActed>()
  const env = environment()
  const actor = createActor(
    bulkRemediationMachine.provide({
      actors: { loadViewer: loadViewer.logic, resolveRows: resolveRows.logic, createBatch: createBatch.logic },
      actions: { notify: env.notify, navigate: env.navigate },
    }),
  ).start()
  return { actor, loadViewer, resolveRows, createBatch, env }
}

describe("bulk-remediation machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = bulkRemediationMachine.provide({ actors: { loadViewer: never(), resolveRows: never(), createBatch: never() } })
    const coverage = await coverTransitions(provided, {
      createActor: (clock) => createActor(provided, { clock }),
      events: [
        { type: "xstate.done.actor.loadViewer", output: viewer() },
        { type: "xstate.done.actor.loadViewer", output: viewer({ canRemediate: false }) },
        { type: "xstate.error.actor.loadViewer", error: httpFailure("generic", 500) },
        { type: "selection.toggled", finding: failing(1) },
        { type: "selection.toggled", finding: passing },
        { type: "selection.pageToggled", findings: [failing(1), failing(2)] },
        { type: "selection.cleared" },
        { type: "selection.remediateRequested" },
        { type: "check.remediateRequested", checkId: "s3.public_access", accountIds: [1, 2], resources: 6, accounts: 2 },
        { type: "check.remediateRequested", checkId: "s3.public_access", accountIds: [], resources: 0, accounts: 0 },
        { type: "xstate.done.actor.resolveRows", output: rows },
        { type: "xstate.error.actor.resolveRows", error: { type: "VALIDATION_ERROR", message: BatchMessages.noRows } },
        { type: "batch.confirmed" },
        { type: "dialog.closed" },
        { type: "xstate.done.actor.createBatch", output: created },
        { type: "xstate.error.actor.createBatch", error: httpFailure("generic", 400, { _tag: "ValidationError", message: BatchMessages.rowNotFailing }) },
      ],
      serializeState: (s) => JSON.stringify([s.value, s.context.selected.length > 0, s.context.target !== null]),
    })
    console.info(formatCoverage("bulkRemediation", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  it("offers nothing to a member without remediate_findings", async () => {
    const { actor, loadViewer } = start()
    await loadViewer.resolve(viewer({ canRemediate: false }))
    expect(actor.getSnapshot().value).toBe("unavailable")
    // Final: no selection is ever taken.
    expect(actor.getSnapshot().status).toBe("done")
    expect(actor.getSnapshot().can({ type: "selection.toggled", finding: failing(1) })).toBe(false)
  })

  it("ticks failing findings, reads their rows, confirms their number and opens the batch's page", async () => {
    const { actor, loadViewer, resolveRows, createBatch, env } = start()
    try {
      await loadViewer.resolve(viewer())
      actor.send({ type: "selection.remediateRequested" })
      expect(actor.getSnapshot().value).toBe("idle")
      actor.send({ type: "selection.toggled", finding: passing })
      actor.send({ type: "selection.toggled", finding: failing(1) })
      actor.send({ type: "selection.toggled", finding: failing(2, { resources_muted: 1 }) })
      expect(actor.getSnapshot().context.selected.map((s) => s.id)).toEqual([1, 2])
      expect(selectedResources(actor.getSnapshot().context.selected)).toBe(5)
      actor.send({ type: "selection.toggled", finding: failing(2) })
      // The page checkbox ticks every failing finding, then unticks them all.
      actor.send({ type: "selection.pageToggled", findings: [failing(1), failing(2), failing(3), passing] })
      expect(actor.getSnapshot().context.selected.map((s) => s.id)).toEqual([1, 2, 3])
      actor.send({ type: "selection.pageToggled", findings: [failing(1), failing(2), failing(3), passing] })
      expect(actor.getSnapshot().context.selected).toEqual([])
      actor.send({ type: "selection.toggled", finding: failing(1) })
      actor.send({ type: "selection.toggled", finding: failing(2) })

      actor.send({ type: "selection.remediateRequested" })
      expect(resolveRows.calls).toEqual([{ findingIds: [1, 2] }])
      await resolveRows.resolve(rows)
      expect(actor.getSnapshot().value).toBe("confirming")
      expect(actor.getSnapshot().context.target).toEqual({ kind: "rows", rows, accounts: 1 })
      actor.send({ type: "batch.confirmed" })
      expect(createBatch.calls).toEqual([{ rows }])
      await createBatch.resolve(created)
      expect(actor.getSnapshot().status).toBe("done")
      expect(env.navigations).toEqual([`/dashboard/remediations/batches/${BATCH_ID}`])
      expect(env.toasts).toEqual([{ kind: "success", message: BatchMessages.created }])
    } finally {
      actor.stop()
    }
  })

  it("keeps a refusal in the dialog, toasts a selection without rows left, and closes without sending", async () => {
    const { actor, loadViewer, resolveRows, createBatch, env } = start()
    try {
      await loadViewer.resolve(viewer())
      actor.send({ type: "selection.toggled", finding: failing(1) })
      actor.send({ type: "selection.remediateRequested" })
      await resolveRows.reject({ type: "VALIDATION_ERROR", message: BatchMessages.noRows })
      expect(actor.getSnapshot().value).toBe("idle")
      expect(env.toasts).toEqual([{ kind: "error", message: BatchMessages.noRows }])
      actor.send({ type: "selection.remediateRequested" })
      await resolveRows.resolve(rows)
      actor.send({ type: "batch.confirmed" })
      await createBatch.reject(httpFailure("generic", 400, { _tag: "ValidationError", message: BatchMessages.rowNotFailing }))
      expect(actor.getSnapshot().value).toBe("confirming")
      expect(actor.getSnapshot().context.error).toBe(BatchMessages.rowNotFailing)
      actor.send({ type: "dialog.closed" })
      expect(actor.getSnapshot().context.target).toBeNull()
      expect(actor.getSnapshot().context.selected).toHaveLength(1)
      actor.send({ type: "selection.cleared" })
      expect(actor.getSnapshot().context.selected).toEqual([])
      expect(createBatch.calls).toHaveLength(1)
    } finally {
      actor.stop()
    }
  })

  it("a retired member's findings are not ticked; a stale page's 409 stays in the dialog in the server's words (issue 31)", async () => {
    const { actor, loadViewer, resolveRows, createBatch } = start()
    const refusal = "This account was retired from its organization: its findings can no longer be remediated"
    try {
      await loadViewer.resolve(viewer())
      actor.send({ type: "selection.toggled", finding: failing(1, { account_retired: true }) })
      actor.send({ type: "selection.pageToggled", findings: [failing(2, { account_retired: true }), failing(3)] })
      expect(actor.getSnapshot().context.selected.map((s) => s.id)).toEqual([3])
      actor.send({ type: "selection.remediateRequested" })
      await resolveRows.resolve(rows)
      actor.send({ type: "batch.confirmed" })
      await createBatch.reject(httpFailure("generic", 409, { _tag: "Conflict", message: refusal, data: { error_type: "account_retired" } }))
      expect(actor.getSnapshot().value).toBe("confirming")
      expect(actor.getSnapshot().context.error).toBe(refusal)
    } finally {
      actor.stop()
    }
  })

  it("starts every failing row of a check in the listed accounts", async () => {
    const { actor, loadViewer, createBatch } = start()
    try {
      await loadViewer.resolve(viewer())
      const list = [
        failing(1, { account_id: 1, account_name: "A" }),
        failing(2, { account_id: 2, account_name: "B", resources_remediated: 1 }),
        finding(3, { account_id: 3, account_name: "C", status: "pass", resources_failing: 0 }),
      ]
      expect(checkScopeOf("", list, null)).toBeNull()
      expect(checkScopeOf("s3.public", list, "next")).toBeNull()
      expect(checkScopeOf("s3", [...list, failing(4, { check_id: "s3.other" })], null)).toBeNull()
      const scope = checkScopeOf("s3.public", list, null)
      expect(scope).toEqual({ checkId: "s3.public_access", accountIds: [1, 2], resources: 5, accounts: 2 })
      actor.send({ type: "check.remediateRequested", ...scope! })
      expect(actor.getSnapshot().value).toBe("confirming")
      actor.send({ type: "batch.confirmed" })
      expect(createBatch.calls).toEqual([{ check_id: "s3.public_access", account_ids: [1, 2] }])
      expect(payloadOf({ kind: "rows", rows, accounts: 1 })).toEqual({ rows })
    } finally {
      actor.stop()
    }
  })

  it("reads the failing rows page by page, keeps only the ones the Remediate button offers, and stops past the limit", async () => {
    const row = (seq: number, patch: Partial<DetailRow> = {}): DetailRow => ({ resource_id: `b-${seq}`, region: "us-east-1", compliance: false, result_seq: seq, ...patch })
    expect(
      remediableRows({
        id: 1 as FindingId,
        details: [
          row(0),
          row(1, { compliance: true }),
          row(2, { muted: { rule_id: 1, reason: "accepted" } }),
          row(3, { remediate: { status: "remediated", message: "done", attempted_at: "2026-11-27T10:00:00.000Z", attempted_by: null } as NonNullable<DetailRow["remediate"]> }),
        ],
      }),
    ).toEqual([{ finding_id: 1, result_seq: 0 }])

    // 3 findings of 600 failing rows each, read 500 at a time: the reading stops once 1,001 rows are known.
    const calls: Array<{ id: number; page: number }> = []
    const getFinding = async (q: { readonly id: FindingId } & FindingDetailQuery): Promise<Finding> => {
      calls.push({ id: q.id, page: q.details_page ?? 1 })
      const page = q.details_page ?? 1
      const size = q.details_page_size ?? 50
      const details = Array.from({ length: Math.min(size, 600 - (page - 1) * size) }, (_, i) => row((page - 1) * size + i))
      return finding(q.id, { details, details_pagination: { page, page_size: size, total: 600, total_pages: 2, status: "fail", q: null } })
    }
    const found = await failingRowsOf(getFinding)({ findingIds: [1, 2, 3] as FindingId[] })
    expect(found.length).toBe(BATCH_MAX_ROWS + 100)
    expect(calls).toEqual([
      { id: 1, page: 1 },
      { id: 1, page: 2 },
      { id: 2, page: 1 },
    ])
    await expect(failingRowsOf(async (q) => finding(q.id, { details: [row(0, { compliance: true })] }))({ findingIds: [1 as FindingId] })).rejects.toEqual({
      type: "VALIDATION_ERROR",
      message: BatchMessages.noRows,
    })
    expect(new Set(found.map((r) => `${r.finding_id}:${r.result_seq}`)).size).toBe(found.length)
  })
})
