/** Microsoft Defender for Cloud checks (CIS Azure v3 3.1.x / v4 9.1.x). */
import { defineAzureCheck, resourceRow, subscriptionRow } from "../define-check.ts"
import type { Assessment } from "../collectors/defender.ts"

interface PlanSpec {
  readonly id: string
  readonly plan: string
  readonly what: string
  readonly v3?: string
  readonly v4?: string
}

const plans: ReadonlyArray<PlanSpec> = [
  { id: "defender_servers_on", plan: "VirtualMachines", what: "Servers", v3: "3.1.3.1", v4: "9.1.3.1" },
  { id: "defender_containers_on", plan: "Containers", what: "Containers", v3: "3.1.4.1", v4: "9.1.4.1" },
  { id: "defender_storage_on", plan: "StorageAccounts", what: "Storage", v3: "3.1.5.1", v4: "9.1.5.1" },
  { id: "defender_app_services_on", plan: "AppServices", what: "App Services", v3: "3.1.6.1", v4: "9.1.6.1" },
  { id: "defender_cosmosdb_on", plan: "CosmosDbs", what: "Azure Cosmos DB", v3: "3.1.7.1", v4: "9.1.7.1" },
  { id: "defender_open_source_databases_on", plan: "OpenSourceRelationalDatabases", what: "open-source relational databases", v3: "3.1.7.2", v4: "9.1.7.2" },
  { id: "defender_azure_sql_on", plan: "SqlServers", what: "Azure SQL databases", v3: "3.1.7.3", v4: "9.1.7.3" },
  { id: "defender_sql_on_machines_on", plan: "SqlServerVirtualMachines", what: "SQL servers on machines", v3: "3.1.7.4", v4: "9.1.7.4" },
  { id: "defender_key_vault_on", plan: "KeyVaults", what: "Key Vault", v3: "3.1.8.1", v4: "9.1.8.1" },
  { id: "defender_resource_manager_on", plan: "Arm", what: "Resource Manager", v3: "3.1.9.1", v4: "9.1.9.1" },
  { id: "defender_dns_on", plan: "Dns", what: "DNS", v3: "3.1.16", v4: "9.1.17" },
  // Beyond the benchmark: posture management, APIs and AI workloads.
  { id: "defender_cspm_on", plan: "CloudPosture", what: "Cloud Security Posture Management" },
  { id: "defender_apis_on", plan: "Api", what: "APIs" },
  { id: "defender_ai_on", plan: "AI", what: "AI services" },
]

const planChecks = plans.map((p) =>
  defineAzureCheck({
    id: p.id,
    service: "defender",
    title: `Microsoft Defender for ${p.what} should be On`,
    description: `Checks the Defender for Cloud plan '${p.plan}' is on the Standard tier for the subscription (a deprecated plan is judged by the plans that replaced it).`,
    severity: "high",
    cis: { ...(p.v3 === undefined ? {} : { v3: p.v3 }), ...(p.v4 === undefined ? {} : { v4: p.v4 }) },
    remediation: `az security pricing create -n ${p.plan} --tier standard (billable per protected resource).`,
    field_labels: { plan: "Plan", pricing_tier: "Pricing tier" },
    uses: ["defender.pricings"],
    reads: `ARM Microsoft.Security/pricings → value[name=${p.plan}].properties.pricingTier, deprecated, replacedBy`,
    evaluate: (inv) => {
      const list = inv.defender.pricings
      if (list === undefined) return []
      const found = list.find((x) => x.name.toLowerCase() === p.plan.toLowerCase())
      const tier = found?.properties?.pricingTier ?? "Free"
      const standard = (name: string) => list.some((x) => x.name.toLowerCase() === name.toLowerCase() && x.properties?.pricingTier === "Standard")
      // A deprecated plan cannot be turned on any more: judge the plans that replaced it, or do not judge it.
      if (found?.properties?.deprecated === true && tier !== "Standard") {
        const successors = found.properties.replacedBy ?? []
        if (successors.length === 0) return [subscriptionRow(inv, true, `Not judged: the ${p.plan} plan is deprecated and can no longer be enabled.`, { plan: p.plan, pricing_tier: tier })]
        const on = successors.filter(standard)
        return [
          subscriptionRow(
            inv,
            on.length > 0,
            on.length > 0 ? `The ${p.plan} plan is deprecated; its protection comes with ${on.join(", ")}, which is on.` : `The ${p.plan} plan is deprecated and its successor (${successors.join(", ")}) is off.`,
            { plan: p.plan, pricing_tier: tier },
          ),
        ]
      }
      const ok = tier === "Standard"
      return [subscriptionRow(inv, ok, ok ? `Defender for ${p.what} is on.` : `Defender for ${p.what} is off (${tier} tier).`, { plan: p.plan, pricing_tier: tier })]
    },
  }),
)

