/**
 * Azure condition and scope semantics (issue 29): activity-log alert conditions (every leaf operator, anyOf/allOf,
 * case-insensitive names, scopes) and address lists judged by what they admit.
 */
import { describe, expect, it } from "vitest"
import { entriesAdmitInternet, internetEntries, rangeToCidrs } from "../../server/scanner/azure/address.ts"
import { alertCoverage, operationEvent } from "../../server/scanner/azure/checks/monitor.ts"
import type { ActivityLogAlert } from "../../server/scanner/azure/collectors/monitor.ts"
import type { SecurityRule } from "../../server/scanner/azure/collectors/network.ts"
import { ruleExposesIn } from "../../server/scanner/azure/checks/network.ts"
import { azureChecks } from "../../server/scanner/azure/catalogue.ts"
import type { ConditionalAccessPolicy } from "../../server/scanner/azure/collectors/identity.ts"
import { evaluateRestCheck } from "../../server/scanner/rest/engine.ts"

const SUB = "11111111-1111-4111-8111-111111111111"
const OP = "Microsoft.Network/networkSecurityGroups/write"
type Props = NonNullable<ActivityLogAlert["properties"]>
const alert = (allOf: NonNullable<NonNullable<Props["condition"]>["allOf"]>, extra: Partial<Props> = {}): ActivityLogAlert => ({
  id: `/subscriptions/${SUB}/resourceGroups/monitoring/providers/Microsoft.Insights/activityLogAlerts/a`,
  name: "a",
  properties: { scopes: [`/subscriptions/${SUB}`], condition: { allOf }, ...extra },
})
const kind = (a: ActivityLogAlert, event = operationEvent(OP)) => alertCoverage(a, event, SUB).kind

describe("activity-log alert coverage", () => {
  it("equals and containsAny leaves, field names and values in any case", () => {
    expect(kind(alert([{ field: "category", equals: "Administrative" }, { field: "operationName", equals: OP }]))).toBe("covers")
    expect(kind(alert([{ field: "OPERATIONNAME", equals: OP.toUpperCase() }]))).toBe("covers")
    expect(kind(alert([{ field: "operationName", containsAny: ["Microsoft.Sql/servers/write", OP.toLowerCase()] }]))).toBe("covers")
    expect(kind(alert([{ field: "operationName", containsAny: ["Microsoft.Sql/servers/write"] }]))).toBe("unrelated")
    expect(kind(alert([{ field: "category", equals: "Security" }, { field: "operationName", equals: OP }]))).toBe("unrelated")
  })

  it("anyOf of leaves; allOf needs every entry", () => {
    expect(kind(alert([{ field: "category", equals: "Administrative" }, { anyOf: [{ field: "operationName", equals: "x/write" }, { field: "operationName", containsAny: [OP] }] }]))).toBe("covers")
    expect(kind(alert([{ anyOf: [{ field: "operationName", equals: "x/write" }, { field: "operationName", equals: "y/write" }] }]))).toBe("unrelated")
    // Conditions implied by the operation (its resource type and provider) do not narrow it.
    expect(kind(alert([{ field: "resourceType", equals: "microsoft.network/networksecuritygroups" }, { field: "resourceProvider", equals: "Microsoft.Network" }, { field: "operationName", equals: OP }]))).toBe("covers")
    expect(operationEvent("Microsoft.Compute/virtualMachines/deallocate/action")).toMatchObject({ resourcetype: "Microsoft.Compute/virtualMachines" })
  })

  it("a condition on a field the operation does not fix narrows the alert", () => {
    const narrowed = alertCoverage(alert([{ field: "operationName", equals: OP }, { field: "resourceGroup", equals: "prod" }, { field: "status", containsAny: ["Failed", "Succeeded"] }]), operationEvent(OP), SUB)
    expect(narrowed).toEqual({ kind: "narrower", why: "a fires only when resourceGroup = prod and status in [Failed, Succeeded]" })
    // …unless it names every documented value of the field (all Service Health event types, all levels).
    const types = ["Incident", "Maintenance", "Informational", "ActionRequired", "Security"]
    expect(kind(alert([{ field: "category", equals: "ServiceHealth" }, { field: "properties.incidentType", containsAny: types }]), { category: "ServiceHealth" })).toBe("covers")
    expect(kind(alert([{ field: "category", equals: "ServiceHealth" }, { anyOf: types.map((t) => ({ field: "properties.incidentType", equals: t })) }]), { category: "ServiceHealth" })).toBe("covers")
    expect(kind(alert([{ field: "category", equals: "ServiceHealth" }, { anyOf: types.slice(1).map((t) => ({ field: "properties.incidentType", equals: t })) }]), { category: "ServiceHealth" })).toBe("narrower")
    // Conditions only on fields the event does not fix do not make it an alert for the event.
    expect(kind(alert([{ field: "status", equals: "Failed" }]))).toBe("unrelated")
  })

  it("scope: the subscription itself covers it; a resource group, a resource or another subscription does not", () => {
    const leaf = [{ field: "operationName", equals: OP }]
    expect(kind(alert(leaf, { scopes: [`/subscriptions/${SUB.toUpperCase()}/`] }))).toBe("covers")
    expect(kind(alert(leaf, { scopes: [`/subscriptions/${SUB}/resourceGroups/prod`, `/subscriptions/${SUB}`] }))).toBe("covers")
    expect(alertCoverage(alert(leaf, { scopes: [`/subscriptions/${SUB}/resourceGroups/prod`] }), operationEvent(OP), SUB)).toEqual({ kind: "narrower", why: `a watches only resource group /subscriptions/${SUB}/resourceGroups/prod` })
    expect(alertCoverage(alert(leaf, { scopes: [`/subscriptions/${SUB}/resourceGroups/prod/providers/Microsoft.Network/networkSecurityGroups/n`] }), operationEvent(OP), SUB).kind).toBe("narrower")
    expect(alertCoverage(alert(leaf, { scopes: ["/subscriptions/22222222-2222-4222-8222-222222222222"] }), operationEvent(OP), SUB)).toMatchObject({ kind: "narrower" })
    expect(alertCoverage(alert(leaf, { enabled: false }), operationEvent(OP), SUB)).toEqual({ kind: "narrower", why: "a is disabled" })
    expect(kind(alert(leaf, {}))).toBe("covers") // enabled left out: true by default
  })
})

