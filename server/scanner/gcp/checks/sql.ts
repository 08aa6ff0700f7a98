/**
 * Cloud SQL checks (CIS GCP v4.0 section 6): engine flags, TLS, authorized networks, public IP and backups.
 * A flag that is not set takes Cloud SQL's default, which each rule states (e.g. log_min_messages defaults to
 * WARNING, which complies; log_connections defaults to off, which does not).
 */
import type { DetailRow } from "../../check.ts"
import { row } from "../../rest/engine.ts"
import { internetRanges } from "../../ip-ranges.ts"
import { defineGcpCheck } from "../define-check.ts"
import type { SqlInstance } from "../collectors/sql.ts"

type Engine = "MYSQL" | "POSTGRES" | "SQLSERVER"

/**
 * Instance kinds (DatabaseInstance.instanceType; absent = CLOUD_SQL_INSTANCE, see defaults.ts). An
 * ON_PREMISES_INSTANCE entry stands for an external source server being replicated in: none of the Cloud SQL
 * settings apply to it. Read replicas and read pool instances have no backups, standby or recovery window of
 * their own (the primary's cover them).
 */
const kindOf = (i: SqlInstance): string => i.instanceType ?? "CLOUD_SQL_INSTANCE"
const isOnPremises = (i: SqlInstance) => kindOf(i) === "ON_PREMISES_INSTANCE"
const REPLICA_KINDS: Readonly<Record<string, string>> = {
  READ_REPLICA_INSTANCE: "a read replica has no automated backups, standby or recovery window of its own (its primary's cover it)",
  READ_POOL_INSTANCE: "a read pool instance has no automated backups, standby or recovery window of its own (its primary's cover it)",
  ON_PREMISES_INSTANCE: "an on-premises entry describes an external source server, not a Cloud SQL instance",
}

/** The instances a check judges; the others get a compliant "Not judged" row that says why. */
function judged(instances: ReadonlyArray<SqlInstance> | undefined, excluded: (i: SqlInstance) => string | undefined, judge: (i: SqlInstance) => DetailRow, blank: Readonly<Record<string, DetailRow[string]>>): DetailRow[] {
  return (instances ?? []).map((i) => {
    const why = excluded(i)
    return why === undefined ? judge(i) : row(i.name, region(i), true, `Not judged: ${why}.`, blank)
  })
}
const onPremisesOnly = (i: SqlInstance) => (isOnPremises(i) ? REPLICA_KINDS["ON_PREMISES_INSTANCE"] : undefined)
const primariesOnly = (i: SqlInstance) => REPLICA_KINDS[kindOf(i)]

const engineOf = (i: SqlInstance): string => (i.databaseVersion ?? "").split("_")[0] ?? ""
const flagValue = (i: SqlInstance, name: string) => i.settings?.databaseFlags?.find((f) => f.name === name)?.value
const region = (i: SqlInstance) => i.region ?? "global"

const PG_SEVERITY = ["debug5", "debug4", "debug3", "debug2", "debug1", "info", "notice", "warning", "error", "log", "fatal", "panic"]
const pgAtLeast = (minimum: string) => (v: string | undefined) => {
  const rank = PG_SEVERITY.indexOf((v ?? minimum).toLowerCase())
  return rank >= PG_SEVERITY.indexOf(minimum)
}
const equalsIgnoreCase = (expected: string) => (v: string | undefined) => v !== undefined && v.toLowerCase() === expected
const unsetOr = (expected: string) => (v: string | undefined) => v === undefined || v.toLowerCase() === expected

interface FlagRule {
  readonly id: string
  readonly cis: string
  readonly engine: Engine
  readonly flag: string
  readonly want: string
  readonly ok: (value: string | undefined) => boolean
  readonly severity?: "high" | "medium" | "low"
  /** The value the fixer sets (null: it removes the flag). */
  readonly fixTo: string | null
}

