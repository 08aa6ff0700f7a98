/**
 * Invitations against a real database and SMTP: bulk invite (counts, re-send instead of duplicate, skipped reasons,
 * validation), list (inviter names, invite_link), resend (new token, old link dead), cancel (irreversible), check by
 * token, accept by a signed-in user, invitation sign-up for a new user, and the distinct answers for already
 * accepted / expired / invalid / revoked (access §2–§8).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AccessServerMessages, InvitationMessages, ValidationMessages, allInvitationsSentMessage, invitationCanceledMessage } from "../../src/contracts/messages.ts"
import { BuiltInRoleIds } from "../../src/contracts/permissions.ts"
import { addMember, startIdentityEnv, STRONG_PASSWORD, type Env, type Session, uniq } from "./support.ts"

let env: Env
beforeAll(async () => {
  env = await startIdentityEnv()
})
afterAll(async () => {
  await env?.stop()
})

const invite = (s: Session, emails: ReadonlyArray<string>, roleId: number = BuiltInRoleIds.Auditor, isCustom = false) =>
  env.as(s, "POST", "/api/admin/users/invite", { invitations: emails.map((email) => ({ email, role_id: roleId, is_custom_role: isCustom })) })

const tokenOf = async (email: string, nth = 1) => {
  const mails = await env.mailsTo(email, nth, (m) => m.subject.startsWith("You're invited"))
  const link = new URL(mails[nth - 1]!.links[0]!)
  return { link, token: link.searchParams.get("token")! }
}

describe("bulk invite", () => {
  it("sends, re-sends pending ones instead of duplicating, skips members, trims and lower-cases", async () => {
    const owner = await env.signupVerified()
    const a = `${uniq("inv")}@example.com`
    const b = `${uniq("inv")}@example.com`
    const first = await invite(owner, [`  ${a.toUpperCase()}  `, b])
    expect(first.status).toBe(200)
    expect(first.body).toMatchObject({ sent_count: 2, resent_count: 0, skipped_count: 0, skipped_emails: [], message: allInvitationsSentMessage(2) })
    const { link } = await tokenOf(a)
    expect(link.origin).toBe(env.server.config.appOrigin)
    expect(link.pathname).toBe("/invitation/accept")

    const second = await invite(owner, [a, owner.email])
    expect(second.body).toMatchObject({
      sent_count: 0, resent_count: 1, skipped_count: 1,
      skipped_emails: [{ email: owner.email, reason: AccessServerMessages.alreadyMemberSkip }],
    })
    const rows = await env.sql((sql) => sql`SELECT count(*)::int AS n FROM invitations WHERE email = ${a}`)
    expect(rows[0].n).toBe(1)
    // The re-sent invitation has a new token: the first link no longer works, the second does.
    const firstToken = (await tokenOf(a, 1)).token
    const secondToken = (await tokenOf(a, 2)).token
    expect(secondToken).not.toBe(firstToken)
    expect((await env.call("GET", `/api/invitation/verify/${firstToken}`)).status).toBe(404)
    expect((await env.call("GET", `/api/invitation/verify/${secondToken}`)).status).toBe(200)
  })

  it("rejects 0, 51 and duplicate emails with the spec's messages; skips unknown roles", async () => {
    const owner = await env.signupVerified()
    const none = await env.as(owner, "POST", "/api/admin/users/invite", { invitations: [] })
    expect(none.status).toBe(400)
    expect(none.body.errors).toContainEqual({ path: "invitations", message: ValidationMessages.invitationsMin })
    const many = await invite(owner, Array.from({ length: 51 }, (_, i) => `${uniq(`m${i}`)}@example.com`))
    expect(many.status).toBe(400)
    expect(many.body.errors).toContainEqual({ path: "invitations", message: ValidationMessages.invitationsMax })
    const dup = await invite(owner, ["dup@example.com", " DUP@example.com"])
    expect(dup.status).toBe(400)
    expect(dup.body.errors).toContainEqual({ path: "invitations.1.email", message: ValidationMessages.invitationsDuplicate })
    const badRole = await invite(owner, [`${uniq()}@example.com`], 99)
    expect(badRole.body).toMatchObject({ sent_count: 0, skipped_count: 1, skipped_emails: [{ reason: AccessServerMessages.invalidRoleSkip }] })
    const fifty = await invite(owner, Array.from({ length: 50 }, (_, i) => `${uniq(`f${i}`)}@example.com`))
    expect(fifty.body.sent_count).toBe(50)
  })
})

describe("list, resend, cancel", () => {
  it("lists with inviter names and invite_link; resend gives a new expiry; cancel is irreversible", async () => {
    const owner = await env.signupVerified()
    const email = `${uniq("lst")}@example.com`
    await invite(owner, [email])
    const { token } = await tokenOf(email)
    const list = await env.as(owner, "GET", "/api/admin/users/invitations")
    expect(list.status).toBe(200)
    const item = list.body.data.find((i: { email: string }) => i.email === email)
    expect(item).toMatchObject({
      status: "pending", role_name: "Auditor", invited_by_first_name: "Ada", invited_by_last_name: "Lovelace",
      invited_by_email: owner.email, invitation_token: token, invite_link: `${env.server.config.appOrigin}/invitation/accept?token=${token}`,
    })
    const days = (Date.parse(item.expires_at) - Date.parse(item.created_at)) / 86_400_000
    expect(days).toBeGreaterThan(6.99)
    expect(days).toBeLessThan(7.01)
    const stored = await env.sql((sql) => sql`SELECT token_hash, token_ciphertext FROM invitations WHERE id = ${item.id}`)
    expect(stored[0].token_hash).not.toBe(token)
    expect(stored[0].token_ciphertext).not.toContain(token)

    await env.sql((sql) => sql`UPDATE invitations SET expires_at = now() - interval '1 day' WHERE id = ${item.id}`)
    const expired = await env.as(owner, "GET", "/api/admin/users/invitations")
    expect(expired.body.data.find((i: { id: number }) => i.id === item.id)).toMatchObject({ status: "expired", invite_link: null })

    const resent = await env.as(owner, "POST", `/api/admin/users/invitations/${item.id}/resend`)
    expect(resent.status).toBe(200)
    expect(Date.parse(resent.body.data.expires_at)).toBeGreaterThan(Date.now() + 6.9 * 86_400_000)
    const { token: newToken } = await tokenOf(email, 2)
    expect(newToken).not.toBe(token)

    const cancel = await env.as(owner, "DELETE", `/api/admin/users/invitations/${item.id}`)
    expect(cancel.body).toEqual({ ok: true, message: invitationCanceledMessage(email) })
    expect((await env.as(owner, "DELETE", `/api/admin/users/invitations/${item.id}`)).status).toBe(409)
    expect((await env.as(owner, "POST", `/api/admin/users/invitations/${item.id}/resend`)).status).toBe(409)
    const revoked = await env.call("GET", `/api/invitation/verify/${newToken}`)
    expect(revoked.status).toBe(404)
    expect(revoked.body.message).toBe(InvitationMessages.status404)
    const audit = await env.sql((sql) => sql`SELECT action FROM audit_log WHERE target_type = 'invitation' AND target_id = ${String(item.id)} ORDER BY id`)
    expect(audit.map((r: { action: string }) => r.action)).toEqual(["invitation.sent", "invitation.resent", "invitation.canceled"])
  })
})

describe("check and accept by token", () => {
  it("check answers email, workspace_name, role_name", async () => {
    const owner = await env.signupVerified({ workspace: `Acme ${uniq()}` })
    const email = `${uniq("chk")}@example.com`
    await invite(owner, [email], BuiltInRoleIds.SecurityEngineer)
    const { token } = await tokenOf(email)
    const res = await env.call("GET", `/api/invitation/verify/${token}`)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ email, workspace_name: expect.stringMatching(/^Acme /), role_name: "Security Engineer", user_exists: false })
  })

  it("each bad state has its own answer: invalid 400, revoked/unknown 404, expired 410, already accepted 409", async () => {
    const invalid = await env.call("GET", "/api/invitation/verify/short")
    expect(invalid.status).toBe(400)
    expect(invalid.body.message).toBe(InvitationMessages.status400)
    const unknown = await env.call("GET", `/api/invitation/verify/${"Z".repeat(43)}`)
    expect(unknown.status).toBe(404)
    const owner = await env.signupVerified()
    const email = `${uniq("exp")}@example.com`
    await invite(owner, [email])
    const { token } = await tokenOf(email)
    await env.sql((sql) => sql`UPDATE invitations SET expires_at = now() - interval '1 second' WHERE email = ${email}`)
    const expired = await env.call("GET", `/api/invitation/verify/${token}`)
    expect(expired.status).toBe(410)
    expect(expired.body.message).toBe(InvitationMessages.status410)
    const acceptExpired = await env.call("POST", "/api/invitation/accept", {
      body: { invitation_token: token, first_name: "A", last_name: "B", password: STRONG_PASSWORD, confirm_password: STRONG_PASSWORD },
    })
    expect(acceptExpired.status).toBe(410)
  })

  it("a new user completes the invitation sign-up: verified user, tokens, data.workspace_name; then 409 already accepted", async () => {
    const owner = await env.signupVerified()
    const email = `${uniq("new")}@example.com`
    await invite(owner, [email], BuiltInRoleIds.SecurityEngineer)
    const { token } = await tokenOf(email)
    const body = { invitation_token: token, first_name: "Nia", last_name: "New", password: STRONG_PASSWORD, confirm_password: STRONG_PASSWORD, timezone: "Asia/Kolkata" }
    const mismatch = await env.call("POST", "/api/invitations/accept", { body: { ...body, confirm_password: "nope" } })
    expect(mismatch.status).toBe(400)
    expect(mismatch.body.errors).toContainEqual({ path: "confirm_password", message: ValidationMessages.passwordsDontMatch })
    const missing = await env.call("POST", "/api/invitations/accept", { body: { invitation_token: token } })
    expect(missing.status).toBe(400)
    expect(missing.body.errors).toContainEqual({ path: "first_name", message: ValidationMessages.firstNameRequired })

    const done = await env.call("POST", "/api/invitations/accept", { body })
    expect(done.status).toBe(200)
    expect(done.body).toMatchObject({ ok: true, data: { workspace_id: owner.workspaceId, workspace_name: expect.any(String), email } })
    const me = await env.call("GET", "/api/user-info", { token: done.body.access_token })
    expect(me.body.data).toMatchObject({ email, email_verified: true, roles: [{ name: "Security Engineer" }], timezone: { value: "Asia/Kolkata" } })
    expect((await env.login(email, STRONG_PASSWORD)).status).toBe(200)

    const again = await env.call("POST", "/api/invitation/accept", { body })
    expect(again.status).toBe(409)
    expect(again.body.message).toBe(InvitationMessages.screenAlreadyAccepted)
    expect((await env.call("GET", `/api/invitation/verify/${token}`)).status).toBe(409)
    const members = await env.as(owner, "GET", "/api/team-members")
    expect(members.body.data.map((m: { email: string }) => m.email)).toContain(email)
  })

  it("a signed-in user accepts by link and joins; another user's account cannot use the link", async () => {
    const owner = await env.signupVerified()
    const invitee = await env.signupVerified()
    const stranger = await env.signupVerified()
    await invite(owner, [invitee.email], BuiltInRoleIds.Auditor)
    const { token } = await tokenOf(invitee.email)
    const check = await env.call("GET", `/api/invitation/verify/${token}`)
    expect(check.body.user_exists).toBe(true)
    const notSignedIn = await env.call("POST", "/api/invitations/accept", { body: { invitation_token: token } })
    expect(notSignedIn.status).toBe(409)
    expect(notSignedIn.body.message).toBe(AccessServerMessages.invitationSignInRequired)
    const wrongUser = await env.call("POST", "/api/invitations/accept", { token: stranger.access, body: { invitation_token: token } })
    expect(wrongUser.status).toBe(409)
    expect(wrongUser.body.message).toBe(AccessServerMessages.invitationOtherEmail)
    const ok = await env.call("POST", "/api/invitations/accept", { token: invitee.access, body: { invitation_token: token, timezone: "UTC" } })
    expect(ok.status).toBe(200)
    expect(ok.body.data).toMatchObject({ workspace_id: owner.workspaceId })
    const list = await env.call("GET", "/api/workspaces", { token: invitee.access })
    expect(list.body.data.map((w: { workspace_id: number }) => w.workspace_id)).toContain(owner.workspaceId)
    const accepted = await env.as(owner, "GET", "/api/admin/users/invitations")
    expect(accepted.body.data[0]).toMatchObject({ status: "accepted", invite_link: null, invitation_token: null })
  })

  it("an existing member invited again is skipped; accepting while already a member answers 'already a member'", async () => {
    const owner = await env.signupVerified()
    const member = await addMember(env, owner, BuiltInRoleIds.Auditor)
    const res = await invite(owner, [member.email])
    expect(res.body.skipped_emails).toEqual([{ email: member.email, reason: AccessServerMessages.alreadyMemberSkip }])
    // Invited first, then joined another way: the link answers 'already a member'.
    const invitee = await env.signupVerified()
    await invite(owner, [invitee.email])
    const { token } = await tokenOf(invitee.email)
    await env.sql((sql) => sql`INSERT INTO memberships (workspace_id, user_id, role_id) VALUES (${owner.workspaceId}, ${invitee.userId}, 3)`)
    const accept = await env.call("POST", "/api/invitations/accept", { token: invitee.access, body: { invitation_token: token } })
    expect(accept.status).toBe(409)
    expect(accept.body.message).toBe(InvitationMessages.completionAlreadyMember)
  })

  it("parallel acceptance of one invitation: exactly one wins", async () => {
    const owner = await env.signupVerified()
    const email = `${uniq("race")}@example.com`
    await invite(owner, [email])
    const { token } = await tokenOf(email)
    const body = { invitation_token: token, first_name: "R", last_name: "Ace", password: STRONG_PASSWORD, confirm_password: STRONG_PASSWORD }
    const results = await Promise.all([0, 1, 2].map(() => env.call("POST", "/api/invitations/accept", { body })))
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409])
    const users = await env.sql((sql) => sql`SELECT count(*)::int AS n FROM users WHERE email = ${email}`)
    expect(users[0].n).toBe(1)
  })
})
