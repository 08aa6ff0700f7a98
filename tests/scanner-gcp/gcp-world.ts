/**
 * A fake Google Cloud on the loopback fixture server: the OAuth token endpoint (verifies the RS256 JWT assertion
 * against the service account's public key, its audience, scope and lifetime), and the REST APIs the GCP engine
 * reads and the fixers write, answering in the documented wire format (list pages with `nextPageToken`, compute
 * aggregated lists keyed by scope with NO_RESULTS_ON_PAGE warnings, IAM policies, long-running operations, Google
 * error bodies for 401/403/404 and SERVICE_DISABLED).
 *
 * State is plain wire-shaped JSON per project, mutable so fixes can be verified by re-reading.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto"
import { decodeJwt, importSPKI, jwtVerify } from "jose"
import { decodePageToken, encodePageToken, type CloudFixtureServer, type FixtureReply, type FixtureRequest } from "../support/cloud-fixture-server.ts"

export type Json = Record<string, unknown>

export interface Scoped {
  /** "zones/us-central1-a", "regions/us-central1" or "global". */
  readonly scope: string
  readonly item: Json
}

export interface GcpProjectState {
  readonly projectId: string
  readonly projectNumber: string
  iamPolicy: Json
  contacts: Json[]
  cloudAssetState: string
  accessApproval: Json | null
  serviceAccounts: Array<{ account: Json; keys: Json[] }>
  kmsLocations: string[]
  /** Keys by full resource name (projects/P/locations/L/keyRings/R/cryptoKeys/K); rings listed from their names. */
  keyRings: string[]
  cryptoKeys: Array<{ key: Json; policy: Json }>
  apiKeys: Json[]
  sinks: Json[]
  metrics: Json[]
  alertPolicies: Json[]
  buckets: Array<{ bucket: Json; policy: Json }>
  managedZones: Json[]
  dnsPolicies: Json[]
  computeProject: Json
  networks: Json[]
  firewalls: Json[]
  subnetworks: Scoped[]
  instances: Scoped[]
  disks: Scoped[]
  backendServices: Scoped[]
  regions: string[]
  sqlInstances: Json[]
  datasets: Array<{ dataset: Json; tables: Json[] }>
  dataprocClusters: Array<{ region: string; cluster: Json }>
  gkeClusters?: Json[]
  /** Scopes ("zones/us-east1-b") an aggregated list cannot reach: answered in `unreachables` on the first page. */
  unreachableScopes?: string[]
  /** Zones a GKE clusters.list answers in `missingZones`. */
  gkeMissingZones?: string[]
  /** Secret Manager secrets, Cloud Functions (v2) and Artifact Registry repositories, each with its IAM policy. */
  secrets?: Array<{ secret: Json; policy: Json }>
  functions?: Array<{ fn: Json; policy: Json; runPolicy?: Json }>
  repositories?: Array<{ repo: Json; policy: Json }>
  /** Folders and organization above the project, nearest first; a null policy answers 403 (not readable). */
  ancestors?: Array<{ type: "folder" | "organization"; id: string; policy: Json | null }>
  /** Effective boolean organization policies by constraint; null answers 403 (not readable); absent = not enforced. */
  orgPolicies?: Record<string, boolean | null>
  /** Locations a functions.list answers in `unreachable`. */
  functionsUnreachable?: string[]
  /** API hosts answering SERVICE_DISABLED (e.g. "sqladmin"). */
  disabledApis: Set<string>
}

export interface TestServiceAccount {
  readonly email: string
  /** The key file JSON text, as a customer would paste it. */
  readonly keyJson: string
  /** Projects the account may read ("*" = all). */
  readonly projects: ReadonlySet<string> | "*"
}

export interface GcpWorld {
  readonly projects: Map<string, GcpProjectState>
  /** Items per page the fake APIs answer at most (small values exercise paging). */
  pageSize: number
  /** Service accounts by email. */
  readonly accounts: Map<string, TestServiceAccount & { readonly publicKey: string; readonly keyId: string }>
  /** Access tokens issued → email. */
  readonly tokens: Map<string, string>
  /** Every mutating call received (method, host, path, body), for fixer assertions. */
  readonly writes: Array<{ readonly method: string; readonly host: string; readonly path: string; readonly body: unknown }>
}

const CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform"

export function newGcpWorld(pageSize = 2): GcpWorld {
  return { projects: new Map(), pageSize, accounts: new Map(), tokens: new Map(), writes: [] }
}

/** Creates a service account with a fresh RSA key; answers the key file JSON. */
export function addServiceAccount(world: GcpWorld, server: CloudFixtureServer, email: string, projects: ReadonlySet<string> | "*" = "*"): TestServiceAccount {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 })
  const keyId = randomBytes(20).toString("hex")
  const projectId = email.split("@")[1]?.split(".")[0] ?? "test-project"
  const keyJson = JSON.stringify({
    type: "service_account",
    project_id: projectId,
    private_key_id: keyId,
    private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    client_email: email,
    client_id: "1234567890",
    auth_uri: "https://accounts.google.com/o/oauth2/auth",
    token_uri: `${server.base("oauth2.googleapis.com")}/token`,
    universe_domain: "googleapis.com",
  })
  const account = { email, keyJson, projects, publicKey: publicKey.export({ type: "spki", format: "pem" }).toString(), keyId }
  world.accounts.set(email, account)
  return account
}

export const googleError = (code: number, status: string, message: string, details: Json[] = []): FixtureReply => ({
  status: code,
  body: { error: { code, message, status, ...(details.length === 0 ? {} : { details }) } },
})

export const serviceDisabled = (api: string, projectNumber: string): FixtureReply =>
  googleError(
    403,
    "PERMISSION_DENIED",
    `${api} API has not been used in project ${projectNumber} before or it is disabled. Enable it by visiting https://console.developers.google.com/apis/api/${api}.googleapis.com/overview?project=${projectNumber} then retry.`,
    [
      {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        reason: "SERVICE_DISABLED",
        domain: "googleapis.com",
        metadata: { service: `${api}.googleapis.com`, consumer: `projects/${projectNumber}` },
      },
    ],
  )

