/**
 * Azure failure handling on the wire: refused client secrets and unknown tenants, unreadable subscriptions,
 * AuthorizationFailed / Authorization_RequestDenied recorded on findings, unregistered providers, 429 with
 * Retry-After, token refresh on 401, nextLink paging (and refusing a nextLink to a foreign host), connection tests.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Effect } from "effect"
import { testAzureConnection, testAzureConnectionEffect } from "../../server/scanner/azure/connection-test.ts"
import { scanAzureServiceEffect } from "../../server/scanner/azure/scan-service.ts"
import { azureEndpointsAt } from "../../server/scanner/azure/endpoints.ts"
import { ConnectionTestError, ScanSetupError } from "../../server/scanner/rest/engine.ts"
import { startCloudFixtureServer, type CloudFixtureServer } from "../support/cloud-fixture-server.ts"
import { findingOf } from "../scanner-gcp/helpers.ts"
import { emptySubscription, HARDENED, hardenedSubscription, hardenedTenant, INSECURE, insecureSubscription, insecureTenant } from "./azure-fixtures.ts"
import { armError, put } from "./azure-world.ts"
import { startAzureFixture, type AzureFixture } from "./helpers.ts"

let fx: AzureFixture
let evil: CloudFixtureServer
const EMPTY = "33333333-3333-4333-8333-333333333333"
const MANY = "44444444-4444-4444-8444-444444444444"

beforeAll(async () => {
  const empty = emptySubscription({ tenantId: HARDENED.tenantId, subscriptionId: EMPTY }, "Empty")
  empty.unregistered.add("microsoft.dbformysql")
  empty.unregistered.add("microsoft.databricks")
  const many = emptySubscription({ tenantId: HARDENED.tenantId, subscriptionId: MANY }, "Many")
  for (let i = 0; i < 7; i++) {
    put(many, { id: `/subscriptions/${MANY}/resourceGroups/rg${i % 3}/providers/Microsoft.Web/sites/app-${i}`, name: `app-${i}`, location: "eastus", properties: { httpsOnly: i % 2 === 0 } })
  }
  fx = await startAzureFixture([hardenedTenant(), insecureTenant()], [hardenedSubscription(), insecureSubscription(), empty, many])
  evil = await startCloudFixtureServer()
})

afterAll(async () => {
  await Promise.all([fx.close(), evil.close()])
})

const setupError = async (p: Promise<unknown>) => {
  const e = await p.then(
    () => undefined,
    (error: unknown) => error,
  )
  expect(e).toBeInstanceOf(ScanSetupError)
  return e as ScanSetupError
}

describe("Azure credentials and setup", () => {
  it("rejects malformed identifiers before any request", async () => {
    fx.server.clearLog()
    const base = fx.credentialsFor(HARDENED.subscriptionId)
    expect((await setupError(fx.scan(HARDENED.subscriptionId, "storage", { credentials: { ...base, clientId: "not-a-guid" } }))).reason).toBe("invalid_input")
    expect((await setupError(fx.scan(HARDENED.subscriptionId, "storage", { credentials: { ...base, subscriptionId: "x" } }))).reason).toBe("invalid_input")
    expect((await setupError(fx.scan(HARDENED.subscriptionId, "storage", { credentials: { ...base, clientSecret: " " } }))).reason).toBe("invalid_input")
    expect((await setupError(fx.scan(HARDENED.subscriptionId, "nope"))).reason).toBe("unknown_service")
    expect(fx.server.requests).toHaveLength(0)
  })

  it("a wrong client secret or unknown tenant is invalid_credentials, with the AADSTS reason and never the secret", async () => {
    const base = fx.credentialsFor(HARDENED.subscriptionId)
    const wrong = await setupError(fx.scan(HARDENED.subscriptionId, "storage", { credentials: { ...base, clientSecret: "wrong-secret-value" } }))
    expect(wrong.reason).toBe("invalid_credentials")
    expect(wrong.message).toContain("AADSTS7000215: Invalid client secret provided")
    expect(wrong.message).not.toContain("Trace ID")
    const tenant = await setupError(fx.scan(HARDENED.subscriptionId, "storage", { credentials: { ...base, tenantId: "cccccccc-0000-4000-8000-000000000009" } }))
    expect(tenant.reason).toBe("invalid_credentials")
    expect(tenant.message).toContain("AADSTS90002")
    const test = await testAzureConnection({ credentials: { ...base, clientSecret: "wrong-secret-value" }, endpoints: azureEndpointsAt(fx.server.origin) }).catch((e: unknown) => e)
    expect(test).toBeInstanceOf(ConnectionTestError)
    expect((test as ConnectionTestError).reason).toBe("invalid_credentials")
    expect((test as ConnectionTestError).message).not.toContain("wrong-secret-value")
  })

  it("a subscription of another tenant or unknown is refused at setup", async () => {
    const other = await setupError(fx.scan(INSECURE.subscriptionId, "storage", { credentials: { ...fx.credentialsFor(HARDENED.subscriptionId), subscriptionId: INSECURE.subscriptionId } }))
    expect(other.reason).toBe("access_denied")
    expect(other.message).toContain("AuthorizationFailed")
    const missing = await testAzureConnection({ credentials: { ...fx.credentialsFor(HARDENED.subscriptionId), subscriptionId: "99999999-9999-4999-8999-999999999999" }, endpoints: azureEndpointsAt(fx.server.origin) }).catch((e: unknown) => e)
    expect((missing as ConnectionTestError).reason).toBe("not_found")
  })

  it("connection test: reads the subscription and answers its id, name and tenant", async () => {
    const info = await testAzureConnection({ credentials: fx.credentialsFor(INSECURE.subscriptionId), endpoints: azureEndpointsAt(fx.server.origin) })
    expect(info).toEqual({ subscriptionId: INSECURE.subscriptionId, displayName: "Legacy", state: "Enabled", tenantId: INSECURE.tenantId })
  })

  it("Effect variants: typed failures, and the same results", async () => {
    const endpoints = azureEndpointsAt(fx.server.origin)
    expect((await Effect.runPromise(testAzureConnectionEffect({ credentials: fx.credentialsFor(HARDENED.subscriptionId), endpoints }))).displayName).toBe("Production")
    const failure = await Effect.runPromise(Effect.flip(testAzureConnectionEffect({ credentials: { ...fx.credentialsFor(HARDENED.subscriptionId), clientSecret: "nope" }, endpoints })))
    expect(failure.reason).toBe("invalid_credentials")
    const scan = await Effect.runPromise(scanAzureServiceEffect({ credentials: fx.credentialsFor(INSECURE.subscriptionId), service: "cosmosdb", endpoints }))
    expect(scan.findings.map((f) => f.check_id)).toContain("cosmosdb_selected_networks")
    expect(new Set(scan.findings.map((f) => f.status))).toEqual(new Set(["fail"]))
  })

  it("gets one token per audience: ARM for resources, Graph for Entra settings", async () => {
    fx.server.clearLog()
    await fx.scan(HARDENED.subscriptionId, "entra")
    const scopes = fx.server.requests.filter((r) => r.host === "login.microsoftonline.com").map((r) => r.form?.get("scope")).sort()
    expect(scopes).toEqual(["https://graph.microsoft.com/.default", "https://management.azure.com/.default"])
  })
})

describe("Azure API failures are recorded on the findings", () => {
  it("AuthorizationFailed on one provider: its checks are 'error' (access_denied), other services still scan", async () => {
    fx.server.fault({ host: "management.azure.com", path: /Microsoft\.KeyVault\/vaults$/, times: 100, reply: armError(403, "AuthorizationFailed", "The client does not have authorization to perform action 'Microsoft.KeyVault/vaults/read'.") })
    try {
      const kv = await fx.scan(INSECURE.subscriptionId, "keyvault")
      for (const f of kv.findings) {
        expect(f.status, f.check_id).toBe("error")
        expect(f.details).toEqual([])
        expect(f.errors[0]).toMatchObject({ kind: "access_denied", code: "AuthorizationFailed", operation: "Microsoft.KeyVault/vaults/read" })
      }
      expect(findingOf([await fx.scan(INSECURE.subscriptionId, "appservice")], "app_https_only").status).toBe("fail")
    } finally {
      fx.server.clearFaults()
    }
  })

  it("a 403 on one storage service's diagnostic settings errors that logging check only", async () => {
    fx.server.fault({
      host: "management.azure.com",
      path: /\/badstorage\/queueServices\/default\/providers\/Microsoft\.Insights\/diagnosticSettings$/,
      times: 100,
      reply: armError(403, "AuthorizationFailed", "The client does not have authorization to perform action 'Microsoft.Insights/diagnosticSettings/read'."),
    })
    try {
      const storage = await fx.scan(INSECURE.subscriptionId, "storage")
      const queue = findingOf([storage], "storage_queue_logging_read_write_delete")
      expect(queue.errors).toEqual([expect.objectContaining({ kind: "access_denied", code: "AuthorizationFailed", resourceType: "storage.queue_diagnostics", operation: "Microsoft.Insights/diagnosticSettings/read" })])
      // The other accounts are still evaluated (badlogs logs its queues); the unreadable one has no row.
      expect(queue.details.map((d) => [d.name, d.compliant])).toEqual([["badlogs", true]])
      expect(queue.status).toBe("error")
      expect(findingOf([storage], "storage_blob_logging_read_write_delete").errors).toEqual([])
      expect(findingOf([storage], "storage_table_logging_read_write_delete").errors).toEqual([])
    } finally {
      fx.server.clearFaults()
    }
  })

  it("a 403 on one web app's diagnostic settings errors the HTTP logs check only, the other apps keep their rows", async () => {
    fx.server.fault({
      host: "management.azure.com",
      path: /\/sites\/bad-app\/providers\/Microsoft\.Insights\/diagnosticSettings$/,
      times: 100,
      reply: armError(403, "AuthorizationFailed", "The client does not have authorization to perform action 'Microsoft.Insights/diagnosticSettings/read'."),
    })
    try {
      const app = await fx.scan(INSECURE.subscriptionId, "appservice")
      const http = findingOf([app], "app_http_logs_enabled")
      expect(http.errors).toEqual([expect.objectContaining({ kind: "access_denied", code: "AuthorizationFailed", resourceType: "appservice.diagnostics", operation: "Microsoft.Insights/diagnosticSettings/read" })])
      expect(http.details.map((d) => [d.name, d.compliant])).toEqual([["ok-web3", true]])
      expect(http.status).toBe("error")
      for (const f of app.findings.filter((x) => x.check_id !== "app_http_logs_enabled")) {
        expect(f.errors, f.check_id).toEqual([])
        expect(f.status, f.check_id).toBe("fail")
      }
    } finally {
      fx.server.clearFaults()
    }
  })

  it("AuthorizationFailed on Databricks workspaces makes the Databricks checks 'error'", async () => {
    fx.server.fault({ host: "management.azure.com", path: /Microsoft\.Databricks\/workspaces$/, times: 100, reply: armError(403, "AuthorizationFailed", "The client does not have authorization to perform action 'Microsoft.Databricks/workspaces/read'.") })
    try {
      const dbw = await fx.scan(INSECURE.subscriptionId, "databricks")
      expect(dbw.findings.map((f) => f.check_id)).toEqual(["databricks_vnet_injection", "databricks_cmk_encryption"])
      for (const f of dbw.findings) {
        expect(f.status, f.check_id).toBe("error")
        expect(f.details).toEqual([])
        expect(f.errors[0]).toMatchObject({ kind: "access_denied", code: "AuthorizationFailed", operation: "Microsoft.Databricks/workspaces/read" })
      }
    } finally {
      fx.server.clearFaults()
    }
  })

  it("Graph 403 (no Policy.Read.All) makes the Entra checks 'error'", async () => {
    const app = fx.world.tenants.get(HARDENED.tenantId)!.apps.get(HARDENED.clientId)!
    const saved = { ...app }
    fx.world.tenants.get(HARDENED.tenantId)!.apps.set(HARDENED.clientId, { ...saved, graphPolicyRead: false })
    try {
      const entra = await fx.scan(HARDENED.subscriptionId, "entra")
      expect(entra.findings.every((f) => f.status === "error" && f.errors[0]?.code === "Authorization_RequestDenied")).toBe(true)
    } finally {
      fx.world.tenants.get(HARDENED.tenantId)!.apps.set(HARDENED.clientId, saved)
    }
  })

  it("an unregistered resource provider means no resources of it, not an error", async () => {
    const [mysql, databricks] = await Promise.all([fx.scan(EMPTY, "mysql"), fx.scan(EMPTY, "databricks")])
    expect(databricks.findings).toHaveLength(2)
    for (const f of [...mysql.findings, ...databricks.findings]) {
      expect(f.status).toBe("pass")
      expect(f.details).toEqual([])
      expect(f.errors).toEqual([])
    }
  })

  it("429 with Retry-After is waited for and retried", async () => {
    fx.server.fault({ host: "management.azure.com", path: /Microsoft\.Web\/sites$/, times: 1, reply: { status: 429, headers: { "retry-after": "1" }, body: { error: { code: "TooManyRequests", message: "The request is being throttled." } } } })
    const started = Date.now()
    const app = await fx.scan(HARDENED.subscriptionId, "appservice")
    expect(Date.now() - started).toBeGreaterThanOrEqual(950)
    expect(app.retries).toBe(1)
    expect(app.findings.every((f) => f.status === "pass")).toBe(true)
  })

  it("a revoked token (401) is refreshed once and the call retried", async () => {
    fx.server.fault({ host: "management.azure.com", path: /Microsoft\.Compute\/disks$/, times: 1, reply: armError(401, "ExpiredAuthenticationToken", "The access token expiry UTC time is earlier than current UTC time.") })
    fx.server.clearLog()
    const vm = await fx.scan(HARDENED.subscriptionId, "vm")
    expect(vm.findings.every((f) => f.status === "pass")).toBe(true)
    expect(fx.server.requests.filter((r) => r.host === "login.microsoftonline.com")).toHaveLength(2)
  })

  it("follows nextLink across pages (7 sites, 2 per page)", async () => {
    fx.server.clearLog()
    const app = await fx.scan(MANY, "appservice", { checkIds: ["app_https_only"] })
    const pages = fx.server.requests.filter((r) => r.path.endsWith("/Microsoft.Web/sites"))
    expect(pages).toHaveLength(4)
    expect(pages.slice(1).every((r) => r.query.get("$skiptoken") !== null && r.query.get("api-version") === "2023-12-01")).toBe(true)
    const f = findingOf([app], "app_https_only")
    expect(f.details.map((d) => d.name)).toEqual(["app-0", "app-1", "app-2", "app-3", "app-4", "app-5", "app-6"])
    expect(f.details.filter((d) => !d.compliant)).toHaveLength(3)
  })

  it("follows nextLink through the subscription's security assessments", async () => {
    fx.server.clearLog()
    const defender = await fx.scan(INSECURE.subscriptionId, "defender", { checkIds: ["defender_system_updates_applied"] })
    const pages = fx.server.requests.filter((r) => r.path.endsWith("/Microsoft.Security/assessments"))
    // 6 assessments, 2 per page.
    expect(pages).toHaveLength(3)
    expect(pages.every((r) => r.query.get("api-version") === "2020-01-01")).toBe(true)
    expect(findingOf([defender], "defender_system_updates_applied").details.map((d) => d.name).sort()).toEqual(["bad-vm", "ok-vm2"])
  })

  it("a later page that stays throttled past the retries: the list is unread, its check not evaluated (never judged on the first page)", async () => {
    const base = fx.server.base("management.azure.com")
    fx.server.fault({
      host: "management.azure.com",
      path: /Microsoft\.Web\/sites$/,
      times: 10,
      reply: (req) =>
        req.query.get("$skiptoken") === null
          ? { body: { value: [{ id: `/subscriptions/${MANY}/resourceGroups/rg0/providers/Microsoft.Web/sites/app-0`, name: "app-0", location: "eastus", properties: { httpsOnly: true } }], nextLink: `${base}${req.path}?api-version=2023-12-01&$skiptoken=p2` } }
          : { status: 429, headers: { "retry-after": "0" }, body: { error: { code: "TooManyRequests", message: "The request is being throttled." } } },
    })
    try {
      const f = findingOf([await fx.scan(MANY, "appservice", { checkIds: ["app_https_only"] })], "app_https_only")
      expect(f.status).toBe("error")
      expect(f.details).toEqual([])
      expect(f.errors).toEqual([expect.objectContaining({ resourceType: "appservice.sites", code: "TooManyRequests" })])
    } finally {
      fx.server.clearFaults()
    }
  })

  it("one resource's sub-read failing (500 after retries) makes its check not evaluated, not passed on the others", async () => {
    fx.server.fault({ host: "management.azure.com", path: /\/ok-kv[^/]*\/keys$/, times: 100, reply: armError(500, "InternalServerError", "Something went wrong.") })
    try {
      const kv = await fx.scan(HARDENED.subscriptionId, "keyvault")
      const rotation = findingOf([kv], "keyvault_key_auto_rotation")
      expect(rotation.status).toBe("error")
      expect(rotation.errors[0]).toMatchObject({ resourceType: "keyvault.keys", code: "InternalServerError" })
    } finally {
      fx.server.clearFaults()
    }
  })

  it("refuses a nextLink to a foreign host: the list is reported incomplete and no token leaves", async () => {
    fx.server.fault({ host: "management.azure.com", path: /Microsoft\.Web\/sites$/, times: 1, reply: { body: { value: [], nextLink: `${evil.origin}/steal?api-version=1` } } })
    const app = await fx.scan(MANY, "appservice", { checkIds: ["app_https_only"] })
    const f = findingOf([app], "app_https_only")
    expect(f.status).toBe("error")
    expect(f.errors[0]).toMatchObject({ code: "UntrustedNextLink" })
    expect(evil.requests).toHaveLength(0)
  })
})
