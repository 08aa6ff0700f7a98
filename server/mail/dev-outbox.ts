/**
 * GET /api/dev/outbox (system group): the mails kept when SMTP_URL is unset, newest first, optionally filtered by
 * `?to=`. Answers 404 in production (NODE_ENV=production), so the outbox never leaks links there.
 */
import { Effect } from "effect"
import { NotFound } from "../../src/contracts/errors.ts"
import { PlatformMessages } from "../../src/contracts/messages.ts"
import { AppConfig } from "../config.ts"
import { readOutbox } from "./mailer.ts"

export const devOutboxHandler = ({ query }: { readonly query: { readonly to?: string } }) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    if (config.nodeEnv === "production") return yield* new NotFound({ message: PlatformMessages.notFound })
    return { ok: true, data: yield* readOutbox(query.to).pipe(Effect.orDie) }
  })
