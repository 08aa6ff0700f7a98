/**
 * The session machine on the real services (API client, query cache, storage, session signals) against a
 * scripted server and a simulated clock: the 401 → single refresh → replay path, a refused refresh ending the
 * session, a full sign-in, and another tab's logout.
 */
import { describe, expect, it } from "vitest"
import { createActor } from "xstate"
import { RefreshMessages } from "../../src/contracts/messages.ts"
import type { NavigationRequest } from "../../src/machines/navigation.ts"
import { sessionMachineWith } from "../../src/machines/session.machine.ts"
import { createAppServices } from "../../src/services/app-services.ts"
import { createSessionSignals } from "../../src/services/session-signals.ts"
import { createSessionStorage, memoryStorage, storageChangeHub } from "../../src/services/storage.ts"
import { advance, deferred, flush, json, newClock, scriptedFetch, type FetchHandler } from "../services/support.ts"

const userBody = { data: { id: 1, email: "ada@example.com", email_verified: true, first_name: "Ada", last_name: "L", workspace_name: "Acme", roles: [], timezone: null } }

const setup = (handler: FetchHandler, stored: Record<string, string>) => {
  const clock = newClock()
  const local = memoryStorage(stored)
  const hub = storageChangeHub()
  const server = scriptedFetch(clock, handler)
  const services = createAppServices({
    fetch: server.fetch,
    clock,
    isProduction: false,
    local,
    sessionStorage: memoryStorage(),
    changes: hub.source,
  })
  const navigations: NavigationRequest[] = []
  const machine = sessionMachineWith(services).provide({ actions: { navigate: (_, r) => void navigations.push(r) } })
  const actor = createActor(machine, { clock, input: { stored: services.session.read() } }).start()
  return { clock, local, hub, calls: server.calls, services, navigations, actor }
}

/** A server where only the latest access token is valid; refresh (gated) rotates it. */
const rotating = (refreshAnswer: (n: number) => Response = (n) => json(200, { access_token: `access-${n}`, refresh_token: `refresh-${n}` })) => {
  let current = 0
  const gate = deferred<void>()
  const handler: FetchHandler = async (call) => {
    if (call.url === "/api/refresh-token") {
      await gate.promise
      const answer = refreshAnswer(current + 1)
      if (answer.status === 200) current += 1
      return answer
    }
    if (call.headers["authorization"] !== `Bearer access-${current}`) return json(401, { _tag: "TokenExpired", message: "Token expired" })
    if (call.url === "/api/user-info") return json(200, userBody)
    if (call.url === "/api/roles") return json(200, { data: { roles: [], custom_roles: [] } })
    if (call.url === "/api/user/permissions") return json(200, { roles: [], custom_roles: [], is_owner: true })
    return json(200, { data: [] })
  }
  return { handler, release: () => gate.resolve() }
}

