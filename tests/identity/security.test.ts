/**
 * Security properties that must hold (issue 3): argon2id parameters (production asserted separately from the test
 * minimum, upgrade on next login), row-level security failing closed on every workspace-owned table (also for the
 * table owner), the API role being a non-owner without BYPASSRLS, the append-only audit log and what it records,
 * and the database's roles matching the contract.
 */
import { hash, parseOptions } from "@node-rs/argon2"
import { decodeJwt, SignJWT } from "jose"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BUILT_IN_ROLES, BuiltInRoleIds, PERMISSIONS } from "../../src/contracts/permissions.ts"
import { AuthConfig } from "../../server/auth/auth-config.ts"
import { deriveKey } from "../../server/auth/crypto.ts"
import { AuthConfigFromApp } from "../../server/auth/identity-layer.ts"
import {
  hashPassword,
  isAtLeastMinimum,
  MINIMUM_PASSWORD_PARAMS,
  needsRehash,
  PRODUCTION_PASSWORD_PARAMS,
} from "../../server/auth/passwords.ts"
import { API_ROLE, inScope } from "../../server/auth/rls.ts"
import { AppConfig } from "../../server/config.ts"
import { withSql } from "../support/db.ts"
import { addMember, startIdentityEnv, type Env, uniq } from "./support.ts"

let env: Env
beforeAll(async () => {
  env = await startIdentityEnv()
})
afterAll(async () => {
  await env?.stop()
})

const WORKSPACE_TABLES = ["workspaces", "memberships", "custom_roles", "custom_role_permissions", "invitations", "audit_log", "workspace_retention"]

