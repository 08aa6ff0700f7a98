/**
 * An AWS Organization onboarded, synced and scanned as a fleet, over real HTTP with the worker in-process and moto as
 * AWS (issue 31): moto keeps each member account's resources apart and answers AssumeRole into any member, so a role
 * is "missing" when it does not exist in the member (the probe reads it with iam:GetRole).
 *
 * Planted: an organisation with two units (Prod, Dev), members in each, one member without the member role, one member
 * excluded by the user; a bucket without versioning in one Prod member only. Checked: onboarding in one call (members,
 * units, unreachable member, exclusion), the member accounts on the spec's screens, sync of a member created later, a
 * move and a closed member retired with its history, a fleet scan that fails the role-less member alone and finds the
 * planted bucket in the right member only, and another workspace seeing none of it.
 */
import {
  CloseAccountCommand,
  CreateAccountCommand,
  CreateOrganizationalUnitCommand,
  CreateOrganizationCommand,
  ListRootsCommand,
  MoveAccountCommand,
  OrganizationsClient,
} from "@aws-sdk/client-organizations"
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DEFAULT_MEMBER_ROLE_NAME } from "../../src/contracts/organizations.ts"
import { MOTO_KEYS, sleep, startScanEnv, uniq, type Member, type ScanEnv } from "../scanning/support.ts"
import { awsOrgWorld } from "./aws-org-world.ts"

let env: ScanEnv
let owner: Member
let outsider: Member
let orgs: OrganizationsClient
const ids: Record<string, string> = {}
const units: Record<string, string> = {}
let rootId: string
let managementId: string

const { client, inMember, giveRoles } = awsOrgWorld(() => env.moto.endpoint)

const createMember = async (name: string, unit: string | undefined) => {
  const created = await orgs.send(new CreateAccountCommand({ AccountName: name, Email: `${uniq(name)}@example.com` }))
  const id = created.CreateAccountStatus!.AccountId!
  if (unit !== undefined) await orgs.send(new MoveAccountCommand({ AccountId: id, SourceParentId: rootId, DestinationParentId: unit }))
  return id
}

const giveRole = (accountId: string) => giveRoles(accountId, [DEFAULT_MEMBER_ROLE_NAME])

beforeAll(async () => {
  env = await startScanEnv({ env: { POSTURE_TICK_SECONDS: "1" } })
  owner = await env.workspace()
  outsider = await env.workspace()
  orgs = client(OrganizationsClient)
  const org = await orgs.send(new CreateOrganizationCommand({ FeatureSet: "ALL" }))
  managementId = org.Organization!.MasterAccountId!
  rootId = (await orgs.send(new ListRootsCommand({}))).Roots![0]!.Id!
  units["prod"] = (await orgs.send(new CreateOrganizationalUnitCommand({ ParentId: rootId, Name: "Prod" }))).OrganizationalUnit!.Id!
  units["dev"] = (await orgs.send(new CreateOrganizationalUnitCommand({ ParentId: rootId, Name: "Dev" }))).OrganizationalUnit!.Id!
  ids["web"] = await createMember("web-prod", units["prod"])
  ids["data"] = await createMember("data-prod", units["prod"])
  ids["sandbox"] = await createMember("sandbox", units["dev"])
  ids["norole"] = await createMember("no-role", units["dev"])
  for (const key of ["web", "data", "sandbox"]) await giveRole(ids[key]!)
  await giveRole(managementId)
  // The planted misconfiguration: a bucket without versioning in web-prod only.
  await client(S3Client, await inMember(ids["web"]!)).send(new CreateBucketCommand({ Bucket: uniq("ca-web-logs") }))
}, 180_000)

afterAll(async () => {
  await env?.stop()
})

let orgAccountId: number

