/**
 * A GCP organisation's member selection by unit and by account, and the member cap of its fleet scans (issue 31),
 * over real HTTP with the worker in-process and the loopback fixture server as Google Cloud (./gcp-org-world.ts).
 *
 * Selection: onboarding with `include_units` / `include_accounts` / `exclude_accounts` makes accounts of exactly the
 * members the contract's `memberIncluded` picks (an included account outside the units is in, an excluded account
 * inside them is out), and a selection change to other units (`include_units` + `exclude_units`) retires and adds
 * accordingly.
 *
 * Member cap: the organisation's `member_concurrency` (2) bounds the member scans running at once. The
 * `organizations.fleet-advance` job is replaced by one that runs TWO advances of the same fleet scan at once (two job
 * runners on their own connections: on PostgreSQL they really race, the fleet row lock serialises them), while the
 * test samples the database every 20 ms: never more than 2 members 'started', never more than 2 member scans pending or
 * running, and the scans' own intervals (scan_start .. scan_end) never overlap more than 2 deep; the cap is reached, and
 * every member completes.
 */
import { Effect } from "effect"
import { OrganizationMessages } from "../../src/contracts/organizations.ts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { jobs as registeredJobs } from "../../server/jobs/registry.ts"
import { defineJob, type AnyJob } from "../../server/jobs/queue.ts"
import { fleetAdvanceJob } from "../../server/organizations/jobs.ts"
import { advanceFleet, FLEET_ADVANCE_JOB, FleetAdvancePayload } from "../../server/organizations/fleet-scan.ts"
import { runServiceJob, sweepJob } from "../../server/scans/jobs.ts"
import { startCloudFixtureServer, type CloudFixtureServer } from "../support/cloud-fixture-server.ts"
import { emptyProject } from "../scanner-gcp/gcp-fixtures.ts"
import { addServiceAccount, installGcpWorld, newGcpWorld, type GcpWorld, type TestServiceAccount } from "../scanner-gcp/gcp-world.ts"
import { sleep, startScanEnv, type Member, type ScanEnv } from "../scanning/support.ts"
import { exampleOrganization, installGcpOrgWorld, type GcpOrgWorld } from "./gcp-org-world.ts"

const GCP = 2
const ORG = "organizations/123456789012"
const CAP = 2

/** Two advances of the same fleet scan at once, each on its own connection (as two job runners would). */
const twoRunners: AnyJob = defineJob(
  FLEET_ADVANCE_JOB,
  FleetAdvancePayload,
  (payload) => {
    const one = advanceFleet(payload, { runService: runServiceJob, sweep: sweepJob }, twoRunners as never)
    return Effect.all([one, one], { concurrency: 2, discard: true })
  },
  { queue: fleetAdvanceJob.queue, work: fleetAdvanceJob.work },
) as AnyJob

let env: ScanEnv
let server: CloudFixtureServer
let gcpWorld: GcpWorld
let gcpOrg: GcpOrgWorld
let orgKey: TestServiceAccount
let selector: Member
let scanner: Member

beforeAll(async () => {
  server = await startCloudFixtureServer()
  gcpWorld = newGcpWorld(50)
  installGcpWorld(server, gcpWorld)
  gcpOrg = exampleOrganization()
  installGcpOrgWorld(server, gcpOrg)
  for (const p of gcpOrg.projects) {
    const id = String(p["projectId"])
    const project = emptyProject(id, String(p["name"]).slice("projects/".length))
    // A few buckets each, so a member scan lasts a moment (the fixture answers after 30 ms).
    for (let i = 0; i < 6; i++) {
      const name = `${id}-b${i}`
      project.buckets.push({ bucket: { kind: "storage#bucket", id: name, name, location: "US", iamConfiguration: { uniformBucketLevelAccess: { enabled: true }, publicAccessPrevention: "enforced" } }, policy: { bindings: [] } })
    }
    gcpWorld.projects.set(id, project)
  }
  gcpWorld.projects.set("security-admin", emptyProject("security-admin", "999000000001"))
  orgKey = addServiceAccount(gcpWorld, server, "org-scanner@security-admin.iam.gserviceaccount.com")
  process.env["GCP_ENDPOINT_URL"] = server.origin
  env = await startScanEnv({
    env: { GCP_ENDPOINT_URL: server.origin },
    jobs: registeredJobs.map((j) => (j.name === FLEET_ADVANCE_JOB ? twoRunners : j)),
  })
  selector = await env.workspace()
  scanner = await env.workspace()
}, 120_000)

