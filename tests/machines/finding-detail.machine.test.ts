import { describe, expect, it } from "vitest"
import { createActor, createMachine, SimulatedClock, type ActorRefFrom } from "xstate"
import type { DetailRow, Finding, FindingDetailQuery, RemediateResponse } from "../../src/contracts/findings.ts"
import type { FindingId } from "../../src/contracts/ids.ts"
import {
  findingDetailMachine,
  REMEDIATION_POLL_MS,
  SEARCH_DEBOUNCE_MS,
  selectAccountRetired,
  selectCanRemediate,
} from "../../src/machines/finding-detail.machine.ts"
import { remediationMachine } from "../../src/machines/remediation.machine.ts"
import { muteRuleFormMachine } from "../../src/machines/mute-rule-form.machine.ts"
import { remediationHistoryMachine } from "../../src/machines/remediation-history.machine.ts"
import type { Remediation, RemediationPreview, RemediationPreviewPayload } from "../../src/contracts/remediations.ts"
import { preview, remediation } from "./remediation-fakes.ts"
import type { ScanViewer } from "../../src/machines/scan-effects.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, flush, httpFailure, never } from "./auth-fakes.ts"
import {
  SCAN_ID,
  compliantRow,
  environment,
  failedRow,
  finding,
  findingPage,
  nonCompliantRow,
  pendingRow,
  remediatedRow,
  viewer,
} from "./scan-fakes.ts"

const FINDING_ID = 5 as FindingId

const start = (serviceName: string | null = "s3", resource?: string) => {
  const getFinding = controlled<{ readonly id: FindingId } & FindingDetailQuery, Finding>()
  const loadViewer = controlled<void, ScanViewer>()
  const remediate = controlled<{ readonly id: FindingId; readonly details: DetailRow }, RemediateResponse>()
  const previewRemediation = controlled<{ readonly id: FindingId; readonly payload: RemediationPreviewPayload }, RemediationPreview>()
  const listRemediations = controlled<{ readonly finding_id: FindingId }, ReadonlyArray<Remediation>>()
  const env = environment()
  const clock = new SimulatedClock()
  const actor = createActor(
    findingDetailMachine.provide({
      actors: {
        getFinding: getFinding.logic,
        loadViewer: loadViewer.logic,
        remediation: remediationMachine.provide({
          actors: { remediate: remediate.logic, previewRemediation: previewRemediation.logic },
          actions: { notify: env.notify },
        }),
        remediationHistory: remediationHistoryMachine.provide({ actors: { listRemediations: listRemediations.logic, undoRemediation: never() } }),
      },
      actions: { notify: env.notify, navigate: env.navigate },
    }),
    { input: { scanId: SCAN_ID, findingId: FINDING_ID, serviceName, ...(resource === undefined ? {} : { resource }) }, clock },
  ).start()
  return { actor, getFinding, loadViewer, remediate, previewRemediation, listRemediations, env, clock }
}

