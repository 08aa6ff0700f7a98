/**
 * AWS Security Hub export (issue 33 part 6) on moto_server, read back with GetFindings: the API over HTTP with the job
 * worker in-process; a real S3 scan completes, which queues the export job; the findings of the failing buckets are
 * imported, a mute rule's change is sent again (Workflow SUPPRESSED), a fixed bucket's finding is archived (Compliance
 * PASSED) while unchanged findings are not sent again, and another workspace's account is neither visible nor touched.
 * The API's answers per finding (FailedFindings), a hub that is not enabled and a missing permission are not produced
 * by moto: they are driven through the SDK stub of server/scanner/aws/clients.ts (`sendPlan`, the code the job runs).
 */
import { CreateBucketCommand, PutBucketVersioningCommand } from "@aws-sdk/client-s3"
import { EnableSecurityHubCommand, GetFindingsCommand, type AwsSecurityFinding } from "@aws-sdk/client-securityhub"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SecurityHubMessages } from "../../src/contracts/security-hub.ts"
import {
  BATCH_SIZE,
  findingUid,
  planExport,
  sendPlan,
  type ExportTarget,
  type FailingRow,
  type PlannedFinding,
} from "../../server/integrations/security-hub.ts"
import { makeAwsClients, type AwsClients, type StubCall } from "../../server/scanner/aws/clients.ts"
import { addMotoAccount, MOTO_KEYS, Roles, sleep, startScanEnv, uniq, type Member, type ScanEnv } from "../scanning/support.ts"

const VERSIONING = "s3_bucket_versioning_enabled"

let env: ScanEnv
let owner: Member
let auditor: Member
let outsider: Member
let aws: AwsClients
const fixedLater = uniq("sh-fixed")
const staysFailing = uniq("sh-failing")
const compliant = uniq("sh-ok")

beforeAll(async () => {
  env = await startScanEnv()
  owner = await env.workspace()
  auditor = await env.member(owner, Roles.Auditor)
  outsider = await env.workspace()
  aws = makeAwsClients({ credentials: { accessKeyId: MOTO_KEYS.access_key, secretAccessKey: MOTO_KEYS.secret_key }, endpoint: env.moto.endpoint, maxAttempts: 1 })
  const s3 = aws.get("s3", "us-east-1")
  for (const bucket of [fixedLater, staysFailing, compliant]) await s3.send(new CreateBucketCommand({ Bucket: bucket }))
  await s3.send(new PutBucketVersioningCommand({ Bucket: compliant, VersioningConfiguration: { Status: "Enabled" } }))
  await aws.get("securityhub", "us-east-1").send(new EnableSecurityHubCommand({}))
}, 120_000)

afterAll(async () => {
  aws?.destroy()
  await env?.stop()
})

/** Every finding in the hub (moto applies no filter server-side: filtered here). */
const hubFindings = async (accountId: number): Promise<Array<AwsSecurityFinding>> => {
  const out: Array<AwsSecurityFinding> = []
  let token: string | undefined
  do {
    const page = await aws.get("securityhub", "us-east-1").send(new GetFindingsCommand({ MaxResults: 100, ...(token === undefined ? {} : { NextToken: token }) }))
    out.push(...(page.Findings ?? []))
    token = page.NextToken
  } while (token !== undefined && token !== "")
  return out.filter((f) => f.Id?.startsWith(`cloud-audit/account-${accountId}/`))
}

const bucketFinding = (findings: ReadonlyArray<AwsSecurityFinding>, bucket: string, check = VERSIONING) =>
  findings.find((f) => f.GeneratorId === check && f.Resources?.[0]?.Id === `arn:aws:s3:::${bucket}`)

const scanS3 = async (member: Member, accountId: number) => {
  const res = await env.call(member, "POST", "/api/scans", {
    user_id: member.userId, account_id: accountId, cloud_provider_id: 1, cloud_provider_name: "aws", services: ["s3"],
  })
  expect(res.status, res.text).toBe(200)
  const scan = await env.waitForScan(member, res.body.data.id)
  expect(scan.status, JSON.stringify({ scan, logs: env.logs.filter((l) => /"(error|warn)"/.test(l)).slice(-8) })).toBe("completed")
  return scan.id as number
}

/** Waits until the account's last export is the one of `scanId`; answers that account row. */
const exported = async (member: Member, accountId: number, scanId: number, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const res = await env.call(member, "GET", "/api/integrations/security-hub/accounts")
    expect(res.status, res.text).toBe(200)
    const row = res.body.data.find((a: any) => a.account_id === accountId)
    if (row?.last_export?.scan_id === scanId) return row
    if (Date.now() > deadline) throw new Error(`no export of scan ${scanId}: ${res.text}`)
    await sleep(250)
  }
}