const permissionDenied = (permission: string, resource: string): FixtureReply =>
  googleError(403, "PERMISSION_DENIED", `Permission '${permission}' denied on resource '${resource}' (or it may not exist).`, [
    { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "IAM_PERMISSION_DENIED", domain: "iam.googleapis.com", metadata: { permission } },
  ])

function pageOf(world: GcpWorld, req: FixtureRequest, items: ReadonlyArray<unknown>, key: string, sizeParam = "pageSize"): FixtureReply {
  const start = decodePageToken(req.query.get("pageToken"))
  const asked = Number(req.query.get(sizeParam) ?? world.pageSize)
  const size = Math.max(1, Math.min(world.pageSize, Number.isFinite(asked) && asked > 0 ? asked : world.pageSize))
  const slice = items.slice(start, start + size)
  const next = start + size < items.length ? encodePageToken(start + size) : undefined
  return { body: { ...(slice.length === 0 ? {} : { [key]: slice }), ...(next === undefined ? {} : { nextPageToken: next }) } }
}

/** Compute aggregated list: pages over the flattened items, grouped by scope, with a warning for an empty scope. */
function aggregatedPage(world: GcpWorld, req: FixtureRequest, items: ReadonlyArray<Scoped>, key: string, emptyScope: string, unreachable?: ReadonlyArray<string>): FixtureReply {
  const start = decodePageToken(req.query.get("pageToken"))
  const size = Math.max(1, Math.min(world.pageSize, Number(req.query.get("maxResults") ?? world.pageSize)))
  const slice = items.slice(start, start + size)
  const grouped: Record<string, Json> = {}
  for (const s of slice) {
    const list = (grouped[s.scope]?.[key] as Json[] | undefined) ?? []
    grouped[s.scope] = { [key]: [...list, s.item] }
  }
  grouped[emptyScope] ??= { warning: { code: "NO_RESULTS_ON_PAGE", message: `There are no results for scope '${emptyScope}' on this page.`, data: [{ key: "scope", value: emptyScope }] } }
  const next = start + size < items.length ? encodePageToken(start + size) : undefined
  // With returnPartialSuccess=true, the scopes that could not be reached are named in `unreachables`.
  const unreachables = start === 0 && req.query.get("returnPartialSuccess") === "true" ? (unreachable ?? []) : []
  return {
    body: {
      kind: `compute#${key}AggregatedList`,
      id: `projects/x/aggregated/${key}`,
      items: grouped,
      ...(next === undefined ? {} : { nextPageToken: next }),
      ...(unreachables.length === 0 ? {} : { unreachables }),
      selfLink: req.url,
    },
  }
}


/** Merge-patch: objects merge recursively, everything else replaces. */
export function mergePatch(target: Json, patch: Json): Json {
  const out: Json = { ...target }
  for (const [k, v] of Object.entries(patch)) {
    const cur = out[k]
    out[k] = v !== null && typeof v === "object" && !Array.isArray(v) && cur !== null && typeof cur === "object" && !Array.isArray(cur) ? mergePatch(cur as Json, v as Json) : v
  }
  return out
}

