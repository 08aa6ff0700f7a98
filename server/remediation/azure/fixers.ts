/**
 * Azure fixers for the safe, reversible recommendations: storage account settings (secure transfer, TLS 1.2, blob
 * anonymous access, cross-tenant replication, trusted services bypass, Entra authorization default), blob and file
 * service soft delete and versioning, SQL database TDE, App Service settings (HTTPS only, FTPS, TLS 1.2, HTTP/2,
 * remote debugging, managed identity, FTP off, SCM TLS 1.2, client certificates), and the exposure and TLS settings of
 * SQL servers, flexible servers, Cosmos DB accounts and key vaults. Every fixer is a plan fixer (server/remediation/plan.ts):
 * `read` answers the fields its call writes, as the official ARM model names them (an absent field read as its documented
 * default, server/scanner/azure/collectors/defaults.ts), `plan` builds the exact ARM calls (method, URL with api-version,
 * body) and their undo from that pre-image. Where the API replaces a nested object (networkAcls, the blob and file
 * service properties) the whole object is read and written. The executor waits for long-running operations (202 +
 * Azure-AsyncOperation / Location, `azureSettle`).
 */
import { Schema } from "effect"
import type { DetailRow } from "../../scanner/check.ts"
import type { RestClient } from "../../scanner/rest/http.ts"
import { FixError, waitUntil } from "../../scanner/rest/remediation.ts"
import { documentedDefaults } from "../../scanner/azure/collectors/defaults.ts"
import type { AzureEndpoints } from "../../scanner/azure/endpoints.ts"
import { STORAGE_API } from "../../scanner/azure/collectors/storage.ts"
import { COSMOS_API, MYSQL_API, POSTGRES_API, SQL_API } from "../../scanner/azure/collectors/databases.ts"
import { KEYVAULT_API } from "../../scanner/azure/collectors/keyvault.ts"
import { WEB_API } from "../../scanner/azure/collectors/appservice.ts"
import { ACR_API } from "../../scanner/azure/collectors/acr.ts"
import { RECOVERY_API } from "../../scanner/azure/collectors/recovery.ts"
import type { FixPlan, Json, PlanFixer, RestCall } from "../plan.ts"
import { diffStates, toJson } from "../plan.ts"
import { registerRestTerraform, type Settle } from "../rest.ts"
import { tfName } from "../aws/fixer.ts"

export interface AzureFixContext {
  readonly client: RestClient
  readonly subscriptionId: string
  readonly endpoints: AzureEndpoints
  readonly signal?: AbortSignal
}

const AsyncStatus = Schema.Struct({ status: Schema.String, error: Schema.optionalKey(Schema.Struct({ code: Schema.optionalKey(Schema.String), message: Schema.optionalKey(Schema.String) })) })

/** The row's ARM id, checked to belong to the scanned subscription (a row must not steer writes elsewhere). */
const armIdOf = (ctx: AzureFixContext, row: DetailRow): string => {
  const id = row.resource_id
  if (!new RegExp(`^/subscriptions/${ctx.subscriptionId}/resourceGroups/[^/]+/providers/`, "i").test(id)) throw new FixError(`"${id}" is not a resource of subscription ${ctx.subscriptionId}`)
  if (id.includes("..") || id.includes("?") || id.includes("#")) throw new FixError(`"${id}" is not a valid resource id`)
  return id
}

async function armRead<S extends Schema.ConstraintDecoder<unknown>>(ctx: AzureFixContext, id: string, apiVersion: string, schema: S, op: string): Promise<S["Type"]> {
  return ctx.client.json({ url: `${ctx.endpoints.arm}${id}?api-version=${apiVersion}`, audience: ctx.endpoints.armAudience, op }, schema)
}

/** An Azure fixer of the plan vocabulary (read + plan), executed by `executeRestCalls` with `azureSettle`. */
export type AzurePlanFixer = PlanFixer<AzureFixContext, DetailRow>

const Resource = Schema.Record(Schema.String, Schema.Unknown)

/** `actual`'s values at the leaves of `template` (absent as null): the state a PATCH of `template` changes. */
const pickLike = (template: unknown, actual: unknown): Json => {
  if (typeof template === "object" && template !== null && !Array.isArray(template)) {
    const a = typeof actual === "object" && actual !== null ? (actual as Record<string, unknown>) : {}
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, pickLike(v, a[k])]))
  }
  return actual === undefined ? null : (JSON.parse(JSON.stringify(actual)) as Json)
}

const withDefaults = (state: Json, defaults: Readonly<Record<string, Json>>, path = ""): Json =>
  state === null
    ? (defaults[path] ?? null)
    : typeof state === "object" && !Array.isArray(state)
      ? Object.fromEntries(Object.entries(state).map(([k, v]) => [k, withDefaults(v, defaults, path === "" ? k : `${path}.${k}`)]))
      : state

const nullLeaves = (state: Json, path = ""): string[] =>
  state === null
    ? [path]
    : typeof state === "object" && !Array.isArray(state)
      ? Object.entries(state).flatMap(([k, v]) => nullLeaves(v, path === "" ? k : `${path}.${k}`))
      : []

/**
 * One PATCH of an ARM resource (merge semantics). `read` answers the resource's values of the fields the PATCH sets;
 * the undo PATCHes them back. A field that was not set (the service default applied) cannot be unset by ARM: such a
 * fix is irreversible and the preview says so before anything changes.
 */
