/**
 * Cross-workspace isolation, generated from the contract: for every identity endpoint that takes an id (found by
 * walking its params/query/payload schemas), the owner of workspace B — who holds every permission in B — sends a
 * valid request in which that id is replaced by workspace A's; the answer must be 403 or 404 and workspace A must be
 * unchanged. Every workspace-scoped endpoint is also called with X-Workspace-ID set to A (403, nothing changes).
 * Bulk invite is the one call whose answer is 200: the foreign role is skipped ('invalid role') and nothing is sent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AccessServerMessages } from "../../src/contracts/messages.ts"
import { BuiltInRoleIds } from "../../src/contracts/permissions.ts"
import { identityEndpoints, type IdField } from "./contract-walk.ts"
import { BUILDERS, freshCustomRole, freshInvitation, freshMember, send, setupWorkspace, type Ctx, type Req } from "./scenarios.ts"
import { addMember, startIdentityEnv, type Env } from "./support.ts"

let env: Env
let A: Ctx
let B: Ctx
let aResources: { memberId: number; customRoleId: number; invitationId: number }

beforeAll(async () => {
  env = await startIdentityEnv()
  A = await setupWorkspace(env)
  B = await setupWorkspace(env)
  await addMember(env, A.owner, BuiltInRoleIds.Auditor)
  aResources = {
    memberId: (await freshMember(A)).userId,
    customRoleId: await freshCustomRole(A),
    invitationId: await freshInvitation(A),
  }
}, 120_000)
afterAll(async () => {
  await env?.stop()
})

/** Everything of workspace A a request could change. */
const snapshotA = () =>
  env.sql((sql) => sql`SELECT json_build_object(
      'workspace', (SELECT row_to_json(w) FROM workspaces w WHERE w.id = ${A.owner.workspaceId}),
      'members', (SELECT json_agg(json_build_object('m', m, 'u', json_build_object('first', u.first_name, 'last', u.last_name, 'email', u.email, 'hash', u.password_hash)) ORDER BY m.user_id)
                  FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.workspace_id = ${A.owner.workspaceId}),
      'roles', (SELECT json_agg(r ORDER BY r.id) FROM custom_roles r WHERE r.workspace_id = ${A.owner.workspaceId}),
      'role_permissions', (SELECT json_agg(p ORDER BY p.custom_role_id, p.permission_id) FROM custom_role_permissions p WHERE p.workspace_id = ${A.owner.workspaceId}),
      'invitations', (SELECT json_agg(i ORDER BY i.id) FROM invitations i WHERE i.workspace_id = ${A.owner.workspaceId}),
      'reset_tokens', (SELECT count(*) FROM password_reset_tokens t JOIN memberships m ON m.user_id = t.user_id WHERE m.workspace_id = ${A.owner.workspaceId})
    ) AS snap`).then((rows: Array<{ snap: unknown }>) => JSON.stringify(rows[0]!.snap))

/** Which of A's ids replaces a given id field (keyed `group.endpoint slot.path`). */
const RESOLVERS: Record<string, (req: Req) => Req> = {
  "workspaces.switch payload.workspace_id": (r) => ({ ...r, body: { ...r.body, workspace_id: A.owner.workspaceId } }),
  "team.createUser payload.role_id": (r) => ({ ...r, body: { ...r.body, role_id: aResources.customRoleId, is_custom_role: true } }),
  "team.deleteUser query.user_to_delete": (r) => ({ ...r, query: { user_to_delete: aResources.memberId } }),
  "team.updateMember payload.user_id": (r) => ({ ...r, body: { ...r.body, user_id: aResources.memberId } }),
  "team.updateMember payload.role_id": (r) => ({ ...r, body: { ...r.body, role_id: aResources.customRoleId, is_custom_role: true } }),
  "team.updateCustomRole params.id": (r) => ({ ...r, params: { id: aResources.customRoleId } }),
  "team.deleteCustomRole params.id": (r) => ({ ...r, params: { id: aResources.customRoleId } }),
  "invitations.invite payload.invitations.*.role_id": (r) => ({
    ...r,
    body: { invitations: r.body.invitations.map((i: object) => ({ ...i, role_id: aResources.customRoleId, is_custom_role: true })) },
  }),
  "invitations.resend params.invitation_id": (r) => ({ ...r, params: { invitation_id: aResources.invitationId } }),
  "invitations.cancel params.id": (r) => ({ ...r, params: { id: aResources.invitationId } }),
}

const fieldKey = (key: string, f: IdField) => `${key} ${f.slot}.${f.path.join(".")}`

const endpoints = identityEndpoints()
const idCases = endpoints.flatMap((e) => e.idFields.map((f) => ({ e, f, key: fieldKey(e.key, f) })))

describe("ids of another workspace", () => {
  it("the snapshot of A notices a change made by A's owner (so 'unchanged' below means something)", async () => {
    const before = await snapshotA()
    const req = await BUILDERS["team.updateMember"]!(A)
    const mid = await snapshotA()
    expect(mid).not.toBe(before) // the builder added a member
    expect((await send(env, A.owner, "PUT", "/api/team-member", req)).status).toBe(200)
    expect(await snapshotA()).not.toBe(mid)
  })

  it("every id field of the contract's identity endpoints has a resolver (the generated list is complete)", () => {
    expect(idCases.length).toBeGreaterThanOrEqual(10)
    expect(idCases.map((c) => c.key).sort()).toEqual(Object.keys(RESOLVERS).sort())
  })

  for (const { e, key } of idCases) {
    it(key, async () => {
      // Sanity: B's own request succeeds, so a refusal below is about the foreign id.
      const own = await send(env, B.owner, e.method, e.path, await BUILDERS[e.key]!(B))
      expect(own.status, JSON.stringify(own.body)).toBe(200)

      const before = await snapshotA()
      const foreign = RESOLVERS[key]!(await BUILDERS[e.key]!(B))
      const res = await send(env, B.owner, e.method, e.path, foreign)
      if (e.key === "invitations.invite") {
        expect(res.status).toBe(200)
        expect(res.body).toMatchObject({ sent_count: 0, resent_count: 0, skipped_count: 1, skipped_emails: [{ reason: AccessServerMessages.invalidRoleSkip }] })
      } else {
        expect([403, 404], JSON.stringify(res.body)).toContain(res.status)
      }
      expect(await snapshotA()).toBe(before)
    })
  }
})

describe("X-Workspace-ID of another workspace", () => {
  const headerScoped = endpoints.filter((e) => e.workspaceScoped && !e.idFields.some((f) => f.path.at(-1) === "workspace_id"))

  it("covers every workspace-scoped endpoint", () => {
    expect(headerScoped.length).toBeGreaterThanOrEqual(14)
    for (const e of headerScoped) expect(BUILDERS[e.key], e.key).toBeDefined()
  })

  for (const e of headerScoped) {
    it(`${e.key} answers 403 and changes nothing`, async () => {
      // A request that is valid in A (built on fresh resources of A by A's owner), sent by B's owner.
      const req = await BUILDERS[e.key]!(A)
      const before = await snapshotA()
      const res = await send(env, B.owner, e.method, e.path, req, A.owner.workspaceId)
      expect(res.status).toBe(403)
      expect(res.body._tag).toBe("WorkspaceAccessDenied")
      expect(await snapshotA()).toBe(before)
    })
  }
})
