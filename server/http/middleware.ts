/**
 * Global router middleware (runs around every route and around "no route"):
 *
 * - request id: the caller's `x-request-id` when it is a sane token, else a fresh UUID; echoed on the
 *   response and attached to every log line written while handling the request (`request_id`);
 * - input that can never be valid is refused before routing: a NUL character anywhere in the URL (raw or
 *   percent-encoded) is a 400 `ValidationError` (PostgreSQL text cannot hold it);
 * - error mapping: failures and defects become catalogue JSON (see ./errors.ts), and so does any error response a
 *   layer below produced with another body (HttpApi's text 415 for a non-JSON content type, empty answers);
 * - security headers on every response (./security-headers.ts);
 * - the client address (rate limits, audit log): the socket's peer, or with TRUST_PROXY=n the X-Forwarded-For entry
 *   the outermost of the n trusted proxies appended (`clientAddressFrom`); entries a client wrote itself are ignored;
 * - one JSON access-log line per request: method, path (no query string: it may carry tokens), status,
 *   ms, request_id. Server faults additionally log the cause at level error.
 */
import { randomUUID } from "node:crypto"
import { Cause, Effect, Exit, Option, type Types } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { classifyCause, invalidCharacterResponse, toCatalogueBody } from "./errors.ts"
import { responseKindOf, type SecurityOptions, securityHeaders } from "./security-headers.ts"

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

const pathOf = (url: string): string => {
  const end = url.search(/[?#]/)
  return end === -1 ? url : url.slice(0, end)
}

/** A NUL in the URL, raw or percent-encoded (`%00`). */
const NUL_IN_URL = /%00|\u0000/i

/**
 * The client's address given the socket peer and X-Forwarded-For, trusting `trustProxy` proxies: each trusted proxy
 * appends the address it received the request from, so the client is the `trustProxy`-th entry from the right. With
 * fewer entries than trusted proxies, the leftmost entry; no (valid) entry: the peer.
 */
export const clientAddressFrom = (peer: string | undefined, forwardedFor: string | undefined, trustProxy: number): string | undefined => {
  if (trustProxy <= 0 || forwardedFor === undefined) return peer
  const entries = forwardedFor.split(",").map((e) => e.trim()).filter((e) => e !== "")
  if (entries.length === 0) return peer
  const candidate = entries[Math.max(0, entries.length - trustProxy)]!
  return /^[0-9A-Fa-f.:]{2,45}$/.test(candidate) ? candidate : peer
}

export const makeRequestMiddleware = (options: SecurityOptions) => HttpRouter.middleware(
  (httpApp: Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled>) =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const started = performance.now()
      const incoming = request.headers["x-request-id"]
      const requestId = incoming !== undefined && REQUEST_ID.test(incoming) ? incoming : randomUUID()
      const method = request.method
      const path = pathOf(request.url)
      const annotations = { request_id: requestId }

      const trustProxy = options.trustProxy ?? 0
      const app = trustProxy > 0
        ? Effect.provideService(
          httpApp,
          HttpServerRequest.HttpServerRequest,
          request.modify({
            remoteAddress: Option.fromUndefinedOr(
              clientAddressFrom(Option.getOrUndefined(request.remoteAddress), request.headers["x-forwarded-for"], trustProxy),
            ),
          }),
        )
        : httpApp
      const exit = NUL_IN_URL.test(request.url)
        ? Exit.succeed(invalidCharacterResponse())
        : yield* Effect.exit(Effect.annotateLogs(app, annotations))
      let response: HttpServerResponse.HttpServerResponse
      if (Exit.isSuccess(exit)) {
        response = exit.value
      } else {
        const classified = yield* classifyCause(exit.cause, method, path)
        if (classified._tag === "Interrupted") {
          yield* Effect.logInfo("request interrupted").pipe(
            Effect.annotateLogs({ ...annotations, method, path, status: 499, ms: Math.round(performance.now() - started) }),
          )
          return yield* Effect.failCause(exit.cause)
        }
        if (classified.logAsError) {
          yield* Effect.logError("unhandled error while handling request").pipe(
            Effect.annotateLogs({ ...annotations, method, path, cause: Cause.pretty(exit.cause) }),
          )
        }
        response = classified.response
      }
      response = toCatalogueBody(response, method, path)
      response = HttpServerResponse.setHeaders(response, { ...securityHeaders(responseKindOf(path), options), "x-request-id": requestId })
      yield* Effect.logInfo("request").pipe(
        Effect.annotateLogs({ ...annotations, method, path, status: response.status, ms: Math.round((performance.now() - started) * 10) / 10 }),
      )
      return response
    }) as Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled, HttpServerRequest.HttpServerRequest>,
  { global: true },
)

/** The middleware without HSTS (plain-http set-ups and tests). */
export const requestMiddleware = makeRequestMiddleware({ hsts: false })
