/**
 * Database checks (CIS Azure v3.0 section 5; v4.0 moved them to the separate Database Services benchmark):
 * Azure SQL auditing, firewall, TDE and Entra admin; PostgreSQL and MySQL flexible server parameters and
 * firewall; Cosmos DB network restrictions.
 */
import { onOff, row, type Judgement } from "../../rest/engine.ts"
import { defineAzureCheck, resourceRow, settingCheck } from "../define-check.ts"
import type { CosmosAccount, FirewallRule, FlexibleServerInfo } from "../collectors/databases.ts"
import { internetEntries } from "../address.ts"
import { cosmosDefaultTls } from "../collectors/defaults.ts"

/** The "Allow Azure services" rule: 0.0.0.0–0.0.0.0 (named AllowAllWindowsAzureIps on SQL servers). */
const azureServicesRule = (r: FirewallRule) => (r.properties?.startIpAddress === "0.0.0.0" && r.properties?.endIpAddress === "0.0.0.0") || r.name === "AllowAllWindowsAzureIps"

/**
 * Firewall rules that open the server: the Azure-services rule, and the rules that admit the internet, alone
 * (0.0.0.0–255.255.255.255, 1.0.0.0–223.255.255.255) or together (0.0.0.0–127.255.255.255 + 128.0.0.0–255.255.255.255).
 */
const openRules = (rules: ReadonlyArray<FirewallRule>): FirewallRule[] => {
  const wide = internetEntries(rules.filter((r) => !azureServicesRule(r)), (r) => `${r.properties?.startIpAddress ?? ""}-${r.properties?.endIpAddress ?? ""}`)
  return rules.filter((r) => azureServicesRule(r) || wide.includes(r))
}

