/**
 * A GCP organisation and an Azure management group onboarded, synced and scanned as a fleet, over real HTTP with
 * the worker in-process (tests/scanning/support.ts) and the loopback fixture server as Google Cloud and Azure
 * (GCP_ENDPOINT_URL / AZURE_ENDPOINT_URL): Resource Manager v3 folders and projects (./gcp-org-world.ts) and the
 * management-group descendants and subscription list (./azure-org-world.ts) next to the scanner worlds that sign the
 * keys in and serve each project's and subscription's resources (issue 31).
 *
 * Planted (GCP): example.com with nested folders, an ACTIVE project in each, a DELETE_REQUESTED project, a project the
 * organisation's service account may not read, and a bucket without uniform access in web-prod-01 only. Checked: the
 * contract's messages for a bad root id, refused and denied credentials saving nothing, onboarding in one call (member
 * = project id), the organisation page, the members on the accounts list and their detail, Sync now after a project is
 * added, one moved and one deleted, and a fleet scan where every member's scan reads its own project, the unreadable
 * member fails alone with Google's words and the bucket is found in web-prod-01 only.
 * Planted (Azure): Contoso's management groups with subscriptions Enabled, Warned, PastDue, Disabled, Deleted and one
 * the principal cannot list. Checked: the same onboarding, page, list, detail (member = subscription id) and sync
 * (added, moved, disabled, removed), and a fleet scan (storage only) where every member's scan reads its own
 * subscription, the subscription the app registration may not read fails alone with Azure's AuthorizationFailed, and a
 * storage account accepting plain HTTP planted in Corp 1 is found there only (Connectivity's compliant one passes).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SECRET_MASK } from "../../src/contracts/accounts.ts"
import { OrganizationMessages } from "../../src/contracts/organizations.ts"
import { ScanningServerMessages } from "../../src/contracts/messages.ts"
import { startCloudFixtureServer, type CloudFixtureServer } from "../support/cloud-fixture-server.ts"
import { armId, emptySubscription, HARDENED, hardenedTenant } from "../scanner-azure/azure-fixtures.ts"
import { installAzureWorld, newAzureWorld, put, type AzureWorld } from "../scanner-azure/azure-world.ts"
import { emptyProject } from "../scanner-gcp/gcp-fixtures.ts"
import { addServiceAccount, installGcpWorld, newGcpWorld, type GcpWorld, type Json, type TestServiceAccount } from "../scanner-gcp/gcp-world.ts"
import { sleep, startScanEnv, type Member, type ScanEnv } from "../scanning/support.ts"
import { contosoHierarchy, installAzureOrgWorld, SUB, type AzureOrgWorld, type MgSubscription } from "./azure-org-world.ts"
import { exampleOrganization, installGcpOrgWorld, type GcpOrgWorld } from "./gcp-org-world.ts"

const GCP = 2
const AZURE = 3
const ORG = "organizations/123456789012"
/** The project the organisation's service account was not granted (its member scan must fail alone). */
const UNREADABLE = "frontend-prod"
/** The project holding the planted bucket. */
const PLANTED = "web-prod-01"
const BUCKET = "web-public-assets"

let env: ScanEnv
let server: CloudFixtureServer
let gcpWorld: GcpWorld
let gcpOrg: GcpOrgWorld
let orgKey: TestServiceAccount
/** The projects the organisation's service account may read (every project but UNREADABLE). */
const readable = new Set<string>()
let azureWorld: AzureWorld
let azureOrg: AzureOrgWorld
/** The Azure hierarchy's subscriptions, replaced in place when a test changes the fixture. */
let azureSubs: MgSubscription[]
let gcpOwner: Member
let azureOwner: Member
let outsider: Member

let projectNumber = 500000000000
const addGcpProject = (projectId: string, parent: string, fields: Json = {}) => {
  const number = String(++projectNumber)
  gcpOrg.projects.push({ name: `projects/${number}`, parent, projectId, state: "ACTIVE", ...fields })
  gcpWorld.projects.set(projectId, emptyProject(projectId, number))
  readable.add(projectId)
}

