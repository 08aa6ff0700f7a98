import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock, type ActorRefFrom } from "xstate"
import type { ScanId } from "../../src/contracts/ids.ts"
import type { CancelScanResponse, ScanListResponse } from "../../src/contracts/scans.ts"
import { loadScanPages } from "../../src/machines/scan-effects.ts"
import { launchScanMachine, type LaunchOptions } from "../../src/machines/launch-scan.machine.ts"
import { isActiveScan, scanListMachine, scanProgressPercent, type ScanPagesRequest } from "../../src/machines/scan-list.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, flush, httpFailure, never } from "./auth-fakes.ts"
import { environment, scan, scanPage } from "./scan-fakes.ts"

const rows = (from: number, count: number, overrides: Record<string, unknown> = {}) =>
  Array.from({ length: count }, (_, i) => scan(from + i, overrides))

const start = (visible = true) => {
  const load = controlled<ScanPagesRequest, ScanListResponse>()
  const more = controlled<{ readonly page: number; readonly page_size: number }, ScanListResponse>()
  const cancel = controlled<{ readonly id: ScanId }, CancelScanResponse>()
  const launchOptions = controlled<void, LaunchOptions>()
  const env = environment()
  const clock = new SimulatedClock()
  const actor = createActor(
    scanListMachine.provide({
      actors: {
        loadScans: load.logic,
        loadScansPage: more.logic,
        cancelScan: cancel.logic,
        launchScan: launchScanMachine.provide({ actors: { loadLaunchOptions: launchOptions.logic, startScan: never() } }),
      },
      actions: { notify: env.notify, navigate: env.navigate },
    }),
    { input: { visible }, clock },
  ).start()
  return { actor, load, more, cancel, launchOptions, env, clock }
}

