/**
 * A completed scan (AWS unless told) written straight into the database (as the owner, no RLS): an account, a scan, one service row
 * per service, one finding per given check with its counts, and `failing` + `passing` result rows per finding (failing
 * rows first, as the writer numbers them), muted ones with their rule and the scan's snapshot of it. For the compliance API test and the report measurement, which need scans
 * of a chosen shape and size without running the scanner.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { checkInfo } from "../../server/compliance/catalogue.ts"

export interface SeedFinding {
  readonly checkId: string
  readonly failing: number
  readonly passing: number
  /** How many of the failing rows a mute rule covers (its reason: "accepted: <check>"). */
  readonly muted?: number
}

const PROVIDER_IDS = { aws: 1, gcp: 2, azure: 3 } as const

export const seedComplianceScan = (o: {
  /** Default aws. */
  readonly provider?: keyof typeof PROVIDER_IDS
  readonly workspaceId: number
  readonly accountName: string
  readonly cloudAccountId: string
  readonly findings: ReadonlyArray<SeedFinding>
  /** Reuse an account (a second scan of it, for the trend). */
  readonly accountId?: number
  readonly scanStart?: Date
}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const provider = o.provider ?? "aws"
    const providerId = PROVIDER_IDS[provider]
    const one = (rows: ReadonlyArray<{ id: number }>) => rows[0]!.id
    const accountId = o.accountId ?? one(yield* sql<{ id: number }>`
      INSERT INTO accounts (workspace_id, cloud_provider_id, account_name, cloud_account_id, auth_method, credentials_sealed)
      VALUES (${o.workspaceId}, ${providerId}, ${o.accountName}, ${o.cloudAccountId}, 'access_key', 'v1.sealed') RETURNING id`)
    const start = o.scanStart ?? new Date()
    const scanId = one(yield* sql<{ id: number }>`
      INSERT INTO scans (workspace_id, account_id, cloud_provider_id, status, scan_start, scan_end, total_services, completed_services)
      VALUES (${o.workspaceId}, ${accountId}, ${providerId}, 'completed', ${start}, ${new Date(start.getTime() + 60_000)}, 0, 0) RETURNING id`)
    const services = new Map<string, { serviceId: number; scanServiceId: number }>()
    const findingIds = new Map<string, number>()
    for (const f of o.findings) {
      const info = checkInfo(provider, f.checkId)
      if (info === undefined) throw new Error(`unknown ${provider} check ${f.checkId}`)
      let service = services.get(info.service)
      if (service === undefined) {
        const existing = yield* sql<{ id: number }>`SELECT id FROM cloud_services WHERE cloud_provider_id = ${providerId} AND key = ${info.service}`
        const serviceId = existing[0]?.id ?? one(yield* sql<{ id: number }>`
          INSERT INTO cloud_services (cloud_provider_id, key, name) VALUES (${providerId}, ${info.service}, ${info.service.toUpperCase()}) RETURNING id`)
        const scanServiceId = one(yield* sql<{ id: number }>`
          INSERT INTO scan_services (workspace_id, scan_id, service_id, status) VALUES (${o.workspaceId}, ${scanId}, ${serviceId}, 'completed') RETURNING id`)
        service = { serviceId, scanServiceId }
        services.set(info.service, service)
      }
      const muted = Math.min(f.muted ?? 0, f.failing)
      const findingId = one(yield* sql<{ id: number }>`
        INSERT INTO findings (workspace_id, scan_id, scan_service_id, service_id, check_id, severity, status, title, description,
                              policy_check, remediation, resources_checked, resources_failing, resources_muted, muted)
        VALUES (${o.workspaceId}, ${scanId}, ${service.scanServiceId}, ${service.serviceId}, ${f.checkId}, ${info.severity},
                ${f.failing > 0 ? "fail" : "pass"}, ${info.title}, ${info.title}, ${info.title}, ${info.remediation},
                ${f.failing + f.passing}, ${f.failing}, ${muted}, ${f.failing > 0 && muted === f.failing})
        RETURNING id`)
      findingIds.set(f.checkId, findingId)
      let ruleId: number | null = null
      if (muted > 0) {
        ruleId = one(yield* sql<{ id: number }>`
          INSERT INTO mute_rules (workspace_id, check_id, reason) VALUES (${o.workspaceId}, ${f.checkId}, ${`accepted: ${f.checkId}`}) RETURNING id`)
        // The scan's snapshot of the rule (server/posture/algebra.ts), as applying it to a live scan takes it.
        yield* sql`INSERT INTO scan_mutes (workspace_id, scan_id, rule_id, reason) VALUES (${o.workspaceId}, ${scanId}, ${ruleId}, ${`accepted: ${f.checkId}`})`
      }
      const total = f.failing + f.passing
      for (let from = 0; from < total; from += 2000) {
        const rows = Array.from({ length: Math.min(2000, total - from) }, (_, k) => {
          const seq = from + k
          const failing = seq < f.failing
          const resource = `arn:aws:${info.service}:us-east-1:${o.cloudAccountId}:resource/${f.checkId}-${seq}`
          return {
            workspace_id: o.workspaceId,
            finding_id: findingId,
            seq,
            scan_id: scanId,
            resource_id: resource,
            resource_uid: resource,
            region: "us-east-1",
            compliant: !failing,
            fields: { reason: failing ? `${info.title}: not met` : "compliant" },
            muted_by: failing && seq < muted ? ruleId : null,
          }
        })
        yield* sql`
          INSERT INTO results (workspace_id, finding_id, seq, scan_id, resource_id, resource_uid, region, compliant, fields, muted_by)
          SELECT workspace_id, finding_id, seq, scan_id, resource_id, resource_uid, region, compliant, fields, muted_by
          FROM json_to_recordset(${JSON.stringify(rows)}::json) AS x(
            workspace_id int, finding_id int, seq int, scan_id int, resource_id text, resource_uid text, region text,
            compliant boolean, fields jsonb, muted_by int)`
        // The inventory (a resource page finds its rows through it).
        yield* sql`
          INSERT INTO resources (workspace_id, account_id, resource_uid, resource_id, service_key, region, first_scan_id, last_scan_id)
          SELECT ${o.workspaceId}, ${accountId}, x.resource_uid, x.resource_uid, ${info.service}, 'us-east-1', ${scanId}, ${scanId}
          FROM json_to_recordset(${JSON.stringify(rows.map((r) => ({ resource_uid: r.resource_uid })))}::json) AS x(resource_uid text)
          ON CONFLICT (account_id, resource_uid) DO UPDATE SET last_scan_id = excluded.last_scan_id`
      }
    }
    return { accountId, scanId, findingIds }
  })