const flagRules: ReadonlyArray<FlagRule> = [
  { id: "cloudsql_mysql_skip_show_database_on", cis: "6.1.2", engine: "MYSQL", flag: "skip_show_database", want: "on", ok: equalsIgnoreCase("on"), fixTo: "on" },
  { id: "cloudsql_mysql_local_infile_off", cis: "6.1.3", engine: "MYSQL", flag: "local_infile", want: "off", ok: equalsIgnoreCase("off"), fixTo: "off" },
  { id: "cloudsql_postgres_log_error_verbosity", cis: "6.2.1", engine: "POSTGRES", flag: "log_error_verbosity", want: "default or terse", ok: (v) => v === undefined || ["default", "terse"].includes(v.toLowerCase()), severity: "low", fixTo: "default" },
  { id: "cloudsql_postgres_log_connections_on", cis: "6.2.2", engine: "POSTGRES", flag: "log_connections", want: "on", ok: equalsIgnoreCase("on"), fixTo: "on" },
  { id: "cloudsql_postgres_log_disconnections_on", cis: "6.2.3", engine: "POSTGRES", flag: "log_disconnections", want: "on", ok: equalsIgnoreCase("on"), fixTo: "on" },
  { id: "cloudsql_postgres_log_statement_ddl", cis: "6.2.4", engine: "POSTGRES", flag: "log_statement", want: "ddl", ok: equalsIgnoreCase("ddl"), severity: "low", fixTo: "ddl" },
  { id: "cloudsql_postgres_log_min_messages", cis: "6.2.5", engine: "POSTGRES", flag: "log_min_messages", want: "warning or stricter", ok: pgAtLeast("warning"), severity: "low", fixTo: "warning" },
  { id: "cloudsql_postgres_log_min_error_statement", cis: "6.2.6", engine: "POSTGRES", flag: "log_min_error_statement", want: "error or stricter", ok: pgAtLeast("error"), severity: "low", fixTo: "error" },
  { id: "cloudsql_postgres_log_min_duration_statement_disabled", cis: "6.2.7", engine: "POSTGRES", flag: "log_min_duration_statement", want: "-1", ok: unsetOr("-1"), severity: "low", fixTo: "-1" },
  { id: "cloudsql_postgres_pgaudit_on", cis: "6.2.8", engine: "POSTGRES", flag: "cloudsql.enable_pgaudit", want: "on", ok: equalsIgnoreCase("on"), fixTo: "on" },
  { id: "cloudsql_sqlserver_external_scripts_off", cis: "6.3.1", engine: "SQLSERVER", flag: "external scripts enabled", want: "off", ok: unsetOr("off"), fixTo: "off" },
  { id: "cloudsql_sqlserver_cross_db_ownership_chaining_off", cis: "6.3.2", engine: "SQLSERVER", flag: "cross db ownership chaining", want: "off", ok: unsetOr("off"), fixTo: "off" },
  // 0 (the default) means the maximum, 32,767 connections: both are non-limiting.
  { id: "cloudsql_sqlserver_user_connections_unlimited", cis: "6.3.3", engine: "SQLSERVER", flag: "user connections", want: "0 (non-limiting)", ok: (v) => v === undefined || v.trim() === "0" || Number(v) >= 32_767, severity: "low", fixTo: "0" },
  { id: "cloudsql_sqlserver_user_options_unset", cis: "6.3.4", engine: "SQLSERVER", flag: "user options", want: "not set", ok: (v) => v === undefined, severity: "low", fixTo: null },
  { id: "cloudsql_sqlserver_remote_access_off", cis: "6.3.5", engine: "SQLSERVER", flag: "remote access", want: "off", ok: equalsIgnoreCase("off"), fixTo: "off" },
  { id: "cloudsql_sqlserver_trace_flag_3625_on", cis: "6.3.6", engine: "SQLSERVER", flag: "3625", want: "on", ok: equalsIgnoreCase("on"), severity: "low", fixTo: "on" },
  { id: "cloudsql_sqlserver_contained_db_auth_off", cis: "6.3.7", engine: "SQLSERVER", flag: "contained database authentication", want: "off", ok: unsetOr("off"), fixTo: "off" },
]

