/**
 * The approvals inbox (issue 32 "Approval (four eyes)", docs/remediation-approvals.md) in Chromium against the real
 * product, on moto: the owner marks the moto account as requiring approval and asks for two remediations of
 * "S3 buckets should have versioning enabled" (one bucket each, with a reason); Bob, a Security Engineer invited into
 * the workspace, follows the mail's link to /dashboard/approvals, approves the first (the fix then runs: versioning is
 * on in moto) and rejects the second with a comment (required: refused without one; nothing runs). The owner's inbox
 * then shows both decisions on their requests. Every screen is looked at (1280 px and 390 px screenshots in
 * e2e/artifacts/, axe). The buckets are removed at the end.
 */
import { randomUUID } from "node:crypto"
import type { Browser, Page } from "playwright-core"
import { CreateBucketCommand, DeleteBucketCommand, GetBucketVersioningCommand, PutBucketVersioningCommand } from "@aws-sdk/client-s3"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ApprovalMessages } from "../../src/contracts/remediation-requests.ts"
import { acceptMailedInvitation, apiAs, baseUrl, look, newPerson, signIn, signUpAndVerifyViaApi, type Person } from "../support/access.ts"
import { launchBrowser, newPage } from "../support/browser.ts"
import { linkIn, waitForMail } from "../support/mail.ts"
import { motoClients } from "../support/moto.ts"
import { addMotoAccount } from "../support/scans.ts"

const ACCOUNT_NAME = "Moto Approvals"
const CHECK = "s3_bucket_versioning_enabled"
const [APPROVED_BUCKET, REJECTED_BUCKET] = ["ok", "no"].map((s) => `approve-${s}-${randomUUID().slice(0, 8)}`) as [string, string]
const REASON = "Versioning is required by our backup policy"
const REJECTION = "This bucket holds build logs only"

let browser: Browser
const owner: Person = newPerson("approvalowner")
const bob: Person = newPerson("approver")
const api = apiAs(owner)
const requests = { approved: 0, rejected: 0 }

/** A JSON call as `person` answering its status and body (apiAs insists on 200; a request answers 202). */
const call = async (person: Person, path: string, init: RequestInit = {}): Promise<{ status: number; body: any }> => {
  const login = await fetch(`${baseUrl()}/api/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: person.email, password: person.password }),
  })
  const token = ((await login.json()) as { access_token: string }).access_token
  const workspaces = (await (await fetch(`${baseUrl()}/api/workspaces`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
    data: Array<{ workspace_id: number; workspace_name: string }>
  }
  const workspace = workspaces.data.find((w) => w.workspace_name === owner.workspace) ?? workspaces.data[0]!
  const r = await fetch(`${baseUrl()}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, "x-workspace-id": String(workspace.workspace_id), "content-type": "application/json" },
  })
  return { status: r.status, body: await r.json() }
}

const versioning = async (bucket: string): Promise<string | undefined> =>
  (await motoClients().s3.send(new GetBucketVersioningCommand({ Bucket: bucket }))).Status

beforeAll(async () => {
  browser = await launchBrowser()
  await signUpAndVerifyViaApi(owner)
  const { s3 } = motoClients()
  for (const bucket of [APPROVED_BUCKET, REJECTED_BUCKET]) await s3.send(new CreateBucketCommand({ Bucket: bucket }))

  // Bob joins the owner's workspace as a Security Engineer (remediate_findings) through the mailed invitation.
  const invitedAt = Date.now()
  await api("/api/admin/users/invite", { method: "POST", body: JSON.stringify({ invitations: [{ email: bob.email, role_id: 2, is_custom_role: false }] }) })
  await acceptMailedInvitation(bob, invitedAt)

  // The moto account requires approval; an S3 scan finds both buckets without versioning.
  const accountId = await addMotoAccount(api, ACCOUNT_NAME)
  await api(`/api/accounts/${accountId}/approval`, { method: "PUT", body: JSON.stringify({ requires_approval: true, expiry_hours: 24 }) })
  const me = await api<{ data: { id: number } }>("/api/user-info")
  const started = await api<{ data: { id: number } }>("/api/scans", {
    method: "POST",
    body: JSON.stringify({ user_id: me.data.id, account_id: accountId, cloud_provider_id: 1, cloud_provider_name: "aws", services: ["s3"] }),
  })
  for (const deadline = Date.now() + 180_000; ;) {
    const scan = await api<{ data: { status: string } }>(`/api/scans/${started.data.id}`)
    if (scan.data.status === "completed") break
    expect(scan.data.status).not.toBe("failed")
    if (Date.now() > deadline) throw new Error(`scan ${started.data.id} still ${scan.data.status}`)
    await new Promise((r) => setTimeout(r, 500))
  }
  const list = await api<{ data: Array<{ id: number; check_id: string }> }>(`/api/findings?scan_id=${started.data.id}&status=fail&page_size=100`)
  const finding = list.data.find((f) => f.check_id === CHECK)!
  expect(finding).toBeDefined()
  const detail = await api<{ data: { details: Array<{ resource_id: string }> } }>(`/api/findings/${finding.id}?details_page_size=500`)

  // The owner asks for both fixes: on this account each becomes a request (202), nothing runs.
  for (const [bucket, key] of [[APPROVED_BUCKET, "approved"], [REJECTED_BUCKET, "rejected"]] as const) {
    const row = detail.data.details.find((d) => d.resource_id === bucket)!
    const res = await call(owner, `/api/findings/${finding.id}/remediate`, { method: "POST", body: JSON.stringify({ details: row, comment: REASON }) })
    expect(res.status, JSON.stringify(res.body)).toBe(202)
    requests[key] = res.body.data.approval_request.id
  }
  expect(await versioning(APPROVED_BUCKET)).toBeUndefined()
}, 300_000)

