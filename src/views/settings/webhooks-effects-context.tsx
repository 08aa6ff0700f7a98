/**
 * How the Webhooks settings page (issue 33) gets its effects without importing `src/services`: the composition root
 * builds `WebhooksEffects` with `webhooksEffectsFrom(services)` and renders `<WebhooksEffectsProvider>`; tests render it
 * with fakes. Small on purpose: it is imported eagerly, the page is lazy. Without a provider every call fails with the
 * catalogue's "no response" text.
 */
import { createContext, useContext, type ReactNode } from "react"
import { StatusMessages } from "../../contracts/messages.ts"
import type { EffectFailure } from "../../machines/auth-effects.ts"
import type { WebhooksEffects } from "../../machines/webhooks-effects.ts"

export type { WebhooksEffects } from "../../machines/webhooks-effects.ts"

const noResponse: EffectFailure = { type: "NETWORK_ERROR", message: StatusMessages.noResponse }
const unwired = (): Promise<never> => Promise.reject(noResponse)

export const UNWIRED_WEBHOOKS_EFFECTS: WebhooksEffects = {
  loadWebhooks: unwired, saveWebhook: unwired, setEnabled: unwired, deleteWebhook: unwired, testWebhook: unwired,
  loadDeliveries: unwired, replayDelivery: unwired,
}

const WebhooksEffectsContext = createContext<WebhooksEffects>(UNWIRED_WEBHOOKS_EFFECTS)

export function WebhooksEffectsProvider({ effects, children }: { readonly effects: WebhooksEffects; readonly children: ReactNode }) {
  return <WebhooksEffectsContext value={effects}>{children}</WebhooksEffectsContext>
}

export function useWebhooksEffects(): WebhooksEffects {
  return useContext(WebhooksEffectsContext)
}
