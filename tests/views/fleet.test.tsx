// @vitest-environment happy-dom
/**
 * The fleet pages (issue 31 item 4) rendered with fake fleet, organisation and scanning effects inside the app's root:
 * the dashboard's totals stated with their units, members × severity with stale members marked and account links,
 * the unit filter asking the server again; the findings across members naming each row's account and unit, and
 * 'Load more' following the server's cursor.
 */
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react"
import { afterEach, describe, expect, it } from "vitest"
import { Route, Switch } from "wouter"
import { memoryLocation } from "wouter/memory-location"
import { SimulatedClock } from "xstate"
import type { FindingListResponse, FindingsQuery } from "../../src/contracts/findings.ts"
import { orgComplianceFileName, type FleetDashboard, type FleetQuery, type OrgCompliance } from "../../src/contracts/organizations.ts"
import type { DownloadedFile } from "../../src/machines/compliance-effects.ts"
import type { FleetEffects, OrgComplianceFileKind, OrgComplianceRequest } from "../../src/machines/fleet-effects.ts"
import { ComplianceEffectsProvider, UNWIRED_COMPLIANCE_EFFECTS } from "../../src/views/compliance/compliance-effects-context.tsx"
import type { OrganizationEffects } from "../../src/machines/organization-effects.ts"
import { App } from "../../src/views/app.tsx"
import { FleetEffectsProvider } from "../../src/views/organizations/fleet-effects-context.tsx"
import { FleetFindingsView } from "../../src/views/organizations/fleet-findings.view.tsx"
import { FleetView } from "../../src/views/organizations/fleet.view.tsx"
import { OrganizationEffectsProvider, UNWIRED_ORGANIZATION_EFFECTS } from "../../src/views/organizations/organization-effects-context.tsx"
import { ScanEffectsProvider } from "../../src/views/scanning/scan-effects-context.tsx"
import { SessionStatusContext } from "../../src/views/session-status.tsx"
import { framework } from "../machines/compliance-fakes.ts"
import { fleetDashboard, fleetMember, orgCompliance } from "../machines/fleet-fakes.ts"
import { ORG_ID, organizationDetail } from "../machines/organization-fakes.ts"
import { finding } from "../machines/scan-fakes.ts"
import { defaultWorld, fakeScanEffects, settle } from "./scan-render.tsx"

afterEach(cleanup)

const members = [
  fleetMember(21, { account_name: "Payments", risk: 90, failing_resources: { critical: 1200, high: 4, medium: 0, low: 0 }, failing_resources_total: 1204 }),
  fleetMember(22, { account_name: "Sandbox", stale: true, latest_scan_id: null, latest_scan_at: null }),
]

const renderAt = async (
  path: string,
  listFindings?: (q: FindingsQuery) => FindingListResponse,
  complianceOf?: (request: OrgComplianceRequest) => OrgCompliance,
  fleetOf?: (query: FleetQuery) => FleetDashboard,
  loadOrganization: OrganizationEffects["loadOrganization"] = async () => organizationDetail(),
) => {
  const fleetCalls: FleetQuery[] = []
  const complianceCalls: OrgComplianceRequest[] = []
  const downloadCalls: Array<OrgComplianceRequest & { readonly kind: OrgComplianceFileKind }> = []
  const files: DownloadedFile[] = []
  const findingCalls: FindingsQuery[] = []
  const organizations: OrganizationEffects = { ...UNWIRED_ORGANIZATION_EFFECTS, loadOrganization }
  const scans = fakeScanEffects(defaultWorld(), listFindings === undefined ? {} : {
    listFindings: async (q) => {
      findingCalls.push(q)
      return listFindings(q)
    },
  })
  const fleet: FleetEffects = {
    loadFleet: async ({ query }) => {
      fleetCalls.push(query)
      return fleetOf === undefined ? fleetDashboard(members) : fleetOf(query)
    },
    loadOrgFrameworks: async () => [framework("cis-aws-3.0.0"), { ...framework("aws-fsbp"), name: "AWS Foundational Security Best Practices" }],
    loadOrgCompliance: async (request) => {
      complianceCalls.push(request)
      return complianceOf === undefined ? orgCompliance(framework(request.frameworkId)) : complianceOf(request)
    },
    downloadOrgCompliance: async (request) => {
      downloadCalls.push(request)
      return { fileName: orgComplianceFileName(request.id, request.frameworkId, request.kind), contentType: "text/csv", content: "requirement" }
    },
  }
  const clock = new SimulatedClock()
  render(
    <SessionStatusContext value="authenticated">
      <ScanEffectsProvider effects={scans.effects} clock={clock} saveFile={() => {}}>
        <OrganizationEffectsProvider effects={organizations} clock={clock}>
          <FleetEffectsProvider effects={fleet}>
            <ComplianceEffectsProvider effects={UNWIRED_COMPLIANCE_EFFECTS} saveFile={(file) => void files.push(file)}>
            <App clock={clock} location={memoryLocation({ path })}>
              <Switch>
                <Route path="/dashboard/organizations/:organizationId/fleet">
                  <FleetView />
                </Route>
                <Route path="/dashboard/organizations/:organizationId/findings">
                  <FleetFindingsView />
                </Route>
              </Switch>
            </App>
            </ComplianceEffectsProvider>
          </FleetEffectsProvider>
        </OrganizationEffectsProvider>
      </ScanEffectsProvider>
    </SessionStatusContext>,
  )
  await settle()
  return { fleetCalls, findingCalls, complianceCalls, downloadCalls, files }
}

