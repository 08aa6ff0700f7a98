/** Monitoring checks (CIS Azure v3 6.1.x–6.3.x / v4 7.1.x): activity log export, alerts, Application Insights. */
import { row } from "../../rest/engine.ts"
import { defineAzureCheck, subscriptionRow } from "../define-check.ts"
import type { ActivityLogAlert, AlertLeafCondition } from "../collectors/monitor.ts"

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

/** The activity-log event an alert must fire on: the fields every such event carries, by lower-cased name. */
export type AlertEvent = Readonly<Record<string, string>>

/** The event of an administrative operation: its category, operation, resource type and provider. */
export function operationEvent(operation: string): AlertEvent {
  const parts = operation.split("/")
  const typeEnd = parts.at(-1)?.toLowerCase() === "action" ? parts.length - 2 : parts.length - 1
  return { category: "Administrative", operationname: operation, resourcetype: parts.slice(0, typeEnd).join("/"), resourceprovider: parts[0] ?? "" }
}

/**
 * Fields whose documented values are few: an `anyOf`/`containsAny` naming them all does not narrow the alert
 * (the portal writes "all event types" of a Service Health alert that way).
 */
const DOMAINS: Readonly<Record<string, ReadonlyArray<string>>> = {
  "properties.incidenttype": ["Incident", "Maintenance", "Informational", "ActionRequired", "Security"],
  level: ["Critical", "Error", "Warning", "Informational", "Verbose"],
}

type Truth = "yes" | "no" | { readonly narrowedBy: string }

const lower = (v: string | null | undefined) => (v ?? "").toLowerCase()
const accepted = (leaf: AlertLeafCondition): ReadonlyArray<string> => [...(leaf.equals == null ? [] : [leaf.equals]), ...(leaf.containsAny ?? [])].map(lower)

/** One leaf against the event: its field (case-insensitive) equal to `equals` or to one of `containsAny`. */
function leafTruth(leaf: AlertLeafCondition, event: AlertEvent): Truth {
  const field = lower(leaf.field)
  const known = event[field]
  const values = accepted(leaf)
  if (known !== undefined) return values.includes(known.toLowerCase()) ? "yes" : "no"
  const domain = DOMAINS[field]
  if (domain !== undefined && domain.every((d) => values.includes(d.toLowerCase()))) return "yes"
  return { narrowedBy: `${leaf.field ?? "?"} ${leaf.containsAny == null ? `= ${leaf.equals ?? ""}` : `in [${[...(leaf.equals == null ? [] : [leaf.equals]), ...leaf.containsAny].join(", ")}]`}` }
}

/** An anyOf: true when one leaf holds for every such event, or when its leaves on one field name its whole domain. */
function anyOfTruth(leaves: ReadonlyArray<AlertLeafCondition>, event: AlertEvent): Truth {
  const truths = leaves.map((l) => leafTruth(l, event))
  if (truths.includes("yes")) return "yes"
  for (const [field, domain] of Object.entries(DOMAINS)) {
    const values = leaves.filter((l) => lower(l.field) === field).flatMap(accepted)
    if (event[field] === undefined && values.length > 0 && domain.every((d) => values.includes(d.toLowerCase()))) return "yes"
  }
  const narrowed = truths.filter((t): t is { narrowedBy: string } => typeof t === "object")
  return narrowed.length === 0 ? "no" : { narrowedBy: narrowed.map((t) => t.narrowedBy).join(" or ") }
}

/** How an alert relates to the event: fires on every such event in the subscription, on some of them only (why), or never. */
export type AlertCoverage = { readonly kind: "covers" } | { readonly kind: "narrower"; readonly why: string } | { readonly kind: "unrelated" }

/**
 * Whether an alert fires on every event like `event` in subscription `subscriptionId`: enabled (absent = true),
 * a scope that is the subscription itself (a resource group or resource scope watches part of it), and every
 * `allOf` entry true of such an event: a leaf (field `equals` value or value in `containsAny`, field names and values
 * case-insensitive) or an `anyOf` of leaves, at least one of them naming the event. A condition on a field the event
 * does not fix (resourceGroup, status, caller, properties.…) narrows the alert to some events.
 */
