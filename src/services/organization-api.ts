/**
 * Typed calls of the organisation screens (beyond the spec, issue 31) on the shared API client, and their effects
 * (`organizationEffectsFrom(services)`, handed to `<OrganizationEffectsProvider>` by the composition root). Each
 * endpoint is listed once with the contract's response schema (src/contracts/organizations.ts), so every answer is
 * decoded; failures reject with the client's catalogue error (the server's message for 4xx). The workspace travels in
 * the client's `X-Workspace-ID` header like every account call.
 */
import {
  AwsTemplateResponse,
  FleetScanResponse,
  FleetScansResponse,
  OrganizationMessages,
  OrganizationResponse,
  SyncResponse,
  SyncsResponse,
} from "../contracts/organizations.ts"
import type { OrganizationEffects } from "../machines/organization-effects.ts"
import { endpoint, pathWith, type Endpoint } from "./api-client.ts"
import type { AppServices } from "./app-services.ts"

export const ORGANIZATION_ENDPOINTS = {
  awsTemplate: endpoint({ method: "GET", path: "/api/organizations/aws-template", response: AwsTemplateResponse }),
  organization: endpoint({ method: "GET", path: "/api/organizations/:id", response: OrganizationResponse }),
  selection: endpoint({ method: "PUT", path: "/api/organizations/:id/selection", response: OrganizationResponse }),
  syncs: endpoint({ method: "GET", path: "/api/organizations/:id/syncs", response: SyncsResponse }),
  sync: endpoint({ method: "POST", path: "/api/accounts/:id/sync", response: SyncResponse }),
  fleetScans: endpoint({ method: "GET", path: "/api/organizations/:id/fleet-scans", response: FleetScansResponse }),
  fleetScan: endpoint({ method: "GET", path: "/api/fleet-scans/:id", response: FleetScanResponse }),
} satisfies Record<string, Endpoint<unknown>>

const signalOpt = (signal: AbortSignal | undefined) => (signal === undefined ? {} : { signal })

const at = <A>(e: Endpoint<A>, id: number): Endpoint<A> => ({ ...e, path: pathWith(e.path, { id }) })

export const organizationEffectsFrom = (services: Pick<AppServices, "client">): OrganizationEffects => {
  const { client } = services
  const E = ORGANIZATION_ENDPOINTS
  return {
    loadAwsTemplate: async (query, signal) => (await client.request(E.awsTemplate, { query, ...signalOpt(signal) })).data,
    loadOrganization: async ({ id }, signal) => (await client.request(at(E.organization, id), signalOpt(signal))).data,
    saveSelection: async ({ id, selection }, signal) => {
      const answer = await client.request(at(E.selection, id), { body: selection, ...signalOpt(signal) })
      return { message: answer.message ?? OrganizationMessages.selectionSaved, organization: answer.data }
    },
    syncNow: async ({ id }, signal) => {
      const answer = await client.request(at(E.sync, id), signalOpt(signal))
      return { message: answer.message ?? OrganizationMessages.syncStarted, sync: answer.data }
    },
    listSyncs: async ({ id }, signal) => (await client.request(at(E.syncs, id), signalOpt(signal))).data.syncs,
    listFleetScans: async ({ id }, signal) => (await client.request(at(E.fleetScans, id), signalOpt(signal))).data.fleet_scans,
    getFleetScan: async ({ id }, signal) => (await client.request(at(E.fleetScan, id), signalOpt(signal))).data,
  }
}
