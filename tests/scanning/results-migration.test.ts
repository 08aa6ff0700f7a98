/**
 * Migration 0006 (resource-level results) on a database written by the code before it: findings with their detail rows
 * as one JSON array (a remediated row, a pending one, an error row, a row without a compliance flag), and remediation
 * records. After the migration every row is a `results` row (failing rows first), the counts are right, the inventory
 * holds each resource once, remediations point at their row, and the finding reads back through the store exactly as
 * it was stored (nothing lost). Runs on PGlite and, with TEST_DATABASE_URL, on PostgreSQL as a non-superuser owner
 * (whose own rows FORCE ROW LEVEL SECURITY would otherwise hide).
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

const before0006 = Object.fromEntries(Object.entries(migrations).filter(([key]) => key < "0006"))

const remediated = { status: "remediated", message: "Verified", attempted_at: "2026-01-01T00:00:00.000Z", attempted_by: { id: 1, email: "acme@example.com" } }
const pending = { status: "pending", message: "Queued", attempted_at: "2026-01-02T00:00:00.000Z", attempted_by: 1 }

/** The old shape: details in the check's own order (a passing row first). */
const OLD_DETAILS = [
  { resource_id: "bucket-ok", region: "us-east-1", compliance: true, reason: "fine", versioning: "Enabled" },
  { resource_id: "bucket-fixed", region: "us-east-1", compliance: false, reason: "no versioning", versioning: null, remediate: remediated },
  { resource_id: "bucket-pending", region: "eu-west-1", compliance: false, reason: "no versioning", tags: ["a", "b"], remediate: pending },
  { resource_id: "s3:ListBuckets", region: "ap-south-1", compliance: false, reason: "Could not be checked", operation: "s3:ListBuckets", error_code: "AccessDenied", error_kind: "access_denied" },
  { resource_id: "123456789012", region: "global", reason: "account-level row without a flag" },
]

const seedOldData = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* seedScanRows({ name: "Acme", serviceKey: "s3", cloudAccountId: "123456789012", scanStatus: "completed" })
  const { userId: user, workspaceId: ws, serviceId: service, accountId: account, scanId: scan, scanServiceId: ss } = rows
  const insertFinding = (checkId: string, status: string, details: ReadonlyArray<unknown>) =>
    Effect.map(
      sql<{ id: number }>`
        INSERT INTO findings (workspace_id, scan_id, scan_service_id, service_id, check_id, severity, status, title, description,
                              policy_check, remediation, field_labels, details, compliance)
        VALUES (${ws}, ${scan}, ${ss}, ${service}, ${checkId}, 'medium', ${status}, 't', 'd', 'p', 'r',
                ${JSON.stringify({ resource_id: "Bucket" })}::jsonb, ${JSON.stringify(details)}::jsonb, '[]'::jsonb)
        RETURNING id`,
      (rows) => rows[0]!.id,
    )
  const main = yield* insertFinding("s3_versioning", "fail", OLD_DETAILS)
  const empty = yield* insertFinding("s3_empty", "pass", [])
  // A big one: 2,500 rows alternating, spread over conversion batches.
  const big = yield* insertFinding(
    "s3_big",
    "fail",
    Array.from({ length: 2_500 }, (_, i) => ({ resource_id: `b-${i}`, region: "us-east-1", compliance: i % 2 === 0, reason: `r${i}` })),
  )
  yield* sql`INSERT INTO remediations (workspace_id, finding_id, check_id, resource_id, region, status, requested_by)
             VALUES (${ws}, ${main}, 's3_versioning', 'bucket-fixed', 'us-east-1', 'remediated', ${user}),
                    (${ws}, ${main}, 's3_versioning', 'bucket-pending', 'eu-west-1', 'pending', ${user})`
  return { ws, account, scan, main, empty, big }
})

const databases: Array<TestDatabase> = []
afterAll(async () => {
  for (const db of databases) await db.close()
  await dropOwners()
})

const kinds: ReadonlyArray<"pglite" | "postgres"> = process.env["TEST_DATABASE_URL"] ? ["pglite", "postgres"] : ["pglite"]

