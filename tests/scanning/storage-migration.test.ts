/**
 * Migration 0020 (storage by change) on a database written by the code before it: three scans of one account whose
 * checks' rows repeat, change and disappear, with muted rows (and the scan's mute snapshot), remediation records,
 * deltas, a row listed twice, an empty finding, and a second account. After the migration every finding reads back
 * through the store with exactly the rows it held — content, delta, mute, remediation — failing rows first, the same
 * counts and pages; rows repeated across scans are stored once; remediations name their row; row-level security is
 * forced on the new tables. Runs on PGlite and, with TEST_DATABASE_URL, on PostgreSQL as a non-superuser owner.
 */
import { Effect } from "effect"
import * as Migrator from "effect/sql/Migrator"
import { SqlClient } from "effect/sql"
import { afterAll, describe, expect, it } from "vitest"
import { migrations } from "../../server/db/migrations/index.ts"
import { runMigrations } from "../../server/db/migrate.ts"
import { inScope } from "../../server/auth/rls.ts"
import { getFinding } from "../../server/scans/findings-store.ts"
import { makeTestDatabase, withSql, type TestDatabase } from "../support/db.ts"
import { dropOwners, ownerUrl } from "../support/migration-owner.ts"
import { seedScanRows } from "../support/scan-rows.ts"

const before0020 = Object.fromEntries(Object.entries(migrations).filter(([key]) => key < "0020"))

interface OldRow {
  readonly resource_id: string
  readonly compliant: boolean | null
  readonly fields: Record<string, unknown>
  readonly delta: string | null
  readonly muted?: boolean
  readonly remediate?: Record<string, unknown>
}

/** Per scan, per check: the rows as the old writer stored them (failing first; seq is the index). */
const row = (id: string, compliant: boolean | null, extra: Partial<OldRow> = {}): OldRow =>
  ({ resource_id: id, compliant, fields: { reason: compliant === false ? "bad" : "ok", tags: { team: id.slice(-1) } }, delta: "unchanged", ...extra })
const SCANS: ReadonlyArray<Record<string, ReadonlyArray<OldRow>>> = [
  {
    chk_a: [row("a-1", false, { delta: "first" }), row("a-2", false, { delta: "first" }), row("a-3", true, { delta: "first" }), row("a-4", null, { delta: "first" })],
    chk_b: [row("b-1", true, { delta: "first" }), row("b-1", true, { delta: "first", fields: { reason: "ok", twice: true } })],
    chk_empty: [],
  },
  {
    chk_a: [row("a-1", false), row("a-2", false, { muted: true }), row("a-5", false, { delta: "new" }), row("a-3", true), row("a-4", null)],
    chk_b: [row("b-1", true), row("b-1", true, { fields: { reason: "ok", twice: true } })],
    chk_empty: [],
  },
  {
    chk_a: [row("a-2", false, { muted: true }), row("a-5", false, { remediate: { status: "remediated", message: "Verified" } }), row("a-1", true, { delta: "fixed" }), row("a-3", true)],
    chk_b: [row("b-1", false, { delta: "new", fields: { reason: "bad" } })],
    chk_empty: [],
  },
]

const databases: Array<TestDatabase> = []
afterAll(async () => {
  for (const db of databases) await db.close()
  await dropOwners()
})

