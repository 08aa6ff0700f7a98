/**
 * GCP organisation discovery (issue 31) against Resource Manager v3 on the loopback fixture server, signed in with a
 * real JWT-bearer exchange (tests/scanner-gcp's fake Google): nested folders, paging, deleted projects, access and
 * input failures, and a member project opened with the organisation's key (memberCredentials) reading that project,
 * not the key's own.
 */
import { Effect } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import type { cloudresourcemanager_v3 } from "@googleapis/cloudresourcemanager/build/v3"
import { testGcpAccount } from "../../server/accounts/connection-test.ts"
import { unitPaths, type OrganizationDiscovery } from "../../server/organizations/discovery.ts"
import { discoverGcp, GcpFolder, GcpFoldersPage, GcpOrganization, GcpProject, GcpProjectsPage, type GcpDiscoveryInput } from "../../server/organizations/gcp-discovery.ts"
import { memberCredentials } from "../../server/organizations/member-credentials.ts"
import { gcpEndpointsAt } from "../../server/scanner/gcp/endpoints.ts"
import { scanGcpService } from "../../server/scanner/gcp/scan-service.ts"
import { gcpCredentialsFromFields } from "../../server/scanner/gcp/session.ts"
import { ProviderIds } from "../../src/contracts/constants.ts"
import { credentialIssues } from "../../src/contracts/accounts.ts"
import { startCloudFixtureServer, type CloudFixtureServer } from "../support/cloud-fixture-server.ts"
import { emptyProject, NOW } from "../scanner-gcp/gcp-fixtures.ts"
import { addServiceAccount, installGcpWorld, newGcpWorld, type GcpWorld, type TestServiceAccount } from "../scanner-gcp/gcp-world.ts"
import type { Mismatches } from "../scanner-gcp/official-models.test.ts"
import { exampleOrganization, installGcpOrgWorld, type GcpOrgWorld } from "./gcp-org-world.ts"

/** The decoders read only fields of Google's v3 model (a build error names the path otherwise). */
type Conforms<T extends never> = T
export type Checked = [
  Conforms<Mismatches<typeof GcpOrganization.Type, cloudresourcemanager_v3.Schema$Organization, "Organization">>,
  Conforms<Mismatches<typeof GcpFolder.Type, cloudresourcemanager_v3.Schema$Folder, "Folder">>,
  Conforms<Mismatches<typeof GcpProject.Type, cloudresourcemanager_v3.Schema$Project, "Project">>,
  Conforms<Mismatches<typeof GcpFoldersPage.Type, cloudresourcemanager_v3.Schema$ListFoldersResponse, "ListFoldersResponse">>,
  Conforms<Mismatches<typeof GcpProjectsPage.Type, cloudresourcemanager_v3.Schema$ListProjectsResponse, "ListProjectsResponse">>,
]

const ORG = "organizations/123456789012"

let server: CloudFixtureServer
let world: GcpWorld
let org: GcpOrgWorld
let orgKey: TestServiceAccount

beforeAll(async () => {
  server = await startCloudFixtureServer()
  world = newGcpWorld()
  installGcpWorld(server, world)
  org = exampleOrganization()
  installGcpOrgWorld(server, org)
  // The organisation's service account lives in its own admin project, which is not a member being scanned.
  orgKey = addServiceAccount(world, server, "org-scanner@security-admin.iam.gserviceaccount.com")
  for (const p of org.projects) world.projects.set(String(p["projectId"]), emptyProject(String(p["projectId"]), String(p["name"]).slice("projects/".length)))
  world.projects.set("security-admin", emptyProject("security-admin", "999000000001"))
})
afterAll(async () => server.close())
beforeEach(() => {
  server.clearFaults()
  server.clearLog()
  org.denied.clear()
})

const input = (rootId: string, extra: Partial<GcpDiscoveryInput> = {}): GcpDiscoveryInput => ({
  credentials: { serviceAccountKey: orgKey.keyJson },
  rootId,
  endpoints: gcpEndpointsAt(server.origin),
  maxAttempts: 2,
  maxRetryDelayMs: 50,
  ...extra,
})
const discover = (rootId: string, extra?: Partial<GcpDiscoveryInput>) => Effect.runPromise(discoverGcp(input(rootId, extra)))
const failure = (rootId: string, extra?: Partial<GcpDiscoveryInput>) => Effect.runPromise(Effect.flip(discoverGcp(input(rootId, extra))))