const armPatch = (spec: {
  readonly checkId: string
  readonly description: string
  readonly cutsAccess?: string
  readonly done: string
  readonly apiVersion: string
  /** The ARM id to patch, validated against the row. */
  readonly target: (ctx: AzureFixContext, row: DetailRow) => string
  readonly body: Record<string, unknown>
  readonly operation: string
  readonly service: string
  readonly noun: string
  /** The documented meaning of an absent field (dotted path → value), read as that value. */
  readonly defaults?: Readonly<Record<string, Json>>
}): AzurePlanFixer => ({
  checkIds: [spec.checkId],
  description: spec.description,
  ...(spec.cutsAccess === undefined ? {} : { cutsAccess: spec.cutsAccess }),
  read: async (ctx, row) => withDefaults(pickLike(spec.body, await armRead(ctx, spec.target(ctx, row), spec.apiVersion, Resource, spec.operation.replace(/\/write$/, "/read"))), spec.defaults ?? {}),
  plan: (ctx, row, state) => {
    const id = spec.target(ctx, row)
    const call = (body: unknown): RestCall => ({
      provider: "azure",
      service: spec.service,
      operation: spec.operation,
      method: "PATCH",
      url: `${ctx.endpoints.arm}${id}?api-version=${spec.apiVersion}`,
      body,
      audience: ctx.endpoints.armAudience,
      action: spec.operation,
    })
    const summary = `${spec.done} on ${spec.noun} ${String(row["name"] ?? id)}.`
    const fixed = pickLike(spec.body, spec.body)
    if (diffStates(fixed, state).length === 0) return { calls: [], effects: [], summary, undo: { reversible: true, calls: [] }, noop: "The resource already has this setting." }
    const unset = nullLeaves(state)
    return {
      calls: [call(spec.body)],
      effects: [],
      summary,
      undo:
        unset.length === 0
          ? { reversible: true, calls: [call(state)] }
          : { reversible: false, reason: `${unset.join(", ")} was not set on the resource (the service default applied) and Azure has no call to unset it again.` },
    }
  },
})

const accountPatch = (checkId: string, description: string, properties: Record<string, unknown>, done: string, cutsAccess?: string, defaults?: Readonly<Record<string, Json>>): AzurePlanFixer =>
  armPatch({
    ...(defaults === undefined ? {} : { defaults }),
    checkId,
    description,
    ...(cutsAccess === undefined ? {} : { cutsAccess }),
    done,
    apiVersion: STORAGE_API,
    target: armIdOf,
    body: { properties },
    operation: "Microsoft.Storage/storageAccounts/write",
    service: "Microsoft.Storage",
    noun: "storage account",
  })

/** PATCH `properties` of the row's resource (which must be of `type`). */
const resourcePatch = (spec: {
  readonly checkId: string
  readonly type: string
  readonly apiVersion: string
  readonly description: string
  readonly properties: Record<string, unknown>
  readonly done: string
  readonly cutsAccess?: string
  readonly defaults?: Readonly<Record<string, Json>>
}): AzurePlanFixer =>
  armPatch({
    ...(spec.defaults === undefined ? {} : { defaults: spec.defaults }),
    checkId: spec.checkId,
    description: spec.description,
    ...(spec.cutsAccess === undefined ? {} : { cutsAccess: spec.cutsAccess }),
    done: spec.done,
    apiVersion: spec.apiVersion,
    target: (ctx, row) => {
      const id = armIdOf(ctx, row)
      if (!new RegExp(`/providers/${spec.type.replace(/\./g, "\\.")}/[^/]+$`, "i").test(id)) throw new FixError(`"${id}" is not a ${spec.type} resource`)
      return id
    },
    body: { properties: spec.properties },
    operation: `${spec.type}/write`,
    service: spec.type.slice(0, spec.type.indexOf("/")),
    noun: "resource",
  })

/** The documented meaning of an absent field (server/scanner/azure/collectors/defaults.ts, the checks' one table). */
const documented = (id: string): Json => {
  const d = documentedDefaults.find((x) => x.id === id)
  if (d === undefined || typeof d.absent === "function") throw new Error(`No documented default "${id}"`)
  return d.absent
}

/** One ARM call of a plan: `method` on `id` at `apiVersion`, the permission being the operation itself. */
const armCall = (ctx: AzureFixContext, method: "PUT" | "PATCH", id: string, apiVersion: string, operation: string, body: unknown): RestCall => ({
  provider: "azure",
  service: operation.slice(0, operation.indexOf("/")),
  operation,
  method,
  url: `${ctx.endpoints.arm}${id}?api-version=${apiVersion}`,
  body,
  audience: ctx.endpoints.armAudience,
  action: operation,
})

/** The row's ARM id, which must name a resource of the given path (`Microsoft.Sql/servers/[^/]+/databases`). */
const typedId = (ctx: AzureFixContext, row: DetailRow, path: string, what: string): string => {
  const id = armIdOf(ctx, row)
  if (!new RegExp(`/providers/${path}/[^/]+$`, "i").test(id)) throw new FixError(`"${id}" is not a ${what}`)
  return id
}

const nameOf = (row: DetailRow): string => String(row["name"] ?? row.resource_id)
const asObject = (v: Json | undefined): Readonly<Record<string, Json>> => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Readonly<Record<string, Json>>) : {})
const noop = (summary: string, why: string): FixPlan => ({ calls: [], effects: [], summary, undo: { reversible: true, calls: [] }, noop: why })

