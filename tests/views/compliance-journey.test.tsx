// @vitest-environment happy-dom
/**
 * Journey model of the Compliance screens (STACK.md §9, technique 2): overview → framework (filters, CSV, PDF report
 * followed to the download) → requirement (paged failing resources) → the finding page. User-visible states and
 * user/server events, replayed on the rendered screens (the app's root with its router, toasts and the real
 * Compliance routes) with fake effects, for every simple path.
 */
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react"
import { afterEach, describe, expect, it } from "vitest"
import { createMachine, SimulatedClock } from "xstate"
import { createTestModel } from "xstate/graph"
import { Route, Switch } from "wouter"
import { memoryLocation } from "wouter/memory-location"
import type { Report } from "../../src/contracts/compliance.ts"
import type { ComplianceEffects, DownloadedFile } from "../../src/machines/compliance-effects.ts"
import { REPORT_POLL_MS } from "../../src/machines/compliance-framework.machine.ts"
import { App } from "../../src/views/app.tsx"
import { ComplianceEffectsProvider } from "../../src/views/compliance/compliance-effects-context.tsx"
import { ComplianceFrameworkView } from "../../src/views/compliance/compliance-framework.view.tsx"
import { ComplianceOverviewView } from "../../src/views/compliance/compliance-overview.view.tsx"
import { ComplianceRequirementView } from "../../src/views/compliance/compliance-requirement.view.tsx"
import { SessionStatusContext } from "../../src/views/session-status.tsx"
import { flush } from "../machines/auth-fakes.ts"
import { C_SCAN_ID, complianceAccount, csvFile, pdfFile, report, requirementDetail, scanFramework, summary, trend } from "../machines/compliance-fakes.ts"
import { preloadScreens } from "../../src/views/routes.tsx"

// Every screen but sign-in loads lazily; fetched up front, rendering a route is synchronous as in a warm browser.
await preloadScreens()

afterEach(cleanup)

const journey = createMachine({
  id: "complianceJourney",
  types: {} as {
    events:
      | { type: "user.opensFramework" }
      | { type: "user.filtersFailed" }
      | { type: "user.downloadsCsv" }
      | { type: "user.requestsReport" }
      | { type: "server.finishesReport" }
      | { type: "user.downloadsPdf" }
      | { type: "user.opensRequirement" }
      | { type: "user.pagesResources" }
      | { type: "user.opensFinding" }
  },
  initial: "overview",
  states: {
    overview: { on: { "user.opensFramework": "framework" } },
    framework: {
      on: {
        "user.filtersFailed": "filtered",
        "user.downloadsCsv": "csvSaved",
        "user.requestsReport": "reportGenerating",
        "user.opensRequirement": "requirement",
      },
    },
    filtered: { on: { "user.opensRequirement": "requirement" } },
    csvSaved: {},
    reportGenerating: { on: { "server.finishesReport": "reportReady" } },
    reportReady: { on: { "user.downloadsPdf": "pdfSaved" } },
    pdfSaved: {},
    requirement: { on: { "user.pagesResources": "secondPage", "user.opensFinding": "findingPage" } },
    secondPage: {},
    findingPage: {},
  },
})

const settle = async () => {
  for (let i = 0; i < 4; i += 1) await act(async () => void (await flush()))
}

const renderCompliance = async () => {
  const files: DownloadedFile[] = []
  let reportStatus: Report["status"] = "running"
  const effects: ComplianceEffects = {
    loadAccounts: async () => [complianceAccount(4)],
    loadScanSummary: async () => summary,
    loadScanFramework: async () => scanFramework,
    loadTrend: async () => trend,
    loadRequirement: async ({ page }) => requirementDetail(page),
    downloadCsv: async () => csvFile,
    loadLatestReport: async () => null,
    createReport: async () => report("pending"),
    getReport: async () => report(reportStatus),
    downloadReport: async () => pdfFile,
  }
  const location = memoryLocation({ path: "/dashboard/compliance", record: true })
  const clock = new SimulatedClock()
  render(
    <SessionStatusContext value="authenticated">
      <ComplianceEffectsProvider effects={effects} clock={clock} saveFile={(f) => void files.push(f)}>
        <App clock={clock} location={location}>
          <Switch>
            <Route path="/dashboard/compliance">
              <ComplianceOverviewView />
            </Route>
            <Route path="/dashboard/compliance/scans/:scanId/:frameworkId">
              <ComplianceFrameworkView />
            </Route>
            <Route path="/dashboard/compliance/scans/:scanId/:frameworkId/:requirementId">
              <ComplianceRequirementView />
            </Route>
            <Route>elsewhere</Route>
          </Switch>
        </App>
      </ComplianceEffectsProvider>
    </SessionStatusContext>,
  )
  await settle()
  return {
    files,
    url: () => location.history.at(-1) ?? "",
    finishReport: async () => {
      reportStatus = "completed"
      await act(async () => {
        clock.increment(REPORT_POLL_MS)
        await flush()
      })
      await settle()
    },
  }
}

