/**
 * The findings list works on the server (issue 28 item 5): GET /api/findings filters and sorts over the whole scan —
 * status (muted and not evaluated included), severity, service, check, region, resource search, new/fixed since the
 * previous scan — across every service when no service is named, pages by number or by cursor, and answers the
 * list's totals. A fixed world of two scans written by the real writer, with a mute rule applied as in production.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { inScope } from "../../server/auth/rls.ts"
import type { FindingListResponse } from "../../src/contracts/findings.ts"
import { makeTestDatabase, withSql, type TestDatabase } from "../support/db.ts"
import {
  seedWorldAccount, seedWorldMember, seedWorldMute, seedWorldScan, seedWorldServices, type WorldCheck, type WorldMember,
} from "../support/findings-world.ts"
import { startTestServer, type TestServer } from "../support/server.ts"

let db: TestDatabase
let server: TestServer
let member: WorldMember
let alpha: number
let beta: number
let previousScan: number
let scan: number

const c = (check: string, severity: WorldCheck["severity"], rows: WorldCheck["rows"]): WorldCheck => ({ check, severity, rows })

beforeAll(async () => {
  db = await makeTestDatabase()
  server = await startTestServer({ database: db, env: { LOG_LEVEL: "error" } })
  member = await seedWorldMember(server.databaseUrl, "findings-list", server)
  ;[alpha, beta] = await seedWorldServices(server.databaseUrl, ["alpha", "beta"]) as [number, number]
  const account = await seedWorldAccount(server.databaseUrl, member)
  previousScan = await seedWorldScan(server.databaseUrl, member, account, [
    { id: alpha, key: "alpha", checks: [
      c("alpha_logging", "critical", [{ id: "trail-1", region: "us-east-1", flag: false }, { id: "trail-2", region: "eu-west-1", flag: true }]),
      c("alpha_public_access", "high", [{ id: "gw-3", region: "us-east-1", flag: false }]),
    ] },
    { id: beta, key: "beta", checks: [c("beta_versioning", "medium", [{ id: "bucket-logs", region: "eu-west-1", flag: false }])] },
  ])
  await seedWorldMute(server.databaseUrl, member, "beta_public_bucket", "Public website bucket")
  scan = await seedWorldScan(server.databaseUrl, member, account, [
    { id: alpha, key: "alpha", checks: [
      // fixed: trail-1 failed in the previous scan and passes now
      c("alpha_logging", "critical", [{ id: "trail-1", region: "us-east-1", flag: true }, { id: "trail-2", region: "eu-west-1", flag: true }]),
      // new: gw-4 fails now and did not before
      c("alpha_public_access", "high", [{ id: "gw-3", region: "us-east-1", flag: false }, { id: "gw-4", region: "us-west-2", flag: false }]),
      // not evaluated: its only input could not be read
      c("alpha_encryption", "low", [{ id: "key-5", region: "eu-west-1", flag: null }]),
    ] },
    { id: beta, key: "beta", checks: [
      c("beta_versioning", "medium", [{ id: "bucket-logs", region: "eu-west-1", flag: false }]),
      // muted by the rule above
      c("beta_public_bucket", "high", [{ id: "bucket-public", region: "us-east-1", flag: false }]),
      c("beta_encryption", "critical", [{ id: "bucket-data", region: "ap-south-1", flag: true }]),
    ] },
  ])
}, 120_000)

afterAll(async () => {
  await server?.stop()
  await db?.close()
})

const get = async (query: string): Promise<{ status: number; body: any }> => {
  const res = await fetch(`${server.baseUrl}/api/findings?${query}`, {
    headers: { authorization: `Bearer ${member.token}`, "x-workspace-id": String(member.workspaceId) },
  })
  return { status: res.status, body: await res.json() }
}

const list = async (query: string): Promise<FindingListResponse> => {
  const answer = await get(`scan_id=${scan}&${query}`)
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  return answer.body as FindingListResponse
}

const checks = (body: FindingListResponse) => body.data.map((f) => f.check_id)

describe("GET /api/findings on the server (issue 28 item 5)", () => {
  it("lists every service of the scan without service_id, in the default order, with the totals", async () => {
    const body = await list("")
    expect(checks(body)).toEqual([
      "alpha_public_access", "beta_versioning", "beta_public_bucket", "alpha_encryption", "alpha_logging", "beta_encryption",
    ])
    expect(body.pagination).toMatchObject({ page: 1, total: 6, total_pages: 1 })
    expect(body.totals).toEqual({ findings: 6, findings_unfiltered: 6, resources_checked: 8, resources_failing: 3, resources_matched: null })
    expect(body.regions).toEqual(["ap-south-1", "eu-west-1", "us-east-1", "us-west-2"])
    expect(body.next_cursor).toBeNull()
    expect(new Set(body.data.map((f) => f.service_name))).toEqual(new Set(["ALPHA", "BETA"]))
  })

  it("filters by status: failed (not muted), muted, not evaluated, passed", async () => {
    expect(checks(await list("status=fail"))).toEqual(["alpha_public_access", "beta_versioning"])
    const muted = await list("status=muted")
    expect(checks(muted)).toEqual(["beta_public_bucket"])
    expect(muted.data[0]!.muted).toBe(true)
    expect(checks(await list("status=not_evaluated"))).toEqual(["alpha_encryption"])
    expect(checks(await list("status=pass"))).toEqual(["alpha_logging", "beta_encryption"])
    const failOrMuted = await list("status=fail,muted")
    expect(checks(failOrMuted)).toEqual(["alpha_public_access", "beta_versioning", "beta_public_bucket"])
    expect(failOrMuted.totals).toMatchObject({ findings: 3, findings_unfiltered: 6, resources_checked: 4, resources_failing: 3 })
  })

  it("filters by severity, service and check", async () => {
    expect(checks(await list("severity=critical"))).toEqual(["alpha_logging", "beta_encryption"])
    const betaOnly = await list(`service_id=${beta}`)
    expect(checks(betaOnly)).toEqual(["beta_versioning", "beta_public_bucket", "beta_encryption"])
    expect(betaOnly.totals).toMatchObject({ findings: 3, findings_unfiltered: 3 })
    expect(betaOnly.regions).toEqual(["ap-south-1", "eu-west-1", "us-east-1"])
    expect(checks(await list("check=PUBLIC"))).toEqual(["alpha_public_access", "beta_public_bucket"])
    // the check's text matches too
    expect(checks(await list("check=satisfy%20beta_enc"))).toEqual(["beta_encryption"])
  })

  it("filters by region and by resource search over the scan's rows, counting the matching resources", async () => {
    const eu = await list("region=eu-west-1")
    expect(checks(eu)).toEqual(["beta_versioning", "alpha_encryption", "alpha_logging"])
    expect(eu.data.map((f) => f.resources_matched)).toEqual([1, 1, 1])
    expect(eu.totals).toMatchObject({ findings: 3, resources_matched: 3 })
    expect(checks(await list("region=us-west-2,ap-south-1"))).toEqual(["alpha_public_access", "beta_encryption"])
    const buckets = await list("q=BUCKET")
    expect(checks(buckets)).toEqual(["beta_versioning", "beta_public_bucket", "beta_encryption"])
    expect(buckets.totals?.resources_matched).toBe(3)
    expect(checks(await list("q=bucket&region=us-east-1"))).toEqual(["beta_public_bucket"])
    const gw = await list("q=gw-")
    expect(checks(gw)).toEqual(["alpha_public_access"])
    expect(gw.data[0]!.resources_matched).toBe(2)
    // LIKE wildcards in the search are taken literally
    expect((await list("q=%25")).data).toEqual([])
    expect((await list("q=nothing-like-it")).totals).toMatchObject({ findings: 0, findings_unfiltered: 6, resources_matched: 0 })
  })

  it("filters by change since the previous scan: new, fixed, either", async () => {
    // beta_public_bucket did not run in the previous scan: its failing resource is new (muted or not)
    expect(checks(await list("change=new"))).toEqual(["alpha_public_access", "beta_public_bucket"])
    expect(checks(await list("new_only=true"))).toEqual(["alpha_public_access", "beta_public_bucket"])
    expect(checks(await list("change=fixed"))).toEqual(["alpha_logging"])
    expect(checks(await list("change=new,fixed"))).toEqual(["alpha_public_access", "beta_public_bucket", "alpha_logging"])
    // the previous scan had nothing to compare with
    const first = await get(`scan_id=${previousScan}&change=new`)
    expect(first.body.data).toEqual([])
    expect(first.body.totals.findings_unfiltered).toBe(3)
  })

  it("combines filters", async () => {
    const both = await list(`service_id=${alpha}&status=fail,pass&severity=critical,high`)
    expect(checks(both)).toEqual(["alpha_public_access", "alpha_logging"])
    expect(both.totals).toMatchObject({ findings: 2, findings_unfiltered: 3 })
    expect(checks(await list("status=fail,muted&region=us-east-1&check=public"))).toEqual(["alpha_public_access", "beta_public_bucket"])
    expect(checks(await list("severity=high&q=gw&change=new"))).toEqual(["alpha_public_access"])
  })

  it("sorts by every key in both orders, ties in the default order", async () => {
    expect(checks(await list("sort=severity"))).toEqual([
      "alpha_logging", "beta_encryption", "alpha_public_access", "beta_public_bucket", "beta_versioning", "alpha_encryption",
    ])
    expect(checks(await list("sort=severity&order=desc"))).toEqual([
      "alpha_encryption", "beta_versioning", "alpha_public_access", "beta_public_bucket", "alpha_logging", "beta_encryption",
    ])
    expect(checks(await list("sort=service&order=desc")).slice(0, 3)).toEqual(["beta_versioning", "beta_public_bucket", "beta_encryption"])
    expect(checks(await list("sort=check"))).toEqual([
      "alpha_encryption", "alpha_logging", "alpha_public_access", "beta_encryption", "beta_public_bucket", "beta_versioning",
    ])
    expect(checks(await list("sort=failing&order=desc")).slice(0, 2)).toEqual(["alpha_public_access", "beta_versioning"])
    expect(checks(await list("sort=new&order=desc"))[0]).toBe("alpha_public_access")
    expect(checks(await list("sort=fixed&order=desc"))[0]).toBe("alpha_logging")
    expect(checks(await list("sort=status&order=desc"))).toEqual([
      "alpha_logging", "beta_encryption", "alpha_encryption", "beta_public_bucket", "alpha_public_access", "beta_versioning",
    ])
  })

  it("pages by cursor and by number through the same order", async () => {
    for (const sort of ["status", "check", "service", "failing"]) {
      const all = checks(await list(`sort=${sort}&order=desc`))
      const seen: Array<string> = []
      const pages: Array<number> = []
      let cursor: string | null | undefined
      do {
        const body = await list(`sort=${sort}&order=desc&page_size=4${cursor ? `&cursor=${cursor}` : ""}`.replace("page_size=4", "page_size=2"))
        seen.push(...checks(body))
        pages.push(body.pagination.page)
        expect(body.pagination.total).toBe(6)
        cursor = body.next_cursor
      } while (cursor)
      expect(seen).toEqual(all)
      expect(pages).toEqual([1, 2, 3])
      expect(checks(await list(`sort=${sort}&order=desc&page=2&page_size=4`))).toEqual(all.slice(4))
    }
    expect((await list("page=9")).data).toEqual([])
  })

  it("exports the findings the list shows: the same filters, each finding with all its rows", async () => {
    const exportJson = async (query: string) => {
      const res = await fetch(`${server.baseUrl}/api/scans/${scan}/export?format=json&${query}`, {
        headers: { authorization: `Bearer ${member.token}`, "x-workspace-id": String(member.workspaceId) },
      })
      expect(res.status).toBe(200)
      return (await res.json()) as ReadonlyArray<{ check_id: string; details: ReadonlyArray<unknown> }>
    }
    for (const query of ["q=BUCKET", "region=eu-west-1", "q=bucket&region=us-east-1", "check=public&change=new", "status=muted,not_evaluated"]) {
      const exported = await exportJson(query)
      expect(exported.map((f) => f.check_id).sort(), query).toEqual(checks(await list(query)).sort())
    }
    // A finding matched by one resource is exported with all of its rows.
    expect((await exportJson("q=gw-4")).map((f) => f.details.length)).toEqual([2])
  })

  it("the resource search never reaches another workspace's inventory", async () => {
    const other = await seedWorldMember(server.databaseUrl, "findings-list-other", server)
    const otherAccount = await seedWorldAccount(server.databaseUrl, other)
    await seedWorldScan(server.databaseUrl, other, otherAccount, [
      { id: beta, key: "beta", checks: [c("beta_versioning", "medium", [{ id: "bucket-logs", region: "eu-west-1", flag: false }])] },
    ])
    expect((await list("q=bucket")).totals?.resources_matched).toBe(3)
    // The lookup function answers the caller's workspace only, whatever account id it is given.
    const account = await withSql(server.databaseUrl, Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ account_id: number }>`SELECT account_id FROM scans WHERE id = ${scan}`))
    const seen = await withSql(server.databaseUrl, inScope({ workspaceId: other.workspaceId })(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ resource_uid: string }>`SELECT resource_uid FROM findings_resource_uids(${account[0]!.account_id}, '%bucket%')`)))
    expect(seen).toEqual([])
  })

  it("refuses bad filters and cursors in the catalogue's words, and tells a missing scan or service", async () => {
    const severity = await get(`scan_id=${scan}&severity=urgent`)
    expect(severity.status).toBe(400)
    expect(severity.body.message).toBe("Invalid severity filter: use critical, high, medium or low")
    const change = await get(`scan_id=${scan}&change=older`)
    expect(change.status).toBe(400)
    expect(change.body.message).toBe("Invalid change filter: use new or fixed")
    expect((await get(`scan_id=${scan}&cursor=not-a-cursor`)).body.message).toBe("Invalid cursor: ask for the first page again")
    const first = await list("page_size=2")
    const otherOrder = await get(`scan_id=${scan}&sort=check&cursor=${first.next_cursor}`)
    expect(otherOrder.status).toBe(400)
    expect((await get(`scan_id=${scan}&sort=nonsense`)).status).toBe(400)
    expect((await get(`scan_id=999999`)).status).toBe(404)
    const notInScan = await get(`scan_id=${scan}&service_id=999999`)
    expect(notInScan.status).toBe(404)
    expect(notInScan.body.message).toBe("Service not found in this scan")
  })
})
