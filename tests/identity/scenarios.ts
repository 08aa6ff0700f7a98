/**
 * A valid request for every workspace-scoped identity endpoint, built on fresh resources of the workspace (made by
 * its owner), so a test can call it as any actor and let only the actor's rights decide the answer. Used by the
 * role × endpoint table and the cross-workspace isolation test; both check that every workspace-scoped endpoint of
 * the contract has a builder here.
 */
import type { Env, Session } from "./support.ts"
import { STRONG_PASSWORD, uniq } from "./support.ts"

export interface Req {
  readonly params?: Record<string, string | number>
  readonly query?: Record<string, string | number>
  readonly body?: any
}

export interface Ctx {
  readonly env: Env
  /** Owner of the workspace the request acts in. */
  readonly owner: Session
  /** A custom role of that workspace holding only create_user (grantable by every role that may add people). */
  readonly inviterRoleId: number
}

const ok = (res: { status: number; body: unknown }, what: string) => {
  if (res.status !== 200) throw new Error(`${what} failed: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body as any
}

/** A fresh Auditor member of the owner's workspace (no sign-in needed). */
export const freshMember = async (c: Ctx) => {
  const email = `${uniq("tgt")}@example.com`
  const body = ok(await c.env.as(c.owner, "POST", "/api/admin/users", {
    first_name: "Tar", last_name: "Get", email, password: STRONG_PASSWORD, role_id: 3, is_custom_role: false,
  }), "add member")
  return { userId: body.data.id as number, email }
}

export const freshCustomRole = async (c: Ctx) =>
  ok(await c.env.as(c.owner, "POST", "/api/roles/custom", { name: `role-${uniq()}`, permissions: ["read_only"] }), "custom role").data.id as number

export const freshInvitation = async (c: Ctx) => {
  const email = `${uniq("inv")}@example.com`
  ok(await c.env.as(c.owner, "POST", "/api/admin/users/invite", { invitations: [{ email, role_id: 3, is_custom_role: false }] }), "invite")
  const list = ok(await c.env.as(c.owner, "GET", "/api/admin/users/invitations"), "list")
  return list.data.find((i: { email: string }) => i.email === email).id as number
}

export const setupWorkspace = async (env: Env): Promise<Ctx> => {
  const owner = await env.signupVerified()
  const role = ok(await env.as(owner, "POST", "/api/roles/custom", { name: "Inviter", permissions: ["create_user"] }), "inviter role")
  return { env, owner, inviterRoleId: role.data.id }
}

/** Request builders keyed by `group.endpoint`. */
export const BUILDERS: Record<string, (c: Ctx) => Promise<Req>> = {
  "workspaces.switch": async (c) => ({ body: { workspace_id: c.owner.workspaceId } }),
  "workspaces.permissions": async () => ({}),
  "workspaces.info": async () => ({}),
  "team.members": async () => ({}),
  "team.createUser": async (c) => ({
    body: {
      first_name: "New", last_name: "Person", email: `${uniq("new")}@example.com`, password: STRONG_PASSWORD,
      role_id: c.inviterRoleId, is_custom_role: true,
    },
  }),
  "team.deleteUser": async (c) => ({ query: { user_to_delete: (await freshMember(c)).userId } }),
  "team.updateMember": async (c) => ({
    body: { user_id: (await freshMember(c)).userId, first_name: "Re", last_name: "Named", role_id: 3, is_custom_role: false },
  }),
  "team.memberPasswordReset": async (c) => ({ body: { email: (await freshMember(c)).email } }),
  "team.roles": async () => ({}),
  "team.createCustomRole": async () => ({ body: { name: `made-${uniq()}`, permissions: ["create_user"] } }),
  "team.updateCustomRole": async (c) => ({ params: { id: await freshCustomRole(c) }, body: { name: `upd-${uniq()}`, permissions: ["create_user"] } }),
  "team.deleteCustomRole": async (c) => ({ params: { id: await freshCustomRole(c) } }),
  "invitations.invite": async (c) => ({
    body: { invitations: [{ email: `${uniq("bulk")}@example.com`, role_id: c.inviterRoleId, is_custom_role: true }] },
  }),
  "invitations.list": async () => ({}),
  "invitations.resend": async (c) => ({ params: { invitation_id: await freshInvitation(c) } }),
  "invitations.cancel": async (c) => ({ params: { id: await freshInvitation(c) } }),
}

export const send = (env: Env, actor: Session, method: string, path: string, req: Req, workspaceId?: number) => {
  const filled = path.replace(/:([A-Za-z_]+)/g, (_m, k: string) => encodeURIComponent(String(req.params?.[k] ?? "")))
  const qs = req.query === undefined ? "" : `?${new URLSearchParams(Object.entries(req.query).map(([k, v]) => [k, String(v)])).toString()}`
  return env.call(method, `${filled}${qs}`, {
    token: actor.access,
    workspaceId: workspaceId ?? actor.workspaceId,
    ...(req.body !== undefined ? { body: req.body } : {}),
  })
}
