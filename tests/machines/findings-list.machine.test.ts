import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock } from "xstate"
import type { FindingListResponse, FindingsQuery } from "../../src/contracts/findings.ts"
import type { FindingId, ScanId, ServiceId } from "../../src/contracts/ids.ts"
import type { Scan } from "../../src/contracts/scans.ts"
import { findingsListMachine, hasActiveFilters, nextOrder, SEARCH_DEBOUNCE_MS } from "../../src/machines/findings-list.machine.ts"
import type { ExportedFile, ExportRequest } from "../../src/machines/scan-effects.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"
import { SCAN_ID, environment, finding, scan } from "./scan-fakes.ts"

/** One page as the server answers it: the rows, the pagination, its totals and the cursor of the next page. */
const page = (ids: ReadonlyArray<number>, pageNo: number, totalPages: number, total: number, unfiltered = total): FindingListResponse => ({
  ok: true,
  data: ids.map((id) => finding(id, { severity: id % 2 === 0 ? "critical" : "low", status: id % 3 === 0 ? "pass" : "fail" })),
  pagination: { page: pageNo, total_pages: totalPages, total, page_size: 20 },
  totals: { findings: total, findings_unfiltered: unfiltered, resources_checked: 2 * total, resources_failing: total, resources_matched: null },
  next_cursor: pageNo < totalPages ? `cursor-after-${pageNo}` : null,
  regions: ["eu-west-1", "us-east-1"],
})

const start = (serviceName = "s3") => {
  const getScan = controlled<{ readonly id: ScanId }, Scan>()
  const list = controlled<FindingsQuery, FindingListResponse>()
  const exportFindings = controlled<ExportRequest, ExportedFile>()
  const env = environment()
  const clock = new SimulatedClock()
  const actor = createActor(
    findingsListMachine.provide({
      actors: { getScan: getScan.logic, listFindings: list.logic, exportFindings: exportFindings.logic },
      actions: { notify: env.notify, navigate: env.navigate, saveFile: env.saveFile },
    }),
    { input: { scanId: SCAN_ID, serviceName }, clock },
  ).start()
  return { actor, getScan, list, exportFindings, env, clock }
}

