/**
 * SAML 2.0 single sign-on over HTTP (docs/sso.md) against an identity provider built with samlify in the test
 * (./saml-idp.ts): our AuthnRequest is read by the IdP, its signed Response is posted to our ACS, the person is
 * created just in time with the role their groups map to. Refused: an unsigned response, one signed with another key,
 * a tampered one, one for another audience, one answering another AuthnRequest (InResponseTo), a replayed RelayState.
 * Also our SP metadata.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BuiltInRoleIds } from "../../src/contracts/permissions.ts"
import { SsoMessages } from "../../src/contracts/sso.ts"
import { type Env, type Session, startIdentityEnv, uniq } from "../identity/support.ts"
import { makeKeyPair, makeSamlIdp, type SamlIdp, stripSignatures, tamper } from "./saml-idp.ts"

const domain = `${uniq("saml")}.example`
let env: Env
let owner: Session
let idp: SamlIdp
let sp: { entityId: string; acsUrl: string }

const start = async (email: string) => {
  const answer = await env.call("POST", "/api/sso/start", { body: { email } })
  expect(answer.status).toBe(200)
  return answer.body.data.redirect_url as string
}

/** Posts a SAMLResponse to our ACS like the browser's auto-submitted form; answers the landing URL. */
const post = async (samlResponse: string, relayState: string) => {
  const res = await fetch(sp.acsUrl, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ SAMLResponse: samlResponse, RelayState: relayState }).toString(),
  })
  expect(res.status).toBe(302)
  return new URL(res.headers.get("location")!)
}

beforeAll(async () => {
  env = await startIdentityEnv()
  owner = await env.signupVerified()
  idp = makeSamlIdp({ entityId: "https://idp.test/saml", ssoUrl: "https://idp.test/sso" })
  const saved = await env.as(owner, "PUT", `/api/workspaces/${owner.workspaceId}/sso`, {
    protocol: "saml", enabled: true, require_sso: false, domains: [domain],
    saml: { idp_entity_id: idp.entityId, sso_url: idp.ssoUrl, certificate: idp.keys.certificate },
    groups_attribute: "groups", default_role_id: BuiltInRoleIds.Auditor,
    group_roles: [{ group: "secops", role_id: BuiltInRoleIds.SecurityEngineer }],
  })
  expect(saved.status).toBe(200)
  sp = { entityId: saved.body.data.service_provider.saml_entity_id, acsUrl: saved.body.data.service_provider.saml_acs_url }
}, 120_000)

afterAll(async () => {
  await env?.stop()
})

