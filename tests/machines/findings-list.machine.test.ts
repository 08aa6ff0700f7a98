import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock } from "xstate"
import type { FindingListResponse, FindingsQuery } from "../../src/contracts/findings.ts"
import type { FindingId, ScanId } from "../../src/contracts/ids.ts"
import type { Scan } from "../../src/contracts/scans.ts"
import { findingsListMachine, hasActiveFilters } from "../../src/machines/findings-list.machine.ts"
import type { ExportedFile, ExportRequest } from "../../src/machines/scan-effects.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"
import { SCAN_ID, environment, finding, scan } from "./scan-fakes.ts"

const page = (ids: ReadonlyArray<number>, pageNo: number, totalPages: number, total: number): FindingListResponse => ({
  ok: true,
  data: ids.map((id) => finding(id, { severity: id % 2 === 0 ? "critical" : "low", status: id % 3 === 0 ? "pass" : "fail" })),
  pagination: { page: pageNo, total_pages: totalPages, total, page_size: 20 },
})

const start = (serviceName = "s3") => {
  const getScan = controlled<{ readonly id: ScanId }, Scan>()
  const list = controlled<FindingsQuery, FindingListResponse>()
  const exportFindings = controlled<ExportRequest, ExportedFile>()
  const env = environment()
  const actor = createActor(
    findingsListMachine.provide({
      actors: { getScan: getScan.logic, listFindings: list.logic, exportFindings: exportFindings.logic },
      actions: { notify: env.notify, navigate: env.navigate, saveFile: env.saveFile },
    }),
    { input: { scanId: SCAN_ID, serviceName }, clock: new SimulatedClock() },
  ).start()
  return { actor, getScan, list, exportFindings, env }
}

describe("findings-list machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = findingsListMachine.provide({ actors: { getScan: never(), listFindings: never(), exportFindings: never() } })
    const input = { scanId: SCAN_ID, serviceName: "s3" }
    const coverage = await coverTransitions(provided, {
      input,
      createActor: (clock) => createActor(provided, { input, clock }),
      events: [
        { type: "xstate.done.actor.getScan", output: scan(11) },
        { type: "xstate.done.actor.getScan", output: scan(11, { services: [] }) },
        { type: "xstate.error.actor.getScan", error: httpFailure("scan-load", 500) },
        { type: "xstate.done.actor.listFindings", output: page([1, 2], 1, 2, 22) },
        { type: "xstate.error.actor.listFindings", error: httpFailure("scan-load", 500) },
        { type: "xstate.done.actor.loadMoreFindings", output: page([3], 2, 2, 22) },
        { type: "xstate.error.actor.loadMoreFindings", error: httpFailure("scan-load", 500) },
        { type: "filter.severityToggled", severity: "critical" },
        { type: "filter.statusToggled", status: "fail" },
        { type: "filter.newOnlyToggled" },
        { type: "export.requested", format: "csv" },
        { type: "xstate.done.actor.exportFindings", output: { fileName: "f.csv", contentType: "text/csv", content: "" } },
        { type: "xstate.error.actor.exportFindings", error: httpFailure("export", 500) },
        { type: "finding.selected", findingId: 1 },
      ],
      serializeState: (s) => JSON.stringify([s.value, s.context.page < s.context.totalPages, s.context.scan !== null]),
    })
    console.info(formatCoverage("findingsList", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  it("finds the service by name, loads its findings 20 at a time, and loads more", async () => {
    const { actor, getScan, list } = start()
    try {
      await getScan.resolve(scan(11))
      expect(list.calls).toEqual([{ scan_id: 11, service_id: 101, page: 1, page_size: 20 }])
      await list.resolve(page([1, 2, 3], 1, 2, 4))
      actor.send({ type: "findings.loadMoreRequested" })
      expect(list.calls[1]).toEqual({ scan_id: 11, service_id: 101, page: 2, page_size: 20 })
      await list.resolve(page([3, 4], 2, 2, 4))
      expect(actor.getSnapshot().context.findings.map((f) => f.id)).toEqual([1, 2, 3, 4])
      actor.send({ type: "findings.loadMoreRequested" })
      expect(list.calls).toHaveLength(2)
    } finally {
      actor.stop()
    }
  })

  it("'Service \"{name}\" not found in this scan'", async () => {
    const { actor, getScan, list } = start("lambda")
    try {
      await getScan.resolve(scan(11))
      expect(actor.getSnapshot().value).toMatchObject({ list: "serviceMissing" })
      expect(actor.getSnapshot().context.error).toBe('Service "lambda" not found in this scan')
      expect(list.calls).toEqual([])
    } finally {
      actor.stop()
    }
  })

  it("filters on the client, clears, and exports with the filters in force", async () => {
    const { actor, getScan, list, exportFindings, env } = start()
    try {
      await getScan.resolve(scan(11))
      await list.resolve(page([1, 2, 3, 4, 5, 6], 1, 1, 6))
      actor.send({ type: "filters.toggled" })
      expect(actor.getSnapshot().value).toMatchObject({ filterPanel: "shown" })
      actor.send({ type: "filter.severityToggled", severity: "critical" })
      expect(actor.getSnapshot().context.visible.map((f) => f.id)).toEqual([2, 4, 6])
      actor.send({ type: "filter.statusToggled", status: "pass" })
      expect(actor.getSnapshot().context.visible.map((f) => f.id)).toEqual([6])
      expect(list.calls).toHaveLength(1)

      actor.send({ type: "export.requested", format: "csv" })
      expect(exportFindings.calls).toEqual([{ scanId: 11, format: "csv", service_id: 101, status: "pass", severity: "critical" }])
      await exportFindings.resolve({ fileName: "scan-11-findings-x.csv", contentType: "text/csv", content: "id\n6\n" })
      expect(env.files).toHaveLength(1)

      actor.send({ type: "filters.cleared" })
      expect(hasActiveFilters(actor.getSnapshot().context.filters)).toBe(false)
      expect(actor.getSnapshot().context.visible).toHaveLength(6)
      // Beyond the spec: only findings with resources failing since the previous scan.
      actor.send({ type: "filter.newOnlyToggled" })
      expect(hasActiveFilters(actor.getSnapshot().context.filters)).toBe(true)
      expect(actor.getSnapshot().context.visible).toEqual([])
      actor.send({ type: "filter.newOnlyToggled" })
      expect(actor.getSnapshot().context.visible).toHaveLength(6)
      actor.send({ type: "finding.selected", findingId: 6 as FindingId })
      expect(env.navigations).toEqual(["/dashboard/scans/11/findings/6?service=s3"])
    } finally {
      actor.stop()
    }
  })

  it("exports nothing for a scan that is not completed", async () => {
    const { actor, getScan, list, exportFindings } = start()
    try {
      await getScan.resolve(scan(11, { status: "running" }))
      await list.resolve(page([1], 1, 1, 1))
      actor.send({ type: "export.requested", format: "json" })
      expect(exportFindings.calls).toEqual([])
    } finally {
      actor.stop()
    }
  })
})
