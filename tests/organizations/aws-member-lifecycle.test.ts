/**
 * An AWS Organization's members over their life (issue 31), over real HTTP with the worker in-process and moto as AWS:
 * a member role name chosen at onboarding and changed later, members retired by the selection, and accounts the
 * workspace had connected by hand before the organisation listed them.
 *
 * Planted: an organisation whose members hold a role "OldRole" (all but one), one member holding only "NewRole", and
 * three accounts connected by hand before onboarding (one the selection excludes, one closed in the organisation, one
 * included and active, holding both roles). Checked: only the included active hand-connected account is adopted, the others stay standalone and
 * scannable; a retired member is refused a manual scan, a remediation (preview, bulk), the undo of an earlier fix
 * (single or bulk) and its schedule's launch, each with its reason and writing nothing,
 * keeps its history and is not "stale" on the dashboard (nor is the organisation's own account); a role name change
 * re-seals every member's credentials in the change's transaction and is audited, and the next fleet scan uses the new
 * role: the member holding it completes, the one without it fails with the provider's words; a sync that discovered
 * with the previous role and applies after the change is recorded as failed instead of creating members with it.
 */
import { CloseAccountCommand, CreateAccountCommand, CreateOrganizationCommand, OrganizationsClient } from "@aws-sdk/client-organizations"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { OrganizationMessages } from "../../src/contracts/organizations.ts"
import { openCredentials } from "../../server/accounts/credential-vault.ts"
import { inScope } from "../../server/auth/rls.ts"
import { applyDiscovery, loadOrganization } from "../../server/organizations/store.ts"
import { memberAccess } from "../../server/organizations/sync.ts"
import { MOTO_KEYS, seedFailingScan, sleep, startScanEnv, uniq, type Member, type ScanEnv } from "../scanning/support.ts"
import { awsOrgWorld } from "./aws-org-world.ts"

const REGION = "us-east-1"
const CHECK = "ec2_securitygroup_allow_ingress_from_internet_to_admin_ports_ipv4"
let env: ScanEnv
let owner: Member
let orgs: OrganizationsClient
let managementId: string
const ids: Record<string, string> = {}
/** Account ids (the product's) of the hand-connected accounts. */
const hand: Record<string, number> = {}

const { client, inMember, giveRoles } = awsOrgWorld(() => env.moto.endpoint)

const createMember = async (name: string) =>
  (await orgs.send(new CreateAccountCommand({ AccountName: name, Email: `${uniq(name)}@example.com` }))).CreateAccountStatus!.AccountId!

/** Connects a member account by hand (its own session keys), as a user would before onboarding the organisation. */
const connectByHand = async (accountId: string, name: string) => {
  const c = await inMember(accountId)
  const res = await env.call(owner, "POST", "/api/accounts", {
    cloud_provider_id: 1, account_name: name, is_organization: false,
    credentials: { access_key: c.accessKeyId, secret_key: c.secretAccessKey, session_token: c.sessionToken },
  })
  if (res.status !== 200) throw new Error(`POST /api/accounts answered ${res.status}: ${res.text}`)
  return res.body.data.account.id as number
}

const accountRow = async (cloudAccountId: string) =>
  (await env.sql((q) => q<{ id: number; organization_id: number | null; retired_at: Date | null; retired_reason: string | null; principal_arn: string | null; auth_method: string; credentials_sealed: string }>`
    SELECT id, organization_id, retired_at, retired_reason, principal_arn, auth_method, credentials_sealed FROM accounts
    WHERE workspace_id = ${owner.workspaceId} AND cloud_account_id = ${cloudAccountId} AND is_organization = false`))[0]!

const startScanOf = (accountId: number) =>
  env.call(owner, "POST", "/api/scans", { user_id: owner.userId, account_id: accountId, cloud_provider_id: 1, cloud_provider_name: "aws", services: ["s3"] })

