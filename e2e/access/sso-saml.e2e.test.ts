/**
 * SAML 2.0 single sign-on in Chromium against the real product and a real SAML identity provider (samlify, served
 * over HTTP on 127.0.0.1 by this test: tests/sso/saml-idp.ts `startSamlIdpServer`). The workspace owner configures the
 * SAML connection through the API (owned domain, group → role mapping, the IdP's entity id, SSO URL and certificate).
 * A person of that domain clicks "Sign in with SSO", types their work email, is redirected to the IdP with our
 * AuthnRequest, signs in there, and the IdP's page posts the signed SAMLResponse back to our ACS: they land on the
 * dashboard as a just-in-time member with the role their group maps to (and the default role without a mapped group).
 * Then "SSO required": the password sign-in of a member of that domain is refused with the message telling them to
 * use SSO, SSO still signs them in (with the role of their groups at this sign-in), and the owner (break-glass) still signs in with a password.
 * Our screens are photographed at 1280 and 390 px and checked with axe; the IdP's pages are not ours (photographed only).
 */
import { randomUUID } from "node:crypto"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest"
import { StorageKeys } from "../../src/contracts/constants.ts"
import { BuiltInRoleIds } from "../../src/contracts/permissions.ts"
import { SsoMessages } from "../../src/contracts/sso.ts"
import type { TeamMember } from "../../src/contracts/team.ts"
import { type SamlIdpServer, startSamlIdpServer } from "../../tests/sso/saml-idp.ts"
import { apiAs, baseUrl, fill, look, newPerson, signIn, signUpAndVerifyViaApi, waitForPath } from "../support/access.ts"
import { launchBrowser, newPage, shot } from "../support/browser.ts"

let browser: Browser
let idp: SamlIdpServer
const owner = newPerson("saml-owner")
const domain = `saml-${randomUUID().slice(0, 8)}.example`
const idpEntityId = `https://idp-${randomUUID().slice(0, 8)}.test/saml`
let workspaceId = 0

interface SsoSettingsAnswer {
  readonly data: {
    readonly connection: { readonly protocol: string; readonly domains: ReadonlyArray<string> } | null
    readonly service_provider: { readonly saml_acs_url: string; readonly saml_entity_id: string }
  }
}

const configure = (requireSso: boolean) =>
  apiAs(owner)<SsoSettingsAnswer>(`/api/workspaces/${workspaceId}/sso`, {
    method: "PUT",
    body: JSON.stringify({
      protocol: "saml", enabled: true, require_sso: requireSso, domains: [domain],
      saml: { idp_entity_id: idp.idp.entityId, sso_url: idp.idp.ssoUrl, certificate: idp.idp.keys.certificate },
      groups_attribute: "groups", default_role_id: BuiltInRoleIds.Auditor,
      group_roles: [{ group: "secops", role_id: BuiltInRoleIds.SecurityEngineer }],
    }),
  })

const member = async (email: string): Promise<TeamMember | undefined> =>
  (await apiAs(owner)<{ data: ReadonlyArray<TeamMember> }>("/api/team-members")).data.find((m) => m.email === email)

beforeAll(async () => {
  browser = await launchBrowser()
  await signUpAndVerifyViaApi(owner)
  const workspaces = await apiAs(owner)<{ data: Array<{ workspace_id: number }> }>("/api/workspaces")
  workspaceId = workspaces.data[0]!.workspace_id
  // The values an admin registers at their IdP come from our settings answer (docs/sso.md).
  const settings = await apiAs(owner)<SsoSettingsAnswer>(`/api/workspaces/${workspaceId}/sso`)
  expect(settings.data.service_provider.saml_acs_url).toBe(`${baseUrl()}/api/sso/saml/acs`)
  idp = await startSamlIdpServer(
    { entityId: settings.data.service_provider.saml_entity_id, acsUrl: settings.data.service_provider.saml_acs_url },
    idpEntityId,
  )
  const saved = await configure(false)
  expect(saved.data.connection?.protocol).toBe("saml")
  expect(saved.data.connection?.domains).toEqual([domain])
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await idp?.stop()
})

const open = async (): Promise<Page> => {
  const page = await newPage(browser, 1280)
  onTestFailed(async ({ task }) => {
    await shot(page, `failed-${task.name.replace(/[^a-z0-9]+/gi, "-").slice(0, 60)}`).catch(() => {})
  })
  return page
}

/** /login → "Sign in with SSO" → work email → the IdP's sign-in page (our AuthnRequest in its URL). */
const toIdp = async (page: Page, email: string, screens?: string): Promise<void> => {
  await page.goto(`${baseUrl()}/login`)
  await page.getByRole("link", { name: "Sign in with SSO" }).click()
  await waitForPath(page, "/login/sso")
  await page.getByRole("heading", { level: 1, name: "Sign in with SSO" }).waitFor()
  if (screens !== undefined) await look(page, screens)
  await fill(page, "Work email", email)
  await page.getByRole("button", { name: "Continue with SSO" }).click()
  await page.waitForURL((url) => url.href.startsWith(`${idp.idp.ssoUrl}?SAMLRequest=`), { timeout: 30_000 })
  expect(new URL(page.url()).searchParams.get("RelayState")).toBeTruthy()
}

/** At the IdP: signs in as `email` with `groups`; its page posts the SAMLResponse to our ACS; ends on the dashboard. */
const atIdpSignIn = async (page: Page, email: string, groups: string, screen?: string): Promise<void> => {
  await page.getByRole("heading", { level: 1, name: "Test SAML IdP" }).waitFor()
  await page.getByLabel("Email").fill(email)
  await page.getByLabel("Groups").fill(groups)
  if (screen !== undefined) await shot(page, screen)
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.waitForURL((url) => url.origin === new URL(baseUrl()).origin && url.pathname.startsWith("/dashboard"), { timeout: 30_000 })
}

