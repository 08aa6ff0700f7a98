/**
 * Webhook events and deliveries against the real database (PGlite, and PostgreSQL when TEST_DATABASE_URL is set):
 * scans written through the real writer (`completeService`) publish `scan.completed` and `findings.new_failing` in the
 * transaction that completes them; every delivery is signed as documented; a receiver that is down for a while
 * (503s, then connections dropped) and then up receives every event — none lost — after retries scheduled with
 * growing delays; a Slack destination gets Block Kit messages filtered by its minimum severity; a webhook is disabled
 * after repeated failed deliveries, with a reason; replay sends the same body again.
 */
// @vitest-environment node
import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { inScope } from "../../server/auth/rls.ts"
import type { WorkspaceContext } from "../../server/auth/workspace-context.ts"
import { AppConfig, type AppConfigShape } from "../../server/config.ts"
import { deliverWebhook, DISABLE_AFTER_FAILED_DELIVERIES, MAX_ATTEMPTS, retryDelaySeconds } from "../../server/integrations/webhook-delivery.ts"
import { verifySignature } from "../../server/integrations/webhook-signature.ts"
import { createWebhook, listDeliveries, replayDelivery, updateWebhook } from "../../server/integrations/webhooks-store.ts"
import type { CheckResult } from "../../server/scanner/check.ts"
import { completeService } from "../../server/scans/run-service.ts"
import { INTEGRATION_EVENT_TYPES } from "../../src/contracts/integrations-events.ts"
import { makeTestDatabase, migrateTestDatabase, type TestDatabase, withSql } from "../support/db.ts"

const kinds: ReadonlyArray<"pglite" | "postgres"> = process.env["TEST_DATABASE_URL"] ? ["pglite", "postgres"] : ["pglite"]

interface Received {
  readonly path: string
  readonly headers: IncomingMessage["headers"]
  readonly body: string
}

