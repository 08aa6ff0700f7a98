/**
 * Integrations (issue 33 parts 5 and 6), in Chromium against the real product: the workspace owner opens Integrations
 * from the user menu, is told what a Jira connection needs (the contract's messages beside the fields), saves one (the
 * token is never shown again and the API answers `token_set` only), turns the Security Hub export on for the moto
 * account (refused without a region, then saved), and sees the Jira panel on a finding's page. Every screen is looked
 * at (1280 px and 390 px screenshots in e2e/artifacts/, axe).
 */
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { JiraMessages } from "../../src/contracts/jira.ts"
import { SecurityHubMessages } from "../../src/contracts/security-hub.ts"
import { apiAs, lookFromTop, newPerson, type Person, signIn, signUpAndVerifyViaApi, waitForPath } from "../support/access.ts"
import { launchBrowser, newPage } from "../support/browser.ts"
import { addMotoAccount } from "../support/scans.ts"

let browser: Browser
const owner: Person = newPerson("integrationsowner")

beforeAll(async () => {
  browser = await launchBrowser()
  await signUpAndVerifyViaApi(owner)
})

afterAll(async () => {
  await browser?.close()
})

const api = apiAs(owner)

describe("integrations", () => {
  it("an admin connects Jira, turns the Security Hub export on, and sees the Jira panel of a finding", async () => {
    const accountId = await addMotoAccount(api, "Moto Integrations")
    const me = await api<{ data: { id: number } }>("/api/user-info")
    const started = await api<{ data: { id: number } }>("/api/scans", {
      method: "POST",
      body: JSON.stringify({ user_id: me.data.id, account_id: accountId, cloud_provider_id: 1, cloud_provider_name: "aws", regions: ["us-east-1"], services: ["s3"] }),
    })

    const page = await newPage(browser)
    await signIn(page, owner.email, owner.password)
    await waitForPath(page, "/dashboard")
    await page.getByRole("banner").getByRole("button").last().click()
    await page.getByRole("menu").getByRole("menuitem", { name: "Integrations" }).click()
    await waitForPath(page, "/dashboard/settings/integrations")
    await page.getByRole("heading", { level: 1, name: "Integrations" }).waitFor()
    const form = page.getByRole("form", { name: "Jira connection" })
    await form.getByLabel("Jira site").waitFor({ timeout: 20_000 })
    await lookFromTop(page, "integrations")

    // The contract's messages beside the fields, nothing saved.
    await form.getByRole("button", { name: "Save Jira connection" }).click()
    await form.getByText(JiraMessages.tokenRequired).waitFor()
    await form.getByText(JiraMessages.siteUrlInvalid).waitFor()
    await lookFromTop(page, "integrations-invalid")

    await form.getByLabel("Jira site").fill("https://acme.atlassian.net")
    await form.getByLabel("Account email").fill("bot@acme.io")
    await form.getByLabel("API token").fill("secret-token-e2e")
    await form.getByLabel("Project key").fill("SEC")
    await form.getByLabel("Labels").fill("security, audit")
    await form.getByRole("button", { name: "Save Jira connection" }).click()
    await page.getByText(JiraMessages.connectionSaved).first().waitFor()
    expect(await form.getByLabel("API token").inputValue()).toBe("")
    const saved = await api<{ data: { token_set: boolean; labels: Array<string> } }>("/api/integrations/jira")
    expect(saved.data).toMatchObject({ token_set: true, labels: ["security", "audit"] })
    expect(JSON.stringify(saved)).not.toContain("secret-token-e2e")

    // Security Hub for the moto account: refused without a region, then saved.
    const hub = page.getByRole("region", { name: "Security Hub export of Moto Integrations" })
    await hub.getByText("Send findings to Security Hub after each scan").click()
    await hub.getByRole("button", { name: "Save" }).click()
    await hub.getByText(SecurityHubMessages.regionRequired).waitFor()
    await hub.getByLabel("Regions").fill("us-east-1")
    await hub.getByRole("button", { name: "Save" }).click()
    await page.getByText(SecurityHubMessages.settingsSaved).first().waitFor()
    const accounts = await api<{ data: Array<{ account_id: number; enabled: boolean; regions: Array<string> }> }>("/api/integrations/security-hub/accounts")
    expect(accounts.data.find((a) => a.account_id === accountId)).toMatchObject({ enabled: true, regions: ["us-east-1"] })
    await lookFromTop(page, "integrations-saved")

    // A finding's page shows its Jira panel.
    for (const deadline = Date.now() + 180_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 500))) {
      const scan = await api<{ data: { status: string } }>(`/api/scans/${started.data.id}`)
      if (scan.data.status !== "pending" && scan.data.status !== "running") break
    }
    const findings = await api<{ data: Array<{ id: number; check_id: string }> }>(`/api/findings?scan_id=${started.data.id}&page_size=100`)
    const finding = findings.data.find((f) => f.check_id === "s3_bucket_versioning_enabled") ?? findings.data[0]!
    await page.goto(`${new URL(page.url()).origin}/dashboard/scans/${started.data.id}/findings/${finding.id}`)
    await page.getByRole("heading", { name: "Jira" }).waitFor({ timeout: 20_000 })
    await page.getByText("No Jira issue yet.").waitFor()
    await lookFromTop(page, "finding-jira-panel")
    await page.close()
  })
})
