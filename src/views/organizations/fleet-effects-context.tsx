/**
 * How the fleet screens (issue 31 item 4) get their effects without importing `src/services`: the composition root
 * builds `FleetEffects` with `fleetEffectsFrom(services)` and renders `<FleetEffectsProvider>`; tests render it with
 * fakes. Small on purpose: it is imported eagerly, the pages are lazy. Without a provider every call fails with the
 * catalogue's "no response" text.
 */
import { createContext, useContext, type ReactNode } from "react"
import { StatusMessages } from "../../contracts/messages.ts"
import type { EffectFailure } from "../../machines/auth-effects.ts"
import type { FleetEffects } from "../../machines/fleet-effects.ts"

const noResponse: EffectFailure = { type: "NETWORK_ERROR", message: StatusMessages.noResponse }

export const UNWIRED_FLEET_EFFECTS: FleetEffects = {
  loadFleet: () => Promise.reject(noResponse),
  loadOrgFrameworks: () => Promise.reject(noResponse),
  loadOrgCompliance: () => Promise.reject(noResponse),
  downloadOrgCompliance: () => Promise.reject(noResponse),
}

const FleetEffectsContext = createContext<FleetEffects>(UNWIRED_FLEET_EFFECTS)

export function FleetEffectsProvider({ effects, children }: { readonly effects: FleetEffects; readonly children: ReactNode }) {
  return <FleetEffectsContext value={effects}>{children}</FleetEffectsContext>
}

export function useFleetEffects(): FleetEffects {
  return useContext(FleetEffectsContext)
}
