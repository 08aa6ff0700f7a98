/**
 * Screens fit (issue 28 item 6), in Chromium against the real product with moto as the AWS account: every main screen
 * at 1280 px and at 390 px, after every spinner is gone —
 *   - axe: no serious or critical violation (contrast included), and react-aria's announcement region holds no
 *     `role="img"` left behind by a pending button;
 *   - at 1280 px: every table's row actions lie inside the viewport and no table scrolls sideways;
 *   - at 390 px: the document does not scroll sideways and no element sticks out of the viewport (outside a container
 *     that scrolls or clips on purpose), so every row is reachable;
 * plus the statechart site (/docs/statecharts) at both widths, and the screens' small promises: requirement ids are
 * links, the schedule's next run names its time zone, a scan that does not exist offers no "Refresh", the empty
 * compliance page offers "Add account", resource history leads back to the finding. Screenshots of every screen at
 * both widths: e2e/artifacts/fit-<screen>-desktop.png / -mobile.png.
 */
import type { Browser, Page } from "playwright-core"
import { CreateBucketCommand, DeleteBucketCommand, S3Client } from "@aws-sdk/client-s3"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { axeViolations } from "../support/axe.ts"
import { baseUrl, newPerson, signIn, signUpAndVerifyViaApi, type Person } from "../support/access.ts"
import { launchBrowser, newPage, shot } from "../support/browser.ts"

const MOTO_KEYS = { access: "AKIAIOSFODNN7EXAMPLE", secret: "moto-secret-key" }
// A long bucket name: its ARN must wrap, not push the row's actions off-screen.
const BUCKET = `screens-fit-a-rather-long-bucket-name-${Date.now().toString(36)}`

let browser: Browser
const owner: Person = newPerson("fitowner")
const newcomer: Person = newPerson("fitnewcomer")
const found = { token: "", workspaceId: 0, accountId: 0, scanId: 0, findingId: 0, resourceUid: "" }

const api = async <T = any,>(path: string, init: RequestInit = {}): Promise<T> => {
  const r = await fetch(`${baseUrl()}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${found.token}`, "x-workspace-id": String(found.workspaceId), "content-type": "application/json" },
  })
  const text = await r.text()
  expect(r.status, `${path}: ${text}`).toBeLessThan(300)
  return JSON.parse(text) as T
}

const s3 = () =>
  new S3Client({
    endpoint: inject("motoEndpoint"),
    region: "us-east-1",
    credentials: { accessKeyId: MOTO_KEYS.access, secretAccessKey: MOTO_KEYS.secret },
    forcePathStyle: true,
  })

