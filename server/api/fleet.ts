/**
 * The fleet's read endpoints of the `organizations` group (issue 31 "See the fleet"; contracts in
 * src/contracts/organizations.ts): the fleet dashboard, and compliance over the organisation with its CSV and PDF.
 * The dashboard and the compliance JSON answer one page of members (`page`, `page_size`), their totals over all; the
 * CSV and the PDF hold every member. A member limited to account groups reads them over their own members only (the
 * organisation's account row through `withOrganizationView`, migration 0039; the members through row-level
 * security). Each needs READ (read_only or any scanning permission), like every other read; work is in
 * server/organizations/fleet.ts and server/compliance/organization.ts. Answers are catalogue errors only: 404 for an
 * organisation of another workspace (or an account that is no organisation), an unknown unit or framework, or a
 * framework of another provider.
 *
 * `fleetHandlers(handlers)` adds the four handlers to the group's handlers; server/api/organizations.ts chains it.
 */
import { Effect, Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import type { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { COMPLIANCE_CSV_CONTENT_TYPE, REPORT_CONTENT_TYPE } from "../../src/contracts/compliance.ts"
import type { OrganizationsGroup } from "../../src/contracts/api.ts"
import { orgComplianceFileName } from "../../src/contracts/organizations.ts"
import { organizationReportPdf } from "../compliance/organization-report.ts"
import { organizationCompliance, orgCompliancePage, orgMembersCsv, orgRequirementsCsv } from "../compliance/organization.ts"
import { fleetDashboard } from "../organizations/fleet.ts"
import { withOrganizationView } from "../organizations/store.ts"
import { READ, scoped } from "./middleware/scanning-access.ts"

type Endpoint<Name extends string> = Extract<HttpApiGroup.Endpoints<typeof OrganizationsGroup>, { readonly identifier: Name }>
type Request<Name extends string> = Parameters<HttpApiEndpoint.Handler<Endpoint<Name>, never, never>>[0]

const download = (fileName: string) => ({
  "content-disposition": `attachment; filename="${fileName}"`,
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
})

const encoder = new TextEncoder()

export const fleet = ({ request, params, query }: Request<"fleet">) =>
  scoped(request, READ, (ctx) => Effect.map(withOrganizationView(fleetDashboard(ctx.workspaceId, params.id, query)), (data) => ({ ok: true, data })))

export const orgCompliance = ({ request, params, query }: Request<"orgCompliance">) =>
  scoped(request, READ, (ctx) =>
    Effect.map(withOrganizationView(organizationCompliance(ctx.workspaceId, params.id, params.framework_id, query)), (result) => ({ ok: true, data: orgCompliancePage(result, query) })))

export const orgComplianceCsv = ({ request, params, query }: Request<"orgComplianceCsv">) =>
  Effect.map(
    scoped(request, READ, (ctx) => withOrganizationView(organizationCompliance(ctx.workspaceId, params.id, params.framework_id, { ...query }))),
    (result) => {
      const part = query.part ?? "requirements"
      const text = part === "members" ? orgMembersCsv(result) : orgRequirementsCsv(result)
      return HttpServerResponse.stream(Stream.make(encoder.encode(text)), {
        contentType: COMPLIANCE_CSV_CONTENT_TYPE,
        headers: download(orgComplianceFileName(params.id, params.framework_id, part)),
      })
    },
  )

export const orgCompliancePdf = ({ request, params, query }: Request<"orgCompliancePdf">) =>
  Effect.gen(function* () {
    const { result, workspaceName } = yield* scoped(request, READ, (ctx) =>
      Effect.map(withOrganizationView(organizationCompliance(ctx.workspaceId, params.id, params.framework_id, query)), (result) => ({ result, workspaceName: ctx.workspaceName })))
    const bytes = yield* Effect.promise(() => organizationReportPdf(result, { workspaceName, generatedAt: new Date() }))
    return HttpServerResponse.stream(Stream.fromIterable(bytes), {
      contentType: REPORT_CONTENT_TYPE,
      headers: { ...download(orgComplianceFileName(params.id, params.framework_id, "pdf")), "content-length": String(bytes.reduce((n, b) => n + b.byteLength, 0)) },
    })
  })
