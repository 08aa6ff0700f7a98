/**
 * Workspaces (list, switch, info, permissions, X-Workspace-ID checks) and team management (members with last_login,
 * add member directly, update, delete, member password reset, roles, custom roles) against a real database, with
 * mails captured over SMTP (access §2–§7).
 */
import { decodeJwt } from "jose"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AccessServerMessages, SuccessMessages, ValidationMessages } from "../../src/contracts/messages.ts"
import { BuiltInRoleIds, PERMISSIONS } from "../../src/contracts/permissions.ts"
import { addMember, startIdentityEnv, STRONG_PASSWORD, type Env, uniq } from "./support.ts"

let env: Env
beforeAll(async () => {
  env = await startIdentityEnv()
})
afterAll(async () => {
  await env?.stop()
})

describe("workspaces", () => {
  it("lists the user's workspaces with the spec's fields", async () => {
    const owner = await env.signupVerified()
    const member = await addMember(env, owner, BuiltInRoleIds.Auditor)
    const list = await env.call("GET", "/api/workspaces", { token: owner.access })
    expect(list.status).toBe(200)
    expect(list.body.data).toEqual([{
      workspace_id: owner.workspaceId,
      workspace_name: expect.any(String),
      is_owner: true,
      role: "Admin",
      member_count: 2,
      joined_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    }])
    const theirs = await env.call("GET", "/api/workspaces", { token: member.access })
    expect(theirs.body.data).toEqual([expect.objectContaining({ workspace_id: owner.workspaceId, is_owner: false, role: "Auditor", member_count: 2 })])
  })

  it("switch answers new tokens scoped to the workspace; non-members get the spec's workspace error", async () => {
    const a = await env.signupVerified()
    const b = await env.signupVerified()
    const ok = await env.call("POST", "/api/user/switch-workspace", { token: a.access, body: { workspace_id: a.workspaceId } })
    expect(ok.status).toBe(200)
    expect(decodeJwt(ok.body.access_token).wid).toBe(a.workspaceId)
    expect(ok.body.data).toEqual({ workspace_id: a.workspaceId, workspace_name: expect.any(String) })
    // The old refresh token of that session was superseded; the new one works.
    expect((await env.call("POST", "/api/refresh-token", { body: { refresh_token: ok.body.refresh_token } })).status).toBe(200)

    const denied = await env.call("POST", "/api/user/switch-workspace", { token: a.access, body: { workspace_id: b.workspaceId } })
    expect(denied.status).toBe(403)
    expect(denied.body).toEqual({ _tag: "WorkspaceAccessDenied", message: AccessServerMessages.workspaceAccessDenied })
    const missing = await env.call("POST", "/api/user/switch-workspace", { token: a.access, body: { workspace_id: 999999 } })
    expect(missing.status).toBe(403)
    expect(missing.body).toEqual(denied.body)
  })

  it("checks X-Workspace-ID against membership on every scoped call", async () => {
    const a = await env.signupVerified()
    const b = await env.signupVerified()
    const info = await env.as(a, "GET", "/api/workspace-info")
    expect(info.body).toEqual({ ok: true, is_owner: true, user_id: a.userId, workspace_id: a.workspaceId, workspace_name: expect.any(String) })
    const foreign = await env.as(a, "GET", "/api/workspace-info", undefined, b.workspaceId)
    expect(foreign.status).toBe(403)
    expect(foreign.body._tag).toBe("WorkspaceAccessDenied")
    const garbage = await env.call("GET", "/api/team-members", { token: a.access, workspaceId: "12abc" })
    expect(garbage.status).toBe(400)
    expect(garbage.body._tag).toBe("WorkspaceRequired")
    // Without the header, the workspace of the token applies; a token without one needs the header.
    expect((await env.call("GET", "/api/workspace-info", { token: a.access })).status).toBe(200)
    const second = await env.signupVerified()
    await env.as(second, "POST", "/api/admin/users/invite", { invitations: [{ email: a.email, role_id: 3, is_custom_role: false }] })
    const mail = await env.mailTo(a.email, (m) => m.subject.startsWith("You're invited"))
    const token = new URL(mail.links[0]!).searchParams.get("token")!
    expect((await env.call("POST", "/api/workspaces/accept-invitation", { token: a.access, body: { invitation_token: token } })).status).toBe(200)
    const relogin = await env.login(a.email, a.password) // two workspaces now: the token carries none
    expect(decodeJwt(relogin.body.access_token).wid).toBeUndefined()
    const none = await env.call("GET", "/api/workspace-info", { token: relogin.body.access_token })
    expect(none.status).toBe(400)
    expect(none.body._tag).toBe("WorkspaceRequired")
  })

  it("permissions: the owner holds all 12; a member holds their role's", async () => {
    const owner = await env.signupVerified()
    const own = await env.as(owner, "GET", "/api/user/permissions")
    expect(own.body.is_owner).toBe(true)
    expect(own.body.roles[0].permissions.map((p: { name: string }) => p.name).sort()).toEqual([...PERMISSIONS].sort())
    const engineer = await addMember(env, owner, BuiltInRoleIds.SecurityEngineer)
    const theirs = await env.as(engineer, "GET", "/api/user/permissions")
    expect(theirs.body).toMatchObject({ is_owner: false, custom_roles: [] })
    expect(theirs.body.roles.map((r: { name: string }) => r.name)).toEqual(["Security Engineer"])
    expect(theirs.body.roles[0].permissions.map((p: { name: string }) => p.name).sort())
      .toEqual(["create_account", "read_only", "remediate_findings", "scan_service"])
  })
})