const NetworkAcls = Schema.Struct({ properties: Schema.optionalKey(Schema.Struct({ networkAcls: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)) })) })

/**
 * The storage account firewall (`properties.networkAcls`, a NetworkRuleSet that a PATCH replaces whole): `read` answers
 * the whole rule set (absent: no firewall, `defaultAction` Allow; an absent `bypass` is "AzureServices", the documented
 * defaults), the fix PATCHes it changed by `change`, the undo PATCHes the rule set read.
 */
const firewallFix = (spec: {
  readonly checkId: string
  readonly description: string
  readonly cutsAccess?: string
  readonly change: (acls: Readonly<Record<string, Json>>) => Readonly<Record<string, Json>>
  readonly effects: (acls: Readonly<Record<string, Json>>) => ReadonlyArray<string>
  readonly done: string
}): AzurePlanFixer => ({
  checkIds: [spec.checkId],
  description: spec.description,
  ...(spec.cutsAccess === undefined ? {} : { cutsAccess: spec.cutsAccess }),
  read: async (ctx, row) => {
    const acls = (await armRead(ctx, armIdOf(ctx, row), STORAGE_API, NetworkAcls, "Microsoft.Storage/storageAccounts/read")).properties?.networkAcls
    const read = acls === undefined ? asObject(documented("storage.accounts properties.networkAcls")) : asObject(toJson(acls))
    return { properties: { networkAcls: { ...read, bypass: read["bypass"] ?? documented("storage.accounts properties.networkAcls.bypass") } } }
  },
  plan: (ctx, row, state) => {
    const id = armIdOf(ctx, row)
    const acls = asObject(asObject(asObject(state)["properties"])["networkAcls"])
    const next = spec.change(acls)
    const summary = `${spec.done} on storage account ${nameOf(row)}.`
    if (diffStates(acls, next).length === 0) return noop(summary, "The firewall already has this setting.")
    const call = (networkAcls: Json) => armCall(ctx, "PATCH", id, STORAGE_API, "Microsoft.Storage/storageAccounts/write", { properties: { networkAcls } })
    return { calls: [call(next)], effects: spec.effects(acls), summary, undo: { reversible: true, calls: [call(acls)] } }
  },
})