describe("address lists judged by what they admit", () => {
  it("service tags, CIDRs, single addresses and start–end ranges", () => {
    for (const open of [["*"], ["Internet"], ["Any"], ["0.0.0.0/0"], ["::/0"], ["0.0.0.0-255.255.255.255"], ["0.0.0.0/1", "128.0.0.0/1"], ["1.0.0.0-223.255.255.255"], ["16.0.0.0/4"]])
      expect(entriesAdmitInternet(open), open.join(",")).toBe(true)
    for (const closed of [["VirtualNetwork"], ["AzureLoadBalancer"], ["10.0.0.0/8"], ["203.0.113.7"], ["0.0.0.0"], ["0.0.0.0-0.0.0.0"], ["198.51.100.0/24", "192.168.0.0/16"], []])
      expect(entriesAdmitInternet(closed), closed.join(",")).toBe(false)
  })

  it("start–end ranges tile into CIDR blocks", () => {
    expect(rangeToCidrs("0.0.0.0", "255.255.255.255")).toEqual(["0.0.0.0/0"])
    expect(rangeToCidrs("10.0.0.1", "10.0.0.6")).toEqual(["10.0.0.1/32", "10.0.0.2/31", "10.0.0.4/31", "10.0.0.6/32"])
    expect(rangeToCidrs("10.0.0.9", "10.0.0.1")).toBeUndefined()
  })

  it("names the entries responsible: each that admits the internet alone, else every public entry of a union that does", () => {
    expect(internetEntries(["203.0.113.7", "*"], (x) => x)).toEqual(["*"])
    expect(internetEntries(["0.0.0.0/1", "128.0.0.0/1", "10.0.0.0/8"], (x) => x)).toEqual(["0.0.0.0/1", "128.0.0.0/1"])
    expect(internetEntries(["203.0.113.7", "10.0.0.0/8"], (x) => x)).toEqual([])
  })
})

describe("NSG rules by priority", () => {
  const r = (name: string, access: string, priority: number, port: string, source: string | string[], protocol = "Tcp"): SecurityRule => ({
    name,
    properties: { direction: "Inbound", access, priority, protocol, destinationPortRange: port, ...(Array.isArray(source) ? { sourceAddressPrefixes: source } : { sourceAddressPrefix: source }) },
  })
  it("an Allow behind a higher-priority Deny from the Internet admits nothing; a Deny after it or from part of the Internet does not shadow it", () => {
    const allow = r("allow-ssh", "Allow", 300, "22", "*")
    expect(ruleExposesIn([allow, r("deny", "Deny", 200, "20-25", "Internet")], allow, "Tcp", 22)).toBe(false)
    expect(ruleExposesIn([allow, r("deny-later", "Deny", 400, "22", "*")], allow, "Tcp", 22)).toBe(true)
    expect(ruleExposesIn([allow, r("deny-part", "Deny", 200, "22", "203.0.113.0/24")], allow, "Tcp", 22)).toBe(true)
    expect(ruleExposesIn([allow, r("deny-udp", "Deny", 200, "22", "*", "Udp")], allow, "Tcp", 22)).toBe(true)
    const split = r("allow-split", "Allow", 100, "22", ["0.0.0.0/1", "128.0.0.0/1"])
    expect(ruleExposesIn([split], split, "Tcp", 22)).toBe(true)
  })
})

