/**
 * Bulk remediation started or undone with an API key (docs/remediation.md "Bulk", docs/api-keys.md; migration 0035,
 * server/scans/remediation-batches.ts `actorRefusal`), on PGlite and (TEST_DATABASE_URL set) PostgreSQL, against moto,
 * with the in-process worker. The batch jobs are held back at a gate the test opens, so what changes between the
 * start and the run (a key revoked, expired, its group losing an account) is decided before any item is claimed.
 *
 * - a key limited to one account group: its batch of a whole check takes its group's accounts only; a key whose group
 *   loses an account after the start: that account's items are skipped with the reason, the others fixed;
 * - a key revoked, expired, or whose custom role loses remediate_findings after the start: every item is skipped with
 *   the reason, nothing changes in the cloud;
 * - a key without remediate_findings cannot start a batch (403);
 * - a batch started by a signed-in member names no key and runs as before; its undo asked with a key later revoked
 *   fails each item with the reason, the member's own undo then puts everything back.
 * - a stop asked with a key names the key (`stop_api_key`, migration 0037, and the audit row's `details.api_key`); a
 *   member's stop names none.
 * The batch names its member (`created_by`) and its key (`api_key`, `undo_api_key`, `stop_api_key`). A few resources per test.
 */
import { AuthorizeSecurityGroupIngressCommand, CreateSecurityGroupCommand, DescribeSecurityGroupsCommand } from "@aws-sdk/client-ec2"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { jobs as registeredJobs } from "../../server/jobs/registry.ts"
import type { AnyJob, JobContext } from "../../server/jobs/queue.ts"
import { makeAwsClients, type AwsClients } from "../../server/scanner/aws/clients.ts"
import { batchJob, type BatchJobPayload, batchUndoJob } from "../../server/scans/remediation-batches.ts"
import { ScanningMessages } from "../../src/contracts/messages.ts"
import { PERMISSION_IDS } from "../../src/contracts/permissions.ts"
import { BatchMessages } from "../../src/contracts/remediation-batches.ts"
import { makeTestDatabase } from "../support/db.ts"
import { addMotoAccount, type Member, MOTO_KEYS, Roles, type ScanEnv, seedFailingScan, sleep, startScanEnv, uniq } from "./support.ts"

const kinds: ReadonlyArray<"pglite" | "postgres"> = process.env["TEST_DATABASE_URL"] ? ["pglite", "postgres"] : ["pglite"]
const CHECK = "ec2_securitygroup_allow_ingress_from_internet_to_admin_ports_ipv4"

/** A gate the batch jobs wait at before they run (open by default). */
const gate = () => {
  let opened: Promise<void> = Promise.resolve()
  let release = () => {}
  return {
    close: () => {
      opened = new Promise((resolve) => (release = resolve))
    },
    open: () => release(),
    wait: () => Effect.promise(() => opened),
  }
}

