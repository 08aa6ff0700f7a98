/**
 * Profile Settings journeys in Chromium against the real product: a profile update through the 'Confirm profile
 * update' dialog (old → new per field), and a password change through 'Confirm password change', proven by signing in
 * again with the new password. Screens are photographed at 1280 px and 390 px and checked with axe.
 */
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest"
import { baseUrl, fill, look, newPerson, signIn, signOut, signUpAndVerifyViaApi, waitForPath } from "../support/access.ts"
import { launchBrowser, newPage, shot } from "../support/browser.ts"

let browser: Browser

beforeAll(async () => {
  browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.close()
})

const open = async (): Promise<Page> => {
  const page = await newPage(browser, 1280)
  onTestFailed(async ({ task }) => {
    await shot(page, `failed-${task.name.replace(/[^a-z0-9]+/gi, "-").slice(0, 60)}`).catch(() => {})
  })
  return page
}

const openProfile = async (page: Page) => {
  await page.goto(`${baseUrl()}/dashboard/profile`)
  await page.getByRole("heading", { level: 1, name: "Profile Settings" }).waitFor()
  const form = page.getByRole("form", { name: "Personal information" })
  await form.waitFor()
  return form
}

describe("profile settings", () => {
  it("updates the profile through the confirmation dialog", async () => {
    const eve = newPerson("eve")
    await signUpAndVerifyViaApi(eve)
    const page = await open()
    await signIn(page, eve.email, eve.password)
    await waitForPath(page, "/dashboard")
    const form = await openProfile(page)
    expect(await form.getByLabel("First name", { exact: true }).inputValue()).toBe(eve.firstName)
    const save = form.getByRole("button", { name: "Save changes" })
    expect(await save.isDisabled()).toBe(true)
    await look(page, "profile")

    await form.getByLabel("First name", { exact: true }).fill("Evelyn")
    await page.getByText("You have unsaved changes.").waitFor()
    expect(await save.isEnabled()).toBe(true)
    await save.click()
    const dialog = page.getByRole("dialog", { name: "Confirm profile update" })
    await dialog.waitFor()
    const changes = dialog.getByRole("list", { name: "Changed fields" })
    expect(await changes.getByRole("listitem").count()).toBe(1)
    const change = await changes.getByRole("listitem").first().textContent()
    expect(change).toContain("First Name")
    expect(change).toContain(eve.firstName)
    expect(change).toContain("Evelyn")
    await look(page, "profile-confirm")
    await dialog.getByRole("button", { name: "Update profile" }).click()
    await page.getByText("Profile updated successfully").first().waitFor()
    await dialog.waitFor({ state: "detached" })
    expect(await save.isDisabled()).toBe(true)

    // The server kept it: a fresh load shows the new name.
    await page.reload()
    const reloaded = await openProfile(page)
    await expect.poll(() => reloaded.getByLabel("First name", { exact: true }).inputValue()).toBe("Evelyn")
  })

  it("changes the password through the confirmation dialog; the new password signs in", async () => {
    const fay = newPerson("fay")
    await signUpAndVerifyViaApi(fay)
    const page = await open()
    await signIn(page, fay.email, fay.password)
    await waitForPath(page, "/dashboard")
    await openProfile(page)
    const form = page.getByRole("form", { name: "Change password" })
    const newPassword = "Another-Secret-42"
    await form.getByLabel("Current password", { exact: true }).fill(fay.password)
    await form.getByLabel("New password", { exact: true }).fill(newPassword)
    await form.getByLabel("Confirm new password", { exact: true }).fill(newPassword)
    await form.getByRole("button", { name: "Update password" }).click()
    const dialog = page.getByRole("dialog", { name: "Confirm password change" })
    await dialog.waitFor()
    expect(await dialog.getByText("Your password will be updated immediately.").count()).toBe(1)
    await look(page, "password-confirm")
    await dialog.getByRole("button", { name: "Change password" }).click()
    await page.getByText("Password updated successfully").first().waitFor()
    await dialog.waitFor({ state: "detached" })
    // Forms reset after success.
    expect(await form.getByLabel("Current password", { exact: true }).inputValue()).toBe("")

    await signOut(page)
    await fill(page, "Email", fay.email)
    await fill(page, "Password", fay.password)
    await page.getByRole("button", { name: "Sign in", exact: true }).click()
    await page.getByRole("alert").filter({ hasText: "Invalid email or password" }).waitFor()
    await signIn(page, fay.email, newPassword)
    await waitForPath(page, "/dashboard")
  })
})
