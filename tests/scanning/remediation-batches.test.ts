/**
 * Bulk remediation (issue 32 part 4; server/scans/remediation-batches.ts) on PostgreSQL and moto, with real
 * `node server/main.ts worker` processes as in ./remediation-recovery.test.ts: 200 security groups opening SSH to the
 * internet (each also holding a rule that stays), remediated as one batch of "every failing row of the check" with
 * progress counts, undone as one batch (every group back to its rules, compared field by field); a second batch whose
 * worker is killed with SIGKILL mid-batch and finished by another worker: every item fixed exactly once (one
 * remediation, one `remediation.requested` and one `remediation.succeeded` each; a revoke sent twice would fail the
 * item, moto answering InvalidPermission.NotFound); a selection stopped midway (no item starts after the stop); the
 * permission (403), tenancy (404) and bad input (400) answers.
 */
import {
  AuthorizeSecurityGroupIngressCommand,
  CreateSecurityGroupCommand,
  DescribeSecurityGroupsCommand,
  type IpPermission,
} from "@aws-sdk/client-ec2"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ScanningMessages, ScanningServerMessages } from "../../src/contracts/messages.ts"
import { BATCH_MAX_ROWS, BatchMessages } from "../../src/contracts/remediation-batches.ts"
import { makeAwsClients, type AwsClients } from "../../server/scanner/aws/clients.ts"
import { addMotoAccount, detailed, type Member, MOTO_KEYS, Roles, type ScanEnv, seedFailingScan, sleep, startScanEnv, uniq } from "./support.ts"
import { type WorkerProcess, workerProcesses } from "./worker-process.ts"

const postgres = (process.env["TEST_DATABASE_URL"] ?? "").trim() !== ""
const CHECK = "ec2_securitygroup_allow_ingress_from_internet_to_admin_ports_ipv4"
const GROUPS = 200

let env: ScanEnv
let owner: Member
let aws: AwsClients
let worker: WorkerProcess
let findingId: number
const prefix = uniq("bulk")
const workers = workerProcesses()

/** Every test group's inbound rules, by group id, in a stable order. */
const groupRules = async (): Promise<Map<string, string>> => {
  const out = new Map<string, string>()
  let token: string | undefined
  do {
    const page = await aws.get("ec2", "us-east-1").send(new DescribeSecurityGroupsCommand({ Filters: [{ Name: "group-name", Values: [`${prefix}-*`] }], NextToken: token }))
    for (const g of page.SecurityGroups ?? []) out.set(g.GroupId!, normalise(g.IpPermissions ?? []))
    token = page.NextToken
  } while (token !== undefined)
  return out
}

const normalise = (perms: ReadonlyArray<IpPermission>) =>
  JSON.stringify(
    perms
      .map((p) => ({ proto: p.IpProtocol, from: p.FromPort, to: p.ToPort, v4: (p.IpRanges ?? []).map((r) => r.CidrIp).sort(), v6: (p.Ipv6Ranges ?? []).map((r) => r.CidrIpv6).sort() }))
      .filter((p) => p.v4.length > 0 || p.v6.length > 0)
      .sort((a, b) => `${a.proto}${a.from}`.localeCompare(`${b.proto}${b.from}`)),
  )

const sshOpen = (rules: string) => rules.includes('"from":22') && rules.includes("0.0.0.0/0")

const batchOf = async (id: number) => {
  const res = await env.call(owner, "GET", `/api/remediation-batches/${id}`)
  expect(res.status, res.text).toBe(200)
  return res.body.data
}

const waitBatch = async (id: number, until: (b: any) => boolean, timeoutMs = 240_000) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const b = await batchOf(id)
    if (until(b)) return b
    if (Date.now() > deadline) throw new Error(`batch ${id} still ${JSON.stringify(b)} after ${timeoutMs} ms: ${worker.output().slice(-3000)}`)
    await sleep(200)
  }
}

const allItems = async (id: number) => {
  const items: Array<any> = []
  let cursor: string | null = null
  do {
    const res: { status: number; text: string; body: any } = await env.call(owner, "GET", `/api/remediation-batches/${id}/items?limit=77${cursor === null ? "" : `&cursor=${cursor}`}`)
    expect(res.status, res.text).toBe(200)
    items.push(...res.body.data)
    cursor = res.body.next_cursor
  } while (cursor !== null)
  return items
}

/** The server's last error log lines (what a 500 hides). */
const serverErrors = () => env.logs.filter((l) => l.includes('"level":"error"') || l.includes("Error")).slice(-3).join("\n")

