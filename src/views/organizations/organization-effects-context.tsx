/**
 * How the organisation screens (issue 31) get their effects without importing `src/services`: the composition root
 * builds `OrganizationEffects` with `organizationEffectsFrom(services)` and renders `<OrganizationEffectsProvider>`;
 * tests render it with fakes and a `SimulatedClock`. Small on purpose: it is imported eagerly, the page is lazy.
 * Without a provider every call fails with the catalogue's "no response" text.
 */
import { createContext, useContext, useMemo, type ReactNode } from "react"
import { StatusMessages } from "../../contracts/messages.ts"
import type { EffectFailure } from "../../machines/auth-effects.ts"
import type { OrganizationEffects } from "../../machines/organization-effects.ts"
import type { Clock } from "../app-actors.tsx"

export type { OrganizationEffects } from "../../machines/organization-effects.ts"

export interface OrganizationEnvironment {
  readonly effects: OrganizationEffects
  readonly clock: Clock | undefined
}

const noResponse: EffectFailure = { type: "NETWORK_ERROR", message: StatusMessages.noResponse }
const unwired = (): Promise<never> => Promise.reject(noResponse)

export const UNWIRED_ORGANIZATION_EFFECTS: OrganizationEffects = {
  loadAwsTemplate: unwired,
  loadOrganization: unwired,
  saveSelection: unwired,
  syncNow: unwired,
  listSyncs: unwired,
  listFleetScans: unwired,
  getFleetScan: unwired,
}

const OrganizationEffectsContext = createContext<OrganizationEnvironment>({ effects: UNWIRED_ORGANIZATION_EFFECTS, clock: undefined })

export function OrganizationEffectsProvider({
  effects,
  clock,
  children,
}: {
  readonly effects: OrganizationEffects
  readonly clock?: Clock
  readonly children: ReactNode
}) {
  const value = useMemo(() => ({ effects, clock }), [effects, clock])
  return <OrganizationEffectsContext value={value}>{children}</OrganizationEffectsContext>
}

export function useOrganizationEnvironment(): OrganizationEnvironment {
  return useContext(OrganizationEffectsContext)
}