let accountId: number

describe("settings", () => {
  it("are for workspace admins, AWS accounts of the workspace, with a region when on", async () => {
    accountId = (await addMotoAccount(env, owner)).id
    const list = await env.call(owner, "GET", "/api/integrations/security-hub/accounts")
    expect(list.status).toBe(200)
    expect(list.body.data).toEqual([
      expect.objectContaining({ account_id: accountId, cloud_account_id: "123456789012", enabled: false, regions: [], last_export: null }),
    ])
    const denied = await env.call(auditor, "PUT", `/api/integrations/security-hub/accounts/${accountId}`, { enabled: true, regions: ["us-east-1"] })
    expect(denied.status).toBe(403)
    expect(denied.body.message).toBe(SecurityHubMessages.adminOnly)
    const noRegion = await env.call(owner, "PUT", `/api/integrations/security-hub/accounts/${accountId}`, { enabled: true, regions: [] })
    expect(noRegion.status).toBe(400)
    expect(noRegion.body.message).toBe(SecurityHubMessages.regionRequired)
    const badRegion = await env.call(owner, "PUT", `/api/integrations/security-hub/accounts/${accountId}`, { enabled: true, regions: ["Mars"] })
    expect(badRegion.status).toBe(400)
    const off = await env.call(owner, "POST", `/api/integrations/security-hub/accounts/${accountId}/export`)
    expect(off.status).toBe(400)
    expect(off.body.message).toBe(SecurityHubMessages.exportDisabled)
    const saved = await env.call(owner, "PUT", `/api/integrations/security-hub/accounts/${accountId}`, { enabled: true, regions: ["us-east-1"] })
    expect(saved.status, saved.text).toBe(200)
    expect(saved.body.data).toMatchObject({ enabled: true, regions: ["us-east-1"] })
    const audit = await env.sql((q) => q<{ action: string }>`SELECT action FROM audit_log WHERE workspace_id = ${owner.workspaceId} AND action = 'security_hub.updated'`)
    expect(audit.length).toBe(1)
  })
})

let firstScan: number
let firstUpdatedAt: string | undefined

