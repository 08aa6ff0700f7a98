/** Cloud Storage checks (CIS GCP v4.0 5.1, 5.2) and, beyond the benchmark, versioning, soft delete and access logs. */
import { row } from "../../rest/engine.ts"
import { publicGrants } from "../context.ts"
import { defineGcpCheck } from "../define-check.ts"
import { bucketRegion } from "../collectors/storage.ts"

export const storageChecks = [
  defineGcpCheck({
    id: "storage_bucket_not_public",
    service: "storage",
    title: "Cloud Storage buckets should not be anonymously or publicly accessible",
    description: "Flags buckets whose IAM policy grants a role to allUsers or allAuthenticatedUsers, unless public access prevention is enforced (which blocks those grants) on the bucket or, for a bucket that inherits it, by the storage.publicAccessPrevention organization policy. When the organization policy cannot be read, such a bucket is not evaluated.",
    severity: "critical",
    cis: "5.1",
    remediation: "Enforce public access prevention (gcloud storage buckets update gs://BUCKET --public-access-prevention) and remove the allUsers/allAuthenticatedUsers bindings.",
    field_labels: { public_grants: "Public grants", public_access_prevention: "Public access prevention" },
    uses: ["storage.buckets", "storage.bucket_policies", "project.org_policies"],
    reads: "storage buckets.getIamPolicy → bindings[].members ∋ allUsers|allAuthenticatedUsers; buckets.list → iamConfiguration.publicAccessPrevention; orgpolicy getEffectivePolicy storage.publicAccessPrevention",
    evaluate: (inv) =>
      (inv.storage.buckets ?? []).flatMap((b) => {
        if (b.policy === undefined) return []
        const grants = publicGrants(b.policy)
        const own = b.iamConfiguration?.publicAccessPrevention ?? "inherited"
        // "inherited" (legacy "unspecified"): the storage.publicAccessPrevention organization policy decides.
        const orgEnforced = inv.project.orgPolicies?.["storage.publicAccessPrevention"]
        const pap = own === "enforced" ? "enforced" : orgEnforced === true ? "enforced by organization policy" : own
        // Public grants on a bucket that inherits, but the organization policy was not readable: not evaluated.
        if (grants.length > 0 && own !== "enforced" && orgEnforced === undefined) return []
        const open = grants.length > 0 && !pap.startsWith("enforced")
        const reason = open ? `The bucket is public: ${grants.join(", ")}.` : grants.length > 0 ? "Public grants exist but public access prevention blocks them." : "The bucket has no public grants."
        return [row(b.name, bucketRegion(b), !open, reason, { public_grants: grants, public_access_prevention: pap })]
      }),
  }),
  defineGcpCheck({
    id: "storage_bucket_uniform_access",
    service: "storage",
    title: "Cloud Storage buckets should have uniform bucket-level access enabled",
    description: "With uniform bucket-level access only IAM controls access; per-object ACLs, which are hard to audit, stop applying.",
    severity: "medium",
    cis: "5.2",
    remediation: "gcloud storage buckets update gs://BUCKET --uniform-bucket-level-access",
    field_labels: { uniform_access: "Uniform bucket-level access" },
    uses: ["storage.buckets"],
    reads: "storage buckets.list → iamConfiguration.uniformBucketLevelAccess.enabled",
    evaluate: (inv) =>
      (inv.storage.buckets ?? []).map((b) => {
        const on = b.iamConfiguration?.uniformBucketLevelAccess?.enabled ?? b.iamConfiguration?.bucketPolicyOnly?.enabled ?? false
        return row(b.name, bucketRegion(b), on, on ? "Uniform bucket-level access is enabled." : "Object ACLs are still in effect (uniform access is off).", { uniform_access: on })
      }),
  }),
  defineGcpCheck({
    id: "storage_bucket_versioning_enabled",
    service: "storage",
    title: "Cloud Storage buckets should keep object versions",
    description: "With versioning, an overwritten or deleted object stays recoverable as a noncurrent version (ransomware, mistakes). Buckets with a retention policy are not judged: the policy keeps every object from being deleted or replaced, and Object Versioning cannot be enabled next to it.",
    severity: "medium",
    remediation: "gcloud storage buckets update gs://BUCKET --versioning (and a lifecycle rule that ages out noncurrent versions).",
    field_labels: { versioning: "Versioning" },
    uses: ["storage.buckets"],
    reads: "storage buckets.list → versioning.enabled, retentionPolicy",
    evaluate: (inv) =>
      (inv.storage.buckets ?? []).map((b) => {
        if (b.retentionPolicy !== undefined) return row(b.name, bucketRegion(b), true, "Not judged: the bucket's retention policy keeps each object from being deleted or replaced (Object Versioning cannot be enabled with one).", { versioning: null })
        const on = b.versioning?.enabled === true
        return row(b.name, bucketRegion(b), on, on ? "Object versioning is on." : "Object versioning is off: overwritten or deleted objects are gone.", { versioning: on })
      }),
  }),
  defineGcpCheck({
    id: "storage_bucket_soft_delete_enabled",
    service: "storage",
    title: "Cloud Storage buckets should keep deleted objects for a while (soft delete)",
    description: "Checks the bucket's soft delete retention is set: deleted objects can be restored during that window.",
    severity: "low",
    remediation: "gcloud storage buckets update gs://BUCKET --soft-delete-duration=7d",
    field_labels: { retention_seconds: "Soft delete retention (s)" },
    uses: ["storage.buckets"],
    reads: "storage buckets.list → softDeletePolicy.retentionDurationSeconds",
    evaluate: (inv) =>
      (inv.storage.buckets ?? []).map((b) => {
        const seconds = Number(b.softDeletePolicy?.retentionDurationSeconds ?? "0")
        return row(b.name, bucketRegion(b), seconds > 0, seconds > 0 ? `Deleted objects are kept ${Math.round(seconds / 86_400)} day(s).` : "Soft delete is off.", { retention_seconds: seconds })
      }),
  }),
  defineGcpCheck({
    id: "storage_bucket_logging_enabled",
    service: "storage",
    title: "Cloud Storage buckets should record usage (access) logs",
    description: "Checks the bucket writes usage logs to a log bucket, a record of who read and wrote objects that Data Access audit logs do not keep by default. A bucket that receives other buckets' usage logs is not judged: a chain of log buckets must end in one that does not log itself.",
    severity: "low",
    remediation: "gcloud storage buckets update gs://BUCKET --log-bucket=gs://LOG_BUCKET --log-object-prefix=BUCKET",
    field_labels: { log_bucket: "Log bucket" },
    uses: ["storage.buckets"],
    reads: "storage buckets.list → logging.logBucket",
    evaluate: (inv) => {
      const destinations = new Set((inv.storage.buckets ?? []).flatMap((b) => (b.logging?.logBucket === undefined || b.logging.logBucket === "" ? [] : [b.logging.logBucket.replace(/^gs:\/\//, "")])))
      return (inv.storage.buckets ?? []).map((b) => {
        const target = b.logging?.logBucket
        if ((target === undefined || target === "") && destinations.has(b.name)) return row(b.name, bucketRegion(b), true, "Not judged: the bucket receives other buckets' usage logs.", { log_bucket: null })
        return row(b.name, bucketRegion(b), target !== undefined && target !== "", target === undefined || target === "" ? "The bucket writes no usage logs." : `Usage logs go to ${target}.`, { log_bucket: target ?? null })
      })
    },
  }),
]