describe("team", () => {
  it("adds a member directly (verified, mailed), lists members with last_login", async () => {
    const owner = await env.signupVerified()
    const email = `${uniq("direct")}@example.com`
    const created = await env.as(owner, "POST", "/api/admin/users", {
      first_name: "Linus", last_name: "T", email, password: "password1", role_id: BuiltInRoleIds.Auditor, is_custom_role: false,
    })
    expect(created.status).toBe(200)
    expect(created.body).toMatchObject({ ok: true, message: SuccessMessages.teamMemberAdded, data: { email, role_name: "Auditor", is_owner: false, last_login: null } })
    await env.mailTo(email, (m) => m.subject.startsWith("You've been added to"))
    expect((await env.login(email, "password1")).status).toBe(200) // verified at creation
    const members = await env.as(owner, "GET", "/api/team-members")
    expect(members.status).toBe(200)
    expect(members.body.data).toHaveLength(2)
    expect(members.body.data[0]).toMatchObject({ email: owner.email, is_owner: true, role_name: "Admin", last_login: expect.any(String) })
    expect(members.body.data[1]).toMatchObject({ email, is_owner: false, role_name: "Auditor", last_login: expect.any(String) })
  })

  it("refuses existing accounts, unknown roles and missing fields with clear answers", async () => {
    const owner = await env.signupVerified()
    const other = await env.signupVerified()
    const dup = await env.as(owner, "POST", "/api/admin/users", {
      first_name: "X", last_name: "Y", email: other.email, password: "password1", role_id: 3, is_custom_role: false,
    })
    expect(dup.status).toBe(409)
    expect(dup.body.message).toBe(AccessServerMessages.userAlreadyExistsElsewhere)
    const role = await env.as(owner, "POST", "/api/admin/users", {
      first_name: "X", last_name: "Y", email: `${uniq()}@example.com`, password: "password1", role_id: 77, is_custom_role: false,
    })
    expect(role.status).toBe(404)
    const noRole = await env.as(owner, "POST", "/api/admin/users", {
      first_name: "X", last_name: "Y", email: `${uniq()}@example.com`, password: "password1", role_id: 0, is_custom_role: false,
    })
    expect(noRole.status).toBe(400)
    expect(noRole.body.errors).toContainEqual({ path: "role_id", message: ValidationMessages.selectRole })
  })

  it("only the owner changes roles; nobody changes the owner's role; names can be edited", async () => {
    const owner = await env.signupVerified()
    const admin = await addMember(env, owner, BuiltInRoleIds.Admin)
    const member = await addMember(env, owner, BuiltInRoleIds.Auditor)
    const byAdmin = await env.as(admin, "PUT", "/api/team-member", {
      user_id: member.userId, first_name: "Mem", last_name: "Ber", role_id: BuiltInRoleIds.SecurityEngineer, is_custom_role: false,
    })
    expect(byAdmin.status).toBe(403)
    expect(byAdmin.body.message).toBe(AccessServerMessages.onlyOwnerChangesRoles)
    const ownerRole = await env.as(owner, "PUT", "/api/team-member", {
      user_id: owner.userId, first_name: "Ada", last_name: "Lovelace", role_id: BuiltInRoleIds.Auditor, is_custom_role: false,
    })
    expect(ownerRole.status).toBe(403)
    expect(ownerRole.body.message).toBe(AccessServerMessages.ownerRoleFixed)
    const rename = await env.as(admin, "PUT", "/api/team-member", {
      user_id: member.userId, first_name: "Renamed", last_name: "Person", role_id: BuiltInRoleIds.Auditor, is_custom_role: false,
    })
    expect(rename.status).toBe(200)
    expect(rename.body.data).toMatchObject({ first_name: "Renamed", role_name: "Auditor" })
    const change = await env.as(owner, "PUT", "/api/team-member", {
      user_id: member.userId, first_name: "Renamed", last_name: "Person", role_id: BuiltInRoleIds.SecurityEngineer, is_custom_role: false,
    })
    expect(change.status).toBe(200)
    expect(change.body.data.role_name).toBe("Security Engineer")
    const audit = await env.sql((sql) => sql`SELECT details FROM audit_log WHERE action = 'member.role_changed' AND target_id = ${String(member.userId)}`)
    expect(audit).toHaveLength(1)
    expect(audit[0].details).toEqual({ from: "Auditor", to: "Security Engineer" })
  })

  it("deletes members, but never one's own row or the owner", async () => {
    const owner = await env.signupVerified()
    const admin = await addMember(env, owner, BuiltInRoleIds.Admin)
    const member = await addMember(env, owner, BuiltInRoleIds.Auditor)
    const self = await env.as(admin, "DELETE", `/api/admin/users?user_to_delete=${admin.userId}`)
    expect(self.status).toBe(403)
    expect(self.body.message).toBe(AccessServerMessages.cannotDeleteSelf)
    const theOwner = await env.as(admin, "DELETE", `/api/admin/users?user_to_delete=${owner.userId}`)
    expect(theOwner.status).toBe(403)
    expect(theOwner.body.message).toBe(AccessServerMessages.cannotDeleteOwner)
    const ok = await env.as(admin, "DELETE", `/api/admin/users?user_to_delete=${member.userId}`)
    expect(ok.status).toBe(200)
    expect(ok.body).toEqual({ ok: true, message: SuccessMessages.teamMemberDeleted })
    // The removed member loses access at once, though their token is still unexpired.
    expect((await env.as(member, "GET", "/api/workspace-info")).status).toBe(403)
    const gone = await env.as(admin, "DELETE", `/api/admin/users?user_to_delete=${member.userId}`)
    expect(gone.status).toBe(404)
    const audit = await env.sql((sql) => sql`SELECT count(*)::int AS n FROM audit_log WHERE action = 'member.removed' AND target_id = ${String(member.userId)}`)
    expect(audit[0].n).toBe(1)
  })

  it("sends a member password-reset email whose link works", async () => {
    const owner = await env.signupVerified()
    const member = await addMember(env, owner, BuiltInRoleIds.Auditor)
    const res = await env.as(owner, "POST", "/api/admin/users/reset-password", { email: member.email })
    expect(res.status).toBe(200)
    const mail = await env.mailTo(member.email, (m) => m.subject === "Reset your password")
    expect(mail.text).toContain("Ada Lovelace asked")
    const token = new URL(mail.links[0]!).searchParams.get("token")!
    expect((await env.call("POST", "/api/reset-password", { body: { token, new_password: "Brand-n3w-pass", confirm_password: "Brand-n3w-pass" } })).status).toBe(200)
    expect((await env.login(member.email, "Brand-n3w-pass")).status).toBe(200)
    const outsider = await env.signupVerified()
    expect((await env.as(owner, "POST", "/api/admin/users/reset-password", { email: outsider.email })).status).toBe(404)
  })

  it("roles: built-in roles with permissions, and custom roles created, updated and deleted", async () => {
    const owner = await env.signupVerified()
    const roles = await env.as(owner, "GET", "/api/roles")
    expect(roles.body.data.roles.map((r: { id: number; name: string }) => [r.id, r.name])).toEqual([
      [1, "Admin"], [2, "Security Engineer"], [3, "Auditor"], [4, "Member Manager"],
    ])
    expect(roles.body.data.custom_roles).toEqual([])

    const created = await env.as(owner, "POST", "/api/roles/custom", { name: "Scanners", permissions: ["scan_service", "read_only"] })
    expect(created.status).toBe(200)
    const id = created.body.data.id
    expect(id).toBeGreaterThan(100)
    expect(created.body.data).toMatchObject({ name: "Scanners", is_custom: true })
    const dup = await env.as(owner, "POST", "/api/roles/custom", { name: "scanners", permissions: ["read_only"] })
    expect(dup.status).toBe(409)
    const builtinName = await env.as(owner, "POST", "/api/roles/custom", { name: "Admin", permissions: ["read_only"] })
    expect(builtinName.status).toBe(409)

    const updated = await env.as(owner, "PUT", `/api/roles/custom/${id}`, { name: "Scan team", permissions: ["scan_service"] })
    expect(updated.status).toBe(200)
    expect(updated.body.data.permissions.map((p: { name: string }) => p.name)).toEqual(["scan_service"])

    const member = await addMember(env, owner, id, true)
    const perms = await env.as(member, "GET", "/api/user/permissions")
    expect(perms.body.custom_roles.map((r: { name: string }) => r.name)).toEqual(["Scan team"])
    const inUse = await env.as(owner, "DELETE", `/api/roles/custom/${id}`)
    expect(inUse.status).toBe(409)
    expect(inUse.body.message).toBe(AccessServerMessages.roleInUse)
    await env.as(owner, "DELETE", `/api/admin/users?user_to_delete=${member.userId}`)
    expect((await env.as(owner, "DELETE", `/api/roles/custom/${id}`)).status).toBe(200)
    expect((await env.as(owner, "DELETE", `/api/roles/custom/${id}`)).status).toBe(404)
  })

  it("a non-owner cannot grant more than they hold", async () => {
    const owner = await env.signupVerified()
    const manager = await addMember(env, owner, BuiltInRoleIds.MemberManager)
    const escalate = await env.as(manager, "POST", "/api/admin/users", {
      first_name: "E", last_name: "Vil", email: `${uniq()}@example.com`, password: STRONG_PASSWORD, role_id: BuiltInRoleIds.Admin, is_custom_role: false,
    })
    expect(escalate.status).toBe(403)
    expect(escalate.body.message).toBe(AccessServerMessages.cannotGrantRole)
    const customEscalate = await env.as(manager, "POST", "/api/roles/custom", { name: "Everything", permissions: ["remediate_findings"] })
    expect(customEscalate.status).toBe(403)
    const fine = await env.as(manager, "POST", "/api/admin/users", {
      first_name: "O", last_name: "K", email: `${uniq()}@example.com`, password: STRONG_PASSWORD, role_id: BuiltInRoleIds.Auditor, is_custom_role: false,
    })
    expect(fine.status).toBe(200)
  })
})
