/**
 * OpenID Connect single sign-on end to end over HTTP (docs/sso.md), against node-oidc-provider started in the test:
 * an admin configures the workspace's provider; a person of the owned domain starts at POST /api/sso/start, signs in
 * at the provider's own pages, comes back to our callback, is created just in time with the role their groups map
 * to, and exchanges the one-time code for a session. Then: the mapping is re-applied on the next sign-in, "SSO
 * required" refuses password sign-in and reset (the owner keeps a password), a replayed state or code is refused,
 * a tampered issuer, a code of another client and a provider announcing another issuer are refused, and without
 * INTEGRATIONS_ALLOW_PRIVATE_TARGETS the provider on 127.0.0.1 is not called at all.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BuiltInRoleIds } from "../../src/contracts/permissions.ts"
import { SsoMessages } from "../../src/contracts/sso.ts"
import { type Env, type Session, startIdentityEnv, uniq } from "../identity/support.ts"
import { browse, type OidcProviderHandle, startOidcProvider } from "./providers.ts"

const domain = `${uniq("corp")}.example`
let env: Env
let idp: OidcProviderHandle
let owner: Session
let callbackUrl: string

const configure = (extra: Record<string, unknown> = {}) =>
  env.as(owner, "PUT", `/api/workspaces/${owner.workspaceId}/sso`, {
    protocol: "oidc",
    enabled: true,
    require_sso: false,
    domains: [domain],
    oidc: { issuer: idp.issuer, client_id: idp.clients[0]!.client_id, client_secret: idp.clients[0]!.client_secret },
    groups_attribute: "groups",
    default_role_id: BuiltInRoleIds.Auditor,
    group_roles: [
      { group: "security", role_id: BuiltInRoleIds.SecurityEngineer },
      { group: "it-admins", role_id: BuiltInRoleIds.Admin },
    ],
    ...extra,
  })

/** Start → the provider's pages as `login` → our callback; answers our callback's redirect (Location). */
const signInAt = async (email: string, login: string) => {
  const start = await env.call("POST", "/api/sso/start", { body: { email, return_to: "/dashboard/scans" } })
  expect(start.status).toBe(200)
  const back = await browse(start.body.data.redirect_url, login, callbackUrl)
  const landing = await fetch(back, { redirect: "manual" })
  expect(landing.status).toBe(302)
  return { back, location: new URL(landing.headers.get("location")!) }
}

const exchange = (code: string) => env.call("POST", "/api/sso/exchange", { body: { code } })

beforeAll(async () => {
  process.env.INTEGRATIONS_ALLOW_PRIVATE_TARGETS = "1"
  env = await startIdentityEnv()
  callbackUrl = `${env.base}/api/sso/oidc/callback`
  idp = await startOidcProvider({ redirectUri: callbackUrl, clients: [
    { client_id: "cloud-audit", client_secret: "test-client-secret-0123456789abcdef" },
    { client_id: "another-app", client_secret: "another-secret-0123456789abcdef" },
  ] })
  owner = await env.signupVerified({ email: `owner@${domain}` })
}, 120_000)

afterAll(async () => {
  await idp?.stop()
  await env?.stop()
  delete process.env.INTEGRATIONS_ALLOW_PRIVATE_TARGETS
})

