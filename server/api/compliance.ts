/**
 * The `compliance` group (issue 14, beyond the spec): frameworks and their requirements, a scan's requirement statuses
 * and scores, the requirement drill-down, an account's trend, the framework CSV and PDF reports. Every call needs only
 * read access (READ: read_only or any scanning permission); report generation too, since it discloses nothing the
 * reader cannot already see. Work is in server/compliance/; answers are catalogue errors only (404 for a foreign or
 * unknown scan, account, framework, requirement or report; 409 while a scan or report is not completed).
 */
import { Effect, Layer, Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { SqlClient } from "effect/sql"
import { Api } from "../../src/contracts/api.ts"
import {
  COMPLIANCE_CSV_CONTENT_TYPE,
  COMPLIANCE_FAILING_PAGE_SIZE,
  ComplianceMessages as M,
  complianceCsvFileName,
  REPORT_CONTENT_TYPE,
  reportFileName,
  TREND_DEFAULT_LIMIT,
} from "../../src/contracts/compliance.ts"
import { Conflict, NotFound } from "../../src/contracts/errors.ts"
import { AuthConfigFromApp } from "../auth/identity-layer.ts"
import { frameworkById, frameworks } from "../compliance/catalogue.ts"
import { reportJob } from "../compliance/jobs.ts"
import { getReport, listReports, reportBytes, requestReport } from "../compliance/reports.ts"
import { accountTrend, frameworkCsv, requirementDetail, scanFramework, scanSummary } from "../compliance/service.ts"
import { complianceAccounts, scanFacts } from "../compliance/store.ts"
import { READ, scoped } from "./middleware/scanning-access.ts"
import { warmQueueCache } from "../scans/transactional-enqueue.ts"

const download = (fileName: string) => ({
  "content-disposition": `attachment; filename="${fileName}"`,
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
})

const encoder = new TextEncoder()

export const ComplianceHandlers = HttpApiBuilder.group(Api, "compliance", (handlers) =>
  handlers
    .handle("frameworks", ({ request }) =>
      scoped(request, READ, () => Effect.succeed({ ok: true, data: frameworks().map((f) => f.framework) })))
    .handle("framework", ({ request, params }) =>
      scoped(request, READ, () => {
        const fw = frameworkById(params.framework_id)
        return fw === undefined ? Effect.fail(new NotFound({ message: M.frameworkNotFound })) : Effect.succeed({ ok: true, data: fw })
      }))
    .handle("accounts", ({ request }) =>
      scoped(request, READ, (ctx) => Effect.map(complianceAccounts(ctx.workspaceId), (data) => ({ ok: true, data }))))
    .handle("trend", ({ request, params, query }) =>
      scoped(request, READ, (ctx) =>
        Effect.map(accountTrend(ctx.workspaceId, params.account_id, params.framework_id, query.limit ?? TREND_DEFAULT_LIMIT), (data) => ({
          ok: true,
          data,
        }))))
    .handle("scan", ({ request, params }) =>
      scoped(request, READ, (ctx) => Effect.map(scanSummary(ctx.workspaceId, params.scan_id), (data) => ({ ok: true, data }))))
    .handle("scanFramework", ({ request, params }) =>
      scoped(request, READ, (ctx) =>
        Effect.map(scanFramework(ctx.workspaceId, params.scan_id, params.framework_id), (data) => ({ ok: true, data }))))
    .handle("requirement", ({ request, params, query }) =>
      scoped(request, READ, (ctx) =>
        Effect.map(
          requirementDetail(
            ctx.workspaceId,
            params.scan_id,
            params.framework_id,
            params.requirement_id,
            query.page ?? 1,
            query.page_size ?? COMPLIANCE_FAILING_PAGE_SIZE,
          ),
          (data) => ({ ok: true, data }),
        )))
    .handle("csv", ({ request, params }) =>
      Effect.map(
        scoped(request, READ, (ctx) => scanFramework(ctx.workspaceId, params.scan_id, params.framework_id)),
        (result) =>
          HttpServerResponse.stream(Stream.make(encoder.encode(frameworkCsv(result))), {
            contentType: COMPLIANCE_CSV_CONTENT_TYPE,
            headers: download(complianceCsvFileName(params.scan_id, params.framework_id)),
          }),
      ))
    .handle("reports", ({ request, params, query }) =>
      scoped(request, READ, (ctx) =>
        Effect.gen(function* () {
          if ((yield* scanFacts(ctx.workspaceId, params.scan_id)) === undefined) return yield* new NotFound({ message: M.scanNotFound })
          return { ok: true, data: yield* listReports(ctx.workspaceId, params.scan_id, query.framework_id) }
        })))
    .handle("createReport", ({ request, params, payload }) =>
      Effect.andThen(
        warmQueueCache([reportJob.name]),
        scoped(request, READ, (ctx) =>
          Effect.map(requestReport(ctx, params.scan_id, payload.framework_ids, reportJob), (data) => ({
            ok: true,
            message: M.reportQueued,
            data,
          })).pipe(Effect.catchTag("JobQueueError", (e) => Effect.die(e)), Effect.catchTag("JobPayloadInvalid", (e) => Effect.die(e)))),
      ))
    .handle("report", ({ request, params }) =>
      scoped(request, READ, (ctx) =>
        Effect.gen(function* () {
          const report = yield* getReport(ctx.workspaceId, params.report_id)
          if (report === undefined) return yield* new NotFound({ message: M.reportNotFound })
          return { ok: true, data: report }
        })))
    .handle("downloadReport", ({ request, params }) =>
      Effect.gen(function* () {
        const { ctx, report } = yield* scoped(request, READ, (ctx) =>
          Effect.gen(function* () {
            const report = yield* getReport(ctx.workspaceId, params.report_id)
            if (report === undefined) return yield* new NotFound({ message: M.reportNotFound })
            if (report.status !== "completed") return yield* new Conflict({ message: M.reportNotReady })
            return { ctx, report }
          }))
        const services = yield* Effect.context<SqlClient.SqlClient>()
        return HttpServerResponse.stream(reportBytes(ctx.workspaceId, report.id).pipe(Stream.provideContext(services)), {
          contentType: REPORT_CONTENT_TYPE,
          headers: { ...download(reportFileName(report.scan_id)), ...(report.bytes === null ? {} : { "content-length": String(report.bytes) }) },
        })
      })),
).pipe(Layer.provide(AuthConfigFromApp))