beforeAll(async () => {
  // Each remediation attempt is held 3 s after its claim (the in-process worker reads the knob from the process's
  // environment): a sync retires its member meanwhile, and the fix must not run.
  process.env["REMEDIATION_TEST_DELAY_MS"] = "3000"
  env = await startScanEnv({ env: { POSTURE_TICK_SECONDS: "1" } })
  owner = await env.workspace()
  orgs = client(OrganizationsClient)
  managementId = (await orgs.send(new CreateOrganizationCommand({ FeatureSet: "ALL" }))).Organization!.MasterAccountId!
  for (const key of ["newonly", "oldonly", "retiree", "handExcluded", "handClosed", "handIncluded"]) ids[key] = await createMember(key)
  await giveRoles(ids["newonly"]!, ["NewRole"])
  await giveRoles(ids["handIncluded"]!, ["OldRole", "NewRole"])
  for (const key of ["oldonly", "retiree", "handExcluded", "handClosed"]) await giveRoles(ids[key]!, ["OldRole"])
  hand["excluded"] = await connectByHand(ids["handExcluded"]!, "Hand excluded")
  hand["closed"] = await connectByHand(ids["handClosed"]!, "Hand closed")
  hand["included"] = await connectByHand(ids["handIncluded"]!, "Hand included")
  // Closed in the organisation: SUSPENDED for its 90 days after closure, as moto answers.
  await orgs.send(new CloseAccountCommand({ AccountId: ids["handClosed"]! }))
}, 240_000)

afterAll(async () => {
  delete process.env["REMEDIATION_TEST_DELAY_MS"]
  await env?.stop()
})

let orgAccountId: number
const selection = (body: object = {}) =>
  env.call(owner, "PUT", `/api/organizations/${orgAccountId}/selection`, {
    include_units: [], exclude_units: [], include_accounts: [], exclude_accounts: [managementId, ids["handExcluded"]], ...body,
  })

describe("onboarding next to accounts connected by hand", () => {
  it("adopts only the included active account; the excluded and the closed ones stay standalone, not retired", async () => {
    const res = await env.call(owner, "POST", "/api/accounts", {
      cloud_provider_id: 1, account_name: "Acme", is_organization: true, credentials: MOTO_KEYS,
      organization: { member_role_name: "OldRole", exclude_accounts: [managementId, ids["handExcluded"]] },
    })
    expect(res.status, res.text).toBe(200)
    orgAccountId = res.body.data.account.id
    expect(res.body.data.organization.member_role_name).toBe("OldRole")
    const changes = res.body.data.sync.changes
    expect(changes.added.map((c: any) => c.cloud_account_id).sort()).toEqual([ids["newonly"], ids["oldonly"], ids["retiree"], ids["handIncluded"]].sort())
    expect(changes.added.find((c: any) => c.cloud_account_id === ids["handIncluded"]).detail).toBe("already connected: now a member")
    expect(changes.retired).toEqual([])
    // The member that holds only the role to come is unreachable until the name changes.
    expect(changes.unreachable.map((c: any) => c.cloud_account_id)).toEqual([ids["newonly"]])
    // The members the organisation made assume the non-default role.
    expect((await accountRow(ids["newonly"]!)).principal_arn).toBe(`arn:aws:iam::${ids["newonly"]}:role/OldRole`)
    // The adopted account is reached as every member is from now on: the organisation's keys and member role.
    expect(await accountRow(ids["handIncluded"]!)).toMatchObject({
      id: hand["included"], organization_id: orgAccountId, retired_at: null, auth_method: "role", principal_arn: `arn:aws:iam::${ids["handIncluded"]}:role/OldRole`,
    })
    // The others keep their own connection (the keys they were connected with), untouched.
    for (const key of ["handExcluded", "handClosed"]) {
      expect(await accountRow(ids[key]!)).toMatchObject({ organization_id: null, retired_at: null, retired_reason: null, auth_method: "access_key", principal_arn: `arn:aws:sts::${ids[key]}:assumed-role/setup/setup` })
    }
    const detail = (await env.call(owner, "GET", `/api/organizations/${orgAccountId}`)).body.data
    expect(detail.members.find((m: any) => m.cloud_account_id === ids["handExcluded"])).toMatchObject({ included: false, account_id: null })
    expect(detail.members.find((m: any) => m.cloud_account_id === ids["handClosed"])).toMatchObject({ state: "suspended", account_id: null })
    const listed = (await env.call(owner, "GET", "/api/accounts?cloud_provider_id=1")).body.data.accounts
    expect(listed.find((a: any) => a.id === hand["excluded"])).toMatchObject({ organization_account_id: null, retired_at: null })
  }, 120_000)

  it("a later sync leaves them standalone too, and they are still scanned on their own", async () => {
    const res = await env.call(owner, "POST", `/api/accounts/${orgAccountId}/sync`)
    expect(res.status, res.text).toBe(200)
    expect(res.body.data.changes.added).toEqual([])
    expect(res.body.data.changes.retired).toEqual([])
    expect((await accountRow(ids["handExcluded"]!)).organization_id).toBeNull()
    const started = await startScanOf(hand["excluded"]!)
    expect(started.status, started.text).toBe(200)
    expect(started.body.data.account_id).toBe(hand["excluded"])
  }, 60_000)
})

