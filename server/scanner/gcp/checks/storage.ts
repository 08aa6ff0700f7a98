/** Cloud Storage checks (CIS GCP v4.0 5.1, 5.2). */
import { row } from "../../rest/engine.ts"
import { publicGrants } from "../context.ts"
import { defineGcpCheck } from "../define-check.ts"
import { bucketRegion } from "../collectors/storage.ts"

export const storageChecks = [
  defineGcpCheck({
    id: "storage_bucket_not_public",
    service: "storage",
    title: "Cloud Storage buckets should not be anonymously or publicly accessible",
    description: "Flags buckets whose IAM policy grants a role to allUsers or allAuthenticatedUsers, unless public access prevention is enforced (which blocks those grants).",
    severity: "critical",
    cis: "5.1",
    remediation: "Enforce public access prevention (gcloud storage buckets update gs://BUCKET --public-access-prevention) and remove the allUsers/allAuthenticatedUsers bindings.",
    field_labels: { public_grants: "Public grants", public_access_prevention: "Public access prevention" },
    uses: ["storage.buckets", "storage.bucket_policies"],
    reads: "storage buckets.getIamPolicy → bindings[].members ∋ allUsers|allAuthenticatedUsers; buckets.list → iamConfiguration.publicAccessPrevention",
    evaluate: (inv) =>
      (inv.storage.buckets ?? []).flatMap((b) => {
        if (b.policy === undefined) return []
        const grants = publicGrants(b.policy)
        const pap = b.iamConfiguration?.publicAccessPrevention ?? "inherited"
        const open = grants.length > 0 && pap !== "enforced"
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
]
