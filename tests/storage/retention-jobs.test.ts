/**
 * Retention at work (issue 30; server/scans/retention.ts, server/scans/posture-ticker.ts), on PGlite and (when
 * TEST_DATABASE_URL is set) PostgreSQL:
 *   - while a scan of the account is being written (its streams held by the writer), a run expires the old scans,
 *     skips the held streams, never waits on them and never deadlocks; the written scan loses nothing, and the next run
 *     collects what was skipped;
 *   - runs racing with writers of new scans of the same account, many times: no error, nothing lost, no orphan;
 *   - the daily run: only workspaces with a setting are due, one claim per day wins, and the worker's posture ticker
 *     applies a saved setting by itself.
 */
import { Deferred, Effect, Fiber } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { inScope, setScope } from "../../server/auth/rls.ts"
import { applyDueRetention, applyRetention, retentionDue, saveRetention } from "../../server/scans/retention.ts"
import { writeFindings } from "../../server/scans/results.ts"
import { toFindingDraft } from "../../server/scans/finding-rows.ts"
import { completeService } from "../../server/scans/run-service.ts"
import { BuiltInRoleIds } from "../../src/contracts/permissions.ts"
import { makeTestDatabase, migrateTestDatabase, withSql, type TestDatabase } from "../support/db.ts"
import { seedScanRows, type ScanRows } from "../support/scan-rows.ts"
import { startTestServer } from "../support/server.ts"
import { CHECKS, openScan, orphans, readScan, seedWorkspace, writeScan, type RowState } from "./support.ts"

const kinds: ReadonlyArray<"pglite" | "postgres"> = process.env["TEST_DATABASE_URL"] ? ["pglite", "postgres"] : ["pglite"]

const history: ReadonlyArray<ReadonlyArray<RowState>> = [
  ["fail", "pass", "absent", "fail", "pass"],
  ["fail2", "pass", "pass", "fail", "absent"],
  ["pass", "pass2", "pass", "fail", "fail"],
  ["pass", "pass2", "fail", "fail2", "fail"],
]
const next: ReadonlyArray<RowState> = ["fail", "absent", "pass", "fail2", "pass2"]

const check = (checkId: string, states: ReadonlyArray<RowState>) =>
  toFindingDraft({
    check_id: checkId, service: "retsvc", title: `Check ${checkId}`, policy_check: "p", description: "d", severity: "high", cis: {},
    remediation: "r", status: "fail", field_labels: { size: "Size" }, errors: [],
    details: states.flatMap((s, i) => s === "absent" ? [] : [{
      resource_id: `res-${i}`, region: i % 2 === 0 ? "us-east-1" : "eu-west-1", compliant: s.startsWith("pass"), reason: s, size: s.endsWith("2") ? 2 : 1,
    }]),
  })

