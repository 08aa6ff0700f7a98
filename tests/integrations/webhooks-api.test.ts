/**
 * The webhooks API (server/api/webhooks.ts) over real HTTP with the job worker running: workspace admins only (an
 * Auditor gets 403 with the contract's text), a private target refused in words unless the operator allows them, the
 * signing secret answered once and never listed, a test event delivered by the worker and signed with that secret,
 * the delivery log, replay, disabling (test and replay then 409), deletion, another workspace's webhook a 404, and
 * every change audited.
 */
// @vitest-environment node
import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AuthConfig, defaultAuthSettings } from "../../server/auth/auth-config.ts"
import { signAccessToken } from "../../server/auth/access-token.ts"
import { createSession } from "../../server/auth/refresh-tokens.ts"
import { verifySignature } from "../../server/integrations/webhook-signature.ts"
import { BuiltInRoleIds } from "../../src/contracts/permissions.ts"
import { WebhookMessages } from "../../src/contracts/webhooks.ts"
import { makeTestDatabase, withSql } from "../support/db.ts"
import { startTestServer, type TestServer } from "../support/server.ts"

interface Who {
  readonly userId: number
  readonly workspaceId: number
  readonly token: string
}

const waitFor = async <A>(probe: () => Promise<A | undefined>, what: string, ms = 20_000): Promise<A> => {
  const until = Date.now() + ms
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe("webhooks API", () => {
  let server: TestServer
  let sql: <A>(effect: Effect.Effect<A, unknown, SqlClient.SqlClient>) => Promise<A>
  let admin: Who
  let auditor: Who
  let stranger: Who
  const received: Array<{ headers: IncomingMessage["headers"]; body: string }> = []
  const rx = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") })
      res.end("ok")
    })
  })
  let rxUrl = ""
  const allowed = process.env.INTEGRATIONS_ALLOW_PRIVATE_TARGETS
  let n = 0

  const tokenFor = (userId: number, workspaceId: number) =>
    sql(Effect.gen(function* () {
      const session = yield* createSession(userId, workspaceId)
      return yield* signAccessToken({ userId, workspaceId, sessionId: session.familyId })
    }).pipe(Effect.provide(AuthConfig.layer(defaultAuthSettings({ secretKey: server.config.appSecretKey, appOrigin: server.baseUrl })) as Layer.Layer<AuthConfig>)))

  const member = async (workspaceId: number | undefined, roleId: number): Promise<Who> => {
    const { userId, ws } = await sql(Effect.gen(function* () {
      const q = yield* SqlClient.SqlClient
      const u = (yield* q<{ id: number }>`INSERT INTO users (email, email_verified, password_hash) VALUES (${`hooks-${n++}@example.com`}, true, 'x') RETURNING id`)[0]!.id
      const w = workspaceId ?? (yield* q<{ id: number }>`INSERT INTO workspaces (name, owner_id) VALUES (${`Hooks ${n}`}, ${u}) RETURNING id`)[0]!.id
      yield* q`INSERT INTO memberships (workspace_id, user_id, role_id) VALUES (${w}, ${u}, ${roleId})`
      return { userId: u, ws: w }
    }))
    return { userId, workspaceId: ws, token: await tokenFor(userId, ws) }
  }

  const call = async (who: Who, method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = { authorization: `Bearer ${who.token}`, "x-workspace-id": String(who.workspaceId) }
    if (body !== undefined) headers["content-type"] = "application/json"
    const res = await fetch(`${server.baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
    const text = await res.text()
    return { status: res.status, body: text === "" ? undefined : JSON.parse(text) }
  }

  beforeAll(async () => {
    delete process.env.INTEGRATIONS_ALLOW_PRIVATE_TARGETS
    await new Promise<void>((resolve) => rx.listen(0, "127.0.0.1", resolve))
    rxUrl = `http://127.0.0.1:${(rx.address() as AddressInfo).port}/in`
    server = await startTestServer({ worker: true, database: await makeTestDatabase({ kind: "pglite" }) })
    sql = (effect) => withSql(server.databaseUrl, effect)
    admin = await member(undefined, BuiltInRoleIds.Admin)
    auditor = await member(admin.workspaceId, BuiltInRoleIds.Auditor)
    stranger = await member(undefined, BuiltInRoleIds.Admin)
  }, 240_000)
  afterAll(async () => {
    if (allowed === undefined) delete process.env.INTEGRATIONS_ALLOW_PRIVATE_TARGETS
    else process.env.INTEGRATIONS_ALLOW_PRIVATE_TARGETS = allowed
    await server?.stop()
    await server?.database.close()
    rx.closeAllConnections()
    await new Promise((r) => rx.close(r))
  })

  it("admins only", async () => {
    const denied = await call(auditor, "GET", "/api/integrations/webhooks")
    expect(denied.status).toBe(403)
    expect(denied.body.message).toBe(WebhookMessages.permissionDenied)
    expect((await call(auditor, "POST", "/api/integrations/webhooks", { kind: "webhook", name: "x", url: "https://example.com/", events: ["scan.completed"] })).status).toBe(403)
  })

  it("refuses a private target unless the operator allows them, and bad fields with the contract's words", async () => {
    const refused = await call(admin, "POST", "/api/integrations/webhooks", { kind: "webhook", name: "Local", url: rxUrl, events: ["scan.completed"] })
    expect(refused.status).toBe(400)
    expect(refused.body.message).toBe(`${rxUrl} is a loopback address (127.0.0.0/8): requests to loopback, private, link-local and other non-public addresses are refused (an operator can allow them with INTEGRATIONS_ALLOW_PRIVATE_TARGETS=1)`)
    const noEvents = await call(admin, "POST", "/api/integrations/webhooks", { kind: "webhook", name: "None", url: "https://example.com/", events: [] })
    expect(noEvents.status).toBe(400)
    expect(JSON.stringify(noEvents.body)).toContain(WebhookMessages.eventsRequired)
    const ftp = await call(admin, "POST", "/api/integrations/webhooks", { kind: "webhook", name: "Ftp", url: "ftp://example.com/", events: ["scan.completed"] })
    expect(ftp.status).toBe(400)
    expect(JSON.stringify(ftp.body)).toContain(WebhookMessages.urlInvalid)
  })

  it("creates, tests through the worker, logs, replays, disables, deletes — audited", async () => {
    process.env.INTEGRATIONS_ALLOW_PRIVATE_TARGETS = "1"
    const created = await call(admin, "POST", "/api/integrations/webhooks", {
      kind: "webhook", name: "SIEM", url: rxUrl, events: ["scan.completed", "findings.new_failing"], min_severity: "high",
    })
    expect(created.status).toBe(200)
    const secret: string = created.body.data.secret
    expect(secret).toMatch(/^whsec_/)
    const id: number = created.body.data.webhook.id
    expect(created.body.data.webhook).toMatchObject({ kind: "webhook", name: "SIEM", url_hint: rxUrl.replace(/\/in$/, "/…/in"), min_severity: "high", enabled: true, disable_after: 15 })

    const listed = await call(admin, "GET", "/api/integrations/webhooks")
    expect(listed.body.data.webhooks).toHaveLength(1)
    expect(JSON.stringify(listed.body)).not.toContain(secret)
    expect(JSON.stringify(listed.body)).not.toContain(rxUrl)

    const test = await call(admin, "POST", `/api/integrations/webhooks/${id}/test`)
    expect(test.status).toBe(200)
    expect(test.body.data.delivery).toMatchObject({ event_type: "webhook.test", status: "pending", attempts: 0 })
    const got = await waitFor(async () => received[0], "the test delivery")
    const event = JSON.parse(got.body)
    expect(event).toMatchObject({ type: "webhook.test", workspace: { id: admin.workspaceId }, data: { webhook: { id, name: "SIEM" } } })
    expect(verifySignature(secret, String(got.headers["x-cloud-audit-signature"]), got.body)).toBe(true)

    const log = await waitFor(async () => {
      const r = await call(admin, "GET", `/api/integrations/webhooks/${id}/deliveries`)
      return r.body.data.deliveries[0]?.status === "delivered" ? r.body.data : undefined
    }, "the delivery to be recorded")
    expect(log.deliveries[0]).toMatchObject({ status: "delivered", attempts: 1, last_status_code: 200, last_error: null, body: got.body })
    expect(log.next_before).toBeNull()

    const replay = await call(admin, "POST", `/api/integrations/webhooks/${id}/deliveries/${log.deliveries[0].id}/replay`)
    expect(replay.status).toBe(200)
    expect(replay.body.data.delivery.replay_of).toBe(log.deliveries[0].id)
    await waitFor(async () => (received.length >= 2 ? true : undefined), "the replay")
    expect(received[1]!.body).toBe(got.body)

    const off = await call(admin, "PATCH", `/api/integrations/webhooks/${id}`, { enabled: false, events: ["report.ready"] })
    expect(off.body.data.webhook).toMatchObject({ enabled: false, events: ["report.ready"] })
    expect((await call(admin, "POST", `/api/integrations/webhooks/${id}/test`)).body.message).toBe(WebhookMessages.testDisabled)
    expect((await call(admin, "POST", `/api/integrations/webhooks/${id}/deliveries/${log.deliveries[0].id}/replay`)).status).toBe(409)

    // Another workspace's admin cannot see or change it.
    expect((await call(stranger, "PATCH", `/api/integrations/webhooks/${id}`, { enabled: true })).status).toBe(404)
    expect((await call(stranger, "GET", `/api/integrations/webhooks/${id}/deliveries`)).status).toBe(404)
    expect((await call(stranger, "GET", "/api/integrations/webhooks")).body.data.webhooks).toEqual([])

    expect((await call(admin, "DELETE", `/api/integrations/webhooks/${id}`)).body.message).toBe(WebhookMessages.deleted)
    expect((await call(admin, "DELETE", `/api/integrations/webhooks/${id}`)).status).toBe(404)

    const audit = await sql(Effect.flatMap(SqlClient.SqlClient, (q) => q<{ action: string; details: any }>`
      SELECT action, details FROM audit_log WHERE workspace_id = ${admin.workspaceId} AND target_type = 'webhook' ORDER BY id`))
    expect(audit.map((a) => a.action)).toEqual(["webhook.created", "webhook.tested", "webhook.delivery_replayed", "webhook.updated", "webhook.deleted"])
    expect(audit[3]!.details.changed).toEqual(["events", "enabled"])
    expect(JSON.stringify(audit)).not.toContain(secret)
  }, 60_000)
})
