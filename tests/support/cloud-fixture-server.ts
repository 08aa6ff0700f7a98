/**
 * A loopback HTTP server standing in for cloud REST APIs in tests (node:http, 127.0.0.1, a free port, one per test
 * file). Hosts are virtual: a request to `${origin}/compute.googleapis.com/compute/v1/...` is routed to host
 * "compute.googleapis.com", path "/compute/v1/...", so one server plays every API and token endpoint and the
 * engine's configurable base URLs point at `${origin}/${host}`.
 *
 * Provider worlds (tests/scanner-gcp, tests/scanner-azure) register routes and guards; tests inject faults
 * (status, headers, body, N times) to exercise 401/403/429/5xx handling, and read the request log. `latency` delays
 * the answers and `peakInFlight` says how many requests to a host were open at once (a shared limit holds).
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"

export interface FixtureRequest {
  readonly method: string
  /** Virtual host: the first path segment, e.g. "storage.googleapis.com". */
  readonly host: string
  /** Decoded path below the host, starting with "/". */
  readonly path: string
  readonly query: URLSearchParams
  readonly headers: IncomingHttpHeaders
  /** The bearer token, when an Authorization: Bearer header was sent. */
  readonly bearer: string | undefined
  /** Parsed JSON body (undefined when absent or not JSON). */
  readonly json: unknown
  /** Parsed form body (application/x-www-form-urlencoded). */
  readonly form: URLSearchParams | undefined
  /** The absolute URL the client requested. */
  readonly url: string
  /** When the request arrived (Date.now()), before any `latency`. */
  readonly receivedAt: number
}

export interface FixtureReply {
  readonly status?: number
  readonly body?: unknown
  readonly headers?: Readonly<Record<string, string>>
}

export type RouteHandler = (req: FixtureRequest, match: RegExpExecArray) => FixtureReply | Promise<FixtureReply>

export interface Fault {
  readonly host?: string
  readonly method?: string
  /** Matched against the decoded path below the host. */
  readonly path?: RegExp
  /** How many matching requests get the fault (then it is removed). */
  readonly times: number
  readonly reply: FixtureReply | ((req: FixtureRequest) => FixtureReply)
}

export interface CloudFixtureServer {
  readonly origin: string
  /** `${origin}/${host}`: the base URL of a virtual host. */
  base(host: string): string
  route(method: string, host: string, pattern: RegExp, handler: RouteHandler): void
  /** Runs before the routes of `host`; answering a reply stops the request there (authentication, authorization). */
  guard(host: string | ((host: string) => boolean), fn: (req: FixtureRequest) => FixtureReply | undefined): void
  fault(fault: Fault): void
  /** Removes every pending fault. */
  clearFaults(): void
  /** Every request received, in order. */
  readonly requests: ReadonlyArray<FixtureRequest>
  clearLog(): void
  /** Delays every answer by this many milliseconds (0: none), faults included. */
  latency(ms: number): void
  /** The most requests to `host` open at the same time since the last `resetPeaks`. */
  peakInFlight(host: string): number
  resetPeaks(): void
  close(): Promise<void>
}

interface Route {
  readonly method: string
  readonly host: string
  readonly pattern: RegExp
  readonly handler: RouteHandler
}

const readBody = (req: import("node:http").IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    req.on("error", reject)
  })

