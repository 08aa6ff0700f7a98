/**
 * What the GCP checks mean, beyond "a field is set" (issue 29): every alert condition type, IP ranges judged by
 * what they admit, Google-managed service agents, and partial answers (unreachable zones, missing GKE zones) that
 * make the affected checks "not evaluated" with the reason instead of a silent pass.
 */
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { admission, admitsInternet, parseRange } from "../../server/scanner/ip-ranges.ts"
import { isServiceAgent } from "../../server/scanner/gcp/context.ts"
import { metricAlertMatches, promqlMetricName } from "../../server/scanner/gcp/checks/logging.ts"
import type { AlertPolicy } from "../../server/scanner/gcp/collectors/logging.ts"
import { gcpChecks } from "../../server/scanner/gcp/catalogue.ts"
import type { GcpScanInventory } from "../../server/scanner/gcp/inventory.ts"
import { hardenedProject, insecureProject, NOW } from "./gcp-fixtures.ts"
import { findingOf, rowOf, startGcpFixture, type GcpFixture } from "./helpers.ts"

const spec = { fragments: ['resource.type="gce_route"', "compute.routes.delete", "compute.routes.insert"] }
const routes = { name: "route-changes", filter: 'resource.type="gce_route" AND (protoPayload.methodName:"compute.routes.delete" OR protoPayload.methodName:"compute.routes.insert")' }
type Conditions = NonNullable<AlertPolicy["conditions"]>
const policy = (conditions: Conditions, extra: Partial<AlertPolicy> = {}): AlertPolicy => ({ name: "projects/p/alertPolicies/1", displayName: "routes", conditions, ...extra })

