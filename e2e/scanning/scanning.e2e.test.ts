/**
 * Scanning journeys against the real product, with moto_server as the AWS account (e2e/support/moto-setup.ts):
 * add an account through the wizard → launch a scan → watch it on the list and the detail page → open a service's
 * findings → filter → open a finding → remediate → 'View Remediated' → export CSV and JSON (file names and rows
 * checked). Then the permission tooltips for a read-only member, and the scan list's cards at 390 px.
 * Every screen is looked at (1280 px and 390 px screenshots in e2e/artifacts/, axe: no serious or critical violation).
 */
import { readFile } from "node:fs/promises"
import type { Browser, Download, Page } from "playwright-core"
import { CreateUserCommand, IAMClient } from "@aws-sdk/client-iam"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { parseCsv } from "../../tests/scanning/csv-parse.ts"
import { baseUrl, field, look, newPerson, signIn, signUpAndVerifyViaApi, type Person } from "../support/access.ts"
import { columnTexts, launchBrowser, newPage } from "../support/browser.ts"

const MOTO_KEYS = { access: "AKIAIOSFODNN7EXAMPLE", secret: "moto-secret-key" }
const ACCOUNT_NAME = "Moto Production"
const FILE_NAME = /^scan-(\d+)-findings-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z\.(csv|json)$/

let browser: Browser
const owner: Person = newPerson("scanowner")
/** Set by the journey, used by the read-only member's checks. */
const found = { scanId: 0, accountId: 0 }

beforeAll(async () => {
  browser = await launchBrowser()
  await signUpAndVerifyViaApi(owner)
})

afterAll(async () => {
  await browser?.close()
})

const api = async (token: string, path: string, init: RequestInit = {}) => {
  const workspaces = (await (await fetch(`${baseUrl()}/api/workspaces`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
    data: Array<{ workspace_id: number }>
  }
  return fetch(`${baseUrl()}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${token}`,
      "x-workspace-id": String(workspaces.data[0]!.workspace_id),
      "content-type": "application/json",
      ...(init.headers as Record<string, string> | undefined),
    },
  })
}

