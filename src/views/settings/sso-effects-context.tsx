/**
 * How the single-sign-on settings page gets its effects without importing `src/services`: the composition root builds
 * `SsoSettingsEffects` with `ssoSettingsEffectsFrom(services)` and renders `<SsoEffectsProvider>`; tests render it with
 * fakes. Small on purpose: it is imported eagerly, the page is lazy. Without a provider every call fails with the
 * catalogue's "no response" text.
 */
import { createContext, useContext, type ReactNode } from "react"
import { StatusMessages } from "../../contracts/messages.ts"
import type { EffectFailure } from "../../machines/auth-effects.ts"
import type { SsoSettingsEffects } from "../../machines/sso-effects.ts"

const noResponse: EffectFailure = { type: "NETWORK_ERROR", message: StatusMessages.noResponse }
const unwired = (): Promise<never> => Promise.reject(noResponse)

export const UNWIRED_SSO_EFFECTS: SsoSettingsEffects = { loadSettings: unwired, saveSettings: unwired, removeSettings: unwired }

const SsoEffectsContext = createContext<SsoSettingsEffects>(UNWIRED_SSO_EFFECTS)

export function SsoEffectsProvider({ effects, children }: { readonly effects: SsoSettingsEffects; readonly children: ReactNode }) {
  return <SsoEffectsContext value={effects}>{children}</SsoEffectsContext>
}

export function useSsoEffects(): SsoSettingsEffects {
  return useContext(SsoEffectsContext)
}
