/**
 * Webhook deliveries (issue 33; docs/integrations.md "Delivery"): the `webhooks.deliver` job, one per attempt, payload
 * `{ workspace_id, delivery_id }` only (never the URL, the secret or the body).
 *
 * One attempt:
 * 1. claims the delivery row (`claimed_until`, so two attempts of one delivery never send at once) in the workspace's
 *    RLS scope; a row already delivered or given up is left alone (a re-delivered job sends nothing);
 * 2. opens the webhook's sealed URL and secret (./webhook-secrets.ts), signs the stored body
 *    (`X-Cloud-Audit-Signature`, ./webhook-signature.ts; Slack messages are not signed) and POSTs it through the guarded
 *    client (./safe-fetch.ts: private, loopback and link-local targets refused, also after DNS and on redirects);
 * 3. records the outcome: a 2xx answer delivers it; anything else (another status, a refused address, a timeout) is a
 *    failed attempt, retried with exponential backoff (`retryDelaySeconds`: 10 s, 20 s, 40 s … at most 1 hour, with up
 *    to 10 % jitter) by a new job queued in the same transaction, until `MAX_ATTEMPTS` attempts (about 3.4 hours in
 *    all), after which the delivery is given up ("failed"; it can still be replayed).
 *
 * Automatic disabling: every delivery given up adds one to the webhook's `consecutive_failures` and every delivered one
 * resets it; at `DISABLE_AFTER_FAILED_DELIVERIES` (15) deliveries given up in a row, the webhook is disabled with a
 * reason the settings page shows, and its remaining pending deliveries are given up when their attempt comes. An admin
 * re-enables it (which resets the count).
 *
 * A delivery is at least once: the receiver may see an event twice (an answer lost after it was processed, a replay),
 * and deduplicates on the event's `id`.
 */
