/**
 * Global router middleware (runs around every route and around "no route"):
 *
 * - request id: the caller's `x-request-id` when it is a sane token, else a fresh UUID; echoed on the
 *   response and attached to every log line written while handling the request (`request_id`);
 * - error mapping: failures and defects become catalogue JSON (see ./errors.ts);
 * - one JSON access-log line per request: method, path (no query string: it may carry tokens), status,
 *   ms, request_id. Server faults additionally log the cause at level error.
 */
import { randomUUID } from "node:crypto"
import { Cause, Effect, Exit, type Types } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { classifyCause } from "./errors.ts"

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

const pathOf = (url: string): string => {
  const end = url.search(/[?#]/)
  return end === -1 ? url : url.slice(0, end)
}

export const requestMiddleware = HttpRouter.middleware(
  (httpApp: Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled>) =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const started = performance.now()
      const incoming = request.headers["x-request-id"]
      const requestId = incoming !== undefined && REQUEST_ID.test(incoming) ? incoming : randomUUID()
      const method = request.method
      const path = pathOf(request.url)
      const annotations = { request_id: requestId }

      const exit = yield* Effect.exit(Effect.annotateLogs(httpApp, annotations))
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
      response = HttpServerResponse.setHeader(response, "x-request-id", requestId)
      yield* Effect.logInfo("request").pipe(
        Effect.annotateLogs({ ...annotations, method, path, status: response.status, ms: Math.round((performance.now() - started) * 10) / 10 }),
      )
      return response
    }) as Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled, HttpServerRequest.HttpServerRequest>,
  { global: true },
)
