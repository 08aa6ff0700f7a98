/**
 * Mail without SMTP_URL: every mail is logged and kept in the development outbox (GET /api/dev/outbox), so a newcomer
 * on the embedded set-up can finish sign-up by following the link from there; in production the outbox answers 404.
 * Delivery is at least once: a mail sent while the SMTP server is down goes out on a retry once it is back, and a
 * re-delivered job sends nothing twice.
 * Plus the templates: text and HTML parts, links from APP_ORIGIN, user-provided values escaped in HTML.
 */
import { request as httpRequest } from "node:http"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startBoss } from "../../server/jobs/queue.ts"
import { sendMailJob } from "../../server/mail/jobs.ts"
import { deliverQueuedMail, MailDeliveryFailed } from "../../server/mail/mail-outbox.ts"
import { AppConfig } from "../../server/config.ts"
import { withSql } from "../support/db.ts"
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
    const rows = await env.sql((sql) => sql`SELECT sent_at, sealed_message FROM mail_outbox WHERE to_address = ${email}`)
    expect(rows).toHaveLength(1)
    expect(rows[0].sent_at).not.toBeNull()
    expect(rows[0].sealed_message).toBeNull()
  })

  it("answers a NUL character in the filter with a 400 ValidationError, not a database error", async () => {
    const res = await env.call("GET", "/api/dev/outbox?to=%00")
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ _tag: "ValidationError" })
  })
})