describe("OIDC single sign-on", () => {
  it("is configured by the owner; the secret is never answered and the change is audited", async () => {
    const saved = await configure()
    expect(saved.status).toBe(200)
    expect(saved.body.message).toBe(SsoMessages.saved)
    const connection = saved.body.data.connection
    expect(connection).toMatchObject({ protocol: "oidc", domains: [domain], oidc: { issuer: idp.issuer, client_id: "cloud-audit", client_secret_set: true } })
    expect(JSON.stringify(saved.body)).not.toContain(idp.clients[0]!.client_secret)
    expect(saved.body.data.service_provider.oidc_redirect_uri).toBe(callbackUrl)
    const stored = await env.sql((sql) => sql`SELECT oidc_client_secret_sealed FROM sso_connections WHERE workspace_id = ${owner.workspaceId}`)
    expect(stored[0].oidc_client_secret_sealed).toMatch(/^v1\./)
    expect(stored[0].oidc_client_secret_sealed).not.toContain(idp.clients[0]!.client_secret)
    const audit = await env.sql((sql) => sql`SELECT details FROM audit_log WHERE workspace_id = ${owner.workspaceId} AND action = 'sso.configured'`)
    expect(audit).toHaveLength(1)
    // Saving again without the secret keeps it.
    const again = await configure({ oidc: { issuer: idp.issuer, client_id: "cloud-audit" } })
    expect(again.status).toBe(200)
    expect(again.body.data.connection.oidc.client_secret_set).toBe(true)
  })

  it("refuses a domain another workspace owns, and non-admins", async () => {
    const other = await env.signupVerified()
    const taken = await env.as(other, "PUT", `/api/workspaces/${other.workspaceId}/sso`, {
      protocol: "oidc", enabled: true, require_sso: false, domains: [domain],
      oidc: { issuer: idp.issuer, client_id: "x", client_secret: "y" }, groups_attribute: "groups",
      default_role_id: BuiltInRoleIds.Auditor, group_roles: [],
    })
    expect(taken.status).toBe(409)
    expect(taken.body.message).toContain(SsoMessages.domainTaken)
    const foreign = await env.as(other, "GET", `/api/workspaces/${owner.workspaceId}/sso`)
    expect(foreign.status).toBe(403)
  })

  it("creates the person just in time with the role of their group, then signs them in", async () => {
    idp.accounts.set("alice", { email: `alice@${domain}`, given_name: "Alice", family_name: "Liddell", groups: ["staff", "security"] })
    const { location } = await signInAt(`alice@${domain}`, "alice")
    expect(location.pathname).toBe("/login/sso")
    const code = location.searchParams.get("code")
    expect(code).toBeTruthy()
    const session = await exchange(code!)
    expect(session.status).toBe(200)
    expect(session.body.data).toMatchObject({ email: `alice@${domain}`, email_verified: true, first_name: "Alice", last_name: "Liddell" })
    expect(session.body.data.roles[0].id).toBe(BuiltInRoleIds.SecurityEngineer)
    expect(session.body.return_to).toBe("/dashboard/scans")
    // The session works like a password session.
    const me = await env.call("GET", "/api/user-info", { token: session.body.access_token })
    expect(me.status).toBe(200)
    // The code is single use.
    const reused = await exchange(code!)
    expect(reused.status).toBe(400)
    expect(reused.body.message).toBe(SsoMessages.codeInvalid)
    const audit = await env.sql((sql) => sql`SELECT action FROM audit_log WHERE workspace_id = ${owner.workspaceId} AND action IN ('auth.sso_sign_in', 'member.added')`)
    expect(audit.map((r: { action: string }) => r.action).sort()).toEqual(["auth.sso_sign_in", "member.added"])
  })

  it("re-applies the mapping on every sign-in (groups changed at the provider)", async () => {
    idp.accounts.set("alice", { email: `alice@${domain}`, groups: ["it-admins"] })
    const admin = await exchange((await signInAt(`alice@${domain}`, "alice")).location.searchParams.get("code")!)
    expect(admin.body.data.roles[0].id).toBe(BuiltInRoleIds.Admin)
    idp.accounts.set("alice", { email: `alice@${domain}`, groups: [] })
    const fallback = await exchange((await signInAt(`alice@${domain}`, "alice")).location.searchParams.get("code")!)
    expect(fallback.body.data.roles[0].id).toBe(BuiltInRoleIds.Auditor)
    const users = await env.sql((sql) => sql`SELECT count(*)::int AS n FROM users WHERE email = ${`alice@${domain}`}`)
    expect(users[0].n).toBe(1)
  })

  it("refuses a replayed state (the callback URL followed twice)", async () => {
    idp.accounts.set("bob", { email: `bob@${domain}`, groups: [] })
    const { back } = await signInAt(`bob@${domain}`, "bob")
    const replay = await fetch(back, { redirect: "manual" })
    expect(new URL(replay.headers.get("location")!).searchParams.get("error")).toBe("signInExpired")
  })

  it("refuses an answer whose issuer was tampered with, and a code issued to another client", async () => {
    idp.accounts.set("carol", { email: `carol@${domain}`, groups: [] })
    const start = await env.call("POST", "/api/sso/start", { body: { email: `carol@${domain}` } })
    const back = new URL(await browse(start.body.data.redirect_url, "carol", callbackUrl))
    back.searchParams.set("iss", "https://evil.example")
    const tampered = await fetch(back, { redirect: "manual" })
    expect(new URL(tampered.headers.get("location")!).searchParams.get("error")).toBe("signInFailed")

    // A sign-in started for another client of the same provider: its code, delivered with our state, is refused.
    const ours = new URL((await env.call("POST", "/api/sso/start", { body: { email: `carol@${domain}` } })).body.data.redirect_url)
    const theirs = new URL(ours)
    theirs.searchParams.set("client_id", "another-app")
    const foreign = new URL(await browse(theirs.href, "carol", callbackUrl))
    const swapped = new URL(callbackUrl)
    swapped.searchParams.set("code", foreign.searchParams.get("code")!)
    swapped.searchParams.set("state", ours.searchParams.get("state")!)
    swapped.searchParams.set("iss", foreign.searchParams.get("iss")!)
    const refused = await fetch(swapped, { redirect: "manual" })
    expect(new URL(refused.headers.get("location")!).searchParams.get("error")).toBe("signInFailed")
    const failures = await env.sql((sql) => sql`SELECT count(*)::int AS n FROM audit_log WHERE workspace_id = ${owner.workspaceId} AND action = 'auth.sso_sign_in_failed'`)
    expect(failures[0].n).toBeGreaterThanOrEqual(2)
  })

  it("refuses an email the provider does not vouch for, and one outside the owned domains", async () => {
    idp.accounts.set("dave", { email: `dave@${domain}`, email_verified: false, groups: [] })
    const unverified = await signInAt(`dave@${domain}`, "dave")
    expect(unverified.location.searchParams.get("error")).toBe("emailNotVerified")
    idp.accounts.set("eve", { email: "eve@elsewhere.example", groups: ["it-admins"] })
    const outside = await signInAt(`eve@${domain}`, "eve")
    expect(outside.location.searchParams.get("error")).toBe("emailDomainMismatch")
    const created = await env.sql((sql) => sql`SELECT count(*)::int AS n FROM users WHERE email IN (${`dave@${domain}`}, 'eve@elsewhere.example')`)
    expect(created[0].n).toBe(0)
  })

  it("answers 404 for a domain without single sign-on", async () => {
    const none = await env.call("POST", "/api/sso/start", { body: { email: "someone@no-sso.example" } })
    expect(none.status).toBe(404)
    expect(none.body.message).toBe(SsoMessages.noConnectionForDomain)
  })

  it("with SSO required, refuses password sign-in and reset to the domain's people; the owner keeps a password", async () => {
    expect((await configure({ require_sso: true, oidc: { issuer: idp.issuer, client_id: "cloud-audit" } })).status).toBe(200)
    const member = await env.login(`alice@${domain}`, "whatever-password")
    expect(member.status).toBe(403)
    expect(member.body.message).toBe(SsoMessages.ssoRequired)
    const unknown = await env.login(`nobody@${domain}`, "whatever-password")
    expect(unknown.status).toBe(403)
    const forgot = await env.call("POST", "/api/forgot-password", { body: { email: `alice@${domain}` } })
    expect(forgot.status).toBe(403)
    expect(forgot.body.message).toBe(SsoMessages.ssoRequired)
    const breakGlass = await env.login(owner.email, owner.password)
    expect(breakGlass.status).toBe(200)
    // SSO itself still works.
    idp.accounts.set("alice", { email: `alice@${domain}`, groups: ["security"] })
    const sso = await exchange((await signInAt(`alice@${domain}`, "alice")).location.searchParams.get("code")!)
    expect(sso.status).toBe(200)
    expect(sso.body.data.roles[0].id).toBe(BuiltInRoleIds.SecurityEngineer)
    const refusals = await env.sql((sql) => sql`SELECT count(*)::int AS n FROM audit_log WHERE action = 'auth.sign_in_sso_required'`)
    expect(refusals[0].n).toBe(2)
  })

  it("refuses a provider announcing another issuer than the configured one", async () => {
    const liar = await startOidcProvider({ redirectUri: callbackUrl, announcedIssuer: (url) => `${url}/somebody-else` })
    try {
      const other = await env.signupVerified()
      const otherDomain = `${uniq("liar")}.example`
      const saved = await env.as(other, "PUT", `/api/workspaces/${other.workspaceId}/sso`, {
        protocol: "oidc", enabled: true, require_sso: false, domains: [otherDomain],
        oidc: { issuer: liar.issuer, client_id: "cloud-audit", client_secret: "test-client-secret-0123456789abcdef" },
        groups_attribute: "groups", default_role_id: BuiltInRoleIds.Auditor, group_roles: [],
      })
      expect(saved.status).toBe(200)
      const start = await env.call("POST", "/api/sso/start", { body: { email: `x@${otherDomain}` } })
      expect(start.status).toBe(503)
      expect(start.body.message).toBe(SsoMessages.discoveryFailed)
    } finally {
      await liar.stop()
    }
  })

  it("does not call a provider on a private address unless INTEGRATIONS_ALLOW_PRIVATE_TARGETS=1", async () => {
    const other = await env.signupVerified()
    const otherDomain = `${uniq("private")}.example`
    // https (so the scheme is not what refuses it) to the provider's loopback address.
    const issuer = idp.issuer.replace("http:", "https:")
    const saved = await env.as(other, "PUT", `/api/workspaces/${other.workspaceId}/sso`, {
      protocol: "oidc", enabled: true, require_sso: false, domains: [otherDomain],
      oidc: { issuer, client_id: "cloud-audit", client_secret: "s" }, groups_attribute: "groups",
      default_role_id: BuiltInRoleIds.Auditor, group_roles: [],
    })
    expect(saved.status).toBe(200)
    const before = idp.connections()
    delete process.env.INTEGRATIONS_ALLOW_PRIVATE_TARGETS
    try {
      const start = await env.call("POST", "/api/sso/start", { body: { email: `x@${otherDomain}` } })
      expect(start.status).toBe(503)
      expect(start.body.message).toBe(SsoMessages.discoveryFailed)
      expect(idp.connections()).toBe(before)
    } finally {
      process.env.INTEGRATIONS_ALLOW_PRIVATE_TARGETS = "1"
    }
  })
})
