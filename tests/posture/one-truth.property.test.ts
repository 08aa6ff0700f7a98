/**
 * One truth (issue 28): a cross-surface property test. Random worlds — accounts with successive scans whose checks
 * have rows of every outcome (pass, fail, not evaluated; then muted by rules and remediated), checks that could not
 * decide, mute rules created (by account, check, resource pattern, or workspace-wide) and expired between scans,
 * remediations of the latest scan's failing rows — and then every aggregate the product exposes must equal the algebra
 * (src/contracts/outcomes.ts) computed here over the stored rows alone:
 *   scan and service check counts (GET /api/scans/{id}); each finding's counts and outcome (the findings list, the
 *   finding's failing and muted row totals, the JSON export); each row's outcome (CSV and OCSF exports); requirement
 *   statuses and counts and framework counts and scores (compliance JSON, framework CSV, trend, the PDF's text via
 *   pdftotext); failing resources by severity and the top failing checks (overview); the digest email's numbers; each
 *   scan's stored roll-up (`check_outcomes`, `failing_resources`: what organisation compliance and the fleet trend read).
 * Superseded scans' rows and roll-ups are also compared with what they were when superseded (history is immutable).
 *
 * World counts: NUM_RUNS worlds of 1–2 accounts × 2–3 scans × 3–8 checks × 0–6 rows (see the log line for the rows of
 * each world); the run takes well under a minute.
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SEVERITIES, type Severity } from "../../src/contracts/findings.ts"
import {
  checkCounts, checkOutcome, countStatuses, failingResources, isRemediatedStatus, requirementStatus, rowOutcome, scanCheckCounts,
  type CheckCounts, type RequirementStatus, type RowOutcome,
} from "../../src/contracts/outcomes.ts"
import { checkInfo, frameworkById } from "../../server/compliance/catalogue.ts"
import { expireMuteRules } from "../../server/posture/mute-rules.ts"
import { applyMutes } from "../../server/posture/mutes.ts"
import { recordRemediation, recountFindings, recountServices } from "../../server/posture/algebra.ts"
import { parseCsv } from "../scanning/csv-parse.ts"
import { sleep, startScanEnv, type Member, type ScanEnv } from "../scanning/support.ts"
import { allFindings, materialise } from "./answers.ts"

const NUM_RUNS = 6
const HAS_POPPLER = existsSync("/usr/bin/pdftotext")
const FRAMEWORKS = ["cis-aws-3.0.0", "aws-fsbp"] as const
const POOL = [
  "iam_user_mfa_enabled_console_access", "iam_root_mfa_enabled", "iam_password_policy_minimum_length_14", "s3_bucket_secure_transport_policy",
  "ec2_instance_imdsv2_enabled", "ec2_ebs_default_encryption", "iam_rotate_access_key_90_days", "s3_account_level_public_access_blocks",
] as const
type CheckId = (typeof POOL)[number]

// ---------------------------------------------------------------------------------------------------
// Worlds

interface CheckSpec {
  readonly checkId: CheckId
  /** true: the check could not decide (no failing row, some unreadable inputs). */
  readonly undecided: boolean
  /** Row compliance flags (null: an input that could not be read) and, for failing rows, whether they are new. */
  readonly rows: ReadonlyArray<{ readonly compliant: boolean | null; readonly fresh: boolean }>
}

type Event =
  | { readonly kind: "mute"; readonly scope: "account" | "workspace" | "pattern"; readonly check: CheckId; readonly k: number }
  | { readonly kind: "expire"; readonly pick: number }
  | { readonly kind: "remediate"; readonly pick: number }

interface ScanSpec {
  readonly checks: ReadonlyArray<CheckSpec>
  readonly events: ReadonlyArray<Event>
}

const rowArb = fc.record({ compliant: fc.constantFrom(true, true, false, false, null), fresh: fc.boolean() })
const checkArb = (checkId: CheckId) =>
  fc.record({ undecided: fc.boolean().map((b) => b && Math.random() < 0.5), rows: fc.array(rowArb, { maxLength: 6 }) }).map(({ undecided, rows }): CheckSpec => ({
    checkId,
    undecided,
    // A check that could not decide has no failing row and at least one unreadable input.
    rows: undecided ? [...rows.filter((r) => r.compliant !== false), { compliant: null, fresh: false }] : rows,
  }))
