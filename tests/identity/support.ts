/**
 * Helpers for the identity integration tests: an in-process API (tests/support/server.ts) on a fresh database
 * (PostgreSQL when TEST_DATABASE_URL is set, PGlite otherwise) with a real SMTP receiver, a tiny JSON client, and
 * journeys that tests reuse (sign up + verify by following the mailed link, sign in, invite, ...).
 */
import { startSmtpCapture, type CapturedMail, type SmtpCapture } from "../support/smtp.ts"
import { startTestServer, type TestServer } from "../support/server.ts"
import { withSql } from "../support/db.ts"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export interface Answer<T = any> {
  readonly status: number
  readonly body: T
  readonly headers: Headers
}

export interface Session {
  readonly email: string
  readonly password: string
  access: string
  refresh: string
  workspaceId: number
  readonly userId: number
}

export interface Env {
  readonly server: TestServer
  readonly smtp: SmtpCapture
  readonly base: string
  call<T = any>(method: string, path: string, options?: {
    readonly body?: unknown
    readonly token?: string | undefined
    readonly workspaceId?: number | string | undefined
    readonly headers?: Record<string, string>
    readonly raw?: string
  }): Promise<Answer<T>>
  /** As `s`, in s's selected workspace. */
  as<T = any>(s: Session, method: string, path: string, body?: unknown, workspaceId?: number): Promise<Answer<T>>
  signupVerified(p?: { email?: string; workspace?: string; password?: string; first?: string; last?: string }): Promise<Session>
  login(email: string, password: string): Promise<Answer>
  /** Runs SQL against the test database as the owner (bypasses nothing on PostgreSQL superuser; inspection only). */
  sql(query: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>): Promise<any>
  mailTo(address: string, predicate?: (m: CapturedMail) => boolean): Promise<CapturedMail>
  /** Waits until at least `count` mails to `address` match, and answers them in arrival order. */
  mailsTo(address: string, count: number, predicate?: (m: CapturedMail) => boolean): Promise<ReadonlyArray<CapturedMail>>
  stop(): Promise<void>
}

let counter = 0
export const uniq = (prefix = "user"): string => `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`

export const STRONG_PASSWORD = "Sup3rSecret!"

export const startIdentityEnv = async (options: { readonly smtp?: boolean; readonly env?: Record<string, string> } = {}): Promise<Env> => {
  const smtp = await startSmtpCapture()
  const server = await startTestServer({ env: { ...(options.smtp === false ? {} : { SMTP_URL: smtp.url }), ...options.env } })
  const base = server.baseUrl

  const call: Env["call"] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) }
    if (o.body !== undefined || o.raw !== undefined) headers["content-type"] ??= "application/json"
    if (o.token !== undefined) headers["authorization"] = `Bearer ${o.token}`
    if (o.workspaceId !== undefined) headers["x-workspace-id"] = String(o.workspaceId)
    const res = await fetch(`${base}${path}`, {
      method,
      headers,
      ...(o.raw !== undefined ? { body: o.raw } : o.body !== undefined ? { body: JSON.stringify(o.body) } : {}),
    })
    const text = await res.text()
    let body: unknown = text
    try {
      body = text === "" ? undefined : JSON.parse(text)
    } catch { /* not JSON */ }
    return { status: res.status, body: body as any, headers: res.headers }
  }

  const mailTo: Env["mailTo"] = (address, predicate = () => true) =>
    smtp.waitForMail((m) => m.to.includes(address.toLowerCase()) && predicate(m))

  const login = (email: string, password: string) => call("POST", "/api/login", { body: { email, password } })

  const signupVerified: Env["signupVerified"] = async (p = {}) => {
    const email = p.email ?? `${uniq()}@example.com`
    const password = p.password ?? STRONG_PASSWORD
    const signup = await call("POST", "/api/signup", {
      body: {
        first_name: p.first ?? "Ada", last_name: p.last ?? "Lovelace", email, password,
        workspace_name: p.workspace ?? `ws-${uniq()}`, timezone: "Europe/Paris",
      },
    })
    if (signup.status !== 200) throw new Error(`signup failed: ${signup.status} ${JSON.stringify(signup.body)}`)
    const mail = await mailTo(email, (m) => m.subject.includes("Verify"))
    const link = new URL(mail.links[0]!)
    const verified = await call("GET", `/api/verify-email${link.search}`)
    if (verified.status !== 200) throw new Error(`verify failed: ${verified.status} ${JSON.stringify(verified.body)}`)
    const res = await login(email, password)
    if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`)
    const list = await call("GET", "/api/workspaces", { token: res.body.access_token })
    return {
      email, password, access: res.body.access_token, refresh: res.body.refresh_token,
      workspaceId: list.body.data[0].workspace_id, userId: res.body.data.id,
    }
  }

  return {
    server,
    smtp,
    base,
    call,
    as: (s, method, path, body, workspaceId) =>
      call(method, path, { token: s.access, workspaceId: workspaceId ?? s.workspaceId, ...(body !== undefined ? { body } : {}) }),
    signupVerified,
    login,
    sql: (query) => withSql(server.databaseUrl, Effect.flatMap(SqlClient.SqlClient, (sql) => sql.withTransaction(query(sql)))),
    mailTo,
    mailsTo: async (address, count, predicate = () => true) => {
      const deadline = Date.now() + 10_000
      for (;;) {
        const found = smtp.mailsTo(address).filter(predicate)
        if (found.length >= count) return found
        if (Date.now() > deadline) throw new Error(`expected ${count} mails to ${address}, got ${found.length}`)
        await new Promise((r) => setTimeout(r, 25))
      }
    },
    stop: async () => {
      await server.stop()
      await smtp.close()
    },
  }
}

/** Adds a member to `owner`'s workspace directly and signs them in. */
export const addMember = async (env: Env, owner: Session, roleId: number, isCustom = false): Promise<Session> => {
  const email = `${uniq("member")}@example.com`
  const password = STRONG_PASSWORD
  const created = await env.as(owner, "POST", "/api/admin/users", {
    first_name: "Mem", last_name: "Ber", email, password, role_id: roleId, is_custom_role: isCustom,
  })
  if (created.status !== 200) throw new Error(`add member failed: ${created.status} ${JSON.stringify(created.body)}`)
  const res = await env.login(email, password)
  if (res.status !== 200) throw new Error(`member login failed: ${res.status} ${JSON.stringify(res.body)}`)
  return {
    email, password, access: res.body.access_token, refresh: res.body.refresh_token,
    workspaceId: owner.workspaceId, userId: created.body.data.id,
  }
}
