/** ECR checks (FSBP ECR.1, ECR.2, ECR.3; public repository policies). */
import { defineCheck, row } from "../define-check.ts"
import { publicAllowStatements } from "../policy.ts"

export const ecrChecks = [
  defineCheck({
    id: "ecr_repositories_scan_images_on_push_enabled",
    service: "ecr",
    title: "ECR repositories should scan images on push",
    description: "Finds repositories whose images are not scanned on push, neither by the repository setting nor by a registry-wide scanning rule.",
    severity: "medium",
    cis: {},
    fsbp: "ECR.1",
    remediation: "aws ecr put-image-scanning-configuration --repository-name R --image-scanning-configuration scanOnPush=true (or a registry scanning rule with filter \"*\").",
    field_labels: { scan_on_push: "Scan on push", registry_scanning: "Registry scanning" },
    uses: ["ecr.repositories", "ecr.registry_scanning"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.ecr.regions.flatMap((r) =>
        (r.repositories ?? []).map((repo) => {
          const registry = r.registryScanning
          const ok = repo.scanOnPush || registry?.coversAll === true
          return row(repo.name, r.region, ok, ok ? `Images pushed to ${repo.name} are scanned.` : `Images pushed to ${repo.name} are not scanned.`, {
            scan_on_push: repo.scanOnPush,
            registry_scanning: registry === undefined ? null : `${registry.type}${registry.coversAll ? " (all repositories)" : ""}`,
          })
        }),
      ),
  }),
  defineCheck({
    id: "ecr_repositories_tag_immutability",
    service: "ecr",
    title: "ECR repositories should have tag immutability configured",
    description: "Finds repositories where an image tag can be moved to a different image.",
    severity: "medium",
    cis: {},
    fsbp: "ECR.2",
    remediation: "aws ecr put-image-tag-mutability --repository-name R --image-tag-mutability IMMUTABLE.",
    field_labels: { tag_mutability: "Tag mutability" },
    uses: ["ecr.repositories"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.ecr.regions.flatMap((r) =>
        (r.repositories ?? []).map((repo) => {
          const ok = repo.tagMutability.startsWith("IMMUTABLE")
          return row(repo.name, r.region, ok, ok ? `Tags in ${repo.name} are immutable.` : `Tags in ${repo.name} are mutable.`, { tag_mutability: repo.tagMutability })
        }),
      ),
  }),
  defineCheck({
    id: "ecr_repositories_lifecycle_policy_enabled",
    service: "ecr",
    title: "ECR repositories should have a lifecycle policy",
    description: "Finds repositories without a lifecycle policy to expire old or untagged images.",
    severity: "low",
    cis: {},
    fsbp: "ECR.3",
    remediation: "aws ecr put-lifecycle-policy --repository-name R --lifecycle-policy-text file://policy.json (e.g. expire untagged images after 14 days).",
    field_labels: { lifecycle_policy: "Lifecycle policy" },
    uses: ["ecr.repositories", "ecr.lifecycle"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.ecr.regions.flatMap((r) =>
        (r.repositories ?? [])
          .filter((repo) => repo.hasLifecyclePolicy !== undefined)
          .map((repo) =>
            row(repo.name, r.region, repo.hasLifecyclePolicy === true, repo.hasLifecyclePolicy === true ? `Repository ${repo.name} has a lifecycle policy.` : `Repository ${repo.name} has no lifecycle policy.`, {
              lifecycle_policy: repo.hasLifecyclePolicy === true,
            }),
          ),
      ),
  }),
  defineCheck({
    id: "ecr_repositories_not_publicly_accessible",
    service: "ecr",
    title: "ECR repository policies should not allow public access",
    description: "Finds repositories whose policy lets any principal pull or push images without a restricting condition.",
    severity: "high",
    cis: {},
    remediation: "Edit the repository policy to name the accounts/roles allowed, or delete it: aws ecr delete-repository-policy --repository-name R.",
    field_labels: { public_statements: "Public statements" },
    uses: ["ecr.repositories", "ecr.policies"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.ecr.regions.flatMap((r) =>
        (r.repositories ?? [])
          .filter((repo) => repo.policy !== undefined)
          .map((repo) => {
            const open = publicAllowStatements(repo.policy ?? undefined)
            return row(repo.name, r.region, open.length === 0, open.length === 0 ? `Repository ${repo.name} is not public.` : `Repository ${repo.name}'s policy allows everyone.`, {
              public_statements: open.map((s, i) => s.sid ?? `#${i + 1}`),
            })
          }),
      ),
  }),
]