describe("export after a completed scan", () => {
  it("imports one ACTIVE ASFF finding per failing resource of each check", async () => {
    firstScan = await scanS3(owner, accountId)
    const row = await exported(owner, accountId, firstScan)
    expect(row.last_export).toMatchObject({ status: "ok", archived: 0, failed: 0 })
    expect(row.last_export.sent).toBeGreaterThanOrEqual(2)
    const findings = await hubFindings(accountId)
    expect(findings.length).toBe(row.last_export.sent)
    const failing = bucketFinding(findings, staysFailing)!
    expect(failing).toMatchObject({
      SchemaVersion: "2018-10-08",
      Id: findingUid(accountId, VERSIONING, failing.ProductFields!["cloud-audit/resource"]!),
      ProductArn: "arn:aws:securityhub:us-east-1:123456789012:product/123456789012/default",
      GeneratorId: VERSIONING,
      AwsAccountId: "123456789012",
      Compliance: { Status: "FAILED" },
      Workflow: { Status: "NEW" },
      RecordState: "ACTIVE",
      Resources: [expect.objectContaining({ Type: "AwsS3Bucket", Id: `arn:aws:s3:::${staysFailing}` })],
    })
    expect(["CRITICAL", "HIGH", "MEDIUM", "LOW"]).toContain(failing.Severity?.Label)
    expect(failing.Title).toBeTruthy()
    expect(failing.SourceUrl).toBe(`${env.server.config.appOrigin}/dashboard/accounts/${accountId}/resource?uid=${encodeURIComponent(failing.ProductFields!["cloud-audit/resource"]!)}`)
    expect(bucketFinding(findings, fixedLater)?.RecordState).toBe("ACTIVE")
    expect(bucketFinding(findings, compliant)).toBeUndefined()
    firstUpdatedAt = failing.UpdatedAt
  }, 180_000)

  it("sends a changed finding again (muted → Workflow SUPPRESSED) and nothing that did not change", async () => {
    const rule = await env.call(owner, "POST", "/api/mute-rules", {
      reason: "accepted for the test", account_id: accountId, check_id: VERSIONING, resource_pattern: `*${staysFailing}`,
    })
    expect(rule.status, rule.text).toBe(200)
    const scan = await scanS3(owner, accountId)
    const row = await exported(owner, accountId, scan)
    expect(row.last_export).toMatchObject({ status: "ok", sent: 1, archived: 0, failed: 0 })
    const findings = await hubFindings(accountId)
    expect(bucketFinding(findings, staysFailing)).toMatchObject({ RecordState: "ACTIVE", Workflow: { Status: "SUPPRESSED" } })
    // CreatedAt is the first sending's; the unchanged finding of the other bucket was not sent again.
    expect(bucketFinding(findings, staysFailing)!.UpdatedAt).not.toBe(firstUpdatedAt)
    expect(bucketFinding(findings, staysFailing)!.CreatedAt).toBe(firstUpdatedAt)
  }, 180_000)

  it("archives the finding of a fixed resource (Compliance PASSED) and keeps the failing one", async () => {
    await aws.get("s3", "us-east-1").send(new PutBucketVersioningCommand({ Bucket: fixedLater, VersioningConfiguration: { Status: "Enabled" } }))
    const scan = await scanS3(owner, accountId)
    const row = await exported(owner, accountId, scan)
    expect(row.last_export.status).toBe("ok")
    expect(row.last_export.archived).toBeGreaterThanOrEqual(1)
    const findings = await hubFindings(accountId)
    expect(bucketFinding(findings, fixedLater)).toMatchObject({
      RecordState: "ARCHIVED", Compliance: { Status: "PASSED" }, Workflow: { Status: "RESOLVED" },
    })
    expect(bucketFinding(findings, staysFailing)?.RecordState).toBe("ACTIVE")
  }, 180_000)

  it("keeps workspaces apart: another workspace neither sees nor configures the account, and its export leaves ours alone", async () => {
    const list = await env.call(outsider, "GET", "/api/integrations/security-hub/accounts")
    expect(list.status).toBe(200)
    expect(list.body.data).toEqual([])
    const put = await env.call(outsider, "PUT", `/api/integrations/security-hub/accounts/${accountId}`, { enabled: false, regions: [] })
    expect(put.status).toBe(404)
    const send = await env.call(outsider, "POST", `/api/integrations/security-hub/accounts/${accountId}/export`)
    expect(send.status).toBe(404)
    const before = await hubFindings(accountId)
    const theirs = (await addMotoAccount(env, outsider, "Same AWS account, other workspace")).id
    expect((await env.call(outsider, "PUT", `/api/integrations/security-hub/accounts/${theirs}`, { enabled: true, regions: ["us-east-1"] })).status).toBe(200)
    const scan = await scanS3(outsider, theirs)
    await exported(outsider, theirs, scan)
    expect((await hubFindings(theirs)).length).toBeGreaterThan(0)
    const after = await hubFindings(accountId)
    expect(after.map((f) => [f.Id, f.RecordState, f.UpdatedAt]).sort()).toEqual(before.map((f) => [f.Id, f.RecordState, f.UpdatedAt]).sort())
  }, 180_000)
})

// ---- What moto does not answer: driven through the SDK stub ------------------------------------------------------

const target: ExportTarget = {
  accountId: 7, awsAccountId: "111122223333", partition: "aws", regions: ["eu-west-1", "us-east-1"],
  findingUrl: (row) => `https://audit.example/dashboard/scans/1/findings/${row.findingId}`,
}
const row = (i: number, region = "eu-west-1"): FailingRow => ({
  checkId: "s3_bucket_versioning_enabled", title: "S3 bucket versioning", description: "Versioning keeps old objects", severity: "medium",
  remediation: "Enable versioning", resourceId: `bucket-${i}`, resourceUid: `aws:s3:${region}:bucket-${i}`, region, muted: false, findingId: 9,
})

const stubbed = (answer: (call: StubCall) => Record<string, unknown> | undefined) => {
  const calls: Array<StubCall> = []
  const clients = makeAwsClients({
    credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "x" }, endpoint: "http://127.0.0.1:9", maxAttempts: 1,
    stub: (call) => {
      calls.push(call)
      return answer(call)
    },
  })
  return { clients, calls }
}

