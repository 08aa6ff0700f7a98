/**
 * Typed calls of the Webhooks settings page (issue 33; /api/integrations/webhooks, docs/integrations.md) on the shared
 * API client, and the page's effects built from them (`webhooksEffectsFrom(services)`, handed to
 * `<WebhooksEffectsProvider>` by the composition root). Answers are decoded with src/contracts/webhooks.ts; failures
 * reject with the client's catalogue error (the server's message for 4xx).
 */
import {
  DeliveriesResponse,
  DeliveryQueuedResponse,
  WebhookCreatedResponse,
  WebhookDeletedResponse,
  WebhookMessages,
  WebhookResponse,
  WebhooksResponse,
} from "../contracts/webhooks.ts"
import type { WebhooksEffects } from "../machines/webhooks-effects.ts"
import { endpoint, pathWith, type Endpoint } from "./api-client.ts"
import type { AppServices } from "./app-services.ts"

export const WEBHOOK_ENDPOINTS = {
  list: endpoint({ method: "GET", path: "/api/integrations/webhooks", response: WebhooksResponse }),
  create: endpoint({ method: "POST", path: "/api/integrations/webhooks", response: WebhookCreatedResponse }),
  update: endpoint({ method: "PATCH", path: "/api/integrations/webhooks/:id", response: WebhookResponse }),
  remove: endpoint({ method: "DELETE", path: "/api/integrations/webhooks/:id", response: WebhookDeletedResponse }),
  test: endpoint({ method: "POST", path: "/api/integrations/webhooks/:id/test", response: DeliveryQueuedResponse }),
  deliveries: endpoint({ method: "GET", path: "/api/integrations/webhooks/:id/deliveries", response: DeliveriesResponse }),
  replay: endpoint({ method: "POST", path: "/api/integrations/webhooks/:id/deliveries/:delivery_id/replay", response: DeliveryQueuedResponse }),
} satisfies Record<string, Endpoint<unknown>>

const signalOpt = (signal: AbortSignal | undefined) => (signal === undefined ? {} : { signal })
const at = <A>(e: Endpoint<A>, params: Readonly<Record<string, number>>): Endpoint<A> => ({ ...e, path: pathWith(e.path, params) })

export const webhooksEffectsFrom = (services: Pick<AppServices, "client">): WebhooksEffects => ({
  loadWebhooks: async (_, signal) => (await services.client.request(WEBHOOK_ENDPOINTS.list, signalOpt(signal))).data.webhooks,
  saveWebhook: async (draft, signal) => {
    if (draft.id === null) {
      const body = { kind: draft.kind, name: draft.name.trim(), url: draft.url.trim(), events: draft.events, min_severity: draft.min_severity }
      const answer = await services.client.request(WEBHOOK_ENDPOINTS.create, { body, ...signalOpt(signal) })
      return { message: answer.message, webhook: answer.data.webhook, secret: answer.data.secret }
    }
    const body = {
      name: draft.name.trim(), events: draft.events, min_severity: draft.min_severity, ...(draft.url.trim() === "" ? {} : { url: draft.url.trim() }),
    }
    const answer = await services.client.request(at(WEBHOOK_ENDPOINTS.update, { id: draft.id }), { body, ...signalOpt(signal) })
    return { message: answer.message, webhook: answer.data.webhook, secret: null }
  },
  setEnabled: async ({ id, enabled }, signal) => {
    const answer = await services.client.request(at(WEBHOOK_ENDPOINTS.update, { id }), { body: { enabled }, ...signalOpt(signal) })
    return { message: answer.message, webhook: answer.data.webhook }
  },
  deleteWebhook: async (id, signal) => (await services.client.request(at(WEBHOOK_ENDPOINTS.remove, { id }), signalOpt(signal))).message ?? WebhookMessages.deleted,
  testWebhook: async (id, signal) => {
    const answer = await services.client.request(at(WEBHOOK_ENDPOINTS.test, { id }), signalOpt(signal))
    return { message: answer.message, delivery: answer.data.delivery }
  },
  loadDeliveries: async (id, signal) => (await services.client.request(at(WEBHOOK_ENDPOINTS.deliveries, { id }), signalOpt(signal))).data.deliveries,
  replayDelivery: async ({ webhookId, deliveryId }, signal) => {
    const answer = await services.client.request(at(WEBHOOK_ENDPOINTS.replay, { id: webhookId, delivery_id: deliveryId }), signalOpt(signal))
    return { message: answer.message, delivery: answer.data.delivery }
  },
})
