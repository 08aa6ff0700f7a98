/**
 * Retention (issue 30; server/scans/retention.ts), property-tested on a real database (PGlite, and PostgreSQL when
 * TEST_DATABASE_URL is set): random histories of two accounts — rows churning, resources appearing and disappearing, a
 * check not run, failed scans, a compliance report on an old scan — written through the real writer, with retention
 * applied at random points with random settings. After every run:
 *   - every kept scan answers exactly what it answered right after it was written (every finding, every detail page);
 *   - the latest completed scan of each account and every scan a report references are kept;
 *   - the run expired exactly the plan, and the figures' `frees` were what it removed (scans, results, rows);
 *   - nothing is left over: no version covering no finding, no mark or remediation of a missing finding, no empty
 *     stream; another workspace's scans are untouched; applying again finds nothing to expire.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { inScope } from "../../server/auth/rls.ts"
import { applyRetention, retentionPlan, saveRetention, storageFigures } from "../../server/scans/retention.ts"
import type { RetentionSetting } from "../../src/contracts/storage.ts"
import { makeTestDatabase, migrateTestDatabase, withSql, type TestDatabase } from "../support/db.ts"
import { seedScanRows, type ScanRows } from "../support/scan-rows.ts"
import { CHECKS, orphans, readScan, seedWorkspace, writeScan, type RowState } from "./support.ts"

const kinds: ReadonlyArray<"pglite" | "postgres"> = process.env["TEST_DATABASE_URL"] ? ["pglite", "postgres"] : ["pglite"]
const RESOURCES = 5

type Step =
  | { readonly kind: "scan"; readonly account: number; readonly a: ReadonlyArray<RowState>; readonly b: ReadonlyArray<RowState> | null; readonly failed: boolean }
  | { readonly kind: "report"; readonly account: number }
  | { readonly kind: "apply"; readonly setting: RetentionSetting }

const states = fc.array(fc.constantFrom<RowState>("absent", "pass", "fail", "pass2", "fail2"), { minLength: RESOURCES, maxLength: RESOURCES })
const setting = fc.record({
  keep_days: fc.option(fc.integer({ min: 1, max: 40 }), { nil: null }),
  keep_scans: fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }),
})
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("scan" as const), account: fc.integer({ min: 0, max: 1 }), a: states, b: fc.option(states, { nil: null }), failed: fc.integer({ min: 0, max: 9 }).map((x) => x < 2) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("report" as const), account: fc.integer({ min: 0, max: 1 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("apply" as const), setting }) },
)

describe.each(kinds)("retention on %s (property)", (kind) => {
  let db: TestDatabase
  let base: ScanRows
  let run = 0
  let otherScans = 0
  const totals = { expired: 0, versions: 0, streams: 0 }
  const sqlRun = <A>(effect: Effect.Effect<A, unknown, SqlClient.SqlClient>) => withSql(db.url, effect)

  beforeAll(async () => {
    db = await makeTestDatabase({ kind })
    await migrateTestDatabase(db.url)
    base = await sqlRun(seedScanRows({ name: `Retention${kind}`, serviceKey: "retsvc", cloudAccountId: "000000000000", scanStatus: "completed" }))
    // Another workspace with old scans and an aggressive setting of its own, never applied: its scans must stay.
    await sqlRun(Effect.gen(function* () {
      const other = yield* seedWorkspace(base.userId, "Other", 1)
      for (let i = 0; i < 3; i++) yield* writeScan(other.workspaceId, other.accountIds[0]!, base.serviceId, { [CHECKS[0]]: ["fail", "pass", "absent", "fail2", "pass"] }, 90 - i)
      yield* inScope({ workspaceId: other.workspaceId })(saveRetention({ workspaceId: other.workspaceId, userId: base.userId }, { keep_days: 1, keep_scans: 1 }))
      otherScans = other.workspaceId
    }))
  }, 180_000)

  afterAll(async () => {
    await db?.close()
  })

  const countScans = (workspaceId: number) =>
    sqlRun(inScope({ workspaceId })(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM scans WHERE workspace_id = ${workspaceId}`)))

  it("keeps every kept scan's answers, the anchors and the referenced scans, frees what it said, and leaves no orphan", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 10 }), async (steps) => {
        const n = run++
        const { workspaceId, accountIds } = await sqlRun(seedWorkspace(base.userId, `ret ${kind} ${n}`, 2))
        const snapshots = new Map<number, unknown>()
        const latest = new Map<number, number>()
        const referenced = new Set<number>()
        const completed: Array<Array<number>> = [[], []]
        let scans = 0
        const apply = async (s: RetentionSetting) => {
          const before = await sqlRun(inScope({ workspaceId })(Effect.gen(function* () {
            yield* saveRetention({ workspaceId, userId: base.userId }, s)
            return { figures: yield* storageFigures(workspaceId, s), plan: yield* retentionPlan(workspaceId, s) }
          })))
          const result = await sqlRun(applyRetention(workspaceId))
          totals.expired += result.expired.length
          totals.versions += result.versions
          totals.streams += result.streams
          expect([...result.expired].sort((x, y) => x - y)).toEqual(before.plan.map((p) => p.scan_id).sort((x, y) => x - y))
          expect(result.skipped).toEqual([])
          const after = await sqlRun(inScope({ workspaceId })(Effect.gen(function* () {
            return { figures: yield* storageFigures(workspaceId, s), plan: yield* retentionPlan(workspaceId, s) }
          })))
          expect(after.plan).toEqual([])
          const b = before.figures
          expect({ scans: after.figures.used.scans, results: after.figures.used.results, rows: after.figures.used.rows }).toEqual({
            scans: b.used.scans - b.frees.scans, results: b.used.results - b.frees.results, rows: b.used.rows - b.frees.rows,
          })
          expect(after.figures.frees).toEqual({ scans: 0, results: 0, rows: 0, bytes: 0 })
          expect(after.figures.retention_applied_at).not.toBeNull()
          const left = new Set((await sqlRun(inScope({ workspaceId })(Effect.flatMap(SqlClient.SqlClient, (sql) =>
            sql<{ id: number }>`SELECT id FROM scans WHERE workspace_id = ${workspaceId}`)))).map((r) => r.id))
          for (const id of latest.values()) expect(left.has(id), `latest completed scan ${id}`).toBe(true)
          for (const id of referenced) expect(left.has(id), `referenced scan ${id}`).toBe(true)
          for (const [id, snapshot] of snapshots) {
            if (!left.has(id)) continue
            expect(await sqlRun(readScan(workspaceId, id)), `scan ${id}`).toEqual(snapshot)
          }
          expect(await sqlRun(orphans(workspaceId))).toEqual({ versions: 0, marks: 0, remediations: 0, streams: 0, findings: 0 })
          expect((await countScans(otherScans))[0]!.n).toBe(3)
        }
        for (const s of steps) {
          if (s.kind === "scan") {
            const accountId = accountIds[s.account]!
            const checks = s.b === null ? { [CHECKS[0]]: s.a } : { [CHECKS[0]]: s.a, [CHECKS[1]]: s.b }
            const scanId = await sqlRun(writeScan(workspaceId, accountId, base.serviceId, checks, Math.max(0, 40 - 4 * scans++), s.failed))
            if (!s.failed) {
              latest.set(accountId, scanId)
              completed[s.account]!.push(scanId)
              // A finished remediation of a failing row: it goes with its finding.
              await sqlRun(inScope({ workspaceId })(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
                INSERT INTO remediations (workspace_id, finding_id, check_id, resource_id, region, status, result_seq)
                SELECT f.workspace_id, f.id, f.check_id, 'res-0', 'us-east-1', 'remediated', 0 FROM findings f
                WHERE f.workspace_id = ${workspaceId} AND f.scan_id = ${scanId} ORDER BY f.id LIMIT 1`)))
              snapshots.set(scanId, await sqlRun(readScan(workspaceId, scanId)))
            }
          } else if (s.kind === "report") {
            const oldest = completed[s.account]!.find((id) => !referenced.has(id))
            if (oldest === undefined) continue
            const exists = await sqlRun(inScope({ workspaceId })(Effect.flatMap(SqlClient.SqlClient, (sql) =>
              sql<{ id: number }>`SELECT id FROM scans WHERE workspace_id = ${workspaceId} AND id = ${oldest}`)))
            if (exists.length === 0) continue
            await sqlRun(inScope({ workspaceId })(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
              INSERT INTO compliance_reports (workspace_id, scan_id, framework_ids, status) VALUES (${workspaceId}, ${oldest}, ${["cis"]}::text[], 'completed')`)))
            referenced.add(oldest)
          } else {
            await apply(s.setting)
          }
        }
        await apply({ keep_days: 1, keep_scans: 1 })
      }),
      {
        numRuns: kind === "pglite" ? 12 : 20,
        // One history that surely empties a stream: check b is run once, then no more.
        examples: [[[
          { kind: "scan", account: 0, a: ["fail", "pass", "pass", "fail2", "absent"], b: ["pass", "fail", "absent", "pass2", "pass"], failed: false },
          { kind: "scan", account: 0, a: ["fail2", "pass", "pass", "fail2", "pass"], b: null, failed: false },
          { kind: "scan", account: 0, a: ["fail2", "pass2", "pass", "fail", "pass"], b: null, failed: false },
          { kind: "apply", setting: { keep_days: null, keep_scans: 1 } },
        ]]],
      },
    )
    // The histories did exercise it: scans expired, versions and streams collected.
    expect(totals.expired).toBeGreaterThan(0)
    expect(totals.versions).toBeGreaterThan(0)
    expect(totals.streams).toBeGreaterThan(0)
  }, 600_000)
})
