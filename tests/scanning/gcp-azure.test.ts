/**
 * Issue 7 over real HTTP: the whole API with its job worker (tests/scanning/support.ts) pointed at two loopback fixture
 * servers speaking the Google Cloud and Azure wire formats (GCP_ENDPOINT_URL / AZURE_ENDPOINT_URL).
 * GCP project and Azure subscription: providers enabled → wrong credentials (401 cloud_credentials_invalid) and a key
 * that is not a service-account key (400) → add (cloud-side id = project id / subscription id, secret masked, sealed at
 * rest) → scan every service → findings with CIS GCP / CIS Azure references → export → remediate one fixable row per
 * provider (the job runs the engine's fixer, which verifies by re-reading) → a rescan finds the row compliant.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SECRET_MASK } from "../../src/contracts/accounts.ts"
import { ValidationMessages } from "../../src/contracts/messages.ts"
import { startCloudFixtureServer, type CloudFixtureServer } from "../support/cloud-fixture-server.ts"
import { INSECURE, insecureSubscription, insecureTenant } from "../scanner-azure/azure-fixtures.ts"
import { installAzureWorld, newAzureWorld, type AzureWorld } from "../scanner-azure/azure-world.ts"
import { insecureProject } from "../scanner-gcp/gcp-fixtures.ts"
import { addServiceAccount, installGcpWorld, newGcpWorld, type GcpWorld, type TestServiceAccount } from "../scanner-gcp/gcp-world.ts"
import { complianceRefs } from "../../server/scans/finding-rows.ts"
import { fixerInfo } from "../../server/scans/fixers.ts"
import { servicesToScan } from "../../server/scanner/service-catalogue.ts"
import { detailed, sleep, startScanEnv, type Member, type ScanEnv } from "./support.ts"

const GCP = 2
const AZURE = 3
const PROJECT = "insecure-proj"
const BUCKET = "insecure-logs"
const STORAGE_ACCOUNT = `/subscriptions/${INSECURE.subscriptionId}/resourceGroups/data/providers/Microsoft.Storage/storageAccounts/badstorage`

let env: ScanEnv
let gcpServer: CloudFixtureServer
let azureServer: CloudFixtureServer
let gcpWorld: GcpWorld
let azureWorld: AzureWorld
let scanner: TestServiceAccount
let owner: Member

const azureCredentials = (secret = INSECURE.secret) => ({
  tenant_id: INSECURE.tenantId,
  client_id: INSECURE.clientId,
  client_secret: secret,
  subscription_id: INSECURE.subscriptionId,
})

beforeAll(async () => {
  gcpServer = await startCloudFixtureServer()
  gcpWorld = newGcpWorld(50)
  installGcpWorld(gcpServer, gcpWorld)
  gcpWorld.projects.set(PROJECT, insecureProject())
  // The key's project_id is the project the scans read: the e-mail's domain names it.
  scanner = addServiceAccount(gcpWorld, gcpServer, `scanner@${PROJECT}.iam.gserviceaccount.com`)

  azureServer = await startCloudFixtureServer()
  azureWorld = newAzureWorld(50)
  installAzureWorld(azureServer, azureWorld)
  const tenant = insecureTenant()
  azureWorld.tenants.set(tenant.tenantId, tenant)
  const sub = insecureSubscription()
  azureWorld.subscriptions.set(sub.subscriptionId, sub)

  // The engines read the overrides from the process environment (like SCAN_REGIONS in ./support.ts); the server's
  // config gets them too.
  process.env["GCP_ENDPOINT_URL"] = gcpServer.origin
  process.env["AZURE_ENDPOINT_URL"] = azureServer.origin
  env = await startScanEnv({ env: { GCP_ENDPOINT_URL: gcpServer.origin, AZURE_ENDPOINT_URL: azureServer.origin } })
  owner = await env.workspace()
}, 120_000)

afterAll(async () => {
  delete process.env["GCP_ENDPOINT_URL"]
  delete process.env["AZURE_ENDPOINT_URL"]
  await env?.stop()
  await gcpServer?.close()
  await azureServer?.close()
})

const addAccount = (cloud_provider_id: number, account_name: string, credentials: Record<string, string>) =>
  env.call(owner, "POST", "/api/accounts", { cloud_provider_id, account_name, is_organization: false, credentials })

const scanAccount = async (accountId: number, cloudProviderId: number, name: string) => {
  const res = await env.call(owner, "POST", "/api/scans", { user_id: owner.userId, account_id: accountId, cloud_provider_id: cloudProviderId, cloud_provider_name: name })
  expect(res.status, res.text).toBe(200)
  const done = await env.waitForScan(owner, res.body.data.id, 180_000)
  return { id: res.body.data.id as number, services: res.body.data.services as Array<{ service_name: string }>, done }
}

const failingFindings = async (scanId: number): Promise<Array<any>> => {
  const out: Array<any> = []
  for (let page = 1; ; page++) {
    const res = await env.call(owner, "GET", `/api/findings?scan_id=${scanId}&page=${page}&page_size=100`)
    expect(res.status, res.text).toBe(200)
    out.push(...res.body.data)
    if (res.body.data.length < 100) return out
  }
}

/** The finding of `checkId` among the list items, read with its detail rows. */
const findingFor = async (findings: ReadonlyArray<any>, checkId: string) => {
  const f = findings.find((x) => x.check_id === checkId)
  if (f === undefined) throw new Error(`no finding ${checkId} among ${findings.map((x) => x.check_id).join(", ")}`)
  return detailed(env, owner, f)
}

