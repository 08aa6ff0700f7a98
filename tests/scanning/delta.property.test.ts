/**
 * Delta classification (issue 13; server/scans/results.ts `classify` and the writer), property-tested on a real
 * database: for any two scans of one account — each resource absent, passing or failing in each — every row of the
 * second scan is `new` (failing now, not before), `fixed` (passing now, failing before), `unchanged` otherwise, the
 * finding counts new rows and fixed ones (resources failing before and gone now included), and the first scan's rows
 * are all `first`.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { inScope } from "../../server/auth/rls.ts"
import type { FindingDraft } from "../../server/scans/finding-rows.ts"
import { getFinding } from "../../server/scans/findings-store.ts"
import { classify, writeFindings, type WriteTarget } from "../../server/scans/results.ts"
import { makeTestDatabase, migrateTestDatabase, withSql, type TestDatabase } from "../support/db.ts"
import { seedScanRows, type ScanRows } from "../support/scan-rows.ts"

let db: TestDatabase
let base: ScanRows
let run = 0

beforeAll(async () => {
  db = await makeTestDatabase()
  await migrateTestDatabase(db.url)
  base = await withSql(db.url, seedScanRows({ name: "Delta", serviceKey: "deltasvc", cloudAccountId: "000000000000", scanStatus: "completed" }))
}, 120_000)

afterAll(async () => {
  await db?.close()
})

/** absent, passing or failing */
type State = "absent" | "pass" | "fail"
const RESOURCES = 8

const draft = (states: ReadonlyArray<State>): FindingDraft => ({
  check_id: "delta_check",
  severity: "high",
  status: states.includes("fail") ? "fail" : "pass",
  not_evaluated_reason: null,
  title: "t",
  description: "d",
  policy_check: "p",
  remediation: "r",
  field_labels: {},
  details: states.flatMap((s, i) => (s === "absent" ? [] : [{ resource_id: `r${i}`, region: "us-east-1", compliance: s === "pass", reason: s }])),
  compliance: [],
})

/** A new account with one scan per state list, written and completed in order; answers the last scan's finding. */
const scanTwice = (first: ReadonlyArray<State>, second: ReadonlyArray<State>) =>
  withSql(db.url, inScope({ workspaceId: base.workspaceId })(Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const n = run++
    const accountId = (yield* sql<{ id: number }>`
      INSERT INTO accounts (workspace_id, cloud_provider_id, account_name, cloud_account_id, auth_method, credentials_sealed)
      VALUES (${base.workspaceId}, 1, ${`acct ${n}`}, ${String(100000000000 + n)}, 'access_key', 'v1.x') RETURNING id`)[0]!.id
    const findingIds: Array<number> = []
    for (const states of [first, second]) {
      const scanId = (yield* sql<{ id: number }>`
        INSERT INTO scans (workspace_id, account_id, cloud_provider_id, status) VALUES (${base.workspaceId}, ${accountId}, 1, 'running') RETURNING id`)[0]!.id
      const ssId = (yield* sql<{ id: number }>`
        INSERT INTO scan_services (workspace_id, scan_id, service_id, status) VALUES (${base.workspaceId}, ${scanId}, ${base.serviceId}, 'running') RETURNING id`)[0]!.id
      const target: WriteTarget = {
        workspaceId: base.workspaceId, scanId, scanServiceId: ssId, serviceId: base.serviceId, serviceKey: "deltasvc",
        accountId, cloudAccountId: String(100000000000 + n), cloudProviderId: 1,
      }
      yield* writeFindings(target, [draft(states)])
      yield* sql`UPDATE scans SET status = 'completed', scan_start = now() + make_interval(secs => ${findingIds.length}) WHERE id = ${scanId}`
      findingIds.push((yield* sql<{ id: number }>`SELECT id FROM findings WHERE scan_id = ${scanId}`)[0]!.id)
    }
    const read = (id: number) => getFinding(base.workspaceId, id, { page: 1, pageSize: 500, status: null, q: null })
    return { before: (yield* read(findingIds[0]!))!, after: (yield* read(findingIds[1]!))! }
  })))

describe("delta classification (property)", () => {
  it("classifies every row of a rescan and counts new and fixed resources", async () => {
    const states = fc.array(fc.constantFrom<State>("absent", "pass", "fail"), { minLength: RESOURCES, maxLength: RESOURCES })
    await fc.assert(
      fc.asyncProperty(states, states, async (first, second) => {
        const { before, after } = await scanTwice(first, second)
        expect(before.details.every((d) => d["delta"] === "first")).toBe(true)
        expect(before.resources_new).toBe(0)
        let fresh = 0
        let fixed = 0
        for (let i = 0; i < RESOURCES; i++) {
          const row = after.details.find((d) => d["resource_id"] === `r${i}`)
          if (second[i] === "absent") {
            expect(row).toBeUndefined()
            if (first[i] === "fail") fixed++
            continue
          }
          const expected = second[i] === "fail" ? (first[i] === "fail" ? "unchanged" : "new") : first[i] === "fail" ? "fixed" : "unchanged"
          expect(row?.["delta"], `r${i}: ${first[i]} → ${second[i]}`).toBe(expected)
          if (expected === "new") fresh++
          if (expected === "fixed") fixed++
        }
        expect({ new: after.resources_new, fixed: after.resources_fixed }).toEqual({ new: fresh, fixed })
      }),
      { numRuns: 30 },
    )
  }, 180_000)

  it("classify: no previous scan is 'first' whatever the row", () => {
    fc.assert(fc.property(fc.boolean(), fc.string(), (failing, uid) => classify(failing, uid, undefined) === "first"))
  })
})
