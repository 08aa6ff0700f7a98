/** ECR checks (FSBP ECR.1, ECR.2, ECR.3; public repository policies). */
import { defineCheck, row } from "../define-check.ts"
import { crossAccountAllowStatements, publicAllowStatements, wildcardActionStatements } from "../policy.ts"

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
  defineCheck({
    id: "ecr_repositories_encrypted_with_cmk",
    service: "ecr",
    title: "ECR repositories should be encrypted with a customer managed KMS key",
    description: "Finds repositories encrypted with AES-256 (S3-managed keys) or the AWS managed aws/ecr key, whose use cannot be restricted or audited through a key policy of your own.",
    severity: "low",
    cis: {},
    remediation: "Encryption is set at creation: create a new repository with --encryption-configuration encryptionType=KMS,kmsKey=KEY_ARN, push the images there and delete the old one.",
    field_labels: { encryption: "Encryption", kms_key: "KMS key" },
    uses: ["ecr.repositories", "ecr.kms"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.ecr.regions.flatMap((r) =>
        (r.repositories ?? [])
          .filter((repo) => !repo.encryptionType.startsWith("KMS") || repo.kmsManager !== undefined)
          .map((repo) => {
            const ok = repo.kmsManager === "CUSTOMER"
            return row(repo.name, r.region, ok, ok ? `Repository ${repo.name} is encrypted with the customer managed key ${repo.kmsKey}.` : repo.encryptionType.startsWith("KMS") ? `Repository ${repo.name} uses the AWS managed key ${repo.kmsKey ?? "aws/ecr"}.` : `Repository ${repo.name} uses ${repo.encryptionType} encryption, not a customer managed key.`, {
              encryption: repo.encryptionType,
              kms_key: repo.kmsKey ?? null,
            })
          }),
      ),
  }),
  defineCheck({
    id: "ecr_repositories_policy_not_permissive",
    service: "ecr",
    title: "ECR repository policies should not grant every action or let other accounts push",
    description: "Finds repository policies that grant ecr:* (or *), or let principals outside the account push, delete or re-permission images without a condition naming the callers.",
    severity: "high",
    cis: {},
    remediation: "Grant other accounts only the pull actions (ecr:BatchGetImage, ecr:GetDownloadUrlForLayer, ecr:BatchCheckLayerAvailability), list the actions instead of ecr:*, or add an aws:PrincipalOrgID condition.",
    field_labels: { permissive_statements: "Permissive statements" },
    uses: ["ecr.repositories", "ecr.policies"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.ecr.regions.flatMap((r) =>
        (r.repositories ?? [])
          .filter((repo) => repo.policy !== undefined)
          .map((repo) => {
            const doc = repo.policy ?? undefined
            const write = ["ecr:PutImage", "ecr:InitiateLayerUpload", "ecr:UploadLayerPart", "ecr:CompleteLayerUpload", "ecr:BatchDeleteImage", "ecr:DeleteRepository", "ecr:SetRepositoryPolicy", "ecr:DeleteRepositoryPolicy"]
            const bad = new Set([...wildcardActionStatements(doc, "ecr"), ...crossAccountAllowStatements(doc, inv.accountId, write)])
            const sids = [...bad].map((s, i) => s.sid ?? `#${i + 1}`)
            return row(repo.name, r.region, sids.length === 0, sids.length === 0 ? `Repository ${repo.name}'s policy is scoped.` : `Repository ${repo.name}'s policy is permissive (${sids.join(", ")}).`, { permissive_statements: sids })
          }),
      ),
  }),
]
