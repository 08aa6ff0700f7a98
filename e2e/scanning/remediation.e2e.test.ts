/**
 * One finding's remediation with its preview and undo on moto (issue 32 part 5), in Chromium against the real product:
 * a bucket is planted without a public access block → an S3 scan → the finding "S3 buckets should have all Block Public
 * Access settings enabled", searched to the bucket → Remediate → the preview (the exact call and its parameters, what
 * it touches, the permissions, reversible for 30 days, the CLI command and Terraform) → Remediate → 'View Remediated',
 * the bucket now blocked in moto → the Remediation history card says Fixed with Undo → Undo → undone: the bucket has no
 * public access block again and the row fails again. Then once more with a change made after the fix: the undo is
 * refused with the field difference, "Undo anyway" overwrites it. Every screen is looked at (1280 px and 390 px
 * screenshots in e2e/artifacts/, axe). The bucket is removed at the end.
 */
import { randomUUID } from "node:crypto"
import type { Browser, Page } from "playwright-core"
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeletePublicAccessBlockCommand,
  GetPublicAccessBlockCommand,
  PutPublicAccessBlockCommand,
} from "@aws-sdk/client-s3"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { apiAs, baseUrl, look, newPerson, signIn, signUpAndVerifyViaApi, type Person } from "../support/access.ts"
import { launchBrowser, newPage } from "../support/browser.ts"
import { motoClients } from "../support/moto.ts"
import { addMotoAccount, scanViaApi } from "../support/scans.ts"

const ACCOUNT_NAME = "Moto Undo"
const BUCKET = `undo-${randomUUID().slice(0, 8)}`
const CHECK = "s3_bucket_level_public_access_block"

let browser: Browser
const owner: Person = newPerson("undoowner")
const api = apiAs(owner)

beforeAll(async () => {
  browser = await launchBrowser()
  await signUpAndVerifyViaApi(owner)
  const { s3 } = motoClients()
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }))
  // A bucket made today gets Block Public Access by default on AWS; this one is the older kind, without it.
  await s3.send(new DeletePublicAccessBlockCommand({ Bucket: BUCKET })).catch(() => {})
})

afterAll(async () => {
  await motoClients().s3.send(new DeleteBucketCommand({ Bucket: BUCKET })).catch(() => {})
  await browser?.close()
})

/** The bucket's public access block as moto has it (null: none). */
const blockOf = async (): Promise<Record<string, unknown> | null> =>
  motoClients()
    .s3.send(new GetPublicAccessBlockCommand({ Bucket: BUCKET }))
    .then((r) => ({ ...r.PublicAccessBlockConfiguration }), () => null)

/** Remediate the bucket's row from the finding page through the preview; waits for 'View Remediated'. */
const remediate = async (page: Page, screenshots: boolean): Promise<void> => {
  const resources = page.getByRole("table", { name: "Affected resources" })
  await resources.getByRole("button", { name: "Remediate" }).click({ timeout: 60_000 })
  const dialog = page.getByRole("dialog", { name: "Remediate resource" })
  await dialog.getByRole("heading", { name: "Calls, in order" }).waitFor({ timeout: 30_000 })
  await dialog.getByText("s3 PutPublicAccessBlock").waitFor()
  expect(await dialog.getByLabel("Parameters of call 1, PutPublicAccessBlock").textContent()).toContain(`"Bucket": "${BUCKET}"`)
  await dialog.getByText("Undo is offered for 30 days after the fix.").waitFor()
  expect(await dialog.getByLabel("Command to run").textContent()).toContain(`aws s3api put-public-access-block`)
  if (screenshots) {
    await look(page, "remediation-preview")
    await dialog.getByRole("tab", { name: "Terraform" }).click()
    expect(await dialog.getByLabel("Terraform configuration").textContent()).toContain("aws_s3_bucket_public_access_block")
    await look(page, "remediation-preview-terraform")
  }
  await dialog.getByRole("button", { name: "Remediate", exact: true }).click()
  await page.getByText("Remediation started").first().waitFor({ timeout: 20_000 })
  await page.getByRole("dialog").getByRole("button", { name: "Close" }).last().click()
  await resources.getByRole("button", { name: "View Remediated" }).waitFor({ timeout: 90_000 })
}

