/**
 * GCP fixers, all of the plan vocabulary (server/remediation/plan.ts: read the state, plan the calls and their undo):
 * bucket uniform access and public access prevention, versioning and soft delete, KMS rotation schedule, Cloud Asset
 * API, load balancer logging, subnet flow logs, serial port off, Cloud SQL backups, deletion protection, encrypted
 * connections and the CIS database flags; and the removal of allUsers/allAuthenticatedUsers from the IAM policy of a
 * secret, a function (and, 2nd gen, its Cloud Run service) or an Artifact Registry repository. `gcpSettle` waits for
 * the long-running operation a call starts; `remediateGcpFinding` then re-reads the resource to verify.
 */
import { Schema } from "effect"
import type { RestClient } from "../../scanner/rest/http.ts"
import { FixError, waitUntil } from "../../scanner/rest/remediation.ts"
import { GCP_SCOPE, type GcpEndpoints } from "../../scanner/gcp/endpoints.ts"
import { durationSeconds } from "../../scanner/rest/engine.ts"
import { sqlFlagFixes } from "../../scanner/gcp/checks/sql.ts"
import { PUBLIC_MEMBERS, publicGrants } from "../../scanner/gcp/context.ts"
import type { DetailRow } from "../../scanner/check.ts"
import { diffStates, ref, shellQuote, toJson, type Json, type PlanFixer, type RestCall } from "../plan.ts"
import { registerRestCli, registerRestTerraform, type Settle } from "../rest.ts"
import { tfName } from "../aws/fixer.ts"

export interface GcpFixContext {
  readonly client: RestClient
  readonly projectId: string
  readonly endpoints: GcpEndpoints
  readonly now: Date
  readonly signal?: AbortSignal
}

const ComputeOperation = Schema.Struct({
  name: Schema.String,
  status: Schema.optionalKey(Schema.String),
  zone: Schema.optionalKey(Schema.String),
  region: Schema.optionalKey(Schema.String),
  error: Schema.optionalKey(Schema.Struct({ errors: Schema.optionalKey(Schema.Array(Schema.Struct({ code: Schema.optionalKey(Schema.String), message: Schema.optionalKey(Schema.String) }))) })),
})
type ComputeOperation = typeof ComputeOperation.Type

const SqlOperation = Schema.Struct({
  name: Schema.String,
  status: Schema.optionalKey(Schema.String),
  error: Schema.optionalKey(Schema.Struct({ errors: Schema.optionalKey(Schema.Array(Schema.Struct({ code: Schema.optionalKey(Schema.String), message: Schema.optionalKey(Schema.String) }))) })),
})

const LongRunning = Schema.Struct({
  name: Schema.String,
  done: Schema.optionalKey(Schema.Boolean),
  error: Schema.optionalKey(Schema.Struct({ code: Schema.optionalKey(Schema.Number), message: Schema.optionalKey(Schema.String) })),
})

const Metadata = Schema.Struct({
  fingerprint: Schema.optionalKey(Schema.String),
  items: Schema.optionalKey(Schema.Array(Schema.Struct({ key: Schema.String, value: Schema.optionalKey(Schema.String) }))),
})
const InstanceMetadata = Schema.Struct({ name: Schema.String, metadata: Schema.optionalKey(Metadata) })

const KmsKey = Schema.Struct({ name: Schema.String, rotationPeriod: Schema.optionalKey(Schema.String), nextRotationTime: Schema.optionalKey(Schema.String) })

/**
 * The policy as written back by setIamPolicy: unlike the scanner's IamPolicy (which it reads, not writes), every field
 * of a binding's condition (Expr) is kept, so a conditional binding survives the rewrite unchanged.
 */
const Policy = Schema.Struct({
  version: Schema.optionalKey(Schema.Number),
  etag: Schema.optionalKey(Schema.String),
  bindings: Schema.optionalKey(
    Schema.Array(
      Schema.Struct({
        role: Schema.String,
        members: Schema.optionalKey(Schema.Array(Schema.String)),
        condition: Schema.optionalKey(Schema.Struct({ expression: Schema.optionalKey(Schema.String), title: Schema.optionalKey(Schema.String), description: Schema.optionalKey(Schema.String), location: Schema.optionalKey(Schema.String) })),
      }),
    ),
  ),
})

const CloudFunctionService = Schema.Struct({ name: Schema.String, serviceConfig: Schema.optionalKey(Schema.Struct({ service: Schema.optionalKey(Schema.String) })) })

const tail = (url: string | undefined) => (url === undefined ? undefined : url.slice(url.lastIndexOf("/") + 1))

const opError = (errors: ReadonlyArray<{ readonly message?: string; readonly code?: string }> | undefined) =>
  errors === undefined || errors.length === 0 ? undefined : errors.map((e) => e.message ?? e.code ?? "error").join("; ")

/** Waits for a Compute Engine operation (zonal, regional or global), built from its name and scope. */
async function waitCompute(ctx: GcpFixContext, op: ComputeOperation): Promise<void> {
  const scope = op.zone !== undefined ? `zones/${tail(op.zone)}` : op.region !== undefined ? `regions/${tail(op.region)}` : "global"
  const url = `${ctx.endpoints.compute}/compute/v1/projects/${ctx.projectId}/${scope}/operations/${op.name}`
  const final = op.status === "DONE" ? op : await waitUntil(() => ctx.client.json({ url, audience: GCP_SCOPE, op: "compute.operations.get" }, ComputeOperation), (o) => o.status === "DONE", { what: `Operation ${op.name}`, ...(ctx.signal === undefined ? {} : { signal: ctx.signal }) })
  const failed = opError(final.error?.errors)
  if (failed !== undefined) throw new FixError(`Operation ${op.name} failed: ${failed}`)
}

interface PatchSpec {
  readonly checkId: string
  readonly description: string
  readonly cutsAccess?: string
  readonly done: string
}

/** A GCP fixer of the plan vocabulary (read + plan); its calls are sent by the shared REST executor. */
export type GcpPlanFixer = PlanFixer<GcpFixContext, DetailRow>

const gcpCall = (service: string, operation: string, method: RestCall["method"], url: string, body: unknown, action: string): RestCall => ({
  provider: "gcp",
  service,
  operation,
  method,
  url,
  ...(body === undefined ? {} : { body }),
  audience: GCP_SCOPE,
  action,
})

const Bucket = Schema.Struct({
  name: Schema.String,
  iamConfiguration: Schema.optionalKey(Schema.Struct({
    uniformBucketLevelAccess: Schema.optionalKey(Schema.NullOr(Schema.Struct({ enabled: Schema.optionalKey(Schema.NullOr(Schema.Boolean)) }))),
    publicAccessPrevention: Schema.optionalKey(Schema.NullOr(Schema.String)),
  })),
  versioning: Schema.optionalKey(Schema.NullOr(Schema.Struct({ enabled: Schema.optionalKey(Schema.NullOr(Schema.Boolean)) }))),
  softDeletePolicy: Schema.optionalKey(Schema.NullOr(Schema.Struct({ retentionDurationSeconds: Schema.optionalKey(Schema.NullOr(Schema.String)) }))),
})
type Bucket = typeof Bucket.Type

const bucketUrl = (ctx: GcpFixContext, bucket: string) => `${ctx.endpoints.storage}/storage/v1/b/${encodeURIComponent(bucket)}`

