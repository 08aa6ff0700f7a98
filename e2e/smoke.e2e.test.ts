// The first journey of a newcomer: the product answers, "/" lands on the sign-in page, an unknown path shows the 404 page.
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { launchBrowser, newPage, shot } from "./support/browser.ts"

const baseUrl = inject("baseUrl")
let browser: Browser

beforeAll(async () => { browser = await launchBrowser() })
afterAll(async () => { await browser?.close() })

describe("smoke", () => {
  it("serves a healthy API with an OpenAPI document", async () => {
    const health = await fetch(`${baseUrl}/api/health`)
    expect(health.status).toBe(200)
    const openapi = (await (await fetch(`${baseUrl}/api/openapi.json`)).json()) as { openapi: string; paths: Record<string, unknown> }
    expect(openapi.openapi).toMatch(/^3\./)
    expect(Object.keys(openapi.paths)).toContain("/api/login")
  })

  for (const [label, width] of [["desktop", 1280], ["mobile", 390]] as const) {
    it(`opens / and lands on /login (${label})`, async () => {
      const page = await newPage(browser, width)
      await page.goto(`${baseUrl}/`)
      await page.waitForURL(/\/login$/)
      await expect(page.getByRole("heading", { level: 1 }).first().textContent()).resolves.toBeTruthy()
      await shot(page, `login-${label}`)
      await page.context().close()
    })

    it(`shows the 404 page for an unknown path (${label})`, async () => {
      const page = await newPage(browser, width)
      await page.goto(`${baseUrl}/no/such/page`)
      await page.getByText("Page Not Found").waitFor()
      expect(await page.getByText("The page you're looking for doesn't exist or has been moved.").count()).toBe(1)
      const home = page.getByRole("link", { name: "Return Home" })
      expect(await home.getAttribute("href")).toBe("/")
      await shot(page, `not-found-${label}`)
      await page.context().close()
    })
  }

  it("serves deep links to the SPA", async () => {
    const r = await fetch(`${baseUrl}/dashboard/scans/7`, { headers: { accept: "text/html" } })
    expect(r.status).toBe(200)
    expect(r.headers.get("content-type")).toMatch(/text\/html/)
  })
})