export const sqlChecks = [
  defineAzureCheck({
    id: "sql_minimal_tls_12",
    service: "sql",
    title: "Azure SQL servers should require TLS 1.2 or later",
    description: "Checks the server's minimal TLS version is 1.2 or higher (unset accepts TLS 1.0).",
    severity: "medium",
    cis: {},
    remediation: "az sql server update -g RG -n SERVER --minimal-tls-version 1.2",
    field_labels: { value: "Minimal TLS version" },
    uses: ["sql.servers"],
    reads: "ARM Microsoft.Sql/servers → properties.minimalTlsVersion",
    evaluate: (inv) =>
      (inv.sql.servers ?? []).map((s) => {
        const v = s.properties?.minimalTlsVersion ?? null
        const ok = v !== null && v !== "None" && Number(v) >= 1.2
        return resourceRow(s, ok, ok ? `The server requires TLS ${v} or later.` : `The server accepts ${v === null || v === "None" ? "any TLS version" : `TLS ${v}`}.`, { value: v })
      }),
  }),
  defineAzureCheck({
    id: "sql_public_network_access_disabled",
    service: "sql",
    title: "Azure SQL servers should not accept connections from the public network",
    description: "Flags servers with public network access enabled (reachable from the Internet, limited only by firewall rules).",
    severity: "high",
    cis: {},
    remediation: "Add a private endpoint, then: az sql server update -g RG -n SERVER --enable-public-network false",
    field_labels: { value: "Public network access" },
    uses: ["sql.servers"],
    reads: "ARM Microsoft.Sql/servers → properties.publicNetworkAccess",
    evaluate: (inv) =>
      (inv.sql.servers ?? []).map((s) => {
        const v = s.properties?.publicNetworkAccess ?? "Enabled"
        return resourceRow(s, v === "Disabled", v === "Disabled" ? "Public network access is disabled." : "The server accepts connections from the public network.", { value: v })
      }),
  }),
  defineAzureCheck({
    id: "sql_auditing_enabled",
    service: "sql",
    title: "Auditing should be On for Azure SQL servers",
    description: "Checks the server's blob auditing policy is Enabled.",
    severity: "medium",
    cis: { v3: "5.1.1" },
    remediation: "az sql server audit-policy update -g RG -n SERVER --state Enabled --lats Enabled --lawri WORKSPACE_ID",
    field_labels: { state: "Auditing" },
    uses: ["sql.servers", "sql.auditing"],
    reads: "ARM Microsoft.Sql/servers/{s}/auditingSettings/default → properties.state",
    evaluate: (inv) =>
      (inv.sql.servers ?? []).flatMap((s) => {
        if (s.auditing === undefined) return []
        const state = s.auditing.properties?.state ?? "Disabled"
        return [resourceRow(s, state === "Enabled", `Auditing is ${state.toLowerCase()}.`, { state })]
      }),
  }),
  defineAzureCheck({
    id: "sql_no_ingress_from_any_ip",
    service: "sql",
    title: "Azure SQL servers should not allow ingress from 0.0.0.0/0",
    description: "Flags firewall rules that admit the internet, alone (0.0.0.0–255.255.255.255) or together, or allow all Azure services (0.0.0.0–0.0.0.0).",
    severity: "high",
    cis: { v3: "5.1.2" },
    remediation: "Delete the rule (az sql server firewall-rule delete -g RG -s SERVER -n RULE) and add narrow ranges or private endpoints.",
    field_labels: { open_rules: "Open rules" },
    uses: ["sql.servers", "sql.firewall_rules"],
    reads: "ARM Microsoft.Sql/servers/{s}/firewallRules → properties.startIpAddress, endIpAddress",
    evaluate: (inv) =>
      (inv.sql.servers ?? []).flatMap((s) => {
        if (s.firewallRules === undefined) return []
        const open = openRules(s.firewallRules).map((r) => r.name)
        return [resourceRow(s, open.length === 0, open.length === 0 ? "No firewall rule opens the server to every address." : `Open firewall rules: ${open.join(", ")}.`, { open_rules: open })]
      }),
  }),
  defineAzureCheck({
    id: "sql_tde_protector_cmk",
    service: "sql",
    title: "The SQL server TDE protector should be encrypted with a customer-managed key",
    description: "Checks the server's encryption protector is an Azure Key Vault key.",
    severity: "low",
    cis: { v3: "5.1.3" },
    remediation: "az sql server tde-key set -g RG -s SERVER --server-key-type AzureKeyVault --kid KEY_URI",
    field_labels: { key_type: "Protector key type" },
    uses: ["sql.servers", "sql.encryption_protector"],
    reads: "ARM Microsoft.Sql/servers/{s}/encryptionProtector/current → properties.serverKeyType",
    evaluate: (inv) =>
      (inv.sql.servers ?? []).flatMap((s) => {
        if (s.protector === undefined) return []
        const t = s.protector.properties?.serverKeyType ?? "ServiceManaged"
        return [resourceRow(s, t === "AzureKeyVault", t === "AzureKeyVault" ? "TDE uses a customer-managed key." : "TDE uses a service-managed key.", { key_type: t })]
      }),
  }),
  defineAzureCheck({
    id: "sql_entra_admin_configured",
    service: "sql",
    title: "A Microsoft Entra admin should be configured for SQL servers",
    description: "Checks the server has an ActiveDirectory administrator, enabling Entra authentication.",
    severity: "medium",
    cis: { v3: "5.1.4" },
    remediation: "az sql server ad-admin create -g RG -s SERVER -u GROUP_NAME -i GROUP_OBJECT_ID",
    field_labels: { admin: "Entra admin" },
    uses: ["sql.servers", "sql.administrators"],
    reads: "ARM Microsoft.Sql/servers/{s}/administrators → properties.administratorType == ActiveDirectory",
    evaluate: (inv) =>
      (inv.sql.servers ?? []).flatMap((s) => {
        if (s.administratorsList === undefined) return []
        const admin = s.administratorsList.find((a) => a.properties?.administratorType === "ActiveDirectory")
        return [resourceRow(s, admin !== undefined, admin !== undefined ? `Entra admin: ${admin.properties?.login ?? "set"}.` : "No Entra admin is configured.", { admin: admin?.properties?.login ?? null })]
      }),
  }),
  defineAzureCheck({
    id: "sql_database_tde_enabled",
    service: "sql",
    title: "Transparent Data Encryption should be on for SQL databases",
    description: "Checks every user database (not master) has TDE Enabled.",
    severity: "high",
    cis: { v3: "5.1.5" },
    remediation: "az sql db tde set -g RG -s SERVER -d DATABASE --status Enabled",
    field_labels: { server: "Server", tde: "TDE" },
    uses: ["sql.servers", "sql.databases"],
    reads: "ARM Microsoft.Sql/servers/{s}/databases/{d}/transparentDataEncryption/current → properties.state",
    evaluate: (inv) =>
      (inv.sql.servers ?? []).flatMap((s) =>
        (s.databases ?? []).flatMap((d) =>
          d.tdeState === undefined ? [] : [row(d.id, d.location, d.tdeState === "Enabled", `TDE is ${d.tdeState.toLowerCase()}.`, { name: d.name, server: s.name, tde: d.tdeState })],
        ),
      ),
  }),
  defineAzureCheck({
    id: "sql_audit_retention_90_days",
    service: "sql",
    title: "SQL server audit retention should be greater than 90 days",
    description: "Checks auditing is enabled with a retention over 90 days (0 keeps logs forever).",
    severity: "low",
    cis: { v3: "5.1.6" },
    remediation: "az sql server audit-policy update -g RG -n SERVER --state Enabled --retention-days 91 (or 0 for unlimited).",
    field_labels: { retention_days: "Retention (days)" },
    uses: ["sql.servers", "sql.auditing"],
    reads: "ARM Microsoft.Sql/servers/{s}/auditingSettings/default → properties.retentionDays",
    evaluate: (inv) =>
      (inv.sql.servers ?? []).flatMap((s) => {
        if (s.auditing === undefined) return []
        const enabled = s.auditing.properties?.state === "Enabled"
        const days = s.auditing.properties?.retentionDays ?? 0
        const ok = enabled && (days === 0 || days > 90)
        return [resourceRow(s, ok, !enabled ? "Auditing is disabled." : days === 0 ? "Audit logs are kept indefinitely." : `Audit logs are kept ${days} days.`, { retention_days: days })]
      }),
  }),
]