import { Data, Effect, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { DELIVERY_ID_HEADER, EVENT_ID_HEADER, EVENT_TYPE_HEADER, SIGNATURE_HEADER } from "../../src/contracts/integrations-events.ts"
import { inScope } from "../auth/rls.ts"
import { AppConfig } from "../config.ts"
import { defineJob, JobQueue, type JobContext, type JobDefinition } from "../jobs/queue.ts"
import { logLine } from "../log.ts"
import { OutboundRequestFailed, safeFetch, type SafeFetchOptions } from "./safe-fetch.ts"
import { openWebhookValue } from "./webhook-secrets.ts"
import { signatureHeader } from "./webhook-signature.ts"

export const DELIVER_WEBHOOK_JOB = "webhooks.deliver"

export const DeliverWebhookPayload = Schema.Struct({ workspace_id: Schema.Int, delivery_id: Schema.Int })
export type DeliverWebhookPayload = typeof DeliverWebhookPayload.Type

/** Attempts of one delivery before it is given up. */
export const MAX_ATTEMPTS = 12
/** Deliveries given up in a row after which a webhook is disabled. */
export const DISABLE_AFTER_FAILED_DELIVERIES = 15
const FIRST_RETRY_SECONDS = 10
const LONGEST_RETRY_SECONDS = 3600
/** One attempt's whole exchange (redirects included). */
export const DELIVERY_TIMEOUT_MS = 10_000
const CLAIM_SECONDS = 60
const USER_AGENT = "CloudAudit-Webhooks/1"

/** Seconds before attempt `attempts + 1`, after `attempts` failed ones (1-based): 10 s × 2^(n−1), at most 1 h, +0–10 %. */
export const retryDelaySeconds = (attempts: number, random: () => number = Math.random): number => {
  const base = Math.min(LONGEST_RETRY_SECONDS, FIRST_RETRY_SECONDS * 2 ** Math.max(0, attempts - 1))
  return Math.round(base * (1 + 0.1 * random()))
}

export class WebhookAttemptFailed extends Data.TaggedError("WebhookAttemptFailed")<{ readonly message: string }> {}

export const deliverWebhookJob: JobDefinition<typeof DELIVER_WEBHOOK_JOB, DeliverWebhookPayload, SqlClient.SqlClient | AppConfig> = defineJob(DELIVER_WEBHOOK_JOB, DeliverWebhookPayload, (payload, job) => Effect.asVoid(deliverWebhook(payload, job)), {
  // Retries are scheduled by the handler itself (a new job with the backoff delay), so pg-boss retries only an attempt
  // whose process died (expiry / heartbeat): the claim then lapses and the retry sends again.
  queue: { retryLimit: 2, retryDelaySeconds: 30, expireInSeconds: 60 },
  work: { localConcurrency: 4, pollingIntervalSeconds: 2, inApiProcesses: true },
})

/**
 * Queues an attempt of a delivery in the caller's transaction, `startAfterSeconds` from now. The job row is written as
 * the login role (the API role has no rights on pg-boss's schema; the caller's role is restored), as mail does. Without
 * a job queue in the context (a unit test's database alone) nothing is queued and the row waits.
 */
export const enqueueDelivery = (workspaceId: number, deliveryId: number, startAfterSeconds: number) =>
  Effect.gen(function* () {
    const queue = yield* Effect.serviceOption(JobQueue)
    if (Option.isNone(queue)) return
    const sql = yield* SqlClient.SqlClient
    const current = yield* sql<{ role: string }>`SELECT current_setting('role') AS role`
    yield* sql`SELECT set_config('role', 'none', true)`
    yield* queue.value.send(deliverWebhookJob, { workspace_id: workspaceId, delivery_id: deliveryId },
      startAfterSeconds > 0 ? { startAfterSeconds } : {}).pipe(Effect.orDie)
    yield* sql`SELECT set_config('role', ${current[0]?.role ?? "none"}, true)`
  })

interface Claimed {
  readonly id: number
  readonly webhook_id: number
  readonly event_id: string
  readonly event_type: string
  readonly body: string
  readonly attempts: number
  readonly kind: "webhook" | "slack"
  readonly sealed_url: string
  readonly sealed_secret: string | null
  readonly enabled: boolean
}

export interface AttemptOutcome {
  readonly delivered: boolean
  readonly statusCode: number | null
  readonly error: string | null
}

/** What an attempt may be given by tests: the outbound client's options (resolver, address rule). */
export interface DeliveryOptions {
  readonly fetch?: Pick<SafeFetchOptions, "resolve" | "refuseAddress" | "allowPrivateTargets">
  readonly random?: () => number
}

/** Sends one claimed delivery; never fails (the outcome says what happened). */
export const sendDelivery = async (
  claimed: Pick<Claimed, "id" | "event_id" | "event_type" | "body" | "kind">,
  url: string,
  secret: string | undefined,
  options: DeliveryOptions & { readonly signal?: AbortSignal; readonly now?: () => number } = {},
): Promise<AttemptOutcome> => {
  const headers: Record<string, string> = { "content-type": "application/json", "user-agent": USER_AGENT }
  if (claimed.kind === "webhook") {
    headers[EVENT_TYPE_HEADER] = claimed.event_type
    headers[EVENT_ID_HEADER] = claimed.event_id
    headers[DELIVERY_ID_HEADER] = String(claimed.id)
    if (secret !== undefined) headers[SIGNATURE_HEADER] = signatureHeader(secret, Math.floor((options.now ?? Date.now)() / 1000), claimed.body)
  }
  try {
    const response = await safeFetch(url, {
      method: "POST",
      headers,
      body: claimed.body,
      timeoutMs: DELIVERY_TIMEOUT_MS,
      maxResponseBytes: 64 * 1024,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...options.fetch,
    })
    if (response.status >= 200 && response.status < 300) return { delivered: true, statusCode: response.status, error: null }
    const excerpt = response.text().slice(0, 200).replace(/\s+/g, " ").trim()
    return { delivered: false, statusCode: response.status, error: `${response.url} answered ${response.status}${excerpt === "" ? "" : `: ${excerpt}`}` }
  } catch (error) {
    const message = error instanceof OutboundRequestFailed ? error.message : `the delivery could not be sent: ${String(error)}`
    return { delivered: false, statusCode: null, error: message }
  }
}

/** Runs one attempt of delivery `payload.delivery_id` (module header). */
export const deliverWebhook = (payload: DeliverWebhookPayload, job: Pick<JobContext, "signal">, options: DeliveryOptions = {}) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const scope = inScope({ workspaceId: payload.workspace_id })
    const claimedRows = yield* scope(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<Claimed>`
      UPDATE webhook_deliveries d SET claimed_until = now() + make_interval(secs => ${CLAIM_SECONDS})
      FROM webhooks w
      WHERE d.workspace_id = ${payload.workspace_id} AND d.id = ${payload.delivery_id} AND d.status = 'pending'
        AND (d.claimed_until IS NULL OR d.claimed_until < now()) AND w.id = d.webhook_id
      RETURNING d.id, d.webhook_id, d.event_id, d.event_type, d.body, d.attempts, w.kind, w.sealed_url, w.sealed_secret, w.enabled`))
    const claimed = claimedRows[0]
    if (claimed === undefined) return // delivered, given up, deleted, or another attempt holds it (it schedules the next)

    const binding = { workspaceId: payload.workspace_id, webhookId: claimed.webhook_id }
    let outcome: AttemptOutcome
    const url = openWebhookValue(config.appSecretKey, binding, "url", claimed.sealed_url)
    const secret = claimed.sealed_secret === null ? undefined : openWebhookValue(config.appSecretKey, binding, "secret", claimed.sealed_secret)
    if (!claimed.enabled) {
      outcome = { delivered: false, statusCode: null, error: "The webhook is disabled" }
    } else if (url === undefined || (claimed.kind === "webhook" && secret === undefined)) {
      outcome = { delivered: false, statusCode: null, error: "The webhook's URL or secret could not be opened (APP_SECRET_KEY changed?)" }
    } else {
      outcome = yield* Effect.promise(() => sendDelivery(claimed, url, secret, { ...options, signal: job.signal }))
    }
    const attempts = claimed.attempts + 1
    const final = !outcome.delivered && (!claimed.enabled || url === undefined || attempts >= MAX_ATTEMPTS)
    const delay = retryDelaySeconds(attempts, options.random)

    yield* scope(Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const status = outcome.delivered ? "delivered" : final ? "failed" : "pending"
      yield* sql`
        UPDATE webhook_deliveries SET attempts = ${attempts}, status = ${status}, last_status_code = ${outcome.statusCode},
          last_error = ${outcome.error === null ? null : outcome.error.slice(0, 1000)}, claimed_until = NULL,
          delivered_at = ${outcome.delivered ? sql`now()` : sql`NULL`},
          next_attempt_at = ${status === "pending" ? sql`now() + make_interval(secs => ${delay})` : sql`NULL`}
        WHERE workspace_id = ${payload.workspace_id} AND id = ${claimed.id}`
      if (outcome.delivered) {
        yield* sql`UPDATE webhooks SET consecutive_failures = 0, last_delivery_at = now()
                   WHERE workspace_id = ${payload.workspace_id} AND id = ${claimed.webhook_id}`
      } else if (final && claimed.enabled) {
        const hooks = yield* sql<{ consecutive_failures: number }>`
          UPDATE webhooks SET consecutive_failures = consecutive_failures + 1, last_delivery_at = now()
          WHERE workspace_id = ${payload.workspace_id} AND id = ${claimed.webhook_id} RETURNING consecutive_failures`
        const failures = hooks[0]?.consecutive_failures ?? 0
        if (failures >= DISABLE_AFTER_FAILED_DELIVERIES) {
          const reason = `Disabled automatically after ${failures} deliveries in a row failed (each after ${MAX_ATTEMPTS} attempts); last error: ${outcome.error ?? "unknown"}`.slice(0, 1000)
          yield* sql`UPDATE webhooks SET enabled = false, disabled_at = now(), disabled_reason = ${reason}, updated_at = now()
                     WHERE workspace_id = ${payload.workspace_id} AND id = ${claimed.webhook_id} AND enabled`
          logLine("warn", "webhook disabled after repeated failures", { webhook_id: claimed.webhook_id, workspace_id: payload.workspace_id })
        }
      } else if (status === "pending") {
        yield* enqueueDelivery(payload.workspace_id, claimed.id, delay)
      }
    }))
    logLine(outcome.delivered ? "info" : "warn", outcome.delivered ? "webhook delivered" : final ? "webhook delivery given up" : "webhook attempt failed; will retry", {
      delivery_id: claimed.id, webhook_id: claimed.webhook_id, attempt: attempts, status_code: outcome.statusCode,
      ...(outcome.error === null ? {} : { error: outcome.error }), ...(outcome.delivered || final ? {} : { retry_in_seconds: delay }),
    })
    return { ...outcome, attempts, final, retryInSeconds: outcome.delivered || final ? null : delay }
  })
