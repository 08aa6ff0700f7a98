/**
 * Storage by change (issue 30; server/db/migrations/0020_storage_by_change.ts), property-tested on a real database: for
 * random histories of one account — rows churning (a field changes), resources appearing and disappearing, passing ↔
 * failing flips, a resource listed twice by one check, mute rules and remediations on the live scan between scans —
 * written through the real writer:
 *   - every scan, once superseded, answers forever what it answered at that moment (every page of every finding, each
 *     status filter), whatever is written, muted or remediated afterwards;
 *   - the latest scan holds exactly the rows its check produced (content, failing first);
 *   - a rescan writes one version per row whose content is new to the stream, and nothing for unchanged rows.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { DetailStatus } from "../../src/contracts/findings.ts"
import { inScope } from "../../server/auth/rls.ts"
import { recordRemediation, recountFindings, recountServices } from "../../server/posture/algebra.ts"
import { applyMutes } from "../../server/posture/mutes.ts"
import type { FindingDraft } from "../../server/scans/finding-rows.ts"
import { getFinding } from "../../server/scans/findings-store.ts"
import { writeFindings, type WriteTarget } from "../../server/scans/results.ts"
import { makeTestDatabase, migrateTestDatabase, withSql, type TestDatabase } from "../support/db.ts"
import { seedScanRows, type ScanRows } from "../support/scan-rows.ts"

let db: TestDatabase
let base: ScanRows
let run = 0

beforeAll(async () => {
  db = await makeTestDatabase()
  await migrateTestDatabase(db.url)
  base = await withSql(db.url, seedScanRows({ name: "History", serviceKey: "histsvc", cloudAccountId: "000000000001", scanStatus: "completed" }))
}, 120_000)

afterAll(async () => {
  await db?.close()
})

const RESOURCES = 7
const CHECKS = ["hist_a", "hist_b"] as const

/** One resource in one scan of one check: absent, or present passing/failing with a field value, maybe listed twice. */
interface Cell {
  readonly state: "absent" | "pass" | "fail"
  readonly size: number
  readonly twice: boolean
}
type ScanSpec = ReadonlyArray<ReadonlyArray<Cell>> // [check][resource]
type Action = { readonly kind: "none" } | { readonly kind: "mute"; readonly resource: number } | { readonly kind: "remediate"; readonly pick: number }

const cell = fc.record({
  state: fc.constantFrom<Cell["state"]>("absent", "pass", "fail"),
  size: fc.integer({ min: 0, max: 2 }),
  twice: fc.boolean().map((b) => b && Math.random() < 0.3),
})
const scanSpec = fc.array(fc.array(cell, { minLength: RESOURCES, maxLength: RESOURCES }), { minLength: CHECKS.length, maxLength: CHECKS.length })
const action = fc.oneof(
  fc.constant<Action>({ kind: "none" }),
  fc.integer({ min: 0, max: RESOURCES - 1 }).map((resource): Action => ({ kind: "mute", resource })),
  fc.integer({ min: 0, max: 50 }).map((pick): Action => ({ kind: "remediate", pick })),
)

const rowsOf = (cells: ReadonlyArray<Cell>) =>
  cells.flatMap((c, i) => {
    if (c.state === "absent") return []
    const row = { resource_id: `res-${i}`, region: i % 2 === 0 ? "us-east-1" : "eu-west-1", compliance: c.state === "pass", size: c.size, tags: { team: `t${i % 3}` } }
    return c.twice ? [row, { ...row, size: c.size + 10 }] : [row]
  })

const draft = (checkId: string, cells: ReadonlyArray<Cell>): FindingDraft => {
  const details = rowsOf(cells)
  return {
    check_id: checkId,
    severity: "high",
    status: details.some((d) => d.compliance === false) ? "fail" : "pass",
    not_evaluated_reason: null,
    title: "t",
    description: "d",
    policy_check: "p",
    remediation: "r",
    field_labels: {},
    details,
    compliance: [],
  }
}

const STATUSES: ReadonlyArray<DetailStatus | null> = [null, "fail", "pass", "muted", "remediated", "new"]

/** Everything a scan answers: each finding read page by page (page size 3) under every status filter. */
const answerOf = (scanId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const findings = yield* sql<{ id: number }>`SELECT id FROM findings WHERE scan_id = ${scanId} ORDER BY check_id`
    const out: Array<unknown> = []
    for (const { id } of findings) {
      for (const status of STATUSES) {
        for (let page = 1; ; page++) {
          const f = (yield* getFinding(base.workspaceId, id, { page, pageSize: 3, status, q: null }))!
          out.push({ status, page, finding: f })
          if (page >= (f.details_pagination?.total_pages ?? 1)) break
        }
      }
    }
    return out
  })

