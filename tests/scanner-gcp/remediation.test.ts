/**
 * GCP fixers on the fake Google Cloud: every fixer goes fail → fix → re-read → pass; long-running operations are
 * waited for; a refused write, a fix that does not stick, a compliant row and a check without fixer are reported
 * honestly.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sqlFlagFixes } from "../../server/scanner/gcp/checks/sql.ts"
import { gcpEndpointsAt } from "../../server/scanner/gcp/endpoints.ts"
import { gcpRemediableChecks, remediateGcpFinding } from "../../server/remediation/gcp/remediate.ts"
import { insecureProject, NOW } from "./gcp-fixtures.ts"
import { googleError, type Json } from "./gcp-world.ts"
import { findingOf, rowOf, startGcpFixture, type GcpFixture } from "./helpers.ts"

let fx: GcpFixture

beforeAll(async () => {
  fx = await startGcpFixture([insecureProject()])
})

afterAll(async () => {
  await fx.close()
})

const serviceOf: Record<string, string> = {
  storage_bucket_uniform_access: "storage",
  storage_bucket_not_public: "storage",
  kms_key_rotation_90_days: "kms",
  logging_cloud_asset_inventory_enabled: "logging",
  vpc_lb_logging_enabled: "vpc",
  vpc_subnet_flow_logs_enabled: "vpc",
  compute_instance_serial_port_disabled: "compute",
  cloudsql_automated_backups: "cloudsql",
  storage_bucket_versioning_enabled: "storage",
  storage_bucket_soft_delete_enabled: "storage",
  cloudsql_instance_deletion_protection: "cloudsql",
  cloudsql_instance_ssl_required: "cloudsql",
  secretmanager_secret_not_public: "secretmanager",
  cloudfunctions_function_not_public: "cloudfunctions",
  artifactregistry_repo_not_public: "artifactregistry",
  ...Object.fromEntries(sqlFlagFixes.map((f) => [f.checkId, "cloudsql"])),
}

const target: Record<string, string> = {
  storage_bucket_uniform_access: "insecure-logs",
  storage_bucket_not_public: "insecure-logs",
  kms_key_rotation_90_days: "projects/insecure-proj/locations/global/keyRings/main/cryptoKeys/bad-no-rotation",
  logging_cloud_asset_inventory_enabled: "insecure-proj",
  vpc_lb_logging_enabled: "bad-backend",
  vpc_subnet_flow_logs_enabled: "bad-subnet",
  compute_instance_serial_port_disabled: "bad-vm",
  cloudsql_automated_backups: "bad-mysql",
  storage_bucket_versioning_enabled: "bad-unversioned",
  storage_bucket_soft_delete_enabled: "insecure-logs",
  cloudsql_instance_deletion_protection: "bad-postgres",
  cloudsql_instance_ssl_required: "bad-mysql",
  secretmanager_secret_not_public: "bad-api-token",
  // 2nd gen, public through its Cloud Run service.
  cloudfunctions_function_not_public: "bad-run-public-fn",
  artifactregistry_repo_not_public: "bad-public-repo",
  // Every database-flag fixer, on the insecure instance of its engine.
  ...Object.fromEntries(sqlFlagFixes.map((f) => [f.checkId, f.checkId.startsWith("cloudsql_mysql") ? "bad-mysql" : f.checkId.startsWith("cloudsql_postgres") ? "bad-postgres" : "bad-sqlserver"])),
}

const remediate = (checkId: string, row: Parameters<typeof remediateGcpFinding>[0]["row"]) =>
  remediateGcpFinding({ credentials: { serviceAccountKey: fx.scanner.keyJson }, projectId: "insecure-proj", endpoints: gcpEndpointsAt(fx.server.origin), checkId, row, now: NOW })

async function failingRow(checkId: string, resourceId: string) {
  const scan = await fx.scan("insecure-proj", serviceOf[checkId]!, { checkIds: [checkId] })
  const row = rowOf(findingOf([scan], checkId), resourceId)
  expect(row.compliant, `${checkId} ${resourceId} should fail first`).toBe(false)
  return row
}

describe("GCP fixers: fail -> fix -> verified pass", () => {
  it("covers every fixer", () => {
    expect(gcpRemediableChecks().map((c) => c.checkId).sort()).toEqual(Object.keys(target).sort())
    expect(gcpRemediableChecks().find((c) => c.checkId === "storage_bucket_not_public")?.cutsAccess).toContain("public")
  })

  for (const checkId of Object.keys(target)) {
    it(checkId, async () => {
      const row = await failingRow(checkId, target[checkId]!)
      const result = await remediate(checkId, row)
      expect(result.status, result.message).toBe("remediated")
      expect(result.after?.compliant).toBe(true)
      expect(result).toMatchObject({ check_id: checkId, resource_id: row.resource_id, region: row.region })
      const again = await fx.scan("insecure-proj", serviceOf[checkId]!, { checkIds: [checkId] })
      expect(rowOf(findingOf([again], checkId), row.resource_id).compliant).toBe(true)
    })
  }

  it("the database-flag fixers keep the instance's other flags (each fixer rewrote the whole list)", () => {
    const flags = (name: string) => {
      const instance = fx.world.projects.get("insecure-proj")!.sqlInstances.find((i) => i["name"] === name)!
      return Object.fromEntries(((instance["settings"] as Json)["databaseFlags"] as ReadonlyArray<{ name: string; value: string }>).map((f) => [f.name, f.value]))
    }
    for (const fix of sqlFlagFixes.filter((f) => f.checkId.startsWith("cloudsql_postgres"))) expect(flags("bad-postgres")[fix.flag]).toBe(fix.value)
    expect(flags("bad-sqlserver")).not.toHaveProperty("user options")
  })

  it("keeps the other metadata of the VM and waited for the compute operation", () => {
    const vm = fx.world.projects.get("insecure-proj")!.instances.find((i) => i.item["name"] === "bad-vm")!
    const items = ((vm.item["metadata"] as Json)["items"] as Json[]).map((i) => `${String(i["key"])}=${String(i["value"])}`)
    expect(items).toEqual(["startup-script=#!/bin/sh", "serial-port-enable=false"])
    expect(fx.server.requests.some((r) => /\/zones\/us-central1-a\/operations\/operation-\d+$/.test(r.path))).toBe(true)
  })

  it("the public-member fixers keep the other bindings and write with the policy's etag", () => {
    const run = fx.world.writes.find((w) => w.host === "run.googleapis.com")
    expect(run?.path).toMatch(/services\/bad-run-public-fn:setIamPolicy$/)
    expect((run?.body as Json)["policy"]).toMatchObject({ etag: "BwX=", bindings: [] })
    const secret = fx.world.projects.get("insecure-proj")!.secrets!.find((x) => String(x.secret["name"]).endsWith("/bad-api-token"))!
    expect(secret.policy["bindings"]).toEqual([{ role: "roles/secretmanager.secretAccessor", members: ["serviceAccount:reader@insecure-proj.iam.gserviceaccount.com"] }])
  })

  it("sent the documented PATCH bodies", () => {
    const writes = fx.world.writes.map((w) => ({ method: w.method, host: w.host, body: w.body }))
    expect(writes).toContainEqual({ method: "PATCH", host: "storage.googleapis.com", body: { iamConfiguration: { uniformBucketLevelAccess: { enabled: true } } } })
    expect(writes).toContainEqual({ method: "PATCH", host: "storage.googleapis.com", body: { iamConfiguration: { publicAccessPrevention: "enforced" } } })
    expect(writes).toContainEqual({ method: "PATCH", host: "sqladmin.googleapis.com", body: { settings: { backupConfiguration: { enabled: true } } } })
    const kms = fx.world.writes.find((w) => w.host === "cloudkms.googleapis.com")!
    expect(kms.body).toEqual({ rotationPeriod: "7776000s", nextRotationTime: new Date(NOW.getTime() + 90 * 86_400_000).toISOString() })
  })
})

describe("GCP remediation outcomes", () => {
  it("an already compliant row is re-read and left alone", async () => {
    const scan = await fx.scan("insecure-proj", "storage", { checkIds: ["storage_bucket_uniform_access"] })
    const row = rowOf(findingOf([scan], "storage_bucket_uniform_access"), "ok-pap-bucket")
    const before = fx.world.writes.length
    const result = await remediate("storage_bucket_uniform_access", row)
    expect(result.status).toBe("pass")
    expect(fx.world.writes.length).toBe(before)
  })

  it("a check without a fixer, or an unknown check, is 'failed' with the reason and changes nothing", async () => {
    const before = fx.world.writes.length
    const scan = await fx.scan("insecure-proj", "cloudsql", { checkIds: ["cloudsql_no_public_ip"] })
    const row = rowOf(findingOf([scan], "cloudsql_no_public_ip"), "bad-mysql")
    expect((await remediate("cloudsql_no_public_ip", row)).message).toBe("No automatic remediation is available for this check; follow the remediation guidance.")
    const fw = await fx.scan("insecure-proj", "compute", { checkIds: ["compute_instance_confidential_computing"] })
    const confidential = rowOf(findingOf([fw], "compute_instance_confidential_computing"), "bad-vm")
    expect((await remediate("compute_instance_confidential_computing", confidential)).status).toBe("failed")
    expect((await remediate("no_such_check", confidential)).message).toBe('Unknown check "no_such_check".')
    expect(fx.world.writes.length).toBe(before)
  })

  it("403 on the write: failed, with the permission error", async () => {
    const p = fx.world.projects.get("insecure-proj")!
    p.buckets.push({ bucket: { name: "bad-locked-bucket", location: "US", iamConfiguration: { uniformBucketLevelAccess: { enabled: false } } }, policy: { bindings: [] } })
    const row = await failingRow("storage_bucket_uniform_access", "bad-locked-bucket")
    fx.server.fault({ host: "storage.googleapis.com", method: "PATCH", times: 1, reply: googleError(403, "PERMISSION_DENIED", "scanner@audit-proj.iam.gserviceaccount.com does not have storage.buckets.update access to the Google Cloud Storage bucket.") })
    const result = await remediate("storage_bucket_uniform_access", row)
    expect(result.status).toBe("failed")
    expect(result.message).toContain("storage.buckets.update")
    expect(result.action).toBeUndefined()
  })

  it("a write that does not stick: failed, 'still fails' with the re-read reason", async () => {
    const p = fx.world.projects.get("insecure-proj")!
    p.buckets.push({ bucket: { name: "bad-sticky-bucket", location: "US", iamConfiguration: { uniformBucketLevelAccess: { enabled: false } } }, policy: { bindings: [] } })
    const row = await failingRow("storage_bucket_uniform_access", "bad-sticky-bucket")
    fx.server.fault({ host: "storage.googleapis.com", method: "PATCH", times: 1, reply: { body: { name: "bad-sticky-bucket" } } })
    const result = await remediate("storage_bucket_uniform_access", row)
    expect(result.status).toBe("failed")
    expect(result.message).toContain("The check still fails after the change: Object ACLs are still in effect")
  })
})
