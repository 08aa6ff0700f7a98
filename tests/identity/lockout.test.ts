/**
 * Sign-in lock-out cannot be aimed at someone else (issue 27, problem 3): failures lock the (account, client) pair
 * that made them, not the account for everyone; an account under attack slows down only the clients that failed on
 * it; successful sign-ins are limited per account and per client (problem 2). The server trusts one proxy
 * (TRUST_PROXY=1), so each request names its client in X-Forwarded-For. Texts: access §8 (429).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { StatusMessages } from "../../src/contracts/messages.ts"
import { startIdentityEnv, type Env } from "./support.ts"

let env: Env
beforeAll(async () => {
  env = await startIdentityEnv({ env: { TRUST_PROXY: "1" } })
})
afterAll(async () => {
  await env?.stop()
})

const loginFrom = (client: string, email: string, password: string) =>
  env.call("POST", "/api/login", { body: { email, password }, headers: { "x-forwarded-for": client } })

const expectRateLimited = (res: { status: number; body: any }) => {
  expect(res.status).toBe(429)
  expect(res.body).toMatchObject({ _tag: "RateLimited", message: StatusMessages.rateLimited })
  expect(res.body.retry_after_seconds).toBeGreaterThan(0)
}

describe("failed sign-ins", () => {
  it("lock the attacker's client out of the account, not the owner signing in from elsewhere", async () => {
    const owner = await env.signupVerified()
    const attacker = "203.0.113.66"
    for (let i = 0; i < 10; i++) expect((await loginFrom(attacker, owner.email, `Wrong-pass-${i}`)).status).toBe(401)
    // The attacker's client is locked out of this account, even with the right password.
    const [right, wrong] = await Promise.all([loginFrom(attacker, owner.email, owner.password), loginFrom(attacker, owner.email, "Wrong-pass-x")])
    expectRateLimited(right!)
    expect(wrong!.status).toBe(429)
    // The owner, from their own client, is not.
    const fromHome = await loginFrom("198.51.100.20", owner.email, owner.password)
    expect(fromHome.status).toBe(200)
    expect(fromHome.body.access_token).toEqual(expect.any(String))
    // Renewing the attack keeps the attacker out and the owner in (refusals are answered after 1 s: sent together).
    const renewed = await Promise.all(Array.from({ length: 5 }, (_, i) => loginFrom(attacker, owner.email, `Wrong-pass-${i}`)))
    expect(renewed.map((r) => r.status)).toEqual([429, 429, 429, 429, 429])
    expect((await loginFrom("198.51.100.20", owner.email, owner.password)).status).toBe(200)
  })

  it("slow down, once the account is under attack, every client that failed on it — never a client without failures", async () => {
    const owner = await env.signupVerified()
    // Ten failures spread over ten clients: none of them is locked, but the account is now under attack.
    for (let i = 0; i < 10; i++) expect((await loginFrom(`203.0.113.${100 + i}`, owner.email, "Wrong-pass-1")).status).toBe(401)
    // A client that failed before may try once per slow-down interval.
    expect((await loginFrom("203.0.113.100", owner.email, "Wrong-pass-2")).status).toBe(401)
    expectRateLimited(await loginFrom("203.0.113.100", owner.email, "Wrong-pass-3"))
    // A fresh attacking client gets one try, then the same slow-down.
    expect((await loginFrom("203.0.113.200", owner.email, "Wrong-pass-1")).status).toBe(401)
    expect((await loginFrom("203.0.113.200", owner.email, "Wrong-pass-2")).status).toBe(401)
    expectRateLimited(await loginFrom("203.0.113.200", owner.email, "Wrong-pass-3"))
    // The owner, with no failure from their client, signs in at once, repeatedly.
    for (let i = 0; i < 3; i++) expect((await loginFrom("198.51.100.21", owner.email, owner.password)).status).toBe(200)
    // The interval passes: the slowed client may try again.
    await env.sql((sql) => sql`UPDATE rate_limit_buckets SET window_started_at = now() - interval '1 minute'
      WHERE key = ${`login:slowdown:${owner.email} 203.0.113.100`}`)
    expect((await loginFrom("203.0.113.100", owner.email, owner.password)).status).toBe(200)
  })
})

describe("successful sign-ins", () => {
  it("are limited per account and per client", async () => {
    const a = await env.signupVerified()
    const b = await env.signupVerified()
    const client = "192.0.2.44"
    const fill = (key: string, hits: number) =>
      env.sql((sql) => sql`INSERT INTO rate_limit_buckets (key, window_started_at, hits) VALUES (${key}, now(), ${hits})
        ON CONFLICT (key) DO UPDATE SET window_started_at = now(), hits = ${hits}`)
    await fill(`login:success:account:${a.email}`, 20)
    expectRateLimited(await loginFrom(client, a.email, a.password))
    expect((await loginFrom(client, b.email, b.password)).status).toBe(200)
    await fill(`login:success:address:${client}`, 100)
    expectRateLimited(await loginFrom(client, b.email, b.password))
    expect((await loginFrom("192.0.2.45", b.email, b.password)).status).toBe(200)
  })

  it("count: the twenty-first sign-in of an account within the window is refused", async () => {
    const a = await env.signupVerified()
    // signupVerified signed in once already.
    for (let i = 0; i < 19; i++) expect((await loginFrom(`192.0.2.${50 + i}`, a.email, a.password)).status).toBe(200)
    expectRateLimited(await loginFrom("192.0.2.99", a.email, a.password))
  })
})
