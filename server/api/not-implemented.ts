/**
 * 501 placeholders. `notImplemented(group)` implements every endpoint of a contract group with a handler
 * answering 501 `NotImplemented` { message: "METHOD /path is not implemented yet", endpoint: "METHOD /path" }.
 * `fillNotImplemented(handlers)` does the same for only the endpoints a real group layer has not handled
 * yet, so a group can be implemented one endpoint at a time:
 *
 *   HttpApiBuilder.group(Api, "auth", (h) => fillNotImplemented(h.handle("login", login)))
 *
 * The 501 is written as a raw response (encoded with the catalogue schema) so it works whether or not the
 * endpoint declares `NotImplemented` among its errors.
 */
import { Effect, type Layer } from "effect"
import type { HttpServerResponse } from "effect/http"
import { type HttpApi, HttpApiBuilder, type HttpApiEndpoint, type HttpApiGroup } from "effect/http-api"
import { Api } from "../../src/contracts/api.ts"
import { NotImplemented } from "../../src/contracts/errors.ts"
import { notImplementedMessage } from "../../src/contracts/messages.ts"
import { catalogueResponse } from "../http/errors.ts"

type ApiGroups = typeof Api extends HttpApi.HttpApi<infer _Id, infer G> ? G : never
/** Names of the contract's groups: "system" | "auth" | ... */
export type GroupName = HttpApiGroup.Identifier<ApiGroups>

interface EndpointLike {
  readonly method: string
  readonly path: string
}

export const notImplementedResponse = (endpoint: EndpointLike): HttpServerResponse.HttpServerResponse =>
  catalogueResponse(
    NotImplemented,
    new NotImplemented({ message: notImplementedMessage(endpoint.method, endpoint.path), endpoint: `${endpoint.method} ${endpoint.path}` }),
    501,
  )

interface HandlersRuntime {
  readonly group: { readonly endpoints: Record<string, EndpointLike> }
  readonly handlers: ReadonlyMap<string, unknown>
  handle(name: string, handler: () => Effect.Effect<HttpServerResponse.HttpServerResponse>): HandlersRuntime
}

/**
 * Adds a 501 handler for each endpoint of the group that `handlers` does not handle yet. The result is
 * typed as a complete implementation (that is the point), so only use it for groups still in progress.
 */
export const fillNotImplemented = <R, Endpoints extends Record<string, HttpApiEndpoint.Constraint>, Handled extends keyof Endpoints>(
  handlers: HttpApiBuilder.Handlers<R, Endpoints, Handled>,
): HttpApiBuilder.Handlers<R, Endpoints, keyof Endpoints> => {
  let runtime = handlers as unknown as HandlersRuntime
  for (const [name, endpoint] of Object.entries(runtime.group.endpoints)) {
    if (!runtime.handlers.has(name)) {
      const response = notImplementedResponse(endpoint)
      runtime = runtime.handle(name, () => Effect.succeed(response))
    }
  }
  return runtime as unknown as HttpApiBuilder.Handlers<R, Endpoints, keyof Endpoints>
}

/** A group layer whose every endpoint answers 501. */
export const notImplemented = <const Name extends GroupName>(name: Name): Layer.Layer<HttpApiGroup.Service<"cloud-audit", Name>> =>
  HttpApiBuilder.group(Api, name, (handlers) => fillNotImplemented(handlers as never) as never) as never
