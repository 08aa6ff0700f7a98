/**
 * The findings list works on the server (issue 28 item 5), in Chromium against the real product on moto: a bucket and
 * an SSH-open security group are planted → a scan → the scan's "All findings" list spans every service → a resource
 * search, a status filter and a service choice are each answered by the server over the whole scan, and every count on
 * screen is the API's total for the same query. Screenshots at 1280 and 390 px in e2e/artifacts/ with axe; the planted
 * resources are removed at the end.
 */
import { randomUUID } from "node:crypto"
import type { Browser, Page } from "playwright-core"
import { CreateBucketCommand } from "@aws-sdk/client-s3"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { apiAs, baseUrl, look, newPerson, signIn, signUpAndVerifyViaApi, type Person } from "../support/access.ts"
import { columnTexts, launchBrowser, newPage } from "../support/browser.ts"
import { motoClients, openSshGroup, removePlanted } from "../support/moto.ts"
import { addMotoAccount, scanFromAccountPage } from "../support/scans.ts"

const ACCOUNT_NAME = "Moto Findings"
const BUCKET = `findlist-${randomUUID().slice(0, 8)}`
const GROUP = `findlist-ssh-${randomUUID().slice(0, 8)}`

let browser: Browser
const owner: Person = newPerson("findingslist")
let groupId: string | undefined

beforeAll(async () => {
  browser = await launchBrowser()
  await signUpAndVerifyViaApi(owner)
  await motoClients().s3.send(new CreateBucketCommand({ Bucket: BUCKET }))
  groupId = await openSshGroup(GROUP, "findings list e2e")
})

afterAll(async () => {
  await removePlanted({ groupId, bucket: BUCKET })
  await browser?.close()
})

const api = apiAs(owner)

interface ListAnswer {
  readonly data: ReadonlyArray<{ readonly service_name: string; readonly check_id: string; readonly policy_check: string }>
  readonly totals: {
    readonly findings: number
    readonly findings_unfiltered: number
    readonly resources_checked: number
    readonly resources_failing: number
    readonly resources_matched: number | null
  }
}

const count = (n: number) => n.toLocaleString("en-US")
const plural = (n: number, one: string, many: string) => `${count(n)} ${n === 1 ? one : many}`
/** The card's description for an answer, in the words the screen uses. */
const totalsLine = (t: ListAnswer["totals"], active: boolean) =>
  `${active ? `${count(t.findings)} of ${plural(t.findings_unfiltered, "finding", "findings")} match` : plural(t.findings, "finding", "findings")}` +
  ` · ${plural(t.resources_failing, "failing resource", "failing resources")} of ${plural(t.resources_checked, "resource", "resources")}` +
  (t.resources_matched === null ? "" : ` · ${plural(t.resources_matched, "matching resource", "matching resources")}`)

/** The list's rows as the table shows them (the Service column's cells). */
const shownServices = (page: Page): Promise<ReadonlyArray<string>> => columnTexts(page.getByRole("table", { name: "Findings" }), "Service")

describe("findings list on the server (moto as the AWS account)", () => {
  it("all services of a scan → search, status and service filters answered by the server → counts are the API's totals", async () => {
    const accountId = await addMotoAccount(api, ACCOUNT_NAME)
    const page = await newPage(browser)
    await signIn(page, owner.email, owner.password)

    // A scan, launched from the account page, followed to its end.
    const scanId = await scanFromAccountPage(page, api, { id: accountId, name: ACCOUNT_NAME })

    // "All findings": every service of the scan in one list, counted by the server.
    await page.getByRole("link", { name: "All findings" }).click()
    await page.getByRole("heading", { level: 1, name: "All findings" }).waitFor()
    const all = await api<ListAnswer>(`/api/findings?scan_id=${scanId}`)
    expect(all.totals.findings_unfiltered).toBeGreaterThan(20)
    await page.getByText(totalsLine(all.totals, false), { exact: true }).waitFor()
    expect(new Set(await shownServices(page)).size).toBeGreaterThan(1)
    await page.getByText(`Showing 20 of ${plural(all.totals.findings, "finding", "findings")}`).waitFor()

    // Resource search: the bucket's checks, over the whole scan (not only the 20 rows loaded).
    await page.getByRole("searchbox", { name: "Search resources" }).fill(BUCKET)
    const byBucket = await api<ListAnswer>(`/api/findings?scan_id=${scanId}&q=${BUCKET}`)
    expect(byBucket.totals.findings).toBeGreaterThan(0)
    expect(byBucket.totals.resources_matched).toBe(byBucket.totals.findings)
    await page.getByText(totalsLine(byBucket.totals, true), { exact: true }).waitFor()
    expect(new Set(await shownServices(page))).toEqual(new Set(byBucket.data.map((f) => f.service_name)))

    // And only the failing ones: the status filter goes to the server too.
    await page.getByRole("button", { name: "Show filters" }).click()
    await page.getByRole("group", { name: "Status" }).getByText("Fail", { exact: true }).click()
    const failingBucket = await api<ListAnswer>(`/api/findings?scan_id=${scanId}&q=${BUCKET}&status=fail`)
    expect(failingBucket.totals.findings).toBeGreaterThan(0)
    await page.getByText(totalsLine(failingBucket.totals, true), { exact: true }).waitFor()
    const table = page.getByRole("table", { name: "Findings" })
    for (const f of failingBucket.data) await table.getByRole("link", { name: f.policy_check }).waitFor()
    expect(await table.locator("tbody tr").count()).toBe(failingBucket.data.length)
    await look(page, "findings-list-search")

    // Clear, then the SSH group's service only: the server answers the service choice.
    await page.getByRole("button", { name: "Clear filters" }).first().click()
    await page.getByText(totalsLine(all.totals, false), { exact: true }).waitFor()
    await page.getByRole("searchbox", { name: "Search resources" }).fill(groupId!)
    const bySsh = await api<ListAnswer>(`/api/findings?scan_id=${scanId}&q=${groupId}&status=fail`)
    expect(bySsh.data.map((f) => f.service_name)).toContain("EC2")
    await page.getByRole("group", { name: "Status" }).getByText("Fail", { exact: true }).click()
    await page.getByText(totalsLine(bySsh.totals, true), { exact: true }).waitFor()
    await look(page, "findings-list-all-services")
    await page.close()
  }, 420_000)
})
