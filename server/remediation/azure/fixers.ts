/**
 * Azure fixers for the safe, reversible recommendations: storage account settings (secure transfer, TLS 1.2, blob
 * anonymous access, cross-tenant replication, trusted services bypass, Entra authorization default), blob and file
 * service soft delete and versioning, SQL database TDE, App Service settings (HTTPS only, FTPS, TLS 1.2, HTTP/2,
 * remote debugging, managed identity, FTP off, SCM TLS 1.2, client certificates), and the exposure and TLS settings of
 * SQL servers, flexible servers, Cosmos DB accounts and key vaults. Writes read the current object first where the API replaces nested objects,
 * and wait for long-running operations (202 + Azure-AsyncOperation / Location).
 */
import { Schema } from "effect"
import type { DetailRow } from "../../scanner/check.ts"
import type { RestClient } from "../../scanner/rest/http.ts"
import { FixError, waitUntil, type RestFixer } from "../../scanner/rest/remediation.ts"
import type { AzureEndpoints } from "../../scanner/azure/endpoints.ts"
import { STORAGE_API } from "../../scanner/azure/collectors/storage.ts"
import { COSMOS_API, MYSQL_API, POSTGRES_API, SQL_API } from "../../scanner/azure/collectors/databases.ts"
import { KEYVAULT_API } from "../../scanner/azure/collectors/keyvault.ts"
import { WEB_API } from "../../scanner/azure/collectors/appservice.ts"
import { ACR_API } from "../../scanner/azure/collectors/acr.ts"
import { RECOVERY_API } from "../../scanner/azure/collectors/recovery.ts"
import type { Json, PlanFixer, RestCall } from "../plan.ts"
import { diffStates } from "../plan.ts"
import type { Settle } from "../rest.ts"

export interface AzureFixContext {
  readonly client: RestClient
  readonly subscriptionId: string
  readonly endpoints: AzureEndpoints
  readonly signal?: AbortSignal
}

export type AzureFixer = RestFixer<AzureFixContext>

const AsyncStatus = Schema.Struct({ status: Schema.String, error: Schema.optionalKey(Schema.Struct({ code: Schema.optionalKey(Schema.String), message: Schema.optionalKey(Schema.String) })) })

/** The row's ARM id, checked to belong to the scanned subscription (a row must not steer writes elsewhere). */
const armIdOf = (ctx: AzureFixContext, row: DetailRow): string => {
  const id = row.resource_id
  if (!new RegExp(`^/subscriptions/${ctx.subscriptionId}/resourceGroups/[^/]+/providers/`, "i").test(id)) throw new FixError(`"${id}" is not a resource of subscription ${ctx.subscriptionId}`)
  if (id.includes("..") || id.includes("?") || id.includes("#")) throw new FixError(`"${id}" is not a valid resource id`)
  return id
}

/** PUT/PATCH an ARM resource and wait for a long-running operation to finish. */
async function armWrite(ctx: AzureFixContext, method: "PUT" | "PATCH", id: string, apiVersion: string, body: unknown, op: string): Promise<void> {
  const url = `${ctx.endpoints.arm}${id}?api-version=${apiVersion}`
  const res = await ctx.client.send({ method, url, audience: ctx.endpoints.armAudience, op, body })
  if (res.status !== 202 && res.status !== 201) return
  const asyncUrl = res.headers.get("azure-asyncoperation")
  const location = res.headers.get("location")
  const signal = ctx.signal === undefined ? {} : { signal: ctx.signal }
  if (asyncUrl !== null) {
    const final = await waitUntil(() => ctx.client.json({ url: asyncUrl, audience: ctx.endpoints.armAudience, op: `${op}/operation` }, AsyncStatus), (s) => ["Succeeded", "Failed", "Canceled"].includes(s.status), { what: op, ...signal })
    if (final.status !== "Succeeded") throw new FixError(`${op} ${final.status.toLowerCase()}: ${final.error?.message ?? final.error?.code ?? "no details"}`)
  } else if (location !== null) {
    await waitUntil(() => ctx.client.send({ url: location, audience: ctx.endpoints.armAudience, op: `${op}/operation` }), (r) => r.status !== 202, { what: op, ...signal })
  }
}

async function armRead<S extends Schema.ConstraintDecoder<unknown>>(ctx: AzureFixContext, id: string, apiVersion: string, schema: S, op: string): Promise<S["Type"]> {
  return ctx.client.json({ url: `${ctx.endpoints.arm}${id}?api-version=${apiVersion}`, audience: ctx.endpoints.armAudience, op }, schema)
}

