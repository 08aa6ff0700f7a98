/**
 * The validated read cache (issue 15 problem 8; server/api/middleware/read-cache.ts, migration 0014): a repeated
 * workspace read is answered from its last answer only while one statement proves nothing it depends on changed,
 * the session is alive and the caller still a member; any write in the workspace, a rename of a member made from
 * another scope, a write without a scope, a removal and a logout all end it. Every table with a workspace_id column
 * records its writes (or is listed, with its reason, as untracked).
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { UNTRACKED_WORKSPACE_TABLES } from "../../server/db/migrations/0014_read_cache.ts"
import { UNTRACKED_API_KEY_TABLES } from "../../server/db/migrations/0025_api_keys.ts"
import { UNTRACKED_SSO_TABLES } from "../../server/db/migrations/0027_sso.ts"
import { addMember, type Env, type Session, startIdentityEnv, uniq } from "../identity/support.ts"

let env: Env
beforeAll(async () => {
  env = await startIdentityEnv()
})
afterAll(async () => {
  await env?.stop()
})

const cacheOf = (answer: { headers: Headers }) => answer.headers.get("x-read-cache")

/** Reads `path` (team members by default) twice: the second answer must come from the cache and be the same. */
const warm = async (s: Session, path = "/api/team-members") => {
  const first = await env.as(s, "GET", path)
  expect(first.status).toBe(200)
  const second = await env.as(s, "GET", path)
  expect(cacheOf(second)).toBe("hit")
  expect(second.body).toEqual(first.body)
  return second
}

const names = (answer: { body: { data: ReadonlyArray<{ first_name: string }> } }) => answer.body.data.map((m) => m.first_name).sort()

