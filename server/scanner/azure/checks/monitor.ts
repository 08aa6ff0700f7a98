/** Monitoring checks (CIS Azure v3 6.1.x–6.3.x / v4 7.1.x): activity log export, alerts, Application Insights. */
import { row } from "../../rest/engine.ts"
import { defineAzureCheck, subscriptionRow } from "../define-check.ts"
import type { ActivityLogAlert } from "../collectors/monitor.ts"

const REQUIRED_CATEGORIES = ["Administrative", "Alert", "Policy", "Security"]

interface AlertSpec {
  readonly id: string
  readonly v3?: string
  readonly v4?: string
  readonly operation: string
  readonly what: string
}

/** A write and a delete alert for each resource type: [id part, resource type, display name]. */
function beyondCis(types: ReadonlyArray<readonly [string, string, string]>): AlertSpec[] {
  return types.flatMap(([key, type, name]) => [
    { id: `monitor_alert_write_${key}`, operation: `${type}/write`, what: `Create or Update ${name}` },
    { id: `monitor_alert_delete_${key}`, operation: `${type}/delete`, what: `Delete ${name}` },
  ])
}

const alertSpecs: ReadonlyArray<AlertSpec> = [
  { id: "monitor_alert_create_policy_assignment", v3: "6.2.1", v4: "7.1.2.1", operation: "Microsoft.Authorization/policyAssignments/write", what: "Create Policy Assignment" },
  { id: "monitor_alert_delete_policy_assignment", v3: "6.2.2", v4: "7.1.2.2", operation: "Microsoft.Authorization/policyAssignments/delete", what: "Delete Policy Assignment" },
  { id: "monitor_alert_write_nsg", v3: "6.2.3", v4: "7.1.2.3", operation: "Microsoft.Network/networkSecurityGroups/write", what: "Create or Update Network Security Group" },
  { id: "monitor_alert_delete_nsg", v3: "6.2.4", v4: "7.1.2.4", operation: "Microsoft.Network/networkSecurityGroups/delete", what: "Delete Network Security Group" },
  { id: "monitor_alert_write_security_solution", v3: "6.2.5", v4: "7.1.2.5", operation: "Microsoft.Security/securitySolutions/write", what: "Create or Update Security Solution" },
  { id: "monitor_alert_delete_security_solution", v3: "6.2.6", v4: "7.1.2.6", operation: "Microsoft.Security/securitySolutions/delete", what: "Delete Security Solution" },
  { id: "monitor_alert_write_sql_firewall_rule", v3: "6.2.7", v4: "7.1.2.7", operation: "Microsoft.Sql/servers/firewallRules/write", what: "Create or Update SQL Server Firewall Rule" },
  { id: "monitor_alert_delete_sql_firewall_rule", v3: "6.2.8", v4: "7.1.2.8", operation: "Microsoft.Sql/servers/firewallRules/delete", what: "Delete SQL Server Firewall Rule" },
  { id: "monitor_alert_write_public_ip", v3: "6.2.9", v4: "7.1.2.9", operation: "Microsoft.Network/publicIPAddresses/write", what: "Create or Update Public IP Address rule" },
  { id: "monitor_alert_delete_public_ip", v3: "6.2.10", v4: "7.1.2.10", operation: "Microsoft.Network/publicIPAddresses/delete", what: "Delete Public IP Address rule" },
  // Beyond the benchmark: changes to the resources that hold data, keys and access, and to the network around them.
  ...beyondCis([
    ["key_vault", "Microsoft.KeyVault/vaults", "Key Vault"],
    ["storage_account", "Microsoft.Storage/storageAccounts", "Storage Account"],
    ["vm", "Microsoft.Compute/virtualMachines", "Virtual Machine"],
    ["load_balancer", "Microsoft.Network/loadBalancers", "Load Balancer"],
    ["virtual_network", "Microsoft.Network/virtualNetworks", "Virtual Network"],
    ["nsg_rule", "Microsoft.Network/networkSecurityGroups/securityRules", "Network Security Group Rule"],
    ["sql_server", "Microsoft.Sql/servers", "SQL Server"],
    ["sql_database", "Microsoft.Sql/servers/databases", "SQL Database"],
    ["mysql_flexible_server", "Microsoft.DBforMySQL/flexibleServers", "MySQL Flexible Server"],
    ["postgresql_flexible_server", "Microsoft.DBforPostgreSQL/flexibleServers", "PostgreSQL Flexible Server"],
    ["role_assignment", "Microsoft.Authorization/roleAssignments", "Role Assignment"],
  ]),
  { id: "monitor_alert_write_sql_vnet_rule", operation: "Microsoft.Sql/servers/virtualNetworkRules/write", what: "Create or Update SQL Server Virtual Network Rule" },
  { id: "monitor_alert_deallocate_vm", operation: "Microsoft.Compute/virtualMachines/deallocate/action", what: "Deallocate Virtual Machine" },
  { id: "monitor_alert_power_off_vm", operation: "Microsoft.Compute/virtualMachines/powerOff/action", what: "Power Off Virtual Machine" },
  { id: "monitor_alert_write_security_policy", operation: "Microsoft.Security/policies/write", what: "Update Security Policy" },
  { id: "monitor_alert_delete_diagnostic_setting", operation: "Microsoft.Insights/diagnosticSettings/delete", what: "Delete Diagnostic Setting" },
]