const seedOldScans = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const base = yield* seedScanRows({ name: "Old", serviceKey: "oldsvc", cloudAccountId: "123456789012", scanStatus: "completed" })
  const ws = base.workspaceId
  const ruleId = (yield* sql<{ id: number }>`
    INSERT INTO mute_rules (workspace_id, check_id, reason) VALUES (${ws}, 'chk_a', 'accepted') RETURNING id`)[0]!.id
  const findings: Array<{ id: number; scan: number; check: string; rows: ReadonlyArray<OldRow> }> = []
  for (const [k, scan] of SCANS.entries()) {
    const scanId = k === 0 ? base.scanId : (yield* sql<{ id: number }>`
      INSERT INTO scans (workspace_id, account_id, cloud_provider_id, status, scan_start)
      VALUES (${ws}, ${base.accountId}, 1, 'completed', now() + make_interval(secs => ${k})) RETURNING id`)[0]!.id
    const ss = k === 0 ? base.scanServiceId : (yield* sql<{ id: number }>`
      INSERT INTO scan_services (workspace_id, scan_id, service_id, status) VALUES (${ws}, ${scanId}, ${base.serviceId}, 'completed') RETURNING id`)[0]!.id
    if (scan["chk_a"]!.some((r) => r.muted === true)) {
      yield* sql`INSERT INTO scan_mutes (workspace_id, scan_id, rule_id, reason) VALUES (${ws}, ${scanId}, ${ruleId}, 'accepted')`
    }
    for (const [check, rows] of Object.entries(scan)) {
      const failing = rows.filter((r) => r.compliant === false).length
      const muted = rows.filter((r) => r.muted === true).length
      const remediated = rows.filter((r) => r.remediate !== undefined).length
      const id = (yield* sql<{ id: number }>`
        INSERT INTO findings (workspace_id, scan_id, scan_service_id, service_id, check_id, severity, status, title, description,
                              policy_check, remediation, resources_checked, resources_failing, resources_muted, resources_remediated)
        VALUES (${ws}, ${scanId}, ${ss}, ${base.serviceId}, ${check}, 'high', ${failing > 0 ? "fail" : "pass"}, 't', 'd', 'p', 'r',
                ${rows.length}, ${failing}, ${muted}, ${remediated})
        RETURNING id`)[0]!.id
      for (const [seq, r] of rows.entries()) {
        yield* sql`
          INSERT INTO results (workspace_id, finding_id, seq, scan_id, resource_id, resource_uid, region, compliant, fields, delta, muted_by, remediate)
          VALUES (${ws}, ${id}, ${seq}, ${scanId}, ${r.resource_id}, ${`aws:oldsvc:us-east-1:${r.resource_id}`}, 'us-east-1', ${r.compliant},
                  ${JSON.stringify(r.fields)}::jsonb, ${r.delta}, ${r.muted === true ? ruleId : null},
                  ${r.remediate === undefined ? null : JSON.stringify(r.remediate)}::jsonb)`
        if (r.remediate !== undefined) {
          yield* sql`INSERT INTO remediations (workspace_id, finding_id, check_id, resource_id, region, status, result_seq)
                     VALUES (${ws}, ${id}, ${check}, ${r.resource_id}, 'us-east-1', 'remediated', ${seq})`
        }
      }
      findings.push({ id, scan: scanId, check, rows })
    }
  }
  // A second account with one scan of the same check: its own stream.
  const other = (yield* sql<{ id: number }>`
    INSERT INTO accounts (workspace_id, cloud_provider_id, account_name, cloud_account_id, auth_method, credentials_sealed)
    VALUES (${ws}, 1, 'Other', '210987654321', 'access_key', 'v1.x') RETURNING id`)[0]!.id
  const otherScan = (yield* sql<{ id: number }>`
    INSERT INTO scans (workspace_id, account_id, cloud_provider_id, status) VALUES (${ws}, ${other}, 1, 'completed') RETURNING id`)[0]!.id
  const otherSs = (yield* sql<{ id: number }>`
    INSERT INTO scan_services (workspace_id, scan_id, service_id, status) VALUES (${ws}, ${otherScan}, ${base.serviceId}, 'completed') RETURNING id`)[0]!.id
  const otherRows = [row("a-1", false, { delta: "first" })]
  const otherId = (yield* sql<{ id: number }>`
    INSERT INTO findings (workspace_id, scan_id, scan_service_id, service_id, check_id, severity, status, title, description,
                          policy_check, remediation, resources_checked, resources_failing)
    VALUES (${ws}, ${otherScan}, ${otherSs}, ${base.serviceId}, 'chk_a', 'high', 'fail', 't', 'd', 'p', 'r', 1, 1) RETURNING id`)[0]!.id
  yield* sql`
    INSERT INTO results (workspace_id, finding_id, seq, scan_id, resource_id, resource_uid, region, compliant, fields, delta)
    VALUES (${ws}, ${otherId}, 0, ${otherScan}, 'a-1', 'aws:oldsvc:us-east-1:a-1', 'us-east-1', false, ${JSON.stringify(otherRows[0]!.fields)}::jsonb, 'first')`
  findings.push({ id: otherId, scan: otherScan, check: "chk_a", rows: otherRows })
  return { ws, findings }
})