describe("remediation preview and undo (moto as the AWS account)", () => {
  it("preview → confirm → fixed → undo → failing again; a change since the fix → conflict → Undo anyway", async () => {
    const accountId = await addMotoAccount(api, ACCOUNT_NAME)
    const scanId = await scanViaApi(api, accountId, ["s3"])
    const findings = await api<{ data: Array<{ id: number; check_id: string }> }>(`/api/findings?scan_id=${scanId}&check=${CHECK}&page_size=100`)
    const findingId = findings.data.find((f) => f.check_id === CHECK)!.id

    const page = await newPage(browser)
    await signIn(page, owner.email, owner.password)
    await page.goto(`${baseUrl()}/dashboard/scans/${scanId}/findings/${findingId}?service=s3&resource=${BUCKET}`)
    await page.getByRole("heading", { level: 1, name: "S3 buckets should have all Block Public Access settings enabled" }).waitFor()
    const history = page.getByRole("region", { name: "Remediation history" })
    await history.getByText("This finding has not been remediated yet.").waitFor()

    // Preview → confirm → fixed (in moto too) → the history card says Fixed, with Undo.
    await remediate(page, true)
    expect(await blockOf()).toEqual({ BlockPublicAcls: true, IgnorePublicAcls: true, BlockPublicPolicy: true, RestrictPublicBuckets: true })
    const fixed = history.getByRole("listitem", { name: /^Remediation \d+: Fixed$/ })
    await fixed.waitFor({ timeout: 30_000 })
    await fixed.getByText(`Requested by ${owner.email}`, { exact: false }).waitFor()
    await look(page, "remediation-history-fixed")

    // Undo → confirm → undone: no public access block again, the row fails again (Remediate is back).
    await fixed.getByRole("button", { name: "Undo" }).click()
    const undo = page.getByRole("dialog", { name: "Undo remediation" })
    await undo.getByText("s3 DeletePublicAccessBlock").waitFor()
    await look(page, "remediation-undo-confirm")
    await undo.getByRole("button", { name: "Undo", exact: true }).click()
    await page.getByText("Undo queued").first().waitFor({ timeout: 20_000 })
    const undone = history.getByRole("listitem", { name: /^Remediation \d+: Undone$/ })
    await undone.waitFor({ timeout: 90_000 })
    await undone.getByText("This fix was already undone", { exact: true }).waitFor()
    const resources = page.getByRole("table", { name: "Affected resources" })
    await resources.getByRole("button", { name: "Remediate" }).waitFor({ timeout: 30_000 })
    expect(await blockOf()).toBeNull()
    await look(page, "remediation-history-undone")

    // Once more, then someone changes the bucket after the fix: the undo shows the difference; Undo anyway.
    await remediate(page, false)
    const again = history.getByRole("listitem", { name: /^Remediation \d+: Fixed$/ })
    await again.waitFor({ timeout: 30_000 })
    await motoClients().s3.send(new PutPublicAccessBlockCommand({
      Bucket: BUCKET,
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, IgnorePublicAcls: true, BlockPublicPolicy: true, RestrictPublicBuckets: false },
    }))
    await again.getByRole("button", { name: "Undo" }).click()
    await undo.getByRole("button", { name: "Undo", exact: true }).click()
    await undo.getByText(/^The resource changed since the fix; undo would overwrite those changes/).waitFor({ timeout: 20_000 })
    const difference = undo.getByRole("row", { name: /RestrictPublicBuckets/ })
    expect(await difference.getByRole("cell").allTextContents()).toEqual(["PublicAccessBlockConfiguration.RestrictPublicBuckets", "true", "false"])
    await look(page, "remediation-undo-conflict")
    await undo.getByRole("button", { name: "Undo anyway" }).click()
    await page.getByText("Undo queued").first().waitFor({ timeout: 20_000 })
    await history.getByRole("listitem", { name: /^Remediation \d+: Undone$/ }).nth(1).waitFor({ timeout: 90_000 })
    await history.getByText(/Undo \(forced\) requested by/).waitFor()
    await resources.getByRole("button", { name: "Remediate" }).waitFor({ timeout: 30_000 })
    expect(await blockOf()).toBeNull()
    await page.context().close()
  }, 600_000)
})
