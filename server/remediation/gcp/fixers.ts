/**
 * GCP fixers for the safe, reversible recommendations (single PATCH, no operator input): bucket uniform access and
 * public access prevention, versioning and soft delete, KMS rotation schedule, Cloud Asset API, load balancer logging,
 * subnet flow logs, serial port off, Cloud SQL backups, deletion protection, encrypted connections and the CIS database
 * flags; and the removal of allUsers/allAuthenticatedUsers from the IAM policy of a secret, a function (and, 2nd gen,
 * its Cloud Run service) or an Artifact Registry repository. Each waits for the long-running operation it starts; `remediateGcpFinding`
 * then re-reads the resource to verify.
 */
import { Schema } from "effect"
import type { RestClient } from "../../scanner/rest/http.ts"
import { FixError, waitUntil, type RestFixer } from "../../scanner/rest/remediation.ts"
import { GCP_SCOPE, type GcpEndpoints } from "../../scanner/gcp/endpoints.ts"
import { durationSeconds } from "../../scanner/rest/engine.ts"
import { sqlFlagFixes } from "../../scanner/gcp/checks/sql.ts"
import { PUBLIC_MEMBERS, publicGrants } from "../../scanner/gcp/context.ts"
import type { DetailRow } from "../../scanner/check.ts"
import { diffStates, shellQuote, type Json, type PlanFixer, type RestCall } from "../plan.ts"
import { registerRestCli, registerRestTerraform, type Settle } from "../rest.ts"
import { tfName } from "../aws/fixer.ts"

export interface GcpFixContext {
  readonly client: RestClient
  readonly projectId: string
  readonly endpoints: GcpEndpoints
  readonly now: Date
  readonly signal?: AbortSignal
}

export type GcpFixer = RestFixer<GcpFixContext>

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

const Fingerprinted = Schema.Struct({ name: Schema.String, fingerprint: Schema.optionalKey(Schema.String) })

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

/**
 * Reads a resource's IAM policy and writes it back without allUsers and allAuthenticatedUsers (bindings left empty
 * are dropped; the etag makes a concurrent change fail instead of being overwritten). Answers the members removed.
 */
async function dropPublicMembers(ctx: GcpFixContext, resourceUrl: string, service: string): Promise<string[]> {
  const policy = await ctx.client.json({ url: `${resourceUrl}:getIamPolicy?options.requestedPolicyVersion=3`, audience: GCP_SCOPE, op: `${service}.getIamPolicy` }, Policy)
  const removed = publicGrants(policy)
  if (removed.length === 0) return []
  const bindings = (policy.bindings ?? []).map((b) => ({ ...b, members: (b.members ?? []).filter((m) => !PUBLIC_MEMBERS.has(m)) })).filter((b) => b.members.length > 0)
  await ctx.client.json({ method: "POST", url: `${resourceUrl}:setIamPolicy`, audience: GCP_SCOPE, op: `${service}.setIamPolicy`, body: { policy: { ...policy, bindings } } }, Policy)
  return removed
}

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

/** A GCP fixer of the plan vocabulary (read + plan), executed by `executeGcpCalls`. */
export type GcpPlanFixer = PlanFixer<GcpFixContext, DetailRow>

export type AnyGcpFixer = GcpFixer | GcpPlanFixer

export const isGcpPlanFixer = (f: AnyGcpFixer): f is GcpPlanFixer => "plan" in f

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

