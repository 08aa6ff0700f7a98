/**
 * Typed calls of the fleet screens (beyond the spec, issue 31 item 4) on the shared API client, and their effects
 * (`fleetEffectsFrom(services)`, handed to `<FleetEffectsProvider>` by the composition root). The answer is decoded
 * with the contract's schema (src/contracts/organizations.ts FleetResponse); failures reject with the client's
 * catalogue error. The workspace travels in the client's `X-Workspace-ID` header like every account call.
 */
import { FleetResponse } from "../contracts/organizations.ts"
import type { FleetEffects } from "../machines/fleet-effects.ts"
import { endpoint, pathWith, type Endpoint } from "./api-client.ts"
import type { AppServices } from "./app-services.ts"

export const FLEET_ENDPOINTS = {
  fleet: endpoint({ method: "GET", path: "/api/organizations/:id/fleet", response: FleetResponse }),
} satisfies Record<string, Endpoint<unknown>>

export const fleetEffectsFrom = (services: Pick<AppServices, "client">): FleetEffects => {
  const { client } = services
  return {
    loadFleet: async ({ id, query }, signal) =>
      (await client.request({ ...FLEET_ENDPOINTS.fleet, path: pathWith(FLEET_ENDPOINTS.fleet.path, { id }) }, { query, ...(signal === undefined ? {} : { signal }) })).data,
  }
}
