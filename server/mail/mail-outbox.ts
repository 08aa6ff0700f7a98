/**
 * Mail delivery at least once. A request that sends a mail writes, in its own transaction, one `mail_outbox` row (the
 * rendered mail, sealed) and one `mail.send` job whose payload is that row's id only (./jobs.ts). A worker — any worker
 * process, and every process that serves the API (the queue is marked `inApiProcesses`) — then runs `deliverQueuedMail`:
 *
 * 1. claim the row (`claimed_until`, so two attempts of one job never send at the same time);
 * 2. open the sealed mail and hand it to SMTP (SMTP_URL), or, without SMTP_URL, log it and keep it in `dev_outbox`;
 * 3. mark it sent (`sent_at`) and wipe the sealed copy. A re-delivered job finds `sent_at` and sends nothing.
 *
 * A failed attempt records `attempts` and `last_error`, releases the claim and fails the job: pg-boss retries it with
 * exponential backoff (MAIL_QUEUE below, ~40 minutes in all). The last attempt also marks the row `failed_at` and wipes
 * the sealed copy; so does the first one that gets a permanent (5xx) refusal from the SMTP server, without a retry. The only duplicate left possible: SMTP accepted the mail and the process died before step 3.
 *
 * Why the rendered mail and not ids + re-rendering: verification, reset and invitation tokens are stored only as
 * SHA-256 digests, so a mail cannot be rendered again later. The links (with their tokens) therefore live in the
 * outbox row, sealed with AES-256-GCM under an HKDF sub-key of APP_SECRET_KEY bound to the row id, never in the job
 * row (pg-boss keeps finished jobs for a while) and never in clear in the database (except in the development outbox,
 * which exists to show them).
 */
import { Data, Effect, Redacted, Schema } from "effect"
import { SqlClient } from "effect/sql"
import nodemailer from "nodemailer"
import { deriveKey, open, seal } from "../auth/crypto.ts"
import { standalone } from "../auth/rls.ts"
import { AppConfig } from "../config.ts"
import type { JobContext, JobQueueOptions, JobWorkOptions } from "../jobs/queue.ts"
import { logLine } from "../log.ts"
import type { MailKind, MailMessage } from "./templates.ts"

export const SEND_MAIL_JOB = "mail.send"

export const SendMailPayload = Schema.Struct({ mail_id: Schema.String.check(Schema.isUUID()) })
export type SendMailPayload = typeof SendMailPayload.Type

/** Retries after the first failed attempt: delays of about 1–2, 2–4, 4–8 … seconds, at most 5 minutes (~40 min in all). */
export const MAIL_RETRY_LIMIT = 15
export const MAIL_QUEUE: JobQueueOptions = {
  retryLimit: MAIL_RETRY_LIMIT,
  retryDelaySeconds: 2,
  retryBackoff: true,
  retryDelayMaxSeconds: 300,
  expireInSeconds: 60,
}
/**
 * The sending process wakes its own mail workers after the commit, so a mail leaves right away; the poll every 2 s is
 * the backstop (retries, other processes).
 */
export const MAIL_WORK: JobWorkOptions = { localConcurrency: 4, pollingIntervalSeconds: 2, inApiProcesses: true }

/** How long one attempt holds its row (the job's expiry: after it, pg-boss retries and the claim has lapsed). */
const CLAIM_SECONDS = 60
const SEND_TIMEOUT = "30 seconds"

export class MailDeliveryFailed extends Data.TaggedError("MailDeliveryFailed")<{
  readonly message: string
  /** The SMTP server refused the mail for good (a 5xx reply such as 550 "no such user"): retrying cannot help. */
  readonly permanent?: boolean
}> {}

/** A 5xx reply from the SMTP server is permanent (RFC 5321 §4.2.1); 4xx replies and network errors are transient. */
export const isPermanentSmtpError = (error: unknown): boolean => {
  const code = typeof error === "object" && error !== null ? (error as { responseCode?: unknown }).responseCode : undefined
  return typeof code === "number" && code >= 500 && code < 600
}

// ---------------------------------------------------------------------------------------------------
// Sealing

interface SealedContent {
  readonly subject: string
  readonly text: string
  readonly html: string
  readonly links: ReadonlyArray<string>
}

export const mailKey = (secret: Redacted.Redacted<string>): Uint8Array => deriveKey(Redacted.value(secret), "mail-outbox")

const context = (id: string, kind: MailKind, to: string) => `mail_outbox:${id}:${kind}:${to}`

export const sealMail = (key: Uint8Array, id: string, message: MailMessage): string =>
  seal(key, JSON.stringify({ subject: message.subject, text: message.text, html: message.html, links: message.links } satisfies SealedContent), context(id, message.kind, message.to))

export const openMail = (key: Uint8Array, row: { readonly id: string; readonly kind: MailKind; readonly to_address: string; readonly sealed_message: string }): MailMessage | undefined => {
  const plain = open(key, row.sealed_message, context(row.id, row.kind, row.to_address))
  if (plain === undefined) return undefined
  const content = JSON.parse(plain) as SealedContent
  return { kind: row.kind, to: row.to_address, ...content }
}

// ---------------------------------------------------------------------------------------------------
// Delivery (the job handler)

interface OutboxRow {
  readonly id: string
  readonly kind: MailKind
  readonly to_address: string
  readonly sealed_message: string
}