describe("fleet dashboard", () => {
  it("states totals with their units, lists members by risk with stale ones marked and links to each member", async () => {
    const { fleetCalls } = await renderAt(`/dashboard/organizations/${ORG_ID}/fleet`)
    expect(fleetCalls).toEqual([{}])
    const totals = screen.getByLabelText("Fleet totals")
    expect(within(totals).getAllByText("2 member accounts").length).toBeGreaterThan(0)
    expect(within(totals).getByText("1,209 failing resources")).toBeTruthy()
    const table = screen.getByRole("table", { name: /Member accounts/ })
    const rows = within(table).getAllByRole("row").slice(1)
    expect(within(rows[0]!).getByRole("link", { name: "Payments" }).getAttribute("href")).toBe("/dashboard/accounts/21")
    expect(within(rows[0]!).getByText("1,200")).toBeTruthy()
    expect(within(rows[1]!).getByText("Never scanned")).toBeTruthy()
    // The trail names the organisation account by its name (not its id) and leads to its organisation page.
    const trail = screen.getByRole("navigation", { name: "Breadcrumbs" })
    expect(within(trail).getByRole("link", { name: "Acme organization" }).getAttribute("href")).toBe(`/dashboard/accounts/${ORG_ID}/organization`)
    expect(trail.textContent).not.toContain(`${ORG_ID}`)
  })
})

describe("fleet dashboard at size: one page of members from the server", () => {
  it("shows the server's page of 120 members with the totals over all of them; Previous / Next ask the server for that page", async () => {
    const all = Array.from({ length: 120 }, (_, i) => fleetMember(1000 + i, { account_name: `member-${1000 + i}` }))
    const whole = fleetDashboard(all)
    // The server's answer: the page asked for (50 members), the totals and trend over all 120.
    const pageOf = (query: FleetQuery): FleetDashboard => {
      const page = query.page ?? 1
      return { ...whole, members: all.slice((page - 1) * 50, page * 50), pagination: { page, page_size: 50, total: 120, total_pages: 3 } }
    }
    const { fleetCalls } = await renderAt(`/dashboard/organizations/${ORG_ID}/fleet`, undefined, undefined, pageOf)
    expect(fleetCalls).toEqual([{}])
    expect(within(screen.getByLabelText("Fleet totals")).getAllByText("120 member accounts").length).toBeGreaterThan(0)
    const table = screen.getByRole("table", { name: /Member accounts/ })
    expect(within(table).getAllByRole("row").slice(1)).toHaveLength(50)
    const pager = screen.getByRole("group", { name: "Member pages" })
    expect(within(pager).getByText("Members 1–50 of 120 · page 1 of 3")).toBeTruthy()
    expect((within(pager).getByRole("button", { name: "Previous" }) as HTMLButtonElement).disabled).toBe(true)
    fireEvent.click(within(pager).getByRole("button", { name: "Next" }))
    await settle()
    fireEvent.click(within(screen.getByRole("group", { name: "Member pages" })).getByRole("button", { name: "Next" }))
    await settle()
    expect(fleetCalls).toEqual([{}, { page: 2 }, { page: 3 }])
    const last = screen.getByRole("group", { name: "Member pages" })
    expect(within(last).getByText("Members 101–120 of 120 · page 3 of 3")).toBeTruthy()
    expect((within(last).getByRole("button", { name: "Next" }) as HTMLButtonElement).disabled).toBe(true)
    const rows = within(screen.getByRole("table", { name: /Member accounts/ })).getAllByRole("row").slice(1)
    expect(rows).toHaveLength(20)
    expect(within(rows[0]!).getByRole("link", { name: "member-1100" })).toBeTruthy()
    // Another sort goes back to the first page.
    fireEvent.change(screen.getByRole("form", { name: "Fleet filters" }).querySelectorAll("select")[1]!, { target: { value: "name" } })
    await settle()
    expect(fleetCalls.at(-1)).toEqual({ sort: "name" })
  })
})