const containerExtension = (id: string, v3: string, extension: string, what: string) =>
  defineAzureCheck({
    id,
    service: "defender",
    title: `${what} should be enabled in Defender for Containers`,
    description: `Checks the Containers plan is on with the '${extension}' extension enabled.`,
    severity: "medium",
    cis: { v3 },
    remediation: `Enable the plan with the extension: az security pricing create -n Containers --tier standard --extensions name=${extension} isEnabled=True`,
    field_labels: { extension: "Extension", enabled: "Enabled" },
    uses: ["defender.pricings"],
    reads: `ARM Microsoft.Security/pricings/Containers → properties.extensions[name=${extension}].isEnabled`,
    evaluate: (inv) => {
      const list = inv.defender.pricings
      if (list === undefined) return []
      const containers = list.find((x) => x.name === "Containers")
      const on = containers?.properties?.pricingTier === "Standard" && (containers.properties.extensions ?? []).some((e) => e.name === extension && e.isEnabled?.toLowerCase() === "true")
      return [subscriptionRow(inv, on, on ? `${what} is enabled.` : `${what} is not enabled.`, { extension, enabled: on })]
    },
  })

/** Defender for Cloud recommendations (assessment keys) about missing OS updates and the periodic update check. */
export const SYSTEM_UPDATE_ASSESSMENTS: Readonly<Record<string, string>> = {
  "4ab6e3c5-74dd-8b35-9ab9-f61b30875b27": "System updates should be installed on your machines",
  "e1145ab1-eb4f-43d8-911b-36ddf771d13f": "System updates should be installed on your machines (powered by Azure Update Manager)",
  "90386950-71ca-4357-a12e-486d1679427c": "Machines should be configured to periodically check for missing system updates",
  "bd20bd91-aaf1-7f14-b6e4-866de2f43146": "System updates on virtual machine scale sets should be installed",
}

/** The resource an assessment is about: resourceDetails.id, else its id without the assessment suffix. */
const assessedResource = (a: Assessment): string => a.properties?.resourceDetails?.id ?? a.id.replace(/\/providers\/Microsoft\.Security\/assessments\/[^/]+$/i, "")