/** An Azure fixer of the plan vocabulary (read + plan), executed by `executeRestCalls` with `azureSettle`. */
export type AzurePlanFixer = PlanFixer<AzureFixContext, DetailRow>

export type AnyAzureFixer = AzureFixer | AzurePlanFixer

export const isAzurePlanFixer = (f: AnyAzureFixer): f is AzurePlanFixer => "plan" in f

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

/** Reads the account's firewall rules, changes them, and PATCHes the whole object back (PATCH replaces networkAcls). */
async function patchNetworkAcls(ctx: AzureFixContext, row: DetailRow, change: (acls: Record<string, unknown>) => Record<string, unknown>): Promise<void> {
  const id = armIdOf(ctx, row)
  const current = await armRead(ctx, id, STORAGE_API, NetworkAcls, "Microsoft.Storage/storageAccounts/read")
  await armWrite(ctx, "PATCH", id, STORAGE_API, { properties: { networkAcls: change(current.properties?.networkAcls ?? { defaultAction: "Allow" }) } }, "Microsoft.Storage/storageAccounts/write")
}

const Configuration = Schema.Struct({ properties: Schema.optionalKey(Schema.Struct({ value: Schema.optionalKey(Schema.String) })) })

/** Sets one server parameter of a flexible server (`value` may derive the new value from the current one). */
const flexibleParameter = (spec: {
  readonly checkId: string
  readonly engine: "postgresql" | "mysql"
  readonly parameter: string
  readonly value: string | ((current: string) => string)
  readonly description: string
  readonly cutsAccess?: string
}): AzureFixer => {
  const [provider, apiVersion] = spec.engine === "postgresql" ? ["Microsoft.DBforPostgreSQL", POSTGRES_API] : ["Microsoft.DBforMySQL", MYSQL_API]
  return {
    checkIds: [spec.checkId],
    description: spec.description,
    ...(spec.cutsAccess === undefined ? {} : { cutsAccess: spec.cutsAccess }),
    apply: async (ctx, row) => {
      const server = armIdOf(ctx, row)
      if (!new RegExp(`/providers/${provider}/flexibleServers/[^/]+$`, "i").test(server)) throw new FixError(`"${server}" is not a ${provider} flexible server`)
      const id = `${server}/configurations/${spec.parameter}`
      const next = typeof spec.value === "string" ? spec.value : spec.value((await armRead(ctx, id, apiVersion, Configuration, `${provider}/flexibleServers/configurations/read`)).properties?.value ?? "")
      await armWrite(ctx, "PUT", id, apiVersion, { properties: { value: next, source: "user-override" } }, `${provider}/flexibleServers/configurations/write`)
      return `Set '${spec.parameter}' to ${next} on ${String(row["name"] ?? server)}.`
    },
  }
}

const PRIVATE_ONLY = "Clients outside the private endpoints or virtual networks lose access."

const Properties = Schema.Struct({ properties: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)) })

/** Blob/file service settings: read the current properties, merge, PUT them back whole. */
const servicePut = (checkId: string, service: "blobServices" | "fileServices", description: string, patch: Record<string, unknown>, done: string): AzureFixer => ({
  checkIds: [checkId],
  description,
  apply: async (ctx, row) => {
    const id = `${armIdOf(ctx, row)}/${service}/default`
    const current = await armRead(ctx, id, STORAGE_API, Properties, `Microsoft.Storage/storageAccounts/${service}/read`)
    await armWrite(ctx, "PUT", id, STORAGE_API, { properties: { ...(current.properties ?? {}), ...patch } }, `Microsoft.Storage/storageAccounts/${service}/write`)
    return `${done} on storage account ${String(row["name"] ?? row.resource_id)}.`
  },
})

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

const NetworkAcls = Schema.Struct({ properties: Schema.optionalKey(Schema.Struct({ networkAcls: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)) })) })
const Identity = Schema.Struct({ identity: Schema.optionalKey(Schema.Struct({ type: Schema.optionalKey(Schema.String), userAssignedIdentities: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)) })) })