describe("the fleet's unit filter", () => {
  const unitOptions = () =>
    [...screen.getByRole("form", { name: "Fleet filters" }).querySelector("select")!.options].filter((o) => o.value !== "").map((o) => [o.value, o.textContent])

  it("offers every unit of the organisation from the dashboard's answer, not the units of the page's members, even without the organisation's own answer", async () => {
    // 120 members, all in Root / Prod on the first page; the organisation also has Root, Dev and an empty Dev / Sandbox.
    const all = Array.from({ length: 120 }, (_, i) => fleetMember(1000 + i, i < 50 ? {} : { unit_id: "ou-dev", unit_path: "Root / Dev" }))
    const units = [
      { unit_id: "r-root", path: "Root" },
      { unit_id: "ou-dev", path: "Root / Dev" },
      { unit_id: "ou-sandbox", path: "Root / Dev / Sandbox" },
      { unit_id: "ou-prod", path: "Root / Prod" },
    ]
    const pageOf = (query: FleetQuery): FleetDashboard => {
      const page = query.page ?? 1
      return fleetDashboard(all.slice((page - 1) * 50, page * 50), { units, pagination: { page, page_size: 50, total: 120, total_pages: 3 } })
    }
    // The organisation's own answer fails (GET /api/organizations/{id}): the page is shown without it.
    const { fleetCalls } = await renderAt(`/dashboard/organizations/${ORG_ID}/fleet`, undefined, undefined, pageOf, async () => {
      throw new Error("organisation unavailable")
    })
    expect(new Set(within(screen.getByRole("table", { name: /Member accounts/ })).getAllByRole("row").slice(1).map((r) => r.textContent?.includes("Root / Prod")))).toEqual(new Set([true]))
    expect(unitOptions()).toEqual([
      ["__all__", "All units"],
      ["r-root", "Root"],
      ["ou-dev", "Root / Dev"],
      ["ou-sandbox", "Root / Dev / Sandbox"],
      ["ou-prod", "Root / Prod"],
    ])
    // A unit none of the page's members is in is chosen and asked of the server.
    fireEvent.change(screen.getByRole("form", { name: "Fleet filters" }).querySelector("select")!, { target: { value: "ou-sandbox" } })
    await settle()
    expect(fleetCalls.at(-1)).toEqual({ unit: "ou-sandbox" })
    // Another page keeps every unit on offer.
    fireEvent.change(screen.getByRole("form", { name: "Fleet filters" }).querySelector("select")!, { target: { value: "__all__" } })
    await settle()
    fireEvent.click(within(screen.getByRole("group", { name: "Member pages" })).getByRole("button", { name: "Next" }))
    await settle()
    expect(fleetCalls.at(-1)).toEqual({ page: 2 })
    expect(unitOptions().map(([id]) => id)).toEqual(["__all__", "r-root", "ou-dev", "ou-sandbox", "ou-prod"])
  })
})

describe("organisation compliance on the fleet page", () => {
  it("lists each requirement with its members passing, failing (named) and with exceptions; follows the unit filter; downloads", async () => {
    const { complianceCalls, downloadCalls, files } = await renderAt(`/dashboard/organizations/${ORG_ID}/fleet`)
    expect(complianceCalls).toEqual([{ id: ORG_ID, frameworkId: "cis-aws-3.0.0", filter: {} }])
    const section = screen.getByRole("region", { name: "Compliance" })
    expect(within(section).getByText("2 of 3 member accounts")).toBeTruthy()
    const table = within(section).getByRole("table", { name: /Requirements by member accounts/ })
    const rows = within(table).getAllByRole("row").slice(1)
    expect(rows).toHaveLength(2)
    expect(rows[1]!.textContent).toContain("2.1.1")
    expect(within(rows[1]!).getByText("Failing: member-21")).toBeTruthy()
    const cells = within(rows[1]!).getAllByRole("cell").map((c) => c.textContent)
    expect(cells.slice(1)).toEqual(["0", "1", "1", "0", "1"])
    // The fleet page's unit filter narrows the compliance too.
    fireEvent.change(screen.getByRole("form", { name: "Fleet filters" }).querySelector("select")!, { target: { value: "ou-prod" } })
    await settle()
    expect(complianceCalls.at(-1)).toEqual({ id: ORG_ID, frameworkId: "cis-aws-3.0.0", filter: { unit: "ou-prod" } })
    fireEvent.click(within(section).getByRole("button", { name: "Members CSV" }))
    await settle()
    expect(downloadCalls).toEqual([{ id: ORG_ID, frameworkId: "cis-aws-3.0.0", filter: { unit: "ou-prod" }, kind: "members" }])
    expect(files.map((f) => f.fileName)).toEqual([`organization-${ORG_ID}-cis-aws-3.0.0-compliance-members.csv`])
  })
})