beforeAll(async () => {
  server = await startCloudFixtureServer()
  gcpWorld = newGcpWorld(50)
  installGcpWorld(server, gcpWorld)
  gcpOrg = exampleOrganization()
  installGcpOrgWorld(server, gcpOrg)
  for (const p of gcpOrg.projects) {
    const id = String(p["projectId"])
    if (id !== UNREADABLE) gcpWorld.projects.set(id, emptyProject(id, String(p["name"]).slice("projects/".length)))
  }
  gcpWorld.projects.get(PLANTED)!.buckets.push({
    bucket: { kind: "storage#bucket", id: BUCKET, name: BUCKET, location: "US", iamConfiguration: { uniformBucketLevelAccess: { enabled: false }, publicAccessPrevention: "inherited" } },
    policy: { bindings: [] },
  })
  // The organisation's service account lives in its own admin project and may read every project but one.
  gcpWorld.projects.set("security-admin", emptyProject("security-admin", "999000000001"))
  for (const id of gcpWorld.projects.keys()) readable.add(id)
  orgKey = addServiceAccount(gcpWorld, server, "org-scanner@security-admin.iam.gserviceaccount.com", readable)

  azureWorld = newAzureWorld(50)
  installAzureWorld(server, azureWorld)
  azureWorld.tenants.set(HARDENED.tenantId, hardenedTenant())
  const contoso = contosoHierarchy(HARDENED.tenantId)
  azureSubs = [...contoso.subscriptions]
  azureOrg = { ...contoso, subscriptions: azureSubs }
  installAzureOrgWorld(server, azureOrg)
  for (const s of azureSubs) azureWorld.subscriptions.set(s.subscriptionId, emptySubscription({ tenantId: HARDENED.tenantId, subscriptionId: s.subscriptionId }, s.listed?.displayName ?? s.displayName ?? s.subscriptionId))

  // The engines and the discoveries read the overrides from the process environment; the server's config gets them too.
  process.env["GCP_ENDPOINT_URL"] = server.origin
  process.env["AZURE_ENDPOINT_URL"] = server.origin
  env = await startScanEnv({ env: { GCP_ENDPOINT_URL: server.origin, AZURE_ENDPOINT_URL: server.origin } })
  gcpOwner = await env.workspace()
  azureOwner = await env.workspace()
  outsider = await env.workspace()
}, 120_000)

afterAll(async () => {
  delete process.env["GCP_ENDPOINT_URL"]
  delete process.env["AZURE_ENDPOINT_URL"]
  await env?.stop()
  await server?.close()
})

const onboard = (owner: Member, cloud_provider_id: number, credentials: Record<string, string>, organization: Record<string, unknown>) =>
  env.call(owner, "POST", "/api/accounts", { cloud_provider_id, account_name: "Org", is_organization: true, credentials, organization })

/** Nothing of a refused onboarding was kept: no account, organisation or sync of the workspace. */
const nothingSaved = async (owner: Member) => {
  expect((await env.call(owner, "GET", "/api/organizations")).body.data.organizations).toEqual([])
  const counts = await env.sql((q) => q<{ accounts: number; syncs: number }>`
    SELECT (SELECT count(*)::int FROM accounts WHERE workspace_id = ${owner.workspaceId}) AS accounts,
           (SELECT count(*)::int FROM organization_syncs WHERE workspace_id = ${owner.workspaceId}) AS syncs`)
  expect(counts[0]).toEqual({ accounts: 0, syncs: 0 })
}

const accountsOf = async (owner: Member, provider: number): Promise<Array<any>> => {
  const res = await env.call(owner, "GET", `/api/accounts?cloud_provider_id=${provider}`)
  expect(res.status, res.text).toBe(200)
  return res.body.data.accounts
}

const ids = (changes: ReadonlyArray<{ cloud_account_id: string }>) => changes.map((c) => c.cloud_account_id).sort()

