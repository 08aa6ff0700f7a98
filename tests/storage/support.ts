/**
 * Scan histories for the retention tests (tests/storage): a workspace with accounts, scans written through the real
 * writer (server/scans/run-service.ts `completeService`: stream locks, versions, marks, mutes, roll-up), with their
 * start and end moved into the past, and every finding's full answer (server/scans/findings-store.ts `getFinding`, every
 * page) read right after it was written.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { inScope } from "../../server/auth/rls.ts"
import type { CheckResult } from "../../server/scanner/check.ts"
import { getFinding } from "../../server/scans/findings-store.ts"
import { completeService } from "../../server/scans/run-service.ts"

/** A resource in one scan: absent, passing, or failing (with a content variant, so rows churn). */
export type RowState = "absent" | "pass" | "fail" | "pass2" | "fail2"

export const CHECKS = ["ret_check_a", "ret_check_b"] as const

const check = (checkId: string, states: ReadonlyArray<RowState>): CheckResult => {
  const details = states.flatMap((s, i) =>
    s === "absent" ? [] : [{ resource_id: `res-${i}`, region: i % 2 === 0 ? "us-east-1" : "eu-west-1", compliant: s.startsWith("pass"), reason: s, size: s.endsWith("2") ? 2 : 1 }])
  return {
    check_id: checkId, service: "retsvc", title: `Check ${checkId}`, policy_check: "p", description: "d", severity: "high",
    cis: {}, remediation: "r", status: details.some((d) => !d.compliant) ? "fail" : "pass", field_labels: { size: "Size" },
    details, errors: [],
  }
}

const one = (rows: ReadonlyArray<{ id: number }>) => rows[0]!.id

/** A workspace owned by `ownerId` with `accounts` AWS accounts; answers their ids. */
export const seedWorkspace = (ownerId: number, name: string, accounts: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const workspaceId = one(yield* sql<{ id: number }>`INSERT INTO workspaces (name, owner_id) VALUES (${name}, ${ownerId}) RETURNING id`)
    const ids = yield* inScope({ workspaceId })(Effect.gen(function* () {
      const out: Array<number> = []
      for (let i = 0; i < accounts; i++) {
        out.push(one(yield* sql<{ id: number }>`
          INSERT INTO accounts (workspace_id, cloud_provider_id, account_name, cloud_account_id, auth_method, credentials_sealed)
          VALUES (${workspaceId}, 1, ${`${name} ${i}`}, ${String(200000000000 + workspaceId * 10 + i)}, 'access_key', 'v1.x') RETURNING id`))
      }
      return out
    }))
    return { workspaceId, accountIds: ids }
  })

/** Opens a running scan of the account with one running service row; answers the ids. */
export const openScan = (workspaceId: number, accountId: number, serviceId: number) =>
  inScope({ workspaceId })(Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const scanId = one(yield* sql<{ id: number }>`
      INSERT INTO scans (workspace_id, account_id, cloud_provider_id, status, total_services)
      VALUES (${workspaceId}, ${accountId}, 1, 'running', 1) RETURNING id`)
    const scanServiceId = one(yield* sql<{ id: number }>`
      INSERT INTO scan_services (workspace_id, scan_id, service_id, status) VALUES (${workspaceId}, ${scanId}, ${serviceId}, 'running') RETURNING id`)
    return { scanId, scanServiceId }
  }))

/**
 * Writes one scan of the account through `completeService` (states per check; a check left out is not run) and moves
 * its start and end to `daysAgo` days before now (`failed`: the scan fails instead, with no finding).
 */
export const writeScan = (
  workspaceId: number,
  accountId: number,
  serviceId: number,
  states: Readonly<Record<string, ReadonlyArray<RowState>>>,
  daysAgo: number,
  failed = false,
) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const { scanId, scanServiceId } = yield* openScan(workspaceId, accountId, serviceId)
    if (failed) {
      yield* inScope({ workspaceId })(sql`
        UPDATE scan_services SET status = 'failed', error = 'boom' WHERE workspace_id = ${workspaceId} AND id = ${scanServiceId}`)
      yield* inScope({ workspaceId })(sql`
        UPDATE scans SET status = 'failed', scan_end = now(), failure_reason = 'boom' WHERE workspace_id = ${workspaceId} AND id = ${scanId}`)
    } else {
      const findings = Object.entries(states).map(([c, s]) => check(c, s))
      const done = yield* completeService({ workspace_id: workspaceId, scan_id: scanId, scan_service_id: scanServiceId }, { findings, resourcesScanned: 1, apiCalls: 1 })
      if (!done) throw new Error("completeService wrote nothing")
    }
    yield* inScope({ workspaceId })(sql`
      UPDATE scans SET scan_start = now() - make_interval(days => ${daysAgo}) - interval '1 hour', scan_end = now() - make_interval(days => ${daysAgo})
      WHERE workspace_id = ${workspaceId} AND id = ${scanId}`)
    return scanId
  })

/** Every finding of the scan, each with all its detail rows (every page, `pageSize` rows a page); `superseded` left out. */
export const readScan = (workspaceId: number, scanId: number, pageSize = 3) =>
  inScope({ workspaceId })(Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const ids = yield* sql<{ id: number }>`SELECT id FROM findings WHERE workspace_id = ${workspaceId} AND scan_id = ${scanId} ORDER BY id`
    const out: Array<unknown> = []
    for (const { id } of ids) {
      const pages: Array<unknown> = []
      let head: Record<string, unknown> | undefined
      for (let page = 1; ; page++) {
        const f = yield* getFinding(workspaceId, id, { page, pageSize, status: null, q: null })
        if (f === undefined) throw new Error(`finding ${id} vanished`)
        const { details, details_pagination, superseded: _s, ...rest } = f
        head ??= rest
        pages.push(...details)
        if (page >= details_pagination.total_pages) break
      }
      out.push({ ...head, details: pages })
    }
    return out
  }))

/** Rows nothing holds any more (must be none after a run without a concurrent writer). */
export const orphans = (workspaceId: number) =>
  inScope({ workspaceId })(Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [r] = yield* sql<{ versions: number; marks: number; remediations: number; streams: number; findings: number }>`
      SELECT
        (SELECT count(*)::int FROM result_rows v WHERE v.workspace_id = ${workspaceId} AND NOT EXISTS (
           SELECT 1 FROM findings f WHERE f.workspace_id = v.workspace_id AND f.stream_id = v.stream_id AND f.id >= v.from_finding AND f.id < v.to_finding)) AS versions,
        (SELECT count(*)::int FROM result_marks m WHERE m.workspace_id = ${workspaceId} AND NOT EXISTS (
           SELECT 1 FROM findings f WHERE f.id = m.finding_id)) AS marks,
        (SELECT count(*)::int FROM remediations r WHERE r.workspace_id = ${workspaceId} AND NOT EXISTS (
           SELECT 1 FROM findings f WHERE f.id = r.finding_id)) AS remediations,
        (SELECT count(*)::int FROM result_streams s WHERE s.workspace_id = ${workspaceId}
           AND NOT EXISTS (SELECT 1 FROM findings f WHERE f.workspace_id = s.workspace_id AND f.stream_id = s.id)
           AND NOT EXISTS (SELECT 1 FROM result_rows v WHERE v.workspace_id = s.workspace_id AND v.stream_id = s.id)) AS streams,
        (SELECT count(*)::int FROM findings f WHERE f.workspace_id = ${workspaceId} AND NOT EXISTS (
           SELECT 1 FROM scans s WHERE s.id = f.scan_id)) AS findings`
    return r!
  }))
