/**
 * The gates' failure screens in Chromium against the real product, with the failing call answered by the browser
 * (Playwright routing) while everything else reaches the server: the user cannot be loaded (server trouble) → the
 * error with Retry; the workspace list cannot be loaded → 'Error loading workspaces' with Retry and 'Select
 * workspace'. Both recover once the server answers again. Screens are photographed at 1280 px and 390 px and
 * checked with axe.
 */
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest"
import { look, newPerson, signIn, signUpAndVerifyViaApi, waitForPath, type Person } from "../support/access.ts"
import { launchBrowser, newPage, shot } from "../support/browser.ts"

let browser: Browser
const gus: Person = newPerson("gus")

beforeAll(async () => {
  browser = await launchBrowser()
  await signUpAndVerifyViaApi(gus)
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

const serverTrouble = { status: 503, contentType: "application/json", body: JSON.stringify({ _tag: "ServerError", message: "down" }) }

describe("gate failure screens", () => {
  it("the user cannot be loaded: the error with Retry, then the page once the server answers", async () => {
    const page = await open()
    await signIn(page, gus.email, gus.password)
    await waitForPath(page, "/dashboard")
    await page.route("**/api/user-info", (route) => route.fulfill(serverTrouble))
    await page.reload()
    // The client retries server errors (1 s, 2 s, 4 s) before the gate gives up.
    await page.getByText("We could not load your account").waitFor({ timeout: 45_000 })
    expect(await page.getByText("We're experiencing technical difficulties. Please try again later.").count()).toBe(1)
    await look(page, "session-unavailable")
    await page.unroute("**/api/user-info")
    await page.getByRole("button", { name: "Retry" }).click()
    await page.getByRole("navigation", { name: "Main" }).waitFor()
    expect(new URL(page.url()).pathname).toBe("/dashboard")
  }, 90_000)

  it("the workspaces cannot be loaded: 'Error loading workspaces' with Retry and 'Select workspace'", async () => {
    const page = await open()
    await signIn(page, gus.email, gus.password)
    await waitForPath(page, "/dashboard")
    await page.route("**/api/workspaces", (route) => route.fulfill(serverTrouble))
    await page.reload()
    await page.getByText("Error loading workspaces").waitFor({ timeout: 75_000 })
    await look(page, "workspaces-error")
    await page.unroute("**/api/workspaces")
    await page.getByRole("button", { name: "Retry" }).click()
    await page.getByRole("navigation", { name: "Main" }).waitFor()

    // 'Select workspace' leads to the selection screen.
    await page.route("**/api/workspaces", (route) => route.fulfill(serverTrouble))
    await page.reload()
    await page.getByText("Error loading workspaces").waitFor({ timeout: 75_000 })
    await page.unroute("**/api/workspaces")
    await page.getByRole("button", { name: "Select workspace" }).click()
    await waitForPath(page, "/workspace-selection")
    await page.getByRole("heading", { level: 1, name: "Select a workspace" }).waitFor()
    await page.getByRole("button", { name: new RegExp(gus.workspace) }).click()
    await waitForPath(page, "/dashboard")
  }, 180_000)
})
