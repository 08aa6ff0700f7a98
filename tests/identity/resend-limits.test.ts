/**
 * POST /api/resend-verification-link answers 404 / 409 / 200 with the spec's texts, so it tells whether an address has
 * an account. Limits make that oracle useless at scale: per client address (every request, and a small budget of
 * unknown-address answers) and per email address (mail flood), on top of the 60 s cool-down. The client address is
 * the socket's peer; X-Forwarded-For counts only with TRUST_PROXY (off by default), so a client cannot reset its
 * budget by inventing a header.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { resendWaitMessage } from "../../src/contracts/messages.ts"
import { clientAddressFrom } from "../../server/http/middleware.ts"
import { startIdentityEnv, type Env, uniq } from "./support.ts"

const RESEND = "/api/resend-verification-link"

const resend = (env: Env, email: string, headers: Record<string, string> = {}) => env.call("POST", RESEND, { body: { email }, headers })

/** Forgets every per-email bucket (cool-down and hourly), keeping the per-client ones. */
const forgetEmailBuckets = (env: Env) =>
  env.sql((sql) => sql`DELETE FROM rate_limit_buckets WHERE key LIKE 'resend:%' AND key NOT LIKE 'resend:address:%' AND key NOT LIKE 'resend:misses:%'`)

describe("resend limits (no trusted proxy)", () => {
  let env: Env
  beforeAll(async () => {
    env = await startIdentityEnv()
  }, 60_000)
  afterAll(async () => {
    await env?.stop()
  })

  it("answers at most 10 unknown addresses per client, then 429 for everything, whatever X-Forwarded-For says", async () => {
    const statuses: Array<number> = []
    for (let i = 0; i < 40; i++) {
      // A client inventing a fresh X-Forwarded-For each time gains nothing: proxies are not trusted.
      const res = await resend(env, `ghost-${i}-${uniq()}@example.com`, { "x-forwarded-for": `203.0.113.${i}` })
      statuses.push(res.status)
      if (res.status === 429) {
        expect(res.body.retry_after_seconds).toBeGreaterThan(0)
        expect(res.body.message).toBe(resendWaitMessage(res.body.retry_after_seconds))
      }
    }
    expect(statuses.filter((s) => s === 404)).toHaveLength(10)
    expect(statuses.slice(10).every((s) => s === 429)).toBe(true)
    // Known addresses get no answer either once the budget is spent: the oracle is closed, not just the misses.
    const s = await env.signupVerified()
    await forgetEmailBuckets(env)
    expect((await resend(env, s.email)).status).toBe(429)
  })
})

describe("resend limits per client and per email", () => {
  let env: Env
  beforeAll(async () => {
    env = await startIdentityEnv()
  }, 60_000)
  afterAll(async () => {
    await env?.stop()
  })

  it("sends at most 5 verification mails per email address per hour, cool-down or not", async () => {
    const email = `flood-${uniq()}@example.com`
    const signup = await env.call("POST", "/api/signup", {
      body: { first_name: "Flo", last_name: "Od", email, password: "Correct-Horse-7", workspace_name: `ws-${uniq()}` },
    })
    expect(signup.status).toBe(200)
    const statuses: Array<number> = []
    for (let i = 0; i < 7; i++) {
      await env.sql((sql) => sql`DELETE FROM rate_limit_buckets WHERE key = ${`resend:${email}`}`)
      statuses.push((await resend(env, email)).status)
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429])
  })

  it("answers at most 20 requests per client in 15 minutes", async () => {
    const s = await env.signupVerified()
    await env.sql((sql) => sql`DELETE FROM rate_limit_buckets WHERE key LIKE 'resend:address:%'`)
    const statuses: Array<number> = []
    for (let i = 0; i < 24; i++) {
      await forgetEmailBuckets(env)
      statuses.push((await resend(env, s.email)).status)
    }
    expect(statuses.slice(0, 20).every((x) => x === 409)).toBe(true)
    expect(statuses.slice(20)).toEqual([429, 429, 429, 429])
  })
})

describe("resend limits behind a trusted proxy (TRUST_PROXY=1)", () => {
  let env: Env
  beforeAll(async () => {
    env = await startIdentityEnv({ env: { TRUST_PROXY: "1" } })
  }, 60_000)
  afterAll(async () => {
    await env?.stop()
  })

  it("keeps one budget per client named by the proxy's X-Forwarded-For entry", async () => {
    const count404 = async (forwardedFor: string) => {
      let n = 0
      for (let i = 0; i < 12; i++) {
        if ((await resend(env, `ghost-${uniq()}@example.com`, { "x-forwarded-for": forwardedFor })).status === 404) n++
      }
      return n
    }
    // The proxy appends the client it saw; whatever the client wrote before that is ignored.
    expect(await count404("198.51.100.7")).toBe(10)
    expect(await count404("10.9.9.9, 198.51.100.8")).toBe(10)
    expect(await count404("10.9.9.10, 198.51.100.8")).toBe(0)
  })
})

describe("client address from X-Forwarded-For", () => {
  it("trusts exactly TRUST_PROXY entries from the right", () => {
    expect(clientAddressFrom("127.0.0.1", "203.0.113.9", 0)).toBe("127.0.0.1")
    expect(clientAddressFrom("127.0.0.1", undefined, 1)).toBe("127.0.0.1")
    expect(clientAddressFrom("127.0.0.1", "203.0.113.9", 1)).toBe("203.0.113.9")
    expect(clientAddressFrom("127.0.0.1", "6.6.6.6, 203.0.113.9", 1)).toBe("203.0.113.9")
    expect(clientAddressFrom("127.0.0.1", "6.6.6.6, 203.0.113.9, 10.0.0.2", 2)).toBe("203.0.113.9")
    expect(clientAddressFrom("127.0.0.1", "203.0.113.9", 3)).toBe("203.0.113.9")
    expect(clientAddressFrom("127.0.0.1", "not-an-address", 1)).toBe("127.0.0.1")
    expect(clientAddressFrom("127.0.0.1", " , ", 1)).toBe("127.0.0.1")
  })
})
