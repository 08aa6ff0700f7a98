// @vitest-environment happy-dom
/**
 * The organisation page (issue 31) rendered with fake organisation and scanning effects inside the app's root (toasts,
 * router): the members figures with their unit, the units tree (state, reachability, retired badge, account links), the
 * selection edited with checkboxes and saved, 'Sync now' with what changed, 'Scan organization' with the members'
 * progress read again every 10 s; and the dashboard cards that name an organisation and its members.
 */
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react"
import { AccountGroupMessages } from "../../src/contracts/account-groups.ts"
import { afterEach, describe, expect, it } from "vitest"
import { Route, Switch } from "wouter"
import { memoryLocation } from "wouter/memory-location"
import { SimulatedClock } from "xstate"
import type { FleetScan, MemberSelection, OrganizationDetail } from "../../src/contracts/organizations.ts"
import type { OrganizationEffects } from "../../src/machines/organization-effects.ts"
import { App } from "../../src/views/app.tsx"
import { DashboardView } from "../../src/views/accounts/dashboard.view.tsx"
import { OrganizationEffectsProvider } from "../../src/views/organizations/organization-effects-context.tsx"
import { OrganizationView } from "../../src/views/organizations/organization.view.tsx"
import { ScanEffectsProvider } from "../../src/views/scanning/scan-effects-context.tsx"
import { SessionStatusContext } from "../../src/views/session-status.tsx"
import { flush } from "../machines/auth-fakes.ts"
import { awsTemplate, changes, fleetScan, ORG_ID, organizationDetail, sync } from "../machines/organization-fakes.ts"
import { account } from "../machines/scan-fakes.ts"
import { defaultWorld, fakeScanEffects, renderScan, settle } from "./scan-render.tsx"

afterEach(cleanup)

const renderOrganization = async (options: { readonly organization?: OrganizationDetail; readonly fleet?: FleetScan | null } = {}) => {
  const calls: Array<{ readonly name: string; readonly payload: unknown }> = []
  let organization = options.organization ?? organizationDetail()
  let fleet = options.fleet === undefined ? null : options.fleet
  const log = <P, A>(name: string, fn: (p: P) => A) => async (p: P): Promise<A> => {
    calls.push({ name, payload: p })
    return fn(p)
  }
  const effects: OrganizationEffects = {
    loadAwsTemplate: log("loadAwsTemplate", () => awsTemplate),
    loadOrganization: log("loadOrganization", () => organization),
    saveSelection: log("saveSelection", ({ selection }: { readonly selection: MemberSelection }) => {
      organization = { ...organization, selection, members_included: 1 }
      return { message: "Member selection saved", organization }
    }),
    syncNow: log("syncNow", () => ({
      message: "Organization synced",
      sync: sync(3, {
        changes: changes({
          added: [{ cloud_account_id: "555555555555", name: "Payments", unit_path: "Root / Prod" }],
          moved: [{ cloud_account_id: "222222222222", name: "Member 222222222222", unit_path: "Root / Prod", detail: "Root / Dev" }],
        }),
      }),
    })),
    listSyncs: log("listSyncs", () => [sync(3), ...organization.recent_syncs]),
    listFleetScans: log("listFleetScans", () => (fleet === null ? [] : [fleet])),
    getFleetScan: log("getFleetScan", () => fleet!),
  }
  const world = defaultWorld()
  const scans = fakeScanEffects(world, {
    startScan: async (payload) => {
      calls.push({ name: "startScan", payload })
      fleet = fleetScan(5)
      return { ok: true, message: "Fleet scan started", data: fleet }
    },
  })
  const clock = new SimulatedClock()
  clock.set(Date.parse("2025-03-01T12:00:00.000Z"))
  const path = `/dashboard/accounts/${ORG_ID}/organization`
  render(
    <SessionStatusContext value="authenticated">
      <ScanEffectsProvider effects={scans.effects} clock={clock} saveFile={() => {}}>
        <OrganizationEffectsProvider effects={effects} clock={clock}>
          <App clock={clock} location={memoryLocation({ path })}>
            <Switch>
              <Route path="/dashboard/accounts/:accountId/organization">
                <OrganizationView />
              </Route>
            </Switch>
          </App>
        </OrganizationEffectsProvider>
      </ScanEffectsProvider>
    </SessionStatusContext>,
  )
  await settle()
  const tick = async (ms: number) => {
    await act(async () => {
      clock.increment(ms)
      await flush()
    })
    await settle()
  }
  return { calls, tick, finish: () => void (fleet = fleetScan(5, { status: "completed", members_running: 0, members_completed: 1 })) }
}