/** Runs `f` against the test database through the API's own RLS helper. */
const scoped = <A>(scope: Parameters<typeof inScope>[0], f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  withSql(env.server.databaseUrl, Effect.flatMap(SqlClient.SqlClient, (sql) => inScope(scope)(f(sql))))

describe("passwords (argon2id)", () => {
  it("production parameters meet the floor (m ≥ 19 MiB, t ≥ 2) and are what a production config uses", async () => {
    expect(isAtLeastMinimum(PRODUCTION_PASSWORD_PARAMS)).toBe(true)
    expect(PRODUCTION_PASSWORD_PARAMS.memoryCost).toBeGreaterThanOrEqual(19456)
    expect(PRODUCTION_PASSWORD_PARAMS.timeCost).toBeGreaterThanOrEqual(2)
    const settings = await Effect.runPromise(
      Effect.provide(Effect.gen(function* () {
        return yield* AuthConfig
      }), AuthConfigFromApp.pipe(Layer.provide(AppConfig.layerFrom({
        ...env.server.config, nodeEnv: "production", appSecretKey: Redacted.make("x".repeat(40)),
      })))),
    )
    expect(settings.passwordParams).toEqual(PRODUCTION_PASSWORD_PARAMS)
    const h = await Effect.runPromise(hashPassword("Secret-pass1", settings.passwordParams))
    expect(h).toMatch(/^\$argon2id\$v=19\$m=32768,t=3,p=1\$/)
    // Tests hash at exactly the floor.
    expect(isAtLeastMinimum(MINIMUM_PASSWORD_PARAMS)).toBe(true)
    expect(env.server.config.nodeEnv).toBe("test")
  })

  it("stored hashes are argon2id; a weaker hash is upgraded on the next successful login", async () => {
    const s = await env.signupVerified()
    const before = await env.sql((sql) => sql`SELECT password_hash FROM users WHERE id = ${s.userId}`)
    expect(before[0].password_hash).toMatch(/^\$argon2id\$/)
    const weak = await hash(s.password, { memoryCost: 4096, timeCost: 1, parallelism: 1 })
    expect(needsRehash(weak, MINIMUM_PASSWORD_PARAMS)).toBe(true)
    await env.sql((sql) => sql`UPDATE users SET password_hash = ${weak} WHERE id = ${s.userId}`)
    expect((await env.login(s.email, s.password)).status).toBe(200)
    const after = await env.sql((sql) => sql`SELECT password_hash FROM users WHERE id = ${s.userId}`)
    const params = parseOptions(after[0].password_hash)
    expect(params.memoryCost).toBeGreaterThanOrEqual(19456)
    expect(params.timeCost).toBeGreaterThanOrEqual(2)
    expect((await env.login(s.email, s.password)).status).toBe(200)
  })
})

describe("row-level security", () => {
  it("is enabled and forced on every workspace-owned table; the API role is a non-owner without BYPASSRLS", async () => {
    const rows = await env.sql((sql) => sql`SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity, pg_get_userbyid(c.relowner) AS owner
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r'`)
    for (const table of WORKSPACE_TABLES) {
      const row = rows.find((r: { relname: string }) => r.relname === table)
      expect(row, table).toMatchObject({ relrowsecurity: true, relforcerowsecurity: true })
      expect(row.owner).not.toBe(API_ROLE)
    }
    const role = await env.sql((sql) => sql`SELECT rolsuper, rolbypassrls, rolcanlogin FROM pg_roles WHERE rolname = ${API_ROLE}`)
    expect(role).toEqual([{ rolsuper: false, rolbypassrls: false, rolcanlogin: false }])
  })

  it("fails closed: without a workspace in scope, no workspace-owned row is visible", async () => {
    const owner = await env.signupVerified()
    await env.as(owner, "POST", "/api/admin/users/invite", { invitations: [{ email: `${uniq()}@example.com`, role_id: 3, is_custom_role: false }] })
    await env.as(owner, "POST", "/api/roles/custom", { name: "R", permissions: ["read_only"] })
    expect((await env.as(owner, "PUT", `/api/workspaces/${owner.workspaceId}/retention`, { keep_days: 30, keep_scans: null })).status).toBe(200)
    const counts = await scoped({}, (sql) =>
      Effect.gen(function* () {
        const who = yield* sql<{ u: string }>`SELECT current_user AS u`
        const out: Record<string, number> = { user: who[0]!.u === API_ROLE ? 1 : 0 }
        for (const t of WORKSPACE_TABLES) out[t] = (yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql(t)}`)[0]!.n
        return out
      }))
    expect(counts).toEqual({ user: 1, workspaces: 0, memberships: 0, custom_roles: 0, custom_role_permissions: 0, invitations: 0, audit_log: 0, workspace_retention: 0 })
  })

  it("a workspace scope shows that workspace only, and refuses writes into another one", async () => {
    const a = await env.signupVerified()
    const b = await env.signupVerified()
    await env.as(a, "POST", "/api/admin/users/invite", { invitations: [{ email: `${uniq()}@example.com`, role_id: 3, is_custom_role: false }] })
    await env.as(b, "POST", "/api/admin/users/invite", { invitations: [{ email: `${uniq()}@example.com`, role_id: 3, is_custom_role: false }] })
    const seen = await scoped({ workspaceId: a.workspaceId }, (sql) =>
      sql<{ workspace_id: number }>`SELECT DISTINCT workspace_id FROM invitations UNION SELECT DISTINCT workspace_id FROM memberships`)
    expect(seen.map((r) => r.workspace_id)).toEqual([a.workspaceId])
    const write = await withSql(env.server.databaseUrl, Effect.flatMap(SqlClient.SqlClient, (sql) =>
      inScope({ workspaceId: a.workspaceId })(
        sql`INSERT INTO memberships (workspace_id, user_id, role_id) VALUES (${b.workspaceId}, ${a.userId}, 1)`,
      ).pipe(Effect.flip, Effect.map((e) => String(e)))))
    expect(write).toMatch(/SqlError/)
    const members = await env.sql((sql) => sql`SELECT count(*)::int AS n FROM memberships WHERE workspace_id = ${b.workspaceId}`)
    expect(members[0].n).toBe(1)
    const update = await scoped({ workspaceId: a.workspaceId }, (sql) =>
      sql`UPDATE workspaces SET name = 'hijacked' WHERE id = ${b.workspaceId} RETURNING id`)
    expect(update).toEqual([])
  })

  it("also binds the table owner (FORCE): a non-superuser owner sees nothing without a scope", async () => {
    const s = await env.signupVerified()
    const owner = `rls_owner_${uniq().toLowerCase()}`
    // A fresh non-superuser role that owns a copy of the policy set on one table.
    const result = await withSql(env.server.databaseUrl, Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql.withTransaction(Effect.gen(function* () {
        yield* sql.unsafe(`CREATE ROLE ${owner} NOLOGIN`)
        yield* sql.unsafe(`ALTER TABLE memberships OWNER TO ${owner}`)
        yield* sql.unsafe(`SET LOCAL ROLE ${owner}`)
        const none = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM memberships`
        yield* sql`SELECT set_config('app.workspace_id', ${String(s.workspaceId)}, true)`
        const own = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM memberships`
        // Fail on purpose so the transaction rolls back: the ownership change and the role vanish.
        return yield* Effect.fail({ none: none[0]!.n, own: own[0]!.n })
      })).pipe(Effect.flip)))
    const stillOwned = await env.sql((sql) => sql`SELECT pg_get_userbyid(relowner) AS o FROM pg_class WHERE relname = 'memberships'`)
    expect(stillOwned[0].o).not.toBe(owner)
    expect(result).toEqual({ none: 0, own: 1 })
  })
})

describe("audit log", () => {
  it("is append-only, for the owner and for the API role", async () => {
    await env.login("nobody@example.com", "Wrong-pass-1")
    const attempt = (statement: string, asApi: boolean) =>
      withSql(env.server.databaseUrl, Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql.withTransaction(Effect.gen(function* () {
          if (asApi) yield* sql.unsafe(`SET LOCAL ROLE ${API_ROLE}`)
          yield* sql.unsafe(statement)
        })).pipe(Effect.flip, Effect.map((e) => String(e)))))
    for (const asApi of [false, true]) {
      expect(await attempt(`UPDATE audit_log SET action = 'x'`, asApi)).toMatch(/SqlError/)
      expect(await attempt(`DELETE FROM audit_log`, asApi)).toMatch(/SqlError/)
      expect(await attempt(`TRUNCATE audit_log`, asApi)).toMatch(/SqlError/)
    }
    const n = await env.sql((sql) => sql`SELECT count(*)::int AS n FROM audit_log WHERE action = 'auth.sign_in_failed'`)
    expect(n[0].n).toBeGreaterThan(0)
  })

  it("records sign-in, failed sign-in, role changes, invitations, member removal and password changes", async () => {
    const owner = await env.signupVerified()
    await env.login(owner.email, "Wrong-pass-1")
    const member = await addMember(env, owner, BuiltInRoleIds.Auditor)
    await env.as(owner, "PUT", "/api/team-member", { user_id: member.userId, first_name: "M", last_name: "B", role_id: 2, is_custom_role: false })
    await env.as(owner, "POST", "/api/admin/users/invite", { invitations: [{ email: `${uniq()}@example.com`, role_id: 3, is_custom_role: false }] })
    await env.as(owner, "DELETE", `/api/admin/users?user_to_delete=${member.userId}`)
    await env.as(owner, "POST", "/api/update-password", { current_password: owner.password, new_password: "Changed-pass1", confirm_password: "Changed-pass1" })
    const rows = await env.sql((sql) => sql`SELECT action, workspace_id, ip FROM audit_log WHERE actor_user_id = ${owner.userId} ORDER BY id`)
    const actions = rows.map((r: { action: string }) => r.action)
    for (const a of ["auth.signup", "auth.sign_in_failed", "auth.sign_in", "member.added", "member.role_changed", "invitation.sent", "member.removed", "auth.password_changed"]) {
      expect(actions, a).toContain(a)
    }
    expect(rows.find((r: { action: string }) => r.action === "member.removed").workspace_id).toBe(owner.workspaceId)
    expect(rows.every((r: { ip: string | null }) => r.ip === "127.0.0.1" || r.ip === "::ffff:127.0.0.1")).toBe(true)
  })
})

describe("schema", () => {
  it("holds exactly the contract's permissions and built-in roles", async () => {
    const perms = await env.sql((sql) => sql`SELECT id::int AS id, name FROM permissions ORDER BY id`)
    expect(perms.map((p: { name: string }) => p.name)).toEqual([...PERMISSIONS])
    const roles = await env.sql((sql) => sql`SELECT r.id, r.name, array_agg(p.name ORDER BY p.id) AS permissions
      FROM roles r JOIN role_permissions rp ON rp.role_id = r.id JOIN permissions p ON p.id = rp.permission_id GROUP BY r.id, r.name ORDER BY r.id`)
    expect(roles).toEqual(BUILT_IN_ROLES.map((r) => ({ id: r.id, name: r.name, permissions: PERMISSIONS.filter((p) => (r.permissions as ReadonlyArray<string>).includes(p)) })))
  })
})

describe("tokens and secrets in answers (issue 27)", () => {
  it("answers carrying tokens are never cached: sign-in, refresh and sign-up answers carry Cache-Control: no-store", async () => {
    const s = await env.signupVerified()
    const login = await env.login(s.email, s.password)
    expect(login.status).toBe(200)
    expect(typeof login.body.access_token).toBe("string")
    expect(login.headers.get("cache-control")).toBe("no-store")
    const refreshed = await env.call("POST", "/api/refresh-token", { body: { refresh_token: login.body.refresh_token } })
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200)
    expect(refreshed.headers.get("cache-control")).toBe("no-store")
    const signup = await env.call("POST", "/api/signup", {
      body: { first_name: "No", last_name: "Store", email: `${uniq()}@example.com`, password: s.password, workspace_name: `ws-${uniq()}`, timezone: "UTC" },
    })
    expect(signup.headers.get("cache-control")).toBe("no-store")
    const failed = await env.login(s.email, "Wrong-pass-1")
    expect(failed.headers.get("cache-control")).toBe("no-store")
    expect((await env.as(s, "GET", "/api/workspaces")).headers.get("cache-control")).toBe("no-store")
  })

  it("refuses a correctly signed access token without exp (it would never expire)", async () => {
    const s = await env.signupVerified()
    const claims = decodeJwt(s.access)
    const key = deriveKey(Redacted.value(env.server.config.appSecretKey), "access-token")
    const sign = (withExp: boolean) => {
      const jwt = new SignJWT({ sid: claims["sid"], wid: claims["wid"] })
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .setSubject(String(claims.sub))
        .setIssuer(String(claims.iss))
        .setAudience(String(claims.aud))
        .setIssuedAt()
      return (withExp ? jwt.setExpirationTime("5m") : jwt).sign(key)
    }
    // The same token with an expiry is accepted: only the missing exp is refused.
    const control = await env.call("GET", "/api/workspaces", { token: await sign(true) })
    expect(control.status, JSON.stringify(control.body)).toBe(200)
    const forever = await env.call("GET", "/api/workspaces", { token: await sign(false) })
    expect(forever.status).toBe(401)
    expect(forever.body.message).toEqual(expect.any(String))
  })
})
