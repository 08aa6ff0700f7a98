/**
 * A fake Azure on the loopback fixture server: the Entra ID v2 token endpoint (client credentials: tenant, app,
 * secret and a `/.default` scope are checked; one token per audience), a generic Azure Resource Manager over a
 * store of resources keyed by id (lists by parent path with `{value, nextLink}` pages, GET/PUT/PATCH by id,
 * `{error:{code,message}}` bodies, 202 + Azure-AsyncOperation for long-running PUTs, unregistered providers; a PUT
 * replaces the settings it sends, a PATCH merges; managed identities get a principal), and
 * Microsoft Graph v1.0 (the authorization policy and the other tenant settings of AzureTenant.graph).
 */
import { randomBytes, randomUUID } from "node:crypto"
import { decodePageToken, encodePageToken, type CloudFixtureServer, type FixtureReply, type FixtureRequest } from "../support/cloud-fixture-server.ts"

export type Json = Record<string, unknown>

export interface AzureApp {
  readonly clientId: string
  secret: string
  /** Subscriptions the app may read ("*" = all of its tenant). */
  readonly subscriptions: ReadonlySet<string> | "*"
  /** Whether the app holds Graph Policy.Read.All. */
  readonly graphPolicyRead: boolean
}

export interface AzureTenant {
  readonly tenantId: string
  readonly apps: Map<string, AzureApp>
  authorizationPolicy: Json
  /**
   * Other Microsoft Graph v1.0 answers by path below /v1.0 ("policies/deviceRegistrationPolicy", or a collection's
   * items under its path); a path not listed answers 404 Request_ResourceNotFound.
   */
  graph?: Record<string, Json | Json[]>
  /** Role assignments at the root scope "/". */
  rootAssignments: Json[]
}

export interface AzureSubscription {
  readonly subscriptionId: string
  readonly tenantId: string
  readonly displayName: string
  /** Every ARM resource of the subscription by lower-cased id (including child resources and settings). */
  readonly resources: Map<string, Json>
  /** Resource providers that are not registered (their lists answer 409 MissingSubscriptionRegistration). */
  readonly unregistered: Set<string>
}

export interface AzureWorld {
  readonly tenants: Map<string, AzureTenant>
  readonly subscriptions: Map<string, AzureSubscription>
  pageSize: number
  readonly tokens: Map<string, { readonly tenantId: string; readonly clientId: string; readonly audience: string }>
  readonly writes: Array<{ readonly method: string; readonly path: string; readonly body: unknown }>
}

export const ARM_AUDIENCE = "https://management.azure.com"
export const GRAPH_AUDIENCE = "https://graph.microsoft.com"

export function newAzureWorld(pageSize = 2): AzureWorld {
  return { tenants: new Map(), subscriptions: new Map(), pageSize, tokens: new Map(), writes: [] }
}

export const armError = (status: number, code: string, message: string): FixtureReply => ({ status, body: { error: { code, message } } })

/** Adds a resource (or child/setting) to the subscription's store. */
export function put(sub: AzureSubscription, resource: Json): Json {
  sub.resources.set(String(resource["id"]).toLowerCase(), resource)
  return resource
}

const parentOf = (id: string) => id.slice(0, id.lastIndexOf("/"))
/** "/subscriptions/s/resourceGroups/rg/providers/X/y/n" → "/subscriptions/s/providers/X/y" (the subscription-wide list path). */
const subscriptionListPath = (parent: string) => parent.replace(/^(\/subscriptions\/[^/]+)\/resourcegroups\/[^/]+(\/providers\/.+)$/, "$1$2")

export function mergePatch(target: Json, patch: Json): Json {
  const out: Json = { ...target }
  for (const [k, v] of Object.entries(patch)) {
    const cur = out[k]
    out[k] = v !== null && typeof v === "object" && !Array.isArray(v) && cur !== null && typeof cur === "object" && !Array.isArray(cur) ? mergePatch(cur as Json, v as Json) : v
  }
  return out
}