describe("session + API client", () => {
  it("five concurrent 401s → one refresh, five replays; the session stays signed in", async () => {
    const server = rotating()
    const t = setup(server.handler, { access_token: "access-0", refresh_token: "refresh-0" })
    try {
      await flush()
      expect(t.actor.getSnapshot().value).toEqual({ authenticated: "ready" })
      // Every token the server knew is now stale (e.g. the access token expired).
      t.local.setItem("access_token", "stale")
      const q = t.services.queries
      const reads = Promise.all([
        t.services.cache.fetchQuery(q.teamMembers(4).key, q.teamMembers(4).fetch),
        t.services.cache.fetchQuery(q.invitations(4).key, q.invitations(4).fetch),
        t.services.cache.fetchQuery(q.roles(4).key, q.roles(4).fetch),
        t.services.cache.fetchQuery(q.permissions(4).key, q.permissions(4).fetch),
        t.services.api.workspaces(),
      ])
      await flush()
      server.release()
      await reads
      const refreshes = t.calls.filter((c) => c.url === "/api/refresh-token")
      expect(refreshes).toHaveLength(1)
      expect(refreshes[0]!.body).toEqual({ refresh_token: "refresh-0" })
      const replays = t.calls.filter((c) => c.url !== "/api/refresh-token" && c.headers["authorization"] === "Bearer access-1")
      expect(replays).toHaveLength(5)
      expect(t.local.getItem("access_token")).toBe("access-1")
      expect(t.actor.getSnapshot().value).toEqual({ authenticated: "ready" })
      expect(t.navigations).toEqual([])
    } finally {
      t.actor.stop()
    }
  })

  it("a refused refresh: every waiting call fails, the session ends → /login with the expiry message", async () => {
    const server = rotating(() => json(401, { _tag: "Unauthorized", message: "Refresh token revoked" }))
    const t = setup(server.handler, { access_token: "access-0", refresh_token: "refresh-0" })
    try {
      await flush()
      t.local.setItem("access_token", "stale")
      await t.services.cache.fetchQuery(["roles", 4], async () => "cached")
      const reads = Promise.all([1, 2, 3, 4, 5].map(() => t.services.api.workspaces().then(() => "ok", (e: unknown) => e)))
      await flush()
      server.release()
      const outcomes = await reads
      for (const o of outcomes) expect(o).toMatchObject({ message: RefreshMessages.sessionExpired, status: 401 })
      expect(t.calls.filter((c) => c.url === "/api/refresh-token")).toHaveLength(1)
      expect(t.actor.getSnapshot().value).toBe("signedOut")
      expect(t.navigations).toEqual([
        { to: "/login", replace: true, state: { message: "Your session has expired. Please sign in again.", error: true } },
      ])
      expect(t.local.getItem("access_token")).toBeNull()
      expect(t.services.cache.size()).toBe(0)
    } finally {
      t.actor.stop()
    }
  })

  it("sign-in end to end: tokens, user, workspaces, switch; later calls carry the new token and X-Workspace-ID", async () => {
    const handler: FetchHandler = (call) => {
      switch (call.url) {
        case "/api/user-info":
          return json(200, userBody)
        case "/api/workspaces":
          return json(200, { data: [{ workspace_id: 4, workspace_name: "Acme", is_owner: true, role: null, member_count: 2, joined_at: "2025-01-01T00:00:00Z" }] })
        case "/api/user/switch-workspace":
          return json(200, { access_token: "ws4-access", refresh_token: "ws4-refresh", data: { workspace_id: 4, workspace_name: "Acme" } })
        default:
          return json(200, { data: [] })
      }
    }
    const t = setup(handler, {})
    try {
      t.actor.send({ type: "session.signedIn", accessToken: "login-access", refreshToken: "login-refresh", email: "ada@example.com" })
      await advance(t.clock, 100, 10)
      expect(t.navigations).toEqual([{ to: "/dashboard" }])
      expect(t.calls.map((c) => c.url)).toEqual(["/api/user-info", "/api/workspaces", "/api/user/switch-workspace"])
      expect(t.calls[0]!.headers["authorization"]).toBe("Bearer login-access")
      expect(t.calls[2]!.body).toEqual({ workspace_id: 4 })
      await t.services.api.teamMembers()
      expect(t.calls.at(-1)!.headers).toMatchObject({ authorization: "Bearer ws4-access", "x-workspace-id": "4" })
    } finally {
      t.actor.stop()
    }
  })

  it("another tab's logout (storage event) signs this tab out", async () => {
    const t = setup(() => json(200, userBody), { access_token: "a", refresh_token: "r" })
    try {
      await flush()
      expect(t.actor.getSnapshot().value).toEqual({ authenticated: "ready" })
      t.local.removeItem("access_token")
      t.hub.emit({ key: "access_token", oldValue: "a", newValue: null })
      expect(t.actor.getSnapshot().value).toBe("signedOut")
      expect(t.navigations).toEqual([{ to: "/login", replace: true }])
    } finally {
      t.actor.stop()
    }
  })
})

describe("session signals", () => {
  it("maps other tabs' token changes and clears, ignores other keys, and relays the client's outcomes", () => {
    const local = memoryStorage({ access_token: "a" })
    const hub = storageChangeHub()
    const signals = createSessionSignals({ changes: hub.source, session: createSessionStorage(local) })
    const seen: string[] = []
    const stop = signals.subscribe((s) => seen.push(s.type))
    hub.emit({ key: "refresh_token", oldValue: "r", newValue: "r2" })
    hub.emit({ key: "workspace-store", oldValue: null, newValue: "{}" })
    local.removeItem("access_token")
    hub.emit({ key: null, oldValue: null, newValue: null })
    signals.emitTokensRefreshed()
    signals.emitRefreshFailed({ type: "UNAUTHORIZED", message: RefreshMessages.sessionExpired })
    expect(seen).toEqual(["tokens-changed", "signed-out-elsewhere", "tokens-changed", "refresh-failed"])
    stop()
    hub.emit({ key: "access_token", oldValue: null, newValue: "x" })
    expect(seen).toHaveLength(4)
  })
})