/**
 * One PATCH of the bucket named by the row (merge semantics: only the fields sent change). `read` answers the one
 * setting it changes, as the API means it when absent; the undo PATCHes the previous value back.
 */
const bucketPatch = <S extends Json>(spec: PatchSpec & {
  readonly read: (b: Bucket) => S
  readonly fixed: S
  readonly body: (state: S) => Record<string, unknown>
  readonly undoNote?: string
}): GcpPlanFixer => ({
  checkIds: [spec.checkId],
  description: spec.description,
  ...(spec.cutsAccess === undefined ? {} : { cutsAccess: spec.cutsAccess }),
  read: async (ctx, row) => spec.read(await ctx.client.json({ url: bucketUrl(ctx, row.resource_id), audience: GCP_SCOPE, op: "storage.buckets.get" }, Bucket)),
  plan: (ctx, row, state) => {
    const url = bucketUrl(ctx, row.resource_id)
    const patch = (s: S) => gcpCall("storage", "storage.buckets.patch", "PATCH", url, spec.body(s), "storage.buckets.update")
    const summary = `${spec.done} on bucket ${row.resource_id}.`
    if (diffStates(spec.fixed, state).length === 0) return { calls: [], effects: [], summary, undo: { reversible: true, calls: [] }, noop: "The bucket already has this setting." }
    return { calls: [patch(spec.fixed)], effects: [], summary, undo: { reversible: true, calls: [patch(state as S)], ...(spec.undoNote === undefined ? {} : { note: spec.undoNote }) } }
  },
})

const SqlInstance = Schema.Struct({
  name: Schema.String,
  settings: Schema.optionalKey(Schema.Struct({
    backupConfiguration: Schema.optionalKey(Schema.NullOr(Schema.Struct({ enabled: Schema.optionalKey(Schema.NullOr(Schema.Boolean)) }))),
    deletionProtectionEnabled: Schema.optionalKey(Schema.NullOr(Schema.Boolean)),
    ipConfiguration: Schema.optionalKey(Schema.NullOr(Schema.Struct({ sslMode: Schema.optionalKey(Schema.NullOr(Schema.String)), requireSsl: Schema.optionalKey(Schema.NullOr(Schema.Boolean)) }))),
    databaseFlags: Schema.optionalKey(Schema.NullOr(Schema.Array(Schema.Struct({ name: Schema.String, value: Schema.optionalKey(Schema.String) })))),
  })),
})
type SqlInstance = typeof SqlInstance.Type

const sqlInstanceUrl = (ctx: GcpFixContext, instance: string) => `${ctx.endpoints.sqladmin}/v1/projects/${ctx.projectId}/instances/${encodeURIComponent(instance)}`

/** One PATCH of the Cloud SQL instance's settings computed from the state `read` answered; the undo PATCHes it back. */
const sqlPatch = <S extends Json>(spec: PatchSpec & {
  readonly read: (i: SqlInstance) => S
  readonly fixed: (state: S) => S
  readonly settings: (state: S) => Record<string, unknown>
  readonly effects?: ReadonlyArray<string>
}): GcpPlanFixer => ({
  checkIds: [spec.checkId],
  description: spec.description,
  ...(spec.cutsAccess === undefined ? {} : { cutsAccess: spec.cutsAccess }),
  read: async (ctx, row) => spec.read(await ctx.client.json({ url: sqlInstanceUrl(ctx, row.resource_id), audience: GCP_SCOPE, op: "sqladmin.instances.get" }, SqlInstance)),
  plan: (ctx, row, state) => {
    const url = sqlInstanceUrl(ctx, row.resource_id)
    const patch = (s: S) => gcpCall("sqladmin", "sqladmin.instances.patch", "PATCH", url, { settings: spec.settings(s) }, "cloudsql.instances.update")
    const summary = `${spec.done} on Cloud SQL instance ${row.resource_id}.`
    const fixed = spec.fixed(state as S)
    if (diffStates(fixed, state).length === 0) return { calls: [], effects: [], summary, undo: { reversible: true, calls: [] }, noop: "The instance already has this setting." }
    return { calls: [patch(fixed)], effects: spec.effects ?? [], summary, undo: { reversible: true, calls: [patch(state as S)] } }
  },
})

interface FlagState { readonly databaseFlags: ReadonlyArray<{ readonly name: string; readonly value: string | null }>; readonly [k: string]: Json }

/**
 * A database flag set to the CIS value (or removed). The API replaces the whole flag list, so the instance's other
 * flags are read first and sent back unchanged; the undo sends the previous list. Some flags restart the instance.
 */
const sqlFlag = (fix: { readonly checkId: string; readonly flag: string; readonly value: string | null }): GcpPlanFixer =>
  sqlPatch<FlagState>({
    checkId: fix.checkId,
    description: `${fix.value === null ? `Removes the '${fix.flag}' database flag` : `Sets the '${fix.flag}' database flag to ${fix.value}`}, keeping the other flags (some flags restart the instance).`,
    done: fix.value === null ? `Removed '${fix.flag}'` : `Set '${fix.flag}' to ${fix.value}`,
    read: (i) => ({ databaseFlags: (i.settings?.databaseFlags ?? []).map((f) => ({ name: f.name, value: f.value ?? null })) }),
    fixed: (s) => {
      const current = s.databaseFlags.find((f) => f.name === fix.flag)
      if (fix.value === null ? current === undefined : current?.value === fix.value) return s
      const others = s.databaseFlags.filter((f) => f.name !== fix.flag)
      return { databaseFlags: fix.value === null ? others : [...others, { name: fix.flag, value: fix.value }] }
    },
    settings: (s) => ({ databaseFlags: s.databaseFlags.map((f) => (f.value === null ? { name: f.name } : f)) }),
    effects: ["Changing some database flags restarts the instance: connections are dropped for the restart."],
  })

const KmsState = (k: typeof KmsKey.Type) => ({ rotationPeriod: k.rotationPeriod ?? null, nextRotationTime: k.nextRotationTime ?? null })

// ---------------------------------------------------------------------------------------------------
// gcloud commands and Terraform, generated from the calls.

const gsFlag = (on: boolean | null | undefined, flag: string) => (on === true ? `--${flag}` : `--no-${flag}`)

registerRestCli("storage.buckets.patch", (call) => {
  const bucket = decodeURIComponent(call.url.slice(call.url.lastIndexOf("/") + 1))
  const b = (call.body ?? {}) as Bucket
  const opts: string[] = []
  const ubla = b.iamConfiguration?.uniformBucketLevelAccess
  if (ubla !== undefined) opts.push(gsFlag(ubla?.enabled, "uniform-bucket-level-access"))
  const pap = b.iamConfiguration?.publicAccessPrevention
  if (pap !== undefined) opts.push(pap === "enforced" ? "--public-access-prevention" : "--no-public-access-prevention")
  if (b.versioning !== undefined) opts.push(gsFlag(b.versioning?.enabled, "versioning"))
  const sd = b.softDeletePolicy?.retentionDurationSeconds
  if (b.softDeletePolicy !== undefined) opts.push(sd === undefined || sd === null || sd === "0" ? "--clear-soft-delete" : `--soft-delete-duration=${sd}s`)
  return ["gcloud storage buckets update", shellQuote(`gs://${bucket}`), ...opts].join(" ")
})