describe("sending (SDK stub)", () => {
  const plan = planExport(target, [...Array.from({ length: 230 }, (_, i) => row(i)), row(999, "global")], new Set([VERSIONING]), [], "2026-11-27T00:00:00.000Z")

  it("sends 100 findings per call and region; a global resource goes to the first region", async () => {
    const { clients, calls } = stubbed(() => ({ FailedCount: 0, SuccessCount: 0, FailedFindings: [] }))
    const outcome = await sendPlan(clients, target.awsAccountId, plan, "2026-11-27T00:00:00.000Z")
    clients.destroy()
    expect(calls.map((c) => [c.command, c.region, (c.input as { Findings: unknown[] }).Findings.length])).toEqual([
      ["BatchImportFindingsCommand", "eu-west-1", 100], ["BatchImportFindingsCommand", "eu-west-1", 100], ["BatchImportFindingsCommand", "eu-west-1", 31],
    ])
    expect(calls.every((c) => (c.input as { Findings: unknown[] }).Findings.length <= BATCH_SIZE)).toBe(true)
    expect(outcome.sent.length).toBe(231)
    expect(outcome.failed).toEqual([])
  })

  it("reports FailedFindings and does not count them as sent", async () => {
    const rejectedId = plan[3]!.uid
    const { clients } = stubbed(() => ({
      FailedCount: 1, SuccessCount: 99, FailedFindings: [{ Id: rejectedId, ErrorCode: "InvalidInput", ErrorMessage: "Finding does not adhere to ASFF" }],
    }))
    const outcome = await sendPlan(clients, target.awsAccountId, plan.slice(0, 100), "2026-11-27T00:00:00.000Z")
    clients.destroy()
    expect(outcome.failed).toEqual([{ uid: rejectedId, code: "InvalidInput", message: "Finding does not adhere to ASFF" }])
    expect(outcome.sent.map((p: PlannedFinding) => p.uid)).not.toContain(rejectedId)
    expect(outcome.sent.length).toBe(99)
  })

  const throwing = (name: string, message: string, status: number) => () => {
    throw Object.assign(new Error(message), { name, $metadata: { httpStatusCode: status } })
  }

  it("stops with a clear message when the hub is not enabled in the region", async () => {
    const { clients } = stubbed(throwing("InvalidAccessException", "Account 111122223333 is not subscribed to AWS Security Hub", 401))
    const outcome = await sendPlan(clients, target.awsAccountId, plan.slice(0, 5), "2026-11-27T00:00:00.000Z")
    clients.destroy()
    expect(outcome.stopped).toBe(SecurityHubMessages.hubNotEnabled("111122223333", "eu-west-1"))
    expect(outcome.sent).toEqual([])
  })

  it("names the missing permission when the credentials may not import findings", async () => {
    const { clients } = stubbed(throwing("AccessDeniedException", "not authorized to perform: securityhub:BatchImportFindings", 403))
    const outcome = await sendPlan(clients, target.awsAccountId, plan.slice(0, 5), "2026-11-27T00:00:00.000Z")
    clients.destroy()
    expect(outcome.stopped).toBe(SecurityHubMessages.permissionMissing("111122223333"))
  })

  it("fails (so the job is retried) when Security Hub cannot be reached", async () => {
    const { clients } = stubbed(throwing("InternalException", "try again", 500))
    await expect(sendPlan(clients, target.awsAccountId, plan.slice(0, 5), "2026-11-27T00:00:00.000Z")).rejects.toThrow(/InternalException/)
    clients.destroy()
  })

  it("plans only what changed: an unchanged finding is not sent, a resolved one is archived, an unevaluated check is left alone", () => {
    const first = planExport(target, [row(1), row(2)], new Set([VERSIONING]), [], "2026-11-01T00:00:00.000Z")
    const sent = first.map((p) => ({
      uid: p.uid, checkId: p.checkId, resourceUid: p.resourceUid, region: p.region, recordState: p.recordState, digest: p.digest,
      firstSentAt: p.createdAt, title: "S3 bucket versioning",
    }))
    expect(planExport(target, [row(1), row(2)], new Set([VERSIONING]), sent, "2026-11-02T00:00:00.000Z")).toEqual([])
    const next = planExport(target, [row(1)], new Set([VERSIONING]), sent, "2026-11-02T00:00:00.000Z")
    expect(next.map((p) => [p.resourceUid, p.recordState, p.createdAt])).toEqual([["arn:aws:s3:::bucket-2", "ARCHIVED", "2026-11-01T00:00:00.000Z"]])
    expect(next[0]!.content).toMatchObject({ Compliance: { Status: "PASSED" }, Workflow: { Status: "RESOLVED" }, RecordState: "ARCHIVED" })
    expect(planExport(target, [], new Set(), sent, "2026-11-02T00:00:00.000Z")).toEqual([])
  })
})