interface ParamRule {
  readonly id: string
  readonly v3?: string
  readonly parameter: string
  readonly want: string
  readonly ok: (value: string) => boolean
  readonly severity: "high" | "medium" | "low"
}

const isOn = (v: string) => v.toLowerCase() === "on"

const paramChecks = (engine: "postgresql" | "mysql", product: string, rules: ReadonlyArray<ParamRule>) =>
  rules.map((r) =>
    defineAzureCheck({
      id: r.id,
      service: engine,
      title: `Server parameter '${r.parameter}' should be ${r.want} for ${product} flexible servers`,
      description: `Checks the '${r.parameter}' server parameter of every ${product} flexible server.`,
      severity: r.severity,
      cis: r.v3 === undefined ? {} : { v3: r.v3 },
      remediation: `az ${engine === "postgresql" ? "postgres" : "mysql"} flexible-server parameter set -g RG -s SERVER -n ${r.parameter} -v VALUE (${r.want}).`,
      field_labels: { value: `'${r.parameter}'` },
      uses: [`${engine}.servers`, `${engine}.configurations`],
      reads: `ARM ${engine === "postgresql" ? "Microsoft.DBforPostgreSQL" : "Microsoft.DBforMySQL"}/flexibleServers/{s}/configurations/${r.parameter} → properties.value`,
      evaluate: (inv) =>
        ((engine === "postgresql" ? inv.postgresql?.servers : inv.mysql?.servers) ?? []).flatMap((s: FlexibleServerInfo) => {
          const v = s.configurations?.get(r.parameter)
          if (v === undefined) return []
          const ok = v !== null && r.ok(v)
          return [resourceRow(s, ok, v === null ? `The server has no '${r.parameter}' parameter.` : `'${r.parameter}' is ${v}.`, { value: v })]
        }),
    }),
  )

