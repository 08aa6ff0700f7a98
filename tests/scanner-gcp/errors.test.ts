/**
 * GCP failure handling on the wire: refused keys (401 at the token endpoint), revoked tokens (401 then refresh),
 * missing permissions (403 IAM_PERMISSION_DENIED) and disabled APIs (403 SERVICE_DISABLED) recorded on the
 * findings, 429 with Retry-After retried, paging followed, malformed bodies reported, connection tests.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseServiceAccountKey, trustedTokenUri, DEFAULT_TOKEN_URI } from "../../server/scanner/gcp/auth.ts"
import { ValidationMessages } from "../../src/contracts/messages.ts"
import { Effect } from "effect"
import { testGcpConnection, testGcpConnectionEffect } from "../../server/scanner/gcp/connection-test.ts"
import { scanGcpServiceEffect } from "../../server/scanner/gcp/scan-service.ts"
import { gcpEndpointsAt } from "../../server/scanner/gcp/endpoints.ts"
import { ConnectionTestError, ScanSetupError } from "../../server/scanner/rest/engine.ts"
import { retryAfterMs } from "../../server/scanner/rest/http.ts"
import { emptyProject, hardenedProject, insecureProject, NOW } from "./gcp-fixtures.ts"
import { addServiceAccount, googleError } from "./gcp-world.ts"
import { findingOf, startGcpFixture, type GcpFixture } from "./helpers.ts"

let fx: GcpFixture
let denyAll = false

beforeAll(async () => {
  const disabled = { ...hardenedProject(), projectId: "no-sql-proj", projectNumber: "333333333333", disabledApis: new Set(["sqladmin", "cloudkms"]) }
  const many = emptyProject("many-fw-proj", "444444444444")
  many.firewalls = Array.from({ length: 9 }, (_, i) => ({ name: `fw-${i}`, direction: "INGRESS", sourceRanges: ["0.0.0.0/0"], allowed: [{ IPProtocol: "tcp", ports: [String(8000 + i)] }] }))
  fx = await startGcpFixture([hardenedProject(), insecureProject(), disabled, many])
})

afterAll(async () => {
  await fx.close()
})

const setupError = async (p: Promise<unknown>) => {
  const e = await p.then(
    () => undefined,
    (error: unknown) => error,
  )
  expect(e).toBeInstanceOf(ScanSetupError)
  return e as ScanSetupError
}

describe("GCP credentials and setup", () => {
  it("validates the key file with the contract's rules: type, client_email, a PKCS#8 private key, project_id, token_uri", () => {
    const key = JSON.parse(fx.scanner.keyJson) as Record<string, unknown>
    expect(parseServiceAccountKey(fx.scanner.keyJson).client_email).toBe("scanner@audit-proj.iam.gserviceaccount.com")
    expect(() => parseServiceAccountKey("{not json")).toThrow(ValidationMessages.serviceAccountKeyInvalid)
    expect(() => parseServiceAccountKey({ ...key, type: "authorized_user" })).toThrow(ValidationMessages.serviceAccountKeyType)
    expect(() => parseServiceAccountKey({ ...key, private_key: "MIIEv..." })).toThrow(ValidationMessages.serviceAccountKeyPrivateKey)
    expect(() => parseServiceAccountKey({ ...key, client_email: "nobody" })).toThrow(ValidationMessages.serviceAccountKeyClientEmail)
    const { project_id: _p, ...noProject } = key
    expect(() => parseServiceAccountKey(noProject)).toThrow(ValidationMessages.serviceAccountKeyProjectId)
    expect(() => parseServiceAccountKey({ ...key, token_uri: "http://evil.example/token" })).toThrow(ValidationMessages.serviceAccountKeyTokenUri)
    expect(() => parseServiceAccountKey({ ...key, universe_domain: "example.com" })).toThrow(/universe/)
  })

  it("never posts to a token_uri that is not Google's (SSRF): the key's own value is ignored unless it is a Google endpoint", () => {
    const key = parseServiceAccountKey(fx.scanner.keyJson)
    expect(trustedTokenUri({ ...key, token_uri: "http://169.254.169.254/computeMetadata/v1/token" })).toBe(DEFAULT_TOKEN_URI)
    expect(trustedTokenUri({ ...key, token_uri: "https://evil.example/token" })).toBe(DEFAULT_TOKEN_URI)
    expect(trustedTokenUri({ ...key, token_uri: "https://oauth2.googleapis.com/token" })).toBe("https://oauth2.googleapis.com/token")
  })

  it("a key the token endpoint refuses is invalid_credentials, before any API call", async () => {
    const stranger = JSON.parse(fx.scanner.keyJson) as Record<string, unknown>
    const other = addServiceAccount(fx.world, fx.server, "other@audit-proj.iam.gserviceaccount.com")
    // Right email, wrong private key: the JWT signature does not verify.
    const forged = JSON.stringify({ ...stranger, private_key: (JSON.parse(other.keyJson) as { private_key: string }).private_key })
    fx.server.clearLog()
    const e = await setupError(fx.scan("hardened-proj", "storage", { credentials: { serviceAccountKey: forged } }))
    expect(e.reason).toBe("invalid_credentials")
    expect(e.message).toContain("Invalid JWT Signature")
    expect(fx.server.requests.map((r) => r.host)).toEqual(["oauth2.googleapis.com"])
  })

  it("a project the service account cannot read is access_denied; an unknown service and a malformed project id are rejected", async () => {
    const limited = addServiceAccount(fx.world, fx.server, "limited@audit-proj.iam.gserviceaccount.com", new Set(["insecure-proj"]))
    expect((await setupError(fx.scan("hardened-proj", "storage", { credentials: { serviceAccountKey: limited.keyJson } }))).reason).toBe("access_denied")
    expect((await setupError(fx.scan("hardened-proj", "nope"))).reason).toBe("unknown_service")
    expect((await setupError(fx.scan("Bad_Project!", "storage"))).reason).toBe("invalid_input")
    expect((await setupError(fx.scan("hardened-proj", "storage", { credentials: { serviceAccountKey: "{}" } }))).reason).toBe("invalid_input")
  })

  it("an endpoint that does not answer is unreachable", async () => {
    const e = await setupError(fx.scan("hardened-proj", "storage", { endpoints: { ...gcpEndpointsAt(fx.server.origin), cloudresourcemanager: "http://127.0.0.1:9/crm" }, maxAttempts: 1, timeoutMs: 2_000 }))
    expect(e.reason).toBe("unreachable")
  })

  it("Effect variants: typed failures, and the same results", async () => {
    const endpoints = gcpEndpointsAt(fx.server.origin)
    const ok = await Effect.runPromise(testGcpConnectionEffect({ credentials: { serviceAccountKey: fx.scanner.keyJson }, projectId: "insecure-proj", endpoints }))
    expect(ok.projectNumber).toBe("222222222222")
    const failure = await Effect.runPromise(Effect.flip(testGcpConnectionEffect({ credentials: { serviceAccountKey: "[]" }, endpoints })))
    expect(failure).toBeInstanceOf(ConnectionTestError)
    expect(failure.reason).toBe("invalid_input")
    const scan = await Effect.runPromise(scanGcpServiceEffect({ credentials: { serviceAccountKey: fx.scanner.keyJson }, projectId: "insecure-proj", service: "storage", endpoints, now: NOW }))
    expect(scan.findings.map((f) => f.check_id)).toContain("storage_bucket_not_public")
    expect(new Set(scan.findings.map((f) => f.status))).toEqual(new Set(["fail"]))
    const setup = await Effect.runPromise(Effect.flip(scanGcpServiceEffect({ credentials: { serviceAccountKey: fx.scanner.keyJson }, service: "nope", endpoints })))
    expect(setup.reason).toBe("unknown_service")
  })

  it("connection test: reads the project and answers its id and number", async () => {
    const info = await testGcpConnection({ credentials: { serviceAccountKey: fx.scanner.keyJson }, projectId: "hardened-proj", endpoints: gcpEndpointsAt(fx.server.origin) })
    expect(info).toEqual({ projectId: "hardened-proj", projectNumber: "111111111111", projectName: "hardened-proj", clientEmail: "scanner@audit-proj.iam.gserviceaccount.com", lifecycleState: "ACTIVE" })
    const missing = await testGcpConnection({ credentials: { serviceAccountKey: fx.scanner.keyJson }, projectId: "no-such-project", endpoints: gcpEndpointsAt(fx.server.origin) }).catch((e: unknown) => e)
    expect(missing).toBeInstanceOf(ConnectionTestError)
    expect((missing as ConnectionTestError).reason).toBe("access_denied")
    const bad = await testGcpConnection({ credentials: { serviceAccountKey: '{"type":"service_account"}' }, endpoints: gcpEndpointsAt(fx.server.origin) }).catch((e: unknown) => e)
    expect((bad as ConnectionTestError).reason).toBe("invalid_input")
    expect((bad as ConnectionTestError).message).not.toContain("PRIVATE KEY")
  })
})

describe("GCP API failures are recorded on the findings", () => {
  it("a disabled API (403 SERVICE_DISABLED) makes its checks 'error' with the reason, other services still scan", async () => {
    const sql = await fx.scan("no-sql-proj", "cloudsql")
    for (const f of sql.findings) {
      expect(f.status).toBe("error")
      expect(f.errors[0]).toMatchObject({ kind: "unsupported", code: "SERVICE_DISABLED", operation: "sqladmin.instances.list" })
      expect(f.errors[0]?.message).toContain("sqladmin.googleapis.com API is disabled")
    }
    const kms = await fx.scan("no-sql-proj", "kms")
    expect(findingOf([kms], "kms_key_rotation_90_days").errors[0]?.code).toBe("SERVICE_DISABLED")
    const storage = await fx.scan("no-sql-proj", "storage")
    expect(storage.findings.every((f) => f.status === "pass")).toBe(true)
  })

  it("a missing permission (403) is access_denied on the checks reading that input, with the permission named", async () => {
    fx.server.fault({ host: "iam.googleapis.com", path: /\/keys$/, times: 100, reply: googleError(403, "PERMISSION_DENIED", "Permission 'iam.serviceAccountKeys.list' denied on resource.", [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "IAM_PERMISSION_DENIED", metadata: { permission: "iam.serviceAccountKeys.list" } }]) })
    try {
      const iam = await fx.scan("insecure-proj", "iam")
      const keys = findingOf([iam], "iam_sa_no_user_managed_keys")
      expect(keys.status).toBe("error")
      expect(keys.errors).toHaveLength(2)
      expect(keys.errors[0]).toMatchObject({ kind: "access_denied", code: "PERMISSION_DENIED/IAM_PERMISSION_DENIED", operation: "iam.projects.serviceAccounts.keys.list" })
      expect(keys.errors.map((e) => e.resourceId).sort()).toEqual(["bad-keys@insecure-proj.iam.gserviceaccount.com", "ok-reader@insecure-proj.iam.gserviceaccount.com"])
      // A check that does not read the keys is unaffected and still finds its failures.
      expect(findingOf([iam], "iam_sa_no_admin_privileges").status).toBe("fail")
      expect(findingOf([iam], "iam_sa_no_admin_privileges").errors).toEqual([])
    } finally {
      fx.server.clearFaults()
    }
  })

  it("429 with Retry-After is waited for and retried; the scan completes", async () => {
    fx.server.fault({ host: "storage.googleapis.com", path: /^\/storage\/v1\/b$/, times: 1, reply: { status: 429, headers: { "retry-after": "1" }, body: { error: { code: 429, message: "The rate of change requests to the bucket is too high.", status: "RESOURCE_EXHAUSTED" } } } })
    const started = Date.now()
    const storage = await fx.scan("hardened-proj", "storage")
    expect(Date.now() - started).toBeGreaterThanOrEqual(950)
    expect(storage.retries).toBe(1)
    expect(storage.findings.every((f) => f.status === "pass")).toBe(true)
  })

  it("throttling that outlasts the attempts is recorded as 'throttled'", async () => {
    fx.server.fault({ host: "dns.googleapis.com", times: 100, reply: { status: 429, headers: { "retry-after": "0" }, body: { error: { code: 429, message: "Quota exceeded for quota metric 'Read requests'.", status: "RESOURCE_EXHAUSTED" } } } })
    try {
      const dns = await fx.scan("hardened-proj", "dns", { maxAttempts: 2 })
      expect(findingOf([dns], "dns_dnssec_enabled").errors[0]).toMatchObject({ kind: "throttled", code: "RESOURCE_EXHAUSTED" })
    } finally {
      fx.server.clearFaults()
    }
  })

  it("a revoked token (401 from an API) is refreshed once and the call retried", async () => {
    fx.server.fault({ host: "compute.googleapis.com", path: /\/global\/networks$/, times: 1, reply: googleError(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.") })
    fx.server.clearLog()
    const vpc = await fx.scan("hardened-proj", "vpc")
    expect(vpc.findings.every((f) => f.status === "pass")).toBe(true)
    expect(fx.server.requests.filter((r) => r.host === "oauth2.googleapis.com")).toHaveLength(2)
  })

  it("a transient 503 is retried", async () => {
    fx.server.fault({ host: "apikeys.googleapis.com", times: 1, reply: { status: 503, body: { error: { code: 503, message: "The service is currently unavailable.", status: "UNAVAILABLE" } } } })
    const keys = await fx.scan("hardened-proj", "apikeys")
    expect(keys.retries).toBe(1)
    expect(findingOf([keys], "apikeys_no_keys_exist").status).toBe("pass")
  })

  it("a body that does not match the documented schema is an InvalidResponse error, not a crash", async () => {
    fx.server.fault({ host: "logging.googleapis.com", path: /\/sinks$/, times: 1, reply: { body: { sinks: [{ name: "x" }] } } })
    const logging = await fx.scan("hardened-proj", "logging")
    const f = findingOf([logging], "logging_sink_all_entries")
    expect(f.status).toBe("error")
    expect(f.errors[0]?.code).toBe("InvalidResponse")
    expect(f.errors[0]?.message).toContain("destination")
  })

  it("follows nextPageToken across pages (9 firewalls, 2 per page)", async () => {
    fx.server.clearLog()
    const vpc = await fx.scan("many-fw-proj", "vpc", { checkIds: ["vpc_firewall_ssh_not_open"] })
    const pages = fx.server.requests.filter((r) => r.path.endsWith("/global/firewalls"))
    expect(pages).toHaveLength(5)
    expect(pages.slice(1).every((r) => r.query.get("pageToken") !== null)).toBe(true)
    expect(findingOf([vpc], "vpc_firewall_ssh_not_open").details.map((d) => d.resource_id)).toEqual(Array.from({ length: 9 }, (_, i) => `fw-${i}`))
    expect(vpc.apiCallsByOperation["compute.firewalls.list"]).toBe(5)
  })

  it("when every API refuses, every check is 'error' with no rows: nothing unread is reported as passing or failing", async () => {
    fx.server.guard((h) => h.endsWith(".googleapis.com") && h !== "oauth2.googleapis.com", (req) =>
      req.host === "cloudresourcemanager.googleapis.com" && !req.path.includes(":getIamPolicy") ? undefined : denyAll ? googleError(403, "PERMISSION_DENIED", "The caller does not have permission") : undefined,
    )
    denyAll = true
    try {
      const results = await Promise.all(["iam", "kms", "apikeys", "logging", "vpc", "dns", "compute", "storage", "cloudsql", "bigquery", "dataproc"].map((s) => fx.scan("insecure-proj", s)))
      for (const r of results) {
        for (const f of r.findings) {
          expect(f.details, f.check_id).toEqual([])
          expect(f.status, f.check_id).toBe("error")
          expect(f.errors.every((e) => e.kind === "access_denied"), f.check_id).toBe(true)
        }
      }
    } finally {
      denyAll = false
    }
  })

  it("an aborted scan rejects", async () => {
    const controller = new AbortController()
    const p = fx.scan("hardened-proj", "compute", { signal: controller.signal })
    controller.abort(new Error("canceled"))
    await expect(p).rejects.toThrow()
  })

  it("reads Retry-After as seconds or as an HTTP date", () => {
    expect(retryAfterMs(new Headers({ "retry-after": "3" }))).toBe(3000)
    expect(retryAfterMs(new Headers({ "retry-after": new Date(NOW.getTime() + 5000).toUTCString() }), NOW.getTime())).toBe(5000)
    expect(retryAfterMs(new Headers({}))).toBeUndefined()
    expect(retryAfterMs(new Headers({ "x-ms-retry-after-ms": "250" }))).toBe(250)
  })
})
