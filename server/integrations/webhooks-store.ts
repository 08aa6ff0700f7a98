/**
 * Webhook settings and the delivery log (issue 33; contract src/contracts/webhooks.ts), in the caller's RLS transaction.
 *
 * - create: checks the URL (scheme, then the address rule of ./safe-fetch.ts after resolving its host: a target on a
 *   private, loopback or link-local address is a 400 with the refusal in words), seals URL and signing secret
 *   (./webhook-secrets.ts) and answers the secret once;
 * - update: any of name, URL (checked again), events, minimum severity, enabled (`enabled: true` clears an automatic
 *   disabling and its failure count);
 * - delete; test (a `webhook.test` event to this webhook only, through the outbox); deliveries (newest first, 50 a
 *   page); replay (a new delivery of the same body, `replay_of` naming the original).
 * Create, update and delete are audited (`webhook.created`, `webhook.updated`, `webhook.deleted`: names, kinds, events,
 * never the URL or the secret); so are replays and tests.
 */
import { randomUUID } from "node:crypto"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { Conflict, NotFound, ValidationError } from "../../src/contracts/errors.ts"
import type { Severity } from "../../src/contracts/findings.ts"
import type { IntegrationEventType } from "../../src/contracts/integrations-events.ts"
import {
  type CreateWebhookPayload,
  DELIVERIES_PAGE,
  type UpdateWebhookPayload,
  type Webhook,
  type WebhookDelivery,
  WebhookMessages as M,
} from "../../src/contracts/webhooks.ts"
import { presentedKeyDetails } from "../audit/audit-log.ts"
import type { WorkspaceContext } from "../auth/workspace-context.ts"
import { AppConfig } from "../config.ts"
import { publishIntegrationEvent, queueDelivery } from "./events.ts"
import { checkTargetUrl, OutboundRequestFailed } from "./safe-fetch.ts"
import { DISABLE_AFTER_FAILED_DELIVERIES } from "./webhook-delivery.ts"
import { newSigningSecret, sealWebhookValue, urlHint } from "./webhook-secrets.ts"

type WebhookAuditAction = "webhook.created" | "webhook.updated" | "webhook.deleted" | "webhook.tested" | "webhook.delivery_replayed"

/**
 * An audit row in the caller's workspace scope (the append-only `audit_log` of migration 0002, same format as
 * server/audit/scanning-audit.ts; the webhook actions are declared here as that module declares the scanning ones).
 */
