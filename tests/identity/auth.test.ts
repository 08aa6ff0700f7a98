/**
 * The auth group against a real database and a real SMTP receiver: signup, email verification (GET and POST, links
 * followed from captured mails), resend cool-down, login (generic 401, unverified 401, rate limits), forgot/reset
 * password, user-info — each success and each catalogued failure with the spec's text (access §7, §8).
 */
import { request as httpRequest } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  AccessServerMessages,
  OtherMessages,
  RefreshMessages,
  ResendMessages,
  SignupMessages,
  StatusMessages,
  SuccessMessages,
  ValidationMessages,
  VerificationMessages,
  resendWaitMessage,
} from "../../src/contracts/messages.ts"
import { startIdentityEnv, STRONG_PASSWORD, type Env, uniq } from "./support.ts"

let env: Env
beforeAll(async () => {
  env = await startIdentityEnv()
})
afterAll(async () => {
  await env?.stop()
})

const signupBody = (over: Record<string, unknown> = {}) => ({
  first_name: "Grace",
  last_name: "Hopper",
  email: `${uniq()}@example.com`,
  password: STRONG_PASSWORD,
  workspace_name: `ws-${uniq()}`,
  timezone: "America/New_York",
  ...over,
})

const verifyLinkOf = async (email: string) => {
  const mail = await env.mailTo(email, (m) => m.subject === "Verify your email address")
  const link = new URL(mail.links[0]!)
  return { mail, link, token: link.searchParams.get("token")!, email: link.searchParams.get("email")! }
}

describe("POST /api/signup", () => {
  it("creates the user and an owned workspace, stores the timezone, mails a verification link, answers verification_pending", async () => {
    const body = signupBody({ email: `${uniq("Mixed")}@Example.COM` })
    const res = await env.call("POST", "/api/signup", { body })
    expect(res.status).toBe(200)
    const email = String(body.email).trim().toLowerCase()
    expect(res.body).toMatchObject({ ok: true, message: SignupMessages.verificationSent, data: { note: "verification_pending", email } })
    const { link, token } = await verifyLinkOf(email)
    expect(link.origin).toBe(env.server.config.appOrigin)
    expect(link.pathname).toBe("/verify-email")
    expect(token.length).toBeGreaterThanOrEqual(32)
    const rows = await env.sql((sql) => sql`SELECT u.timezone, u.email_verified, w.name, w.owner_id = u.id AS owner
      FROM users u JOIN workspaces w ON w.owner_id = u.id WHERE u.email = ${email}`)
    expect(rows).toEqual([{ timezone: "America/New_York", email_verified: false, name: body.workspace_name, owner: true }])
  })

  it("answers 409 with the spec's text when the workspace name is taken (case-insensitively)", async () => {
    const first = signupBody()
    expect((await env.call("POST", "/api/signup", { body: first })).status).toBe(200)
    const res = await env.call("POST", "/api/signup", { body: signupBody({ workspace_name: String(first.workspace_name).toUpperCase() }) })
    expect(res.status).toBe(409)
    expect(res.body).toMatchObject({ _tag: "Conflict", message: SignupMessages.workspaceExists, data: { error_type: "workspace_exists" } })
  })

  it("answers 409 'account_unverified' for an existing unverified email and 409 'account_exists' for a verified one", async () => {
    const body = signupBody()
    await env.call("POST", "/api/signup", { body })
    const again = await env.call("POST", "/api/signup", { body: signupBody({ email: body.email }) })
    expect(again.status).toBe(409)
    expect(again.body).toMatchObject({ message: SignupMessages.accountExistsUnverified, data: { error_type: "account_unverified", email: body.email } })

    const verified = await env.signupVerified()
    const dup = await env.call("POST", "/api/signup", { body: signupBody({ email: verified.email }) })
    expect(dup.status).toBe(409)
    expect(dup.body).toMatchObject({ message: SignupMessages.accountExistsVerified, data: { error_type: "account_exists" } })
    expect(dup.body.data.email).toBeUndefined()
  })

  it("rejects weak passwords, long names and short workspace names with the spec's messages", async () => {
    const weak = await env.call("POST", "/api/signup", { body: signupBody({ password: "alllowercase1" }) })
    expect(weak.status).toBe(400)
    expect(weak.body.errors).toContainEqual({ path: "password", message: ValidationMessages.passwordComposition })
    const long = await env.call("POST", "/api/signup", { body: signupBody({ first_name: "x".repeat(51) }) })
    expect(long.body.errors).toContainEqual({ path: "first_name", message: ValidationMessages.firstNameTooLong })
    const short = await env.call("POST", "/api/signup", { body: signupBody({ workspace_name: "ab" }) })
    expect(short.body.errors).toContainEqual({ path: "workspace_name", message: ValidationMessages.workspaceNameMin })
  })

  it("falls back to UTC for a timezone Intl does not know", async () => {
    const body = signupBody({ timezone: "Mars/Olympus_Mons" })
    expect((await env.call("POST", "/api/signup", { body })).status).toBe(200)
    const rows = await env.sql((sql) => sql`SELECT timezone FROM users WHERE email = ${body.email}`)
    expect(rows).toEqual([{ timezone: "UTC" }])
  })
})