describe("alert policies: every condition type", () => {
  it("sees threshold, absence, MQL and PromQL conditions on the metric", () => {
    const cases: Conditions[] = [
      [{ conditionThreshold: { filter: 'metric.type="logging.googleapis.com/user/route-changes" AND resource.type="global"' } }],
      [{ conditionAbsent: { filter: "metric.type = 'logging.googleapis.com/user/route-changes'" } }],
      [{ conditionMonitoringQueryLanguage: { query: "fetch global::logging.googleapis.com/user/route-changes | align rate(1m) | every 1m | condition val() > 0" } }],
      [{ conditionMonitoringQueryLanguage: { query: "fetch global | metric 'logging.googleapis.com/user/route-changes' | condition val() > 0" } }],
      [{ conditionPrometheusQueryLanguage: { query: "sum(rate(logging_googleapis_com:user_route_changes[5m])) > 0" } }],
      [{ conditionPrometheusQueryLanguage: { query: 'sum(rate({"__name__"="logging.googleapis.com/user/route-changes"}[5m])) > 0' } }],
    ]
    for (const conditions of cases) expect(metricAlertMatches(spec, [routes], [policy(conditions)]).alerts, JSON.stringify(conditions)).toEqual(["routes"])
  })

  it("a log-match condition whose own filter matches is the metric and the alert in one", () => {
    const m = metricAlertMatches(spec, [], [policy([{ conditionMatchedLog: { filter: routes.filter } }])])
    expect(m).toEqual({ metrics: [], alerts: ["routes"], logMatchAlerts: ["routes"] })
    expect(metricAlertMatches(spec, [], [policy([{ conditionMatchedLog: { filter: 'resource.type="gce_route"' } }])]).alerts).toEqual([])
  })

  it("does not take another metric whose name starts the same, a SQL condition, or an AND with an unrelated condition", () => {
    expect(metricAlertMatches(spec, [routes], [policy([{ conditionThreshold: { filter: 'metric.type="logging.googleapis.com/user/route-changes-old"' } }])]).alerts).toEqual([])
    expect(metricAlertMatches(spec, [routes], [policy([{ conditionMonitoringQueryLanguage: { query: "fetch global::logging.googleapis.com/user/route-changes2" } }])]).alerts).toEqual([])
    expect(metricAlertMatches(spec, [routes], [policy([{ conditionPrometheusQueryLanguage: { query: "logging_googleapis_com:user_route_changes_v2 > 0" } }])]).alerts).toEqual([])
    expect(metricAlertMatches(spec, [routes], [policy([{ conditionSql: { query: "SELECT * FROM `logs` WHERE resource.type = 'gce_route'" } }])]).alerts).toEqual([])
    const unrelated = { conditionThreshold: { filter: 'metric.type="compute.googleapis.com/instance/cpu/utilization"' } }
    const watching = { conditionThreshold: { filter: 'metric.type="logging.googleapis.com/user/route-changes"' } }
    expect(metricAlertMatches(spec, [routes], [policy([watching, unrelated], { combiner: "AND" })]).alerts).toEqual([])
    expect(metricAlertMatches(spec, [routes], [policy([watching, unrelated], { combiner: "OR" })]).alerts).toEqual(["routes"])
    expect(metricAlertMatches(spec, [routes], [policy([watching], { combiner: "AND" })]).alerts).toEqual(["routes"])
    expect(metricAlertMatches(spec, [routes], [policy([watching], { enabled: false })]).alerts).toEqual([])
  })

  it("CIS 2.4: an ownership filter must catch owners removed as well as added", async () => {
    const { metricFilters } = await import("./gcp-fixtures.ts")
    const ownership = { fragments: ['protoPayload.serviceName="cloudresourcemanager.googleapis.com"', "ProjectOwnership", "projectOwnerInvitee", 'bindingDeltas.action="REMOVE"', 'bindingDeltas.action="ADD"', 'bindingDeltas.role="roles/owner"'] }
    const addOnly = metricFilters.ownership.replace(/ OR \(protoPayload\.serviceData\.policyDelta\.bindingDeltas\.action="REMOVE"[^)]*\)/, "")
    expect(addOnly).not.toContain("REMOVE")
    const check = gcpChecks.find((c) => c.id === "logging_metric_alert_project_ownership_changes")!
    const inv = (filter: string) => ({ projectId: "p", projectNumber: "1", collectedAt: NOW, errors: [], logging: { metrics: [{ name: "own", filter }], alertPolicies: [policy([{ conditionThreshold: { filter: 'metric.type="logging.googleapis.com/user/own"' } }])] } }) as unknown as GcpScanInventory
    expect(check.evaluate(inv(metricFilters.ownership), { now: NOW })[0]?.compliant).toBe(true)
    expect(check.evaluate(inv(addOnly), { now: NOW })[0]?.compliant).toBe(false)
    expect(metricAlertMatches(ownership, [{ name: "own", filter: addOnly }], []).metrics).toEqual([])
  })

  it("names metrics in PromQL as Cloud Monitoring documents (first / to :, other specials to _)", () => {
    expect(promqlMetricName("logging.googleapis.com/user/route-changes")).toBe("logging_googleapis_com:user_route_changes")
    expect(promqlMetricName("logging.googleapis.com/user/a.b/c")).toBe("logging_googleapis_com:user_a_b_c")
  })
})

const v4 = fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 })).map((o) => o.join("."))

describe("IP ranges: judged by what they admit", () => {
  it("the internet: 0.0.0.0/0, ::/0, any split of the IPv4 space, huge public blocks", () => {
    for (const r of [["0.0.0.0/0"], ["::/0"], ["0.0.0.0/1", "128.0.0.0/1"], ["1.0.0.0/7"], ["2000::/3"], ["2000::/4", "3000::/4"], ["10.0.0.0/8", "0.0.0.0/0"]]) expect(admitsInternet(r), r.join(",")).toBe(true)
    for (const r of [["10.0.0.0/8"], ["192.168.0.0/16", "172.16.0.0/12"], ["35.235.240.0/20"], ["203.0.113.7"], ["2001:db8::/32"], ["17.0.0.0/8"], [], ["not-a-range"]]) expect(admitsInternet(r), r.join(",")).toBe(false)
    expect(admission(["0.0.0.0/0", "bogus"]).invalid).toEqual(["bogus"])
  })

  it("splitting the IPv4 space into 2^k equal blocks admits the internet; leaving out any public block does not (k ≥ 8)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 }), fc.nat(), (k, pick) => {
        const size = 2 ** (32 - k)
        const blocks = Array.from({ length: 2 ** k }, (_, i) => {
          const n = i * size
          return `${(n >>> 24) & 255}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}/${k}`
        })
        expect(admitsInternet(blocks)).toBe(true)
        if (k >= 8) {
          // Leave out one block that holds public addresses (8.0.0.0/8 is public for every k ≥ 8).
          const publicBlocks = blocks.filter((b) => parseRange(b)!.start >= 0x08000000n && parseRange(b)!.end <= 0x08ffffffn)
          const omitted = publicBlocks[pick % publicBlocks.length]!
          expect(admitsInternet(blocks.filter((b) => b !== omitted))).toBe(false)
        }
      }),
      { numRuns: 40 },
    )
  })

  it("a list of single addresses or /24s never admits the internet", () => {
    fc.assert(fc.property(fc.array(fc.tuple(v4, fc.constantFrom("", "/24", "/32")), { maxLength: 30 }), (xs) => !admitsInternet(xs.map(([a, p]) => `${a}${p}`))))
  })
})

