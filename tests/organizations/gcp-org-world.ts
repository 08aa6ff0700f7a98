/**
 * A fake GCP organisation for the discovery tests: Cloud Resource Manager v3 organizations.get, folders.get,
 * folders.list and projects.list on the loopback fixture server, next to the fake Google Cloud of tests/scanner-gcp
 * (its token endpoint and service accounts). Folders and projects are wire-shaped per Google's v3 model (`Folder`,
 * `Project`, `ListFoldersResponse`, `ListProjectsResponse`): output-only fields set on some items and left out of
 * others, empty pages without their list key, `nextPageToken` only when more follow.
 *
 * Like Google, folders.list leaves DELETE_REQUESTED folders out and projects.list leaves DELETE_REQUESTED projects out
 * unless `showDeleted=true`; a parent the caller may not read answers 403 PERMISSION_DENIED.
 */
import { decodePageToken, encodePageToken, type CloudFixtureServer, type FixtureReply, type FixtureRequest } from "../support/cloud-fixture-server.ts"
import { googleError, type Json } from "../scanner-gcp/gcp-world.ts"

export interface GcpOrgWorld {
  readonly organizations: Map<string, Json>
  readonly folders: Map<string, Json>
  readonly projects: Json[]
  /** Resource names ("folders/300") whose get and children lists answer 403. */
  readonly denied: Set<string>
  pageSize: number
}

const CRM = "cloudresourcemanager.googleapis.com"

const denied = (permission: string, resource: string): FixtureReply =>
  googleError(403, "PERMISSION_DENIED", `Permission '${permission}' denied on resource '${resource}' (or it may not exist).`, [
    { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "IAM_PERMISSION_DENIED", domain: "cloudresourcemanager.googleapis.com", metadata: { permission, resource } },
  ])

export function installGcpOrgWorld(server: CloudFixtureServer, world: GcpOrgWorld): void {
  const page = (req: FixtureRequest, items: ReadonlyArray<Json>, key: string): FixtureReply => {
    const start = decodePageToken(req.query.get("pageToken"))
    const slice = items.slice(start, start + world.pageSize)
    const next = start + world.pageSize < items.length ? encodePageToken(start + world.pageSize) : undefined
    return { body: { ...(slice.length === 0 ? {} : { [key]: slice }), ...(next === undefined ? {} : { nextPageToken: next }) } }
  }
  const known = (name: string) => world.organizations.has(name) || world.folders.has(name)

  server.route("GET", CRM, /^\/v3\/(organizations\/[^/:]+)$/, (_req, m) => {
    const name = m[1]!
    if (world.denied.has(name) || !world.organizations.has(name)) return denied("resourcemanager.organizations.get", name)
    return { body: world.organizations.get(name) }
  })
  server.route("GET", CRM, /^\/v3\/(folders\/[^/:]+)$/, (_req, m) => {
    const name = m[1]!
    if (world.denied.has(name) || !world.folders.has(name)) return denied("resourcemanager.folders.get", name)
    return { body: world.folders.get(name) }
  })
  server.route("GET", CRM, /^\/v3\/folders$/, (req) => {
    const parent = req.query.get("parent") ?? ""
    if (parent === "") return googleError(400, "INVALID_ARGUMENT", "Request contains an invalid argument.")
    if (world.denied.has(parent) || !known(parent)) return denied("resourcemanager.folders.list", parent)
    const showDeleted = req.query.get("showDeleted") === "true"
    return page(req, [...world.folders.values()].filter((f) => f["parent"] === parent && (showDeleted || f["state"] !== "DELETE_REQUESTED")), "folders")
  })
  server.route("GET", CRM, /^\/v3\/projects$/, (req) => {
    const parent = req.query.get("parent") ?? ""
    if (parent === "") return googleError(400, "INVALID_ARGUMENT", "Request contains an invalid argument.")
    if (world.denied.has(parent) || !known(parent)) return denied("resourcemanager.projects.list", parent)
    const showDeleted = req.query.get("showDeleted") === "true"
    return page(req, world.projects.filter((p) => p["parent"] === parent && (showDeleted || p["state"] !== "DELETE_REQUESTED")), "projects")
  })
}

/**
 * example.com (organizations/123456789012)
 * ├─ admin-tools-1                      project
 * ├─ Production (folders/100)
 * │  ├─ prod-billing, prod-api, prod-batch (three projects: two pages)
 * │  ├─ Web (folders/110)
 * │  │  ├─ web-prod-01
 * │  │  └─ Frontend (folders/111)
 * │  │     └─ frontend-prod
 * │  ├─ Data (folders/120)             no projects
 * │  └─ Archive (folders/130)          no projects (third folder: page two)
 * ├─ folders/200 (no display name)
 * │  ├─ sandbox-old                    DELETE_REQUESTED
 * │  └─ sandbox-new                    no display name, labels or state
 * └─ Retired (folders/300)             DELETE_REQUESTED (not listed by default)
 */
export function exampleOrganization(pageSize = 2): GcpOrgWorld {
  const ORG = "organizations/123456789012"
  const folder = (id: string, parent: string, displayName: string | undefined, extra: Json = {}): [string, Json] => [
    `folders/${id}`,
    { name: `folders/${id}`, parent, ...(displayName === undefined ? {} : { displayName }), state: "ACTIVE", ...extra },
  ]
  let number = 400000000000
  const project = (projectId: string, parent: string, fields: Json = {}): Json => ({ name: `projects/${++number}`, parent, projectId, state: "ACTIVE", ...fields })
  return {
    pageSize,
    denied: new Set(),
    organizations: new Map([
      [ORG, { name: ORG, displayName: "example.com", directoryCustomerId: "C0abc123", state: "ACTIVE", createTime: "2019-03-01T10:00:00.000Z", updateTime: "2019-03-01T10:00:00.000Z", etag: "BwXhqfjo2Qc=" }],
    ]),
    folders: new Map([
      folder("100", ORG, "Production", { createTime: "2020-01-01T00:00:00.000Z", updateTime: "2024-05-05T00:00:00.000Z", etag: "W/\"a1\"" }),
      folder("110", "folders/100", "Web"),
      folder("111", "folders/110", "Frontend", { etag: "W/\"b2\"", tags: { "123456789012/env": "prod" } }),
      folder("120", "folders/100", "Data", { configuredCapabilities: [] }),
      folder("130", "folders/100", "Archive", { updateTime: "2025-09-09T00:00:00.000Z" }),
      folder("200", ORG, undefined),
      folder("300", ORG, "Retired", { state: "DELETE_REQUESTED", deleteTime: "2026-05-01T00:00:00.000Z" }),
    ]),
    projects: [
      project("admin-tools-1", ORG, { displayName: "Admin tools", labels: { team: "secops" }, createTime: "2020-02-02T00:00:00.000Z", etag: "W/\"p1\"" }),
      project("prod-billing", "folders/100", { displayName: "Billing", labels: { env: "prod", "cost-center": "cc-001" } }),
      project("prod-api", "folders/100", { displayName: "API", updateTime: "2025-01-01T00:00:00.000Z" }),
      project("prod-batch", "folders/100", { displayName: "Batch jobs", labels: {} }),
      project("web-prod-01", "folders/110", { displayName: "Web (prod)", labels: { env: "prod" } }),
      project("frontend-prod", "folders/111", { displayName: "Frontend" }),
      project("sandbox-old", "folders/200", { displayName: "Old sandbox", state: "DELETE_REQUESTED", deleteTime: "2026-05-20T00:00:00.000Z" }),
      project("sandbox-new", "folders/200", { state: undefined }),
    ],
  }
}
