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

/** One PATCH of the bucket named by the row (merge semantics: only the fields sent change). */
const bucketPatch = (spec: PatchSpec & { readonly body: Record<string, unknown> }): GcpFixer => ({
  checkIds: [spec.checkId],
  description: spec.description,
  ...(spec.cutsAccess === undefined ? {} : { cutsAccess: spec.cutsAccess }),
  apply: async (ctx, row) => {
    await ctx.client.json(
      { method: "PATCH", url: `${ctx.endpoints.storage}/storage/v1/b/${encodeURIComponent(row.resource_id)}`, audience: GCP_SCOPE, op: "storage.buckets.patch", body: spec.body },
      Schema.Struct({ name: Schema.String }),
    )
    return `${spec.done} on bucket ${row.resource_id}.`
  },
})

const SqlFlags = Schema.Struct({
  settings: Schema.optionalKey(Schema.Struct({ databaseFlags: Schema.optionalKey(Schema.Array(Schema.Struct({ name: Schema.String, value: Schema.optionalKey(Schema.String) }))) })),
})

/** One PATCH of the Cloud SQL instance's settings (fixed, or computed from the instance), waiting for the operation it starts. */
const sqlPatch = (spec: PatchSpec & { readonly settings: Record<string, unknown> | ((ctx: GcpFixContext, instance: string) => Promise<Record<string, unknown>>) }): GcpFixer => ({
  checkIds: [spec.checkId],
  description: spec.description,
  ...(spec.cutsAccess === undefined ? {} : { cutsAccess: spec.cutsAccess }),
  apply: async (ctx, row) => {
    const op = await ctx.client.json(
      {
        method: "PATCH",
        url: sqlInstanceUrl(ctx, row.resource_id),
        audience: GCP_SCOPE,
        op: "sqladmin.instances.patch",
        body: { settings: typeof spec.settings === "function" ? await spec.settings(ctx, row.resource_id) : spec.settings },
      },
      SqlOperation,
    )
    const final =
      op.status === "DONE"
        ? op
        : await waitUntil(() => ctx.client.json({ url: `${ctx.endpoints.sqladmin}/v1/projects/${ctx.projectId}/operations/${op.name}`, audience: GCP_SCOPE, op: "sqladmin.operations.get" }, SqlOperation), (o) => o.status === "DONE", {
            what: `Cloud SQL operation ${op.name}`,
            ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
          })
    const failed = opError(final.error?.errors)
    if (failed !== undefined) throw new FixError(`Cloud SQL operation failed: ${failed}`)
    return `${spec.done} on Cloud SQL instance ${row.resource_id}.`
  },
})

const sqlInstanceUrl = (ctx: GcpFixContext, instance: string) => `${ctx.endpoints.sqladmin}/v1/projects/${ctx.projectId}/instances/${encodeURIComponent(instance)}`

/**
 * A database flag set to the CIS value (or removed). The API replaces the whole flag list, so the instance's other
 * flags are read first and sent back unchanged. Some flags restart the instance.
 */
const sqlFlag = (fix: { readonly checkId: string; readonly flag: string; readonly value: string | null }): GcpFixer =>
  sqlPatch({
    checkId: fix.checkId,
    description: `${fix.value === null ? `Removes the '${fix.flag}' database flag` : `Sets the '${fix.flag}' database flag to ${fix.value}`}, keeping the other flags (some flags restart the instance).`,
    done: fix.value === null ? `Removed '${fix.flag}'` : `Set '${fix.flag}' to ${fix.value}`,
    settings: async (ctx, instance) => {
      const current = await ctx.client.json({ url: sqlInstanceUrl(ctx, instance), audience: GCP_SCOPE, op: "sqladmin.instances.get" }, SqlFlags)
      const others = (current.settings?.databaseFlags ?? []).filter((f) => f.name !== fix.flag)
      return { databaseFlags: fix.value === null ? others : [...others, { name: fix.flag, value: fix.value }] }
    },
  })