/** Read replicas take their backups and availability from the primary: backup and HA settings are not theirs to judge. */
const replicaRole = (s: FlexibleServerInfo): string | undefined => {
  const role = s.properties?.replicationRole ?? "None"
  return /replica/i.test(role) ? role : undefined
}

/** Why a server is not judged for geo-redundant backup or high availability (undefined: judge it). */
const resilienceExempt = (s: FlexibleServerInfo, what: "backup" | "ha"): string | undefined => {
  const role = replicaRole(s)
  if (role !== undefined) return `Not judged: a read replica (${role}) follows its primary's ${what === "backup" ? "backups" : "availability"}.`
  if (what === "ha" && (s.sku?.tier ?? "").toLowerCase() === "burstable") return "Not judged: the Burstable tier offers no high availability."
  return undefined
}

/** Resilience and exposure of flexible servers, read from the server resource itself (beyond the benchmark). */
function flexibleChecks(engine: "postgresql" | "mysql", product: string) {
  const cli = engine === "postgresql" ? "postgres" : "mysql"
  const servers = (inv: { readonly postgresql?: { readonly servers: ReadonlyArray<FlexibleServerInfo> | undefined }; readonly mysql?: { readonly servers: ReadonlyArray<FlexibleServerInfo> | undefined } }) =>
    (engine === "postgresql" ? inv.postgresql?.servers : inv.mysql?.servers) ?? []
  const reads = `ARM ${engine === "postgresql" ? "Microsoft.DBforPostgreSQL" : "Microsoft.DBforMySQL"}/flexibleServers`
  return [
    defineAzureCheck({
      id: `${engine}_flexible_server_geo_redundant_backup_enabled`,
      service: engine,
      title: `${product} flexible servers should keep geo-redundant backups`,
      description: `Checks backups of every ${product} flexible server are copied to the paired region, so a regional outage does not lose the data. Read replicas are not judged (their primary's backups count).`,
      severity: "medium",
      cis: {},
      remediation: `Geo-redundant backup is chosen at creation: restore the server with az ${cli} flexible-server geo-restore or create it with --geo-redundant-backup Enabled.`,
      field_labels: { value: "Geo-redundant backup" },
      uses: [`${engine}.servers`],
      reads: `${reads} → properties.backup.geoRedundantBackup`,
      evaluate: (inv) =>
        servers(inv).map((s) => {
          const v = s.properties?.backup?.geoRedundantBackup ?? "Disabled"
          const exempt = resilienceExempt(s, "backup")
          if (exempt !== undefined) return resourceRow(s, true, exempt, { value: v })
          return resourceRow(s, v === "Enabled", `Geo-redundant backup is ${v.toLowerCase()}.`, { value: v })
        }),
    }),
    defineAzureCheck({
      id: `${engine}_flexible_server_high_availability_enabled`,
      service: engine,
      title: `${product} flexible servers should run with high availability`,
      description: `Checks every ${product} flexible server has a standby (zone-redundant or same-zone) to fail over to. Read replicas and Burstable servers (no high availability offered) are not judged.`,
      severity: "low",
      cis: {},
      remediation: `az ${cli} flexible-server update -g RG -n SERVER --high-availability ZoneRedundant (General Purpose or Business Critical tiers).`,
      field_labels: { value: "High availability" },
      uses: [`${engine}.servers`],
      reads: `${reads} → properties.highAvailability.mode`,
      evaluate: (inv) =>
        servers(inv).map((s) => {
          const v = s.properties?.highAvailability?.mode ?? "Disabled"
          const exempt = resilienceExempt(s, "ha")
          if (exempt !== undefined) return resourceRow(s, true, exempt, { value: v })
          return resourceRow(s, v !== "Disabled", v === "Disabled" ? "The server has no standby." : `High availability is ${v}.`, { value: v })
        }),
    }),
    defineAzureCheck({
      id: `${engine}_flexible_server_public_network_access_disabled`,
      service: engine,
      title: `${product} flexible servers should not accept connections from the public network`,
      description: `Flags ${product} flexible servers with public network access enabled (reachable from the Internet, limited only by firewall rules).`,
      severity: "high",
      cis: {},
      remediation: `Use private access (VNet integration) or a private endpoint, then: az ${cli} flexible-server update -g RG -n SERVER --public-access Disabled.`,
      field_labels: { value: "Public network access" },
      uses: [`${engine}.servers`],
      reads: `${reads} → properties.network.publicNetworkAccess`,
      evaluate: (inv) =>
        servers(inv).map((s) => {
          const v = s.properties?.network?.publicNetworkAccess ?? "Enabled"
          return resourceRow(s, v === "Disabled", v === "Disabled" ? "Public network access is disabled." : "The server accepts connections from the public network.", { value: v })
        }),
    }),
  ]
}

