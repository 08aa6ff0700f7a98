/**
 * API keys (issue 33), in Chromium against the real product: the workspace owner opens API keys from the user menu,
 * creates a read-only key in the dialog, sees its secret once (a script then reads scans with it and is refused a
 * write), dismisses it, and revokes the key after the confirmation: the next call with it answers 401. Every screen
 * is looked at (1280 px and 390 px screenshots in e2e/artifacts/, axe).
 */
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { API_KEY_PATTERN, ApiKeyMessages } from "../../src/contracts/api-keys.ts"
import { baseUrl, look, newPerson, signIn, signUpAndVerifyViaApi, waitForPath, type Person } from "../support/access.ts"
import { launchBrowser, newPage } from "../support/browser.ts"

let browser: Browser
const owner: Person = newPerson("apikeysowner")

beforeAll(async () => {
  browser = await launchBrowser()
  await signUpAndVerifyViaApi(owner)
})

afterAll(async () => {
  await browser?.close()
})

const withKey = (secret: string, path: string, init: RequestInit = {}) =>
  fetch(`${baseUrl()}${path}`, { ...init, headers: { "x-api-key": secret, "content-type": "application/json", ...(init.headers ?? {}) } })

describe("API keys", () => {
  it("a member creates a read-only key, sees its secret once, and revokes it", async () => {
    const page = await newPage(browser)
    await signIn(page, owner.email, owner.password)
    await waitForPath(page, "/dashboard")
    await page.getByRole("banner").getByRole("button").last().click()
    await page.getByRole("menu").getByRole("menuitem", { name: "API keys" }).click()
    await waitForPath(page, "/dashboard/settings/api-keys")
    await page.getByRole("heading", { level: 1, name: "API keys" }).waitFor()
    await page.getByText("No API key yet.").waitFor({ timeout: 20_000 })
    await look(page, "api-keys")

    await page.getByRole("button", { name: "Create API key" }).click()
    const dialog = page.getByRole("dialog", { name: "Create API key" })
    await dialog.getByRole("button", { name: "Create key" }).click()
    await dialog.getByText(ApiKeyMessages.nameRequired).waitFor()
    await look(page, "api-keys-create")
    await dialog.getByRole("textbox", { name: /^Name/ }).fill("CI reader")
    // Least privilege is preselected; Auditor chosen explicitly all the same.
    await dialog.getByRole("button", { name: /Role/ }).click()
    await page.getByRole("option", { name: "Auditor", exact: true }).click()
    await dialog.getByRole("button", { name: "Create key" }).click()

    const notice = page.getByRole("region", { name: "New API key secret" })
    await notice.waitFor()
    const secret = (await notice.getByLabel("API key secret").innerText()).trim()
    expect(secret).toMatch(API_KEY_PATTERN)
    await look(page, "api-keys-secret")

    // A script uses it: reads pass, writes are refused (its role is Auditor).
    expect((await withKey(secret, "/api/scans")).status).toBe(200)
    expect((await withKey(secret, "/api/mute-rules", { method: "POST", body: JSON.stringify({ reason: "nope" }) })).status).toBe(403)

    await notice.getByRole("button", { name: "I have copied it" }).click()
    await notice.waitFor({ state: "detached" })
    expect(await page.getByText(secret).count()).toBe(0)
    const card = page.getByRole("listitem", { name: "CI reader" })
    await card.getByText(`ca_live_…${secret.slice(-4)}`).waitFor()

    await card.getByRole("button", { name: "Revoke" }).click()
    const confirm = page.getByRole("alertdialog", { name: "Revoke API key" })
    await confirm.waitFor()
    await look(page, "api-keys-revoke")
    await confirm.getByRole("button", { name: "Revoke key" }).click()
    await page.getByText(ApiKeyMessages.revoked).first().waitFor()
    await card.getByText("Revoked").first().waitFor()
    await look(page, "api-keys-revoked")

    const refused = await withKey(secret, "/api/scans")
    expect(refused.status).toBe(401)
    expect(((await refused.json()) as { message: string }).message).toBe(ApiKeyMessages.revokedKey)
    await page.close()
  })
})