describe("organisation compliance at size: one page of requirements rendered", () => {
  it("10,000 requirement rows with 500 failing members each: 50 rows rendered, Previous / Next page through them, 5 failing members named per row", async () => {
    const memberList = Array.from({ length: 500 }, (_, i) => ({
      account_id: 1000 + i, account_name: `member-${1000 + i}`, cloud_account_id: String(100000001000 + i), unit_path: "Root", scan_id: 5000 + i, counts: null,
    }))
    const base = orgCompliance(framework("cis-aws-3.0.0"))
    const requirement = base.requirements[1]!
    const big = {
      ...base,
      members_total: 500,
      members_scanned: 500,
      members: memberList,
      requirements: Array.from({ length: 10_000 }, (_, i) => ({
        ...requirement,
        id: `r.${i + 1}`,
        members: { ...requirement.members, failed: 500 },
        // The server names the first five (by name) and counts them all.
        failed_members: memberList.slice(0, 5).map((m) => ({ account_id: m.account_id, account_name: m.account_name })),
      })),
    } as unknown as OrgCompliance
    const { complianceCalls } = await renderAt(`/dashboard/organizations/${ORG_ID}/fleet`, undefined, () => big)
    const section = screen.getByRole("region", { name: "Compliance" })
    expect(within(section).getByText("10,000")).toBeTruthy()
    const table = within(section).getByRole("table", { name: /Requirements by member accounts/ })
    let rows = within(table).getAllByRole("row").slice(1)
    expect(rows).toHaveLength(50)
    expect(rows[0]!.textContent).toContain("r.1 ")
    expect(within(rows[0]!).getByText("Failing: member-1000, member-1001, member-1002, member-1003, member-1004 and 495 more")).toBeTruthy()
    const pager = within(section).getByRole("group", { name: "Requirements pages" })
    expect(within(pager).getByText("Requirements 1–50 of 10,000 · page 1 of 200")).toBeTruthy()
    expect((within(pager).getByRole("button", { name: "Previous" }) as HTMLButtonElement).disabled).toBe(true)
    fireEvent.click(within(pager).getByRole("button", { name: "Next" }))
    await settle()
    rows = within(table).getAllByRole("row").slice(1)
    expect(rows).toHaveLength(50)
    expect(rows[0]!.textContent).toContain("r.51 ")
    expect(within(pager).getByText("Requirements 51–100 of 10,000 · page 2 of 200")).toBeTruthy()
    // Paging reads nothing again: the page is cut from the answer on screen.
    expect(complianceCalls).toHaveLength(1)
  })
})

describe("findings across members", () => {
  it("names each row's account and unit, links to the finding and loads more by cursor", async () => {
    const page = (ids: ReadonlyArray<number>, next: string | null): FindingListResponse => ({
      ok: true,
      data: ids.map((id) => finding(id, { account_id: 21, account_name: "Payments", organization_id: ORG_ID, org_unit_path: "Root / Prod" })),
      pagination: { page: 1, total_pages: 2, total: 3, page_size: 50 },
      totals: { findings: 3, findings_unfiltered: 3, resources_checked: 3, resources_failing: 3, resources_matched: null, accounts: 2 },
      next_cursor: next,
    })
    const { findingCalls } = await renderAt(`/dashboard/organizations/${ORG_ID}/findings`, (q) => (q.cursor === undefined ? page([1, 2], "c2") : page([3], null)))
    expect(findingCalls).toEqual([{ organization_id: ORG_ID, page: 1, page_size: 50 }])
    const table = screen.getByRole("table", { name: "Findings across member accounts" })
    const first = within(table).getAllByRole("row")[1]!
    expect(within(first).getByRole("link", { name: "Payments" }).getAttribute("href")).toBe("/dashboard/accounts/21")
    expect(within(first).getByText("Root / Prod")).toBeTruthy()
    expect(within(first).getAllByRole("link")[0]!.getAttribute("href")).toMatch(/^\/dashboard\/scans\/11\/findings\/1\?service=/)
    fireEvent.click(screen.getByRole("button", { name: "Load more" }))
    await settle()
    expect(findingCalls[1]).toEqual({ organization_id: ORG_ID, cursor: "c2", page_size: 50 })
    expect(within(table).getAllByRole("row")).toHaveLength(4)
    expect(screen.queryByRole("button", { name: "Load more" })).toBeNull()
  })
})

