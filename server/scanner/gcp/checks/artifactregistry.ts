/** Artifact Registry checks (beyond CIS GCP Foundations): no public repositories, customer-managed encryption. */
import { row } from "../../rest/engine.ts"
import { publicGrants } from "../context.ts"
import { defineGcpCheck } from "../define-check.ts"

const repoId = (name: string) => name.slice(name.lastIndexOf("/") + 1)

export const artifactregistryChecks = [
  defineGcpCheck({
    id: "artifactregistry_repo_not_public",
    service: "artifactregistry",
    title: "Artifact Registry repositories should not be anonymously or publicly accessible",
    description: "Flags repositories whose IAM policy grants a role to allUsers or allAuthenticatedUsers: anyone can pull (or push) the images and packages.",
    severity: "high",
    remediation: "gcloud artifacts repositories remove-iam-policy-binding REPO --location=LOCATION --member=allUsers --role=ROLE (and allAuthenticatedUsers).",
    field_labels: { public_grants: "Public grants", format: "Format" },
    uses: ["artifactregistry.repositories", "artifactregistry.repository_policies"],
    reads: "artifactregistry repositories.getIamPolicy → bindings[].members ∋ allUsers|allAuthenticatedUsers",
    evaluate: (inv) =>
      (inv.artifactregistry.repositories ?? []).flatMap((r) => {
        if (r.policy === undefined) return []
        const grants = publicGrants(r.policy)
        return [row(repoId(r.name), r.location, grants.length === 0, grants.length === 0 ? "The repository is not public." : `The repository is public: ${grants.join(", ")}.`, { public_grants: grants, format: r.format ?? null })]
      }),
  }),
  defineGcpCheck({
    id: "artifactregistry_repo_cmek",
    service: "artifactregistry",
    title: "Artifact Registry repositories should be encrypted with a customer-managed key",
    description: "Checks each repository names a Cloud KMS key (kmsKeyName); absent means Google-managed encryption, which you cannot rotate, audit or revoke. Virtual repositories store nothing themselves and are not judged.",
    severity: "low",
    remediation: "The key is chosen at creation: create a repository with --kms-key=projects/P/locations/L/keyRings/R/cryptoKeys/K and copy the artifacts.",
    field_labels: { kms_key: "KMS key", format: "Format" },
    uses: ["artifactregistry.repositories"],
    reads: "artifactregistry repositories.list → mode, kmsKeyName",
    evaluate: (inv) =>
      (inv.artifactregistry.repositories ?? []).map((r) => {
        if (r.mode === "VIRTUAL_REPOSITORY") return row(repoId(r.name), r.location, true, "Not judged: a virtual repository stores no artifacts (its upstream repositories are judged).", { kms_key: null, format: r.format ?? null })
        const key = r.kmsKeyName ?? ""
        return row(repoId(r.name), r.location, key !== "", key === "" ? "The repository uses Google-managed encryption." : `The repository is encrypted with ${key}.`, { kms_key: key === "" ? null : key, format: r.format ?? null })
      }),
  }),
]
