/**
 * Paging of a finding's result rows (server/scans/findings-store.ts), property-tested on a real database: for any rows
 * (non-compliant, compliant, without a flag), any page size and any status filter or search, reading every page once
 * yields every matching row exactly once, failing rows first and each group in the check's order, with the total the
 * pages announce — also while other findings of the scan are being written and rows of this one remediated between
 * two page reads. Rows are written by the real writer (server/scans/results.ts).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { DetailStatus } from "../../src/contracts/findings.ts"
import { inScope } from "../../server/auth/rls.ts"
import type { FindingDraft } from "../../server/scans/finding-rows.ts"
import { getFinding } from "../../server/scans/findings-store.ts"
import { writeFindings, type WriteTarget } from "../../server/scans/results.ts"
import { makeTestDatabase, migrateTestDatabase, withSql, type TestDatabase } from "../support/db.ts"
import { seedScanRows } from "../support/scan-rows.ts"

let db: TestDatabase
let target: WriteTarget
let run = 0

beforeAll(async () => {
  db = await makeTestDatabase()
  await migrateTestDatabase(db.url)
  const rows = await withSql(db.url, seedScanRows({ name: "Paging", serviceKey: "pagesvc", cloudAccountId: "111122223333", scanStatus: "running" }))
  target = {
    workspaceId: rows.workspaceId, scanId: rows.scanId, scanServiceId: rows.scanServiceId, serviceId: rows.serviceId,
    serviceKey: "pagesvc", accountId: rows.accountId, cloudAccountId: "111122223333", cloudProviderId: 1,
  }
}, 120_000)

afterAll(async () => {
  await db?.close()
})

type Flag = boolean | null
const draft = (checkId: string, flags: ReadonlyArray<Flag>): FindingDraft => ({
  check_id: checkId,
  severity: "medium",
  status: flags.some((f) => f === false) ? "fail" : "pass",
  not_evaluated_reason: null,
  title: "t",
  description: "d",
  policy_check: "p",
  remediation: "r",
  field_labels: {},
  details: flags.map((f, i) => ({
    resource_id: `res-${i % 3 === 0 ? "web" : "db"}-${i}`,
    region: "us-east-1",
    ...(f === null ? {} : { compliance: f }),
    reason: `row ${i}`,
  })),
  compliance: [],
})

const write = (checkId: string, flags: ReadonlyArray<Flag>) =>
  withSql(db.url, inScope({ workspaceId: target.workspaceId })(Effect.gen(function* () {
    yield* writeFindings(target, [draft(checkId, flags)])
    const sql = yield* SqlClient.SqlClient
    return (yield* sql<{ id: number }>`SELECT id FROM findings WHERE scan_id = ${target.scanId} AND check_id = ${checkId}`)[0]!.id
  })))

const page = (findingId: number, p: number, pageSize: number, status: DetailStatus | null, q: string | null) =>
  withSql(db.url, inScope({ workspaceId: target.workspaceId })(getFinding(target.workspaceId, findingId, { page: p, pageSize, status, q })))

const expectedOrder = (flags: ReadonlyArray<Flag>, status: DetailStatus | null, q: string | null, remediated: ReadonlySet<number>) => {
  const indexed = flags.map((f, i) => ({ f, id: `res-${i % 3 === 0 ? "web" : "db"}-${i}`, i }))
  const ordered = [...indexed.filter((r) => r.f === false), ...indexed.filter((r) => r.f !== false)]
  return ordered
    .filter((r) => status === null || (status === "fail" ? r.f === false : status === "pass" ? r.f !== false : r.f === false && remediated.has(r.i)))
    .filter((r) => q === null || r.id.toLowerCase().includes(q.toLowerCase()))
    .map((r) => r.id)
}

describe("finding detail paging (property)", () => {
  it("every matching row exactly once across pages, failing first, for any rows, page size and filter", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom<Flag>(true, false, null), { maxLength: 240 }),
        fc.integer({ min: 1, max: 60 }),
        fc.constantFrom<DetailStatus | null>(null, "fail", "pass", "remediated"),
        fc.constantFrom<string | null>(null, "WEB", "db-1", "nothing"),
        fc.boolean(),
        async (flags, pageSize, status, q, concurrent) => {
          const findingId = await write(`check-${run++}`, flags)
          // Every second failing row (in stored order) was remediated, as the remediation job records it.
          const failingIndexes = flags.flatMap((f, i) => (f === false ? [i] : []))
          const remediated = new Set(failingIndexes.filter((_, k) => k % 2 === 0))
          await withSql(db.url, inScope({ workspaceId: target.workspaceId })(Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            yield* sql`UPDATE results SET remediate = '{"status":"remediated"}'::jsonb
                       WHERE workspace_id = ${target.workspaceId} AND finding_id = ${findingId} AND seq < ${failingIndexes.length} AND seq % 2 = 0`
            yield* sql`UPDATE findings SET resources_remediated = ${remediated.size} WHERE id = ${findingId}`
          })))
          const seen: Array<string> = []
          let total = -1
          for (let p = 1; ; p++) {
            const f = await page(findingId, p, pageSize, status, q)
            expect(f).toBeDefined()
            const info = f!.details_pagination!
            if (total === -1) total = info.total
            expect(info.total).toBe(total)
            expect(info.total_pages).toBe(Math.ceil(total / pageSize))
            expect(f!.details.length).toBeLessThanOrEqual(pageSize)
            seen.push(...f!.details.map((d) => String(d["resource_id"])))
            if (concurrent) {
              // Another service's finding lands, and a passing row of this one gets a remediation record.
              await write(`check-${run++}`, [false, true, null])
              await withSql(db.url, inScope({ workspaceId: target.workspaceId })(Effect.flatMap(SqlClient.SqlClient, (sql) =>
                sql`UPDATE results SET remediate = '{"status":"failed"}'::jsonb
                    WHERE workspace_id = ${target.workspaceId} AND finding_id = ${findingId} AND compliant IS NOT false AND remediate IS NULL
                    AND seq = (SELECT min(seq) FROM results WHERE workspace_id = ${target.workspaceId} AND finding_id = ${findingId} AND compliant IS NOT false AND remediate IS NULL)`)))
            }
            if (p >= info.total_pages) {
              const beyond = await page(findingId, p + 1, pageSize, status, q)
              expect(beyond!.details).toEqual([])
              break
            }
          }
          const expected = expectedOrder(flags, status, q, remediated)
          expect(seen).toEqual(expected)
          expect(total).toBe(expected.length)
        },
      ),
      { numRuns: 40 },
    )
  }, 180_000)
})
