/**
 * Two schedulers racing (issue 13): two processes claim due schedules at the same moment, each in its own transaction
 * on its own connection, and each advances what it claimed. Every due slot is claimed exactly once, a slot missed for
 * days is advanced past now in one step, and a third claim afterwards finds nothing due.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { inScope } from "../../server/auth/rls.ts"
import { advance, claimDueSchedules } from "../../server/posture/schedules.ts"
import { makeTestDatabase, migrateTestDatabase, withSql, type TestDatabase } from "../support/db.ts"
import { seedScanRows, type ScanRows } from "../support/scan-rows.ts"

let db: TestDatabase
let base: ScanRows
const ACCOUNTS = 8

beforeAll(async () => {
  db = await makeTestDatabase()
  await migrateTestDatabase(db.url)
  base = await withSql(db.url, seedScanRows({ name: "Race", serviceKey: "racesvc", cloudAccountId: "222222222222", scanStatus: "completed" }))
  await withSql(db.url, inScope({ workspaceId: base.workspaceId })(Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    for (let i = 0; i < ACCOUNTS; i++) {
      const id = i === 0 ? base.accountId : (yield* sql<{ id: number }>`
        INSERT INTO accounts (workspace_id, cloud_provider_id, account_name, cloud_account_id, auth_method, credentials_sealed)
        VALUES (${base.workspaceId}, 1, ${`race ${i}`}, ${String(300000000000 + i)}, 'access_key', 'v1.x') RETURNING id`)[0]!.id
      // Due since three days: every slot since then was missed.
      yield* sql`INSERT INTO scan_schedules (account_id, workspace_id, frequency, time_of_day, timezone, next_run_at)
                 VALUES (${id}, ${base.workspaceId}, 'daily', '04:00', 'Europe/Berlin', now() - interval '3 days')`
    }
  })))
}, 120_000)

afterAll(async () => {
  await db?.close()
})

/** One scheduler: claim (holding the locks a moment, as a launch would), then advance every claimed row. */
const scheduler = (now: Date) =>
  withSql(db.url, inScope({ workspaceId: base.workspaceId })(Effect.gen(function* () {
    const claimed = yield* claimDueSchedules(base.workspaceId, now, 100)
    yield* Effect.sleep("300 millis")
    for (const s of claimed) yield* advance(s, now, { scanId: null, error: null })
    return claimed.map((s) => s.account_id)
  })))

describe("schedulers racing", () => {
  it("claims every due slot exactly once and advances it past now in one step", async () => {
    const now = new Date()
    const [a, b] = await Promise.all([scheduler(now), scheduler(now)])
    if (db.kind === "postgres") {
      // Real row locks: both ran at once and split the rows (SKIP LOCKED); PGlite runs one transaction at a time.
      expect(a.filter((id) => b.includes(id))).toEqual([])
    }
    expect(new Set([...a, ...b]).size).toBe(ACCOUNTS)
    expect(a.length + b.length).toBe(ACCOUNTS)
    const rows = await withSql(db.url, inScope({ workspaceId: base.workspaceId })(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ next_run_at: Date; last_run_at: Date }>`SELECT next_run_at, last_run_at FROM scan_schedules WHERE workspace_id = ${base.workspaceId}`)))
    for (const r of rows) {
      expect(new Date(r.next_run_at).getTime()).toBeGreaterThan(now.getTime())
      expect(new Date(r.next_run_at).getTime() - now.getTime()).toBeLessThanOrEqual(86_400_000 + 3_600_000)
    }
    expect(await scheduler(now)).toEqual([])
  }, 60_000)
})
