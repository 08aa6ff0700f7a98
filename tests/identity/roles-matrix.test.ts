/**
 * Role × endpoint table: for every workspace-scoped endpoint of the identity groups (read from the contract) and every
 * kind of member (owner, the four built-in roles, a custom role holding only create_user), the expected answer is
 * written out below and every cell is asserted: allowed → 200, denied → 403 Forbidden. The table is the product's
 * authorisation rule (docs/identity.md); a new workspace-scoped endpoint without a row fails the test.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { StatusMessages } from "../../src/contracts/messages.ts"
import { BuiltInRoleIds } from "../../src/contracts/permissions.ts"
import { identityEndpoints } from "./contract-walk.ts"
import { BUILDERS, send, setupWorkspace, type Ctx } from "./scenarios.ts"
import { addMember, startIdentityEnv, type Env, type Session } from "./support.ts"

const ACTORS = ["Owner", "Admin", "Security Engineer", "Auditor", "Member Manager", "Custom(create_user)"] as const
type Actor = (typeof ACTORS)[number]

const Y = true
const N = false
/** Expected: may this actor call this endpoint?  Columns in ACTORS order. */
const TABLE: Record<string, readonly [boolean, boolean, boolean, boolean, boolean, boolean]> = {
  //                           Owner Admin SecEng Auditor MemberMgr Custom
  "workspaces.switch":        [Y,    Y,    Y,     Y,      Y,        Y],
  "workspaces.permissions":   [Y,    Y,    Y,     Y,      Y,        Y],
  "workspaces.info":          [Y,    Y,    Y,     Y,      Y,        Y],
  "team.roles":               [Y,    Y,    Y,     Y,      Y,        Y],
  "team.members":             [Y,    Y,    N,     N,      Y,        Y],
  "team.createUser":          [Y,    Y,    N,     N,      Y,        Y],
  "team.deleteUser":          [Y,    Y,    N,     N,      Y,        N],
  "team.updateMember":        [Y,    Y,    N,     N,      Y,        N],
  "team.memberPasswordReset": [Y,    Y,    N,     N,      Y,        Y],
  "team.createCustomRole":    [Y,    Y,    N,     N,      Y,        N],
  "team.updateCustomRole":    [Y,    Y,    N,     N,      Y,        N],
  "team.deleteCustomRole":    [Y,    Y,    N,     N,      Y,        N],
  "invitations.invite":       [Y,    Y,    N,     N,      Y,        Y],
  "invitations.list":         [Y,    Y,    N,     N,      Y,        Y],
  "invitations.resend":       [Y,    Y,    N,     N,      Y,        Y],
  "invitations.cancel":       [Y,    Y,    N,     N,      Y,        Y],
}

let env: Env
let ctx: Ctx
const actors = new Map<Actor, Session>()

beforeAll(async () => {
  env = await startIdentityEnv()
  ctx = await setupWorkspace(env)
  actors.set("Owner", ctx.owner)
  actors.set("Admin", await addMember(env, ctx.owner, BuiltInRoleIds.Admin))
  actors.set("Security Engineer", await addMember(env, ctx.owner, BuiltInRoleIds.SecurityEngineer))
  actors.set("Auditor", await addMember(env, ctx.owner, BuiltInRoleIds.Auditor))
  actors.set("Member Manager", await addMember(env, ctx.owner, BuiltInRoleIds.MemberManager))
  actors.set("Custom(create_user)", await addMember(env, ctx.owner, ctx.inviterRoleId, true))
}, 120_000)
afterAll(async () => {
  await env?.stop()
})

const scoped = identityEndpoints().filter((e) => e.workspaceScoped)

describe("role × endpoint", () => {
  it("the table has a row and a request builder for every workspace-scoped identity endpoint of the contract", () => {
    expect(Object.keys(TABLE).sort()).toEqual(scoped.map((e) => e.key).sort())
    for (const e of scoped) expect(BUILDERS[e.key], e.key).toBeDefined()
  })

  for (const e of scoped) {
    it(`${e.key} (${e.method} ${e.path})`, async () => {
      const row = TABLE[e.key]!
      const seen: Array<string> = []
      for (const [i, actor] of ACTORS.entries()) {
        const session = actors.get(actor)!
        const req = await BUILDERS[e.key]!(ctx)
        const res = await send(env, session, e.method, e.path, req)
        seen.push(`${actor}: ${res.status}`)
        if (row[i]) {
          expect(res.status, `${actor} should be allowed: ${JSON.stringify(res.body)}`).toBe(200)
        } else {
          expect(res.status, `${actor} should be denied: ${JSON.stringify(res.body)}`).toBe(403)
          expect(res.body).toMatchObject({ _tag: "Forbidden", message: StatusMessages.forbidden })
        }
      }
      expect(seen).toHaveLength(ACTORS.length)
    })
  }
})