const bypassList = (acls: Readonly<Record<string, Json>>): string[] => String(acls["bypass"] ?? "None").split(",").map((s) => s.trim()).filter((s) => s !== "" && s !== "None")
const count = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`
const rulesKept = (acls: Readonly<Record<string, Json>>): string => {
  const ip = Array.isArray(acls["ipRules"]) ? acls["ipRules"].length : 0
  const vnet = Array.isArray(acls["virtualNetworkRules"]) ? acls["virtualNetworkRules"].length : 0
  const instances = Array.isArray(acls["resourceAccessRules"]) ? acls["resourceAccessRules"].length : 0
  return `${count(ip, "IP rule")}, ${count(vnet, "virtual network rule")} and ${count(instances, "resource instance rule")}`
}

const Properties = Schema.Struct({ properties: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)) })

/**
 * Blob or file service settings (`{account}/blobServices/default`, `fileServices/default`): the PUT replaces the
 * service's properties, so `read` answers them all (the changed one read as its documented default when absent), the
 * fix PUTs them with `patch` merged in and the undo PUTs them back as read.
 */
const servicePut = (spec: {
  readonly checkId: string
  readonly service: "blobServices" | "fileServices"
  readonly description: string
  /** The one property the fix sets, with the id of its documented default in defaults.ts. */
  readonly key: string
  readonly value: Json
  readonly defaultId: string
  readonly done: string
  readonly effects?: ReadonlyArray<string>
}): AzurePlanFixer => {
  // A retention policy is satisfied when enabled, whatever its days (the check reads `enabled`).
  const satisfied = (current: Json | undefined) => (typeof spec.value === "object" && spec.value !== null ? asObject(current)["enabled"] === true : current === spec.value)
  const operation = `Microsoft.Storage/storageAccounts/${spec.service}/write`
  return {
    checkIds: [spec.checkId],
    description: spec.description,
    read: async (ctx, row) => {
      const id = `${typedId(ctx, row, "Microsoft.Storage/storageAccounts", "storage account")}/${spec.service}/default`
      const properties = asObject(toJson((await armRead(ctx, id, STORAGE_API, Properties, `Microsoft.Storage/storageAccounts/${spec.service}/read`)).properties ?? {}))
      return { properties: { ...properties, [spec.key]: properties[spec.key] ?? documented(spec.defaultId) } }
    },
    plan: (ctx, row, state) => {
      const id = `${typedId(ctx, row, "Microsoft.Storage/storageAccounts", "storage account")}/${spec.service}/default`
      const properties = asObject(asObject(state)["properties"])
      const summary = `${spec.done} on storage account ${nameOf(row)}.`
      if (satisfied(properties[spec.key])) return noop(summary, "The service already has this setting.")
      const others = Object.keys(properties).filter((k) => k !== spec.key).sort()
      return {
        calls: [armCall(ctx, "PUT", id, STORAGE_API, operation, { properties: { ...properties, [spec.key]: spec.value } })],
        effects: [...(others.length === 0 ? [] : [`The PUT replaces the ${spec.service === "blobServices" ? "blob" : "file"} service properties: the others are written back as read (${others.join(", ")}).`]), ...(spec.effects ?? [])],
        summary,
        undo: { reversible: true, calls: [armCall(ctx, "PUT", id, STORAGE_API, operation, { properties })] },
      }
    },
  }
}

const Tde = Schema.Struct({ properties: Schema.optionalKey(Schema.Struct({ state: Schema.optionalKey(Schema.String) })) })

/** SQL database TDE (`{database}/transparentDataEncryption/current`, a long-running PUT of `properties.state`). */
const sqlTde: AzurePlanFixer = {
  checkIds: ["sql_database_tde_enabled"],
  description: "Turns on Transparent Data Encryption for the database (online; the initial encryption scan runs in the background).",
  read: async (ctx, row) => {
    const id = `${typedId(ctx, row, "Microsoft.Sql/servers/[^/]+/databases", "SQL database")}/transparentDataEncryption/current`
    return { properties: { state: (await armRead(ctx, id, SQL_API, Tde, "Microsoft.Sql/servers/databases/transparentDataEncryption/read")).properties?.state ?? null } }
  },
  plan: (ctx, row, state) => {
    const id = `${typedId(ctx, row, "Microsoft.Sql/servers/[^/]+/databases", "SQL database")}/transparentDataEncryption/current`
    const before = asObject(asObject(state)["properties"])["state"] ?? null
    const summary = `Enabled TDE on database ${nameOf(row)}.`
    if (before === "Enabled") return noop(summary, "TDE is already enabled.")
    const call = (s: Json) => armCall(ctx, "PUT", id, SQL_API, "Microsoft.Sql/servers/databases/transparentDataEncryption/write", { properties: { state: s } })
    return {
      calls: [call("Enabled")],
      effects: ["The database's data files are encrypted by a background scan (online); the database stays available."],
      summary,
      undo:
        before === null
          ? { reversible: false, reason: "Azure did not report the database's TDE state (properties.state), so there is no state to put back." }
          : { reversible: true, calls: [call(before)], note: "Undo sets the state back to Disabled: the data files are decrypted by a background scan." },
    }
  },
}

const Identity = Schema.Struct({
  identity: Schema.optionalKey(Schema.Struct({ type: Schema.optionalKey(Schema.String), principalId: Schema.optionalKey(Schema.String), userAssignedIdentities: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)) })),
})

/**
 * App Service managed identity (the site's `identity`, ManagedServiceIdentity): `read` answers the identity type
 * (absent: "None", as the check reads it), the system identity's principal (`principalId`, read-only, set by Azure
 * when it creates the identity's service principal) and the user-assigned identities (ids). The fix PATCHes the type
 * with SystemAssigned added; the undo PATCHes the type read, which makes Azure delete the service principal it created.
 */
const appManagedIdentity: AzurePlanFixer = {
  checkIds: ["app_managed_identity"],
  description: "Adds a system-assigned managed identity to the app (existing user-assigned identities are kept).",
  read: async (ctx, row) => {
    const identity = (await armRead(ctx, typedId(ctx, row, "Microsoft.Web/sites", "Microsoft.Web/sites resource"), WEB_API, Identity, "Microsoft.Web/sites/read")).identity
    return { identity: { type: identity?.type ?? "None", principalId: identity?.principalId ?? null, userAssignedIdentities: Object.keys(identity?.userAssignedIdentities ?? {}).sort() } }
  },
  plan: (ctx, row, state) => {
    const id = typedId(ctx, row, "Microsoft.Web/sites", "Microsoft.Web/sites resource")
    const identity = asObject(asObject(state)["identity"])
    const type = String(identity["type"] ?? "None")
    const assigned = Array.isArray(identity["userAssignedIdentities"]) ? identity["userAssignedIdentities"].map(String) : []
    const summary = `Assigned a system managed identity to app ${nameOf(row)}.`
    if (/SystemAssigned/i.test(type)) return noop(summary, "The app already has a system-assigned identity.")
    const call = (t: string) =>
      armCall(ctx, "PATCH", id, WEB_API, "Microsoft.Web/sites/write", { identity: { type: t, ...(assigned.length === 0 ? {} : { userAssignedIdentities: Object.fromEntries(assigned.map((u) => [u, {}])) }) } })
    return {
      calls: [call(/UserAssigned/i.test(type) ? "SystemAssigned, UserAssigned" : "SystemAssigned")],
      effects: [
        "Azure creates a service principal for the app in the subscription's Microsoft Entra tenant (the system-assigned identity; its object id is the app's identity.principalId after the fix). It has no role assignments until you grant some.",
        ...(assigned.length === 0 ? [] : [`The user-assigned identities stay assigned: ${assigned.join(", ")}.`]),
      ],
      summary,
      undo: {
        reversible: true,
        calls: [call(type)],
        note: `Undo sets the identity type back to ${type}: Azure deletes the service principal the fix created. Role assignments granted to it meanwhile stop working, and an identity assigned later gets a new object id.`,
      },
    }
  },
}

const Configuration = Schema.Struct({
  // isDynamicConfig: a boolean for PostgreSQL, the string "True" / "False" for MySQL (IsDynamicConfig in the official models).
  properties: Schema.optionalKey(Schema.Struct({ value: Schema.optionalKey(Schema.String), source: Schema.optionalKey(Schema.String), isDynamicConfig: Schema.optionalKey(Schema.Union([Schema.Boolean, Schema.String])) })),
})

/**
 * One server parameter of a flexible server (`{server}/configurations/{name}`, Configuration): `read` answers its
 * `value` and `source` ("system-default" or "user-override"), the fix PUTs the new value as a user override (`value`
 * may derive it from the current one), the undo PUTs the value and source read.
 */
const flexibleParameter = (spec: {
  readonly checkId: string
  readonly engine: "postgresql" | "mysql"
  readonly parameter: string
  readonly value: string | ((current: string) => string)
  readonly description: string
  readonly cutsAccess?: string
}): AzurePlanFixer => {
  const [provider, apiVersion] = spec.engine === "postgresql" ? ["Microsoft.DBforPostgreSQL", POSTGRES_API] : ["Microsoft.DBforMySQL", MYSQL_API]
  const target = (ctx: AzureFixContext, row: DetailRow) => `${typedId(ctx, row, `${provider}/flexibleServers`, `${provider} flexible server`)}/configurations/${spec.parameter}`
  const read = (ctx: AzureFixContext, row: DetailRow) => armRead(ctx, target(ctx, row), apiVersion, Configuration, `${provider}/flexibleServers/configurations/read`)
  return {
    checkIds: [spec.checkId],
    description: spec.description,
    ...(spec.cutsAccess === undefined ? {} : { cutsAccess: spec.cutsAccess }),
    read: async (ctx, row) => {
      const p = (await read(ctx, row)).properties
      return { properties: { value: p?.value ?? null, source: p?.source ?? null } }
    },
    plan: async (ctx, row, state) => {
      const before = asObject(asObject(state)["properties"])
      const value = typeof before["value"] === "string" ? before["value"] : null
      const source = typeof before["source"] === "string" ? before["source"] : null
      const next = typeof spec.value === "string" ? spec.value : spec.value(value ?? "")
      const summary = `Set '${spec.parameter}' to ${next} on ${nameOf(row)}.`
      if (value === next) return noop(summary, `'${spec.parameter}' is already ${next}.`)
      const call = (v: string, s: string) => armCall(ctx, "PUT", target(ctx, row), apiVersion, `${provider}/flexibleServers/configurations/write`, { properties: { value: v, source: s } })
      // Effects only: whether the parameter needs a restart (Configuration.isDynamicConfig, read-only).
      const dynamic = (await read(ctx, row)).properties?.isDynamicConfig
      return {
        calls: [call(next, "user-override")],
        effects: dynamic === false || (typeof dynamic === "string" && dynamic.toLowerCase() === "false") ? [`'${spec.parameter}' is a static parameter: the new value takes effect after the server restarts (the fix does not restart it).`] : [],
        summary,
        undo:
          value === null || source === null
            ? { reversible: false, reason: `Azure did not report the ${value === null ? "value" : "source"} of '${spec.parameter}', so there is nothing to put back.` }
            : { reversible: true, calls: [call(value, source)], ...(source === "system-default" ? { note: `Undo puts back the server's default value ${value} with source system-default.` } : {}) },
      }
    },
  }
}