describe("onboarding an AWS Organization", () => {
  it("refuses an account that is in no organisation with the provider's words, and saves nothing", async () => {
    const stranger = await inMember("999999999999")
    const res = await env.call(owner, "POST", "/api/accounts", {
      cloud_provider_id: 1, account_name: "Acme", is_organization: true,
      credentials: { access_key: stranger.accessKeyId, secret_key: stranger.secretAccessKey, session_token: stranger.sessionToken },
    })
    expect(res.status, res.text).toBe(400)
    expect(res.body.message).toContain("Could not list the organization's members")
    expect((await env.call(owner, "GET", "/api/organizations")).body.data.organizations).toEqual([])
  })

  it("tests the connection only when asked (nothing saved)", async () => {
    const res = await env.call(owner, "POST", "/api/accounts", {
      cloud_provider_id: 1, account_name: "Acme", is_organization: true, credentials: MOTO_KEYS, test_only: true,
    })
    expect(res.status).toBe(200)
    expect(res.body.data.tested).toBe(true)
    expect((await env.call(owner, "GET", "/api/organizations")).body.data.organizations).toEqual([])
  })

  it("creates the organisation and its included members in one call", async () => {
    const res = await env.call(owner, "POST", "/api/accounts", {
      cloud_provider_id: 1, account_name: "Acme", is_organization: true, credentials: MOTO_KEYS,
      organization: { exclude_accounts: [ids["sandbox"]] },
    })
    expect(res.status, res.text).toBe(200)
    orgAccountId = res.body.data.account.id
    expect(res.body.data.account.is_organization).toBe(true)
    const org = res.body.data.organization
    expect(org.organization_id).toMatch(/^o-/)
    expect(org.management_account_id).toBe(managementId)
    expect(org.root_id).toBe(rootId)
    // Management account + 4 members; sandbox excluded.
    expect(org.members_total).toBe(5)
    expect(org.members_included).toBe(4)
    const sync = res.body.data.sync
    expect(sync.trigger).toBe("onboard")
    expect(sync.changes.added.map((c: any) => c.cloud_account_id).sort()).toEqual([managementId, ids["web"], ids["data"], ids["norole"]].sort())
    expect(sync.changes.unreachable.map((c: any) => c.cloud_account_id)).toEqual([ids["norole"]])
    expect(sync.changes.unreachable[0].detail).toContain("NoSuchEntity")
  }, 60_000)

  it("shows units and members with their state, and the members as ordinary accounts", async () => {
    const detail = (await env.call(owner, "GET", `/api/organizations/${orgAccountId}`)).body.data
    expect(detail.units.map((u: any) => u.path).sort()).toEqual(["Root", "Root / Dev", "Root / Prod"])
    const web = detail.members.find((m: any) => m.cloud_account_id === ids["web"])
    expect(web).toMatchObject({ name: "web-prod", unit_path: "Root / Prod", included: true, reachable: true, state: "active" })
    expect(detail.members.find((m: any) => m.cloud_account_id === ids["sandbox"])).toMatchObject({ included: false, account_id: null })
    expect(detail.members.find((m: any) => m.cloud_account_id === ids["norole"])).toMatchObject({ reachable: false })
    const accounts = (await env.call(owner, "GET", "/api/accounts?cloud_provider_id=1")).body.data.accounts
    const member = accounts.find((a: any) => a.account_id === ids["web"])
    expect(member).toMatchObject({ organization_account_id: orgAccountId, org_unit_path: "Root / Prod", retired_at: null })
    const page = await env.call(owner, "GET", `/api/accounts/${member.id}`)
    expect(page.status).toBe(200)
    expect(page.body.data.credential_data.aws_account_id).toBe(ids["web"])
  })

  it("refuses a second onboarding of the same organisation (409)", async () => {
    const res = await env.call(owner, "POST", "/api/accounts", { cloud_provider_id: 1, account_name: "Acme again", is_organization: true, credentials: MOTO_KEYS })
    expect(res.status).toBe(409)
  }, 60_000)
})

