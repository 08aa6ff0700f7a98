/**
 * Error mapping without a database: every contract endpoint served by the 501 layer answers 501 naming it
 * (or a 400 when its input does not decode, never a 500 or an empty body); defects become a generic 500
 * `ServerError` whose details only reach the log; the access log has one JSON line per request; secrets
 * are redacted from logs.
 */
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { Api, GROUP_NAMES } from "../../src/contracts/api.ts"
import { PlatformMessages } from "../../src/contracts/messages.ts"
import { notImplemented } from "../../server/api/not-implemented.ts"
import { requestMiddleware } from "../../server/http/middleware.ts"
import { loggerLayer, logLine, setLogSink } from "../../server/log.ts"

type Handler = (request: Request) => Promise<Response>

let lines: Array<string> = []
let restoreSink: () => void
beforeAll(() => {
  restoreSink = setLogSink((line) => lines.push(line))
})
afterAll(() => restoreSink())
afterEach(() => {
  lines = []
})

const logRecords = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>)

describe("the 501 layer", () => {
  let handler: Handler
  let dispose: () => Promise<void>

  beforeAll(() => {
    const groups = Layer.mergeAll(notImplemented(GROUP_NAMES[0]), ...GROUP_NAMES.slice(1).map((name) => notImplemented(name)))
    const app = Layer.mergeAll(HttpApiBuilder.layer(Api).pipe(Layer.provide(groups)), requestMiddleware).pipe(
      Layer.provide(HttpServer.layerServices),
      Layer.provideMerge(loggerLayer("info")),
    )
    const web = HttpRouter.toWebHandler(app, { disableLogger: true })
    handler = web.handler as Handler
    dispose = web.dispose
  })
  afterAll(() => dispose())

  const endpoints = Object.values(Api.groups).flatMap((group) => Object.values(group.endpoints))

  it("covers every endpoint of every contract group", () => {
    expect(endpoints.length).toBeGreaterThan(40)
  })

  it("answers 501 naming the endpoint for every endpoint without required input", async () => {
    const plain = endpoints.filter((e) => e.payload.size === 0 && e.query === undefined && e.headers === undefined)
    expect(plain.length).toBeGreaterThan(5)
    for (const endpoint of plain) {
      // Path parameters: try a numeric id, then a long token (e.g. /api/invitation/verify/:token).
      let res: Response | undefined
      for (const value of ["1", "a".repeat(64)]) {
        const path = endpoint.path.replace(/:[A-Za-z_]+/g, value)
        res = await handler(new Request(`http://test${path}`, { method: endpoint.method }))
        if (res.status === 501) break
      }
      expect(res!.status, `${endpoint.method} ${endpoint.path}`).toBe(501)
      expect(await res!.json()).toEqual({
        _tag: "NotImplemented",
        message: `${endpoint.method} ${endpoint.path} is not implemented yet`,
        endpoint: `${endpoint.method} ${endpoint.path}`,
      })
    }
  })

  it("never answers 500 or an empty body, even to empty or malformed input", async () => {
    for (const endpoint of endpoints) {
      const path = endpoint.path.replace(/:[A-Za-z_]+/g, "1")
      const hasBody = endpoint.method !== "GET" && endpoint.method !== "HEAD"
      for (const body of hasBody ? ["{}", "{oops"] : [undefined]) {
        const res = await handler(
          new Request(`http://test${path}`, { method: endpoint.method, ...(body !== undefined ? { body, headers: { "content-type": "application/json" } } : {}) }),
        )
        // The SAML assertion consumer service takes a form (HTTP-POST binding): a JSON body is the wrong media type.
        const formOnly = endpoint.path === "/api/sso/saml/acs"
        expect(formOnly ? [400, 415, 501] : [400, 501], `${endpoint.method} ${endpoint.path} ${body}`).toContain(res.status)
        if (res.status === 415) {
          expect((await res.text()).length, `${endpoint.method} ${endpoint.path} 415 body`).toBeGreaterThan(0)
          continue
        }
        const json = (await res.json()) as { _tag: string; message: string }
        expect(["ValidationError", "NotImplemented"]).toContain(json._tag)
        expect(json.message.length).toBeGreaterThan(0)
      }
    }
  })
})

describe("request middleware", () => {
  let handler: Handler
  let dispose: () => Promise<void>

  beforeAll(() => {
    const routes = Layer.mergeAll(
      HttpRouter.add("GET", "/api/boom", Effect.die(new Error("internal detail: table users is locked"))),
      HttpRouter.add("GET", "/api/fail", Effect.fail(new Error("undeclared failure detail"))),
      HttpRouter.add("GET", "/api/ok", HttpServerResponse.jsonUnsafe({ ok: true })),
      requestMiddleware,
    )
    const web = HttpRouter.toWebHandler(routes.pipe(Layer.provideMerge(loggerLayer("info"))), { disableLogger: true })
    handler = web.handler as Handler
    dispose = web.dispose
  })
  afterAll(() => dispose())

  it("turns a defect into a generic 500 ServerError and logs the details with the request id", async () => {
    const res = await handler(new Request("http://test/api/boom?token=abc", { headers: { "x-request-id": "req-boom-1" } }))
    expect(res.status).toBe(500)
    const text = await res.text()
    expect(JSON.parse(text)).toEqual({ _tag: "ServerError", message: PlatformMessages.serverError })
    expect(text).not.toContain("internal detail")
    const records = logRecords()
    const error = records.find((r) => r["level"] === "error")
    expect(error?.["request_id"]).toBe("req-boom-1")
    expect(String(error?.["cause"])).toContain("internal detail: table users is locked")
    const access = records.find((r) => r["msg"] === "request")
    expect(access).toMatchObject({ method: "GET", path: "/api/boom", status: 500, request_id: "req-boom-1" })
    expect(typeof access?.["ms"]).toBe("number")
    // The query string (which may carry tokens) is not logged.
    expect(lines.join("\n")).not.toContain("token=abc")
  })

  it("turns an undeclared failure into the same generic 500", async () => {
    const res = await handler(new Request("http://test/api/fail"))
    expect(res.status).toBe(500)
    expect(await res.json()).toEqual({ _tag: "ServerError", message: PlatformMessages.serverError })
  })

  it("writes exactly one access-log line per request", async () => {
    await handler(new Request("http://test/api/ok"))
    await handler(new Request("http://test/api/missing"))
    const access = logRecords().filter((r) => r["msg"] === "request")
    expect(access.map((r) => [r["path"], r["status"]])).toEqual([
      ["/api/ok", 200],
      ["/api/missing", 404],
    ])
  })
})

describe("log redaction", () => {
  it("redacts secret-looking fields and passwords inside URLs", () => {
    logLine("info", "connecting to postgres://app:hunter2@db:5432/app", {
      password: "hunter2",
      authorization: "Bearer eyJhbGciOi",
      refresh_token: "rt-123",
      nested: { api_key: "AKIA123", ok: "visible" },
      database_url: "postgresql://app:hunter2@db/app",
    })
    const record = logRecords()[0]!
    expect(lines[0]).not.toContain("hunter2")
    expect(lines[0]).not.toContain("eyJhbGciOi")
    expect(lines[0]).not.toContain("AKIA123")
    expect(record).toMatchObject({
      level: "info",
      msg: "connecting to postgres://app:***@db:5432/app",
      password: "[redacted]",
      authorization: "[redacted]",
      refresh_token: "[redacted]",
      nested: { api_key: "[redacted]", ok: "visible" },
      database_url: "postgresql://app:***@db/app",
    })
  })
})
