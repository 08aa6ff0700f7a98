/**
 * Continuous posture on moto (issue 13), in Chromium against the real product: the account's schedule and scope are set
 * on its page (daily, us-east-1, EC2 and S3) → the scan digest is turned on in the profile → a scan → the account
 * changes (a security group opens SSH to the internet, a bucket gets versioning) → a rescan → the scan says what is
 * new and what is fixed → the digest email of the rescan arrives with the rescan's numbers → the new SSH finding's
 * resource is muted from its finding page → the scan's failed count drops and the muted count shows. Every screen is looked
 * at (1280 px and 390 px screenshots in e2e/artifacts/, axe). The planted resources are removed at the end.
 */
import { randomUUID } from "node:crypto"
import type { Browser, Page } from "playwright-core"
import { CreateBucketCommand, PutBucketVersioningCommand } from "@aws-sdk/client-s3"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { apiAs, baseUrl, look, newPerson, signIn, signUpAndVerifyViaApi, type Person } from "../support/access.ts"
import { launchBrowser, newPage } from "../support/browser.ts"
import { motoClients, openSshGroup, removePlanted } from "../support/moto.ts"
import { waitForMail } from "../support/mail.ts"
import { addMotoAccount, scanFromAccountPage } from "../support/scans.ts"

const ACCOUNT_NAME = "Moto Posture"
const BUCKET = `posture-${randomUUID().slice(0, 8)}`
const GROUP = `posture-ssh-${randomUUID().slice(0, 8)}`
const ADMIN_PORTS = "ec2_securitygroup_allow_ingress_from_internet_to_admin_ports_ipv4"

let browser: Browser
const owner: Person = newPerson("postureowner")
let groupId: string | undefined

beforeAll(async () => {
  browser = await launchBrowser()
  await signUpAndVerifyViaApi(owner)
  await motoClients().s3.send(new CreateBucketCommand({ Bucket: BUCKET }))
})

afterAll(async () => {
  await removePlanted({ groupId, bucket: BUCKET })
  await browser?.close()
})

const api = apiAs(owner)

/** The number shown in a stat of the scan summary. */
const statValue = async (page: Page, label: string): Promise<number> => {
  const stat = page.getByRole("region", { name: "Summary" }).locator("div", { has: page.getByText(label, { exact: true }) }).last().locator("dd")
  return Number(await stat.textContent())
}

