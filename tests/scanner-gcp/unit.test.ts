/**
 * Pure rules shared by the GCP and Azure checks, property-tested: port-range coverage (GCP firewall `ports`, Azure
 * NSG `destinationPortRange(s)`), protobuf durations, log-metric filter matching that ignores whitespace and quote
 * style, and the Google error body classification.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { portSpecCovers, ruleExposes } from "../../server/scanner/azure/checks/network.ts"
import { classifyGoogleError, parseGoogleError } from "../../server/scanner/gcp/errors.ts"
import { classifyAzureError, parseAzureError } from "../../server/scanner/azure/errors.ts"
import { metricAlertMatches } from "../../server/scanner/gcp/checks/logging.ts"
import { exposesPort, portsCover } from "../../server/scanner/gcp/checks/vpc.ts"
import { durationSeconds } from "../../server/scanner/rest/engine.ts"
import { isUnder } from "../../server/scanner/rest/http.ts"
import { gcpEndpointsFromEnv } from "../../server/scanner/gcp/endpoints.ts"
import { azureEndpointsFromEnv } from "../../server/scanner/azure/endpoints.ts"
import { gcpCredentialsFromFields } from "../../server/scanner/gcp/session.ts"
import { azureCredentialsFromFields } from "../../server/scanner/azure/session.ts"

const port = fc.integer({ min: 0, max: 65535 })

describe("port coverage", () => {
  it("a range lo-hi covers exactly the ports between its bounds (GCP and Azure agree)", () => {
    fc.assert(
      fc.property(port, port, port, (a, b, p) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a]
        const expected = lo <= p && p <= hi
        expect(portsCover([`${lo}-${hi}`], p)).toBe(expected)
        expect(portSpecCovers(`${lo}-${hi}`, p)).toBe(expected)
        expect(portsCover([String(lo)], p)).toBe(lo === p)
      }),
    )
  })

  it("no ports (GCP) and '*' (Azure) cover every port", () => {
    fc.assert(fc.property(port, (p) => portsCover(undefined, p) && portsCover([], p) && portSpecCovers("*", p)))
  })

  it("only enabled ingress rules from the Internet with TCP (or all) expose a port", () => {
    const base = { name: "r", direction: "INGRESS", sourceRanges: ["0.0.0.0/0"], allowed: [{ IPProtocol: "tcp", ports: ["22"] }] }
    expect(exposesPort(base, 22)).toBe(true)
    expect(exposesPort({ ...base, disabled: true }, 22)).toBe(false)
    expect(exposesPort({ ...base, direction: "EGRESS" }, 22)).toBe(false)
    expect(exposesPort({ ...base, sourceRanges: ["10.0.0.0/8"] }, 22)).toBe(false)
    expect(exposesPort({ ...base, allowed: [{ IPProtocol: "udp", ports: ["22"] }] }, 22)).toBe(false)
    expect(exposesPort({ ...base, allowed: [{ IPProtocol: "all" }] }, 3389)).toBe(true)
    const rule = (p: Record<string, unknown>) => ({ name: "r", properties: { direction: "Inbound", access: "Allow", protocol: "Tcp", sourceAddressPrefix: "Internet", destinationPortRange: "22", ...p } })
    expect(ruleExposes(rule({}), "Tcp", 22)).toBe(true)
    expect(ruleExposes(rule({ access: "Deny" }), "Tcp", 22)).toBe(false)
    expect(ruleExposes(rule({ sourceAddressPrefix: "VirtualNetwork" }), "Tcp", 22)).toBe(false)
    expect(ruleExposes(rule({ sourceAddressPrefix: undefined, sourceAddressPrefixes: ["1.2.3.4/32", "0.0.0.0/0"] }), "Tcp", 22)).toBe(true)
    expect(ruleExposes(rule({ protocol: "*", destinationPortRange: undefined, destinationPortRanges: ["3000-4000"] }), "Tcp", 3389)).toBe(true)
    expect(ruleExposes(rule({ protocol: "Udp" }), "Tcp", 22)).toBe(false)
  })
})

describe("durations, filters and URLs", () => {
  it("reads protobuf durations", () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 10 ** 9 }), (n) => durationSeconds(`${n}s`) === n))
    expect(durationSeconds("7776000")).toBeUndefined()
    expect(durationSeconds(undefined)).toBeUndefined()
  })

  it("matches a log metric filter whatever its whitespace and quote style, and only with an enabled alert on it", () => {
    const spec = { fragments: ['resource.type="gce_route"', "compute.routes.delete", "compute.routes.insert"] }
    const metric = { name: "routes", filter: "resource.type = 'gce_route'  AND (protoPayload.methodName:'compute.routes.delete' OR\n protoPayload.methodName:'compute.routes.insert')" }
    const alert = (enabled: boolean, metricName: string) => ({ name: "a", enabled, conditions: [{ conditionThreshold: { filter: `metric.type = "logging.googleapis.com/user/${metricName}"` } }] })
    expect(metricAlertMatches(spec, [metric], [alert(true, "routes")])).toEqual({ metrics: ["routes"], alerts: ["a"], logMatchAlerts: [] })
    expect(metricAlertMatches(spec, [metric], [alert(false, "routes")]).alerts).toEqual([])
    expect(metricAlertMatches(spec, [metric], [alert(true, "other")]).alerts).toEqual([])
    expect(metricAlertMatches(spec, [{ ...metric, filter: 'resource.type="gce_route"' }], []).metrics).toEqual([])
  })

  it("allows links only under a configured base (no prefix tricks)", () => {
    expect(isUnder("https://management.azure.com/subscriptions/x?api-version=1", "https://management.azure.com")).toBe(true)
    expect(isUnder("https://management.azure.com.evil.example/x", "https://management.azure.com")).toBe(false)
    expect(isUnder("http://127.0.0.1:9/management.azure.comx/y", "http://127.0.0.1:9/management.azure.com")).toBe(false)
  })
})

describe("provider error bodies", () => {
  it("Google: SERVICE_DISABLED is unsupported, IAM denials access_denied, quota throttled", () => {
    const disabled = parseGoogleError(403, { error: { code: 403, message: "API disabled", status: "PERMISSION_DENIED", details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "SERVICE_DISABLED", metadata: { service: "dns.googleapis.com" } }] } })
    expect(disabled).toMatchObject({ code: "SERVICE_DISABLED", reason: "SERVICE_DISABLED" })
    expect(classifyGoogleError(403, disabled)).toBe("unsupported")
    const legacy = parseGoogleError(403, { error: { code: 403, message: "Access Not Configured", errors: [{ reason: "accessNotConfigured", domain: "usageLimits" }] } })
    expect(classifyGoogleError(403, legacy)).toBe("unsupported")
    expect(classifyGoogleError(403, parseGoogleError(403, { error: { code: 403, message: "denied", status: "PERMISSION_DENIED" } }))).toBe("access_denied")
    expect(classifyGoogleError(429, parseGoogleError(429, { error: { code: 429, status: "RESOURCE_EXHAUSTED" } }))).toBe("throttled")
    expect(parseGoogleError(502, "<html>Bad gateway</html>")).toEqual({ code: "HTTP502", message: "<html>Bad gateway</html>" })
  })

  it("Azure: AuthorizationFailed is access_denied, unregistered providers unsupported", () => {
    expect(classifyAzureError(403, parseAzureError(403, { error: { code: "AuthorizationFailed", message: "no" } }))).toBe("access_denied")
    expect(classifyAzureError(409, parseAzureError(409, { error: { code: "MissingSubscriptionRegistration", message: "no" } }))).toBe("unsupported")
    expect(classifyAzureError(429, parseAzureError(429, {}))).toBe("throttled")
  })
})

describe("configuration adapters", () => {
  it("maps the add-account payload fields to engine credentials", () => {
    expect(gcpCredentialsFromFields({ service_account_key: "{}" })).toEqual({ serviceAccountKey: "{}" })
    expect(gcpCredentialsFromFields({ service_account_key: " " })).toBeUndefined()
    expect(azureCredentialsFromFields({ tenant_id: "t", client_id: "c", client_secret: "s", subscription_id: "x" })).toEqual({ tenantId: "t", clientId: "c", clientSecret: "s", subscriptionId: "x" })
    expect(azureCredentialsFromFields({ tenant_id: "t", client_id: "c", subscription_id: "x" })).toBeUndefined()
  })

  it("reads GCP_ENDPOINT_URL / AZURE_ENDPOINT_URL", () => {
    expect(gcpEndpointsFromEnv({})).toBeUndefined()
    expect(gcpEndpointsFromEnv({ GCP_ENDPOINT_URL: "http://127.0.0.1:4000" })).toMatchObject({ token: "http://127.0.0.1:4000/oauth2.googleapis.com/token", storage: "http://127.0.0.1:4000/storage.googleapis.com" })
    expect(azureEndpointsFromEnv({ AZURE_ENDPOINT_URL: "http://127.0.0.1:4000/" })).toMatchObject({ arm: "http://127.0.0.1:4000/management.azure.com", armAudience: "https://management.azure.com" })
  })
})