describe("a GCP organisation", () => {
  const gcpKey = () => ({ service_account_key: orgKey.keyJson })
  let orgAccountId: number

  it("refuses a missing or malformed root id with the contract's messages, before calling Google", async () => {
    server.clearLog()
    const missing = await onboard(gcpOwner, GCP, gcpKey(), {})
    expect(missing.status, missing.text).toBe(400)
    expect(missing.body.errors).toEqual([{ path: "organization.root_id", message: OrganizationMessages.rootIdRequired }])
    for (const root_id of ["organisations/1", "projects/web-prod-01", "123456789012"]) {
      const bad = await onboard(gcpOwner, GCP, gcpKey(), { root_id })
      expect(bad.status, bad.text).toBe(400)
      expect(bad.body.message).toBe(OrganizationMessages.rootIdInvalidGcp)
      expect(bad.body.errors).toEqual([{ path: "organization.root_id", message: OrganizationMessages.rootIdInvalidGcp }])
    }
    expect(server.requests.filter((r) => r.host.endsWith("googleapis.com"))).toEqual([])
    await nothingSaved(gcpOwner)
  })

  it("a key Google refuses is 401, an organisation the key may not read is 400 with Google's words; nothing is saved", async () => {
    const revoked = addServiceAccount(gcpWorld, server, "revoked@security-admin.iam.gserviceaccount.com")
    gcpWorld.accounts.delete(revoked.email)
    const refused = await onboard(gcpOwner, GCP, { service_account_key: revoked.keyJson }, { root_id: ORG })
    expect(refused.status, refused.text).toBe(401)
    expect(refused.body.message).toBe(ScanningServerMessages.cloudCredentialsInvalidGcp)
    expect(refused.text).not.toContain("PRIVATE KEY")

    gcpOrg.denied.add("folders/110")
    try {
      const denied = await onboard(gcpOwner, GCP, gcpKey(), { root_id: ORG })
      expect(denied.status, denied.text).toBe(400)
      expect(denied.body.message).toContain(OrganizationMessages.discoveryFailed)
      expect(denied.body.message).toContain("folders/110")
      expect(denied.body.errors[0].path).toBe("organization.root_id")
    } finally {
      gcpOrg.denied.clear()
    }
    const unknown = await onboard(gcpOwner, GCP, gcpKey(), { root_id: "organizations/999" })
    expect(unknown.status, unknown.text).toBe(400)
    expect(unknown.body.message).toContain(OrganizationMessages.discoveryFailed)
    await nothingSaved(gcpOwner)
  })

  it("creates the organisation and one account per active project in one call", async () => {
    const res = await onboard(gcpOwner, GCP, gcpKey(), { root_id: ORG })
    expect(res.status, res.text).toBe(200)
    expect(res.body.message).toBe(OrganizationMessages.organizationAdded)
    expect(res.text).not.toContain("PRIVATE KEY")
    orgAccountId = res.body.data.account.id
    expect(res.body.data.account).toMatchObject({ is_organization: true, account_id: ORG, cloud_provider_id: GCP })
    expect(res.body.data.organization).toMatchObject({
      organization_id: ORG, root_id: ORG, root_name: "example.com", management_account_id: null, member_role_name: null,
      members_total: 8, members_included: 7, members_unreachable: 0,
    })
    const sync = res.body.data.sync
    expect(sync).toMatchObject({ trigger: "onboard", status: "completed", members_total: 8, members_included: 7 })
    // sandbox-old is DELETE_REQUESTED: known, not an account.
    expect(ids(sync.changes.added)).toEqual(["admin-tools-1", "frontend-prod", "prod-api", "prod-batch", "prod-billing", "sandbox-new", "web-prod-01"])
    expect(sync.changes.unreachable).toEqual([])
  }, 60_000)

  it("the organisation page shows the folders with their paths and every project with its state", async () => {
    const res = await env.call(gcpOwner, "GET", `/api/organizations/${orgAccountId}`)
    expect(res.status, res.text).toBe(200)
    const detail = res.body.data
    // (Listed by path in the database's collation: compared as a set.)
    expect(detail.units.map((u: any) => [u.unit_id, u.kind, u.path]).sort()).toEqual([
      [ORG, "organization", "example.com"],
      ["folders/200", "folder", "example.com / folders/200"],
      ["folders/100", "folder", "example.com / Production"],
      ["folders/130", "folder", "example.com / Production / Archive"],
      ["folders/120", "folder", "example.com / Production / Data"],
      ["folders/110", "folder", "example.com / Production / Web"],
      ["folders/111", "folder", "example.com / Production / Web / Frontend"],
    ].sort())
    expect(detail.units.find((u: any) => u.unit_id === "folders/100")).toMatchObject({ parent_unit_id: ORG, name: "Production", members: 3 })
    const member = (id: string) => detail.members.find((m: any) => m.cloud_account_id === id)
    expect(member("frontend-prod")).toMatchObject({
      name: "Frontend", unit_id: "folders/111", unit_path: "example.com / Production / Web / Frontend", state: "active", cloud_state: "ACTIVE",
      included: true, reachable: true, retired_at: null, removed_at: null,
    })
    expect(member("frontend-prod").account_id).toBeGreaterThan(0)
    expect(member("prod-billing").tags).toEqual({ env: "prod", "cost-center": "cc-001" })
    expect(member("sandbox-old")).toMatchObject({ state: "closed", cloud_state: "DELETE_REQUESTED", account_id: null, reachable: null })
    expect(member("sandbox-new")).toMatchObject({ name: "sandbox-new", unit_path: "example.com / folders/200", state: "active" })
    expect(detail.members).toHaveLength(8)
  })

  it("the members are ordinary GCP accounts of the organisation; a member's detail names its project", async () => {
    const accounts = await accountsOf(gcpOwner, GCP)
    const members = accounts.filter((a) => a.organization_account_id === orgAccountId)
    expect(members.map((a) => a.account_id).sort()).toEqual(["admin-tools-1", "frontend-prod", "prod-api", "prod-batch", "prod-billing", "sandbox-new", "web-prod-01"])
    expect(members.find((a) => a.account_id === PLANTED)).toMatchObject({
      account_name: "Web (prod)", cloud_provider_id: GCP, org_unit_path: "example.com / Production / Web", retired_at: null, is_organization: false,
    })
    expect(accounts.find((a) => a.id === orgAccountId)).toMatchObject({ is_organization: true, account_id: ORG })
    const web = members.find((a) => a.account_id === PLANTED)
    const page = await env.call(gcpOwner, "GET", `/api/accounts/${web.id}`)
    expect(page.status, page.text).toBe(200)
    // As a project added on its own: the project, the service account it is read as, and its key masked.
    expect(page.body.data.credential_data).toEqual({ aws_account_id: null, access_key: null, secret_key: SECRET_MASK, project_id: PLANTED, client_email: orgKey.email })
    expect(page.text).not.toContain("PRIVATE KEY")
  })

  it("Sync now: a project added, one moved to another folder and one deleted show as added, moved and retired", async () => {
    addGcpProject("data-lake", "folders/120", { displayName: "Data lake" })
    const api = gcpOrg.projects.find((p) => p["projectId"] === "prod-api")!
    api["parent"] = "folders/120"
    const batch = gcpOrg.projects.find((p) => p["projectId"] === "prod-batch")!
    batch["state"] = "DELETE_REQUESTED"
    const res = await env.call(gcpOwner, "POST", `/api/accounts/${orgAccountId}/sync`)
    expect(res.status, res.text).toBe(200)
    expect(res.body.message).toBe(OrganizationMessages.syncStarted)
    const { changes } = res.body.data
    expect(changes.added).toEqual([{ cloud_account_id: "data-lake", name: "Data lake", unit_path: "example.com / Production / Data" }])
    expect(changes.moved).toEqual([{ cloud_account_id: "prod-api", name: "API", unit_path: "example.com / Production / Data", detail: "example.com / Production" }])
    expect(changes.retired).toEqual([{ cloud_account_id: "prod-batch", name: "Batch jobs", unit_path: "example.com / Production", detail: "closed" }])
    expect(changes.reactivated).toEqual([])
    expect(changes.renamed).toEqual([])
    expect(res.body.data).toMatchObject({ trigger: "manual", members_total: 9, members_included: 7 })

    const accounts = await accountsOf(gcpOwner, GCP)
    expect(accounts.find((a) => a.account_id === "prod-api")).toMatchObject({ org_unit_path: "example.com / Production / Data", retired_at: null })
    expect(accounts.find((a) => a.account_id === "prod-batch").retired_at).not.toBeNull()
    expect(accounts.find((a) => a.account_id === "data-lake")).toMatchObject({ organization_account_id: orgAccountId, org_unit_path: "example.com / Production / Data" })
    const detail = (await env.call(gcpOwner, "GET", `/api/organizations/${orgAccountId}`)).body.data
    expect(detail.members.find((m: any) => m.cloud_account_id === "prod-batch")).toMatchObject({ state: "closed", cloud_state: "DELETE_REQUESTED", retired_reason: "closed" })
    expect(detail).toMatchObject({ members_total: 9, members_included: 7, members_retired: 1 })
    const syncs = (await env.call(gcpOwner, "GET", `/api/organizations/${orgAccountId}/syncs`)).body.data.syncs
    expect(syncs.map((s: any) => s.trigger)).toEqual(["manual", "onboard"])
  }, 60_000)

  describe("a fleet scan", () => {
    let fleet: any
    const scanned = ["admin-tools-1", "data-lake", "frontend-prod", "prod-api", "prod-billing", "sandbox-new", "web-prod-01"]

    it("scans each member against its own project; the unreadable project fails alone with Google's words", async () => {
      server.clearLog()
      const started = await env.call(gcpOwner, "POST", "/api/scans", {
        user_id: gcpOwner.userId, account_id: orgAccountId, cloud_provider_id: GCP, cloud_provider_name: "gcp", services: ["storage"],
      })
      expect(started.status, started.text).toBe(200)
      expect(started.body.message).toBe(OrganizationMessages.fleetScanStarted)
      const fleetScanId = started.body.data.fleet_scan_id
      expect(fleetScanId).toBeGreaterThan(0)
      expect(started.body.data.members_total).toBe(scanned.length)
      const deadline = Date.now() + 180_000
      do {
        await sleep(500)
        fleet = (await env.call(gcpOwner, "GET", `/api/fleet-scans/${fleetScanId}`)).body.data
      } while (fleet.status === "running" && Date.now() < deadline)
      expect(fleet.status, JSON.stringify(fleet)).toBe("completed")
      expect(fleet.members.map((m: any) => m.cloud_account_id).sort()).toEqual(scanned)
      expect(fleet, JSON.stringify(fleet.members, null, 1)).toMatchObject({ members_total: 7, members_completed: 6, members_failed: 1, members_queued: 0, members_running: 0 })
      const byId = new Map<string, any>(fleet.members.map((m: any) => [m.cloud_account_id, m]))
      for (const id of scanned.filter((x) => x !== UNREADABLE)) {
        expect(byId.get(id), id).toMatchObject({ state: "completed", scan_status: "completed", total_services: 1, reason: null })
      }
      const unreadable = byId.get(UNREADABLE)
      expect(unreadable).toMatchObject({ state: "failed", scan_status: "failed" })
      expect(unreadable.scan_id).toBeGreaterThan(0)
      expect(unreadable.reason).toContain(`The service account ${orgKey.email} cannot read project ${UNREADABLE}`)
      expect(unreadable.reason).toContain("'resourcemanager.projects.get' denied")

      // Every Google call of the member scans named a member project (none the key's own security-admin), every member
      // project was read, and the buckets listed were those of the readable members' own projects.
      const calls = server.requests.filter((r) => r.host.endsWith(".googleapis.com") && r.host !== "oauth2.googleapis.com")
      const projectOf = (r: (typeof calls)[number]) => r.query.get("project") ?? /\/projects\/([^/:]+)/.exec(r.path)?.[1]
      expect(calls.length).toBeGreaterThan(0)
      expect([...new Set(calls.flatMap((r) => projectOf(r) ?? []))].sort()).toEqual(scanned)
      // (Calls on a bucket name the bucket, not its project: only the planted bucket of web-prod-01 was listed.)
      expect(calls.filter((r) => projectOf(r) === undefined).every((r) => r.path.startsWith(`/storage/v1/b/${BUCKET}`))).toBe(true)
      const bucketLists = calls.filter((r) => r.host === "storage.googleapis.com" && r.path === "/storage/v1/b")
      expect([...new Set(bucketLists.map(projectOf))].sort()).toEqual(scanned.filter((x) => x !== UNREADABLE))
      // Each member scan is an ordinary scan of the member's account.
      for (const id of scanned) {
        const m = byId.get(id)
        const scan = (await env.call(gcpOwner, "GET", `/api/scans/${m.scan_id}`)).body.data
        expect(scan.account_id, id).toBe(m.account_id)
      }
    }, 240_000)

    it("finds the planted bucket in its member's scan only", async () => {
      const uniform = async (projectId: string) => {
        const scanId = fleet.members.find((m: any) => m.cloud_account_id === projectId).scan_id
        const list = await env.call(gcpOwner, "GET", `/api/findings?scan_id=${scanId}&check=storage_bucket_uniform_access&page_size=50`)
        expect(list.status, list.text).toBe(200)
        return list.body.data.find((f: any) => f.check_id === "storage_bucket_uniform_access")
      }
      const planted = await uniform(PLANTED)
      expect(planted?.status).toBe("fail")
      const detail = await env.call(gcpOwner, "GET", `/api/findings/${planted.id}?details_page_size=50`)
      expect(detail.body.data.details.map((d: any) => d.resource_id)).toContain(BUCKET)
      for (const other of ["prod-billing", "data-lake"]) {
        const f = await uniform(other)
        expect(f === undefined || f.status !== "fail", other).toBe(true)
      }
      const list = (await env.call(gcpOwner, "GET", `/api/organizations/${orgAccountId}/fleet-scans`)).body.data.fleet_scans
      expect(list[0]).toMatchObject({ fleet_scan_id: fleet.fleet_scan_id, status: "completed", members_completed: 6, members_failed: 1 })
    })
  })

  it("another workspace sees none of it", async () => {
    expect((await env.call(outsider, "GET", `/api/organizations/${orgAccountId}`)).status).toBe(404)
    expect((await env.call(outsider, "POST", `/api/accounts/${orgAccountId}/sync`)).status).toBe(404)
    expect(await accountsOf(outsider, GCP)).toEqual([])
  })
})