/** What the database-flag fixers set: check id, flag name, value (null: remove the flag). */
export const sqlFlagFixes: ReadonlyArray<{ readonly checkId: string; readonly flag: string; readonly value: string | null }> = flagRules.map((r) => ({ checkId: r.id, flag: r.flag, value: r.fixTo }))

const engineName: Record<Engine, string> = { MYSQL: "MySQL", POSTGRES: "PostgreSQL", SQLSERVER: "SQL Server" }

const flagChecks = flagRules.map((r) =>
  defineGcpCheck({
    id: r.id,
    service: "cloudsql",
    title: `Cloud SQL ${engineName[r.engine]} instances should set the '${r.flag}' flag to ${r.want}`,
    description: `Checks the '${r.flag}' database flag of every ${engineName[r.engine]} instance (an unset flag takes the Cloud SQL default).`,
    severity: r.severity ?? "medium",
    cis: r.cis,
    remediation: `gcloud sql instances patch INSTANCE --database-flags=… including "${r.flag}=${r.want.split(" ")[0]}" (the list replaces every flag: repeat the existing ones; some flags restart the instance).`,
    field_labels: { flag_value: `'${r.flag}' value`, database_version: "Database version" },
    uses: ["sql.instances"],
    reads: `sqladmin instances.list → databaseVersion ${r.engine}_*, settings.databaseFlags[name=${r.flag}].value`,
    evaluate: (inv) =>
      judged(
        (inv.sql.instances ?? []).filter((i) => engineOf(i) === r.engine),
        onPremisesOnly,
        (i) => {
          const v = flagValue(i, r.flag)
          const ok = r.ok(v)
          return row(i.name, region(i), ok, v === undefined ? `'${r.flag}' is not set (Cloud SQL default${ok ? ", compliant" : ""}).` : `'${r.flag}' is ${v}.`, {
            flag_value: v ?? null,
            database_version: i.databaseVersion ?? null,
          })
        },
        { flag_value: null, database_version: null },
      ),
  }),
)

const SECURE_SSL_MODES = new Set(["ENCRYPTED_ONLY", "TRUSTED_CLIENT_CERTIFICATE_REQUIRED"])