registerRestTerraform("storage.buckets.patch", (call) => {
  const bucket = decodeURIComponent(call.url.slice(call.url.lastIndexOf("/") + 1))
  const b = (call.body ?? {}) as Bucket
  const lines: string[] = []
  const ubla = b.iamConfiguration?.uniformBucketLevelAccess
  if (ubla !== undefined) lines.push(`  uniform_bucket_level_access = ${ubla?.enabled === true}`)
  const pap = b.iamConfiguration?.publicAccessPrevention
  if (pap !== undefined) lines.push(`  public_access_prevention = ${JSON.stringify(pap ?? "inherited")}`)
  if (b.versioning !== undefined) lines.push(`  versioning {\n    enabled = ${b.versioning?.enabled === true}\n  }`)
  if (b.softDeletePolicy !== undefined) lines.push(`  soft_delete_policy {\n    retention_duration_seconds = ${Number(b.softDeletePolicy?.retentionDurationSeconds ?? 0)}\n  }`)
  return [`# In the existing google_storage_bucket of ${bucket}, set:`, `resource "google_storage_bucket" ${JSON.stringify(tfName(bucket))} {`, `  name = ${JSON.stringify(bucket)}`, ...lines, "}"].join("\n")
})

registerRestCli("sqladmin.instances.patch", (call) => {
  const instance = decodeURIComponent(call.url.slice(call.url.lastIndexOf("/") + 1))
  const s = ((call.body ?? {}) as { settings?: NonNullable<SqlInstance["settings"]> }).settings ?? {}
  const opts: string[] = []
  if (s.backupConfiguration !== undefined) opts.push(s.backupConfiguration?.enabled === true ? "--backup" : "--no-backup")
  if (s.deletionProtectionEnabled !== undefined) opts.push(s.deletionProtectionEnabled === true ? "--deletion-protection" : "--no-deletion-protection")
  const ip = s.ipConfiguration
  if (ip !== undefined && ip !== null) {
    if (ip.sslMode !== undefined && ip.sslMode !== null) opts.push(`--ssl-mode=${ip.sslMode}`)
    if (ip.requireSsl !== undefined) opts.push(ip.requireSsl === true ? "--require-ssl" : "--no-require-ssl")
  }
  if (s.databaseFlags !== undefined) {
    const flags = s.databaseFlags ?? []
    opts.push(flags.length === 0 ? "--clear-database-flags" : `--database-flags=${shellQuote(flags.map((f) => `${f.name}=${f.value ?? ""}`).join(","))}`)
  }
  return ["gcloud sql instances patch", shellQuote(instance), ...opts].join(" ")
})

registerRestTerraform("sqladmin.instances.patch", (call) => {
  const instance = decodeURIComponent(call.url.slice(call.url.lastIndexOf("/") + 1))
  const s = ((call.body ?? {}) as { settings?: NonNullable<SqlInstance["settings"]> }).settings ?? {}
  const lines: string[] = []
  if (s.deletionProtectionEnabled !== undefined) lines.push(`    deletion_protection_enabled = ${s.deletionProtectionEnabled === true}`)
  if (s.backupConfiguration !== undefined) lines.push(`    backup_configuration {\n      enabled = ${s.backupConfiguration?.enabled === true}\n    }`)
  const ip = s.ipConfiguration
  if (ip !== undefined && ip !== null && ip.sslMode !== undefined && ip.sslMode !== null) lines.push(`    ip_configuration {\n      ssl_mode = ${JSON.stringify(ip.sslMode)}\n    }`)
  for (const f of s.databaseFlags ?? []) lines.push(`    database_flags {\n      name  = ${JSON.stringify(f.name)}\n      value = ${JSON.stringify(f.value ?? "")}\n    }`)
  return [`# In the existing google_sql_database_instance of ${instance}, set (database_flags replace the whole list):`, `resource "google_sql_database_instance" ${JSON.stringify(tfName(instance))} {`, `  name = ${JSON.stringify(instance)}`, "  settings {", ...lines, "  }", "}"].join("\n")
})

const kmsParts = (url: string) => /projects\/([^/]+)\/locations\/([^/]+)\/keyRings\/([^/]+)\/cryptoKeys\/([^/?]+)/.exec(url)

registerRestCli("cloudkms.cryptoKeys.patch", (call) => {
  const m = kmsParts(call.url)
  const b = (call.body ?? {}) as { rotationPeriod?: string | null; nextRotationTime?: string | null }
  const key = m === null ? "KEY" : `${m[4]} --keyring ${m[3]} --location ${m[2]} --project ${m[1]}`
  const opts = b.rotationPeriod === null || b.rotationPeriod === undefined ? ["--remove-rotation-schedule"] : [`--rotation-period=${b.rotationPeriod}`, ...(b.nextRotationTime ? [`--next-rotation-time=${b.nextRotationTime}`] : [])]
  return ["gcloud kms keys update", key, ...opts].join(" ")
})

registerRestTerraform("cloudkms.cryptoKeys.patch", (call) => {
  const m = kmsParts(call.url)
  const b = (call.body ?? {}) as { rotationPeriod?: string | null }
  const name = m?.[4] ?? "key"
  return [`# In the existing google_kms_crypto_key of ${name}, set:`, `resource "google_kms_crypto_key" ${JSON.stringify(tfName(name))} {`, `  name = ${JSON.stringify(name)}`, b.rotationPeriod ? `  rotation_period = ${JSON.stringify(b.rotationPeriod)}` : "  # rotation_period removed (no automatic rotation)", "}"].join("\n")
})

const computeBase = (ctx: GcpFixContext) => `${ctx.endpoints.compute}/compute/v1/projects/${ctx.projectId}`

// ---------------------------------------------------------------------------------------------------
// Writes guarded by a concurrency token (a Compute Engine fingerprint, an IAM policy etag). The token changes with every
// write, so it is not part of the state (no undo could bring it back): the plan reads the resource right before each
// write and the write sends the token that read answered (`ref`), so a change made in between makes the write fail
// (412 / 409) instead of being overwritten. The undo does the same with a fresh read.

/** The read of a plan that answers the token its next call sends. */
const tokenRead = (service: string, operation: string, url: string, action: string): RestCall => gcpCall(service, operation, "GET", url, undefined, action)

const noopPlan = (summary: string, noop: string) => ({ calls: [], effects: [], summary, undo: { reversible: true as const, calls: [] }, noop })

// Cloud Asset API -------------------------------------------------------------------------------------

const ServiceState = Schema.Struct({ name: Schema.optionalKey(Schema.String), state: Schema.optionalKey(Schema.String) })

const CLOUD_ASSET = "cloudasset.googleapis.com"
const serviceUrl = (ctx: GcpFixContext, service: string) => `${ctx.endpoints.serviceusage}/v1/projects/${ctx.projectId}/services/${service}`

/** Enables the Cloud Asset API; the undo disables it again (only when it was DISABLED: Service.state is DISABLED or
 *  ENABLED, STATE_UNSPECIFIED is not a state a call can restore). */