describe("an Azure management group", () => {
  const principal = (secret = HARDENED.secret) => ({ tenant_id: HARDENED.tenantId, client_id: HARDENED.clientId, client_secret: secret })
  let orgAccountId: number

  it("refuses a missing or malformed management group id with the contract's messages", async () => {
    const missing = await onboard(azureOwner, AZURE, principal(), { root_id: "  " })
    expect(missing.status, missing.text).toBe(400)
    expect(missing.body.errors).toEqual([{ path: "organization.root_id", message: OrganizationMessages.rootIdRequired }])
    for (const root_id of ["bad group", "a/b", "../subscriptions"]) {
      const bad = await onboard(azureOwner, AZURE, principal(), { root_id })
      expect(bad.status, bad.text).toBe(400)
      expect(bad.body.errors).toEqual([{ path: "organization.root_id", message: OrganizationMessages.rootIdInvalidAzure }])
    }
    await nothingSaved(azureOwner)
  })

  it("a wrong client secret is 401, a group the principal may not read is 400 with Azure's words; nothing is saved", async () => {
    const refused = await onboard(azureOwner, AZURE, principal("not-the-secret"), { root_id: "contoso-root" })
    expect(refused.status, refused.text).toBe(401)
    expect(refused.body.message).toBe(ScanningServerMessages.cloudCredentialsInvalidAzure)
    expect(refused.text).not.toContain("not-the-secret")

    azureOrg.denied.add("contoso-root")
    try {
      const denied = await onboard(azureOwner, AZURE, principal(), { root_id: "contoso-root" })
      expect(denied.status, denied.text).toBe(400)
      expect(denied.body.message).toContain(OrganizationMessages.discoveryFailed)
      expect(denied.body.message).toContain("AuthorizationFailed")
    } finally {
      azureOrg.denied.clear()
    }
    const unknown = await onboard(azureOwner, AZURE, principal(), { root_id: "no-such-group" })
    expect(unknown.status, unknown.text).toBe(400)
    expect(unknown.body.message).toContain(OrganizationMessages.discoveryFailed)
    await nothingSaved(azureOwner)
  })

  it("creates the organisation and one account per running subscription in one call", async () => {
    // A subscription id in the payload is ignored: the organisation is read through its management group.
    const res = await onboard(azureOwner, AZURE, { ...principal(), subscription_id: SUB(1) }, { root_id: "contoso-root" })
    expect(res.status, res.text).toBe(200)
    expect(res.text).not.toContain(HARDENED.secret)
    orgAccountId = res.body.data.account.id
    expect(res.body.data.account).toMatchObject({ is_organization: true, account_id: "contoso-root", cloud_provider_id: AZURE })
    expect(res.body.data.organization).toMatchObject({
      organization_id: "contoso-root", root_name: "Contoso", management_account_id: HARDENED.tenantId, members_total: 8, members_included: 6,
    })
    // Disabled (SUB 5) and Deleted (SUB 6) subscriptions are known, not accounts.
    expect(ids(res.body.data.sync.changes.added)).toEqual([SUB(1), SUB(2), SUB(3), SUB(4), SUB(7), SUB(8)])
  }, 60_000)

  it("the organisation page shows the groups with their paths and every subscription with its state", async () => {
    const detail = (await env.call(azureOwner, "GET", `/api/organizations/${orgAccountId}`)).body.data
    expect(detail.units.map((u: any) => [u.unit_id, u.kind, u.path]).sort()).toEqual([
      ["contoso-root", "management_group", "Contoso"],
      ["landing-zones", "management_group", "Contoso / Landing zones"],
      ["corp", "management_group", "Contoso / Landing zones / Corp"],
      ["online", "management_group", "Contoso / Landing zones / online"],
      ["platform", "management_group", "Contoso / Platform"],
      ["identity", "management_group", "Contoso / Platform / Identity"],
    ].sort())
    const member = (id: string) => detail.members.find((m: any) => m.cloud_account_id === id)
    expect(member(SUB(2))).toMatchObject({ name: "Connectivity", unit_path: "Contoso / Platform", state: "active", cloud_state: "Enabled", tags: { env: "prod", owner: "netops" } })
    expect(member(SUB(4))).toMatchObject({ state: "active", cloud_state: "PastDue", unit_path: "Contoso / Landing zones / Corp" })
    expect(member(SUB(5))).toMatchObject({ state: "suspended", cloud_state: "Disabled", account_id: null, included: true })
    expect(member(SUB(6))).toMatchObject({ state: "closed", cloud_state: "Deleted", account_id: null })
    expect(member(SUB(7))).toMatchObject({ state: "active", cloud_state: "", unit_path: "Contoso / Landing zones / online" })
    expect(member(SUB(7)).account_id).toBeGreaterThan(0)
  })

  it("the members are ordinary Azure accounts of the organisation; a member's detail names its subscription", async () => {
    const accounts = await accountsOf(azureOwner, AZURE)
    const members = accounts.filter((a) => a.organization_account_id === orgAccountId)
    expect(members.map((a) => a.account_id).sort()).toEqual([SUB(1), SUB(2), SUB(3), SUB(4), SUB(7), SUB(8)])
    const corp = members.find((a) => a.account_id === SUB(4))
    expect(corp).toMatchObject({ account_name: "Corp 1", cloud_provider_id: AZURE, org_unit_path: "Contoso / Landing zones / Corp", retired_at: null })
    const page = await env.call(azureOwner, "GET", `/api/accounts/${corp.id}`)
    expect(page.status, page.text).toBe(200)
    expect(page.body.data.credential_data).toEqual({
      aws_account_id: null, access_key: null, secret_key: SECRET_MASK, tenant_id: HARDENED.tenantId, client_id: HARDENED.clientId, subscription_id: SUB(4),
    })
    expect(page.text).not.toContain(HARDENED.secret)
  })

  it("Sync now: a subscription added, one moved to another group, one disabled and one gone", async () => {
    const at = (n: number) => azureSubs.findIndex((s) => s.subscriptionId === SUB(n))
    azureSubs.push({ subscriptionId: SUB(9), parent: "corp", displayName: "Corp 4", listed: { displayName: "Corp 4", state: "Enabled" } })
    azureSubs[at(2)] = { ...azureSubs[at(2)]!, parent: "identity" }
    azureSubs[at(3)] = { ...azureSubs[at(3)]!, listed: { displayName: "Identity", state: "Disabled" } }
    azureSubs.splice(at(8), 1)
    const res = await env.call(azureOwner, "POST", `/api/accounts/${orgAccountId}/sync`)
    expect(res.status, res.text).toBe(200)
    const { changes } = res.body.data
    expect(changes.added).toEqual([{ cloud_account_id: SUB(9), name: "Corp 4", unit_path: "Contoso / Landing zones / Corp" }])
    expect(changes.moved).toEqual([{ cloud_account_id: SUB(2), name: "Connectivity", unit_path: "Contoso / Platform / Identity", detail: "Contoso / Platform" }])
    expect(changes.retired).toEqual([
      { cloud_account_id: SUB(3), name: "Identity", unit_path: "Contoso / Platform / Identity", detail: "suspended" },
      { cloud_account_id: SUB(8), name: "Online 2", unit_path: "Contoso / Landing zones / online", detail: "removed" },
    ])
    const accounts = await accountsOf(azureOwner, AZURE)
    expect(accounts.find((a) => a.account_id === SUB(2))).toMatchObject({ org_unit_path: "Contoso / Platform / Identity", retired_at: null })
    expect(accounts.find((a) => a.account_id === SUB(3)).retired_at).not.toBeNull()
    expect(accounts.find((a) => a.account_id === SUB(8)).retired_at).not.toBeNull()
    const detail = (await env.call(azureOwner, "GET", `/api/organizations/${orgAccountId}`)).body.data
    expect(detail.members.find((m: any) => m.cloud_account_id === SUB(8)).removed_at).not.toBeNull()
    expect(detail.members.find((m: any) => m.cloud_account_id === SUB(3))).toMatchObject({ state: "suspended", retired_reason: "suspended" })
  }, 60_000)

  describe("a fleet scan", () => {
    let fleet: any
    /** The active members after the sync above: Sandbox, Connectivity, Corp 1, Online 1 and Corp 4. */
    const scanned = [SUB(1), SUB(2), SUB(4), SUB(7), SUB(9)].sort()
    /** Online 1 is not in the app's subscription list: the app may not read it, so its member scan fails alone. */
    const UNREADABLE_SUB = SUB(7)
    /** Corp 1 holds the planted storage account that accepts plain HTTP; Connectivity a compliant one. */
    const PLANTED_SUB = SUB(4)
    const HTTP_ACCOUNT = "corphttpstore"
    const storageAccount = (subscriptionId: string, name: string, httpsOnly: boolean) => ({
      id: armId(subscriptionId, "storage", "Microsoft.Storage/storageAccounts", name),
      name,
      type: "Microsoft.Storage/storageAccounts",
      location: "westeurope",
      tags: {},
      kind: "StorageV2",
      sku: { name: "Standard_LRS", tier: "Standard" },
      properties: { supportsHttpsTrafficOnly: httpsOnly, minimumTlsVersion: "TLS1_2", allowBlobPublicAccess: false, provisioningState: "Succeeded" },
    })

    it("scans each member against its own subscription; the subscription the app may not read fails alone with Azure's words", async () => {
      // Corp 4 came with the sync; the app registration may read every subscription of the tenant but Online 1.
      azureWorld.subscriptions.set(SUB(9), emptySubscription({ tenantId: HARDENED.tenantId, subscriptionId: SUB(9) }, "Corp 4"))
      put(azureWorld.subscriptions.get(PLANTED_SUB)!, storageAccount(PLANTED_SUB, HTTP_ACCOUNT, false))
      put(azureWorld.subscriptions.get(SUB(2))!, storageAccount(SUB(2), "netopsstore", true))
      const tenant = azureWorld.tenants.get(HARDENED.tenantId)!
      const app = tenant.apps.get(HARDENED.clientId)!
      tenant.apps.set(HARDENED.clientId, { ...app, subscriptions: new Set([...azureWorld.subscriptions.keys()].filter((id) => id !== UNREADABLE_SUB)) })
      server.clearLog()
      try {
        const started = await env.call(azureOwner, "POST", "/api/scans", {
          user_id: azureOwner.userId, account_id: orgAccountId, cloud_provider_id: AZURE, cloud_provider_name: "azure", services: ["storage"],
        })
        expect(started.status, started.text).toBe(200)
        expect(started.body.message).toBe(OrganizationMessages.fleetScanStarted)
        expect(started.body.data.members_total).toBe(scanned.length)
        const deadline = Date.now() + 180_000
        do {
          await sleep(500)
          fleet = (await env.call(azureOwner, "GET", `/api/fleet-scans/${started.body.data.fleet_scan_id}`)).body.data
        } while (fleet.status === "running" && Date.now() < deadline)
      } finally {
        tenant.apps.set(HARDENED.clientId, app)
      }
      expect(fleet.status, JSON.stringify(fleet)).toBe("completed")
      expect(fleet.members.map((m: any) => m.cloud_account_id).sort()).toEqual(scanned)
      expect(fleet, JSON.stringify(fleet.members, null, 1)).toMatchObject({ members_total: 5, members_completed: 4, members_failed: 1, members_queued: 0, members_running: 0 })
      const byId = new Map<string, any>(fleet.members.map((m: any) => [m.cloud_account_id, m]))
      for (const id of scanned.filter((x) => x !== UNREADABLE_SUB)) {
        expect(byId.get(id), id).toMatchObject({ state: "completed", scan_status: "completed", total_services: 1, reason: null })
      }
      const unreadable = byId.get(UNREADABLE_SUB)
      expect(unreadable).toMatchObject({ state: "failed", scan_status: "failed" })
      expect(unreadable.scan_id).toBeGreaterThan(0)
      expect(unreadable.reason).toContain("AuthorizationFailed")
      expect(unreadable.reason).toContain(`/subscriptions/${UNREADABLE_SUB}`)

      // Every ARM call of the member scans named a member subscription, every member subscription was read, and the
      // storage accounts were listed in the readable members' own subscriptions.
      const calls = server.requests.filter((r) => r.host === "management.azure.com")
      const subscriptionOf = (r: (typeof calls)[number]) => /^\/subscriptions\/([^/]+)/i.exec(r.path)?.[1]
      expect(calls.length).toBeGreaterThan(0)
      expect([...new Set(calls.flatMap((r) => subscriptionOf(r) ?? []))].sort()).toEqual(scanned)
      const accountLists = calls.filter((r) => /^\/subscriptions\/[^/]+\/providers\/Microsoft\.Storage\/storageAccounts$/i.test(r.path))
      expect([...new Set(accountLists.map(subscriptionOf))].sort()).toEqual(scanned.filter((x) => x !== UNREADABLE_SUB))
      // Each member scan is an ordinary scan of the member's account.
      for (const id of scanned) {
        const m = byId.get(id)
        const scan = (await env.call(azureOwner, "GET", `/api/scans/${m.scan_id}`)).body.data
        expect(scan.account_id, id).toBe(m.account_id)
      }
    }, 240_000)

    it("finds the storage account that accepts plain HTTP in its member's scan only", async () => {
      const secureTransfer = async (subscriptionId: string) => {
        const scanId = fleet.members.find((m: any) => m.cloud_account_id === subscriptionId).scan_id
        const list = await env.call(azureOwner, "GET", `/api/findings?scan_id=${scanId}&check=storage_secure_transfer_required&page_size=50`)
        expect(list.status, list.text).toBe(200)
        return list.body.data.find((f: any) => f.check_id === "storage_secure_transfer_required")
      }
      const planted = await secureTransfer(PLANTED_SUB)
      expect(planted?.status).toBe("fail")
      const detail = await env.call(azureOwner, "GET", `/api/findings/${planted.id}?details_page_size=50`)
      expect(detail.body.data.details.map((d: any) => [d.name, d.compliance, d.resource_id])).toEqual([
        [HTTP_ACCOUNT, false, armId(PLANTED_SUB, "storage", "Microsoft.Storage/storageAccounts", HTTP_ACCOUNT)],
      ])
      // The compliant account of Connectivity passes; members without storage accounts have nothing failing.
      expect((await secureTransfer(SUB(2)))?.status).toBe("pass")
      for (const other of [SUB(1), SUB(9)]) {
        const f = await secureTransfer(other)
        expect(f === undefined || f.status !== "fail", other).toBe(true)
      }
      // Findings across the organisation's members: the only failing one is Corp 1's.
      const across = await env.call(azureOwner, "GET", `/api/findings?organization_id=${orgAccountId}&check=storage_secure_transfer_required&status=fail&page_size=50`)
      expect(across.status, across.text).toBe(200)
      expect(across.body.data.map((f: any) => f.account_id)).toEqual([byIdOf(PLANTED_SUB)])
      const list = (await env.call(azureOwner, "GET", `/api/organizations/${orgAccountId}/fleet-scans`)).body.data.fleet_scans
      expect(list[0]).toMatchObject({ fleet_scan_id: fleet.fleet_scan_id, status: "completed", members_completed: 4, members_failed: 1 })
    })
    const byIdOf = (subscriptionId: string) => fleet.members.find((m: any) => m.cloud_account_id === subscriptionId).account_id
  })

  it("another workspace sees none of it", async () => {
    expect((await env.call(outsider, "GET", `/api/organizations/${orgAccountId}`)).status).toBe(404)
    expect(await accountsOf(outsider, AZURE)).toEqual([])
  })
})
