import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { Schema } from "effect"
import { mapHttpError } from "../../src/contracts/error-mapping.ts"
import { RefreshMessages, StatusMessages } from "../../src/contracts/messages.ts"
import {
  RequestAborted,
  createApiClient,
  endpoint,
  isApiError,
  isRetryable,
  maxRetriesFor,
  type ApiClientDeps,
  type ApiError,
} from "../../src/services/api-client.ts"
import { createSessionStorage, memoryStorage } from "../../src/services/storage.ts"
import { advance, flush, json, never, newClock, scriptedFetch, type FetchHandler } from "./support.ts"

const Thing = Schema.Struct({ id: Schema.Number, name: Schema.String })
const getThing = endpoint({ method: "GET", path: "/api/thing", response: Thing })
const postThing = endpoint({ method: "POST", path: "/api/thing", response: Thing })
const login = endpoint({ method: "POST", path: "/api/login", response: Thing, flow: "login", refreshOn401: false })

const tokens = (n: number) => ({ access_token: `access-${n}`, refresh_token: `refresh-${n}` })

/** A client over a scripted server; tokens start as access-0/refresh-0 and workspace 7 is selected. */
const setup = (handler: FetchHandler, overrides: Partial<ApiClientDeps> = {}, stored: Record<string, string> = { access_token: "access-0", refresh_token: "refresh-0" }) => {
  const clock = newClock()
  const local = memoryStorage(stored)
  const session = createSessionStorage(local)
  const server = scriptedFetch(clock, handler)
  const refreshFailures: ApiError[] = []
  const refreshed: unknown[] = []
  let workspace: number | null = 7
  const client = createApiClient({
    fetch: server.fetch,
    clock,
    session,
    selectedWorkspaceId: () => workspace,
    isProduction: false,
    onRefreshFailed: (e) => refreshFailures.push(e),
    onTokensRefreshed: (t) => refreshed.push(t),
    ...overrides,
  })
  return {
    clock,
    local,
    session,
    calls: server.calls,
    client,
    refreshFailures,
    refreshed,
    selectWorkspace: (id: number | null) => (workspace = id),
  }
}

const settle = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  )

describe("headers and decoding", () => {
  it("sends the bearer token and X-Workspace-ID on every call and decodes the body", async () => {
    const t = setup(() => json(200, { id: 1, name: "a" }))
    expect(await t.client.request(getThing)).toEqual({ id: 1, name: "a" })
    expect(t.calls[0]!.headers["authorization"]).toBe("Bearer access-0")
    expect(t.calls[0]!.headers["x-workspace-id"]).toBe("7")
    expect(t.calls[0]!.url).toBe("/api/thing")
  })

  it("omits both headers when there is no token and no selected workspace", async () => {
    const t = setup(() => json(200, { id: 1, name: "a" }), {}, {})
    t.selectWorkspace(null)
    await t.client.request(postThing, { body: { x: 1 } })
    expect(t.calls[0]!.headers["authorization"]).toBeUndefined()
    expect(t.calls[0]!.headers["x-workspace-id"]).toBeUndefined()
    expect(t.calls[0]!.body).toEqual({ x: 1 })
    expect(t.calls[0]!.headers["content-type"]).toBe("application/json")
  })

  it("reads the token at call time (another tab's new token is used)", async () => {
    const t = setup(() => json(200, { id: 1, name: "a" }))
    t.local.setItem("access_token", "from-other-tab")
    await t.client.request(getThing)
    expect(t.calls[0]!.headers["authorization"]).toBe("Bearer from-other-tab")
  })

  it("a 2xx body the contract does not describe is an error, never data", async () => {
    const t = setup(() => json(200, { id: "1" }))
    const r = await settle(t.client.request(getThing))
    expect(r).toEqual({ ok: false, error: { type: "UNKNOWN_ERROR", message: StatusMessages.unexpected, status: 200, data: { id: "1" } } })
  })

  it("query parameters are encoded into the URL", async () => {
    const t = setup(() => json(200, { id: 1, name: "a" }))
    await t.client.request(getThing, { query: { token: "a b&c=d#e", email: "a+b@y.z" } })
    const url = new URL(t.calls[0]!.url, "http://localhost")
    expect(url.pathname).toBe("/api/thing")
    expect(Object.fromEntries(url.searchParams)).toEqual({ token: "a b&c=d#e", email: "a+b@y.z" })
  })
})

