/**
 * GET /api/dev/outbox (system group): the mails kept when SMTP_URL is unset, newest first, optionally filtered by
 * `?to=`. Every mail carries its links (verification, reset, invitation), so reading the outbox is as good as owning
 * each mailbox: it answers 404 unless `AppConfig.devOutbox` (never in production; by default only when the server
 * listens on loopback, see server/config.ts). Input with a NUL character is a 400, never a database error.
 */
import { Effect } from "effect"
import { NotFound } from "../../src/contracts/errors.ts"
import { PlatformMessages } from "../../src/contracts/messages.ts"
import { guard } from "../api/middleware/input-guard.ts"
import { AppConfig } from "../config.ts"
import { readOutbox } from "./mailer.ts"

export const devOutboxHandler = guard(({ query }: { readonly query: { readonly to?: string } }) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    if (!config.devOutbox) return yield* new NotFound({ message: PlatformMessages.notFound })
    return { ok: true, data: yield* readOutbox(query.to).pipe(Effect.orDie) }
  }))
