// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest"
import { cleanup, fireEvent, screen, within } from "@testing-library/react"
import { ScanDetailView } from "../../src/views/scans/scan-detail.view.tsx"
import { finding, scan, service } from "../machines/scan-fakes.ts"
import { defaultWorld, renderScan, settle } from "./scan-render.tsx"

afterEach(cleanup)

const renderDetail = (world = defaultWorld()) =>
  renderScan("/dashboard/scans/11", { pattern: "/dashboard/scans/:scanId", screen: <ScanDetailView />, world })

const press = async (element: HTMLElement) => {
  fireEvent.click(element)
  await settle()
}

describe("scan detail", () => {
  it("summary, severity breakdown of the failed findings, and 'View findings' only for completed services", async () => {
    const world = defaultWorld()
    world.findings = [
      finding(1, { severity: "critical" }),
      finding(2, { severity: "high" }),
      finding(3, { severity: "high" }),
      finding(4, { severity: "low", status: "pass" }),
    ]
    const { currentUrl } = await renderDetail(world)
    expect(screen.getByRole("heading", { level: 1, name: "Scan #11" })).toBeTruthy()
    const summary = screen.getByRole("region", { name: "Summary" })
    for (const label of ["Provider", "Started", "Ended", "Total checks", "Passed checks", "Failed checks"]) expect(within(summary).getByText(label)).toBeTruthy()
    const bars = within(summary).getByRole("region", { name: "Failed findings by severity" })
    expect(within(bars).getAllByRole("listitem").map((li) => li.textContent)).toEqual(["Critical1", "High2", "Medium0", "Low0"])
    // A severity with no failed finding has an empty track, not a sliver that reads as "a few".
    expect(within(bars).getAllByRole("listitem").map((li) => li.querySelector('[aria-hidden="true"]')?.childElementCount)).toEqual([1, 1, 0, 0])

    const s3 = screen.getByRole("button", { name: "View findings of s3" })
    const iam = screen.getByRole("button", { name: "View findings of iam" })
    expect(iam.hasAttribute("disabled")).toBe(true)
    await press(s3)
    expect(currentUrl()).toBe("/dashboard/scans/11/findings?service=s3")
  })

  it("polls every 10 s while running and stops at a terminal status", async () => {
    const world = defaultWorld()
    world.scans = [scan(11, { status: "running", completed_services: 1, scan_end: null, services: [service(1, "s3"), service(2, "iam", { status: "running" })] })]
    const { called, tick } = await renderDetail(world)
    expect(screen.getByRole("progressbar", { name: "Scan progress" })).toBeTruthy()
    expect(screen.getByText("Shown when the scan has finished.")).toBeTruthy()
    await tick(10_000)
    expect(called("getScan")).toHaveLength(2)
    world.scans = [scan(11)]
    await tick(10_000)
    expect(called("getScan")).toHaveLength(3)
    expect(screen.queryByRole("progressbar", { name: "Scan progress" })).toBeNull()
    await tick(60_000)
    expect(called("getScan")).toHaveLength(3)
  })

  it("stops polling when the page is left", async () => {
    const world = defaultWorld()
    world.scans = [scan(11, { status: "running", scan_end: null })]
    const rendered = await renderDetail(world)
    rendered.unmount()
    await rendered.tick(60_000)
    expect(rendered.called("getScan")).toHaveLength(1)
  })

  it("exports CSV / JSON / OCSF under the spec's file name; disabled before completion", async () => {
    const { files, called } = await renderDetail()
    await press(screen.getByRole("button", { name: "Export" }))
    await press(screen.getByRole("menuitem", { name: "JSON" }))
    expect(called("exportFindings").map((c) => c.payload)).toEqual([{ scanId: 11, format: "json" }])
    expect(files.map((f) => f.fileName)).toEqual(["scan-11-findings-2025-03-01T12-00-00-000Z.json"])
    cleanup()
    const world = defaultWorld()
    world.scans = [scan(11, { status: "running" })]
    await renderDetail(world)
    expect(screen.getByRole("button", { name: "Export" }).hasAttribute("disabled")).toBe(true)
  })

  it("an unknown scan shows 'Error Loading Scan Details'", async () => {
    const world = defaultWorld()
    world.scans = []
    await renderDetail(world)
    expect(screen.getByText("Error Loading Scan Details")).toBeTruthy()
    expect(screen.getByText("Scan not found")).toBeTruthy()
    // Nothing to refresh or retry on a scan that does not exist: only the way back.
    expect(screen.queryByRole("button", { name: /Refresh/ })).toBeNull()
    expect(screen.queryByRole("button", { name: "Try again" })).toBeNull()
    expect(screen.getByRole("link", { name: "Back to scans" }).getAttribute("href")).toBe("/dashboard/scans")
  })
})
