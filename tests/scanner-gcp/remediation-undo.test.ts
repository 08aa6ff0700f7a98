/**
 * GCP plan fixers (issue 32) on the fake Google Cloud: for every fixer (all are planned), the preview changes nothing
 * (the whole project state is identical before and after, no write was sent), the apply sends exactly the previewed
 * calls and is verified by re-reading, and the undo brings the resource back field by field; a resource changed after
 * the fix makes the undo refuse with the difference. The gcloud commands and Terraform are rendered from the planned
 * calls.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sqlFlagFixes } from "../../server/scanner/gcp/checks/sql.ts"
import { gcpEndpointsAt } from "../../server/scanner/gcp/endpoints.ts"
import { gcpRemediableChecks, previewGcpFinding, readGcpFixedState, remediateGcpFinding, undoGcpFinding } from "../../server/remediation/gcp/remediate.ts"
import { diffStates, resolveRefs, showRefs, type RestCall } from "../../server/remediation/plan.ts"
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

/** The failing resource of each check and, for the fixers whose writes are guarded by a fingerprint or an etag, the
 *  permissions of their calls (official IAM permission names). */
const cases: Record<string, { readonly service: string; readonly resource: string; readonly permissions?: ReadonlyArray<string> }> = {
  storage_bucket_uniform_access: { service: "storage", resource: "insecure-logs" },
  storage_bucket_not_public: { service: "storage", resource: "insecure-logs" },
  storage_bucket_versioning_enabled: { service: "storage", resource: "bad-unversioned" },
  storage_bucket_soft_delete_enabled: { service: "storage", resource: "insecure-logs" },
  kms_key_rotation_90_days: { service: "kms", resource: "projects/insecure-proj/locations/global/keyRings/main/cryptoKeys/bad-no-rotation" },
  cloudsql_automated_backups: { service: "cloudsql", resource: "bad-mysql" },
  cloudsql_instance_deletion_protection: { service: "cloudsql", resource: "bad-postgres" },
  cloudsql_instance_ssl_required: { service: "cloudsql", resource: "bad-mysql" },
  logging_cloud_asset_inventory_enabled: { service: "logging", resource: "insecure-proj", permissions: ["serviceusage.services.enable"] },
  vpc_lb_logging_enabled: { service: "vpc", resource: "bad-backend", permissions: ["compute.regionBackendServices.get", "compute.regionBackendServices.update"] },
  vpc_subnet_flow_logs_enabled: { service: "vpc", resource: "bad-subnet", permissions: ["compute.subnetworks.get", "compute.subnetworks.update"] },
  compute_instance_serial_port_disabled: { service: "compute", resource: "bad-vm", permissions: ["compute.instances.get", "compute.instances.setMetadata"] },
  secretmanager_secret_not_public: { service: "secretmanager", resource: "bad-api-token", permissions: ["secretmanager.secrets.getIamPolicy", "secretmanager.secrets.setIamPolicy"] },
  // 2nd gen, public through its Cloud Run service.
  cloudfunctions_function_not_public: { service: "cloudfunctions", resource: "bad-run-public-fn", permissions: ["run.services.getIamPolicy", "run.services.setIamPolicy"] },
  artifactregistry_repo_not_public: { service: "artifactregistry", resource: "bad-public-repo", permissions: ["artifactregistry.repositories.getIamPolicy", "artifactregistry.repositories.setIamPolicy"] },
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
  it("every fixer is planned and previewable, and every one is tested here", () => {
    expect(gcpRemediableChecks().every((c) => c.previewable)).toBe(true)
    expect(gcpRemediableChecks().map((c) => c.checkId).sort()).toEqual(Object.keys(cases).sort())
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
      expect(preview.noop).toBeNull()
      expect(preview.reversible).toBe(true)
      expect(preview.undo_calls.length).toBeGreaterThan(0)
      expect(preview.terraform).not.toContain("no Terraform is generated")
      const permissions = cases[checkId]!.permissions
      if (permissions === undefined) {
        expect(preview.cli).toMatch(/^gcloud /)
        expect(preview.terraform).toMatch(/^# In the existing google_/)
        expect(preview.permissions.map((p) => p.action).every((a) => /^(storage|cloudsql|cloudkms)\./.test(a))).toBe(true)
      } else {
        expect(preview.permissions.map((p) => p.action)).toEqual(permissions)
      }

      const result = await remediateGcpFinding(input(checkId, row))
      expect(result.status, result.message).toBe("remediated")
      expect(result.pre_image).toEqual(preview.state)
      // The apply sent exactly the previewed calls (a read's answer filled in where the preview shows a placeholder;
      // the fixture server addresses each API host under its origin).
      const planned = result.plan!.calls as ReadonlyArray<RestCall>
      expect(planned.map((c) => ({ method: c.method, url: c.url, body: showRefs(c.body) ?? null }))).toEqual(preview.calls.map((c) => c.params))
      expect(fx.world.writes.slice(writes).map((w) => ({ method: w.method, path: `/${w.host}${w.path}`, body: w.body }))).toEqual(
        planned.filter((c) => c.method !== "GET").map((c) => ({ method: c.method, path: new URL(c.url).pathname, body: resolveRefs(c.body, result.outputs ?? []) })),
      )
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

  it("renders the gcloud commands and Terraform of the compute and Service Usage fixes and of their undo", async () => {
    const lb = await previewGcpFinding(input("vpc_lb_logging_enabled", await failingRow("vpc_lb_logging_enabled")))
    expect(lb.calls.map((c) => c.cli)).toEqual([
      "gcloud compute backend-services describe bad-backend --region=us-central1 --project=insecure-proj --format='value(fingerprint)'",
      "gcloud compute backend-services update bad-backend --region=us-central1 --project=insecure-proj --enable-logging --logging-sample-rate=1",
    ])
    // The write sends the fingerprint its read answers.
    expect(lb.calls[1]!.params).toMatchObject({ body: { logConfig: { enable: true, sampleRate: 1 }, fingerprint: "<fingerprint answered by step 1>" } })
    expect(lb.undo_calls[1]!.cli).toBe("gcloud compute backend-services update bad-backend --region=us-central1 --project=insecure-proj --no-enable-logging")
    expect(lb.terraform).toContain('resource "google_compute_region_backend_service" "bad_backend" {')
    expect(lb.terraform).toContain("sample_rate = 1")

    const subnet = await previewGcpFinding(input("vpc_subnet_flow_logs_enabled", await failingRow("vpc_subnet_flow_logs_enabled")))
    expect(subnet.calls[1]!.cli).toBe(
      "gcloud compute networks subnets update bad-subnet --region=us-central1 --project=insecure-proj --enable-flow-logs --logging-aggregation-interval=interval-5-sec --logging-flow-sampling=1 --logging-metadata=include-all",
    )
    expect(subnet.undo_calls[1]!.cli).toBe("gcloud compute networks subnets update bad-subnet --region=us-central1 --project=insecure-proj --no-enable-flow-logs")
    expect(subnet.terraform).toContain('metadata             = "INCLUDE_ALL_METADATA"')

    const vm = await previewGcpFinding(input("compute_instance_serial_port_disabled", await failingRow("compute_instance_serial_port_disabled")))
    expect(vm.calls[1]!.cli).toBe("gcloud compute instances add-metadata bad-vm --zone=us-central1-a --project=insecure-proj --metadata=serial-port-enable=false")
    expect(vm.undo_calls[1]!.cli).toBe("gcloud compute instances remove-metadata bad-vm --zone=us-central1-a --project=insecure-proj --keys=serial-port-enable")
    expect(vm.effects).toEqual(["setMetadata replaces the VM's whole metadata list: its other items (startup-script) are sent back unchanged."])
    expect(vm.state).toEqual({ items: [{ key: "startup-script", value: "#!/bin/sh" }] })

    const asset = await previewGcpFinding(input("logging_cloud_asset_inventory_enabled", await failingRow("logging_cloud_asset_inventory_enabled")))
    expect(asset.cli).toBe("gcloud services enable cloudasset.googleapis.com --project=insecure-proj")
    expect(asset.undo_calls.map((c) => c.cli)).toEqual(["gcloud services disable cloudasset.googleapis.com --project=insecure-proj"])
    expect(asset.terraform).toBe('resource "google_project_service" "cloudasset" {\n  project = "insecure-proj"\n  service = "cloudasset.googleapis.com"\n}')
  })

  it("renders an IAM policy write as the resource's authoritative Terraform policy; its undo puts the public member back", async () => {
    const preview = await previewGcpFinding(input("secretmanager_secret_not_public", await failingRow("secretmanager_secret_not_public")))
    expect(preview.effects).toEqual(["allAuthenticatedUsers loses roles/secretmanager.secretAccessor on secret bad-api-token."])
    expect(preview.cuts_access).toContain("public grant")
    expect(preview.cli).toMatch(/^curl -X GET .*\/secrets\/bad-api-token:getIamPolicy/)
    expect(preview.terraform).toContain('resource "google_secret_manager_secret_iam_policy" "bad_api_token" {')
    expect(preview.terraform).toContain('  secret_id = "bad-api-token"')
    expect(preview.terraform).toContain('members = ["serviceAccount:reader@insecure-proj.iam.gserviceaccount.com"]')
    expect(preview.undo_calls[1]!.params).toMatchObject({
      body: { policy: { version: 1, bindings: [{ role: "roles/secretmanager.secretAccessor", members: ["allAuthenticatedUsers", "serviceAccount:reader@insecure-proj.iam.gserviceaccount.com"] }], etag: "<etag answered by undo step 1>" } },
    })
  })

  it("a function public on its own IAM policy (no Cloud Run service): the fix and its undo write the function's policy", async () => {
    const checkId = "cloudfunctions_function_not_public"
    const scan = await fx.scan("insecure-proj", "cloudfunctions", { checkIds: [checkId] })
    const row = rowOf(findingOf([scan], checkId), "bad-public-fn")
    expect(row.compliant).toBe(false)
    const fn = fx.world.projects.get("insecure-proj")!.functions!.find((x) => String(x.fn["name"]).endsWith("/bad-public-fn"))!
    const original = JSON.stringify(fn.policy["bindings"])
    const preview = await previewGcpFinding(input(checkId, row))
    expect(preview.permissions.map((p) => p.action)).toEqual(["cloudfunctions.functions.getIamPolicy", "cloudfunctions.functions.setIamPolicy"])
    expect(preview.effects).toEqual(["allUsers loses roles/cloudfunctions.invoker on function bad-public-fn."])
    expect(preview.terraform).toContain('resource "google_cloudfunctions2_function_iam_policy" "bad_public_fn" {')
    const result = await remediateGcpFinding(input(checkId, row))
    expect(result.status, result.message).toBe("remediated")
    expect(fn.policy["bindings"]).toEqual([])
    const undone = await undoGcpFinding({ ...input(checkId, row), plan: result.plan!, outputs: result.outputs ?? [], preImage: result.pre_image!, postImage: result.post_image!, force: false })
    expect(undone.status, undone.message).toBe("undone")
    expect(JSON.stringify(fn.policy["bindings"])).toBe(original)
  })

  it("an IAM policy changed between the fix's read of the etag and its write: the write is refused and nothing is overwritten", async () => {
    const checkId = "artifactregistry_repo_not_public"
    const row = await failingRow(checkId)
    const before = snapshot()
    const repo = fx.world.projects.get("insecure-proj")!.repositories!.find((x) => String(x.repo["name"]).endsWith("/bad-public-repo"))!
    let reads = 0
    // The state read sees the current policy; the fix's own read of the etag sees the one another writer set since.
    fx.server.fault({ host: "artifactregistry.googleapis.com", method: "GET", path: /bad-public-repo:getIamPolicy$/, times: 2, reply: () => ({ body: { version: 1, ...repo.policy, etag: ++reads === 1 ? "BwX=" : "BwOther=" } }) })
    const result = await remediateGcpFinding(input(checkId, row))
    expect(result.status).toBe("failed")
    expect(result.message).toContain("concurrent policy changes")
    expect(snapshot()).toBe(before)
  })

  const secretOf = () => fx.world.projects.get("insecure-proj")!.secrets!.find((x) => String(x.secret["name"]).endsWith("/bad-api-token"))!
  const vmOf = () => fx.world.projects.get("insecure-proj")!.instances.find((x) => x.item["name"] === "bad-vm")!
  const conflicts: ReadonlyArray<{ readonly checkId: string; readonly what: string; readonly change: () => void; readonly differences: unknown; readonly raw: () => unknown }> = [
    {
      checkId: "secretmanager_secret_not_public",
      what: "a binding added to the secret's policy",
      change: () => {
        const s = secretOf()
        s.policy = { ...s.policy, bindings: [...(s.policy["bindings"] as Json[]), { role: "roles/secretmanager.viewer", members: ["user:eve@example.com"] }], etag: "BwEve=" }
      },
      differences: [{ path: "policies.0.bindings.1", actual: { role: "roles/secretmanager.viewer", members: ["user:eve@example.com"] } }],
      // The policy as getIamPolicy answers it, without its etag (a new one after every write).
      raw: () => {
        const policy: Json = { version: 1, ...secretOf().policy }
        const { etag: _e, ...rest } = policy
        return rest
      },
    },
    {
      checkId: "compute_instance_serial_port_disabled",
      what: "a metadata item added to the VM",
      change: () => {
        const m = vmOf().item["metadata"] as Json
        vmOf().item["metadata"] = { ...m, fingerprint: "m9=", items: [...(m["items"] as Json[]), { key: "enable-oslogin", value: "TRUE" }] }
      },
      differences: [{ path: "items.2", actual: { key: "enable-oslogin", value: "TRUE" } }],
      raw: () => (vmOf().item["metadata"] as Json)["items"],
    },
    {
      checkId: "logging_cloud_asset_inventory_enabled",
      what: "the Cloud Asset API disabled by hand",
      change: () => {
        fx.world.projects.get("insecure-proj")!.cloudAssetState = "DISABLED"
      },
      differences: [{ path: "state", expected: "ENABLED", actual: "DISABLED" }],
      raw: () => fx.world.projects.get("insecure-proj")!.cloudAssetState,
    },
  ]
  for (const c of conflicts) {
    it(`${c.checkId}: ${c.what} after the fix makes the undo refuse with the difference; forced, the undo restores the resource as it was`, async () => {
      const row = await failingRow(c.checkId)
      const original = JSON.stringify(c.raw())
      const result = await remediateGcpFinding(input(c.checkId, row))
      expect(result.status, result.message).toBe("remediated")
      c.change()
      const before = snapshot()
      const undo = { ...input(c.checkId, row), plan: result.plan!, outputs: result.outputs ?? [], preImage: result.pre_image!, postImage: result.post_image! }
      const refused = await undoGcpFinding({ ...undo, force: false })
      expect(refused.status).toBe("conflict")
      expect(refused.differences).toEqual(c.differences)
      expect(snapshot()).toBe(before)
      const forced = await undoGcpFinding({ ...undo, force: true })
      expect(forced.status, forced.message).toBe("undone")
      expect(JSON.stringify(c.raw())).toBe(original)
      await failingRow(c.checkId)
    })
  }
})
