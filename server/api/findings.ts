/**
 * The `findings` group (scanning §7): the paged findings of a scan (scan_id; beyond the spec, without it the latest
 * completed scan of every account, narrowed by account_id, organization_id and unit: server/scans/fleet-findings.ts; optional service_id and
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
import { FindingListResponse, FindingResponse, FLEET_DEEP_PAGE_NEEDS_CURSOR, FLEET_SEARCH_NEEDS_SCAN, INVALID_ACCOUNT_FILTER, MAX_FLEET_OFFSET, type FindingsQuery } from "../../src/contracts/findings.ts"
import { splitFilter } from "../../src/contracts/scans.ts"
import { ScanningMessages, ScanningServerMessages } from "../../src/contracts/messages.ts"
import { DetailPaging, PageSizes } from "../../src/contracts/constants.ts"
import { AuthConfigFromApp } from "../auth/identity-layer.ts"
import { READ, REMEDIATE, scoped } from "./middleware/scanning-access.ts"
import { decodeCursor, getFinding, listFindings, scanAndService } from "../scans/findings-store.ts"
import { listFleetFindings } from "../scans/fleet-findings.ts"
import { remediateJob } from "../scans/jobs.ts"
import { requestRemediationWithId } from "../scans/remediation.ts"
import { approvalOfFinding, requestApproval } from "../remediation/approvals.ts"
import { warmQueueCache } from "../scans/transactional-enqueue.ts"
import { cachedRead } from "./middleware/read-cache.ts"
import { parseFindingFilters } from "./scans.ts"

/**
 * The account scope of a list across accounts: `account_id` (comma-joined ids), `organization_id`, `unit`; a resource
 * search (`q`) needs a scan.
 */
const parseFleetScope = (query: FindingsQuery) =>
  Effect.gen(function* () {
    if (query.q !== undefined && query.q.trim() !== "") {
      return yield* new ValidationError({ message: FLEET_SEARCH_NEEDS_SCAN, errors: [{ path: "query.q", message: FLEET_SEARCH_NEEDS_SCAN }] })
    }
    const ids = splitFilter(query.account_id)
    if (!ids.every((id) => /^[1-9][0-9]{0,9}$/.test(id) && Number(id) <= 2_147_483_647)) {
      return yield* new ValidationError({ message: INVALID_ACCOUNT_FILTER, errors: [{ path: "query.account_id", message: INVALID_ACCOUNT_FILTER }] })
    }
    const unit = query.unit?.trim() ?? ""
    return {
      accountIds: ids.length === 0 ? undefined : [...new Set(ids.map(Number))],
      organizationId: query.organization_id,
      unit: unit === "" ? undefined : unit,
    }
  })

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
        const filter = {
          serviceId: query.service_id,
          statuses,
          severities,
          newOnly: query.new_only === "true",
          changes,
          check: query.check,
          regions,
          q: query.q,
        }
        const paging = { page: query.page ?? 1, pageSize: query.page_size ?? PageSizes.findings, cursor }
        const scanId = query.scan_id
        if (scanId === undefined) {
          // Across accounts (issue 31): the latest completed scan of every account of the scope. Deep pages are read by
          // cursor: an OFFSET over every latest finding of the workspace would cost each caller the whole list.
          if (cursor === undefined && (paging.page - 1) * paging.pageSize > MAX_FLEET_OFFSET) {
            return yield* new ValidationError({
              message: FLEET_DEEP_PAGE_NEEDS_CURSOR,
              errors: [{ path: "query.page", message: FLEET_DEEP_PAGE_NEEDS_CURSOR }],
            })
          }
          const scope = yield* parseFleetScope(query)
          return yield* cachedRead(request, FindingListResponse, scoped(request, READ, (ctx) =>
            Effect.map(listFleetFindings(ctx.workspaceId, scope, filter, order, paging), (page) => ({ ok: true as const, ...page }))))
        }
        return yield* cachedRead(request, FindingListResponse, scoped(request, READ, (ctx) =>
          Effect.gen(function* () {
            const page = yield* listFindings(ctx.workspaceId, scanId, filter, order, paging)
            // A scan with findings proves the scan (and the service, whose findings they are) exists in this workspace;
            // only a scope without any finding needs the check that tells "no such scan/service" (404) from "nothing yet".
            if (page.totals.findings_unfiltered === 0) {
              const found = yield* scanAndService(ctx.workspaceId, scanId, query.service_id)
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
          Effect.gen(function* () {
            // An account requiring approval (issue 32) gets a request instead: 202, nothing runs before approval.
            const approval = yield* approvalOfFinding(ctx.workspaceId, params.id)
            if (approval?.requires_approval === true) {
              return yield* requestApproval(ctx, params.id, payload.details, payload.comment ?? null, approval)
            }
            const { details, id } = yield* requestRemediationWithId(ctx, params.id, payload.details, remediateJob)
            return { ok: true, message: ScanningServerMessages.remediationQueued, id, data: { details } }
          }).pipe(Effect.catchTag("JobQueueError", (e) => Effect.die(e)), Effect.catchTag("JobPayloadInvalid", (e) => Effect.die(e))),
        ScanningMessages.remediatePermissionDenied,
      ))),
).pipe(Layer.provide(AuthConfigFromApp))
