/**
 * GCP test harness: a fixture server with the fake Google Cloud, a scanner service account allowed to read every
 * project, and scan/lookup helpers that fail loudly with the actual rows when a case is missing.
 */
import { expect } from "vitest"
import type { DetailRow } from "../../server/scanner/check.ts"
import type { RestCheckResult } from "../../server/scanner/rest/engine.ts"
import { gcpEndpointsAt } from "../../server/scanner/gcp/endpoints.ts"
import { scanGcpService, type GcpScanInput, type GcpScanResult } from "../../server/scanner/gcp/scan-service.ts"
import { startCloudFixtureServer, type CloudFixtureServer } from "../support/cloud-fixture-server.ts"
import { NOW } from "./gcp-fixtures.ts"
import { addServiceAccount, installGcpWorld, newGcpWorld, type GcpProjectState, type GcpWorld, type TestServiceAccount } from "./gcp-world.ts"

export interface GcpFixture {
  readonly server: CloudFixtureServer
  readonly world: GcpWorld
  readonly scanner: TestServiceAccount
  scan(projectId: string, service: string, options?: Partial<GcpScanInput>): Promise<GcpScanResult>
  close(): Promise<void>
}

export async function startGcpFixture(projects: ReadonlyArray<GcpProjectState>, pageSize = 2): Promise<GcpFixture> {
  const server = await startCloudFixtureServer()
  const world = newGcpWorld(pageSize)
  installGcpWorld(server, world)
  for (const p of projects) world.projects.set(p.projectId, p)
  const scanner = addServiceAccount(world, server, "scanner@audit-proj.iam.gserviceaccount.com")
  return {
    server,
    world,
    scanner,
    scan: async (projectId, service, options = {}) => {
      const result = await scanGcpService({
        credentials: { serviceAccountKey: scanner.keyJson },
        projectId,
        service,
        endpoints: gcpEndpointsAt(server.origin),
        now: NOW,
        maxAttempts: 3,
        maxRetryDelayMs: 2_000,
        ...options,
      })
      assertLabelled(result.findings)
      return result
    },
    close: () => server.close(),
  }
}

/** Every field of every detail row must have a label: the finding view shows labels, never raw keys. */
export function assertLabelled(findings: ReadonlyArray<RestCheckResult>): void {
  for (const f of findings) for (const r of f.details) for (const key of Object.keys(r)) if (f.field_labels[key] === undefined) throw new Error(`${f.check_id}: row field "${key}" has no label`)
}

export function findingOf(results: ReadonlyArray<{ readonly findings: ReadonlyArray<RestCheckResult> }>, checkId: string): RestCheckResult {
  for (const r of results) {
    const f = r.findings.find((x) => x.check_id === checkId)
    if (f !== undefined) return f
  }
  throw new Error(`No finding for ${checkId}`)
}

export function rowOf(finding: RestCheckResult, resourceId: string): DetailRow {
  const r = finding.details.find((d) => d.resource_id === resourceId)
  if (r === undefined) throw new Error(`${finding.check_id}: no row for ${resourceId}; rows: ${JSON.stringify(finding.details.map((d) => [d.resource_id, d.compliant, d.reason]))}; errors: ${JSON.stringify(finding.errors)}`)
  return r
}

/** Asserts the compliant and non-compliant rows of a check by resource id. */
export function expectRows(finding: RestCheckResult, cases: { readonly compliant?: ReadonlyArray<string>; readonly nonCompliant?: ReadonlyArray<string> }): void {
  for (const id of cases.compliant ?? []) {
    const r = rowOf(finding, id)
    expect(r.compliant, `${finding.check_id} ${id}: ${r.reason}`).toBe(true)
  }
  for (const id of cases.nonCompliant ?? []) {
    const r = rowOf(finding, id)
    expect(r.compliant, `${finding.check_id} ${id}: ${r.reason}`).toBe(false)
  }
}