const press = async (element: HTMLElement) => {
  fireEvent.click(element)
  await settle()
}

describe("organisation page", () => {
  it("states the members with their unit and shows the units tree with each member's state, reachability and account link", async () => {
    await renderOrganization()
    expect(screen.getByRole("heading", { level: 1, name: "Acme organization" })).toBeTruthy()
    const members = screen.getByRole("region", { name: "Members" })
    expect(within(members).getAllByText("3 member accounts")).toHaveLength(1)
    expect(within(members).getByText("2 member accounts")).toBeTruthy()
    expect(within(members).getAllByText("1 member account")).toHaveLength(2)

    const tree = screen.getByRole("list", { name: "Organizational units" })
    expect(within(tree).getByText("Prod · 2 member accounts")).toBeTruthy()
    expect(within(tree).getByText(/Unreachable: The member role could not be assumed in this account/)).toBeTruthy()
    expect(within(tree).getByText("Retired")).toBeTruthy()
    expect(within(tree).getByRole("link", { name: "Account page of Member 222222222222" }).getAttribute("href")).toBe("/dashboard/accounts/21")
    expect(screen.getByRole("region", { name: "Fleet scan" }).textContent).toContain("No scan of the organization yet.")
  })

  it("draws its trail naming the organisation account (not 'Account #id'), linking to its account page", async () => {
    await renderOrganization()
    const trails = screen.getAllByRole("navigation", { name: "Breadcrumbs" })
    expect(trails).toHaveLength(1)
    expect(trails[0]!.textContent).not.toContain("Account #")
    expect(within(trails[0]!).getByRole("link", { name: "Acme organization" }).getAttribute("href")).toBe(`/dashboard/accounts/${ORG_ID}`)
    expect(within(trails[0]!).getByText("Organization")).toBeTruthy()
  })

  it("edits the selection with checkboxes and saves it", async () => {
    const { calls } = await renderOrganization()
    await press(screen.getByRole("button", { name: "Change selection" }))
    const dev = screen.getByRole("checkbox", { name: "Dev · 1 member account" })
    expect((dev as HTMLInputElement).checked).toBe(true)
    await press(dev)
    expect((screen.getByRole("checkbox", { name: "Dev · 1 member account" }) as HTMLInputElement).checked).toBe(false)
    // Below an excluded unit a member is out, and can be brought back alone (the contract's rule: an included account wins).
    const member = screen.getByRole("checkbox", { name: /Member 444444444444/ }) as HTMLInputElement
    expect(member.checked).toBe(false)
    expect(member.disabled).toBe(false)
    await press(member)
    expect((screen.getByRole("checkbox", { name: /Member 444444444444/ }) as HTMLInputElement).checked).toBe(true)
    expect((screen.getByRole("checkbox", { name: "Dev · 1 member account" }) as HTMLInputElement).checked).toBe(false)
    await press(screen.getByRole("button", { name: "Save selection" }))
    expect(calls.filter((c) => c.name === "saveSelection").map((c) => c.payload)).toEqual([
      { id: ORG_ID, selection: { include_units: [], exclude_units: ["ou-dev"], include_accounts: ["444444444444"], exclude_accounts: [] } },
    ])
    expect(screen.queryByRole("checkbox", { name: "Dev · 1 member account" })).toBeNull()
    expect(await screen.findByText("Member selection saved")).toBeTruthy()
  })

  it("'Sync now' shows what changed, member by member; the whole history on request", async () => {
    const { calls } = await renderOrganization()
    await press(screen.getByRole("button", { name: "Sync now" }))
    const result = screen.getByRole("region", { name: "Sync result" })
    expect(result.textContent).toContain("Added 1 member account, Moved 1 member account")
    expect(within(result).getByText("Payments (555555555555), Root / Prod")).toBeTruthy()
    expect(within(result).getByText("Member 222222222222 (222222222222), Root / Dev → Root / Prod")).toBeTruthy()
    expect(calls.filter((c) => c.name === "loadOrganization")).toHaveLength(2)
    await press(screen.getByRole("button", { name: "Show every sync" }))
    expect(within(screen.getByRole("region", { name: "Sync history" })).getAllByRole("listitem")).toHaveLength(3)
  })

  it("'Scan organization' starts a scan of the organisation account and follows its members every 10 s", async () => {
    const { calls, tick, finish } = await renderOrganization()
    await press(screen.getByRole("button", { name: "Scan organization" }))
    expect(calls.filter((c) => c.name === "startScan").map((c) => c.payload)).toEqual([
      { user_id: 7, account_id: ORG_ID, cloud_provider_id: 1, cloud_provider_name: "aws" },
    ])
    const fleet = screen.getByRole("region", { name: "Fleet scan" })
    expect(within(fleet).getByRole("progressbar", { name: "Scan progress" }).getAttribute("aria-valuetext")).toBe("1 of 4 services")
    expect(within(fleet).getByText("The member role could not be assumed in this account")).toBeTruthy()
    expect(fleet.textContent).toContain("refreshed every 10 s")
    finish()
    await tick(10_000)
    expect(calls.filter((c) => c.name === "getFleetScan")).toHaveLength(1)
    expect(screen.getByRole("region", { name: "Fleet scan" }).textContent).not.toContain("refreshed every 10 s")
  })
})

