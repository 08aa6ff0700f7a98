/**
 * Scale: a project with 500 resources across services, scanned service by service (all services concurrently, as
 * parallel scan jobs would) against the fixture server with 50 items per page. Asserts every resource is read and
 * evaluated; prints the wall time for the report.
 */
import { afterAll, beforeAll, expect, it } from "vitest"
import { scannableGcpServices } from "../../server/scanner/gcp/catalogue.ts"
import { emptyProject } from "./gcp-fixtures.ts"
import { findingOf, startGcpFixture, type GcpFixture } from "./helpers.ts"

let fx: GcpFixture

beforeAll(async () => {
  const p = emptyProject("scale-proj", "555555555555")
  for (let i = 0; i < 100; i++) {
    p.buckets.push({ bucket: { name: `bucket-${i}`, location: "US", iamConfiguration: { uniformBucketLevelAccess: { enabled: i % 2 === 0 }, publicAccessPrevention: "inherited" } }, policy: { bindings: i % 10 === 0 ? [{ role: "roles/storage.objectViewer", members: ["allUsers"] }] : [] } })
    p.instances.push({ scope: `zones/us-central1-${"abc"[i % 3]}`, item: { name: `vm-${i}`, canIpForward: false, serviceAccounts: [{ email: `app@scale-proj.iam.gserviceaccount.com`, scopes: [] }], metadata: { items: [] }, networkInterfaces: [{ network: "n" }] } })
    p.firewalls.push({ name: `fw-${i}`, direction: "INGRESS", sourceRanges: [i % 5 === 0 ? "0.0.0.0/0" : "10.0.0.0/8"], allowed: [{ IPProtocol: "tcp", ports: [i % 5 === 0 ? "22" : String(8000 + i)] }] })
    p.sqlInstances.push({ name: `sql-${i}`, databaseVersion: i % 2 === 0 ? "POSTGRES_15" : "MYSQL_8_0", region: "us-central1", settings: { ipConfiguration: { ipv4Enabled: false, sslMode: "ENCRYPTED_ONLY" }, backupConfiguration: { enabled: true }, databaseFlags: [] } })
  }
  for (let i = 0; i < 50; i++) {
    p.serviceAccounts.push({ account: { name: `projects/scale-proj/serviceAccounts/sa-${i}@scale-proj.iam.gserviceaccount.com`, email: `sa-${i}@scale-proj.iam.gserviceaccount.com` }, keys: [] })
    p.disks.push({ scope: "zones/us-central1-a", item: { name: `disk-${i}` } })
  }
  fx = await startGcpFixture([p], 50)
})

afterAll(async () => {
  await fx.close()
})

it("scans 500 resources across every service", async () => {
  const started = Date.now()
  const results = await Promise.all(scannableGcpServices().map((s) => fx.scan("scale-proj", s.id)))
  const wall = Date.now() - started
  const resources = results.reduce((n, r) => n + r.resourcesScanned, 0)
  const calls = results.reduce((n, r) => n + r.apiCalls, 0)
  console.info(`[scale] GCP: ${resources} resources, ${calls} API calls, ${results.length} services, wall ${wall} ms`)
  expect(resources).toBeGreaterThanOrEqual(500)
  expect(findingOf(results, "storage_bucket_uniform_access").details).toHaveLength(100)
  expect(findingOf(results, "storage_bucket_not_public").details.filter((d) => !d.compliant)).toHaveLength(10)
  expect(findingOf(results, "vpc_firewall_ssh_not_open").details.filter((d) => !d.compliant)).toHaveLength(20)
  expect(findingOf(results, "compute_instance_no_public_ip").details).toHaveLength(100)
  expect(findingOf(results, "cloudsql_automated_backups").details).toHaveLength(100)
  expect(results.every((r) => r.errors.length === 0)).toBe(true)
  expect(wall).toBeLessThan(20_000)
})
