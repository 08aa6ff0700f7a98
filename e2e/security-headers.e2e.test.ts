// Browser defences on the real product: every page of the SPA (public, verification, signed in) and the API reference
// run under the strict Content-Security-Policy without a single violation reported by Chromium, and the answers carry
// the other security headers. A violation (an inline script, a style attribute in markup, a string handed to a DOM sink
// under Trusted Types, a request to another origin) fails the test with the directive and the blocked resource.
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { newPerson, signIn, signUpAndVerifyViaApi } from "./support/access.ts"
import { launchBrowser, newPage } from "./support/browser.ts"

const baseUrl = inject("baseUrl")
let browser: Browser

beforeAll(async () => { browser = await launchBrowser() })
afterAll(async () => { await browser?.close() })

interface Violation { readonly page: string; readonly directive: string; readonly blocked: string; readonly sample: string; readonly source: string }

/** Records every CSP violation the page reports (DOM event) and every CSP complaint on the console. */
const watch = async (page: Page) => {
  const violations: Array<Violation> = []
  const console: Array<string> = []
  await page.exposeFunction("__cspViolation", (v: Violation) => { violations.push(v) })
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      void (window as unknown as { __cspViolation: (v: unknown) => void }).__cspViolation({
        page: location.pathname, directive: e.effectiveDirective, blocked: e.blockedURI, sample: e.sample,
        source: `${e.sourceFile}:${e.lineNumber}:${e.columnNumber}`,
      })
    })
  })
  page.on("console", (m) => {
    const text = m.text()
    if (/Content Security Policy|Trusted Type/i.test(text)) console.push(`${new URL(page.url()).pathname}: ${text}`)
  })
  return { violations, console }
}

/**
 * Lets the page finish its requests. A page that keeps a request open (the API reference under load) is given 15 s and
 * then read as it is: violations are collected by events as they happen, so waiting longer only delays the assertion.
 */
const settle = (page: Page) =>
  page.waitForLoadState("networkidle", { timeout: 15_000 }).catch(() => undefined).then(() => page.waitForTimeout(300))

describe("Content-Security-Policy in Chromium", () => {
  it("reports no violation on the public pages", async () => {
    const page = await newPage(browser)
    const seen = await watch(page)
    for (const path of ["/login", "/signup", "/reset-password?token=abc", "/verification-pending", "/verify-email?token=x&email=a%40b.c", "/no/such/page"]) {
      await page.goto(`${baseUrl}${path}`)
      await settle(page)
    }
    await page.getByRole("heading", { level: 1 }).first().waitFor()
    expect(seen.violations).toEqual([])
    expect(seen.console).toEqual([])
    await page.context().close()
  })

  it("reports no violation on the signed-in pages", async () => {
    const person = newPerson("csp")
    await signUpAndVerifyViaApi(person)
    const page = await newPage(browser)
    const seen = await watch(page)
    await signIn(page, person.email, person.password)
    for (const path of ["/dashboard", "/dashboard/scans", "/dashboard/users", "/dashboard/profile"]) {
      await page.goto(`${baseUrl}${path}`)
      await settle(page)
    }
    // A dialog (portal, focus trap, overlay styles) under the policy too.
    await page.goto(`${baseUrl}/dashboard/users`)
    await settle(page)
    const invite = page.getByRole("button", { name: /Invite/ }).first()
    if (await invite.count() > 0) {
      await invite.click()
      await page.getByRole("dialog").waitFor()
      await settle(page)
    }
    expect(seen.violations).toEqual([])
    expect(seen.console).toEqual([])
    await page.context().close()
  })

  it("reports no violation on the API reference, which renders the operations", async () => {
    const page = await newPage(browser)
    const seen = await watch(page)
    await page.goto(`${baseUrl}/api/docs`)
    await page.getByText("/api/login").first().waitFor({ timeout: 30_000 })
    await settle(page)
    expect(seen.violations, JSON.stringify(seen.violations, null, 1).slice(0, 3000)).toEqual([])
    expect(seen.console).toEqual([])
    await page.context().close()
  })

  it("blocks a <style> without the page's nonce on the API reference (no style-src 'unsafe-inline')", async () => {
    const page = await newPage(browser)
    const seen = await watch(page)
    await page.goto(`${baseUrl}/api/docs`)
    await page.getByText("/api/login").first().waitFor({ timeout: 30_000 })
    const outline = await page.evaluate(() => {
      document.body.insertAdjacentHTML("beforeend", "<style>body { outline: 7px solid red }</style>")
      return getComputedStyle(document.body).outlineWidth
    })
    await page.waitForTimeout(200)
    expect(outline).not.toBe("7px")
    expect(seen.violations.some((v) => v.directive.startsWith("style-src"))).toBe(true)
    await page.context().close()
  })

  it("blocks an injected inline script (the policy is enforced, not only sent)", async () => {
    const page = await newPage(browser)
    const seen = await watch(page)
    await page.goto(`${baseUrl}/login`)
    await settle(page)
    const ran = await page.evaluate(() => {
      const s = document.createElement("script")
      s.textContent = "window.__injected = true"
      document.body.appendChild(s)
      return (window as unknown as { __injected?: boolean }).__injected === true
    }).catch(() => false)
    await page.waitForTimeout(200)
    expect(ran).toBe(false)
    expect(seen.violations.length + seen.console.length).toBeGreaterThan(0)
    await page.context().close()
  })

  it("sends the security headers on the SPA, the API and the API reference", async () => {
    for (const path of ["/login", "/api/health", "/api/docs", "/api/no-such-endpoint"]) {
      const r = await fetch(`${baseUrl}${path}`, { headers: { accept: "text/html" } })
      const csp = r.headers.get("content-security-policy") ?? ""
      expect(csp, path).toContain("frame-ancestors 'none'")
      expect(csp, path).toContain("object-src 'none'")
      expect(csp, path).toContain("base-uri 'none'")
      expect(csp, path).not.toContain("'unsafe-eval'")
      expect(csp.match(/script-src[^;]*/)?.[0] ?? "", path).not.toContain("unsafe-inline")
      // No inline style by 'unsafe-inline' anywhere, the API reference included (its <style> elements carry a nonce).
      expect(csp.match(/style-src[^;]*/)?.[0] ?? "", path).not.toContain("unsafe-inline")
      expect(r.headers.get("permissions-policy"), path).toContain("camera=()")
      if (path.startsWith("/api/")) expect(r.headers.get("cache-control"), path).toBe("no-store")
      expect(r.headers.get("x-content-type-options"), path).toBe("nosniff")
      expect(r.headers.get("referrer-policy"), path).toBe("no-referrer")
      expect(r.headers.get("x-frame-options"), path).toBe("DENY")
    }
  })
})
