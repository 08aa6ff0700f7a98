/**
 * Sessions: refresh-token rotation, reuse detection (the whole family is revoked), exactly one winner for parallel
 * refreshes with the same token, logout, access tokens dying with their session, and the token formats the issue
 * requires (JWT via jose carrying user and workspace; opaque refresh token of ≥ 128 bits stored as SHA-256 only).
 */
import { createHash } from "node:crypto"
import { decodeJwt, decodeProtectedHeader } from "jose"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { RefreshMessages } from "../../src/contracts/messages.ts"
import { startIdentityEnv, type Env } from "./support.ts"

let env: Env
beforeAll(async () => {
  env = await startIdentityEnv()
})
afterAll(async () => {
  await env?.stop()
})

const refresh = (token: string) => env.call("POST", "/api/refresh-token", { body: { refresh_token: token } })

describe("tokens", () => {
  it("access tokens are HS256 JWTs with sub, wid, sid and a short expiry; refresh tokens are opaque and stored hashed", async () => {
    const s = await env.signupVerified()
    const header = decodeProtectedHeader(s.access)
    expect(header.alg).toBe("HS256")
    const claims = decodeJwt(s.access)
    expect(claims.sub).toBe(String(s.userId))
    expect(claims.wid).toBe(s.workspaceId)
    expect(typeof claims.sid).toBe("string")
    expect(claims.exp! - claims.iat!).toBeLessThanOrEqual(15 * 60)
    expect(Buffer.from(s.refresh, "base64url").length * 8).toBeGreaterThanOrEqual(128)
    const rows = await env.sql((sql) => sql`SELECT token_hash FROM refresh_tokens t JOIN refresh_token_families f ON f.id = t.family_id WHERE f.user_id = ${s.userId}`)
    const hashes = rows.map((r: { token_hash: string }) => r.token_hash)
    expect(hashes).toContain(createHash("sha256").update(s.refresh).digest("hex"))
    expect(hashes).not.toContain(s.refresh)
  })
})

describe("POST /api/refresh-token", () => {
  it("rotates: answers a new pair, the new refresh token works, the access token is valid", async () => {
    const s = await env.signupVerified()
    const r1 = await refresh(s.refresh)
    expect(r1.status).toBe(200)
    expect(Object.keys(r1.body).sort()).toEqual(["access_token", "refresh_token"])
    expect(r1.body.refresh_token).not.toBe(s.refresh)
    expect((await env.call("GET", "/api/user-info", { token: r1.body.access_token })).status).toBe(200)
    const r2 = await refresh(r1.body.refresh_token)
    expect(r2.status).toBe(200)
    expect(decodeJwt(r2.body.access_token).wid).toBe(s.workspaceId)
  })

  it("reuse of a rotated token revokes the whole family (later tokens and access tokens included)", async () => {
    const s = await env.signupVerified()
    const r1 = await refresh(s.refresh)
    expect(r1.status).toBe(200)
    const replay = await refresh(s.refresh)
    expect(replay.status).toBe(401)
    expect(replay.body).toMatchObject({ _tag: "Unauthorized", message: RefreshMessages.sessionExpired })
    expect((await refresh(r1.body.refresh_token)).status).toBe(401)
    expect((await env.call("GET", "/api/user-info", { token: r1.body.access_token })).status).toBe(401)
    const audit = await env.sql((sql) => sql`SELECT count(*)::int AS n FROM audit_log WHERE action = 'auth.refresh_reuse_detected' AND actor_user_id = ${s.userId}`)
    expect(audit[0].n).toBe(1)
    // Other sessions of the user are unaffected.
    const other = await env.login(s.email, s.password)
    expect((await refresh(other.body.refresh_token)).status).toBe(200)
  })

  it("two parallel refreshes with the same token: exactly one succeeds", async () => {
    for (let round = 0; round < 3; round++) {
      const s = await env.signupVerified()
      const results = await Promise.all([refresh(s.refresh), refresh(s.refresh), refresh(s.refresh)])
      const statuses = results.map((r) => r.status).sort()
      expect(statuses).toEqual([200, 401, 401])
    }
  })

  it("fails with the catalogue's refresh error for unknown, empty and expired tokens", async () => {
    const unknown = await refresh("x".repeat(43))
    expect(unknown.status).toBe(401)
    expect(unknown.body.message).toBe(RefreshMessages.sessionExpired)
    const empty = await refresh("")
    expect(empty.status).toBe(400)
    expect(empty.body.errors).toContainEqual({ path: "refresh_token", message: RefreshMessages.noRefreshToken })
    const s = await env.signupVerified()
    await env.sql((sql) => sql`UPDATE refresh_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = ${createHash("sha256").update(s.refresh).digest("hex")}`)
    expect((await refresh(s.refresh)).status).toBe(401)
  })
})

