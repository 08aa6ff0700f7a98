/**
 * What the Webhooks settings page's machine needs from the outside world (issue 33, docs/integrations.md:
 * /api/integrations/webhooks), as types. Nothing here performs an effect: the real `WebhooksEffects` are built from the
 * SPA services by `webhooksEffectsFrom(services)` (src/services/webhooks-api.ts) and reach the view through
 * `<WebhooksEffectsProvider>` (src/views/settings/webhooks-effects-context.tsx); tests hand fakes to `machine.provide()`.
 *
 * Failures reject with a catalogue error value `{ type, message, status?, data? }`: a 403 says the user is not a
 * workspace admin, a 400 carries the server's refusal (a private target, a field).
 */
import type { Severity } from "../contracts/findings.ts"
import type { IntegrationEventType } from "../contracts/integrations-events.ts"
import type { Webhook, WebhookDelivery, WebhookKind } from "../contracts/webhooks.ts"
import type { EffectCall } from "./auth-effects.ts"

/** The create / edit form as sent: on edit, an empty `url` keeps the stored one. */
export interface WebhookDraft {
  readonly id: number | null
  readonly kind: WebhookKind
  readonly name: string
  readonly url: string
  readonly events: ReadonlyArray<IntegrationEventType>
  readonly min_severity: Severity
}

export interface WebhookSaved {
  readonly message: string
  readonly webhook: Webhook
  /** The signing secret, answered once by a creation (null for Slack and for an edit). */
  readonly secret: string | null
}

export interface WebhookChanged {
  readonly message: string
  readonly webhook: Webhook
}

export interface DeliveryQueued {
  readonly message: string
  readonly delivery: WebhookDelivery
}

export interface WebhooksEffects {
  readonly loadWebhooks: EffectCall<void, ReadonlyArray<Webhook>>
  readonly saveWebhook: EffectCall<WebhookDraft, WebhookSaved>
  readonly setEnabled: EffectCall<{ readonly id: number; readonly enabled: boolean }, WebhookChanged>
  readonly deleteWebhook: EffectCall<number, string>
  readonly testWebhook: EffectCall<number, DeliveryQueued>
  readonly loadDeliveries: EffectCall<number, ReadonlyArray<WebhookDelivery>>
  readonly replayDelivery: EffectCall<{ readonly webhookId: number; readonly deliveryId: number }, DeliveryQueued>
}

/** Where the page lives (a workspace admin's page, linked from the user menu). */
export const WEBHOOKS_PATH = "/dashboard/settings/webhooks"