export function alertCoverage(alert: ActivityLogAlert, event: AlertEvent, subscriptionId: string): AlertCoverage {
  const p = alert.properties
  const entries = p?.condition?.allOf ?? []
  if (entries.length === 0) return { kind: "unrelated" }
  const truths = entries.map((e): Truth => {
    const own = e.field == null ? "yes" : leafTruth(e, event)
    const any = e.anyOf == null || e.anyOf.length === 0 ? "yes" : anyOfTruth(e.anyOf, event)
    return own === "no" || any === "no" ? "no" : own !== "yes" ? own : any
  })
  // Unrelated: a condition the event fails, or none that names it (only conditions on fields it does not fix).
  if (truths.includes("no") || !truths.includes("yes")) return { kind: "unrelated" }
  const narrowed = truths.filter((t): t is { narrowedBy: string } => typeof t === "object")
  if (p?.enabled === false) return { kind: "narrower", why: `${alert.name} is disabled` }
  const sub = `/subscriptions/${subscriptionId}`.toLowerCase()
  const scopes = (p?.scopes ?? []).map((x) => x.toLowerCase().replace(/\/+$/, ""))
  if (!scopes.includes(sub)) {
    const where = scopes.find((x) => x.startsWith(`${sub}/`))
    return { kind: "narrower", why: where === undefined ? `${alert.name} watches another scope (${(p?.scopes ?? []).join(", ") || "none"})` : `${alert.name} watches only ${/\/resourcegroups\/[^/]+$/.test(where) ? "resource group" : "resource"} ${(p?.scopes ?? []).find((x) => x.toLowerCase().replace(/\/+$/, "") === where) ?? where}` }
  }
  if (narrowed.length > 0) return { kind: "narrower", why: `${alert.name} fires only when ${narrowed.map((n) => n.narrowedBy).join(" and ")}` }
  return { kind: "covers" }
}

/** The alerts that fire on every event like `event` in the subscription, and why the others that name it fall short. */
export function alertsCovering(alerts: ReadonlyArray<ActivityLogAlert>, event: AlertEvent, subscriptionId: string): { readonly covering: ReadonlyArray<ActivityLogAlert>; readonly shortfalls: ReadonlyArray<string> } {
  const results = alerts.map((a) => ({ a, c: alertCoverage(a, event, subscriptionId) }))
  return {
    covering: results.filter((r) => r.c.kind === "covers").map((r) => r.a),
    shortfalls: results.flatMap((r) => (r.c.kind === "narrower" ? [r.c.why] : [])),
  }
}

/** The subscription row of an alert check. */
function alertRow(inv: { readonly subscriptionId: string }, list: ReadonlyArray<ActivityLogAlert>, event: AlertEvent, what: string) {
  const { covering, shortfalls } = alertsCovering(list, event, inv.subscriptionId)
  const ok = covering.length > 0
  const reason = ok
    ? `Alerted subscription-wide by ${covering.map((a) => a.name).join(", ")}.`
    : shortfalls.length > 0
      ? `No enabled subscription-wide alert for ${what}: ${shortfalls.join("; ")}.`
      : `No enabled alert for ${what}.`
  return { ok, reason, fields: { alerts: covering.map((a) => a.name), narrower_alerts: shortfalls } }
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
    field_labels: { alerts: "Alerts", narrower_alerts: "Alerts that fall short" },
    uses: ["monitor.activity_log_alerts"],
    reads: `ARM Microsoft.Insights/activityLogAlerts → properties.enabled, scopes[], condition.allOf[] (leaves field/equals/containsAny, anyOf) true of operationName=${s.operation}`,
    evaluate: (inv) => {
      const list = inv.monitor.activityLogAlerts
      if (list === undefined) return []
      const r = alertRow(inv, list, operationEvent(s.operation), s.operation)
      return [subscriptionRow(inv, r.ok, r.reason, r.fields)]
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
      const enabled = new Set(settings.flatMap((s) => (s.properties?.logs ?? []).filter((l) => l.enabled).flatMap((l) => (l.categoryGroup?.toLowerCase() === "alllogs" ? REQUIRED_CATEGORIES : REQUIRED_CATEGORIES.filter((c) => c.toLowerCase() === (l.category ?? "").toLowerCase())))))
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
    field_labels: { alerts: "Alerts", narrower_alerts: "Alerts that fall short" },
    uses: ["monitor.activity_log_alerts"],
    reads: "ARM Microsoft.Insights/activityLogAlerts → properties.enabled, scopes[], condition.allOf[] (leaves field/equals/containsAny, anyOf) true of category=ServiceHealth",
    evaluate: (inv) => {
      const list = inv.monitor.activityLogAlerts
      if (list === undefined) return []
      const r = alertRow(inv, list, { category: "ServiceHealth" }, "Service Health events")
      return [subscriptionRow(inv, r.ok, r.reason, r.fields)]
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