/** Enabled alerts with a condition `field == value` (case-insensitive), directly or inside an anyOf. */
export function alertsMatching(alerts: ReadonlyArray<ActivityLogAlert>, field: string, value: string): ActivityLogAlert[] {
  const eq = (a: string | undefined, b: string) => a?.toLowerCase() === b.toLowerCase()
  return alerts.filter(
    (a) =>
      a.properties?.enabled !== false &&
      (a.properties?.condition?.allOf ?? []).some((c) => (eq(c.field, field) && eq(c.equals, value)) || (c.anyOf ?? []).some((x) => eq(x.field, field) && eq(x.equals, value))),
  )
}

const alertChecks = alertSpecs.map((s) =>
  defineAzureCheck({
    id: s.id,
    service: "monitor",
    title: `An activity log alert should exist for '${s.what}'`,
    description: `Checks for an enabled activity log alert on operation ${s.operation}.`,
    severity: "medium",
    cis: { ...(s.v3 === undefined ? {} : { v3: s.v3 }), ...(s.v4 === undefined ? {} : { v4: s.v4 }) },
    remediation: `az monitor activity-log alert create -g RG -n NAME --scope /subscriptions/SUB --condition operationName=${s.operation} --action-group ACTION_GROUP_ID`,
    field_labels: { alerts: "Alerts" },
    uses: ["monitor.activity_log_alerts"],
    reads: `ARM Microsoft.Insights/activityLogAlerts → properties.enabled, condition.allOf[field=operationName, equals=${s.operation}]`,
    evaluate: (inv) => {
      const list = inv.monitor.activityLogAlerts
      if (list === undefined) return []
      const found = alertsMatching(list, "operationName", s.operation)
      return [subscriptionRow(inv, found.length > 0, found.length > 0 ? `Alerted by ${found.map((a) => a.name).join(", ")}.` : `No enabled alert for ${s.operation}.`, { alerts: found.map((a) => a.name) })]
    },
  }),
)

