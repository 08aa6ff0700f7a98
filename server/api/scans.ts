/**
 * The `scans` group (scanning §7 + issue 5): start (needs scan_service; 'Permission denied: Cannot launch scans'),
 * paged list (page, page_size: defaults 1 and 20), detail with services[], streamed export (csv | json | ocsf, optional
 * service_id / status / severity filters, comma-joined), and cancel (beyond the spec).
 *
 * Export: only a completed scan (409 otherwise); the file is streamed page by page, findings then each finding's result
 * rows by keyset (server/export/export-stream.ts), and
 * named by `exportFileName` (scan id, 'findings', timestamp). Each page runs in its own short RLS transaction, because
 * the response body is produced after the handler's transaction has ended.
 */
import { Effect, Layer, Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { SqlClient } from "effect/sql"
import { Api } from "../../src/contracts/api.ts"
import { Conflict, Forbidden, NotFound, ValidationError } from "../../src/contracts/errors.ts"
import { AccountGroupMessages } from "../../src/contracts/account-groups.ts"
import { FINDING_CHANGES, FINDING_LIST_FILTERS, SEVERITIES } from "../../src/contracts/findings.ts"
import { ScanningMessages, ScanningServerMessages } from "../../src/contracts/messages.ts"
import { DEFAULT_SCANS_QUERY, EXPORT_CONTENT_TYPES, exportFileName, ScanListResponse, ScanResponse, splitFilter, type ScanStartResponse } from "../../src/contracts/scans.ts"
import { AuthConfigFromApp } from "../auth/identity-layer.ts"
import { inScope } from "../auth/rls.ts"
import { exportStream } from "../export/export-stream.ts"
import { LAUNCH_SCANS, READ, scoped } from "./middleware/scanning-access.ts"
import { findingsPage, resultRowsAfter, scanHasService } from "../scans/findings-store.ts"
import { toDetailRow } from "../scans/results.ts"
import { runServiceJob, sweepJob } from "../scans/jobs.ts"
import { cancelJobs, cancelScan, startScan } from "../scans/launch.ts"
import { getScan, listScans } from "../scans/scans-store.ts"
import { cachedRead } from "./middleware/read-cache.ts"
import { warmQueueCache } from "../scans/transactional-enqueue.ts"
import { OrganizationMessages } from "../../src/contracts/organizations.ts"
import { isOrganizationAccount, startFleetScan } from "../organizations/fleet-scan.ts"
import { fleetAdvanceJob } from "../organizations/jobs.ts"
import { withOrganizationView } from "../organizations/store.ts"

/** Splits and checks a comma-joined filter against the allowed values (400 with `message` otherwise). */
export const parseFilter = <const T extends string>(raw: string | undefined, allowed: ReadonlyArray<T>, message: string, path: string) => {
  const values = splitFilter(raw).map((v) => v.toLowerCase())
  const bad = values.find((v) => !(allowed as ReadonlyArray<string>).includes(v))
  return bad === undefined
    ? Effect.succeed(values as ReadonlyArray<string> as ReadonlyArray<T>)
    : Effect.fail(new ValidationError({ message, errors: [{ path, message }] }))
}

/** The status, severity and change filters of the findings list and of the export, read once for both. */
export const parseFindingFilters = (query: { readonly status?: string | undefined; readonly severity?: string | undefined; readonly change?: string | undefined }) =>
  Effect.all({
    statuses: parseFilter(query.status, FINDING_LIST_FILTERS, ScanningServerMessages.invalidStatusFilter, "query.status"),
    severities: parseFilter(query.severity, SEVERITIES, ScanningServerMessages.invalidSeverityFilter, "query.severity"),
    changes: parseFilter(query.change, FINDING_CHANGES, ScanningServerMessages.invalidChangeFilter, "query.change"),
  })

/** A limited member's fleet scan launch, refused once the scope is closed (nothing was written). */
const FLEET_REFUSED = "fleet-refused" as const

export const ScansHandlers = HttpApiBuilder.group(Api, "scans", (handlers) =>
  handlers
    .handle("start", ({ request, payload }) =>
      Effect.andThen(warmQueueCache([runServiceJob.name, sweepJob.name, fleetAdvanceJob.name]), scoped(
        request,
        LAUNCH_SCANS,
        (ctx) =>
          // An organisation's account id starts a fleet scan of its members (issue 31).
          Effect.gen(function* () {
            // A member limited to account groups never starts one (docs/organizations.md "Access by group"): 403 for an
            // organisation of theirs (its account row readable to them, migration 0039), 404 as before for any other.
            if (ctx.accountIds !== null && (yield* withOrganizationView(isOrganizationAccount(ctx.workspaceId, payload.account_id)))) {
              return FLEET_REFUSED
            }
            if (yield* isOrganizationAccount(ctx.workspaceId, payload.account_id)) {
              const fleet = yield* startFleetScan(ctx, payload, fleetAdvanceJob)
              return { ok: true, message: OrganizationMessages.fleetScanStarted as string, data: fleet as ScanStartResponse["data"] }
            }
            const scan = yield* startScan(ctx, payload, { runService: runServiceJob, sweep: sweepJob })
            return { ok: true, message: ScanningServerMessages.scanStarted as string, data: scan as ScanStartResponse["data"] }
          }).pipe(Effect.catchTag("JobQueueError", (e) => Effect.die(e)), Effect.catchTag("JobPayloadInvalid", (e) => Effect.die(e))),
        ScanningMessages.launchPermissionDenied,
      ).pipe(Effect.flatMap((answer) =>
        // Answered after `scoped`, whose Forbidden says "cannot launch scans" (the member may launch their own).
        answer === FLEET_REFUSED ? Effect.fail(new Forbidden({ message: AccountGroupMessages.limitedCannotScanFleet })) : Effect.succeed(answer)))))
    .handle("list", ({ request, query }) =>
      cachedRead(request, ScanListResponse, scoped(request, READ, (ctx) =>
        Effect.map(
          listScans(ctx.workspaceId, query.page ?? DEFAULT_SCANS_QUERY.page, query.page_size ?? DEFAULT_SCANS_QUERY.page_size),
          (page) => ({ ok: true as const, ...page }),
        ))))
    .handle("get", ({ request, params }) =>
      cachedRead(request, ScanResponse, scoped(request, READ, (ctx) =>
        Effect.gen(function* () {
          const scan = yield* getScan(ctx.workspaceId, params.id)
          if (scan === undefined) return yield* new NotFound({ message: ScanningServerMessages.scanNotFound })
          return { ok: true as const, data: scan }
        }))))
    .handle("export", ({ request, params, query }) =>
      Effect.gen(function* () {
        const { statuses, severities, changes } = yield* parseFindingFilters(query)
        const ctx = yield* scoped(request, READ, (ctx) =>
          Effect.gen(function* () {
            const scan = yield* getScan(ctx.workspaceId, params.id)
            if (scan === undefined) return yield* new NotFound({ message: ScanningServerMessages.scanNotFound })
            if (scan.status !== "completed") return yield* new Conflict({ message: ScanningServerMessages.scanNotCompleted })
            if (query.service_id !== undefined && !(yield* scanHasService(ctx.workspaceId, params.id, query.service_id))) {
              return yield* new NotFound({ message: ScanningServerMessages.serviceNotInScan })
            }
            return ctx
          }))
        const services = yield* Effect.context<SqlClient.SqlClient>()
        const filter = {
          serviceId: query.service_id, statuses, severities, changes, check: query.check, regions: splitFilter(query.region), q: query.q,
        }
        const scope = inScope({ workspaceId: ctx.workspaceId, userId: ctx.userId, accountIds: ctx.accountIds })
        const body = exportStream(query.format, {
          findingsAfter: (afterId, limit) => scope(findingsPage(ctx.workspaceId, params.id, filter, afterId, limit)).pipe(Effect.orDie),
          rowsAfter: (findingId, afterSeq, limit) =>
            scope(resultRowsAfter(ctx.workspaceId, findingId, afterSeq, limit)).pipe(Effect.map((rows) => rows.map(toDetailRow)), Effect.orDie),
        }).pipe(Stream.provideContext(services))
        const fileName = exportFileName(params.id, query.format, new Date())
        return HttpServerResponse.stream(body, {
          contentType: EXPORT_CONTENT_TYPES[query.format],
          headers: {
            "content-disposition": `attachment; filename="${fileName}"`,
            "cache-control": "no-store",
            "x-content-type-options": "nosniff",
          },
        })
      }))
    .handle("cancel", ({ request, params }) =>
      Effect.gen(function* () {
        const result = yield* scoped(request, LAUNCH_SCANS, (ctx) => cancelScan(ctx, params.id), ScanningMessages.launchPermissionDenied)
        yield* cancelJobs(runServiceJob.name, result.jobIds)
        return { ok: true, message: ScanningServerMessages.scanCanceled, data: result.scan }
      })),
).pipe(Layer.provide(AuthConfigFromApp))