const rowFor = (finding: any, resourceId: string) => {
  const row = finding.details.find((d: any) => d.resource_id === resourceId)
  if (row === undefined) throw new Error(`${finding.check_id}: no row ${resourceId} among ${finding.details.map((d: any) => d.resource_id).join(", ")}`)
  return row
}

const remediateAndWait = async (finding: any, row: any) => {
  const res = await env.call(owner, "POST", `/api/findings/${finding.id}/remediate`, { details: row })
  expect(res.status, res.text).toBe(200)
  expect(res.body.data.details.remediate.status).toBe("pending")
  const deadline = Date.now() + 90_000
  for (;;) {
    const current = (await env.call(owner, "GET", `/api/findings/${finding.id}`)).body.data
    const rem = rowFor(current, row.resource_id).remediate
    if (rem.status !== "pending" && rem.status !== "running") return { finding: current, remediate: rem }
    if (Date.now() > deadline) throw new Error(`remediation still ${rem.status}`)
    await sleep(250)
  }
}

describe("provider seams (pure)", () => {
  it("compliance references: GCP/Azure results carry their own list, AWS keeps its CIS v3/v7 + FSBP mapping", () => {
    const gcpRefs = [{ framework: "CIS Google Cloud Platform Foundation Benchmark v4.0.0", control: "5.2" }]
    expect(complianceRefs({ cis: {}, compliance: gcpRefs })).toEqual(gcpRefs)
    expect(complianceRefs({ cis: { v3: "2.1.1" }, fsbp: "S3.5" }).map((r) => r.control)).toEqual(["2.1.1", "S3.5"])
  })

  it("fixers and services are looked up per provider", () => {
    expect(fixerInfo("storage_bucket_uniform_access", GCP)).toBeDefined()
    expect(fixerInfo("storage_bucket_uniform_access", AZURE)).toBeUndefined()
    expect(fixerInfo("storage_minimum_tls_12", AZURE)).toBeDefined()
    expect(fixerInfo("storage_minimum_tls_12", GCP)).toBeUndefined()
    expect(servicesToScan(GCP).map((s) => s.key)).toContain("storage")
    expect(servicesToScan(AZURE).map((s) => s.key)).toContain("storage")
    expect(servicesToScan(9)).toEqual([])
  })
})

describe("providers", () => {
  it("GET /api/cloud-providers enables GCP and Azure", async () => {
    const res = await env.call(owner, "GET", "/api/cloud-providers")
    expect(res.status).toBe(200)
    expect(res.body.data.cloud_providers).toEqual([
      { id: 1, name: "AWS", is_enable: true },
      { id: 2, name: "GCP", is_enable: true },
      { id: 3, name: "Azure", is_enable: true },
    ])
  })
})

