/**
 * PDF reports as jobs (issue 14 "Report generation is a job; the UI shows progress and the download when ready").
 *
 * Request (POST /api/compliance/scans/{id}/reports, read access): the scan must be completed and every named framework
 * must apply to its provider; in one transaction a `compliance_reports` row (pending) is
 * inserted and the `compliance.report` job enqueued with ids only; finished reports of the scan older than the newest
 * REPORTS_KEPT_PER_SCAN (the new one included) are deleted with their chunks.
 * Job: claims the row (pending|running → running, progress 0), drops chunks of an earlier attempt, renders the PDF
 * (server/compliance/pdf.ts) and writes it as ordered chunks of about CHUNK_BYTES, each in its own short transaction,
 * recording progress as it goes; then completed with the page count and size. A failure records `failed` with a
 * message on the last attempt (the row stays `running` between pg-boss retries).
 * Download: the chunks, streamed back by keyset, each page of chunks in its own RLS transaction.
 */
import { Effect, Option, Schema, Stream } from "effect"
import { SqlClient } from "effect/sql"
import {
  ComplianceMessages as M,
  type FrameworkId,
  type Report,
  type ReportId,
  type ReportStatus,
} from "../../src/contracts/compliance.ts"
import { NotFound } from "../../src/contracts/errors.ts"
import type { ScanId } from "../../src/contracts/ids.ts"
import type { WorkspaceContext } from "../auth/workspace-context.ts"
import { iso } from "../accounts/accounts-store.ts"
import { inScope } from "../auth/rls.ts"
import type { JobContext, JobDefinition } from "../jobs/queue.ts"
import { logLine } from "../log.ts"
import { enqueueInTransaction } from "../scans/transactional-enqueue.ts"
import { publishReportReady } from "../integrations/events.ts"
import { checkInfo, frameworkById, type CatalogueFramework } from "./catalogue.ts"
import { openFailing } from "./evaluate.ts"
import { renderReport, type FailingCheck } from "./pdf.ts"
import { completedScan, evaluateScanFramework } from "./service.ts"
import { failingAfter, scanFacts, scanOutcomes } from "./store.ts"

export const ReportPayload = Schema.Struct({ workspace_id: Schema.Int, report_id: Schema.Int })
export type ReportPayload = typeof ReportPayload.Type

export const REPORT_JOB = "compliance.report"
export const REPORT_RETRY_LIMIT = 1
/** Bytes per stored chunk (and per write transaction). */
export const CHUNK_BYTES = 256 * 1024
/** Chunks per download page. */
const DOWNLOAD_PAGE = 8
/** Reports kept per scan, the new request included: it drops older finished ones (and their chunks) beyond this many. */
export const REPORTS_KEPT_PER_SCAN = 5

interface ReportRow {
  readonly id: number
  readonly scan_id: number
  readonly framework_ids: ReadonlyArray<string>
  readonly status: ReportStatus
  readonly progress: number
  readonly pages: number | null
  readonly bytes: number | string | null
  readonly error: string | null
  readonly created_at: Date | string
  readonly finished_at: Date | string | null
}

const toReport = (r: ReportRow): Report => ({
  id: r.id as ReportId,
  scan_id: r.scan_id as ScanId,
  framework_ids: r.framework_ids as ReadonlyArray<FrameworkId>,
  status: r.status,
  progress: r.progress,
  pages: r.pages,
  bytes: r.bytes === null ? null : Number(r.bytes),
  error: r.error,
  created_at: iso(r.created_at),
  finished_at: r.finished_at === null ? null : iso(r.finished_at),
})

const selectReport = (sql: SqlClient.SqlClient) =>
  sql`SELECT id, scan_id, framework_ids, status, progress, pages, bytes, error, created_at, finished_at FROM compliance_reports`

/** The scan's reports, newest first; with a framework, those that include it. */
export const listReports = Effect.fn("Reports.list")(function* (workspaceId: number, scanId: number, frameworkId: string | undefined) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<ReportRow>`${selectReport(sql)}
    WHERE workspace_id = ${workspaceId} AND scan_id = ${scanId}
      ${frameworkId === undefined ? sql`` : sql`AND ${frameworkId} = ANY(framework_ids)`}
    ORDER BY id DESC`
  return rows.map(toReport)
})

export const getReport = Effect.fn("Reports.get")(function* (workspaceId: number, reportId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<ReportRow>`${selectReport(sql)} WHERE workspace_id = ${workspaceId} AND id = ${reportId}`
  return rows[0] === undefined ? undefined : toReport(rows[0])
})

