/**
 * Profile (access §2, §3, §5, §7): names and timezone, email change that becomes the login only once verified,
 * password change (current password required, composition rule, keeps this session, revokes the others, notice mail),
 * and the timezone list from Intl with label and UTC offset.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AccessServerMessages, SuccessMessages, ValidationMessages } from "../../src/contracts/messages.ts"
import { startIdentityEnv, type Env, uniq } from "./support.ts"

let env: Env
beforeAll(async () => {
  env = await startIdentityEnv()
})
afterAll(async () => {
  await env?.stop()
})

describe("PUT /api/update-user-info", () => {
  it("updates names and timezone", async () => {
    const s = await env.signupVerified()
    const res = await env.as(s, "PUT", "/api/update-user-info", { email: s.email, first_name: "Augusta", last_name: "King", timezone: "Asia/Tokyo" })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ ok: true, message: SuccessMessages.profileUpdated, data: { first_name: "Augusta", last_name: "King", timezone: { value: "Asia/Tokyo", offset: "+09:00" } } })
    const bad = await env.as(s, "PUT", "/api/update-user-info", { email: s.email, first_name: "A", last_name: "K", timezone: "Nowhere/Land" })
    expect(bad.status).toBe(400)
    expect(bad.body.errors).toContainEqual({ path: "timezone", message: AccessServerMessages.invalidTimezone })
    const empty = await env.as(s, "PUT", "/api/update-user-info", { email: s.email, first_name: "A", last_name: "K", timezone: "" })
    expect(empty.body.errors).toContainEqual({ path: "timezone", message: ValidationMessages.timezoneEmpty })
    const long = await env.as(s, "PUT", "/api/update-user-info", { email: s.email, first_name: "A".repeat(51), last_name: "K" })
    expect(long.body.errors).toContainEqual({ path: "first_name", message: ValidationMessages.firstNameTooLong })
  })

  it("a new email must be verified before it becomes the login", async () => {
    const s = await env.signupVerified()
    const other = await env.signupVerified()
    // A taken address answers like any other (tests/identity/account-oracles.test.ts) and never becomes the login.
    const taken = await env.as(s, "PUT", "/api/update-user-info", { email: other.email, first_name: "A", last_name: "L" })
    expect(taken.status).toBe(200)
    expect(taken.body.message).toBe(AccessServerMessages.emailChangePending)
    const next = `${uniq("new")}@example.com`
    const res = await env.as(s, "PUT", "/api/update-user-info", { email: next, first_name: "Ada", last_name: "Lovelace" })
    expect(res.status).toBe(200)
    expect(res.body.message).toBe(AccessServerMessages.emailChangePending)
    expect(res.body.data.email).toBe(s.email)
    expect((await env.login(next, s.password)).status).toBe(401)
    expect((await env.login(s.email, s.password)).status).toBe(200)
    const mail = await env.mailTo(next, (m) => m.subject === "Verify your email address")
    const link = new URL(mail.links[0]!)
    expect((await env.call("GET", `/api/verify-email${link.search}`)).status).toBe(200)
    expect((await env.login(next, s.password)).status).toBe(200)
    expect((await env.login(s.email, s.password)).status).toBe(401)
  })
})

describe("POST /api/update-password", () => {
  it("needs the current password, applies the composition rule, keeps this session and revokes the others", async () => {
    const s = await env.signupVerified()
    const other = await env.login(s.email, s.password)
    const wrong = await env.as(s, "POST", "/api/update-password", { current_password: "Not-the-one1", new_password: "Better-pass1", confirm_password: "Better-pass1" })
    expect(wrong.status).toBe(400)
    expect(wrong.body.errors).toEqual([{ path: "current_password", message: AccessServerMessages.currentPasswordWrong }])
    const weak = await env.as(s, "POST", "/api/update-password", { current_password: s.password, new_password: "weakpassword", confirm_password: "weakpassword" })
    expect(weak.status).toBe(400)
    expect(weak.body.errors).toContainEqual({ path: "new_password", message: ValidationMessages.passwordComposition })
    const mismatch = await env.as(s, "POST", "/api/update-password", { current_password: s.password, new_password: "Better-pass1", confirm_password: "Better-pass2" })
    expect(mismatch.body.errors).toContainEqual({ path: "confirm_password", message: ValidationMessages.newPasswordsDontMatch })

    const ok = await env.as(s, "POST", "/api/update-password", { current_password: s.password, new_password: "Better-pass1", confirm_password: "Better-pass1" })
    expect(ok.status).toBe(200)
    expect(ok.body).toEqual({ ok: true, message: SuccessMessages.passwordUpdated })
    expect((await env.call("GET", "/api/user-info", { token: s.access })).status).toBe(200)
    expect((await env.call("POST", "/api/refresh-token", { body: { refresh_token: s.refresh } })).status).toBe(200)
    expect((await env.call("GET", "/api/user-info", { token: other.body.access_token })).status).toBe(401)
    expect((await env.call("POST", "/api/refresh-token", { body: { refresh_token: other.body.refresh_token } })).status).toBe(401)
    expect((await env.login(s.email, "Better-pass1")).status).toBe(200)
    await env.mailTo(s.email, (m) => m.subject === "Your password was changed")
    const audit = await env.sql((sql) => sql`SELECT details FROM audit_log WHERE action = 'auth.password_changed' AND actor_user_id = ${s.userId}`)
    expect(audit).toEqual([{ details: { sessions_revoked: 1 } }])
  })
})

describe("GET /api/timezones", () => {
  it("lists Intl's timezones with label and offset", async () => {
    const res = await env.call("GET", "/api/timezones")
    expect(res.status).toBe(200)
    const list = res.body.data.timezones as Array<{ value: string; label: string; offset: string }>
    expect(list.length).toBeGreaterThan(300)
    expect(list).toContainEqual({ value: "UTC", label: "(UTC+00:00) UTC", offset: "+00:00" })
    // ICU names India's zone Asia/Calcutta or Asia/Kolkata depending on its version.
    const india = list.find((t) => t.value === "Asia/Kolkata" || t.value === "Asia/Calcutta")!
    expect(india).toEqual({ value: india.value, label: `(UTC+05:30) ${india.value}`, offset: "+05:30" })
    for (const t of list) expect(t.offset).toMatch(/^[+-]\d{2}:\d{2}$/)
  })
})
