/**
 * One limit per principal and cloud API (server/scanner/rest/principal-gate.ts, issue 31): the member scans of a GCP
 * organisation sign in as one service account and those of an Azure management group as one app registration, so
 * they share its quotas. Two member scans run at once against the loopback fixture server (tests/support), which
 * answers every call after 20-30 ms and counts the requests open at once per API host.
 *
 * Checked, for GCP (Cloud Storage: list, then each bucket's IAM policy) and Azure (ARM storage accounts and their
 * settings): without the shared limit the two scans keep more calls in flight than the limit (so the count can see a
 * breach); with it, never more than the limit, and the findings are the same. A 429 with Retry-After (GCP
 * RESOURCE_EXHAUSTED, Azure's 429) in the middle of the scans pauses the API for both scans until Retry-After has
 * passed (no call reaches the API in between), the throttled call is retried and nothing is reported throttled.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { azureEndpointsAt } from "../../server/scanner/azure/endpoints.ts"
import { scanAzureService, type AzureScanResult } from "../../server/scanner/azure/scan-service.ts"
import { gcpEndpointsAt } from "../../server/scanner/gcp/endpoints.ts"
import { scanGcpService, type GcpScanResult } from "../../server/scanner/gcp/scan-service.ts"
import { startCloudFixtureServer, type CloudFixtureServer, type FixtureRequest } from "../support/cloud-fixture-server.ts"
import { armId, emptySubscription, HARDENED, hardenedTenant } from "../scanner-azure/azure-fixtures.ts"
import { armError, installAzureWorld, newAzureWorld, put, type AzureWorld } from "../scanner-azure/azure-world.ts"
import { emptyProject } from "../scanner-gcp/gcp-fixtures.ts"
import { addServiceAccount, googleError, installGcpWorld, newGcpWorld, type GcpWorld, type TestServiceAccount } from "../scanner-gcp/gcp-world.ts"

const STORAGE = "storage.googleapis.com"
const ARM = "management.azure.com"
const PROJECTS = ["member-one-01", "member-two-02"]
const SUBSCRIPTIONS = ["33333333-3333-4333-8333-333333333301", "33333333-3333-4333-8333-333333333302"]
const BUCKETS = 40
const ACCOUNTS = 30
/** The shared limit under test, and each scan's own (the per-scan limiter of rest/context.ts). */
const LIMIT = 3
const PER_SCAN = 8

let server: CloudFixtureServer
let gcp: GcpWorld
let orgKey: TestServiceAccount
let azure: AzureWorld

beforeAll(async () => {
  server = await startCloudFixtureServer()
  gcp = newGcpWorld(50)
  installGcpWorld(server, gcp)
  PROJECTS.forEach((id, p) => {
    const project = emptyProject(id, String(600000000001 + p))
    for (let i = 0; i < BUCKETS; i++) {
      const name = `${id}-bucket-${i}`
      project.buckets.push({
        bucket: { kind: "storage#bucket", id: name, name, location: "US", iamConfiguration: { uniformBucketLevelAccess: { enabled: i % 2 === 0 }, publicAccessPrevention: "enforced" } },
        policy: { bindings: [] },
      })
    }
    gcp.projects.set(id, project)
  })
  orgKey = addServiceAccount(gcp, server, "org-scanner@security-admin.iam.gserviceaccount.com", new Set(PROJECTS))

  azure = newAzureWorld(50)
  installAzureWorld(server, azure)
  azure.tenants.set(HARDENED.tenantId, hardenedTenant())
  for (const s of SUBSCRIPTIONS) {
    const sub = emptySubscription({ tenantId: HARDENED.tenantId, subscriptionId: s }, `Member ${s.slice(-2)}`)
    for (let i = 0; i < ACCOUNTS; i++) {
      put(sub, {
        id: armId(s, "rg-data", "Microsoft.Storage/storageAccounts", `member${s.slice(-2)}data${i}`),
        name: `member${s.slice(-2)}data${i}`,
        type: "Microsoft.Storage/storageAccounts",
        location: "eastus",
        kind: "StorageV2",
        sku: { name: "Standard_LRS", tier: "Standard" },
        properties: { supportsHttpsTrafficOnly: i % 3 !== 0, minimumTlsVersion: "TLS1_2", allowBlobPublicAccess: false, provisioningState: "Succeeded" },
      })
    }
    azure.subscriptions.set(s, sub)
  }
  server.latency(20)
}, 60_000)

afterAll(async () => {
  await server?.close()
})

const scanGcp = (projectId: string, principalConcurrency?: number) =>
  scanGcpService({
    credentials: { serviceAccountKey: orgKey.keyJson, projectId },
    service: "storage",
    endpoints: gcpEndpointsAt(server.origin),
    concurrency: PER_SCAN,
    maxRetryDelayMs: 5_000,
    ...(principalConcurrency === undefined ? {} : { principalConcurrency }),
  })

const scanAzure = (subscriptionId: string, principalConcurrency?: number) =>
  scanAzureService({
    credentials: { tenantId: HARDENED.tenantId, clientId: HARDENED.clientId, clientSecret: HARDENED.secret, subscriptionId },
    service: "storage",
    endpoints: azureEndpointsAt(server.origin),
    concurrency: PER_SCAN,
    maxRetryDelayMs: 5_000,
    ...(principalConcurrency === undefined ? {} : { principalConcurrency }),
  })

/** The findings' facts that do not depend on timing: status and failing resources per check. */
const facts = (results: ReadonlyArray<GcpScanResult | AzureScanResult>) =>
  results.map((r) => r.findings.map((f) => ({ check: f.check_id, status: f.status, failing: f.details.filter((d) => d["compliant"] === false).length })))