const killed = (w: WorkerProcess) =>
  new Promise((r) => (w.child.exitCode !== null || w.child.signalCode !== null ? r(undefined) : w.child.once("exit", r)))

describe.skipIf(!postgres)("bulk remediation on moto (PostgreSQL, worker processes)", () => {
  let original: Map<string, string>

  beforeAll(async () => {
    env = await startScanEnv({ worker: false })
    owner = await env.workspace()
    aws = makeAwsClients({ credentials: { accessKeyId: MOTO_KEYS.access_key, secretAccessKey: MOTO_KEYS.secret_key }, endpoint: env.moto.endpoint, maxAttempts: 4 })
    const ec2 = aws.get("ec2", "us-east-1")
    const names = Array.from({ length: GROUPS }, (_, i) => `${prefix}-${i}`)
    for (let i = 0; i < names.length; i += 8) {
      await Promise.all(names.slice(i, i + 8).map(async (name) => {
        const g = await ec2.send(new CreateSecurityGroupCommand({ GroupName: name, Description: "bulk remediation test" }))
        await ec2.send(new AuthorizeSecurityGroupIngressCommand({
          GroupId: g.GroupId,
          IpPermissions: [
            { IpProtocol: "tcp", FromPort: 22, ToPort: 22, IpRanges: [{ CidrIp: "0.0.0.0/0" }] },
            { IpProtocol: "tcp", FromPort: 443, ToPort: 443, IpRanges: [{ CidrIp: "10.0.0.0/8" }] },
          ],
        }))
      }))
    }
    original = await groupRules()
    expect(original.size).toBe(GROUPS)
    worker = workers.start(env, "a")
    await worker.ready()
    const account = await addMotoAccount(env, owner)
    const started = await env.call(owner, "POST", "/api/scans", {
      user_id: owner.userId, account_id: account.id, cloud_provider_id: 1, cloud_provider_name: "aws", services: ["ec2"],
    })
    expect(started.status, started.text).toBe(200)
    const scan = await env.waitForScan(owner, started.body.data.id, 180_000)
    expect(scan.status).toBe("completed")
    const list = await env.call(owner, "GET", `/api/findings?scan_id=${scan.id}&check=${CHECK}`)
    findingId = list.body.data.find((f: any) => f.check_id === CHECK).id
  }, 300_000)

  afterAll(async () => {
    workers.stopAll()
    aws?.destroy()
    await env?.stop()
    workers.removeDirs()
  })

  it("refuses bad input with clear 400s, members without remediate_findings (403) and other workspaces' batches (404)", async () => {
    const post = (body: unknown, who: Member = owner) => env.call(who, "POST", "/api/remediation-batches", body)
    const expect400 = async (body: unknown, message: string) => {
      const res = await post(body)
      expect(res.status, res.text).toBe(400)
      expect(res.text).toContain(message)
    }
    await expect400({}, BatchMessages.rowsOrCheck)
    await expect400({ rows: [{ finding_id: findingId, result_seq: 0 }], check_id: CHECK }, BatchMessages.rowsOrCheck)
    await expect400({ rows: [{ finding_id: findingId, result_seq: 0 }], account_ids: [1] }, BatchMessages.rowsOrCheck)
    await expect400({ rows: [] }, BatchMessages.noRows)
    await expect400({ rows: Array.from({ length: BATCH_MAX_ROWS + 1 }, (_, i) => ({ finding_id: findingId, result_seq: i })) }, BatchMessages.tooManyRows)
    await expect400({ rows: [{ finding_id: findingId, result_seq: 0 }, { finding_id: findingId, result_seq: 0 }] }, BatchMessages.duplicateRow)
    await expect400({ rows: [{ finding_id: findingId, result_seq: 99_999 }] }, ScanningServerMessages.rowNotInFinding)
    await expect400({ rows: [{ finding_id: findingId, result_seq: -1 }] }, "result_seq")
    await expect400({ check_id: "iam_no_such_check" }, BatchMessages.noFixer)
    await expect400({ check_id: CHECK, account_ids: [2_000_000_000] }, BatchMessages.noRows)
    const unknown = await post({ rows: [{ finding_id: 2_000_000_000, result_seq: 0 }] })
    expect(unknown.status, unknown.text).toBe(404)
    expect((await env.call(owner, "GET", "/api/remediation-batches/abc")).status).toBe(400)
    expect((await env.call(owner, "GET", "/api/remediation-batches/2000000000")).status).toBe(404)

    const auditor = await env.member(owner, Roles.Auditor)
    const refused = await post({ check_id: CHECK }, auditor)
    expect(refused.status, refused.text).toBe(403)
    expect(refused.body.message).toBe(ScanningMessages.remediatePermissionDenied)
    expect((await env.call(auditor, "GET", "/api/remediation-batches")).status).toBe(403)
    // Nothing was recorded by the refused calls.
    expect((await env.call(owner, "GET", "/api/remediation-batches")).body.pagination.total).toBe(0)
  })

  it("fixes 200 resources as one batch with progress, then one undo restores every group", async () => {
    const t0 = Date.now()
    const created = await env.call(owner, "POST", "/api/remediation-batches", { check_id: CHECK })
    expect(created.status, `${created.text} ${serverErrors()}`).toBe(202)
    const id = created.body.data.id
    expect(created.body.data).toMatchObject({ total: GROUPS, check_id: CHECK, created_by: { id: owner.userId } })
    expect(created.body.data.counts.pending + created.body.data.counts.skipped).toBe(GROUPS)

    // Progress: done counts only grow, and always add up to the total.
    let lastDone = -1
    const seen: Array<number> = []
    const done = await waitBatch(id, (b) => {
      const c = b.counts
      expect(c.pending + c.running + c.fixed + c.failed + c.skipped).toBe(GROUPS)
      const d = c.fixed + c.failed + c.skipped
      expect(d).toBeGreaterThanOrEqual(lastDone)
      if (d !== lastDone) seen.push(d)
      lastDone = d
      return b.state === "completed"
    })
    const fixMs = Date.now() - t0
    expect(done.counts).toMatchObject({ pending: 0, running: 0, fixed: GROUPS, failed: 0, skipped: 0 })
    expect(seen.length).toBeGreaterThan(2)
    expect(done.reversible).toBe(true)
    expect(done.undo_until).not.toBeNull()
    const fixed = await groupRules()
    expect([...fixed.values()].filter(sshOpen)).toEqual([])
    expect([...fixed.values()].every((r) => r.includes('"from":443') && r.includes("10.0.0.0/8"))).toBe(true)
    const items = await allItems(id)
    expect(items).toHaveLength(GROUPS)
    expect(new Set(items.map((i) => i.remediation_id)).size).toBe(GROUPS)
    expect(items.every((i) => i.state === "fixed" && i.account_name === "Moto account" && i.finding_id === findingId)).toBe(true)
    // The finding's rows are remediated, as a single remediation leaves them.
    const finding = await detailed(env, owner, { id: findingId })
    expect(finding.details.filter((d: any) => original.has(d.resource_id)).every((d: any) => d.remediate?.status === "remediated")).toBe(true)
    // Each item's remediation has its own history entry.
    const one = await env.call(owner, "GET", `/api/remediations/${items[0].remediation_id}`)
    expect(one.body.data).toMatchObject({ state: "verified", undo: { available: true } })

    const t1 = Date.now()
    const undo = await env.call(owner, "POST", `/api/remediation-batches/${id}/undo`, {})
    expect(undo.status, undo.text).toBe(200)
    expect(undo.body.data.state).toBe("undoing")
    const again = await env.call(owner, "POST", `/api/remediation-batches/${id}/undo`, {})
    expect(again.status).toBe(409)
    const undone = await waitBatch(id, (b) => b.state === "undone" || b.state === "undo_failed")
    const undoMs = Date.now() - t1
    expect(undone.counts).toMatchObject({ undone: GROUPS, undo_failed: 0, undoing: 0 })
    expect(undone.reversible).toBe(false)
    expect(await groupRules()).toEqual(original)
    const nothing = await env.call(owner, "POST", `/api/remediation-batches/${id}/undo`, {})
    expect(nothing.status).toBe(409)
    expect(nothing.body.message).toBe(BatchMessages.notUndoable)
    const audit = await env.sql((sql) => sql<{ action: string; n: number }>`
      SELECT action, count(*)::int AS n FROM audit_log WHERE workspace_id = ${owner.workspaceId} AND action LIKE 'remediation_batch.%' GROUP BY action ORDER BY action`)
    expect(audit).toEqual([
      { action: "remediation_batch.finished", n: 1 },
      { action: "remediation_batch.started", n: 1 },
      { action: "remediation_batch.undo_finished", n: 1 },
      { action: "remediation_batch.undo_requested", n: 1 },
    ])
    console.info(`bulk remediation: ${GROUPS} security groups fixed in ${(fixMs / 1000).toFixed(1)} s, undone in ${(undoMs / 1000).toFixed(1)} s`)
  }, 600_000)

  it("a worker killed with SIGKILL mid-batch: another finishes it, nothing lost, nothing run twice", async () => {
    const t0 = Date.now()
    const created = await env.call(owner, "POST", "/api/remediation-batches", { check_id: CHECK })
    expect(created.status, `${created.text} ${serverErrors()}`).toBe(202)
    const id = created.body.data.id
    expect(created.body.data.total).toBe(GROUPS)
    await waitBatch(id, (b) => b.counts.fixed >= 40)
    worker.child.kill("SIGKILL")
    const killedAt = Date.now()
    await killed(worker)
    const atKill = await batchOf(id)
    expect(atKill.state).toBe("running")
    expect(atKill.counts.fixed).toBeLessThan(GROUPS)

    worker = workers.start(env, "b")
    await worker.ready()
    const done = await waitBatch(id, (b) => b.state !== "running")
    const totalMs = Date.now() - t0
    expect(done.state, worker.output().slice(-3000)).toBe("completed")
    expect(done.counts).toMatchObject({ pending: 0, running: 0, fixed: GROUPS, failed: 0, skipped: 0 })
    expect(worker.output()).toContain("remediation batch started")

    // Exactly once: one remediation per item, each requested once and succeeded once.
    const items = await allItems(id)
    const ids = items.map((i) => i.remediation_id as number)
    expect(new Set(ids).size).toBe(GROUPS)
    const perResource = await env.sql((sql) => sql<{ resource_id: string; n: number }>`
      SELECT resource_id, count(*)::int AS n FROM remediations WHERE id = ANY(${ids}::int[]) GROUP BY resource_id`)
    expect(perResource).toHaveLength(GROUPS)
    expect(perResource.every((r) => r.n === 1)).toBe(true)
    const audit = await env.sql((sql) => sql<{ action: string; n: number }>`
      SELECT action, count(*)::int AS n FROM audit_log
      WHERE workspace_id = ${owner.workspaceId} AND (details ->> 'remediation_id')::int = ANY(${ids}::int[]) GROUP BY action ORDER BY action`)
    expect(audit).toEqual([{ action: "remediation.requested", n: GROUPS }, { action: "remediation.succeeded", n: GROUPS }])
    const fixed = await groupRules()
    expect([...fixed.values()].filter(sshOpen)).toEqual([])

    // The undo after a kill still restores the state before the fix (the re-checked items kept their pre-image).
    const undo = await env.call(owner, "POST", `/api/remediation-batches/${id}/undo`, {})
    expect(undo.status, undo.text).toBe(200)
    const undone = await waitBatch(id, (b) => b.state === "undone" || b.state === "undo_failed")
    expect(undone.counts.undone, JSON.stringify((await allItems(id)).filter((i) => i.state !== "undone").slice(0, 3))).toBe(GROUPS)
    expect(await groupRules()).toEqual(original)
    console.info(`bulk remediation: killed ${((killedAt - t0) / 1000).toFixed(1)} s in at ${atKill.counts.fixed} fixed; all ${GROUPS} fixed ${(totalMs / 1000).toFixed(1)} s after start`)
  }, 600_000)

  it("a selection stopped midway: no item starts after the stop, the fixed ones undo as one batch", async () => {
    const finding = await detailed(env, owner, { id: findingId })
    const rows = finding.details.filter((d: any) => original.has(d.resource_id)).slice(0, 100)
      .map((d: any) => ({ finding_id: findingId, result_seq: d.result_seq }))
    expect(rows).toHaveLength(100)
    const created = await env.call(owner, "POST", "/api/remediation-batches", { rows })
    expect(created.status, `${created.text} ${serverErrors()}`).toBe(202)
    const id = created.body.data.id
    expect(created.body.data).toMatchObject({ total: 100, check_id: null })
    await waitBatch(id, (b) => b.counts.fixed >= 10)
    const stop = await env.call(owner, "POST", `/api/remediation-batches/${id}/stop`)
    expect(stop.status, stop.text).toBe(200)
    expect(["stopping", "stopped"]).toContain(stop.body.data.state)
    expect(stop.body.data.counts.pending).toBe(0)
    const atStop = stop.body.data.counts
    const stopped = await waitBatch(id, (b) => b.state === "stopped")
    // Only the items running at the stop finished after it.
    expect(stopped.counts.fixed).toBeLessThanOrEqual(atStop.fixed + atStop.running)
    expect(stopped.counts.fixed).toBeLessThan(100)
    expect(stopped.counts.fixed + stopped.counts.skipped).toBe(100)
    expect(stopped.stop_requested_by).toMatchObject({ id: owner.userId })
    const items = await allItems(id)
    expect(items.filter((i) => i.state === "skipped").every((i) => i.message === BatchMessages.stopped && i.remediation_id === null)).toBe(true)
    const skippedOnly = await env.call(owner, "GET", `/api/remediation-batches/${id}/items?state=skipped&limit=500`)
    expect(skippedOnly.body.data).toHaveLength(stopped.counts.skipped)
    expect((await env.call(owner, "GET", `/api/remediation-batches/${id}/items?state=nope`)).status).toBe(400)
    expect((await env.call(owner, "GET", `/api/remediation-batches/${id}/items?cursor=x`)).status).toBe(400)
    // The cloud agrees: exactly the fixed items' groups lost their SSH rule.
    const rules = await groupRules()
    const fixedIds = new Set(items.filter((i) => i.state === "fixed").map((i) => i.resource_id))
    expect([...rules.entries()].filter(([, r]) => !sshOpen(r)).map(([g]) => g).sort()).toEqual([...fixedIds].sort())
    expect((await env.call(owner, "POST", `/api/remediation-batches/${id}/stop`)).status).toBe(409)

    const undo = await env.call(owner, "POST", `/api/remediation-batches/${id}/undo`, {})
    expect(undo.status, undo.text).toBe(200)
    const undone = await waitBatch(id, (b) => b.state === "undone" || b.state === "undo_failed")
    expect(undone.counts).toMatchObject({ undone: fixedIds.size, skipped: 100 - fixedIds.size })
    expect(await groupRules()).toEqual(original)

    // Another workspace does not see the batch.
    const stranger = await env.workspace()
    expect((await env.call(stranger, "GET", `/api/remediation-batches/${id}`)).status).toBe(404)
    expect((await env.call(stranger, "GET", `/api/remediation-batches/${id}/items`)).status).toBe(404)
    expect((await env.call(stranger, "POST", `/api/remediation-batches/${id}/stop`)).status).toBe(404)
    expect((await env.call(stranger, "POST", `/api/remediation-batches/${id}/undo`, {})).status).toBe(404)
    expect((await env.call(stranger, "GET", "/api/remediation-batches")).body.pagination.total).toBe(0)
    const list = await env.call(owner, "GET", "/api/remediation-batches?page=1&page_size=2")
    const stored = (await env.sql((sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM remediation_batches WHERE workspace_id = ${owner.workspaceId}`))[0]!.n
    expect(stored).toBeGreaterThanOrEqual(2)
    expect(list.body.pagination).toMatchObject({ total: stored, total_pages: Math.ceil(stored / 2) })
    expect(list.body.data[0].id).toBe(id)
  }, 600_000)

  it("a member limited to account groups starts, counts and lists only their accounts' items", async () => {
    // A second account of the workspace (seeded: a completed scan whose finding of the check has two failing rows).
    const other = (await env.sql((sql) => sql<{ id: number }>`
      INSERT INTO accounts (workspace_id, cloud_provider_id, account_name, cloud_account_id, auth_method, credentials_sealed)
      VALUES (${owner.workspaceId}, 1, 'Seeded account', '999999999999', 'access_key', 'v1.sealed') RETURNING id`))[0]!.id
    await seedFailingScan(env, owner.workspaceId, { id: other, cloudAccountId: "999999999999" }, CHECK, ["sg-seeded1", "sg-seeded2"])
    const motoAccount = (await env.sql((sql) => sql<{ id: number }>`
      SELECT id FROM accounts WHERE workspace_id = ${owner.workspaceId} AND account_name = 'Moto account'`))[0]!.id
    // A custom role with every permission, limited to a group holding the seeded account only.
    const limited = await env.member(owner, Roles.Auditor)
    await env.sql((sql) => Effect.gen(function* () {
      const ws = owner.workspaceId
      const roleId = (yield* sql<{ id: number }>`
        INSERT INTO custom_roles (workspace_id, name, limited_to_groups) VALUES (${ws}, 'Seeded lead', true) RETURNING id`)[0]!.id
      yield* sql`INSERT INTO custom_role_permissions (custom_role_id, workspace_id, permission_id) SELECT ${roleId}, ${ws}, id FROM permissions`
      const groupId = (yield* sql<{ id: number }>`INSERT INTO account_groups (workspace_id, name, kind) VALUES (${ws}, 'Seeded', 'manual') RETURNING id`)[0]!.id
      yield* sql`INSERT INTO account_group_accounts (group_id, workspace_id, account_id) VALUES (${groupId}, ${ws}, ${other})`
      yield* sql`INSERT INTO custom_role_account_groups (custom_role_id, workspace_id, group_id) VALUES (${roleId}, ${ws}, ${groupId})`
      yield* sql`UPDATE memberships SET role_id = NULL, custom_role_id = ${roleId} WHERE workspace_id = ${ws} AND user_id = ${limited.userId}`
    }))
    // Their batch of the whole check takes their account's rows only; a row of another account is unknown to them.
    const own = await env.call(limited, "POST", "/api/remediation-batches", { check_id: CHECK })
    expect(own.status, own.text).toBe(202)
    expect(own.body.data.total).toBe(2)
    await env.call(owner, "POST", `/api/remediation-batches/${own.body.data.id}/stop`)
    const seeded = await allItems(own.body.data.id)
    expect(seeded.map((i) => i.account_id)).toEqual([other, other])
    const foreign = await env.call(limited, "POST", "/api/remediation-batches", { rows: [{ finding_id: findingId, result_seq: 0 }] })
    expect(foreign.status, foreign.text).toBe(404)
    // The owner's selection spans both accounts; the limited member counts and lists only theirs.
    const motoRow = (await detailed(env, owner, { id: findingId })).details.find((d: any) => original.has(d.resource_id) && d.compliance === false)
    const both = await env.call(owner, "POST", "/api/remediation-batches", { rows: [
      { finding_id: findingId, result_seq: motoRow.result_seq },
      ...seeded.map((i) => ({ finding_id: i.finding_id, result_seq: i.result_seq })),
    ] })
    expect(both.status, both.text).toBe(202)
    expect(both.body.data.total).toBe(3)
    const seen = await env.call(limited, "GET", `/api/remediation-batches/${both.body.data.id}`)
    expect(seen.status, seen.text).toBe(200)
    expect(seen.body.data.total).toBe(2)
    const listed = await env.call(limited, "GET", `/api/remediation-batches/${both.body.data.id}/items`)
    expect(listed.body.data.map((i: any) => i.account_id)).toEqual([other, other])
    expect((await env.call(owner, "GET", `/api/remediation-batches/${both.body.data.id}/items`)).body.data.map((i: any) => i.account_id))
      .toEqual([motoAccount, other, other])
    expect(motoAccount).not.toBe(other)
  }, 120_000)

  it("a starter whose role loses remediate_findings mid-batch: the items not yet started are skipped with the reason", async () => {
    const engineer = await env.member(owner, Roles.SecurityEngineer)
    const created = await env.call(engineer, "POST", "/api/remediation-batches", { check_id: CHECK })
    expect(created.status, `${created.text} ${serverErrors()}`).toBe(202)
    const id = created.body.data.id
    const total = created.body.data.total
    expect(total).toBeGreaterThan(50)
    await waitBatch(id, (b) => b.counts.fixed >= 3)
    await env.sql((sql) => sql`UPDATE memberships SET role_id = ${Roles.Auditor} WHERE workspace_id = ${owner.workspaceId} AND user_id = ${engineer.userId}`)
    const done = await waitBatch(id, (b) => b.state === "completed" || b.state === "failed")
    const items = await allItems(id)
    const refused = items.filter((i) => i.message === BatchMessages.starterMayNot)
    // Only what was already claimed when the role changed ran; nothing started after it.
    expect(refused.length).toBeGreaterThan(total / 2)
    expect(refused.every((i) => i.state === "skipped" && i.remediation_id === null)).toBe(true)
    expect(done.counts.fixed + done.counts.failed + done.counts.skipped).toBe(total)
    // The owner takes the fixed ones back as one batch.
    const undo = await env.call(owner, "POST", `/api/remediation-batches/${id}/undo`, {})
    expect(undo.status, undo.text).toBe(200)
    const undone = await waitBatch(id, (b) => b.state === "undone" || b.state === "undo_failed")
    expect(undone.counts.undone).toBe(done.counts.fixed)
  }, 600_000)
})