describe("storage by change (property)", () => {
  it("superseded scans answer forever what they answered; the latest holds its rows; rescans write only changes", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(scanSpec, action), { minLength: 2, maxLength: 5 }), async (history) => {
        await withSql(db.url, inScope({ workspaceId: base.workspaceId })(Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const n = run++
          const cloudAccountId = String(200000000000 + n)
          const accountId = (yield* sql<{ id: number }>`
            INSERT INTO accounts (workspace_id, cloud_provider_id, account_name, cloud_account_id, auth_method, credentials_sealed)
            VALUES (${base.workspaceId}, 1, ${`hist ${n}`}, ${cloudAccountId}, 'access_key', 'v1.x') RETURNING id`)[0]!.id
          const frozen = new Map<number, unknown>()
          const scans: Array<number> = []
          let previous: ScanSpec | undefined
          for (const [k, [spec, act]] of history.entries()) {
            const scanId = (yield* sql<{ id: number }>`
              INSERT INTO scans (workspace_id, account_id, cloud_provider_id, status) VALUES (${base.workspaceId}, ${accountId}, 1, 'running') RETURNING id`)[0]!.id
            const ssId = (yield* sql<{ id: number }>`
              INSERT INTO scan_services (workspace_id, scan_id, service_id, status) VALUES (${base.workspaceId}, ${scanId}, ${base.serviceId}, 'running') RETURNING id`)[0]!.id
            const target: WriteTarget = {
              workspaceId: base.workspaceId, scanId, scanServiceId: ssId, serviceId: base.serviceId, serviceKey: "histsvc",
              accountId, cloudAccountId, cloudProviderId: 1,
            }
            const written = yield* writeFindings(target, CHECKS.map((c, i) => draft(c, spec[i]!)))
            // Only rows whose content the stream did not hold open are written.
            const expectedVersions = CHECKS.reduce((sum, _c, i) => {
              const now = rowsOf(spec[i]!).map((r) => JSON.stringify(r))
              const before = previous === undefined ? [] : rowsOf(previous[i]!).map((r) => JSON.stringify(r))
              const pool = new Map<string, number>()
              for (const b of before) pool.set(b, (pool.get(b) ?? 0) + 1)
              return sum + now.filter((r) => {
                const left = pool.get(r) ?? 0
                if (left === 0) return true
                pool.set(r, left - 1)
                return false
              }).length
            }, 0)
            expect(written.versions).toBe(expectedVersions)
            previous = spec
            yield* sql`UPDATE scans SET status = 'completed', scan_start = now() + make_interval(secs => ${k}) WHERE id = ${scanId}`
            scans.push(scanId)
            // The scan before this one is superseded now: what it answers is frozen from here on.
            if (scans.length >= 2) frozen.set(scans[scans.length - 2]!, yield* answerOf(scans[scans.length - 2]!))

            // The latest scan holds exactly its rows, failing first.
            for (const [i, c] of CHECKS.entries()) {
              const id = (yield* sql<{ id: number }>`SELECT id FROM findings WHERE scan_id = ${scanId} AND check_id = ${c}`)[0]!.id
              const f = (yield* getFinding(base.workspaceId, id, { page: 1, pageSize: 100, status: null, q: null }))!
              const strip = (d: Record<string, unknown>) => JSON.stringify([d["resource_id"], d["region"], d["compliance"], d["size"], d["tags"]])
              const expected = rowsOf(spec[i]!)
              const got = f.details.map((d) => strip(d as Record<string, unknown>))
              expect([...got].sort()).toEqual(expected.map((d) => strip(d)).sort())
              const firstPassing = f.details.findIndex((d) => d["compliance"] !== false)
              if (firstPassing >= 0) expect(f.details.slice(firstPassing).every((d) => d["compliance"] !== false)).toBe(true)
            }

            // Then something happens on the live scan.
            if (act.kind === "mute") {
              yield* sql`INSERT INTO mute_rules (workspace_id, account_id, resource_pattern, resource_like, reason)
                         VALUES (${base.workspaceId}, ${accountId}, ${`res-${act.resource}`}, ${`res-${act.resource}`}, 'accepted risk')`
              yield* applyMutes(base.workspaceId, { accountIds: [accountId] })
            } else if (act.kind === "remediate") {
              const failing = yield* sql<{ finding_id: number; seq: number }>`
                SELECT r.finding_id, r.seq FROM results r WHERE r.workspace_id = ${base.workspaceId} AND r.scan_id = ${scanId} AND r.rank = 0
                ORDER BY r.finding_id, r.seq`
              const row = failing.length === 0 ? undefined : failing[act.pick % failing.length]!
              if (row !== undefined) {
                yield* recordRemediation(base.workspaceId, row.finding_id, row.seq, { status: "remediated", message: "fixed", attempted_at: new Date().toISOString(), attempted_by: null })
                yield* recountServices(base.workspaceId, yield* recountFindings(base.workspaceId, [row.finding_id]))
              }
            }
          }
          // Every superseded scan still answers what it answered when it was superseded, after everything that followed.
          for (const [id, answer] of frozen) expect(yield* answerOf(id)).toEqual(answer)
        })))
      }),
      { numRuns: 12 },
    )
  }, 240_000)
})
