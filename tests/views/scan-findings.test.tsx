// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest"
import { cleanup, fireEvent, screen, within } from "@testing-library/react"
import { FindingDetailView } from "../../src/views/scans/finding-detail.view.tsx"
import { FindingsView } from "../../src/views/scans/findings.view.tsx"
import { HistoryMessages } from "../../src/contracts/outcomes.ts"
import { OrganizationMessages } from "../../src/contracts/organizations.ts"
import { httpFailure } from "../machines/auth-fakes.ts"
import { remediation } from "../machines/remediation-fakes.ts"
import { compliantRow, failedRow, finding, nonCompliantRow } from "../machines/scan-fakes.ts"
import { defaultWorld, renderScan, settle } from "./scan-render.tsx"

afterEach(cleanup)

const press = async (element: HTMLElement) => {
  fireEvent.click(element)
  await settle()
}

const renderFindings = (path: string, world = defaultWorld()) =>
  renderScan(path, { pattern: "/dashboard/scans/:scanId/findings", screen: <FindingsView />, world })

const renderFinding = (path: string, world = defaultWorld(), overrides = {}) =>
  renderScan(path, { pattern: "/dashboard/scans/:scanId/findings/:findingId", screen: <FindingDetailView />, world, overrides })

describe("findings list", () => {
  it("sends severity and status filters to the server, shows its rows and totals, clears them, and exports with them", async () => {
    const world = defaultWorld()
    world.findings = [
      finding(1, { severity: "critical", status: "fail", description: "Root has access keys" }),
      finding(2, { severity: "low", status: "pass", description: "Password policy length" }),
      finding(3, { severity: "critical", status: "remediated", description: "Public bucket" }),
    ]
    const { called, files } = await renderFindings("/dashboard/scans/11/findings?service=s3", world)
    expect(called("listFindings").map((c) => c.payload)).toEqual([{ scan_id: 11, service_id: 101, page: 1, page_size: 20 }])
    const table = screen.getByRole("table", { name: "Findings" })
    expect(within(table).getAllByRole("row")).toHaveLength(4)
    expect(screen.getByText("3 findings · 3 failing resources of 6 resources")).toBeTruthy()

    await press(screen.getByRole("button", { name: "Show filters" }))
    await press(screen.getByRole("checkbox", { name: "Critical" }))
    expect(called("listFindings").at(-1)?.payload).toEqual({ scan_id: 11, service_id: 101, page: 1, page_size: 20, severity: "critical" })
    expect(within(table).getAllByRole("row")).toHaveLength(3)
    expect(screen.getByText("2 of 3 findings match · 2 failing resources of 4 resources")).toBeTruthy()
    await press(screen.getByRole("checkbox", { name: "Fail" }))
    expect(called("listFindings").at(-1)?.payload).toMatchObject({ status: "fail", severity: "critical" })
    expect(within(table).getAllByRole("row")).toHaveLength(2)
    expect(within(table).getByText("Root has access keys")).toBeTruthy()
    expect(called("listFindings")).toHaveLength(3)

    await press(screen.getByRole("button", { name: "Export" }))
    await press(screen.getByRole("menuitem", { name: "CSV" }))
    expect(called("exportFindings").map((c) => c.payload)).toEqual([
      { scanId: 11, format: "csv", service_id: 101, status: "fail", severity: "critical" },
    ])
    expect(files).toHaveLength(1)

    await press(screen.getAllByRole("button", { name: "Clear filters" })[0]!)
    expect(called("listFindings").at(-1)?.payload).toEqual({ scan_id: 11, service_id: 101, page: 1, page_size: 20 })
    expect(within(table).getAllByRole("row")).toHaveLength(4)
    await press(screen.getByRole("button", { name: "Hide filters" }))
    expect(screen.queryByRole("checkbox", { name: "Critical" })).toBeNull()
  })

  it("loads more, 20 at a time, by the server's cursor", async () => {
    const world = defaultWorld()
    world.findings = Array.from({ length: 23 }, (_, i) => finding(i + 1))
    const { called } = await renderFindings("/dashboard/scans/11/findings?service=s3", world)
    expect(within(screen.getByRole("table", { name: "Findings" })).getAllByRole("row")).toHaveLength(21)
    expect(screen.getByText("Showing 20 of 23 findings")).toBeTruthy()
    await press(screen.getByRole("button", { name: "Load more" }))
    expect(called("listFindings")[1]?.payload).toEqual({ scan_id: 11, service_id: 101, cursor: "after:20", page_size: 20 })
    expect(within(screen.getByRole("table", { name: "Findings" })).getAllByRole("row")).toHaveLength(24)
    expect(screen.queryByRole("button", { name: "Load more" })).toBeNull()
  })

  it("without ?service= lists every service of the scan; the search is sent after quiet typing", async () => {
    const world = defaultWorld()
    world.findings = [finding(1, { service_name: "s3" }), finding(2, { service_id: 102, service_name: "iam" })]
    const { called, tick } = await renderFindings("/dashboard/scans/11/findings", world)
    expect(screen.getByRole("heading", { name: "All findings" })).toBeTruthy()
    expect(called("listFindings").map((c) => c.payload)).toEqual([{ scan_id: 11, page: 1, page_size: 20 }])
    const table = screen.getByRole("table", { name: "Findings" })
    expect(within(table).getAllByRole("columnheader").map((th) => th.textContent)).toContain("Service")
    expect(within(table).getAllByRole("link").map((a) => a.getAttribute("href"))).toEqual([
      "/dashboard/scans/11/findings/1?service=s3",
      "/dashboard/scans/11/findings/2?service=iam",
    ])
    fireEvent.change(screen.getByRole("searchbox", { name: "Search resources" }), { target: { value: "bucket" } })
    await settle()
    expect(called("listFindings")).toHaveLength(1)
    await tick(300)
    expect(called("listFindings").at(-1)?.payload).toEqual({ scan_id: 11, page: 1, page_size: 20, q: "bucket" })
  })

  it("'Service \"{name}\" not found in this scan'", async () => {
    await renderFindings("/dashboard/scans/11/findings?service=lambda")
    expect(screen.getByText('Service "lambda" not found in this scan')).toBeTruthy()
  })
})