const click = async (name: string | RegExp) => {
  fireEvent.click(screen.getByRole("button", { name }))
  await settle()
}

const requirementsTable = () => within(screen.getByRole("table", { name: "Requirements" }))

describe("compliance journey model", () => {
  const model = createTestModel(journey)
  const paths = model.getSimplePaths()

  it("visits every state of the journey on some path", () => {
    const reached = new Set(paths.flatMap((p) => [p.state, ...p.steps.map((s) => s.state)].map((s) => JSON.stringify(s.value))))
    for (const state of Object.keys(journey.states)) expect(reached.has(JSON.stringify(state))).toBe(true)
    console.info(`compliance journey: ${paths.length} simple paths over ${Object.keys(journey.states).length} states`)
  })

  for (const path of paths) {
    it(`drives the rendered screens: ${path.description}`, async () => {
      const app = await renderCompliance()
      await path.test({
        events: {
          "user.opensFramework": () => click("Open CIS Amazon Web Services Foundations Benchmark v3.0.0"),
          "user.filtersFailed": async () => {
            fireEvent.click(screen.getByRole("button", { name: /^2 Storage/ }))
            await settle()
          },
          "user.downloadsCsv": () => click("Download CSV"),
          "user.requestsReport": () => click("Generate PDF report"),
          "server.finishesReport": () => app.finishReport(),
          "user.downloadsPdf": () => click(/^Download PDF/),
          "user.opensRequirement": async () => {
            fireEvent.click(screen.getAllByRole("button", { name: /^View requirement / })[0]!)
            await settle()
          },
          "user.pagesResources": () => click("Next"),
          "user.opensFinding": () => click("View finding of iam_user_mfa_enabled_console_access"),
        },
        states: {
          overview: () => {
            expect(screen.getByRole("heading", { level: 1, name: "Compliance" })).toBeTruthy()
            expect(screen.getAllByText("50%", { selector: "span" })).toHaveLength(summary.frameworks.length)
          },
          framework: () => {
            expect(app.url()).toBe(`/dashboard/compliance/scans/${C_SCAN_ID}/cis-aws-3.0.0`)
            expect(requirementsTable().getAllByRole("row")).toHaveLength(1 + scanFramework.requirements.length)
            expect(screen.getByRole("img", { name: /^Score by scan, oldest first: scan 20 0%, scan 21 50%/ })).toBeTruthy()
          },
          filtered: () => {
            expect(requirementsTable().queryByText("1.10")).toBeNull()
            expect(requirementsTable().getByText("2.1.1")).toBeTruthy()
          },
          csvSaved: () => expect(app.files).toEqual([csvFile]),
          reportGenerating: () => expect(screen.getByRole("progressbar", { name: "Report progress" })).toBeTruthy(),
          reportReady: () => expect(screen.getByRole("button", { name: "Download PDF (12 pages)" })).toBeTruthy(),
          pdfSaved: () => expect(app.files).toEqual([pdfFile]),
          requirement: () => {
            expect(app.url()).toMatch(new RegExp(`^/dashboard/compliance/scans/${C_SCAN_ID}/cis-aws-3.0.0/(1\\.3|2\\.1\\.1)$`))
            expect(screen.getByText("user-1-a")).toBeTruthy()
            expect(screen.getByText("Break-glass user")).toBeTruthy()
            expect(screen.getByText("Page 1 of 2")).toBeTruthy()
          },
          secondPage: () => {
            expect(screen.getByText("user-2-a")).toBeTruthy()
            expect(screen.getByText("Page 2 of 2")).toBeTruthy()
          },
          findingPage: () => expect(app.url()).toBe(`/dashboard/scans/${C_SCAN_ID}/findings/77?service=IAM`),
        },
      })
    })
  }
})
