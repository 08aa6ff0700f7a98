/**
 * Sending mail from a request. `send` runs INSIDE the caller's transaction: it writes the mail (sealed) to
 * `mail_outbox` and enqueues a `mail.send` job with the row's id, so the mail exists if and only if the request's
 * changes commit, and it survives an SMTP server that is down for a while (delivery, retries and the development
 * outbox: ./mail-outbox.ts). The request never waits for SMTP, so an answer's timing does not depend on whether a mail
 * goes out (forgot-password).
 *
 * The rows are written as the login role (like pg-boss's job rows; the API role cannot touch the `pgboss` schema);
 * the caller's role is restored right after. A database failure here is a defect: the request fails and rolls back
 * rather than answering as if a mail had been sent.
 */
import { randomUUID } from "node:crypto"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { OutboxMail } from "../../src/contracts/api.ts"
import { AuthConfig } from "../auth/auth-config.ts"
import { standalone } from "../auth/rls.ts"
import { JobQueue } from "../jobs/queue.ts"
import { sendMailJob } from "./jobs.ts"
import { mailKey, sealMail } from "./mail-outbox.ts"
import type { MailMessage } from "./templates.ts"

export class Mailer extends Context.Service<Mailer, {
  /** Queues `message` in the current transaction (see above). */
  readonly send: (message: MailMessage) => Effect.Effect<void>
}>()("cloud-audit/mail/Mailer") {
  static readonly layer = Layer.effect(
    Mailer,
    Effect.gen(function* () {
      const config = yield* AuthConfig
      const sql = yield* SqlClient.SqlClient
      const queue = yield* JobQueue
      const key = mailKey(config.secretKey)

      const send = (message: MailMessage): Effect.Effect<void> =>
        Effect.gen(function* () {
          const id = randomUUID()
          const sealed = sealMail(key, id, message)
          const current = yield* sql<{ role: string }>`SELECT current_setting('role') AS role`
          yield* sql`SELECT set_config('role', 'none', true)`
          yield* sql`INSERT INTO mail_outbox (id, kind, to_address, sealed_message) VALUES (${id}, ${message.kind}, ${message.to}, ${sealed})`
          yield* queue.send(sendMailJob, { mail_id: id })
          yield* sql`SELECT set_config('role', ${current[0]?.role ?? "none"}, true)`
        }).pipe(
          Effect.provideService(SqlClient.SqlClient, sql),
          Effect.orDie,
        )

      return Mailer.of({ send })
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