export const monitorChecks = [
  defineAzureCheck({
    id: "monitor_activity_log_categories",
    service: "monitor",
    title: "The activity log diagnostic setting should capture the Administrative, Alert, Policy and Security categories",
    description: "Checks a subscription diagnostic setting exports each of the four categories (or the allLogs group).",
    severity: "medium",
    cis: { v3: "6.1.2", v4: "7.1.1.2" },
    remediation: "az monitor diagnostic-settings subscription create -n activity --location LOC --workspace WORKSPACE_ID --logs '[{\"category\":\"Administrative\",\"enabled\":true},{\"category\":\"Alert\",\"enabled\":true},{\"category\":\"Policy\",\"enabled\":true},{\"category\":\"Security\",\"enabled\":true}]'",
    field_labels: { missing_categories: "Missing categories", settings: "Diagnostic settings" },
    uses: ["monitor.diagnostic_settings"],
    reads: "ARM /subscriptions/{s}/providers/Microsoft.Insights/diagnosticSettings → properties.logs[category].enabled",
    evaluate: (inv) => {
      const settings = inv.monitor.diagnosticSettings
      if (settings === undefined) return []
      const enabled = new Set(settings.flatMap((s) => (s.properties?.logs ?? []).filter((l) => l.enabled).flatMap((l) => (l.categoryGroup === "allLogs" ? REQUIRED_CATEGORIES : l.category === null || l.category === undefined ? [] : [l.category]))))
      const missing = REQUIRED_CATEGORIES.filter((c) => !enabled.has(c))
      return [subscriptionRow(inv, missing.length === 0, settings.length === 0 ? "The activity log is not exported." : missing.length === 0 ? "All required categories are exported." : `Not exported: ${missing.join(", ")}.`, { missing_categories: missing, settings: settings.map((s) => s.name) })]
    },
  }),
  defineAzureCheck({
    id: "monitor_activity_log_storage_cmk",
    service: "monitor",
    title: "The storage account holding the activity log should be encrypted with a customer-managed key",
    description: "For each activity-log diagnostic setting writing to a storage account of this subscription, checks the account's key source is Microsoft.Keyvault.",
    severity: "low",
    cis: { v3: "6.1.3", v4: "7.1.1.3" },
    remediation: "az storage account update -n ACCOUNT --encryption-key-source Microsoft.Keyvault --encryption-key-vault VAULT_URI --encryption-key-name KEY",
    field_labels: { storage_account: "Storage account", key_source: "Key source" },
    uses: ["monitor.diagnostic_settings", "storage.accounts"],
    reads: "diagnosticSettings → properties.storageAccountId; storageAccounts → properties.encryption.keySource",
    evaluate: (inv) =>
      (inv.monitor.diagnosticSettings ?? []).flatMap((s) => {
        const id = s.properties?.storageAccountId
        if (id === undefined || id === null) return []
        const account = (inv.storage.accounts ?? []).find((a) => a.id.toLowerCase() === id.toLowerCase())
        if (account === undefined) return []
        const source = account.properties?.encryption?.keySource ?? "Microsoft.Storage"
        const ok = source.toLowerCase() === "microsoft.keyvault"
        return [row(account.id, (account.location ?? "global").toLowerCase(), ok, ok ? `Activity logs in ${account.name} are encrypted with a customer-managed key.` : `Activity logs in ${account.name} use Microsoft-managed keys.`, { name: account.name, storage_account: account.name, key_source: source })]
      }),
  }),
  ...alertChecks,
  defineAzureCheck({
    id: "monitor_service_health_alert",
    service: "monitor",
    title: "An activity log alert should exist for Service Health",
    description: "Checks for an enabled activity log alert on the ServiceHealth category.",
    severity: "low",
    cis: { v4: "7.1.2.11" },
    remediation: "az monitor activity-log alert create -g RG -n service-health --scope /subscriptions/SUB --condition category=ServiceHealth --action-group ACTION_GROUP_ID",
    field_labels: { alerts: "Alerts" },
    uses: ["monitor.activity_log_alerts"],
    reads: "ARM Microsoft.Insights/activityLogAlerts → condition.allOf[field=category, equals=ServiceHealth]",
    evaluate: (inv) => {
      const list = inv.monitor.activityLogAlerts
      if (list === undefined) return []
      const found = alertsMatching(list, "category", "ServiceHealth")
      return [subscriptionRow(inv, found.length > 0, found.length > 0 ? `Service Health alerts: ${found.map((a) => a.name).join(", ")}.` : "No Service Health alert.", { alerts: found.map((a) => a.name) })]
    },
  }),
  defineAzureCheck({
    id: "monitor_application_insights_configured",
    service: "monitor",
    title: "Application Insights should be configured",
    description: "Checks the subscription has at least one Application Insights component.",
    severity: "low",
    cis: { v3: "6.3.1", v4: "7.1.3.1" },
    remediation: "az monitor app-insights component create -a NAME -l LOCATION -g RG --workspace WORKSPACE_ID",
    field_labels: { components: "Components" },
    uses: ["monitor.components"],
    reads: "ARM Microsoft.Insights/components → value[]",
    evaluate: (inv) => {
      const c = inv.monitor.components
      if (c === undefined) return []
      return [subscriptionRow(inv, c.length > 0, c.length > 0 ? `${c.length} Application Insights component(s).` : "No Application Insights component.", { components: c.map((x) => x.name) })]
    },
  }),
]
