/** RDS checks (CIS AWS v3.0 2.3.x / v7.0 3.2.x, FSBP RDS.x). */
import type { DbInstance } from "../collectors/rds.ts"
import { defineCheck, row } from "../define-check.ts"

const instanceCheck = (spec: {
  readonly id: string
  readonly title: string
  readonly description: string
  readonly severity: "critical" | "high" | "medium" | "low"
  readonly cis: { readonly v3?: string; readonly v7?: string }
  readonly fsbp: string
  readonly remediation: string
  readonly label: string
  readonly value: (i: DbInstance) => boolean | number
  readonly ok: (i: DbInstance) => boolean
  readonly pass: (i: DbInstance) => string
  readonly fail: (i: DbInstance) => string
}) =>
  defineCheck({
    id: spec.id,
    service: "rds",
    title: spec.title,
    description: spec.description,
    severity: spec.severity,
    cis: spec.cis,
    fsbp: spec.fsbp,
    remediation: spec.remediation,
    field_labels: { engine: "Engine", setting: spec.label },
    uses: ["rds.instances"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.rds.regions.flatMap((r) =>
        (r.instances ?? []).map((i) => {
          const ok = spec.ok(i)
          return row(i.id, r.region, ok, ok ? spec.pass(i) : spec.fail(i), { engine: i.engine, setting: spec.value(i) })
        }),
      ),
  })

export const rdsChecks = [
  instanceCheck({
    id: "rds_instance_storage_encrypted",
    title: "RDS DB instances should be encrypted at rest",
    description: "Finds DB instances whose storage is not encrypted.",
    severity: "medium",
    cis: { v3: "2.3.1", v7: "3.2.1" },
    fsbp: "RDS.3",
    remediation: "Encryption cannot be turned on in place: snapshot the instance, copy the snapshot with a KMS key, restore it and switch clients over.",
    label: "Storage encrypted",
    value: (i) => i.storageEncrypted,
    ok: (i) => i.storageEncrypted,
    pass: (i) => `DB instance ${i.id} is encrypted.`,
    fail: (i) => `DB instance ${i.id} is not encrypted at rest.`,
  }),
  instanceCheck({
    id: "rds_instance_minor_version_upgrade_enabled",
    title: "RDS automatic minor version upgrades should be enabled",
    description: "Finds DB instances that do not receive minor engine upgrades automatically.",
    severity: "medium",
    cis: { v3: "2.3.2", v7: "3.2.2" },
    fsbp: "RDS.13",
    remediation: "aws rds modify-db-instance --db-instance-identifier ID --auto-minor-version-upgrade --apply-immediately.",
    label: "Auto minor version upgrade",
    value: (i) => i.autoMinorVersionUpgrade,
    ok: (i) => i.autoMinorVersionUpgrade,
    pass: (i) => `DB instance ${i.id} upgrades minor versions automatically.`,
    fail: (i) => `DB instance ${i.id} has auto minor version upgrade disabled.`,
  }),
  instanceCheck({
    id: "rds_instance_no_public_access",
    title: "RDS DB instances should not be publicly accessible",
    description: "Finds DB instances with PubliclyAccessible set, which gives them an internet-resolvable address.",
    severity: "critical",
    cis: { v3: "2.3.3", v7: "3.2.3" },
    fsbp: "RDS.2",
    remediation: "aws rds modify-db-instance --db-instance-identifier ID --no-publicly-accessible --apply-immediately (clients outside the VPC lose access).",
    label: "Publicly accessible",
    value: (i) => i.publiclyAccessible,
    ok: (i) => !i.publiclyAccessible,
    pass: (i) => `DB instance ${i.id} is not publicly accessible.`,
    fail: (i) => `DB instance ${i.id} is publicly accessible.`,
  }),
  instanceCheck({
    id: "rds_instance_multi_az",
    title: "RDS DB instances should be configured with multiple Availability Zones",
    description: "Finds DB instances (outside Aurora clusters) without a Multi-AZ standby.",
    severity: "medium",
    cis: { v7: "3.2.4" },
    fsbp: "RDS.5",
    remediation: "aws rds modify-db-instance --db-instance-identifier ID --multi-az --apply-immediately.",
    label: "Multi-AZ",
    value: (i) => i.multiAz,
    ok: (i) => i.multiAz || i.clusterId !== undefined,
    pass: (i) => `DB instance ${i.id} is Multi-AZ${i.clusterId === undefined ? "" : " (cluster member)"}.`,
    fail: (i) => `DB instance ${i.id} runs in a single Availability Zone.`,
  }),
  instanceCheck({
    id: "rds_instance_backup_enabled",
    title: "RDS DB instances should have automatic backups enabled",
    description: "Finds DB instances with a backup retention period below 7 days.",
    severity: "medium",
    cis: {},
    fsbp: "RDS.11",
    remediation: "aws rds modify-db-instance --db-instance-identifier ID --backup-retention-period 7 --apply-immediately.",
    label: "Backup retention (days)",
    value: (i) => i.backupRetentionDays,
    ok: (i) => i.backupRetentionDays >= 7,
    pass: (i) => `DB instance ${i.id} keeps backups for ${i.backupRetentionDays} days.`,
    fail: (i) => `DB instance ${i.id} keeps backups for ${i.backupRetentionDays} days (7 required).`,
  }),
  instanceCheck({
    id: "rds_instance_deletion_protection",
    title: "RDS DB instances should have deletion protection enabled",
    description: "Finds DB instances that can be deleted without first disabling deletion protection.",
    severity: "low",
    cis: {},
    fsbp: "RDS.8",
    remediation: "aws rds modify-db-instance --db-instance-identifier ID --deletion-protection --apply-immediately.",
    label: "Deletion protection",
    value: (i) => i.deletionProtection,
    ok: (i) => i.deletionProtection,
    pass: (i) => `DB instance ${i.id} has deletion protection.`,
    fail: (i) => `DB instance ${i.id} has no deletion protection.`,
  }),
  instanceCheck({
    id: "rds_instance_iam_authentication_enabled",
    title: "RDS DB instances should use IAM database authentication",
    description: "Finds MySQL/PostgreSQL/MariaDB instances without IAM database authentication.",
    severity: "medium",
    cis: {},
    fsbp: "RDS.10",
    remediation: "aws rds modify-db-instance --db-instance-identifier ID --enable-iam-database-authentication --apply-immediately, then grant rds_iam to the database users.",
    label: "IAM authentication",
    value: (i) => i.iamAuth,
    ok: (i) => i.iamAuth || !/mysql|postgres|mariadb/.test(i.engine),
    pass: (i) => `DB instance ${i.id} accepts IAM authentication (or its engine does not support it).`,
    fail: (i) => `DB instance ${i.id} does not use IAM database authentication.`,
  }),
  defineCheck({
    id: "rds_snapshots_public_access",
    service: "rds",
    title: "RDS snapshots should not be public",
    description: "Finds manual DB snapshots whose restore attribute includes 'all'.",
    severity: "critical",
    cis: {},
    fsbp: "RDS.1",
    remediation: "aws rds modify-db-snapshot-attribute --db-snapshot-identifier ID --attribute-name restore --values-to-remove all.",
    field_labels: { instance: "DB instance", public: "Public" },
    uses: ["rds.snapshots"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.rds.regions.flatMap((r) =>
        (r.snapshots ?? [])
          .filter((s) => s.public !== undefined)
          .map((s) => row(s.id, r.region, s.public !== true, s.public === true ? `Snapshot ${s.id} can be restored by any account.` : `Snapshot ${s.id} is private.`, { instance: s.instanceId, public: s.public === true })),
      ),
  }),
]