describe("continuous posture (moto as the AWS account)", () => {
  it("schedule and scope → digest on → scan → change the account → rescan → new and fixed → mute → counts drop → digest", async () => {
    const accountId = await addMotoAccount(api, ACCOUNT_NAME)
    const page = await newPage(browser)
    await signIn(page, owner.email, owner.password)

    // The schedule card: daily at 03:30 UTC, scope us-east-1 and EC2 + S3.
    await page.goto(`${baseUrl()}/dashboard/accounts/${accountId}`)
    const scheduleCard = page.getByRole("region", { name: "Scan schedule" })
    await scheduleCard.getByText("No scheduled scans").waitFor()
    await look(page, "posture-account")
    await scheduleCard.getByRole("button", { name: "Edit" }).click()
    await scheduleCard.getByRole("button", { name: /Frequency/ }).click()
    await page.getByRole("option", { name: "Daily" }).click()
    await scheduleCard.getByLabel("Time", { exact: true }).fill("03:30")
    // The scope: "All" off, then the wanted entries on (clicking the labels, as a user does).
    const choose = async (group: string, entries: ReadonlyArray<string>) => {
      const set = scheduleCard.getByRole("group", { name: group })
      await set.getByText("All", { exact: true }).click()
      expect(await set.getByRole("checkbox", { name: "All", exact: true }).isChecked()).toBe(false)
      for (const entry of entries) {
        await set.getByText(entry, { exact: true }).click()
        expect(await set.getByRole("checkbox", { name: entry, exact: true }).isChecked()).toBe(true)
      }
    }
    await choose("Regions", ["us-east-1"])
    await choose("Services", ["EC2", "S3"])
    await look(page, "posture-schedule-edit")
    await scheduleCard.getByRole("button", { name: "Save schedule" }).click()
    await page.getByText("Schedule saved").first().waitFor()
    await scheduleCard.getByText("Daily at 03:30 (UTC)").waitFor()
    await scheduleCard.getByText("EC2, S3").waitFor()
    const schedule = await api<{ data: { next_run_at: string; regions: string[]; services: string[] } }>(`/api/accounts/${accountId}/schedule`)
    expect(schedule.data).toMatchObject({ regions: ["us-east-1"], services: ["ec2", "s3"] })
    expect(new Date(schedule.data.next_run_at).toISOString()).toMatch(/T03:30:00\.000Z$/)

    // The digest, on the profile page.
    await page.goto(`${baseUrl()}/dashboard/profile`)
    const digest = page.getByRole("checkbox", { name: /Email me a digest after each scan/ })
    await page.getByText(/Email me a digest after each scan/).click()
    expect(await digest.isChecked()).toBe(true)
    await page.getByText("Email preference saved").first().waitFor()
    await look(page, "posture-profile-digest")

    // First scan: the scope is the account's (2 services).
    const first = await scanFromAccountPage(page, api, { id: accountId, name: ACCOUNT_NAME })
    await page.getByText("regions us-east-1; services ec2, s3").waitFor()

    // The account changes: SSH open to the internet, versioning on the bucket.
    groupId = await openSshGroup(GROUP, "posture e2e")
    await motoClients().s3.send(new PutBucketVersioningCommand({ Bucket: BUCKET, VersioningConfiguration: { Status: "Enabled" } }))

    // Rescan: what is new, what is fixed.
    const second = await scanFromAccountPage(page, api, { id: accountId, name: ACCOUNT_NAME }, first)
    const summary = page.getByRole("region", { name: "Summary" })
    await summary.getByText(`Since scan #${first}:`, { exact: false }).waitFor()
    const rescan = await api<{ data: { new_failing: number; fixed: number; failed_findings: number; muted_findings: number } }>(`/api/scans/${second}`)
    expect(rescan.data.new_failing).toBeGreaterThanOrEqual(1)
    expect(rescan.data.fixed).toBeGreaterThanOrEqual(1)
    await look(page, "posture-rescan")
    const failedBefore = await statValue(page, "Failed checks")
    expect(failedBefore).toBe(rescan.data.failed_findings)
    // What the first scan answers now; it must answer the same after every mute made while the rescan is the latest.
    const firstAnswers = async () => JSON.stringify([
      (await api<{ data: unknown }>(`/api/scans/${first}`)).data,
      (await api<{ data: unknown }>(`/api/compliance/scans/${first}/frameworks/cis-aws-3.0.0`)).data,
    ])
    const firstBefore = await firstAnswers()

    // The rescan's digest (sent within a tick of the scan's end, before anything is muted): one email with the rescan's
    // numbers and links to its scan and its new failing checks.
    const mail = await waitForMail((m) => m.to.includes(owner.email) && m.links.some((l) => l.endsWith(`/dashboard/scans/${second}`)), 30_000)
    expect(mail.subject).toBe(`Scan of ${ACCOUNT_NAME}: ${rescan.data.new_failing} new failing, ${rescan.data.fixed} fixed, ${mail.subject.match(/(\d+) still failing/)?.[1]} still failing resources`)
    expect(mail.text).toContain(`The scan of ${ACCOUNT_NAME}`)
    // The new SSH finding → Mute its resource.
    const findings = await api<{ data: Array<{ id: number; check_id: string; resources_new: number }> }>(
      `/api/findings?scan_id=${second}&status=fail&page_size=100`,
    )
    const ssh = findings.data.find((f) => f.check_id === ADMIN_PORTS)
    expect(ssh?.resources_new).toBe(1)
    const fixedRows = await api<{ data: Array<{ check_id: string; resources_fixed: number }> }>(`/api/findings?scan_id=${second}&page_size=100`)
    expect(fixedRows.data.find((f) => f.check_id === "s3_bucket_versioning_enabled")?.resources_fixed).toBeGreaterThanOrEqual(1)
    await page.goto(`${baseUrl()}/dashboard/scans/${second}/findings/${ssh!.id}?service=EC2`)
    const table = page.getByRole("table", { name: "Affected resources" })
    const row = table.getByRole("row", { name: new RegExp(GROUP) })
    await row.getByText("New", { exact: true }).waitFor()
    expect(mail.links.some((l) => l.includes(`/dashboard/scans/${second}/findings/${ssh!.id}`))).toBe(true)
    await row.getByRole("button", { name: "Mute" }).click()
    const dialog = page.getByRole("dialog", { name: "Mute finding" })
    await dialog.getByLabel(/Reason/).fill("Bastion SSH accepted until the VPN ships")
    await look(page, "posture-mute-dialog")
    await dialog.getByRole("button", { name: "Mute", exact: true }).click()
    await page.getByText("Mute rule created").first().waitFor()
    await table.getByText("Bastion SSH accepted until the VPN ships").waitFor()
    await look(page, "posture-finding-muted")

    // The SSH group's resource page: this scan's checks of it, the muted one among them.
    await row.getByRole("link", { name: /^History of/ }).click()
    await page.getByRole("heading", { level: 1, name: groupId }).waitFor()
    const checks = page.getByRole("list", { name: `Checks in scan #${second}` })
    await checks.getByText("Muted", { exact: true }).waitFor()
    await look(page, "posture-resource")

    // Counts drop at once, without a rescan.
    await page.goto(`${baseUrl()}/dashboard/scans/${second}`)
    await page.getByRole("region", { name: "Summary" }).getByText("Checks passed with exceptions", { exact: true }).waitFor()
    expect(await statValue(page, "Failed checks")).toBe(failedBefore - 1)
    expect(await statValue(page, "Checks passed with exceptions")).toBe(1)
    await look(page, "posture-scan-muted")

    // The account page lists the rule.
    await page.goto(`${baseUrl()}/dashboard/accounts/${accountId}`)
    await page.getByRole("region", { name: "Mute rules" }).getByText("Bastion SSH accepted until the VPN ships").waitFor()
    await look(page, "posture-account-rules")

    // The dashboard's posture section: the account's trend over its two scans, the top failing checks.
    await page.goto(`${baseUrl()}/dashboard`)
    const posture = page.getByRole("region", { name: "Security posture" })
    await posture.getByRole("img", { name: new RegExp(`^Failing resources of ${ACCOUNT_NAME} over its last 2 scans`) }).waitFor()
    await posture.getByText("Top failing checks").waitFor()
    await look(page, "posture-dashboard")

    // History is immutable (issue 28): mute a whole check failing in both scans from the rescan's finding page. The
    // rescan counts it as passed with exceptions; the first scan, superseded, answers what it answered before.
    type Listed = { data: Array<{ id: number; check_id: string; muted: boolean }> }
    const failingFirst = (await api<Listed>(`/api/findings?scan_id=${first}&status=fail&page_size=100`)).data.map((f) => f.check_id)
    const both = (await api<Listed>(`/api/findings?scan_id=${second}&status=fail&page_size=100`)).data.find((f) => failingFirst.includes(f.check_id))!
    expect(both, "a check failing in both scans").toBeDefined()
    await page.goto(`${baseUrl()}/dashboard/scans/${second}/findings/${both.id}`)
    await page.getByRole("button", { name: "Mute check" }).click()
    const checkDialog = page.getByRole("dialog", { name: "Mute finding" })
    await checkDialog.getByLabel(/Reason/).fill("Accepted for the whole account")
    await checkDialog.getByRole("button", { name: "Mute", exact: true }).click()
    await page.getByText("Mute rule created").first().waitFor()
    await page.goto(`${baseUrl()}/dashboard/scans/${second}`)
    await page.getByRole("region", { name: "Summary" }).getByText("Checks passed with exceptions", { exact: true }).waitFor()
    expect(await statValue(page, "Checks passed with exceptions")).toBe(2)
    await page.goto(`${baseUrl()}/dashboard/scans/${first}`)
    await page.getByRole("region", { name: "Summary" }).getByText("Failed checks", { exact: true }).waitFor()
    expect(await page.getByRole("region", { name: "Summary" }).getByText("Checks passed with exceptions", { exact: true }).count()).toBe(0)
    expect(await firstAnswers()).toBe(firstBefore)
    // Its finding page says it was superseded and offers no mute.
    const old = (await api<Listed>(`/api/findings?scan_id=${first}&status=fail&page_size=100`)).data.find((f) => f.check_id === both.check_id)!
    await page.goto(`${baseUrl()}/dashboard/scans/${first}/findings/${old.id}`)
    await page.getByText(/A later scan of this account superseded this one/).waitFor()
    expect(await page.getByRole("button", { name: "Mute check" }).count()).toBe(0)
    await look(page, "posture-superseded-finding")
    await page.close()
  }, 420_000)
})
