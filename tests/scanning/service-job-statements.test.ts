/**
 * What one service job's completion sends to the database (issue 31: the fleet benchmark's worker spent a quarter of
 * its CPU writing statements, about 30 per service job): `completeService` writes a service's findings, their rows,
 * the service's counts and the scan's roll-up in a fixed number of statements, whatever the number of rows — and what
 * it writes is what the separate recount writes (server/posture/algebra.ts `recountServices`).
 */
import { Effect, Tracer } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ProviderIds } from "../../src/contracts/constants.ts"
import { inScope } from "../../server/auth/rls.ts"
import { recountServices } from "../../server/posture/algebra.ts"
import type { CheckResult } from "../../server/scanner/check.ts"
import { ensureServiceIds, servicesToScan } from "../../server/scanner/service-catalogue.ts"
import { claimService, completeService } from "../../server/scans/run-service.ts"
import { withSql } from "../support/db.ts"
import { addMotoAccount, startScanEnv, type Member, type ScanEnv } from "./support.ts"

let env: ScanEnv
let owner: Member
let accountId: number

beforeAll(async () => {
  env = await startScanEnv()
  owner = await env.workspace()
  accountId = (await addMotoAccount(env, owner)).id
  await withSql(env.server.databaseUrl, ensureServiceIds(ProviderIds.AWS, servicesToScan(ProviderIds.AWS)))
}, 300_000)
afterAll(async () => {
  await env?.stop()
})

/** Runs `effect` on the test database, counting the SQL statements it sends (the statements' client spans). */
const counted = async <A>(effect: Effect.Effect<A, unknown, SqlClient.SqlClient>): Promise<{ result: A; statements: number }> => {
  let statements = 0
  const tracer = Tracer.make({
    span(options) {
      if (options.kind === "client") statements++
      return Tracer.nativeTracer.span(options)
    },
  })
  const result = await withSql(env.server.databaseUrl, effect.pipe(Effect.withTracer(tracer)))
  return { result, statements }
}

/** A running scan of the account with one running row per service key. */
const fabricateScan = (keys: ReadonlyArray<string>) =>
  env.sql((q) =>
    Effect.gen(function* () {
      const [scan] = yield* q<{ id: number }>`
        INSERT INTO scans (workspace_id, account_id, cloud_provider_id, status, total_services, created_by)
        VALUES (${owner.workspaceId}, ${accountId}, 1, 'running', ${keys.length}, ${owner.userId}) RETURNING id`
      const services: Array<{ id: number; serviceId: number }> = []
      for (const key of keys) {
        const [row] = yield* q<{ id: number; service_id: number }>`
          INSERT INTO scan_services (workspace_id, scan_id, service_id, status, started_at, heartbeat_at)
          SELECT ${owner.workspaceId}, ${scan!.id}, id, 'running', now(), now() FROM cloud_services WHERE key = ${key}
          RETURNING id, service_id`
        services.push({ id: row!.id, serviceId: row!.service_id })
      }
      return { scanId: scan!.id, services }
    }),
  )

/** `checks` checks of `rows` resources each; every third resource fails, the last check is not evaluated. */
const results = (prefix: string, checks: number, rows: number): Array<CheckResult> =>
  Array.from({ length: checks }, (_, c) => {
    const notEvaluated = c === checks - 1
    const details = notEvaluated
      ? []
      : Array.from({ length: rows }, (_, i) => ({ resource_id: `${prefix}-res-${i}`, region: i % 2 === 0 ? "us-east-1" : "eu-west-1", compliant: i % 3 !== 0, reason: i % 3 !== 0 ? "closed" : "open", n: i }))
    return {
      check_id: `${prefix}_check_${c}`,
      service: "s3",
      title: `check ${c}`,
      policy_check: `check ${c}`,
      description: "a check",
      severity: "high",
      cis: {},
      remediation: "fix it",
      status: notEvaluated ? "not_evaluated" : details.some((d) => !d.compliant) ? "fail" : "pass",
      ...(notEvaluated ? { not_evaluated_reason: "unreadable" } : {}),
      field_labels: { resource_id: "Resource" },
      details,
      errors: [],
    } as CheckResult
  })

