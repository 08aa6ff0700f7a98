/**
 * Continuous posture through the API on moto (issue 13): an account's scope and schedule (bad input answers 400 in the
 * catalogue's words), a scheduled slot missed for days runs once, mute rules (validation, permission, audit, counts at
 * once without a rescan, the muted filters, expiry by the ticker, deletion) and the digest email (one per opted-in
 * member per scan, with the scan's numbers).
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ScanningServerMessages } from "../../src/contracts/messages.ts"
import { PostureMessages as M } from "../../src/contracts/posture.ts"
import { addMotoAccount, detailed, Roles, sleep, startScan, startScanEnv, type Member, type ScanEnv } from "../scanning/support.ts"

let env: ScanEnv
let owner: Member
let accountId: number
let scanId: number

const poll = async <T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(250)
  }
}

beforeAll(async () => {
  process.env["POSTURE_TICK_SECONDS"] = "1"
  env = await startScanEnv()
  owner = await env.workspace("Posture")
  accountId = (await addMotoAccount(env, owner)).id
}, 120_000)

afterAll(async () => {
  delete process.env["POSTURE_TICK_SECONDS"]
  await env?.stop()
})

describe("scope and schedule", () => {
  it("refuses bad input with the catalogue's error and the exact message", async () => {
    const put = (body: unknown) => env.call(owner, "PUT", `/api/accounts/${accountId}/schedule`, body)
    const base = { frequency: "daily", time_of_day: "03:00", timezone: "Europe/Paris" }
    for (const [body, message] of [
      [{ ...base, time_of_day: "25:00" }, M.scheduleTimeInvalid],
      [{ ...base, timezone: "Mars/Olympus" }, M.scheduleTimezoneInvalid],
      [{ ...base, regions: ["us-east-9"] }, `${M.scheduleUnknownRegion}: us-east-9`],
      [{ ...base, services: ["nosuchservice"] }, `${M.scheduleUnknownService}: nosuchservice`],
      [{ ...base, services: [] }, M.scheduleEmptyScope],
    ] as const) {
      const res = await put(body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.body).toMatchObject({ _tag: "ValidationError", message })
    }
    const readOnly = await env.member(owner, Roles.Auditor)
    const denied = await env.call(readOnly, "PUT", `/api/accounts/${accountId}/schedule`, base)
    expect(denied.status).toBe(403)
    expect(denied.body.message).toBe(M.schedulePermissionDenied)
    expect((await env.call(readOnly, "GET", `/api/accounts/${accountId}/schedule`)).status).toBe(200)
  })

  it("saves a schedule with its scope, says when it runs next, and a manual scan uses that scope", async () => {
    const res = await env.call(owner, "PUT", `/api/accounts/${accountId}/schedule`, {
      frequency: "weekly", weekday: 3, time_of_day: "06:15", timezone: "America/New_York", regions: ["us-east-1"], services: ["iam"],
    })
    expect(res.status, res.text).toBe(200)
    expect(res.body.data).toMatchObject({ frequency: "weekly", weekday: 3, regions: ["us-east-1"], services: ["iam"], updated_by: owner.email })
    const next = new Date(res.body.data.next_run_at)
    expect(next.getTime()).toBeGreaterThan(Date.now())
    expect(next.getTime() - Date.now()).toBeLessThanOrEqual(7 * 86_400_000 + 3_600_000)
    expect(res.body.data.available_services.some((s: { key: string }) => s.key === "s3")).toBe(true)
    const scan = await startScan(env, owner, accountId)
    expect(scan.services.map((s) => s.service_name)).toEqual(["IAM"])
    const done = await env.waitForScan(owner, scan.id)
    expect(done).toMatchObject({ status: "completed", scope: { regions: ["us-east-1"], services: ["iam"] }, trigger: "manual" })
    scanId = scan.id
    const audit = await env.sql((q) => q<{ action: string }>`SELECT action FROM audit_log WHERE workspace_id = ${owner.workspaceId} AND action = 'schedule.updated'`)
    expect(audit.length).toBe(1)
  }, 120_000)

  it("runs a slot missed for days exactly once, then waits for the next slot", async () => {
    await env.sql((q) => q`UPDATE scan_schedules SET next_run_at = now() - interval '3 days' WHERE account_id = ${accountId}`)
    const scheduled = await poll("the scheduled scan", async () => {
      const rows = await env.sql((q) => q<{ id: number }>`SELECT id FROM scans WHERE account_id = ${accountId} AND trigger = 'schedule'`)
      return rows.length > 0 ? rows : undefined
    })
    const scan = await env.waitForScan(owner, scheduled[0]!.id)
    expect(scan).toMatchObject({ status: "completed", trigger: "schedule", scope: { services: ["iam"] } })
    await sleep(2_500) // more ticks: nothing else is launched
    const count = await env.sql((q) => q<{ n: number }>`SELECT count(*)::int AS n FROM scans WHERE account_id = ${accountId} AND trigger = 'schedule'`)
    expect(count[0]!.n).toBe(1)
    const schedule = (await env.call(owner, "GET", `/api/accounts/${accountId}/schedule`)).body.data
    expect(new Date(schedule.next_run_at).getTime()).toBeGreaterThan(Date.now())
    expect(schedule.last_scan_id).toBe(scheduled[0]!.id)
    scanId = scheduled[0]!.id
    await env.call(owner, "PUT", `/api/accounts/${accountId}/schedule`, { frequency: "off", time_of_day: "06:15", timezone: "UTC", services: ["iam"] })
  }, 180_000)
})

describe("scope of one launch", () => {
  it("scans what the launch names (checked like a schedule's scope), else the account's default", async () => {
    const launch = (extra: Record<string, unknown>) => env.call(owner, "POST", "/api/scans", {
      user_id: owner.userId, account_id: accountId, cloud_provider_id: 1, cloud_provider_name: "aws", ...extra,
    })
    const bad = await launch({ services: ["iam", "nosuchservice"] })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toBe(`${M.scheduleUnknownService}: nosuchservice`)
    const res = await launch({ services: ["account"], regions: ["us-east-1"] })
    expect(res.status, res.text).toBe(200)
    expect(res.body.data).toMatchObject({ scope: { regions: ["us-east-1"], services: ["account"] }, trigger: "manual" })
    expect(res.body.data.services.map((s: { service_name: string }) => s.service_name)).toEqual(["Account"])
    await env.waitForScan(owner, res.body.data.id)
  }, 120_000)
})

describe("mute rules", () => {
  let finding: any
  let before: any
  let ruleId: number

  it("refuses rules that are empty, already expired, unknown or match nothing, and members without the permission", async () => {
    // Rules apply to the account's latest scan and later ones (issue 28: history is immutable): a fresh IAM scan.
    const latest = await startScan(env, owner, accountId)
    await env.waitForScan(owner, latest.id)
    scanId = latest.id
    const list = await env.call(owner, "GET", `/api/findings?scan_id=${scanId}&status=fail&page_size=100`)
    finding = list.body.data.find((f: any) => f.resources_failing >= 1)
    expect(finding, "a failing IAM finding on moto").toBeDefined()
    before = (await env.call(owner, "GET", `/api/scans/${scanId}`)).body.data
    const post = (body: unknown, member: Member = owner) => env.call(member, "POST", "/api/mute-rules", body)
    for (const [body, message] of [
      [{ reason: "x" }, M.muteScopeRequired],
      [{ reason: "   ", check_id: finding.check_id }, M.muteReasonRequired],
      [{ reason: "x", check_id: finding.check_id, expires_at: "2020-01-01T00:00:00Z" }, M.muteExpiryPast],
      [{ reason: "x", check_id: "no_such_check" }, M.muteUnknownCheck],
      [{ reason: "x", resource_pattern: "arn:aws:nothing:*" }, M.mutePatternMatchesNothing],
      [{ reason: "x", tag_key: "never-seen" }, M.muteTagMatchesNothing],
      [{ reason: "x", tag_value: "v", check_id: finding.check_id }, M.muteTagValueWithoutKey],
    ] as const) {
      const res = await post(body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.body).toMatchObject({ _tag: "ValidationError", message })
    }
    const readOnly = await env.member(owner, Roles.Auditor)
    const denied = await post({ reason: "x", check_id: finding.check_id }, readOnly)
    expect(denied.status).toBe(403)
    expect(denied.body.message).toBe(M.mutePermissionDenied)
  }, 120_000)

  it("mutes at once in the latest scan: counts drop, the finding and its rows say muted, filters find them", async () => {
    const res = await env.call(owner, "POST", "/api/mute-rules", { reason: "Accepted: break-glass account", check_id: finding.check_id, account_id: accountId })
    expect(res.status, res.text).toBe(200)
    expect(res.body.rows_changed).toBeGreaterThanOrEqual(finding.resources_failing)
    ruleId = res.body.data.id
    expect(res.body.data).toMatchObject({ check_id: finding.check_id, account_id: accountId, active: true, created_by: owner.email })
    const scan = (await env.call(owner, "GET", `/api/scans/${scanId}`)).body.data
    expect(scan.failed_findings).toBe(before.failed_findings - 1)
    expect(scan.muted_findings).toBe(before.muted_findings + 1)
    expect(scan.passed_findings).toBe(before.passed_findings)
    const muted = await detailed(env, owner, finding)
    expect(muted).toMatchObject({ muted: true, resources_muted: finding.resources_failing })
    const rows = await env.call(owner, "GET", `/api/findings/${finding.id}?details_status=muted`)
    expect(rows.body.data.details_pagination.total).toBe(finding.resources_failing)
    expect(rows.body.data.details[0].muted).toEqual({ rule_id: ruleId, reason: "Accepted: break-glass account" })
    const failRows = await env.call(owner, "GET", `/api/findings/${finding.id}?details_status=fail`)
    expect(failRows.body.data.details_pagination.total).toBe(0)
    const failed = await env.call(owner, "GET", `/api/findings?scan_id=${scanId}&status=fail&page_size=100`)
    expect(failed.body.data.some((f: any) => f.id === finding.id)).toBe(false)
    const mutedList = await env.call(owner, "GET", `/api/findings?scan_id=${scanId}&status=muted`)
    expect(mutedList.body.data.map((f: any) => f.id)).toContain(finding.id)
    const rules = await env.call(owner, "GET", `/api/mute-rules?account_id=${accountId}`)
    expect(rules.body.data.map((r: any) => r.id)).toContain(ruleId)
  })

  it("expires: the ticker unmutes the rows once the expiry has passed, and audits it", async () => {
    const res = await env.call(owner, "PUT", `/api/mute-rules/${ruleId}`, {
      reason: "Until the fix ships", check_id: finding.check_id, account_id: accountId, expires_at: new Date(Date.now() + 2_000).toISOString(),
    })
    expect(res.status, res.text).toBe(200)
    expect(res.body.data).toMatchObject({ reason: "Until the fix ships", updated_by: owner.email })
    await poll("the expiry", async () => {
      const scan = (await env.call(owner, "GET", `/api/scans/${scanId}`)).body.data
      return scan.failed_findings === before.failed_findings && scan.muted_findings === before.muted_findings ? scan : undefined
    }, 20_000)
    const rule = (await env.call(owner, "GET", "/api/mute-rules")).body.data.find((r: any) => r.id === ruleId)
    expect(rule.active).toBe(false)
    expect((await detailed(env, owner, finding)).muted).toBe(false)
  }, 30_000)

  it("deletes, and every change is in the audit log", async () => {
    expect((await env.call(owner, "DELETE", `/api/mute-rules/${ruleId}`)).status).toBe(200)
    expect((await env.call(owner, "DELETE", `/api/mute-rules/${ruleId}`)).status).toBe(404)
    const audit = await env.sql((q) => q<{ action: string }>`
      SELECT action FROM audit_log WHERE workspace_id = ${owner.workspaceId} AND target_type = 'mute_rule' ORDER BY id`)
    expect(audit.map((a) => a.action)).toEqual(["mute_rule.created", "mute_rule.updated", "mute_rule.expired", "mute_rule.deleted"])
  })
})

describe("digest email", () => {
  it("sends one email per opted-in member after a scan, with the scan's numbers, never twice", async () => {
    expect((await env.call(owner, "GET", "/api/user/scan-digest")).body.data).toEqual({ scan_digest: false })
    const put = await env.call(owner, "PUT", "/api/user/scan-digest", { scan_digest: true })
    expect(put.body).toMatchObject({ ok: true, message: M.digestSaved, data: { scan_digest: true } })
    const other = await env.member(owner, Roles.Auditor) // not opted in
    const scan = await startScan(env, owner, accountId)
    const done = await env.waitForScan(owner, scan.id)
    const mails = await poll("the digest", async () => {
      const rows = await env.sql((q) => q<{ to_address: string; subject: string; text_body: string }>`
        SELECT to_address, subject, text_body FROM dev_outbox WHERE subject LIKE 'Scan of %' ORDER BY id`)
      return rows.length > 0 ? rows : undefined
    }, 30_000)
    await sleep(2_500)
    const again = await env.sql((q) => q<{ n: number }>`SELECT count(*)::int AS n FROM dev_outbox WHERE subject LIKE 'Scan of %'`)
    expect(again[0]!.n).toBe(1)
    expect(mails[0]!.to_address).toBe(owner.email)
    expect(mails.some((m) => m.to_address === other.email)).toBe(false)
    const failingRows = await env.sql((q) => q<{ n: number }>`
      SELECT count(*)::int AS n FROM results r JOIN findings f ON f.id = r.finding_id
      WHERE f.scan_id = ${scan.id} AND f.status = 'fail' AND r.seq < f.resources_failing AND r.muted_by IS NULL`)
    expect(mails[0]!.text_body).toContain(`${done.new_failing} new failing, ${done.fixed} fixed, ${failingRows[0]!.n - done.new_failing} still failing`)
    expect(mails[0]!.text_body).toContain(`/dashboard/scans/${scan.id}`)
    void Effect
  }, 120_000)
})

describe("overview and trends", () => {
  it("answers each account's trend of completed scans, stale accounts and the top failing checks", async () => {
    const other = (await env.sql((q) => q<{ id: number }>`
      INSERT INTO accounts (workspace_id, cloud_provider_id, account_name, cloud_account_id, auth_method, credentials_sealed)
      VALUES (${owner.workspaceId}, 1, 'Never scanned', '999999999999', 'access_key', 'v1.x') RETURNING id`))[0]!
    const res = await env.call(owner, "GET", "/api/posture/overview")
    expect(res.status, res.text).toBe(200)
    const data = res.body.data
    const scanned = data.accounts.find((a: any) => a.account_id === accountId)
    const never = data.accounts.find((a: any) => a.account_id === other.id)
    expect(never).toMatchObject({ stale: true, last_scan_at: null, scans: [] })
    expect(scanned.stale).toBe(false)
    const scans = (await env.sql((q) => q<{ id: number }>`
      SELECT id FROM scans WHERE account_id = ${accountId} AND status = 'completed' ORDER BY scan_start`)).map((s) => s.id)
    expect(scanned.scans.map((s: any) => s.scan_id)).toEqual(scans.slice(-10))
    const last = scanned.scans.at(-1)
    const expected = await env.sql((q) => q<{ severity: string; n: number }>`
      SELECT severity, sum(greatest(0, resources_failing - resources_muted - resources_remediated))::int AS n
      FROM findings WHERE scan_id = ${last.scan_id} AND status = 'fail' GROUP BY severity`)
    for (const e of expected) expect(last.failing[e.severity]).toBe(e.n)
    expect(data.top_failing_checks.length).toBeGreaterThan(0)
    expect(data.top_failing_checks[0]).toMatchObject({ accounts: 1 })
    expect(data.stale_after_days).toBe(7)
  })
})

describe("resource page", () => {
  it("answers one resource's results across the account's scans, newest first, and 404 for an unknown one", async () => {
    const list = await env.call(owner, "GET", `/api/findings?scan_id=${scanId}&status=fail&page_size=100`)
    const finding = list.body.data.find((f: any) => f.resources_failing >= 1)
    const row = (await detailed(env, owner, finding)).details.find((d: any) => d.compliance === false)
    expect(typeof row.resource_uid).toBe("string")
    const res = await env.call(owner, "GET", `/api/resources/history?account_id=${accountId}&uid=${encodeURIComponent(row.resource_uid)}`)
    expect(res.status, res.text).toBe(200)
    const history = res.body.data
    expect(history).toMatchObject({ account_id: accountId, resource_uid: row.resource_uid, resource_id: row.resource_id })
    const starts = history.scans.map((s: any) => s.scan_start)
    expect([...starts].sort().reverse()).toEqual(starts)
    const inScan = history.scans.find((s: any) => s.scan_id === scanId)
    expect(inScan.results.find((r: any) => r.finding_id === finding.id)).toMatchObject({ check_id: finding.check_id, compliant: false })
    const unknown = await env.call(owner, "GET", `/api/resources/history?account_id=${accountId}&uid=nope`)
    expect(unknown.status).toBe(404)
    expect(unknown.body.message).toBe(M.resourceNotFound)
    const other = await env.workspace("Other")
    expect((await env.call(other, "GET", `/api/resources/history?account_id=${accountId}&uid=${encodeURIComponent(row.resource_uid)}`)).status).toBe(404)
  })
})

describe("abandoned remediations", () => {
  it("the ticker fails a remediation every attempt of which died with its worker, with the reason, on the row too; a younger one is left alone", async () => {
    const rows = await env.sql((q) => q<{ finding_id: number; seq: number; resource_id: string; region: string; check_id: string }>`
      SELECT r.finding_id, r.seq, r.resource_id, r.region, f.check_id FROM results r JOIN findings f ON f.id = r.finding_id
      WHERE r.workspace_id = ${owner.workspaceId} AND r.scan_id = ${scanId} AND r.compliant = false ORDER BY r.finding_id, r.seq LIMIT 2`)
    expect(rows.length).toBe(2)
    // What two killed workers leave behind (running since 11 minutes), and one really in progress (2 minutes).
    // The row first: once the remediation exists the ticker may fail it at any moment, and a later write of the row
    // would overwrite the outcome it recorded there.
    const plant = async (row: (typeof rows)[number], minutes: number) => {
      await env.sql((q) => q`UPDATE results SET remediate = ${JSON.stringify({ status: "running", message: "", attempted_at: new Date().toISOString(), attempted_by: { id: owner.userId, email: owner.email } })}::jsonb
        WHERE workspace_id = ${owner.workspaceId} AND finding_id = ${row.finding_id} AND seq = ${row.seq}`)
      const inserted = await env.sql((q) => q<{ id: number }>`
        INSERT INTO remediations (workspace_id, finding_id, check_id, resource_id, region, status, requested_by, started_at, result_seq)
        VALUES (${owner.workspaceId}, ${row.finding_id}, ${row.check_id}, ${row.resource_id}, ${row.region}, 'running', ${owner.userId},
                now() - make_interval(mins => ${minutes}), ${row.seq})
        RETURNING id`)
      return inserted[0]!.id
    }
    const abandonedId = await plant(rows[0]!, 11)
    const youngId = await plant(rows[1]!, 2)
    const statusOf = async (id: number) =>
      (await env.sql((q) => q<{ status: string; message: string | null }>`SELECT status, message FROM remediations WHERE id = ${id}`))[0]!
    const failed = await poll("the ticker", async () => {
      const r = await statusOf(abandonedId)
      return r.status === "running" ? undefined : r
    }, 20_000)
    expect(failed).toEqual({ status: "failed", message: ScanningServerMessages.remediationWorkerLost })
    // The finding's row says so without anyone asking again.
    const detail = (await env.call(owner, "GET", `/api/findings/${rows[0]!.finding_id}?details_status=fail&details_page_size=500`)).body.data
    const row = detail.details.find((d: any) => d.result_seq === rows[0]!.seq)
    expect(row.remediate).toMatchObject({ status: "failed", message: ScanningServerMessages.remediationWorkerLost })
    const audit = await env.sql((q) => q<{ action: string }>`
      SELECT action FROM audit_log WHERE workspace_id = ${owner.workspaceId} AND action = 'remediation.failed' AND details->>'remediation_id' = ${String(abandonedId)}`)
    expect(audit.length).toBe(1)
    // Still in progress: untouched after a few more ticks.
    await sleep(2_500)
    expect(await statusOf(youngId)).toEqual({ status: "running", message: null })
  }, 60_000)
})

describe("a slot after the worker started", () => {
  it("the running worker launches a schedule slot that comes after it started (time read on every tick)", async () => {
    const last = (await env.sql((q) => q<{ id: number }>`SELECT coalesce(max(id), 0)::int AS id FROM scans`))[0]!.id
    const put = await env.call(owner, "PUT", `/api/accounts/${accountId}/schedule`, { frequency: "daily", time_of_day: "06:15", timezone: "UTC", services: ["iam"] })
    expect(put.status, put.text).toBe(200)
    // The worker started in beforeAll; this slot is two seconds from now, long after (POSTURE_TICK_SECONDS=1).
    await env.sql((q) => q`UPDATE scan_schedules SET next_run_at = now() + interval '2 seconds' WHERE account_id = ${accountId}`)
    const scheduled = await poll("the scheduled scan of a later slot", async () => {
      const rows = await env.sql((q) => q<{ id: number }>`
        SELECT id FROM scans WHERE account_id = ${accountId} AND trigger = 'schedule' AND id > ${last}`)
      return rows.length > 0 ? rows : undefined
    }, 30_000)
    expect(scheduled.length).toBe(1)
    await env.call(owner, "PUT", `/api/accounts/${accountId}/schedule`, { frequency: "off", time_of_day: "06:15", timezone: "UTC", services: ["iam"] })
    expect(await env.waitForScan(owner, scheduled[0]!.id)).toMatchObject({ status: "completed", trigger: "schedule" })
  }, 90_000)
})

describe("tag scope on moto", () => {
  it("a security group's EC2 tags reach its rows, and a tag rule mutes exactly them", async () => {
    const { CreateSecurityGroupCommand, AuthorizeSecurityGroupIngressCommand, EC2Client } = await import("@aws-sdk/client-ec2")
    const ec2 = new EC2Client({ endpoint: env.moto.endpoint, region: "us-east-1", credentials: { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "moto-secret-key" } })
    const group = await ec2.send(new CreateSecurityGroupCommand({
      GroupName: "tagged-sandbox", Description: "tag scope",
      TagSpecifications: [{ ResourceType: "security-group", Tags: [{ Key: "env", Value: "sandbox" }, { Key: "owner", Value: "team-a" }] }],
    }))
    await ec2.send(new AuthorizeSecurityGroupIngressCommand({
      GroupId: group.GroupId!, IpPermissions: [{ IpProtocol: "tcp", FromPort: 22, ToPort: 22, IpRanges: [{ CidrIp: "0.0.0.0/0" }] }],
    }))
    const launched = await env.call(owner, "POST", "/api/scans", {
      user_id: owner.userId, account_id: accountId, cloud_provider_id: 1, cloud_provider_name: "aws", services: ["ec2"], regions: ["us-east-1"],
    })
    expect(launched.status, launched.text).toBe(200)
    await env.waitForScan(owner, launched.body.data.id)
    const list = await env.call(owner, "GET", `/api/findings?scan_id=${launched.body.data.id}&status=fail&page_size=100`)
    const ssh = list.body.data.find((f: any) => f.check_id === "ec2_securitygroup_allow_ingress_from_internet_to_admin_ports_ipv4")
    const row = (await detailed(env, owner, ssh)).details.find((d: any) => d.resource_id === group.GroupId)
    expect(row.tags).toEqual(["env=sandbox", "owner=team-a"])

    const refused = await env.call(owner, "POST", "/api/mute-rules", { reason: "x", tag_key: "env", tag_value: "production" })
    expect(refused.status).toBe(400)
    expect(refused.body.message).toBe(M.muteTagMatchesNothing)
    const rule = await env.call(owner, "POST", "/api/mute-rules", { reason: "Sandbox groups are throwaway", tag_key: "env", tag_value: "sandbox" })
    expect(rule.status, rule.text).toBe(200)
    const muted = (await detailed(env, owner, ssh)).details.find((d: any) => d.resource_id === group.GroupId)
    expect(muted.muted).toEqual({ rule_id: rule.body.data.id, reason: "Sandbox groups are throwaway" })
    const others = (await detailed(env, owner, ssh)).details.filter((d: any) => d.resource_id !== group.GroupId && d.compliance === false)
    expect(others.every((d: any) => d.muted === undefined)).toBe(true)
    await env.call(owner, "DELETE", `/api/mute-rules/${rule.body.data.id}`)
  }, 120_000)
})