describe("staying in sync", () => {
  it("adds a member created later, follows a move, and retires a closed member with its history", async () => {
    ids["late"] = await createMember("late-joiner", units["prod"])
    await giveRole(ids["late"]!)
    await orgs.send(new MoveAccountCommand({ AccountId: ids["data"]!, SourceParentId: units["prod"]!, DestinationParentId: units["dev"]! }))
    await orgs.send(new CloseAccountCommand({ AccountId: ids["norole"]! }))
    const res = await env.call(owner, "POST", `/api/accounts/${orgAccountId}/sync`)
    expect(res.status, res.text).toBe(200)
    const changes = res.body.data.changes
    expect(changes.added.map((c: any) => c.cloud_account_id)).toEqual([ids["late"]])
    expect(changes.moved).toEqual([expect.objectContaining({ cloud_account_id: ids["data"], unit_path: "Root / Dev", detail: "Root / Prod" })])
    // A closed AWS account is SUSPENDED for its 90 days after closure (as moto answers): retired, history kept.
    expect(changes.retired).toEqual([expect.objectContaining({ cloud_account_id: ids["norole"], detail: "suspended" })])
    const accounts = (await env.call(owner, "GET", "/api/accounts?cloud_provider_id=1")).body.data.accounts
    expect(accounts.find((a: any) => a.account_id === ids["norole"]).retired_at).not.toBeNull()
    const syncs = (await env.call(owner, "GET", `/api/organizations/${orgAccountId}/syncs`)).body.data.syncs
    expect(syncs.map((s: any) => s.trigger)).toEqual(["manual", "onboard"])
    const audit = await env.sql((q) => q<{ action: string }>`SELECT action FROM audit_log WHERE workspace_id = ${owner.workspaceId} AND action LIKE 'organization.%' ORDER BY id`)
    expect(audit.map((a) => a.action)).toEqual(["organization.created", "organization.synced"])
  }, 60_000)

  it("a selection change re-syncs: excluding a unit retires its members, including it brings them back", async () => {
    const put = (body: object) => env.call(owner, "PUT", `/api/organizations/${orgAccountId}/selection`, {
      include_units: [], exclude_units: [], include_accounts: [], exclude_accounts: [ids["sandbox"]], ...body,
    })
    const out = await put({ exclude_units: [units["dev"]] })
    expect(out.status, out.text).toBe(200)
    expect(out.body.data.recent_syncs[0].changes.retired.map((c: any) => c.cloud_account_id)).toEqual([ids["data"]])
    const back = await put({})
    expect(back.body.data.recent_syncs[0].changes.reactivated.map((c: any) => c.cloud_account_id)).toEqual([ids["data"]])
  }, 60_000)
})