describe("email verification", () => {
  it("GET verifies with the mailed link; a second use answers 409 'already verified'", async () => {
    const body = signupBody()
    await env.call("POST", "/api/signup", { body })
    const { link } = await verifyLinkOf(String(body.email))
    const ok = await env.call("GET", `/api/verify-email${link.search}`)
    expect(ok.status).toBe(200)
    expect(ok.body).toMatchObject({ ok: true, message: SuccessMessages.emailVerified, data: { email: body.email } })
    const again = await env.call("GET", `/api/verify-email${link.search}`)
    expect(again.status).toBe(409)
    expect(again.body).toMatchObject({ _tag: "AlreadyVerified", message: VerificationMessages.status409 })
    expect(again.body.message.toLowerCase()).toContain("already verified")
  })

  it("POST verifies too", async () => {
    const body = signupBody()
    await env.call("POST", "/api/signup", { body })
    const { token, email } = await verifyLinkOf(String(body.email))
    const ok = await env.call("POST", "/api/verify-email", { body: { token, email } })
    expect(ok.status).toBe(200)
  })

  it("answers 400 for malformed links, 400 for a wrong token, 404 for an unknown user, 410 once expired", async () => {
    const malformed = await env.call("GET", `/api/verify-email?token=short&email=a%40b.co`)
    expect(malformed.status).toBe(400)
    expect(malformed.body.errors).toContainEqual({ path: "query.token", message: ValidationMessages.verificationTokenFormat })
    const badEmail = await env.call("GET", `/api/verify-email?token=${"a".repeat(40)}&email=nope`)
    expect(badEmail.status).toBe(400)
    expect(badEmail.body.errors).toContainEqual({ path: "query.email", message: ValidationMessages.verificationEmailFormat })

    const body = signupBody()
    await env.call("POST", "/api/signup", { body })
    const { token, email } = await verifyLinkOf(String(body.email))
    const wrong = await env.call("GET", `/api/verify-email?token=${"A".repeat(43)}&email=${encodeURIComponent(email)}`)
    expect(wrong.status).toBe(400)
    expect(wrong.body).toMatchObject({ _tag: "InvalidToken", message: VerificationMessages.status400 })

    const unknown = await env.call("GET", `/api/verify-email?token=${token}&email=${encodeURIComponent(`nobody-${uniq()}@example.com`)}`)
    expect(unknown.status).toBe(404)
    expect(unknown.body).toMatchObject({ _tag: "UserNotFound", message: VerificationMessages.status404 })

    await env.sql((sql) => sql`UPDATE email_verification_tokens SET expires_at = now() - interval '1 second' WHERE email = ${email}`)
    const expired = await env.call("GET", `/api/verify-email?token=${token}&email=${encodeURIComponent(email)}`)
    expect(expired.status).toBe(410)
    expect(expired.body).toMatchObject({ _tag: "Gone", message: VerificationMessages.status410 })
  })

  it("a token is bound to its email", async () => {
    const a = signupBody()
    const b = signupBody()
    await env.call("POST", "/api/signup", { body: a })
    await env.call("POST", "/api/signup", { body: b })
    const { token } = await verifyLinkOf(String(a.email))
    const crossed = await env.call("POST", "/api/verify-email", { body: { token, email: b.email } })
    expect(crossed.status).toBe(400)
    const rows = await env.sql((sql) => sql`SELECT email_verified FROM users WHERE email IN (${a.email}, ${b.email})`)
    expect(rows.every((r: { email_verified: boolean }) => !r.email_verified)).toBe(true)
  })
})

