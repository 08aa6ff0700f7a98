/**
 * Discovering a GCP organisation or folder (issue 31) with Cloud Resource Manager v3, as the organisation's service
 * account:
 * - GET v3/organizations/N or v3/folders/N: the root's display name;
 * - GET v3/folders?parent=P for the root and every folder found (recursively; `nextPageToken` → `pageToken`): the units.
 *   Folders being deleted are not listed (the API's default), and a folder must be empty before it can be deleted;
 * - GET v3/projects?parent=P&showDeleted=true for the root and every folder: the members. ACTIVE → active,
 *   DELETE_REQUESTED (shut down, purged after 30 days) → closed; GCP has no suspended state. Labels are the tags,
 *   the display name the name (the project id when absent), the project id the account's cloud id.
 *
 * Every field but the one each list is about is optional in Google's model (most are output only), so the decoders
 * require nothing else; the `Checked` type in tests/organizations/gcp-discovery.test.ts checks them at compile time
 * against `cloudresourcemanager_v3`.
 *
 * Fails with DiscoveryFailed: invalid_input (a root id that is not organizations/N or folders/N, a bad key),
 * invalid_credentials (the token endpoint refused the key, or 401), access_denied (403), not_found (404),
 * unreachable (network, timeouts, 5xx and 429 after the client's retries, an answer of another shape).
 */
import { Schema, type Effect } from "effect"
import { RestError, type RestClient } from "../scanner/rest/http.ts"
import { GCP_SCOPE, type GcpEndpoints } from "../scanner/gcp/endpoints.ts"
import { GcpSessionError, openGcpClient, type GcpClientOptions, type GcpCredentialsInput } from "../scanner/gcp/session.ts"
import { runDiscovery } from "./discovery-run.ts"
import { DiscoveryFailed, type DiscoveredMember, type DiscoveredUnit, type OrganizationDiscovery } from "./discovery.ts"

const Labels = Schema.Record(Schema.String, Schema.String)

/** v3 Organization: only what discovery reads. */
export const GcpOrganization = Schema.Struct({
  name: Schema.optionalKey(Schema.String),
  displayName: Schema.optionalKey(Schema.String),
})

/** v3 Folder. */
export const GcpFolder = Schema.Struct({
  name: Schema.String,
  displayName: Schema.optionalKey(Schema.String),
  parent: Schema.optionalKey(Schema.String),
  state: Schema.optionalKey(Schema.String),
})

/** v3 Project. */
export const GcpProject = Schema.Struct({
  name: Schema.optionalKey(Schema.String),
  projectId: Schema.optionalKey(Schema.String),
  displayName: Schema.optionalKey(Schema.String),
  parent: Schema.optionalKey(Schema.String),
  state: Schema.optionalKey(Schema.String),
  labels: Schema.optionalKey(Labels),
})

/** v3 ListFoldersResponse: an empty page leaves `folders` out. */
export const GcpFoldersPage = Schema.Struct({
  folders: Schema.optionalKey(Schema.Array(GcpFolder)),
  nextPageToken: Schema.optionalKey(Schema.String),
})

/** v3 ListProjectsResponse. */
export const GcpProjectsPage = Schema.Struct({
  projects: Schema.optionalKey(Schema.Array(GcpProject)),
  nextPageToken: Schema.optionalKey(Schema.String),
})

export interface GcpDiscoveryInput extends GcpClientOptions {
  readonly credentials: GcpCredentialsInput
  /** "organizations/123" or "folders/456". */
  readonly rootId: string
  readonly endpoints?: Partial<GcpEndpoints>
}

const ROOT_ID = /^(organizations|folders)\/[1-9][0-9]{0,29}$/

/** Folders listed at once (each a folders list and a projects list). */
const PARALLEL_PARENTS = 8

const memberState = (state: string | undefined): DiscoveredMember["state"] => (state === "DELETE_REQUESTED" ? "closed" : "active")

const toFailure = (rootId: string) => (error: unknown): DiscoveryFailed => {
  if (error instanceof DiscoveryFailed) return error
  if (error instanceof GcpSessionError) return new DiscoveryFailed({ reason: error.reason, message: error.message })
  if (error instanceof RestError) {
    if (error.op === "oauth2.token") {
      return new DiscoveryFailed({ reason: error.kind === "access_denied" ? "invalid_credentials" : "unreachable", message: error.message })
    }
    if (error.status === 401) return new DiscoveryFailed({ reason: "invalid_credentials", message: `Google rejected the access token: ${error.message}` })
    if (error.status === 403) return new DiscoveryFailed({ reason: "access_denied", message: `The service account cannot read ${rootId} or one of its folders (${error.op}): ${error.message}` })
    if (error.status === 404) return new DiscoveryFailed({ reason: "not_found", message: `${rootId} was not found (${error.op}): ${error.message}` })
    if (error.status === 400) return new DiscoveryFailed({ reason: "invalid_input", message: `Google refused the request (${error.op}): ${error.message}` })
    return new DiscoveryFailed({ reason: "unreachable", message: `Could not read ${rootId} (${error.op}): ${error.code}: ${error.message}` })
  }
  return new DiscoveryFailed({ reason: "unreachable", message: error instanceof Error ? error.message : String(error) })
}