describe("Google-managed service agents", () => {
  it("recognises the service agents, not the customer's default service accounts", () => {
    for (const m of ["serviceAccount:123456789012@cloudservices.gserviceaccount.com", "serviceAccount:service-123456789012@compute-system.iam.gserviceaccount.com", "serviceAccount:service-123456789012@container-engine-robot.iam.gserviceaccount.com", "serviceAccount:service-123@gcp-sa-logging.iam.gserviceaccount.com", "serviceAccount:service-org-1234@gcp-sa-ktd-hpsa.iam.gserviceaccount.com", "service-1@gcp-sa-pubsub.iam.gserviceaccount.com"]) {
      expect(isServiceAgent(m), m).toBe(true)
    }
    for (const m of ["serviceAccount:123456789012-compute@developer.gserviceaccount.com", "serviceAccount:my-proj@appspot.gserviceaccount.com", "serviceAccount:app@my-proj.iam.gserviceaccount.com", "user:service-1@example.com", "serviceAccount:123@cloudbuild.gserviceaccount.com"]) {
      expect(isServiceAgent(m), m).toBe(false)
    }
  })
})

describe("partial answers are not passes", () => {
  let fx: GcpFixture
  beforeAll(async () => {
    const partial = { ...hardenedProject(), projectId: "partial-proj", unreachableScopes: ["zones/us-east1-b"], gkeMissingZones: ["asia-east1-a"], functionsUnreachable: ["us-east4"] }
    fx = await startGcpFixture([partial, insecureProject()])
  })
  afterAll(async () => {
    await fx.close()
  })

  it("an unreachable zone makes every instance check 'not evaluated' with the zone named, the seen instances still reported", async () => {
    const compute = await fx.scan("partial-proj", "compute")
    for (const id of ["compute_instance_shielded_vm_enabled", "compute_instance_no_public_ip", "compute_instance_not_default_sa"]) {
      const f = findingOf([compute], id)
      expect(f.status, id).toBe("error")
      expect(f.errors.map((e) => [e.region, e.code]), id).toContainEqual(["us-east1-b", "UNREACHABLE"])
      expect(rowOf(f, "ok-vm").compliant, id).toBe(true)
    }
    // The project-level OS Login row is still judged, but the instances that could override it were not all seen.
    expect(rowOf(findingOf([compute], "compute_project_os_login_enabled"), "partial-proj").compliant).toBe(true)
    expect(findingOf([compute], "compute_project_os_login_enabled").status).toBe("error")
  })

  it("GKE missing zones make the cluster checks 'not evaluated'", async () => {
    const gke = await fx.scan("partial-proj", "gke")
    const f = findingOf([gke], "gke_cluster_private_nodes")
    expect(f.status).toBe("error")
    expect(f.errors.map((e) => [e.region, e.code])).toContainEqual(["asia-east1-a", "MISSING_ZONE"])
  })

  it("Cloud Functions locations the list could not reach make the function checks 'not evaluated'", async () => {
    const fns = await fx.scan("partial-proj", "cloudfunctions")
    const f = findingOf([fns], "cloudfunctions_function_not_default_sa")
    expect(f.status).toBe("error")
    expect(f.errors.map((e) => [e.region, e.code])).toContainEqual(["us-east4", "UNREACHABLE"])
    expect(rowOf(f, "ok-fn").compliant).toBe(true)
  })

  it("ranges that admit the internet are not restrictions: firewall halves, GKE authorised halves", async () => {
    const [vpc, gke] = await Promise.all([fx.scan("insecure-proj", "vpc"), fx.scan("insecure-proj", "gke")])
    expect(rowOf(findingOf([vpc], "vpc_firewall_ssh_not_open"), "bad-ssh-halves").compliant).toBe(false)
    expect(rowOf(findingOf([vpc], "vpc_firewall_ssh_not_open"), "ok-internal-ssh").compliant).toBe(true)
    const wide = rowOf(findingOf([gke], "gke_cluster_control_plane_restricted"), "bad-gke-wide")
    expect(wide.compliant).toBe(false)
    expect(wide.reason).toMatch(/admit the internet/)
    expect(rowOf(findingOf([gke], "gke_nodepool_not_default_sa"), "bad-gke/default-pool")).toMatchObject({ compliant: false, value: "default" })
    expect(rowOf(findingOf([gke], "gke_nodepool_metadata_server_protected"), "bad-gke/default-pool")).toMatchObject({ compliant: false, value: "MODE_UNSPECIFIED" })
    expect(rowOf(findingOf([gke], "gke_nodepool_not_default_sa"), "bad-gke/auto-pool").compliant).toBe(true)
  })

  it("CIS 2.1: audit configurations inherited from the organization count; an unreadable ancestor makes the check not evaluated, never a failure", async () => {
    const base = hardenedProject()
    const orgConfig = { auditConfigs: [{ service: "allServices", auditLogConfigs: [{ logType: "ADMIN_READ" }, { logType: "DATA_READ" }, { logType: "DATA_WRITE" }] }] }
    const withoutOwn = { ...base.iamPolicy, auditConfigs: [] }
    fx.world.projects.set("inherit-proj", { ...base, projectId: "inherit-proj", iamPolicy: withoutOwn, ancestors: [{ type: "folder", id: "42", policy: { bindings: [] } }, { type: "organization", id: "7", policy: orgConfig }] })
    fx.world.projects.set("denied-proj", { ...base, projectId: "denied-proj", iamPolicy: withoutOwn, ancestors: [{ type: "organization", id: "8", policy: null }] })
    const inherited = findingOf([await fx.scan("inherit-proj", "logging")], "logging_audit_logs_all_services")
    expect(inherited.status).toBe("pass")
    expect(rowOf(inherited, "inherit-proj").log_types).toEqual(["ADMIN_READ", "DATA_READ", "DATA_WRITE"])
    const denied = findingOf([await fx.scan("denied-proj", "logging")], "logging_audit_logs_all_services")
    expect(denied.status).toBe("error")
    expect(denied.details).toEqual([])
    expect(denied.errors.map((e) => [e.operation, e.kind])).toEqual([["cloudresourcemanager.organizations.getIamPolicy", "access_denied"]])
  })

  it("organization policies that decide for every resource: public access prevention and serial port access", async () => {
    const base = insecureProject()
    fx.world.projects.set("orgpol-proj", { ...base, projectId: "orgpol-proj", orgPolicies: { "storage.publicAccessPrevention": true, "compute.disableSerialPortAccess": true } })
    fx.world.projects.set("orgpol-denied-proj", { ...base, projectId: "orgpol-denied-proj", orgPolicies: { "storage.publicAccessPrevention": null, "compute.disableSerialPortAccess": null } })
    const [storage, compute] = await Promise.all([fx.scan("orgpol-proj", "storage"), fx.scan("orgpol-proj", "compute")])
    expect(rowOf(findingOf([storage], "storage_bucket_not_public"), "insecure-logs")).toMatchObject({ compliant: true, public_access_prevention: "enforced by organization policy" })
    expect(rowOf(findingOf([compute], "compute_instance_serial_port_disabled"), "bad-vm").compliant).toBe(true)
    const [storageDenied, computeDenied] = await Promise.all([fx.scan("orgpol-denied-proj", "storage"), fx.scan("orgpol-denied-proj", "compute")])
    const pub = findingOf([storageDenied], "storage_bucket_not_public")
    expect(pub.details.map((d) => d.resource_id)).not.toContain("insecure-logs")
    expect(pub.errors.map((e) => e.kind)).toContain("access_denied")
    expect(findingOf([computeDenied], "compute_instance_serial_port_disabled").details.map((d) => d.resource_id)).not.toContain("bad-vm")
    // Without the organization policy, the insecure project's public bucket and serial port still fail.
    const [storagePlain, computePlain] = await Promise.all([fx.scan("insecure-proj", "storage"), fx.scan("insecure-proj", "compute")])
    expect(rowOf(findingOf([storagePlain], "storage_bucket_not_public"), "insecure-logs").compliant).toBe(false)
    expect(rowOf(findingOf([computePlain], "compute_instance_serial_port_disabled"), "bad-vm").compliant).toBe(false)
  })

  it("CIS 4.4: the compute.requireOsLogin organization policy enables OS Login without metadata; unreadable, the project is not evaluated", async () => {
    const base = insecureProject()
    fx.world.projects.set("oslogin-proj", { ...base, projectId: "oslogin-proj", computeProject: { ...base.computeProject, commonInstanceMetadata: { items: [] } }, orgPolicies: { "compute.requireOsLogin": true } })
    fx.world.projects.set("oslogin-denied-proj", { ...base, projectId: "oslogin-denied-proj", computeProject: { ...base.computeProject, commonInstanceMetadata: { items: [] } }, orgPolicies: { "compute.requireOsLogin": null } })
    const required = findingOf([await fx.scan("oslogin-proj", "compute")], "compute_project_os_login_enabled")
    expect(rowOf(required, "oslogin-proj")).toMatchObject({ compliant: true, reason: expect.stringMatching(/requireOsLogin/) })
    const denied = findingOf([await fx.scan("oslogin-denied-proj", "compute")], "compute_project_os_login_enabled")
    expect(denied.details.map((d) => d.resource_id)).not.toContain("oslogin-denied-proj")
    expect(denied.errors.map((e) => e.kind)).toContain("access_denied")
  })

  it("an essential contact marked INVALID covers nothing", async () => {
    const base = hardenedProject()
    fx.world.projects.set("invalid-contact-proj", { ...base, projectId: "invalid-contact-proj", contacts: base.contacts.map((c) => ({ ...c, validationState: "INVALID" })) })
    const f = findingOf([await fx.scan("invalid-contact-proj", "iam")], "iam_essential_contacts_configured")
    expect(rowOf(f, "invalid-contact-proj").compliant).toBe(false)
  })

  it("a 2nd gen function made public on its Cloud Run service is public", async () => {
    const fns = await fx.scan("insecure-proj", "cloudfunctions")
    expect(rowOf(findingOf([fns], "cloudfunctions_function_not_public"), "bad-run-public-fn")).toMatchObject({ compliant: false, public_grants: ["allUsers:roles/run.invoker"] })
    expect(rowOf(findingOf([fns], "cloudfunctions_function_not_public"), "ok-private-fn").compliant).toBe(true)
  })

  it("the Google APIs Service Agent is exempt from the Editor and admin checks alike", async () => {
    const iam = await fx.scan("insecure-proj", "iam")
    expect(rowOf(findingOf([iam], "iam_no_basic_editor_role"), "insecure-proj").members).not.toContain("serviceAccount:222222222222@cloudservices.gserviceaccount.com")
    expect(rowOf(findingOf([iam], "iam_sa_no_admin_privileges"), "222222222222@cloudservices.gserviceaccount.com")).toMatchObject({ compliant: true, reason: expect.stringMatching(/^Not judged: .* Google-managed service agent/) })
  })
})

