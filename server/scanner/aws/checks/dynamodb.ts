/** DynamoDB checks (FSBP DynamoDB.2, DynamoDB.6; KMS encryption). */
import { defineCheck, row } from "../define-check.ts"

export const dynamodbChecks = [
  defineCheck({
    id: "dynamodb_tables_pitr_enabled",
    service: "dynamodb",
    title: "DynamoDB tables should have point-in-time recovery enabled",
    description: "Finds tables without continuous backups (point-in-time recovery).",
    severity: "medium",
    cis: {},
    fsbp: "DynamoDB.2",
    remediation: "aws dynamodb update-continuous-backups --table-name T --point-in-time-recovery-specification PointInTimeRecoveryEnabled=true.",
    field_labels: { pitr: "Point-in-time recovery" },
    uses: ["dynamodb.tables", "dynamodb.backups"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.dynamodb.regions.flatMap((r) =>
        (r.tables ?? [])
          .filter((t) => t.pitr !== undefined)
          .map((t) => row(t.name, r.region, t.pitr === true, t.pitr === true ? `Table ${t.name} has point-in-time recovery.` : `Table ${t.name} has no point-in-time recovery.`, { pitr: t.pitr === true })),
      ),
  }),
  defineCheck({
    id: "dynamodb_table_deletion_protection_enabled",
    service: "dynamodb",
    title: "DynamoDB tables should have deletion protection enabled",
    description: "Finds tables that can be deleted without first disabling deletion protection.",
    severity: "medium",
    cis: {},
    fsbp: "DynamoDB.6",
    remediation: "aws dynamodb update-table --table-name T --deletion-protection-enabled.",
    field_labels: { deletion_protection: "Deletion protection" },
    uses: ["dynamodb.tables"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.dynamodb.regions.flatMap((r) =>
        (r.tables ?? []).map((t) =>
          row(t.name, r.region, t.deletionProtection, t.deletionProtection ? `Table ${t.name} has deletion protection.` : `Table ${t.name} has no deletion protection.`, { deletion_protection: t.deletionProtection }),
        ),
      ),
  }),
  defineCheck({
    id: "dynamodb_tables_kms_cmk_encryption_enabled",
    service: "dynamodb",
    title: "DynamoDB tables should be encrypted with a KMS key",
    description: "Finds tables encrypted with the default AWS owned key instead of an AWS managed or customer managed KMS key.",
    severity: "low",
    cis: {},
    remediation: "aws dynamodb update-table --table-name T --sse-specification Enabled=true,SSEType=KMS,KMSMasterKeyId=KEY.",
    field_labels: { sse_type: "Encryption", kms_key: "KMS key" },
    uses: ["dynamodb.tables"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.dynamodb.regions.flatMap((r) =>
        (r.tables ?? []).map((t) => {
          const ok = t.sseType === "KMS"
          return row(t.name, r.region, ok, ok ? `Table ${t.name} is encrypted with ${t.kmsKeyArn ?? "a KMS key"}.` : `Table ${t.name} uses the default AWS owned key.`, {
            sse_type: t.sseType ?? "AWS_OWNED",
            kms_key: t.kmsKeyArn ?? null,
          })
        }),
      ),
  }),
  defineCheck({
    id: "dynamodb_table_backed_up",
    service: "dynamodb",
    title: "DynamoDB tables should be backed up",
    description: "Finds tables with neither point-in-time recovery nor an available on-demand/AWS Backup backup taken in the last 35 days.",
    severity: "medium",
    cis: {},
    remediation: "Enable point-in-time recovery (aws dynamodb update-continuous-backups ...), or protect the table with an AWS Backup plan / scheduled aws dynamodb create-backup.",
    field_labels: { pitr: "Point-in-time recovery", last_backup: "Last backup" },
    uses: ["dynamodb.tables", "dynamodb.backups", "dynamodb.backup_list"],
    testedWith: "moto",
    evaluate: (inv, env) =>
      inv.dynamodb.regions.flatMap((r) =>
        (r.tables ?? [])
          .filter((t) => t.pitr !== undefined || t.lastBackup !== undefined)
          .map((t) => {
            const recent = t.lastBackup !== undefined && t.lastBackup !== null && env.now.getTime() - t.lastBackup.getTime() <= 35 * 86_400_000
            const ok = t.pitr === true || recent
            return row(t.name, r.region, ok, ok ? `Table ${t.name} is backed up${t.pitr === true ? " (point-in-time recovery)" : ` (last backup ${t.lastBackup?.toISOString()})`}.` : `Table ${t.name} has no point-in-time recovery and no backup in the last 35 days.`, {
              pitr: t.pitr ?? null,
              last_backup: t.lastBackup?.toISOString() ?? null,
            })
          }),
      ),
  }),
]