describe("a retired member", () => {
  let retiree: number
  let scanId: number
  it("is retired by the selection with its history", async () => {
    retiree = (await accountRow(ids["retiree"]!)).id
    scanId = await seedFailingScan(env, owner.workspaceId, { id: retiree, cloudAccountId: ids["retiree"]! }, CHECK, ["sg-retiree1"])
    const put = await env.call(owner, "PUT", `/api/accounts/${retiree}/schedule`, { frequency: "daily", time_of_day: "02:00", timezone: "UTC", regions: null, services: ["s3"] })
    expect(put.status, put.text).toBe(200)
    // A remediation asked while the member was still scanned, held by its worker until the member retired.
    const findingId = (await env.sql((q) => q<{ id: number }>`SELECT id FROM findings WHERE scan_id = ${scanId} AND check_id = ${CHECK}`))[0]!.id
    const asked = await env.call(owner, "POST", `/api/findings/${findingId}/remediate`, { details: { resource_id: "sg-retiree1", region: REGION } })
    expect(asked.status, asked.text).toBe(200)
    const out = await selection({ exclude_accounts: [managementId, ids["handExcluded"], ids["retiree"]] })
    expect(out.status, out.text).toBe(200)
    expect(out.body.data.recent_syncs[0].changes.retired).toEqual([expect.objectContaining({ cloud_account_id: ids["retiree"], detail: "excluded" })])
    expect(await accountRow(ids["retiree"]!)).toMatchObject({ retired_reason: "excluded" })
    // Its attempt, once released, fails with the reason before any call in the account.
    await expect.poll(async () => (await env.sql((q) => q<{ status: string; message: string | null; plan: unknown }>`
      SELECT status, message, plan FROM remediations WHERE finding_id = ${findingId}`)), { timeout: 30_000, interval: 500 })
      .toEqual([{ status: "failed", message: OrganizationMessages.memberRetiredRemediation, plan: null }])
  }, 60_000)

  it("its account (list and detail) says since when it is retired, for the SPA to offer no scan", async () => {
    const listed = (await env.call(owner, "GET", "/api/accounts?cloud_provider_id=1")).body.data.accounts.find((a: any) => a.id === retiree)
    const retiredAt = (await accountRow(ids["retiree"]!)).retired_at
    expect(listed.retired_at).toBe(new Date(retiredAt!).toISOString())
    const detail = await env.call(owner, "GET", `/api/accounts/${retiree}`)
    expect(detail.status, detail.text).toBe(200)
    expect(detail.body.data.retired_at).toBe(listed.retired_at)
    const active = await env.call(owner, "GET", `/api/accounts/${hand["included"]}`)
    expect(active.body.data.retired_at).toBeNull()
  })

  it("answers a manual scan with the reason (409), and starts none", async () => {
    const res = await startScanOf(retiree)
    expect(res.status, res.text).toBe(409)
    expect(res.body.message).toBe(OrganizationMessages.memberRetired)
    const scans = await env.sql((q) => q<{ n: number }>`SELECT count(*)::int AS n FROM scans WHERE account_id = ${retiree}`)
    expect(scans[0]!.n).toBe(1)
  })

  it("takes no remediation of its findings, which stay readable", async () => {
    const list = await env.call(owner, "GET", `/api/findings?scan_id=${scanId}`)
    expect(list.status, list.text).toBe(200)
    const finding = list.body.data.find((f: any) => f.check_id === CHECK)
    expect(finding).toBeDefined()
    // The list says so too, for the findings page to offer its rows no bulk remediation.
    expect(finding.account_retired).toBe(true)
    expect((await env.call(owner, "GET", `/api/scans/${scanId}`)).status).toBe(200)
    // Its detail says so, for the finding page to offer no Remediate.
    const detail = await env.call(owner, "GET", `/api/findings/${finding.id}`)
    expect(detail.status, detail.text).toBe(200)
    expect(detail.body.data.account_retired).toBe(true)
    const fix = await env.call(owner, "POST", `/api/findings/${finding.id}/remediate`, { details: { resource_id: "sg-retiree1", region: REGION } })
    expect(fix.status, fix.text).toBe(409)
    expect(fix.body.message).toBe(OrganizationMessages.memberRetiredRemediation)
    // Only the one asked before it retired (failed with the reason).
    const rows = await env.sql((q) => q<{ n: number }>`SELECT count(*)::int AS n FROM remediations WHERE finding_id = ${finding.id}`)
    expect(rows[0]!.n).toBe(1)
  })

  it("takes no undo of a fix made before it retired, nor a preview, nor a bulk remediation or its undo; each refusal writes nothing", async () => {
    const finding = (await env.call(owner, "GET", `/api/findings?scan_id=${scanId}`)).body.data.find((f: any) => f.check_id === CHECK)
    // A fix made while the member was scanned: verified, reversible, within its undo window, an item of a finished batch.
    const seeded = await env.sql((q) => Effect.gen(function* () {
      const seq = (yield* q<{ seq: number }>`SELECT seq FROM results WHERE finding_id = ${finding.id} AND resource_id = 'sg-retiree1'`)[0]!.seq
      const plan = { calls: [], effects: [], summary: "Revoked the ingress", undo: { reversible: true, calls: [] } }
      const remediationId = (yield* q<{ id: number }>`
        INSERT INTO remediations (workspace_id, finding_id, check_id, resource_id, region, result_seq, status, state, requested_by,
                                  started_at, applied_at, finished_at, plan, outputs, pre_image, post_image, undo_until)
        VALUES (${owner.workspaceId}, ${finding.id}, ${CHECK}, 'sg-retiree1', ${REGION}, ${seq}, 'remediated', 'verified', ${owner.userId},
                now(), now(), now(), ${JSON.stringify(plan)}::jsonb, '[]'::jsonb, '{"open":true}'::jsonb, '{"open":false}'::jsonb, now() + interval '30 days')
        RETURNING id`)[0]!.id
      const batchId = (yield* q<{ id: number }>`
        INSERT INTO remediation_batches (workspace_id, state, created_by, started_at, finished_at)
        VALUES (${owner.workspaceId}, 'completed', ${owner.userId}, now(), now()) RETURNING id`)[0]!.id
      yield* q`INSERT INTO remediation_batch_items (workspace_id, batch_id, position, account_id, finding_id, result_seq, check_id, resource_id, region, state, remediation_id)
               VALUES (${owner.workspaceId}, ${batchId}, 0, ${retiree}, ${finding.id}, ${seq}, ${CHECK}, 'sg-retiree1', ${REGION}, 'fixed', ${remediationId})`
      return { seq, remediationId, batchId }
    }))
    const written = () => env.sql((q) => q<{ state: string; batch: string; item: string; batches: number; audits: number }>`
      SELECT (SELECT state FROM remediations WHERE id = ${seeded.remediationId}) AS state,
             (SELECT state FROM remediation_batches WHERE id = ${seeded.batchId}) AS batch,
             (SELECT state FROM remediation_batch_items WHERE batch_id = ${seeded.batchId}) AS item,
             (SELECT count(*)::int FROM remediation_batches WHERE workspace_id = ${owner.workspaceId}) AS batches,
             (SELECT count(*)::int FROM audit_log WHERE workspace_id = ${owner.workspaceId} AND action LIKE 'remediation%') AS audits`)
    const before = (await written())[0]
    expect(before).toMatchObject({ state: "verified", batch: "completed", item: "fixed", batches: 1 })
    const retired = { data: { error_type: "account_retired" } }

    // The history says why the fix can no longer be undone, before anyone asks.
    const history = await env.call(owner, "GET", `/api/remediations/${seeded.remediationId}`)
    expect(history.status, history.text).toBe(200)
    expect(history.body.data.undo).toMatchObject({ available: false, reason: OrganizationMessages.memberRetiredUndo })
    const undo = await env.call(owner, "POST", `/api/remediations/${seeded.remediationId}/undo`, { force: true })
    expect(undo.status, undo.text).toBe(409)
    expect(undo.body).toMatchObject({ message: OrganizationMessages.memberRetiredUndo, ...retired })

    const preview = await env.call(owner, "POST", `/api/findings/${finding.id}/remediation-preview`, { result_seq: seeded.seq })
    expect(preview.status, preview.text).toBe(409)
    expect(preview.body).toMatchObject({ message: OrganizationMessages.memberRetiredRemediation, ...retired })

    const bulk = await env.call(owner, "POST", "/api/remediation-batches", { rows: [{ finding_id: finding.id, result_seq: seeded.seq }] })
    expect(bulk.status, bulk.text).toBe(409)
    expect(bulk.body).toMatchObject({ message: OrganizationMessages.memberRetiredRemediation, ...retired })

    const batch = await env.call(owner, "GET", `/api/remediation-batches/${seeded.batchId}`)
    expect(batch.status, batch.text).toBe(200)
    expect(batch.body.data).toMatchObject({ reversible: false, undo_until: null })
    const bulkUndo = await env.call(owner, "POST", `/api/remediation-batches/${seeded.batchId}/undo`, {})
    expect(bulkUndo.status, bulkUndo.text).toBe(409)
    expect(bulkUndo.body).toMatchObject({ message: OrganizationMessages.memberRetiredUndo, ...retired })

    expect((await written())[0]).toEqual(before)
  })

  it("its schedule skips the slot with the reason, and launches nothing", async () => {
    await env.sql((q) => q`UPDATE scan_schedules SET next_run_at = now() - interval '1 minute' WHERE account_id = ${retiree}`)
    const deadline = Date.now() + 60_000
    let skipped: ReadonlyArray<{ reason: string | null }> = []
    do {
      await sleep(1000)
      skipped = await env.sql((q) => q<{ reason: string | null }>`
        SELECT details ->> 'reason' AS reason FROM audit_log
        WHERE workspace_id = ${owner.workspaceId} AND action = 'schedule.scan_skipped' AND target_id = ${String(retiree)}`)
    } while (skipped.length === 0 && Date.now() < deadline)
    expect(skipped.map((s) => s.reason)).toEqual([OrganizationMessages.memberRetired])
    const schedule = await env.sql((q) => q<{ last_error: string | null; later: boolean }>`
      SELECT last_error, next_run_at > now() AS later FROM scan_schedules WHERE account_id = ${retiree}`)
    expect(schedule[0]).toEqual({ last_error: OrganizationMessages.memberRetired, later: true })
    const scans = await env.sql((q) => q<{ n: number }>`SELECT count(*)::int AS n FROM scans WHERE account_id = ${retiree}`)
    expect(scans[0]!.n).toBe(1)
  }, 90_000)

  it("is not 'not scanned in the last 7 days' on the dashboard, nor is the organisation's account; an unscanned account is", async () => {
    const res = await env.call(owner, "GET", "/api/posture/overview")
    expect(res.status, res.text).toBe(200)
    const byId = new Map(res.body.data.accounts.map((a: any) => [a.account_id, a]))
    expect(byId.get(retiree)).toMatchObject({ stale: false })
    expect((byId.get(retiree) as any).scans.map((s: any) => s.scan_id)).toEqual([scanId])
    expect(byId.get(orgAccountId)).toMatchObject({ stale: false, last_scan_at: null })
    expect(byId.get(hand["closed"])).toMatchObject({ stale: true, last_scan_at: null })
  })
})

