/**
 * Typed calls of the fleet screens (beyond the spec, issue 31 item 4) on the shared API client, and their effects
 * (`fleetEffectsFrom(services)`, handed to `<FleetEffectsProvider>` by the composition root). The answer is decoded
 * with the contract's schema (src/contracts/organizations.ts FleetResponse, OrgComplianceResponse); failures reject
 * with the client's catalogue error. The workspace travels in the client's `X-Workspace-ID` header like every account
 * call. Organisation compliance files come through the same client (auth, refresh, retries): the CSV arrives as text,
 * the PDF as a Blob; each is named as the server names it (`orgComplianceFileName`).
 */
import { Schema } from "effect"
import { COMPLIANCE_CSV_CONTENT_TYPE, FrameworkListResponse, REPORT_CONTENT_TYPE } from "../contracts/compliance.ts"
import { FleetResponse, OrganizationsResponse, OrgComplianceResponse, orgComplianceFileName } from "../contracts/organizations.ts"
import type { FleetEffects } from "../machines/fleet-effects.ts"
import { endpoint, pathWith, type Endpoint } from "./api-client.ts"
import type { AppServices } from "./app-services.ts"

export const FLEET_ENDPOINTS = {
  fleet: endpoint({ method: "GET", path: "/api/organizations/:id/fleet", response: FleetResponse }),
  organizations: endpoint({ method: "GET", path: "/api/organizations", response: OrganizationsResponse }),
  frameworks: endpoint({ method: "GET", path: "/api/compliance/frameworks", response: FrameworkListResponse }),
  compliance: endpoint({ method: "GET", path: "/api/organizations/:id/compliance/:framework_id", response: OrgComplianceResponse }),
  /** The body is a file (text/csv). */
  complianceCsv: endpoint({ method: "GET", path: "/api/organizations/:id/compliance/:framework_id/csv", response: Schema.Unknown }),
  /** The body is a file (application/pdf, a Blob). */
  compliancePdf: endpoint({ method: "GET", path: "/api/organizations/:id/compliance/:framework_id/pdf", response: Schema.Unknown }),
} satisfies Record<string, Endpoint<unknown>>

const signalOpt = (signal: AbortSignal | undefined) => (signal === undefined ? {} : { signal })
const at = <A>(e: Endpoint<A>, params: Readonly<Record<string, string | number>>): Endpoint<A> => ({ ...e, path: pathWith(e.path, params) })

export const fleetEffectsFrom = (services: Pick<AppServices, "client">): FleetEffects => {
  const { client } = services
  const E = FLEET_ENDPOINTS
  return {
    loadFleet: async ({ id, query }, signal) =>
      (await client.request({ ...FLEET_ENDPOINTS.fleet, path: pathWith(FLEET_ENDPOINTS.fleet.path, { id }) }, { query, ...(signal === undefined ? {} : { signal }) })).data,
    loadOrgFrameworks: async ({ id }, signal) => {
      const [organizations, frameworks] = await Promise.all([
        client.request(E.organizations, signalOpt(signal)).then((r) => r.data.organizations),
        client.request(E.frameworks, signalOpt(signal)).then((r) => r.data),
      ])
      const organization = organizations.find((o) => o.id === id)
      return organization === undefined ? [] : frameworks.filter((f) => f.cloud_provider_id === organization.cloud_provider_id)
    },
    loadOrgCompliance: async ({ id, frameworkId, filter }, signal) =>
      (await client.request(at(E.compliance, { id, framework_id: frameworkId }), { query: filter, ...signalOpt(signal) })).data,
    downloadOrgCompliance: async ({ id, frameworkId, filter, kind }, signal) => {
      if (kind === "pdf") {
        const body = await client.request(at(E.compliancePdf, { id, framework_id: frameworkId }), { query: filter, ...signalOpt(signal) })
        const content = body instanceof Blob ? body : new Blob([body as BlobPart], { type: REPORT_CONTENT_TYPE })
        return { fileName: orgComplianceFileName(id, frameworkId, "pdf"), contentType: REPORT_CONTENT_TYPE, content }
      }
      const body = await client.request(at(E.complianceCsv, { id, framework_id: frameworkId }), { query: { ...filter, part: kind }, ...signalOpt(signal) })
      return { fileName: orgComplianceFileName(id, frameworkId, kind), contentType: COMPLIANCE_CSV_CONTENT_TYPE, content: typeof body === "string" ? body : String(body) }
    },
  }
}
