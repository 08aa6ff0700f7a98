/**
 * The posture ticker reads the time on every tick (issue 27, item 1): driven by a TestClock over several ticks, a
 * schedule slot set after the ticker started is claimed by the first tick at or after it — exactly once — and the ticks
 * before it claim nothing. (A ticker that read "now" once at start never claimed it.) The tick here is the claim and
 * advance of server/posture/schedules.ts on a real database; tests/posture/posture-api.test.ts runs the whole ticker
 * in a real worker.
 */
import { Effect, Fiber } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { inScope } from "../../server/auth/rls.ts"
import { advance, claimDueSchedules } from "../../server/posture/schedules.ts"
import { postureTicks } from "../../server/scans/posture-ticker.ts"
import { makeTestDatabase, migrateTestDatabase, withSql, type TestDatabase } from "../support/db.ts"
import { seedScanRows, type ScanRows } from "../support/scan-rows.ts"

let db: TestDatabase
let base: ScanRows
/** The ticker starts at T0; the slot is 40 s later (daily at 04:00 UTC). */
const T0 = Date.parse("2030-01-07T03:59:20Z")
const SLOT = Date.parse("2030-01-07T04:00:00Z")
const TICK_SECONDS = 15

beforeAll(async () => {
  db = await makeTestDatabase()
  await migrateTestDatabase(db.url)
  base = await withSql(db.url, seedScanRows({ name: "Clock", serviceKey: "clocksvc", cloudAccountId: "333333333333", scanStatus: "completed" }))
  await withSql(db.url, inScope({ workspaceId: base.workspaceId })(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`INSERT INTO scan_schedules (account_id, workspace_id, frequency, time_of_day, timezone, next_run_at)
        VALUES (${base.accountId}, ${base.workspaceId}, 'daily', '04:00', 'UTC', ${new Date(SLOT)})`)))
}, 120_000)

afterAll(async () => {
  await db?.close()
})

describe("posture ticker clock", () => {
  it("reads the time on every tick: a slot after the start is claimed by the first tick at or after it, once", async () => {
    const ticks: Array<{ readonly at: number; readonly claimed: ReadonlyArray<number> }> = []
    let busy = false
    // One tick: claim the workspace's due schedules at `now` and advance them (what tickPosture does around a launch).
    const tick = (now: Date) =>
      Effect.promise(async () => {
        busy = true
        try {
          const claimed = await withSql(db.url, inScope({ workspaceId: base.workspaceId })(Effect.gen(function* () {
            const due = yield* claimDueSchedules(base.workspaceId, now, 100)
            for (const s of due) yield* advance(s, now, { scanId: null, error: null })
            return due.map((s) => s.account_id)
          })))
          ticks.push({ at: now.getTime(), claimed })
        } finally {
          busy = false
        }
      })
    // Real time passes only for the database round trips; the ticker's sleeps follow the TestClock.
    const settle = TestClock.withLive(Effect.gen(function* () {
      yield* Effect.sleep("5 millis")
      while (busy) yield* Effect.sleep("5 millis")
      yield* Effect.sleep("5 millis")
    }))
    await Effect.runPromise(Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const fiber = yield* Effect.forkChild(postureTicks(TICK_SECONDS, tick))
      // The first tick runs at once, at T0, before the clock moves.
      yield* TestClock.withLive(Effect.gen(function* () {
        while (ticks.length === 0) yield* Effect.sleep("5 millis")
      }))
      for (let second = 0; second < 75; second++) {
        yield* settle
        yield* TestClock.adjust("1 second")
      }
      yield* settle
      yield* Fiber.interrupt(fiber)
    }).pipe(Effect.provide(TestClock.layer())))

    // Several ticks, each at its own time (the clock read every time), from T0 on.
    expect(ticks.length).toBeGreaterThanOrEqual(5)
    expect(ticks[0]!.at).toBe(T0)
    for (let i = 1; i < ticks.length; i++) expect(ticks[i]!.at).toBeGreaterThan(ticks[i - 1]!.at)
    // Nothing before the slot; the first tick at or after it claims it; none after claims it again.
    const first = ticks.findIndex((t) => t.at >= SLOT)
    expect(first).toBeGreaterThan(0)
    for (const t of ticks.slice(0, first)) expect(t.claimed).toEqual([])
    expect(ticks[first]!.claimed).toEqual([base.accountId])
    for (const t of ticks.slice(first + 1)) expect(t.claimed).toEqual([])
    const next = await withSql(db.url, inScope({ workspaceId: base.workspaceId })(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ next_run_at: Date }>`SELECT next_run_at FROM scan_schedules WHERE account_id = ${base.accountId}`)))
    expect(new Date(next[0]!.next_run_at).toISOString()).toBe("2030-01-08T04:00:00.000Z")
  }, 60_000)
})