afterAll(async () => {
  delete process.env["GCP_ENDPOINT_URL"]
  await env?.stop()
  await server?.close()
})

const onboard = (owner: Member, organization: Record<string, unknown>) =>
  env.call(owner, "POST", "/api/accounts", {
    cloud_provider_id: GCP, account_name: "Example", is_organization: true, credentials: { service_account_key: orgKey.keyJson }, organization,
  })

/** The members' cloud ids the organisation includes, and the workspace's member accounts that are not retired. */
const included = async (owner: Member, orgAccountId: number) => {
  const detail = (await env.call(owner, "GET", `/api/organizations/${orgAccountId}`)).body.data
  const accounts = await env.sql((q) => q<{ cloud_account_id: string }>`
    SELECT cloud_account_id FROM accounts WHERE workspace_id = ${owner.workspaceId} AND organization_id = ${orgAccountId} AND retired_at IS NULL
    ORDER BY cloud_account_id`)
  return {
    included: detail.members.filter((m: any) => m.included).map((m: any) => m.cloud_account_id).sort(),
    accounts: accounts.map((a) => a.cloud_account_id),
    members_included: detail.members_included,
  }
}

describe("choosing members by unit and by account", () => {
  let orgAccountId: number

  it("onboarding keeps the members under the included units plus the included accounts, less the excluded accounts", async () => {
    // Web (folders/110) holds web-prod-01 and, below it in Frontend (folders/111), frontend-prod.
    const res = await onboard(selector, { root_id: ORG, include_units: ["folders/110"], include_accounts: ["admin-tools-1"], exclude_accounts: ["frontend-prod"] })
    expect(res.status, res.text).toBe(200)
    orgAccountId = res.body.data.account.id
    expect(res.body.data.organization).toMatchObject({ members_total: 8, members_included: 2 })
    expect(await included(selector, orgAccountId)).toEqual({ included: ["admin-tools-1", "web-prod-01"], accounts: ["admin-tools-1", "web-prod-01"], members_included: 2 })
  }, 60_000)

  it("another selection (Production without Frontend) adds its members and retires the ones it leaves out", async () => {
    const res = await env.call(selector, "PUT", `/api/organizations/${orgAccountId}/selection`, {
      include_units: ["folders/100"], exclude_units: ["folders/111"], include_accounts: [], exclude_accounts: [],
    })
    expect(res.status, res.text).toBe(200)
    expect(await included(selector, orgAccountId)).toEqual({
      included: ["prod-api", "prod-batch", "prod-billing", "web-prod-01"],
      accounts: ["prod-api", "prod-batch", "prod-billing", "web-prod-01"],
      members_included: 4,
    })
    const retired = await env.sql((q) => q<{ cloud_account_id: string }>`
      SELECT cloud_account_id FROM accounts WHERE workspace_id = ${selector.workspaceId} AND organization_id = ${orgAccountId} AND retired_at IS NOT NULL`)
    expect(retired.map((r) => r.cloud_account_id)).toEqual(["admin-tools-1"])
  }, 60_000)

  it("a unit id the organisation does not have is refused with the catalogue's words, and nothing changes", async () => {
    const before = await included(selector, orgAccountId)
    const res = await env.call(selector, "PUT", `/api/organizations/${orgAccountId}/selection`, {
      include_units: ["folders/999"], exclude_units: [], include_accounts: [], exclude_accounts: [],
    })
    expect(res.status, res.text).toBe(400)
    expect(res.body.message).toBe(`${OrganizationMessages.unitIdInvalid}: folders/999`)
    expect(res.body.errors).toEqual([{ path: "include_units", message: `${OrganizationMessages.unitIdInvalid}: folders/999` }])
    expect(await included(selector, orgAccountId)).toEqual(before)
    // Onboarding too (a mistyped unit would onboard no member), connection test included; nothing is saved.
    const accountsBefore = await env.sql((q) => q<{ n: number }>`SELECT count(*)::int AS n FROM accounts WHERE workspace_id = ${selector.workspaceId}`)
    for (const test_only of [true, false]) {
      const onboarding = await env.call(selector, "POST", "/api/accounts", {
        cloud_provider_id: GCP, account_name: "Typo", is_organization: true, credentials: { service_account_key: orgKey.keyJson }, test_only,
        organization: { root_id: ORG, exclude_units: ["folders/100", "folders/1OO"] },
      })
      expect(onboarding.status, onboarding.text).toBe(400)
      expect(onboarding.body.errors).toEqual([{ path: "organization.exclude_units", message: `${OrganizationMessages.unitIdInvalid}: folders/1OO` }])
    }
    expect(await env.sql((q) => q<{ n: number }>`SELECT count(*)::int AS n FROM accounts WHERE workspace_id = ${selector.workspaceId}`)).toEqual(accountsBefore)
  }, 60_000)

  it("a unit saved before and gone since stays accepted; an account id not (yet) in the organisation includes nothing", async () => {
    await env.sql((q) => q`UPDATE organizations SET exclude_units = '{folders/998}' WHERE account_id = ${orgAccountId}`)
    const res = await env.call(selector, "PUT", `/api/organizations/${orgAccountId}/selection`, {
      include_units: [], exclude_units: ["folders/998"], include_accounts: ["no-such-project"], exclude_accounts: [],
    })
    expect(res.status, res.text).toBe(200)
    expect((await included(selector, orgAccountId)).included).toHaveLength(8)
    const only = await env.call(selector, "PUT", `/api/organizations/${orgAccountId}/selection`, {
      include_units: ["folders/110"], exclude_units: [], include_accounts: ["no-such-project"], exclude_accounts: ["web-prod-01", "frontend-prod"],
    })
    expect(only.status, only.text).toBe(200)
    expect((await included(selector, orgAccountId)).included).toEqual([])
  }, 60_000)
})

