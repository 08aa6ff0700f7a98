/**
 * Neptune and DocumentDB checks. Both are managed through the RDS API (DescribeDBClusters lists their clusters with
 * engine "neptune" / "docdb"), so they read the RDS collector's clusters and cluster snapshots.
 */
import { defineCheck, row } from "../define-check.ts"
import { clusterCheck } from "./rds.ts"

const engineChecks = (service: "neptune" | "documentdb", engine: "neptune" | "docdb", name: string, auditLog: string, tested: { readonly testedWith: "moto" } | { readonly testedWith: "sdk-mock"; readonly mockReason: string }) => {
  const is = (e: string) => e === engine
  const withTest = <T extends object>(c: T) => ({ ...c, ...tested })
  return [
    clusterCheck({
      id: `${service}_cluster_storage_encrypted`,
      service,
      engines: is,
      title: `${name} clusters should be encrypted at rest`,
      description: `Finds ${name} clusters whose storage is not encrypted.`,
      severity: "medium",
      fsbp: service === "neptune" ? "Neptune.1" : "DocumentDB.1",
      remediation: `Encryption is set at creation: snapshot the cluster, restore it with --storage-encrypted and a KMS key, and switch the clients over.`,
      label: "Storage encrypted",
      value: (c) => c.storageEncrypted,
      ok: (c) => c.storageEncrypted,
      pass: (c) => `${name} cluster ${c.id} is encrypted.`,
      fail: (c) => `${name} cluster ${c.id} is not encrypted at rest.`,
    }),
    clusterCheck({
      id: `${service}_cluster_deletion_protection`,
      service,
      engines: is,
      title: `${name} clusters should have deletion protection enabled`,
      description: `Finds ${name} clusters that can be deleted without first disabling deletion protection.`,
      severity: "low",
      fsbp: service === "neptune" ? "Neptune.4" : "DocumentDB.5",
      remediation: `aws ${service === "neptune" ? "neptune" : "docdb"} modify-db-cluster --db-cluster-identifier ID --deletion-protection --apply-immediately.`,
      label: "Deletion protection",
      value: (c) => c.deletionProtection,
      ok: (c) => c.deletionProtection,
      pass: (c) => `${name} cluster ${c.id} has deletion protection.`,
      fail: (c) => `${name} cluster ${c.id} has no deletion protection.`,
    }),
    clusterCheck({
      id: `${service}_cluster_backup_retention_7_days`,
      service,
      engines: is,
      title: `${name} clusters should keep automated backups for at least 7 days`,
      description: `Finds ${name} clusters whose backup retention period is below 7 days.`,
      severity: "medium",
      fsbp: service === "neptune" ? "Neptune.5" : "DocumentDB.2",
      remediation: `aws ${service === "neptune" ? "neptune" : "docdb"} modify-db-cluster --db-cluster-identifier ID --backup-retention-period 7 --apply-immediately.`,
      label: "Backup retention (days)",
      value: (c) => c.backupRetentionDays,
      ok: (c) => c.backupRetentionDays >= 7,
      pass: (c) => `${name} cluster ${c.id} keeps backups for ${c.backupRetentionDays} days.`,
      fail: (c) => `${name} cluster ${c.id} keeps backups for ${c.backupRetentionDays} day(s) (7 required).`,
    }),
    clusterCheck({
      id: `${service}_cluster_audit_logs_exported`,
      service,
      engines: is,
      title: `${name} clusters should publish audit logs to CloudWatch Logs`,
      description: `Finds ${name} clusters that do not export their ${auditLog} log to CloudWatch Logs.`,
      severity: "medium",
      fsbp: service === "neptune" ? "Neptune.2" : "DocumentDB.4",
      remediation: `aws ${service === "neptune" ? "neptune" : "docdb"} modify-db-cluster --db-cluster-identifier ID --cloudwatch-logs-export-configuration '{"EnableLogTypes":["${auditLog}"]}' (and enable auditing in the cluster parameter group).`,
      label: "Exported logs",
      value: (c) => c.logExports.join(", ") || null,
      ok: (c) => c.logExports.includes(auditLog),
      pass: (c) => `${name} cluster ${c.id} exports ${auditLog} logs.`,
      fail: (c) => `${name} cluster ${c.id} does not export ${auditLog} logs.`,
    }),
    ...(service === "neptune"
      ? [
          clusterCheck({
            id: "neptune_cluster_iam_authentication_enabled",
            service,
            engines: is,
            title: "Neptune clusters should use IAM database authentication",
            description: "Finds Neptune clusters that accept unsigned requests (IAM database authentication off).",
            severity: "medium",
            fsbp: "Neptune.7",
            remediation: "aws neptune modify-db-cluster --db-cluster-identifier ID --enable-iam-database-authentication --apply-immediately.",
            label: "IAM authentication",
            value: (c) => c.iamAuth,
            ok: (c) => c.iamAuth,
            pass: (c) => `Neptune cluster ${c.id} requires IAM authentication.`,
            fail: (c) => `Neptune cluster ${c.id} does not use IAM database authentication.`,
          }),
          clusterCheck({
            id: "neptune_cluster_copy_tags_to_snapshots",
            service,
            engines: is,
            title: "Neptune clusters should copy tags to snapshots",
            description: "Finds Neptune clusters whose snapshots do not inherit the cluster tags.",
            severity: "low",
            fsbp: "Neptune.8",
            remediation: "aws neptune modify-db-cluster --db-cluster-identifier ID --copy-tags-to-snapshot --apply-immediately.",
            label: "Copy tags to snapshots",
            value: (c) => c.copyTagsToSnapshot,
            ok: (c) => c.copyTagsToSnapshot,
            pass: (c) => `Neptune cluster ${c.id} copies its tags to snapshots.`,
            fail: (c) => `Neptune cluster ${c.id} does not copy its tags to snapshots.`,
          }),
        ]
      : []),
  ].map((c) =>
    c.id === "neptune_cluster_iam_authentication_enabled"
      ? { ...c, testedWith: "sdk-mock" as const, mockReason: "moto refuses IAM database authentication on non-Aurora clusters (CreateDBCluster) and ModifyDBCluster does not store it, so the compliant case needs a stubbed DescribeDBClusters." }
      : withTest(c),
  )
}