describe("POST /api/resend-verification-link", () => {
  it("enforces the 60 s cool-down per address, then resends with data.email and data.expires_in_minutes", async () => {
    const body = signupBody()
    await env.call("POST", "/api/signup", { body })
    const early = await env.call("POST", "/api/resend-verification-link", { body: { email: body.email } })
    expect(early.status).toBe(429)
    expect(early.body.retry_after_seconds).toBeGreaterThan(0)
    expect(early.body.retry_after_seconds).toBeLessThanOrEqual(60)
    expect(early.body.message).toBe(resendWaitMessage(early.body.retry_after_seconds))

    // The cool-down window ends (moved back in time rather than waiting a minute).
    await env.sql((sql) => sql`UPDATE rate_limit_buckets SET window_started_at = now() - interval '61 seconds' WHERE key = ${`resend:${body.email}`}`)
    const ok = await env.call("POST", "/api/resend-verification-link", { body: { email: body.email } })
    expect(ok.status).toBe(200)
    expect(ok.body.data).toEqual({ email: body.email, expires_in_minutes: 30 })
    const mails = await env.mailsTo(String(body.email), 2, (m) => m.subject === "Verify your email address")
    expect(mails.length).toBe(2)
    // The newest link works.
    const link = new URL(mails[1]!.links[0]!)
    expect((await env.call("GET", `/api/verify-email${link.search}`)).status).toBe(200)
  })

  it("answers 409 for a verified address and 404 for an unknown one", async () => {
    const s = await env.signupVerified()
    await env.sql((sql) => sql`DELETE FROM rate_limit_buckets WHERE key = ${`resend:${s.email}`}`)
    const verified = await env.call("POST", "/api/resend-verification-link", { body: { email: s.email } })
    expect(verified.status).toBe(409)
    expect(verified.body.message).toBe(ResendMessages.alreadyVerified)
    const unknown = await env.call("POST", "/api/resend-verification-link", { body: { email: `ghost-${uniq()}@example.com` } })
    expect(unknown.status).toBe(404)
  })
})

