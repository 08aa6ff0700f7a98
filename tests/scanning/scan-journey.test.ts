/**
 * The scanning journey over real HTTP, with the job worker in-process and moto as AWS (issue 5 "Done when"):
 * add an account → launch a scan (one job per service) → per-service statuses and counts → findings list and detail →
 * export csv / json / ocsf (file name, rows, formula neutralisation, filters) → remediate a failing row (the engine's
 * fixer as a job, verified by re-reading) → rescan passes. Also: permissions with the spec's texts, idempotent re-delivery, and
 * cross-workspace isolation (404) for every id-taking endpoint.
 */
import { CreateBucketCommand, DeleteBucketCommand, GetBucketVersioningCommand, PutBucketVersioningCommand } from "@aws-sdk/client-s3"
import { CreateUserCommand } from "@aws-sdk/client-iam"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ScanningMessages, ScanningServerMessages } from "../../src/contracts/messages.ts"
import { AppConfig } from "../../server/config.ts"
import { makeAwsClients, type AwsClients } from "../../server/scanner/aws/clients.ts"
import { fixerInfo } from "../../server/scans/fixers.ts"
import { runService } from "../../server/scans/run-service.ts"
import { withSql } from "../support/db.ts"
import { CSV_COLUMNS } from "../../server/export/csv.ts"
import { parseCsv } from "./csv-parse.ts"
import { addMotoAccount, detailed, MOTO_KEYS, Roles, sleep, startScan, startScanEnv, uniq, type Member, type ScanEnv } from "./support.ts"

const VERSIONING = "s3_bucket_versioning_enabled"

let env: ScanEnv
let owner: Member
let auditor: Member
let manager: Member
let outsider: Member
let aws: AwsClients
const plain = uniq("ca-plain")
const versioned = uniq("ca-versioned")
const doomed = uniq("ca-doomed")

beforeAll(async () => {
  env = await startScanEnv()
  owner = await env.workspace()
  auditor = await env.member(owner, Roles.Auditor)
  manager = await env.member(owner, Roles.MemberManager)
  outsider = await env.workspace()
  aws = makeAwsClients({ credentials: { accessKeyId: MOTO_KEYS.access_key, secretAccessKey: MOTO_KEYS.secret_key }, endpoint: env.moto.endpoint, maxAttempts: 1 })
  const s3 = aws.get("s3", "us-east-1")
  await s3.send(new CreateBucketCommand({ Bucket: plain }))
  await s3.send(new CreateBucketCommand({ Bucket: versioned }))
  await s3.send(new CreateBucketCommand({ Bucket: doomed }))
  await s3.send(new PutBucketVersioningCommand({ Bucket: doomed, VersioningConfiguration: { Status: "Enabled" } }))
  await s3.send(new PutBucketVersioningCommand({ Bucket: versioned, VersioningConfiguration: { Status: "Enabled" } }))
  const iam = aws.get("iam", "us-east-1")
  await iam.send(new CreateUserCommand({ UserName: "=1+1" }))
  await iam.send(new CreateUserCommand({ UserName: "@ops" }))
}, 120_000)

afterAll(async () => {
  aws?.destroy()
  await env?.stop()
})

let accountId: number
let scan: any
let s3ServiceId: number
let versioningFinding: any