/** A receiver whose behaviour the test switches: "up" (200), "error" (503), "drop" (connection closed unanswered). */
const receiver = async () => {
  const state = { mode: "up" as "up" | "error" | "drop", received: [] as Array<Received>, refused: 0 }
  const server: Server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      if (state.mode === "drop") {
        state.refused++
        req.socket.destroy()
        return
      }
      if (state.mode === "error") {
        state.refused++
        res.writeHead(503).end("down for maintenance")
        return
      }
      state.received.push({ path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") })
      res.writeHead(200).end("ok")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    state,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}

const result = (checkId: string, severity: CheckResult["severity"], failing: ReadonlyArray<string>, passing: ReadonlyArray<string>): CheckResult => {
  const details = [
    ...failing.map((id) => ({ resource_id: id, region: "us-east-1", compliant: false, reason: "fails" })),
    ...passing.map((id) => ({ resource_id: id, region: "us-east-1", compliant: true, reason: "ok" })),
  ]
  return {
    check_id: checkId, service: "whsvc", title: `Check ${checkId}`, policy_check: "p", description: "d", severity,
    cis: {}, remediation: "r", status: failing.length > 0 ? "fail" : "pass", field_labels: {}, details, errors: [],
  }
}

describe.each(kinds)("webhook deliveries on %s", (kind) => {
  let db: TestDatabase
  let run: <A>(effect: Effect.Effect<A, unknown, SqlClient.SqlClient | AppConfig>) => Promise<A>
  let workspaceId = 0
  let accountId = 0
  let serviceId = 0
  let ctx: WorkspaceContext
  const allowed = process.env.INTEGRATIONS_ALLOW_PRIVATE_TARGETS

  beforeAll(async () => {
    process.env.INTEGRATIONS_ALLOW_PRIVATE_TARGETS = "1"
    db = await makeTestDatabase({ kind })
    await migrateTestDatabase(db.url)
    const config = { appSecretKey: Redacted.make("webhook-test-secret-key-0123456789abcdef"), appOrigin: "https://audit.example.test" } as AppConfigShape
    run = (effect) => withSql(db.url, effect.pipe(Effect.provide(Layer.succeed(AppConfig, config))))
    const seeded = await run(Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const user = (yield* sql<{ id: number }>`INSERT INTO users (email, email_verified, password_hash) VALUES (${`wh-${kind}@example.com`}, true, 'x') RETURNING id`)[0]!.id
      const ws = (yield* sql<{ id: number }>`INSERT INTO workspaces (name, owner_id) VALUES ('Hooks Co', ${user}) RETURNING id`)[0]!.id
      const svc = (yield* sql<{ id: number }>`INSERT INTO cloud_services (cloud_provider_id, key, name) VALUES (1, 'whsvc', 'WHSVC') RETURNING id`)[0]!.id
      const account = yield* inScope({ workspaceId: ws })(sql<{ id: number }>`
        INSERT INTO accounts (workspace_id, cloud_provider_id, account_name, cloud_account_id, auth_method, credentials_sealed)
        VALUES (${ws}, 1, 'Production', '123456789012', 'access_key', 'v1.x') RETURNING id`)
      return { user, ws, svc, account: account[0]!.id }
    }))
    workspaceId = seeded.ws
    accountId = seeded.account
    serviceId = seeded.svc
    ctx = {
      userId: seeded.user, sessionId: "", tokenWorkspaceId: workspaceId, workspaceId, workspaceName: "Hooks Co", isOwner: true,
      roleId: null, customRoleId: null, roleName: null, permissions: [], accountGroupIds: null, accountIds: null, ip: "127.0.0.1",
    } as unknown as WorkspaceContext
  })
  afterAll(async () => {
    if (allowed === undefined) delete process.env.INTEGRATIONS_ALLOW_PRIVATE_TARGETS
    else process.env.INTEGRATIONS_ALLOW_PRIVATE_TARGETS = allowed
    await db?.close()
  })

  const scope = <A>(effect: Effect.Effect<A, unknown, SqlClient.SqlClient | AppConfig>) => run(inScope({ workspaceId })(effect))

  /** One completed scan of the account with these check results (through the product's writer and roll-up). */
  const scan = async (results: ReadonlyArray<CheckResult>) => {
    const { scanId, scanServiceId } = await scope(Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const s = (yield* sql<{ id: number }>`INSERT INTO scans (workspace_id, account_id, cloud_provider_id, status, total_services)
        VALUES (${workspaceId}, ${accountId}, 1, 'running', 1) RETURNING id`)[0]!.id
      const ss = (yield* sql<{ id: number }>`INSERT INTO scan_services (workspace_id, scan_id, service_id, status)
        VALUES (${workspaceId}, ${s}, ${serviceId}, 'running') RETURNING id`)[0]!.id
      return { scanId: s, scanServiceId: ss }
    }))
    const done = await run(completeService({ workspace_id: workspaceId, scan_id: scanId, scan_service_id: scanServiceId }, { findings: [...results], resourcesScanned: 1, apiCalls: 1 }))
    expect(done).toBe(true)
    return scanId
  }

  /** Runs every pending delivery's attempt once, as if each one's retry time had come; answers how many were tried. */
  const attemptAllPending = async (webhookId: number) => {
    const pending = await scope(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ id: number }>`
      SELECT id FROM webhook_deliveries WHERE workspace_id = ${workspaceId} AND webhook_id = ${webhookId} AND status = 'pending' ORDER BY id`))
    for (const p of pending) await run(deliverWebhook({ workspace_id: workspaceId, delivery_id: p.id }, { signal: new AbortController().signal }))
    return pending.length
  }

  it("delivers every event, signed, to a receiver that was down for a while, and none is lost", async () => {
    const rx = await receiver()
    try {
      const created = await run(inScope({ workspaceId })(createWebhook(ctx, {
        kind: "webhook", name: "SIEM", url: `${rx.url}/hook?token=abcd`, events: [...INTEGRATION_EVENT_TYPES],
      })))
      expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/)
      expect(created.webhook.url_hint).toBe(`${rx.url}/…abcd`)
      const slack = await run(inScope({ workspaceId })(createWebhook(ctx, {
        kind: "slack", name: "Alerts channel", url: `${rx.url}/slack`, events: ["findings.new_failing"], min_severity: "high",
      }).pipe(Effect.flip)))
      // A Slack incoming webhook URL is https.
      expect(slack.message).toBe("A Slack incoming webhook URL starts with https://")

      rx.state.mode = "error"
      const first = await scan([result("wh_crit", "critical", [], ["bucket-a", "bucket-b"]), result("wh_low", "low", [], ["key-1"])])
      const second = await scan([result("wh_crit", "critical", ["bucket-a"], ["bucket-b"]), result("wh_low", "low", ["key-1"], [])])

      // Both scans' events were published with their scans: two scan.completed, one findings.new_failing (the second).
      const events = await scope(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ id: string; type: string; data: any }>`
        SELECT id::text AS id, type, data FROM integration_events WHERE workspace_id = ${workspaceId} ORDER BY created_at, type`))
      expect(events.map((e) => e.type).sort()).toEqual(["findings.new_failing", "scan.completed", "scan.completed"])
      const completedSecond = events.find((e) => e.type === "scan.completed" && e.data.scan.id === second)!
      expect(completedSecond.data.failing_resources).toEqual({ critical: 1, high: 0, medium: 0, low: 1 })
      expect(completedSecond.data.new_failing_resources).toEqual({ critical: 1, high: 0, medium: 0, low: 1 })
      expect(completedSecond.data.findings).toEqual({ total: 2, passed: 0, failed: 2, muted: 0, not_evaluated: 0 })
      expect(completedSecond.data.scan.url).toBe(`https://audit.example.test/dashboard/scans/${second}`)
      expect(events.find((e) => e.type === "scan.completed" && e.data.scan.id === first)!.data.failing_resources).toEqual({ critical: 0, high: 0, medium: 0, low: 0 })

      // Down: 503 twice, then connections dropped twice; each failed attempt schedules the next one later.
      const delays: Array<number> = []
      for (const mode of ["error", "error", "drop", "drop"] as const) {
        rx.state.mode = mode
        expect(await attemptAllPending(created.webhook.id)).toBe(3)
        const rows = await scope(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ attempts: number; last_error: string; last_status_code: number | null; wait: number }>`
          SELECT attempts, last_error, last_status_code, extract(epoch FROM next_attempt_at - now())::float AS wait
          FROM webhook_deliveries WHERE workspace_id = ${workspaceId} AND webhook_id = ${created.webhook.id} AND status = 'pending'`))
        expect(rows).toHaveLength(3)
        for (const r of rows) {
          if (mode === "error") {
            expect(r.last_status_code).toBe(503)
            expect(r.last_error).toBe(`${rx.url}/hook?token=abcd answered 503: down for maintenance`)
          } else {
            expect(r.last_status_code).toBeNull()
            expect(r.last_error).toBe(`${rx.url}/hook?token=abcd closed the connection before answering`)
          }
        }
        delays.push(Math.min(...rows.map((r) => r.wait)))
      }
      // Exponential backoff: each wait longer than the one before (10 s, 20 s, 40 s, 80 s, +0–10 %).
      for (let i = 1; i < delays.length; i++) expect(delays[i]!).toBeGreaterThan(delays[i - 1]!)
      expect(delays[0]!).toBeGreaterThan(8)
      expect(rx.state.received).toHaveLength(0)
      expect(rx.state.refused).toBe(12)

      // Up again: every event arrives, signed with the secret shown at creation.
      rx.state.mode = "up"
      expect(await attemptAllPending(created.webhook.id)).toBe(3)
      expect(await attemptAllPending(created.webhook.id)).toBe(0)
      const got = rx.state.received.filter((r) => r.path === "/hook?token=abcd")
      expect(got.map((r) => JSON.parse(r.body).id).sort()).toEqual(events.map((e) => e.id).sort())
      for (const r of got) {
        const body = JSON.parse(r.body)
        expect(verifySignature(created.secret!, String(r.headers["x-cloud-audit-signature"]), r.body)).toBe(true)
        expect(verifySignature("whsec_wrong", String(r.headers["x-cloud-audit-signature"]), r.body)).toBe(false)
        expect(String(r.headers["x-cloud-audit-signature"])).toMatch(/^t=\d{10},v1=[0-9a-f]{64}$/)
        expect(r.headers["x-cloud-audit-event"]).toBe(body.type)
        expect(r.headers["x-cloud-audit-event-id"]).toBe(body.id)
        expect(body.workspace).toEqual({ id: workspaceId, name: "Hooks Co" })
      }
      const newFailing = JSON.parse(got.find((r) => JSON.parse(r.body).type === "findings.new_failing")!.body)
      expect(newFailing.data.total).toBe(2)
      expect(newFailing.data.resources.map((r: { severity: string; resource_id: string }) => [r.severity, r.resource_id])).toEqual([["critical", "bucket-a"], ["low", "key-1"]])
      const log = await scope(listDeliveries(workspaceId, created.webhook.id, undefined))
      expect(log.deliveries.map((d) => [d.status, d.attempts])).toEqual([["delivered", 5], ["delivered", 5], ["delivered", 5]])
      expect(log.deliveries.every((d) => d.last_status_code === 200 && d.last_error === null && d.next_attempt_at === null)).toBe(true)

      // Replay: the same body again as a new delivery naming the original.
      const replay = await run(inScope({ workspaceId })(replayDelivery(ctx, created.webhook.id, log.deliveries[0]!.id)))
      expect(replay.replay_of).toBe(log.deliveries[0]!.id)
      expect(replay.body).toBe(log.deliveries[0]!.body)
      await attemptAllPending(created.webhook.id)
      expect(rx.state.received.at(-1)!.body).toBe(log.deliveries[0]!.body)
    } finally {
      await rx.close()
    }
  })

  it("sends Slack Block Kit messages with only the resources at or above the destination's minimum severity", async () => {
    const rx = await receiver()
    try {
      // Slack URLs are https; this one leads nowhere: what is sent is read from the delivery rows (the exact bodies).
      const slack = await run(inScope({ workspaceId })(createWebhook(ctx, {
        kind: "slack", name: "Alerts", url: "https://127.0.0.1:9/services/T000/B000/XXXX", events: ["findings.new_failing", "scan.completed"], min_severity: "high",
      })))
      expect(slack.secret).toBeNull()
      const scanId = await scan([result("wh_crit", "critical", ["bucket-a", "bucket-c"], []), result("wh_low", "low", [], [])])
      const rows = await scope(listDeliveries(workspaceId, slack.webhook.id, undefined))
      const bodies = rows.deliveries.map((d) => ({ type: d.event_type, body: JSON.parse(d.body) }))
      const failing = bodies.find((b) => b.type === "findings.new_failing")!.body
      expect(failing.text).toBe("1 new failing resources (high or above) in Production")
      expect(failing.blocks[0]).toEqual({ type: "header", text: { type: "plain_text", text: "1 new failing resource in Production", emoji: true } })
      expect(JSON.stringify(failing.blocks)).toContain("bucket-c")
      expect(JSON.stringify(failing.blocks)).not.toContain("key-1")
      expect(JSON.stringify(failing.blocks)).toContain(`https://audit.example.test/dashboard/scans/${scanId}/findings/`)
      const summary = bodies.find((b) => b.type === "scan.completed")!.body
      expect(summary.blocks[0].text.text).toBe("Scan completed: Production")
      expect(summary.blocks.at(-1)).toEqual({ type: "actions", elements: [{ type: "button", text: { type: "plain_text", text: "Open the scan" }, url: `https://audit.example.test/dashboard/scans/${scanId}` }] })
      // Nothing of a new failing list below the minimum: a scan whose only new failure is low sends no findings.new_failing.
      await scan([result("wh_crit", "critical", ["bucket-a", "bucket-c"], []), result("wh_low", "low", ["key-9"], [])])
      const after = await scope(listDeliveries(workspaceId, slack.webhook.id, undefined))
      expect(after.deliveries.filter((d) => d.event_type === "findings.new_failing")).toHaveLength(1)
      expect(after.deliveries.filter((d) => d.event_type === "scan.completed")).toHaveLength(2)
    } finally {
      await rx.close()
      await scope(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DELETE FROM webhooks WHERE workspace_id = ${workspaceId} AND kind = 'slack'`))
    }
  })

  it(`disables a webhook after ${DISABLE_AFTER_FAILED_DELIVERIES} deliveries in a row failed for good, with the reason`, async () => {
    const rx = await receiver()
    rx.state.mode = "error"
    try {
      const hook = await run(inScope({ workspaceId })(createWebhook(ctx, { kind: "webhook", name: "Flaky", url: `${rx.url}/flaky`, events: ["scan.completed"] })))
      // Fourteen deliveries already given up in a row.
      await scope(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE webhooks SET consecutive_failures = ${DISABLE_AFTER_FAILED_DELIVERIES - 1} WHERE id = ${hook.webhook.id}`))
      await scan([result("wh_crit", "critical", [], ["bucket-a"])])
      for (let i = 0; i < MAX_ATTEMPTS; i++) expect(await attemptAllPending(hook.webhook.id)).toBe(1)
      expect(await attemptAllPending(hook.webhook.id)).toBe(0)
      const [row] = await scope(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ enabled: boolean; disabled_reason: string; consecutive_failures: number }>`
        SELECT enabled, disabled_reason, consecutive_failures FROM webhooks WHERE id = ${hook.webhook.id}`))
      expect(row!.enabled).toBe(false)
      expect(row!.disabled_reason).toBe(
        `Disabled automatically after ${DISABLE_AFTER_FAILED_DELIVERIES} deliveries in a row failed (each after ${MAX_ATTEMPTS} attempts); last error: ${rx.url}/flaky answered 503: down for maintenance`)
      const log = await scope(listDeliveries(workspaceId, hook.webhook.id, undefined))
      expect(log.deliveries[0]!.status).toBe("failed")
      expect(log.deliveries[0]!.attempts).toBe(MAX_ATTEMPTS)
      // A disabled webhook gets no new deliveries; replay is refused until it is enabled again.
      await scan([result("wh_crit", "critical", [], ["bucket-a"])])
      expect((await scope(listDeliveries(workspaceId, hook.webhook.id, undefined))).deliveries).toHaveLength(1)
      const refused = await run(inScope({ workspaceId })(replayDelivery(ctx, hook.webhook.id, log.deliveries[0]!.id).pipe(Effect.flip)))
      expect(refused.message).toBe("Enable the webhook before replaying a delivery")
      const enabled = await run(inScope({ workspaceId })(updateWebhook(ctx, hook.webhook.id, { enabled: true })))
      expect([enabled.enabled, enabled.disabled_reason, enabled.consecutive_failures]).toEqual([true, null, 0])
    } finally {
      await rx.close()
    }
  })

  it("refuses a private target when the operator has not allowed them, in words", async () => {
    delete process.env.INTEGRATIONS_ALLOW_PRIVATE_TARGETS
    try {
      const error = await run(inScope({ workspaceId })(createWebhook(ctx, { kind: "webhook", name: "Internal", url: "http://169.254.169.254/latest", events: ["scan.completed"] }).pipe(Effect.flip)))
      expect(error.message).toBe("http://169.254.169.254/latest is a link-local address (169.254.0.0/16): requests to loopback, private, link-local and other non-public addresses are refused (an operator can allow them with INTEGRATIONS_ALLOW_PRIVATE_TARGETS=1)")
    } finally {
      process.env.INTEGRATIONS_ALLOW_PRIVATE_TARGETS = "1"
    }
  })

  it("backs off exponentially up to an hour", () => {
    expect([1, 2, 3, 4, 9, 12].map((n) => retryDelaySeconds(n, () => 0))).toEqual([10, 20, 40, 80, 2560, 3600])
    expect(retryDelaySeconds(1, () => 1)).toBe(11)
  })
})