describe("Conditional Access policies count only when they enforce what the check asks", () => {
  const check = (id: string) => azureChecks.find((c) => c.id === id)!
  const decide = (id: string, policies: ReadonlyArray<ConditionalAccessPolicy>) => {
    const inv = { subscriptionId: SUB, tenantId: "t", collectedAt: new Date(0), errors: [], entra: { authorizationPolicy: undefined, securityDefaults: undefined, conditionalAccessPolicies: policies, namedLocations: undefined, deviceRegistrationPolicy: undefined, groupSettings: undefined, globalAdmins: undefined } }
    return evaluateRestCheck(check(id), inv, new Date(0)).details[0]!
  }
  const policy = (grantControls: NonNullable<ConditionalAccessPolicy["grantControls"]>, extra: Pick<ConditionalAccessPolicy, "conditions"> | Pick<ConditionalAccessPolicy, "state" | "displayName"> | object = {}): ConditionalAccessPolicy =>
    ({
      id: "p",
      displayName: "P",
      state: "enabled",
      conditions: { users: { includeUsers: ["All"], excludeUsers: ["break-glass"] }, applications: { includeApplications: ["All"] } },
      grantControls,
      ...extra,
    }) as ConditionalAccessPolicy
  it("MFA: the mfa control, an authentication strength, or mfa AND another control; not mfa OR a compliant device", () => {
    expect(decide("entra_ca_mfa_all_users", [policy({ operator: "OR", builtInControls: ["mfa"] })]).compliant).toBe(true)
    expect(decide("entra_ca_mfa_all_users", [policy({ operator: "OR", builtInControls: [], authenticationStrength: { id: "x" } })]).compliant).toBe(true)
    expect(decide("entra_ca_mfa_all_users", [policy({ operator: "AND", builtInControls: ["mfa", "compliantDevice"] })]).compliant).toBe(true)
    expect(decide("entra_ca_mfa_all_users", [policy({ operator: "OR", builtInControls: ["mfa", "compliantDevice"] })]).compliant).toBe(false)
  })
  it("report-only and disabled policies are named but do not count; a policy for some apps does not cover all users' sign-ins", () => {
    const row = decide("entra_ca_mfa_all_users", [policy({ builtInControls: ["mfa"] }, { state: "enabledForReportingButNotEnforced", displayName: "Report only" })])
    expect(row).toMatchObject({ compliant: false, not_enforced: ["Report only"], reason: "No enforced policy requiring MFA of all users: Report only is enabledForReportingButNotEnforced." })
    const portal = policy({ builtInControls: ["mfa"] }, { conditions: { users: { includeUsers: ["All"] }, applications: { includeApplications: ["797f4846-ba00-4fd7-ba43-dac1f8f63013"] } } })
    expect(decide("entra_ca_mfa_all_users", [portal]).compliant).toBe(false)
    expect(decide("entra_ca_mfa_azure_management", [portal]).compliant).toBe(true)
    expect(decide("entra_ca_mfa_admin_portals", [portal]).compliant).toBe(false)
  })
  it("MFA to join devices: the device setting, or an enforced policy on the 'register or join devices' user action", () => {
    const inv = (mfaSetting: string, policies: ReadonlyArray<ConditionalAccessPolicy>) => ({ subscriptionId: SUB, tenantId: "t", collectedAt: new Date(0), errors: [], entra: { authorizationPolicy: undefined, securityDefaults: undefined, conditionalAccessPolicies: policies, namedLocations: undefined, deviceRegistrationPolicy: { multiFactorAuthConfiguration: mfaSetting }, groupSettings: undefined, globalAdmins: undefined } })
    const join = policy({ builtInControls: ["mfa"] }, { conditions: { users: { includeUsers: ["All"] }, applications: { includeApplications: [], includeUserActions: ["urn:user:registerdevice"] } } })
    const d = (i: ReturnType<typeof inv>) => evaluateRestCheck(check("entra_device_join_requires_mfa"), i, new Date(0)).details[0]!.compliant
    expect(d(inv("notRequired", [join]))).toBe(true)
    expect(d(inv("notRequired", [{ ...join, state: "enabledForReportingButNotEnforced" }]))).toBe(false)
    expect(d(inv("required", []))).toBe(true)
  })
  it("device code flow: the transfer-methods flags value is split", () => {
    const p = policy({ builtInControls: ["block"] }, { conditions: { users: { includeUsers: ["All"] }, applications: { includeApplications: ["All"] }, authenticationFlows: { transferMethods: "authenticationTransfer,deviceCodeFlow" } } })
    expect(decide("entra_ca_device_code_flow_blocked", [p]).compliant).toBe(true)
  })
})
