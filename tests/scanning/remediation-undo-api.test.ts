/**
 * Issue 32 over HTTP, with a worker and moto: preview a row's fix (exact calls, CLI, Terraform; nothing changes),
 * remediate it (the answer names the remediation), follow it in GET /api/remediations, refuse an undo when the bucket
 * changed since the fix (409 with the difference), force it, and find the bucket as it was and the row failing again.
 */
import { GetPublicAccessBlockCommand, PutPublicAccessBlockCommand, CreateBucketCommand } from "@aws-sdk/client-s3"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ScanningMessages } from "../../src/contracts/messages.ts"
import { RemediationMessages } from "../../src/contracts/remediations.ts"
import { makeAwsClients, type AwsClients } from "../../server/scanner/aws/clients.ts"
import { addMotoAccount, detailed, MOTO_KEYS, Roles, sleep, startScan, startScanEnv, uniq, type Member, type ScanEnv } from "./support.ts"

const CHECK = "s3_bucket_level_public_access_block"

let env: ScanEnv
let owner: Member
let auditor: Member
let aws: AwsClients
const bucket = uniq("undo-pab")
const partial = { BlockPublicAcls: true, IgnorePublicAcls: false, BlockPublicPolicy: false, RestrictPublicBuckets: false }

beforeAll(async () => {
  env = await startScanEnv()
  owner = await env.workspace()
  auditor = await env.member(owner, Roles.Auditor)
  aws = makeAwsClients({ credentials: { accessKeyId: MOTO_KEYS.access_key, secretAccessKey: MOTO_KEYS.secret_key }, endpoint: env.moto.endpoint, maxAttempts: 1 })
  await aws.get("s3", "us-east-1").send(new CreateBucketCommand({ Bucket: bucket }))
  await aws.get("s3", "us-east-1").send(new PutPublicAccessBlockCommand({ Bucket: bucket, PublicAccessBlockConfiguration: partial }))
}, 120_000)

afterAll(async () => {
  aws?.destroy()
  await env?.stop()
})

const pab = async () => (await aws.get("s3", "us-east-1").send(new GetPublicAccessBlockCommand({ Bucket: bucket }))).PublicAccessBlockConfiguration

const waitFor = async (id: number, until: (state: string) => boolean) => {
  let r: any
  for (let i = 0; i < 240; i++) {
    r = (await env.call(owner, "GET", `/api/remediations/${id}`)).body.data
    if (until(r.state)) return r
    await sleep(250)
  }
  return r
}