/**
 * Throttles the `nth` and the next call to `host` (after some traffic: both scans are then under way) with `reply`;
 * answers when the throttle was sent.
 */
const throttleMidway = (host: string, nth: number, reply: (req: FixtureRequest) => { status: number; body: unknown; headers: Record<string, string> }) => {
  let seen = 0
  const sent: number[] = []
  server.guard(host, (req) => {
    seen++
    if (seen !== nth && seen !== nth + 1) return undefined
    sent.push(Date.now())
    return reply(req)
  })
  return sent
}

/** Arrival times (ms) of the requests to `host` in the log. */
const arrivals = (host: string) => server.requests.filter((r) => r.host === host).map((r) => r.receivedAt)

describe("GCP: members signed in as the organisation's service account", () => {
  it("without a shared limit two member scans keep more Cloud Storage calls in flight than the limit", async () => {
    server.resetPeaks()
    const results = await Promise.all(PROJECTS.map((p) => scanGcp(p)))
    expect(results.map((r) => r.errors)).toEqual([[], []])
    expect(server.peakInFlight(STORAGE)).toBeGreaterThan(LIMIT)
  })

  it("with it, never more than the limit in flight across both scans, and the same findings", async () => {
    const unlimited = await Promise.all(PROJECTS.map((p) => scanGcp(p)))
    server.resetPeaks()
    const limited = await Promise.all(PROJECTS.map((p) => scanGcp(p, LIMIT)))
    expect(server.peakInFlight(STORAGE)).toBe(LIMIT)
    expect(limited.map((r) => r.errors)).toEqual([[], []])
    expect(limited.map((r) => r.apiCalls)).toEqual(unlimited.map((r) => r.apiCalls))
    expect(facts(limited)).toEqual(facts(unlimited))
    // Each project's own buckets only: half of them without uniform access.
    for (const r of limited) expect(r.findings.flatMap((f) => f.details).filter((d) => d["compliant"] === false).length).toBeGreaterThanOrEqual(BUCKETS / 2)
  })

  it("a 429 RESOURCE_EXHAUSTED with Retry-After pauses Cloud Storage for both scans until it has passed, then retries", async () => {
    server.clearLog()
    const sent = throttleMidway(STORAGE, 20, () => ({
      ...googleError(429, "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric 'Read requests' of service 'storage.googleapis.com'."),
      headers: { "retry-after": "1" },
    }) as never)
    const started = Date.now()
    const results = await Promise.all(PROJECTS.map((p) => scanGcp(p, LIMIT)))
    expect(sent).toHaveLength(2)
    expect(results.map((r) => r.errors)).toEqual([[], []])
    expect(results.reduce((n, r) => n + r.retries, 0)).toBe(2)
    const pauseFrom = sent[0]! + 250
    const pauseTo = sent[0]! + 900
    const during = arrivals(STORAGE).filter((t) => t > pauseFrom && t < pauseTo)
    expect(during, `calls during the pause (${pauseFrom - started}-${pauseTo - started} ms)`).toEqual([])
    // Calls resumed after the pause, from both scans.
    const after = server.requests.filter((r) => r.host === STORAGE && r.receivedAt >= sent[0]! + 950)
    expect(new Set(after.map((r) => r.query.get("project") ?? r.path.split("/")[4]!.replace(/-bucket-\d+$/, ""))).size).toBe(2)
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000)
  }, 30_000)
})

describe("Azure: members signed in as the management group's app registration", () => {
  it("without a shared limit two member scans keep more ARM calls in flight than the limit", async () => {
    server.resetPeaks()
    await Promise.all(SUBSCRIPTIONS.map((s) => scanAzure(s)))
    expect(server.peakInFlight(ARM)).toBeGreaterThan(LIMIT)
  })

  it("with it, never more than the limit in flight across both scans, and the same findings", async () => {
    const unlimited = await Promise.all(SUBSCRIPTIONS.map((s) => scanAzure(s)))
    server.resetPeaks()
    const limited = await Promise.all(SUBSCRIPTIONS.map((s) => scanAzure(s, LIMIT)))
    expect(server.peakInFlight(ARM)).toBe(LIMIT)
    expect(limited.map((r) => r.apiCalls)).toEqual(unlimited.map((r) => r.apiCalls))
    expect(facts(limited)).toEqual(facts(unlimited))
    expect(limited.flatMap((r) => r.errors).filter((e) => e.kind === "throttled")).toEqual([])
  })

  it("Azure's 429 with Retry-After pauses ARM for both scans until it has passed, then retries", async () => {
    server.clearLog()
    const sent = throttleMidway(ARM, 30, () => ({
      ...armError(429, "TooManyRequests", "The request is being throttled as the limit has been reached for operation type - Read_ObservationWindow_00:05:00."),
      headers: { "retry-after": "1" },
    }) as never)
    const results = await Promise.all(SUBSCRIPTIONS.map((s) => scanAzure(s, LIMIT)))
    expect(sent).toHaveLength(2)
    expect(results.flatMap((r) => r.errors).filter((e) => e.kind === "throttled")).toEqual([])
    expect(results.reduce((n, r) => n + r.retries, 0)).toBe(2)
    const during = arrivals(ARM).filter((t) => t > sent[0]! + 250 && t < sent[0]! + 900)
    expect(during).toEqual([])
    const after = server.requests.filter((r) => r.host === ARM && r.receivedAt >= sent[0]! + 950)
    expect(new Set(after.map((r) => /\/subscriptions\/([^/]+)/.exec(r.path)?.[1])).size).toBe(2)
  }, 30_000)
})