describe("SAML single sign-on in the browser", () => {
  it("Sign in with SSO → the IdP's page → posted back to our ACS → the dashboard, with the role of the person's group", async () => {
    const page = await open()
    const email = `sam@${domain}`
    expect(await member(email)).toBeUndefined()
    await toIdp(page, email, "saml-start")
    await atIdpSignIn(page, email, "staff, secops", "saml-idp-login")
    await look(page, "saml-signed-in")
    await page.getByText("Security Engineer").first().waitFor()
    // Just in time: the account and the membership were created by this sign-in, with the mapped role.
    const sam = await member(email)
    expect(sam, "the SAML sign-in admitted the person to the workspace").toBeDefined()
    expect(sam?.role_id).toBe(BuiltInRoleIds.SecurityEngineer)
    expect(sam?.role_name).toBe("Security Engineer")
    expect(sam?.is_owner).toBe(false)
    // The session is the person's own: the API answers as them with the token the SPA stored.
    const me = await page.evaluate(async (keys) => {
      const r = await fetch("/api/user-info", { headers: { authorization: `Bearer ${localStorage.getItem(keys.accessToken) ?? ""}` } })
      return { status: r.status, body: await r.text(), stored: localStorage.getItem(keys.userEmail) }
    }, StorageKeys)
    expect(me.status, me.body).toBe(200)
    expect(me.stored).toBe(email)
    expect(me.body).toContain(email)
    await page.close()
  })

  it("a person without a mapped group gets the connection's default role", async () => {
    const page = await open()
    const email = `dana@${domain}`
    await toIdp(page, email)
    await atIdpSignIn(page, email, "staff")
    const dana = await member(email)
    expect(dana?.role_id).toBe(BuiltInRoleIds.Auditor)
    expect(dana?.role_name).toBe("Auditor")
    await page.close()
  })

  it("the owner sees the SAML connection and the values to register at the IdP on /dashboard/settings/sso, and a pasted certificate works", async () => {
    const page = await open()
    await signIn(page, owner.email, owner.password)
    await page.goto(`${baseUrl()}/dashboard/settings/sso`)
    await page.getByRole("heading", { level: 1, name: "Single sign-on" }).waitFor()
    await expect.poll(() => page.getByLabel(/^Email domains/).inputValue()).toBe(domain)
    expect(await page.getByLabel(/^Identity provider entity ID/).inputValue()).toBe(idpEntityId)
    expect(await page.getByLabel(/^Single sign-on URL/).inputValue()).toBe(idp.idp.ssoUrl)
    await page.getByText(`${baseUrl()}/api/sso/saml/acs`, { exact: true }).waitFor()
    await page.getByText(`${baseUrl()}/api/sso/saml/${workspaceId}/metadata`, { exact: true }).waitFor()
    await look(page, "saml-settings")
    // The certificate field is a text area: a pasted PEM keeps its line breaks. A certificate that does not parse as
    // X.509 is refused by the server, its reason shown on the field; the IdP's own certificate is saved and people
    // sign in with it.
    const certificate = page.getByLabel(/^Signing certificate/)
    expect(await certificate.evaluate((el) => el.tagName)).toBe("TEXTAREA")
    const pem = idp.idp.keys.certificate.trim()
    await certificate.fill(pem.replace(/\n[A-Za-z0-9+/=]{64}\n/, "\n"))
    await page.getByRole("button", { name: "Save", exact: true }).click()
    await page.getByText(SsoMessages.certificateUnreadable).first().waitFor()
    expect(await certificate.getAttribute("aria-invalid")).toBe("true")
    await look(page, "saml-settings-bad-certificate")
    await certificate.fill(pem)
    expect(await certificate.inputValue()).toContain("\n")
    expect(await certificate.getAttribute("aria-invalid")).toBeNull()
    await page.getByRole("button", { name: "Save", exact: true }).click()
    await page.getByText(SsoMessages.saved).waitFor()
    await page.close()
    const person = await open()
    const email = `olive@${domain}`
    await toIdp(person, email)
    await atIdpSignIn(person, email, "secops")
    expect((await member(email))?.role_id).toBe(BuiltInRoleIds.SecurityEngineer)
    await person.close()
  })

  it("with SSO required, a domain member's password sign-in is refused, SSO still signs them in, the owner keeps the password", async () => {
    const saved = await configure(true)
    expect(saved.data.connection?.domains).toEqual([domain])
    const page = await open()
    const email = `sam@${domain}`
    await page.goto(`${baseUrl()}/login`)
    await page.getByRole("heading", { level: 1, name: "Sign in" }).waitFor()
    await fill(page, "Email", email)
    await fill(page, "Password", "Some-Password-1")
    await page.getByRole("button", { name: "Sign in", exact: true }).click()
    await page.getByText(SsoMessages.ssoRequired).waitFor()
    expect(new URL(page.url()).pathname).toBe("/login")
    await look(page, "saml-sso-required")
    // The way the message points to works; the role follows the groups of this sign-in (no longer in secops: lowered
    // to the default role, docs/sso.md "How a sign-in goes").
    await toIdp(page, email)
    await atIdpSignIn(page, email, "staff")
    expect((await member(email))?.role_id).toBe(BuiltInRoleIds.Auditor)
    await page.close()
    // Break-glass: the owner's email is not in the owned domain here, and the owner signs in with a password anyway.
    const ownerPage = await open()
    await signIn(ownerPage, owner.email, owner.password)
    expect(new URL(ownerPage.url()).pathname).not.toBe("/login")
    await ownerPage.close()
  })
})