const smtpSend = (url: Redacted.Redacted<string>, from: string, m: MailMessage): Effect.Effect<void, MailDeliveryFailed> =>
  Effect.acquireUseRelease(
    Effect.sync(() => nodemailer.createTransport({ url: Redacted.value(url), connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 })),
    (transport) =>
      Effect.tryPromise({
        try: () => transport.sendMail({ from, to: m.to, subject: m.subject, text: m.text, html: m.html }),
        catch: (error) =>
          new MailDeliveryFailed({ message: error instanceof Error ? error.message : String(error), permanent: isPermanentSmtpError(error) }),
      }).pipe(
        Effect.timeoutOrElse({ duration: SEND_TIMEOUT, orElse: () => Effect.fail(new MailDeliveryFailed({ message: `no answer from the SMTP server within ${SEND_TIMEOUT}` })) }),
        Effect.asVoid,
      ),
    (transport) => Effect.sync(() => transport.close()),
  )

/** Runs one attempt of the `mail.send` job for `payload.mail_id`. */
export const deliverQueuedMail = (payload: SendMailPayload, job: JobContext) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const sql = yield* SqlClient.SqlClient
    const claimed = yield* standalone(sql<OutboxRow>`
      UPDATE mail_outbox SET claimed_until = now() + make_interval(secs => ${CLAIM_SECONDS})
      WHERE id = ${payload.mail_id} AND sent_at IS NULL AND failed_at IS NULL
        AND (claimed_until IS NULL OR claimed_until < now())
      RETURNING id, kind, to_address, sealed_message`)
    const row = claimed[0]
    if (row === undefined) {
      const state = yield* standalone(sql<{ sent_at: Date | null; failed_at: Date | null }>`
        SELECT sent_at, failed_at FROM mail_outbox WHERE id = ${payload.mail_id}`)
      const found = state[0]
      if (found === undefined) return logLine("warn", "mail job for an unknown outbox row", { mail_id: payload.mail_id })
      if (found.sent_at !== null) return logLine("info", "mail already sent; re-delivered job skipped", { mail_id: payload.mail_id })
      if (found.failed_at !== null) return logLine("info", "mail already given up; job skipped", { mail_id: payload.mail_id })
      // Another attempt of this mail is running (an expired attempt not stopped yet): try again after it.
      return yield* new MailDeliveryFailed({ message: "another attempt is sending this mail" })
    }

    const message = openMail(mailKey(config.appSecretKey), row)
    if (message === undefined) {
      // Only a changed APP_SECRET_KEY does this; retrying cannot help.
      yield* standalone(sql`UPDATE mail_outbox SET failed_at = now(), sealed_message = NULL, claimed_until = NULL,
        last_error = 'the sealed mail could not be opened (APP_SECRET_KEY changed?)' WHERE id = ${row.id}`)
      return logLine("error", "mail could not be opened; given up", { mail_id: row.id, kind: row.kind })
    }

    if (config.smtpUrl === undefined) {
      // Development outbox: the copy and the "sent" mark commit together, so it is kept exactly once.
      yield* standalone(Effect.gen(function* () {
        yield* sql`INSERT INTO dev_outbox (kind, to_address, subject, text_body, html_body, links)
          VALUES (${message.kind}, ${message.to}, ${message.subject}, ${message.text}, ${message.html}, ${JSON.stringify(message.links)}::jsonb)`
        yield* sql`UPDATE mail_outbox SET sent_at = now(), sealed_message = NULL, claimed_until = NULL, attempts = attempts + 1,
          last_error = NULL WHERE id = ${row.id}`
      }))
      // The links carry one-time tokens: logged for a developer without SMTP, never in production (which requires
      // SMTP_URL anyway: server/config.ts).
      const links = config.nodeEnv === "production" ? "" : `: ${message.links.join(" ")}`
      return logLine("info", `mail ${message.kind} to ${message.to} (no SMTP_URL, kept in the dev outbox)${links}`)
    }

    const failure = yield* smtpSend(config.smtpUrl, config.smtpFrom, message).pipe(
      Effect.as(undefined),
      Effect.catch((e) => Effect.succeed({ message: e.message.slice(0, 500), permanent: e.permanent === true })),
    )
    if (failure === undefined) {
      yield* standalone(sql`UPDATE mail_outbox SET sent_at = now(), sealed_message = NULL, claimed_until = NULL,
        attempts = attempts + 1, last_error = NULL WHERE id = ${row.id}`)
      return logLine("info", `mail ${message.kind} sent to ${message.to}`, { mail_id: row.id, attempt: job.retryCount + 1 })
    }
    // A permanent refusal is given up at once (and the job completes: pg-boss must not retry it).
    const last = failure.permanent || job.retryCount >= MAIL_RETRY_LIMIT
    yield* standalone(sql`UPDATE mail_outbox SET attempts = attempts + 1, last_error = ${failure.message}, claimed_until = NULL,
      failed_at = ${last ? sql`now()` : sql`NULL`}, sealed_message = ${last ? null : row.sealed_message} WHERE id = ${row.id}`)
    logLine(last ? "error" : "warn", last ? `mail ${message.kind} to ${message.to} given up` : `mail ${message.kind} to ${message.to} not sent; will retry`, {
      mail_id: row.id, attempt: job.retryCount + 1, error: failure.message, permanent: failure.permanent,
    })
    if (failure.permanent) return
    return yield* new MailDeliveryFailed({ message: failure.message })
  })