const eventArb: fc.Arbitrary<Event> = fc.oneof(
  fc.record({ kind: fc.constant("mute" as const), scope: fc.constantFrom("account" as const, "workspace" as const, "pattern" as const), check: fc.constantFrom(...POOL), k: fc.nat({ max: 2 }) }),
  fc.record({ kind: fc.constant("expire" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("remediate" as const), pick: fc.nat() }),
)
const scanArb: fc.Arbitrary<ScanSpec> = fc
  .subarray([...POOL], { minLength: 3 })
  .chain((ids) => fc.record({ checks: fc.tuple(...ids.map(checkArb)), events: fc.array(eventArb, { maxLength: 4 }) }))
const worldArb = fc.array(fc.array(scanArb, { minLength: 2, maxLength: 3 }), { minLength: 1, maxLength: 2 })

// ---------------------------------------------------------------------------------------------------
// The product

let env: ScanEnv
let worldNo = 0

const inDb = <A>(effect: Effect.Effect<A, unknown, SqlClient.SqlClient>) => env.sql((sql) => Effect.provideService(effect, SqlClient.SqlClient, sql))

const resourceOf = (account: string, checkId: string, k: number) => `arn:aws:${checkInfo("aws", checkId)!.service}:us-east-1:${account}:resource/${checkId}-${k}`

/** Writes one completed scan as the scanner's writer would (findings, rows failing first, inventory), then its mutes. */
const writeScan = (workspaceId: number, accountId: number, cloudAccountId: string, spec: ScanSpec, start: Date) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const one = (rows: ReadonlyArray<{ id: number }>) => rows[0]!.id
    const scanId = one(yield* sql<{ id: number }>`
      INSERT INTO scans (workspace_id, account_id, cloud_provider_id, status, scan_start, scan_end, digest_enqueued_at)
      VALUES (${workspaceId}, ${accountId}, 1, 'completed', ${start}, ${new Date(start.getTime() + 60_000)}, now()) RETURNING id`)
    const services = new Map<string, { serviceId: number; scanServiceId: number }>()
    for (const c of spec.checks) {
      const info = checkInfo("aws", c.checkId)!
      let service = services.get(info.service)
      if (service === undefined) {
        const existing = yield* sql<{ id: number }>`SELECT id FROM cloud_services WHERE cloud_provider_id = 1 AND key = ${info.service}`
        const serviceId = existing[0]?.id ?? one(yield* sql<{ id: number }>`
          INSERT INTO cloud_services (cloud_provider_id, key, name) VALUES (1, ${info.service}, ${info.service.toUpperCase()}) RETURNING id`)
        const scanServiceId = one(yield* sql<{ id: number }>`
          INSERT INTO scan_services (workspace_id, scan_id, service_id, status) VALUES (${workspaceId}, ${scanId}, ${serviceId}, 'completed') RETURNING id`)
        services.set(info.service, (service = { serviceId, scanServiceId }))
      }
      const ordered = [...c.rows.map((r, k) => ({ ...r, k })).filter((r) => r.compliant === false), ...c.rows.map((r, k) => ({ ...r, k })).filter((r) => r.compliant !== false)]
      const failing = ordered.filter((r) => r.compliant === false).length
      const status = failing > 0 ? "fail" : c.undecided ? "not_evaluated" : "pass"
      const findingId = one(yield* sql<{ id: number }>`
        INSERT INTO findings (workspace_id, scan_id, scan_service_id, service_id, check_id, severity, status, not_evaluated_reason, title,
                              description, policy_check, remediation, resources_checked, resources_failing)
        VALUES (${workspaceId}, ${scanId}, ${service.scanServiceId}, ${service.serviceId}, ${c.checkId}, ${info.severity}, ${status},
                ${status === "not_evaluated" ? `${c.checkId}: AccessDenied` : null}, ${info.title}, ${info.title}, ${info.title},
                ${info.remediation}, ${ordered.length}, ${failing})
        RETURNING id`)
      const rows = ordered.map((r, seq) => ({
        seq,
        resource: resourceOf(cloudAccountId, c.checkId, r.k),
        compliant: r.compliant,
        delta: r.compliant === false ? (r.fresh ? "new" : "unchanged") : "unchanged",
      }))
      if (rows.length === 0) continue
      yield* sql`
        INSERT INTO results (workspace_id, finding_id, seq, scan_id, resource_id, resource_uid, region, compliant, fields, delta)
        SELECT ${workspaceId}, ${findingId}, x.seq, ${scanId}, x.resource, x.resource, 'us-east-1', x.compliant,
               jsonb_build_object('reason', 'seeded'), x.delta
        FROM json_to_recordset(${JSON.stringify(rows)}::json) AS x(seq int, resource text, compliant boolean, delta text)`
      yield* sql`
        INSERT INTO resources (workspace_id, account_id, resource_uid, resource_id, service_key, region, first_scan_id, last_scan_id)
        SELECT DISTINCT ${workspaceId}, ${accountId}, x.resource, x.resource, ${info.service}, 'us-east-1', ${scanId}, ${scanId}
        FROM json_to_recordset(${JSON.stringify(rows)}::json) AS x(resource text)
        ON CONFLICT (account_id, resource_uid) DO UPDATE SET last_scan_id = excluded.last_scan_id`
    }
    return scanId
  })