/** Every page of a v3 list (`pageToken` ← `nextPageToken`; an empty token ends it). */
async function listAll<P extends { readonly nextPageToken?: string }, A>(
  client: RestClient,
  url: string,
  op: string,
  schema: Schema.ConstraintDecoder<P>,
  items: (page: P) => ReadonlyArray<A> | undefined,
): Promise<ReadonlyArray<A>> {
  const out: A[] = []
  let token: string | undefined
  do {
    const page: P = await client.json({ url: token === undefined ? url : `${url}&pageToken=${encodeURIComponent(token)}`, audience: GCP_SCOPE, op }, schema)
    out.push(...(items(page) ?? []))
    token = page.nextPageToken === "" ? undefined : page.nextPageToken
  } while (token !== undefined)
  return out
}

async function discover(input: GcpDiscoveryInput, signal: AbortSignal): Promise<OrganizationDiscovery> {
  const rootId = input.rootId.trim()
  if (!ROOT_ID.test(rootId)) {
    throw new DiscoveryFailed({ reason: "invalid_input", message: `"${input.rootId}" is not a GCP organisation or folder: expected organizations/<number> or folders/<number>` })
  }
  const { endpoints, client } = openGcpClient(input.credentials, input.endpoints, { ...input, signal })
  const crm = `${endpoints.cloudresourcemanager}/v3`
  const isOrganization = rootId.startsWith("organizations/")
  const root = isOrganization
    ? await client.json({ url: `${crm}/${rootId}`, audience: GCP_SCOPE, op: "cloudresourcemanager.organizations.get" }, GcpOrganization)
    : await client.json({ url: `${crm}/${rootId}`, audience: GCP_SCOPE, op: "cloudresourcemanager.folders.get" }, GcpFolder)

  const units: DiscoveredUnit[] = [{ id: rootId, parentId: null, name: root.displayName ?? rootId, kind: isOrganization ? "organization" : "folder" }]
  const members: DiscoveredMember[] = []
  const seenUnits = new Set([rootId])
  const seenProjects = new Set<string>()

  const readParent = async (parent: string) => {
    const q = `parent=${encodeURIComponent(parent)}`
    const [folders, projects] = await Promise.all([
      listAll(client, `${crm}/folders?${q}`, "cloudresourcemanager.folders.list", GcpFoldersPage, (p) => p.folders),
      listAll(client, `${crm}/projects?${q}&showDeleted=true`, "cloudresourcemanager.projects.list", GcpProjectsPage, (p) => p.projects),
    ])
    return { parent, folders, projects }
  }

  let level = [rootId]
  while (level.length > 0) {
    const next: string[] = []
    for (let i = 0; i < level.length; i += PARALLEL_PARENTS) {
      for (const { parent, folders, projects } of await Promise.all(level.slice(i, i + PARALLEL_PARENTS).map(readParent))) {
        for (const f of folders) {
          if (seenUnits.has(f.name)) continue
          seenUnits.add(f.name)
          units.push({ id: f.name, parentId: parent, name: f.displayName ?? f.name, kind: "folder" })
          next.push(f.name)
        }
        for (const p of projects) {
          // A project without its id cannot be an account (the API always sets it; the model calls it optional).
          if (p.projectId === undefined || seenProjects.has(p.projectId)) continue
          seenProjects.add(p.projectId)
          members.push({
            cloudAccountId: p.projectId,
            name: p.displayName ?? p.projectId,
            unitId: parent,
            state: memberState(p.state),
            cloudState: p.state ?? "ACTIVE",
            tags: p.labels ?? {},
          })
        }
      }
    }
    level = next
  }
  return { rootId, rootName: root.displayName ?? rootId, units, members }
}

/** The organisation's or folder's folders and projects (see the module header for the calls and the failures). */
export const discoverGcp = (input: GcpDiscoveryInput): Effect.Effect<OrganizationDiscovery, DiscoveryFailed> =>
  runDiscovery((signal) => discover(input, signal), toFailure(input.rootId))