describe("POST /api/logout", () => {
  it("revokes the family: refresh and access tokens of that session stop working; other sessions live on", async () => {
    const s = await env.signupVerified()
    const second = await env.login(s.email, s.password)
    const out = await env.call("POST", "/api/logout", { body: { refresh_token: s.refresh }, token: s.access })
    expect(out.status).toBe(200)
    expect(out.body.ok).toBe(true)
    expect((await refresh(s.refresh)).status).toBe(401)
    expect((await env.call("GET", "/api/user-info", { token: s.access })).status).toBe(401)
    expect((await env.call("GET", "/api/user-info", { token: second.body.access_token })).status).toBe(200)
    // Idempotent, and says nothing about unknown tokens.
    expect((await env.call("POST", "/api/logout", { body: { refresh_token: "unknown-token" } })).status).toBe(200)
  })
})

describe("parallel one-time token consumption", () => {
  it("a reset link used three times at once resets exactly once", async () => {
    const s = await env.signupVerified()
    await env.call("POST", "/api/forgot-password", { body: { email: s.email } })
    const mail = await env.mailTo(s.email, (m) => m.subject === "Reset your password")
    const token = new URL(mail.links[0]!).searchParams.get("token")!
    const results = await Promise.all(["Paral1el-a", "Paral1el-b", "Paral1el-c"].map((pw) =>
      env.call("POST", "/api/reset-password", { body: { token, new_password: pw, confirm_password: pw } })))
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400])
    const winner = ["Paral1el-a", "Paral1el-b", "Paral1el-c"][results.findIndex((r) => r.status === 200)]!
    expect((await env.login(s.email, winner)).status).toBe(200)
  })

  it("a verification link used three times at once verifies exactly once", async () => {
    const email = `par-${Date.now()}@example.com`
    await env.call("POST", "/api/signup", {
      body: { first_name: "P", last_name: "Q", email, password: "Paral1el-pass", workspace_name: `par-${Date.now()}` },
    })
    const mail = await env.mailTo(email, (m) => m.subject === "Verify your email address")
    const search = new URL(mail.links[0]!).search
    const results = await Promise.all([0, 1, 2].map(() => env.call("GET", `/api/verify-email${search}`)))
    const statuses = results.map((r) => r.status)
    expect(statuses.filter((s) => s === 200)).toHaveLength(1)
    for (const s of statuses.filter((x) => x !== 200)) expect([400, 409]).toContain(s)
    const audit = await env.sql((sql) => sql`SELECT count(*)::int AS n FROM audit_log WHERE action = 'auth.email_verified' AND details->>'email' = ${email}`)
    expect(audit[0].n).toBe(1)
  })
})

describe("login timing", () => {
  it("an unknown email costs about as much as a wrong password (both run one argon2 verification)", async () => {
    const s = await env.signupVerified()
    const time = async (email: string) => {
      const started = performance.now()
      const res = await env.login(email, "Wrong-pass-1")
      expect(res.status).toBe(401)
      return performance.now() - started
    }
    const known: Array<number> = []
    const unknown: Array<number> = []
    for (let i = 0; i < 8; i++) {
      known.push(await time(s.email))
      unknown.push(await time(`ghost-${i}-${Date.now()}@example.com`))
    }
    const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
    const ratio = median(unknown) / median(known)
    expect(ratio).toBeGreaterThan(0.4)
    expect(ratio).toBeLessThan(2.5)
    // Both clearly include the hash (the floor parameters take well over a millisecond).
    expect(median(unknown)).toBeGreaterThan(3)
  })
})