describe.each(kinds)("bulk remediation with an API key on %s", (kind) => {
  let env: ScanEnv
  let owner: Member
  let aws: AwsClients
  let motoAccount: { id: number; account_id: string }
  let seededAccount: number
  const held = gate()
  const prefix = uniq("keybatch")
  let n = 0

  const gated: ReadonlyArray<AnyJob> = registeredJobs.map((job): AnyJob =>
    job.name === batchJob.name ? { ...batchJob, handler: (p: BatchJobPayload, ctx: JobContext) => Effect.andThen(held.wait(), batchJob.handler(p, ctx)) }
      : job.name === batchUndoJob.name ? { ...batchUndoJob, handler: (p: BatchJobPayload, ctx: JobContext) => Effect.andThen(held.wait(), batchUndoJob.handler(p, ctx)) }
      : job)

  /** Security groups opening SSH to the internet in moto (each also holding a rule that stays). */
  const openGroups = async (count: number) => {
    const ec2 = aws.get("ec2", "us-east-1")
    const ids: Array<string> = []
    for (let i = 0; i < count; i++) {
      const g = await ec2.send(new CreateSecurityGroupCommand({ GroupName: `${prefix}-${n++}`, Description: "bulk remediation with a key" }))
      await ec2.send(new AuthorizeSecurityGroupIngressCommand({
        GroupId: g.GroupId,
        IpPermissions: [
          { IpProtocol: "tcp", FromPort: 22, ToPort: 22, IpRanges: [{ CidrIp: "0.0.0.0/0" }] },
          { IpProtocol: "tcp", FromPort: 443, ToPort: 443, IpRanges: [{ CidrIp: "10.0.0.0/8" }] },
        ],
      }))
      ids.push(g.GroupId!)
    }
    return ids
  }

  const sshOpen = async (groupId: string) => {
    const out = await aws.get("ec2", "us-east-1").send(new DescribeSecurityGroupsCommand({ GroupIds: [groupId] }))
    return (out.SecurityGroups?.[0]?.IpPermissions ?? []).some((p) => p.FromPort === 22 && (p.IpRanges ?? []).some((r) => r.CidrIp === "0.0.0.0/0"))
  }

  /** A completed scan of the account, now its latest, whose finding of the check fails on each resource. */
  const seedScan = (accountId: number, cloudAccountId: string, resources: ReadonlyArray<string>) =>
    seedFailingScan(env, owner.workspaceId, { id: accountId, cloudAccountId }, CHECK, resources)

  const createKey = async (name: string, roleId: number, groups: ReadonlyArray<number> | null = null, custom = false) => {
    const res = await env.call(owner, "POST", "/api/api-keys", {
      name, role_id: roleId, is_custom_role: custom, expires_in_days: 30, ...(groups === null ? {} : { account_group_ids: groups }),
    })
    expect(res.status, res.text).toBe(200)
    const key = res.body.data as { id: number; name: string; secret: string }
    // A "member" whose bearer token is the key's secret: env.call sends it as Authorization: Bearer with the workspace.
    return { ...key, caller: { ...owner, token: key.secret } satisfies Member }
  }

  const batchOf = async (id: number) => {
    const res = await env.call(owner, "GET", `/api/remediation-batches/${id}`)
    expect(res.status, res.text).toBe(200)
    return res.body.data
  }

  const settled = async (id: number, done: ReadonlyArray<string>) => {
    const deadline = Date.now() + 120_000
    for (;;) {
      const b = await batchOf(id)
      if (done.includes(b.state)) return b
      if (Date.now() > deadline) throw new Error(`batch ${id} still ${JSON.stringify(b)}: ${env.logs.slice(-5).join("\n")}`)
      await sleep(200)
    }
  }

  /** The batch's `remediation_batch.stop_requested` audit rows: their actor and the key named in their details. */
  const stopAudit = (id: number) =>
    env.sql((sql) => sql<{ actor_user_id: number | null; api_key: { id: number; name: string } | null }>`
      SELECT actor_user_id, details -> 'api_key' AS api_key FROM audit_log
      WHERE workspace_id = ${owner.workspaceId} AND action = 'remediation_batch.stop_requested' AND target_id = ${String(id)} ORDER BY id`)

  const itemsOf = async (id: number) => {
    const res = await env.call(owner, "GET", `/api/remediation-batches/${id}/items?limit=500`)
    expect(res.status, res.text).toBe(200)
    return res.body.data as Array<{ account_id: number; resource_id: string; state: string; message: string | null; remediation_id: number | null }>
  }

  beforeAll(async () => {
    env = await startScanEnv({ database: await makeTestDatabase({ kind }), jobs: gated })
    owner = await env.workspace()
    aws = makeAwsClients({ credentials: { accessKeyId: MOTO_KEYS.access_key, secretAccessKey: MOTO_KEYS.secret_key }, endpoint: env.moto.endpoint, maxAttempts: 4 })
    motoAccount = await addMotoAccount(env, owner)
    // A second account of the workspace (its credentials never used: its items are refused before they run).
    seededAccount = await env.sql((sql) => sql<{ id: number }>`
      INSERT INTO accounts (workspace_id, cloud_provider_id, account_name, cloud_account_id, auth_method, credentials_sealed)
      VALUES (${owner.workspaceId}, 1, 'Seeded account', '999999999999', 'access_key', 'v1.sealed') RETURNING id`).then((r) => r[0]!.id)
  }, 180_000)

  afterAll(async () => {
    held.open()
    aws?.destroy()
    await env?.stop()
  })

  it("a key limited to one account group: its batch of a check takes that group's accounts; an account its group loses is skipped", async () => {
    const moto = await openGroups(2)
    await seedScan(motoAccount.id, motoAccount.account_id, moto)
    await seedScan(seededAccount, "999999999999", ["sg-seeded1", "sg-seeded2"])
    const only = await env.call(owner, "POST", "/api/account-groups", { name: uniq("Moto only"), kind: "manual", account_ids: [motoAccount.id] })
    expect(only.status, only.text).toBe(200)
    const both = await env.call(owner, "POST", "/api/account-groups", { name: uniq("Both"), kind: "manual", account_ids: [motoAccount.id, seededAccount] })
    expect(both.status, both.text).toBe(200)

    held.close()
    // Limited to the moto account's group: a batch of the whole check over both accounts takes the moto account's rows.
    const narrow = await createKey("Moto only", Roles.SecurityEngineer, [only.body.data.id])
    const mine = await env.call(narrow.caller, "POST", "/api/remediation-batches", { check_id: CHECK })
    expect(mine.status, mine.text).toBe(202)
    expect(mine.body.data).toMatchObject({ total: 2, created_by: { id: owner.userId, email: owner.email }, api_key: { id: narrow.id, name: "Moto only" } })
    expect((await itemsOf(mine.body.data.id)).map((i) => i.account_id)).toEqual([motoAccount.id, motoAccount.id])
    // Stopped by the signed-in member: the stop names the member and no key (the batch and its audit row).
    const memberStop = await env.call(owner, "POST", `/api/remediation-batches/${mine.body.data.id}/stop`)
    expect(memberStop.status, memberStop.text).toBe(200)
    expect(memberStop.body.data).toMatchObject({ stop_requested_by: { id: owner.userId }, stop_api_key: null, api_key: { id: narrow.id } })
    expect(await stopAudit(mine.body.data.id)).toEqual([{ actor_user_id: owner.userId, api_key: null }])

    // Limited to a group of both accounts, which loses the seeded account after the start.
    const wide = await createKey("Both accounts", Roles.SecurityEngineer, [both.body.data.id])
    const started = await env.call(wide.caller, "POST", "/api/remediation-batches", { check_id: CHECK })
    expect(started.status, started.text).toBe(202)
    const id = started.body.data.id
    expect(started.body.data).toMatchObject({ total: 4, api_key: { id: wide.id, name: "Both accounts" }, undo_api_key: null })
    await env.sql((sql) => sql`DELETE FROM account_group_accounts WHERE group_id = ${both.body.data.id} AND account_id = ${seededAccount}`)
    held.open()
    const done = await settled(id, ["completed", "failed"])
    expect(done.counts).toMatchObject({ fixed: 2, skipped: 2, failed: 0 })
    const items = await itemsOf(id)
    expect(items.filter((i) => i.account_id === motoAccount.id).map((i) => i.state)).toEqual(["fixed", "fixed"])
    expect(items.filter((i) => i.account_id === seededAccount).map((i) => [i.state, i.message, i.remediation_id]))
      .toEqual([["skipped", BatchMessages.keyMayNot, null], ["skipped", BatchMessages.keyMayNot, null]])
    for (const g of moto) expect(await sshOpen(g)).toBe(false)
    // The list names the member and the key as well.
    const listed = (await env.call(owner, "GET", "/api/remediation-batches")).body.data.find((b: any) => b.id === id)
    expect(listed).toMatchObject({ created_by: { id: owner.userId }, api_key: { id: wide.id, name: "Both accounts" } })
  }, 180_000)

  it("a key revoked, expired or whose role loses remediate_findings after the start: the items not yet started are skipped with the reason", async () => {
    const moto = await openGroups(2)
    await seedScan(motoAccount.id, motoAccount.account_id, moto)

    held.close()
    const revoked = await createKey("Revoked later", Roles.SecurityEngineer)
    const first = await env.call(revoked.caller, "POST", "/api/remediation-batches", { account_ids: [motoAccount.id], check_id: CHECK })
    expect(first.status, first.text).toBe(202)
    expect(first.body.data.total).toBe(2)
    expect((await env.call(owner, "DELETE", `/api/api-keys/${revoked.id}`)).status).toBe(200)
    held.open()
    const r = await settled(first.body.data.id, ["completed", "failed"])
    expect(r.counts).toMatchObject({ fixed: 0, skipped: 2 })
    expect((await itemsOf(first.body.data.id)).map((i) => [i.state, i.message])).toEqual([["skipped", BatchMessages.keyRevoked], ["skipped", BatchMessages.keyRevoked]])

    held.close()
    const expiring = await createKey("Expired later", Roles.SecurityEngineer)
    const second = await env.call(expiring.caller, "POST", "/api/remediation-batches", { check_id: CHECK, account_ids: [motoAccount.id] })
    expect(second.status, second.text).toBe(202)
    await env.sql((sql) => sql`UPDATE api_keys SET created_at = now() - interval '2 days', expires_at = now() - interval '1 second' WHERE id = ${expiring.id}`)
    held.open()
    const e = await settled(second.body.data.id, ["completed", "failed"])
    expect(e.counts).toMatchObject({ fixed: 0, skipped: 2 })
    expect((await itemsOf(second.body.data.id)).map((i) => [i.state, i.message])).toEqual([["skipped", BatchMessages.keyExpired], ["skipped", BatchMessages.keyExpired]])

    // A key whose custom role loses remediate_findings after the start.
    const roleId = await env.sql((sql) => Effect.gen(function* () {
      const ws = owner.workspaceId
      const id = (yield* sql<{ id: number }>`INSERT INTO custom_roles (workspace_id, name, limited_to_groups) VALUES (${ws}, ${uniq("Fixers")}, false) RETURNING id`)[0]!.id
      yield* sql`INSERT INTO custom_role_permissions (custom_role_id, workspace_id, permission_id)
                 VALUES (${id}, ${ws}, ${PERMISSION_IDS.remediate_findings}), (${id}, ${ws}, ${PERMISSION_IDS.read_only})`
      return id
    }))
    held.close()
    const fixer = await createKey("Role changed later", roleId, null, true)
    const third = await env.call(fixer.caller, "POST", "/api/remediation-batches", { check_id: CHECK, account_ids: [motoAccount.id] })
    expect(third.status, third.text).toBe(202)
    await env.sql((sql) => sql`DELETE FROM custom_role_permissions WHERE custom_role_id = ${roleId} AND permission_id = ${PERMISSION_IDS.remediate_findings}`)
    held.open()
    const c = await settled(third.body.data.id, ["completed", "failed"])
    expect(c.counts).toMatchObject({ fixed: 0, skipped: 2 })
    expect((await itemsOf(third.body.data.id)).map((i) => [i.state, i.message])).toEqual([["skipped", BatchMessages.keyMayNot], ["skipped", BatchMessages.keyMayNot]])
    for (const g of moto) expect(await sshOpen(g)).toBe(true)

    // A key whose role lacks remediate_findings cannot start one.
    const reader = await createKey("Reader", Roles.Auditor)
    const refused = await env.call(reader.caller, "POST", "/api/remediation-batches", { check_id: CHECK })
    expect(refused.status, refused.text).toBe(403)
    expect(refused.body.message).toBe(ScanningMessages.remediatePermissionDenied)
  }, 180_000)

  it("a stop asked with a key names the key on the batch and in its audit row, beside the key's creator", async () => {
    const moto = await openGroups(2)
    await seedScan(motoAccount.id, motoAccount.account_id, moto)
    held.close()
    // Started by the signed-in member, stopped with a key before any item runs.
    const started = await env.call(owner, "POST", "/api/remediation-batches", { check_id: CHECK, account_ids: [motoAccount.id] })
    expect(started.status, started.text).toBe(202)
    const id = started.body.data.id
    expect(started.body.data).toMatchObject({ api_key: null, stop_api_key: null, stop_requested_by: null })
    const stopper = await createKey("Incident bot", Roles.SecurityEngineer)
    const stop = await env.call(stopper.caller, "POST", `/api/remediation-batches/${id}/stop`)
    expect(stop.status, stop.text).toBe(200)
    expect(stop.body.data).toMatchObject({
      state: "stopped", stop_requested_by: { id: owner.userId }, stop_api_key: { id: stopper.id, name: "Incident bot" }, api_key: null, undo_api_key: null,
    })
    expect(await stopAudit(id)).toEqual([{ actor_user_id: owner.userId, api_key: { id: stopper.id, name: "Incident bot" } }])
    // Read back (the page and the list) it still names the key; a revoked key stays named (keys are never deleted).
    expect((await env.call(owner, "DELETE", `/api/api-keys/${stopper.id}`)).status).toBe(200)
    expect(await batchOf(id)).toMatchObject({ stop_api_key: { id: stopper.id, name: "Incident bot" } })
    const listed = (await env.call(owner, "GET", "/api/remediation-batches")).body.data.find((b: any) => b.id === id)
    expect(listed).toMatchObject({ stop_api_key: { id: stopper.id, name: "Incident bot" } })
    held.open()
    const done = await settled(id, ["stopped"])
    expect(done.counts).toMatchObject({ fixed: 0, skipped: 2 })
    for (const g of moto) expect(await sshOpen(g)).toBe(true)
  }, 180_000)

  it("a member's batch names no key and runs as before; its undo asked with a key revoked later fails with the reason", async () => {
    const moto = await openGroups(2)
    await seedScan(motoAccount.id, motoAccount.account_id, moto)
    const started = await env.call(owner, "POST", "/api/remediation-batches", { check_id: CHECK, account_ids: [motoAccount.id] })
    expect(started.status, started.text).toBe(202)
    const id = started.body.data.id
    expect(started.body.data).toMatchObject({ total: 2, created_by: { id: owner.userId, email: owner.email }, api_key: null })
    const done = await settled(id, ["completed", "failed"])
    expect(done.counts).toMatchObject({ fixed: 2, skipped: 0 })
    for (const g of moto) expect(await sshOpen(g)).toBe(false)

    held.close()
    const undoer = await createKey("Undoer", Roles.SecurityEngineer)
    const undo = await env.call(undoer.caller, "POST", `/api/remediation-batches/${id}/undo`, {})
    expect(undo.status, undo.text).toBe(200)
    expect(undo.body.data).toMatchObject({ state: "undoing", undo_requested_by: { id: owner.userId }, undo_api_key: { id: undoer.id, name: "Undoer" } })
    expect((await env.call(owner, "DELETE", `/api/api-keys/${undoer.id}`)).status).toBe(200)
    held.open()
    const failed = await settled(id, ["undone", "undo_failed"])
    expect(failed.counts).toMatchObject({ undo_failed: 2, undone: 0 })
    expect((await itemsOf(id)).map((i) => i.message)).toEqual([BatchMessages.undoKeyRevoked, BatchMessages.undoKeyRevoked])
    for (const g of moto) expect(await sshOpen(g)).toBe(false)

    // The member's own undo (no key) puts both back.
    const again = await env.call(owner, "POST", `/api/remediation-batches/${id}/undo`, {})
    expect(again.status, again.text).toBe(200)
    expect(again.body.data.undo_api_key).toBeNull()
    const undone = await settled(id, ["undone", "undo_failed"])
    expect(undone.counts).toMatchObject({ undone: 2, undo_failed: 0 })
    for (const g of moto) expect(await sshOpen(g)).toBe(true)
  }, 180_000)
})
