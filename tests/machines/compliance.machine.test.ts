/**
 * The Compliance screens' machines (src/machines/compliance-*.machine.ts): every (state, event) edge driven on a real
 * actor with fake effects (tests/support/graph.ts), plus the behaviour a user notices — the account picked from the
 * URL, filters, report progress polling, download hand-off, paging and links into the finding pages.
 */
import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock } from "xstate"
import type { ComplianceAccount, Report, ReportId, RequirementDetail, ScanFramework } from "../../src/contracts/compliance.ts"
import type { AccountId, ScanId } from "../../src/contracts/ids.ts"
import type { DownloadedFile, RequirementRequest, ScanFrameworkRequest } from "../../src/machines/compliance-effects.ts"
import type { ScanSummary } from "../../src/machines/compliance-overview.machine.ts"
import { complianceFrameworkMachine, REPORT_POLL_MS, visibleRequirements } from "../../src/machines/compliance-framework.machine.ts"
import { complianceOverviewMachine, pickAccount } from "../../src/machines/compliance-overview.machine.ts"
import { complianceRequirementMachine } from "../../src/machines/compliance-requirement.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"
import { environment } from "./scan-fakes.ts"
import {
  C_ACCOUNT_ID,
  C_SCAN_ID,
  complianceAccount,
  csvFile,
  pdfFile,
  report,
  requirementDetail,
  scanFramework,
  summary,
  trend,
} from "./compliance-fakes.ts"

const notFound = httpFailure("scan-load", 404, { message: "Framework not found" })