describe("error mapping (every failure lands on the catalogue)", () => {
  it("an HTTP error maps exactly as the contract's mapping says, with status and body (property)", async () => {
    const body = fc.oneof(
      fc.constant(null),
      fc.record({ message: fc.string() }),
      fc.record({ _tag: fc.constantFrom("Forbidden", "Conflict", "NotFound", "ValidationError"), message: fc.string() }),
      fc.record({ message: fc.string(), data: fc.record({ error_type: fc.constantFrom("email_not_verified", "other"), email: fc.constant("a@b.c") }) }),
    )
    const status = fc.integer({ min: 400, max: 599 }).filter((s) => s !== 401 && !(s >= 500 && s !== 501))
    await fc.assert(
      fc.asyncProperty(status, body, fc.constantFrom(getThing, login), async (s, b, e) => {
        const t = setup(() => json(s, b))
        const r = await settle(t.client.request(e))
        expect(r.ok).toBe(false)
        const expected = mapHttpError({ kind: "response", status: s, body: b }, e.flow ?? "generic")
        const err = (r as { error: ApiError }).error
        expect(isApiError(err)).toBe(true)
        expect(err.type).toBe(expected.type)
        expect(err.message).toBe(expected.message)
        expect(err.status).toBe(s)
      }),
      { numRuns: 60 },
    )
  })

  it("a network failure is NETWORK_ERROR with the spec's text and is not retried", async () => {
    const t = setup(() => Promise.reject(new TypeError("fetch failed")))
    const r = await settle(t.client.request(getThing))
    expect(r).toEqual({ ok: false, error: { type: "NETWORK_ERROR", message: StatusMessages.noResponse } })
    expect(t.calls).toHaveLength(1)
  })

  it("login's 401 email_not_verified is passed on with the spec's text and no refresh", async () => {
    const t = setup(() => json(401, { _tag: "EmailNotVerified", message: "x", data: { error_type: "email_not_verified", email: "a@b.c" } }))
    const r = await settle(t.client.request(login, { body: { email: "a@b.c", password: "x" } }))
    expect(r.ok).toBe(false)
    const err = (r as { error: ApiError }).error
    expect(err.type).toBe("EMAIL_NOT_VERIFIED")
    expect(err.message).toBe("Please verify your email address to continue")
    expect(err.data).toMatchObject({ data: { error_type: "email_not_verified", email: "a@b.c" } })
    expect(t.calls.map((c) => c.url)).toEqual(["/api/login"])
  })
})

describe("retries (access §7: timeout or 5xx, 1 s, 2 s, 4 s, limit 3 production / 2 otherwise)", () => {
  it("the limit depends on the build", () => {
    expect(maxRetriesFor(true)).toBe(3)
    expect(maxRetriesFor(false)).toBe(2)
  })

  it("development build: 5xx retried twice after 1 s and 2 s", async () => {
    const t = setup(() => json(503, { message: "down" }))
    const t0 = t.clock.now()
    const r = settle(t.client.request(getThing))
    await advance(t.clock, 10_000, 250)
    expect(t.calls.map((c) => c.at - t0)).toEqual([0, 1000, 3000])
    expect(await r).toEqual({ ok: false, error: { type: "SERVER_ERROR", message: StatusMessages.serverError, status: 503, data: { message: "down" } } })
  })

  it("production build: 5xx retried three times after 1 s, 2 s, 4 s", async () => {
    const t = setup(() => json(500, null), { isProduction: true })
    const t0 = t.clock.now()
    const r = settle(t.client.request(postThing, { body: {} }))
    await advance(t.clock, 20_000, 250)
    expect(t.calls.map((c) => c.at - t0)).toEqual([0, 1000, 3000, 7000])
    expect((await r).ok).toBe(false)
  })

  it("a retry that succeeds resolves", async () => {
    let n = 0
    const t = setup(() => (++n < 3 ? json(502, null) : json(200, { id: 2, name: "b" })))
    const r = settle(t.client.request(getThing))
    await advance(t.clock, 5000, 250)
    expect(await r).toEqual({ ok: true, value: { id: 2, name: "b" } })
  })

  it("an attempt that gets no answer times out after 30 s and is retried", async () => {
    const t = setup(() => never())
    const t0 = t.clock.now()
    const r = settle(t.client.request(getThing))
    await advance(t.clock, 30_000 * 3 + 3000 + 1000, 500)
    // attempts at 0; 30 s timeout + 1 s; then 31 s + 30 s + 2 s
    expect(t.calls.map((c) => c.at - t0)).toEqual([0, 31_000, 63_000])
    expect(await r).toEqual({ ok: false, error: { type: "NETWORK_ERROR", message: StatusMessages.noResponse } })
  })

  it("4xx, 501 and network failures are not retried (property over statuses)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 200, max: 599 }), (status) => {
        expect(isRetryable({ kind: "response", status, body: null })).toBe(status >= 500 && status !== 501)
      }),
    )
    expect(isRetryable({ kind: "timeout" })).toBe(true)
    expect(isRetryable({ kind: "network", cause: null })).toBe(false)
  })

  it("a caller that leaves during the retry wait stops the retries", async () => {
    const t = setup(() => json(503, null))
    const controller = new AbortController()
    const r = settle(t.client.request(getThing, { signal: controller.signal }))
    await flush()
    controller.abort()
    await advance(t.clock, 10_000, 500)
    expect(t.calls).toHaveLength(1)
    const outcome = await r
    expect(outcome.ok).toBe(false)
    expect((outcome as { error: unknown }).error).toBeInstanceOf(RequestAborted)
  })
})