export const gcpFixers: ReadonlyArray<AnyGcpFixer> = [
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
  {
    checkIds: ["logging_cloud_asset_inventory_enabled"],
    description: "Enables the Cloud Asset API (cloudasset.googleapis.com) on the project.",
    apply: async (ctx) => {
      const op = await ctx.client.json(
        { method: "POST", url: `${ctx.endpoints.serviceusage}/v1/projects/${ctx.projectId}/services/cloudasset.googleapis.com:enable`, audience: GCP_SCOPE, op: "serviceusage.services.enable", body: {} },
        LongRunning,
      )
      const final = op.done === true ? op : await waitUntil(() => ctx.client.json({ url: `${ctx.endpoints.serviceusage}/v1/${op.name}`, audience: GCP_SCOPE, op: "serviceusage.operations.get" }, LongRunning), (o) => o.done === true, { what: "Enabling the Cloud Asset API", ...(ctx.signal === undefined ? {} : { signal: ctx.signal }) })
      if (final.error !== undefined) throw new FixError(`Enabling the Cloud Asset API failed: ${final.error.message ?? "unknown error"}`)
      return `Enabled the Cloud Asset API on project ${ctx.projectId}.`
    },
  },
  {
    checkIds: ["vpc_lb_logging_enabled"],
    description: "Enables request logging (sample rate 1.0) on the HTTP(S) backend service. Logging is billed by volume.",
    apply: async (ctx, row) => {
      const scope = row.region === "global" ? "global" : `regions/${row.region}`
      const url = `${computeBase(ctx)}/${scope}/backendServices/${encodeURIComponent(row.resource_id)}`
      const current = await ctx.client.json({ url, audience: GCP_SCOPE, op: "compute.backendServices.get" }, Fingerprinted)
      const op = await ctx.client.json(
        { method: "PATCH", url, audience: GCP_SCOPE, op: "compute.backendServices.patch", body: { logConfig: { enable: true, sampleRate: 1 }, ...(current.fingerprint === undefined ? {} : { fingerprint: current.fingerprint }) } },
        ComputeOperation,
      )
      await waitCompute(ctx, op)
      return `Enabled request logging on backend service ${row.resource_id}.`
    },
  },
  {
    checkIds: ["vpc_subnet_flow_logs_enabled"],
    description: "Turns on VPC Flow Logs for the subnet as CIS 3.8 asks: every flow (sampling 1.0), 5-second aggregation, all metadata (a filter expression, if any, is kept: remove it by hand). Flow logs are billed by volume.",
    apply: async (ctx, row) => {
      const url = `${computeBase(ctx)}/regions/${encodeURIComponent(row.region)}/subnetworks/${encodeURIComponent(row.resource_id)}`
      const current = await ctx.client.json({ url, audience: GCP_SCOPE, op: "compute.subnetworks.get" }, Fingerprinted)
      if (current.fingerprint === undefined) throw new FixError("The subnet has no fingerprint to patch against")
      const op = await ctx.client.json({ method: "PATCH", url, audience: GCP_SCOPE, op: "compute.subnetworks.patch", body: { logConfig: { enable: true, aggregationInterval: "INTERVAL_5_SEC", flowSampling: 1, metadata: "INCLUDE_ALL_METADATA" }, fingerprint: current.fingerprint } }, ComputeOperation)
      await waitCompute(ctx, op)
      return `Enabled flow logs on subnet ${row.resource_id} (${row.region}).`
    },
  },
  {
    checkIds: ["compute_instance_serial_port_disabled"],
    description: "Sets serial-port-enable=false in the VM's metadata (other metadata is kept).",
    apply: async (ctx, row) => {
      const url = `${computeBase(ctx)}/zones/${encodeURIComponent(row.region)}/instances/${encodeURIComponent(row.resource_id)}`
      const vm = await ctx.client.json({ url, audience: GCP_SCOPE, op: "compute.instances.get" }, InstanceMetadata)
      const items = (vm.metadata?.items ?? []).filter((i) => i.key !== "serial-port-enable")
      const op = await ctx.client.json(
        { method: "POST", url: `${url}/setMetadata`, audience: GCP_SCOPE, op: "compute.instances.setMetadata", body: { ...(vm.metadata?.fingerprint === undefined ? {} : { fingerprint: vm.metadata.fingerprint }), items: [...items, { key: "serial-port-enable", value: "false" }] } },
        ComputeOperation,
      )
      await waitCompute(ctx, op)
      return `Disabled serial port access on VM ${row.resource_id}.`
    },
  },
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
  {
    checkIds: ["secretmanager_secret_not_public"],
    description: "Removes allUsers and allAuthenticatedUsers from the secret's IAM policy (the other bindings are kept).",
    cutsAccess: "Anyone who read the secret through a public grant loses access.",
    apply: async (ctx, row) => {
      const removed = await dropPublicMembers(ctx, `${ctx.endpoints.secretmanager}/v1/projects/${ctx.projectId}/secrets/${encodeURIComponent(row.resource_id)}`, "secretmanager.secrets")
      return `Removed ${removed.join(", ") || "no public member"} from secret ${row.resource_id}.`
    },
  },
  {
    checkIds: ["cloudfunctions_function_not_public"],
    description: "Removes allUsers and allAuthenticatedUsers from the function's IAM policy and, for a 2nd gen function, from its Cloud Run service's (the other bindings are kept).",
    cutsAccess: "Unauthenticated callers of the function (webhooks, public HTTP endpoints) are refused.",
    apply: async (ctx, row) => {
      const name = `projects/${ctx.projectId}/locations/${row.region}/functions/${row.resource_id}`
      const fn = await ctx.client.json({ url: `${ctx.endpoints.cloudfunctions}/v2/${name}`, audience: GCP_SCOPE, op: "cloudfunctions.functions.get" }, CloudFunctionService)
      const removed = await dropPublicMembers(ctx, `${ctx.endpoints.cloudfunctions}/v2/${name}`, "cloudfunctions.functions")
      const service = fn.serviceConfig?.service
      const fromRun = service === undefined || service === "" ? [] : await dropPublicMembers(ctx, `${ctx.endpoints.run}/v2/${service}`, "run.services")
      return `Removed ${[...removed, ...fromRun].join(", ") || "no public member"} from function ${row.resource_id}.`
    },
  },
  {
    checkIds: ["artifactregistry_repo_not_public"],
    description: "Removes allUsers and allAuthenticatedUsers from the repository's IAM policy (the other bindings are kept).",
    cutsAccess: "Anonymous pulls from the repository stop (public images or packages become private).",
    apply: async (ctx, row) => {
      const removed = await dropPublicMembers(ctx, `${ctx.endpoints.artifactregistry}/v1/projects/${ctx.projectId}/locations/${row.region}/repositories/${encodeURIComponent(row.resource_id)}`, "artifactregistry.repositories")
      return `Removed ${removed.join(", ") || "no public member"} from repository ${row.resource_id}.`
    },
  },
]

/** Waits for the long-running operation a GCP call started (Cloud SQL and Compute Engine operations). */
export const gcpSettle = (ctx: GcpFixContext): Settle => async (call, response) => {
  const output = response.body
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