describe("compliance-overview machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = complianceOverviewMachine.provide({ actors: { loadAccounts: never(), loadScanSummary: never() } })
    const input = { accountId: null }
    const coverage = await coverTransitions(provided, {
      input,
      createActor: (clock) => createActor(provided, { input, clock }),
      events: [
        { type: "xstate.done.actor.loadAccounts", output: [complianceAccount(4), complianceAccount(5)] },
        { type: "xstate.done.actor.loadAccounts", output: [] },
        { type: "xstate.done.actor.loadAccounts", output: [complianceAccount(6, { latest_scan_id: null })] },
        { type: "xstate.error.actor.loadAccounts", error: httpFailure("scan-load", 500) },
        { type: "xstate.done.actor.loadScanSummary", output: summary },
        { type: "xstate.error.actor.loadScanSummary", error: notFound },
        { type: "retry.requested" },
        { type: "account.selected", accountId: 5 as AccountId },
        { type: "framework.opened", frameworkId: "cis-aws-3.0.0" },
      ],
      serializeState: (s) => JSON.stringify([s.value, s.context.accountId, s.context.summary === null]),
    })
    console.info(formatCoverage("complianceOverview", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  it("opens the URL's account, else the first with a completed scan, and records a new choice in the URL", async () => {
    expect(pickAccount([complianceAccount(1, { latest_scan_id: null }), complianceAccount(2)], null)).toBe(2)
    expect(pickAccount([complianceAccount(1), complianceAccount(2)], 2 as AccountId)).toBe(2)
    expect(pickAccount([complianceAccount(1)], 9 as AccountId)).toBe(1)
    const accounts = controlled<void, ReadonlyArray<ComplianceAccount>>()
    const load = controlled<{ readonly scanId: ScanId }, ScanSummary>()
    const env = environment()
    const actor = createActor(
      complianceOverviewMachine.provide({ actors: { loadAccounts: accounts.logic, loadScanSummary: load.logic }, actions: { navigate: env.navigate } }),
      { input: { accountId: 5 as AccountId } },
    ).start()
    try {
      await accounts.resolve([complianceAccount(4), complianceAccount(5, { latest_scan_id: 30 as never })])
      expect(load.calls).toEqual([{ scanId: 30 }])
      await load.resolve(summary)
      actor.send({ type: "framework.opened", frameworkId: "aws-fsbp" })
      actor.send({ type: "framework.opened", frameworkId: "cis-gcp-4.0.0" })
      actor.send({ type: "account.selected", accountId: 4 as AccountId })
      expect(env.navigations).toEqual([`/dashboard/compliance/scans/${C_SCAN_ID}/aws-fsbp`, "/dashboard/compliance?account=4"])
      expect(load.calls).toHaveLength(2)
    } finally {
      actor.stop()
    }
  })
})

describe("compliance-framework machine", () => {
  const input = { scanId: C_SCAN_ID, frameworkId: "cis-aws-3.0.0" }
  it("drives every (state, event) edge", async () => {
    const provided = complianceFrameworkMachine.provide({
      actors: {
        loadScanFramework: never(),
        loadTrend: never(),
        downloadCsv: never(),
        loadLatestReport: never(),
        createReport: never(),
        getReport: never(),
        downloadReport: never(),
      },
    })
    const coverage = await coverTransitions(provided, {
      input,
      createActor: (clock) => createActor(provided, { input, clock }),
      events: [
        { type: "xstate.done.actor.loadScanFramework", output: scanFramework },
        { type: "xstate.error.actor.loadScanFramework", error: notFound },
        { type: "xstate.done.actor.loadTrend", output: trend },
        { type: "xstate.error.actor.loadTrend", error: httpFailure("scan-load", 500) },
        { type: "retry.requested" },
        { type: "filter.statusChanged", status: "failed" },
        { type: "filter.sectionChanged", sectionId: "2" },
        { type: "filter.queryChanged", query: "mfa" },
        { type: "requirement.opened", requirementId: "1.10" },
        { type: "csv.requested" },
        { type: "xstate.done.actor.downloadCsv", output: csvFile },
        { type: "xstate.error.actor.downloadCsv", error: httpFailure("scan-load", 500) },
        { type: "xstate.done.actor.loadLatestReport", output: null },
        { type: "xstate.done.actor.loadLatestReport", output: report("running") },
        { type: "xstate.done.actor.loadLatestReport", output: report("completed") },
        { type: "xstate.error.actor.loadLatestReport", error: httpFailure("scan-load", 500) },
        { type: "report.requested" },
        { type: "xstate.done.actor.createReport", output: report("pending") },
        { type: "xstate.done.actor.createReport", output: report("completed") },
        { type: "xstate.error.actor.createReport", error: httpFailure("scan-load", 409, { message: "Compliance is available once the scan has completed" }) },
        { type: "xstate.done.actor.getReport", output: report("running") },
        { type: "xstate.done.actor.getReport", output: report("completed") },
        { type: "xstate.done.actor.getReport", output: report("failed") },
        { type: "xstate.error.actor.getReport", error: httpFailure("scan-load", 503) },
        { type: "report.downloadRequested" },
        { type: "xstate.done.actor.downloadReport", output: pdfFile },
        { type: "xstate.error.actor.downloadReport", error: httpFailure("scan-load", 409, { message: "The report is not ready yet" }) },
      ],
      serializeState: (s) => JSON.stringify([s.value, s.context.data === null, s.context.report?.status ?? null]),
    })
    console.info(formatCoverage("complianceFramework", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  it("picks up a report started before the page was left: follows it until it is ready", async () => {
    const latest = controlled<ScanFrameworkRequest, Report | null>()
    const get = controlled<{ readonly reportId: ReportId }, Report>()
    const clock = new SimulatedClock()
    const actor = createActor(
      complianceFrameworkMachine.provide({
        actors: { loadScanFramework: never(), loadTrend: never(), downloadCsv: never(), loadLatestReport: latest.logic, createReport: never(), getReport: get.logic, downloadReport: never() },
      }),
      { input, clock },
    ).start()
    try {
      expect(latest.calls).toEqual([{ scanId: C_SCAN_ID, frameworkId: "cis-aws-3.0.0" }])
      await latest.resolve(report("running"))
      expect(actor.getSnapshot().matches({ report: "generating" })).toBe(true)
      clock.increment(REPORT_POLL_MS)
      await get.resolve(report("completed"))
      expect(actor.getSnapshot().matches({ report: "ready" })).toBe(true)
    } finally {
      actor.stop()
    }
  })

  it("filters requirements by status, section (with subsections) and text", () => {
    const base = { data: scanFramework, statusFilter: "all" as const, sectionFilter: null, query: "" }
    expect(visibleRequirements(base).map((r) => r.id)).toEqual(["1.3", "1.10", "2.1.1", "2.1.4"])
    expect(visibleRequirements({ ...base, statusFilter: "failed" }).map((r) => r.id)).toEqual(["1.10"])
    expect(visibleRequirements({ ...base, sectionFilter: "2" }).map((r) => r.id)).toEqual(["2.1.1", "2.1.4"])
    expect(visibleRequirements({ ...base, query: " MFA " }).map((r) => r.id)).toEqual(["1.10"])
    expect(visibleRequirements({ ...base, query: "2.1" }).map((r) => r.id)).toEqual(["2.1.1", "2.1.4"])
  })

  it("starts a report, follows its progress every second and hands the PDF to the browser", async () => {
    const load = controlled<ScanFrameworkRequest, ScanFramework>()
    const create = controlled<ScanFrameworkRequest, Report>()
    const get = controlled<{ readonly reportId: ReportId }, Report>()
    const download = controlled<{ readonly reportId: ReportId; readonly scanId: ScanId }, DownloadedFile>()
    const latest = controlled<ScanFrameworkRequest, Report | null>()
    const env = environment()
    const clock = new SimulatedClock()
    const actor = createActor(
      complianceFrameworkMachine.provide({
        actors: {
          loadScanFramework: load.logic,
          loadTrend: never(),
          downloadCsv: never(),
          loadLatestReport: latest.logic,
          createReport: create.logic,
          getReport: get.logic,
          downloadReport: download.logic,
        },
        actions: { saveFile: env.saveFile, notify: env.notify, navigate: env.navigate },
      }),
      { input, clock },
    ).start()
    try {
      actor.send({ type: "report.requested" })
      expect(create.calls).toEqual([])
      await load.resolve(scanFramework)
      await latest.resolve(null)
      actor.send({ type: "report.requested" })
      expect(create.calls).toEqual([{ scanId: C_SCAN_ID, frameworkId: "cis-aws-3.0.0" }])
      await create.resolve(report("pending"))
      clock.increment(REPORT_POLL_MS - 1)
      expect(get.calls).toHaveLength(0)
      clock.increment(1)
      expect(get.calls).toEqual([{ reportId: 5 }])
      await get.resolve(report("running"))
      expect(actor.getSnapshot().context.report?.progress).toBe(40)
      clock.increment(REPORT_POLL_MS)
      await get.resolve(report("completed"))
      expect(actor.getSnapshot().matches({ report: "ready" })).toBe(true)
      clock.increment(10 * REPORT_POLL_MS)
      expect(get.calls).toHaveLength(2)
      actor.send({ type: "report.downloadRequested" })
      await download.resolve(pdfFile)
      expect(env.files).toEqual([pdfFile])
      actor.send({ type: "requirement.opened", requirementId: "1.10" })
      actor.send({ type: "requirement.opened", requirementId: "9.9" })
      expect(env.navigations).toEqual([`/dashboard/compliance/scans/${C_SCAN_ID}/cis-aws-3.0.0/1.10`])
    } finally {
      actor.stop()
    }
  })
})

describe("compliance-requirement machine", () => {
  const input = { scanId: C_SCAN_ID, frameworkId: "cis-aws-3.0.0", requirementId: "1.10" }
  it("drives every (state, event) edge", async () => {
    const provided = complianceRequirementMachine.provide({ actors: { loadRequirement: never() } })
    const coverage = await coverTransitions(provided, {
      input,
      createActor: (clock) => createActor(provided, { input, clock }),
      events: [
        { type: "xstate.done.actor.loadRequirement", output: requirementDetail(1) },
        { type: "xstate.error.actor.loadRequirement", error: notFound },
        { type: "retry.requested" },
        { type: "page.requested", page: 2 },
        { type: "xstate.done.actor.loadPage", output: requirementDetail(2) },
        { type: "xstate.error.actor.loadPage", error: httpFailure("scan-load", 500) },
        { type: "finding.opened", findingId: 77 },
      ],
      serializeState: (s) => JSON.stringify([s.value, s.context.page]),
    })
    console.info(formatCoverage("complianceRequirement", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  it("pages the failing resources within the announced pages and links the check to its finding page", async () => {
    const load = controlled<RequirementRequest, RequirementDetail>()
    const env = environment()
    const actor = createActor(
      complianceRequirementMachine.provide({ actors: { loadRequirement: load.logic }, actions: { navigate: env.navigate, notify: env.notify } }),
      { input },
    ).start()
    try {
      await load.resolve(requirementDetail(1))
      actor.send({ type: "page.requested", page: 3 })
      actor.send({ type: "page.requested", page: 1 })
      expect(load.calls).toHaveLength(1)
      actor.send({ type: "page.requested", page: 2 })
      await load.reject(httpFailure("scan-load", 500))
      expect(actor.getSnapshot().context.page).toBe(1)
      expect(env.toasts).toHaveLength(1)
      actor.send({ type: "page.requested", page: 2 })
      await load.resolve(requirementDetail(2))
      expect(actor.getSnapshot().context.detail?.failing[0]?.resource_id).toBe("user-2-a")
      actor.send({ type: "finding.opened", findingId: 77 })
      actor.send({ type: "finding.opened", findingId: 78 })
      expect(env.navigations).toEqual([`/dashboard/scans/${C_SCAN_ID}/findings/77?service=IAM`])
      expect(C_ACCOUNT_ID).toBe(4)
    } finally {
      actor.stop()
    }
  })
})