const systemUpdatesCheck = defineAzureCheck({
  id: "defender_system_updates_applied",
  service: "defender",
  title: "Defender for Cloud's 'Apply system updates' recommendation should be completed",
  description: "Checks, per machine, that Defender for Cloud's system-update recommendations (updates installed, periodic assessment of missing updates) are Healthy; machines where they do not apply are skipped.",
  severity: "high",
  cis: { v3: "3.1.10", v4: "9.1.10" },
  remediation: "Defender for Cloud → Recommendations → 'System updates should be installed on your machines': install the missing updates (Azure Update Manager) and enable periodic assessment on each machine.",
  field_labels: { unhealthy: "Unhealthy recommendations", healthy: "Healthy recommendations" },
  uses: ["defender.assessments"],
  reads: "ARM Microsoft.Security/assessments → value[name ∈ system-update assessment keys].properties.status.code (Healthy / Unhealthy / NotApplicable)",
  evaluate: (inv) => {
    const list = inv.defender.assessments
    if (list === undefined) return []
    const byResource = new Map<string, { healthy: string[]; unhealthy: string[]; causes: string[] }>()
    for (const a of list) {
      const title = SYSTEM_UPDATE_ASSESSMENTS[a.name.toLowerCase()]
      const code = a.properties?.status?.code
      if (title === undefined || (code !== "Healthy" && code !== "Unhealthy")) continue
      const key = assessedResource(a)
      const entry = byResource.get(key) ?? { healthy: [], unhealthy: [], causes: [] }
      if (code === "Healthy") entry.healthy.push(title)
      else {
        entry.unhealthy.push(title)
        const why = a.properties?.status?.description ?? a.properties?.status?.cause
        if (why !== undefined && why !== "") entry.causes.push(why)
      }
      byResource.set(key, entry)
    }
    return [...byResource].map(([resourceId, e]) => {
      const ok = e.unhealthy.length === 0
      const name = resourceId.slice(resourceId.lastIndexOf("/") + 1)
      const reason = ok ? "System updates are installed and assessed." : `Unhealthy: ${e.unhealthy.join("; ")}${e.causes.length === 0 ? "" : ` (${e.causes.join("; ")})`}.`
      return resourceRow({ id: resourceId, name }, ok, reason, { unhealthy: e.unhealthy, healthy: e.healthy })
    })
  },
})