const serviceRow = (id: number) =>
  env.sql((q) => q<Record<string, unknown>>`
    SELECT status, findings_count, failed_findings, muted_findings, passed_findings, new_failing, fixed, resources_scanned, api_calls
    FROM scan_services WHERE id = ${id}`).then((r) => r[0]!)

const scanRow = (id: number) =>
  env.sql((q) => q<{ status: string; regions: ReadonlyArray<string> | null; previous_scan_id: number | null; completed_services: number; findings_count: number }>`
    SELECT status, regions, previous_scan_id, completed_services, findings_count FROM scans WHERE id = ${id}`).then((r) => r[0]!)

/** The service's counts as the separate recount writes them: recounted, they must not change. */
const recounted = async (scanId: number, serviceId: number, id: number) => {
  await withSql(env.server.databaseUrl, inScope({ workspaceId: owner.workspaceId })(recountServices(owner.workspaceId, [{ scan_id: scanId, service_id: serviceId }], { scans: false })))
  return serviceRow(id)
}

const payload = (scanId: number, id: number) => ({ workspace_id: owner.workspaceId, scan_id: scanId, scan_service_id: id })

describe("a service job's claim", () => {
  it("locks, reads and marks the service (and a pending scan) running in one statement; a finished one is not claimed", async () => {
    const scan = await fabricateScan(["s3", "iam"])
    await env.sql((q) => q`UPDATE scans SET status = 'pending' WHERE id = ${scan.scanId}`)
    await env.sql((q) => q`UPDATE scan_services SET status = 'pending', started_at = NULL WHERE scan_id = ${scan.scanId}`)
    const [first, second] = scan.services
    const claim = (id: number, job: string) => counted(inScope({ workspaceId: owner.workspaceId })(claimService(payload(scan.scanId, id), job)))
    // Besides BEGIN and COMMIT: the scope and the claim (3 before: a locking read, then the updates).
    const a = await claim(first!.id, "job-a")
    expect(a.statements).toBe(2)
    expect(a.result).toMatchObject({ serviceKey: "s3", accountId })
    const rows = () => env.sql((q) => q<{ id: number; status: string; attempts: number; job_id: string | null; started: boolean }>`
      SELECT id, status, attempts, job_id, started_at IS NOT NULL AS started FROM scan_services WHERE scan_id = ${scan.scanId} ORDER BY id`)
    expect(await rows()).toEqual([
      { id: first!.id, status: "running", attempts: 1, job_id: "job-a", started: true },
      { id: second!.id, status: "pending", attempts: 0, job_id: null, started: false },
    ])
    expect((await scanRow(scan.scanId)).status).toBe("running")
    // A second attempt of a running service claims it again (pg-boss's retry), counting the attempt; its transaction
    // commits without waiting for the WAL flush (pg-boss's synchronous completion of the job flushes it), that one only.
    const setting = SqlClient.SqlClient.pipe(Effect.flatMap((q) => q<{ s: string }>`SELECT current_setting('synchronous_commit') AS s`), Effect.map((r) => r[0]!.s))
    const inClaim = await withSql(env.server.databaseUrl, inScope({ workspaceId: owner.workspaceId })(
      claimService(payload(scan.scanId, first!.id), "job-b").pipe(Effect.andThen(setting))))
    expect({ inClaim, after: await withSql(env.server.databaseUrl, setting) }).toEqual({ inClaim: "off", after: "on" })
    expect((await rows())[0]).toMatchObject({ attempts: 2, job_id: "job-b" })
    // A completed service, or any service of a finished (failed or canceled) scan, is not claimed and nothing changes.
    await env.sql((q) => q`UPDATE scan_services SET status = 'completed' WHERE id = ${first!.id}`)
    expect((await claim(first!.id, "job-c")).result).toBeUndefined()
    await env.sql((q) => q`UPDATE scans SET status = 'failed' WHERE id = ${scan.scanId}`)
    expect((await claim(second!.id, "job-d")).result).toBeUndefined()
    expect(await rows()).toEqual([
      { id: first!.id, status: "completed", attempts: 2, job_id: "job-b", started: true },
      { id: second!.id, status: "pending", attempts: 0, job_id: null, started: false },
    ])
    expect((await scanRow(scan.scanId)).status).toBe("failed")
  }, 60_000)
})

