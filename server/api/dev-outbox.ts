/**
 * GET /api/dev/outbox (system group): the mails kept when SMTP_URL is unset, newest first, optionally filtered by
 * `?to=`. Every mail carries its links (verification, reset, invitation), so reading the outbox is as good as owning
 * each mailbox: it answers 404 unless `AppConfig.devOutbox` (never in production; by default only when the server
 * listens on loopback, see server/config.ts). Input with a NUL character is a 400, never a database error.
 *
 * DNS rebinding (issue 27, problem 5): a page on evil.example can point its own name at 127.0.0.1 and read a loopback
 * server as same-origin; the browser then sends `Host: evil.example:8080`. Development-only routes therefore answer
 * only requests whose Host is this machine by name or address at the server's port (localhost, 127.0.0.1, [::1]) or
 * the host of APP_ORIGIN; any other Host gets the same 404 as a closed outbox.
 */
import { Effect } from "effect"
import type { HttpServerRequest } from "effect/http"
import { NotFound } from "../../src/contracts/errors.ts"
import { PlatformMessages } from "../../src/contracts/messages.ts"
import { guard } from "./middleware/input-guard.ts"
import { AppConfig, type AppConfigShape } from "../config.ts"
import { readOutbox } from "../mail/mailer.ts"

/** The Host values a development-only route answers (lower case): loopback names at PORT, and APP_ORIGIN's host. */
export const devHosts = (config: Pick<AppConfigShape, "port" | "appOrigin">): ReadonlySet<string> => {
  const loopback = ["localhost", "127.0.0.1", "[::1]"]
  const hosts = new Set(loopback.map((name) => `${name}:${config.port}`))
  if (config.port === 80) for (const name of loopback) hosts.add(name)
  try {
    hosts.add(new URL(config.appOrigin).host.toLowerCase())
  } catch { /* APP_ORIGIN is validated at start-up */ }
  return hosts
}

/** Whether a request may reach a development-only route, judged by its Host header (see the module header). */
export const isDevHost = (request: HttpServerRequest.HttpServerRequest, config: Pick<AppConfigShape, "port" | "appOrigin">): boolean => {
  const host = request.headers["host"]?.trim().toLowerCase()
  return host !== undefined && devHosts(config).has(host)
}

export const devOutboxHandler = guard(({ query, request }: { readonly query: { readonly to?: string }; readonly request: HttpServerRequest.HttpServerRequest }) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    if (!config.devOutbox || !isDevHost(request, config)) return yield* new NotFound({ message: PlatformMessages.notFound })
    return { ok: true, data: yield* readOutbox(query.to).pipe(Effect.orDie) }
  }))