const member = (d: OrganizationDiscovery, id: string) => {
  const m = d.members.find((x) => x.cloudAccountId === id)
  if (m === undefined) throw new Error(`no member ${id}; members: ${d.members.map((x) => x.cloudAccountId).join(", ")}`)
  return m
}

describe("discoverGcp: an organisation", () => {
  it("finds every folder at any depth and every project, each in the folder it sits directly in", async () => {
    const d = await discover(ORG)
    expect(d.rootId).toBe(ORG)
    expect(d.rootName).toBe("example.com")
    expect(d.units.map((u) => [u.id, u.parentId, u.name, u.kind])).toEqual([
      [ORG, null, "example.com", "organization"],
      ["folders/100", ORG, "Production", "folder"],
      ["folders/200", ORG, "folders/200", "folder"],
      ["folders/110", "folders/100", "Web", "folder"],
      ["folders/120", "folders/100", "Data", "folder"],
      ["folders/130", "folders/100", "Archive", "folder"],
      ["folders/111", "folders/110", "Frontend", "folder"],
    ])
    const paths = unitPaths(d.units)
    expect(paths.get("folders/111")).toBe("example.com / Production / Web / Frontend")
    expect(paths.get("folders/200")).toBe("example.com / folders/200")
    expect(d.members.map((m) => [m.cloudAccountId, m.unitId]).sort()).toEqual(
      [
        ["admin-tools-1", ORG],
        ["prod-billing", "folders/100"],
        ["prod-api", "folders/100"],
        ["prod-batch", "folders/100"],
        ["web-prod-01", "folders/110"],
        ["frontend-prod", "folders/111"],
        ["sandbox-old", "folders/200"],
        ["sandbox-new", "folders/200"],
      ].sort(),
    )
  })

  it("follows nextPageToken: the third project and the third folder of Production are on page two", async () => {
    const d = await discover(ORG)
    expect(member(d, "prod-batch").name).toBe("Batch jobs")
    expect(d.units.find((u) => u.id === "folders/130")?.name).toBe("Archive")
    for (const list of ["/v3/projects", "/v3/folders"]) {
      const pages = server.requests.filter((r) => r.path === list && r.query.get("parent") === "folders/100")
      expect(pages.map((r) => r.query.get("pageToken") !== null)).toEqual([false, true])
    }
  })

  it("leaves out folders being deleted (the API's default)", async () => {
    const d = await discover(ORG)
    expect(d.units.some((u) => u.id === "folders/300")).toBe(false)
  })

  it("maps project states, labels and names: DELETE_REQUESTED is closed, a missing state or name falls back", async () => {
    const d = await discover(ORG)
    expect(member(d, "sandbox-old")).toMatchObject({ state: "closed", cloudState: "DELETE_REQUESTED", name: "Old sandbox", tags: {} })
    expect(member(d, "sandbox-new")).toEqual({ cloudAccountId: "sandbox-new", name: "sandbox-new", unitId: "folders/200", state: "active", cloudState: "ACTIVE", tags: {} })
    expect(member(d, "prod-billing")).toMatchObject({ state: "active", cloudState: "ACTIVE", name: "Billing", tags: { env: "prod", "cost-center": "cc-001" } })
    // Deleted projects are only listed on request.
    expect(server.requests.filter((r) => r.path === "/v3/projects").every((r) => r.query.get("showDeleted") === "true")).toBe(true)
  })

  it("starts from a folder: only its subtree, the folder as the top unit", async () => {
    const d = await discover("folders/100")
    expect(d.rootName).toBe("Production")
    expect(d.units.map((u) => [u.id, u.parentId, u.kind])).toEqual([
      ["folders/100", null, "folder"],
      ["folders/110", "folders/100", "folder"],
      ["folders/120", "folders/100", "folder"],
      ["folders/130", "folders/100", "folder"],
      ["folders/111", "folders/110", "folder"],
    ])
    expect(d.members.map((m) => m.cloudAccountId).sort()).toEqual(["frontend-prod", "prod-api", "prod-batch", "prod-billing", "web-prod-01"])
    expect(unitPaths(d.units).get("folders/111")).toBe("Production / Web / Frontend")
  })
})