export const neptuneChecks = engineChecks("neptune", "neptune", "Neptune", "audit", { testedWith: "moto" })

export const documentdbChecks = [
  ...engineChecks("documentdb", "docdb", "DocumentDB", "audit", {
    testedWith: "sdk-mock",
    mockReason: "moto's CreateDBCluster rejects the docdb engine, so DocumentDB clusters are answered by a stubbed DescribeDBClusters.",
  }),
  defineCheck({
    id: "documentdb_cluster_snapshots_public_access",
    service: "documentdb",
    title: "DocumentDB cluster snapshots should not be public",
    description: "Finds manual DocumentDB cluster snapshots whose restore attribute includes 'all'.",
    severity: "critical",
    cis: {},
    fsbp: "DocumentDB.3",
    remediation: "aws docdb modify-db-cluster-snapshot-attribute --db-cluster-snapshot-identifier ID --attribute-name restore --values-to-remove all.",
    field_labels: { cluster: "Cluster", public: "Public" },
    uses: ["rds.cluster_snapshots"],
    testedWith: "sdk-mock",
    mockReason: "moto's CreateDBCluster rejects the docdb engine, so DocumentDB snapshots are answered by stubbed DescribeDBClusterSnapshots/attributes.",
    evaluate: (inv) =>
      inv.rds.regions.flatMap((r) =>
        (r.clusterSnapshots ?? [])
          .filter((s) => s.engine === "docdb" && s.public !== undefined)
          .map((s) => row(s.id, r.region, s.public !== true, s.public === true ? `DocumentDB snapshot ${s.id} can be restored by any account.` : `DocumentDB snapshot ${s.id} is private.`, { cluster: s.clusterId, public: s.public === true })),
      ),
  }),
]