export const postgresqlChecks = [
  ...paramChecks("postgresql", "PostgreSQL", [
    { id: "postgresql_require_secure_transport", v3: "5.2.1", parameter: "require_secure_transport", want: "ON", ok: isOn, severity: "high" },
    { id: "postgresql_log_checkpoints", v3: "5.2.2", parameter: "log_checkpoints", want: "ON", ok: isOn, severity: "low" },
    { id: "postgresql_connection_throttling", v3: "5.2.3", parameter: "connection_throttle.enable", want: "ON", ok: isOn, severity: "low" },
    { id: "postgresql_log_retention_days", v3: "5.2.4", parameter: "logfiles.retention_days", want: "greater than 3", ok: (v) => Number(v) > 3, severity: "low" },
    { id: "postgresql_log_connections", parameter: "log_connections", want: "ON", ok: isOn, severity: "low" },
    { id: "postgresql_log_disconnections", parameter: "log_disconnections", want: "ON", ok: isOn, severity: "low" },
  ]),
  ...flexibleChecks("postgresql", "PostgreSQL"),
  defineAzureCheck({
    id: "postgresql_no_allow_azure_services",
    service: "postgresql",
    title: "'Allow public access from any Azure service' should be disabled for PostgreSQL flexible servers",
    description: "Flags the firewall rule 0.0.0.0–0.0.0.0, which admits every Azure customer's resources.",
    severity: "medium",
    cis: { v3: "5.2.5" },
    remediation: "Delete the rule: az postgres flexible-server firewall-rule delete -g RG -n SERVER --rule-name RULE",
    field_labels: { open_rules: "Open rules" },
    uses: ["postgresql.servers", "postgresql.firewall_rules"],
    reads: "ARM Microsoft.DBforPostgreSQL/flexibleServers/{s}/firewallRules → startIpAddress/endIpAddress 0.0.0.0",
    evaluate: (inv) =>
      (inv.postgresql.servers ?? []).flatMap((s) => {
        if (s.firewallRules === undefined) return []
        const open = openRules(s.firewallRules).map((r) => r.name)
        return [resourceRow(s, open.length === 0, open.length === 0 ? "Azure services are not allowed wholesale." : `Open firewall rules: ${open.join(", ")}.`, { open_rules: open })]
      }),
  }),
]

const TLS_OK = new Set(["tlsv1.2", "tlsv1.3"])