export const sqlChecks = [
  ...flagChecks,
  defineGcpCheck({
    id: "cloudsql_instance_ssl_required",
    service: "cloudsql",
    title: "Cloud SQL instances should require all incoming connections to use SSL",
    description: "Checks sslMode is ENCRYPTED_ONLY or TRUSTED_CLIENT_CERTIFICATE_REQUIRED (or, without sslMode, the legacy requireSsl).",
    severity: "high",
    cis: "6.4",
    remediation: "gcloud sql instances patch INSTANCE --ssl-mode=ENCRYPTED_ONLY (clients without TLS will be refused).",
    field_labels: { ssl_mode: "SSL mode", require_ssl: "Require SSL" },
    uses: ["sql.instances"],
    reads: "sqladmin instances → settings.ipConfiguration.sslMode (requireSsl)",
    evaluate: (inv) =>
      judged(
        inv.sql.instances,
        onPremisesOnly,
        (i) => {
          const ip = i.settings?.ipConfiguration
          const ok = ip?.sslMode !== undefined ? SECURE_SSL_MODES.has(ip.sslMode) : ip?.requireSsl === true
          return row(i.name, region(i), ok, ok ? "Only encrypted connections are accepted." : "Unencrypted connections are accepted.", { ssl_mode: ip?.sslMode ?? null, require_ssl: ip?.requireSsl === true })
        },
        { ssl_mode: null, require_ssl: null },
      ),
  }),
  defineGcpCheck({
    id: "cloudsql_no_public_authorized_networks",
    service: "cloudsql",
    title: "Cloud SQL instances should not allow connections from 0.0.0.0/0",
    description: "Flags instances whose authorized networks admit the internet: 0.0.0.0/0, ranges that together cover it (0.0.0.0/1 and 128.0.0.0/1), or a public range wider than a /8.",
    severity: "critical",
    cis: "6.5",
    remediation: "Remove 0.0.0.0/0 from the authorized networks (gcloud sql instances patch INSTANCE --authorized-networks=…) and use the Cloud SQL Auth Proxy or private IP.",
    field_labels: { authorized_networks: "Authorized networks" },
    uses: ["sql.instances"],
    reads: "sqladmin instances → settings.ipConfiguration.authorizedNetworks[].value",
    evaluate: (inv) =>
      judged(
        inv.sql.instances,
        onPremisesOnly,
        (i) => {
          const nets = (i.settings?.ipConfiguration?.authorizedNetworks ?? []).map((n) => n.value)
          const wide = internetRanges(nets)
          const open = wide.length > 0
          return row(i.name, region(i), !open, open ? `The authorized networks admit the internet (${wide.join(", ")}).` : nets.length === 0 ? "No authorized network." : "The authorized networks do not admit the internet.", { authorized_networks: nets })
        },
        { authorized_networks: null },
      ),
  }),
  defineGcpCheck({
    id: "cloudsql_no_public_ip",
    service: "cloudsql",
    title: "Cloud SQL instances should not have public IPs",
    description: "Flags instances with a public (PRIMARY) IPv4 address.",
    severity: "high",
    cis: "6.6",
    remediation: "Configure private IP (private services access), then gcloud sql instances patch INSTANCE --no-assign-ip.",
    field_labels: { public_ips: "Public IPs" },
    uses: ["sql.instances"],
    reads: "sqladmin instances → ipAddresses[type=PRIMARY], settings.ipConfiguration.ipv4Enabled",
    evaluate: (inv) =>
      judged(
        inv.sql.instances,
        onPremisesOnly,
        (i) => {
          const ips = (i.ipAddresses ?? []).filter((a) => a.type === "PRIMARY").map((a) => a.ipAddress ?? "")
          const open = ips.length > 0 || i.settings?.ipConfiguration?.ipv4Enabled === true
          return row(i.name, region(i), !open, open ? `The instance has a public IP${ips.length > 0 ? ` (${ips.join(", ")})` : ""}.` : "The instance has no public IP.", { public_ips: ips })
        },
        { public_ips: null },
      ),
  }),
  defineGcpCheck({
    id: "cloudsql_automated_backups",
    service: "cloudsql",
    title: "Cloud SQL instances should have automated backups",
    description: "Checks automated backups are enabled on every primary instance (read replicas, read pools and on-premises entries are not judged: they cannot have backups of their own).",
    severity: "medium",
    cis: "6.7",
    remediation: "gcloud sql instances patch INSTANCE --backup-start-time=HH:MM",
    field_labels: { backups_enabled: "Automated backups" },
    uses: ["sql.instances"],
    reads: "sqladmin instances → settings.backupConfiguration.enabled (instanceType CLOUD_SQL_INSTANCE)",
    evaluate: (inv) =>
      judged(
        inv.sql.instances,
        primariesOnly,
        (i) => {
          const on = i.settings?.backupConfiguration?.enabled === true
          return row(i.name, region(i), on, on ? "Automated backups are enabled." : "Automated backups are disabled.", { backups_enabled: on })
        },
        { backups_enabled: null },
      ),
  }),
  defineGcpCheck({
    id: "cloudsql_instance_high_availability",
    service: "cloudsql",
    title: "Cloud SQL primary instances should be highly available (regional)",
    description: "Checks availabilityType is REGIONAL, so a zone outage fails over to a standby instead of stopping the database.",
    severity: "low",
    remediation: "gcloud sql instances patch INSTANCE --availability-type=REGIONAL (restarts the instance).",
    field_labels: { availability_type: "Availability type" },
    uses: ["sql.instances"],
    reads: "sqladmin instances → settings.availabilityType (primary instances)",
    evaluate: (inv) =>
      judged(
        inv.sql.instances,
        primariesOnly,
        (i) => {
          const v = i.settings?.availabilityType ?? "ZONAL"
          return row(i.name, region(i), v === "REGIONAL", v === "REGIONAL" ? "The instance has a standby in another zone." : "The instance runs in a single zone.", { availability_type: v })
        },
        { availability_type: null },
      ),
  }),
  defineGcpCheck({
    id: "cloudsql_instance_point_in_time_recovery",
    service: "cloudsql",
    title: "Cloud SQL primary instances should allow point-in-time recovery",
    description: "Checks point-in-time recovery is on (binary logging for MySQL), so the database can be restored to any moment, not only to the last daily backup.",
    severity: "medium",
    remediation: "gcloud sql instances patch INSTANCE --enable-point-in-time-recovery (MySQL: --enable-bin-log).",
    field_labels: { point_in_time_recovery: "Point-in-time recovery" },
    uses: ["sql.instances"],
    reads: "sqladmin instances → settings.backupConfiguration.pointInTimeRecoveryEnabled | binaryLogEnabled (MySQL)",
    evaluate: (inv) =>
      judged(
        inv.sql.instances,
        primariesOnly,
        (i) => {
          const b = i.settings?.backupConfiguration
          const on = (engineOf(i) === "MYSQL" ? b?.binaryLogEnabled : b?.pointInTimeRecoveryEnabled) === true
          return row(i.name, region(i), on, on ? "Point-in-time recovery is on." : "Only full backups can be restored.", { point_in_time_recovery: on })
        },
        { point_in_time_recovery: null },
      ),
  }),
  defineGcpCheck({
    id: "cloudsql_instance_deletion_protection",
    service: "cloudsql",
    title: "Cloud SQL instances should be protected against deletion",
    description: "Checks deletionProtectionEnabled, which stops a mistaken or malicious delete of the instance and its backups.",
    severity: "medium",
    remediation: "gcloud sql instances patch INSTANCE --deletion-protection",
    field_labels: { deletion_protection: "Deletion protection" },
    uses: ["sql.instances"],
    reads: "sqladmin instances → settings.deletionProtectionEnabled",
    evaluate: (inv) =>
      judged(
        inv.sql.instances,
        onPremisesOnly,
        (i) => {
          const on = i.settings?.deletionProtectionEnabled === true
          return row(i.name, region(i), on, on ? "Deletion protection is on." : "The instance can be deleted in one call.", { deletion_protection: on })
        },
        { deletion_protection: null },
      ),
  }),
  defineGcpCheck({
    id: "cloudsql_instance_cmek",
    service: "cloudsql",
    title: "Cloud SQL instances should encrypt data with a customer-managed key",
    description: "Checks the instance's disks are encrypted with a Cloud KMS key (diskEncryptionConfiguration.kmsKeyName) you can rotate, audit and revoke.",
    severity: "low",
    remediation: "CMEK is chosen at creation: create an instance with --disk-encryption-key=projects/P/locations/L/keyRings/R/cryptoKeys/K and migrate the data.",
    field_labels: { kms_key: "KMS key" },
    uses: ["sql.instances"],
    reads: "sqladmin instances → diskEncryptionConfiguration.kmsKeyName",
    evaluate: (inv) =>
      judged(
        inv.sql.instances,
        onPremisesOnly,
        (i) => {
          const key = i.diskEncryptionConfiguration?.kmsKeyName
          return row(i.name, region(i), key !== undefined && key !== "", key === undefined || key === "" ? "Data is encrypted with Google-managed keys." : `Data is encrypted with ${key}.`, { kms_key: key ?? null })
        },
        { kms_key: null },
      ),
  }),
]
