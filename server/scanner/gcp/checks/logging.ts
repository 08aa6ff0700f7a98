/**
 * Logging and monitoring checks (CIS GCP v4.0 2.1–2.11, 2.13, 2.15): audit configuration, an export sink for all
 * entries, locked retention on storage sinks, log-metric + alert pairs for sensitive changes, Cloud Asset Inventory
 * and Access Approval.
 */
import { durationSeconds, row } from "../../rest/engine.ts"
import { defineGcpCheck } from "../define-check.ts"
import { storageSinkBucket, type AlertCondition, type AlertPolicy, type LogMetric } from "../collectors/logging.ts"

/** Filter text compared without whitespace and with one quote style, case-insensitively. */
const normaliseFilter = (f: string) => f.replace(/\s+/g, "").replace(/'/g, '"').toLowerCase()

interface MetricAlertSpec {
  readonly id: string
  readonly cis: string
  readonly what: string
  /** Every fragment must appear in the metric's filter (compared with normaliseFilter). */
  readonly fragments: ReadonlyArray<string>
  readonly example: string
}

const metricAlertSpecs: ReadonlyArray<MetricAlertSpec> = [
  {
    id: "logging_metric_alert_project_ownership_changes",
    cis: "2.4",
    what: "project ownership assignments/changes",
    // Both the REMOVE and the ADD clauses: a filter with only one of them misses half of the ownership changes.
    fragments: ['protoPayload.serviceName="cloudresourcemanager.googleapis.com"', "ProjectOwnership", "projectOwnerInvitee", 'bindingDeltas.action="REMOVE"', 'bindingDeltas.action="ADD"', 'bindingDeltas.role="roles/owner"'],
    example:
      '(protoPayload.serviceName="cloudresourcemanager.googleapis.com") AND (ProjectOwnership OR projectOwnerInvitee) OR (protoPayload.serviceData.policyDelta.bindingDeltas.action="REMOVE" AND protoPayload.serviceData.policyDelta.bindingDeltas.role="roles/owner") OR (protoPayload.serviceData.policyDelta.bindingDeltas.action="ADD" AND protoPayload.serviceData.policyDelta.bindingDeltas.role="roles/owner")',
  },
  {
    id: "logging_metric_alert_audit_config_changes",
    cis: "2.5",
    what: "audit configuration changes",
    fragments: ['protoPayload.methodName="SetIamPolicy"', "protoPayload.serviceData.policyDelta.auditConfigDeltas:*"],
    example: 'protoPayload.methodName="SetIamPolicy" AND protoPayload.serviceData.policyDelta.auditConfigDeltas:*',
  },
  {
    id: "logging_metric_alert_custom_role_changes",
    cis: "2.6",
    what: "custom role changes",
    fragments: ['resource.type="iam_role"', "google.iam.admin.v1.CreateRole", "google.iam.admin.v1.DeleteRole", "google.iam.admin.v1.UpdateRole"],
    example:
      'resource.type="iam_role" AND (protoPayload.methodName="google.iam.admin.v1.CreateRole" OR protoPayload.methodName="google.iam.admin.v1.DeleteRole" OR protoPayload.methodName="google.iam.admin.v1.UpdateRole")',
  },
  {
    id: "logging_metric_alert_firewall_changes",
    cis: "2.7",
    what: "VPC network firewall rule changes",
    fragments: ['resource.type="gce_firewall_rule"', "compute.firewalls.patch", "compute.firewalls.insert", "compute.firewalls.delete"],
    example:
      'resource.type="gce_firewall_rule" AND (protoPayload.methodName:"compute.firewalls.patch" OR protoPayload.methodName:"compute.firewalls.insert" OR protoPayload.methodName:"compute.firewalls.delete")',
  },
  {
    id: "logging_metric_alert_route_changes",
    cis: "2.8",
    what: "VPC network route changes",
    fragments: ['resource.type="gce_route"', "compute.routes.delete", "compute.routes.insert"],
    example: 'resource.type="gce_route" AND (protoPayload.methodName:"compute.routes.delete" OR protoPayload.methodName:"compute.routes.insert")',
  },
  {
    id: "logging_metric_alert_network_changes",
    cis: "2.9",
    what: "VPC network changes",
    fragments: ['resource.type="gce_network"', "compute.networks.insert", "compute.networks.patch", "compute.networks.delete", "compute.networks.removePeering", "compute.networks.addPeering"],
    example:
      'resource.type="gce_network" AND (protoPayload.methodName:"compute.networks.insert" OR protoPayload.methodName:"compute.networks.patch" OR protoPayload.methodName:"compute.networks.delete" OR protoPayload.methodName:"compute.networks.removePeering" OR protoPayload.methodName:"compute.networks.addPeering")',
  },
  {
    id: "logging_metric_alert_bucket_iam_changes",
    cis: "2.10",
    what: "Cloud Storage IAM permission changes",
    fragments: ['resource.type="gcs_bucket"', 'protoPayload.methodName="storage.setIamPermissions"'],
    example: 'resource.type="gcs_bucket" AND protoPayload.methodName="storage.setIamPermissions"',
  },
  {
    id: "logging_metric_alert_sql_instance_changes",
    cis: "2.11",
    what: "SQL instance configuration changes",
    fragments: ['protoPayload.methodName="cloudsql.instances.update"'],
    example: 'protoPayload.methodName="cloudsql.instances.update"',
  },
]

/** PromQL name of a Cloud Monitoring metric: the first "/" becomes ":", every other special character "_". */
export const promqlMetricName = (metricType: string): string => {
  const slash = metricType.indexOf("/")
  const clean = (x: string) => x.replace(/[^A-Za-z0-9_]/g, "_")
  return slash < 0 ? clean(metricType) : `${clean(metricType.slice(0, slash))}:${clean(metricType.slice(slash + 1))}`
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** Whether an alert condition watches the log-based metric `name`, whatever the condition type. */
export function conditionWatchesMetric(c: AlertCondition, name: string): boolean {
  const type = `logging.googleapis.com/user/${name}`
  const inFilter = (f: string | undefined) => f !== undefined && normaliseFilter(f).includes(normaliseFilter(`metric.type="${type}"`))
  // MQL: `fetch global::logging.googleapis.com/user/NAME` or `| metric 'logging.googleapis.com/user/NAME'`.
  const mql = new RegExp(`(^|[^A-Za-z0-9_./-])${escapeRe(type)}($|[^A-Za-z0-9_.-])`)
  // PromQL: `logging_googleapis_com:user_NAME`, or the UTF-8 form {__name__="logging.googleapis.com/user/NAME"}.
  const promql = new RegExp(`(^|[^A-Za-z0-9_:])${escapeRe(promqlMetricName(type))}($|[^A-Za-z0-9_:])`)
  const utf8 = new RegExp(`["']${escapeRe(type)}["']`)
  return (
    inFilter(c.conditionThreshold?.filter) ||
    inFilter(c.conditionAbsent?.filter) ||
    (c.conditionMonitoringQueryLanguage?.query !== undefined && mql.test(c.conditionMonitoringQueryLanguage.query)) ||
    (c.conditionPrometheusQueryLanguage?.query !== undefined && (promql.test(c.conditionPrometheusQueryLanguage.query) || utf8.test(c.conditionPrometheusQueryLanguage.query)))
  )
}

/** Whether every fragment of the spec appears in a Logging filter (whitespace, quote style and case ignored). */
const filterMatches = (frags: ReadonlyArray<string>, filter: string) => {
  const f = normaliseFilter(filter)
  return frags.every((x) => f.includes(x))
}

/**
 * Log metrics matching a spec, and the enabled alert policies that fire on those events: a threshold, absence, MQL
 * or PromQL condition on a matching metric, or a log-match condition whose own filter matches the spec. With an AND
 * combiner and several conditions, the policy fires only when every condition does, so each one must be such a
 * condition (an unrelated condition would narrow the alert to its own case). SQL (Log Analytics) conditions are not
 * read: their query language is not a Logging filter.
 */
export function metricAlertMatches(spec: Pick<MetricAlertSpec, "fragments">, metrics: ReadonlyArray<LogMetric>, policies: ReadonlyArray<AlertPolicy>) {
  const frags = spec.fragments.map(normaliseFilter)
  const matching = metrics.filter((m) => m.disabled !== true && filterMatches(frags, m.filter))
  const fires = (c: AlertCondition) => matching.some((m) => conditionWatchesMetric(c, m.name)) || (c.conditionMatchedLog?.filter !== undefined && filterMatches(frags, c.conditionMatchedLog.filter))
  const alerts = policies.filter((p) => {
    if (p.enabled === false) return false
    const conditions = p.conditions ?? []
    const all = p.combiner === "AND" || p.combiner === "AND_WITH_MATCHING_RESOURCE"
    return all && conditions.length > 1 ? conditions.every(fires) : conditions.some(fires)
  })
  const logMatch = alerts.filter((p) => (p.conditions ?? []).some((c) => c.conditionMatchedLog?.filter !== undefined && filterMatches(frags, c.conditionMatchedLog.filter)))
  return { metrics: matching.map((m) => m.name), alerts: alerts.map((a) => a.displayName ?? a.name), logMatchAlerts: logMatch.map((a) => a.displayName ?? a.name) }
}

const metricAlertChecks = metricAlertSpecs.map((spec) =>
  defineGcpCheck({
    id: spec.id,
    service: "logging",
    title: `A log metric filter and alert should exist for ${spec.what}`,
    description: `Checks for a log-based metric whose filter matches ${spec.what} and an enabled alert policy with a condition on that metric (threshold, absence, MQL or PromQL), or a log-match alert policy whose filter matches.`,
    severity: "medium",
    cis: spec.cis,
    remediation: `Create a log-based metric with the filter ${spec.example} and an alert policy on metric.type="logging.googleapis.com/user/METRIC_NAME" with a notification channel.`,
    field_labels: { metrics: "Matching log metrics", alert_policies: "Alert policies" },
    uses: ["logging.metrics", "logging.alert_policies"],
    reads: `logging projects.metrics.list → filter; monitoring projects.alertPolicies.list → enabled, combiner, conditions[].conditionThreshold/conditionAbsent.filter, conditionMonitoringQueryLanguage/conditionPrometheusQueryLanguage.query, conditionMatchedLog.filter`,
    evaluate: (inv) => {
      if (inv.logging.metrics === undefined || inv.logging.alertPolicies === undefined) return []
      const m = metricAlertMatches(spec, inv.logging.metrics, inv.logging.alertPolicies)
      // A log-match alert policy watches the log entries themselves: it is the metric and the alert in one.
      const ok = (m.metrics.length > 0 && m.alerts.length > 0) || m.logMatchAlerts.length > 0
      const reason = ok
        ? m.metrics.length > 0
          ? `Metric ${m.metrics.join(", ")} alerts through ${m.alerts.join(", ")}.`
          : `Log-match alert policy ${m.logMatchAlerts.join(", ")} fires on ${spec.what}.`
        : m.metrics.length === 0
          ? `No log metric or log-match alert matches ${spec.what}.`
          : `Metric ${m.metrics.join(", ")} has no enabled alert policy.`
      return [row(inv.projectId, "global", ok, reason, { metrics: m.metrics, alert_policies: m.alerts })]
    },
  }),
)

export const loggingChecks = [
  defineGcpCheck({
    id: "logging_audit_logs_all_services",
    service: "logging",
    title: "Cloud Audit Logging should be configured for all services and users",
    description: "The project's effective audit configuration (its own IAM policy and those of its folders and organization, which it inherits) should enable DATA_READ and DATA_WRITE audit logs (ADMIN_READ recommended) for allServices, with no exempted members in any audit configuration (a per-service exemption opts those users out too). When the project alone does not comply and an ancestor's policy cannot be read, the check is not evaluated.",
    severity: "medium",
    cis: "2.1",
    remediation: "Add an auditConfigs entry {service: allServices, auditLogConfigs: [{logType: ADMIN_READ}, {logType: DATA_READ}, {logType: DATA_WRITE}]} to the project IAM policy and remove exemptedMembers.",
    field_labels: { log_types: "Log types", exempted_members: "Exempted members" },
    uses: ["project.iam_policy", "project.ancestor_iam_policies"],
    reads: "cloudresourcemanager projects.getIamPolicy (v3), projects.getAncestry → folders/organizations getIamPolicy → auditConfigs[service=allServices].auditLogConfigs[].logType; auditConfigs[*].auditLogConfigs[].exemptedMembers",
    evaluate: (inv) => {
      const policy = inv.project.iamPolicy
      if (policy === undefined) return []
      // Audit configurations are inherited: the effective one is the union of the project's and its ancestors'.
      const ancestors = inv.project.ancestorPolicies ?? []
      const configs = [...(policy.auditConfigs ?? []), ...ancestors.flatMap((a) => a.policy.auditConfigs ?? [])]
      const allServices = configs.filter((c) => c.service === "allServices")
      const all = allServices[0]
      const types = [...new Set(allServices.flatMap((c) => (c.auditLogConfigs ?? []).map((l) => l.logType)))]
      // CIS 2.1: no exempted users in any of the audit config sections, the per-service ones included.
      const exempted = [...new Set(configs.flatMap((a) => (a.auditLogConfigs ?? []).flatMap((c) => (c.exemptedMembers ?? []).map((m) => (a.service === "allServices" ? m : `${m} (${a.service})`)))))]
      const missing = ["DATA_READ", "DATA_WRITE"].filter((t) => !types.includes(t))
      const ok = missing.length === 0 && exempted.length === 0
      // Not compliant on what could be read, but an ancestor's policy could not: its configuration might complete it.
      const unread = inv.project.ancestorPolicies === undefined || inv.errors.some((e) => e.resourceType === "project.ancestor_iam_policies")
      if (!ok && missing.length > 0 && unread) return []
      const reason = all === undefined ? "No audit configuration for allServices." : missing.length > 0 ? `Audit logs for allServices lack ${missing.join(", ")}.` : exempted.length > 0 ? `Members are exempted from audit logs: ${exempted.join(", ")}.` : "Data access audit logs are on for all services and users."
      return [row(inv.projectId, "global", ok, reason, { log_types: types, exempted_members: exempted })]
    },
  }),
  defineGcpCheck({
    id: "logging_sink_all_entries",
    service: "logging",
    title: "A log sink should export all log entries",
    description: "Checks for an enabled sink with an empty filter and no active exclusion, so every log entry is exported to durable storage.",
    severity: "medium",
    cis: "2.2",
    remediation: "Create a sink without a filter: gcloud logging sinks create NAME DESTINATION.",
    field_labels: { sinks: "Sinks without filter" },
    uses: ["logging.sinks"],
    reads: "logging projects.sinks.list → filter (empty), exclusions[] (none active), disabled",
    evaluate: (inv) => {
      if (inv.logging.sinks === undefined) return []
      // An exclusion drops the entries it matches even from a sink without a filter.
      const all = inv.logging.sinks.filter((s) => (s.filter ?? "").trim() === "" && s.disabled !== true && !(s.exclusions ?? []).some((x) => x.disabled !== true))
      return [row(inv.projectId, "global", all.length > 0, all.length > 0 ? `Sink ${all.map((s) => s.name).join(", ")} exports all entries.` : "No enabled sink exports all log entries.", { sinks: all.map((s) => s.name) })]
    },
  }),
  defineGcpCheck({
    id: "logging_sink_bucket_retention_locked",
    service: "logging",
    title: "Cloud Storage buckets used as log sinks should have a locked retention policy",
    description: "For every sink exporting to Cloud Storage, the destination bucket should have a retention policy with Bucket Lock on, so logs cannot be deleted early.",
    severity: "medium",
    cis: "2.3",
    remediation: "Set a retention policy and lock it: gcloud storage buckets update gs://BUCKET --retention-period=… && gcloud storage buckets update gs://BUCKET --lock-retention-period (irreversible).",
    field_labels: { sink: "Sink", retention_days: "Retention (days)", locked: "Locked" },
    uses: ["logging.sinks", "logging.sink_buckets"],
    reads: "logging sinks[].destination storage.googleapis.com/BUCKET → storage buckets.get → retentionPolicy.isLocked",
    evaluate: (inv) =>
      (inv.logging.sinks ?? []).flatMap((s) => {
        const name = storageSinkBucket(s.destination)
        if (name === undefined) return []
        const b = inv.logging.sinkBuckets?.get(name)
        if (b === undefined) return []
        if (b === null) return [row(name, "global", false, `Sink ${s.name} writes to bucket ${name}, which does not exist or is not visible.`, { sink: s.name, retention_days: null, locked: false })]
        const days = durationSeconds(b.retentionPolicy?.retentionPeriod === undefined ? undefined : `${b.retentionPolicy.retentionPeriod}s`)
        const locked = b.retentionPolicy?.isLocked === true
        return [
          row(name, "global", locked, b.retentionPolicy === undefined ? `Bucket ${name} has no retention policy.` : locked ? `Bucket ${name} has a locked retention policy.` : `Bucket ${name}'s retention policy is not locked.`, {
            sink: s.name,
            retention_days: days === undefined ? null : Math.round(days / 86_400),
            locked,
          }),
        ]
      }),
  }),
  ...metricAlertChecks,
  defineGcpCheck({
    id: "logging_cloud_asset_inventory_enabled",
    service: "logging",
    title: "Cloud Asset Inventory should be enabled",
    description: "Checks the Cloud Asset API (cloudasset.googleapis.com) is enabled, so asset history is recorded.",
    severity: "low",
    cis: "2.13",
    remediation: "gcloud services enable cloudasset.googleapis.com",
    field_labels: { state: "API state" },
    uses: ["project.cloudasset_service"],
    reads: "serviceusage services.get projects/P/services/cloudasset.googleapis.com → state",
    evaluate: (inv) => {
      const state = inv.project.cloudAssetState
      if (state === undefined) return []
      return [row(inv.projectId, "global", state === "ENABLED", state === "ENABLED" ? "The Cloud Asset API is enabled." : `The Cloud Asset API is ${state.toLowerCase()}.`, { state })]
    },
  }),
  defineGcpCheck({
    id: "logging_access_approval_enabled",
    service: "logging",
    title: "Access Approval should be enabled",
    description: "Checks Access Approval is configured with at least one enrolled service, so Google personnel access needs your explicit approval.",
    severity: "low",
    cis: "2.15",
    remediation: "Enable Access Approval: gcloud access-approval settings update --project=P --enrolled_services=all --notification_emails=…",
    field_labels: { enrolled_services: "Enrolled services" },
    uses: ["project.access_approval"],
    reads: "accessapproval projects.getAccessApprovalSettings → enrolledServices[], enrolledAncestor",
    evaluate: (inv) => {
      const s = inv.project.accessApproval
      if (s === undefined) return []
      const services = (s?.enrolledServices ?? []).map((e) => e.cloudProduct ?? "all")
      // Enrollment is inherited: enrolledAncestor says a folder or the organization enrolled services for the project.
      const inherited = s?.enrolledAncestor === true
      const ok = services.length > 0 || inherited
      return [row(inv.projectId, "global", ok, services.length > 0 ? `Access Approval covers ${services.join(", ")}.` : inherited ? "Access Approval is enabled by an ancestor folder or the organization." : "Access Approval is not enabled.", { enrolled_services: services })]
    },
  }),
]