const tokenOf = async (email: string, password: string): Promise<string> => {
  const r = await fetch(`${baseUrl()}/api/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  })
  expect(r.status).toBe(200)
  return ((await r.json()) as { access_token: string }).access_token
}

const download = async (page: Page, format: "CSV" | "JSON"): Promise<{ name: string; text: string }> => {
  await page.getByRole("button", { name: "Export" }).click()
  const [file] = await Promise.all([
    page.waitForEvent("download", { timeout: 30_000 }) as Promise<Download>,
    page.getByRole("menuitem", { name: format, exact: true }).click(),
  ])
  const path = await file.path()
  return { name: file.suggestedFilename(), text: await readFile(path, "utf8") }
}

/** The number shown in a stat of the scan summary ('Total checks', 'Passed', 'Failed'). */
const statValue = async (page: Page, label: string): Promise<number> => {
  const text = await page.getByRole("region", { name: "Summary" }).locator("div", { has: page.getByText(label, { exact: true }) }).last().locator("dd").textContent()
  return Number(text)
}

describe("scanning journey (moto as the AWS account)", () => {
  it("add account → launch scan → progress → service findings → filter → finding → remediate → View Remediated → export", async () => {
    const page = await newPage(browser)
    await signIn(page, owner.email, owner.password)
    await page.goto(`${baseUrl()}/dashboard`)
    await page.getByRole("heading", { name: "Connect your cloud providers" }).waitFor()
    await look(page, "scan-dashboard-empty")

    // Add-account wizard: provider → required texts → Test connection → 'Connection successful!' → OK.
    await page.getByRole("button", { name: "Add account" }).first().click()
    const wizard = page.getByRole("dialog", { name: "Add cloud account" })
    await wizard.getByRole("button", { name: "AWS", exact: true }).click()
    await wizard.getByRole("button", { name: "Test connection" }).click()
    for (const text of ["Account name is required", "Access Key ID is required", "Secret Access Key is required"]) {
      await wizard.getByText(text).waitFor()
    }
    await look(page, "scan-wizard-required")
    await field(wizard, "Account name").fill(ACCOUNT_NAME)
    await field(wizard, "Access Key ID").fill(MOTO_KEYS.access)
    await field(wizard, "Secret Access Key").fill(MOTO_KEYS.secret)
    await wizard.getByRole("button", { name: "Test connection" }).click()
    await wizard.getByText("Connection successful!").waitFor({ timeout: 30_000 })
    await look(page, "scan-wizard-connected")
    await wizard.getByRole("button", { name: "OK" }).click()
    const card = page.getByRole("article", { name: ACCOUNT_NAME })
    await card.waitFor({ timeout: 30_000 })
    await page.getByRole("dialog").waitFor({ state: "detached" })
    await look(page, "scan-dashboard")

    // Account page → Launch scan.
    await card.getByRole("button", { name: new RegExp(`^${ACCOUNT_NAME}`) }).click()
    await page.getByRole("heading", { level: 1, name: ACCOUNT_NAME }).waitFor()
    found.accountId = Number(new URL(page.url()).pathname.split("/").at(-1))
    await page.getByText("No scans have been run for this account yet.").waitFor()
    await look(page, "scan-account")
    await page.getByRole("button", { name: "Launch scan", exact: true }).click()
    const launch = page.getByRole("dialog", { name: "Launch scan" })
    await launch.getByRole("button", { name: "Launch", exact: true }).waitFor()
    await look(page, "scan-launch-dialog")
    await launch.getByRole("button", { name: "Launch", exact: true }).click()
    await page.getByText("Scan started").first().waitFor({ timeout: 20_000 })
    await page.getByRole("dialog").waitFor({ state: "detached" })

    // Scan list → the scan → watch its progress until it completes.
    await page.goto(`${baseUrl()}/dashboard/scans`)
    await page.getByRole("heading", { level: 1, name: "Security Scans" }).waitFor()
    const scanLink = page.getByRole("table", { name: "Security scans" }).getByRole("link", { name: /^#\d+$/ }).first()
    await scanLink.waitFor()
    found.scanId = Number((await scanLink.textContent())!.slice(1))
    await look(page, "scan-list")
    await scanLink.click()
    await page.getByRole("heading", { level: 1, name: `Scan #${found.scanId}` }).waitFor()
    const summary = page.getByRole("region", { name: "Summary" })
    await summary.getByText("Completed", { exact: true }).waitFor({ timeout: 180_000 })
    await page.getByRole("region", { name: "Failed findings by severity" }).getByRole("listitem").first().waitFor()
    await look(page, "scan-detail")
    const total = await statValue(page, "Total checks")
    expect(total).toBeGreaterThan(0)

    // One service's findings, filtered on the client.
    await page.getByRole("button", { name: "View findings of S3", exact: true }).click()
    await page.getByRole("heading", { level: 1, name: "S3 findings" }).waitFor()
    const findings = page.getByRole("table", { name: "Findings" })
    await findings.waitFor()
    const allRows = await findings.locator("tbody tr").count()
    await page.getByRole("button", { name: "Show filters" }).click()
    await page.locator("label").filter({ hasText: /^Fail$/ }).click()
    const failRows = await findings.locator("tbody tr").count()
    expect(failRows).toBeGreaterThan(0)
    expect(failRows).toBeLessThan(allRows)
    for (const status of await columnTexts(findings, "Status")) expect(status).toBe("Fail")
    await look(page, "scan-findings-filtered")

    // A finding → Remediate → wait for the job → 'View Remediated'.
    await findings.getByRole("link", { name: "S3 account-level Block Public Access should be enabled" }).click()
    await page.getByRole("navigation", { name: "Breadcrumbs" }).waitFor()
    const crumbs = await page.getByRole("navigation", { name: "Breadcrumbs" }).getByRole("listitem").allTextContents()
    expect(crumbs.slice(0, 4)).toEqual(["Dashboard", "Scans", `Scan #${found.scanId}`, "Findings"])
    expect(crumbs[4]).toMatch(/^Finding #\d+$/)
    await look(page, "scan-finding")
    const resources = page.getByRole("table", { name: "Affected resources" })
    await resources.getByRole("button", { name: "Remediate" }).first().click()
    const confirm = page.getByRole("dialog", { name: "Remediate resource" })
    await look(page, "scan-remediate-dialog")
    await confirm.getByRole("button", { name: "Remediate", exact: true }).click()
    await page.getByText("Remediation started").first().waitFor({ timeout: 20_000 })
    await page.getByRole("dialog").getByRole("button", { name: "Close" }).last().click()
    const viewRemediated = resources.getByRole("button", { name: "View Remediated" })
    await viewRemediated.waitFor({ timeout: 90_000 })
    await viewRemediated.click()
    await page.getByRole("dialog", { name: "Remediation" }).getByText("Remediated", { exact: true }).waitFor()
    await look(page, "scan-remediated")
    await page.getByRole("dialog").getByRole("button", { name: "Close" }).last().click()

    // Export CSV and JSON from the scan: the spec's file name; every finding of the scan in the rows.
    await page.getByRole("navigation", { name: "Breadcrumbs" }).getByRole("link", { name: `Scan #${found.scanId}` }).click()
    await page.getByRole("heading", { level: 1, name: `Scan #${found.scanId}` }).waitFor()
    const csv = await download(page, "CSV")
    expect(csv.name).toMatch(FILE_NAME)
    expect(FILE_NAME.exec(csv.name)?.[1]).toBe(String(found.scanId))
    const records = parseCsv(csv.text)
    expect(records[0]?.slice(0, 3)).toEqual(["scan_id", "finding_id", "check_id"])
    const body = records.slice(1).filter((r) => r.length > 1)
    expect(new Set(body.map((r) => r[1])).size).toBe(total)
    expect(body.every((r) => r[0] === String(found.scanId))).toBe(true)
    expect(body.some((r) => r[12] === "remediated")).toBe(true)
    const json = await download(page, "JSON")
    expect(json.name).toMatch(FILE_NAME)
    expect(json.name.endsWith(".json")).toBe(true)
    const rows = JSON.parse(json.text) as Array<{ id: number; scan_id: number }>
    expect(rows).toHaveLength(total)
    expect(new Set(rows.map((r) => r.scan_id))).toEqual(new Set([found.scanId]))
    await page.context().close()
  }, 300_000)

  it("a read-only member: launch and remediate are disabled with the spec's tooltips; attempts give the spec's texts", async () => {
    expect(found.scanId).toBeGreaterThan(0)
    const auditor = newPerson("auditor")
    const ownerToken = await tokenOf(owner.email, owner.password)
    const created = await api(ownerToken, "/api/admin/users", {
      method: "POST",
      body: JSON.stringify({
        first_name: auditor.firstName,
        last_name: auditor.lastName,
        email: auditor.email,
        password: auditor.password,
        role_id: 3,
        is_custom_role: false,
      }),
    })
    expect(created.status, await created.clone().text()).toBeLessThan(300)
    // A failed finding with a resource that has no remediation record yet.
    const list = (await (await api(ownerToken, `/api/findings?scan_id=${found.scanId}&status=fail&page=1&page_size=100`)).json()) as {
      data: Array<{ id: number; service_name: string; resources_failing: number }>
    }
    let target: { id: number; service_name: string } | undefined
    for (const f of list.data.filter((x) => x.resources_failing > 0)) {
      const detail = (await (await api(ownerToken, `/api/findings/${f.id}`)).json()) as {
        data: { details: Array<{ compliance?: boolean; remediate?: unknown }> }
      }
      if (detail.data.details.some((d) => d.compliance === false && d.remediate === undefined)) {
        target = f
        break
      }
    }
    expect(target).toBeDefined()

    const page = await newPage(browser)
    await signIn(page, auditor.email, auditor.password)
    await page.goto(`${baseUrl()}/dashboard/scans/${found.scanId}/findings/${target!.id}?service=${encodeURIComponent(target!.service_name)}`)
    const remediate = page.getByRole("table", { name: "Affected resources" }).getByRole("button", { name: "Remediate" }).first()
    await remediate.waitFor()
    expect(await remediate.getAttribute("aria-disabled")).toBe("true")
    // react-aria shows hover tooltips once the pointer is known to be a mouse (any click sets that).
    await page.getByRole("heading", { level: 1 }).click()
    await remediate.hover()
    await page.getByRole("tooltip").waitFor()
    expect(await page.getByRole("tooltip").textContent()).toBe("You need the 'remediate_findings' permission to fix this issue")
    await look(page, "scan-finding-read-only")
    await remediate.click({ force: true })
    await page.getByText("You don't have permission to remediate findings").first().waitFor()

    await page.goto(`${baseUrl()}/dashboard/accounts/${found.accountId}`)
    await page.getByRole("heading", { level: 1, name: ACCOUNT_NAME }).waitFor()
    await page.getByRole("button", { name: "Launch scan", exact: true }).click()
    const dialog = page.getByRole("dialog", { name: "Launch scan" })
    const launch = dialog.getByRole("button", { name: "Launch", exact: true })
    const intro = dialog.getByText("Choose the cloud account to scan", { exact: false })
    await intro.waitFor()
    expect(await launch.getAttribute("aria-disabled")).toBe("true")
    await intro.click()
    await launch.hover()
    await page.getByRole("tooltip").waitFor()
    expect(await page.getByRole("tooltip").textContent()).toBe("You don't have permission to launch scans")
    await look(page, "scan-launch-read-only")
    await launch.click({ force: true })
    await dialog.getByText("Permission denied: Cannot launch scans").waitFor()
    await page.context().close()
  }, 120_000)

  it("the scan list at 390 px shows cards, not the table", async () => {
    const page = await newPage(browser, 390, 844)
    await signIn(page, owner.email, owner.password)
    await page.goto(`${baseUrl()}/dashboard/scans`)
    const cards = page.getByRole("list", { name: "Security scans" })
    await cards.waitFor()
    expect(await page.getByRole("table", { name: "Security scans" }).count()).toBe(0)
    await cards.getByRole("link", { name: `Scan #${found.scanId}` }).waitFor()
    await page.setViewportSize({ width: 1280, height: 800 })
    await page.getByRole("table", { name: "Security scans" }).waitFor()
    await page.context().close()
  }, 60_000)

  it("a finding of 3,000 IAM users pages, filters and searches on the server in the browser", async () => {
    expect(found.accountId).toBeGreaterThan(0)
    const iam = new IAMClient({
      endpoint: inject("motoEndpoint"),
      region: "us-east-1",
      credentials: { accessKeyId: MOTO_KEYS.access, secretAccessKey: MOTO_KEYS.secret },
    })
    const names = Array.from({ length: 3_000 }, (_, i) => `paging-user-${String(i).padStart(4, "0")}`)
    for (let i = 0; i < names.length; i += 50) {
      await Promise.all(names.slice(i, i + 50).map((UserName) => iam.send(new CreateUserCommand({ UserName }))))
    }
    const token = await tokenOf(owner.email, owner.password)
    const me = ((await (await api(token, "/api/user-info")).json()) as { data: { id: number } }).data
    const started = await api(token, "/api/scans", {
      method: "POST",
      body: JSON.stringify({ user_id: me.id, account_id: found.accountId, cloud_provider_id: 1, cloud_provider_name: "aws" }),
    })
    expect(started.status, await started.clone().text()).toBe(200)
    const scanId = ((await started.json()) as { data: { id: number } }).data.id
    let scan: { status: string; services: Array<{ service_id: number; service_name: string }> } | undefined
    for (const deadline = Date.now() + 240_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 1000))) {
      scan = ((await (await api(token, `/api/scans/${scanId}`)).json()) as { data: typeof scan }).data
      if (scan?.status === "completed" || scan?.status === "failed") break
    }
    expect(scan?.status).toBe("completed")
    const iamService = scan!.services.find((s) => s.service_name === "IAM")!
    const findings = ((await (await api(token, `/api/findings?scan_id=${scanId}&service_id=${iamService.service_id}&page_size=100`)).json()) as {
      data: Array<{ id: number; resources_checked: number; resources_failing: number; details: ReadonlyArray<unknown> }>
    }).data
    // The list carries counts, never the rows.
    expect(findings.every((f) => f.details.length === 0)).toBe(true)
    const big = [...findings].sort((a, b) => b.resources_checked - a.resources_checked)[0]!
    expect(big.resources_checked).toBeGreaterThanOrEqual(3_000)

    const page = await newPage(browser)
    await signIn(page, owner.email, owner.password)
    await page.goto(`${baseUrl()}/dashboard/scans/${scanId}/findings/${big.id}?service=IAM`)
    const table = page.getByRole("table", { name: "Affected resources" })
    await table.waitFor()
    const pager = page.getByRole("navigation", { name: "Resource pages" })
    const total = big.resources_checked.toLocaleString("en-US")
    await pager.getByText(`Rows 1–50 of ${total}`, { exact: false }).waitFor()
    expect(await table.locator("tbody tr").count()).toBe(50)
    await look(page, "scan-finding-paged")
    await pager.getByRole("button", { name: "Next" }).click()
    await pager.getByText(`Rows 51–100 of ${total}`, { exact: false }).waitFor()
    await pager.getByRole("button", { name: "Previous" }).click()
    await pager.getByText(`Rows 1–50 of ${total}`, { exact: false }).waitFor()

    // Search by resource id: one user.
    await page.getByRole("searchbox", { name: "Search resources" }).fill("paging-user-2999")
    await pager.getByText("Rows 1–1 of 1", { exact: false }).waitFor()
    expect(await table.locator("tbody tr").count()).toBe(1)
    expect(await table.locator("tbody tr").first().textContent()).toContain("paging-user-2999")
    await look(page, "scan-finding-search")
    await page.getByRole("searchbox", { name: "Search resources" }).fill("")
    await pager.getByText(`Rows 1–50 of ${total}`, { exact: false }).waitFor()

    // Status filter: failing rows only, with their own total.
    await page.getByRole("button", { name: /All resources/ }).click()
    await page.getByRole("option", { name: big.resources_failing > 0 ? "Failing" : "Passing" }).click()
    const shown = big.resources_failing > 0 ? big.resources_failing : big.resources_checked - big.resources_failing
    await pager.getByText(`of ${shown.toLocaleString("en-US")}`, { exact: false }).waitFor()
    await page.context().close()
  }, 420_000)
})
