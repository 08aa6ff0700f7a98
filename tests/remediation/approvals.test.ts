/**
 * Approval of remediations, four eyes (issue 32; server/remediation/approvals.ts), over HTTP against moto with the job
 * worker and the posture ticker running: an account marked as requiring approval turns Remediate into a request
 * (202, nothing runs: the bucket stays unversioned), another member with remediate_findings approves it (exactly the
 * requested row is remediated and verified) or rejects it with a comment; the requester cannot decide their own
 * request, a member without remediate_findings can neither read the inbox nor decide; a request past its expiry is
 * expired by the ticker and can no longer be approved; the requester may withdraw a pending request. Every step is
 * audited, approvers are mailed on a request and the requester on each decision and on the expiry.
 */
import { CreateBucketCommand, GetBucketVersioningCommand } from "@aws-sdk/client-s3"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ApprovalMessages } from "../../src/contracts/remediation-requests.ts"
import { ScanningServerMessages } from "../../src/contracts/messages.ts"
import { makeAwsClients } from "../../server/scanner/aws/clients.ts"
import { addMotoAccount, detailed, type Member, MOTO_KEYS, Roles, type ScanEnv, sleep, startScanEnv, uniq } from "../scanning/support.ts"

const CHECK = "s3_bucket_versioning_enabled"

let env: ScanEnv
let owner: Member
let alice: Member // Security Engineer: remediate_findings
let bob: Member // Security Engineer
let auditor: Member // read_only only
let finding: any
let accountId: number
const buckets = [uniq("ap-one"), uniq("ap-two")]

const aws = () =>
  makeAwsClients({ credentials: { accessKeyId: MOTO_KEYS.access_key, secretAccessKey: MOTO_KEYS.secret_key }, endpoint: env.moto.endpoint, maxAttempts: 1 })

const versioning = async (bucket: string) => {
  const c = aws()
  try {
    return (await c.get("s3", "us-east-1").send(new GetBucketVersioningCommand({ Bucket: bucket }))).Status
  } finally {
    c.destroy()
  }
}

const rowOf = async (bucket: string) => (await detailed(env, owner, finding)).details.find((d: any) => d.resource_id === bucket)

const waitFor = async <A>(what: string, probe: () => Promise<A | undefined>, timeoutMs = 60_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(200)
  }
}

const mailsTo = (email: string) =>
  env.sql((sql) => sql<{ kind: string; subject: string; text_body: string }>`
    SELECT kind, subject, text_body FROM dev_outbox WHERE to_address = ${email} AND kind LIKE 'remediation_%' ORDER BY id`)

const auditOf = (requestId: number) =>
  env.sql((sql) => sql<{ action: string; actor_user_id: number | null }>`
    SELECT action, actor_user_id FROM audit_log WHERE target_type = 'remediation_request' AND target_id = ${String(requestId)} ORDER BY id`)

const remediate = (member: Member, bucket: string, comment?: string) =>
  rowOf(bucket).then((row) => env.call(member, "POST", `/api/findings/${finding.id}/remediate`, { details: row, ...(comment === undefined ? {} : { comment }) }))