/** What the remediation job does on success, in a live scan (server/scans/remediation.ts `finishRemediation`). */
const remediate = (workspaceId: number, findingId: number, seq: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* recordRemediation(workspaceId, findingId, seq, { status: "remediated", message: "fixed", attempted_at: new Date().toISOString(), attempted_by: null })
    yield* recountServices(workspaceId, yield* recountFindings(workspaceId, [findingId]))
  })

/** A scan's stored roll-up beside `outcome_counts` (migration 0032): its checks' facts and failing resources. */
const storedRollup = (workspaceId: number, scanId: number) =>
  env.sql((sql) => sql<{ check_outcomes: Record<string, ReadonlyArray<string | number>>; failing_resources: number }>`
    SELECT check_outcomes, failing_resources FROM scans WHERE workspace_id = ${workspaceId} AND id = ${scanId}`).then((r) => r[0]!)

interface StoredRow {
  readonly scan_id: number
  readonly finding_id: number
  readonly check_id: string
  readonly severity: Severity
  readonly status: "pass" | "fail" | "remediated" | "not_evaluated"
  readonly service_id: number
  readonly seq: number | null
  readonly compliant: boolean | null
  readonly muted_by: number | null
  readonly remediate: { readonly status?: string } | null
  readonly delta: string | null
}

const storedRows = (workspaceId: number) =>
  env.sql((sql) => sql<StoredRow>`
    SELECT f.scan_id, f.id AS finding_id, f.check_id, f.severity, f.status, f.service_id, r.seq, r.compliant, r.muted_by, r.remediate, r.delta
    FROM findings f LEFT JOIN results r ON r.workspace_id = f.workspace_id AND r.finding_id = f.id
    WHERE f.workspace_id = ${workspaceId} ORDER BY f.scan_id, f.id, r.seq`)

// ---------------------------------------------------------------------------------------------------
// The algebra over the rows (the model)

interface ModelCheck extends CheckCounts {
  readonly finding_id: number
  readonly check_id: string
  readonly severity: Severity
  readonly status: StoredRow["status"]
  readonly service_id: number
  readonly rows: ReadonlyArray<{ readonly seq: number; readonly outcome: RowOutcome; readonly fresh: boolean }>
}

const modelOf = (rows: ReadonlyArray<StoredRow>): Map<number, Map<string, ModelCheck>> => {
  const byFinding = new Map<number, StoredRow[]>()
  for (const r of rows) (byFinding.get(r.finding_id) ?? byFinding.set(r.finding_id, []).get(r.finding_id)!).push(r)
  const scans = new Map<number, Map<string, ModelCheck>>()
  for (const [findingId, list] of byFinding) {
    const first = list[0]!
    const facts = list.filter((r) => r.seq !== null).map((r) => ({
      seq: r.seq!,
      facts: { compliant: r.compliant, remediated: isRemediatedStatus(r.remediate?.status), muted: r.muted_by !== null },
      fresh: r.delta === "new",
    }))
    const counts = checkCounts(facts.map((f) => f.facts))
    // The stored status says whether the check decided; fail / remediated follow the rows.
    const status: StoredRow["status"] = first.status === "not_evaluated" ? "not_evaluated"
      : counts.resources_failing === 0 ? "pass"
      : counts.resources_remediated === counts.resources_failing ? "remediated" : "fail"
    const check: ModelCheck = {
      ...counts, finding_id: findingId, check_id: first.check_id, severity: first.severity, status, service_id: first.service_id,
      rows: facts.map((f) => ({ seq: f.seq, outcome: rowOutcome(f.facts), fresh: f.fresh })),
    }
    ;(scans.get(first.scan_id) ?? scans.set(first.scan_id, new Map()).get(first.scan_id)!).set(check.check_id, check)
  }
  return scans
}