describe("GCP project", () => {
  let accountId: number
  let scanId: number

  it("refuses a key the token endpoint does not know (401 cloud_credentials_invalid) and a key that is not a service-account key (400)", async () => {
    const stranger = addServiceAccount(gcpWorld, gcpServer, `stranger@${PROJECT}.iam.gserviceaccount.com`)
    gcpWorld.accounts.delete(stranger.email)
    const wrong = await addAccount(GCP, "Wrong key", { service_account_key: stranger.keyJson })
    expect(wrong.status, wrong.text).toBe(401)
    expect(wrong.body.data.error_type).toBe("cloud_credentials_invalid")
    expect(wrong.text).not.toContain("PRIVATE KEY")

    const { private_key: _p, ...noKey } = JSON.parse(scanner.keyJson) as Record<string, string>
    const invalid = await addAccount(GCP, "No private key", { service_account_key: JSON.stringify(noKey) })
    expect(invalid.status, invalid.text).toBe(400)
    expect(invalid.body._tag).toBe("ValidationError")
    expect(invalid.body.errors).toEqual([{ path: "credentials.service_account_key", message: ValidationMessages.serviceAccountKeyPrivateKey }])

    const listed = await env.call(owner, "GET", `/api/accounts?cloud_provider_id=${GCP}`)
    expect(listed.body.data.accounts).toEqual([])
  })

  it("adds the project: the project id is the account id, the key is sealed at rest and masked in the detail", async () => {
    const res = await addAccount(GCP, "GCP insecure project", { service_account_key: scanner.keyJson })
    expect(res.status, res.text).toBe(200)
    expect(res.body.data.account).toMatchObject({ account_id: PROJECT, cloud_provider_id: GCP, cloud_provider_name: "GCP" })
    accountId = res.body.data.account.id

    const detail = await env.call(owner, "GET", `/api/accounts/${accountId}`)
    // The spec's AWS fields stay null; the project and the service account have their own fields.
    expect(detail.body.data.credential_data).toEqual({ aws_account_id: null, access_key: null, secret_key: SECRET_MASK, project_id: PROJECT, client_email: scanner.email })
    expect(detail.text).not.toContain("PRIVATE KEY")

    const stored = await env.sql((q) => q<{ credentials_sealed: string }>`SELECT credentials_sealed FROM accounts WHERE id = ${accountId}`)
    expect(stored[0]!.credentials_sealed.startsWith("v1.")).toBe(true)
    expect(stored[0]!.credentials_sealed).not.toContain("PRIVATE")

    const again = await addAccount(GCP, "Same project", { service_account_key: scanner.keyJson })
    expect(again.status).toBe(409)
  })

  it("scans every GCP service and stores findings with CIS GCP references", async () => {
    const scan = await scanAccount(accountId, GCP, "gcp")
    scanId = scan.id
    expect(scan.services.length).toBeGreaterThan(5)
    expect(scan.done.status, JSON.stringify(scan.done)).toBe("completed")
    const findings = await failingFindings(scanId)
    expect(findings.length).toBeGreaterThanOrEqual(50)
    const uniform = await findingFor(findings, "storage_bucket_uniform_access")
    expect(uniform.status).toBe("fail")
    expect(uniform.compliance.length).toBeGreaterThan(0)
    expect(uniform.compliance.every((c: any) => /CIS/.test(c.framework) && /Google|GCP/.test(c.framework))).toBe(true)
    expect(rowFor(uniform, BUCKET).compliance).toBe(false)
  })

  it("exports the scan", async () => {
    const json = await env.call(owner, "GET", `/api/scans/${scanId}/export?format=json`)
    expect(json.status, json.text).toBe(200)
    expect(json.text).toContain("storage_bucket_uniform_access")
    const csv = await env.call(owner, "GET", `/api/scans/${scanId}/export?format=csv`)
    expect(csv.status).toBe(200)
    expect(csv.text).toContain(BUCKET)
  })

  it("remediates the bucket (verified by the engine) and a rescan finds it compliant", async () => {
    const finding = await findingFor(await failingFindings(scanId), "storage_bucket_uniform_access")
    const { remediate } = await remediateAndWait(finding, rowFor(finding, BUCKET))
    expect(remediate.status, remediate.message).toBe("remediated")
    const bucket = gcpWorld.projects.get(PROJECT)!.buckets.find((b) => b.bucket["name"] === BUCKET)!
    expect((bucket.bucket["iamConfiguration"] as any).uniformBucketLevelAccess.enabled).toBe(true)

    const rescan = await scanAccount(accountId, GCP, "gcp")
    expect(rescan.done.status).toBe("completed")
    const after = await findingFor(await failingFindings(rescan.id), "storage_bucket_uniform_access")
    expect(rowFor(after, BUCKET).compliance).toBe(true)
  })
  it("an API that is not enabled in the project: its checks are not evaluated, with the reason, and count as neither failed nor passed", async () => {
    const project = gcpWorld.projects.get(PROJECT)!
    project.disabledApis.add("dns")
    try {
      const scan = await scanAccount(accountId, GCP, "gcp")
      expect(scan.done.status).toBe("completed")
      const dns = scan.done.services.find((s: any) => s.service_name === "Cloud DNS")
      const findings = (await failingFindings(scan.id)).filter((f) => f.service_id === dns.service_id)
      expect(findings.length).toBeGreaterThan(0)
      for (const f of findings) {
        expect(f).toMatchObject({ status: "pass", outcome: "not_evaluated" })
        expect(f.not_evaluated_reason).toMatch(/SERVICE_DISABLED \(the API is not enabled or not available here\)/)
      }
      expect(dns).toMatchObject({ failed_findings: 0, passed_findings: 0, not_evaluated_findings: findings.length })
    } finally {
      project.disabledApis.delete("dns")
    }
  })

  it("a key revoked after the account was added fails each service at once with the reason (no retries)", async () => {
    const saved = gcpWorld.accounts.get(scanner.email)!
    gcpWorld.accounts.delete(scanner.email)
    try {
      const scan = await scanAccount(accountId, GCP, "gcp")
      expect(scan.done.status).toBe("failed")
      const services = await env.sql((q) =>
        q<{ status: string; attempts: number; error: string | null }>`SELECT status, attempts, error FROM scan_services WHERE scan_id = ${scan.id}`)
      expect(services.length).toBe(scan.services.length)
      for (const s of services) {
        expect(s.status).toBe("failed")
        expect(s.attempts).toBe(1)
        expect(s.error ?? "").not.toBe("")
        expect(s.error ?? "").not.toContain("PRIVATE KEY")
      }
    } finally {
      gcpWorld.accounts.set(scanner.email, saved)
    }
  })
})

