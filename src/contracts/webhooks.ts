/**
 * Webhooks and Slack destinations (issue 33, beyond the spec; docs/integrations.md): the settings a workspace's admins
 * manage (server/api/webhooks.ts) and the delivery log. Event bodies are described in ./integrations-events.ts.
 *
 * The signing secret is answered once, by the call that creates the webhook (`secret`); afterwards no call answers it.
 * The URL is never answered either (a Slack incoming-webhook URL is a credential): `url_hint` shows its origin and last
 * characters.
 */
import { Schema } from "effect"
import { Count, NullableTimestamp, Timestamp } from "./common.ts"
import { Severity } from "./findings.ts"
import { idParam } from "./ids.ts"
import { IntegrationEventType } from "./integrations-events.ts"

export const WebhookMessages = {
  nameInvalid: "Give the destination a name of 1 to 100 characters",
  urlInvalid: "Enter an http or https URL",
  slackUrlInvalid: "A Slack incoming webhook URL starts with https://",
  eventsRequired: "Choose at least one event",
  webhookNotFound: "Webhook not found",
  deliveryNotFound: "Delivery not found",
  permissionDenied: "Only workspace admins can manage webhooks",
  replayDisabled: "Enable the webhook before replaying a delivery",
  testDisabled: "Enable the webhook before sending a test",
  created: "Webhook created",
  updated: "Webhook saved",
  deleted: "Webhook deleted",
  testQueued: "Test event queued",
  replayQueued: "Delivery queued again",
  loadFailed: "Failed to load webhooks. Please try again.",
  saveFailed: "Failed to save the webhook. Please try again.",
  deleteFailed: "Failed to delete the webhook. Please try again.",
  deliveriesFailed: "Failed to load deliveries. Please try again.",
  replayFailed: "Failed to replay the delivery. Please try again.",
  testFailed: "Failed to send a test event. Please try again.",
  secretOnce: "Copy this signing secret now: it will not be shown again.",
} as const

export const WebhookId = Schema.Int.check(Schema.isGreaterThan(0)).pipe(Schema.brand("WebhookId"))
export type WebhookId = typeof WebhookId.Type
export const WebhookDeliveryId = Schema.Int.check(Schema.isGreaterThan(0)).pipe(Schema.brand("WebhookDeliveryId"))
export type WebhookDeliveryId = typeof WebhookDeliveryId.Type

export const WEBHOOK_KINDS = ["webhook", "slack"] as const
export const WebhookKind = Schema.Literals(WEBHOOK_KINDS)
export type WebhookKind = typeof WebhookKind.Type

export const WebhookIdParams = Schema.Struct({ id: idParam(WebhookId) })
export const WebhookDeliveryParams = Schema.Struct({ id: idParam(WebhookId), delivery_id: idParam(WebhookDeliveryId) })

const Name = Schema.String.check(
  Schema.makeFilter((s: string) => (s.trim().length >= 1 && s.trim().length <= 100) || WebhookMessages.nameInvalid),
).annotate({ message: WebhookMessages.nameInvalid })

const Url = Schema.String.check(
  Schema.makeFilter((s: string) => {
    if (s.length > 2048) return WebhookMessages.urlInvalid
    try {
      const u = new URL(s.trim())
      return u.protocol === "http:" || u.protocol === "https:" || WebhookMessages.urlInvalid
    } catch {
      return WebhookMessages.urlInvalid
    }
  }),
).annotate({ message: WebhookMessages.urlInvalid })

const Events = Schema.Array(IntegrationEventType).check(
  Schema.makeFilter((a: ReadonlyArray<string>) => a.length > 0 || WebhookMessages.eventsRequired),
)

