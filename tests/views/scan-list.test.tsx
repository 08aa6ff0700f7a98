// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest"
import { cleanup, fireEvent, screen, within } from "@testing-library/react"
import { ScanListView } from "../../src/views/scans/scan-list.view.tsx"
import { scan } from "../machines/scan-fakes.ts"
import { defaultWorld, renderScan, settle } from "./scan-render.tsx"

afterEach(cleanup)

const renderList = (world = defaultWorld()) =>
  renderScan("/dashboard/scans", { pattern: "/dashboard/scans", screen: <ScanListView />, world })

const press = async (element: HTMLElement) => {
  fireEvent.click(element)
  await settle()
}

const manyScans = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    scan(100 - i, i === 0 ? { status: "running", completed_services: 3, total_services: 12, scan_end: null } : {}),
  )

describe("scan list", () => {
  it("'Security Scans' as a table (≥ 1024 px) with a progress bar for a running scan, 20 per page, load more", async () => {
    const world = defaultWorld()
    world.scans = manyScans(25)
    const { called } = await renderList(world)
    expect(screen.getByRole("heading", { level: 1, name: "Security Scans" })).toBeTruthy()
    const table = screen.getByRole("table", { name: "Security scans" })
    expect(within(table).getAllByRole("row")).toHaveLength(21)
    const progress = within(table).getByRole("progressbar", { name: "Scan progress" })
    expect(progress.getAttribute("aria-valuenow")).toBe("25")
    expect(progress.getAttribute("aria-valuetext")).toBe("3 of 12 services")
    expect(called("listScans").map((c) => c.payload)).toEqual([{ page: 1, page_size: 20 }])
    await press(screen.getByRole("button", { name: "Load more" }))
    expect(within(table).getAllByRole("row")).toHaveLength(26)
    expect(screen.queryByRole("button", { name: "Load more" })).toBeNull()
  })

  it("refreshes itself every 15 s (every page shown so far)", async () => {
    const world = defaultWorld()
    world.scans = manyScans(25)
    const { called, tick } = await renderList(world)
    await press(screen.getByRole("button", { name: "Load more" }))
    const before = called("listScans").length
    await tick(14_000)
    expect(called("listScans")).toHaveLength(before)
    world.scans = [scan(100, { status: "completed" }), ...world.scans.slice(1)]
    await tick(1_000)
    expect(called("listScans").slice(before).map((c) => c.payload)).toEqual([
      { page: 1, page_size: 20 },
      { page: 2, page_size: 20 },
    ])
    expect(screen.queryByRole("progressbar", { name: "Scan progress" })).toBeNull()
  })

  it("cancels a running scan", async () => {
    const world = defaultWorld()
    world.scans = manyScans(2)
    const { called } = await renderList(world)
    await press(screen.getByRole("button", { name: "Cancel scan #100" }))
    expect(called("cancelScan").map((c) => c.payload)).toEqual([{ id: 100 }])
    expect(screen.getByText("Scan canceled")).toBeTruthy()
  })

  it("empty: 'Run first scan'; without any account the dialog says so", async () => {
    const world = defaultWorld()
    world.scans = []
    world.accounts = []
    await renderList(world)
    await press(screen.getByRole("button", { name: "Run first scan" }))
    expect(screen.getByText("You need to create an account before running a scan")).toBeTruthy()
  })

  it("'New scan' opens the launch dialog with the accounts", async () => {
    await renderList()
    await press(screen.getByRole("button", { name: "New scan" }))
    expect(screen.getByRole("dialog", { name: "Launch scan" })).toBeTruthy()
    expect(screen.getByText("Choose the cloud account to scan. The scan checks every supported service and region.")).toBeTruthy()
  })

  it("a failed load shows 'Error Loading Scans'", async () => {
    const world = defaultWorld()
    await renderScan("/dashboard/scans", {
      pattern: "/dashboard/scans",
      screen: <ScanListView />,
      world,
      overrides: { listScans: async () => Promise.reject({ type: "SERVER_ERROR", message: "Error loading scan details", status: 500 }) },
    })
    expect(screen.getByText("Error Loading Scans")).toBeTruthy()
    expect(screen.getByText("Error loading scan details")).toBeTruthy()
  })
})