describe("Azure subscription", () => {
  let accountId: number
  let scanId: number

  it("refuses a wrong client secret (401 cloud_credentials_invalid) and a malformed tenant id (400)", async () => {
    const wrong = await addAccount(AZURE, "Wrong secret", azureCredentials("not-the-secret"))
    expect(wrong.status, wrong.text).toBe(401)
    expect(wrong.body.data.error_type).toBe("cloud_credentials_invalid")
    expect(wrong.text).not.toContain("not-the-secret")

    const invalid = await addAccount(AZURE, "Bad tenant", { ...azureCredentials(), tenant_id: "not a tenant/../x" })
    expect(invalid.status, invalid.text).toBe(400)
    expect(invalid.body._tag).toBe("ValidationError")
  })

  it("test_only checks the connection without saving anything", async () => {
    const res = await env.call(owner, "POST", "/api/accounts", {
      cloud_provider_id: AZURE, account_name: "Only a test", is_organization: false, credentials: azureCredentials(), test_only: true,
    })
    expect(res.status, res.text).toBe(200)
    expect(res.body.data).toEqual({ tested: true })
    expect((await env.call(owner, "GET", `/api/accounts?cloud_provider_id=${AZURE}`)).body.data.accounts).toEqual([])
  })

  it("adds the subscription: the subscription id is the account id, the client secret is masked", async () => {
    const res = await addAccount(AZURE, "Azure legacy subscription", azureCredentials())
    expect(res.status, res.text).toBe(200)
    expect(res.body.data.account).toMatchObject({ account_id: INSECURE.subscriptionId, cloud_provider_id: AZURE, cloud_provider_name: "Azure" })
    accountId = res.body.data.account.id
    const detail = await env.call(owner, "GET", `/api/accounts/${accountId}`)
    expect(detail.body.data.credential_data).toEqual({
      aws_account_id: null,
      access_key: null,
      secret_key: SECRET_MASK,
      tenant_id: INSECURE.tenantId,
      client_id: INSECURE.clientId,
      subscription_id: INSECURE.subscriptionId,
    })
    expect(detail.text).not.toContain(INSECURE.secret)
    const stored = await env.sql((q) => q<{ credentials_sealed: string }>`SELECT credentials_sealed FROM accounts WHERE id = ${accountId}`)
    expect(stored[0]!.credentials_sealed).not.toContain(INSECURE.secret)
    // The audited reveal answers the client secret.
    const reveal = await env.call(owner, "POST", `/api/accounts/${accountId}/reveal-secret`)
    expect(reveal.status, reveal.text).toBe(200)
    expect(reveal.body.data.secret_key).toBe(INSECURE.secret)
  })

  it("scans every Azure service and stores findings with CIS Azure references", async () => {
    const scan = await scanAccount(accountId, AZURE, "azure")
    scanId = scan.id
    expect(scan.done.status, JSON.stringify(scan.done)).toBe("completed")
    const findings = await failingFindings(scanId)
    expect(findings.length).toBeGreaterThanOrEqual(60)
    const tls = await findingFor(findings, "storage_minimum_tls_12")
    expect(tls.status).toBe("fail")
    expect(tls.compliance.length).toBeGreaterThan(0)
    expect(tls.compliance.every((c: any) => /CIS/.test(c.framework) && /Azure/.test(c.framework))).toBe(true)
    expect(rowFor(tls, STORAGE_ACCOUNT).compliance).toBe(false)
    const json = await env.call(owner, "GET", `/api/scans/${scanId}/export?format=json`)
    expect(json.status).toBe(200)
    expect(json.text).toContain("storage_minimum_tls_12")
  })

  it("remediates minimum TLS 1.2 on the storage account and a rescan finds it compliant", async () => {
    const finding = await findingFor(await failingFindings(scanId), "storage_minimum_tls_12")
    const { remediate } = await remediateAndWait(finding, rowFor(finding, STORAGE_ACCOUNT))
    expect(remediate.status, remediate.message).toBe("remediated")
    const rescan = await scanAccount(accountId, AZURE, "azure")
    expect(rescan.done.status).toBe("completed")
    const after = await findingFor(await failingFindings(rescan.id), "storage_minimum_tls_12")
    expect(rowFor(after, STORAGE_ACCOUNT).compliance).toBe(true)
  })
})
