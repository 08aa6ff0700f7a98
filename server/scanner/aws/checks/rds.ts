/** RDS checks (CIS AWS v3.0 2.3.x / v7.0 3.2.x, FSBP RDS.x). */
import type { DbCluster, DbInstance, RdsRegion } from "../collectors/rds.ts"
import type { DetailRow } from "../../check.ts"
import { defineCheck, row } from "../define-check.ts"

/** Default listener port of each engine family (an attacker's first guess). */
export function defaultPort(engine: string): number | undefined {
  if (/mysql|mariadb|^aurora$/.test(engine)) return 3306
  if (/postgres/.test(engine)) return 5432
  if (/^oracle/.test(engine)) return 1521
  if (/^sqlserver/.test(engine)) return 1433
  if (/^db2/.test(engine)) return 50000
  if (engine === "docdb") return 27017
  if (engine === "neptune") return 8182
  return undefined
}

/** Master user names that AWS examples and engine defaults use, tried first by credential-stuffing tools. */
export const DEFAULT_MASTER_USERNAMES: ReadonlyArray<string> = ["admin", "administrator", "root", "postgres", "sa", "master", "awsuser", "dbadmin", "rdsadmin", "mysql", "oracle", "system"]

const isRdsEngine = (engine: string) => engine !== "neptune" && engine !== "docdb"

/** Standalone instances (Aurora members are judged on their cluster). */
const standalone = (r: RdsRegion) => (r.instances ?? []).filter((i) => i.clusterId === undefined && isRdsEngine(i.engine))

type ClusterSpec = {
  readonly id: string
  readonly service?: string
  readonly engines: (engine: string) => boolean
  readonly title: string
  readonly description: string
  readonly severity: "critical" | "high" | "medium" | "low"
  readonly fsbp?: string
  readonly remediation: string
  readonly label: string
  readonly value: (c: DbCluster) => boolean | number | string | null
  readonly ok: (c: DbCluster) => boolean
  readonly pass: (c: DbCluster) => string
  readonly fail: (c: DbCluster) => string
  readonly uses?: ReadonlyArray<"rds.clusters" | "rds.kms">
  readonly applies?: (c: DbCluster) => boolean
}

