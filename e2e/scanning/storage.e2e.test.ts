/**
 * Storage and retention (issue 30), in Chromium against the real product: after a scan of the moto account, the
 * workspace owner opens Storage from the user menu, reads the figures (each with its unit), tries an invalid retention
 * setting (the field says why, nothing is saved), saves a valid one (the page and the API show it); a Member Manager
 * (every user-management permission, not all 12) gets no Storage entry and the permission gate's message on the page's
 * address, and the API refuses them with 403. Every screen is looked at (1280 px and 390 px screenshots in
 * e2e/artifacts/, axe).
 */
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { StorageMessages, type WorkspaceStorageResponse } from "../../src/contracts/storage.ts"
import { apiAs, baseUrl, lookFromTop, newPerson, PASSWORD, path, type Person, signIn, signOut, signUpAndVerifyViaApi, uniqueEmail, waitForPath } from "../support/access.ts"
import { launchBrowser, newPage } from "../support/browser.ts"
import { addMotoAccount } from "../support/scans.ts"

const ACCOUNT_NAME = "Moto Storage"
const MEMBER_MANAGER_ROLE_ID = 4

let browser: Browser
const owner: Person = newPerson("storageowner")
const manager = { email: uniqueEmail("storagemanager"), password: PASSWORD }

beforeAll(async () => {
  browser = await launchBrowser()
  await signUpAndVerifyViaApi(owner)
})

afterAll(async () => {
  await browser?.close()
})

const api = apiAs(owner)