const cloudAssetFixer: GcpPlanFixer = {
  checkIds: ["logging_cloud_asset_inventory_enabled"],
  description: "Enables the Cloud Asset API (cloudasset.googleapis.com) on the project.",
  read: async (ctx) => ({ state: (await ctx.client.json({ url: serviceUrl(ctx, CLOUD_ASSET), audience: GCP_SCOPE, op: "serviceusage.services.get" }, ServiceState)).state ?? "STATE_UNSPECIFIED" }),
  plan: (ctx, _row, state) => {
    const s = (state as { readonly state: string }).state
    const summary = `Enabled the Cloud Asset API on project ${ctx.projectId}.`
    if (s === "ENABLED") return noopPlan(summary, "The Cloud Asset API is already enabled.")
    const call = (verb: "enable" | "disable") => gcpCall("serviceusage", `serviceusage.services.${verb}`, "POST", `${serviceUrl(ctx, CLOUD_ASSET)}:${verb}`, {}, `serviceusage.services.${verb}`)
    return {
      calls: [call("enable")],
      effects: [],
      summary,
      undo:
        s === "DISABLED"
          ? { reversible: true, calls: [call("disable")], note: "Disabling the API fails while an enabled service depends on it (Service Usage answers FAILED_PRECONDITION)." }
          : { reversible: false, reason: `The API's state was ${s}, which no Service Usage call sets back.` },
    }
  },
}

// Load balancer logging ---------------------------------------------------------------------------------

const BackendService = Schema.Struct({
  name: Schema.String,
  logConfig: Schema.optionalKey(Schema.Struct({ enable: Schema.optionalKey(Schema.Boolean), sampleRate: Schema.optionalKey(Schema.Number) })),
})

/** BackendServiceLogConfig: enable absent = false, sampleRate absent = 1.0 (server/scanner/gcp/defaults.ts); the sample
 *  rate can only be specified while logging is enabled, so it is part of the state only then. */
type LbLogState = { readonly enable: boolean; readonly sampleRate?: number }

const backendServiceScope = (row: DetailRow) => (row.region === "global" ? "global" : `regions/${encodeURIComponent(row.region)}`)

const backendLoggingFixer: GcpPlanFixer = {
  checkIds: ["vpc_lb_logging_enabled"],
  description: "Enables request logging (sample rate 1.0) on the HTTP(S) backend service. Logging is billed by volume.",
  read: async (ctx, row) => {
    const url = `${computeBase(ctx)}/${backendServiceScope(row)}/backendServices/${encodeURIComponent(row.resource_id)}`
    const s = await ctx.client.json({ url, audience: GCP_SCOPE, op: row.region === "global" ? "compute.backendServices.get" : "compute.regionBackendServices.get" }, BackendService)
    return s.logConfig?.enable === true ? { enable: true, sampleRate: s.logConfig.sampleRate ?? 1 } : { enable: false }
  },
  plan: (ctx, row, state) => {
    const url = `${computeBase(ctx)}/${backendServiceScope(row)}/backendServices/${encodeURIComponent(row.resource_id)}`
    const kind = row.region === "global" ? "backendServices" : "regionBackendServices"
    const summary = `Enabled request logging on backend service ${row.resource_id}.`
    const fixed: LbLogState = { enable: true, sampleRate: 1 }
    if (diffStates(fixed, state).length === 0) return noopPlan(summary, "Request logging is already on for every request.")
    const get = tokenRead("compute", `compute.${kind}.get`, url, `compute.${kind}.get`)
    const patch = (logConfig: Json, at: number) => gcpCall("compute", `compute.${kind}.patch`, "PATCH", url, { logConfig, fingerprint: ref(at, "fingerprint") }, `compute.${kind}.update`)
    return { calls: [get, patch(fixed, 0)], effects: [], summary, undo: { reversible: true, calls: [get, patch(state, 2)] } }
  },
}

// Subnet flow logs -----------------------------------------------------------------------------------

const Subnetwork = Schema.Struct({
  name: Schema.String,
  enableFlowLogs: Schema.optionalKey(Schema.Boolean),
  logConfig: Schema.optionalKey(
    Schema.Struct({
      enable: Schema.optionalKey(Schema.Boolean),
      aggregationInterval: Schema.optionalKey(Schema.String),
      flowSampling: Schema.optionalKey(Schema.Number),
      metadata: Schema.optionalKey(Schema.String),
    }),
  ),
})

/** SubnetworkLogConfig as the check reads it: enable absent = the legacy enableFlowLogs, else false; the documented
 *  defaults (interval 5 s, sampling 0.5, EXCLUDE_ALL_METADATA) otherwise. The other settings "can only be specified if
 *  VPC flow logging for this subnetwork is enabled", so they are part of the state only then. The filter expression is
 *  not changed by the fix and not part of the state. */
const flowLogState = (s: typeof Subnetwork.Type): Json => {
  const c = s.logConfig
  return (c?.enable ?? s.enableFlowLogs ?? false)
    ? { enable: true, aggregationInterval: c?.aggregationInterval ?? "INTERVAL_5_SEC", flowSampling: c?.flowSampling ?? 0.5, metadata: c?.metadata ?? "EXCLUDE_ALL_METADATA" }
    : { enable: false }
}

const subnetUrl = (ctx: GcpFixContext, row: DetailRow) => `${computeBase(ctx)}/regions/${encodeURIComponent(row.region)}/subnetworks/${encodeURIComponent(row.resource_id)}`

const subnetFlowLogsFixer: GcpPlanFixer = {
  checkIds: ["vpc_subnet_flow_logs_enabled"],
  description: "Turns on VPC Flow Logs for the subnet as CIS 3.8 asks: every flow (sampling 1.0), 5-second aggregation, all metadata (a filter expression, if any, is kept: remove it by hand). Flow logs are billed by volume.",
  read: async (ctx, row) => flowLogState(await ctx.client.json({ url: subnetUrl(ctx, row), audience: GCP_SCOPE, op: "compute.subnetworks.get" }, Subnetwork)),
  plan: (ctx, row, state) => {
    const url = subnetUrl(ctx, row)
    const summary = `Enabled flow logs on subnet ${row.resource_id} (${row.region}).`
    const fixed = { enable: true, aggregationInterval: "INTERVAL_5_SEC", flowSampling: 1, metadata: "INCLUDE_ALL_METADATA" }
    if (diffStates(fixed, state).length === 0) return noopPlan(summary, "Flow logs already record every flow with all metadata every 5 seconds.")
    const get = tokenRead("compute", "compute.subnetworks.get", url, "compute.subnetworks.get")
    const patch = (logConfig: Json, at: number) => gcpCall("compute", "compute.subnetworks.patch", "PATCH", url, { logConfig, fingerprint: ref(at, "fingerprint") }, "compute.subnetworks.update")
    return { calls: [get, patch(fixed, 0)], effects: [], summary, undo: { reversible: true, calls: [get, patch(state, 2)] } }
  },
}

// Serial port ---------------------------------------------------------------------------------------------

const SERIAL_PORT = "serial-port-enable"

/** The VM's metadata items in order (an item without value as null): setMetadata replaces the whole list, so the state
 *  is the whole list and the undo sends it back as it was. */
type MetadataState = { readonly items: ReadonlyArray<{ readonly key: string; readonly value: string | null }> }

const instanceUrl = (ctx: GcpFixContext, row: DetailRow) => `${computeBase(ctx)}/zones/${encodeURIComponent(row.region)}/instances/${encodeURIComponent(row.resource_id)}`