describe("POST /api/login", () => {
  it("answers access_token, refresh_token and the user", async () => {
    const s = await env.signupVerified()
    const res = await env.login(s.email.toUpperCase(), s.password)
    expect(res.status).toBe(200)
    expect(typeof res.body.access_token).toBe("string")
    expect(res.body.refresh_token.length).toBeGreaterThanOrEqual(32)
    expect(res.body.data).toMatchObject({ email: s.email, email_verified: true, first_name: "Ada", roles: [{ name: "Admin" }], is_owner: true })
    expect(res.body.data.timezone).toMatchObject({ value: "Europe/Paris" })
  })

  it("gives the same generic 401 for a wrong password and an unknown email", async () => {
    const s = await env.signupVerified()
    const wrong = await env.login(s.email, "Wrong-pass-1")
    const unknown = await env.login(`nobody-${uniq()}@example.com`, "Wrong-pass-1")
    expect(wrong.status).toBe(401)
    expect(unknown.status).toBe(401)
    expect(wrong.body).toEqual(unknown.body)
    expect(wrong.body).toEqual({ _tag: "InvalidCredentials", message: AccessServerMessages.invalidCredentials })
  })

  it("answers 401 email_not_verified with the email for an unverified user with the right password", async () => {
    const body = signupBody()
    await env.call("POST", "/api/signup", { body })
    const res = await env.login(String(body.email), STRONG_PASSWORD)
    expect(res.status).toBe(401)
    expect(res.body).toEqual({
      _tag: "EmailNotVerified",
      message: StatusMessages.emailNotVerifiedAtLogin,
      data: { error_type: "email_not_verified", email: body.email },
    })
    // A wrong password does not reveal the account's state.
    expect((await env.login(String(body.email), "Wrong-pass-1")).body._tag).toBe("InvalidCredentials")
  })

  it("rate limits an account's failures from one client with 429 and retry_after_seconds, never permanently", async () => {
    const s = await env.signupVerified()
    for (let i = 0; i < 10; i++) expect((await env.login(s.email, `Wrong-pass-${i}`)).status).toBe(401)
    const limited = await env.login(s.email, s.password)
    expect(limited.status).toBe(429)
    expect(limited.body).toMatchObject({ _tag: "RateLimited", message: StatusMessages.rateLimited })
    expect(limited.body.retry_after_seconds).toBeGreaterThan(0)
    expect(limited.body.retry_after_seconds).toBeLessThanOrEqual(15 * 60)
    await env.sql((sql) => sql`UPDATE rate_limit_buckets SET window_started_at = now() - interval '16 minutes'
      WHERE key IN (${`login:account:${s.email}`}, ${`login:account-client:${s.email} 127.0.0.1`})`)
    expect((await env.login(s.email, s.password)).status).toBe(200)
  })

  it("rate limits per client address across accounts", async () => {
    const s = await env.signupVerified()
    await env.sql((sql) => sql`INSERT INTO rate_limit_buckets (key, window_started_at, hits) VALUES ('login:address:127.0.0.1', now(), 50)
      ON CONFLICT (key) DO UPDATE SET window_started_at = now(), hits = 50`)
    const limited = await env.login(s.email, s.password)
    expect(limited.status).toBe(429)
    await env.sql((sql) => sql`DELETE FROM rate_limit_buckets WHERE key = 'login:address:127.0.0.1'`)
    expect((await env.login(s.email, s.password)).status).toBe(200)
  })

  it("rejects a payload without email with the spec's message", async () => {
    const res = await env.call("POST", "/api/login", { body: { password: "x" } })
    expect(res.status).toBe(400)
    expect(res.body.errors).toContainEqual({ path: "email", message: ValidationMessages.emailRequired })
  })
})

describe("GET /api/user-info", () => {
  it("answers the user; 401 without or with a bad token", async () => {
    const s = await env.signupVerified()
    const me = await env.call("GET", "/api/user-info", { token: s.access, workspaceId: s.workspaceId })
    expect(me.status).toBe(200)
    expect(me.body.data).toMatchObject({ id: s.userId, email: s.email, workspace_name: expect.any(String), is_owner: true })
    expect(me.body.data.timezone.offset).toMatch(/^[+-]\d{2}:\d{2}$/)
    const none = await env.call("GET", "/api/user-info")
    expect(none.status).toBe(401)
    expect(none.body.message).toBe(StatusMessages.unauthorized)
    const forged = await env.call("GET", "/api/user-info", { token: `${s.access.slice(0, -4)}AAAA` })
    expect(forged.status).toBe(401)
  })
})

