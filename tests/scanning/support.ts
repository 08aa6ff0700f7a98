/**
 * Helpers for the scanning integration tests: the whole API in-process (tests/support/server.ts) with the job worker,
 * on a fresh database (PostgreSQL when TEST_DATABASE_URL is set, PGlite otherwise), against a moto_server
 * (tests/support/moto.ts) set as AWS_ENDPOINT_URL; members seeded straight into the identity tables with real sessions
 * and access tokens (server/auth), and a small JSON client that records every response body (for the canary test).
 */
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { BuiltInRoleIds } from "../../src/contracts/permissions.ts"
import { inScope } from "../../server/auth/rls.ts"
import { ensureServiceIds } from "../../server/scanner/service-catalogue.ts"
import { writeFindings } from "../../server/scans/results.ts"
import { AuthConfig, defaultAuthSettings } from "../../server/auth/auth-config.ts"
import { signAccessToken } from "../../server/auth/access-token.ts"
import { createSession } from "../../server/auth/refresh-tokens.ts"
import type { AnyJob } from "../../server/jobs/queue.ts"
import { setLogSink } from "../../server/log.ts"
import { MOTO_KEYS, startMoto, type Moto } from "../support/moto.ts"
import { startTestServer, type TestServer } from "../support/server.ts"
import { type TestDatabase, withSql } from "../support/db.ts"

export interface Answer<T = any> {
  readonly status: number
  readonly body: T
  readonly text: string
  readonly headers: Headers
}

export interface Member {
  readonly userId: number
  readonly email: string
  readonly workspaceId: number
  readonly token: string
}

export interface ScanEnv {
  readonly server: TestServer
  readonly moto: Moto
  /** Every log line written while the env runs. */
  readonly logs: Array<string>
  /** Every response body received through `call`. */
  readonly bodies: Array<string>
  call<T = any>(member: Member | undefined, method: string, path: string, body?: unknown, workspaceId?: number): Promise<Answer<T>>
  /** A new workspace with its owner. */
  workspace(name?: string): Promise<Member>
  /** A member of `owner`'s workspace with a built-in role. */
  member(owner: Member, roleId: number): Promise<Member>
  sql<A>(query: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>): Promise<A>
  /** Polls GET /api/scans/{id} until the scan is completed or failed. */
  waitForScan(member: Member, scanId: number, timeoutMs?: number): Promise<any>
  stop(): Promise<void>
}

let counter = 0
export const uniq = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`

export { MOTO_KEYS }

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export const startScanEnv = async (
  options: {
    readonly env?: Record<string, string>
    readonly regions?: string
    readonly worker?: boolean
    /** The server's database (closed by `stop`); a fresh one of makeTestDatabase by default. */
    readonly database?: TestDatabase
    /** Jobs the worker registers instead of server/jobs/registry.ts (a test holding one back, say). */
    readonly jobs?: ReadonlyArray<AnyJob>
  } = {},
): Promise<ScanEnv> => {
  process.env["SCAN_REGIONS"] = options.regions ?? "us-east-1"
  const logs: Array<string> = []
  const restoreSink = setLogSink((line) => {
    logs.push(line)
  })
  let moto: Moto
  try {
    moto = await startMoto()
  } catch (error) {
    await options.database?.close()
    restoreSink()
    throw error
  }
  let server: TestServer
  try {
    server = await startTestServer({
      worker: options.worker ?? true,
      env: { AWS_ENDPOINT_URL: moto.endpoint, LOG_LEVEL: "info", ...options.env },
      ...(options.database !== undefined ? { database: options.database } : {}),
      ...(options.jobs !== undefined ? { jobs: options.jobs } : {}),
    })
  } catch (error) {
    await options.database?.close()
    await moto.stop()
    restoreSink()
    throw error
  }
  const auth = AuthConfig.layer(defaultAuthSettings({ secretKey: server.config.appSecretKey, appOrigin: server.baseUrl }))
  const bodies: Array<string> = []

  const sql: ScanEnv["sql"] = (query) => withSql(server.databaseUrl, Effect.flatMap(SqlClient.SqlClient, query))

  const tokenFor = (userId: number, workspaceId: number) =>
    withSql(
      server.databaseUrl,
      Effect.gen(function* () {
        const session = yield* createSession(userId, workspaceId)
        return yield* signAccessToken({ userId, workspaceId, sessionId: session.familyId })
      }).pipe(Effect.provide(auth as Layer.Layer<AuthConfig>)),
    )

  const newUser = (email: string) =>
    sql((q) =>
      q<{ id: number }>`INSERT INTO users (email, email_verified, password_hash, first_name, last_name)
        VALUES (${email}, true, 'not-a-real-hash', 'Test', 'User') RETURNING id`.pipe(Effect.map((r) => r[0]!.id)),
    )

  const call: ScanEnv["call"] = async (member, method, path, body, workspaceId) => {
    const headers: Record<string, string> = {}
    if (body !== undefined) headers["content-type"] = "application/json"
    if (member !== undefined) {
      headers["authorization"] = `Bearer ${member.token}`
      headers["x-workspace-id"] = String(workspaceId ?? member.workspaceId)
    }
    const res = await fetch(`${server.baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
    const text = await res.text()
    bodies.push(text)
    let parsed: unknown = text
    try {
      parsed = text === "" ? undefined : JSON.parse(text)
    } catch {
      // not JSON (CSV export)
    }
    return { status: res.status, body: parsed as any, text, headers: res.headers }
  }

  return {
    server,
    moto,
    logs,
    bodies,
    call,
    sql,
    async workspace(name) {
      const email = `${uniq("owner")}@example.com`
      const userId = await newUser(email)
      const workspaceId = await sql((q) =>
        Effect.gen(function* () {
          const rows = yield* q<{ id: number }>`INSERT INTO workspaces (name, owner_id) VALUES (${name ?? uniq("ws")}, ${userId}) RETURNING id`
          yield* q`INSERT INTO memberships (workspace_id, user_id, role_id) VALUES (${rows[0]!.id}, ${userId}, ${BuiltInRoleIds.Admin})`
          return rows[0]!.id
        }),
      )
      return { userId, email, workspaceId, token: await tokenFor(userId, workspaceId) }
    },
    async member(owner, roleId) {
      const email = `${uniq("member")}@example.com`
      const userId = await newUser(email)
      await sql((q) => q`INSERT INTO memberships (workspace_id, user_id, role_id) VALUES (${owner.workspaceId}, ${userId}, ${roleId})`)
      return { userId, email, workspaceId: owner.workspaceId, token: await tokenFor(userId, owner.workspaceId) }
    },
    async waitForScan(member, scanId, timeoutMs = 120_000) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const res = await call(member, "GET", `/api/scans/${scanId}`)
        if (res.status !== 200) throw new Error(`GET /api/scans/${scanId} answered ${res.status}: ${res.text}`)
        if (res.body.data.status === "completed" || res.body.data.status === "failed") return res.body.data
        if (Date.now() > deadline) throw new Error(`scan ${scanId} still ${res.body.data.status} after ${timeoutMs} ms: ${res.text}`)
        await sleep(250)
      }
    },
    async stop() {
      try {
        await server.stop()
      } finally {
        await options.database?.close()
        await moto.stop()
        restoreSink()
      }
    },
  }
}