describe("remediation approval (four eyes)", () => {
  beforeAll(async () => {
    process.env["POSTURE_TICK_SECONDS"] = "1"
    env = await startScanEnv()
    owner = await env.workspace()
    alice = await env.member(owner, Roles.SecurityEngineer)
    bob = await env.member(owner, Roles.SecurityEngineer)
    auditor = await env.member(owner, Roles.Auditor)
    const c = aws()
    try {
      for (const b of buckets) await c.get("s3", "us-east-1").send(new CreateBucketCommand({ Bucket: b }))
    } finally {
      c.destroy()
    }
    const account = await addMotoAccount(env, owner)
    accountId = account.id
    const started = await env.call(owner, "POST", "/api/scans", {
      user_id: owner.userId, account_id: account.id, cloud_provider_id: 1, cloud_provider_name: "aws", services: ["s3"],
    })
    expect(started.status, started.text).toBe(200)
    const scan = await env.waitForScan(owner, started.body.data.id)
    expect(scan.status).toBe("completed")
    const list = await env.call(owner, "GET", `/api/findings?scan_id=${scan.id}&status=fail&page_size=100`)
    finding = list.body.data.find((f: any) => f.check_id === CHECK)
    expect(finding).toBeDefined()
  }, 180_000)
  afterAll(async () => {
    delete process.env["POSTURE_TICK_SECONDS"]
    await env?.stop()
  })

  it("is off by default; only members who can edit accounts change it, and the change is audited", async () => {
    const initial = await env.call(alice, "GET", `/api/accounts/${accountId}/approval`)
    expect(initial.status, initial.text).toBe(200)
    expect(initial.body.data).toEqual({ requires_approval: false, expiry_hours: 72 })

    const refused = await env.call(auditor, "PUT", `/api/accounts/${accountId}/approval`, { requires_approval: false, expiry_hours: 1 })
    expect(refused.status).toBe(403)
    expect(refused.body.message).toBe(ApprovalMessages.settingPermissionDenied)
    const outOfRange = await env.call(owner, "PUT", `/api/accounts/${accountId}/approval`, { requires_approval: true, expiry_hours: 0 })
    expect(outOfRange.status).toBe(400)

    const saved = await env.call(owner, "PUT", `/api/accounts/${accountId}/approval`, { requires_approval: true, expiry_hours: 24 })
    expect(saved.status, saved.text).toBe(200)
    expect(saved.body).toMatchObject({ message: ApprovalMessages.settingSaved, data: { requires_approval: true, expiry_hours: 24 } })
    const audit = await env.sql((sql) => sql<{ details: any }>`
      SELECT details FROM audit_log WHERE action = 'account.approval_updated' AND target_id = ${String(accountId)}`)
    expect(audit).toHaveLength(1)
    expect(audit[0]!.details).toMatchObject({ requires_approval: true, expiry_hours: 24, previous: { requires_approval: false, expiry_hours: 72 } })
  })

  it("turns Remediate into a request: 202, nothing runs, approvers are mailed; a second request of the row waits", async () => {
    const before = Date.now()
    const res = await remediate(alice, buckets[0]!, "Versioning is required by our backup policy")
    expect(res.status, res.text).toBe(202)
    expect(res.body.message).toBe(ApprovalMessages.requestCreated)
    const ref = res.body.data.approval_request
    expect(ref.state).toBe("pending")
    const expiresIn = Date.parse(ref.expires_at) - before
    expect(expiresIn).toBeGreaterThan(23.9 * 3600_000)
    expect(expiresIn).toBeLessThan(24.1 * 3600_000)
    expect(res.body.data.details.resource_id).toBe(buckets[0])
    expect(res.body.data.details.remediate).toBeUndefined()

    // Nothing ran: no remediation, the row has no remediation record, the bucket is unchanged.
    const remediations = await env.sql((sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM remediations WHERE finding_id = ${finding.id}`)
    expect(remediations[0]!.n).toBe(0)
    expect((await rowOf(buckets[0]!)).remediate).toBeUndefined()
    expect(await versioning(buckets[0]!)).toBeUndefined()

    const again = await remediate(alice, buckets[0]!)
    expect(again.status).toBe(409)
    expect(again.body.message).toBe(ApprovalMessages.alreadyRequested)

    // The approvers (the owner and Bob) are mailed with a link to the inbox; neither the requester nor the auditor.
    const bobMails = await waitFor("the approver's mail", async () => ((await mailsTo(bob.email)).length > 0 ? mailsTo(bob.email) : undefined))
    expect(bobMails[0]!.kind).toBe("remediation_request")
    expect(bobMails[0]!.text_body).toContain(`/dashboard/approvals?request=${ref.id}`)
    expect(bobMails[0]!.text_body).toContain("Versioning is required by our backup policy")
    await waitFor("the owner's mail", async () => ((await mailsTo(owner.email)).length > 0 ? true : undefined))
    expect(await mailsTo(alice.email)).toEqual([])
    expect(await mailsTo(auditor.email)).toEqual([])
  })

  it("refuses the requester's own approval and members without remediate_findings", async () => {
    const pending = await env.call(bob, "GET", "/api/remediation-requests?state=pending")
    expect(pending.status, pending.text).toBe(200)
    expect(pending.body.data).toHaveLength(1)
    const request = pending.body.data[0]
    expect(request).toMatchObject({
      state: "pending",
      account_id: accountId,
      finding_id: finding.id,
      check_id: CHECK,
      rows: [{ resource_id: buckets[0], region: "us-east-1" }],
      comment: "Versioning is required by our backup policy",
      requested_by: { id: alice.userId, email: alice.email },
      requested_by_you: false,
      decided_by: null,
    })
    expect(request.fix_description).toBe("Enables versioning on the bucket.")

    const own = await env.call(alice, "POST", `/api/remediation-requests/${request.id}/approve`, {})
    expect(own.status).toBe(403)
    expect(own.body.message).toBe(ApprovalMessages.ownRequest)
    const ownReject = await env.call(alice, "POST", `/api/remediation-requests/${request.id}/reject`, { comment: "never mind" })
    expect(ownReject.status).toBe(403)

    const noPermission = await env.call(auditor, "POST", `/api/remediation-requests/${request.id}/approve`, {})
    expect(noPermission.status).toBe(403)
    expect(noPermission.body.message).toBe(ApprovalMessages.approvePermissionDenied)
    expect((await env.call(auditor, "GET", "/api/remediation-requests")).status).toBe(403)

    const badFilter = await env.call(bob, "GET", "/api/remediation-requests?state=waiting")
    expect(badFilter.status).toBe(400)
    const unknown = await env.call(bob, "POST", "/api/remediation-requests/999999/approve", {})
    expect(unknown.status).toBe(404)

    // Still pending, nothing ran.
    expect(await versioning(buckets[0]!)).toBeUndefined()
    const after = await env.call(bob, "GET", `/api/remediation-requests?state=pending`)
    expect(after.body.data.map((r: any) => r.id)).toEqual([request.id])
  })

  it("runs exactly the requested row once another member approves, and mails the requester", async () => {
    const [request] = (await env.call(bob, "GET", "/api/remediation-requests?state=pending")).body.data
    const approved = await env.call(bob, "POST", `/api/remediation-requests/${request.id}/approve`, { comment: "Go ahead" })
    expect(approved.status, approved.text).toBe(200)
    expect(approved.body.message).toBe(ApprovalMessages.requestApproved)
    expect(approved.body.data).toMatchObject({
      state: "approved",
      decided_by: { id: bob.userId, email: bob.email },
      decision_comment: "Go ahead",
    })
    expect(approved.body.data.remediation_ids).toHaveLength(1)

    // The remediation ran in the requester's name, through the usual path, and was verified.
    const row = await waitFor("the remediation", async () => {
      const r = await rowOf(buckets[0]!)
      return r.remediate?.status === "remediated" || r.remediate?.status === "failed" ? r : undefined
    }, 90_000)
    expect(row.remediate.status, row.remediate.message).toBe("remediated")
    expect(row.remediate.attempted_by).toEqual({ id: alice.userId, email: alice.email })
    expect(await versioning(buckets[0]!)).toBe("Enabled")
    // Only that row: the other bucket is untouched.
    expect(await versioning(buckets[1]!)).toBeUndefined()
    expect((await rowOf(buckets[1]!)).remediate).toBeUndefined()

    const again = await env.call(owner, "POST", `/api/remediation-requests/${request.id}/approve`, {})
    expect(again.status).toBe(409)
    expect(again.body.message).toBe(ApprovalMessages.notPending)

    expect(await auditOf(request.id)).toEqual([
      { action: "remediation_request.created", actor_user_id: alice.userId },
      { action: "remediation_request.approved", actor_user_id: bob.userId },
    ])
    const mails = await waitFor("the requester's mail", async () => ((await mailsTo(alice.email)).length > 0 ? mailsTo(alice.email) : undefined))
    expect(mails.map((m) => m.subject)).toEqual([`Remediation request approved: Moto account`])
    expect(mails[0]!.text_body).toContain(`was approved by ${bob.email}`)
    expect(mails[0]!.text_body).toContain("Comment: Go ahead")
  })

  it("rejects with a comment (required): nothing runs, the requester is mailed", async () => {
    const res = await remediate(alice, buckets[1]!)
    expect(res.status, res.text).toBe(202)
    const id = res.body.data.approval_request.id
    const noComment = await env.call(bob, "POST", `/api/remediation-requests/${id}/reject`, { comment: "  " })
    expect(noComment.status).toBe(400)
    expect(noComment.body.message).toBe(ApprovalMessages.rejectCommentRequired)
    const rejected = await env.call(bob, "POST", `/api/remediation-requests/${id}/reject`, { comment: "This bucket holds logs only" })
    expect(rejected.status, rejected.text).toBe(200)
    expect(rejected.body.data).toMatchObject({ state: "rejected", decision_comment: "This bucket holds logs only", remediation_ids: [] })
    expect(await versioning(buckets[1]!)).toBeUndefined()
    expect((await rowOf(buckets[1]!)).remediate).toBeUndefined()
    expect(await auditOf(id)).toEqual([
      { action: "remediation_request.created", actor_user_id: alice.userId },
      { action: "remediation_request.rejected", actor_user_id: bob.userId },
    ])
    const mails = await waitFor("the rejection mail", async () => {
      const m = await mailsTo(alice.email)
      return m.length >= 2 ? m : undefined
    })
    expect(mails[1]!.subject).toBe("Remediation request rejected: Moto account")
    expect(mails[1]!.text_body).toContain("Comment: This bucket holds logs only")
    const approveRejected = await env.call(owner, "POST", `/api/remediation-requests/${id}/approve`, {})
    expect(approveRejected.status).toBe(409)
  })

  it("expires a request nobody approved in time (the ticker), which can then no longer be approved", async () => {
    const res = await remediate(alice, buckets[1]!)
    expect(res.status, res.text).toBe(202)
    const id = res.body.data.approval_request.id
    // The expiry time passes (the clock moved on: the request is dated back).
    await env.sql((sql) => sql`UPDATE remediation_requests SET requested_at = now() - interval '25 hours', expires_at = now() - interval '1 hour' WHERE id = ${id}`)
    const expired = await waitFor("the expiry", async () => {
      const list = await env.call(bob, "GET", `/api/remediation-requests?state=expired`)
      return list.body.data.find((r: any) => r.id === id)
    }, 30_000)
    expect(expired).toMatchObject({ state: "expired", decided_by: null })
    const late = await env.call(bob, "POST", `/api/remediation-requests/${id}/approve`, {})
    expect(late.status).toBe(409)
    expect(await versioning(buckets[1]!)).toBeUndefined()
    expect(await auditOf(id)).toEqual([
      { action: "remediation_request.created", actor_user_id: alice.userId },
      { action: "remediation_request.expired", actor_user_id: null },
    ])
    const mails = await waitFor("the expiry mail", async () => {
      const m = await mailsTo(alice.email)
      return m.length >= 3 ? m : undefined
    })
    expect(mails[2]!.subject).toBe("Remediation request expired: Moto account")
    expect(mails[2]!.text_body).toContain("expired before anyone approved it; nothing was changed")
  })

  it("lets the requester withdraw a pending request, and nobody else", async () => {
    const res = await remediate(alice, buckets[1]!)
    expect(res.status, res.text).toBe(202)
    const id = res.body.data.approval_request.id
    expect((await env.call(bob, "POST", `/api/remediation-requests/${id}/cancel`, {})).status).toBe(403)
    const cancelled = await env.call(alice, "POST", `/api/remediation-requests/${id}/cancel`, {})
    expect(cancelled.status, cancelled.text).toBe(200)
    expect(cancelled.body.data).toMatchObject({ state: "cancelled", requested_by_you: true })
    expect((await env.call(bob, "POST", `/api/remediation-requests/${id}/approve`, {})).status).toBe(409)
    expect((await auditOf(id)).map((a) => a.action)).toEqual(["remediation_request.created", "remediation_request.cancelled"])
  })

  it("remediates at once again when the account no longer requires approval", async () => {
    const off = await env.call(owner, "PUT", `/api/accounts/${accountId}/approval`, { requires_approval: false, expiry_hours: 24 })
    expect(off.status).toBe(200)
    const res = await remediate(alice, buckets[1]!)
    expect(res.status, res.text).toBe(200)
    expect(res.body.message).toBe(ScanningServerMessages.remediationQueued)
    expect(res.body.data.approval_request).toBeUndefined()
    const row = await waitFor("the direct remediation", async () => {
      const r = await rowOf(buckets[1]!)
      return r.remediate?.status === "remediated" || r.remediate?.status === "failed" ? r : undefined
    }, 90_000)
    expect(row.remediate.status).toBe("remediated")
  })
})