export function installGcpWorld(server: CloudFixtureServer, world: GcpWorld): void {
  const tokenUrl = `${server.base("oauth2.googleapis.com")}/token`
  let opCounter = 0

  server.route("POST", "oauth2.googleapis.com", /^\/token$/, async (req) => {
    const bad = (description: string): FixtureReply => ({ status: 400, body: { error: "invalid_grant", error_description: description } })
    if (req.form?.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer") return { status: 400, body: { error: "unsupported_grant_type", error_description: "Invalid grant_type" } }
    const assertion = req.form.get("assertion") ?? ""
    let iss: string
    try {
      iss = String(decodeJwt(assertion).iss)
    } catch {
      return bad("Invalid JWT: malformed.")
    }
    const account = world.accounts.get(iss)
    if (account === undefined) return bad("Invalid grant: account not found")
    try {
      const { payload, protectedHeader } = await jwtVerify(assertion, await importSPKI(account.publicKey, "RS256"), { audience: tokenUrl, issuer: iss, algorithms: ["RS256"] })
      if (protectedHeader.kid !== undefined && protectedHeader.kid !== account.keyId) return bad("Invalid JWT Signature.")
      if (typeof payload.scope !== "string" || !payload.scope.split(" ").includes(CLOUD_PLATFORM)) return bad("Invalid OAuth scope or ID token audience provided.")
      if (payload.exp === undefined || payload.iat === undefined || payload.exp - payload.iat > 3600) return bad("Invalid JWT: Token must be a short-lived token (60 minutes)")
    } catch {
      return bad("Invalid JWT Signature.")
    }
    const token = `ya29.${randomBytes(24).toString("base64url")}`
    world.tokens.set(token, iss)
    return { body: { access_token: token, expires_in: 3599, token_type: "Bearer" } }
  })

  server.guard(
    (host) => host.endsWith(".googleapis.com") && host !== "oauth2.googleapis.com",
    (req) => {
      if (req.bearer === undefined || !world.tokens.has(req.bearer)) {
        return googleError(401, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.")
      }
      if (req.method !== "GET") world.writes.push({ method: req.method, host: req.host, path: req.path, body: req.json })
      return undefined
    },
  )

  /** Resolves the project of a request, enforcing the caller's access and disabled APIs. */
  const withProject = (req: FixtureRequest, projectId: string, api: string, permission: string, fn: (p: GcpProjectState) => FixtureReply | Promise<FixtureReply>): FixtureReply | Promise<FixtureReply> => {
    const p = world.projects.get(projectId)
    const email = world.tokens.get(req.bearer ?? "") ?? ""
    const account = world.accounts.get(email)
    if (p === undefined || account === undefined || (account.projects !== "*" && !account.projects.has(projectId))) {
      return permissionDenied(permission, `projects/${projectId}`)
    }
    if (p.disabledApis.has(api)) return serviceDisabled(api, p.projectNumber)
    return fn(p)
  }

  // Cloud Resource Manager
  server.route("GET", "cloudresourcemanager.googleapis.com", /^\/v1\/projects\/([^/:]+)$/, (req, m) =>
    withProject(req, m[1]!, "cloudresourcemanager", "resourcemanager.projects.get", (p) => ({
      body: { projectNumber: p.projectNumber, projectId: p.projectId, lifecycleState: "ACTIVE", name: p.projectId, createTime: "2023-01-10T08:00:00.000Z", parent: { type: "organization", id: "123456789012" } },
    })),
  )
  server.route("POST", "cloudresourcemanager.googleapis.com", /^\/v1\/projects\/([^/:]+):getAncestry$/, (req, m) =>
    withProject(req, m[1]!, "cloudresourcemanager", "resourcemanager.projects.get", (p) => ({
      body: { ancestor: [{ resourceId: { type: "project", id: p.projectId } }, ...(p.ancestors ?? []).map((a) => ({ resourceId: { type: a.type, id: a.id } }))] },
    })),
  )
  const ancestorPolicy = (type: "folder" | "organization", id: string): FixtureReply => {
    const found = [...world.projects.values()].flatMap((p) => p.ancestors ?? []).find((a) => a.type === type && a.id === id)
    const resource = `${type === "folder" ? "folders" : "organizations"}/${id}`
    return found?.policy == null ? permissionDenied(`resourcemanager.${type === "folder" ? "folders" : "organizations"}.getIamPolicy`, resource) : { body: found.policy }
  }
  server.route("POST", "cloudresourcemanager.googleapis.com", /^\/v2\/folders\/([^/:]+):getIamPolicy$/, (_req, m) => ancestorPolicy("folder", m[1]!))
  server.route("POST", "cloudresourcemanager.googleapis.com", /^\/v1\/organizations\/([^/:]+):getIamPolicy$/, (_req, m) => ancestorPolicy("organization", m[1]!))
  server.route("POST", "cloudresourcemanager.googleapis.com", /^\/v1\/projects\/([^/:]+):getIamPolicy$/, (req, m) =>
    withProject(req, m[1]!, "cloudresourcemanager", "resourcemanager.projects.getIamPolicy", (p) => ({ body: p.iamPolicy })),
  )

  // IAM
  server.route("GET", "iam.googleapis.com", /^\/v1\/projects\/([^/]+)\/serviceAccounts$/, (req, m) =>
    withProject(req, m[1]!, "iam", "iam.serviceAccounts.list", (p) => pageOf(world, req, p.serviceAccounts.map((s) => s.account), "accounts")),
  )
  server.route("GET", "iam.googleapis.com", /^\/v1\/projects\/([^/]+)\/serviceAccounts\/([^/]+)\/keys$/, (req, m) =>
    withProject(req, m[1]!, "iam", "iam.serviceAccountKeys.list", (p) => {
      const sa = p.serviceAccounts.find((s) => s.account["email"] === m[2])
      if (sa === undefined) return googleError(404, "NOT_FOUND", `Service account ${m[2]} does not exist.`)
      const types = req.query.getAll("keyTypes")
      return { body: { keys: sa.keys.filter((k) => types.length === 0 || types.includes(String(k["keyType"]))) } }
    }),
  )

  // Cloud KMS
  server.route("GET", "cloudkms.googleapis.com", /^\/v1\/projects\/([^/]+)\/locations$/, (req, m) =>
    withProject(req, m[1]!, "cloudkms", "cloudkms.locations.list", (p) =>
      pageOf(world, req, p.kmsLocations.map((l) => ({ name: `projects/${p.projectId}/locations/${l}`, locationId: l })), "locations"),
    ),
  )
  server.route("GET", "cloudkms.googleapis.com", /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/keyRings$/, (req, m) =>
    withProject(req, m[1]!, "cloudkms", "cloudkms.keyRings.list", (p) =>
      pageOf(world, req, p.keyRings.filter((r) => r.includes(`/locations/${m[2]}/`)).map((name) => ({ name, createTime: "2024-01-01T00:00:00Z" })), "keyRings"),
    ),
  )
  server.route("GET", "cloudkms.googleapis.com", /^\/v1\/(projects\/([^/]+)\/locations\/[^/]+\/keyRings\/[^/]+)\/cryptoKeys$/, (req, m) =>
    withProject(req, m[2]!, "cloudkms", "cloudkms.cryptoKeys.list", (p) => pageOf(world, req, p.cryptoKeys.filter((k) => String(k.key["name"]).startsWith(`${m[1]}/cryptoKeys/`)).map((k) => k.key), "cryptoKeys")),
  )
  server.route("GET", "cloudkms.googleapis.com", /^\/v1\/(projects\/([^/]+)\/locations\/[^/]+\/keyRings\/[^/]+\/cryptoKeys\/[^/:]+):getIamPolicy$/, (req, m) =>
    withProject(req, m[2]!, "cloudkms", "cloudkms.cryptoKeys.getIamPolicy", (p) => {
      const k = p.cryptoKeys.find((x) => x.key["name"] === m[1])
      return k === undefined ? googleError(404, "NOT_FOUND", `${m[1]} not found.`) : { body: k.policy }
    }),
  )
  server.route("GET", "cloudkms.googleapis.com", /^\/v1\/(projects\/([^/]+)\/locations\/[^/]+\/keyRings\/[^/]+\/cryptoKeys\/[^/:]+)$/, (req, m) =>
    withProject(req, m[2]!, "cloudkms", "cloudkms.cryptoKeys.get", (p) => {
      const k = p.cryptoKeys.find((x) => x.key["name"] === m[1])
      return k === undefined ? googleError(404, "NOT_FOUND", `${m[1]} not found.`) : { body: k.key }
    }),
  )
  server.route("PATCH", "cloudkms.googleapis.com", /^\/v1\/(projects\/([^/]+)\/locations\/[^/]+\/keyRings\/[^/]+\/cryptoKeys\/[^/:]+)$/, (req, m) =>
    withProject(req, m[2]!, "cloudkms", "cloudkms.cryptoKeys.update", (p) => {
      const k = p.cryptoKeys.find((x) => x.key["name"] === m[1])
      if (k === undefined) return googleError(404, "NOT_FOUND", `${m[1]} not found.`)
      const mask = (req.query.get("updateMask") ?? "").split(",").filter((x) => x !== "")
      if (mask.length === 0) return googleError(400, "INVALID_ARGUMENT", "The request must specify an update_mask.")
      const body = (req.json ?? {}) as Json
      for (const field of mask) k.key = { ...k.key, [field]: body[field] }
      return { body: k.key }
    }),
  )

  // API keys
  server.route("GET", "apikeys.googleapis.com", /^\/v2\/projects\/([^/]+)\/locations\/global\/keys$/, (req, m) =>
    withProject(req, m[1]!, "apikeys", "apikeys.keys.list", (p) => pageOf(world, req, p.apiKeys, "keys")),
  )

  // Essential contacts
  server.route("GET", "essentialcontacts.googleapis.com", /^\/v1\/projects\/([^/]+)\/contacts:compute$/, (req, m) =>
    withProject(req, m[1]!, "essentialcontacts", "essentialcontacts.contacts.list", (p) => pageOf(world, req, p.contacts, "contacts")),
  )

  // Logging and monitoring
  server.route("GET", "logging.googleapis.com", /^\/v2\/projects\/([^/]+)\/sinks$/, (req, m) => withProject(req, m[1]!, "logging", "logging.sinks.list", (p) => pageOf(world, req, p.sinks, "sinks")))
  server.route("GET", "logging.googleapis.com", /^\/v2\/projects\/([^/]+)\/metrics$/, (req, m) => withProject(req, m[1]!, "logging", "logging.logMetrics.list", (p) => pageOf(world, req, p.metrics, "metrics")))
  server.route("GET", "monitoring.googleapis.com", /^\/v3\/projects\/([^/]+)\/alertPolicies$/, (req, m) =>
    withProject(req, m[1]!, "monitoring", "monitoring.alertPolicies.list", (p) => pageOf(world, req, p.alertPolicies, "alertPolicies")),
  )

  // Cloud Storage (bucket names are global)
  const findBucket = (name: string) => {
    for (const p of world.projects.values()) {
      const b = p.buckets.find((x) => x.bucket["name"] === name)
      if (b !== undefined) return { project: p, entry: b }
    }
    return undefined
  }
  const bucketAccess = (req: FixtureRequest, name: string, permission: string, fn: (entry: { bucket: Json; policy: Json }) => FixtureReply): FixtureReply => {
    const found = findBucket(name)
    if (found === undefined) return { status: 404, body: { error: { code: 404, message: "The specified bucket does not exist.", errors: [{ message: "The specified bucket does not exist.", domain: "global", reason: "notFound" }] } } }
    return withProject(req, found.project.projectId, "storage", permission, () => fn(found.entry)) as FixtureReply
  }
  server.route("GET", "storage.googleapis.com", /^\/storage\/v1\/b$/, (req) =>
    withProject(req, req.query.get("project") ?? "", "storage", "storage.buckets.list", (p) => {
      const r = pageOf(world, req, p.buckets.map((b) => b.bucket), "items", "maxResults")
      return { body: { kind: "storage#buckets", ...(r.body as Json) } }
    }),
  )
  server.route("GET", "storage.googleapis.com", /^\/storage\/v1\/b\/([^/]+)$/, (req, m) => bucketAccess(req, m[1]!, "storage.buckets.get", (e) => ({ body: e.bucket })))
  server.route("GET", "storage.googleapis.com", /^\/storage\/v1\/b\/([^/]+)\/iam$/, (req, m) =>
    bucketAccess(req, m[1]!, "storage.buckets.getIamPolicy", (e) => ({ body: { kind: "storage#policy", resourceId: `projects/_/buckets/${m[1]}`, version: 1, etag: "CAE=", ...e.policy } })),
  )
  server.route("PATCH", "storage.googleapis.com", /^\/storage\/v1\/b\/([^/]+)$/, (req, m) =>
    bucketAccess(req, m[1]!, "storage.buckets.update", (e) => {
      e.bucket = mergePatch(e.bucket, (req.json ?? {}) as Json)
      return { body: e.bucket }
    }),
  )

  // Cloud DNS
  server.route("GET", "dns.googleapis.com", /^\/dns\/v1\/projects\/([^/]+)\/managedZones$/, (req, m) =>
    withProject(req, m[1]!, "dns", "dns.managedZones.list", (p) => pageOf(world, req, p.managedZones, "managedZones", "maxResults")),
  )
  server.route("GET", "dns.googleapis.com", /^\/dns\/v1\/projects\/([^/]+)\/policies$/, (req, m) =>
    withProject(req, m[1]!, "dns", "dns.policies.list", (p) => pageOf(world, req, p.dnsPolicies, "policies", "maxResults")),
  )

  // Compute Engine
  // Operations start RUNNING and are DONE at the second read. Their links use www.googleapis.com, as the real
  // API's do, so the engine must build the polling URL from the operation's name and scope.
  const computeOp = (p: GcpProjectState, scope: string, target: string, opType: string): Json => {
    const name = `operation-${++opCounter}`
    const path = `/compute/v1/projects/${p.projectId}/${scope}/operations/${name}`
    pendingOps.set(path, 1)
    const where = scope.startsWith("zones/") ? { zone: `https://www.googleapis.com/compute/v1/projects/${p.projectId}/${scope}` } : scope.startsWith("regions/") ? { region: `https://www.googleapis.com/compute/v1/projects/${p.projectId}/${scope}` } : {}
    return { kind: "compute#operation", id: String(opCounter), name, operationType: opType, targetLink: target, status: "RUNNING", progress: 0, ...where, selfLink: `https://www.googleapis.com${path}` }
  }
  const pendingOps = new Map<string, number>()
  server.route("GET", "compute.googleapis.com", /^\/compute\/v1\/projects\/([^/]+)\/(global|zones\/[^/]+|regions\/[^/]+)\/operations\/([^/]+)$/, (req, m) =>
    withProject(req, m[1]!, "compute", "compute.globalOperations.get", () => {
      const left = pendingOps.get(req.path)
      if (left === undefined) return googleError(404, "NOT_FOUND", `The resource '${m[3]}' was not found`)
      pendingOps.set(req.path, left - 1)
      return { body: { kind: "compute#operation", name: m[3], status: left > 0 ? "RUNNING" : "DONE", selfLink: `https://www.googleapis.com${req.path}` } }
    }),
  )
  server.route("GET", "compute.googleapis.com", /^\/compute\/v1\/projects\/([^/]+)$/, (req, m) => withProject(req, m[1]!, "compute", "compute.projects.get", (p) => ({ body: p.computeProject })))
  server.route("GET", "compute.googleapis.com", /^\/compute\/v1\/projects\/([^/]+)\/global\/networks$/, (req, m) =>
    withProject(req, m[1]!, "compute", "compute.networks.list", (p) => pageOf(world, req, p.networks, "items", "maxResults")),
  )
  server.route("GET", "compute.googleapis.com", /^\/compute\/v1\/projects\/([^/]+)\/global\/firewalls$/, (req, m) =>
    withProject(req, m[1]!, "compute", "compute.firewalls.list", (p) => pageOf(world, req, p.firewalls, "items", "maxResults")),
  )
  server.route("GET", "compute.googleapis.com", /^\/compute\/v1\/projects\/([^/]+)\/regions$/, (req, m) =>
    withProject(req, m[1]!, "compute", "compute.regions.list", (p) => pageOf(world, req, p.regions.map((r) => ({ kind: "compute#region", name: r, status: "UP" })), "items", "maxResults")),
  )
  const aggregatedRoutes: ReadonlyArray<[string, (p: GcpProjectState) => Scoped[], string]> = [
    ["subnetworks", (p) => p.subnetworks, "regions/asia-east1"],
    ["instances", (p) => p.instances, "zones/asia-east1-a"],
    ["disks", (p) => p.disks, "zones/asia-east1-a"],
    ["backendServices", (p) => p.backendServices, "regions/asia-east1"],
  ]
  for (const [key, items, empty] of aggregatedRoutes) {
    server.route("GET", "compute.googleapis.com", new RegExp(`^/compute/v1/projects/([^/]+)/aggregated/${key}$`), (req, m) =>
      withProject(req, m[1]!, "compute", `compute.${key}.list`, (p) => aggregatedPage(world, req, items(p), key, empty, p.unreachableScopes)),
    )
  }
  server.route("GET", "compute.googleapis.com", /^\/compute\/v1\/projects\/([^/]+)\/regions\/([^/]+)\/subnetworks\/([^/]+)$/, (req, m) =>
    withProject(req, m[1]!, "compute", "compute.subnetworks.get", (p) => {
      const s = p.subnetworks.find((x) => x.scope === `regions/${m[2]}` && x.item["name"] === m[3])
      return s === undefined ? googleError(404, "NOT_FOUND", `The resource 'projects/${m[1]}/regions/${m[2]}/subnetworks/${m[3]}' was not found`) : { body: s.item }
    }),
  )
  server.route("GET", "compute.googleapis.com", /^\/compute\/v1\/projects\/([^/]+)\/(global|regions\/[^/]+)\/backendServices\/([^/]+)$/, (req, m) =>
    withProject(req, m[1]!, "compute", "compute.backendServices.get", (p) => {
      const s = p.backendServices.find((x) => x.scope === m[2] && x.item["name"] === m[3])
      return s === undefined ? googleError(404, "NOT_FOUND", `The resource 'projects/${m[1]}/${m[2]}/backendServices/${m[3]}' was not found`) : { body: s.item }
    }),
  )
  server.route("GET", "compute.googleapis.com", /^\/compute\/v1\/projects\/([^/]+)\/zones\/([^/]+)\/instances\/([^/]+)$/, (req, m) =>
    withProject(req, m[1]!, "compute", "compute.instances.get", (p) => {
      const s = p.instances.find((x) => x.scope === `zones/${m[2]}` && x.item["name"] === m[3])
      return s === undefined ? googleError(404, "NOT_FOUND", `The resource 'projects/${m[1]}/zones/${m[2]}/instances/${m[3]}' was not found`) : { body: s.item }
    }),
  )
  server.route("PATCH", "compute.googleapis.com", /^\/compute\/v1\/projects\/([^/]+)\/regions\/([^/]+)\/subnetworks\/([^/]+)$/, (req, m) =>
    withProject(req, m[1]!, "compute", "compute.subnetworks.update", (p) => {
      const s = p.subnetworks.find((x) => x.scope === `regions/${m[2]}` && x.item["name"] === m[3])
      if (s === undefined) return googleError(404, "NOT_FOUND", `The resource 'projects/${m[1]}/regions/${m[2]}/subnetworks/${m[3]}' was not found`)
      const body = (req.json ?? {}) as Json
      if (body["fingerprint"] !== s.item["fingerprint"]) return googleError(412, "FAILED_PRECONDITION", "Supplied fingerprint does not match current fingerprint.")
      const { fingerprint: _f, ...rest } = body
      const i = p.subnetworks.indexOf(s)
      p.subnetworks[i] = { scope: s.scope, item: { ...mergePatch(s.item, rest), fingerprint: randomBytes(6).toString("base64") } }
      return { body: computeOp(p, `regions/${m[2]}`, String(s.item["selfLink"] ?? ""), "patch") }
    }),
  )
  server.route("PATCH", "compute.googleapis.com", /^\/compute\/v1\/projects\/([^/]+)\/(global|regions\/[^/]+)\/backendServices\/([^/]+)$/, (req, m) =>
    withProject(req, m[1]!, "compute", "compute.backendServices.update", (p) => {
      const scope = m[2]!
      const s = p.backendServices.find((x) => x.scope === scope && x.item["name"] === m[3])
      if (s === undefined) return googleError(404, "NOT_FOUND", `The resource 'projects/${m[1]}/${scope}/backendServices/${m[3]}' was not found`)
      const body = (req.json ?? {}) as Json
      if (body["fingerprint"] !== undefined && body["fingerprint"] !== s.item["fingerprint"]) return googleError(412, "FAILED_PRECONDITION", "Supplied fingerprint does not match current fingerprint.")
      const { fingerprint: _f, ...rest } = body
      p.backendServices[p.backendServices.indexOf(s)] = { scope, item: { ...mergePatch(s.item, rest), fingerprint: randomBytes(6).toString("base64") } }
      return { body: computeOp(p, scope, String(s.item["selfLink"] ?? ""), "patch") }
    }),
  )
  server.route("POST", "compute.googleapis.com", /^\/compute\/v1\/projects\/([^/]+)\/zones\/([^/]+)\/instances\/([^/]+)\/setMetadata$/, (req, m) =>
    withProject(req, m[1]!, "compute", "compute.instances.setMetadata", (p) => {
      const s = p.instances.find((x) => x.scope === `zones/${m[2]}` && x.item["name"] === m[3])
      if (s === undefined) return googleError(404, "NOT_FOUND", `The resource 'projects/${m[1]}/zones/${m[2]}/instances/${m[3]}' was not found`)
      const body = (req.json ?? {}) as Json
      const current = (s.item["metadata"] ?? {}) as Json
      if (body["fingerprint"] !== current["fingerprint"]) return googleError(412, "FAILED_PRECONDITION", "Supplied fingerprint does not match current metadata fingerprint.")
      s.item["metadata"] = { kind: "compute#metadata", fingerprint: randomBytes(6).toString("base64"), items: body["items"] ?? [] }
      return { body: computeOp(p, `zones/${m[2]}`, "", "setMetadata") }
    }),
  )

  // Service Usage
  const serviceOps = new Map<string, number>()
  server.route("GET", "serviceusage.googleapis.com", /^\/v1\/projects\/([^/]+)\/services\/([^/:]+)$/, (req, m) =>
    withProject(req, m[1]!, "serviceusage", "serviceusage.services.get", (p) => ({
      body: { name: `projects/${p.projectNumber}/services/${m[2]}`, config: { name: m[2], title: "Cloud Asset API" }, state: m[2] === "cloudasset.googleapis.com" ? p.cloudAssetState : "ENABLED", parent: `projects/${p.projectNumber}` },
    })),
  )
  server.route("POST", "serviceusage.googleapis.com", /^\/v1\/projects\/([^/]+)\/services\/([^/:]+):enable$/, (req, m) =>
    withProject(req, m[1]!, "serviceusage", "serviceusage.services.enable", (p) => {
      if (m[2] === "cloudasset.googleapis.com") p.cloudAssetState = "ENABLED"
      const name = `operations/acf.p2-${p.projectNumber}-${++opCounter}`
      serviceOps.set(name, 1)
      return { body: { name, metadata: { "@type": "type.googleapis.com/google.protobuf.Empty" } } }
    }),
  )
  server.route("POST", "serviceusage.googleapis.com", /^\/v1\/projects\/([^/]+)\/services\/([^/:]+):disable$/, (req, m) =>
    withProject(req, m[1]!, "serviceusage", "serviceusage.services.disable", (p) => {
      if (m[2] === "cloudasset.googleapis.com") p.cloudAssetState = "DISABLED"
      const name = `operations/acf.p2-${p.projectNumber}-${++opCounter}`
      serviceOps.set(name, 1)
      return { body: { name, metadata: { "@type": "type.googleapis.com/google.protobuf.Empty" } } }
    }),
  )
  server.route("GET", "serviceusage.googleapis.com", /^\/v1\/(operations\/[^/]+)$/, (_req, m) => {
    const left = serviceOps.get(m[1]!)
    if (left === undefined) return googleError(404, "NOT_FOUND", "Operation not found")
    serviceOps.set(m[1]!, left - 1)
    return { body: left > 0 ? { name: m[1] } : { name: m[1], done: true, response: { "@type": "type.googleapis.com/google.api.serviceusage.v1.EnableServiceResponse" } } }
  })

  // Access Approval
  server.route("GET", "accessapproval.googleapis.com", /^\/v1\/projects\/([^/]+)\/accessApprovalSettings$/, (req, m) =>
    withProject(req, m[1]!, "accessapproval", "accessapproval.settings.get", (p) =>
      p.accessApproval === null ? googleError(404, "NOT_FOUND", `Settings not found for projects/${p.projectId}`) : { body: { name: `projects/${p.projectId}/accessApprovalSettings`, ...p.accessApproval } },
    ),
  )

  // Cloud SQL
  const sqlOps = new Map<string, number>()
  server.route("GET", "sqladmin.googleapis.com", /^\/v1\/projects\/([^/]+)\/instances$/, (req, m) =>
    withProject(req, m[1]!, "sqladmin", "cloudsql.instances.list", (p) => pageOf(world, req, p.sqlInstances, "items", "maxResults")),
  )
  server.route("GET", "sqladmin.googleapis.com", /^\/v1\/projects\/([^/]+)\/instances\/([^/]+)$/, (req, m) =>
    withProject(req, m[1]!, "sqladmin", "cloudsql.instances.get", (p) => {
      const instance = p.sqlInstances.find((x) => x["name"] === m[2])
      return instance === undefined ? googleError(404, "NOT_FOUND", "The Cloud SQL instance does not exist.") : { body: instance }
    }),
  )
  server.route("PATCH", "sqladmin.googleapis.com", /^\/v1\/projects\/([^/]+)\/instances\/([^/]+)$/, (req, m) =>
    withProject(req, m[1]!, "sqladmin", "cloudsql.instances.update", (p) => {
      const i = p.sqlInstances.findIndex((x) => x["name"] === m[2])
      if (i < 0) return googleError(404, "NOT_FOUND", "The Cloud SQL instance does not exist.")
      p.sqlInstances[i] = mergePatch(p.sqlInstances[i]!, (req.json ?? {}) as Json)
      const name = randomBytes(8).toString("hex")
      sqlOps.set(name, 1)
      return { body: { kind: "sql#operation", name, status: "PENDING", operationType: "UPDATE", targetId: m[2], selfLink: `${server.base("sqladmin.googleapis.com")}/v1/projects/${p.projectId}/operations/${name}` } }
    }),
  )
  server.route("GET", "sqladmin.googleapis.com", /^\/v1\/projects\/([^/]+)\/operations\/([^/]+)$/, (req, m) =>
    withProject(req, m[1]!, "sqladmin", "cloudsql.instances.get", () => {
      const left = sqlOps.get(m[2]!)
      if (left === undefined) return googleError(404, "NOT_FOUND", "The operation does not exist.")
      sqlOps.set(m[2]!, left - 1)
      return { body: { kind: "sql#operation", name: m[2], status: left > 0 ? "RUNNING" : "DONE" } }
    }),
  )

  // BigQuery
  const dataset = (p: GcpProjectState, id: string) => p.datasets.find((d) => (d.dataset["datasetReference"] as Json)["datasetId"] === id)
  server.route("GET", "bigquery.googleapis.com", /^\/bigquery\/v2\/projects\/([^/]+)\/datasets$/, (req, m) =>
    withProject(req, m[1]!, "bigquery", "bigquery.datasets.get", (p) => {
      const r = pageOf(world, req, p.datasets.map((d) => ({ kind: "bigquery#dataset", id: `${p.projectId}:${(d.dataset["datasetReference"] as Json)["datasetId"]}`, datasetReference: d.dataset["datasetReference"], location: d.dataset["location"] })), "datasets", "maxResults")
      return { body: { kind: "bigquery#datasetList", etag: "abc", ...(r.body as Json) } }
    }),
  )
  server.route("GET", "bigquery.googleapis.com", /^\/bigquery\/v2\/projects\/([^/]+)\/datasets\/([^/]+)$/, (req, m) =>
    withProject(req, m[1]!, "bigquery", "bigquery.datasets.get", (p) => {
      const d = dataset(p, m[2]!)
      return d === undefined ? googleError(404, "NOT_FOUND", `Not found: Dataset ${m[1]}:${m[2]}`) : { body: { kind: "bigquery#dataset", id: `${m[1]}:${m[2]}`, ...d.dataset } }
    }),
  )
  server.route("GET", "bigquery.googleapis.com", /^\/bigquery\/v2\/projects\/([^/]+)\/datasets\/([^/]+)\/tables$/, (req, m) =>
    withProject(req, m[1]!, "bigquery", "bigquery.tables.list", (p) => {
      const d = dataset(p, m[2]!)
      if (d === undefined) return googleError(404, "NOT_FOUND", `Not found: Dataset ${m[1]}:${m[2]}`)
      // The list omits encryptionConfiguration, as the real API does.
      const r = pageOf(world, req, d.tables.map(({ encryptionConfiguration: _e, ...t }) => ({ kind: "bigquery#table", ...t })), "tables", "maxResults")
      return { body: { kind: "bigquery#tableList", totalItems: d.tables.length, ...(r.body as Json) } }
    }),
  )
  server.route("GET", "bigquery.googleapis.com", /^\/bigquery\/v2\/projects\/([^/]+)\/datasets\/([^/]+)\/tables\/([^/]+)$/, (req, m) =>
    withProject(req, m[1]!, "bigquery", "bigquery.tables.get", (p) => {
      const t = dataset(p, m[2]!)?.tables.find((x) => (x["tableReference"] as Json)["tableId"] === m[3])
      return t === undefined ? googleError(404, "NOT_FOUND", `Not found: Table ${m[1]}:${m[2]}.${m[3]}`) : { body: { kind: "bigquery#table", ...t } }
    }),
  )

  // Dataproc
  server.route("GET", "container.googleapis.com", /^\/v1\/projects\/([^/]+)\/locations\/-\/clusters$/, (req, m) =>
    withProject(req, m[1]!, "container", "container.clusters.list", (p) => ({ body: { clusters: p.gkeClusters ?? [], ...(p.gkeMissingZones === undefined ? {} : { missingZones: p.gkeMissingZones }) } })),
  )
  // Secret Manager, Cloud Functions v2, Artifact Registry: lists and per-resource IAM policies.
  const policyOf = <T extends { policy: Json }>(items: ReadonlyArray<T> | undefined, name: string, get: (x: T) => unknown): FixtureReply => {
    const found = (items ?? []).find((x) => get(x) === name)
    return found === undefined ? googleError(404, "NOT_FOUND", `${name} not found.`) : { body: { version: 1, etag: "BwX=", ...found.policy } }
  }
  /** setIamPolicy: replaces the stored policy of the matching item (etag checked). */
  const setPolicyOf = <T extends { policy: Json }>(req: FixtureRequest, items: ReadonlyArray<T> | undefined, name: string, get: (x: T) => unknown, key: "policy" | "runPolicy" = "policy"): FixtureReply => {
    const found = (items ?? []).find((x) => get(x) === name) as (T & { runPolicy?: Json }) | undefined
    if (found === undefined) return googleError(404, "NOT_FOUND", `${name} not found.`)
    const policy = ((req.json ?? {}) as Json)["policy"] as Json | undefined
    if (policy === undefined) return googleError(400, "INVALID_ARGUMENT", "policy is required")
    const current = { version: 1, etag: "BwX=", ...((key === "policy" ? found.policy : found.runPolicy) ?? {}) }
    if (policy["etag"] !== undefined && policy["etag"] !== current["etag"]) return googleError(409, "ABORTED", "There were concurrent policy changes.")
    const next = { ...policy, etag: `Bw${randomBytes(4).toString("hex")}=` }
    if (key === "policy") (found as { policy: Json }).policy = next
    else found.runPolicy = next
    return { body: next }
  }
  // Secret names carry the project number; the fixers address them by project id.
  const secretKey = (name: string) => name.replace(/^projects\/[^/]+\//, "")
  server.route("POST", "secretmanager.googleapis.com", /^\/v1\/(projects\/([^/]+)\/secrets\/[^/:]+):setIamPolicy$/, (req, m) =>
    withProject(req, [...world.projects.values()].find((x) => x.projectNumber === m[2])?.projectId ?? m[2]!, "secretmanager", "secretmanager.secrets.setIamPolicy", (p) =>
      setPolicyOf(req, p.secrets, secretKey(m[1]!), (x) => secretKey(String(x.secret["name"]))),
    ),
  )
  server.route("POST", "cloudfunctions.googleapis.com", /^\/v2\/(projects\/([^/]+)\/locations\/[^/]+\/functions\/[^/:]+):setIamPolicy$/, (req, m) =>
    withProject(req, m[2]!, "cloudfunctions", "cloudfunctions.functions.setIamPolicy", (p) => setPolicyOf(req, p.functions, m[1]!, (x) => x.fn["name"])),
  )
  server.route("GET", "cloudfunctions.googleapis.com", /^\/v2\/(projects\/([^/]+)\/locations\/[^/]+\/functions\/[^/:]+)$/, (req, m) =>
    withProject(req, m[2]!, "cloudfunctions", "cloudfunctions.functions.get", (p) => {
      const f = (p.functions ?? []).find((x) => x.fn["name"] === m[1])
      return f === undefined ? googleError(404, "NOT_FOUND", `${m[1]} not found.`) : { body: f.fn }
    }),
  )
  server.route("POST", "run.googleapis.com", /^\/v2\/(projects\/([^/]+)\/locations\/[^/]+\/services\/[^/:]+):setIamPolicy$/, (req, m) =>
    withProject(req, m[2]!, "run", "run.services.setIamPolicy", (p) => setPolicyOf(req, p.functions, m[1]!, (x) => (x.fn["serviceConfig"] as Json | undefined)?.["service"], "runPolicy")),
  )
  server.route("POST", "artifactregistry.googleapis.com", /^\/v1\/(projects\/([^/]+)\/locations\/[^/]+\/repositories\/[^/:]+):setIamPolicy$/, (req, m) =>
    withProject(req, m[2]!, "artifactregistry", "artifactregistry.repositories.setIamPolicy", (p) => setPolicyOf(req, p.repositories, m[1]!, (x) => x.repo["name"])),
  )
  server.route("GET", "secretmanager.googleapis.com", /^\/v1\/projects\/([^/]+)\/secrets$/, (req, m) =>
    withProject(req, m[1]!, "secretmanager", "secretmanager.secrets.list", (p) => pageOf(world, req, (p.secrets ?? []).map((x) => x.secret), "secrets")),
  )
  server.route("GET", "secretmanager.googleapis.com", /^\/v1\/(projects\/([^/]+)\/secrets\/[^/:]+):getIamPolicy$/, (req, m) =>
    // Secret names carry the project number, as the API answers them.
    withProject(req, [...world.projects.values()].find((x) => x.projectNumber === m[2])?.projectId ?? m[2]!, "secretmanager", "secretmanager.secrets.getIamPolicy", (p) => policyOf(p.secrets, secretKey(m[1]!), (x) => secretKey(String(x.secret["name"])))),
  )
  server.route("GET", "cloudfunctions.googleapis.com", /^\/v2\/projects\/([^/]+)\/locations\/-\/functions$/, (req, m) =>
    withProject(req, m[1]!, "cloudfunctions", "cloudfunctions.functions.list", (p) => {
      const r = pageOf(world, req, (p.functions ?? []).map((x) => x.fn), "functions")
      return p.functionsUnreachable === undefined ? r : { body: { ...(r.body as Json), unreachable: p.functionsUnreachable } }
    }),
  )
  server.route("GET", "cloudfunctions.googleapis.com", /^\/v2\/(projects\/([^/]+)\/locations\/[^/]+\/functions\/[^/:]+):getIamPolicy$/, (req, m) =>
    withProject(req, m[2]!, "cloudfunctions", "cloudfunctions.functions.getIamPolicy", (p) => policyOf(p.functions, m[1]!, (x) => x.fn["name"])),
  )
  server.route("GET", "orgpolicy.googleapis.com", /^\/v2\/projects\/([^/]+)\/policies\/([^/:]+):getEffectivePolicy$/, (req, m) =>
    withProject(req, m[1]!, "orgpolicy", "orgpolicy.policies.getEffectivePolicy", (p) => {
      const enforced = p.orgPolicies?.[m[2]!]
      if (enforced === null) return permissionDenied("orgpolicy.policy.get", `projects/${p.projectId}/policies/${m[2]}`)
      return { body: { name: `projects/${p.projectNumber}/policies/${m[2]}`, spec: enforced === true ? { rules: [{ enforce: true }] } : { rules: [{ enforce: false }] } } }
    }),
  )
  server.route("GET", "run.googleapis.com", /^\/v2\/(projects\/([^/]+)\/locations\/[^/]+\/services\/[^/:]+):getIamPolicy$/, (req, m) =>
    withProject(req, m[2]!, "run", "run.services.getIamPolicy", (p) => {
      const f = (p.functions ?? []).find((x) => (x.fn["serviceConfig"] as Json | undefined)?.["service"] === m[1])
      return f === undefined ? googleError(404, "NOT_FOUND", `${m[1]} not found.`) : { body: { version: 1, etag: "BwX=", ...(f.runPolicy ?? {}) } }
    }),
  )
  server.route("GET", "artifactregistry.googleapis.com", /^\/v1\/projects\/([^/]+)\/locations$/, (req, m) =>
    withProject(req, m[1]!, "artifactregistry", "artifactregistry.locations.list", (p) =>
      pageOf(world, req, p.regions.map((l) => ({ name: `projects/${p.projectId}/locations/${l}`, locationId: l })), "locations"),
    ),
  )
  server.route("GET", "artifactregistry.googleapis.com", /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/repositories$/, (req, m) =>
    withProject(req, m[1]!, "artifactregistry", "artifactregistry.repositories.list", (p) =>
      pageOf(world, req, (p.repositories ?? []).filter((x) => String(x.repo["name"]).includes(`/locations/${m[2]}/`)).map((x) => x.repo), "repositories"),
    ),
  )
  server.route("GET", "artifactregistry.googleapis.com", /^\/v1\/(projects\/([^/]+)\/locations\/[^/]+\/repositories\/[^/:]+):getIamPolicy$/, (req, m) =>
    withProject(req, m[2]!, "artifactregistry", "artifactregistry.repositories.getIamPolicy", (p) => policyOf(p.repositories, m[1]!, (x) => x.repo["name"])),
  )

  server.route("GET", "dataproc.googleapis.com", /^\/v1\/projects\/([^/]+)\/regions\/([^/]+)\/clusters$/, (req, m) =>
    withProject(req, m[1]!, "dataproc", "dataproc.clusters.list", (p) => pageOf(world, req, p.dataprocClusters.filter((c) => c.region === m[2]).map((c) => c.cluster), "clusters")),
  )
}