/** The frameworks a report covers: the named ones, each of which must apply to the scan's provider. */
const reportFrameworks = (provider: CatalogueFramework["framework"]["provider"], ids: ReadonlyArray<string>) => {
  const unique = [...new Set(ids)]
  const bad = unique.find((id) => frameworkById(id)?.framework.provider !== provider)
  return bad === undefined
    ? Effect.succeed(unique)
    : Effect.fail(new NotFound({ message: frameworkById(bad) === undefined ? M.frameworkNotFound : M.frameworkNotForProvider }))
}

export const requestReport = (
  ctx: WorkspaceContext,
  scanId: number,
  frameworkIds: ReadonlyArray<string>,
  job: JobDefinition<string, ReportPayload, any>,
) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const facts = yield* completedScan(ctx.workspaceId, scanId)
    const ids = yield* reportFrameworks(facts.scan.provider, frameworkIds)
    const inserted = yield* sql<ReportRow>`
      INSERT INTO compliance_reports (workspace_id, scan_id, framework_ids, requested_by)
      VALUES (${ctx.workspaceId}, ${scanId}, ${ids as Array<string>}::text[], ${ctx.userId})
      RETURNING id, scan_id, framework_ids, status, progress, pages, bytes, error, created_at, finished_at`
    const row = inserted[0]!
    yield* sql`
      DELETE FROM compliance_reports
      WHERE workspace_id = ${ctx.workspaceId} AND scan_id = ${scanId} AND status IN ('completed', 'failed')
        AND id NOT IN (SELECT id FROM compliance_reports WHERE workspace_id = ${ctx.workspaceId} AND scan_id = ${scanId}
                       ORDER BY id DESC LIMIT ${REPORTS_KEPT_PER_SCAN})`
    const [jobId] = yield* enqueueInTransaction(job, [{ payload: { workspace_id: ctx.workspaceId, report_id: row.id } }], {
      workspaceId: ctx.workspaceId,
      userId: ctx.userId,
    })
    yield* sql`UPDATE compliance_reports SET job_id = ${jobId ?? null} WHERE workspace_id = ${ctx.workspaceId} AND id = ${row.id}`
    return toReport(row)
  })

/** The PDF's chunks as a byte stream (each page of chunks read in its own RLS transaction). */
export const reportBytes = (workspaceId: number, reportId: number) => {
  const scope = inScope({ workspaceId })
  return Stream.paginate<number, Uint8Array, never, SqlClient.SqlClient>(-1, (after) =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* scope(sql<{ seq: number; data: Uint8Array }>`
        SELECT seq, data FROM compliance_report_chunks
        WHERE workspace_id = ${workspaceId} AND report_id = ${reportId} AND seq > ${after}
        ORDER BY seq LIMIT ${DOWNLOAD_PAGE}`).pipe(Effect.orDie)
      const next = rows.length < DOWNLOAD_PAGE ? Option.none<number>() : Option.some(rows[rows.length - 1]!.seq)
      return [rows.map((r) => new Uint8Array(r.data)), next] as const
    }))
}

// ---------------------------------------------------------------------------------------------------
// The job

const claim = (p: ReportPayload) =>
  inScope({ workspaceId: p.workspace_id })(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<ReportRow & { workspace_name: string | null }>`
        UPDATE compliance_reports r SET status = 'running', progress = 0, started_at = now(), error = NULL
        WHERE r.workspace_id = ${p.workspace_id} AND r.id = ${p.report_id} AND r.status IN ('pending', 'running')
        RETURNING r.id, r.scan_id, r.framework_ids, r.status, r.progress, r.pages, r.bytes, r.error, r.created_at, r.finished_at,
                  (SELECT w.name FROM workspaces w WHERE w.id = r.workspace_id) AS workspace_name`
      if (rows[0] === undefined) return undefined
      yield* sql`DELETE FROM compliance_report_chunks WHERE workspace_id = ${p.workspace_id} AND report_id = ${p.report_id}`
      return rows[0]
    }),
  )

const SEVERITY_RANK = { critical: 0, high: 1, medium: 2, low: 3 } as const

/** On the last attempt, a failure is recorded on the report (earlier ones leave it running for the retry). */
const recordFailure = (p: ReportPayload, job: JobContext) => (cause: unknown) =>
  job.retryCount >= REPORT_RETRY_LIMIT
    ? inScope({ workspaceId: p.workspace_id })(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql`UPDATE compliance_reports SET status = 'failed', error = ${M.reportFailed}, finished_at = now()
            WHERE workspace_id = ${p.workspace_id} AND id = ${p.report_id}`)).pipe(
        Effect.tap(() => Effect.sync(() => logLine("error", "compliance report failed", { report_id: p.report_id, error: String(cause) }))),
        Effect.ignore,
      )
    : Effect.void