describe("launching a scan", () => {
  it("refuses members without scan_service with the spec's text", async () => {
    accountId = (await addMotoAccount(env, owner)).id
    const res = await env.call(manager, "POST", "/api/scans", { user_id: manager.userId, account_id: accountId, cloud_provider_id: 1, cloud_provider_name: "aws" })
    expect(res.status).toBe(403)
    expect(res.body.message).toBe(ScanningMessages.launchPermissionDenied)
  })

  it("checks the provider and the account", async () => {
    const wrong = await env.call(owner, "POST", "/api/scans", { user_id: owner.userId, account_id: accountId, cloud_provider_id: 2, cloud_provider_name: "gcp" })
    expect(wrong.status).toBe(400)
    expect(wrong.body.message).toContain("Invalid cloud provider")
    const missing = await env.call(owner, "POST", "/api/scans", { user_id: owner.userId, account_id: 987654, cloud_provider_id: 1, cloud_provider_name: "aws" })
    expect(missing.status).toBe(404)
  })

  it("creates a pending scan with one pending row and one job per service", async () => {
    const started = await startScan(env, owner, accountId)
    expect(started.services.length).toBeGreaterThanOrEqual(8)
    const jobs = await env.sql((q) =>
      q<{ n: number; with_job: number }>`SELECT count(*)::int AS n, count(job_id)::int AS with_job FROM scan_services WHERE scan_id = ${started.id}`)
    expect(jobs[0]).toEqual({ n: started.services.length, with_job: started.services.length })
    const queued = await env.sql((q) =>
      q<{ n: number }>`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'scans.run-service' AND data->'payload'->>'scan_id' = ${String(started.id)}`)
    expect(queued[0]!.n).toBe(started.services.length)
    scan = await env.waitForScan(owner, started.id)
  }, 180_000)

  it("completes every service with counts that add up", async () => {
    expect(scan.status).toBe("completed")
    expect(scan.scan_end).not.toBeNull()
    expect(scan.completed_services).toBe(scan.total_services)
    const sum = (k: string) => scan.services.reduce((n: number, s: any) => n + s[k], 0)
    for (const s of scan.services) {
      expect(s.status).toBe("completed")
      expect(s.last_scanned_at).not.toBeNull()
      expect(s.passed_findings + s.failed_findings + s.muted_findings + s.not_evaluated_findings).toBe(s.findings_count)
    }
    expect(scan.findings_count).toBe(sum("findings_count"))
    expect(scan.failed_findings).toBe(sum("failed_findings"))
    expect(scan.passed_findings).toBe(scan.findings_count - scan.failed_findings - scan.muted_findings - scan.not_evaluated_findings)
    expect(scan.findings_count).toBeGreaterThan(50)
    s3ServiceId = scan.services.find((s: any) => s.service_name === "S3").service_id
  })

  it("pages the scan list (defaults 1 and 20) and shows it to read-only members", async () => {
    const list = await env.call(auditor, "GET", "/api/scans")
    expect(list.status).toBe(200)
    expect(list.body.pagination).toMatchObject({ page: 1, total: 1, total_pages: 1 })
    expect(list.body.data[0].id).toBe(scan.id)
    expect(list.body.data[0].services).toHaveLength(scan.total_services)
    expect((await env.call(auditor, "GET", "/api/scans?page=2&page_size=1")).body.data).toEqual([])
    expect((await env.call(auditor, "GET", "/api/scans?page_size=0")).status).toBe(400)
  })

  it("re-running a finished service's job changes nothing (idempotent delivery)", async () => {
    const s3 = scan.services.find((s: any) => s.service_name === "S3")
    const before = await env.sql((q) => q<{ n: number }>`SELECT count(*)::int AS n FROM findings WHERE scan_id = ${scan.id}`)
    await withSql(
      env.server.databaseUrl,
      runService(
        { workspace_id: owner.workspaceId, scan_id: scan.id, scan_service_id: s3.id },
        { id: "00000000-0000-4000-8000-000000000000", name: "scans.run-service", retryCount: 0, signal: new AbortController().signal },
      ).pipe(Effect.provide(AppConfig.layerFrom(env.server.config))),
    )
    const after = await env.sql((q) => q<{ n: number }>`SELECT count(*)::int AS n FROM findings WHERE scan_id = ${scan.id}`)
    expect(after[0]!.n).toBe(before[0]!.n)
    const again = await env.call(owner, "GET", `/api/scans/${scan.id}`)
    expect(again.body.data).toEqual(scan)
  })
})

