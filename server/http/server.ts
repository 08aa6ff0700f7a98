/**
 * The HTTP server: the contract's HttpApi (handlers from server/api/index.ts), /api/openapi.json,
 * the API reference at /api/docs (Scalar bundled inline: no internet needed at runtime), the built SPA
 * from `distDir`, and the global request middleware (request ids, JSON access log, error mapping).
 *
 * Graceful shutdown: releasing the layer stops accepting connections and waits up to
 * SHUTDOWN_GRACE for in-flight requests before the layers below it (database, ...) are released.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from "node:http"
import { ByteSize, Effect, Layer } from "effect"
import { HttpIncomingMessage, HttpRouter, HttpServer } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import * as NetAddress from "effect/net/NetAddress"
import { NodeHttpServer } from "@effect/platform-node"
import { Api } from "../../src/contracts/api.ts"
import { ApiHandlers } from "../api/index.ts"
import { logLine } from "../log.ts"
import { apiDocsLayer } from "./api-docs.ts"
import { clientErrorResponse } from "./errors.ts"
import { makeRequestMiddleware } from "./middleware.ts"
import { type SecurityOptions, securityHeaders } from "./security-headers.ts"
import { staticLayer } from "./static.ts"

export const SHUTDOWN_GRACE = "10 seconds"
/** Largest request body accepted (JSON bodies here are small; credentials files are a few KiB). */
export const MAX_BODY_SIZE = ByteSize.mebibytes(1)

export interface HttpOptions {
  readonly port: number
  readonly host: string
  /** Directory of the built SPA (vite's `dist/`). */
  readonly distDir: string
  /** Browser defences (HSTS when APP_ORIGIN is https). */
  readonly security?: SecurityOptions
}

/** Every route of the app, to be served by `HttpRouter.serve`. */
export const routesLayer = (distDir: string, security: SecurityOptions = { hsts: false }) =>
  Layer.mergeAll(
    HttpApiBuilder.layer(Api, { openapiPath: "/api/openapi.json" }).pipe(Layer.provide(ApiHandlers)),
    apiDocsLayer,
    staticLayer(distDir),
    makeRequestMiddleware(security),
  )

/**
 * Logs the bound address once listening. On release (the start of shutdown, before the server stops
 * accepting) it also keeps closing idle keep-alive connections, so that clients whose in-flight request
 * has just been answered do not hold the shutdown open until their keep-alive timeout.
 */
const announce = (nodeServer: () => Server | undefined) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const server = yield* HttpServer.HttpServer
      const address = server.address
      if (address._tag !== "UnixPathAddress") logLine("info", "http server listening", { address: NetAddress.formatInet(address), port: address.port })
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          logLine("info", "http server stopping: finishing in-flight requests")
          const node = nodeServer()
          if (node === undefined) return
          const timer = setInterval(() => node.closeIdleConnections(), 100)
          timer.unref()
          node.once("close", () => clearInterval(timer))
        }),
      )
    }),
  )

/**
 * A Node HTTP server that never drops a request: requests that arrive after `listen` but before the app's
 * request handler is attached (two steps of the layer build, with possible event-loop turns in between)
 * are held and handed to the first handler attached. Node itself drops a `request` event nobody listens
 * to, and that client then waits forever.
 */
export const makeNodeServer = (security: SecurityOptions = { hsts: false }): Server => {
  const server = createServer()
  // Requests Node's parser refuses (headers or URL over the limit, malformed request line or header, a NUL in a
  // header) never reach a route: answer them with the catalogue's JSON body too, then close the connection.
  server.on("clientError", (error: NodeJS.ErrnoException, socket) => {
    if (error.code === "ECONNRESET" || !socket.writable) {
      socket.destroy()
      return
    }
    const { status, body } = clientErrorResponse(error.code)
    const headers = {
      ...securityHeaders("api", security),
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(body)),
      connection: "close",
    }
    const head = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("")
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Bad Request"}\r\n${head}\r\n${body}`)
  })
  const early: Array<readonly [IncomingMessage, ServerResponse]> = []
  const hold = (request: IncomingMessage, response: ServerResponse) => {
    early.push([request, response])
  }
  const onNewListener = (event: string | symbol, listener: (...args: Array<any>) => void) => {
    if (event !== "request" || listener === hold) return
    server.off("newListener", onNewListener)
    server.off("request", hold)
    // After the listener is in place (it is added right after this event).
    process.nextTick(() => {
      for (const [request, response] of early.splice(0)) listener(request, response)
    })
  }
  server.on("request", hold)
  server.on("newListener", onNewListener)
  return server
}

type RouterRequest<R> = HttpRouter.Request.Only<"Requires", R> | HttpRouter.Request.Only<"GlobalRequires", R>

/**
 * What `HttpRouter.serve` builds, without serving it: the routes registered on a router. Their request-level
 * requirements become requirements of this layer (at run time requests read them from the context of the
 * serving layer, exactly as with `HttpRouter.serve`).
 */
const routerLayer = <A, E, R>(app: Layer.Layer<A, E, R>) =>
  app.pipe(Layer.provideMerge(HttpRouter.layer)) as unknown as Layer.Layer<
    HttpRouter.Request.Without<A> | HttpRouter.HttpRouter,
    HttpRouter.Request.Without<E>,
    Exclude<HttpRouter.Request.Without<R> | Exclude<RouterRequest<R>, HttpRouter.GlobalProvided>, HttpRouter.HttpRouter>
  >

/** Attaches the router (already built, every route registered) to the listening server. */
const serveRouter = Layer.unwrap(Effect.map(HttpRouter.HttpRouter, (router) => HttpServer.serve(router.asHttpEffect())))

/**
 * The listening HTTP server. Needs the services the handlers use (SqlClient, AppConfig, ...).
 *
 * Build order matters: routes (handlers, docs, SPA) first, then `listen`, then the request handler is
 * attached right away. `HttpRouter.serve` listens first and builds the routes afterwards; a request
 * parsed in that window had no `request` listener, Node dropped it and the client waited forever
 * (clients that poll /api/health during start-up, like the e2e setup, hung in most runs). Before
 * `listen`, clients get "connection refused", which they retry; what is left of the window between
 * `listen` and attaching the handler is covered by `makeNodeServer`.
 */
export const httpServerLayer = (options: HttpOptions) => {
  let nodeServer: Server | undefined
  return announce(() => nodeServer).pipe(
    Layer.provideMerge(serveRouter),
    Layer.provideMerge(
      NodeHttpServer.layerServer(() => (nodeServer = makeNodeServer(options.security)), {
        port: options.port,
        host: options.host,
        gracefulShutdownTimeout: SHUTDOWN_GRACE,
      }),
    ),
    Layer.provideMerge(routerLayer(routesLayer(options.distDir, options.security))),
    Layer.provideMerge(NodeHttpServer.layerHttpServices),
    Layer.provide(Layer.succeed(HttpIncomingMessage.MaxBodySize, MAX_BODY_SIZE)),
  )
}

/** The bound TCP port (useful with port 0). */
export const boundPort: Effect.Effect<number, never, HttpServer.HttpServer> = Effect.map(HttpServer.HttpServer, (server) =>
  server.address._tag === "UnixPathAddress" ? 0 : server.address.port,
)
