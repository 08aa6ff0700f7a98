/**
 * How the API keys settings page (issue 33) gets its effects without importing `src/services`: the composition root
 * builds `ApiKeysEffects` with `apiKeysEffectsFrom(services)` and renders `<ApiKeysEffectsProvider>`; tests render it
 * with fakes. Small on purpose: it is imported eagerly, the page is lazy. Without a provider every call fails with the
 * catalogue's "no response" text.
 */
import { createContext, useContext, type ReactNode } from "react"
import { StatusMessages } from "../../contracts/messages.ts"
import type { ApiKeysEffects } from "../../machines/api-keys-effects.ts"
import type { EffectFailure } from "../../machines/auth-effects.ts"

export type { ApiKeysEffects } from "../../machines/api-keys-effects.ts"

const noResponse: EffectFailure = { type: "NETWORK_ERROR", message: StatusMessages.noResponse }
const unwired = (): Promise<never> => Promise.reject(noResponse)

export const UNWIRED_API_KEYS_EFFECTS: ApiKeysEffects = { loadApiKeys: unwired, createApiKey: unwired, revokeApiKey: unwired }

const ApiKeysEffectsContext = createContext<ApiKeysEffects>(UNWIRED_API_KEYS_EFFECTS)

export function ApiKeysEffectsProvider({ effects, children }: { readonly effects: ApiKeysEffects; readonly children: ReactNode }) {
  return <ApiKeysEffectsContext value={effects}>{children}</ApiKeysEffectsContext>
}

export function useApiKeysEffects(): ApiKeysEffects {
  return useContext(ApiKeysEffectsContext)
}