describe.each(kinds)("migration 0006 on %s", (kind) => {
  it("converts every stored detail row into a result row, loses nothing, and reads back through the store", async () => {
    const db = await makeTestDatabase({ kind })
    databases.push(db)
    // Migrate as a non-superuser that owns the database (as `npm run migrate` does in production) on PostgreSQL.
    const url = await ownerUrl(db, "mig_owner")
    await withSql(url, Migrator.make({})({ loader: Migrator.fromRecord(before0006), table: "effect_sql_migrations" }))
    // Today's code wrote these rows through its own scopes; a superuser stands in for all of them here.
    const ids = await withSql(db.url, seedOldData)
    const applied = await withSql(url, runMigrations)
    expect(applied.map(([id]) => id)).toContain(6)

    await withSql(db.url, Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const columns = yield* sql<{ column_name: string }>`
        SELECT column_name FROM information_schema.columns WHERE table_name = 'findings' AND column_name = 'details'`
      expect(columns).toEqual([])
      const counts = yield* sql<{ id: number; resources_checked: number; resources_failing: number; resources_remediated: number }>`
        SELECT id, resources_checked, resources_failing, resources_remediated FROM findings ORDER BY id`
      expect(counts).toEqual([
        { id: ids.main, resources_checked: 5, resources_failing: 3, resources_remediated: 1 },
        { id: ids.empty, resources_checked: 0, resources_failing: 0, resources_remediated: 0 },
        { id: ids.big, resources_checked: 2_500, resources_failing: 1_250, resources_remediated: 0 },
      ])
      const rems = yield* sql<{ resource_id: string; result_seq: number }>`SELECT resource_id, result_seq FROM remediations ORDER BY id`
      expect(rems).toEqual([{ resource_id: "bucket-fixed", result_seq: 0 }, { resource_id: "bucket-pending", result_seq: 1 }])
      const inventory = yield* sql<{ resource_uid: string }>`SELECT resource_uid FROM resources WHERE account_id = ${ids.account} ORDER BY resource_uid`
      expect(inventory).toHaveLength(2_500 + 5)
      expect(inventory.map((r) => r.resource_uid)).toContain("aws:account:123456789012")
      expect(inventory.map((r) => r.resource_uid)).toContain("aws:s3:us-east-1:bucket-ok")
      // FORCE ROW LEVEL SECURITY is back on every table the migration relaxed.
      const forced = yield* sql<{ relname: string; relforcerowsecurity: boolean }>`
        SELECT relname, relforcerowsecurity FROM pg_class
        WHERE relname IN ('findings', 'remediations', 'scans', 'accounts', 'result_streams', 'result_rows', 'result_marks', 'resources') ORDER BY relname`
      expect(forced.every((r) => r.relforcerowsecurity)).toBe(true)
      expect(forced).toHaveLength(8)
    }))

    // Through the store, in the workspace's RLS scope: failing rows first, each row as it was stored.
    const read = await withSql(db.url, inScope({ workspaceId: ids.ws })(getFinding(ids.ws, ids.main, { page: 1, pageSize: 50, status: null, q: null })))
    expect(read).toBeDefined()
    // result_seq and resource_uid are added by the store (the row's position and the resource's identity).
    const stripped = read!.details.map(({ result_seq: _seq, resource_uid: _uid, ...rest }) => rest)
    const expected = [...OLD_DETAILS.filter((d) => d.compliance === false), ...OLD_DETAILS.filter((d) => d.compliance !== false)]
    expect(stripped).toEqual(expected)
    expect(read!.details.map((d) => d["result_seq"])).toEqual([0, 1, 2, 3, 4])
    expect(read!.details_pagination).toMatchObject({ total: 5, total_pages: 1 })
    // Another workspace's scope sees nothing of it.
    const outside = await withSql(db.url, inScope({ workspaceId: ids.ws + 1000 })(getFinding(ids.ws + 1000, ids.main, { page: 1, pageSize: 50, status: null, q: null })))
    expect(outside).toBeUndefined()

    // Deleting the account cascades to its scans and findings, and a finding's rows go with it (trigger).
    const left = await withSql(db.url, inScope({ workspaceId: ids.ws })(Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`DELETE FROM accounts WHERE id = ${ids.account}`
      return (yield* sql<{ n: number }>`SELECT (SELECT count(*) FROM results) + (SELECT count(*) FROM findings) + (SELECT count(*) FROM resources) AS n`)[0]!.n
    })))
    expect(Number(left)).toBe(0)
  }, 120_000)
})