describe.each(kinds)("retention at work on %s", (kind) => {
  let db: TestDatabase
  let base: ScanRows
  let n = 0
  const run = <A>(effect: Effect.Effect<A, unknown, SqlClient.SqlClient>) => withSql(db.url, effect)

  beforeAll(async () => {
    db = await makeTestDatabase({ kind })
    await migrateTestDatabase(db.url)
    base = await run(seedScanRows({ name: `Jobs${kind}`, serviceKey: "retsvc", cloudAccountId: "000000000000", scanStatus: "completed" }))
  }, 120_000)

  afterAll(async () => {
    await db?.close()
  })

  /** A workspace with one account, four completed scans 10, 8, 6 and 4 days old, and keep_scans 1. */
  const withHistory = () =>
    run(Effect.gen(function* () {
      const { workspaceId, accountIds } = yield* seedWorkspace(base.userId, `jobs ${kind} ${n++}`, 1)
      const accountId = accountIds[0]!
      const scans: Array<number> = []
      for (const [i, states] of history.entries()) {
        scans.push(yield* writeScan(workspaceId, accountId, base.serviceId, { [CHECKS[0]]: states, [CHECKS[1]]: [...states].reverse() }, 10 - 2 * i))
      }
      yield* inScope({ workspaceId })(saveRetention({ workspaceId, userId: base.userId }, { keep_days: null, keep_scans: 1 }))
      return { workspaceId, accountId, scans }
    }))

  it("a run while a scan of the account is being written skips its streams, loses nothing, and the next run collects them", async () => {
    const { workspaceId, accountId, scans } = await withHistory()
    const latest = await run(readScan(workspaceId, scans[3]!))
    const { scanId, scanServiceId } = await run(openScan(workspaceId, accountId, base.serviceId))
    const outcome = await run(Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const locked = yield* Deferred.make<void>()
      // The real writer, holding the account's streams for a while after writing (as a long scan service would).
      const writer = yield* Effect.forkChild(inScope({ workspaceId })(Effect.gen(function* () {
        yield* writeFindings(
          { workspaceId, scanId, scanServiceId, serviceId: base.serviceId, serviceKey: "retsvc", accountId, cloudAccountId: "x", cloudProviderId: 1 },
          [check(CHECKS[0], next), check(CHECKS[1], [...next].reverse())],
        )
        yield* Deferred.succeed(locked, undefined)
        yield* Effect.sleep("1500 millis")
      })))
      yield* Deferred.await(locked)
      const started = Date.now()
      const first = yield* applyRetention(workspaceId)
      const took = Date.now() - started
      yield* Fiber.join(writer)
      yield* inScope({ workspaceId })(sql`
        UPDATE scan_services SET status = 'completed' WHERE workspace_id = ${workspaceId} AND id = ${scanServiceId}`)
      yield* inScope({ workspaceId })(sql`
        UPDATE scans SET status = 'completed', scan_end = now() WHERE workspace_id = ${workspaceId} AND id = ${scanId}`)
      return { first, took }
    }))
    expect([...outcome.first.expired].sort()).toEqual(scans.slice(0, 3).sort())
    if (kind === "postgres") {
      // The writer held both streams: skipped at once, not waited for.
      expect(outcome.first.skipped.length).toBe(2)
      expect(outcome.took).toBeLessThan(1500)
    }
    const written = await run(readScan(workspaceId, scanId))
    expect(written.map((f: any) => f.details.map((d: any) => `${d.resource_id}:${d.compliance}:${d.size}`).sort())).toEqual([
      ["res-0:false:1", "res-2:true:1", "res-3:false:2", "res-4:true:2"],
      ["res-0:true:2", "res-1:false:2", "res-2:true:1", "res-4:false:1"],
    ])
    expect(await run(readScan(workspaceId, scans[3]!))).toEqual(latest)
    // The next run collects the skipped streams; the account's two kept scans answer the same.
    const second = await run(applyRetention(workspaceId))
    expect(second.skipped).toEqual([])
    // The written scan is now the latest completed one: keep_scans 1 expires the one before it.
    expect(second.expired).toEqual([scans[3]])
    expect(await run(readScan(workspaceId, scanId))).toEqual(written)
    expect(await run(orphans(workspaceId))).toEqual({ versions: 0, marks: 0, remediations: 0, streams: 0, findings: 0 })
  }, 120_000)

  it("runs racing with writers of new scans of the same account: no error, no deadlock, nothing lost", async () => {
    const { workspaceId, accountId, scans } = await withHistory()
    const snapshots = new Map<number, unknown>()
    let latest = scans[3]!
    snapshots.set(latest, await run(readScan(workspaceId, latest)))
    for (let round = 0; round < 6; round++) {
      const { scanId, scanServiceId } = await run(openScan(workspaceId, accountId, base.serviceId))
      const states = history[round % history.length]!.map((s, i) => (round % 2 === 0 && i === round % 5 ? "absent" : s))
      const [done] = await run(Effect.all([
        completeService({ workspace_id: workspaceId, scan_id: scanId, scan_service_id: scanServiceId }, {
          findings: [CHECKS[0], CHECKS[1]].map((c, k) => ({
            check_id: c, service: "retsvc", title: `Check ${c}`, policy_check: "p", description: "d", severity: "high" as const, cis: {}, remediation: "r",
            status: "fail" as const, field_labels: { size: "Size" }, errors: [],
            details: (k === 0 ? states : [...states].reverse()).flatMap((s, i) => s === "absent" ? [] : [{
              resource_id: `res-${i}`, region: i % 2 === 0 ? "us-east-1" : "eu-west-1", compliant: s.startsWith("pass"), reason: s, size: s.endsWith("2") ? 2 : 1,
            }]),
          })),
          resourcesScanned: 1, apiCalls: 1,
        }),
        applyRetention(workspaceId),
      ], { concurrency: "unbounded" }))
      expect(done).toBe(true)
      snapshots.set(scanId, await run(readScan(workspaceId, scanId)))
      latest = scanId
    }
    await run(applyRetention(workspaceId))
    const left = await run(inScope({ workspaceId })(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ id: number }>`SELECT id FROM scans WHERE workspace_id = ${workspaceId} ORDER BY id`)))
    expect(left.map((r) => r.id)).toEqual([latest])
    expect(await run(readScan(workspaceId, latest))).toEqual(snapshots.get(latest))
    expect(await run(orphans(workspaceId))).toEqual({ versions: 0, marks: 0, remediations: 0, streams: 0, findings: 0 })
  }, 180_000)

  it("the daily run: only workspaces with a setting are due, and one claim a day wins", async () => {
    const { workspaceId } = await withHistory()
    const bare = await run(seedWorkspace(base.userId, `bare ${kind}`, 1))
    const due = (now: Date) =>
      run(Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        return yield* sql.withTransaction(Effect.gen(function* () {
          yield* setScope({})
          yield* sql`SELECT set_config('app.system_scope', 'posture-ticker', true)`
          return (yield* sql<{ workspace_id: number }>`${retentionDue(sql, now)}`).map((r) => r.workspace_id)
        }))
      }))
    const now = new Date()
    expect(await due(now)).toContain(workspaceId)
    expect(await due(now)).not.toContain(bare.workspaceId)
    const [a, b] = await run(Effect.all([applyDueRetention(workspaceId, now), applyDueRetention(workspaceId, now)], { concurrency: "unbounded" }))
    expect([a, b].filter((r) => r !== undefined).length).toBe(1)
    expect((a ?? b)!.expired.length).toBe(3)
    expect(await due(now)).not.toContain(workspaceId)
    expect(await run(applyDueRetention(workspaceId, new Date(now.getTime() + 3_600_000)))).toBeUndefined()
    const tomorrow = new Date(now.getTime() + 86_400_000 + 60_000)
    expect(await due(tomorrow)).toContain(workspaceId)
    expect((await run(applyDueRetention(workspaceId, tomorrow)))?.expired).toEqual([])
    const audit = await run(inScope({ workspaceId })(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ n: number }>`SELECT count(*)::int AS n FROM audit_log WHERE workspace_id = ${workspaceId} AND action = 'retention.applied'`)))
    expect(audit[0]!.n).toBe(1)
  }, 120_000)

  it("the worker's posture ticker applies a saved setting by itself", async () => {
    const server = await startTestServer({ worker: true, database: await makeTestDatabase({ kind }), env: { POSTURE_TICK_SECONDS: "1" } })
    try {
      const sql = <A>(effect: Effect.Effect<A, unknown, SqlClient.SqlClient>) => withSql(server.databaseUrl, effect)
      const ids = await sql(Effect.gen(function* () {
        const q = yield* SqlClient.SqlClient
        const userId = (yield* q<{ id: number }>`INSERT INTO users (email, email_verified, password_hash) VALUES ('ticker@example.com', true, 'x') RETURNING id`)[0]!.id
        const serviceId = (yield* q<{ id: number }>`INSERT INTO cloud_services (cloud_provider_id, key, name) VALUES (1, 'retsvc', 'RETSVC') RETURNING id`)[0]!.id
        const ws = yield* seedWorkspace(userId, "Ticker Co", 1)
        yield* q`INSERT INTO memberships (workspace_id, user_id, role_id) VALUES (${ws.workspaceId}, ${userId}, ${BuiltInRoleIds.Admin})`
        for (const [i, states] of history.entries()) yield* writeScan(ws.workspaceId, ws.accountIds[0]!, serviceId, { [CHECKS[0]]: states }, 10 - 2 * i)
        // Digests already queued: the ticker has nothing else to do for these scans.
        yield* inScope({ workspaceId: ws.workspaceId })(q`UPDATE scans SET digest_enqueued_at = now() WHERE workspace_id = ${ws.workspaceId}`)
        yield* inScope({ workspaceId: ws.workspaceId })(saveRetention({ workspaceId: ws.workspaceId, userId }, { keep_days: 5, keep_scans: null }))
        return ws
      }))
      const deadline = Date.now() + 60_000
      for (;;) {
        const state = await sql(inScope({ workspaceId: ids.workspaceId })(Effect.flatMap(SqlClient.SqlClient, (q) => q<{ scans: number; applied: boolean }>`
          SELECT (SELECT count(*)::int FROM scans WHERE workspace_id = ${ids.workspaceId}) AS scans,
                 (SELECT applied_at IS NOT NULL FROM workspace_retention WHERE workspace_id = ${ids.workspaceId}) AS applied`)))
        // 10, 8 and 6 days old go; the latest (4 days) stays.
        if (state[0]!.scans === 1 && state[0]!.applied) break
        if (Date.now() > deadline) throw new Error(`retention not applied by the ticker: ${JSON.stringify(state)}`)
        await new Promise((r) => setTimeout(r, 300))
      }
    } finally {
      await server.stop()
    }
  }, 120_000)
})