export function installAzureWorld(server: CloudFixtureServer, world: AzureWorld): void {
  const armBase = server.base("management.azure.com")
  const asyncOps = new Map<string, { left: number; apply: () => void }>()

  server.route("POST", "login.microsoftonline.com", /^\/([^/]+)\/oauth2\/v2\.0\/token$/, (req, m) => {
    const f = req.form
    const aad = (status: number, error: string, code: number, text: string): FixtureReply => ({
      status,
      body: { error, error_description: `AADSTS${code}: ${text}\r\nTrace ID: ${randomBytes(8).toString("hex")}\r\nCorrelation ID: ${randomBytes(8).toString("hex")}\r\nTimestamp: 2026-06-01 00:00:00Z`, error_codes: [code] },
    })
    const tenant = world.tenants.get(m[1]!)
    if (tenant === undefined) return aad(400, "invalid_request", 90002, `Tenant '${m[1]}' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud.`)
    if (f?.get("grant_type") !== "client_credentials") return aad(400, "unsupported_grant_type", 70003, "The app requested an unsupported grant type.")
    const app = tenant.apps.get(f.get("client_id") ?? "")
    if (app === undefined) return aad(400, "unauthorized_client", 700016, `Application with identifier '${f.get("client_id")}' was not found in the directory '${tenant.tenantId}'.`)
    if (f.get("client_secret") !== app.secret) return aad(401, "invalid_client", 7000215, "Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID.")
    const scope = f.get("scope") ?? ""
    const audience = scope.endsWith("/.default") ? scope.slice(0, -"/.default".length) : ""
    if (audience !== ARM_AUDIENCE && audience !== GRAPH_AUDIENCE) return aad(400, "invalid_scope", 70011, `The provided value for scope ${scope} is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI).`)
    const token = `eyJ0eXAiOiJKV1Qi.${randomBytes(24).toString("base64url")}`
    world.tokens.set(token, { tenantId: tenant.tenantId, clientId: app.clientId, audience })
    return { body: { token_type: "Bearer", expires_in: 3599, ext_expires_in: 3599, access_token: token } }
  })

  const caller = (req: FixtureRequest) => {
    const t = world.tokens.get(req.bearer ?? "")
    if (t === undefined) return undefined
    const app = world.tenants.get(t.tenantId)?.apps.get(t.clientId)
    return app === undefined ? undefined : { ...t, app }
  }

  server.guard("management.azure.com", (req) => {
    const c = caller(req)
    if (c === undefined) return armError(401, "InvalidAuthenticationToken", "The access token is invalid.")
    if (c.audience !== ARM_AUDIENCE) return armError(401, "InvalidAuthenticationToken", `The access token has been obtained for wrong audience or resource '${c.audience}'. It should exactly match with one of the allowed audiences 'https://management.core.windows.net/','https://management.azure.com/'.`)
    if (req.query.get("api-version") === null) return armError(400, "MissingApiVersionParameter", "The api-version query parameter (?api-version=) is required for all requests.")
    if (req.method !== "GET") world.writes.push({ method: req.method, path: req.path, body: req.json })
    return undefined
  })
  server.guard("graph.microsoft.com", (req) => {
    const c = caller(req)
    if (c === undefined || c.audience !== GRAPH_AUDIENCE) return armError(401, "InvalidAuthenticationToken", "Access token validation failure. Invalid audience.")
    return undefined
  })

  server.route("GET", "graph.microsoft.com", /^\/v1\.0\/policies\/authorizationPolicy$/, (req) => {
    const c = caller(req)!
    if (!c.app.graphPolicyRead) return armError(403, "Authorization_RequestDenied", "Insufficient privileges to complete the operation.")
    const tenant = world.tenants.get(c.tenantId)!
    return { body: { "@odata.context": "https://graph.microsoft.com/v1.0/$metadata#policies/authorizationPolicy/$entity", ...tenant.authorizationPolicy } }
  })

  server.route("GET", "graph.microsoft.com", /^\/v1\.0\/(.+)$/, (req) => {
    const c = caller(req)!
    if (!c.app.graphPolicyRead) return armError(403, "Authorization_RequestDenied", "Insufficient privileges to complete the operation.")
    const path = req.path.slice("/v1.0/".length)
    const found = world.tenants.get(c.tenantId)?.graph?.[path]
    if (found === undefined) return armError(404, "Request_ResourceNotFound", `Resource '${path}' does not exist or one of its queried reference-property objects are not present.`)
    return { body: Array.isArray(found) ? { "@odata.context": `https://graph.microsoft.com/v1.0/$metadata#${path}`, value: found } : { "@odata.context": `https://graph.microsoft.com/v1.0/$metadata#${path}/$entity`, ...found } }
  })

  /** The subscription of a path, enforcing the caller's access; undefined answer = a reply to send. */
  const subscriptionFor = (req: FixtureRequest, subscriptionId: string): AzureSubscription | FixtureReply => {
    const c = caller(req)!
    const sub = world.subscriptions.get(subscriptionId)
    if (sub === undefined) return armError(404, "SubscriptionNotFound", `The subscription '${subscriptionId}' could not be found.`)
    if (sub.tenantId !== c.tenantId || (c.app.subscriptions !== "*" && !c.app.subscriptions.has(subscriptionId))) {
      return armError(403, "AuthorizationFailed", `The client '${c.clientId}' with object id '${c.clientId}' does not have authorization to perform action 'read' over scope '/subscriptions/${subscriptionId}' or the scope is invalid. If access was recently granted, please refresh your credentials.`)
    }
    return sub
  }
  const isReply = (x: AzureSubscription | FixtureReply): x is FixtureReply => !("resources" in x)

  const page = (req: FixtureRequest, items: ReadonlyArray<Json>): FixtureReply => {
    const start = decodePageToken(req.query.get("$skiptoken"))
    const slice = items.slice(start, start + world.pageSize)
    const next = start + world.pageSize < items.length ? encodePageToken(start + world.pageSize) : undefined
    const nextLink = next === undefined ? undefined : `${armBase}${req.path}?${new URLSearchParams([...[...req.query].filter(([k]) => k !== "$skiptoken"), ["$skiptoken", next]]).toString()}`
    return { body: { value: slice, ...(nextLink === undefined ? {} : { nextLink }) } }
  }

  // Root-scope role assignments (tenant level).
  server.route("GET", "management.azure.com", /^\/providers\/Microsoft\.Authorization\/roleAssignments$/i, (req) => {
    const c = caller(req)!
    return page(req, world.tenants.get(c.tenantId)?.rootAssignments ?? [])
  })

  // Long-running operation status.
  server.route("GET", "management.azure.com", /^\/subscriptions\/[^/]+\/providers\/[^/]+\/locations\/[^/]+\/operationResults\/([^/]+)$/i, (_req, m) => {
    const op = asyncOps.get(m[1]!)
    if (op === undefined) return armError(404, "OperationNotFound", "The operation was not found.")
    if (op.left > 0) {
      op.left--
      return { body: { name: m[1], status: "InProgress" }, headers: { "retry-after": "0" } }
    }
    op.apply()
    return { body: { name: m[1], status: "Succeeded" } }
  })

  // App Service Authentication settings always exist: a site that never configured them answers the defaults (off).
  server.route("GET", "management.azure.com", /^\/subscriptions\/([^/]+)(\/resourceGroups\/[^/]+\/providers\/Microsoft\.Web\/sites\/[^/]+)\/config\/authsettingsV2$/i, (req, m) => {
    const sub = subscriptionFor(req, m[1]!)
    if (isReply(sub)) return sub
    const siteId = `/subscriptions/${m[1]}${m[2]}`
    const site = sub.resources.get(siteId.toLowerCase())
    if (site === undefined) return armError(404, "ResourceNotFound", `The Resource 'Microsoft.Web/sites/${siteId.slice(siteId.lastIndexOf("/") + 1)}' under resource group was not found.`)
    const stored = sub.resources.get(`${siteId}/config/authsettingsV2`.toLowerCase())
    return {
      body: stored ?? {
        id: `${site["id"]}/config/authsettingsV2`,
        name: "authsettingsV2",
        type: "Microsoft.Web/sites/config",
        location: site["location"],
        properties: { platform: { enabled: false, runtimeVersion: "~1" }, globalValidation: { requireAuthentication: false, unauthenticatedClientAction: "RedirectToLoginPage" }, identityProviders: {}, login: { tokenStore: { enabled: false } }, httpSettings: { requireHttps: true } },
      },
    }
  })

  server.route("GET", "management.azure.com", /^\/subscriptions\/([^/]+)(\/.*)?$/, (req, m) => {
    const sub = subscriptionFor(req, m[1]!)
    if (isReply(sub)) return sub
    const rest = m[2] ?? ""
    if (rest === "") {
      return { body: { id: `/subscriptions/${sub.subscriptionId}`, authorizationSource: "RoleBased", subscriptionId: sub.subscriptionId, tenantId: sub.tenantId, displayName: sub.displayName, state: "Enabled", subscriptionPolicies: { locationPlacementId: "Public_2014-09-01", quotaId: "PayAsYouGo_2014-09-01", spendingLimit: "Off" } } }
    }
    const path = req.path.toLowerCase()
    const rp = /\/providers\/([^/]+)\//i.exec(req.path)?.[1]
    if (rp !== undefined && sub.unregistered.has(rp.toLowerCase())) {
      return armError(409, "MissingSubscriptionRegistration", `The subscription is not registered to use namespace '${rp}'. See https://aka.ms/rps-not-found for how to register subscriptions.`)
    }
    const exact = sub.resources.get(path)
    if (exact !== undefined) return { body: exact }
    let items = [...sub.resources.values()].filter((r) => {
      const parent = parentOf(String(r["id"]).toLowerCase())
      return parent === path || subscriptionListPath(parent) === path
    })
    if (/\/roledefinitions$/i.test(path) && (req.query.get("$filter") ?? "").includes("CustomRole")) items = items.filter((r) => (r["properties"] as Json | undefined)?.["type"] === "CustomRole")
    // Security assessments are extension resources of every assessed resource; the subscription-scope list holds them all.
    if (/^\/subscriptions\/[^/]+\/providers\/microsoft\.security\/assessments$/.test(path)) {
      items = [...sub.resources.values()].filter((r) => /\/providers\/microsoft\.security\/assessments\/[^/]+$/.test(String(r["id"]).toLowerCase()))
    }
    if (items.length === 0 && !/\/(providers\/[^/]+\/[^/]+|[^/]+s)$/i.test(path)) {
      return armError(404, "ResourceNotFound", `The Resource '${req.path}' was not found.`)
    }
    if (items.length === 0 && /\/(blobservices|fileservices)\/default$|\/config\/web$|\/auditingsettings\/default$|\/encryptionprotector\/current$|\/transparentdataencryption\/current$|\/configurations\/[^/]+$/i.test(path)) {
      return armError(404, "ResourceNotFound", `The Resource '${req.path}' was not found.`)
    }
    return page(req, items)
  })

  /**
   * A PUT replaces the resource's settings it sends (each member of `properties` whole, as ARM's create-or-replace;
   * read-only members the client does not send, e.g. a configuration's defaultValue, stay); a PATCH merges.
   */
  const putOver = (current: Json, body: Json): Json => ({ ...current, ...body, properties: { ...((current["properties"] ?? {}) as Json), ...((body["properties"] ?? {}) as Json) } })

  /**
   * A managed identity (ManagedServiceIdentity) after a write that set `identity.type`: SystemAssigned creates the
   * identity's service principal (principalId, tenantId, kept while the type keeps SystemAssigned); a type without it
   * deletes them, a type without UserAssigned drops the user-assigned identities.
   */
  const withIdentity = (next: Json, current: Json | undefined, body: Json, tenantId: string): Json => {
    const sent = body["identity"] as Json | undefined
    if (sent === undefined || typeof sent["type"] !== "string") return next
    const type = String(sent["type"])
    const before = (current?.["identity"] ?? {}) as Json
    const { principalId: _p, tenantId: _t, userAssignedIdentities, ...rest } = (next["identity"] ?? {}) as Json
    const identity: Json = {
      ...rest,
      type,
      ...(/SystemAssigned/i.test(type) ? { principalId: before["principalId"] ?? randomUUID(), tenantId: before["tenantId"] ?? tenantId } : {}),
      ...(/UserAssigned/i.test(type) && userAssignedIdentities !== undefined ? { userAssignedIdentities } : {}),
    }
    return { ...next, identity }
  }

  const write = (req: FixtureRequest, subscriptionId: string, replace: boolean): FixtureReply => {
    const sub = subscriptionFor(req, subscriptionId)
    if (isReply(sub)) return sub
    const key = req.path.toLowerCase()
    const current = sub.resources.get(key)
    const body = (req.json ?? {}) as Json
    if (current === undefined && !replace) return armError(404, "ResourceNotFound", `The Resource '${req.path}' was not found.`)
    // TDE changes are long-running: 202 + Azure-AsyncOperation, applied when the operation completes.
    if (/\/transparentdataencryption\/current$/.test(key) && current !== undefined) {
      const op = randomBytes(6).toString("hex")
      asyncOps.set(op, { left: 1, apply: () => sub.resources.set(key, putOver(current, body)) })
      return { status: 202, headers: { "azure-asyncoperation": `${armBase}/subscriptions/${subscriptionId}/providers/Microsoft.Sql/locations/eastus/operationResults/${op}?api-version=2021-11-01`, "retry-after": "0" } }
    }
    const next = withIdentity(current === undefined ? { id: req.path, name: req.path.slice(req.path.lastIndexOf("/") + 1), ...body } : replace ? putOver(current, body) : mergePatch(current, body), current, body, sub.tenantId)
    sub.resources.set(key, next)
    return { status: current === undefined ? 201 : 200, body: next }
  }
  server.route("PATCH", "management.azure.com", /^\/subscriptions\/([^/]+)\/.+$/, (req, m) => write(req, m[1]!, false))
  server.route("PUT", "management.azure.com", /^\/subscriptions\/([^/]+)\/.+$/, (req, m) => write(req, m[1]!, true))
}