export const defenderChecks = [
  ...planChecks,
  containerExtension("defender_containers_agentless_discovery", "3.1.4.2", "AgentlessDiscoveryForKubernetes", "Agentless discovery for Kubernetes"),
  containerExtension("defender_containers_agentless_vulnerability_assessment", "3.1.4.3", "ContainerRegistriesVulnerabilityAssessments", "Agentless container vulnerability assessment"),
  defineAzureCheck({
    id: "defender_auto_provisioning_on",
    service: "defender",
    title: "Auto provisioning of the Log Analytics agent should be On",
    description: "Checks the subscription's auto-provisioning setting 'default' is On.",
    severity: "low",
    cis: { v3: "3.1.1.1" },
    remediation: "az security auto-provisioning-setting update -n default --auto-provision On",
    field_labels: { auto_provision: "Auto provision" },
    uses: ["defender.auto_provisioning"],
    reads: "ARM Microsoft.Security/autoProvisioningSettings → value[name=default].properties.autoProvision",
    evaluate: (inv) => {
      const list = inv.defender.autoProvisioning
      if (list === undefined) return []
      const v = list.find((s) => s.name === "default")?.properties?.autoProvision ?? "Off"
      return [subscriptionRow(inv, v === "On", `Auto provisioning is ${v}.`, { auto_provision: v })]
    },
  }),
  defineAzureCheck({
    id: "defender_cloud_apps_integration",
    service: "defender",
    title: "Microsoft Defender for Cloud Apps integration should be enabled",
    description: "Checks the Defender for Cloud 'MCAS' data export setting is enabled.",
    severity: "medium",
    cis: { v3: "3.1.1.2" },
    remediation: "az security setting update -n MCAS --enabled true",
    field_labels: { enabled: "Enabled" },
    uses: ["defender.settings"],
    reads: "ARM Microsoft.Security/settings → value[name=MCAS].properties.enabled",
    evaluate: (inv) => {
      const list = inv.defender.settings
      if (list === undefined) return []
      const on = list.find((s) => s.name === "MCAS")?.properties?.enabled === true
      return [subscriptionRow(inv, on, on ? "Defender for Cloud Apps integration is enabled." : "Defender for Cloud Apps integration is disabled.", { enabled: on })]
    },
  }),
  defineAzureCheck({
    id: "defender_notify_owners",
    service: "defender",
    title: "Security alert emails should be sent to subscription owners",
    description: "Checks the security contact notifies the Owner role.",
    severity: "medium",
    cis: { v3: "3.1.12", v4: "9.1.12" },
    remediation: "Defender for Cloud → Environment settings → Email notifications: 'All users with the following roles' = Owner.",
    field_labels: { roles: "Notified roles", state: "State" },
    uses: ["defender.contacts"],
    reads: "ARM Microsoft.Security/securityContacts → properties.notificationsByRole.state, roles",
    evaluate: (inv) => {
      const list = inv.defender.contacts
      if (list === undefined) return []
      const byRole = list.find((c) => c.name === "default")?.properties?.notificationsByRole ?? list[0]?.properties?.notificationsByRole
      const ok = byRole?.state === "On" && (byRole.roles ?? []).includes("Owner")
      return [subscriptionRow(inv, ok, ok ? "Owners receive security alert emails." : "Owners are not notified of security alerts.", { roles: [...(byRole?.roles ?? [])], state: byRole?.state ?? "Off" })]
    },
  }),
  defineAzureCheck({
    id: "defender_additional_email",
    service: "defender",
    title: "An additional security contact email should be configured",
    description: "Checks the security contact lists at least one email address.",
    severity: "medium",
    cis: { v3: "3.1.13", v4: "9.1.13" },
    remediation: "Defender for Cloud → Environment settings → Email notifications: add the security team's address under 'Additional email addresses'.",
    field_labels: { emails: "Emails" },
    uses: ["defender.contacts"],
    reads: "ARM Microsoft.Security/securityContacts → properties.emails",
    evaluate: (inv) => {
      const list = inv.defender.contacts
      if (list === undefined) return []
      const emails = list.flatMap((c) => (c.properties?.emails ?? "").split(/[;,]/).map((e) => e.trim()).filter((e) => e !== ""))
      return [subscriptionRow(inv, emails.length > 0, emails.length > 0 ? `Security alerts go to ${emails.join(", ")}.` : "No security contact email is configured.", { emails })]
    },
  }),
  defineAzureCheck({
    id: "defender_alert_notifications",
    service: "defender",
    title: "Email notifications for security alerts should be enabled",
    description: "Checks the security contact has an Alert notification source (minimal severity High or lower).",
    severity: "medium",
    cis: { v3: "3.1.14", v4: "9.1.14" },
    remediation: "Defender for Cloud → Environment settings → Email notifications: 'Notify about alerts with the following severity (or higher)' = High (or lower).",
    field_labels: { minimal_severity: "Minimal severity" },
    uses: ["defender.contacts"],
    reads: "ARM Microsoft.Security/securityContacts → properties.notificationsSources[sourceType=Alert].minimalSeverity",
    evaluate: (inv) => {
      const list = inv.defender.contacts
      if (list === undefined) return []
      const source = list.flatMap((c) => (c.properties?.isEnabled === false ? [] : (c.properties?.notificationsSources ?? []))).find((s) => s.sourceType === "Alert")
      const ok = source !== undefined && ["High", "Medium", "Low"].includes(source.minimalSeverity ?? "")
      return [subscriptionRow(inv, ok, ok ? `Alerts of severity ${source?.minimalSeverity} and above are emailed.` : "Security alert emails are off.", { minimal_severity: source?.minimalSeverity ?? null })]
    },
  }),
  defineAzureCheck({
    id: "defender_attack_path_notifications",
    service: "defender",
    title: "Email notifications for attack paths should be enabled",
    description: "Checks the security contact has an AttackPath notification source.",
    severity: "low",
    cis: { v4: "9.1.15" },
    remediation: "Defender for Cloud → Environment settings → Email notifications: 'Notify about attack paths with the following risk level (or higher)'.",
    field_labels: { minimal_risk_level: "Minimal risk level" },
    uses: ["defender.contacts"],
    reads: "ARM Microsoft.Security/securityContacts → properties.notificationsSources[sourceType=AttackPath].minimalRiskLevel",
    evaluate: (inv) => {
      const list = inv.defender.contacts
      if (list === undefined) return []
      const source = list.flatMap((c) => (c.properties?.isEnabled === false ? [] : (c.properties?.notificationsSources ?? []))).find((s) => s.sourceType === "AttackPath")
      return [subscriptionRow(inv, source !== undefined, source !== undefined ? `Attack paths of risk ${source.minimalRiskLevel ?? "any"} and above are emailed.` : "Attack path emails are off.", { minimal_risk_level: source?.minimalRiskLevel ?? null })]
    },
  }),
  systemUpdatesCheck,
]