describe("the fleet page on a phone (below 1024 px): cards instead of tables", () => {
  const phone = (matches: boolean) => {
    const original = window.matchMedia
    window.matchMedia = ((query: string) => ({
      matches: query.includes("min-width") ? matches : !matches, media: query, onchange: null,
      addEventListener: () => {}, removeEventListener: () => {}, addListener: () => {}, removeListener: () => {}, dispatchEvent: () => false,
    })) as typeof window.matchMedia
    return () => {
      window.matchMedia = original
    }
  }

  it("each member a card with its risk, failing resources and failed checks in view; each requirement a card with failing and passing", async () => {
    const restore = phone(false)
    try {
      await renderAt(`/dashboard/organizations/${ORG_ID}/fleet`)
      expect(screen.queryByRole("table", { name: /Member accounts/ })).toBeNull()
      const members = within(screen.getByRole("list", { name: /Member accounts/ })).getAllByRole("listitem")
      expect(members).toHaveLength(2)
      expect(within(members[0]!).getByRole("link", { name: "Payments" }).getAttribute("href")).toBe("/dashboard/accounts/21")
      const figure = (card: HTMLElement, label: string) => within(card).getByText(label).nextSibling?.textContent
      expect(["Risk", "Failing resources", "Failed checks"].map((l) => figure(members[0]!, l))).toEqual(["90", "1,204", "3"])
      expect(members[0]!.textContent).toContain("Critical 1,200 · High 4 · Medium 0 · Low 0")
      expect(within(members[1]!).getByText("Never scanned")).toBeTruthy()
      const section = screen.getByRole("region", { name: "Compliance" })
      expect(within(section).queryByRole("table")).toBeNull()
      const requirements = within(within(section).getByRole("list", { name: /Requirements by member accounts/ })).getAllByRole("listitem")
      expect(requirements).toHaveLength(2)
      expect(within(requirements[1]!).getByText("Failing: member-21")).toBeTruthy()
      expect(within(requirements[1]!).getByText("Failing").nextSibling?.textContent).toBe("1")
      expect(within(requirements[1]!).getByText("Passing").nextSibling?.textContent).toBe("0")
    } finally {
      restore()
    }
  })

  it("findings across members: each finding a card with its severity, status, account and unit in view", async () => {
    const restore = phone(false)
    try {
      const answer: FindingListResponse = {
        ok: true,
        data: [finding(1, { account_id: 21, account_name: "Payments", organization_id: ORG_ID, org_unit_path: "Root / Prod" })],
        pagination: { page: 1, total_pages: 1, total: 1, page_size: 50 },
        totals: { findings: 1, findings_unfiltered: 1, resources_checked: 1, resources_failing: 1, resources_matched: null, accounts: 1 },
        next_cursor: null,
      }
      await renderAt(`/dashboard/organizations/${ORG_ID}/findings`, () => answer)
      expect(screen.queryByRole("table", { name: "Findings across member accounts" })).toBeNull()
      const cards = within(screen.getByRole("list", { name: "Findings across member accounts" })).getAllByRole("listitem")
      expect(cards).toHaveLength(1)
      const f = answer.data[0]!
      expect(within(cards[0]!).getAllByRole("link")[0]!.getAttribute("href")).toMatch(/^\/dashboard\/scans\/11\/findings\/1\?service=/)
      expect(within(cards[0]!).getByRole("link", { name: "Payments" }).getAttribute("href")).toBe("/dashboard/accounts/21")
      expect(cards[0]!.textContent).toContain("Root / Prod")
      expect(cards[0]!.textContent).toContain(f.severity === "critical" ? "Critical" : f.severity === "high" ? "High" : f.severity === "medium" ? "Medium" : "Low")
      expect(cards[0]!.textContent).toMatch(/\d+ failing resources?/)
    } finally {
      restore()
    }
  })
})