describe("scan-list machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = scanListMachine.provide({
      actors: {
        loadScans: never(),
        loadScansPage: never(),
        cancelScan: never(),
        launchScan: launchScanMachine.provide({ actors: { loadLaunchOptions: never(), startScan: never() } }),
      },
    })
    const input = { visible: true }
    const twoPages = scanPage(rows(1, 20, { status: "running", completed_services: 1 }), 1, 2, 25)
    const coverage = await coverTransitions(provided, {
      input,
      createActor: (clock) => createActor(provided, { input, clock }),
      events: [
        { type: "xstate.done.actor.loadScans", output: twoPages },
        { type: "xstate.error.actor.loadScans", error: httpFailure("scan-load", 500) },
        { type: "xstate.done.actor.loadScansPage", output: scanPage(rows(21, 5), 2, 2, 25) },
        { type: "xstate.error.actor.loadScansPage", error: httpFailure("scan-load", 500) },
        { type: "xstate.done.actor.refreshScans", output: twoPages },
        { type: "xstate.error.actor.refreshScans", error: httpFailure("scan-load", 500) },
        { type: "xstate.done.actor.pollScans", output: twoPages },
        { type: "xstate.error.actor.pollScans", error: httpFailure("scan-load", 500) },
        { type: "xstate.done.actor.launchScan", output: { scan: scan(99) } },
        { type: "xstate.done.actor.launchScan", output: { scan: null } },
        { type: "scan.selected", scanId: 1 },
        { type: "scan.cancelRequested", scanId: 1 },
        { type: "xstate.done.actor.cancelScan", output: { ok: true, message: "Scan canceled", data: scan(1, { status: "failed" }) } },
        { type: "xstate.error.actor.cancelScan", error: httpFailure("generic", 409, { message: "Only a pending or running scan can be canceled" }) },
      ],
      // Whether more pages remain decides "load more".
      serializeState: (s) => JSON.stringify([s.value, s.context.page < s.context.totalPages]),
    })
    console.info(formatCoverage("scanList", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  it("loads page 1 (20 per page), loads more while pages remain", async () => {
    const { actor, load, more } = start()
    try {
      expect(load.calls).toEqual([{ pages: 1, pageSize: 20 }])
      await load.resolve(scanPage(rows(1, 20), 1, 2, 25))
      actor.send({ type: "scans.loadMoreRequested" })
      expect(more.calls).toEqual([{ page: 2, page_size: 20 }])
      await more.resolve(scanPage(rows(21, 5), 2, 2, 25))
      expect(actor.getSnapshot().context.scans).toHaveLength(25)
      actor.send({ type: "scans.loadMoreRequested" })
      expect(more.calls).toHaveLength(1)
    } finally {
      actor.stop()
    }
  })

  it("refreshes every 15 s while visible (every page shown so far), pauses while hidden, stops when left", async () => {
    const { actor, load, more, clock } = start()
    try {
      await load.resolve(scanPage(rows(1, 20), 1, 2, 25))
      actor.send({ type: "scans.loadMoreRequested" })
      await more.resolve(scanPage(rows(21, 5), 2, 2, 25))
      clock.increment(14_999)
      expect(load.calls).toHaveLength(1)
      clock.increment(1)
      expect(load.calls).toEqual([{ pages: 1, pageSize: 20 }, { pages: 2, pageSize: 20 }])
      expect(actor.getSnapshot().value).toMatchObject({ list: { loaded: "polling" } })
      await load.resolve(scanPage(rows(1, 25, { status: "running" }), 2, 2, 25))
      clock.increment(15_000)
      expect(load.calls).toHaveLength(3)
      await load.resolve(scanPage(rows(1, 25), 2, 2, 25))

      actor.send({ type: "page.hidden" })
      clock.increment(60_000)
      expect(load.calls).toHaveLength(3)
      actor.send({ type: "page.visible" })
      // Coming back refreshes at once, then every 15 s again.
      expect(load.calls).toHaveLength(4)
      await load.resolve(scanPage(rows(1, 25), 2, 2, 25))
      clock.increment(15_000)
      expect(load.calls).toHaveLength(5)
      await load.resolve(scanPage(rows(1, 25), 2, 2, 25))
    } finally {
      actor.stop()
    }
    // Left: the actor is stopped and no timer fires any more.
    const { actor: left, load: leftLoad, clock: leftClock } = start()
    await leftLoad.resolve(scanPage(rows(1, 3), 1, 1))
    left.stop()
    leftClock.increment(60_000)
    expect(leftLoad.calls).toHaveLength(1)
  })

  it("a page hidden at mount does not poll until it becomes visible", async () => {
    const { actor, load, clock } = start(false)
    try {
      await load.resolve(scanPage(rows(1, 3), 1, 1))
      clock.increment(45_000)
      expect(load.calls).toHaveLength(1)
    } finally {
      actor.stop()
    }
  })

  it("a failed load shows the message; a failed poll keeps the rows quietly; a failed Refresh toasts", async () => {
    const { actor, load, clock, env } = start()
    try {
      await load.reject(httpFailure("scan-load", 500))
      expect(actor.getSnapshot().value).toMatchObject({ list: "failed" })
      expect(actor.getSnapshot().context.error).toBe("Error loading scan details")
      actor.send({ type: "scans.retryRequested" })
      await load.resolve(scanPage(rows(1, 3), 1, 1))
      clock.increment(15_000)
      await load.reject(httpFailure("scan-load", 503))
      expect(actor.getSnapshot().context.scans).toHaveLength(3)
      expect(env.toasts).toEqual([])
      actor.send({ type: "scans.refreshRequested" })
      await load.reject(httpFailure("scan-load", 503))
      expect(env.toasts).toEqual([{ kind: "error", message: "Error loading scan details" }])
    } finally {
      actor.stop()
    }
  })

  it("cancels a running scan, toasts and refreshes; finished scans cannot be cancelled", async () => {
    const { actor, load, cancel, env } = start()
    try {
      await load.resolve(scanPage([scan(1, { status: "running" }), scan(2)], 1, 1))
      actor.send({ type: "scan.cancelRequested", scanId: 2 as ScanId })
      expect(cancel.calls).toEqual([])
      actor.send({ type: "scan.cancelRequested", scanId: 1 as ScanId })
      expect(actor.getSnapshot().context.cancellingId).toBe(1)
      await cancel.resolve({ ok: true, message: "Scan canceled", data: scan(1, { status: "failed" }) })
      expect(cancel.calls).toEqual([{ id: 1 }])
      expect(env.toasts).toEqual([{ kind: "success", message: "Scan canceled" }])
      expect(actor.getSnapshot().value).toMatchObject({ list: { loaded: "refreshing" } })
    } finally {
      actor.stop()
    }
  })

  it("'New scan' opens the launch dialog; selecting a scan opens it", async () => {
    const { actor, load, launchOptions, env } = start()
    try {
      await load.resolve(scanPage([], 1, 0, 0))
      actor.send({ type: "scans.newRequested" })
      await launchOptions.resolve({ viewer: { userId: null, canLaunchScans: false, canRemediate: false }, providers: [], accounts: [] })
      const dialog = actor.getSnapshot().children.launchScan as ActorRefFrom<typeof launchScanMachine>
      expect(dialog.getSnapshot().context.error).toBe("You need to create an account before running a scan")
      dialog.send({ type: "dialog.closed" })
      await flush()
      expect(actor.getSnapshot().value).toMatchObject({ dialog: "none" })
      actor.send({ type: "scan.selected", scanId: 7 as ScanId })
      expect(env.navigations).toEqual(["/dashboard/scans/7"])
    } finally {
      actor.stop()
    }
  })

  it("progress is completed/total services; only pending and running scans are active (unknown → failed)", async () => {
    expect(scanProgressPercent({ completed_services: 3, total_services: 12 })).toBe(25)
    expect(scanProgressPercent({ completed_services: 0, total_services: 0 })).toBe(0)
    expect(isActiveScan({ status: "running" })).toBe(true)
    expect(isActiveScan({ status: "cancelled" as never })).toBe(false)
    // Refresh of several pages: rows in order, no duplicates.
    const pages = new Map([
      [1, scanPage([scan(1), scan(2)], 1, 2, 3)],
      [2, scanPage([scan(2), scan(3)], 2, 2, 3)],
    ])
    const answer = await loadScanPages(async ({ page }) => pages.get(page)!, 2, 2)
    expect(answer.data.map((s) => s.id)).toEqual([1, 2, 3])
    expect(answer.pagination).toMatchObject({ page: 2, total_pages: 2, total: 3 })
  })
})
