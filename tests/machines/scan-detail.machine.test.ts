import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock } from "xstate"
import type { ScanId } from "../../src/contracts/ids.ts"
import type { Scan } from "../../src/contracts/scans.ts"
import { loadSeverityBreakdown, type ExportedFile, type ExportRequest, type SeverityBreakdown } from "../../src/machines/scan-effects.ts"
import { isTerminalStatus, scanDetailMachine } from "../../src/machines/scan-detail.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"
import { SCAN_ID, environment, finding, scan } from "./scan-fakes.ts"

const file: ExportedFile = { fileName: "scan-11-findings-2025-03-01T10-00-00-000Z.csv", contentType: "text/csv", content: "id\n1\n" }

const start = () => {
  const getScan = controlled<{ readonly id: ScanId }, Scan>()
  const exportFindings = controlled<ExportRequest, ExportedFile>()
  const breakdown = controlled<{ readonly scanId: ScanId }, SeverityBreakdown>()
  const env = environment()
  const clock = new SimulatedClock()
  const actor = createActor(
    scanDetailMachine.provide({
      actors: { getScan: getScan.logic, exportFindings: exportFindings.logic, loadBreakdown: breakdown.logic },
      actions: { notify: env.notify, navigate: env.navigate, saveFile: env.saveFile },
    }),
    { input: { scanId: SCAN_ID }, clock },
  ).start()
  return { actor, getScan, exportFindings, breakdown, env, clock }
}

