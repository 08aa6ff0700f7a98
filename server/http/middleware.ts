/**
 * Global router middleware (runs around every route and around "no route"):
 *
 * - request id: the caller's `x-request-id` when it is a sane token, else a fresh UUID; echoed on the
 *   response and attached to every log line written while handling the request (`request_id`);
 * - input that can never be valid is refused before routing (./input-characters.ts): a control character (NUL
 *   included), a lone UTF-16 surrogate or a percent-encoding that is not UTF-8 anywhere in an API URL, and in a JSON
 *   body a NUL, a control character other than tab/LF/CR or a lone surrogate in any string or key, is a 400
 *   `ValidationError` "Contains an invalid character" naming the field (PostgreSQL and the SDKs cannot carry them);
 *   an API path with a `;` is a 404 (the router would read `/api/accounts/1;DROP` as `/api/accounts/1`);
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
import { classifyCause, invalidCharacterResponse, notFoundResponse, toCatalogueBody, validationResponse } from "./errors.ts"
import { isJsonContentType, jsonCharacterIssue, urlCharacterIssue } from "./input-characters.ts"
import { PlatformMessages } from "../../src/contracts/messages.ts"
import { responseKindOf, type SecurityOptions, securityHeaders } from "./security-headers.ts"

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

const pathOf = (url: string): string => {
  const end = url.search(/[?#]/)
  return end === -1 ? url : url.slice(0, end)
}

/** A NUL in the URL, raw or percent-encoded (`%00`). */
const NUL_IN_URL = /%00|\u0000/i

/** Methods whose JSON body is checked. */
const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"])

/**
 * What the request carries that no endpoint accepts (see the module comment), as the answer to give; the JSON body is
 * read here once (the request caches it, the handler's decoding reads the same bytes), an unreadable or malformed one
 * is left to the route's own error.
 */
const refuseInput = (request: HttpServerRequest.HttpServerRequest, path: string) =>
  Effect.gen(function* () {
    if (NUL_IN_URL.test(request.url)) return invalidCharacterResponse()
    const isApi = path === "/api" || path.startsWith("/api/")
    if (isApi && path.includes(";")) return notFoundResponse(request.method, path)
    if (!isApi) return undefined
    const inUrl = urlCharacterIssue(request.url)
    if (inUrl !== undefined) return validationResponse([{ path: inUrl.path, message: PlatformMessages.invalidCharacter }])
    if (!BODY_METHODS.has(request.method) || !isJsonContentType(request.headers["content-type"])) return undefined
    const text = yield* Effect.option(request.text)
    if (text._tag === "None" || text.value === "") return undefined
    let body: unknown
    try {
      body = JSON.parse(text.value)
    } catch {
      return undefined
    }
    const inBody = jsonCharacterIssue(body)
    return inBody === undefined ? undefined : validationResponse([{ path: inBody.path, message: PlatformMessages.invalidCharacter }])
  })

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
      // The request the routes see (a modified request reads its body anew: check that one's).
      const routed = trustProxy > 0
        ? request.modify({
          remoteAddress: Option.fromUndefinedOr(
            clientAddressFrom(Option.getOrUndefined(request.remoteAddress), request.headers["x-forwarded-for"], trustProxy),
          ),
        })
        : request
      const app = routed === request ? httpApp : Effect.provideService(httpApp, HttpServerRequest.HttpServerRequest, routed)
      const refused = yield* refuseInput(routed, path)
      const exit = refused !== undefined
        ? Exit.succeed(refused)
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
      // A response that chose its own policy or caching (the docs page's nonce, an export's no-store) keeps it.
      const defences: Record<string, string> = { ...securityHeaders(responseKindOf(path), options), "x-request-id": requestId }
      for (const own of ["content-security-policy", "cache-control"]) if (response.headers[own] !== undefined) delete defences[own]
      response = HttpServerResponse.setHeaders(response, defences)
      yield* Effect.logInfo("request").pipe(
        Effect.annotateLogs({ ...annotations, method, path, status: response.status, ms: Math.round((performance.now() - started) * 10) / 10 }),
      )
      return response
    }) as Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled, HttpServerRequest.HttpServerRequest>,
  { global: true },
)

/** The middleware without HSTS (plain-http set-ups and tests). */
export const requestMiddleware = makeRequestMiddleware({ hsts: false })