export const runReport = (p: ReportPayload, job: JobContext) =>
  Effect.gen(function* () {
    const claimed = yield* claim(p)
    if (claimed === undefined) return
    const scope = inScope({ workspaceId: p.workspace_id })
    const started = performance.now()
    const data = yield* scope(Effect.gen(function* () {
      const facts = yield* scanFacts(p.workspace_id, claimed.scan_id)
      const outcomes = yield* scanOutcomes(p.workspace_id, claimed.scan_id)
      return { facts, outcomes }
    }))
    if (data.facts === undefined) return
    const { facts, outcomes } = data
    const fws = claimed.framework_ids.flatMap((id) => {
      const fw = frameworkById(id)
      return fw === undefined ? [] : [fw]
    })
    const frameworks = fws.map((fw) => evaluateScanFramework(facts, fw, outcomes))
    // The failing checks that decide a requirement of a reported framework, with the requirements they decide.
    const decides = new Map<string, string[]>()
    for (const fw of fws) {
      for (const r of fw.requirements) {
        for (const c of r.checks) decides.set(c, [...(decides.get(c) ?? []), `${fw.framework.name.replace(/ Foundations? Benchmark$/, "")} v${fw.framework.version} ${r.id}`])
      }
    }
    const failingChecks: FailingCheck[] = [...outcomes.values()]
      .filter((o) => decides.has(o.check_id) && o.status === "fail" && openFailing(o) + o.resources_muted > 0)
      .sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || a.check_id.localeCompare(b.check_id))
      .map((o) => ({ outcome: o, info: checkInfo(facts.scan.provider, o.check_id), requirements: decides.get(o.check_id) ?? [] }))

    const services = yield* Effect.context<SqlClient.SqlClient>()
    const run = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) => Effect.runPromiseWith(services)(effect)
    let pending: Buffer[] = []
    let pendingBytes = 0
    let seq = 0
    let bytes = 0
    let lastProgress = -1
    const flush = async () => {
      if (pendingBytes === 0) return
      const data = Buffer.concat(pending)
      pending = []
      pendingBytes = 0
      await run(scope(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql`INSERT INTO compliance_report_chunks (workspace_id, report_id, seq, data)
            VALUES (${p.workspace_id}, ${p.report_id}, ${seq}, ${data})`)))
      seq += 1
      bytes += data.length
    }
    const result = yield* Effect.tryPromise({
      try: () =>
        renderReport(
          {
            meta: { workspaceName: claimed.workspace_name ?? `Workspace ${p.workspace_id}`, scan: facts.scan, generatedAt: new Date() },
            frameworks,
            failingChecks,
            failingAfter: (findingId, afterSeq, limit) => run(scope(failingAfter(p.workspace_id, findingId, afterSeq, limit))),
          },
          {
            write: (chunk) => {
              pending.push(chunk)
              pendingBytes += chunk.length
            },
            checkpoint: async (done) => {
              if (job.signal.aborted) throw new Error("report job aborted")
              if (pendingBytes >= CHUNK_BYTES) await flush()
              const progress = Math.min(99, Math.floor(done * 100))
              if (progress >= lastProgress + 5) {
                lastProgress = progress
                await run(scope(Effect.flatMap(SqlClient.SqlClient, (sql) =>
                  sql`UPDATE compliance_reports SET progress = ${progress} WHERE workspace_id = ${p.workspace_id} AND id = ${p.report_id}`)))
              }
            },
          },
        ).then(async (r) => {
          await flush()
          return r
        }),
      catch: (cause) => cause,
    })
    // The report and its `report.ready` event (webhooks, Slack) commit together.
    yield* scope(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`UPDATE compliance_reports SET status = 'completed', progress = 100, pages = ${result.pages}, bytes = ${bytes}, finished_at = now()
          WHERE workspace_id = ${p.workspace_id} AND id = ${p.report_id}`.pipe(Effect.andThen(publishReportReady(p.workspace_id, p.report_id)))))
    logLine("info", "compliance report completed", {
      report_id: p.report_id,
      pages: result.pages,
      bytes,
      ms: Math.round(performance.now() - started),
      frameworks: frameworks.length,
      failing_checks: failingChecks.length,
    })
  }).pipe(Effect.tapError(recordFailure(p, job)))