beforeAll(async () => {
  browser = await launchBrowser()
  await signUpAndVerifyViaApi(owner)
  await signUpAndVerifyViaApi(newcomer)
  await s3().send(new CreateBucketCommand({ Bucket: BUCKET }))
  const login = await (await fetch(`${baseUrl()}/api/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: owner.email, password: owner.password }),
  })).json() as { access_token: string }
  found.token = login.access_token
  const workspaces = await (await fetch(`${baseUrl()}/api/workspaces`, { headers: { authorization: `Bearer ${found.token}` } })).json() as { data: Array<{ workspace_id: number }> }
  found.workspaceId = workspaces.data[0]!.workspace_id
  const account = await api<{ data: { account: { id: number } } }>("/api/accounts", {
    method: "POST",
    body: JSON.stringify({ cloud_provider_id: 1, account_name: "Fitting account", is_organization: false, credentials: { access_key: MOTO_KEYS.access, secret_key: MOTO_KEYS.secret } }),
  })
  found.accountId = account.data.account.id
  // A daily schedule in a named zone (the account page shows its next run with the zone), scoped to a few services.
  await api(`/api/accounts/${found.accountId}/schedule`, {
    method: "PUT",
    body: JSON.stringify({ frequency: "daily", time_of_day: "02:00", timezone: "Europe/Paris", regions: ["us-east-1"], services: ["iam", "s3", "account"] }),
  })
  const me = await api<{ data: { id: number } }>("/api/user-info")
  const started = await api<{ data: { id: number } }>("/api/scans", {
    method: "POST",
    body: JSON.stringify({ user_id: me.data.id, account_id: found.accountId, cloud_provider_id: 1, cloud_provider_name: "aws" }),
  })
  found.scanId = started.data.id
  const deadline = Date.now() + 200_000
  for (;;) {
    const scan = await api<{ data: { status: string } }>(`/api/scans/${found.scanId}`)
    if (scan.data.status === "completed") break
    expect(scan.data.status).not.toBe("failed")
    if (Date.now() > deadline) throw new Error(`scan ${found.scanId} still ${scan.data.status}`)
    await new Promise((r) => setTimeout(r, 500))
  }
  const findings = await api<{ data: Array<{ id: number; check_id: string }> }>(`/api/findings?scan_id=${found.scanId}&page_size=100&service=s3`)
  const secure = findings.data.find((f) => f.check_id === "s3_bucket_secure_transport_policy")
  expect(secure, "the S3 secure transport finding").toBeDefined()
  found.findingId = secure!.id
  const detail = await api<{ data: { details: Array<Record<string, unknown>> } }>(`/api/findings/${found.findingId}?details_q=${encodeURIComponent(BUCKET)}`)
  found.resourceUid = String(detail.data.details.find((d) => String(d["resource_id"] ?? "").includes(BUCKET))?.["resource_uid"] ?? "")
  // A pending invitation: the team page shows both of its tables with row actions.
  await api("/api/admin/users/invite", { method: "POST", body: JSON.stringify({ invitations: [{ email: `fit-${Date.now()}@example.com`, role_id: 3, is_custom_role: false }] }) })
}, 300_000)

afterAll(async () => {
  await s3().send(new DeleteBucketCommand({ Bucket: BUCKET })).catch(() => {})
  await browser?.close()
})

/** Waits until no spinner (indeterminate progress bar) or busy region is left on the screen. */
const spinnersGone = async (page: Page): Promise<void> => {
  await page.waitForLoadState("networkidle").catch(() => {})
  await page.waitForFunction(
    () => document.querySelectorAll('[role="progressbar"]:not([aria-valuenow]), [aria-busy="true"]').length === 0,
    undefined,
    { timeout: 30_000 },
  )
  // Layout transitions (the sidebar after a resize) have ended; endless ones (a spinner) do not count.
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== "running" || a.effect?.getTiming().iterations === Infinity), undefined, { timeout: 10_000 })
  await page.waitForTimeout(250)
}

/** Nothing left in react-aria's announcement region that names an element by reference (a stale role="img"). */
const announcerClean = (page: Page) =>
  page.evaluate(() => [...document.querySelectorAll("[data-live-announcer] [role='img'], [data-live-announcer] [aria-labelledby]")].map((n) => n.outerHTML))

/**
 * Elements sticking out of the viewport sideways, unless a container that itself lies inside the viewport clips or
 * scrolls them (a table scrolling in its card is reachable; a card wider than the screen is not).
 */
const overflowing = (page: Page) =>
  page.evaluate(() => {
    const width = window.innerWidth
    const inView = (r: DOMRect) => r.right <= width + 1 && r.left >= -1
    const contained = (el: Element): boolean => {
      for (let p = el.parentElement; p !== null && p !== document.body && p !== document.documentElement; p = p.parentElement) {
        const s = getComputedStyle(p)
        if (s.position === "fixed") return true
        if (s.overflowX !== "visible" && inView(p.getBoundingClientRect())) return true
      }
      return false
    }
    const out: string[] = []
    for (const el of document.body.querySelectorAll("*")) {
      const r = el.getBoundingClientRect()
      if (r.width === 0 || r.height === 0 || inView(r)) continue
      if (getComputedStyle(el).position === "fixed" || contained(el)) continue
      out.push(`${el.tagName.toLowerCase()}.${String(el.className).slice(0, 60)} [${Math.round(r.left)}–${Math.round(r.right)}] ${(el.textContent ?? "").trim().slice(0, 60)}`)
    }
    return { scrollWidth: document.documentElement.scrollWidth, width, out: out.slice(0, 10) }
  })

/** Every visible table: its scroll container does not scroll sideways and each row's controls lie in the viewport. */
const rowActions = (page: Page) =>
  page.evaluate(() => {
    const width = window.innerWidth
    const problems: string[] = []
    let rows = 0
    for (const table of document.querySelectorAll("table")) {
      const box = table.getBoundingClientRect()
      if (box.width <= 1 || box.height <= 1) continue
      const label = table.getAttribute("aria-label") ?? "table"
      for (let p = table.parentElement; p !== null && p !== document.body; p = p.parentElement) {
        const s = getComputedStyle(p)
        if ((s.overflowX === "auto" || s.overflowX === "scroll") && p.scrollWidth > p.clientWidth + 1) {
          problems.push(`${label}: scrolls sideways (${p.scrollWidth} > ${p.clientWidth})`)
        }
      }
      for (const row of table.querySelectorAll("tbody tr")) {
        rows += 1
        for (const control of row.querySelectorAll("a, button")) {
          const r = control.getBoundingClientRect()
          if (r.width === 0) continue
          if (r.left < 0 || r.right > width) problems.push(`${label}: "${(control.textContent ?? "").trim()}" at ${Math.round(r.left)}–${Math.round(r.right)}`)
        }
      }
    }
    return { rows, problems }
  })

/** The screen as it is now at 1280 px and at 390 px: screenshots, axe, the announcer, row actions, overflow. */
const fits = async (page: Page, name: string, options: { tables?: boolean } = {}): Promise<void> => {
  await page.setViewportSize({ width: 1280, height: 800 })
  await spinnersGone(page)
  await shot(page, `fit-${name}-desktop`)
  // Soft: one run reports every screen's problems.
  expect.soft(await axeViolations(page), `axe on ${name} at 1280 px`).toEqual([])
  expect.soft(await announcerClean(page), `${name}: announcement region`).toEqual([])
  const actions = await rowActions(page)
  expect.soft(actions.problems, `${name} at 1280 px: row actions`).toEqual([])
  if (options.tables === true) expect.soft(actions.rows, `${name}: table rows at 1280 px`).toBeGreaterThan(0)
  const wide = await overflowing(page)
  expect.soft(wide.scrollWidth, `${name} at 1280 px: document width`).toBeLessThanOrEqual(wide.width)
  await page.setViewportSize({ width: 390, height: 844 })
  await spinnersGone(page)
  await shot(page, `fit-${name}-mobile`)
  expect.soft(await axeViolations(page), `axe on ${name} at 390 px`).toEqual([])
  const narrow = await overflowing(page)
  expect.soft(narrow.out, `${name} at 390 px: elements beyond the viewport`).toEqual([])
  expect.soft(narrow.scrollWidth, `${name} at 390 px: document width`).toBeLessThanOrEqual(narrow.width)
  await page.setViewportSize({ width: 1280, height: 800 })
  await spinnersGone(page)
}

const open = async (page: Page, path: string, ready: (page: Page) => Promise<unknown>) => {
  await page.goto(`${baseUrl()}${path}`)
  await ready(page)
}

describe("screens fit at 1280 px and 390 px", () => {
  it("every main screen: axe, row actions in view, no sideways overflow", async () => {
    const page = await newPage(browser)
    await signIn(page, owner.email, owner.password)
    const h1 = (name: string | RegExp) => (p: Page) => p.getByRole("heading", { level: 1, name }).waitFor({ timeout: 30_000 })

    await open(page, "/dashboard", (p) => p.getByText("Fitting account").first().waitFor({ timeout: 30_000 }))
    await fits(page, "dashboard")

    await open(page, `/dashboard/accounts/${found.accountId}`, h1("Fitting account"))
    // A pending button (Refresh, focused while it spins) is announced; once its spinner is gone the announcement region
    // holds the words, not a role="img" pointing at a spinner that no longer exists.
    await page.getByRole("button", { name: "Refresh" }).click()
    await spinnersGone(page)
    await page.waitForTimeout(300)
    expect(await page.evaluate(() => document.querySelector("[data-live-announcer]")?.textContent ?? ""), "the refresh was announced").not.toBe("")
    expect(await announcerClean(page), "announcement region after a spinner").toEqual([])
    await fits(page, "account")
    // The schedule's time zone is picked from a searchable list.
    const scheduleCard = page.getByRole("region", { name: "Scan schedule" })
    await scheduleCard.getByRole("button", { name: "Edit" }).click()
    const zone = scheduleCard.getByRole("combobox", { name: "Time zone" })
    expect(await zone.inputValue()).toBe("Europe/Paris")
    // The field sits at the bottom of the viewport: centre it first, so the list opens below it without the page
    // scrolling (a scroll closes an open list, and the option then vanished before the click: a flaky failure).
    await zone.evaluate((el) => el.scrollIntoView({ block: "center" }))
    const newYork = page.getByRole("option", { name: "America/New_York" })
    await zone.fill("new york")
    await newYork.waitFor()
    // The viewport only: a full-page shot resizes the page, which closes the list.
    await page.screenshot({ path: "e2e/artifacts/fit-schedule-zone-search-desktop.png" })
    // If the list closed meanwhile (the screenshot, a late layout shift), typing opens it again.
    for (let attempt = 0; attempt < 3 && !(await newYork.isVisible()); attempt++) {
      await zone.fill("")
      await zone.fill("new york")
      await newYork.waitFor({ timeout: 5_000 }).catch(() => undefined)
    }
    await newYork.click()
    expect(await zone.inputValue()).toBe("America/New_York")
    // (axe after the choice: its contrast pass scrolls, which closes an open list.)
    expect.soft(await axeViolations(page), "axe on the schedule editor").toEqual([])
    await scheduleCard.getByRole("button", { name: "Cancel" }).click()
    // The schedule's next run names its time zone.
    expect.soft(await page.getByRole("region", { name: "Scan schedule" }).getByText(/^\w{3} \d{1,2}, \d{4}, 2:00 AM Europe\/Paris$/).count(), "next run with its time zone").toBe(1)

    await open(page, "/dashboard/scans", h1("Security Scans"))
    await fits(page, "scans", { tables: true })

    await open(page, `/dashboard/scans/${found.scanId}`, (p) => p.getByRole("table", { name: "Services" }).waitFor({ timeout: 30_000 }))
    await fits(page, "scan", { tables: true })

    // A screen that does not come up is a (soft) failure; the other screens are still looked at.
    const findingsUp = await open(page, `/dashboard/scans/${found.scanId}/findings?service=S3`, (p) => p.getByRole("table", { name: "Findings" }).waitFor({ timeout: 30_000 }))
      .then(() => true, async (error: unknown) => {
        await shot(page, "fit-findings-failed")
        expect.soft(String(error), "findings list did not show its table").toBe("")
        return false
      })
    if (findingsUp) await fits(page, "findings", { tables: true })

    await open(page, `/dashboard/scans/${found.scanId}/findings/${found.findingId}?service=S3`, (p) =>
      p.getByRole("table", { name: "Affected resources" }).getByText(BUCKET).first().waitFor({ timeout: 30_000 }))
    await fits(page, "finding", { tables: true })

    // Resource history → back to the finding of the scan it came from.
    expect(found.resourceUid).not.toBe("")
    await open(page, `/dashboard/accounts/${found.accountId}/resource?uid=${encodeURIComponent(found.resourceUid)}`, (p) =>
      p.getByRole("link", { name: /^Open finding s3_bucket_secure_transport_policy of scan #\d+/ }).first().waitFor({ timeout: 30_000 }))
    await fits(page, "resource-history")
    const back = page.getByRole("link", { name: new RegExp(`^Open finding s3_bucket_secure_transport_policy of scan #${found.scanId}`) }).first()
    await back.click()
    await page.waitForURL((url) => url.pathname === `/dashboard/scans/${found.scanId}/findings/${found.findingId}`, { timeout: 20_000 })
    // The finding opens on this resource's rows.
    await page.getByRole("table", { name: "Affected resources" }).getByText(BUCKET).first().waitFor({ timeout: 30_000 })
    expect(await page.getByLabel("Search resources").inputValue()).toContain(BUCKET)

    await open(page, "/dashboard/users", (p) => p.getByRole("table", { name: "Pending invitations" }).waitFor({ timeout: 30_000 }))
    await page.getByRole("table", { name: "Team members" }).getByText(owner.email).waitFor({ timeout: 30_000 })
    await fits(page, "team", { tables: true })

    await open(page, "/dashboard/profile", h1(/Profile/))
    await fits(page, "profile")

    await open(page, "/dashboard/storage", (p) => p.getByRole("table", { name: "Storage by account" }).waitFor({ timeout: 30_000 }))
    await fits(page, "storage", { tables: true })

    await open(page, "/dashboard/compliance", (p) => p.getByRole("heading", { level: 2, name: "Frameworks" }).waitFor({ timeout: 30_000 }))
    await fits(page, "compliance")

    await open(page, `/dashboard/compliance/scans/${found.scanId}/cis-aws-3.0.0`, (p) => p.getByRole("table", { name: "Requirements" }).waitFor({ timeout: 30_000 }))
    // Requirement ids are links to their page.
    await fits(page, "compliance-framework", { tables: true })
    const idLink = page.getByRole("table", { name: "Requirements" }).getByRole("link", { name: "2.1.1", exact: true })
    expect.soft(await idLink.getAttribute("href", { timeout: 3_000 }).catch(() => null)).toBe(`/dashboard/compliance/scans/${found.scanId}/cis-aws-3.0.0/2.1.1`)

    await open(page, `/dashboard/compliance/scans/${found.scanId}/cis-aws-3.0.0/2.1.1`, (p) =>
      p.getByRole("table", { name: "Failing resources" }).getByText(BUCKET).first().waitFor({ timeout: 30_000 }))
    await fits(page, "compliance-requirement", { tables: true })

    // A scan that does not exist: said so, with a way back, and no "Refresh".
    await open(page, "/dashboard/scans/987654", (p) => p.getByText(/not found/i).first().waitFor({ timeout: 30_000 }))
    await fits(page, "scan-not-found")
    expect.soft(await page.getByRole("button", { name: /Refresh/ }).count()).toBe(0)
    await page.context().close()
  }, 300_000)

  it("the empty compliance page offers 'Add account'", async () => {
    const page = await newPage(browser)
    await signIn(page, newcomer.email, newcomer.password)
    await open(page, "/dashboard/compliance", (p) => p.getByRole("heading", { level: 1, name: "Compliance" }).waitFor({ timeout: 30_000 }))
    const add = page.getByRole("main").getByRole("link", { name: "Add account" })
    await add.waitFor({ timeout: 30_000 })
    await fits(page, "compliance-empty")
    await add.click()
    await page.getByRole("dialog").waitFor()
    await page.context().close()
  }, 120_000)

  it("the public screens fit: sign-in and sign-up", async () => {
    const page = await newPage(browser)
    await open(page, "/login", (p) => p.getByRole("heading", { level: 1, name: "Sign in" }).waitFor({ timeout: 30_000 }))
    await fits(page, "login")
    await open(page, "/signup", (p) => p.getByRole("heading", { level: 1 }).first().waitFor({ timeout: 30_000 }))
    await fits(page, "signup")
    await page.context().close()
  }, 120_000)

  it("the statechart site fits and meets AA contrast", async () => {
    const page = await newPage(browser)
    await open(page, "/docs/statecharts/", (p) => p.getByRole("heading", { level: 1, name: "Statecharts of the web app" }).waitFor())
    await fits(page, "statecharts-index")
    await open(page, "/docs/statecharts/findings-list.html", (p) => p.getByRole("heading", { level: 1, name: "findingsList" }).waitFor())
    await fits(page, "statecharts-findings-list")
    await page.context().close()
  }, 120_000)
})
