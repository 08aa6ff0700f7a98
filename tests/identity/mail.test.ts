/**
 * Mail without SMTP_URL: every mail is logged and kept in the development outbox (GET /api/dev/outbox), so a newcomer
 * on the embedded set-up can finish sign-up by following the link from there; in production the outbox answers 404.
 * Plus the templates: text and HTML parts, links from APP_ORIGIN, user-provided values escaped in HTML.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  addedToWorkspaceMail,
  invitationMail,
  passwordChangedMail,
  passwordResetMail,
  verificationMail,
} from "../../server/mail/templates.ts"
import { startIdentityEnv, STRONG_PASSWORD, type Env, uniq } from "./support.ts"

describe("development outbox (no SMTP_URL)", () => {
  let env: Env
  beforeAll(async () => {
    env = await startIdentityEnv({ smtp: false })
  })
  afterAll(async () => {
    await env?.stop()
  })

  it("keeps the verification mail with its link; following it completes sign-up", async () => {
    const email = `${uniq("outbox")}@example.com`
    const signup = await env.call("POST", "/api/signup", {
      body: { first_name: "New", last_name: "Comer", email, password: STRONG_PASSWORD, workspace_name: `ws-${uniq()}` },
    })
    expect(signup.status).toBe(200)
    let mails: Array<{ to: string; subject: string; links: Array<string>; text: string; html: string }> = []
    for (let i = 0; i < 100 && mails.length === 0; i++) {
      mails = (await env.call("GET", `/api/dev/outbox?to=${encodeURIComponent(email)}`)).body.data
      if (mails.length === 0) await new Promise((r) => setTimeout(r, 20))
    }
    expect(mails).toHaveLength(1)
    expect(mails[0]).toMatchObject({ to: email, subject: "Verify your email address" })
    expect(mails[0]!.html).toContain("<a href=")
    const link = new URL(mails[0]!.links[0]!)
    expect(link.origin).toBe(env.server.config.appOrigin)
    expect((await env.call("GET", `/api/verify-email${link.search}`)).status).toBe(200)
    expect((await env.login(email, STRONG_PASSWORD)).status).toBe(200)
    expect(env.smtp.mails).toHaveLength(0)
  })
})

describe("production", () => {
  let env: Env
  beforeAll(async () => {
    env = await startIdentityEnv({ smtp: false, env: { NODE_ENV: "production" } })
  })
  afterAll(async () => {
    await env?.stop()
  })

  it("hides the outbox", async () => {
    const res = await env.call("GET", "/api/dev/outbox")
    expect(res.status).toBe(404)
  })
})

describe("templates", () => {
  const origin = "https://audit.example.com"
  const all = [
    verificationMail({ origin, to: "a@b.co", firstName: "<script>", token: "t".repeat(43), expiresInMinutes: 30 }),
    passwordResetMail({ origin, to: "a@b.co", token: "r".repeat(43), expiresInMinutes: 30, requestedBy: "Eve <e@x>" }),
    invitationMail({ origin, to: "a@b.co", token: "i".repeat(43), workspaceName: "<img src=x onerror=alert(1)>", roleName: "Admin", inviterName: "Bob", expiresInDays: 7 }),
    addedToWorkspaceMail({ origin, to: "a@b.co", workspaceName: "W&W", addedBy: "Bob", newAccount: true }),
    passwordChangedMail({ origin, to: "a@b.co", how: "changed" }),
  ]

  it("each has a subject, text and HTML, and links on APP_ORIGIN only", () => {
    expect(all.map((m) => m.kind)).toEqual(["verification", "password_reset", "invitation", "added_to_workspace", "password_changed"])
    for (const m of all) {
      expect(m.subject.length).toBeGreaterThan(0)
      expect(m.text.length).toBeGreaterThan(20)
      expect(m.html).toMatch(/^<!doctype html>/)
      expect(m.links.length).toBeGreaterThan(0)
      for (const l of m.links) {
        expect(new URL(l).origin).toBe(origin)
        expect(m.text).toContain(l)
      }
    }
    expect(new URL(all[0]!.links[0]!).searchParams.get("email")).toBe("a@b.co")
  })

  it("escapes user-provided values in HTML", () => {
    const html = all.map((m) => m.html).join("\n")
    expect(html).not.toContain("<script>")
    expect(html).not.toContain("<img src=x")
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;")
    expect(html).toContain("W&amp;W")
  })
})
