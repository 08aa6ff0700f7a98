/**
 * What one scan answers on every surface (issue 28): its summary with services, its findings list, every finding with
 * its rows, its compliance summary, each framework's requirements, the requirements' drill-downs, the framework CSV,
 * the findings exports (CSV, JSON) and, on request, the PDF report's text. For the immutability test (the same answers
 * before and after changes made while a later scan is the latest) and the cross-surface property test.
 *
 * Also `materialise`: the stored counts of seeded findings, services and scans made equal to the algebra of their rows
 * (server/posture/algebra.ts `recountFindings` and `recountServices`), as the scanner's writer
 * and the mute and remediation paths keep them.
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { expect } from "vitest"
import { recountFindings, recountServices } from "../../server/posture/algebra.ts"
import { sleep, type Member, type ScanEnv } from "../scanning/support.ts"

/** Makes the stored counts of the scans' findings, services and scans the algebra of their rows. */
export const materialise = (env: ScanEnv, workspaceId: number, scanIds: ReadonlyArray<number>) =>
  env.sql((sql) =>
    Effect.gen(function* () {
      const findings = yield* sql<{ id: number }>`SELECT id FROM findings WHERE workspace_id = ${workspaceId} AND scan_id = ANY(${scanIds as Array<number>}::int[])`
      const pairs = yield* recountFindings(workspaceId, findings.map((f) => f.id))
      const services = yield* sql<{ scan_id: number; service_id: number }>`
        SELECT scan_id, service_id FROM scan_services WHERE workspace_id = ${workspaceId} AND scan_id = ANY(${scanIds as Array<number>}::int[])`
      yield* recountServices(workspaceId, [...pairs, ...services])
      yield* sql`UPDATE scans s SET total_services = c.n, completed_services = c.n
                 FROM (SELECT scan_id, count(*)::int AS n FROM scan_services WHERE workspace_id = ${workspaceId} GROUP BY scan_id) c
                 WHERE s.workspace_id = ${workspaceId} AND s.id = c.scan_id AND s.id = ANY(${scanIds as Array<number>}::int[])`
    }).pipe(Effect.provideService(SqlClient.SqlClient, sql)),
  )

const ok = async (env: ScanEnv, member: Member, path: string) => {
  const res = await env.call(member, "GET", path)
  expect(res.status, `${path}: ${res.text.slice(0, 300)}`).toBe(200)
  return res
}

export interface ScanAnswers {
  readonly summary: unknown
  readonly findings: ReadonlyArray<any>
  readonly details: ReadonlyArray<unknown>
  readonly compliance: any
  readonly frameworks: Readonly<Record<string, any>>
  readonly requirementDetails: Readonly<Record<string, unknown>>
  readonly csv: Readonly<Record<string, string>>
  readonly exportCsv: string
  readonly exportJson: unknown
}

/** Every finding of the scan across pages of 100. */
export const allFindings = async (env: ScanEnv, member: Member, scanId: number): Promise<ReadonlyArray<any>> => {
  const out: any[] = []
  for (let page = 1; ; page++) {
    const res = await ok(env, member, `/api/findings?scan_id=${scanId}&page=${page}&page_size=100`)
    out.push(...res.body.data)
    if (page >= res.body.pagination.total_pages) return out
  }
}

export const scanAnswers = async (
  env: ScanEnv,
  member: Member,
  scanId: number,
  options: { readonly requirements?: ReadonlyArray<readonly [string, string]> } = {},
): Promise<ScanAnswers> => {
  const summary = (await ok(env, member, `/api/scans/${scanId}`)).body.data
  const findings = await allFindings(env, member, scanId)
  const details = []
  for (const f of findings) details.push((await ok(env, member, `/api/findings/${f.id}?details_page_size=500`)).body.data)
  const compliance = (await ok(env, member, `/api/compliance/scans/${scanId}`)).body.data
  const frameworks: Record<string, any> = {}
  const csv: Record<string, string> = {}
  for (const f of compliance.frameworks) {
    const id = f.framework.id
    frameworks[id] = (await ok(env, member, `/api/compliance/scans/${scanId}/frameworks/${id}`)).body.data
    csv[id] = (await ok(env, member, `/api/compliance/scans/${scanId}/frameworks/${id}/csv`)).text
  }
  const requirementDetails: Record<string, unknown> = {}
  for (const [fw, req] of options.requirements ?? []) {
    requirementDetails[`${fw} ${req}`] = (await ok(env, member, `/api/compliance/scans/${scanId}/frameworks/${fw}/requirements/${req}?page_size=200`)).body.data
  }
  const exportCsv = (await ok(env, member, `/api/scans/${scanId}/export?format=csv`)).text
  const exportJson = (await ok(env, member, `/api/scans/${scanId}/export?format=json`)).body
  return { summary, findings, details, compliance, frameworks, requirementDetails, csv, exportCsv, exportJson }
}

/** The PDF report of the scan over the given frameworks, made by the job and read back as text (pdftotext). */
export const reportText = async (env: ScanEnv, member: Member, scanId: number, frameworkIds: ReadonlyArray<string>): Promise<string> => {
  const created = await env.call(member, "POST", `/api/compliance/scans/${scanId}/reports`, { framework_ids: frameworkIds })
  expect(created.status, created.text).toBe(200)
  const id = created.body.data.id
  const deadline = Date.now() + 60_000
  for (;;) {
    const res = await ok(env, member, `/api/compliance/reports/${id}`)
    if (res.body.data.status === "completed") break
    if (res.body.data.status === "failed" || Date.now() > deadline) throw new Error(`report ${id}: ${res.text}`)
    await sleep(100)
  }
  const res = await fetch(`${env.server.baseUrl}/api/compliance/reports/${id}/download`, {
    headers: { authorization: `Bearer ${member.token}`, "x-workspace-id": String(member.workspaceId) },
  })
  const dir = mkdtempSync(join(tmpdir(), "report-"))
  writeFileSync(join(dir, "r.pdf"), Buffer.from(await res.arrayBuffer()))
  return execFileSync("pdftotext", ["-layout", join(dir, "r.pdf"), "-"], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
}

/** The report's text without what legitimately differs between two renderings (the generation time). */
export const reportNumbers = (text: string): string => text.replace(/Report generated.*\n/, "").replace(/\s+/g, " ")
