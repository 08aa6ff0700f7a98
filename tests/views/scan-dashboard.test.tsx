// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest"
import { cleanup, fireEvent, screen, within } from "@testing-library/react"
import { DashboardScreen } from "../../src/views/accounts/dashboard-screen.tsx"
import { OrganizationMessages } from "../../src/contracts/organizations.ts"
import { httpFailure } from "../machines/auth-fakes.ts"
import { account } from "../machines/scan-fakes.ts"
import { defaultWorld, renderScan, settle } from "./scan-render.tsx"

afterEach(cleanup)

const renderDashboard = (options: Partial<Parameters<typeof renderScan>[1]> = {}) =>
  renderScan("/dashboard", { pattern: "/dashboard", screen: <DashboardScreen />, ...options })

const press = async (element: HTMLElement) => {
  fireEvent.click(element)
  await settle()
}

const type = async (label: RegExp, value: string) => {
  fireEvent.change(screen.getByLabelText(label), { target: { value } })
  await settle()
}

describe("dashboard", () => {
  it("shows a card per account with the spec's badges, one accounts call per enabled provider", async () => {
    const { called } = await renderDashboard()
    expect(called("loadAccounts").map((c) => c.payload)).toEqual([{ cloud_provider_id: 1 }])
    const production = screen.getByRole("article", { name: "Production" })
    expect(within(production).getByText("3 failed checks")).toBeTruthy()
    expect(within(screen.getByRole("article", { name: "Staging" })).getByText("No Issues")).toBeTruthy()
    expect(within(screen.getByRole("article", { name: "Sandbox" })).getByText("Failed")).toBeTruthy()
    expect(screen.getByText("Add more providers")).toBeTruthy()
  })

  it("selecting a card opens the account page", async () => {
    const { currentUrl } = await renderDashboard()
    await press(screen.getByRole("button", { name: /^Production AWS/ }))
    expect(currentUrl()).toBe("/dashboard/accounts/1")
  })

  it("a member retired from its organisation: its card says it is no longer scanned instead of offering Launch scan (issue 31)", async () => {
    const world = defaultWorld()
    world.accounts = [
      ...world.accounts,
      account(5, { account_name: "Old member", organization_account_id: 7, org_unit_path: "Root / Legacy", retired_at: "2026-01-05T10:00:00.000Z" }),
    ]
    await renderDashboard({ world })
    const retired = screen.getByRole("article", { name: "Old member" })
    expect(within(retired).getByText("Retired")).toBeTruthy()
    expect(within(retired).getByText(OrganizationMessages.memberRetiredLine)).toBeTruthy()
    expect(within(retired).queryByRole("button", { name: "Launch scan" })).toBeNull()
    // Its history stays a click away, and the others still launch.
    expect(within(retired).getByRole("button", { name: /^Old member AWS/ })).toBeTruthy()
    expect(within(screen.getByRole("article", { name: "Production" })).getByRole("button", { name: "Launch scan" })).toBeTruthy()
  })

  it("without accounts: 'Connect your cloud providers'", async () => {
    const world = defaultWorld()
    world.accounts = []
    await renderDashboard({ world })
    expect(screen.getByText("Connect your cloud providers")).toBeTruthy()
  })

  it("a failed load shows the §8 text and Refresh reloads", async () => {
    let fail = true
    const world = defaultWorld()
    const { called } = await renderDashboard({
      world,
      overrides: {
        loadProviders: async () => {
          if (fail) throw httpFailure("dashboard-load", 500)
          return world.providers
        },
      },
    })
    expect(screen.getByText("We're experiencing technical difficulties. Please try again later.")).toBeTruthy()
    fail = false
    await press(screen.getAllByRole("button", { name: "Refresh" })[1]!)
    expect(screen.getByText("Production")).toBeTruthy()
    expect(called("loadAccounts")).toHaveLength(1)
  })

  it("wizard: provider → required texts → Test connection → 'Connection successful!' → OK saves, closes and refreshes", async () => {
    const { called } = await renderDashboard()
    await press(screen.getAllByRole("button", { name: "Add account" })[0]!)
    const dialog = screen.getByRole("dialog", { name: "Add cloud account" })
    expect(within(dialog).getByRole("button", { name: "GCP (coming soon)" }).hasAttribute("disabled")).toBe(true)
    await press(within(dialog).getByRole("button", { name: "AWS" }))
    await press(within(dialog).getByRole("button", { name: "Test connection" }))
    expect(within(dialog).getByText("Account name is required")).toBeTruthy()
    expect(within(dialog).getByText("Access Key ID is required")).toBeTruthy()
    expect(within(dialog).getByText("Secret Access Key is required")).toBeTruthy()
    expect(called("addAccount")).toHaveLength(0)

    await type(/^Account name/, "Audit")
    await type(/^Access Key ID/, "AKIAEXAMPLE")
    await type(/^Secret Access Key/, "secret")
    await press(within(dialog).getByRole("button", { name: "Test connection" }))
    expect(called("addAccount")[0]?.payload).toMatchObject({ account_name: "Audit", test_only: true })
    expect(within(dialog).getByText("Connection successful!")).toBeTruthy()
    await press(within(dialog).getByRole("button", { name: "OK" }))
    expect(called("addAccount")[1]?.payload).not.toHaveProperty("test_only")
    expect(screen.queryByRole("dialog")).toBeNull()
    expect(screen.getByRole("article", { name: "Audit" })).toBeTruthy()
    expect(screen.getByText("Account added successfully")).toBeTruthy()
  })

  it("wizard, GCP: a loose key is refused before any call with the contract's message; a complete key goes to the test", async () => {
    const world = defaultWorld()
    world.providers = world.providers.map((p) => ({ ...p, is_enable: true }))
    const { called } = await renderDashboard({ world })
    await press(screen.getAllByRole("button", { name: "Add account" })[0]!)
    const dialog = screen.getByRole("dialog", { name: "Add cloud account" })
    await press(within(dialog).getByRole("button", { name: "GCP" }))
    await type(/^Account name/, "Audit project")
    await type(/^Service account key/, '{"type":"service_account"}')
    await press(within(dialog).getByRole("button", { name: "Test connection" }))
    expect(within(dialog).getByText("Service account key must contain a valid client_email")).toBeTruthy()
    await type(/^Service account key/, JSON.stringify({ type: "service_account", project_id: "audit-prod-42", client_email: "scanner@audit-prod-42.iam.gserviceaccount.com", private_key: "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n", token_uri: "http://oauth2.googleapis.com/token" }))
    await press(within(dialog).getByRole("button", { name: "Test connection" }))
    expect(within(dialog).getByText("Service account key token_uri must be an https URL")).toBeTruthy()
    expect(called("addAccount")).toHaveLength(0)
    await type(/^Service account key/, JSON.stringify({ type: "service_account", project_id: "audit-prod-42", client_email: "scanner@audit-prod-42.iam.gserviceaccount.com", private_key: "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n", token_uri: "https://oauth2.googleapis.com/token" }))
    await press(within(dialog).getByRole("button", { name: "Test connection" }))
    expect(called("addAccount")[0]?.payload).toMatchObject({ cloud_provider_id: 2, account_name: "Audit project", test_only: true })
    expect(within(dialog).getByText("Connection successful!")).toBeTruthy()
  })

  it("wizard: 'Account already exists' is shown in the wizard; closing and reopening starts at step 1", async () => {
    await renderDashboard({ overrides: { addAccount: async (p) => {
      if (p.test_only === true) return { ok: true, message: "ok", data: { tested: true } }
      throw httpFailure("account-add", 409)
    } } })
    await press(screen.getAllByRole("button", { name: "Add account" })[0]!)
    await press(screen.getByRole("button", { name: "AWS" }))
    await type(/^Account name/, "Audit")
    await type(/^Access Key ID/, "AKIA")
    await type(/^Secret Access Key/, "s")
    await press(screen.getByRole("button", { name: "Test connection" }))
    await press(screen.getByRole("button", { name: "OK" }))
    expect(screen.getByText("Account already exists")).toBeTruthy()
    await press(screen.getByRole("button", { name: "Close" }))
    expect(screen.queryByRole("dialog")).toBeNull()
    await press(screen.getAllByRole("button", { name: "Add account" })[0]!)
    expect(screen.getByRole("button", { name: "AWS" })).toBeTruthy()
    expect(screen.queryByText("Account already exists")).toBeNull()
  })

  it("delete from a card asks with the spec's sentence", async () => {
    const { called } = await renderDashboard()
    await press(screen.getByRole("button", { name: "Delete Staging" }))
    const dialog = screen.getByRole("alertdialog")
    expect(
      within(dialog).getByText(
        'This will permanently delete the AWS account "Staging" and remove all scan history. This action cannot be undone.',
      ),
    ).toBeTruthy()
    await press(within(dialog).getByRole("button", { name: "Delete account" }))
    expect(called("deleteAccount").map((c) => c.payload)).toEqual([{ id: 2 }])
    expect(screen.queryByRole("article", { name: "Staging" })).toBeNull()
  })
})