describe("the member cap", () => {
  it(`never more than ${CAP} member scans at once, with two runners advancing the same fleet scan`, async () => {
    const res = await onboard(scanner, { root_id: ORG, member_concurrency: CAP })
    expect(res.status, res.text).toBe(200)
    const orgAccountId = res.body.data.account.id
    const members = res.body.data.organization.members_included as number
    expect(members).toBe(7)
    server.latency(30)
    const started = await env.call(scanner, "POST", "/api/scans", {
      user_id: scanner.userId, account_id: orgAccountId, cloud_provider_id: GCP, cloud_provider_name: "gcp", services: ["storage"],
    })
    expect(started.status, started.text).toBe(200)
    const fleetScanId = started.body.data.fleet_scan_id
    let maxStarted = 0
    let maxOpenScans = 0
    let status = "running"
    const deadline = Date.now() + 180_000
    while (status === "running" && Date.now() < deadline) {
      const [row] = await env.sql((q) => q<{ started: number; open_scans: number; status: string }>`
        SELECT (SELECT count(*)::int FROM fleet_scan_members WHERE fleet_scan_id = ${fleetScanId} AND state = 'started') AS started,
               (SELECT count(*)::int FROM scans WHERE fleet_scan_id = ${fleetScanId} AND status IN ('pending', 'running')) AS open_scans,
               (SELECT status FROM fleet_scans WHERE id = ${fleetScanId}) AS status`)
      maxStarted = Math.max(maxStarted, row!.started)
      maxOpenScans = Math.max(maxOpenScans, row!.open_scans)
      status = row!.status
      await sleep(20)
    }
    server.latency(0)
    const fleet = (await env.call(scanner, "GET", `/api/fleet-scans/${fleetScanId}`)).body.data
    expect(status, JSON.stringify(fleet.members, null, 1)).toBe("completed")
    expect(fleet).toMatchObject({ members_total: 7, members_completed: 7, members_failed: 0, member_cap: CAP })
    expect(maxStarted).toBe(CAP)
    expect(maxOpenScans).toBeLessThanOrEqual(CAP)
    expect(maxOpenScans).toBeGreaterThan(0)
    // Every member was scanned once, and the member scans' own intervals never overlap more than CAP deep.
    const scans = await env.sql((q) => q<{ account_id: number; scan_start: Date; scan_end: Date }>`
      SELECT account_id, scan_start, scan_end FROM scans WHERE fleet_scan_id = ${fleetScanId} ORDER BY scan_start`)
    expect(scans).toHaveLength(7)
    expect(new Set(scans.map((s) => s.account_id)).size).toBe(7)
    const edges = scans.flatMap((s) => [{ t: new Date(s.scan_start).getTime(), d: 1 }, { t: new Date(s.scan_end).getTime(), d: -1 }])
    edges.sort((a, b) => a.t - b.t || a.d - b.d)
    let depth = 0
    let deepest = 0
    for (const e of edges) deepest = Math.max(deepest, (depth += e.d))
    expect(deepest).toBeLessThanOrEqual(CAP)
    expect(deepest).toBeGreaterThan(0)
  }, 240_000)
})
