// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest"
import { act, cleanup, fireEvent, screen, within } from "@testing-library/react"
import { AccountDetailScreen } from "../../src/views/accounts/account-detail-screen.tsx"
import { OrganizationMessages } from "../../src/contracts/organizations.ts"
import { httpFailure } from "../machines/auth-fakes.ts"
import { accountDetail } from "../machines/scan-fakes.ts"
import { defaultWorld, renderScan, settle } from "./scan-render.tsx"

afterEach(cleanup)

const renderAccount = (options: Partial<Parameters<typeof renderScan>[1]> = {}) =>
  renderScan("/dashboard/accounts/1", { pattern: "/dashboard/accounts/:accountId", screen: <AccountDetailScreen />, ...options })

const press = async (element: HTMLElement) => {
  fireEvent.click(element)
  await settle()
}

describe("account details", () => {
  it("shows the header, the information, latest-scan and credentials cards", async () => {
    await renderAccount()
    expect(screen.getByRole("heading", { level: 1, name: "Production" })).toBeTruthy()
    for (const name of ["Refresh", "Launch scan", "Delete account"]) expect(screen.getByRole("button", { name })).toBeTruthy()
    expect(screen.getByText("3 issues found")).toBeTruthy()
    // Passed checks are the scan's (35): the muted (1) and not evaluated (1) checks are counted apart, never as passed
    // (issue 28: 40 findings = 35 passed + 3 failed + 1 passed with exceptions + 1 not evaluated).
    const latest = screen.getByRole("region", { name: "Latest scan" })
    expect(within(latest).getByText("35")).toBeTruthy()
    expect(within(latest).getByText("Passed with exceptions")).toBeTruthy()
    expect(within(latest).getByText("#11")).toBeTruthy()
    expect(within(latest).getByRole("link", { name: "View scan details" }).getAttribute("href")).toBe("/dashboard/scans/11")
    expect(screen.getByText("••••••••••••••••")).toBeTruthy()
  })

  it("reveals the secret through the audited call and hides it again", async () => {
    const { called } = await renderAccount()
    await press(screen.getByRole("button", { name: "Reveal secret access key" }))
    expect(called("revealSecret")).toHaveLength(1)
    expect(screen.getByText("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")).toBeTruthy()
    await press(screen.getByRole("button", { name: "Hide secret access key" }))
    expect(screen.queryByText("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")).toBeNull()
  })

  it("the credentials card labels each provider's own identifiers (AWS, GCP, Azure), the secret stays masked", async () => {
    const cases: ReadonlyArray<{ detail: Record<string, unknown>; facts: ReadonlyArray<[string, string]>; secret: string; absent: ReadonlyArray<string> }> = [
      {
        detail: {},
        facts: [["Cloud account ID", "123456789012"], ["Access key ID", "AKIAEXAMPLE"]],
        secret: "Secret access key",
        absent: ["Project ID", "Tenant ID"],
      },
      {
        detail: {
          cloud_provider_id: 2,
          cloud_provider_name: "GCP",
          credential_data: { aws_account_id: null, access_key: null, secret_key: "••••••••••••••••", project_id: "audit-prod-42", client_email: "scanner@audit-prod-42.iam.gserviceaccount.com" },
        },
        facts: [["Project ID", "audit-prod-42"], ["Service account", "scanner@audit-prod-42.iam.gserviceaccount.com"]],
        secret: "Service account key",
        absent: ["Cloud account ID", "Access key ID", "Tenant ID"],
      },
      {
        detail: {
          cloud_provider_id: 3,
          cloud_provider_name: "Azure",
          credential_data: {
            aws_account_id: null,
            access_key: null,
            secret_key: "••••••••••••••••",
            tenant_id: "aaaaaaaa-0000-4000-8000-000000000001",
            client_id: "c1c1c1c1-0000-4000-8000-000000000001",
            subscription_id: "11111111-1111-4111-8111-111111111111",
          },
        },
        facts: [["Tenant ID", "aaaaaaaa-0000-4000-8000-000000000001"], ["Client ID", "c1c1c1c1-0000-4000-8000-000000000001"], ["Subscription ID", "11111111-1111-4111-8111-111111111111"]],
        secret: "Client secret",
        absent: ["Cloud account ID", "Access key ID", "Project ID"],
      },
    ]
    for (const c of cases) {
      const world = defaultWorld()
      world.details.set(1, accountDetail(1, { account_name: "Production", ...c.detail }))
      await renderAccount({ world })
      const card = screen.getByRole("region", { name: "Credentials" })
      for (const [label, value] of c.facts) {
        const term = within(card).getByText(label)
        expect(term.parentElement?.textContent, label).toContain(value)
      }
      for (const label of c.absent) expect(within(card).queryByText(label), label).toBeNull()
      expect(within(card).getByText(c.secret)).toBeTruthy()
      expect(within(card).getByText("••••••••••••••••")).toBeTruthy()
      expect(within(card).getByRole("button", { name: `Reveal ${c.secret.toLowerCase()}` })).toBeTruthy()
      cleanup()
    }
  })

  it("an Azure account added before the tenant was recorded shows 'N/A' for it", async () => {
    const world = defaultWorld()
    world.details.set(1, accountDetail(1, { cloud_provider_id: 3, cloud_provider_name: "Azure", credential_data: { aws_account_id: null, access_key: null, secret_key: "••••••••••••••••", tenant_id: null, client_id: "c1", subscription_id: "s1" } }))
    await renderAccount({ world })
    const card = screen.getByRole("region", { name: "Credentials" })
    expect(within(card).getByText("Tenant ID").parentElement?.textContent).toContain("N/A")
  })

  it("with no scan: 'No scans have been run for this account yet.' and 'Run first scan' opens the launch dialog", async () => {
    const world = defaultWorld()
    world.details.set(1, accountDetail(1, { account_name: "Production", recent_scans: [] }))
    await renderAccount({ world })
    expect(screen.getByText("No scans have been run for this account yet.")).toBeTruthy()
    expect(screen.getAllByText("No scans yet").length).toBeGreaterThan(0)
    await press(screen.getByRole("button", { name: "Run first scan" }))
    expect(screen.getByRole("dialog", { name: "Launch scan" })).toBeTruthy()
  })

  it("a member retired from its organisation: a Retired badge and 'no longer scanned' instead of Launch scan, Run first scan and the schedule's Edit (issue 31)", async () => {
    const world = defaultWorld()
    world.details.set(1, accountDetail(1, { account_name: "Production", retired_at: "2026-01-05T10:00:00.000Z" }))
    await renderAccount({ world })
    expect(screen.getByText("Retired")).toBeTruthy()
    expect(screen.getAllByText(OrganizationMessages.memberRetiredLine).length).toBeGreaterThan(0)
    expect(screen.queryByRole("button", { name: "Launch scan" })).toBeNull()
    // Its schedule no longer runs: shown with the same line, without Edit.
    const schedule = screen.getByRole("region", { name: "Scan schedule" })
    expect(within(schedule).getByText(OrganizationMessages.memberRetiredLine)).toBeTruthy()
    expect(within(schedule).queryByRole("button", { name: "Edit" })).toBeNull()
    // Its history stays readable; Refresh and Delete account stay.
    expect(within(screen.getByRole("region", { name: "Latest scan" })).getByRole("link", { name: "View scan details" })).toBeTruthy()
    for (const name of ["Refresh", "Delete account"]) expect(screen.getByRole("button", { name })).toBeTruthy()
    cleanup()
    world.details.set(1, accountDetail(1, { account_name: "Production", recent_scans: [], retired_at: "2026-01-05T10:00:00.000Z" }))
    await renderAccount({ world })
    expect(screen.getByText("No scans have been run for this account yet.")).toBeTruthy()
    expect(screen.queryByRole("button", { name: "Run first scan" })).toBeNull()
    expect(within(screen.getByRole("region", { name: "Latest scan" })).getByText(OrganizationMessages.memberRetiredLine)).toBeTruthy()
  })

  it("Refresh toasts success, or 'Failed to refresh account details'", async () => {
    let fail = false
    const world = defaultWorld()
    await renderAccount({
      world,
      overrides: {
        refreshAccountDetail: async ({ id }) => {
          if (fail) throw httpFailure("account-refresh", 500)
          return world.details.get(id)!
        },
      },
    })
    await press(screen.getByRole("button", { name: "Refresh" }))
    expect(screen.getByText("Account details refreshed successfully")).toBeTruthy()
    fail = true
    await press(screen.getByRole("button", { name: "Refresh" }))
    expect(screen.getByText("Failed to refresh account details")).toBeTruthy()
  })

  it("delete: the spec's sentence, then /dashboard; a failure shows 'Failed to delete account' above the page", async () => {
    let fail = true
    const { currentUrl } = await renderAccount({
      overrides: {
        deleteAccount: async () => {
          if (fail) throw httpFailure("account-delete", 500)
          return { ok: true, message: "Account deleted successfully" }
        },
      },
    })
    await press(screen.getByRole("button", { name: "Delete account" }))
    const dialog = screen.getByRole("alertdialog")
    expect(
      within(dialog).getByText('This will permanently delete the AWS account "Production" and remove all scan history. This action cannot be undone.'),
    ).toBeTruthy()
    await press(within(dialog).getByRole("button", { name: "Delete account" }))
    expect(screen.getByRole("alert").textContent).toContain("Failed to delete account")
    fail = false
    await press(screen.getByRole("button", { name: "Delete account" }))
    await press(within(screen.getByRole("alertdialog")).getByRole("button", { name: "Delete account" }))
    expect(currentUrl()).toBe("/dashboard")
  })

  it("a failed load shows the message or 'Failed to load account details'", async () => {
    const world = defaultWorld()
    world.details.clear()
    await renderAccount({ world })
    expect(screen.getByText("Account not found")).toBeTruthy()
    expect(screen.getByRole("button", { name: "Try again" })).toBeTruthy()
  })

  it("launch dialog without scan_service: Launch disabled with the tooltip; an attempt says 'Permission denied: Cannot launch scans'", async () => {
    const world = defaultWorld()
    world.viewer = { ...world.viewer, canLaunchScans: false }
    const { called } = await renderAccount({ world })
    await press(screen.getByRole("button", { name: "Launch scan" }))
    const dialog = screen.getByRole("dialog", { name: "Launch scan" })
    const launch = within(dialog).getByRole("button", { name: "Launch" })
    expect(launch.getAttribute("aria-disabled")).toBe("true")
    // Keyboard focus shows the tooltip (react-aria: focus-visible opens it at once).
    fireEvent.keyDown(document.body, { key: "Tab" })
    fireEvent.keyUp(document.body, { key: "Tab" })
    await act(async () => launch.focus())
    await settle()
    expect(screen.getByRole("tooltip").textContent).toBe("You don't have permission to launch scans")
    await press(launch)
    expect(within(dialog).getByText("Permission denied: Cannot launch scans")).toBeTruthy()
    expect(called("startScan")).toHaveLength(0)
  })

  it("launch dialog: the account is pre-selected; Launch starts the scan and the details reload when it closes", async () => {
    const { called } = await renderAccount()
    await press(screen.getByRole("button", { name: "Launch scan" }))
    const dialog = screen.getByRole("dialog", { name: "Launch scan" })
    await press(within(dialog).getByRole("button", { name: "Launch" }))
    expect(called("startScan")[0]?.payload).toEqual({ user_id: 7, account_id: 1, cloud_provider_id: 1, cloud_provider_name: "aws" })
    expect(screen.queryByRole("dialog")).toBeNull()
    expect(screen.getByText("Scan started")).toBeTruthy()
    expect(called("refreshAccountDetail")).toHaveLength(1)
  })
})