/** The ARM id a call's URL addresses (without the endpoint and the api-version). */
const armPath = (url: string): string => {
  const path = new URL(url).pathname
  return path.slice(Math.max(0, path.search(/\/subscriptions\//i)))
}

/** A server parameter as the azurerm resource holding it (a value put back as the server default has none). */
for (const [provider, resource] of [["Microsoft.DBforPostgreSQL", "azurerm_postgresql_flexible_server_configuration"], ["Microsoft.DBforMySQL", "azurerm_mysql_flexible_server_configuration"]] as const) {
  registerRestTerraform(`${provider}/flexibleServers/configurations/write`, (call) => {
    const m = /^\/subscriptions\/[^/]+\/resourceGroups\/([^/]+)\/providers\/[^/]+\/flexibleServers\/([^/]+)\/configurations\/([^/]+)$/i.exec(armPath(call.url))
    const [rg, server, name] = [m?.[1] ?? "", m?.[2] ?? "", decodeURIComponent(m?.[3] ?? "")]
    const p = ((call.body ?? {}) as { properties?: { value?: string; source?: string } }).properties ?? {}
    const label = JSON.stringify(tfName(`${server}_${name}`))
    if (p.source === "system-default") return `# ${name} on ${server} goes back to the server default (source system-default): no ${resource} expresses that; drop the resource from your configuration and run the command above.`
    const where: ReadonlyArray<readonly [string, string]> = provider === "Microsoft.DBforPostgreSQL" ? [["server_id", armPath(call.url).replace(/\/configurations\/[^/]+$/, "")]] : [["resource_group_name", rg], ["server_name", server]]
    const attrs: ReadonlyArray<readonly [string, string]> = [["name", name], ...where, ["value", p.value ?? ""]]
    const width = Math.max(...attrs.map(([k]) => k.length))
    return [`resource "${resource}" ${label} {`, ...attrs.map(([k, v]) => `  ${k.padEnd(width)} = ${JSON.stringify(v)}`), "}"].join("\n")
  })
}

registerRestTerraform("Microsoft.Sql/servers/databases/transparentDataEncryption/write", (call) => {
  const db = armPath(call.url).replace(/\/transparentDataEncryption\/current$/i, "")
  const state = ((call.body ?? {}) as { properties?: { state?: string } }).properties?.state
  return [`# In the existing azurerm_mssql_database of ${db}, set:`, `resource "azurerm_mssql_database" ${JSON.stringify(tfName(db.slice(db.lastIndexOf("/") + 1)))} {`, `  transparent_data_encryption_enabled = ${state === "Enabled"}`, "}"].join("\n")
})

/** The decoders of the fixers' own reads, checked against the official models (tests/scanner-azure/official-models.check.ts). */
export const fixerReads = { Tde, Identity, Configuration } as const

const PRIVATE_ONLY = "Clients outside the private endpoints or virtual networks lose access."

const siteConfig = (checkId: string, description: string, properties: Record<string, unknown>, done: string, cutsAccess?: string): AzurePlanFixer =>
  armPatch({
    checkId,
    description,
    ...(cutsAccess === undefined ? {} : { cutsAccess }),
    done,
    apiVersion: WEB_API,
    target: (ctx, row) => `${armIdOf(ctx, row)}/config/web`,
    body: { properties },
    operation: "Microsoft.Web/sites/config/write",
    service: "Microsoft.Web",
    noun: "app",
  })

export const azureFixers: ReadonlyArray<AzurePlanFixer> = [
  accountPatch("storage_secure_transfer_required", "Requires HTTPS for every request to the storage account.", { supportsHttpsTrafficOnly: true }, "Enabled secure transfer", "Clients that use plain HTTP endpoints are refused."),
  accountPatch("storage_minimum_tls_12", "Sets the account's minimum TLS version to 1.2.", { minimumTlsVersion: "TLS1_2" }, "Set minimum TLS 1.2", "Clients limited to TLS 1.0/1.1 can no longer connect."),
  accountPatch("storage_blob_anonymous_access_disabled", "Disallows anonymous (public) blob access on the account.", { allowBlobPublicAccess: false }, "Disabled anonymous blob access", "Containers that were intentionally public stop serving anonymous readers."),
  accountPatch("storage_cross_tenant_replication_disabled", "Disallows object replication to other Entra tenants.", { allowCrossTenantReplication: false }, "Disabled cross-tenant replication"),
  accountPatch("storage_default_to_entra_authorization", "Makes the portal use Microsoft Entra authorization by default for the account.", { defaultToOAuthAuthentication: true }, "Defaulted portal access to Entra authorization"),
  firewallFix({
    checkId: "storage_trusted_azure_services",
    description: "Adds AzureServices to the firewall bypass list (network rules are otherwise kept as they are).",
    change: (acls) => ({ ...acls, bypass: [...new Set([...bypassList(acls), "AzureServices"])].join(", ") }),
    effects: (acls) => [`Trusted Azure services (backup, monitoring, Event Grid, …) reach the account through the firewall; ${rulesKept(acls)} and the default action ${String(acls["defaultAction"])} are kept.`],
    done: "Let trusted Azure services bypass the firewall",
  }),
  firewallFix({
    checkId: "storage_default_network_access_deny",
    description: "Sets the storage firewall's default action to Deny (existing IP and virtual network rules and bypasses are kept).",
    cutsAccess: "Clients not covered by an IP rule, a virtual network rule, a private endpoint or a bypass lose access.",
    change: (acls) => ({ ...acls, defaultAction: "Deny" }),
    effects: (acls) => [`Only the ${rulesKept(acls)}, private endpoints and the bypass (${bypassList(acls).join(", ") || "None"}) still admit clients.`],
    done: "Set the firewall's default action to Deny",
  }),
  servicePut({ checkId: "storage_blob_soft_delete", service: "blobServices", description: "Keeps deleted blobs for 7 days (soft delete; storage of deleted data is billed).", key: "deleteRetentionPolicy", value: { enabled: true, days: 7 }, defaultId: "storage.blob_services properties.deleteRetentionPolicy", done: "Enabled blob soft delete (7 days)" }),
  servicePut({ checkId: "storage_container_soft_delete", service: "blobServices", description: "Keeps deleted containers for 7 days.", key: "containerDeleteRetentionPolicy", value: { enabled: true, days: 7 }, defaultId: "storage.blob_services properties.containerDeleteRetentionPolicy", done: "Enabled container soft delete (7 days)" }),
  servicePut({ checkId: "storage_blob_versioning", service: "blobServices", description: "Turns on blob versioning (previous versions are billed).", key: "isVersioningEnabled", value: true, defaultId: "storage.blob_services properties.isVersioningEnabled", done: "Enabled blob versioning", effects: ["Every overwrite or delete keeps the previous version (billed). Undo turns versioning off; versions created meanwhile are kept until deleted."] }),
  servicePut({ checkId: "storage_file_share_soft_delete", service: "fileServices", description: "Keeps deleted file shares for 7 days.", key: "shareDeleteRetentionPolicy", value: { enabled: true, days: 7 }, defaultId: "storage.file_services properties.shareDeleteRetentionPolicy", done: "Enabled file share soft delete (7 days)" }),
  sqlTde,
  resourcePatch({ checkId: "app_https_only", type: "Microsoft.Web/sites", apiVersion: WEB_API, description: "Turns on HTTPS Only: HTTP requests are redirected to HTTPS.", properties: { httpsOnly: true }, done: "Enabled HTTPS Only", defaults: { "properties.httpsOnly": documented("appservice.sites properties.httpsOnly") } }),
  appManagedIdentity,
  siteConfig("app_ftps_only", "Allows only FTPS for FTP deployments (plain FTP is refused).", { ftpsState: "FtpsOnly" }, "Set FTP state to FTPS only", "Deployment tools using plain FTP stop working."),
  siteConfig("app_min_tls_12", "Sets the app's minimum inbound TLS version to 1.2.", { minTlsVersion: "1.2" }, "Set minimum TLS 1.2", "Clients limited to TLS 1.0/1.1 can no longer connect."),
  siteConfig("app_http2_enabled", "Enables HTTP/2 for the app.", { http20Enabled: true }, "Enabled HTTP/2"),
  siteConfig("app_remote_debugging_off", "Turns remote debugging off.", { remoteDebuggingEnabled: false }, "Turned remote debugging off"),
  siteConfig("app_ftp_deployment_disabled", "Disables FTP and FTPS deployments.", { ftpsState: "Disabled" }, "Disabled FTP deployments", "Deployment tools using FTP or FTPS stop working."),
  siteConfig("app_scm_min_tls_12", "Sets the minimum TLS version of the deployment (SCM) site to 1.2.", { scmMinTlsVersion: "1.2" }, "Set SCM minimum TLS 1.2", "Deployment clients limited to TLS 1.0/1.1 can no longer connect."),
  resourcePatch({ checkId: "app_client_certificates_on", type: "Microsoft.Web/sites", apiVersion: WEB_API, description: "Requires incoming client certificates (mutual TLS).", properties: { clientCertEnabled: true, clientCertMode: "Required" }, done: "Required client certificates", cutsAccess: "Clients without a certificate are refused." }),
  accountPatch("storage_shared_key_access_disabled", "Disallows Shared Key (account key and SAS) authorization: requests must use Entra ID.", { allowSharedKeyAccess: false }, "Disabled Shared Key authorization", "Applications and SAS tokens that use the account keys stop working.", { "properties.allowSharedKeyAccess": true }),
  accountPatch("storage_public_network_access_disabled", "Disables public network access to the storage account.", { publicNetworkAccess: "Disabled" }, "Disabled public network access", PRIVATE_ONLY),
  resourcePatch({ checkId: "sql_minimal_tls_12", type: "Microsoft.Sql/servers", apiVersion: SQL_API, description: "Sets the server's minimal TLS version to 1.2.", properties: { minimalTlsVersion: "1.2" }, done: "Set minimal TLS 1.2", cutsAccess: "Clients limited to TLS 1.0/1.1 can no longer connect." }),
  resourcePatch({ checkId: "sql_public_network_access_disabled", type: "Microsoft.Sql/servers", apiVersion: SQL_API, description: "Disables public network access to the SQL server.", properties: { publicNetworkAccess: "Disabled" }, done: "Disabled public network access", cutsAccess: PRIVATE_ONLY }),
  resourcePatch({ checkId: "cosmosdb_account_minimum_tls_version", type: "Microsoft.DocumentDB/databaseAccounts", apiVersion: COSMOS_API, description: "Sets the account's minimal TLS version to 1.2.", properties: { minimalTlsVersion: "Tls12" }, done: "Set minimal TLS 1.2", cutsAccess: "Clients limited to TLS 1.0/1.1 can no longer connect." }),
  resourcePatch({ checkId: "cosmosdb_account_public_network_access_disabled", type: "Microsoft.DocumentDB/databaseAccounts", apiVersion: COSMOS_API, description: "Disables public network access to the Cosmos DB account.", properties: { publicNetworkAccess: "Disabled" }, done: "Disabled public network access", cutsAccess: PRIVATE_ONLY }),
  resourcePatch({ checkId: "cosmosdb_account_use_aad_and_rbac", type: "Microsoft.DocumentDB/databaseAccounts", apiVersion: COSMOS_API, description: "Disables key-based (local) authentication: data access must use Entra ID and RBAC.", properties: { disableLocalAuth: true }, done: "Disabled local authentication", cutsAccess: "Applications using the account keys stop working.", defaults: { "properties.disableLocalAuth": false } }),
  resourcePatch({ checkId: "cosmosdb_account_automatic_failover_enabled", type: "Microsoft.DocumentDB/databaseAccounts", apiVersion: COSMOS_API, description: "Turns on service-managed failover to another region.", properties: { enableAutomaticFailover: true }, done: "Enabled automatic failover", defaults: { "properties.enableAutomaticFailover": false } }),
  resourcePatch({ checkId: "postgresql_flexible_server_public_network_access_disabled", type: "Microsoft.DBforPostgreSQL/flexibleServers", apiVersion: POSTGRES_API, description: "Disables public network access to the PostgreSQL flexible server.", properties: { network: { publicNetworkAccess: "Disabled" } }, done: "Disabled public network access", cutsAccess: PRIVATE_ONLY }),
  resourcePatch({ checkId: "mysql_flexible_server_public_network_access_disabled", type: "Microsoft.DBforMySQL/flexibleServers", apiVersion: MYSQL_API, description: "Disables public network access to the MySQL flexible server.", properties: { network: { publicNetworkAccess: "Disabled" } }, done: "Disabled public network access", cutsAccess: PRIVATE_ONLY }),
  resourcePatch({ checkId: "keyvault_rbac_enabled", type: "Microsoft.KeyVault/vaults", apiVersion: KEYVAULT_API, description: "Switches the vault's data-plane permissions from access policies to Azure RBAC.", properties: { enableRbacAuthorization: true }, done: "Enabled RBAC authorization", cutsAccess: "Access policies stop applying: principals need a Key Vault RBAC role assignment first." }),
  flexibleParameter({ checkId: "postgresql_require_secure_transport", engine: "postgresql", parameter: "require_secure_transport", value: "ON", description: "Requires TLS for every connection to the PostgreSQL server.", cutsAccess: "Clients connecting without TLS are refused." }),
  flexibleParameter({ checkId: "postgresql_log_checkpoints", engine: "postgresql", parameter: "log_checkpoints", value: "ON", description: "Logs every checkpoint." }),
  flexibleParameter({ checkId: "postgresql_connection_throttling", engine: "postgresql", parameter: "connection_throttle.enable", value: "ON", description: "Throttles repeated failed logins from one address." }),
  flexibleParameter({ checkId: "postgresql_log_retention_days", engine: "postgresql", parameter: "logfiles.retention_days", value: "7", description: "Keeps server log files 7 days." }),
  flexibleParameter({ checkId: "postgresql_log_connections", engine: "postgresql", parameter: "log_connections", value: "ON", description: "Logs every connection attempt." }),
  flexibleParameter({ checkId: "postgresql_log_disconnections", engine: "postgresql", parameter: "log_disconnections", value: "ON", description: "Logs the end of every session." }),
  flexibleParameter({ checkId: "mysql_require_secure_transport", engine: "mysql", parameter: "require_secure_transport", value: "ON", description: "Requires TLS for every connection to the MySQL server.", cutsAccess: "Clients connecting without TLS are refused." }),
  flexibleParameter({ checkId: "mysql_tls_version_12", engine: "mysql", parameter: "tls_version", value: "TLSv1.2,TLSv1.3", description: "Accepts TLS 1.2 and 1.3 only.", cutsAccess: "Clients limited to TLS 1.0/1.1 can no longer connect." }),
  flexibleParameter({ checkId: "mysql_audit_log_enabled", engine: "mysql", parameter: "audit_log_enabled", value: "ON", description: "Turns the MySQL audit log on (log storage is billed)." }),
  flexibleParameter({
    checkId: "mysql_audit_log_connection_events",
    engine: "mysql",
    parameter: "audit_log_events",
    value: (current) => [...new Set([...current.split(",").map((e) => e.trim().toUpperCase()).filter((e) => e !== ""), "CONNECTION"])].join(","),
    description: "Adds CONNECTION to the audited event classes (the classes already audited are kept).",
  }),
  resourcePatch({ checkId: "keyvault_public_network_access_disabled", type: "Microsoft.KeyVault/vaults", apiVersion: KEYVAULT_API, description: "Disables public network access to the key vault.", properties: { publicNetworkAccess: "Disabled" }, done: "Disabled public network access", cutsAccess: PRIVATE_ONLY }),
  // Container registries and Recovery Services vaults (the peers have no fixer for these).
  resourcePatch({ checkId: "acr_admin_user_disabled", type: "Microsoft.ContainerRegistry/registries", apiVersion: ACR_API, description: "Disables the registry's admin user (shared push/pull credentials).", properties: { adminUserEnabled: false }, done: "Disabled the admin user", cutsAccess: "Clients signing in with the admin user's credentials are refused: give them Entra identities with AcrPull/AcrPush first." }),
  resourcePatch({ checkId: "acr_anonymous_pull_disabled", type: "Microsoft.ContainerRegistry/registries", apiVersion: ACR_API, description: "Disables anonymous pull.", properties: { anonymousPullEnabled: false }, done: "Disabled anonymous pull", cutsAccess: "Unauthenticated pulls are refused." }),
  resourcePatch({ checkId: "recovery_vault_soft_delete_enabled", type: "Microsoft.RecoveryServices/vaults", apiVersion: RECOVERY_API, description: "Turns soft delete on (deleted backup data is kept 14 days or more; not always-on, which cannot be undone).", properties: { securitySettings: { softDeleteSettings: { softDeleteState: "Enabled" } } }, done: "Enabled soft delete" }),
  resourcePatch({ checkId: "recovery_vault_immutability_enabled", type: "Microsoft.RecoveryServices/vaults", apiVersion: RECOVERY_API, description: "Makes the vault immutable in the Unlocked state (recovery points cannot be deleted early; locking it is left to you, as it is irreversible).", properties: { securitySettings: { immutabilitySettings: { state: "Unlocked" } } }, done: "Enabled immutability (unlocked)" }),
]


/** Waits for the long-running operation an ARM write started (202/201 + Azure-AsyncOperation or Location). */
export const azureSettle = (ctx: AzureFixContext): Settle => async (call, res) => {
  if (res.status !== 202 && res.status !== 201) return res.body
  const asyncUrl = res.headers.get("azure-asyncoperation")
  const location = res.headers.get("location")
  const signal = ctx.signal === undefined ? {} : { signal: ctx.signal }
  if (asyncUrl !== null) {
    const final = await waitUntil(() => ctx.client.json({ url: asyncUrl, audience: ctx.endpoints.armAudience, op: `${call.operation}/operation` }, AsyncStatus), (s) => ["Succeeded", "Failed", "Canceled"].includes(s.status), { what: call.operation, ...signal })
    if (final.status !== "Succeeded") throw new FixError(`${call.operation} ${final.status.toLowerCase()}: ${final.error?.message ?? final.error?.code ?? "no details"}`)
  } else if (location !== null) {
    await waitUntil(() => ctx.client.send({ url: location, audience: ctx.endpoints.armAudience, op: `${call.operation}/operation` }), (r) => r.status !== 202, { what: call.operation, ...signal })
  }
  return res.body ?? null
}
