/**
 * Single sign-on in Chromium against the real product and a real OpenID provider (node-oidc-provider, started by this
 * test on 127.0.0.1; the product reaches it because the e2e product runs with INTEGRATIONS_ALLOW_PRIVATE_TARGETS=1):
 * the workspace owner's provider is configured through the API; a person of the owned domain clicks "Sign in with
 * SSO", types their work email, signs in on the provider's own pages, and lands in the workspace with the role their
 * group maps to. Then "SSO required": the password sign-in of that person is refused with the message telling them to
 * use SSO, while the owner still signs in with a password. A provider refusal shows on /login/sso.
 * Screens photographed at 1280 and 390 px and checked with axe (our pages; the provider's pages are not ours).
 */
import { randomUUID } from "node:crypto"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest"
import { BuiltInRoleIds } from "../../src/contracts/permissions.ts"
import { SsoMessages } from "../../src/contracts/sso.ts"
import { type OidcProviderHandle, startOidcProvider } from "../../tests/sso/providers.ts"
import { apiAs, baseUrl, fill, look, newPerson, signIn, signUpAndVerifyViaApi, waitForPath } from "../support/access.ts"
import { launchBrowser, newPage, shot } from "../support/browser.ts"

let browser: Browser
let idp: OidcProviderHandle
const owner = newPerson("sso-owner")
const domain = `sso-${randomUUID().slice(0, 8)}.example`
let workspaceId = 0

const configure = (requireSso: boolean) =>
  apiAs(owner)(`/api/workspaces/${workspaceId}/sso`, {
    method: "PUT",
    body: JSON.stringify({
      protocol: "oidc", enabled: true, require_sso: requireSso, domains: [domain],
      oidc: { issuer: idp.issuer, client_id: idp.clients[0]!.client_id, client_secret: idp.clients[0]!.client_secret },
      groups_attribute: "groups", default_role_id: BuiltInRoleIds.Auditor,
      group_roles: [{ group: "security", role_id: BuiltInRoleIds.SecurityEngineer }],
    }),
  })

beforeAll(async () => {
  browser = await launchBrowser()
  idp = await startOidcProvider({ redirectUri: `${baseUrl()}/api/sso/oidc/callback` })
  idp.accounts.set("alice", { email: `alice@${domain}`, given_name: "Alice", family_name: "Liddell", groups: ["staff", "security"] })
  await signUpAndVerifyViaApi(owner)
  const workspaces = await apiAs(owner)<{ data: Array<{ workspace_id: number }> }>("/api/workspaces")
  workspaceId = workspaces.data[0]!.workspace_id
  await configure(false)
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

describe("single sign-on in the browser", () => {
  it("Sign in with SSO → the provider's page → the workspace, with the role of the person's group", async () => {
    const page = await open()
    await page.goto(`${baseUrl()}/login`)
    await page.getByRole("link", { name: "Sign in with SSO" }).click()
    await waitForPath(page, "/login/sso")
    await page.getByRole("heading", { level: 1, name: "Sign in with SSO" }).waitFor()
    await look(page, "sso-start")
    await fill(page, "Work email", `alice@${domain}`)
    await page.getByRole("button", { name: "Continue with SSO" }).click()
    // The provider's own sign-in page, then its consent page.
    await page.waitForURL((url) => url.origin === new URL(idp.issuer).origin, { timeout: 30_000 })
    await page.locator('input[name="login"]').fill("alice")
    await page.locator('input[name="password"]').fill("provider-password")
    await shot(page, "sso-provider-login")
    await page.locator('button[type="submit"]').click()
    await page.getByRole("button", { name: "Continue" }).click()
    // Back in the product: the one-time code is exchanged and the session opens the dashboard.
    await page.waitForURL((url) => url.origin === new URL(baseUrl()).origin && url.pathname.startsWith("/dashboard"), { timeout: 30_000 })
    await look(page, "sso-signed-in")
    const members = await apiAs(owner)<{ data: Array<{ email: string; role?: { name?: string }; roles?: Array<{ id: number }> }> }>("/api/team-members")
    const alice = members.data.find((m) => m.email === `alice@${domain}`)
    expect(alice, JSON.stringify(members.data)).toBeDefined()
    expect(JSON.stringify(alice)).toContain("Security Engineer")
    await page.close()
  })

  it("with SSO required, the password sign-in of the domain's people is refused; the owner still signs in", async () => {
    await configure(true)
    const page = await open()
    await page.goto(`${baseUrl()}/login`)
    await page.getByRole("heading", { level: 1, name: "Sign in" }).waitFor()
    await fill(page, "Email", `alice@${domain}`)
    await fill(page, "Password", "Some-Password-1")
    await page.getByRole("button", { name: "Sign in", exact: true }).click()
    await page.getByText(SsoMessages.ssoRequired).waitFor()
    await look(page, "sso-required")
    await signIn(page, owner.email, owner.password)
    expect(new URL(page.url()).pathname).not.toBe("/login")
    await page.close()
  })

  it("the owner sees the settings on /dashboard/settings/sso (from the user menu)", async () => {
    const page = await open()
    await signIn(page, owner.email, owner.password)
    await page.getByRole("banner").getByRole("button").last().click()
    await page.getByRole("menuitem", { name: "Single sign-on" }).click()
    await waitForPath(page, "/dashboard/settings/sso")
    await page.getByRole("heading", { level: 1, name: "Single sign-on" }).waitFor()
    await expect.poll(() => page.getByLabel(/^Email domains/).inputValue()).toBe(domain)
    await look(page, "sso-settings")
    await page.close()
  })

  it("a refusal from the sign-in shows on /login/sso with a way to start again", async () => {
    const page = await open()
    await page.goto(`${baseUrl()}/login/sso?error=emailDomainMismatch`)
    await page.getByText(SsoMessages.emailDomainMismatch).waitFor()
    await look(page, "sso-refused")
    await page.getByRole("button", { name: "Try again" }).click()
    await page.getByLabel(/^Work email/).waitFor()
    await page.close()
  })
})