/** Runs one check on a hand-made inventory (sections the check does not read are left out). */
const evaluate = (id: string, sections: Partial<GcpScanInventory>) => {
  const check = gcpChecks.find((c) => c.id === id)
  if (check === undefined) throw new Error(`no check ${id}`)
  return check.evaluate({ projectId: "p", projectNumber: "1", collectedAt: NOW, errors: [], ...sections } as GcpScanInventory, { now: NOW })
}

describe("review fixes (REVIEW.md)", () => {
  it("CIS 2.1: an exemption in a per-service audit config fails too", () => {
    const allServices = { service: "allServices", auditLogConfigs: [{ logType: "ADMIN_READ" }, { logType: "DATA_READ" }, { logType: "DATA_WRITE" }] }
    const project = (auditConfigs: ReadonlyArray<unknown>) => ({ project: { iamPolicy: { auditConfigs }, essentialContacts: undefined, cloudAssetState: undefined, accessApproval: undefined } }) as unknown as Partial<GcpScanInventory>
    expect(evaluate("logging_audit_logs_all_services", project([allServices]))[0]?.compliant).toBe(true)
    const rows = evaluate("logging_audit_logs_all_services", project([allServices, { service: "storage.googleapis.com", auditLogConfigs: [{ logType: "DATA_READ", exemptedMembers: ["user:ci@example.com"] }] }]))
    expect(rows[0]).toMatchObject({ compliant: false, exempted_members: ["user:ci@example.com (storage.googleapis.com)"] })
  })

  it("CIS 4.11: a VM with a confidential instance type (SEV_SNP, TDX) is confidential without the legacy flag", () => {
    const vm = (confidentialInstanceConfig: unknown) => ({ compute: { instances: [{ scope: "us-central1-a", item: { name: "vm", confidentialInstanceConfig } }] } }) as unknown as Partial<GcpScanInventory>
    expect(evaluate("compute_instance_confidential_computing", vm({ confidentialInstanceType: "TDX" }))[0]?.compliant).toBe(true)
    expect(evaluate("compute_instance_confidential_computing", vm({ enableConfidentialCompute: true }))[0]?.compliant).toBe(true)
    expect(evaluate("compute_instance_confidential_computing", vm(undefined))[0]?.compliant).toBe(false)
  })

  it("CIS 3.8: flow logs at the API defaults (sampling 0.5, no metadata) do not comply", () => {
    const subnet = (logConfig: unknown) => ({ compute: { subnetworks: [{ scope: "us-central1", item: { name: "s", logConfig } }] } }) as unknown as Partial<GcpScanInventory>
    expect(evaluate("vpc_subnet_flow_logs_enabled", subnet({ enable: true }))[0]).toMatchObject({ compliant: false, reason: expect.stringMatching(/sampling 0.5, metadata EXCLUDE_ALL_METADATA/) })
    expect(evaluate("vpc_subnet_flow_logs_enabled", subnet({ enable: true, flowSampling: 1, metadata: "INCLUDE_ALL_METADATA" }))[0]?.compliant).toBe(true)
    expect(evaluate("vpc_subnet_flow_logs_enabled", subnet({ enable: true, flowSampling: 1, metadata: "INCLUDE_ALL_METADATA", filterExpr: "src_port == 22" }))[0]?.compliant).toBe(false)
  })

  it("a bucket with a retention policy is not judged on versioning (the two cannot coexist)", () => {
    const bucket = (extra: Record<string, unknown>) => ({ storage: { buckets: [{ name: "b", location: "US", policy: undefined, ...extra }] } }) as unknown as Partial<GcpScanInventory>
    expect(evaluate("storage_bucket_versioning_enabled", bucket({ retentionPolicy: { retentionPeriod: "86400" } }))[0]).toMatchObject({ compliant: true, reason: expect.stringMatching(/^Not judged: /) })
    expect(evaluate("storage_bucket_versioning_enabled", bucket({}))[0]?.compliant).toBe(false)
  })

  it("every port, however the port list is split, is every port", () => {
    const rule = (ports: string[]) => ({ compute: { firewalls: [{ name: "r", direction: "INGRESS", sourceRanges: ["0.0.0.0/0"], allowed: [{ IPProtocol: "tcp", ports }] }] } }) as unknown as Partial<GcpScanInventory>
    expect(evaluate("vpc_firewall_all_ports_not_open", rule(["1-32767", "32768-65535"]))[0]?.compliant).toBe(false)
    expect(evaluate("vpc_firewall_all_ports_not_open", rule(["0-65535"]))[0]?.compliant).toBe(false)
    expect(evaluate("vpc_firewall_all_ports_not_open", rule(["1-32767", "32769-65535"]))[0]?.compliant).toBe(true)
    expect(evaluate("vpc_firewall_all_ports_not_open", rule(["443"]))[0]?.compliant).toBe(true)
  })

  it("an ingress rule without any source is read as 0.0.0.0/0 (the API's default); one with source tags only is not", () => {
    const rule = (extra: Record<string, unknown>) => ({ compute: { firewalls: [{ name: "r", direction: "INGRESS", allowed: [{ IPProtocol: "tcp", ports: ["22"] }], ...extra }] } }) as unknown as Partial<GcpScanInventory>
    expect(evaluate("vpc_firewall_ssh_not_open", rule({}))[0]?.compliant).toBe(false)
    expect(evaluate("vpc_firewall_ssh_not_open", rule({ sourceTags: ["bastion"] }))[0]?.compliant).toBe(true)
  })

  it("GKE: the current endpoint and private-node fields count, not only their deprecated mirrors", () => {
    const gke = (cluster: Record<string, unknown>) => ({ gke: { clusters: [{ name: "c", location: "us-central1", ...cluster }] } }) as unknown as Partial<GcpScanInventory>
    expect(evaluate("gke_cluster_control_plane_restricted", gke({ controlPlaneEndpointsConfig: { ipEndpointsConfig: { enabled: true, enablePublicEndpoint: false } } }))[0]?.compliant).toBe(true)
    expect(evaluate("gke_cluster_control_plane_restricted", gke({ controlPlaneEndpointsConfig: { ipEndpointsConfig: { authorizedNetworksConfig: { enabled: true, cidrBlocks: [{ cidrBlock: "198.51.100.0/24" }] } } } }))[0]?.compliant).toBe(true)
    expect(evaluate("gke_cluster_control_plane_restricted", gke({ controlPlaneEndpointsConfig: { ipEndpointsConfig: { authorizedNetworksConfig: { enabled: true, cidrBlocks: [{ cidrBlock: "0.0.0.0/0" }] } } } }))[0]?.compliant).toBe(false)
    expect(evaluate("gke_cluster_control_plane_restricted", gke({}))[0]?.compliant).toBe(false)
    expect(evaluate("gke_cluster_private_nodes", gke({ networkConfig: { defaultEnablePrivateNodes: true }, nodePools: [{ name: "a" }] }))[0]?.compliant).toBe(true)
    expect(evaluate("gke_cluster_private_nodes", gke({ networkConfig: { defaultEnablePrivateNodes: true }, nodePools: [{ name: "a" }, { name: "b", networkConfig: { enablePrivateNodes: false } }] }))[0]).toMatchObject({ compliant: false, value: ["b"] })
    expect(evaluate("gke_cluster_private_nodes", gke({ nodePools: [{ name: "a", networkConfig: { enablePrivateNodes: true } }] }))[0]?.compliant).toBe(true)
    expect(evaluate("gke_cluster_private_nodes", gke({ nodePools: [{ name: "a" }] }))[0]?.compliant).toBe(false)
  })

  it("Access Approval enrolled by an ancestor covers the project", () => {
    const aa = (accessApproval: unknown) => ({ project: { accessApproval } }) as unknown as Partial<GcpScanInventory>
    expect(evaluate("logging_access_approval_enabled", aa({ enrolledAncestor: true }))[0]?.compliant).toBe(true)
    expect(evaluate("logging_access_approval_enabled", aa({}))[0]?.compliant).toBe(false)
    expect(evaluate("logging_access_approval_enabled", aa(null))[0]?.compliant).toBe(false)
  })

  it("a sink without a filter but with an active exclusion does not export every entry", () => {
    const sinks = (s: Record<string, unknown>) => ({ logging: { sinks: [{ name: "all", destination: "storage.googleapis.com/b", ...s }] } }) as unknown as Partial<GcpScanInventory>
    expect(evaluate("logging_sink_all_entries", sinks({}))[0]?.compliant).toBe(true)
    expect(evaluate("logging_sink_all_entries", sinks({ exclusions: [{ name: "no-debug", filter: "severity<INFO" }] }))[0]?.compliant).toBe(false)
    expect(evaluate("logging_sink_all_entries", sinks({ exclusions: [{ name: "old", filter: "severity<INFO", disabled: true }] }))[0]?.compliant).toBe(true)
  })

  it("HTTP(S) load balancer logging with a sample rate of 0 logs nothing", () => {
    const lb = (logConfig: unknown) => ({ compute: { backendServices: [{ scope: "global", item: { name: "web", protocol: "HTTPS", logConfig } }] } }) as unknown as Partial<GcpScanInventory>
    expect(evaluate("vpc_lb_logging_enabled", lb({ enable: true }))[0]?.compliant).toBe(true)
    expect(evaluate("vpc_lb_logging_enabled", lb({ enable: true, sampleRate: 0 }))[0]?.compliant).toBe(false)
  })

  it("Cloud Functions: a 1st gen function without a service account runs as the App Engine default account", () => {
    const fns = (f: Record<string, unknown>) => ({ cloudfunctions: { functions: [{ name: "projects/p/locations/us-central1/functions/f", location: "us-central1", policy: undefined, ...f }] } }) as unknown as Partial<GcpScanInventory>
    expect(evaluate("cloudfunctions_function_not_default_sa", fns({ environment: "GEN_1" }))[0]).toMatchObject({ compliant: false, service_account: "p@appspot.gserviceaccount.com" })
    expect(evaluate("cloudfunctions_function_not_default_sa", fns({ environment: "GEN_1", serviceConfig: { serviceAccountEmail: "p@appspot.gserviceaccount.com" } }))[0]?.compliant).toBe(false)
    expect(evaluate("cloudfunctions_function_not_default_sa", fns({ serviceConfig: { serviceAccountEmail: "fn@p.iam.gserviceaccount.com" } }))[0]?.compliant).toBe(true)
  })

  it("Artifact Registry: a virtual repository is not judged on CMEK", () => {
    const repos = (r: Record<string, unknown>) => ({ artifactregistry: { repositories: [{ name: "projects/p/locations/us/repositories/r", location: "us", policy: undefined, ...r }] } }) as unknown as Partial<GcpScanInventory>
    expect(evaluate("artifactregistry_repo_cmek", repos({ mode: "VIRTUAL_REPOSITORY" }))[0]).toMatchObject({ compliant: true, reason: expect.stringMatching(/^Not judged: /) })
    expect(evaluate("artifactregistry_repo_cmek", repos({ mode: "REMOTE_REPOSITORY" }))[0]?.compliant).toBe(false)
  })

  it("a bucket that receives other buckets' usage logs is not judged on its own usage logs", () => {
    const buckets = { storage: { buckets: [{ name: "app", location: "US", policy: undefined, logging: { logBucket: "logs" } }, { name: "logs", location: "US", policy: undefined }, { name: "other", location: "US", policy: undefined }] } } as unknown as Partial<GcpScanInventory>
    const rows = evaluate("storage_bucket_logging_enabled", buckets)
    expect(rows.map((r) => [r.resource_id, r.compliant])).toEqual([["app", true], ["logs", true], ["other", false]])
    expect(rows[1]?.reason).toMatch(/^Not judged: /)
  })

  it("CIS 6.3.3: user connections 0 or the maximum 32767 do not limit; 100 does", () => {
    const sql = (value: string | undefined) => ({ sql: { instances: [{ name: "i", databaseVersion: "SQLSERVER_2022_STANDARD", settings: value === undefined ? {} : { databaseFlags: [{ name: "user connections", value }] } }] } }) as unknown as Partial<GcpScanInventory>
    for (const [v, ok] of [[undefined, true], ["0", true], ["32767", true], ["100", false]] as const) expect(evaluate("cloudsql_sqlserver_user_connections_unlimited", sql(v))[0]?.compliant, String(v)).toBe(ok)
  })
})
