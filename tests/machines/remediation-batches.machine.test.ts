/**
 * The list of bulk remediations (issue 32 part 4): every (state, event) edge is driven (model-based, xstate/graph),
 * then paging (only to pages that exist, rows kept on a failed page) and a failed load with its retry.
 */
import { describe, expect, it } from "vitest"
import { createActor } from "xstate"
import type { RemediationBatchesResponse } from "../../src/contracts/remediation-batches.ts"
import { BATCHES_LOAD_FAILED, BATCHES_PAGE_SIZE, remediationBatchesMachine } from "../../src/machines/remediation-batches.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"
import { environment } from "./scan-fakes.ts"
import { completed, running } from "./remediation-batch-fakes.ts"

const page = (n: number, totalPages = 2): RemediationBatchesResponse => ({
  data: n === 1 ? [running, completed] : [completed],
  pagination: { page: n, total_pages: totalPages, total: 21, page_size: BATCHES_PAGE_SIZE },
})

describe("remediation-batches machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = remediationBatchesMachine.provide({ actors: { listBatches: never() } })
    const coverage = await coverTransitions(provided, {
      createActor: (clock) => createActor(provided, { clock }),
      events: [
        { type: "xstate.done.actor.listBatches", output: page(1) },
        { type: "xstate.error.actor.listBatches", error: httpFailure("generic", 500) },
        { type: "batches.retryRequested" },
        { type: "page.requested", page: 2 },
        { type: "xstate.done.actor.listPage", output: page(2) },
        { type: "xstate.error.actor.listPage", error: httpFailure("generic", 500) },
      ],
    })
    console.info(formatCoverage("remediationBatches", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  it("pages to existing pages only, keeps the rows on a failed page, retries a failed load", async () => {
    const listBatches = controlled<{ readonly page: number; readonly page_size: number }, RemediationBatchesResponse>()
    const env = environment()
    const actor = createActor(remediationBatchesMachine.provide({ actors: { listBatches: listBatches.logic }, actions: { notify: env.notify } })).start()
    try {
      await listBatches.reject(new Error("boom"))
      expect(actor.getSnapshot().context.error).toBe(BATCHES_LOAD_FAILED)
      actor.send({ type: "batches.retryRequested" })
      await listBatches.resolve(page(1))
      actor.send({ type: "page.requested", page: 1 })
      actor.send({ type: "page.requested", page: 3 })
      actor.send({ type: "page.requested", page: 0 })
      expect(actor.getSnapshot().value).toBe("ready")
      actor.send({ type: "page.requested", page: 2 })
      expect(listBatches.calls.at(-1)).toEqual({ page: 2, page_size: BATCHES_PAGE_SIZE })
      await listBatches.reject(httpFailure("generic", 500))
      expect(actor.getSnapshot().context.batches).toHaveLength(2)
      expect(env.toasts).toHaveLength(1)
      actor.send({ type: "page.requested", page: 2 })
      await listBatches.resolve(page(2))
      expect(actor.getSnapshot().context.page).toBe(2)
      expect(actor.getSnapshot().context.batches).toHaveLength(1)
    } finally {
      actor.stop()
    }
  })
})