/** What a stored row reads back as, without the store's own keys (result_seq, resource_uid). */
const expectedDetail = (r: OldRow) => ({
  resource_id: r.resource_id,
  region: "us-east-1",
  ...(r.compliant === null ? {} : { compliance: r.compliant }),
  ...r.fields,
  ...(r.remediate === undefined ? {} : { remediate: r.remediate }),
  ...(r.delta === null ? {} : { delta: r.delta }),
  ...(r.muted === true ? { muted: { reason: "accepted" } } : {}),
})

const kinds: ReadonlyArray<"pglite" | "postgres"> = process.env["TEST_DATABASE_URL"] ? ["pglite", "postgres"] : ["pglite"]

describe.each(kinds)("migration 0020 on %s", (kind) => {
  it("converts every scan's rows into shared versions and marks; every finding reads back as it was", async () => {
    const db = await makeTestDatabase({ kind })
    databases.push(db)
    // Migrate as a non-superuser that owns the database (as `npm run migrate` does in production) on PostgreSQL.
    const url = await ownerUrl(db, "mig20_owner")
    await withSql(url, Migrator.make({})({ loader: Migrator.fromRecord(before0020), table: "effect_sql_migrations" }))
    const seeded = await withSql(db.url, seedOldScans)
    const oldRows = seeded.findings.reduce((n, f) => n + f.rows.length, 0)
    const applied = await withSql(url, runMigrations)
    expect(applied.map(([id]) => id)).toContain(20)

    await withSql(db.url, Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      // Repeated rows are stored once: fewer versions than old rows, and as many as distinct (stream, content) runs.
      const versions = (yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM result_rows`)[0]!.n
      expect(versions).toBeLessThan(oldRows)
      expect(versions).toBe(10) // chk_a 4 + a-5 + a-1 fixed; chk_b 2 + b-1 failing; the other account 1
      // The view answers every old row.
      expect((yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM results`)[0]!.n).toBe(oldRows)
      const forced = yield* sql<{ relname: string; relforcerowsecurity: boolean }>`
        SELECT relname, relforcerowsecurity FROM pg_class
        WHERE relname IN ('findings', 'remediations', 'scans', 'accounts', 'result_streams', 'result_rows', 'result_marks') ORDER BY relname`
      expect(forced).toHaveLength(7)
      expect(forced.every((r) => r.relforcerowsecurity)).toBe(true)
      // A remediation names the row it acted on.
      const rems = yield* sql<{ finding_id: number; resource_id: string; seq_resource: string }>`
        SELECT x.finding_id, x.resource_id, r.resource_id AS seq_resource
        FROM remediations x JOIN results r ON r.finding_id = x.finding_id AND r.seq = x.result_seq`
      expect(rems).toHaveLength(1)
      expect(rems[0]!.seq_resource).toBe(rems[0]!.resource_id)
    }))

    for (const f of seeded.findings) {
      const failing = f.rows.filter((r) => r.compliant === false).length
      for (const pageSize of [100, 1]) {
        const details: Array<Record<string, unknown>> = []
        for (let page = 1; page <= Math.max(1, f.rows.length); page++) {
          const read = await withSql(db.url, inScope({ workspaceId: seeded.ws })(getFinding(seeded.ws, f.id, { page, pageSize, status: null, q: null })))
          expect(read).toBeDefined()
          expect(read!.details_pagination).toMatchObject({ total: f.rows.length })
          expect(read!.resources_checked).toBe(f.rows.length)
          details.push(...(read!.details as Array<Record<string, unknown>>))
          if (page * pageSize >= f.rows.length) break
        }
        const stripped = details.map(({ result_seq: _s, resource_uid: _u, muted, ...rest }) =>
          ({ ...rest, ...(muted === undefined ? {} : { muted: { reason: (muted as { reason: string }).reason } }) }))
        // The same rows (as a multiset), failing rows first.
        const key = (d: unknown) => JSON.stringify(d, Object.keys(d as object).sort())
        expect(stripped.map(key).sort()).toEqual(f.rows.map(expectedDetail).map(key).sort())
        expect(details.slice(0, failing).every((d) => d["compliance"] === false)).toBe(true)
        expect(details.slice(failing).every((d) => d["compliance"] !== false)).toBe(true)
      }
      // The status filters count as before.
      const fail = await withSql(db.url, inScope({ workspaceId: seeded.ws })(getFinding(seeded.ws, f.id, { page: 1, pageSize: 50, status: "fail", q: null })))
      expect(fail!.details_pagination!.total).toBe(failing - f.rows.filter((r) => r.muted === true).length)
    }
  }, 120_000)
})