const requirementsOf = (frameworkId: string, checks: ReadonlyMap<string, ModelCheck>) =>
  frameworkById(frameworkId)!.requirements.map((r) => {
    const found = r.checks.flatMap((id) => (checks.has(id) ? [checks.get(id)!] : []))
    return {
      id: r.id,
      status: requirementStatus(r.checks.length, found),
      checks_failed: found.filter((c) => checkOutcome(c) === "failed").length,
      checks_not_evaluated: found.filter((c) => checkOutcome(c) === "not_evaluated").length,
      checks_with_exceptions: found.filter((c) => checkOutcome(c) === "passed_with_exceptions").length,
      resources_checked: found.reduce((n, c) => n + c.resources_checked, 0),
      resources_failing: found.reduce((n, c) => n + failingResources(c), 0),
      resources_muted: found.reduce((n, c) => n + c.resources_muted, 0),
    }
  })

const countsLine = (c: { passed: number; passed_with_exceptions: number; failed: number; not_evaluated: number; manual: number; not_applicable: number; total: number }) =>
  `${c.passed} passed, ${c.passed_with_exceptions} passed with exceptions, ${c.failed} failed, ${c.not_evaluated} not evaluated, ${c.manual} manual, ${c.not_applicable} not applicable of ${c.total} requirements`

// ---------------------------------------------------------------------------------------------------

beforeAll(async () => {
  process.env["POSTURE_TICK_SECONDS"] = "1"
  env = await startScanEnv()
}, 120_000)

afterAll(async () => {
  delete process.env["POSTURE_TICK_SECONDS"]
  await env?.stop()
})

const get = async (member: Member, path: string) => {
  const res = await env.call(member, "GET", path)
  expect(res.status, `${path}: ${res.text.slice(0, 300)}`).toBe(200)
  return res
}

const pdfText = async (member: Member, scanId: number): Promise<string> => {
  const created = await env.call(member, "POST", `/api/compliance/scans/${scanId}/reports`, { framework_ids: [...FRAMEWORKS] })
  expect(created.status, created.text).toBe(200)
  for (;;) {
    const r = (await get(member, `/api/compliance/reports/${created.body.data.id}`)).body.data
    if (r.status === "completed") break
    if (r.status === "failed") throw new Error(r.error)
    await sleep(50)
  }
  const res = await fetch(`${env.server.baseUrl}/api/compliance/reports/${created.body.data.id}/download`, {
    headers: { authorization: `Bearer ${member.token}`, "x-workspace-id": String(member.workspaceId) },
  })
  const dir = mkdtempSync(join(tmpdir(), "one-truth-"))
  writeFileSync(join(dir, "r.pdf"), Buffer.from(await res.arrayBuffer()))
  return execFileSync("pdftotext", [join(dir, "r.pdf"), "-"], { encoding: "utf8" }).replace(/\s+/g, " ")
}