/** A destination as the settings page lists it. */
export const Webhook = Schema.Struct({
  id: WebhookId,
  kind: WebhookKind,
  name: Schema.String,
  /** The URL's origin and last characters (the URL itself is never answered). */
  url_hint: Schema.String,
  events: Schema.Array(IntegrationEventType),
  /** New failing resources below this severity are left out (`findings.new_failing`). */
  min_severity: Severity,
  enabled: Schema.Boolean,
  /** Why it was disabled automatically (repeated failures); null when enabled or disabled by an admin. */
  disabled_reason: Schema.NullOr(Schema.String),
  disabled_at: NullableTimestamp,
  /** Deliveries given up in a row (reset by a delivered one); the webhook is disabled at `disable_after`. */
  consecutive_failures: Count,
  disable_after: Count,
  last_delivery_at: NullableTimestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
})
export type Webhook = typeof Webhook.Type

export const WebhooksResponse = Schema.Struct({ ok: Schema.Literal(true), data: Schema.Struct({ webhooks: Schema.Array(Webhook) }) })
export type WebhooksResponse = typeof WebhooksResponse.Type

export const CreateWebhookPayload = Schema.Struct({
  kind: WebhookKind,
  name: Name,
  url: Url,
  events: Events,
  min_severity: Schema.optionalKey(Severity),
})
export type CreateWebhookPayload = typeof CreateWebhookPayload.Type

/** Every field optional: what is sent changes; `enabled: true` re-enables a disabled webhook (and resets its failures). */
export const UpdateWebhookPayload = Schema.Struct({
  name: Schema.optionalKey(Name),
  url: Schema.optionalKey(Url),
  events: Schema.optionalKey(Events),
  min_severity: Schema.optionalKey(Severity),
  enabled: Schema.optionalKey(Schema.Boolean),
})
export type UpdateWebhookPayload = typeof UpdateWebhookPayload.Type

/** The creation answer: the only time the signing secret is shown (null for Slack, whose messages are not signed). */
export const WebhookCreatedResponse = Schema.Struct({
  ok: Schema.Literal(true),
  message: Schema.String,
  data: Schema.Struct({ webhook: Webhook, secret: Schema.NullOr(Schema.String) }),
})
export type WebhookCreatedResponse = typeof WebhookCreatedResponse.Type

export const WebhookResponse = Schema.Struct({ ok: Schema.Literal(true), message: Schema.String, data: Schema.Struct({ webhook: Webhook }) })
export type WebhookResponse = typeof WebhookResponse.Type

export const WebhookDeletedResponse = Schema.Struct({ ok: Schema.Literal(true), message: Schema.String })

export const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const
export const DeliveryStatus = Schema.Literals(DELIVERY_STATUSES)
export type DeliveryStatus = typeof DeliveryStatus.Type

export const WebhookDelivery = Schema.Struct({
  id: WebhookDeliveryId,
  webhook_id: WebhookId,
  event_id: Schema.String,
  event_type: Schema.String,
  /** pending (queued or waiting for a retry), delivered (a 2xx answer), failed (given up). */
  status: DeliveryStatus,
  attempts: Count,
  last_status_code: Schema.NullOr(Schema.Int),
  last_error: Schema.NullOr(Schema.String),
  next_attempt_at: NullableTimestamp,
  delivered_at: NullableTimestamp,
  /** The delivery this one replays. */
  replay_of: Schema.NullOr(WebhookDeliveryId),
  created_at: Timestamp,
  /** The exact JSON body sent (signed as is). */
  body: Schema.String,
})
export type WebhookDelivery = typeof WebhookDelivery.Type

/** The newest deliveries first, 50 a page; `before` (a delivery id) reads the page after. */
export const DeliveriesQuery = Schema.Struct({ before: Schema.optionalKey(idParam(WebhookDeliveryId)) })

export const DeliveriesResponse = Schema.Struct({
  ok: Schema.Literal(true),
  data: Schema.Struct({ deliveries: Schema.Array(WebhookDelivery), next_before: Schema.NullOr(WebhookDeliveryId) }),
})
export type DeliveriesResponse = typeof DeliveriesResponse.Type

export const DeliveryQueuedResponse = Schema.Struct({ ok: Schema.Literal(true), message: Schema.String, data: Schema.Struct({ delivery: WebhookDelivery }) })
export type DeliveryQueuedResponse = typeof DeliveryQueuedResponse.Type

export const DELIVERIES_PAGE = 50