export const mysqlChecks = [
  ...flexibleChecks("mysql", "MySQL"),
  ...paramChecks("mysql", "MySQL", [
  { id: "mysql_require_secure_transport", v3: "5.3.1", parameter: "require_secure_transport", want: "ON", ok: isOn, severity: "high" },
  { id: "mysql_tls_version_12", v3: "5.3.2", parameter: "tls_version", want: "TLSv1.2 or higher", ok: (v) => v.split(",").map((x) => x.trim().toLowerCase()).every((x) => TLS_OK.has(x)), severity: "high" },
  { id: "mysql_audit_log_enabled", v3: "5.3.3", parameter: "audit_log_enabled", want: "ON", ok: isOn, severity: "medium" },
  { id: "mysql_audit_log_connection_events", v3: "5.3.4", parameter: "audit_log_events", want: "set to include CONNECTION", ok: (v) => v.split(",").map((x) => x.trim().toUpperCase()).includes("CONNECTION"), severity: "medium" },
  ]),
]

/** A Cosmos DB account setting judged from the account resource (beyond the benchmark). */
const cosmosSetting = (spec: {
  readonly id: string
  readonly title: string
  readonly description: string
  readonly severity: "high" | "medium" | "low"
  readonly remediation: string
  readonly label: string
  readonly property: string
  readonly judge: (p: NonNullable<CosmosAccount["properties"]>, account: CosmosAccount) => Judgement
}) =>
  settingCheck({
    ...spec,
    service: "cosmosdb",
    uses: ["cosmosdb.accounts"],
    reads: `ARM Microsoft.DocumentDB/databaseAccounts → properties.${spec.property}`,
    resources: (inv) => inv.cosmosdb.accounts,
    judge: (a) => spec.judge(a.properties ?? {}, a),
  })