describe("scan-detail machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = scanDetailMachine.provide({ actors: { getScan: never(), exportFindings: never(), loadBreakdown: never() } })
    const input = { scanId: SCAN_ID }
    const coverage = await coverTransitions(provided, {
      input,
      createActor: (clock) => createActor(provided, { input, clock }),
      events: [
        { type: "xstate.done.actor.getScan", output: scan(11, { status: "running" }) },
        { type: "xstate.done.actor.getScan", output: scan(11) },
        { type: "xstate.error.actor.getScan", error: httpFailure("scan-load", 404, { message: "Scan not found" }) },
        { type: "xstate.error.actor.getScan", error: httpFailure("scan-load", 500) },
        { type: "scan.refreshRequested" },
        { type: "scan.retryRequested" },
        { type: "xstate.done.actor.pollScan", output: scan(11, { status: "running" }) },
        { type: "xstate.done.actor.pollScan", output: scan(11) },
        { type: "xstate.error.actor.pollScan", error: httpFailure("scan-load", 500) },
        { type: "xstate.done.actor.refreshScan", output: scan(11) },
        { type: "xstate.done.actor.refreshScan", output: scan(11, { status: "pending" }) },
        { type: "xstate.error.actor.refreshScan", error: httpFailure("scan-load", 500) },
        { type: "export.requested", format: "csv" },
        { type: "xstate.done.actor.exportFindings", output: file },
        { type: "xstate.error.actor.exportFindings", error: httpFailure("export", 409, { message: "Findings can be exported only when the scan is completed" }) },
        { type: "service.findingsRequested", serviceName: "s3" },
        { type: "xstate.done.actor.loadBreakdown", output: { critical: 1, high: 2, medium: 0, low: 3 } },
        { type: "xstate.error.actor.loadBreakdown", error: httpFailure("scan-load", 500) },
      ],
      serializeState: (s) => JSON.stringify([s.value, s.context.scan?.status ?? null]),
    })
    console.info(formatCoverage("scanDetail", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  it("polls every 10 s while the scan runs and stops at a terminal status", async () => {
    const { actor, getScan, clock } = start()
    try {
      await getScan.resolve(scan(11, { status: "pending" }))
      expect(actor.getSnapshot().value).toMatchObject({ detail: "watching" })
      clock.increment(9_999)
      expect(getScan.calls).toHaveLength(1)
      clock.increment(1)
      expect(getScan.calls).toHaveLength(2)
      await getScan.resolve(scan(11, { status: "running", completed_services: 1 }))
      clock.increment(10_000)
      expect(getScan.calls).toHaveLength(3)
      await getScan.resolve(scan(11, { status: "completed" }))
      expect(actor.getSnapshot().value).toMatchObject({ detail: "settled" })
      clock.increment(120_000)
      expect(getScan.calls).toHaveLength(3)
    } finally {
      actor.stop()
    }
  })

  it("stops polling when the page is left", async () => {
    const { actor, getScan, clock } = start()
    await getScan.resolve(scan(11, { status: "running" }))
    actor.stop()
    clock.increment(60_000)
    expect(getScan.calls).toHaveLength(1)
  })

  it("a failed poll keeps the scan and tries again 10 s later; a failed load shows the §8 text", async () => {
    const { actor, getScan, clock } = start()
    try {
      await getScan.resolve(scan(11, { status: "running" }))
      clock.increment(10_000)
      await getScan.reject(httpFailure("scan-load", 503))
      expect(actor.getSnapshot().context.scan?.status).toBe("running")
      clock.increment(10_000)
      expect(getScan.calls).toHaveLength(3)
    } finally {
      actor.stop()
    }
    const second = start()
    try {
      await second.getScan.reject(httpFailure("scan-load", 500))
      expect(second.actor.getSnapshot().context.error).toBe("Error loading scan details")
      expect(second.actor.getSnapshot().value).toMatchObject({ detail: "failed" })
    } finally {
      second.actor.stop()
    }
  })

  it("a scan that does not exist (404) is 'missing': nothing to refresh, retry or export", async () => {
    const { actor, getScan } = start()
    try {
      await getScan.reject(httpFailure("scan-load", 404, { message: "Scan not found" }))
      const snapshot = actor.getSnapshot()
      expect(snapshot.value).toMatchObject({ detail: "missing" })
      expect(snapshot.can({ type: "scan.refreshRequested" })).toBe(false)
      expect(snapshot.can({ type: "scan.retryRequested" })).toBe(false)
      expect(snapshot.can({ type: "export.requested", format: "csv" })).toBe(false)
      actor.send({ type: "scan.refreshRequested" })
      expect(getScan.calls).toHaveLength(1)
    } finally {
      actor.stop()
    }
  })

  it("exports only a completed scan and hands the file to the browser; failures toast", async () => {
    const { actor, getScan, exportFindings, env } = start()
    try {
      await getScan.resolve(scan(11, { status: "running" }))
      actor.send({ type: "export.requested", format: "json" })
      expect(exportFindings.calls).toEqual([])
      actor.send({ type: "scan.refreshRequested" })
      await getScan.resolve(scan(11))
      actor.send({ type: "export.requested", format: "json" })
      expect(exportFindings.calls).toEqual([{ scanId: 11, format: "json" }])
      await exportFindings.resolve(file)
      expect(env.files).toEqual([file])
      actor.send({ type: "export.requested", format: "ocsf" })
      await exportFindings.reject(httpFailure("export", 500))
      expect(env.toasts).toEqual([{ kind: "error", message: "Failed to export scan findings" }])
    } finally {
      actor.stop()
    }
  })

  it("reads the severity breakdown of the failed findings once the scan has settled, again after a refresh", async () => {
    const { actor, getScan, breakdown, clock } = start()
    try {
      await getScan.resolve(scan(11, { status: "running" }))
      expect(breakdown.calls).toEqual([])
      clock.increment(10_000)
      await getScan.resolve(scan(11))
      expect(breakdown.calls).toEqual([{ scanId: 11 }])
      await breakdown.resolve({ critical: 1, high: 0, medium: 2, low: 0 })
      expect(actor.getSnapshot().context.breakdown).toEqual({ critical: 1, high: 0, medium: 2, low: 0 })
      actor.send({ type: "scan.refreshRequested" })
      await getScan.resolve(scan(11))
      expect(breakdown.calls).toHaveLength(2)
    } finally {
      actor.stop()
    }
    // Every page of failed findings, 100 at a time, counted by severity.
    const pages: Array<{ page: number; status?: string; page_size?: number }> = []
    const counts = await loadSeverityBreakdown(async (q) => {
      pages.push({ page: q.page ?? 0, ...(q.status === undefined ? {} : { status: q.status }), ...(q.page_size === undefined ? {} : { page_size: q.page_size }) })
      const severities = q.page === 1 ? (["high", "high", "low"] as const) : (["critical"] as const)
      return { data: severities.map((severity, i) => finding(i + 1, { severity })), pagination: { page: q.page ?? 1, total_pages: 2, total: 4 } }
    }, SCAN_ID)
    expect(pages).toEqual([{ page: 1, status: "fail", page_size: 100 }, { page: 2, status: "fail", page_size: 100 }])
    expect(counts).toEqual({ critical: 1, high: 2, medium: 0, low: 1 })
  })

  it("'View findings' only for completed services", async () => {
    const { actor, getScan, env } = start()
    try {
      await getScan.resolve(scan(11, { services: [scan(1).services[0], { ...scan(1).services[1], service_name: "my svc" }] }))
      actor.send({ type: "service.findingsRequested", serviceName: "my svc" })
      actor.send({ type: "service.findingsRequested", serviceName: "unknown" })
      actor.send({ type: "service.findingsRequested", serviceName: "s3" })
      expect(env.navigations).toEqual(["/dashboard/scans/11/findings?service=s3"])
      expect(isTerminalStatus("exploded")).toBe(true)
    } finally {
      actor.stop()
    }
  })
})