describe("SAML single sign-on", () => {
  it("serves our SP metadata (entity id, ACS URL, signed assertions wanted)", async () => {
    const res = await fetch(`${env.base}/api/sso/saml/${owner.workspaceId}/metadata`)
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toContain("application/samlmetadata+xml")
    const xml = await res.text()
    expect(xml).toContain(`entityID="${sp.entityId}"`)
    expect(xml).toContain(`Location="${sp.acsUrl}"`)
    expect(xml).toContain('WantAssertionsSigned="true"')
  })

  it("signs a person in just in time with the role of their group", async () => {
    const redirect = await start(`sam@${domain}`)
    expect(redirect.startsWith(`${idp.ssoUrl}?SAMLRequest=`)).toBe(true)
    const { samlResponse, relayState } = await idp.respond(redirect, { email: `sam@${domain}`, groups: ["secops"] }, sp)
    const landing = await post(samlResponse, relayState)
    expect(landing.pathname).toBe("/login/sso")
    const session = await env.call("POST", "/api/sso/exchange", { body: { code: landing.searchParams.get("code") } })
    expect(session.status).toBe(200)
    expect(session.body.data).toMatchObject({ email: `sam@${domain}`, email_verified: true })
    expect(session.body.data.roles[0].id).toBe(BuiltInRoleIds.SecurityEngineer)
    // The same response posted again: its RelayState was used.
    const replay = await post(samlResponse, relayState)
    expect(replay.searchParams.get("error")).toBe("signInExpired")
  })

  it("refuses an unsigned response, one signed with another key, and a tampered one", async () => {
    const unsignedStart = await start(`una@${domain}`)
    const unsigned = await idp.respond(unsignedStart, { email: `una@${domain}` }, sp)
    expect((await post(stripSignatures(unsigned.samlResponse), unsigned.relayState)).searchParams.get("error")).toBe("signInFailed")

    const impostor = makeSamlIdp({ entityId: idp.entityId, ssoUrl: idp.ssoUrl, keys: makeKeyPair("impostor") })
    const impostorStart = await start(`una@${domain}`)
    const forged = await impostor.respond(impostorStart, { email: `una@${domain}`, groups: ["secops"] }, sp)
    expect((await post(forged.samlResponse, forged.relayState)).searchParams.get("error")).toBe("signInFailed")

    const tamperedStart = await start(`una@${domain}`)
    const genuine = await idp.respond(tamperedStart, { email: `una@${domain}`, groups: ["readers"] }, sp)
    const promoted = tamper(genuine.samlResponse, ">readers<", ">secops<")
    expect(promoted).not.toBe(genuine.samlResponse)
    expect((await post(promoted, genuine.relayState)).searchParams.get("error")).toBe("signInFailed")

    const created = await env.sql((sql) => sql`SELECT count(*)::int AS n FROM users WHERE email = ${`una@${domain}`}`)
    expect(created[0].n).toBe(0)
  })

  it("refuses a response for another audience, and one answering another AuthnRequest", async () => {
    const audienceStart = await start(`ann@${domain}`)
    const elsewhere = await idp.respond(audienceStart, { email: `ann@${domain}` }, { ...sp, entityId: "https://other-sp.example/metadata" })
    expect((await post(elsewhere.samlResponse, elsewhere.relayState)).searchParams.get("error")).toBe("signInFailed")

    const first = await start(`ann@${domain}`)
    const second = await start(`ann@${domain}`)
    const answerToFirst = await idp.respond(first, { email: `ann@${domain}` }, sp)
    const secondRelay = new URL(second).searchParams.get("RelayState")!
    expect((await post(answerToFirst.samlResponse, secondRelay)).searchParams.get("error")).toBe("signInFailed")
    const failures = await env.sql((sql) => sql`SELECT count(*)::int AS n FROM audit_log WHERE workspace_id = ${owner.workspaceId} AND action = 'auth.sso_sign_in_failed'`)
    expect(failures[0].n).toBeGreaterThanOrEqual(5)
  })

  it("refuses a certificate that does not parse as X.509 with a field error on saml.certificate, keeping the saved one", async () => {
    const body = idp.keys.certificate.split("\n").filter((l) => !l.startsWith("-----")).join("")
    // The PEM markers are there (the contract's check passes) but the body is damaged: half of it, then a wrong byte.
    const damaged = `-----BEGIN CERTIFICATE-----\n${body.slice(0, Math.floor(body.length / 2)).replace(/.$/, "A")}\n-----END CERTIFICATE-----`
    for (const certificate of [damaged, "-----BEGIN CERTIFICATE-----\nnot base64 at all!\n-----END CERTIFICATE-----"]) {
      const refused = await env.as(owner, "PUT", `/api/workspaces/${owner.workspaceId}/sso`, {
        protocol: "saml", enabled: true, require_sso: false, domains: [domain],
        saml: { idp_entity_id: idp.entityId, sso_url: idp.ssoUrl, certificate },
        groups_attribute: "groups", default_role_id: BuiltInRoleIds.Auditor, group_roles: [],
      })
      expect(refused.status).toBe(400)
      expect(refused.body.message).toBe(SsoMessages.certificateUnreadable)
      expect(refused.body.errors).toEqual([{ path: "saml.certificate", message: SsoMessages.certificateUnreadable }])
    }
    const kept = await env.as(owner, "GET", `/api/workspaces/${owner.workspaceId}/sso`)
    expect(kept.body.data.connection.saml.certificate).toBe(idp.keys.certificate.trim())
  })

  it("signs people in with a certificate saved on one line (a PEM pasted into the settings page's text field)", async () => {
    // A browser strips the line breaks of text pasted into a single-line field; the library refuses such a PEM.
    const oneLine = idp.keys.certificate.replace(/\r?\n/g, "")
    const saved = await env.as(owner, "PUT", `/api/workspaces/${owner.workspaceId}/sso`, {
      protocol: "saml", enabled: true, require_sso: false, domains: [domain],
      saml: { idp_entity_id: idp.entityId, sso_url: idp.ssoUrl, certificate: oneLine },
      groups_attribute: "groups", default_role_id: BuiltInRoleIds.Auditor,
      group_roles: [{ group: "secops", role_id: BuiltInRoleIds.SecurityEngineer }],
    })
    expect(saved.status).toBe(200)
    expect(saved.body.data.connection.saml.certificate).toBe(idp.keys.certificate.trim())
    const redirect = await start(`olive@${domain}`)
    const { samlResponse, relayState } = await idp.respond(redirect, { email: `olive@${domain}`, groups: ["secops"] }, sp)
    const landing = await post(samlResponse, relayState)
    expect(landing.searchParams.get("error")).toBeNull()
    const session = await env.call("POST", "/api/sso/exchange", { body: { code: landing.searchParams.get("code") } })
    expect(session.status).toBe(200)
    expect(session.body.data.roles[0].id).toBe(BuiltInRoleIds.SecurityEngineer)
  })
})