describe("finding-detail machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = findingDetailMachine.provide({
      actors: {
        getFinding: never(), loadViewer: never(), remediation: remediationMachine.provide({ actors: { remediate: never(), previewRemediation: never() } }),
        // The card's own edges are driven in remediation-history.machine.test.ts; here it only has to receive events.
        remediationHistory: createMachine({}) as unknown as typeof remediationHistoryMachine,
        muteRule: muteRuleFormMachine.provide({ actors: { saveMuteRule: never() } }),
      },
    })
    const input = { scanId: SCAN_ID, findingId: FINDING_ID, serviceName: "s3" }
    const coverage = await coverTransitions(provided, {
      input,
      createActor: (clock) => createActor(provided, { input, clock }),
      events: [
        { type: "xstate.done.actor.getFinding", output: finding(5) },
        { type: "xstate.done.actor.getFinding", output: finding(5, { details: [pendingRow] }) },
        { type: "xstate.done.actor.getFinding", output: findingPage(5, 1, 3) },
        { type: "details.pageRequested", page: 2 },
        { type: "details.statusChanged", status: "fail" },
        { type: "details.searchChanged", q: "web" },
        { type: "xstate.done.actor.fetchPage", output: findingPage(5, 2, 3) },
        { type: "xstate.error.actor.fetchPage", error: httpFailure("finding-load", 500) },
        { type: "xstate.error.actor.getFinding", error: httpFailure("finding-load", 404) },
        { type: "xstate.done.actor.reloadFinding", output: finding(5) },
        { type: "xstate.done.actor.reloadFinding", output: finding(5, { details: [pendingRow] }) },
        { type: "xstate.error.actor.reloadFinding", error: httpFailure("finding-load", 500) },
        { type: "xstate.done.actor.loadViewer", output: viewer() },
        { type: "xstate.done.actor.loadViewer", output: viewer({ canRemediate: false }) },
        { type: "xstate.error.actor.loadViewer", error: httpFailure("generic", 500) },
        { type: "row.remediateRequested", rowIndex: 0 },
        { type: "row.viewRequested", rowIndex: 0 },
        { type: "remediation.rowChanged", rowIndex: 0, row: pendingRow },
        { type: "remediation.rowChanged", rowIndex: 0, row: remediatedRow(nonCompliantRow) },
        { type: "xstate.done.actor.remediation", output: { rowIndex: 0, row: nonCompliantRow, changed: false } },
        { type: "row.muteRequested", rowIndex: 0, today: "2025-03-01" },
        { type: "finding.muteRequested", today: "2025-03-01" },
        { type: "xstate.done.actor.muteRule", output: { saved: true } },
        { type: "xstate.done.actor.muteRule", output: { saved: false } },
      ],
      serializeState: (s) =>
        JSON.stringify([
          s.value,
          s.context.viewer?.canRemediate ?? null,
          s.context.finding?.details[0]?.remediate?.status ?? (s.context.finding === null ? null : "none"),
          s.context.finding?.details_pagination?.total_pages ?? 1,
          [s.context.query.page, s.context.query.status, s.context.query.q],
        ]),
    })
    console.info(formatCoverage("findingDetail", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  }, 300_000)

  it("a failed load shows the §8 text with Retry and Go Back", async () => {
    const { actor, getFinding, env } = start()
    try {
      await getFinding.reject(httpFailure("finding-load", 500))
      expect(actor.getSnapshot().context.error).toBe("Failed to load finding details. Please try again.")
      actor.send({ type: "finding.backRequested" })
      expect(env.navigations).toEqual(["/dashboard/scans/11/findings?service=s3"])
      actor.send({ type: "finding.retryRequested" })
      await getFinding.resolve(finding(5))
      expect(actor.getSnapshot().value).toMatchObject({ detail: { loaded: "still" } })
    } finally {
      actor.stop()
    }
    const noService = start(null)
    noService.actor.send({ type: "finding.backRequested" })
    expect(noService.env.navigations).toEqual(["/dashboard/scans/11"])
    noService.actor.stop()
  })

  it("without remediate_findings: the attempt toasts and no dialog opens", async () => {
    const { actor, getFinding, loadViewer, env } = start()
    try {
      await getFinding.resolve(finding(5))
      await loadViewer.resolve(viewer({ canRemediate: false }))
      expect(selectCanRemediate(actor.getSnapshot())).toBe(false)
      actor.send({ type: "row.remediateRequested", rowIndex: 0 })
      expect(actor.getSnapshot().value).toMatchObject({ dialog: "none" })
      expect(env.toasts).toEqual([{ kind: "error", message: "You don't have permission to remediate findings" }])
    } finally {
      actor.stop()
    }
  })

  it("a finding of a member retired from its organisation: Remediate opens no dialog; a row's record still opens (issue 31)", async () => {
    const { actor, getFinding, loadViewer, env } = start()
    try {
      await getFinding.resolve(finding(5, { account_retired: true, details: [nonCompliantRow, failedRow()] }))
      await loadViewer.resolve(viewer())
      expect(selectAccountRetired(actor.getSnapshot())).toBe(true)
      expect(actor.getSnapshot().can({ type: "row.remediateRequested", rowIndex: 0 })).toBe(false)
      actor.send({ type: "row.remediateRequested", rowIndex: 0 })
      expect(actor.getSnapshot().value).toMatchObject({ dialog: "none" })
      expect(actor.getSnapshot().children["remediation"]).toBeUndefined()
      expect(env.toasts).toEqual([])
      // Its history stays readable: the failed row's record opens.
      actor.send({ type: "row.viewRequested", rowIndex: 1 })
      expect(actor.getSnapshot().value).toMatchObject({ dialog: "open" })
    } finally {
      actor.stop()
    }
  })

  it("remediates a row, polls every 5 s while it is pending, and the dialog follows until 'remediated'", async () => {
    const { actor, getFinding, loadViewer, remediate, previewRemediation, listRemediations, env, clock } = start()
    try {
      await listRemediations.resolve([])
      await getFinding.resolve(finding(5))
      await loadViewer.resolve(viewer())
      // A compliant row has nothing to remediate.
      actor.send({ type: "row.remediateRequested", rowIndex: 1 })
      expect(actor.getSnapshot().value).toMatchObject({ dialog: "none" })
      actor.send({ type: "row.remediateRequested", rowIndex: 0 })
      const dialog = actor.getSnapshot().children.remediation as ActorRefFrom<typeof remediationMachine>
      expect(dialog.getSnapshot().value).toBe("previewing")
      await previewRemediation.resolve(preview())
      expect(dialog.getSnapshot().value).toBe("confirming")
      dialog.send({ type: "remediation.confirmed" })
      expect(remediate.calls).toEqual([{ id: 5, details: nonCompliantRow }])
      await remediate.resolve({ ok: true, message: "Remediation started", data: { details: pendingRow } })
      expect(env.toasts).toEqual([{ kind: "success", message: "Remediation started" }])
      expect(actor.getSnapshot().context.finding?.details[0]).toEqual(pendingRow)
      expect(actor.getSnapshot().value).toMatchObject({ detail: { loaded: "watching" } })
      // The history card reads the finding's remediations again: the new one shows.
      expect(listRemediations.calls).toHaveLength(2)
      await listRemediations.resolve([remediation(1, { state: "pending" }, { available: false })])

      clock.increment(REMEDIATION_POLL_MS)
      expect(getFinding.calls).toHaveLength(2)
      await getFinding.resolve(finding(5, { details: [pendingRow, compliantRow] }))
      clock.increment(REMEDIATION_POLL_MS)
      await getFinding.resolve(finding(5, { details: [remediatedRow(pendingRow), compliantRow] }))
      expect(dialog.getSnapshot().context.row.remediate?.status).toBe("remediated")
      expect(actor.getSnapshot().value).toMatchObject({ detail: { loaded: "still" } })
      clock.increment(60_000)
      expect(getFinding.calls).toHaveLength(3)

      dialog.send({ type: "dialog.closed" })
      await flush()
      expect(actor.getSnapshot().value).toMatchObject({ dialog: "none" })
      expect(actor.getSnapshot().context.finding?.details[0]?.remediate?.status).toBe("remediated")
    } finally {
      actor.stop()
    }
  })

  it("stops polling when the page is left", async () => {
    const { actor, getFinding, clock } = start()
    await getFinding.resolve(finding(5, { details: [pendingRow] }))
    actor.stop()
    clock.increment(60_000)
    expect(getFinding.calls).toHaveLength(1)
  })

  it("a row with a record opens its dialog in the viewing state", async () => {
    const { actor, getFinding, loadViewer } = start()
    try {
      await getFinding.resolve(finding(5, { details: [failedRow()] }))
      await loadViewer.resolve(viewer())
      actor.send({ type: "row.viewRequested", rowIndex: 0 })
      expect((actor.getSnapshot().children.remediation as ActorRefFrom<typeof remediationMachine>).getSnapshot().value).toBe("viewing")
    } finally {
      actor.stop()
    }
  })

  it("opened from a resource's history (?resource=): the first read already searches for that resource", async () => {
    const { actor, getFinding } = start(null, " arn:aws:s3:::logs-bucket ")
    try {
      expect(getFinding.calls[0]).toEqual({ id: 5, details_page: 1, details_page_size: 50, details_q: "arn:aws:s3:::logs-bucket" })
      expect(actor.getSnapshot().context.query.q).toBe("arn:aws:s3:::logs-bucket")
    } finally {
      actor.stop()
    }
  })

  it("pages the rows on the server: next page, status filter and a debounced search each read page 1 of their filter", async () => {
    const { actor, getFinding, env, clock } = start()
    try {
      await getFinding.resolve(findingPage(5, 1, 3))
      expect(getFinding.calls[0]).toEqual({ id: 5, details_page: 1, details_page_size: 50 })
      // Beyond the last page, or the page shown: nothing is read.
      actor.send({ type: "details.pageRequested", page: 4 })
      actor.send({ type: "details.pageRequested", page: 1 })
      expect(getFinding.calls).toHaveLength(1)
      actor.send({ type: "details.pageRequested", page: 2 })
      expect(actor.getSnapshot().value).toMatchObject({ detail: { loaded: "fetching" } })
      expect(getFinding.calls[1]).toEqual({ id: 5, details_page: 2, details_page_size: 50 })
      await getFinding.resolve(findingPage(5, 2, 3))
      expect(actor.getSnapshot().context.finding?.details_pagination?.page).toBe(2)

      actor.send({ type: "details.statusChanged", status: "fail" })
      expect(getFinding.calls[2]).toEqual({ id: 5, details_page: 1, details_page_size: 50, details_status: "fail" })
      await getFinding.resolve(findingPage(5, 1, 2))

      // Typing: one request after the quiet time, with the trimmed text, back on page 1.
      actor.send({ type: "details.searchChanged", q: "w" })
      clock.increment(SEARCH_DEBOUNCE_MS - 1)
      actor.send({ type: "details.searchChanged", q: "web " })
      clock.increment(SEARCH_DEBOUNCE_MS - 1)
      expect(getFinding.calls).toHaveLength(3)
      clock.increment(1)
      expect(getFinding.calls[3]).toEqual({ id: 5, details_page: 1, details_page_size: 50, details_status: "fail", details_q: "web" })

      // A page that cannot be read keeps the rows shown and toasts the §8 text.
      await getFinding.reject(httpFailure("finding-load", 500))
      expect(actor.getSnapshot().value).toMatchObject({ detail: { loaded: "still" } })
      expect(actor.getSnapshot().context.finding?.details_pagination?.total_pages).toBe(2)
      expect(env.toasts).toEqual([{ kind: "error", message: "Failed to load finding details. Please try again." }])

      // The remediation poll re-reads the page in force.
      actor.send({ type: "details.searchChanged", q: "" })
      clock.increment(SEARCH_DEBOUNCE_MS)
      await getFinding.resolve(findingPage(5, 1, 2, { details: [pendingRow] }))
      clock.increment(REMEDIATION_POLL_MS)
      expect(getFinding.calls.at(-1)).toEqual({ id: 5, details_page: 1, details_page_size: 50, details_status: "fail" })
    } finally {
      actor.stop()
    }
  })

  it("when the history card reports a settled remediation (an undo finished), the page of rows is read again", async () => {
    const { actor, getFinding, listRemediations } = start()
    try {
      await getFinding.resolve(finding(5, { details: [remediatedRow(nonCompliantRow)] }))
      await listRemediations.resolve([remediation(1, { state: "undoing" }, { available: false })])
      const history = actor.getSnapshot().children["remediationHistory"]!
      history.send({ type: "history.refreshRequested" })
      await listRemediations.resolve([remediation(1, { state: "undone" }, { available: false })])
      expect(getFinding.calls).toHaveLength(2)
      await getFinding.resolve(finding(5))
      expect(actor.getSnapshot().context.finding?.details[0]?.remediate).toBeUndefined()
    } finally {
      actor.stop()
    }
  })
})