/** Adds the moto account to the member's workspace and answers the created account. */
export const addMotoAccount = async (env: ScanEnv, member: Member, name = "Moto account", keys: { access_key: string; secret_key: string } = MOTO_KEYS) => {
  const res = await env.call(member, "POST", "/api/accounts", {
    cloud_provider_id: 1,
    account_name: name,
    is_organization: false,
    credentials: keys,
  })
  if (res.status !== 200) throw new Error(`POST /api/accounts answered ${res.status}: ${res.text}`)
  return res.body.data.account as { id: number; account_id: string }
}

export const startScan = async (env: ScanEnv, member: Member, accountId: number) => {
  const res = await env.call(member, "POST", "/api/scans", {
    user_id: member.userId,
    account_id: accountId,
    cloud_provider_id: 1,
    cloud_provider_name: "aws",
  })
  if (res.status !== 200) throw new Error(`POST /api/scans answered ${res.status}: ${res.text}`)
  return res.body.data as { id: number; services: Array<{ id: number; service_id: number; service_name: string; status: string }> }
}

export const Roles = BuiltInRoleIds

/** A finding as GET /api/findings/{id} answers it, with up to 500 of its detail rows (list items carry none). */
export const detailed = async (env: ScanEnv, member: Member, finding: { readonly id: number }): Promise<any> => {
  const res = await env.call(member, "GET", `/api/findings/${finding.id}?details_page_size=500`)
  if (res.status !== 200) throw new Error(`GET /api/findings/${finding.id}: ${res.status} ${res.text}`)
  return res.body.data
}

/**
 * A completed EC2 scan of `accountId`, made its latest, whose finding of `checkId` (high) fails on each of `resources`
 * (us-east-1), written by the product's own writer (server/scans/results.ts `writeFindings`). Answers the scan id.
 */
export const seedFailingScan = (
  env: ScanEnv,
  workspaceId: number,
  account: { readonly id: number; readonly cloudAccountId: string },
  checkId: string,
  resources: ReadonlyArray<string>,
): Promise<number> =>
  env.sql((sql) => Effect.gen(function* () {
    const serviceId = (yield* ensureServiceIds(1, [{ key: "ec2", name: "EC2" }]))[0]!.id
    const scanId = (yield* sql<{ id: number }>`
      INSERT INTO scans (workspace_id, account_id, cloud_provider_id, status, total_services, completed_services)
      VALUES (${workspaceId}, ${account.id}, 1, 'completed', 1, 1) RETURNING id`)[0]!.id
    const scanServiceId = (yield* sql<{ id: number }>`
      INSERT INTO scan_services (workspace_id, scan_id, service_id, status) VALUES (${workspaceId}, ${scanId}, ${serviceId}, 'completed') RETURNING id`)[0]!.id
    yield* inScope({ workspaceId })(writeFindings({
      workspaceId, scanId, scanServiceId, serviceId, serviceKey: "ec2", accountId: account.id, cloudAccountId: account.cloudAccountId, cloudProviderId: 1,
    }, [{
      check_id: checkId, severity: "high", status: "fail", not_evaluated_reason: null, title: "t", description: "d",
      policy_check: "p", remediation: "r", field_labels: {}, compliance: [],
      details: resources.map((resource_id) => ({ resource_id, region: "us-east-1", compliance: false, reason: "open" })),
    }]))
    yield* sql`UPDATE accounts SET latest_scan_id = ${scanId} WHERE id = ${account.id}`
    return scanId
  }).pipe(Effect.provideService(SqlClient.SqlClient, sql)))
