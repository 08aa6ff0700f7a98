/**
 * Account-existence oracles (issue 27, problem 4). Any signed-up user could ask, without limit, whether an address has
 * an account: through an email change ('already exists'), creating a user ('invite them instead') and an invitation
 * check (`user_exists`) of a link they made themselves. Now:
 * - the email change answers the same whatever exists (a taken address gets a notice by mail instead of a link), and
 *   is limited per user;
 * - create-user keeps its distinct answer (it must: nothing was created) but such answers are budgeted per user and
 *   per client, after which every create-user call waits;
 * - the invitation check and the invitation sign-up are limited per client and per inviter (distinct invitations);
 * - sign-up's 409 'already exists' and verification's 404 / 409 (answers the spec requires) have per-client budgets.
 * The server trusts one proxy (TRUST_PROXY=1): each test names its own client in X-Forwarded-For.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BuiltInRoleIds } from "../../src/contracts/permissions.ts"
import { AccessServerMessages, SignupMessages, StatusMessages, VerificationMessages } from "../../src/contracts/messages.ts"
import { startIdentityEnv, STRONG_PASSWORD, type Env, type Session, uniq } from "./support.ts"

let env: Env
beforeAll(async () => {
  env = await startIdentityEnv({ env: { TRUST_PROXY: "1" } })
})
afterAll(async () => {
  await env?.stop()
})

const from = (client: string, s: Session | undefined, method: string, path: string, body?: unknown) =>
  env.call(method, path, {
    headers: { "x-forwarded-for": client },
    ...(s === undefined ? {} : { token: s.access, workspaceId: s.workspaceId }),
    ...(body === undefined ? {} : { body }),
  })

const expectRateLimited = (res: { status: number; body: any }) => {
  expect(res.status).toBe(429)
  expect(res.body).toMatchObject({ _tag: "RateLimited", message: StatusMessages.rateLimited, retry_after_seconds: expect.any(Number) })
}

describe("email change", () => {
  it("answers the same for a taken and a free address, mails the taken one a notice, and is limited per user", async () => {
    const s = await env.signupVerified()
    const other = await env.signupVerified()
    const client = "198.51.100.31"
    const change = (email: string) => from(client, s, "PUT", "/api/update-user-info", { email, first_name: "Ada", last_name: "Lovelace" })
    const free = `${uniq("free")}@example.com`
    const taken = await change(other.email)
    const answered = await change(free)
    expect(taken.status).toBe(200)
    expect(answered.status).toBe(200)
    expect(taken.body).toEqual(answered.body)
    expect(taken.body.message).toBe(AccessServerMessages.emailChangePending)
    // The free address gets its verification link; the taken one a notice with no token, and its account is untouched.
    const link = new URL((await env.mailTo(free, (m) => m.subject === "Verify your email address")).links[0]!)
    expect(link.searchParams.get("token")).toEqual(expect.any(String))
    const notice = await env.mailTo(other.email, (m) => m.subject === "This email address is already in use")
    expect(notice.links.every((l) => new URL(l).search === "")).toBe(true)
    expect((await env.login(other.email, other.password)).status).toBe(200)
    expect((await env.login(s.email, s.password)).status).toBe(200)
    // The taken address never became s's pending login; the free one did and still verifies.
    expect((await env.call("GET", `/api/verify-email${link.search}`)).status).toBe(200)
    expect((await env.login(free, s.password)).status).toBe(200)
    // Five email changes an hour per user, whatever the addresses, then 429.
    const fresh = await env.signupVerified()
    for (let i = 0; i < 5; i++) {
      const res = await from(`198.51.100.${40 + i}`, fresh, "PUT", "/api/update-user-info", {
        email: i % 2 === 0 ? other.email : `${uniq("n")}@example.com`, first_name: "F", last_name: "R",
      })
      expect(res.status).toBe(200)
    }
    expectRateLimited(await from("198.51.100.49", fresh, "PUT", "/api/update-user-info", { email: other.email, first_name: "F", last_name: "R" }))
    // A profile update without an email change is not counted.
    expect((await from("198.51.100.49", fresh, "PUT", "/api/update-user-info", { email: fresh.email, first_name: "G", last_name: "R" })).status).toBe(200)
  })
})

describe("create user", () => {
  const create = (client: string, s: Session, email: string) =>
    from(client, s, "POST", "/api/admin/users", {
      first_name: "New", last_name: "User", email, password: STRONG_PASSWORD, role_id: BuiltInRoleIds.Auditor, is_custom_role: false,
    })

  it("budgets the 'invite them instead' answers per user: past ten an hour, every create-user call waits", async () => {
    const owner = await env.signupVerified()
    const elsewhere = await env.signupVerified()
    for (let i = 0; i < 10; i++) {
      const res = await create(`203.0.113.${10 + i}`, owner, elsewhere.email)
      expect(res.status).toBe(409)
      expect(res.body.message).toBe(AccessServerMessages.userAlreadyExistsElsewhere)
    }
    expectRateLimited(await create("203.0.113.30", owner, elsewhere.email))
    expectRateLimited(await create("203.0.113.31", owner, `${uniq("nobody")}@example.com`))
    // Another user elsewhere is not held up.
    const colleague = await env.signupVerified()
    expect((await create("203.0.113.32", colleague, `${uniq("new")}@example.com`)).status).toBe(200)
  })

  it("budgets them per client too, across users", async () => {
    const client = "203.0.113.77"
    const elsewhere = await env.signupVerified()
    for (let i = 0; i < 10; i++) {
      const owner = await env.signupVerified()
      expect((await create(client, owner, elsewhere.email)).status).toBe(409)
    }
    const another = await env.signupVerified()
    expectRateLimited(await create(client, another, `${uniq("nobody")}@example.com`))
    expect((await create("203.0.113.78", another, `${uniq("new")}@example.com`)).status).toBe(200)
  })
})

describe("invitation check", () => {
  const inviteAll = async (owner: Session, emails: ReadonlyArray<string>) => {
    const res = await env.as(owner, "POST", "/api/admin/users/invite", {
      invitations: emails.map((email) => ({ email, role_id: BuiltInRoleIds.Auditor, is_custom_role: false })),
    })
    expect(res.status).toBe(200)
    const list = await env.as(owner, "GET", "/api/admin/users/invitations")
    const tokens = new Map<string, string>()
    for (const inv of list.body.data) tokens.set(inv.email, inv.invitation_token)
    return emails.map((e) => tokens.get(e)!)
  }

  it("is limited per client: thirty checks per 15 minutes", async () => {
    const owner = await env.signupVerified()
    const [token] = await inviteAll(owner, [`${uniq("inv")}@example.com`])
    for (let i = 0; i < 30; i++) expect((await from("192.0.2.70", undefined, "GET", `/api/invitation/verify/${token}`)).status).toBe(200)
    expectRateLimited(await from("192.0.2.70", undefined, "GET", `/api/invitation/verify/${token}`))
    expect((await from("192.0.2.71", undefined, "GET", `/api/invitation/verify/${token}`)).status).toBe(200)
  })

  it("is limited per inviter: fifty distinct invitations an hour, whatever the clients; an invitee may look again", async () => {
    const owner = await env.signupVerified()
    const existing = await env.signupVerified()
    const emails = [existing.email, ...Array.from({ length: 49 }, () => `${uniq("inv")}@example.com`)]
    const tokens = await inviteAll(owner, emails)
    const answers = []
    for (let i = 0; i < tokens.length; i++) answers.push(await from(`192.0.2.${100 + (i % 100)}`, undefined, "GET", `/api/invitation/verify/${tokens[i]}`))
    expect(answers.map((a) => a.status)).toEqual(tokens.map(() => 200))
    expect(answers[0]!.body.user_exists).toBe(true)
    const [more, another] = await inviteAll(owner, [`${uniq("more")}@example.com`, `${uniq("more")}@example.com`])
    expectRateLimited(await from("192.0.2.250", undefined, "GET", `/api/invitation/verify/${more}`))
    // The invitation sign-up (which answers 409 account_exists) shares the budget.
    expectRateLimited(await from("192.0.2.251", undefined, "POST", "/api/invitation/accept", {
      invitation_token: another, first_name: "A", last_name: "B", password: STRONG_PASSWORD, confirm_password: STRONG_PASSWORD,
    }))
    // Already checked invitations still answer (their invitees open the link again).
    expect((await from("192.0.2.252", undefined, "GET", `/api/invitation/verify/${tokens[1]}`)).status).toBe(200)
  })
})

describe("answers the spec requires to differ", () => {
  it("sign-up: ten 'already exists' answers an hour per client, then every sign-up from it waits", async () => {
    const existing = await env.signupVerified()
    const signup = (client: string, email: string) =>
      from(client, undefined, "POST", "/api/signup", {
        first_name: "Pro", last_name: "Be", email, password: STRONG_PASSWORD, workspace_name: `ws-${uniq()}`,
      })
    for (let i = 0; i < 10; i++) {
      const res = await signup("192.0.2.130", existing.email)
      expect(res.status).toBe(409)
      expect(res.body.message).toBe(SignupMessages.accountExistsVerified)
    }
    const limited = await signup("192.0.2.130", `${uniq("new")}@example.com`)
    expect(limited.status).toBe(429)
    expect(limited.body).toMatchObject({ _tag: "RateLimited", message: SignupMessages.tooManyAttempts })
    expect((await signup("192.0.2.131", `${uniq("new")}@example.com`)).status).toBe(200)
  })

  it("email verification: twenty 404 / 409 answers an hour per client, then every verification from it waits", async () => {
    const verified = await env.signupVerified()
    const token = "x".repeat(43)
    for (let i = 0; i < 20; i++) {
      const email = i % 2 === 0 ? verified.email : `${uniq("nobody")}@example.com`
      const res = await from("192.0.2.140", undefined, "GET", `/api/verify-email?token=${token}&email=${encodeURIComponent(email)}`)
      expect(res.status).toBe(i % 2 === 0 ? 409 : 404)
      expect(res.body.message).toBe(i % 2 === 0 ? VerificationMessages.status409 : VerificationMessages.status404)
    }
    expectRateLimited(await from("192.0.2.140", undefined, "GET", `/api/verify-email?token=${token}&email=${encodeURIComponent(verified.email)}`))
    expect((await from("192.0.2.141", undefined, "GET", `/api/verify-email?token=${token}&email=${encodeURIComponent(verified.email)}`)).status).toBe(409)
  })
})
