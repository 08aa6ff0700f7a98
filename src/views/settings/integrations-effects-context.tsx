/**
 * How the Integrations settings page (issue 33 parts 5 and 6) gets its effects without importing `src/services`: the
 * composition root builds `IntegrationsEffects` with `integrationsEffectsFrom(services)` and renders
 * `<IntegrationsEffectsProvider>`; tests render it with fakes. Small on purpose: it is imported eagerly, the page is
 * lazy. Without a provider every call fails with the catalogue's "no response" text.
 */
import { createContext, useContext, type ReactNode } from "react"
import { StatusMessages } from "../../contracts/messages.ts"
import type { EffectFailure } from "../../machines/auth-effects.ts"
import type { IntegrationsEffects } from "../../machines/integrations-effects.ts"

export type { IntegrationsEffects } from "../../machines/integrations-effects.ts"

const noResponse: EffectFailure = { type: "NETWORK_ERROR", message: StatusMessages.noResponse }
const unwired = (): Promise<never> => Promise.reject(noResponse)

export const UNWIRED_INTEGRATIONS_EFFECTS: IntegrationsEffects = {
  loadIntegrations: unwired, saveJira: unwired, testJira: unwired, removeJira: unwired, saveSecurityHub: unwired, exportSecurityHub: unwired,
  findingIssues: unwired, createIssues: unwired, refreshIssues: unwired,
}

const IntegrationsEffectsContext = createContext<IntegrationsEffects>(UNWIRED_INTEGRATIONS_EFFECTS)

export function IntegrationsEffectsProvider({ effects, children }: { readonly effects: IntegrationsEffects; readonly children: ReactNode }) {
  return <IntegrationsEffectsContext value={effects}>{children}</IntegrationsEffectsContext>
}

export function useIntegrationsEffects(): IntegrationsEffects {
  return useContext(IntegrationsEffectsContext)
}