describe("findings-list machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = findingsListMachine.provide({ actors: { getScan: never(), listFindings: never(), exportFindings: never() } })
    for (const serviceName of ["s3", ""]) {
      const input = { scanId: SCAN_ID, serviceName }
      const coverage = await coverTransitions(provided, {
        input,
        createActor: (clock) => createActor(provided, { input, clock }),
        events: [
          { type: "xstate.done.actor.getScan", output: scan(11) },
          { type: "xstate.done.actor.getScan", output: scan(11, { services: [] }) },
          { type: "xstate.error.actor.getScan", error: httpFailure("scan-load", 500) },
          { type: "xstate.done.actor.listFindings", output: page([1, 2], 1, 2, 22) },
          { type: "xstate.error.actor.listFindings", error: httpFailure("scan-load", 500) },
          { type: "xstate.done.actor.refreshFindings", output: page([2], 1, 1, 1) },
          { type: "xstate.error.actor.refreshFindings", error: httpFailure("scan-load", 500) },
          { type: "xstate.done.actor.loadMoreFindings", output: page([3], 2, 2, 22) },
          { type: "xstate.error.actor.loadMoreFindings", error: httpFailure("scan-load", 500) },
          { type: "filter.severityToggled", severity: "critical" },
          { type: "filter.statusToggled", status: "muted" },
          { type: "filter.changeToggled", change: "new" },
          { type: "filter.serviceChanged", serviceId: 101 as ServiceId },
          { type: "filter.regionToggled", region: "eu-west-1" },
          { type: "filter.checkChanged", text: "public" },
          { type: "filter.searchChanged", q: "bucket" },
          { type: "filters.cleared" },
          { type: "sort.changed", sort: "severity" },
          { type: "filters.changed" },
          { type: "search.changed" },
          { type: "export.requested", format: "csv" },
          { type: "xstate.done.actor.exportFindings", output: { fileName: "f.csv", contentType: "text/csv", content: "" } },
          { type: "xstate.error.actor.exportFindings", error: httpFailure("export", 500) },
          { type: "finding.selected", findingId: 1 as FindingId, serviceName: "s3" },
        ],
        serializeState: (s) => JSON.stringify([s.value, s.context.nextCursor !== null, s.context.scan !== null]),
      })
      console.info(formatCoverage(`findingsList (${serviceName || "all services"})`, coverage))
      expect(coverage.missing).toEqual([])
      expect(coverage.driven).toBe(coverage.total)
    }
  })

  it("finds the service by name, reads its findings 20 at a time with the server's totals, and loads more by cursor", async () => {
    const { actor, getScan, list } = start()
    try {
      await getScan.resolve(scan(11))
      expect(list.calls).toEqual([{ scan_id: 11, service_id: 101, page: 1, page_size: 20 }])
      await list.resolve(page([1, 2, 3], 1, 2, 4, 9))
      expect(actor.getSnapshot().context.totals).toMatchObject({ findings: 4, findings_unfiltered: 9 })
      expect(actor.getSnapshot().context.regions).toEqual(["eu-west-1", "us-east-1"])
      actor.send({ type: "findings.loadMoreRequested" })
      expect(list.calls[1]).toEqual({ scan_id: 11, service_id: 101, cursor: "cursor-after-1", page_size: 20 })
      await list.resolve(page([3, 4], 2, 2, 4, 9))
      expect(actor.getSnapshot().context.findings.map((f) => f.id)).toEqual([1, 2, 3, 4])
      expect(actor.getSnapshot().context.nextCursor).toBeNull()
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

  it("without a service in the route, lists every service of the scan; choosing one asks the server for it", async () => {
    const { actor, getScan, list } = start("")
    try {
      await getScan.resolve(scan(11))
      expect(list.calls).toEqual([{ scan_id: 11, page: 1, page_size: 20 }])
      await list.resolve(page([1, 2], 1, 1, 2))
      expect(hasActiveFilters(actor.getSnapshot().context.filters)).toBe(false)
      actor.send({ type: "filter.serviceChanged", serviceId: 102 as ServiceId })
      expect(actor.getSnapshot().value).toMatchObject({ list: { ready: "refreshing" } })
      expect(list.calls[1]).toEqual({ scan_id: 11, service_id: 102, page: 1, page_size: 20 })
      await list.resolve(page([7], 1, 1, 1, 5))
      expect(actor.getSnapshot().context.findings.map((f) => f.id)).toEqual([7])
      expect(hasActiveFilters(actor.getSnapshot().context.filters)).toBe(true)
      actor.send({ type: "filters.cleared" })
      expect(list.calls[2]).toEqual({ scan_id: 11, page: 1, page_size: 20 })
    } finally {
      actor.stop()
    }
  })

  it("every filter and sort is sent to the server; the rows and totals shown are its answer", async () => {
    const { actor, getScan, list, exportFindings, env } = start()
    try {
      await getScan.resolve(scan(11))
      await list.resolve(page([1, 2, 3, 4, 5, 6], 1, 1, 6))
      actor.send({ type: "filters.toggled" })
      expect(actor.getSnapshot().value).toMatchObject({ filterPanel: "shown" })
      actor.send({ type: "filter.severityToggled", severity: "critical" })
      expect(list.calls.at(-1)).toEqual({ scan_id: 11, service_id: 101, page: 1, page_size: 20, severity: "critical" })
      // The rows shown stay until the answer arrives, then are exactly the answer.
      expect(actor.getSnapshot().context.findings).toHaveLength(6)
      await list.resolve(page([2, 4, 6], 1, 1, 3, 6))
      expect(actor.getSnapshot().context.findings.map((f) => f.id)).toEqual([2, 4, 6])
      expect(actor.getSnapshot().context.totals).toMatchObject({ findings: 3, findings_unfiltered: 6 })

      actor.send({ type: "filter.statusToggled", status: "muted" })
      actor.send({ type: "filter.statusToggled", status: "not_evaluated" })
      actor.send({ type: "filter.changeToggled", change: "fixed" })
      actor.send({ type: "filter.regionToggled", region: "eu-west-1" })
      actor.send({ type: "sort.changed", sort: "failing" })
      // Each change asked again; a request made stale by a newer one is abandoned.
      expect(list.calls.at(-1)).toEqual({
        scan_id: 11, service_id: 101, page: 1, page_size: 20, severity: "critical", status: "muted,not_evaluated", change: "fixed",
        region: "eu-west-1", sort: "failing", order: "desc",
      })
      expect(list.aborted()).toBe(4)

      actor.send({ type: "export.requested", format: "csv" })
      expect(exportFindings.calls).toEqual([{
        scanId: 11, format: "csv", service_id: 101, status: "muted,not_evaluated", severity: "critical", change: "fixed", region: "eu-west-1",
      }])
      await exportFindings.resolve({ fileName: "scan-11-findings-x.csv", contentType: "text/csv", content: "id\n6\n" })
      expect(env.files).toHaveLength(1)

      actor.send({ type: "finding.selected", findingId: 6 as FindingId, serviceName: "iam" })
      expect(env.navigations).toEqual(["/dashboard/scans/11/findings/6?service=iam"])
    } finally {
      actor.stop()
    }
  })

  it("reads the check and resource search after 300 ms of quiet typing, once", async () => {
    const { actor, getScan, list, clock } = start()
    try {
      await getScan.resolve(scan(11))
      await list.resolve(page([1], 1, 1, 1))
      actor.send({ type: "filter.searchChanged", q: "buck" })
      clock.increment(SEARCH_DEBOUNCE_MS - 50)
      actor.send({ type: "filter.searchChanged", q: "bucket" })
      actor.send({ type: "filter.checkChanged", text: " public " })
      clock.increment(SEARCH_DEBOUNCE_MS - 1)
      expect(list.calls).toHaveLength(1)
      expect(actor.getSnapshot().value).toMatchObject({ list: { ready: "debouncing" } })
      clock.increment(1)
      expect(list.calls).toHaveLength(2)
      expect(list.calls[1]).toEqual({ scan_id: 11, service_id: 101, page: 1, page_size: 20, check: "public", q: "bucket" })
      await list.reject(httpFailure("scan-load", 500))
      // A failed refresh keeps the rows and says so.
      expect(actor.getSnapshot().context.findings.map((f) => f.id)).toEqual([1])
    } finally {
      actor.stop()
    }
  })

  it("sorting by the same column flips its order; count columns start with the largest", () => {
    expect(nextOrder({ sort: "status", order: "asc" }, "status")).toEqual({ sort: "status", order: "desc" })
    expect(nextOrder({ sort: "status", order: "desc" }, "check")).toEqual({ sort: "check", order: "asc" })
    expect(nextOrder({ sort: "check", order: "asc" }, "new")).toEqual({ sort: "new", order: "desc" })
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