const serialPortFixer: GcpPlanFixer = {
  checkIds: ["compute_instance_serial_port_disabled"],
  description: "Sets serial-port-enable=false in the VM's metadata (other metadata is kept).",
  read: async (ctx, row) => {
    const vm = await ctx.client.json({ url: instanceUrl(ctx, row), audience: GCP_SCOPE, op: "compute.instances.get" }, InstanceMetadata)
    return { items: (vm.metadata?.items ?? []).map((i) => ({ key: i.key, value: i.value ?? null })) }
  },
  plan: (ctx, row, state) => {
    const url = instanceUrl(ctx, row)
    const s = state as MetadataState
    const summary = `Disabled serial port access on VM ${row.resource_id}.`
    if (s.items.find((i) => i.key === SERIAL_PORT)?.value === "false") return noopPlan(summary, "The VM's metadata already sets serial-port-enable=false.")
    const others = s.items.filter((i) => i.key !== SERIAL_PORT)
    const wire = (items: MetadataState["items"]) => items.map((i) => (i.value === null ? { key: i.key } : i))
    const get = tokenRead("compute", "compute.instances.get", url, "compute.instances.get")
    const set = (items: MetadataState["items"], at: number) => gcpCall("compute", "compute.instances.setMetadata", "POST", `${url}/setMetadata`, { fingerprint: ref(at, "metadata", "fingerprint"), items: wire(items) }, "compute.instances.setMetadata")
    return {
      calls: [get, set([...others, { key: SERIAL_PORT, value: "false" }], 0)],
      effects: others.length === 0 ? [] : [`setMetadata replaces the VM's whole metadata list: its other items (${others.map((i) => i.key).join(", ")}) are sent back unchanged.`],
      summary,
      undo: { reversible: true, calls: [get, set(s.items, 2)] },
    }
  },
}

// Public IAM members ------------------------------------------------------------------------------------

/** The APIs whose resources have their own IAM policy (getIamPolicy / setIamPolicy on the resource name). */
const POLICY_APIS = {
  secretmanager: { type: "secrets", base: (e: GcpEndpoints) => `${e.secretmanager}/v1`, label: "secret" },
  cloudfunctions: { type: "functions", base: (e: GcpEndpoints) => `${e.cloudfunctions}/v2`, label: "function" },
  run: { type: "services", base: (e: GcpEndpoints) => `${e.run}/v2`, label: "Cloud Run service" },
  artifactregistry: { type: "repositories", base: (e: GcpEndpoints) => `${e.artifactregistry}/v1`, label: "repository" },
} as const
type PolicyApi = keyof typeof POLICY_APIS

interface PolicyTarget {
  readonly api: PolicyApi
  /** The resource name (projects/P/secrets/S, projects/P/locations/L/functions/F, …). */
  readonly name: string
}

type PolicyBinding = { readonly role: string; readonly members: ReadonlyArray<string>; readonly condition?: Json }
/** Per resource, the policy's bindings as read (members absent = none) and its format version (absent = null). */
type PolicyState = { readonly policies: ReadonlyArray<{ readonly api: PolicyApi; readonly resource: string; readonly version: number | null; readonly bindings: ReadonlyArray<PolicyBinding> }> }

const policyUrl = (ctx: GcpFixContext, api: PolicyApi, name: string) => `${POLICY_APIS[api].base(ctx.endpoints)}/${name}`
const policyOp = (api: PolicyApi, verb: "getIamPolicy" | "setIamPolicy") => `${api}.${POLICY_APIS[api].type}.${verb}`

const secretTarget = (ctx: GcpFixContext, secret: string): PolicyTarget => ({ api: "secretmanager", name: `projects/${ctx.projectId}/secrets/${secret}` })

/**
 * Removes allUsers and allAuthenticatedUsers from the IAM policies of the row's resources (`targets`: the resource, and
 * for a 2nd gen function its Cloud Run service). `read` answers every policy's bindings; the plan writes each policy
 * that has a public member back without them (bindings left empty are dropped, conditions kept), with the etag of a read
 * made right before; the undo writes the bindings read before the fix back the same way.
 */
const publicPolicyFixer = (spec: {
  readonly checkId: string
  readonly description: string
  readonly cutsAccess: string
  readonly what: string
  readonly targets: (ctx: GcpFixContext, row: DetailRow) => Promise<ReadonlyArray<PolicyTarget>>
}): GcpPlanFixer => ({
  checkIds: [spec.checkId],
  description: spec.description,
  cutsAccess: spec.cutsAccess,
  read: async (ctx, row) => {
    const policies = []
    for (const t of await spec.targets(ctx, row)) {
      const policy = await ctx.client.json({ url: `${policyUrl(ctx, t.api, t.name)}:getIamPolicy?options.requestedPolicyVersion=3`, audience: GCP_SCOPE, op: policyOp(t.api, "getIamPolicy") }, Policy)
      const bindings = (policy.bindings ?? []).map((b) => ({ role: b.role, members: [...(b.members ?? [])], ...(b.condition === undefined ? {} : { condition: toJson(b.condition) }) }))
      policies.push({ api: t.api, resource: t.name, version: policy.version ?? null, bindings })
    }
    return { policies }
  },
  plan: (ctx, row, state) => {
    const s = state as PolicyState
    const grants = (p: PolicyState["policies"][number]) => publicGrants({ bindings: p.bindings.map(({ role, members }) => ({ role, members })) })
    const changed = s.policies.filter((p) => grants(p).length > 0)
    const removed = changed.flatMap(grants)
    const summary = `Removed ${removed.map((g) => g.slice(0, g.indexOf(":"))).filter((m, i, all) => all.indexOf(m) === i).join(", ")} from ${spec.what} ${row.resource_id}.`
    if (changed.length === 0) return noopPlan(summary, "The IAM policy has no allUsers or allAuthenticatedUsers member.")
    const write = (p: PolicyState["policies"][number], bindings: ReadonlyArray<PolicyBinding>, calls: RestCall[], offset: number) => {
      const url = policyUrl(ctx, p.api, p.resource)
      const at = offset + calls.length
      calls.push(
        tokenRead(p.api, policyOp(p.api, "getIamPolicy"), `${url}:getIamPolicy?options.requestedPolicyVersion=3`, policyOp(p.api, "getIamPolicy")),
        gcpCall(p.api, policyOp(p.api, "setIamPolicy"), "POST", `${url}:setIamPolicy`, { policy: { ...(p.version === null ? {} : { version: p.version }), bindings, etag: ref(at, "etag") } }, policyOp(p.api, "setIamPolicy")),
      )
    }
    const calls: RestCall[] = []
    for (const p of changed) write(p, p.bindings.map((b) => ({ ...b, members: b.members.filter((m) => !PUBLIC_MEMBERS.has(m)) })).filter((b) => b.members.length > 0), calls, 0)
    const undo: RestCall[] = []
    for (const p of changed) write(p, p.bindings, undo, calls.length)
    const effects = changed.flatMap((p) =>
      grants(p).map((g) => `${g.slice(0, g.indexOf(":"))} loses ${g.slice(g.indexOf(":") + 1)} on ${POLICY_APIS[p.api].label} ${p.resource.slice(p.resource.lastIndexOf("/") + 1)}.`),
    )
    return { calls, effects, summary, undo: { reversible: true, calls: undo, note: "The public members get their roles back: the resource is public again." } }
  },
})