export const clusterCheck = (spec: ClusterSpec) =>
  defineCheck({
    id: spec.id,
    service: spec.service ?? "rds",
    title: spec.title,
    description: spec.description,
    severity: spec.severity,
    cis: {},
    ...(spec.fsbp === undefined ? {} : { fsbp: spec.fsbp }),
    remediation: spec.remediation,
    field_labels: { engine: "Engine", setting: spec.label },
    uses: spec.uses ?? ["rds.clusters"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.rds.regions.flatMap((r) =>
        (r.clusters ?? [])
          .filter((c) => spec.engines(c.engine) && (spec.applies?.(c) ?? true))
          .map((c): DetailRow => {
            const ok = spec.ok(c)
            return row(c.id, r.region, ok, ok ? spec.pass(c) : spec.fail(c), { engine: c.engine, setting: spec.value(c) })
          }),
      ),
  })

const aurora = (engine: string) => isRdsEngine(engine)

const instanceCheck = (spec: {
  readonly id: string
  readonly title: string
  readonly description: string
  readonly severity: "critical" | "high" | "medium" | "low"
  readonly cis: { readonly v3?: string; readonly v7?: string }
  readonly fsbp: string
  readonly remediation: string
  readonly label: string
  readonly value: (i: DbInstance) => boolean | number | string | null
  readonly ok: (i: DbInstance) => boolean
  readonly pass: (i: DbInstance) => string
  readonly fail: (i: DbInstance) => string
  /** Which instances the check judges (default: every instance). */
  readonly applies?: (i: DbInstance, r: RdsRegion) => boolean
  readonly uses?: ReadonlyArray<"rds.instances" | "rds.kms">
}) =>
  defineCheck({
    id: spec.id,
    service: "rds",
    title: spec.title,
    description: spec.description,
    severity: spec.severity,
    cis: spec.cis,
    ...(spec.fsbp === "" ? {} : { fsbp: spec.fsbp }),
    remediation: spec.remediation,
    field_labels: { engine: "Engine", setting: spec.label },
    uses: spec.uses ?? ["rds.instances"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.rds.regions.flatMap((r) =>
        (r.instances ?? []).filter((i) => spec.applies?.(i, r) ?? true).map((i) => {
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
  defineCheck({
    id: "rds_snapshots_encrypted",
    service: "rds",
    title: "RDS DB snapshots should be encrypted",
    description: "Finds manual DB snapshots whose storage is not encrypted: anyone the snapshot is shared with, or who can copy it, reads the data in clear.",
    severity: "medium",
    cis: {},
    remediation: "Copy the snapshot with a KMS key (aws rds copy-db-snapshot --kms-key-id KEY ...), delete the unencrypted original, and encrypt the source instance.",
    field_labels: { instance: "DB instance", encrypted: "Encrypted" },
    uses: ["rds.snapshots"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.rds.regions.flatMap((r) =>
        (r.snapshots ?? []).map((s) => row(s.id, r.region, s.encrypted, s.encrypted ? `Snapshot ${s.id} is encrypted.` : `Snapshot ${s.id} of ${s.instanceId} is not encrypted.`, { instance: s.instanceId, encrypted: s.encrypted })),
      ),
  }),
  instanceCheck({
    id: "rds_instance_default_port",
    title: "RDS DB instances should not listen on the engine's default port",
    description: "Finds standalone DB instances listening on their engine's well-known port (3306, 5432, 1521, 1433, ...), the first port scanners probe.",
    severity: "low",
    cis: {},
    fsbp: "RDS.23",
    remediation: "aws rds modify-db-instance --db-instance-identifier ID --db-port-number PORT --apply-immediately, then update the clients and the security group.",
    label: "Port",
    value: (i) => i.port ?? null,
    ok: (i) => i.port === undefined || i.port !== defaultPort(i.engine),
    pass: (i) => `DB instance ${i.id} listens on ${i.port ?? "an unknown port"}.`,
    fail: (i) => `DB instance ${i.id} listens on the ${i.engine} default port ${i.port}.`,
    applies: (i) => i.clusterId === undefined && isRdsEngine(i.engine),
  }),
  instanceCheck({
    id: "rds_instance_default_admin_username",
    title: "RDS DB instances should not use a default master user name",
    description: `Finds standalone DB instances whose master user is a default or guessable name (${DEFAULT_MASTER_USERNAMES.join(", ")}).`,
    severity: "medium",
    cis: {},
    fsbp: "RDS.25",
    remediation: "The master user name cannot be changed in place: restore a snapshot into a new instance with a unique master user name (or create a new admin user and stop using the default one).",
    label: "Master user",
    value: (i) => i.masterUsername ?? null,
    ok: (i) => i.masterUsername === undefined || !DEFAULT_MASTER_USERNAMES.includes(i.masterUsername.toLowerCase()),
    pass: (i) => `DB instance ${i.id} has a custom master user name.`,
    fail: (i) => `DB instance ${i.id} uses the default master user name "${i.masterUsername}".`,
    applies: (i) => i.clusterId === undefined && isRdsEngine(i.engine),
  }),
  instanceCheck({
    id: "rds_instance_encrypted_with_cmk",
    title: "Encrypted RDS DB instances should use a customer managed KMS key",
    description: "Finds encrypted standalone DB instances whose storage key is the AWS managed aws/rds key, whose policy cannot be restricted or audited, so snapshots cannot be shared with selected accounts either.",
    severity: "low",
    cis: {},
    fsbp: "",
    remediation: "Copy a snapshot with a customer managed key (aws rds copy-db-snapshot --kms-key-id KEY), restore it into a new instance and switch the clients over.",
    label: "KMS key",
    value: (i) => i.kmsKeyId ?? null,
    ok: (i) => i.kmsManager === "CUSTOMER",
    pass: (i) => `DB instance ${i.id} is encrypted with the customer managed key ${i.kmsKeyId}.`,
    fail: (i) => `DB instance ${i.id} is encrypted with the AWS managed key ${i.kmsKeyId}.`,
    applies: (i) => i.clusterId === undefined && i.storageEncrypted && i.kmsManager !== undefined,
    uses: ["rds.instances", "rds.kms"],
  }),
  instanceCheck({
    id: "rds_instance_copy_tags_to_snapshots",
    title: "RDS DB instances should copy tags to snapshots",
    description: "Finds standalone DB instances whose snapshots do not inherit the instance tags (ownership, data classification, cost allocation).",
    severity: "low",
    cis: {},
    fsbp: "RDS.17",
    remediation: "aws rds modify-db-instance --db-instance-identifier ID --copy-tags-to-snapshot --apply-immediately.",
    label: "Copy tags to snapshots",
    value: (i) => i.copyTagsToSnapshot,
    ok: (i) => i.copyTagsToSnapshot,
    pass: (i) => `DB instance ${i.id} copies its tags to snapshots.`,
    fail: (i) => `DB instance ${i.id} does not copy its tags to snapshots.`,
    applies: (i) => i.clusterId === undefined && isRdsEngine(i.engine),
  }),
  instanceCheck({
    id: "rds_instance_integration_cloudwatch_logs",
    title: "RDS DB instances should publish database logs to CloudWatch Logs",
    description: "Finds standalone DB instances that export no database log (error, general, slow query, audit, postgresql, ...) to CloudWatch Logs.",
    severity: "medium",
    cis: {},
    fsbp: "RDS.9",
    remediation: "aws rds modify-db-instance --db-instance-identifier ID --cloudwatch-logs-export-configuration '{\"EnableLogTypes\":[\"error\",\"general\",\"slowquery\"]}' (log types depend on the engine).",
    label: "Exported logs",
    value: (i) => i.logExports.join(", ") || null,
    ok: (i) => i.logExports.length > 0,
    pass: (i) => `DB instance ${i.id} exports ${i.logExports.join(", ")} logs.`,
    fail: (i) => `DB instance ${i.id} exports no logs to CloudWatch Logs.`,
    applies: (i) => i.clusterId === undefined && isRdsEngine(i.engine),
  }),
  instanceCheck({
    id: "rds_instance_certificate_not_expired_authority",
    title: "RDS DB instances should not use a retired certificate authority",
    description: "Finds DB instances whose server certificate is issued by a retired RDS CA (rds-ca-2015, rds-ca-2019): clients validating TLS fail or, worse, are configured to skip validation.",
    severity: "medium",
    cis: {},
    fsbp: "",
    remediation: "aws rds modify-db-instance --db-instance-identifier ID --ca-certificate-identifier rds-ca-rsa2048-g1 --apply-immediately after updating the client trust stores.",
    label: "CA certificate",
    value: (i) => i.caCertificate ?? null,
    ok: (i) => i.caCertificate === undefined || !/^rds-ca-(2015|2019)/.test(i.caCertificate),
    pass: (i) => `DB instance ${i.id} uses ${i.caCertificate ?? "the default CA"}.`,
    fail: (i) => `DB instance ${i.id} uses the retired ${i.caCertificate}.`,
  }),
  clusterCheck({
    id: "rds_cluster_storage_encrypted",
    engines: aurora,
    title: "RDS DB clusters should be encrypted at rest",
    description: "Finds Aurora/Multi-AZ DB clusters whose storage is not encrypted.",
    severity: "medium",
    fsbp: "RDS.27",
    remediation: "Encryption cannot be turned on in place: snapshot the cluster, restore the snapshot with a KMS key and switch the clients over.",
    label: "Storage encrypted",
    value: (c) => c.storageEncrypted,
    ok: (c) => c.storageEncrypted,
    pass: (c) => `Cluster ${c.id} is encrypted.`,
    fail: (c) => `Cluster ${c.id} is not encrypted at rest.`,
  }),
  clusterCheck({
    id: "rds_cluster_deletion_protection",
    engines: aurora,
    title: "RDS DB clusters should have deletion protection enabled",
    description: "Finds DB clusters that can be deleted without first disabling deletion protection.",
    severity: "low",
    fsbp: "RDS.7",
    remediation: "aws rds modify-db-cluster --db-cluster-identifier ID --deletion-protection --apply-immediately.",
    label: "Deletion protection",
    value: (c) => c.deletionProtection,
    ok: (c) => c.deletionProtection,
    pass: (c) => `Cluster ${c.id} has deletion protection.`,
    fail: (c) => `Cluster ${c.id} has no deletion protection.`,
  }),
  clusterCheck({
    id: "rds_cluster_iam_authentication_enabled",
    engines: aurora,
    title: "RDS DB clusters should use IAM database authentication",
    description: "Finds MySQL/PostgreSQL-compatible DB clusters without IAM database authentication.",
    severity: "medium",
    fsbp: "RDS.12",
    remediation: "aws rds modify-db-cluster --db-cluster-identifier ID --enable-iam-database-authentication --apply-immediately.",
    label: "IAM authentication",
    value: (c) => c.iamAuth,
    ok: (c) => c.iamAuth,
    pass: (c) => `Cluster ${c.id} accepts IAM authentication.`,
    fail: (c) => `Cluster ${c.id} does not use IAM database authentication.`,
  }),
  clusterCheck({
    id: "rds_cluster_multi_az",
    engines: aurora,
    title: "RDS DB clusters should span multiple Availability Zones",
    description: "Finds DB clusters whose instances all run in one Availability Zone.",
    severity: "medium",
    fsbp: "RDS.15",
    remediation: "Add a reader instance in another Availability Zone (aws rds create-db-instance --db-cluster-identifier ID --availability-zone AZ ...).",
    label: "Multi-AZ",
    value: (c) => c.multiAz,
    ok: (c) => c.multiAz,
    pass: (c) => `Cluster ${c.id} spans several Availability Zones.`,
    fail: (c) => `Cluster ${c.id} runs in a single Availability Zone.`,
  }),
  clusterCheck({
    id: "rds_cluster_copy_tags_to_snapshots",
    engines: aurora,
    title: "RDS DB clusters should copy tags to snapshots",
    description: "Finds DB clusters whose snapshots do not inherit the cluster tags.",
    severity: "low",
    fsbp: "RDS.16",
    remediation: "aws rds modify-db-cluster --db-cluster-identifier ID --copy-tags-to-snapshot --apply-immediately.",
    label: "Copy tags to snapshots",
    value: (c) => c.copyTagsToSnapshot,
    ok: (c) => c.copyTagsToSnapshot,
    pass: (c) => `Cluster ${c.id} copies its tags to snapshots.`,
    fail: (c) => `Cluster ${c.id} does not copy its tags to snapshots.`,
  }),
  clusterCheck({
    id: "rds_cluster_backtrack_enabled",
    engines: (e) => e === "aurora-mysql" || e === "aurora",
    title: "Aurora MySQL clusters should have backtracking enabled",
    description: "Finds Aurora MySQL clusters without a backtrack window, so a bad write can only be undone by a full restore.",
    severity: "medium",
    fsbp: "RDS.14",
    remediation: "Backtracking is set when the cluster is created or restored: restore a snapshot with --backtrack-window 86400 (seconds) and switch over.",
    label: "Backtrack window (s)",
    value: (c) => c.backtrackWindow,
    ok: (c) => c.backtrackWindow > 0,
    pass: (c) => `Cluster ${c.id} can backtrack ${c.backtrackWindow} s.`,
    fail: (c) => `Cluster ${c.id} has backtracking disabled.`,
  }),
  clusterCheck({
    id: "rds_cluster_default_admin_username",
    engines: aurora,
    title: "RDS DB clusters should not use a default master user name",
    description: `Finds DB clusters whose master user is a default or guessable name (${DEFAULT_MASTER_USERNAMES.join(", ")}).`,
    severity: "medium",
    fsbp: "RDS.24",
    remediation: "Restore a snapshot into a new cluster with a unique master user name, or create a separate admin user and stop using the default one.",
    label: "Master user",
    value: (c) => c.masterUsername ?? null,
    ok: (c) => c.masterUsername === undefined || !DEFAULT_MASTER_USERNAMES.includes(c.masterUsername.toLowerCase()),
    pass: (c) => `Cluster ${c.id} has a custom master user name.`,
    fail: (c) => `Cluster ${c.id} uses the default master user name "${c.masterUsername}".`,
  }),
  clusterCheck({
    id: "rds_cluster_default_port",
    engines: aurora,
    title: "RDS DB clusters should not listen on the engine's default port",
    description: "Finds DB clusters listening on their engine's well-known port (3306 or 5432).",
    severity: "low",
    fsbp: "RDS.23",
    remediation: "aws rds modify-db-cluster --db-cluster-identifier ID --port PORT --apply-immediately, then update the clients and the security group.",
    label: "Port",
    value: (c) => c.port ?? null,
    ok: (c) => c.port === undefined || c.port !== defaultPort(c.engine),
    pass: (c) => `Cluster ${c.id} listens on ${c.port ?? "an unknown port"}.`,
    fail: (c) => `Cluster ${c.id} listens on the ${c.engine} default port ${c.port}.`,
  }),
  clusterCheck({
    id: "rds_cluster_encrypted_with_cmk",
    engines: aurora,
    title: "Encrypted RDS DB clusters should use a customer managed KMS key",
    description: "Finds encrypted DB clusters whose storage key is the AWS managed aws/rds key.",
    severity: "low",
    remediation: "Restore a snapshot copied with a customer managed key into a new cluster and switch the clients over.",
    label: "KMS key",
    value: (c) => c.kmsKeyId ?? null,
    ok: (c) => c.kmsManager === "CUSTOMER",
    pass: (c) => `Cluster ${c.id} is encrypted with the customer managed key ${c.kmsKeyId}.`,
    fail: (c) => `Cluster ${c.id} is encrypted with the AWS managed key ${c.kmsKeyId}.`,
    applies: (c) => c.storageEncrypted && c.kmsManager !== undefined,
    uses: ["rds.clusters", "rds.kms"],
  }),
  ...(["encrypted", "public"] as const).map((what) =>
    defineCheck({
      id: what === "public" ? "rds_cluster_snapshots_public_access" : "rds_cluster_snapshots_encrypted",
      service: "rds",
      title: what === "public" ? "RDS cluster snapshots should not be public" : "RDS cluster snapshots should be encrypted",
      description: what === "public" ? "Finds manual DB cluster snapshots whose restore attribute includes 'all'." : "Finds manual DB cluster snapshots whose storage is not encrypted.",
      severity: what === "public" ? "critical" : "medium",
      cis: {},
      ...(what === "public" ? { fsbp: "RDS.4" } : {}),
      remediation:
        what === "public"
          ? "aws rds modify-db-cluster-snapshot-attribute --db-cluster-snapshot-identifier ID --attribute-name restore --values-to-remove all."
          : "Copy the snapshot with a KMS key (aws rds copy-db-cluster-snapshot --kms-key-id KEY ...) and delete the unencrypted original.",
      field_labels: { cluster: "DB cluster", setting: what === "public" ? "Public" : "Encrypted" },
      uses: ["rds.cluster_snapshots"],
      testedWith: "moto",
      evaluate: (inv) =>
        inv.rds.regions.flatMap((r) =>
          (r.clusterSnapshots ?? [])
            .filter((s) => isRdsEngine(s.engine) && (what === "encrypted" || s.public !== undefined))
            .map((s) => {
              const ok = what === "public" ? s.public !== true : s.encrypted
              const reason =
                what === "public"
                  ? ok ? `Cluster snapshot ${s.id} is private.` : `Cluster snapshot ${s.id} can be restored by any account.`
                  : ok ? `Cluster snapshot ${s.id} is encrypted.` : `Cluster snapshot ${s.id} of ${s.clusterId} is not encrypted.`
              return row(s.id, r.region, ok, reason, { cluster: s.clusterId, setting: what === "public" ? s.public === true : s.encrypted })
            }),
        ),
    }),
  ),
  defineCheck({
    id: "rds_instance_event_subscription_critical_events",
    service: "rds",
    title: "An RDS event subscription should notify on critical DB instance events",
    description: "Checks, per region with DB instances, that an enabled event subscription covers instance failures, maintenance and configuration changes for every instance.",
    severity: "low",
    cis: {},
    fsbp: "RDS.20",
    remediation: "aws rds create-event-subscription --subscription-name db-critical --sns-topic-arn TOPIC --source-type db-instance --event-categories failure maintenance \"configuration change\".",
    field_labels: { subscriptions: "Covering subscriptions" },
    uses: ["rds.instances", "rds.event_subscriptions"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.rds.regions.flatMap((r) => {
        if (r.eventSubscriptions === undefined || (r.instances ?? []).length === 0) return []
        const wanted = ["failure", "maintenance", "configuration change"]
        const covering = r.eventSubscriptions
          .filter((s) => s.enabled && s.sourceType === "db-instance" && s.sourceIds.length === 0 && (s.categories.length === 0 || wanted.every((w) => s.categories.includes(w))))
          .map((s) => s.name)
        return [
          row(`${inv.accountId}/${r.region}`, r.region, covering.length > 0, covering.length > 0 ? `Critical DB instance events in ${r.region} are sent by ${covering.join(", ")}.` : `No enabled subscription sends failure, maintenance and configuration-change events of every DB instance in ${r.region}.`, {
            subscriptions: covering,
          }),
        ]
      }),
  }),
]