afterAll(async () => {
  const { s3 } = motoClients()
  for (const bucket of [APPROVED_BUCKET, REJECTED_BUCKET]) {
    await s3.send(new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: "Suspended" } })).catch(() => {})
    await s3.send(new DeleteBucketCommand({ Bucket: bucket })).catch(() => {})
  }
  await browser?.close()
})

const card = (page: Page, id: number) => page.getByRole("region", { name: new RegExp(`^Request ${id}: `) }).or(page.locator(`[aria-label^="Request ${id}: "]`)).first()

describe("approvals inbox (moto as the AWS account)", () => {
  it("Bob follows the mail to the inbox, approves one request (the fix runs) and rejects the other with a comment", async () => {
    // The approval mail links to the inbox with the request first.
    const mail = await waitForMail((m) => m.to.includes(bob.email) && m.links.some((l) => l.includes(`/dashboard/approvals?request=${requests.approved}`)))
    const page = await newPage(browser)
    await signIn(page, bob.email, bob.password)
    await page.goto(linkIn(mail, "/dashboard/approvals"))
    await page.getByRole("heading", { level: 1, name: "Approvals" }).waitFor()
    const list = page.getByRole("list", { name: "Remediation requests" })
    await list.waitFor()
    const first = card(page, requests.approved)
    await first.waitFor()
    expect(await first.textContent()).toContain(APPROVED_BUCKET)
    expect(await first.textContent()).toContain(REASON)
    expect(await first.textContent()).toContain(owner.email)
    // The mail's request is listed first.
    expect(await list.locator(":scope > li").first().textContent()).toContain(APPROVED_BUCKET)
    await look(page, "approvals-inbox")

    // Approve with a comment: the remediation starts and, on moto, versioning is turned on.
    await page.getByRole("button", { name: `Approve request ${requests.approved}` }).click()
    const approveForm = page.getByRole("form", { name: `Approve request ${requests.approved}` })
    await approveForm.getByLabel(/^Comment/).fill("Go ahead")
    await look(page, "approvals-approve-form")
    await approveForm.getByRole("button", { name: "Approve and start the remediation" }).click()
    await page.getByText(ApprovalMessages.requestApproved).first().waitFor()
    await card(page, requests.approved).waitFor({ state: "detached" })
    for (const deadline = Date.now() + 120_000; (await versioning(APPROVED_BUCKET)) !== "Enabled";) {
      if (Date.now() > deadline) throw new Error("the approved fix did not turn versioning on")
      await page.waitForTimeout(500)
    }

    // Reject: a comment is required; with one, the request is rejected and nothing runs.
    await page.getByRole("button", { name: `Reject request ${requests.rejected}` }).click()
    const rejectForm = page.getByRole("form", { name: `Reject request ${requests.rejected}` })
    await rejectForm.getByRole("button", { name: "Reject the request" }).click()
    await rejectForm.getByText(ApprovalMessages.rejectCommentRequired).waitFor()
    await look(page, "approvals-reject-comment-required")
    await rejectForm.getByLabel(/^Why is it rejected\?/).fill(REJECTION)
    await rejectForm.getByRole("button", { name: "Reject the request" }).click()
    await page.getByText(ApprovalMessages.requestRejected).first().waitFor()
    await page.getByText("No request is waiting for approval.").waitFor()
    expect(await versioning(REJECTED_BUCKET)).toBeUndefined()
    await look(page, "approvals-inbox-empty")
    await page.context().close()
  }, 300_000)

  it("the owner sees both decisions on their requests: who decided, when and why", async () => {
    const page = await newPage(browser)
    await signIn(page, owner.email, owner.password)
    await page.goto(`${baseUrl()}/dashboard/approvals`)
    await page.getByRole("heading", { level: 1, name: "Approvals" }).waitFor()
    await page.getByText("No request is waiting for approval.").waitFor()
    await page.getByRole("button", { name: /Waiting for approval.*Show|Show.*Waiting for approval/ }).click()
    await page.getByRole("option", { name: "All requests" }).click()
    const approved = card(page, requests.approved)
    const rejected = card(page, requests.rejected)
    await approved.waitFor()
    await rejected.waitFor()
    for (const [c, state, comment] of [[approved, "Approved", "Go ahead"], [rejected, "Rejected", REJECTION]] as const) {
      const text = (await c.textContent()) ?? ""
      expect(text).toContain(state)
      expect(text).toContain("Your request")
      expect(text).toContain(`by ${bob.email}`)
      expect(text).toContain(comment)
    }
    // Decided requests offer no action.
    expect(await page.getByRole("button", { name: /^(Approve|Reject|Withdraw) request/ }).count()).toBe(0)
    await look(page, "approvals-decided")
    await page.context().close()
  }, 120_000)
})