// gcloud commands and Terraform of these calls -------------------------------------------------------------

const computeParts = (url: string) => {
  const m = /\/projects\/([^/]+)\/(?:global|regions\/([^/]+)|zones\/([^/]+))\/[A-Za-z]+\/([^/?]+)/.exec(url)
  return { project: m?.[1] ?? "PROJECT", region: m?.[2] === undefined ? undefined : decodeURIComponent(m[2]), zone: m?.[3] === undefined ? undefined : decodeURIComponent(m[3]), name: decodeURIComponent(m?.[4] ?? "NAME") }
}
const regionFlag = (p: ReturnType<typeof computeParts>) => (p.region === undefined ? "--global" : `--region=${p.region}`)

for (const kind of ["backendServices", "regionBackendServices"]) {
  registerRestCli(`compute.${kind}.get`, (call) => {
    const p = computeParts(call.url)
    return ["gcloud compute backend-services describe", shellQuote(p.name), regionFlag(p), `--project=${p.project}`, "--format='value(fingerprint)'"].join(" ")
  })
  registerRestCli(`compute.${kind}.patch`, (call) => {
    const p = computeParts(call.url)
    const c = ((call.body ?? {}) as { logConfig?: LbLogState }).logConfig
    const opts = c?.enable === true ? ["--enable-logging", ...(c.sampleRate === undefined ? [] : [`--logging-sample-rate=${c.sampleRate}`])] : ["--no-enable-logging"]
    return ["gcloud compute backend-services update", shellQuote(p.name), regionFlag(p), `--project=${p.project}`, ...opts].join(" ")
  })
  registerRestTerraform(`compute.${kind}.get`, (call) => `# ${call.operation}: reads the fingerprint the update sends (Terraform reads it itself)`)
  registerRestTerraform(`compute.${kind}.patch`, (call) => {
    const p = computeParts(call.url)
    const c = ((call.body ?? {}) as { logConfig?: LbLogState }).logConfig
    const type = p.region === undefined ? "google_compute_backend_service" : "google_compute_region_backend_service"
    const log = c?.enable === true ? [`  log_config {`, `    enable      = true`, ...(c.sampleRate === undefined ? [] : [`    sample_rate = ${c.sampleRate}`]), "  }"] : ["  log_config {", "    enable = false", "  }"]
    return [`# In the existing ${type} of ${p.name}, set:`, `resource ${JSON.stringify(type)} ${JSON.stringify(tfName(p.name))} {`, `  name = ${JSON.stringify(p.name)}`, ...(p.region === undefined ? [] : [`  region = ${JSON.stringify(p.region)}`]), ...log, "}"].join("\n")
  })
}

const gcloudEnum = (v: string | undefined, prefix = "") => (v ?? "").replace(prefix, "").toLowerCase().replace(/_/g, "-")

registerRestCli("compute.subnetworks.get", (call) => {
  const p = computeParts(call.url)
  return ["gcloud compute networks subnets describe", shellQuote(p.name), regionFlag(p), `--project=${p.project}`, "--format='value(fingerprint)'"].join(" ")
})
registerRestCli("compute.subnetworks.patch", (call) => {
  const p = computeParts(call.url)
  const c = ((call.body ?? {}) as { logConfig?: { enable?: boolean; aggregationInterval?: string; flowSampling?: number; metadata?: string } }).logConfig
  const opts =
    c?.enable === true
      ? [
          "--enable-flow-logs",
          ...(c.aggregationInterval === undefined ? [] : [`--logging-aggregation-interval=${gcloudEnum(c.aggregationInterval)}`]),
          ...(c.flowSampling === undefined ? [] : [`--logging-flow-sampling=${c.flowSampling}`]),
          ...(c.metadata === undefined ? [] : [`--logging-metadata=${gcloudEnum(c.metadata.replace(/_METADATA$/, ""))}`]),
        ]
      : ["--no-enable-flow-logs"]
  return ["gcloud compute networks subnets update", shellQuote(p.name), regionFlag(p), `--project=${p.project}`, ...opts].join(" ")
})
registerRestTerraform("compute.subnetworks.get", (call) => `# ${call.operation}: reads the fingerprint the update sends (Terraform reads it itself)`)
registerRestTerraform("compute.subnetworks.patch", (call) => {
  const p = computeParts(call.url)
  const c = ((call.body ?? {}) as { logConfig?: { enable?: boolean; aggregationInterval?: string; flowSampling?: number; metadata?: string } }).logConfig
  // In Terraform the log_config block is the switch: present = flow logs on.
  const log =
    c?.enable === true
      ? ["  log_config {", ...(c.aggregationInterval === undefined ? [] : [`    aggregation_interval = ${JSON.stringify(c.aggregationInterval)}`]), ...(c.flowSampling === undefined ? [] : [`    flow_sampling        = ${c.flowSampling}`]), ...(c.metadata === undefined ? [] : [`    metadata             = ${JSON.stringify(c.metadata)}`]), "  }"]
      : ["  # log_config removed (flow logs off)"]
  return [`# In the existing google_compute_subnetwork of ${p.name}, set:`, `resource "google_compute_subnetwork" ${JSON.stringify(tfName(p.name))} {`, `  name   = ${JSON.stringify(p.name)}`, `  region = ${JSON.stringify(p.region ?? "")}`, ...log, "}"].join("\n")
})

registerRestCli("compute.instances.get", (call) => {
  const p = computeParts(call.url)
  return ["gcloud compute instances describe", shellQuote(p.name), `--zone=${p.zone ?? "ZONE"}`, `--project=${p.project}`, "--format='value(metadata.fingerprint)'"].join(" ")
})
/** setMetadata sends the whole list; the only item the serial-port fix changes is serial-port-enable, which the
 *  command sets (add-metadata keeps the other items) or removes. */
registerRestCli("compute.instances.setMetadata", (call) => {
  const p = computeParts(call.url)
  const item = ((call.body ?? {}) as { items?: ReadonlyArray<{ key: string; value?: string }> }).items?.find((i) => i.key === SERIAL_PORT)
  const where = [shellQuote(p.name), `--zone=${p.zone ?? "ZONE"}`, `--project=${p.project}`]
  return item === undefined ? ["gcloud compute instances remove-metadata", ...where, `--keys=${SERIAL_PORT}`].join(" ") : ["gcloud compute instances add-metadata", ...where, shellQuote(`--metadata=${SERIAL_PORT}=${item.value ?? ""}`)].join(" ")
})
registerRestTerraform("compute.instances.get", (call) => `# ${call.operation}: reads the metadata fingerprint the update sends (Terraform reads it itself)`)
registerRestTerraform("compute.instances.setMetadata", (call) => {
  const p = computeParts(call.url)
  const item = ((call.body ?? {}) as { items?: ReadonlyArray<{ key: string; value?: string }> }).items?.find((i) => i.key === SERIAL_PORT)
  return [
    `# In the existing google_compute_instance of ${p.name}, in metadata:`,
    `resource "google_compute_instance" ${JSON.stringify(tfName(p.name))} {`,
    `  name = ${JSON.stringify(p.name)}`,
    `  zone = ${JSON.stringify(p.zone ?? "")}`,
    item === undefined ? `  # metadata: remove "${SERIAL_PORT}"` : `  metadata = {\n    ${JSON.stringify(SERIAL_PORT)} = ${JSON.stringify(item.value ?? "")}\n  }`,
    "}",
  ].join("\n")
})

