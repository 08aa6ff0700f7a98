/**
 * Bulk remediation on moto (issue 32 part 4), in Chromium against the real product: three buckets are planted without
 * a public access block or a bucket policy → an S3 scan → on the scan's findings list (check filter "s3_bucket") two failing findings are ticked
 * ("S3 buckets should have all Block Public Access settings enabled", "S3 bucket policies should deny HTTP requests")
 * → "Remediate 2 selected" → the dialog names the resources and the account → the batch's page follows the progress
 * until it completes, every resource fixed → Undo batch → undone, every resource put back (checked in moto) → the list
 * of batches. Every screen is looked at (1280 px and 390 px screenshots in e2e/artifacts/, axe). The buckets are
 * removed at the end.
 */
import { randomUUID } from "node:crypto"
import type { Browser } from "playwright-core"
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeletePublicAccessBlockCommand,
  GetBucketPolicyCommand,
  GetPublicAccessBlockCommand,
} from "@aws-sdk/client-s3"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { apiAs, baseUrl, look, newPerson, signIn, signUpAndVerifyViaApi, waitForPath, type Person } from "../support/access.ts"
import { launchBrowser, newPage } from "../support/browser.ts"
import { motoClients } from "../support/moto.ts"
import { addMotoAccount, scanViaApi } from "../support/scans.ts"

const ACCOUNT_NAME = "Moto Bulk"
const BUCKETS = ["a", "b", "c"].map((s) => `bulk-${s}-${randomUUID().slice(0, 8)}`)
const PAB = "S3 buckets should have all Block Public Access settings enabled"
const TLS = "S3 bucket policies should deny HTTP requests"

let browser: Browser
const owner: Person = newPerson("bulkowner")
const api = apiAs(owner)

beforeAll(async () => {
  browser = await launchBrowser()
  await signUpAndVerifyViaApi(owner)
  const { s3 } = motoClients()
  for (const bucket of BUCKETS) {
    await s3.send(new CreateBucketCommand({ Bucket: bucket }))
    // A bucket made today gets Block Public Access by default on AWS; these are the older kind, without it.
    await s3.send(new DeletePublicAccessBlockCommand({ Bucket: bucket })).catch(() => {})
  }
})

afterAll(async () => {
  const { s3 } = motoClients()
  for (const bucket of BUCKETS) await s3.send(new DeleteBucketCommand({ Bucket: bucket })).catch(() => {})
  await browser?.close()
})

/** Whether the bucket has a public access block, and a bucket policy. */
const bucketState = async (bucket: string): Promise<{ pab: boolean; policy: boolean }> => {
  const { s3 } = motoClients()
  const pab = await s3.send(new GetPublicAccessBlockCommand({ Bucket: bucket })).then(() => true, () => false)
  const policy = await s3.send(new GetBucketPolicyCommand({ Bucket: bucket })).then((r) => (r.Policy ?? "") !== "", () => false)
  return { pab, policy }
}

describe("bulk remediation (moto as the AWS account)", () => {
  it("select failing findings → batch → progress → completed → undo batch → undone", async () => {
    const accountId = await addMotoAccount(api, ACCOUNT_NAME)
    // An S3 scan of the account (the launch dialog is the scanning journey's; here only its findings matter).
    const scanId = await scanViaApi(api, accountId, ["s3"])
    const page = await newPage(browser)
    await signIn(page, owner.email, owner.password)

    // The scan's findings: tick the two bucket checks.
    await page.goto(`${baseUrl()}/dashboard/scans/${scanId}/findings`)
    await page.getByRole("heading", { level: 1, name: "All findings" }).waitFor()
    await page.getByRole("table", { name: "Findings" }).waitFor()
    await page.getByRole("searchbox", { name: "Check" }).fill("s3_bucket")
    for (const check of [PAB, TLS]) await page.getByRole("checkbox", { name: `Select ${check} (${ACCOUNT_NAME})` }).check({ timeout: 30_000, force: true })
    const bar = page.getByRole("region", { name: "Selection" })
    await bar.getByText(/^2 findings selected · \d+ failing resources$/).waitFor()
    await look(page, "bulk-selection")

    await bar.getByRole("button", { name: "Remediate 2 selected" }).click()
    const dialog = page.getByRole("alertdialog", { name: "Remediate in bulk" })
    const summary = dialog.getByText(/^\d+ resources in 1 account will be remediated\.$/)
    await summary.waitFor({ timeout: 30_000 })
    const resources = Number((await summary.textContent())!.split(" ")[0])
    expect(resources).toBeGreaterThanOrEqual(BUCKETS.length * 2)
    await look(page, "bulk-confirm")
    await dialog.getByRole("button", { name: `Remediate ${resources} resources` }).click()

    // The batch's page: progress while it runs, then completed with every resource fixed.
    await page.waitForURL(/\/dashboard\/remediations\/batches\/\d+$/, { timeout: 20_000 })
    const batchId = Number(new URL(page.url()).pathname.split("/").at(-1))
    await page.getByRole("heading", { level: 1, name: `Remediation batch #${batchId}` }).waitFor()
    const progress = page.getByRole("progressbar", { name: "Batch progress" })
    await progress.waitFor()
    await look(page, "bulk-batch-progress")
    await page.getByText("Completed", { exact: true }).first().waitFor({ timeout: 180_000 })
    expect(await progress.getAttribute("aria-valuetext")).toBe(`${resources} of ${resources} resources done`)
    const items = page.getByRole("table", { name: "Resources of the batch" })
    expect(await items.locator("tbody tr").count()).toBe(resources)
    expect(await items.getByText("Fixed", { exact: true }).count()).toBe(resources)
    for (const bucket of BUCKETS) expect(await bucketState(bucket)).toEqual({ pab: true, policy: true })
    await look(page, "bulk-batch-completed")

    // Undo the whole batch: every bucket is back as it was.
    await page.getByRole("button", { name: "Undo batch" }).click()
    const undo = page.getByRole("alertdialog", { name: "Undo the batch?" })
    await undo.getByText(`${resources} resources fixed by this batch will be put back`, { exact: false }).waitFor()
    await look(page, "bulk-undo-confirm")
    await undo.getByRole("button", { name: "Undo the batch" }).click()
    await page.getByText(/^Undone by .*: the fixed resources were put back as they were\.$/).waitFor({ timeout: 180_000 })
    expect(await items.getByText("Undone", { exact: true }).count()).toBe(resources)
    expect(await page.getByRole("button", { name: /Undo/ }).count()).toBe(0)
    for (const bucket of BUCKETS) expect(await bucketState(bucket)).toEqual({ pab: false, policy: false })
    await look(page, "bulk-batch-undone")

    // The list of batches links to it.
    await page.getByRole("link", { name: "All batches" }).click()
    await waitForPath(page, "/dashboard/remediations/batches")
    await page.getByRole("link", { name: `#${batchId}` }).or(page.getByRole("link", { name: `Batch #${batchId}` })).first().waitFor()
    await look(page, "bulk-batches")
    await page.context().close()
  }, 600_000)
})