describe("remediation preview and undo over HTTP", () => {
  let finding: any
  let row: any
  let remediationId: number

  it("previews the fix without changing the bucket", async () => {
    const account = await addMotoAccount(env, owner)
    const started = await startScan(env, owner, account.id)
    const scan = await env.waitForScan(owner, started.id)
    const list = await env.call(owner, "GET", `/api/findings?scan_id=${scan.id}&check=${CHECK}`)
    finding = await detailed(env, owner, list.body.data.find((f: any) => f.check_id === CHECK))
    row = finding.details.find((d: any) => d.resource_id === bucket)
    expect(row.compliance).toBe(false)

    const denied = await env.call(auditor, "POST", `/api/findings/${finding.id}/remediation-preview`, { result_seq: row.result_seq })
    expect(denied.status).toBe(403)
    expect(denied.body.message).toBe(ScanningMessages.remediatePermissionDenied)
    const empty = await env.call(owner, "POST", `/api/findings/${finding.id}/remediation-preview`, {})
    expect(empty.status).toBe(400)
    expect(empty.body.message).toBe(RemediationMessages.rowRequired)

    const res = await env.call(owner, "POST", `/api/findings/${finding.id}/remediation-preview`, { result_seq: row.result_seq })
    expect(res.status, res.text).toBe(200)
    const p = res.body.data
    expect(p.calls).toEqual([
      {
        service: "s3",
        operation: "PutPublicAccessBlock",
        region: "us-east-1",
        params: { Bucket: bucket, PublicAccessBlockConfiguration: { BlockPublicAcls: true, IgnorePublicAcls: true, BlockPublicPolicy: true, RestrictPublicBuckets: true } },
        cli: expect.stringContaining(`aws s3api put-public-access-block --region us-east-1 --bucket ${bucket}`),
      },
    ])
    expect(p.reversible).toBe(true)
    expect(p.undo_calls[0].params).toEqual({ Bucket: bucket, PublicAccessBlockConfiguration: partial })
    expect(p.terraform).toContain(`resource "aws_s3_bucket_public_access_block"`)
    expect(p.state).toEqual({ PublicAccessBlockConfiguration: partial })
    expect(p.undo_retention_days).toBe(30)
    expect(await pab()).toEqual(partial)
  }, 300_000)

  it("remediates: the answer names the remediation, which ends verified with its pre- and post-image", async () => {
    const res = await env.call(owner, "POST", `/api/findings/${finding.id}/remediate`, { details: row })
    expect(res.status, res.text).toBe(200)
    expect(res.body.id).toEqual(expect.any(Number))
    remediationId = res.body.id
    const r = await waitFor(remediationId, (s) => s !== "pending" && s !== "applied")
    expect(r).toMatchObject({ id: remediationId, finding_id: finding.id, check_id: CHECK, resource_id: bucket, state: "verified" })
    expect(r.pre_image).toEqual({ PublicAccessBlockConfiguration: partial })
    expect(r.post_image).toEqual({ PublicAccessBlockConfiguration: { BlockPublicAcls: true, IgnorePublicAcls: true, BlockPublicPolicy: true, RestrictPublicBuckets: true } })
    expect(r.undo.available).toBe(true)
    expect(Date.parse(r.undo.until) - Date.now()).toBeGreaterThan(29 * 86_400_000)
    const list = await env.call(owner, "GET", `/api/remediations?finding_id=${finding.id}`)
    expect(list.body.data.map((x: any) => x.id)).toEqual([remediationId])
  }, 120_000)

  it("refuses the undo with the difference when the bucket changed since the fix; forced, restores the state before the fix", async () => {
    await aws.get("s3", "us-east-1").send(new PutPublicAccessBlockCommand({ Bucket: bucket, PublicAccessBlockConfiguration: { BlockPublicAcls: true, IgnorePublicAcls: true, BlockPublicPolicy: true, RestrictPublicBuckets: false } }))
    const refused = await env.call(owner, "POST", `/api/remediations/${remediationId}/undo`, {})
    expect(refused.status).toBe(409)
    expect(refused.body._tag).toBe("RemediationConflict")
    expect(refused.body.differences).toEqual([{ path: "PublicAccessBlockConfiguration.RestrictPublicBuckets", expected: true, actual: false }])
    expect((await env.call(owner, "GET", `/api/remediations/${remediationId}`)).body.data.state).toBe("verified")

    const forced = await env.call(owner, "POST", `/api/remediations/${remediationId}/undo`, { force: true })
    expect(forced.status, forced.text).toBe(200)
    expect(forced.body.data.state).toBe("undoing")
    const r = await waitFor(remediationId, (s) => s !== "undoing")
    expect(r.state).toBe("undone")
    expect(r.undo).toMatchObject({ available: false, reason: RemediationMessages.alreadyUndone, forced: true, requested_by: { id: owner.userId } })
    expect(await pab()).toEqual(partial)
    const again = await detailed(env, owner, finding)
    expect(again.details.find((d: any) => d.resource_id === bucket).remediate).toBeUndefined()
    const twice = await env.call(owner, "POST", `/api/remediations/${remediationId}/undo`, { force: true })
    expect(twice.status).toBe(409)
    expect(twice.body.message).toBe(RemediationMessages.alreadyUndone)
    const audit = await env.sql((q) => q<{ action: string }>`SELECT action FROM audit_log WHERE action LIKE 'remediation.%' ORDER BY id`)
    expect(audit.map((a) => a.action)).toEqual(["remediation.requested", "remediation.succeeded", "remediation.undo_requested", "remediation.undone"])
    // Webhooks and Slack hear of the fix and of its undo (server/integrations/events.ts).
    const events = await env.sql((q) => q<{ type: string; data: any }>`SELECT type, data FROM integration_events WHERE type LIKE 'remediation.%' ORDER BY created_at`)
    expect(events.map((e) => e.type)).toEqual(["remediation.completed", "remediation.undone"])
    expect(events[1]!.data.remediation).toMatchObject({ id: remediationId, check_id: CHECK, resource_id: bucket })
    expect(events[1]!.data.actor).toMatchObject({ id: owner.userId })
  }, 120_000)
})