describe("scanning the fleet", () => {
  let fleet: any
  it("scans every included member, fails the unreachable one alone, and finds the bucket in the right member", async () => {
    // Re-open the role-less member for the scan: include it again as a fresh member (the closed one stays retired).
    ids["norole2"] = await createMember("no-role-2", units["dev"])
    expect((await env.call(owner, "POST", `/api/accounts/${orgAccountId}/sync`)).status).toBe(200)
    const started = await env.call(owner, "POST", "/api/scans", {
      user_id: owner.userId, account_id: orgAccountId, cloud_provider_id: 1, cloud_provider_name: "aws", services: ["s3"],
    })
    expect(started.status, started.text).toBe(200)
    expect(started.body.data.fleet_scan_id).toBeGreaterThan(0)
    expect((await env.call(owner, "POST", "/api/scans", {
      user_id: owner.userId, account_id: orgAccountId, cloud_provider_id: 1, cloud_provider_name: "aws",
    })).status).toBe(409)
    const deadline = Date.now() + 240_000
    do {
      await sleep(1000)
      fleet = (await env.call(owner, "GET", `/api/fleet-scans/${started.body.data.fleet_scan_id}`)).body.data
    } while (fleet.status === "running" && Date.now() < deadline)
    expect(fleet.status).toBe("completed")
    const byId = new Map(fleet.members.map((m: any) => [m.cloud_account_id, m]))
    expect(byId.get(ids["norole2"])).toMatchObject({ state: "failed", scan_id: null })
    expect((byId.get(ids["norole2"]) as any).reason).toContain("NoSuchEntity")
    for (const key of ["web", "data", "late"]) expect(byId.get(ids[key])).toMatchObject({ state: "completed" })
    expect(byId.has(ids["sandbox"])).toBe(false)
    expect(byId.has(ids["norole"])).toBe(false)
    const versioning = async (cloudId: string) => {
      const m = byId.get(cloudId) as any
      const list = await env.call(owner, "GET", `/api/findings?scan_id=${m.scan_id}&check=s3_bucket_versioning_enabled&page_size=50`)
      return list.body.data.find((f: any) => f.check_id === "s3_bucket_versioning_enabled" || f.policy_check?.includes("versioning"))
    }
    expect((await versioning(ids["web"]!))?.status).toBe("fail")
    const other = await versioning(ids["data"]!)
    expect(other === undefined || other.status !== "fail").toBe(true)
    const list = (await env.call(owner, "GET", `/api/organizations/${orgAccountId}/fleet-scans`)).body.data.fleet_scans
    expect(list[0]).toMatchObject({ fleet_scan_id: fleet.fleet_scan_id, status: "completed", members_failed: 1 })
  }, 300_000)

  it("the daily sync runs on its own when due, and a schedule scans the fleet with the member it found", async () => {
    // A member created since the last sync: the daily sync of the tick finds it before the schedule launches.
    ids["late"] = await createMember("late-prod", units["prod"])
    await giveRole(ids["late"]!)
    await env.sql((q) => q`UPDATE organizations SET next_sync_at = now() - interval '1 minute' WHERE account_id = ${orgAccountId}`)
    const put = await env.call(owner, "PUT", `/api/accounts/${orgAccountId}/schedule`, { frequency: "daily", time_of_day: "02:00", timezone: "UTC", regions: null, services: ["s3"] })
    expect(put.status, put.text).toBe(200)
    await env.sql((q) => q`UPDATE scan_schedules SET next_run_at = now() - interval '1 minute' WHERE account_id = ${orgAccountId}`)
    const deadline = Date.now() + 60_000
    let daily: ReadonlyArray<{ trigger: string }> = []
    let scheduled: ReadonlyArray<{ id: number }> = []
    do {
      await sleep(1000)
      daily = await env.sql((q) => q<{ trigger: string }>`SELECT trigger FROM organization_syncs WHERE organization_id = ${orgAccountId} AND trigger = 'daily'`)
      scheduled = await env.sql((q) => q<{ id: number }>`SELECT id FROM fleet_scans WHERE organization_id = ${orgAccountId} AND trigger = 'schedule'`)
    } while ((daily.length === 0 || scheduled.length === 0) && Date.now() < deadline)
    expect(daily).toHaveLength(1)
    expect(scheduled).toHaveLength(1)
    const members = await env.sql((q) => q<{ cloud_account_id: string }>`
      SELECT a.cloud_account_id FROM fleet_scan_members m JOIN accounts a ON a.id = m.account_id WHERE m.fleet_scan_id = ${scheduled[0]!.id}`)
    expect(members.map((m) => m.cloud_account_id)).toContain(ids["late"])
    const next = await env.sql((q) => q<{ due: boolean }>`SELECT next_sync_at > now() + interval '23 hours' AS due FROM organizations WHERE account_id = ${orgAccountId}`)
    expect(next[0]!.due).toBe(true)
  }, 120_000)

  it("findings across accounts answer the members' latest scans; deep pages need the cursor", async () => {
    const across = await env.call(owner, "GET", `/api/findings?organization_id=${orgAccountId}&check=s3_bucket_versioning_enabled&status=fail`)
    expect(across.status, across.text).toBe(200)
    expect(across.body.data.map((f: any) => f.aws_account_id)).toEqual([ids["web"]])
    const deep = await env.call(owner, "GET", "/api/findings?page=1000&page_size=50")
    expect(deep.status).toBe(400)
    expect(deep.body.message).toContain("cursor")
  })

  it("another workspace sees none of it", async () => {
    expect((await env.call(outsider, "GET", `/api/organizations/${orgAccountId}`)).status).toBe(404)
    expect((await env.call(outsider, "GET", `/api/fleet-scans/${fleet.fleet_scan_id}`)).status).toBe(404)
    expect((await env.call(outsider, "POST", `/api/accounts/${orgAccountId}/sync`)).status).toBe(404)
    expect((await env.call(outsider, "GET", "/api/organizations")).body.data.organizations).toEqual([])
  })
})