export const cosmosdbChecks = [
  cosmosSetting({
    id: "cosmosdb_account_public_network_access_disabled",
    title: "Cosmos DB accounts should not accept connections from the public network",
    description: "Flags accounts with public network access enabled, even when limited by IP or virtual network rules.",
    severity: "medium",
    remediation: "Add a private endpoint, then: az cosmosdb update -g RG -n ACCOUNT --public-network-access Disabled.",
    label: "Public network access",
    property: "publicNetworkAccess",
    judge: (p) => {
      const v = p.publicNetworkAccess ?? "Enabled"
      return { ok: v === "Disabled", value: v, reason: v === "Disabled" ? "Public network access is disabled." : "The account accepts connections from the public network." }
    },
  }),
  cosmosSetting({
    id: "cosmosdb_account_minimum_tls_version",
    title: "Cosmos DB accounts should require TLS 1.2 or later",
    description: "Checks the account's minimal TLS version is Tls12 or later.",
    severity: "medium",
    remediation: "az cosmosdb update -g RG -n ACCOUNT --minimal-tls-version Tls12",
    label: "Minimal TLS version",
    property: "minimalTlsVersion",
    judge: (p, a) => {
      // Absent: TLS 1.0, but TLS 1.2 for the MongoDB and Cassandra APIs (collectors/defaults.ts).
      const v = p.minimalTlsVersion ?? cosmosDefaultTls(a)
      const ok = v === "Tls12" || v === "Tls13"
      return { ok, value: v, reason: ok ? `The account requires ${v}.` : `The account accepts ${v === "Tls" ? "TLS 1.0" : v}.` }
    },
  }),
  cosmosSetting({
    id: "cosmosdb_account_use_aad_and_rbac",
    title: "Cosmos DB accounts should disable key-based (local) authentication",
    description: "Checks disableLocalAuth is true, so data-plane access goes through Entra ID and RBAC instead of account keys that never expire.",
    severity: "medium",
    remediation: "Grant Cosmos DB data-plane roles to the apps, then: az resource update --ids ACCOUNT_ID --set properties.disableLocalAuth=true.",
    label: "Local auth disabled",
    property: "disableLocalAuth",
    judge: (p) => onOff(p.disableLocalAuth === true, "Account keys cannot be used.", "Account keys grant data access."),
  }),
  cosmosSetting({
    id: "cosmosdb_account_automatic_failover_enabled",
    title: "Cosmos DB accounts should fail over automatically",
    description: "Checks automatic (service-managed) failover is on, so a regional outage moves writes to another region.",
    severity: "low",
    remediation: "az cosmosdb update -g RG -n ACCOUNT --enable-automatic-failover true (with at least two regions).",
    label: "Automatic failover",
    property: "enableAutomaticFailover",
    judge: (p) => onOff(p.enableAutomaticFailover === true, "Automatic failover is on.", "Automatic failover is off."),
  }),
  cosmosSetting({
    id: "cosmosdb_account_backup_policy_continuous",
    title: "Cosmos DB accounts should use continuous backup",
    description: "Checks the backup policy is Continuous (point-in-time restore) rather than Periodic.",
    severity: "low",
    remediation: "az cosmosdb update -g RG -n ACCOUNT --backup-policy-type Continuous (one-way change).",
    label: "Backup policy",
    property: "backupPolicy.type",
    judge: (p) => {
      const v = p.backupPolicy?.type ?? "Periodic"
      return { ok: v === "Continuous", value: v, reason: v === "Continuous" ? "Backups are continuous." : "Backups are periodic only." }
    },
  }),
  defineAzureCheck({
    id: "cosmosdb_selected_networks",
    service: "cosmosdb",
    title: "Cosmos DB 'Firewalls & networks' should be limited to selected networks",
    description: "Checks the account restricts access with virtual network rules, IP rules or by disabling public network access.",
    severity: "medium",
    cis: { v3: "5.4.1" },
    remediation: "az cosmosdb update -g RG -n ACCOUNT --enable-virtual-network true --virtual-network-rules … (or --ip-range-filter, or --public-network-access Disabled).",
    field_labels: { vnet_filter: "VNet filter", ip_rules: "IP rules", public_network_access: "Public network access" },
    uses: ["cosmosdb.accounts"],
    reads: "ARM Microsoft.DocumentDB/databaseAccounts → properties.isVirtualNetworkFilterEnabled, ipRules, publicNetworkAccess",
    evaluate: (inv) =>
      (inv.cosmosdb.accounts ?? []).map((a) => {
        const p = a.properties
        const ips = (p?.ipRules ?? []).map((r) => r.ipAddressOrRange)
        // IP rules that admit the internet (0.0.0.0/0, or ranges covering it together) restrict nothing.
        const open = internetEntries(ips, (r) => r)
        const limited = p?.isVirtualNetworkFilterEnabled === true || ips.length > 0
        const ok = p?.publicNetworkAccess === "Disabled" || (limited && open.length === 0)
        return resourceRow(a, ok, ok ? "Access is limited to selected networks." : open.length > 0 ? `The IP rules admit the internet (${open.join(", ")}).` : "The account accepts connections from all networks.", {
          vnet_filter: p?.isVirtualNetworkFilterEnabled === true,
          ip_rules: (p?.ipRules ?? []).map((r) => r.ipAddressOrRange),
          public_network_access: p?.publicNetworkAccess ?? "Enabled",
        })
      }),
  }),
  defineAzureCheck({
    id: "cosmosdb_private_endpoints",
    service: "cosmosdb",
    title: "Cosmos DB accounts should use private endpoints",
    description: "Checks the account has at least one private endpoint connection.",
    severity: "medium",
    cis: { v3: "5.4.2" },
    remediation: "az network private-endpoint create --group-id Sql --private-connection-resource-id ACCOUNT_ID …",
    field_labels: { private_endpoints: "Private endpoints" },
    uses: ["cosmosdb.accounts"],
    reads: "ARM Microsoft.DocumentDB/databaseAccounts → properties.privateEndpointConnections[]",
    evaluate: (inv) =>
      (inv.cosmosdb.accounts ?? []).map((a) => {
        const n = (a.properties?.privateEndpointConnections ?? []).length
        return resourceRow(a, n > 0, n > 0 ? `${n} private endpoint(s).` : "No private endpoint.", { private_endpoints: n })
      }),
  }),
]