describe("401 → single-flight refresh → replay", () => {
  /** A server where `access-N` is valid only for the current N; refresh hands out N+1. */
  const rotatingServer = (opts: { refresh?: (call: { body: unknown }) => Response | Promise<Response> } = {}) => {
    let current = 0
    const refreshCalls: unknown[] = []
    let release: () => void = () => {}
    const refreshGate = new Promise<void>((r) => (release = r))
    const handler: FetchHandler = async (call) => {
      if (call.url === "/api/refresh-token") {
        refreshCalls.push(call.body)
        await refreshGate
        if (opts.refresh) return opts.refresh(call)
        current += 1
        return json(200, tokens(current))
      }
      return call.headers["authorization"] === `Bearer access-${current}`
        ? json(200, { id: current, name: call.url })
        : json(401, { _tag: "TokenExpired", message: "Token expired" })
    }
    return { handler, refreshCalls, release, expire: () => (current = -1) }
  }

  it("five concurrent 401s → one refresh, five replays with the new token", async () => {
    const server = rotatingServer()
    const t = setup(server.handler, {}, { access_token: "stale", refresh_token: "refresh-0" })
    const results = Promise.all([1, 2, 3, 4, 5].map(() => t.client.request(getThing)))
    await flush()
    server.release()
    const values = await results
    expect(server.refreshCalls).toEqual([{ refresh_token: "refresh-0" }])
    expect(values).toEqual([1, 2, 3, 4, 5].map(() => ({ id: 1, name: "/api/thing" })))
    const replays = t.calls.filter((c) => c.url === "/api/thing" && c.headers["authorization"] === "Bearer access-1")
    expect(replays).toHaveLength(5)
    expect(t.session.read()).toMatchObject({ accessToken: "access-1", refreshToken: "refresh-1" })
    expect(t.refreshed).toEqual([{ accessToken: "access-1", refreshToken: "refresh-1" }])
    // The refresh call itself carries no stale bearer.
    expect(t.calls.find((c) => c.url === "/api/refresh-token")!.headers["authorization"]).toBeUndefined()
  })

  it("a late 401 for a token already replaced does not refresh again", async () => {
    const server = rotatingServer()
    server.release()
    const t = setup(server.handler, {}, { access_token: "stale", refresh_token: "refresh-0" })
    await t.client.request(getThing)
    expect(server.refreshCalls).toHaveLength(1)
    // Another request that was sent with "stale" and answered 401 after the refresh: reuse access-1.
    t.local.setItem("access_token", "access-1")
    const again = await t.client.request(getThing)
    expect(again.id).toBe(1)
    expect(server.refreshCalls).toHaveLength(1)
  })

  it("another tab's refresh is picked up instead of presenting a used refresh token", async () => {
    let release: () => void = () => {}
    const lockHeld = new Promise<void>((r) => (release = r))
    const server = rotatingServer()
    server.release()
    const t = setup(server.handler, {
      // The other tab holds the lock, refreshes, and writes its tokens before releasing it.
      withLock: async (_name, fn) => {
        await lockHeld
        return fn()
      },
    }, { access_token: "stale", refresh_token: "refresh-0" })
    const r = t.client.request(getThing)
    await flush()
    t.local.setItem("access_token", "access-0")
    t.local.setItem("refresh_token", "refresh-0b")
    release()
    expect(await r).toEqual({ id: 0, name: "/api/thing" })
    expect(server.refreshCalls).toEqual([])
  })

  it("login, sign-up and refresh-token 401s are answers: no refresh", async () => {
    const server = rotatingServer()
    server.release()
    const t = setup(server.handler, {}, { access_token: "stale", refresh_token: "refresh-0" })
    for (const path of ["/api/login", "/api/signup", "/api/refresh-token"]) {
      const e = endpoint({ method: "POST", path, response: Thing, refreshOn401: false })
      const r = await settle(t.client.request(e, { body: {} }))
      expect(r.ok).toBe(false)
    }
    expect(server.refreshCalls).toHaveLength(1) // only the direct call to /api/refresh-token itself
  })

  it("a 401 that is a credential answer (wrong current password) is not refreshed", async () => {
    const t = setup(() => json(401, { _tag: "InvalidCredentials", message: "Current password is incorrect" }))
    const r = await settle(t.client.request(postThing, { body: {} }))
    expect(r).toMatchObject({ ok: false, error: { type: "INVALID_CREDENTIALS", message: "Current password is incorrect", status: 401 } })
    expect(t.calls).toHaveLength(1)
  })

  it("the replay is not refreshed again: a second 401 is the answer", async () => {
    const t = setup((call) =>
      call.url === "/api/refresh-token" ? json(200, tokens(1)) : json(401, { _tag: "Unauthorized", message: "Nope" }),
    )
    const r = await settle(t.client.request(getThing))
    expect(r).toMatchObject({ ok: false, error: { type: "UNAUTHORIZED", message: "Nope", status: 401 } })
    expect(t.calls.map((c) => c.url)).toEqual(["/api/thing", "/api/refresh-token", "/api/thing"])
  })

  it("a refused refresh clears the session, reports once, and every waiting request fails with the session-expired text", async () => {
    const server = rotatingServer({ refresh: () => json(401, { _tag: "Unauthorized", message: "revoked" }) })
    const t = setup(server.handler, {}, { access_token: "stale", refresh_token: "refresh-0", user_email: "a@b.c", workspace_name: "Acme" })
    const results = Promise.all([1, 2, 3, 4, 5].map(() => settle(t.client.request(getThing))))
    await flush()
    server.release()
    const outcomes = await results
    const expected = { type: "UNAUTHORIZED", message: RefreshMessages.sessionExpired, status: 401 }
    for (const o of outcomes) expect(o).toMatchObject({ ok: false, error: expected })
    expect(server.refreshCalls).toHaveLength(1)
    expect(t.refreshFailures).toHaveLength(1)
    expect(t.refreshFailures[0]).toMatchObject(expected)
    expect(t.local.entries()).toEqual({})
  })

  it("the refresh is made without retry: a 503 is not retried", async () => {
    const server = rotatingServer({ refresh: () => json(503, null) })
    server.release()
    const t = setup(server.handler, {}, { access_token: "stale", refresh_token: "refresh-0" })
    const r = settle(t.client.request(getThing))
    await advance(t.clock, 10_000, 500)
    expect(await r).toMatchObject({ ok: false, error: { type: "REFRESH_FAILED", message: RefreshMessages.refreshAuthFailed } })
    expect(server.refreshCalls).toHaveLength(1)
  })

  it("no stored refresh token → 'No refresh token available'", async () => {
    const t = setup(() => json(401, { _tag: "TokenExpired", message: "expired" }), {}, { access_token: "stale" })
    const r = await settle(t.client.request(getThing))
    expect(r).toEqual({ ok: false, error: { type: "REFRESH_FAILED", message: RefreshMessages.noRefreshToken } })
    expect(t.calls.map((c) => c.url)).toEqual(["/api/thing"])
    expect(t.refreshFailures).toHaveLength(1)
  })

  it("an answer without both tokens → 'Invalid token response from server'", async () => {
    for (const answer of [{ access_token: "a" }, { refresh_token: "r" }, { access_token: "", refresh_token: "r" }, {}]) {
      const t = setup((call) => (call.url === "/api/refresh-token" ? json(200, answer) : json(401, null)))
      const r = await settle(t.client.request(getThing))
      expect(r).toMatchObject({ ok: false, error: { type: "REFRESH_FAILED", message: RefreshMessages.invalidTokenResponse } })
      expect(t.session.read().accessToken).toBeNull()
    }
  })

  it("the refresh trigger is injectable (e.g. routed through the session machine)", async () => {
    const triggered: string[] = []
    let valid = "access-0"
    const t = setup(
      (call) => (call.headers["authorization"] === `Bearer ${valid}` ? json(200, { id: 9, name: "ok" }) : json(401, null)),
      {
        refreshTrigger: async (refreshToken) => {
          triggered.push(refreshToken)
          valid = "injected"
          return { accessToken: "injected", refreshToken: "r-injected" }
        },
      },
      { access_token: "stale", refresh_token: "refresh-0" },
    )
    expect(await t.client.request(getThing)).toEqual({ id: 9, name: "ok" })
    expect(triggered).toEqual(["refresh-0"])
    expect(t.calls.map((c) => c.url)).toEqual(["/api/thing", "/api/thing"])
  })
})