export async function startCloudFixtureServer(): Promise<CloudFixtureServer> {
  const routes: Route[] = []
  const guards: Array<{ readonly match: (host: string) => boolean; readonly fn: (req: FixtureRequest) => FixtureReply | undefined }> = []
  const faults: Array<{ fault: Fault; left: number }> = []
  const requests: FixtureRequest[] = []
  const open = new Map<string, number>()
  const peaks = new Map<string, number>()
  let delayMs = 0
  let origin = ""

  const send = (res: import("node:http").ServerResponse, reply: FixtureReply) => {
    const status = reply.status ?? 200
    const body = reply.body === undefined ? "" : typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body)
    res.writeHead(status, { "content-type": typeof reply.body === "string" ? "text/plain" : "application/json; charset=UTF-8", ...(reply.headers ?? {}) })
    res.end(body)
  }

  const server: Server = createServer((req, res) => {
    const receivedAt = Date.now()
    void (async () => {
      const raw = await readBody(req)
      const url = new URL(req.url ?? "/", origin)
      const segments = url.pathname.split("/")
      const host = decodeURIComponent(segments[1] ?? "")
      const rawPath = `/${segments.slice(2).join("/")}`
      let path: string
      try {
        path = decodeURIComponent(rawPath)
      } catch {
        path = rawPath
      }
      const contentType = req.headers["content-type"] ?? ""
      let json: unknown
      let form: URLSearchParams | undefined
      if (contentType.includes("application/x-www-form-urlencoded")) form = new URLSearchParams(raw)
      else if (raw !== "") {
        try {
          json = JSON.parse(raw)
        } catch {
          json = undefined
        }
      }
      const auth = req.headers.authorization
      const request: FixtureRequest = {
        method: req.method ?? "GET",
        host,
        path,
        query: url.searchParams,
        headers: req.headers,
        bearer: auth?.startsWith("Bearer ") === true ? auth.slice(7) : undefined,
        json,
        form,
        url: url.toString(),
        receivedAt,
      }
      requests.push(request)
      open.set(host, (open.get(host) ?? 0) + 1)
      peaks.set(host, Math.max(peaks.get(host) ?? 0, open.get(host)!))
      res.once("close", () => open.set(host, open.get(host)! - 1))
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs))

      const fault = faults.find(
        (f) => f.left > 0 && (f.fault.host === undefined || f.fault.host === host) && (f.fault.method === undefined || f.fault.method === request.method) && (f.fault.path === undefined || f.fault.path.test(path)),
      )
      if (fault !== undefined) {
        fault.left--
        return send(res, typeof fault.fault.reply === "function" ? fault.fault.reply(request) : fault.fault.reply)
      }
      for (const g of guards) {
        if (!g.match(host)) continue
        const reply = g.fn(request)
        if (reply !== undefined) return send(res, reply)
      }
      for (const r of routes) {
        if (r.host !== host || r.method !== request.method) continue
        const m = r.pattern.exec(path)
        if (m === null) continue
        return send(res, await r.handler(request, m))
      }
      send(res, { status: 404, body: { error: { code: 404, message: `No fixture route for ${request.method} ${host}${path}`, status: "NOT_FOUND" } } })
    })().catch((error: unknown) => {
      send(res, { status: 500, body: { error: { code: 500, message: `Fixture server error: ${error instanceof Error ? error.stack : String(error)}` } } })
    })
  })
  server.keepAliveTimeout = 5_000
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  return {
    origin,
    base: (host) => `${origin}/${host}`,
    route: (method, host, pattern, handler) => {
      routes.push({ method, host, pattern, handler })
    },
    guard: (host, fn) => {
      guards.push({ match: typeof host === "string" ? (h) => h === host : host, fn })
    },
    fault: (fault) => {
      faults.push({ fault, left: fault.times })
    },
    clearFaults: () => {
      faults.length = 0
    },
    requests,
    clearLog: () => {
      requests.length = 0
    },
    latency: (ms) => {
      delayMs = ms
    },
    peakInFlight: (host) => peaks.get(host) ?? 0,
    resetPeaks: () => {
      peaks.clear()
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((e) => (e === undefined ? resolve() : reject(e)))
      }),
  }
}

/** Offset-based page tokens: opaque to clients, like the real ones. */
export const encodePageToken = (offset: number): string => Buffer.from(`offset:${offset}`).toString("base64url")
export const decodePageToken = (token: string | null): number => {
  if (token === null || token === "") return 0
  const m = /^offset:(\d+)$/.exec(Buffer.from(token, "base64url").toString("utf8"))
  return m === null ? 0 : Number(m[1])
}