const serviceParts = (url: string) => /\/projects\/([^/]+)\/services\/([^/:]+):/.exec(url)
for (const verb of ["enable", "disable"] as const) {
  registerRestCli(`serviceusage.services.${verb}`, (call) => {
    const m = serviceParts(call.url)
    return `gcloud services ${verb} ${m?.[2] ?? "SERVICE"} --project=${m?.[1] ?? "PROJECT"}`
  })
}
registerRestTerraform("serviceusage.services.enable", (call) => {
  const m = serviceParts(call.url)
  const service = m?.[2] ?? "SERVICE"
  return [`resource "google_project_service" ${JSON.stringify(tfName(service.split(".")[0] ?? service))} {`, `  project = ${JSON.stringify(m?.[1] ?? "")}`, `  service = ${JSON.stringify(service)}`, "}"].join("\n")
})
registerRestTerraform("serviceusage.services.disable", (call) => `# Remove the google_project_service of ${serviceParts(call.url)?.[2] ?? "the service"} (destroying it disables the API).`)

/** The Terraform resource holding a whole IAM policy, per API, with the arguments naming the resource. */
const POLICY_TERRAFORM: Record<PolicyApi, { readonly type: string; readonly args: (m: RegExpExecArray) => ReadonlyArray<[string, string]> }> = {
  secretmanager: { type: "google_secret_manager_secret_iam_policy", args: (m) => [["project", m[1]!], ["secret_id", m[3]!]] },
  cloudfunctions: { type: "google_cloudfunctions2_function_iam_policy", args: (m) => [["project", m[1]!], ["location", m[2]!], ["cloud_function", m[3]!]] },
  run: { type: "google_cloud_run_v2_service_iam_policy", args: (m) => [["project", m[1]!], ["location", m[2]!], ["name", m[3]!]] },
  artifactregistry: { type: "google_artifact_registry_repository_iam_policy", args: (m) => [["project", m[1]!], ["location", m[2]!], ["repository", m[3]!]] },
}

for (const api of Object.keys(POLICY_APIS) as PolicyApi[]) {
  registerRestTerraform(policyOp(api, "getIamPolicy"), (call) => `# ${call.operation}: reads the etag the write sends (Terraform reads it itself)`)
  registerRestTerraform(policyOp(api, "setIamPolicy"), (call) => {
    const m = /\/projects\/([^/]+)\/(?:locations\/([^/]+)\/)?[a-z]+\/([^/:]+):setIamPolicy/.exec(call.url)
    if (m === null) return `# ${call.operation}: no Terraform is generated for this call; run the command above instead`
    const t = POLICY_TERRAFORM[api]
    const name = tfName(m[3]!)
    const bindings = ((call.body ?? {}) as { policy?: { bindings?: ReadonlyArray<PolicyBinding> } }).policy?.bindings ?? []
    const condition = (c: Json | undefined) => {
      if (c === undefined || c === null || typeof c !== "object" || Array.isArray(c)) return []
      const e = c as Record<string, Json>
      return ["    condition {", ...(["title", "description", "expression"] as const).filter((k) => typeof e[k] === "string").map((k) => `      ${k} = ${JSON.stringify(e[k])}`), "    }"]
    }
    return [
      `# Authoritative: replaces the whole IAM policy of ${m[3]} with these bindings (those of the call).`,
      `data "google_iam_policy" ${JSON.stringify(name)} {`,
      ...bindings.flatMap((b) => ["  binding {", `    role    = ${JSON.stringify(b.role)}`, `    members = ${JSON.stringify(b.members)}`, ...condition(b.condition), "  }"]),
      "}",
      "",
      `resource ${JSON.stringify(t.type)} ${JSON.stringify(name)} {`,
      ...t.args(m).map(([k, v]) => `  ${k} = ${JSON.stringify(v)}`),
      `  policy_data = data.google_iam_policy.${name}.policy_data`,
      "}",
    ].join("\n")
  })
}