const computeBase = (ctx: GcpFixContext) => `${ctx.endpoints.compute}/compute/v1/projects/${ctx.projectId}`

export const gcpFixers: ReadonlyArray<GcpFixer> = [
  bucketPatch({
    checkId: "storage_bucket_uniform_access",
    description: "Enables uniform bucket-level access on the bucket (can be turned off again within 90 days).",
    cutsAccess: "Object ACLs stop applying: readers who were granted access only through an object ACL lose it.",
    body: { iamConfiguration: { uniformBucketLevelAccess: { enabled: true } } },
    done: "Enabled uniform bucket-level access",
  }),
  bucketPatch({
    checkId: "storage_bucket_not_public",
    description: "Enforces public access prevention on the bucket, which blocks every allUsers/allAuthenticatedUsers grant.",
    cutsAccess: "Anonymous and any-Google-account access to the bucket stops, including intentionally public websites.",
    body: { iamConfiguration: { publicAccessPrevention: "enforced" } },
    done: "Enforced public access prevention",
  }),
  bucketPatch({
    checkId: "storage_bucket_versioning_enabled",
    description: "Turns on object versioning (noncurrent versions are billed until a lifecycle rule removes them).",
    body: { versioning: { enabled: true } },
    done: "Enabled object versioning",
  }),
  bucketPatch({
    checkId: "storage_bucket_soft_delete_enabled",
    description: "Keeps deleted objects for 7 days (soft delete; the retained data is billed).",
    body: { softDeletePolicy: { retentionDurationSeconds: "604800" } },
    done: "Enabled soft delete (7 days)",
  }),
  {
    checkIds: ["kms_key_rotation_90_days"],
    description: "Sets automatic rotation on the key: every 90 days (or its current shorter period), next rotation within that period.",
    apply: async (ctx, row) => {
      const name = row.resource_id
      if (!/^projects\/[^/]+\/locations\/[^/]+\/keyRings\/[^/]+\/cryptoKeys\/[^/]+$/.test(name)) throw new FixError(`"${name}" is not a crypto key name`)
      const url = `${ctx.endpoints.cloudkms}/v1/${name}`
      const current = await ctx.client.json({ url, audience: GCP_SCOPE, op: "cloudkms.cryptoKeys.get" }, KmsKey)
      const existing = durationSeconds(current.rotationPeriod)
      const period = existing !== undefined && existing > 86_400 && existing <= 7_776_000 ? existing : 7_776_000
      const next = new Date(ctx.now.getTime() + period * 1000).toISOString()
      await ctx.client.json(
        { method: "PATCH", url: `${url}?updateMask=rotationPeriod,nextRotationTime`, audience: GCP_SCOPE, op: "cloudkms.cryptoKeys.patch", body: { rotationPeriod: `${period}s`, nextRotationTime: next } },
        KmsKey,
      )
      return `Key ${name.slice(name.lastIndexOf("/") + 1)} now rotates every ${Math.round(period / 86_400)} days (next ${next}).`
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
  sqlPatch({
    checkId: "cloudsql_automated_backups",
    description: "Enables automated daily backups on the Cloud SQL instance (backup storage is billed).",
    settings: { backupConfiguration: { enabled: true } },
    done: "Enabled automated backups",
  }),
  sqlPatch({
    checkId: "cloudsql_instance_deletion_protection",
    description: "Turns on deletion protection for the Cloud SQL instance.",
    settings: { deletionProtectionEnabled: true },
    done: "Enabled deletion protection",
  }),
  sqlPatch({
    checkId: "cloudsql_instance_ssl_required",
    description: "Accepts only encrypted connections to the Cloud SQL instance (sslMode ENCRYPTED_ONLY).",
    cutsAccess: "Clients connecting without TLS are refused.",
    settings: { ipConfiguration: { sslMode: "ENCRYPTED_ONLY", requireSsl: true } },
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