const audit = (ctx: WorkspaceContext, action: WebhookAuditAction, targetId: number, details: Record<string, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
    INSERT INTO audit_log (workspace_id, actor_user_id, action, target_type, target_id, details, ip)
    VALUES (${ctx.workspaceId}, ${ctx.userId}, ${action}, 'webhook', ${String(targetId)}, ${JSON.stringify(details)}::jsonb || ${presentedKeyDetails(sql)}, ${ctx.ip === "" ? null : ctx.ip})`)

interface WebhookRow {
  readonly id: number
  readonly kind: "webhook" | "slack"
  readonly name: string
  readonly url_hint: string
  readonly events: ReadonlyArray<IntegrationEventType>
  readonly min_severity: Severity
  readonly enabled: boolean
  readonly disabled_reason: string | null
  readonly disabled_at: Date | null
  readonly consecutive_failures: number
  readonly last_delivery_at: Date | null
  readonly created_at: Date
  readonly updated_at: Date
}

const iso = (d: Date | string) => new Date(d).toISOString()
const isoOrNull = (d: Date | string | null) => (d === null ? null : iso(d))

const toWebhook = (r: WebhookRow): Webhook => ({
  id: r.id as Webhook["id"],
  kind: r.kind,
  name: r.name,
  url_hint: r.url_hint,
  events: [...r.events],
  min_severity: r.min_severity,
  enabled: r.enabled,
  disabled_reason: r.disabled_reason,
  disabled_at: isoOrNull(r.disabled_at),
  consecutive_failures: r.consecutive_failures,
  disable_after: DISABLE_AFTER_FAILED_DELIVERIES,
  last_delivery_at: isoOrNull(r.last_delivery_at),
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
})

const COLUMNS = `id, kind, name, url_hint, events, min_severity, enabled, disabled_reason, disabled_at, consecutive_failures,
  last_delivery_at, created_at, updated_at`

export const listWebhooks = Effect.fn("Webhooks.list")(function* (workspaceId: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<WebhookRow>`SELECT ${sql.literal(COLUMNS)} FROM webhooks WHERE workspace_id = ${workspaceId} ORDER BY id`
  return rows.map(toWebhook)
})

const getWebhook = (workspaceId: number, id: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<WebhookRow>`SELECT ${sql.literal(COLUMNS)} FROM webhooks WHERE workspace_id = ${workspaceId} AND id = ${id}`
    if (rows[0] === undefined) return yield* new NotFound({ message: M.webhookNotFound })
    return toWebhook(rows[0])
  })

/**
 * The URL as it will be stored (trimmed), after the scheme and address checks; a refusal is a 400 on `url`. Resolving
 * the host is network I/O inside the caller's transaction: bounded by the resolver (a few seconds at worst), and only
 * on create / URL change by an admin.
 */
const checkedUrl = (kind: "webhook" | "slack", raw: string) =>
  Effect.gen(function* () {
    const text = raw.trim()
    const url = new URL(text)
    if (kind === "slack" && url.protocol !== "https:") {
      return yield* new ValidationError({ message: M.slackUrlInvalid, errors: [{ path: "url", message: M.slackUrlInvalid }] })
    }
    yield* Effect.tryPromise({
      try: () => checkTargetUrl(text),
      catch: (error) => error,
    }).pipe(Effect.catch((error) => {
      const message = error instanceof OutboundRequestFailed ? error.message : String(error)
      return Effect.fail(new ValidationError({ message, errors: [{ path: "url", message }] }))
    }))
    return url
  })

export const createWebhook = (ctx: WorkspaceContext, payload: CreateWebhookPayload) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const config = yield* AppConfig
    const url = yield* checkedUrl(payload.kind, payload.url)
    const events = [...new Set(payload.events)]
    const inserted = yield* sql<{ id: number }>`
      INSERT INTO webhooks (workspace_id, kind, name, sealed_url, url_hint, sealed_secret, events, min_severity, created_by)
      VALUES (${ctx.workspaceId}, ${payload.kind}, ${payload.name.trim()}, '', ${urlHint(url)}, ${payload.kind === "webhook" ? "" : null},
              ${`{${events.join(",")}}`}::text[], ${payload.min_severity ?? "low"}, ${ctx.userId})
      RETURNING id`
    const id = inserted[0]!.id
    const binding = { workspaceId: ctx.workspaceId, webhookId: id }
    const secret = payload.kind === "webhook" ? newSigningSecret() : null
    yield* sql`UPDATE webhooks SET sealed_url = ${sealWebhookValue(config.appSecretKey, binding, "url", url.href)},
                 sealed_secret = ${secret === null ? null : sealWebhookValue(config.appSecretKey, binding, "secret", secret)}
               WHERE workspace_id = ${ctx.workspaceId} AND id = ${id}`
    yield* audit(ctx, "webhook.created", id, { kind: payload.kind, name: payload.name.trim(), url_hint: urlHint(url), events, min_severity: payload.min_severity ?? "low" })
    // The row was inserted in this transaction: not finding it is a defect, not a 404.
    return { webhook: yield* getWebhook(ctx.workspaceId, id).pipe(Effect.catchTag("NotFound", (e) => Effect.die(e))), secret }
  })

export const updateWebhook = (ctx: WorkspaceContext, id: number, payload: UpdateWebhookPayload) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const config = yield* AppConfig
    const before = yield* getWebhook(ctx.workspaceId, id)
    yield* sql`SELECT id FROM webhooks WHERE workspace_id = ${ctx.workspaceId} AND id = ${id} FOR UPDATE`
    const url = payload.url === undefined ? undefined : yield* checkedUrl(before.kind, payload.url)
    const events = payload.events === undefined ? undefined : [...new Set(payload.events)]
    const reenable = payload.enabled === true && !before.enabled
    yield* sql`
      UPDATE webhooks SET
        name = ${payload.name?.trim() ?? before.name},
        sealed_url = ${url === undefined ? sql`sealed_url` : sealWebhookValue(config.appSecretKey, { workspaceId: ctx.workspaceId, webhookId: id }, "url", url.href)},
        url_hint = ${url === undefined ? before.url_hint : urlHint(url)},
        events = ${`{${(events ?? before.events).join(",")}}`}::text[],
        min_severity = ${payload.min_severity ?? before.min_severity},
        enabled = ${payload.enabled ?? before.enabled},
        disabled_reason = ${payload.enabled === undefined ? sql`disabled_reason` : sql`NULL`},
        disabled_at = ${payload.enabled === false ? sql`coalesce(disabled_at, now())` : payload.enabled === true ? sql`NULL` : sql`disabled_at`},
        consecutive_failures = ${reenable ? sql`0` : sql`consecutive_failures`},
        updated_at = now()
      WHERE workspace_id = ${ctx.workspaceId} AND id = ${id}`
    const after = yield* getWebhook(ctx.workspaceId, id)
    const changed = (["name", "url_hint", "events", "min_severity", "enabled"] as const).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]))
    yield* audit(ctx, "webhook.updated", id, {
      changed,
      before: Object.fromEntries(changed.map((k) => [k, before[k]])),
      after: Object.fromEntries(changed.map((k) => [k, after[k]])),
    })
    return after
  })

export const deleteWebhook = (ctx: WorkspaceContext, id: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const before = yield* getWebhook(ctx.workspaceId, id)
    yield* sql`DELETE FROM webhooks WHERE workspace_id = ${ctx.workspaceId} AND id = ${id}`
    yield* audit(ctx, "webhook.deleted", id, { kind: before.kind, name: before.name, url_hint: before.url_hint, events: before.events })
  })

interface DeliveryRow {
  readonly id: number
  readonly webhook_id: number
  readonly event_id: string
  readonly event_type: string
  readonly status: "pending" | "delivered" | "failed"
  readonly attempts: number
  readonly last_status_code: number | null
  readonly last_error: string | null
  readonly next_attempt_at: Date | null
  readonly delivered_at: Date | null
  readonly replay_of: number | null
  readonly created_at: Date
  readonly body: string
}

const toDelivery = (r: DeliveryRow): WebhookDelivery => ({
  id: r.id as WebhookDelivery["id"],
  webhook_id: r.webhook_id as WebhookDelivery["webhook_id"],
  event_id: r.event_id,
  event_type: r.event_type,
  status: r.status,
  attempts: r.attempts,
  last_status_code: r.last_status_code,
  last_error: r.last_error,
  next_attempt_at: isoOrNull(r.next_attempt_at),
  delivered_at: isoOrNull(r.delivered_at),
  replay_of: r.replay_of as WebhookDelivery["replay_of"],
  created_at: iso(r.created_at),
  body: r.body,
})

const DELIVERY_COLUMNS = `id, webhook_id, event_id::text AS event_id, event_type, status, attempts, last_status_code, last_error,
  next_attempt_at, delivered_at, replay_of, created_at, body`

export const listDeliveries = Effect.fn("Webhooks.deliveries")(function* (workspaceId: number, webhookId: number, before: number | undefined) {
  const sql = yield* SqlClient.SqlClient
  yield* getWebhook(workspaceId, webhookId)
  const rows = yield* sql<DeliveryRow>`
    SELECT ${sql.literal(DELIVERY_COLUMNS)} FROM webhook_deliveries
    WHERE workspace_id = ${workspaceId} AND webhook_id = ${webhookId} ${before === undefined ? sql`` : sql`AND id < ${before}`}
    ORDER BY id DESC LIMIT ${DELIVERIES_PAGE + 1}`
  const page = rows.slice(0, DELIVERIES_PAGE).map(toDelivery)
  return { deliveries: page, next_before: rows.length > DELIVERIES_PAGE ? page[page.length - 1]!.id : null }
})

const getDelivery = (workspaceId: number, id: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<DeliveryRow>`SELECT ${sql.literal(DELIVERY_COLUMNS)} FROM webhook_deliveries WHERE workspace_id = ${workspaceId} AND id = ${id}`
    return rows[0] === undefined ? undefined : toDelivery(rows[0])
  })

/** Queues the same body again as a new delivery (the event id stays: receivers that deduplicate see a duplicate). */
export const replayDelivery = (ctx: WorkspaceContext, webhookId: number, deliveryId: number) =>
  Effect.gen(function* () {
    const hook = yield* getWebhook(ctx.workspaceId, webhookId)
    const original = yield* getDelivery(ctx.workspaceId, deliveryId)
    if (original === undefined || original.webhook_id !== webhookId) return yield* new NotFound({ message: M.deliveryNotFound })
    if (!hook.enabled) return yield* new Conflict({ message: M.replayDisabled })
    const id = yield* queueDelivery(ctx.workspaceId, webhookId, original.event_id, original.event_type, original.body, original.id)
    yield* audit(ctx, "webhook.delivery_replayed", webhookId, { delivery_id: original.id, replay_id: id, event_type: original.event_type })
    return (yield* getDelivery(ctx.workspaceId, id))!
  })

/** A `webhook.test` event for this webhook only, through the outbox like any event; answers its delivery. */
export const testWebhook = (ctx: WorkspaceContext, webhookId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const hook = yield* getWebhook(ctx.workspaceId, webhookId)
    if (!hook.enabled) return yield* new Conflict({ message: M.testDisabled })
    const eventId = yield* publishIntegrationEvent(ctx.workspaceId, "webhook.test", {
      message: "This is a test event. Your endpoint received it.",
      webhook: { id: hook.id, name: hook.name },
    }, `webhook.test:${randomUUID()}`, { onlyWebhook: webhookId })
    const rows = yield* sql<{ id: number }>`SELECT id FROM webhook_deliveries WHERE workspace_id = ${ctx.workspaceId} AND event_id = ${eventId!} AND webhook_id = ${webhookId}`
    yield* audit(ctx, "webhook.tested", webhookId, { delivery_id: rows[0]!.id })
    return (yield* getDelivery(ctx.workspaceId, rows[0]!.id))!
  })