describe("discoverGcp: failures", () => {
  it("403 on a folder below the root is access_denied, naming the call", async () => {
    org.denied.add("folders/110")
    const e = await failure(ORG)
    expect(e.reason).toBe("access_denied")
    expect(e.message).toContain("folders/110")
  })

  it("403 on the organisation itself is access_denied", async () => {
    org.denied.add(ORG)
    expect((await failure(ORG)).reason).toBe("access_denied")
  })

  it("404 is not_found", async () => {
    server.fault({ host: "cloudresourcemanager.googleapis.com", path: /^\/v3\/folders\/555$/, times: 1, reply: { status: 404, body: { error: { code: 404, message: "Folder not found.", status: "NOT_FOUND" } } } })
    expect((await failure("folders/555")).reason).toBe("not_found")
  })

  it("5xx after the retries is unreachable", async () => {
    server.fault({ host: "cloudresourcemanager.googleapis.com", path: /^\/v3\/projects$/, times: 10, reply: { status: 503, body: { error: { code: 503, message: "The service is currently unavailable.", status: "UNAVAILABLE" } } } })
    expect((await failure(ORG)).reason).toBe("unreachable")
  })

  it("a key Google refuses is invalid_credentials", async () => {
    const other = addServiceAccount(world, server, "revoked@security-admin.iam.gserviceaccount.com")
    world.accounts.delete(other.email)
    expect((await failure(ORG, { credentials: { serviceAccountKey: other.keyJson } })).reason).toBe("invalid_credentials")
  })

  it.each(["", "organisations/1", "organizations/", "organizations/abc", "folders/12/projects", "projects/web-prod-01", "folders/0123", "organizations/1 OR 1"])(
    "root id %j is invalid_input, before anything is sent",
    async (rootId) => {
      const e = await failure(rootId)
      expect(e.reason).toBe("invalid_input")
      expect(server.requests).toHaveLength(0)
    },
  )

  it("a key that is not a service-account key is invalid_input", async () => {
    expect((await failure(ORG, { credentials: { serviceAccountKey: "{}" } })).reason).toBe("invalid_input")
  })
})

describe("a member project with the organisation's credentials", () => {
  const orgStored = () => ({ service_account_key: orgKey.keyJson })

  it("memberCredentials keeps the organisation's key and names the member project", () => {
    expect(memberCredentials(ProviderIds.GCP, { ...orgStored(), access_key: "AKIA-stray" }, "web-prod-01")).toEqual({ service_account_key: orgKey.keyJson, project_id: "web-prod-01" })
    expect(memberCredentials(ProviderIds.GCP, {}, "web-prod-01")).toBeUndefined()
    expect(memberCredentials(ProviderIds.GCP, orgStored(), "  ")).toBeUndefined()
  })

  it("the connection test reads the member project, not the key's project", async () => {
    const stored = memberCredentials(ProviderIds.GCP, orgStored(), "web-prod-01")!
    const identity = await Effect.runPromise(testGcpAccount(stored, { GCP_ENDPOINT_URL: server.origin }))
    expect(identity).toMatchObject({ accountId: "web-prod-01", principal: orgKey.email })
    const reads = server.requests.filter((r) => r.host === "cloudresourcemanager.googleapis.com").map((r) => r.path)
    expect(reads).toEqual(["/v1/projects/web-prod-01"])
  })

  it("a scan of the member reads the member project's resources", async () => {
    const credentials = gcpCredentialsFromFields(memberCredentials(ProviderIds.GCP, orgStored(), "frontend-prod")!)!
    const result = await scanGcpService({ credentials, service: "iam", endpoints: gcpEndpointsAt(server.origin), now: NOW, maxAttempts: 2 })
    expect(result.accountId).toBe("frontend-prod")
    const iamPaths = server.requests.filter((r) => r.host === "iam.googleapis.com").map((r) => r.path)
    expect(iamPaths.length).toBeGreaterThan(0)
    expect(iamPaths.every((p) => p.startsWith("/v1/projects/frontend-prod/"))).toBe(true)
  })

  it("without project_id the key's own project is read, as before", async () => {
    const identity = await Effect.runPromise(testGcpAccount(orgStored(), { GCP_ENDPOINT_URL: server.origin }))
    expect(identity.accountId).toBe("security-admin")
  })

  it("the add-account contract refuses a malformed project_id and accepts a valid one", () => {
    const key = orgKey.keyJson
    expect(credentialIssues(ProviderIds.GCP, { service_account_key: key, project_id: "Not A Project" }).map((i) => i.path.join("."))).toEqual(["credentials.project_id"])
    expect(credentialIssues(ProviderIds.GCP, { service_account_key: key, project_id: "web-prod-01" })).toEqual([])
  })
})