describe("a service job's completion", () => {
  it("writes N results in the same number of statements whatever N, the counts the recount writes, once", async () => {
    const first = await fabricateScan(["s3", "iam", "kms"])
    const [small, large, empty] = first.services
    // Besides BEGIN and COMMIT: scope, scan + service locks (with the mute rule check), the previous scan's failing
    // rows, streams, open versions, findings, versions, streams' positions, inventory, the service's completion (with
    // its counts and the scan's regions), the scan's roll-up: 11 (16 before issue 31's batching), for 120 rows or 3,600.
    const a = await counted(completeService(payload(first.scanId, small!.id), { findings: results("a", 4, 30), resourcesScanned: 30, apiCalls: 5, regions: ["eu-west-1", "us-east-1"], errors: [] }))
    expect(a.result).toBe(true)
    const b = await counted(completeService(payload(first.scanId, large!.id), { findings: results("b", 4, 900), resourcesScanned: 900, apiCalls: 50, regions: ["us-east-1"], errors: [] }))
    expect(b.result).toBe(true)
    expect({ small: a.statements, large: b.statements }).toEqual({ small: 11, large: 11 })
    // A service with no finding writes no rows; being the scan's last, its roll-up completes the scan, which reads
    // the integrations to tell and publishes the scan's completion (16 before).
    const c = await counted(completeService(payload(first.scanId, empty!.id), { findings: [], resourcesScanned: 0, apiCalls: 1, regions: ["ap-south-1"], errors: [] }))
    expect(c.result).toBe(true)
    expect(c.statements).toBe(12)

    // What one statement wrote is what the recount writes.
    for (const s of first.services) {
      const written = await serviceRow(s.id)
      expect(written.status).toBe("completed")
      expect(await recounted(first.scanId, s.serviceId, s.id)).toEqual(written)
    }
    expect(await serviceRow(large!.id)).toMatchObject({ findings_count: 4, failed_findings: 3, passed_findings: 0, muted_findings: 0, resources_scanned: 900, api_calls: 50 })
    // The first service to report the regions wrote them; the scan completed with every service.
    expect(await scanRow(first.scanId)).toMatchObject({ status: "completed", regions: ["eu-west-1", "us-east-1"], previous_scan_id: null, completed_services: 3, findings_count: 8 })

    // A re-delivered job writes nothing (the service is completed), in two statements besides the transaction's own.
    const again = await counted(completeService(payload(first.scanId, small!.id), { findings: results("a", 4, 30), resourcesScanned: 30, apiCalls: 5 }))
    expect(again.result).toBe(false)
    expect(again.statements).toBe(2)

    // The next scan of the account: compared with the first (previous_scan_id written with the first completion),
    // rows that changed are new or fixed, the counts still the recount's.
    const second = await fabricateScan(["s3", "iam"])
    const next = results("a", 4, 30).map((r, c) => (c === 0 ? { ...r, details: r.details.map((d: any) => ({ ...d, compliant: !d.compliant })) } : r))
    const d = await counted(completeService(payload(second.scanId, second.services[0]!.id), { findings: next, resourcesScanned: 30, apiCalls: 5 }))
    expect(d.result).toBe(true)
    // 11 + the versions it closes and the new/fixed marks (19 before).
    expect(d.statements).toBe(13)
    const changed = await serviceRow(second.services[0]!.id)
    expect(changed).toMatchObject({ new_failing: 20, fixed: 10 })
    expect(await recounted(second.scanId, second.services[0]!.serviceId, second.services[0]!.id)).toEqual(changed)
    expect(await scanRow(second.scanId)).toMatchObject({ status: "running", previous_scan_id: first.scanId, regions: null })
  }, 120_000)
})
