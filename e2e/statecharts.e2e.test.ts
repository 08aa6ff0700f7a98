// The statechart site on the real product, in Chromium: the API reference links to it, the index at /docs/statecharts
// lists the machines by area, its link leads to the session machine's page, whose diagram (an SVG laid out at build
// time) loads and whose tables explain every state and event — all under the strict Content-Security-Policy without a
// single violation. Screenshots: e2e/artifacts/statecharts-index.png and e2e/artifacts/statecharts-session.png.
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { launchBrowser, newPage, shot } from "./support/browser.ts"

const baseUrl = inject("baseUrl")
let browser: Browser

beforeAll(async () => { browser = await launchBrowser() })
afterAll(async () => { await browser?.close() })

/** Every CSP violation the page reports (DOM event) and every CSP complaint on the console. */
const watch = async (page: Page) => {
  const seen: Array<string> = []
  await page.exposeFunction("__cspViolation", (v: string) => { seen.push(v) })
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      void (window as unknown as { __cspViolation: (v: string) => void }).__cspViolation(
        `${location.pathname}: ${e.effectiveDirective} blocked ${e.blockedURI} ${e.sample}`,
      )
    })
  })
  page.on("console", (m) => {
    if (/Content Security Policy|Trusted Type/i.test(m.text())) seen.push(`${new URL(page.url()).pathname}: ${m.text()}`)
  })
  return seen
}

describe("statechart site", () => {
  it("is linked from the API reference", async () => {
    const res = await fetch(`${baseUrl}/api/docs`)
    expect(await res.text()).toContain('<a href="/docs/statecharts/">Statecharts of the web app</a>')
  })

  it("opens at /docs/statecharts and leads to the session machine's page, which renders under the CSP", async () => {
    const page = await newPage(browser, 1920, 1080)
    const violations = await watch(page)

    await page.goto(`${baseUrl}/docs/statecharts`)
    expect(new URL(page.url()).pathname).toBe("/docs/statecharts/")
    await page.getByRole("heading", { level: 1, name: "Statecharts of the web app" }).waitFor()
    for (const area of ["Access and identity", "Workspaces", "Team", "Posture", "Compliance", "Shell"]) {
      await expect(page.getByRole("heading", { level: 2, name: area }).count()).resolves.toBe(1)
    }
    // The stylesheet applied (no inline style is allowed, so this proves site.css loaded).
    expect(await page.locator("header.top").evaluate((el) => getComputedStyle(el).backgroundColor)).toBe("rgb(15, 23, 42)")
    await shot(page, "statecharts-index")

    await page.getByRole("link", { name: "session", exact: true }).click()
    await page.waitForURL(/\/docs\/statecharts\/session\.html$/)
    await page.getByRole("heading", { level: 1, name: "session" }).waitFor()

    // The diagram: the SVG loaded and has a box per state.
    const diagram = page.getByRole("img", { name: /^Statechart of session/ })
    await diagram.waitFor()
    expect(await diagram.evaluate((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0)).toBe(true)
    const svg = await (await fetch(`${baseUrl}/docs/statecharts/session.svg`)).text()
    for (const state of ["restoring", "signedOut", "signingIn.loadingUser", "authenticated.ready", "signingOut"]) {
      expect(svg, state).toContain(`data-state="${state}"`)
      await expect(page.locator(`tr[id="state-${state}"]`).count()).resolves.toBe(1)
    }
    // States explained in words, events with their transitions, effects and the coverage.
    await page.getByText("The user could not be loaded (network, server): the gate offers a retry.").first().waitFor()
    await page.getByRole("rowheader", { name: "session.logoutRequested" }).waitFor()
    await page.getByText(/invokes fetchUser/).first().waitFor()
    await page.getByText(/Model-based test coverage: \d+ \/ \d+ edges driven/).waitFor()

    await page.waitForLoadState("networkidle")
    expect(violations).toEqual([])
    await shot(page, "statecharts-session")
    await page.context().close()
  })
})