describe("findings", () => {
  it("lists the findings of one service, paged, with a status filter", async () => {
    const res = await env.call(auditor, "GET", `/api/findings?scan_id=${scan.id}&service_id=${s3ServiceId}&page_size=100`)
    expect(res.status, res.text).toBe(200)
    const s3 = scan.services.find((s: any) => s.service_id === s3ServiceId)
    expect(res.body.pagination).toMatchObject({ page: 1, total: s3.findings_count })
    for (const f of res.body.data) expect(f).toMatchObject({ service_name: "S3", account_name: "Moto account", aws_account_id: "123456789012", cloud_provider_name: "AWS" })
    // List items carry counts, never detail rows.
    for (const f of res.body.data) {
      expect(f.details).toEqual([])
      expect(f.resources_failing).toBeLessThanOrEqual(f.resources_checked)
      expect(f.status === "fail").toBe(f.resources_failing > 0)
    }
    versioningFinding = await detailed(env, auditor, res.body.data.find((f: any) => f.check_id === VERSIONING))
    expect(versioningFinding.status).toBe("fail")
    expect(versioningFinding.details_pagination).toMatchObject({ page: 1, page_size: 500, total: versioningFinding.resources_checked })
    expect(versioningFinding.details).toHaveLength(versioningFinding.resources_checked)
    // Failing rows first.
    const flags = versioningFinding.details.map((d: any) => d.compliance === false)
    expect(flags).toEqual([...flags].sort((a: boolean, b: boolean) => Number(b) - Number(a)))
    const rows = Object.fromEntries(versioningFinding.details.map((d: any) => [d.resource_id, d.compliance]))
    expect(rows).toMatchObject({ [plain]: false, [versioned]: true })

    const failed = await env.call(auditor, "GET", `/api/findings?scan_id=${scan.id}&status=fail&page_size=100`)
    expect(failed.body.pagination.total).toBe(scan.failed_findings)
    for (const f of failed.body.data) expect(f.status).toBe("fail")
    const paged = await env.call(auditor, "GET", `/api/findings?scan_id=${scan.id}&page=2&page_size=5`)
    expect(paged.body.data).toHaveLength(5)
    expect(paged.body.pagination).toMatchObject({ page: 2, page_size: 5, total: scan.findings_count, total_pages: Math.ceil(scan.findings_count / 5) })
    expect((await env.call(auditor, "GET", `/api/findings?scan_id=${scan.id}&status=broken`)).status).toBe(400)
    expect((await env.call(auditor, "GET", `/api/findings?scan_id=${scan.id}&service_id=99999`)).status).toBe(404)
  })

  it("shows one finding with its check id, guidance, compliance references and labels", async () => {
    const res = await env.call(auditor, "GET", `/api/findings/${versioningFinding.id}`)
    expect(res.status).toBe(200)
    expect(res.body.data).toMatchObject({ id: versioningFinding.id, check_id: VERSIONING, severity: expect.any(String), policy_check: expect.any(String) })
    expect(res.body.data.remediation).toEqual(expect.any(String))
    expect(res.body.data.compliance.length).toBeGreaterThan(0)
    expect(res.body.data.field_labels).toMatchObject({ resource_id: expect.any(String), compliance: expect.any(String) })
    expect((await env.call(auditor, "GET", "/api/findings/99999999")).status).toBe(404)
  })
})