describe("validated read cache", () => {
  it("answers a repeated read from the cache, per user and per URL", async () => {
    const owner = await env.signupVerified()
    const first = await env.as(owner, "GET", "/api/team-members")
    expect(cacheOf(first)).toBe("miss")
    await warm(owner)
    // Another URL is another entry; another user is another entry.
    expect(cacheOf(await env.as(owner, "GET", "/api/scans?page=1"))).toBe("miss")
    expect(cacheOf(await env.as(owner, "GET", "/api/scans?page=1"))).toBe("hit")
    const member = await addMember(env, owner, 3)
    expect(cacheOf(await env.as(member, "GET", "/api/scans?page=1"))).toBe("miss")
  })

  it("concurrent reads of a key with no valid entry make one full read; the others check what it stored", async () => {
    const owner = await env.signupVerified()
    await warm(owner, "/api/scans")
    await addMember(env, owner, 3)
    const answers = await Promise.all(Array.from({ length: 20 }, () => env.as(owner, "GET", "/api/scans")))
    expect(answers.every((a) => a.status === 200)).toBe(true)
    expect(answers.filter((a) => cacheOf(a) === "miss")).toHaveLength(1)
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1)
  })

  it("a write in the workspace ends the cached answer: the next read sees it", async () => {
    const owner = await env.signupVerified()
    const before = await warm(owner)
    const member = await addMember(env, owner, 3)
    const after = await env.as(owner, "GET", "/api/team-members")
    expect(cacheOf(after)).toBe("miss")
    expect(after.body.data).toHaveLength(before.body.data.length + 1)
    expect(after.body.data.map((m: { id: number }) => m.id)).toContain(member.userId)
  })

  it("a member renaming themselves outside the workspace's scope ends the cached answer of every workspace they are in", async () => {
    const owner = await env.signupVerified()
    const member = await addMember(env, owner, 3)
    await warm(owner)
    const renamed = uniq("Renamed").slice(0, 30)
    const update = await env.call("PUT", "/api/update-user-info", {
      token: member.access, body: { email: member.email, first_name: renamed, last_name: "Ber" },
    })
    expect(update.status).toBe(200)
    const after = await env.as(owner, "GET", "/api/team-members")
    expect(cacheOf(after)).toBe("miss")
    expect(names(after)).toContain(renamed)
  })

  it("a write made outside any workspace scope ends the cached answer of the workspace it touched; one touching no row does not", async () => {
    const owner = await env.signupVerified()
    await warm(owner)
    await env.sql((sql) => sql`UPDATE memberships SET role_id = role_id WHERE user_id = -1`)
    expect(cacheOf(await env.as(owner, "GET", "/api/team-members"))).toBe("hit")
    await env.sql((sql) => sql`UPDATE memberships SET role_id = role_id WHERE user_id = ${owner.userId}`)
    expect(cacheOf(await env.as(owner, "GET", "/api/team-members"))).toBe("miss")
    // TRUNCATE names no rows: it ends every workspace's cached answers.
    await warm(owner)
    await env.sql((sql) => sql`TRUNCATE scan_schedules`)
    expect(cacheOf(await env.as(owner, "GET", "/api/team-members"))).toBe("miss")
  })

  it("a write in another workspace leaves the cached answer alone; a rolled-back write too", async () => {
    const owner = await env.signupVerified()
    const other = await env.signupVerified()
    await warm(owner)
    await addMember(env, other, 3)
    expect(cacheOf(await env.as(owner, "GET", "/api/team-members"))).toBe("hit")
    await env.sql((sql) =>
      Effect.flatMap(
        sql`SELECT set_config('app.workspace_id', ${String(owner.workspaceId)}, true)`,
        () => Effect.andThen(sql`UPDATE workspaces SET name = name || 'x' WHERE id = ${owner.workspaceId}`, Effect.fail("roll back")),
      )).catch(() => undefined)
    expect(cacheOf(await env.as(owner, "GET", "/api/team-members"))).toBe("hit")
  })

  it("never answers from the cache once the caller was removed or signed out", async () => {
    const owner = await env.signupVerified()
    const member = await addMember(env, owner, 3)
    await warm(member, "/api/scans")
    const removed = await env.as(owner, "DELETE", `/api/admin/users?user_to_delete=${member.userId}`)
    expect(removed.status).toBe(200)
    const refused = await env.as(member, "GET", "/api/scans")
    expect(refused.status).toBe(403)
    expect(cacheOf(refused)).toBeNull()

    const second = await addMember(env, owner, 3)
    await warm(second, "/api/scans")
    const out = await env.call("POST", "/api/logout", { token: second.access, body: { refresh_token: second.refresh } })
    expect(out.status).toBe(200)
    const after = await env.as(second, "GET", "/api/scans")
    expect(after.status).toBe(401)
  })

  it("every table with a workspace_id column records its writes, or is listed as untracked", async () => {
    const rows: ReadonlyArray<{ table_name: string; triggered: boolean }> = await env.sql((sql) => sql`
      SELECT c.table_name,
             (SELECT bit_or(tg.tgtype::int & (4 | 8 | 16 | 32)) FROM pg_trigger tg JOIN pg_proc p ON p.oid = tg.tgfoid
              WHERE tg.tgrelid = ('public.' || quote_ident(c.table_name))::regclass AND p.proname = 'note_workspace_change'
                AND (tg.tgtype & 1) = 0) -- statement level
             IS NOT DISTINCT FROM (4 | 8 | 16 | 32) AS triggered -- insert, delete, update, truncate
      FROM information_schema.columns c
      JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = 'public' AND c.column_name = 'workspace_id' AND t.table_type = 'BASE TABLE'`)
    expect(rows.length).toBeGreaterThan(10)
    for (const row of rows) {
      const untracked = ([...UNTRACKED_WORKSPACE_TABLES, ...UNTRACKED_API_KEY_TABLES, ...UNTRACKED_SSO_TABLES] as ReadonlyArray<string>).includes(row.table_name)
      expect({ table: row.table_name, recorded: row.triggered }).toEqual({ table: row.table_name, recorded: !untracked })
    }
  })

  it("the API role reads only its workspace's change rows and cannot write them; pruning keeps what a cached answer can need", async () => {
    const owner = await env.signupVerified()
    const other = await env.signupVerified()
    await addMember(env, other, 3)
    const seen = await env.sql((sql) =>
      Effect.andThen(
        sql`SELECT set_config('app.workspace_id', ${String(owner.workspaceId)}, true), set_config('role', 'cloud_audit_app', true)`,
        sql<{ n: number; foreign: number }>`SELECT count(*)::int AS n, count(*) FILTER (WHERE workspace_id = ${other.workspaceId})::int AS foreign
          FROM workspace_changes`,
      ))
    expect(seen[0].n).toBeGreaterThan(0)
    expect(seen[0].foreign).toBe(0)
    const insert = await env.sql((sql) =>
      Effect.andThen(
        sql`SELECT set_config('app.workspace_id', ${String(owner.workspaceId)}, true), set_config('role', 'cloud_audit_app', true)`,
        sql`INSERT INTO workspace_changes (workspace_id, xid) VALUES (${owner.workspaceId}, pg_current_xact_id())`,
      )).then(() => "inserted", (e: { cause?: { cause?: { message?: string } } }) => e.cause?.cause?.message ?? String(e))
    expect(insert).toMatch(/permission denied/)

    // A horizon sampled 11 minutes ago lets pruning delete the rows of transactions older than it, not newer ones.
    const pruned = await env.sql((sql) =>
      Effect.gen(function* () {
        const now = yield* sql<{ x: string }>`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS x`
        yield* sql`INSERT INTO workspace_changes_horizons (sampled_at, horizon) VALUES (clock_timestamp() - interval '11 minutes', ${now[0]!.x}::xid8)`
        const gone = yield* sql<{ n: number }>`SELECT prune_workspace_changes() AS n`
        const older = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM workspace_changes WHERE xid < ${now[0]!.x}::xid8`
        return { gone: gone[0]!.n, older: older[0]!.n }
      }))
    expect(pruned.gone).toBeGreaterThan(0)
    expect(pruned.older).toBe(0)
    // What the owner's cached answer needs is still decided correctly after pruning.
    await warm(owner)
    await addMember(env, owner, 3)
    expect(cacheOf(await env.as(owner, "GET", "/api/team-members"))).toBe("miss")
  })
})
