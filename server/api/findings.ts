/**
 * The `findings` group (scanning §7): the paged findings of a scan (scan_id required; optional service_id and
 * comma-joined status; beyond the spec severity, check, region, q, change, sort, order and cursor, all applied on the
 * server over the whole scan, with the list's totals; counts, no detail rows), one finding with one page of its detail rows (details_page,
 * details_page_size, details_status, details_q; server/scans/findings-store.ts), and remediation of one detail row (needs remediate_findings; "You don't have
 * permission to remediate findings"), which records a pending `remediate` on the row and runs the check's fixer as a
 * job (server/scans/remediation.ts).
 */
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../src/contracts/api.ts"
import { NotFound, ValidationError } from "../../src/contracts/errors.ts"
import { FindingListResponse, FindingResponse } from "../../src/contracts/findings.ts"
import { splitFilter } from "../../src/contracts/scans.ts"
import { ScanningMessages, ScanningServerMessages } from "../../src/contracts/messages.ts"
import { DetailPaging, PageSizes } from "../../src/contracts/constants.ts"
import { AuthConfigFromApp } from "../auth/identity-layer.ts"
import { READ, REMEDIATE, scoped } from "./middleware/scanning-access.ts"
import { decodeCursor, getFinding, listFindings, scanAndService } from "../scans/findings-store.ts"
import { remediateJob } from "../scans/jobs.ts"
import { requestRemediation } from "../scans/remediation.ts"
import { warmQueueCache } from "../scans/transactional-enqueue.ts"
import { cachedRead } from "./middleware/read-cache.ts"
import { parseFindingFilters } from "./scans.ts"

export const FindingsHandlers = HttpApiBuilder.group(Api, "findings", (handlers) =>
  handlers
    .handle("list", ({ request, query }) =>
      Effect.gen(function* () {
        const { statuses, severities, changes } = yield* parseFindingFilters(query)
        const order = { sort: query.sort ?? "status", order: query.order ?? "asc" } as const
        const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor, order)
        if (query.cursor !== undefined && cursor === undefined) {
          return yield* new ValidationError({
            message: ScanningServerMessages.invalidCursor,
            errors: [{ path: "query.cursor", message: ScanningServerMessages.invalidCursor }],
          })
        }
        const regions = splitFilter(query.region)
        return yield* cachedRead(request, FindingListResponse, scoped(request, READ, (ctx) =>
          Effect.gen(function* () {
            const pageSize = query.page_size ?? PageSizes.findings
            const page = yield* listFindings(
              ctx.workspaceId,
              query.scan_id,
              {
                serviceId: query.service_id,
                statuses,
                severities,
                newOnly: query.new_only === "true",
                changes,
                check: query.check,
                regions,
                q: query.q,
              },
              order,
              { page: query.page ?? 1, pageSize, cursor },
            )
            // A scan with findings proves the scan (and the service, whose findings they are) exists in this workspace;
            // only a scope without any finding needs the check that tells "no such scan/service" (404) from "nothing yet".
            if (page.totals.findings_unfiltered === 0) {
              const found = yield* scanAndService(ctx.workspaceId, query.scan_id, query.service_id)
              if (!found.scan) return yield* new NotFound({ message: ScanningServerMessages.scanNotFound })
              if (!found.service) return yield* new NotFound({ message: ScanningServerMessages.serviceNotInScan })
            }
            return { ok: true as const, ...page }
          })))
      }))
    .handle("get", ({ request, params, query }) =>
      cachedRead(request, FindingResponse, scoped(request, READ, (ctx) =>
        Effect.gen(function* () {
          const q = query.details_q?.trim() ?? ""
          const finding = yield* getFinding(ctx.workspaceId, params.id, {
            page: query.details_page ?? 1,
            pageSize: query.details_page_size ?? DetailPaging.defaultPageSize,
            status: query.details_status ?? null,
            q: q === "" ? null : q,
          })
          if (finding === undefined) return yield* new NotFound({ message: ScanningServerMessages.findingNotFound })
          return { ok: true as const, data: finding }
        }))))
    .handle("remediate", ({ request, params, payload }) =>
      Effect.andThen(warmQueueCache([remediateJob.name]), scoped(
        request,
        REMEDIATE,
        (ctx) =>
          Effect.map(requestRemediation(ctx, params.id, payload.details, remediateJob), (details) => ({
            ok: true,
            message: ScanningServerMessages.remediationQueued,
            data: { details },
          })).pipe(Effect.catchTag("JobQueueError", (e) => Effect.die(e)), Effect.catchTag("JobPayloadInvalid", (e) => Effect.die(e))),
        ScanningMessages.remediatePermissionDenied,
      ))),
).pipe(Layer.provide(AuthConfigFromApp))