describe("export", () => {
  const rowsOf = (findings: ReadonlyArray<any>) => findings.reduce((n, f) => n + Math.max(1, f.details.length), 0)

  it("streams JSON with every finding and a file name made of the scan id, 'findings' and a timestamp", async () => {
    const res = await env.call(auditor, "GET", `/api/scans/${scan.id}/export?format=json`)
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toContain("application/json")
    expect(res.headers.get("content-disposition")).toMatch(new RegExp(`^attachment; filename="scan-${scan.id}-findings-\\d{4}-\\d{2}-\\d{2}T[\\d-]+Z\\.json"$`))
    expect(res.body).toHaveLength(scan.findings_count)
  })

  it("streams CSV per RFC 4180, one record per resource, with formula cells neutralised", async () => {
    const json = (await env.call(auditor, "GET", `/api/scans/${scan.id}/export?format=json`)).body
    const res = await env.call(auditor, "GET", `/api/scans/${scan.id}/export?format=csv`)
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toContain("text/csv")
    expect(res.headers.get("content-disposition")).toMatch(new RegExp(`filename="scan-${scan.id}-findings-.+\\.csv"`))
    const records = parseCsv(res.text)
    expect(records[0]).toEqual([...CSV_COLUMNS])
    expect(records.length - 1).toBe(rowsOf(json))
    const resources = records.map((r) => r[CSV_COLUMNS.indexOf("resource_id")])
    expect(resources).toContain("'=1+1")
    expect(resources).toContain("'@ops")
    for (const record of records) for (const cell of record) expect(/^[=+\-@]/.test(cell), cell).toBe(false)
  })

  it("streams OCSF Detection Findings, one per resource", async () => {
    const json = (await env.call(auditor, "GET", `/api/scans/${scan.id}/export?format=json`)).body
    const res = await env.call(auditor, "GET", `/api/scans/${scan.id}/export?format=ocsf`)
    expect(res.status).toBe(200)
    expect(res.headers.get("content-disposition")).toMatch(/\.ocsf\.json"$/)
    expect(res.body).toHaveLength(rowsOf(json))
    for (const r of res.body) expect(r).toMatchObject({ class_uid: 2004, category_uid: 2, cloud: { account: { uid: "123456789012" } } })
    expect(res.body.some((r: any) => r.status_code === "FAIL" && r.metadata.event_code === VERSIONING && r.resources[0].uid === plain)).toBe(true)
  })

  it("applies service, status and severity filters and rejects unknown values", async () => {
    const filtered = await env.call(auditor, "GET", `/api/scans/${scan.id}/export?format=json&service_id=${s3ServiceId}&status=fail,remediated&severity=critical,high,medium`)
    expect(filtered.status).toBe(200)
    expect(filtered.body.length).toBeGreaterThan(0)
    for (const f of filtered.body) {
      expect(f.service_name).toBe("S3")
      expect(["fail", "remediated"]).toContain(f.status)
      expect(f.severity).not.toBe("low")
    }
    expect((await env.call(auditor, "GET", `/api/scans/${scan.id}/export?format=json&severity=urgent`)).status).toBe(400)
    expect((await env.call(auditor, "GET", `/api/scans/${scan.id}/export?format=xml`)).status).toBe(400)
  })
})

describe("remediation", () => {
  const rowOf = (finding: any, resource: string) => finding.details.find((d: any) => d.resource_id === resource)

  it("needs remediate_findings, with the spec's text", async () => {
    const res = await env.call(auditor, "POST", `/api/findings/${versioningFinding.id}/remediate`, { details: rowOf(versioningFinding, plain) })
    expect(res.status).toBe(403)
    expect(res.body.message).toBe(ScanningMessages.remediatePermissionDenied)
  })

  it("refuses compliant rows, rows of another finding, and checks without a fixer", async () => {
    const compliant = await env.call(owner, "POST", `/api/findings/${versioningFinding.id}/remediate`, { details: rowOf(versioningFinding, versioned) })
    expect(compliant.status).toBe(409)
    const unknown = await env.call(owner, "POST", `/api/findings/${versioningFinding.id}/remediate`, { details: { resource_id: "nope", region: "us-east-1" } })
    expect(unknown.status).toBe(400)
    const failing = (await env.call(owner, "GET", `/api/findings?scan_id=${scan.id}&status=fail&page_size=100`)).body.data
    let other: any
    for (const f of failing.filter((x: any) => fixerInfo(x.check_id) === undefined)) {
      const d = await detailed(env, owner, f)
      if (d.details.some((r: any) => r.compliance === false && r.error_code === undefined)) { other = d; break }
    }
    const noFixer = await env.call(owner, "POST", `/api/findings/${other.id}/remediate`, { details: other.details.find((d: any) => d.compliance === false) })
    expect(noFixer.status).toBe(409)
  })

  it("runs the fixer as a job, verifies, records the outcome on the row and marks the finding remediated", async () => {
    const res = await env.call(owner, "POST", `/api/findings/${versioningFinding.id}/remediate`, { details: rowOf(versioningFinding, plain) })
    expect(res.status).toBe(200)
    expect(res.body.data.details.remediate).toMatchObject({ status: "pending", attempted_by: { id: owner.userId, email: owner.email } })
    const twice = await env.call(owner, "POST", `/api/findings/${versioningFinding.id}/remediate`, { details: rowOf(versioningFinding, plain) })
    expect([409]).toContain(twice.status)

    let finding: any
    for (let i = 0; i < 120; i++) {
      finding = (await env.call(auditor, "GET", `/api/findings/${versioningFinding.id}`)).body.data
      if (rowOf(finding, plain).remediate.status !== "pending" && rowOf(finding, plain).remediate.status !== "running") break
      await sleep(250)
    }
    expect(rowOf(finding, plain).remediate).toMatchObject({ status: "remediated", attempted_by: { id: owner.userId, email: owner.email } })
    expect(rowOf(finding, plain).remediate.message).toMatch(/Verified/)
    // The engine's fixer really changed the bucket (read back independently of the scanner).
    const now = await aws.get("s3", "us-east-1").send(new GetBucketVersioningCommand({ Bucket: plain }))
    expect(now.Status).toBe("Enabled")
    expect(Date.parse(rowOf(finding, plain).remediate.attempted_at)).not.toBeNaN()
    expect(finding.status).toBe("remediated")
    const after = (await env.call(owner, "GET", `/api/scans/${scan.id}`)).body.data
    expect(after.failed_findings).toBe(scan.failed_findings - 1)
    const audit = await env.sql((q) => q<{ action: string }>`SELECT action FROM audit_log WHERE action LIKE 'remediation.%' ORDER BY id`)
    expect(audit.map((a) => a.action)).toEqual(["remediation.requested", "remediation.succeeded"])
    const remediations = await env.sql((q) => q<{ status: string }>`SELECT status FROM remediations`)
    expect(remediations).toEqual([{ status: "remediated" }])
  }, 60_000)

  it("records 'failed' with the reason when the fix cannot be applied, and allows trying again", async () => {
    const findings = (await env.call(owner, "GET", `/api/findings?scan_id=${scan.id}&service_id=${s3ServiceId}&status=fail&page_size=100`)).body.data
    const tls = await detailed(env, owner, findings.find((f: any) => f.check_id === "s3_bucket_secure_transport_policy"))
    expect(rowOf(tls, doomed).compliance).toBe(false)
    await aws.get("s3", "us-east-1").send(new DeleteBucketCommand({ Bucket: doomed }))
    const waitOutcome = async () => {
      for (let i = 0; i < 120; i++) {
        const f = (await env.call(auditor, "GET", `/api/findings/${tls.id}`)).body.data
        const status = rowOf(f, doomed).remediate?.status
        if (status !== "pending" && status !== "running") return f
        await sleep(250)
      }
      throw new Error("remediation did not finish")
    }
    expect((await env.call(owner, "POST", `/api/findings/${tls.id}/remediate`, { details: rowOf(tls, doomed) })).status).toBe(200)
    let after = await waitOutcome()
    expect(rowOf(after, doomed).remediate.status).toBe("failed")
    expect(rowOf(after, doomed).remediate.message).toMatch(/Remediation failed|not found|NoSuchBucket/i)
    expect(after.status).toBe("fail")
    // 'Try again': a failed record does not block a new attempt.
    expect((await env.call(owner, "POST", `/api/findings/${tls.id}/remediate`, { details: rowOf(after, doomed) })).status).toBe(200)
    after = await waitOutcome()
    expect(rowOf(after, doomed).remediate.status).toBe("failed")
    const outcomes = await env.sql((q) => q<{ status: string }>`SELECT status FROM remediations WHERE finding_id = ${tls.id} ORDER BY id`)
    expect(outcomes).toEqual([{ status: "failed" }, { status: "failed" }])
  }, 60_000)

  it("a remediation abandoned by its workers (still 'running' long after every attempt could end) no longer blocks a new one", async () => {
    const findings = (await env.call(owner, "GET", `/api/findings?scan_id=${scan.id}&service_id=${s3ServiceId}&status=fail&page_size=100`)).body.data
    const tls = await detailed(env, owner, findings.find((f: any) => f.check_id === "s3_bucket_secure_transport_policy"))
    // The state two killed workers leave behind: the newest remediation 'running', its row saying so.
    const last = await env.sql((q) => q<{ id: number }>`SELECT id FROM remediations WHERE finding_id = ${tls.id} ORDER BY id DESC LIMIT 1`)
    const lastId = last[0]!.id
    await env.sql((q) => q`UPDATE remediations SET status = 'running', finished_at = NULL, started_at = now() - interval '2 minutes' WHERE id = ${lastId}`)
    await env.sql((q) => q`UPDATE results SET remediate = jsonb_set(remediate, '{status}', '"running"') WHERE finding_id = ${tls.id} AND resource_id LIKE ${"%" + doomed + "%"}`)
    const running = rowOf((await env.call(auditor, "GET", `/api/findings/${tls.id}`)).body.data, doomed)
    expect(running.remediate.status).toBe("running")
    // Younger than any attempt can take: really in progress.
    const early = await env.call(owner, "POST", `/api/findings/${tls.id}/remediate`, { details: running })
    expect(early.status).toBe(409)
    expect(early.body.message).toBe(ScanningServerMessages.remediationPending)
    // Older: abandoned — recorded as failed with the reason, and the new request goes ahead.
    await env.sql((q) => q`UPDATE remediations SET started_at = now() - interval '11 minutes' WHERE id = ${lastId}`)
    const retry = await env.call(owner, "POST", `/api/findings/${tls.id}/remediate`, { details: running })
    expect(retry.status).toBe(200)
    expect(retry.body.data.details.remediate.status).toBe("pending")
    const abandoned = await env.sql((q) => q<{ status: string; message: string }>`SELECT status, message FROM remediations WHERE id = ${lastId}`)
    expect(abandoned).toEqual([{ status: "failed", message: ScanningServerMessages.remediationWorkerLost }])
    for (let i = 0; i < 120; i++) {
      const f = (await env.call(auditor, "GET", `/api/findings/${tls.id}`)).body.data
      const status = rowOf(f, doomed).remediate?.status
      if (status !== "pending" && status !== "running") break
      await sleep(250)
    }
    const open = await env.sql((q) => q<{ n: number }>`SELECT count(*)::int AS n FROM remediations WHERE finding_id = ${tls.id} AND status IN ('pending', 'running')`)
    expect(open[0]!.n).toBe(0)
  }, 60_000)

  it("a rescan finds the bucket compliant, classifies every row against the first scan (and export waits for a completed scan)", async () => {
    // A bucket created after the first scan: new failures on the rescan.
    const fresh = uniq("fresh").toLowerCase()
    await aws.get("s3", "us-east-1").send(new CreateBucketCommand({ Bucket: fresh }))
    const again = await startScan(env, owner, accountId)
    const early = await env.call(auditor, "GET", `/api/scans/${again.id}/export?format=csv`)
    expect(early.status).toBe(409)
    const done = await env.waitForScan(owner, again.id)
    expect(done.status).toBe("completed")
    const s3 = done.services.find((s: any) => s.service_name === "S3")
    const findings = (await env.call(owner, "GET", `/api/findings?scan_id=${again.id}&service_id=${s3.service_id}&page_size=100`)).body.data
    const check = await detailed(env, owner, findings.find((f: any) => f.check_id === VERSIONING))
    expect(rowOf(check, plain).compliance).toBe(true)

    // Delta: the first scan's rows are 'first'; the rescan names the scan it was compared with.
    const first = await detailed(env, owner, versioningFinding)
    expect(new Set(first.details.map((d: any) => d.delta))).toEqual(new Set(["first"]))
    expect(first.resources_new).toBe(0)
    expect(done.previous_scan_id).toBe(scan.id)
    // The remediated bucket is fixed, the fresh one is new, the versioned one unchanged.
    expect(rowOf(check, plain).delta).toBe("fixed")
    expect(rowOf(check, fresh)).toMatchObject({ compliance: false, delta: "new" })
    expect(rowOf(check, versioned).delta).toBe("unchanged")
    expect(check.resources_new).toBe(1)
    expect(check.resources_fixed).toBeGreaterThanOrEqual(1)
    // The deleted bucket failed the TLS policy check before and is gone now: fixed.
    const tls = findings.find((f: any) => f.check_id === "s3_bucket_secure_transport_policy")
    expect(tls.resources_fixed).toBeGreaterThanOrEqual(1)
    // Counts per service and per scan are the sums of the findings'.
    const sum = (key: string) => findings.reduce((n: number, f: any) => n + f[key], 0)
    expect(s3).toMatchObject({ new_failing: sum("resources_new"), fixed: sum("resources_fixed") })
    expect(done.new_failing).toBe(done.services.reduce((n: number, x: any) => n + x.new_failing, 0))
    expect(done.fixed).toBe(done.services.reduce((n: number, x: any) => n + x.fixed, 0))
    // 'New only' lists only findings with new failures; the detail's 'new' filter only those rows.
    const newOnly = (await env.call(owner, "GET", `/api/findings?scan_id=${again.id}&new_only=true&page_size=100`)).body
    expect(newOnly.data.length).toBeGreaterThan(0)
    for (const f of newOnly.data) expect(f.resources_new).toBeGreaterThan(0)
    expect(newOnly.data.map((f: any) => f.id)).toContain(check.id)
    const newRows = (await env.call(owner, "GET", `/api/findings/${check.id}?details_status=new`)).body.data
    expect(newRows.details.map((d: any) => d.resource_id)).toEqual([fresh])
    expect(newRows.details_pagination).toMatchObject({ total: 1, status: "new" })
    // Exports carry it.
    const csv = parseCsv((await env.call(owner, "GET", `/api/scans/${again.id}/export?format=csv&service_id=${s3.service_id}`)).text)
    const deltaAt = CSV_COLUMNS.indexOf("delta")
    expect(csv.slice(1).some((r) => r[CSV_COLUMNS.indexOf("resource_id")] === fresh && r[deltaAt] === "new")).toBe(true)
    const list = await env.call(owner, "GET", "/api/scans")
    expect(list.body.data.map((s: any) => s.id)).toEqual([again.id, scan.id])
  }, 180_000)
})

describe("workspace isolation", () => {
  it("answers 404 to another workspace for every id-taking endpoint", async () => {
    const s3Service = scan.services.find((s: any) => s.service_name === "S3")
    const calls: Array<[string, string, unknown?]> = [
      ["GET", `/api/accounts/${accountId}`],
      ["DELETE", `/api/accounts/${accountId}`],
      ["POST", `/api/accounts/${accountId}/reveal-secret`],
      ["POST", "/api/scans", { user_id: outsider.userId, account_id: accountId, cloud_provider_id: 1, cloud_provider_name: "aws" }],
      ["GET", `/api/scans/${scan.id}`],
      ["GET", `/api/scans/${scan.id}/export?format=csv`],
      ["POST", `/api/scans/${scan.id}/cancel`],
      ["GET", `/api/findings?scan_id=${scan.id}`],
      ["GET", `/api/findings?scan_id=${scan.id}&service_id=${s3Service.service_id}`],
      ["GET", `/api/findings/${versioningFinding.id}`],
      ["POST", `/api/findings/${versioningFinding.id}/remediate`, { details: { resource_id: plain, region: "us-east-1" } }],
    ]
    for (const [method, path, body] of calls) {
      const res = await env.call(outsider, method, path, body)
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(404)
      expect(res.text).not.toContain(plain)
    }
    expect((await env.call(outsider, "GET", "/api/accounts?cloud_provider_id=1")).body.data.accounts).toEqual([])
    expect((await env.call(outsider, "GET", "/api/scans")).body.pagination.total).toBe(0)
    // The outsider's token on the owner's workspace: refused outright.
    const foreign = await env.call(outsider, "GET", `/api/scans/${scan.id}`, undefined, owner.workspaceId)
    expect(foreign.status).toBe(403)
    // Nothing was changed by the attempts.
    expect((await env.call(owner, "GET", `/api/accounts/${accountId}`)).status).toBe(200)
  })
})