export const gcpFixers: ReadonlyArray<GcpPlanFixer> = [
  bucketPatch({
    checkId: "storage_bucket_uniform_access",
    description: "Enables uniform bucket-level access on the bucket (can be turned off again within 90 days).",
    cutsAccess: "Object ACLs stop applying: readers who were granted access only through an object ACL lose it.",
    read: (b) => ({ uniformBucketLevelAccess: b.iamConfiguration?.uniformBucketLevelAccess?.enabled === true }),
    fixed: { uniformBucketLevelAccess: true },
    body: (s) => ({ iamConfiguration: { uniformBucketLevelAccess: { enabled: s.uniformBucketLevelAccess } } }),
    undoNote: "Google allows turning uniform access off only within 90 days of turning it on.",
    done: "Enabled uniform bucket-level access",
  }),
  bucketPatch({
    checkId: "storage_bucket_not_public",
    description: "Enforces public access prevention on the bucket, which blocks every allUsers/allAuthenticatedUsers grant.",
    cutsAccess: "Anonymous and any-Google-account access to the bucket stops, including intentionally public websites.",
    // Absent reads as the API's default, "inherited".
    read: (b) => ({ publicAccessPrevention: b.iamConfiguration?.publicAccessPrevention ?? "inherited" }),
    fixed: { publicAccessPrevention: "enforced" },
    body: (s) => ({ iamConfiguration: { publicAccessPrevention: s.publicAccessPrevention } }),
    done: "Enforced public access prevention",
  }),
  bucketPatch({
    checkId: "storage_bucket_versioning_enabled",
    description: "Turns on object versioning (noncurrent versions are billed until a lifecycle rule removes them).",
    read: (b) => ({ versioning: b.versioning?.enabled === true }),
    fixed: { versioning: true },
    body: (s) => ({ versioning: { enabled: s.versioning } }),
    undoNote: "Undo suspends versioning; the noncurrent versions kept meanwhile stay until deleted.",
    done: "Enabled object versioning",
  }),
  bucketPatch({
    checkId: "storage_bucket_soft_delete_enabled",
    description: "Keeps deleted objects for 7 days (soft delete; the retained data is billed).",
    // Absent reads as no soft delete ("0"), as the check reads it.
    read: (b) => ({ retentionDurationSeconds: b.softDeletePolicy?.retentionDurationSeconds ?? "0" }),
    fixed: { retentionDurationSeconds: "604800" },
    body: (s) => ({ softDeletePolicy: { retentionDurationSeconds: s.retentionDurationSeconds } }),
    done: "Enabled soft delete (7 days)",
  }),
  {
    checkIds: ["kms_key_rotation_90_days"],
    description: "Sets automatic rotation on the key: every 90 days (or its current shorter period), next rotation within that period.",
    read: async (ctx, row) => {
      const name = row.resource_id
      if (!/^projects\/[^/]+\/locations\/[^/]+\/keyRings\/[^/]+\/cryptoKeys\/[^/]+$/.test(name)) throw new FixError(`"${name}" is not a crypto key name`)
      return KmsState(await ctx.client.json({ url: `${ctx.endpoints.cloudkms}/v1/${name}`, audience: GCP_SCOPE, op: "cloudkms.cryptoKeys.get" }, KmsKey))
    },
    plan: (ctx, row, state) => {
      const name = row.resource_id
      const prev = state as ReturnType<typeof KmsState>
      const existing = durationSeconds(prev.rotationPeriod ?? undefined)
      const period = existing !== undefined && existing > 86_400 && existing <= 7_776_000 ? existing : 7_776_000
      const next = new Date(ctx.now.getTime() + period * 1000).toISOString()
      const url = `${ctx.endpoints.cloudkms}/v1/${name}?updateMask=rotationPeriod,nextRotationTime`
      const patch = (body: Json) => gcpCall("cloudkms", "cloudkms.cryptoKeys.patch", "PATCH", url, body, "cloudkms.cryptoKeys.update")
      return {
        calls: [patch({ rotationPeriod: `${period}s`, nextRotationTime: next })],
        effects: [],
        summary: `Key ${name.slice(name.lastIndexOf("/") + 1)} now rotates every ${Math.round(period / 86_400)} days (next ${next}).`,
        undo: {
          reversible: true,
          // A field named in updateMask but absent from the body is cleared (a key that had no rotation schedule).
          calls: [patch({ ...(prev.rotationPeriod === null ? {} : { rotationPeriod: prev.rotationPeriod }), ...(prev.nextRotationTime === null ? {} : { nextRotationTime: prev.nextRotationTime }) })],
          note: "Key versions created by a rotation meanwhile are kept (they stay the primary version).",
        },
      }
    },
  },
  cloudAssetFixer,
  backendLoggingFixer,
  subnetFlowLogsFixer,
  serialPortFixer,
  sqlPatch<{ readonly backupEnabled: boolean }>({
    checkId: "cloudsql_automated_backups",
    description: "Enables automated daily backups on the Cloud SQL instance (backup storage is billed).",
    read: (i) => ({ backupEnabled: i.settings?.backupConfiguration?.enabled === true }),
    fixed: () => ({ backupEnabled: true }),
    settings: (s) => ({ backupConfiguration: { enabled: s.backupEnabled } }),
    done: "Enabled automated backups",
  }),
  sqlPatch<{ readonly deletionProtectionEnabled: boolean }>({
    checkId: "cloudsql_instance_deletion_protection",
    description: "Turns on deletion protection for the Cloud SQL instance.",
    read: (i) => ({ deletionProtectionEnabled: i.settings?.deletionProtectionEnabled === true }),
    fixed: () => ({ deletionProtectionEnabled: true }),
    settings: (s) => ({ deletionProtectionEnabled: s.deletionProtectionEnabled }),
    done: "Enabled deletion protection",
  }),
  sqlPatch<{ readonly sslMode: string; readonly requireSsl: boolean }>({
    checkId: "cloudsql_instance_ssl_required",
    description: "Accepts only encrypted connections to the Cloud SQL instance (sslMode ENCRYPTED_ONLY).",
    cutsAccess: "Clients connecting without TLS are refused.",
    // Absent sslMode reads as the API's default, ALLOW_UNENCRYPTED_AND_ENCRYPTED.
    read: (i) => ({ sslMode: i.settings?.ipConfiguration?.sslMode ?? "ALLOW_UNENCRYPTED_AND_ENCRYPTED", requireSsl: i.settings?.ipConfiguration?.requireSsl === true }),
    fixed: () => ({ sslMode: "ENCRYPTED_ONLY", requireSsl: true }),
    settings: (s) => ({ ipConfiguration: { sslMode: s.sslMode, requireSsl: s.requireSsl } }),
    effects: ["Clients connecting without TLS are refused from then on."],
    done: "Required encrypted connections",
  }),
  ...sqlFlagFixes.map(sqlFlag),
  publicPolicyFixer({
    checkId: "secretmanager_secret_not_public",
    description: "Removes allUsers and allAuthenticatedUsers from the secret's IAM policy (the other bindings are kept).",
    cutsAccess: "Anyone who read the secret through a public grant loses access.",
    what: "secret",
    targets: async (ctx, row) => [secretTarget(ctx, row.resource_id)],
  }),
  publicPolicyFixer({
    checkId: "cloudfunctions_function_not_public",
    description: "Removes allUsers and allAuthenticatedUsers from the function's IAM policy and, for a 2nd gen function, from its Cloud Run service's (the other bindings are kept).",
    cutsAccess: "Unauthenticated callers of the function (webhooks, public HTTP endpoints) are refused.",
    what: "function",
    targets: async (ctx, row) => {
      const name = `projects/${ctx.projectId}/locations/${row.region}/functions/${row.resource_id}`
      const fn = await ctx.client.json({ url: `${ctx.endpoints.cloudfunctions}/v2/${name}`, audience: GCP_SCOPE, op: "cloudfunctions.functions.get" }, CloudFunctionService)
      const service = fn.serviceConfig?.service
      return [
        { api: "cloudfunctions" as const, name },
        ...(service === undefined || service === "" ? [] : [{ api: "run" as const, name: service }]),
      ]
    },
  }),
  publicPolicyFixer({
    checkId: "artifactregistry_repo_not_public",
    description: "Removes allUsers and allAuthenticatedUsers from the repository's IAM policy (the other bindings are kept).",
    cutsAccess: "Anonymous pulls from the repository stop (public images or packages become private).",
    what: "repository",
    targets: async (ctx, row) => [{ api: "artifactregistry", name: `projects/${ctx.projectId}/locations/${row.region}/repositories/${row.resource_id}` }],
  }),
]

/** Waits for the long-running operation a GCP call started (Cloud SQL, Compute Engine and Service Usage operations);
 *  a read (GET) answers the resource itself. */
export const gcpSettle = (ctx: GcpFixContext): Settle => async (call, response) => {
  const output = response.body
  if (call.method === "GET") return output
  if (call.service === "serviceusage" && typeof output === "object" && output !== null && "name" in output) {
    const op = Schema.decodeUnknownSync(LongRunning)(output)
    const final = op.done === true ? op : await waitUntil(() => ctx.client.json({ url: `${ctx.endpoints.serviceusage}/v1/${op.name}`, audience: GCP_SCOPE, op: "serviceusage.operations.get" }, LongRunning), (o) => o.done === true, {
      what: `Service Usage operation ${op.name}`,
      ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
    })
    if (final.error !== undefined) throw new FixError(`Service Usage operation failed: ${final.error.message ?? "unknown error"}`)
    return final
  }
  if (call.service === "sqladmin" && typeof output === "object" && output !== null && "name" in output) {
    const op = Schema.decodeUnknownSync(SqlOperation)(output)
    const final = op.status === "DONE" ? op : await waitUntil(() => ctx.client.json({ url: `${ctx.endpoints.sqladmin}/v1/projects/${ctx.projectId}/operations/${op.name}`, audience: GCP_SCOPE, op: "sqladmin.operations.get" }, SqlOperation), (o) => o.status === "DONE", {
      what: `Cloud SQL operation ${op.name}`,
      ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
    })
    const failed = opError(final.error?.errors)
    if (failed !== undefined) throw new FixError(`Cloud SQL operation failed: ${failed}`)
    return final
  }
  if (call.service === "compute" && typeof output === "object" && output !== null && "name" in output) {
    const op = Schema.decodeUnknownSync(ComputeOperation)(output)
    await waitCompute(ctx, op)
  }
  return output
}
