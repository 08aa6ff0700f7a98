/**
 * A burst of sign-ins on the embedded database (issue 15, problem 7): 200 simultaneous sign-ins plus 200 simultaneous
 * authenticated reads never produce a 5xx. Sign-ins beyond the bounded queue (server/auth/hashing-gate.ts) are
 * answered 429 with retry_after_seconds at once, instead of waiting behind every other argon2 hash; the ones admitted
 * succeed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { HASHING_CONCURRENCY, HASHING_MAX_WAITING } from "../../server/auth/hashing-gate.ts"
import { makeTestDatabase, type TestDatabase } from "../support/db.ts"
import { startTestServer, type TestServer } from "../support/server.ts"

const PASSWORD = "Correct-Horse-7"
let db: TestDatabase
let server: TestServer

beforeAll(async () => {
  db = await makeTestDatabase({ kind: "pglite" })
  server = await startTestServer({ database: db })
}, 60_000)
afterAll(async () => {
  await server?.stop()
  await db?.close()
})

const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  return { status: res.status, body: text === "" ? undefined : JSON.parse(text) }
}

describe("a burst of sign-ins on the embedded database", () => {
  it("answers 200 or 429 (with retry_after_seconds), never 5xx, and keeps reads answering", async () => {
    const email = `burst-${Date.now()}@example.com`
    expect((await call("POST", "/api/signup", { first_name: "Bu", last_name: "Rst", email, password: PASSWORD, workspace_name: `ws-${Date.now()}` })).status).toBe(200)
    let link: string | undefined
    for (let i = 0; i < 200 && link === undefined; i++) {
      link = (await call("GET", `/api/dev/outbox?to=${encodeURIComponent(email)}`)).body?.data?.[0]?.links?.[0]
      if (link === undefined) await new Promise((r) => setTimeout(r, 25))
    }
    expect((await call("GET", `/api/verify-email${new URL(link!).search}`)).status).toBe(200)
    const first = await call("POST", "/api/login", { email, password: PASSWORD })
    expect(first.status).toBe(200)
    const auth = { authorization: `Bearer ${first.body.access_token}` }
    const workspaceId = (await call("GET", "/api/workspaces", undefined, auth)).body.data[0].workspace_id
    const scoped = { ...auth, "x-workspace-id": String(workspaceId) }

    const [logins, reads] = await Promise.all([
      Promise.all(Array.from({ length: 200 }, () => call("POST", "/api/login", { email, password: PASSWORD }))),
      Promise.all(Array.from({ length: 200 }, () => call("GET", "/api/team-members", undefined, scoped))),
    ])
    expect(logins.filter((r) => r.status >= 500)).toEqual([])
    expect(reads.filter((r) => r.status >= 500)).toEqual([])
    expect(reads.every((r) => r.status === 200)).toBe(true)
    const refused = logins.filter((r) => r.status === 429)
    const admitted = logins.filter((r) => r.status === 200)
    expect(logins.length).toBe(refused.length + admitted.length)
    // At most the queue's capacity is admitted while the burst is in flight; the rest are told when to come back.
    expect(admitted.length).toBeGreaterThanOrEqual(HASHING_CONCURRENCY)
    expect(refused.length).toBeGreaterThan(200 - 4 * (HASHING_CONCURRENCY + HASHING_MAX_WAITING))
    for (const r of refused) expect(r.body).toMatchObject({ _tag: "RateLimited", retry_after_seconds: expect.any(Number) })
  }, 120_000)
})