describe("development outbox and DNS rebinding (issue 27, problem 5)", () => {
  // A page on evil.example whose name now resolves to 127.0.0.1 reads the loopback server as same-origin; its
  // requests carry `Host: evil.example:<port>`. The outbox answers only this machine's names and APP_ORIGIN's host.
  let env: Env
  beforeAll(async () => {
    env = await startIdentityEnv({ smtp: false, env: { APP_ORIGIN: "http://audit.test:8443" } })
  })
  afterAll(async () => {
    await env?.stop()
  })

  const getWithHost = (host: string, path: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL(path, env.base)
      const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname + url.search, method: "GET", headers: { host } }, (res) => {
        let body = ""
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => (body += chunk))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
      })
      req.on("error", reject)
      req.end()
    })

  it("refuses a rebound Host with 404 and answers this machine's names and APP_ORIGIN's host", async () => {
    const email = `${uniq("rebind")}@example.com`
    const signup = await env.call("POST", "/api/signup", {
      body: { first_name: "Re", last_name: "Bind", email, password: STRONG_PASSWORD, workspace_name: `ws-${uniq()}` },
    })
    expect(signup.status).toBe(200)
    const port = env.server.config.port
    const path = `/api/dev/outbox?to=${encodeURIComponent(email)}`
    for (const host of [`evil.example:${port}`, "evil.example", `localhost.evil.example:${port}`, `127.0.0.1:${port + 1}`, "localhost"]) {
      const refused = await getWithHost(host, path)
      expect(refused.status, host).toBe(404)
      expect(refused.body).not.toContain("token")
    }
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`, "audit.test:8443"]) {
      const answered = await getWithHost(host, path)
      expect(answered.status, host).toBe(200)
      expect(JSON.parse(answered.body).data[0]).toMatchObject({ to: email })
    }
  })
})

describe("development outbox on a server reachable from the network", () => {
  // Reading the outbox is reading everyone's reset links: a server bound to every interface keeps it shut
  // unless DEV_OUTBOX=1 says otherwise.
  let env: Env
  beforeAll(async () => {
    env = await startIdentityEnv({ smtp: false, env: { HOST: "0.0.0.0", NODE_ENV: "development" } })
  })
  afterAll(async () => {
    await env?.stop()
  })

  it("answers 404 and hands out no link", async () => {
    const email = `${uniq("exposed")}@example.com`
    const signup = await env.call("POST", "/api/signup", {
      body: { first_name: "New", last_name: "Comer", email, password: STRONG_PASSWORD, workspace_name: `ws-${uniq()}` },
    })
    expect(signup.status).toBe(200)
    expect((await env.call("POST", "/api/forgot-password", { body: { email } })).status).toBe(200)
    for (const path of [`/api/dev/outbox?to=${encodeURIComponent(email)}`, "/api/dev/outbox"]) {
      const res = await env.call("GET", path)
      expect(res.status).toBe(404)
      expect(res.body).toMatchObject({ _tag: "NotFound" })
      expect(JSON.stringify(res.body)).not.toContain("token")
    }
  })
})

interface OutboxRow {
  id: string
  attempts: number
  last_error: string | null
  sealed_message: string | null
  sent_at: Date | null
  claimed_until: Date | null
}

const until = async <A>(what: string, probe: () => Promise<A | undefined>, timeoutMs = 15_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const found = await probe()
    if (found !== undefined) return found
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe("delivery at least once (SMTP)", () => {
  let env: Env
  beforeAll(async () => {
    env = await startIdentityEnv()
  })
  afterAll(async () => {
    await env?.stop()
  })

  const outboxRow = async (email: string): Promise<OutboxRow | undefined> =>
    (await env.sql((sql) => sql`SELECT id, attempts, last_error, sealed_message, sent_at, claimed_until FROM mail_outbox
      WHERE to_address = ${email}`))[0]

  const signup = async (email: string) => {
    const res = await env.call("POST", "/api/signup", {
      body: { first_name: "Re", last_name: "Try", email, password: STRONG_PASSWORD, workspace_name: `ws-${uniq()}` },
    })
    expect(res.status).toBe(200)
  }

  it("a mail queued while the SMTP server is down is delivered by a retry once it is back", async () => {
    const email = `${uniq("retry")}@example.com`
    await env.smtp.stop()
    try {
      await signup(email)
      const failed = await until("a failed attempt", async () => {
        const row = await outboxRow(email)
        return row !== undefined && row.attempts >= 1 ? row : undefined
      })
      expect(failed.sent_at).toBeNull()
      expect(failed.last_error).toMatch(/ECONNREFUSED|connect/i)
      // The job row carries the outbox id only; the link (with its token) is sealed in the outbox row.
      const jobs = await env.sql((sql) => sql`SELECT data FROM pgboss.job WHERE name = 'mail.send' AND data->'payload'->>'mail_id' = ${failed.id}`)
      expect(jobs.map((j: { data: unknown }) => j.data)).toEqual([{ payload: { mail_id: failed.id } }])
      expect(failed.sealed_message).toMatch(/^v1\./)
      expect(failed.sealed_message).not.toContain("verify-email")
    } finally {
      await env.smtp.start()
    }
    const mail = await env.smtp.waitForMail((m) => m.to.includes(email), 30_000)
    const link = new URL(mail.links[0]!)
    expect((await env.call("GET", `/api/verify-email${link.search}`)).status).toBe(200)
    const sent = await until("the sent mark", async () => {
      const row = await outboxRow(email)
      return row?.sent_at != null ? row : undefined
    })
    expect(sent.attempts).toBeGreaterThanOrEqual(2)
    expect(sent.sealed_message).toBeNull()
    expect(env.smtp.mailsTo(email)).toHaveLength(1)
  }, 60_000)

  it("a permanent refusal (550) is given up at once: recorded, sealed copy wiped, no retry", async () => {
    const email = `${uniq("nobody")}@bounce.invalid`
    await signup(email)
    const row = await until("the given-up mark", async () => {
      const r = (await env.sql((sql) => sql`SELECT id, attempts, last_error, sealed_message, failed_at FROM mail_outbox
        WHERE to_address = ${email}`))[0] as (OutboxRow & { failed_at: Date | null }) | undefined
      return r?.failed_at != null ? r : undefined
    })
    expect(row.attempts).toBe(1)
    expect(row.last_error).toMatch(/550|No such user/)
    expect(row.sealed_message).toBeNull()
    const jobs = await until("the job's end", async () => {
      const j = await env.sql((sql) => sql`SELECT state, retry_count FROM pgboss.job WHERE name = 'mail.send'
        AND data->'payload'->>'mail_id' = ${row.id}`)
      return j.length === 1 && j[0].state === "completed" ? j : undefined
    })
    expect(jobs[0].retry_count).toBe(0)
    expect(env.smtp.mailsTo(email)).toHaveLength(0)
  }, 30_000)

  it("a re-delivered job finds the mail sent and sends nothing", async () => {
    const email = `${uniq("again")}@example.com`
    await signup(email)
    await env.mailTo(email)
    const row = await until("the sent mark", async () => {
      const r = await outboxRow(email)
      return r?.sent_at != null ? r : undefined
    })
    // pg-boss delivers at least once: the same mail's job again (as after an attempt that expired) is a no-op.
    const boss = await startBoss(env.server.databaseUrl, { poolSize: 1, supervise: false, jobs: [sendMailJob] })
    try {
      const jobId = await boss.send(sendMailJob.name, { payload: { mail_id: row.id } })
      expect(jobId).not.toBeNull()
      const done = await until("the re-delivered job", async () => {
        const job = await boss.getJobById(sendMailJob.name, jobId!)
        return job?.state === "completed" || job?.state === "failed" ? job.state : undefined
      })
      expect(done).toBe("completed")
    } finally {
      await boss.stop({ graceful: false, close: true })
    }
    expect(env.smtp.mailsTo(email)).toHaveLength(1)
    expect((await outboxRow(email))!.attempts).toBe(row.attempts)
  }, 30_000)

  it("an attempt that finds the mail claimed by another running attempt sends nothing and is retried", async () => {
    const email = `${uniq("claimed")}@example.com`
    await env.smtp.stop()
    let id: string
    try {
      await signup(email)
      id = (await until("a failed attempt", async () => {
        const row = await outboxRow(email)
        return row !== undefined && row.attempts >= 1 ? row : undefined
      })).id
      // Another attempt holds the mail (e.g. an expired attempt whose worker is still sending).
      await env.sql((sql) => sql`UPDATE mail_outbox SET claimed_until = now() + interval '1 hour' WHERE id = ${id}`)
    } finally {
      await env.smtp.start()
    }
    const attempt = deliverQueuedMail({ mail_id: id }, { id: "manual", name: sendMailJob.name, retryCount: 0, signal: new AbortController().signal }).pipe(
      Effect.provideService(AppConfig, env.server.config),
      Effect.flip,
    )
    const error = await withSql(env.server.databaseUrl, attempt)
    expect(error).toBeInstanceOf(MailDeliveryFailed)
    expect(env.smtp.mailsTo(email)).toHaveLength(0)
    // Once the claim has lapsed, the job's own retry sends it.
    await env.sql((sql) => sql`UPDATE mail_outbox SET claimed_until = now() - interval '1 second' WHERE id = ${id}`)
    await env.smtp.waitForMail((m) => m.to.includes(email), 30_000)
    expect(env.smtp.mailsTo(email)).toHaveLength(1)
  }, 60_000)
})

describe("production", () => {
  let env: Env
  beforeAll(async () => {
    // Production needs SMTP_URL (server/config.ts): mail goes to the capture server, never to an outbox.
    env = await startIdentityEnv({ env: { NODE_ENV: "production" } })
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
