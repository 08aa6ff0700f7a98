/**
 * Mail delivery. With SMTP_URL: nodemailer over SMTP. Without: each mail is written to the log with its links and
 * kept in the development outbox (table dev_outbox, readable at GET /api/dev/outbox outside production), so a
 * newcomer on the embedded set-up can finish sign-up.
 *
 * `send` never fails and never makes the caller wait for the network: delivery runs in a background fiber owned by
 * the layer (a request's answer and timing do not depend on whether a mail went out, which matters for
 * forgot-password). `flush` waits for pending deliveries (tests, shutdown).
 */
import { Context, Effect, FiberSet, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import nodemailer from "nodemailer"
import type { OutboxMail } from "../../src/contracts/api.ts"
import { AuthConfig } from "../auth/auth-config.ts"
import { detached, standalone } from "../auth/rls.ts"
import type { MailMessage } from "./templates.ts"

export class Mailer extends Context.Service<Mailer, {
  readonly send: (message: MailMessage) => Effect.Effect<void>
  readonly flush: Effect.Effect<void>
  /** "smtp" or "outbox". */
  readonly transport: "smtp" | "outbox"
}>()("cloud-audit/mail/Mailer") {
  static readonly layer = Layer.effect(
    Mailer,
    Effect.gen(function* () {
      const config = yield* AuthConfig
      const sql = yield* SqlClient.SqlClient
      const fibers = yield* FiberSet.make<void, never>()
      const smtp = config.smtpUrl === undefined ? undefined : nodemailer.createTransport(Redacted.value(config.smtpUrl))
      if (smtp !== undefined) yield* Effect.addFinalizer(() => Effect.sync(() => smtp.close()))

      const deliver = (m: MailMessage): Effect.Effect<void> =>
        smtp !== undefined
          ? Effect.tryPromise(() =>
            smtp.sendMail({ from: config.smtpFrom, to: m.to, subject: m.subject, text: m.text, html: m.html })
          ).pipe(
            Effect.timeout("20 seconds"),
            Effect.tap(() => Effect.logInfo(`mail ${m.kind} sent to ${m.to}`)),
            Effect.catchCause((cause) => Effect.logError(`mail ${m.kind} to ${m.to} failed`, cause)),
            Effect.asVoid,
          )
          : Effect.gen(function* () {
            yield* Effect.logInfo(`mail ${m.kind} to ${m.to} (no SMTP_URL, kept in the dev outbox): ${m.links.join(" ")}`)
            yield* standalone(sql`INSERT INTO dev_outbox (kind, to_address, subject, text_body, html_body, links)
              VALUES (${m.kind}, ${m.to}, ${m.subject}, ${m.text}, ${m.html}, ${JSON.stringify(m.links)}::jsonb)`)
          }).pipe(
            Effect.provideService(SqlClient.SqlClient, sql),
            Effect.catchCause((cause) => Effect.logError(`dev outbox write failed for ${m.to}`, cause)),
          )

      return Mailer.of({
        transport: smtp !== undefined ? "smtp" : "outbox",
        send: (message) => FiberSet.run(fibers, detached(deliver(message))).pipe(Effect.asVoid),
        flush: FiberSet.awaitEmpty(fibers),
      })
    }),
  )
}

/** The development outbox, newest first, optionally only the mails to one address (GET /api/dev/outbox). */
export const readOutbox = Effect.fn("Mailer.readOutbox")(function* (to?: string) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* standalone(sql<{
    id: number; to_address: string; subject: string; text_body: string; html_body: string
    links: ReadonlyArray<string> | string; created_at: Date
  }>`SELECT id, to_address, subject, text_body, html_body, links, created_at FROM dev_outbox
     WHERE ${to === undefined || to.trim() === "" ? sql`true` : sql`to_address = ${to.trim().toLowerCase()}`}
     ORDER BY id DESC LIMIT 100`)
  return rows.map((r): OutboxMail => ({
    id: String(r.id),
    to: r.to_address,
    subject: r.subject,
    text: r.text_body,
    html: r.html_body,
    links: typeof r.links === "string" ? JSON.parse(r.links) as ReadonlyArray<string> : r.links,
    created_at: r.created_at.toISOString(),
  }))
})