describe("organisation page of a member limited to account groups", () => {
  it("shows their members and units, says why, and offers no sync, selection, fleet scan, history or organisation account", async () => {
    const { calls } = await renderOrganization({
      organization: organizationDetail({ limited_view: true, root_id: "", root_name: "", member_role_name: null, member_concurrency: 0, recent_syncs: [] }),
    })
    expect(screen.getByRole("heading", { level: 1, name: "Acme organization" })).toBeTruthy()
    expect(screen.getByText(AccountGroupMessages.limitedOrganizationView)).toBeTruthy()
    expect(screen.getByRole("list", { name: "Organizational units" })).toBeTruthy()
    for (const name of ["Sync now", "Scan organization", "Change selection", "Show every sync"]) expect(screen.queryByRole("button", { name })).toBeNull()
    expect(screen.queryByRole("link", { name: "Organization account" })).toBeNull()
    // The trail names the organisation without linking to its account page (not theirs).
    const trail = screen.getByRole("navigation", { name: "Breadcrumbs" })
    expect(within(trail).getByText("Acme organization")).toBeTruthy()
    expect(within(trail).queryByRole("link", { name: "Acme organization" })).toBeNull()
    // Only the page itself is the current crumb; the unlinked organisation crumb is not.
    expect(within(trail).getByText("Acme organization").getAttribute("aria-current")).toBeNull()
    expect(trail.querySelectorAll('[aria-current="page"]')).toHaveLength(1)
    expect(trail.querySelector('[aria-current="page"]')?.textContent).toBe("Organization")
    expect(screen.getByRole("link", { name: "Fleet dashboard" })).toBeTruthy()
    expect(screen.queryByRole("region", { name: "Fleet scan" })).toBeNull()
    expect(screen.queryByText("Member role")).toBeNull()
    expect(calls.filter((c) => c.name === "syncNow" || c.name === "saveSelection" || c.name === "startScan")).toEqual([])
  })
})

describe("dashboard cards of organisations and members", () => {
  it("badge an organisation and its members and link to the organisation page", async () => {
    const world = defaultWorld()
    world.accounts = [
      account(7, { account_name: "Acme organization", is_organization: true }),
      account(21, { account_name: "Payments", organization_account_id: 7, org_unit_path: "Root / Prod" }),
      account(23, { account_name: "Old sandbox", organization_account_id: 7, org_unit_path: "Root / Dev", retired_at: "2025-02-20T10:00:00.000Z" }),
    ]
    await renderScan("/dashboard", { world, pattern: "/dashboard", screen: <DashboardView /> })
    const org = screen.getByRole("article", { name: "Acme organization" })
    expect(within(org).getByText("Organization")).toBeTruthy()
    expect(within(org).getByRole("link", { name: "Members and fleet of Acme organization" }).getAttribute("href")).toBe("/dashboard/accounts/7/organization")
    const member = screen.getByRole("article", { name: "Payments" })
    expect(within(member).getByText("Member")).toBeTruthy()
    expect(within(member).getByRole("link", { name: "Root / Prod, the organization of Payments" }).textContent).toBe("Root / Prod")
    expect(within(screen.getByRole("article", { name: "Old sandbox" })).getByText("Retired")).toBeTruthy()
  })
})