/** A signed-in call as `who` in their first workspace, answering the status (no expectation on it). */
const statusAs = async (who: { readonly email: string; readonly password: string }, p: string): Promise<number> => {
  const login = await fetch(`${baseUrl()}/api/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: who.email, password: who.password }),
  })
  const token = ((await login.json()) as { access_token: string }).access_token
  const workspaces = (await (await fetch(`${baseUrl()}/api/workspaces`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
    data: Array<{ workspace_id: number }>
  }
  const r = await fetch(`${baseUrl()}${p}`, { headers: { authorization: `Bearer ${token}`, "x-workspace-id": String(workspaces.data[0]!.workspace_id) } })
  return r.status
}

/** A scan of the account limited to S3 in us-east-1 (quick on moto), followed to its end through the API. */
const scanOnce = async (accountId: number): Promise<number> => {
  const me = await api<{ data: { id: number } }>("/api/user-info")
  const started = await api<{ data: { id: number } }>("/api/scans", {
    method: "POST",
    body: JSON.stringify({ user_id: me.data.id, account_id: accountId, cloud_provider_id: 1, cloud_provider_name: "aws", regions: ["us-east-1"], services: ["s3"] }),
  })
  const id = started.data.id
  for (const deadline = Date.now() + 180_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 500))) {
    const scan = await api<{ data: { status: string } }>(`/api/scans/${id}`)
    if (scan.data.status !== "pending" && scan.data.status !== "running") {
      expect(scan.data.status).toBe("completed")
      return id
    }
  }
  throw new Error(`scan ${id} did not end in time`)
}

const openUserMenu = async (page: Page) => {
  await page.getByRole("banner").getByRole("button").last().click()
  return page.getByRole("menu")
}

describe("storage and retention", () => {
  it("an admin reads the figures with units and changes the retention setting; a non-admin gets the gate", async () => {
    const accountId = await addMotoAccount(api, ACCOUNT_NAME)
    await scanOnce(accountId)
    const workspaceId = (await api<{ data: Array<{ workspace_id: number }> }>("/api/workspaces")).data[0]!.workspace_id
    await api("/api/admin/users", {
      method: "POST",
      body: JSON.stringify({ first_name: "Mona", last_name: "Manager", email: manager.email, password: manager.password, role_id: MEMBER_MANAGER_ROLE_ID, is_custom_role: false }),
    })

    const page = await newPage(browser)
    await signIn(page, owner.email, owner.password)
    await waitForPath(page, "/dashboard")
    const menu = await openUserMenu(page)
    await menu.getByRole("menuitem", { name: "Storage" }).click()
    await waitForPath(page, "/dashboard/storage")
    await page.getByRole("heading", { level: 1, name: "Storage" }).waitFor()

    // Figures, each with its unit.
    const totals = page.getByRole("region", { name: "Workspace storage" })
    await totals.getByText(/^\d[\d,]* scans?$/).waitFor({ timeout: 20_000 })
    expect(await totals.getByText(/^[1-9][\d,]* scans?$/).count()).toBe(1)
    expect(await totals.getByText(/^[\d,]+ result rows?$/).count()).toBe(1)
    expect(await totals.getByText(/^[\d,]+ stored rows?$/).count()).toBe(1)
    // The size in decimal units, and the exact byte count under it.
    expect(await totals.getByText(/^\d[\d.]* (kB|MB|GB|TB)$/).count()).toBe(1)
    expect(await totals.getByText(/^\d[\d,]* bytes?$/).count()).toBe(1)
    const accounts = page.getByRole("region", { name: "Storage by account" })
    await accounts.getByText(ACCOUNT_NAME).waitFor()
    expect(await accounts.getByRole("columnheader", { name: /Size on disk/ }).getAttribute("aria-sort")).toBe("descending")
    const retention = page.getByRole("region", { name: "Retention" })
    await retention.getByText("The current setting will free").waitFor()
    await lookFromTop(page, "storage")

    // An invalid value: the field says why and nothing is saved.
    const days = retention.getByLabel("Keep scans for (days)")
    await days.fill("0")
    await retention.getByRole("button", { name: "Save retention setting" }).click()
    await retention.getByText(StorageMessages.retentionDaysInvalid).waitFor()
    expect(await days.getAttribute("aria-invalid")).toBe("true")
    const describedBy = (await days.getAttribute("aria-describedby")) ?? ""
    const described = await Promise.all(describedBy.split(" ").filter(Boolean).map((id) => page.locator(`[id="${id}"]`).textContent()))
    expect(described).toContain(StorageMessages.retentionDaysInvalid)
    const before = await api<WorkspaceStorageResponse>(`/api/workspaces/${workspaceId}/storage`)
    expect(before.data.retention).toEqual({ keep_days: null, keep_scans: null })
    await lookFromTop(page, "storage-invalid")

    // A valid setting: saved, shown, and what the API answers.
    await days.fill("30")
    await retention.getByLabel("Keep the last scans per account").fill("5")
    await retention.getByRole("button", { name: "Save retention setting" }).click()
    await page.getByText(StorageMessages.retentionSaved).first().waitFor()
    await retention.getByText("Scans that ended more than 30 days ago are removed, and only the last 5 scans of each account are kept.").waitFor()
    const after = await api<WorkspaceStorageResponse>(`/api/workspaces/${workspaceId}/storage`)
    expect(after.data.retention).toEqual({ keep_days: 30, keep_scans: 5 })
    expect(after.data.retention_updated_by).not.toBeNull()
    await lookFromTop(page, "storage-saved")

    // A Member Manager: no Storage entry, the gate's message on the address, 403 from the API.
    await signOut(page)
    await signIn(page, manager.email, manager.password)
    await waitForPath(page, "/dashboard")
    const managerMenu = await openUserMenu(page)
    await managerMenu.getByRole("menuitem", { name: "Users" }).waitFor()
    expect(await managerMenu.getByRole("menuitem", { name: "Storage" }).count()).toBe(0)
    await page.keyboard.press("Escape")
    await page.goto(`${baseUrl()}/dashboard/storage`)
    await waitForPath(page, "/dashboard")
    await page.getByRole("alert").filter({ hasText: "You do not have permission to access this page" }).waitFor()
    expect(path(page)).toBe("/dashboard")
    expect(await page.getByRole("heading", { level: 1, name: "Storage" }).count()).toBe(0)
    expect(await statusAs(manager, `/api/workspaces/${workspaceId}/storage`)).toBe(403)
    await lookFromTop(page, "storage-denied")
    await page.close()
  })
})