describe("forgot and reset password", () => {
  const postWithHost = (path: string, body: unknown, host: string) =>
    new Promise<number>((resolve, reject) => {
      const url = new URL(env.base)
      const req = httpRequest({
        host: url.hostname, port: url.port, path, method: "POST",
        headers: { host, "content-type": "application/json", "x-forwarded-host": host },
      }, (res) => {
        res.resume()
        res.on("end", () => resolve(res.statusCode ?? 0))
      })
      req.on("error", reject)
      req.end(JSON.stringify(body))
    })

  it("never reveals whether the email exists", async () => {
    const s = await env.signupVerified()
    const known = await env.call("POST", "/api/forgot-password", { body: { email: s.email } })
    const unknown = await env.call("POST", "/api/forgot-password", { body: { email: `nobody-${uniq()}@example.com` } })
    expect(known.status).toBe(200)
    expect(known.body).toEqual(unknown.body)
    expect(known.body).toEqual({ ok: true, message: SuccessMessages.passwordResetEmailSent })
  })

  it("builds the link from APP_ORIGIN (not the Host header), validates, resets once, revokes sessions, sends a notice", async () => {
    const s = await env.signupVerified()
    expect(await postWithHost("/api/forgot-password", { email: s.email }, "evil.example")).toBe(200)
    const mail = await env.mailTo(s.email, (m) => m.subject === "Reset your password")
    const link = new URL(mail.links[0]!)
    expect(link.origin).toBe(env.server.config.appOrigin)
    expect(mail.text).not.toContain("evil.example")
    const token = link.searchParams.get("token")!
    expect(Buffer.from(token, "base64url").length).toBeGreaterThanOrEqual(16)
    const stored = await env.sql((sql) => sql`SELECT token_hash FROM password_reset_tokens t JOIN users u ON u.id = t.user_id WHERE u.email = ${s.email}`)
    expect(stored.map((r: { token_hash: string }) => r.token_hash)).not.toContain(token)

    const valid = await env.call("POST", "/api/validate-reset-token", { body: { token } })
    expect(valid.body).toEqual({ ok: true, data: { email: s.email } })

    const mismatch = await env.call("POST", "/api/reset-password", { body: { token, new_password: "N3wPassword!", confirm_password: "other" } })
    expect(mismatch.status).toBe(400)
    expect(mismatch.body.errors).toContainEqual({ path: "confirm_password", message: ValidationMessages.passwordsDontMatch })

    const done = await env.call("POST", "/api/reset-password", { body: { token, new_password: "N3wPassword!", confirm_password: "N3wPassword!" } })
    expect(done.status).toBe(200)
    expect(done.body).toEqual({ ok: true, message: SuccessMessages.passwordReset })

    const reused = await env.call("POST", "/api/reset-password", { body: { token, new_password: "An0therPass!", confirm_password: "An0therPass!" } })
    expect(reused.status).toBe(400)
    expect(reused.body).toMatchObject({ _tag: "InvalidToken", message: OtherMessages.invalidResetLink })
    expect((await env.call("POST", "/api/validate-reset-token", { body: { token } })).status).toBe(400)

    // All sessions are revoked: the old access and refresh tokens stop working.
    expect((await env.call("GET", "/api/user-info", { token: s.access })).status).toBe(401)
    const refresh = await env.call("POST", "/api/refresh-token", { body: { refresh_token: s.refresh } })
    expect(refresh.status).toBe(401)
    expect(refresh.body.message).toBe(RefreshMessages.sessionExpired)
    expect((await env.login(s.email, s.password)).status).toBe(401)
    expect((await env.login(s.email, "N3wPassword!")).status).toBe(200)
    await env.mailTo(s.email, (m) => m.subject === "Your password was changed")
  })

  it("an expired reset link is refused", async () => {
    const s = await env.signupVerified()
    await env.call("POST", "/api/forgot-password", { body: { email: s.email } })
    const mail = await env.mailTo(s.email, (m) => m.subject === "Reset your password")
    const token = new URL(mail.links[0]!).searchParams.get("token")!
    await env.sql((sql) => sql`UPDATE password_reset_tokens SET expires_at = now() - interval '1 second'`)
    expect((await env.call("POST", "/api/validate-reset-token", { body: { token } })).status).toBe(400)
    const res = await env.call("POST", "/api/reset-password", { body: { token, new_password: "N3wPassword!", confirm_password: "N3wPassword!" } })
    expect(res.status).toBe(400)
    expect(res.body.message).toBe(OtherMessages.invalidResetLink)
  })

  it("a reset also verifies an unverified account (the link proves the address)", async () => {
    const body = signupBody()
    await env.call("POST", "/api/signup", { body })
    await env.call("POST", "/api/forgot-password", { body: { email: body.email } })
    const mail = await env.mailTo(String(body.email), (m) => m.subject === "Reset your password")
    const token = new URL(mail.links[0]!).searchParams.get("token")!
    await env.call("POST", "/api/reset-password", { body: { token, new_password: "N3wPassword!", confirm_password: "N3wPassword!" } })
    expect((await env.login(String(body.email), "N3wPassword!")).status).toBe(200)
  })
})
