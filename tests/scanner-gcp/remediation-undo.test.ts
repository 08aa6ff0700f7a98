/**
 * GCP plan fixers (issue 32) on the fake Google Cloud: for every fixer with a plan, the preview changes nothing (the
 * whole project state is identical before and after, no write was sent), the apply is verified by re-reading, and the
 * undo brings the resource back field by field; a resource changed after the fix makes the undo refuse with the
 * difference. The gcloud commands and Terraform are rendered from the planned calls.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sqlFlagFixes } from "../../server/scanner/gcp/checks/sql.ts"
import { gcpEndpointsAt } from "../../server/scanner/gcp/endpoints.ts"
import { gcpRemediableChecks, previewGcpFinding, readGcpFixedState, remediateGcpFinding, undoGcpFinding } from "../../server/remediation/gcp/remediate.ts"
import { diffStates } from "../../server/remediation/plan.ts"
import { insecureProject, NOW } from "./gcp-fixtures.ts"
import type { Json } from "./gcp-world.ts"
import { findingOf, rowOf, startGcpFixture, type GcpFixture } from "./helpers.ts"

let fx: GcpFixture

beforeAll(async () => {
  fx = await startGcpFixture([insecureProject()])
})

afterAll(async () => {
  await fx.close()
})

const cases: Record<string, { readonly service: string; readonly resource: string }> = {
  storage_bucket_uniform_access: { service: "storage", resource: "insecure-logs" },
  storage_bucket_not_public: { service: "storage", resource: "insecure-logs" },
  storage_bucket_versioning_enabled: { service: "storage", resource: "bad-unversioned" },
  storage_bucket_soft_delete_enabled: { service: "storage", resource: "insecure-logs" },
  kms_key_rotation_90_days: { service: "kms", resource: "projects/insecure-proj/locations/global/keyRings/main/cryptoKeys/bad-no-rotation" },
  cloudsql_automated_backups: { service: "cloudsql", resource: "bad-mysql" },
  cloudsql_instance_deletion_protection: { service: "cloudsql", resource: "bad-postgres" },
  cloudsql_instance_ssl_required: { service: "cloudsql", resource: "bad-mysql" },
  ...Object.fromEntries(
    sqlFlagFixes.map((f) => [f.checkId, { service: "cloudsql", resource: f.checkId.startsWith("cloudsql_mysql") ? "bad-mysql" : f.checkId.startsWith("cloudsql_postgres") ? "bad-postgres" : "bad-sqlserver" }]),
  ),
}

const input = (checkId: string, row: Parameters<typeof remediateGcpFinding>[0]["row"]) => ({
  credentials: { serviceAccountKey: fx.scanner.keyJson },
  projectId: "insecure-proj",
  endpoints: gcpEndpointsAt(fx.server.origin),
  checkId,
  row,
  now: NOW,
})

const snapshot = () => JSON.stringify(fx.world.projects.get("insecure-proj"))

async function failingRow(checkId: string) {
  const c = cases[checkId]!
  const scan = await fx.scan("insecure-proj", c.service, { checkIds: [checkId] })
  const row = rowOf(findingOf([scan], checkId), c.resource)
  expect(row.compliant, `${checkId} ${c.resource} should fail first`).toBe(false)
  return row
}

describe("GCP plan fixers: preview, apply, undo", () => {
  it("every planned fixer is previewable (and only those)", () => {
    const previewable = gcpRemediableChecks().filter((c) => c.previewable).map((c) => c.checkId).sort()
    expect(previewable).toEqual(Object.keys(cases).sort())
  })

  for (const checkId of Object.keys(cases)) {
    it(checkId, async () => {
      const row = await failingRow(checkId)
      const before = snapshot()
      const writes = fx.world.writes.length
      const preview = await previewGcpFinding(input(checkId, row))
      expect(snapshot()).toBe(before)
      expect(fx.world.writes.length).toBe(writes)
      expect(preview.calls.length).toBeGreaterThan(0)
      expect(preview.reversible).toBe(true)
      expect(preview.cli).toMatch(/^gcloud /)
      expect(preview.terraform).toMatch(/^# In the existing google_/)
      expect(preview.permissions.map((p) => p.action).every((a) => /^(storage|cloudsql|cloudkms)\./.test(a))).toBe(true)

      const result = await remediateGcpFinding(input(checkId, row))
      expect(result.status, result.message).toBe("remediated")
      expect(result.pre_image).toEqual(preview.state)
      // The apply sent exactly the previewed calls.
      expect(fx.world.writes.slice(writes).map((w) => w.body)).toEqual(preview.calls.map((c) => (c.params as { body: unknown }).body))
      expect(diffStates(result.pre_image, result.post_image).length).toBeGreaterThan(0)

      const undone = await undoGcpFinding({ ...input(checkId, row), plan: result.plan!, outputs: result.outputs ?? [], preImage: result.pre_image!, postImage: result.post_image!, force: false })
      expect(undone.status, undone.message).toBe("undone")
      expect(diffStates(result.pre_image, await readGcpFixedState(input(checkId, row)))).toEqual([])
      // The check fails again after the undo.
      await failingRow(checkId)
    })
  }

  it("renders the documented gcloud commands for the fix and its undo", async () => {
    const row = await failingRow("storage_bucket_uniform_access")
    const preview = await previewGcpFinding(input("storage_bucket_uniform_access", row))
    expect(preview.cli).toBe("gcloud storage buckets update gs://insecure-logs --uniform-bucket-level-access")
    expect(preview.undo_calls.map((c) => c.cli)).toEqual(["gcloud storage buckets update gs://insecure-logs --no-uniform-bucket-level-access"])
    expect(preview.terraform).toContain("uniform_bucket_level_access = true")
  })

  it("a resource changed after the fix: undo is refused with the difference, and forced it restores", async () => {
    const checkId = "cloudsql_instance_deletion_protection"
    const row = await failingRow(checkId)
    const result = await remediateGcpFinding(input(checkId, row))
    expect(result.status, result.message).toBe("remediated")
    // Someone turns deletion protection off by hand.
    const p = fx.world.projects.get("insecure-proj")!
    const i = p.sqlInstances.findIndex((x) => x["name"] === "bad-postgres")
    p.sqlInstances[i] = { ...p.sqlInstances[i]!, settings: { ...(p.sqlInstances[i]!["settings"] as Json), deletionProtectionEnabled: false } }
    const before = snapshot()
    const undo = { ...input(checkId, row), plan: result.plan!, outputs: result.outputs ?? [], preImage: result.pre_image!, postImage: result.post_image! }
    const refused = await undoGcpFinding({ ...undo, force: false })
    expect(refused.status).toBe("conflict")
    expect(refused.differences).toEqual([{ path: "deletionProtectionEnabled", expected: true, actual: false }])
    expect(snapshot()).toBe(before)
    const forced = await undoGcpFinding({ ...undo, force: true })
    expect(forced.status).toBe("undone")
  })

  it("the fixers without a plan answer that they have no preview", async () => {
    const scan = await fx.scan("insecure-proj", "compute", { checkIds: ["compute_instance_serial_port_disabled"] })
    const row = rowOf(findingOf([scan], "compute_instance_serial_port_disabled"), "bad-vm")
    await expect(previewGcpFinding(input("compute_instance_serial_port_disabled", row))).rejects.toThrow("This check's fix has no preview or undo yet")
  })
})