describe("add-account wizard for an organisation", () => {
  it("offers the AWS member role's template (download as .json) and onboards with is_organization, then opens the organisation page", async () => {
    const templateCalls: unknown[] = []
    const organizations: OrganizationEffects = {
      loadAwsTemplate: async (query) => {
        templateCalls.push(query)
        return awsTemplate
      },
      loadOrganization: async () => organizationDetail(),
      saveSelection: async () => ({ message: "", organization: organizationDetail() }),
      syncNow: async () => ({ message: "", sync: sync(1) }),
      listSyncs: async () => [],
      listFleetScans: async () => [],
      getFleetScan: async () => fleetScan(1),
    }
    const payloads: unknown[] = []
    const { currentUrl } = await renderScan("/dashboard", {
      pattern: "/dashboard",
      screen: (
        <OrganizationEffectsProvider effects={organizations}>
          <DashboardView />
        </OrganizationEffectsProvider>
      ),
      overrides: {
        addAccount: async (payload) => {
          payloads.push(payload)
          return payload.test_only === true
            ? { ok: true, message: "Connection successful!", data: { tested: true } }
            : { ok: true, message: "Organization added", data: { account: account(ORG_ID, { is_organization: true }), organization: organizationDetail() } }
        },
      },
    })
    await press(screen.getAllByRole("button", { name: "Add account" })[0]!)
    const dialog = screen.getByRole("dialog", { name: "Add cloud account" })
    await press(within(dialog).getByRole("button", { name: "AWS" }))
    await press(within(dialog).getByRole("radio", { name: "AWS Organization" }))
    expect((within(dialog).getByLabelText(/^Member role name/) as HTMLInputElement).value).toBe("CloudAuditMemberRole")
    fireEvent.change(within(dialog).getByLabelText(/^Management account ID/), { target: { value: "111111111111" } })
    await settle()
    await press(within(dialog).getByRole("button", { name: "Get the CloudFormation template" }))
    expect(templateCalls).toEqual([{ role_name: "CloudAuditMemberRole", trusted_principal_arn: "arn:aws:iam::111111111111:root" }])
    expect(within(dialog).getByLabelText("Organization stack template").textContent).toBe(awsTemplate.organization_template)
    const download = within(dialog).getByRole("link", { name: "Download the stack template" })
    expect(download.getAttribute("download")).toBe("CloudAuditMemberRole-organization.json")
    expect(decodeURIComponent(download.getAttribute("href")!.replace(/^data:application\/json;charset=utf-8,/, ""))).toBe(awsTemplate.organization_template)
    expect(within(dialog).getByLabelText("AWS CLI commands").textContent).toContain("aws cloudformation deploy")

    fireEvent.change(within(dialog).getByLabelText(/^Organization name/), { target: { value: "Acme" } })
    fireEvent.change(within(dialog).getByLabelText(/^Access Key ID/), { target: { value: "AKIAEXAMPLE" } })
    fireEvent.change(within(dialog).getByLabelText(/^Secret Access Key/), { target: { value: "secret" } })
    // Units to include and to leave out, chosen at onboarding (the server's selection rule applies them).
    expect(within(dialog).getByText(/Organizational unit IDs \(ou-…\) or the root \(r-…\) separated by commas; empty: every unit/)).toBeTruthy()
    fireEvent.change(within(dialog).getByLabelText(/^Units to include/), { target: { value: "ou-prod, ou-web" } })
    fireEvent.change(within(dialog).getByLabelText(/^Units to leave out/), { target: { value: "ou-dev" } })
    await settle()
    await press(within(dialog).getByRole("button", { name: "Test connection" }))
    expect(payloads[0]).toMatchObject({
      is_organization: true,
      organization: { member_role_name: "CloudAuditMemberRole", include_units: ["ou-prod", "ou-web"], exclude_units: ["ou-dev"], exclude_accounts: [] },
      test_only: true,
    })
    await press(within(dialog).getByRole("button", { name: "OK" }))
    expect(currentUrl()).toBe(`/dashboard/accounts/${ORG_ID}/organization`)
  })
})

