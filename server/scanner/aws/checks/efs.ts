/** EFS checks (CIS AWS v3.0 2.4.1 / v7.0 3.3.1, FSBP EFS.1, EFS.2). */
import { defineCheck, row } from "../define-check.ts"
import { publicAllowStatements } from "../policy.ts"

export const efsChecks = [
  defineCheck({
    id: "efs_encryption_at_rest_enabled",
    service: "efs",
    title: "EFS file systems should be encrypted at rest",
    description: "Finds file systems created without encryption.",
    severity: "medium",
    cis: { v3: "2.4.1", v7: "3.3.1" },
    fsbp: "EFS.1",
    remediation: "Encryption is set at creation: create an encrypted file system (KMS key), copy the data (e.g. AWS DataSync) and switch mounts over.",
    field_labels: { encrypted: "Encrypted", kms_key: "KMS key" },
    uses: ["efs.file_systems"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.efs.regions.flatMap((r) =>
        (r.fileSystems ?? []).map((f) => row(f.id, r.region, f.encrypted, f.encrypted ? `File system ${f.id} is encrypted.` : `File system ${f.id} is not encrypted.`, { encrypted: f.encrypted, kms_key: f.kmsKeyId ?? null })),
      ),
  }),
  defineCheck({
    id: "efs_have_backup_enabled",
    service: "efs",
    title: "EFS file systems should have automatic backups enabled",
    description: "Finds file systems whose backup policy is not ENABLED.",
    severity: "medium",
    cis: {},
    fsbp: "EFS.2",
    remediation: "aws efs put-backup-policy --file-system-id ID --backup-policy Status=ENABLED.",
    field_labels: { backup: "Backup policy" },
    uses: ["efs.file_systems", "efs.backup_policies"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.efs.regions.flatMap((r) =>
        (r.fileSystems ?? [])
          .filter((f) => f.backup !== undefined)
          .map((f) => row(f.id, r.region, f.backup === "ENABLED", f.backup === "ENABLED" ? `File system ${f.id} is backed up automatically.` : `File system ${f.id} backup policy is ${f.backup ?? "not set"}.`, { backup: f.backup ?? null })),
      ),
  }),
  defineCheck({
    id: "efs_not_publicly_accessible",
    service: "efs",
    title: "EFS file system policies should not allow public access",
    description: "Finds file systems with no file system policy (any client that can reach a mount target gets full access) or a policy that allows everyone without conditions.",
    severity: "high",
    cis: {},
    remediation: "Attach a file system policy that grants only the needed principals and denies non-TLS access (aws:SecureTransport false).",
    field_labels: { has_policy: "Has policy", public_statements: "Public statements" },
    uses: ["efs.file_systems", "efs.policies"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.efs.regions.flatMap((r) =>
        (r.fileSystems ?? [])
          .filter((f) => f.policy !== undefined)
          .map((f) => {
            const open = publicAllowStatements(f.policy ?? undefined)
            const ok = f.policy !== null && open.length === 0
            return row(f.id, r.region, ok, f.policy === null ? `File system ${f.id} has no policy, so any client with network access has full access.` : ok ? `File system ${f.id}'s policy is not public.` : `File system ${f.id}'s policy allows everyone.`, {
              has_policy: f.policy !== null,
              public_statements: open.map((s, i) => s.sid ?? `#${i + 1}`),
            })
          }),
      ),
  }),
]
