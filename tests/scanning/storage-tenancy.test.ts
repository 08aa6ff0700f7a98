/**
 * Tenancy of the result storage (issue 30; server/db/migrations/0020_storage_by_change.ts): row-level security holds
 * on every new table, on the `results` view (security_invoker) and through the page functions. In one workspace's
 * scope the other workspace's streams, versions, marks and rows are invisible, the functions answer nothing for its
 * findings, and writes into it are refused; without a scope nothing is visible.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { inScope } from "../../server/auth/rls.ts"
import type { FindingDraft } from "../../server/scans/finding-rows.ts"
import { writeFindings } from "../../server/scans/results.ts"
import { makeTestDatabase, migrateTestDatabase, withSql, type TestDatabase } from "../support/db.ts"
import { seedScanRows, type ScanRows } from "../support/scan-rows.ts"

let db: TestDatabase
let a: ScanRows
let b: ScanRows

const draft = (prefix: string): FindingDraft => ({
  check_id: "tenancy_check", severity: "high", status: "fail", not_evaluated_reason: null, title: "t", description: "d",
  policy_check: "p", remediation: "r", field_labels: {}, compliance: [],
  details: [
    { resource_id: `${prefix}-1`, region: "us-east-1", compliance: false, reason: "bad" },
    { resource_id: `${prefix}-2`, region: "us-east-1", compliance: true, reason: "ok" },
  ],
})

const write = (s: ScanRows, prefix: string, cloudAccountId: string) =>
  withSql(db.url, inScope({ workspaceId: s.workspaceId })(Effect.gen(function* () {
    yield* writeFindings({
      workspaceId: s.workspaceId, scanId: s.scanId, scanServiceId: s.scanServiceId, serviceId: s.serviceId, serviceKey: `${prefix}svc`,
      accountId: s.accountId, cloudAccountId, cloudProviderId: 1,
    }, [draft(prefix)])
    const sql = yield* SqlClient.SqlClient
    // A mark, so result_marks holds a row of each workspace.
    yield* sql`UPDATE results SET remediate = '{"status":"failed"}'::jsonb WHERE scan_id = ${s.scanId} AND rank = 0`
  })))

beforeAll(async () => {
  db = await makeTestDatabase()
  await migrateTestDatabase(db.url)
  a = await withSql(db.url, seedScanRows({ name: "TenantA", serviceKey: "asvc", cloudAccountId: "111111111111", scanStatus: "completed" }))
  b = await withSql(db.url, seedScanRows({ name: "TenantB", serviceKey: "bsvc", cloudAccountId: "222222222222", scanStatus: "completed" }))
  await write(a, "a", "111111111111")
  await write(b, "b", "222222222222")
}, 120_000)

afterAll(async () => {
  await db?.close()
})

const TABLES = ["result_streams", "result_rows", "result_marks", "results"] as const

describe("result storage tenancy", () => {
  it("a workspace's scope sees its own streams, versions, marks and rows only", async () => {
    const counts = (scope: Parameters<typeof inScope>[0]) =>
      withSql(db.url, inScope(scope)(Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const out: Record<string, number> = {}
        for (const t of TABLES) {
          out[t] = (yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql(t)}`)[0]!.n
          out[`${t}:other`] = (yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql(t)} WHERE workspace_id <> ${scope.workspaceId ?? -1}`)[0]!.n
        }
        return out
      })))
    const mine = await counts({ workspaceId: a.workspaceId })
    expect(mine).toEqual({
      result_streams: 1, "result_streams:other": 0,
      result_rows: 2, "result_rows:other": 0,
      result_marks: 1, "result_marks:other": 0,
      results: 2, "results:other": 0,
    })
    const none = await counts({})
    expect(Object.values(none).every((n) => n === 0)).toBe(true)
  })

  it("the page functions answer nothing for another workspace's finding", async () => {
    // B's finding and stream, as the test's superuser connection sees them.
    const other = await withSql(db.url, Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ id: number; stream_id: number }>`SELECT id, stream_id FROM findings WHERE workspace_id = ${b.workspaceId}`))
    const f = other[0]!
    const rows = await withSql(db.url, inScope({ workspaceId: a.workspaceId })(Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      return {
        positions: yield* sql`SELECT * FROM result_page_positions(${b.workspaceId}, ${f.stream_id}, ${f.id}, 0, -1, 0, 50)`,
        rows: yield* sql`SELECT * FROM result_rows_at(${b.workspaceId}, ${f.id}, ARRAY[0, 1]::int[], ARRAY[0, 1]::int[])`,
        own: yield* sql`SELECT * FROM result_rows_at(${a.workspaceId}, ${f.id}, ARRAY[0, 1]::int[], ARRAY[0, 1]::int[])`,
      }
    })))
    // The same calls in B's scope do answer (the functions work; the scope is what hides them).
    const inB = await withSql(db.url, inScope({ workspaceId: b.workspaceId })(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`SELECT * FROM result_page_positions(${b.workspaceId}, ${f.stream_id}, ${f.id}, 0, -1, 0, 50)`)))
    expect(inB).toHaveLength(2)
    expect(rows.positions).toEqual([])
    expect(rows.rows).toEqual([])
    expect(rows.own).toEqual([])
  })

  it("refuses writes into another workspace", async () => {
    const attempt = (statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
      withSql(db.url, inScope({ workspaceId: a.workspaceId })(Effect.flatMap(SqlClient.SqlClient, statement)).pipe(
        Effect.match({ onFailure: () => "refused", onSuccess: () => "written" }),
      ))
    expect(await attempt((sql) => sql`
      INSERT INTO result_rows (workspace_id, stream_id, pos, rank, from_finding, resource_id, resource_uid, region)
      VALUES (${b.workspaceId}, 999, 0, 0, 1, 'x', 'x', 'us-east-1')`)).toBe("refused")
    expect(await attempt((sql) => sql`
      INSERT INTO result_marks (workspace_id, finding_id, pos, muted_by) VALUES (${b.workspaceId}, 1, 0, 1)`)).toBe("refused")
    expect(await attempt((sql) => sql`
      INSERT INTO result_streams (workspace_id, account_id, check_id) VALUES (${b.workspaceId}, ${b.accountId}, 'x')`)).toBe("refused")
    // Updates of another workspace's rows touch nothing.
    const touched = await withSql(db.url, inScope({ workspaceId: a.workspaceId })(Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      return (yield* sql<{ n: number }>`WITH u AS (UPDATE result_rows SET to_finding = 1 WHERE workspace_id = ${b.workspaceId} RETURNING 1)
                                        SELECT count(*)::int AS n FROM u`)[0]!.n
    })))
    expect(touched).toBe(0)
  })
})