describe("changing the member role name", () => {
  let fleet: any
  it("re-seals every member's credentials for the new role in the change, audited, and the sync probes with it", async () => {
    const out = await selection({ exclude_accounts: [managementId, ids["handExcluded"], ids["retiree"]], member_role_name: "NewRole" })
    expect(out.status, out.text).toBe(200)
    expect(out.body.data.member_role_name).toBe("NewRole")
    // The member without the new role is named unreachable, with the provider's words.
    const unreachable = out.body.data.recent_syncs[0].changes.unreachable
    expect(unreachable.map((c: any) => c.cloud_account_id)).toEqual([ids["oldonly"]])
    expect(unreachable[0].detail).toContain("NewRole")
    // What every reader of a member's credentials opens (its scans, the fleet scan's probe, remediation and its undo)
    // assumes the new role: the adopted account's too, and a retired member's, should it come back.
    const externalId = (await env.call(owner, "GET", "/api/accounts/external-id")).body.data.external_id
    for (const key of ["newonly", "oldonly", "retiree", "handIncluded"]) {
      const row = await accountRow(ids[key]!)
      expect(row).toMatchObject({ auth_method: "role", principal_arn: `arn:aws:iam::${ids[key]}:role/NewRole` })
      expect(openCredentials(env.server.config.appSecretKey, row.credentials_sealed, { workspaceId: owner.workspaceId, accountId: row.id }))
        .toMatchObject({ access_key: MOTO_KEYS.access_key, role_arn: `arn:aws:iam::${ids[key]}:role/NewRole`, external_id: externalId })
    }
    const audit = await env.sql((q) => q<{ action: string; details: any }>`
      SELECT action, details FROM audit_log WHERE workspace_id = ${owner.workspaceId} AND action IN ('organization.member_role_changed', 'organization.selection_updated')
      ORDER BY id DESC LIMIT 2`)
    const changed = audit.find((a) => a.action === "organization.member_role_changed")
    expect(changed?.details).toMatchObject({ previous_member_role_name: "OldRole", member_role_name: "NewRole", members_updated: 4 })
    expect(audit.find((a) => a.action === "organization.selection_updated")?.details).toMatchObject({ member_role_name: "NewRole", previous_member_role_name: "OldRole" })
  }, 60_000)

  it("the fleet scan uses the new role: the member holding it completes, the one without it fails with the reason", async () => {
    // (moto lets any role be assumed: the probe before each member scan reads the role, so a missing one is found.)
    const started = await startScanOf(orgAccountId)
    expect(started.status, started.text).toBe(200)
    const deadline = Date.now() + 240_000
    do {
      await sleep(1000)
      fleet = (await env.call(owner, "GET", `/api/fleet-scans/${started.body.data.fleet_scan_id}`)).body.data
    } while (fleet.status === "running" && Date.now() < deadline)
    expect(fleet.status).toBe("completed")
    const byId = new Map(fleet.members.map((m: any) => [m.cloud_account_id, m]))
    expect([...byId.keys()].sort()).toEqual([ids["newonly"], ids["oldonly"], ids["handIncluded"]].sort())
    expect(byId.get(ids["newonly"])).toMatchObject({ state: "completed" })
    expect(byId.get(ids["handIncluded"])).toMatchObject({ state: "completed" })
    expect(byId.get(ids["oldonly"])).toMatchObject({ state: "failed", scan_id: null })
    expect((byId.get(ids["oldonly"]) as any).reason).toContain(`arn:aws:iam::${ids["oldonly"]}:role/NewRole`)
    expect((byId.get(ids["oldonly"]) as any).reason).toContain("NoSuchEntity")
  }, 300_000)

  it("a sync that discovered with the previous role, applied after the change, is recorded as failed and creates nothing", async () => {
    const externalId = (await env.call(owner, "GET", "/api/accounts/external-id")).body.data.external_id
    const newcomer = "111111111111"
    const sync = await env.sql((sql) => inScope({ workspaceId: owner.workspaceId })(Effect.gen(function* () {
      const org = (yield* loadOrganization(owner.workspaceId, orgAccountId))!
      const access = memberAccess(1, { access_key: MOTO_KEYS.access_key, secret_key: MOTO_KEYS.secret_key }, {
        roleName: "OldRole", externalId, accessKeyId: MOTO_KEYS.access_key, tenantId: null,
      })
      return yield* applyDiscovery({
        org,
        discovery: {
          rootId: org.rootId, rootName: org.rootName, units: [{ id: org.rootId, parentId: null, name: "Root", kind: "root" }],
          members: [{ cloudAccountId: newcomer, name: "newcomer", unitId: org.rootId, state: "active", cloudState: "ACTIVE", tags: {} }],
        },
        probes: new Map([[newcomer, undefined]]), access, appSecretKey: env.server.config.appSecretKey, trigger: "daily", userId: null,
      })
    })).pipe(Effect.provideService(SqlClient.SqlClient, sql)))
    expect(sync).toMatchObject({ status: "failed", error: OrganizationMessages.memberRoleChangedDuringSync })
    const created = await env.sql((q) => q<{ n: number }>`SELECT count(*)::int AS n FROM accounts WHERE cloud_account_id = ${newcomer}`)
    expect(created[0]!.n).toBe(0)
    expect((await accountRow(ids["newonly"]!)).principal_arn).toBe(`arn:aws:iam::${ids["newonly"]}:role/NewRole`)
  })
})