describe("finding detail", () => {
  it("breadcrumbs, field labels, 5-item arrays and the 150 → 97 cut with its length note", async () => {
    const world = defaultWorld()
    const long = "x".repeat(200)
    world.findings = [
      finding(5, {
        field_labels: { resource_id: "Bucket", policies: "Policies", note: "Note" },
        details: [{ resource_id: "bucket-a", policies: ["p1", "p2", "p3", "p4", "p5", "p6", "p7"], note: long, compliance: false }],
      }),
    ]
    await renderFinding("/dashboard/scans/11/findings/5?service=s3", world)
    const crumbs = screen.getByRole("navigation", { name: "Breadcrumbs" })
    expect(within(crumbs).getAllByRole("listitem").map((li) => li.textContent)).toEqual([
      "Dashboard",
      "Scans",
      "Scan #11",
      "Findings",
      "Finding #5",
    ])
    expect(within(crumbs).getByRole("link", { name: "Findings" }).getAttribute("href")).toBe("/dashboard/scans/11/findings?service=s3")
    const table = screen.getByRole("table", { name: "Affected resources" })
    const headers = within(table).getAllByRole("columnheader").map((th) => th.textContent)
    expect(headers).toEqual(["Bucket", "Policies", "Note", "Compliant", "Actions"])
    expect(within(table).getByText("p5")).toBeTruthy()
    expect(within(table).queryByText("p6")).toBeNull()
    expect(within(table).getByText("and 2 more")).toBeTruthy()
    expect(within(table).getByText(`${"x".repeat(97)}...`)).toBeTruthy()
    expect(within(table).getByText("(200 characters)")).toBeTruthy()
  })

  it("Remediate → confirm → the row shows 'View Status' and the page polls until 'View Remediated'", async () => {
    const world = defaultWorld()
    world.findings = [finding(5, { details: [nonCompliantRow, compliantRow] })]
    const { called, tick } = await renderFinding("/dashboard/scans/11/findings/5?service=s3", world)
    const table = screen.getByRole("table", { name: "Affected resources" })
    expect(within(table).getAllByRole("button", { name: "Remediate" })).toHaveLength(1)
    await press(within(table).getByRole("button", { name: "Remediate" }))
    const dialog = screen.getByRole("dialog", { name: "Remediate resource" })
    await press(within(dialog).getByRole("button", { name: "Remediate" }))
    expect(called("remediate")[0]?.payload).toEqual({ id: 5, details: nonCompliantRow })
    expect(screen.getByText("Remediation started")).toBeTruthy()
    expect(within(screen.getByRole("dialog")).getByText("In progress")).toBeTruthy()
    await press(within(screen.getByRole("dialog")).getAllByRole("button", { name: "Close" })[0]!)
    expect(within(table).getByRole("button", { name: "View Status" })).toBeTruthy()

    world.findings = [
      finding(5, {
        details: [
          { ...nonCompliantRow, remediate: { status: "remediated", message: "Public access blocked", attempted_at: null, attempted_by: null } },
          compliantRow,
        ],
      }),
    ]
    await tick(5_000)
    expect(within(table).getByRole("button", { name: "View Remediated" })).toBeTruthy()
  })

  it("Mute → reason → the rule is created for the row's resource and the page is read again", async () => {
    const world = defaultWorld()
    world.findings = [finding(5, { details: [nonCompliantRow, compliantRow] })]
    const { called } = await renderFinding("/dashboard/scans/11/findings/5?service=s3", world)
    const table = screen.getByRole("table", { name: "Affected resources" })
    await press(within(table).getByRole("button", { name: "Mute" }))
    const dialog = screen.getByRole("dialog", { name: "Mute finding" })
    await press(within(dialog).getByRole("button", { name: "Mute" }))
    expect(within(dialog).getByText("Give the reason for muting")).toBeTruthy()
    fireEvent.change(within(dialog).getByRole("textbox", { name: /Reason/ }), { target: { value: "Break-glass bucket" } })
    await settle()
    world.findings = [finding(5, { details: [{ ...nonCompliantRow, muted: { rule_id: 3, reason: "Break-glass bucket" } }, compliantRow], resources_muted: 1, muted: true })]
    await press(within(dialog).getByRole("button", { name: "Mute" }))
    expect(called("createMuteRule")[0]?.payload).toEqual({
      reason: "Break-glass bucket", check_id: "s3.public_access", account_id: 1, resource_pattern: "bucket-a", tag_key: null, tag_value: null, expires_at: null,
    })
    expect(screen.getByText("Mute rule created")).toBeTruthy()
    expect(screen.queryByRole("dialog", { name: "Mute finding" })).toBeNull()
    // The row says Muted in its compliance (with the reason) and in its actions (Mute is gone).
    expect(within(table).getAllByText("Muted")).toHaveLength(2)
    expect(within(table).getByText("Break-glass bucket")).toBeTruthy()
    expect(within(table).queryByRole("button", { name: "Mute" })).toBeNull()
    expect(called("getFinding").length).toBeGreaterThanOrEqual(2)
  })

  it("a superseded scan's finding offers no Remediate and no Mute, and says why (issue 28: history is immutable)", async () => {
    const world = defaultWorld()
    world.findings = [finding(5, { details: [nonCompliantRow, compliantRow], superseded: true })]
    await renderFinding("/dashboard/scans/11/findings/5?service=s3", world)
    const table = screen.getByRole("table", { name: "Affected resources" })
    expect(screen.getByText(HistoryMessages.supersededNotice)).toBeTruthy()
    expect(within(table).queryByRole("button", { name: "Remediate" })).toBeNull()
    expect(within(table).queryByRole("button", { name: "Mute" })).toBeNull()
    expect(screen.queryByRole("button", { name: "Mute check" })).toBeNull()
  })

  it("a retired member's finding offers no Remediate and no Undo, and says why; its history stays readable (issue 31)", async () => {
    const world = defaultWorld()
    world.findings = [finding(5, { details: [nonCompliantRow, compliantRow], account_retired: true })]
    world.remediations = [remediation(1, { state: "verified" }, { available: false, reason: OrganizationMessages.memberRetiredUndo })]
    await renderFinding("/dashboard/scans/11/findings/5?service=s3", world)
    const table = screen.getByRole("table", { name: "Affected resources" })
    expect(screen.getByText(OrganizationMessages.memberRetiredRemediation)).toBeTruthy()
    expect(within(table).queryByRole("button", { name: "Remediate" })).toBeNull()
    const history = screen.getByRole("region", { name: "Remediation history" })
    expect(within(history).queryByRole("button", { name: "Undo" })).toBeNull()
    // The server's reason reads on its own (no "Undo no longer possible: This account…").
    expect(within(history).getByText(OrganizationMessages.memberRetiredUndo, { exact: true })).toBeTruthy()
  })

  it("retired since the page was read: the remediation dialog shows the server's refusal, not the generic failure (issue 31)", async () => {
    const world = defaultWorld()
    world.findings = [finding(5, { details: [nonCompliantRow, compliantRow] })]
    await renderFinding("/dashboard/scans/11/findings/5?service=s3", world, {
      remediate: async () => {
        throw httpFailure("remediation", 409, { message: OrganizationMessages.memberRetiredRemediation, data: { error_type: "account_retired" } })
      },
    })
    await press(within(screen.getByRole("table", { name: "Affected resources" })).getByRole("button", { name: "Remediate" }))
    const dialog = screen.getByRole("dialog", { name: "Remediate resource" })
    await press(within(dialog).getByRole("button", { name: "Remediate" }))
    expect(within(screen.getByRole("dialog")).getByText(OrganizationMessages.memberRetiredRemediation)).toBeTruthy()
    expect(within(screen.getByRole("dialog")).queryByText("Failed to remediate finding. Please try again.")).toBeNull()
  })

  it("a failed remediation: 'View Error', a long message collapses (Show more / Show less), 'Try again'", async () => {
    const world = defaultWorld()
    const message = `Access denied: ${"m".repeat(120)}`
    world.findings = [finding(5, { details: [failedRow(message)] })]
    const { called } = await renderFinding("/dashboard/scans/11/findings/5?service=s3", world)
    await press(screen.getByRole("button", { name: "View Error" }))
    const dialog = screen.getByRole("dialog", { name: "Remediation" })
    expect(within(dialog).getByText(`${message.slice(0, 100)}...`)).toBeTruthy()
    await press(within(dialog).getByRole("button", { name: "Show more" }))
    expect(within(dialog).getByText(message)).toBeTruthy()
    await press(within(dialog).getByRole("button", { name: "Show less" }))
    await press(within(dialog).getByRole("button", { name: "Try again" }))
    expect(called("remediate")).toHaveLength(1)
  })

  it("without remediate_findings: disabled with the tooltip; an attempt toasts the spec's text", async () => {
    const world = defaultWorld()
    world.viewer = { ...world.viewer, canRemediate: false }
    const { called } = await renderFinding("/dashboard/scans/11/findings/5?service=s3", world)
    const button = screen.getByRole("button", { name: "Remediate" })
    expect(button.getAttribute("aria-disabled")).toBe("true")
    await press(button)
    expect(screen.getByText("You don't have permission to remediate findings")).toBeTruthy()
    expect(called("remediate")).toHaveLength(0)
  })

  it("a failed load offers Retry and Go Back", async () => {
    const world = defaultWorld()
    world.findings = []
    const { currentUrl, called } = await renderFinding("/dashboard/scans/11/findings/9?service=s3", world)
    expect(screen.getByText("Failed to load finding details. Please try again.")).toBeTruthy()
    await press(screen.getByRole("button", { name: "Retry" }))
    expect(called("getFinding")).toHaveLength(2)
    await press(screen.getByRole("button", { name: "Go Back" }))
    expect(currentUrl()).toBe("/dashboard/scans/11/findings?service=s3")
  })
})