const runWorld = async (world: ReadonlyArray<ReadonlyArray<ScanSpec>>) => {
  worldNo++
  const owner = await env.workspace(`World ${worldNo}`)
  const w = owner.workspaceId
  const accounts: Array<{ id: number; cloud: string; scans: number[] }> = []
  const frozen = new Map<number, string>()
  const frozenRollup = new Map<number, string>()
  const rules: number[] = []
  const start = Date.now() - 30 * 86_400_000
  let clock = 0
  for (const [a, scans] of world.entries()) {
    const cloud = `${100000000000 + worldNo * 10 + a}`
    const created = await env.sql((sql) => sql<{ id: number }>`
      INSERT INTO accounts (workspace_id, cloud_provider_id, account_name, cloud_account_id, auth_method, credentials_sealed)
      VALUES (${w}, 1, ${`Account ${a}`}, ${cloud}, 'access_key', 'v1.sealed') RETURNING id`)
    accounts.push({ id: created[0]!.id, cloud, scans: [] })
  }
  // Scans of the accounts interleaved in time, each followed by its events.
  const maxScans = Math.max(...world.map((s) => s.length))
  for (let k = 0; k < maxScans; k++) {
    for (const [a, scans] of world.entries()) {
      const spec = scans[k]
      if (spec === undefined) continue
      const account = accounts[a]!
      const previous = account.scans.at(-1)
      const scanId = await inDb(writeScan(w, account.id, account.cloud, spec, new Date(start + ++clock * 3_600_000)))
      account.scans.push(scanId)
      await materialise(env, w, [scanId])
      await inDb(applyMutes(w, { scanId }))
      // The previous scan is superseded now: its rows must never change again.
      if (previous !== undefined) frozen.set(previous, JSON.stringify((await storedRows(w)).filter((r) => r.scan_id === previous)))
      if (previous !== undefined) frozenRollup.set(previous, JSON.stringify(await storedRollup(w, previous)))
      for (const e of spec.events) {
        if (e.kind === "mute") {
          const body = e.scope === "pattern"
            ? { reason: `pattern ${e.check}-${e.k}`, resource_pattern: `*${e.check}-${e.k}` }
            : { reason: `mute ${e.check}`, check_id: e.check, ...(e.scope === "account" ? { account_id: account.id } : {}) }
          const res = await env.call(owner, "POST", "/api/mute-rules", body)
          if (res.status === 200) rules.push(res.body.data.id)
          else expect(res.body.message, res.text).toBe("This resource pattern matches no resource")
        } else if (e.kind === "expire" && rules.length > 0) {
          const id = rules.splice(e.pick % rules.length, 1)[0]!
          await env.sql((sql) => sql`UPDATE mute_rules SET expires_at = now() - interval '1 second' WHERE id = ${id}`)
          await inDb(expireMuteRules(w))
        } else if (e.kind === "remediate") {
          const open = (await storedRows(w)).filter((r) => r.scan_id === scanId && r.compliant === false && !isRemediatedStatus(r.remediate?.status))
          if (open.length > 0) {
            const row = open[e.pick % open.length]!
            await inDb(remediate(w, row.finding_id, row.seq!))
          }
        }
      }
    }
  }

  const rows = await storedRows(w)
  for (const [scanId, before] of frozen) expect(JSON.stringify(rows.filter((r) => r.scan_id === scanId)), `superseded scan ${scanId}`).toBe(before)
  for (const [scanId, before] of frozenRollup) expect(JSON.stringify(await storedRollup(w, scanId)), `roll-up of superseded scan ${scanId}`).toBe(before)
  const model = modelOf(rows)
  console.info(`one-truth world ${worldNo}: ${accounts.length} accounts, ${accounts.reduce((n, a) => n + a.scans.length, 0)} scans, ${rows.filter((r) => r.seq !== null).length} rows`)

  for (const account of accounts) {
    for (const scanId of account.scans) {
      const checks = model.get(scanId) ?? new Map<string, ModelCheck>()
      const list = [...checks.values()]
      // The stored roll-up (migration 0032, what organisation compliance and the fleet trend read): each check's facts,
      // and the failing resources of its failed checks.
      expect(await storedRollup(w, scanId), `roll-up of scan ${scanId}`).toEqual({
        check_outcomes: Object.fromEntries(list.map((m) => [m.check_id, [m.status, m.resources_checked, m.resources_failing, m.resources_remediated, m.resources_muted]])),
        failing_resources: list.filter((m) => checkOutcome(m) === "failed").reduce((n, m) => n + failingResources(m), 0),
      })
      // Scan and services (unit: checks).
      const scan = (await get(owner, `/api/scans/${scanId}`)).body.data
      expect(scan, `scan ${scanId}`).toMatchObject(scanCheckCounts(list))
      for (const s of scan.services) expect(s, `scan ${scanId} service ${s.service_name}`).toMatchObject(scanCheckCounts(list.filter((c) => c.service_id === s.service_id)))
      // Findings (unit: resources) and their outcome.
      const findings = await allFindings(env, owner, scanId)
      expect(findings.length).toBe(list.length)
      for (const f of findings) {
        const m = checks.get(f.check_id)!
        expect(f, `finding ${f.check_id}`).toMatchObject({
          outcome: m.status, resources_checked: m.resources_checked, resources_failing: m.resources_failing,
          resources_remediated: m.resources_remediated, resources_muted: m.resources_muted, muted: checkOutcome(m) === "passed_with_exceptions",
        })
        if (m.resources_failing > 0) {
          const fail = (await get(owner, `/api/findings/${f.id}?details_status=fail&details_page_size=1`)).body.data.details_pagination.total
          const muted = (await get(owner, `/api/findings/${f.id}?details_status=muted&details_page_size=1`)).body.data.details_pagination.total
          // `fail` rows: non-compliant and not muted (remediated ones included, as the finding page lists them).
          expect([fail, muted], `finding ${f.check_id} row totals`).toEqual([
            m.rows.filter((r) => r.outcome === "fail" || r.outcome === "remediated").length,
            m.rows.filter((r) => r.outcome === "muted").length,
          ])
        }
      }
      // Exports: each finding's counts and each row's outcome.
      const json = (await get(owner, `/api/scans/${scanId}/export?format=json`)).body
      const exported: ReadonlyArray<any> = Array.isArray(json) ? json : (json.findings ?? json.data)
      for (const f of exported) {
        const m = checks.get(f.check_id)!
        expect(f, `export ${f.check_id}`).toMatchObject({ resources_failing: m.resources_failing, resources_muted: m.resources_muted, resources_remediated: m.resources_remediated })
      }
      const csv = parseCsv((await get(owner, `/api/scans/${scanId}/export?format=csv`)).text)
      const header = csv[0]!
      const col = (name: string) => header.indexOf(name)
      for (const line of csv.slice(1)) {
        if (line[col("resource_id")] === "") continue
        const m = checks.get(line[col("check_id")]!)!
        const k = Number(/-(\d+)$/.exec(line[col("resource_id")]!)![1])
        const expected = m.rows.filter((r) => r.outcome === line[col("outcome")])
        expect(expected.length, `CSV row ${line[col("check_id")]} ${k} ${line[col("outcome")]}`).toBeGreaterThan(0)
        expect(line[col("check_outcome")]).toBe(checkOutcome(m))
      }
      expect(csv.slice(1).filter((l) => l[col("outcome")] === "muted").length).toBe(list.reduce((n, c) => n + c.resources_muted, 0))
      // OCSF: muted failing rows are Suppressed, remediated ones Resolved.
      const ocsf: ReadonlyArray<any> = (await get(owner, `/api/scans/${scanId}/export?format=ocsf`)).body
      const rowsOfScan = list.flatMap((c) => c.rows)
      expect(ocsf.filter((r) => r.status === "Suppressed" && r.resources.length > 0).length, "OCSF suppressed").toBe(rowsOfScan.filter((r) => r.outcome === "muted").length)
      expect(ocsf.filter((r) => r.status === "Resolved" && r.resources.length > 0).length, "OCSF resolved").toBe(rowsOfScan.filter((r) => r.outcome === "remediated").length)
      expect(csv.slice(1).filter((l) => l[col("outcome")] === "fail").length).toBe(list.reduce((n, c) => n + failingResources(c), 0))
      // Compliance: requirements, framework counts, CSV.
      const summary = (await get(owner, `/api/compliance/scans/${scanId}`)).body.data
      for (const fw of FRAMEWORKS) {
        const expected = requirementsOf(fw, checks)
        const counts = countStatuses(expected.map((r) => r.status as RequirementStatus))
        const answer = (await get(owner, `/api/compliance/scans/${scanId}/frameworks/${fw}`)).body.data
        expect(answer.counts, `${fw} counts`).toEqual(counts)
        expect(summary.frameworks.find((x: any) => x.framework.id === fw).counts).toEqual(counts)
        for (const r of expected) expect(answer.requirements.find((x: any) => x.id === r.id), `${fw} ${r.id}`).toMatchObject(r)
        const lines = parseCsv((await get(owner, `/api/compliance/scans/${scanId}/frameworks/${fw}/csv`)).text)
        const h = lines[0]!
        for (const r of expected) {
          const line = lines.find((l) => l[h.indexOf("requirement_id")] === r.id)!
          expect([line[h.indexOf("status")], Number(line[h.indexOf("resources_failing")]), Number(line[h.indexOf("resources_muted")])], `${fw} CSV ${r.id}`)
            .toEqual([r.status, r.resources_failing, r.resources_muted])
        }
      }
    }
    // The trend: each completed scan's framework counts.
    const trend = (await get(owner, `/api/compliance/accounts/${account.id}/frameworks/cis-aws-3.0.0/trend`)).body.data.points
    expect(trend.map((p: any) => p.scan_id)).toEqual(account.scans)
    for (const p of trend) {
      expect(p.counts, `trend ${p.scan_id}`).toEqual(countStatuses(requirementsOf("cis-aws-3.0.0", model.get(p.scan_id) ?? new Map()).map((r) => r.status)))
    }
  }
  // The overview: failing resources by severity per scan; the top failing checks over the accounts' latest scans.
  const overview = (await get(owner, "/api/posture/overview")).body.data
  for (const account of accounts) {
    const a = overview.accounts.find((x: any) => x.account_id === account.id)
    for (const s of a.scans) {
      const list = [...(model.get(s.scan_id) ?? new Map<string, ModelCheck>()).values()]
      const bySeverity = Object.fromEntries(SEVERITIES.map((sev) => [sev, list.filter((c) => c.severity === sev).reduce((n, c) => n + failingResources(c), 0)]))
      expect(s.failing, `overview ${s.scan_id}`).toEqual(bySeverity)
    }
  }
  const latest = accounts.map((a) => [...(model.get(a.scans.at(-1)!) ?? new Map<string, ModelCheck>()).values()])
  const top = new Map<string, { resources: number; accounts: number }>()
  for (const list of latest) {
    for (const c of list) {
      if (failingResources(c) === 0) continue
      const t = top.get(c.check_id) ?? { resources: 0, accounts: 0 }
      top.set(c.check_id, { resources: t.resources + failingResources(c), accounts: t.accounts + 1 })
    }
  }
  expect(Object.fromEntries(overview.top_failing_checks.map((t: any) => [t.check_id, { resources: t.resources, accounts: t.accounts }]))).toEqual(Object.fromEntries(top))

  // The PDF of the first account's latest scan.
  const last = accounts[0]!.scans.at(-1)!
  if (HAS_POPPLER) {
    const text = await pdfText(owner, last)
    for (const fw of FRAMEWORKS) {
      const c = countStatuses(requirementsOf(fw, model.get(last) ?? new Map()).map((r) => r.status))
      expect(text, `PDF ${fw}`).toContain(countsLine(c))
    }
  }
  // The digest of that scan: new failing, fixed, still failing resources.
  await env.sql((sql) => sql`UPDATE users SET scan_digest = true WHERE id = ${owner.userId}`)
  // Unclaimed and just finished: the posture ticker queues its digest (server/scans/posture-ticker.ts).
  await env.sql((sql) => sql`UPDATE scans SET digest_enqueued_at = NULL, scan_end = now() WHERE id = ${last}`)
  const mail = await (async () => {
    const deadline = Date.now() + 20_000
    for (;;) {
      const mails = await env.sql((sql) => sql<{ text_body: string }>`
        SELECT text_body FROM dev_outbox WHERE to_address = ${owner.email} AND text_body LIKE ${`%/dashboard/scans/${last}%`}`)
      if (mails[0] !== undefined) return mails[0].text_body
      if (Date.now() > deadline) throw new Error("no digest")
      await sleep(100)
    }
  })()
  const lastRows = [...(model.get(last) ?? new Map<string, ModelCheck>()).values()].flatMap((c) => c.rows)
  const fresh = lastRows.filter((r) => r.outcome === "fail" && r.fresh).length
  const still = lastRows.filter((r) => r.outcome === "fail" && !r.fresh).length
  expect(mail).toContain(`${fresh} new failing, 0 fixed, ${still} still failing`)
}

describe("one truth across every surface (property)", () => {
  it("every aggregate of every endpoint and export equals the algebra over the rows", async () => {
    const started = Date.now()
    await fc.assert(fc.asyncProperty(worldArb, runWorld), { numRuns: NUM_RUNS, endOnFailure: true })
    console.info(`one-truth: ${NUM_RUNS} worlds in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  }, 170_000)
})