export const azureFixers: ReadonlyArray<AnyAzureFixer> = [
  accountPatch("storage_secure_transfer_required", "Requires HTTPS for every request to the storage account.", { supportsHttpsTrafficOnly: true }, "Enabled secure transfer", "Clients that use plain HTTP endpoints are refused."),
  accountPatch("storage_minimum_tls_12", "Sets the account's minimum TLS version to 1.2.", { minimumTlsVersion: "TLS1_2" }, "Set minimum TLS 1.2", "Clients limited to TLS 1.0/1.1 can no longer connect."),
  accountPatch("storage_blob_anonymous_access_disabled", "Disallows anonymous (public) blob access on the account.", { allowBlobPublicAccess: false }, "Disabled anonymous blob access", "Containers that were intentionally public stop serving anonymous readers."),
  accountPatch("storage_cross_tenant_replication_disabled", "Disallows object replication to other Entra tenants.", { allowCrossTenantReplication: false }, "Disabled cross-tenant replication"),
  accountPatch("storage_default_to_entra_authorization", "Makes the portal use Microsoft Entra authorization by default for the account.", { defaultToOAuthAuthentication: true }, "Defaulted portal access to Entra authorization"),
  {
    checkIds: ["storage_trusted_azure_services"],
    description: "Adds AzureServices to the firewall bypass list (network rules are otherwise kept as they are).",
    apply: async (ctx, row) => {
      await patchNetworkAcls(ctx, row, (acls) => {
        const bypass = String(acls["bypass"] ?? "None").split(",").map((s) => s.trim()).filter((s) => s !== "" && s !== "None")
        return { ...acls, bypass: [...new Set([...bypass, "AzureServices"])].join(", ") }
      })
      return `Trusted Azure services may now bypass the firewall of ${String(row["name"] ?? row.resource_id)}.`
    },
  },
  {
    checkIds: ["storage_default_network_access_deny"],
    description: "Sets the storage firewall's default action to Deny (existing IP and virtual network rules and bypasses are kept).",
    cutsAccess: "Clients not covered by an IP rule, a virtual network rule, a private endpoint or a bypass lose access.",
    apply: async (ctx, row) => {
      await patchNetworkAcls(ctx, row, (acls) => ({ ...acls, defaultAction: "Deny" }))
      return `The firewall of ${String(row["name"] ?? row.resource_id)} now denies by default.`
    },
  },
  servicePut("storage_blob_soft_delete", "blobServices", "Keeps deleted blobs for 7 days (soft delete; storage of deleted data is billed).", { deleteRetentionPolicy: { enabled: true, days: 7 } }, "Enabled blob soft delete (7 days)"),
  servicePut("storage_container_soft_delete", "blobServices", "Keeps deleted containers for 7 days.", { containerDeleteRetentionPolicy: { enabled: true, days: 7 } }, "Enabled container soft delete (7 days)"),
  servicePut("storage_blob_versioning", "blobServices", "Turns on blob versioning (previous versions are billed).", { isVersioningEnabled: true }, "Enabled blob versioning"),
  servicePut("storage_file_share_soft_delete", "fileServices", "Keeps deleted file shares for 7 days.", { shareDeleteRetentionPolicy: { enabled: true, days: 7 } }, "Enabled file share soft delete (7 days)"),
  {
    checkIds: ["sql_database_tde_enabled"],
    description: "Turns on Transparent Data Encryption for the database (online; the initial encryption scan runs in the background).",
    apply: async (ctx, row) => {
      const id = armIdOf(ctx, row)
      if (!/\/providers\/Microsoft\.Sql\/servers\/[^/]+\/databases\/[^/]+$/i.test(id)) throw new FixError(`"${id}" is not a SQL database`)
      await armWrite(ctx, "PUT", `${id}/transparentDataEncryption/current`, SQL_API, { properties: { state: "Enabled" } }, "Microsoft.Sql/servers/databases/transparentDataEncryption/write")
      return `Enabled TDE on database ${String(row["name"] ?? id)}.`
    },
  },
  {
    checkIds: ["app_https_only"],
    description: "Turns on HTTPS Only: HTTP requests are redirected to HTTPS.",
    apply: async (ctx, row) => {
      await armWrite(ctx, "PATCH", armIdOf(ctx, row), WEB_API, { properties: { httpsOnly: true } }, "Microsoft.Web/sites/write")
      return `Enabled HTTPS Only on app ${String(row["name"] ?? row.resource_id)}.`
    },
  },
  {
    checkIds: ["app_managed_identity"],
    description: "Adds a system-assigned managed identity to the app (existing user-assigned identities are kept).",
    apply: async (ctx, row) => {
      const id = armIdOf(ctx, row)
      const current = await armRead(ctx, id, WEB_API, Identity, "Microsoft.Web/sites/read")
      const type = current.identity?.type ?? "None"
      const next = /UserAssigned/i.test(type) ? "SystemAssigned, UserAssigned" : "SystemAssigned"
      await armWrite(ctx, "PATCH", id, WEB_API, { identity: { type: next, ...(current.identity?.userAssignedIdentities === undefined ? {} : { userAssignedIdentities: current.identity.userAssignedIdentities }) } }, "Microsoft.Web/sites/write")
      return `Assigned a system managed identity to app ${String(row["name"] ?? id)}.`
    },
  },
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
