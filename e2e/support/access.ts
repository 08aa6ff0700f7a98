/**
 * Helpers of the access-area journeys (e2e/access/*.e2e.test.ts): unique addresses, the sign-up / verification /
 * sign-in steps through the real screens, an API shortcut for setting up people a journey only needs as actors, and
 * `look`: a screenshot at 1280 px and at 390 px plus the axe check (no serious or critical violation) of the screen
 * as it is now.
 */
import { randomUUID } from "node:crypto"
import type { Locator, Page } from "playwright-core"
import { expect, inject } from "vitest"
import { expectAccessible } from "./axe.ts"
import { shot } from "./browser.ts"
import { linkIn, waitForMail } from "./mail.ts"

export const baseUrl = (): string => inject("baseUrl")

/** A password that satisfies the sign-up rule (upper, lower, digit, ≥ 8). */
export const PASSWORD = "Correct-Horse-7"

/** A fresh address per call: journeys never share people. */
export const uniqueEmail = (label: string): string => `${label}-${randomUUID().slice(0, 8)}@example.com`

export const uniqueWorkspace = (label: string): string => `${label} ${randomUUID().slice(0, 6)}`

/**
 * Screenshots of the current screen at 1280 px and 390 px (e2e/artifacts/<name>-desktop.png / -mobile.png) and the
 * axe check at both widths. The viewport is restored afterwards.
 */
export const look = async (page: Page, name: string): Promise<void> => {
  const original = page.viewportSize() ?? { width: 1280, height: 800 }
  await page.setViewportSize({ width: 1280, height: 800 })
  await settle(page)
  await shot(page, `${name}-desktop`)
  await expectAccessible(page, `${name} at 1280 px`)
  await page.setViewportSize({ width: 390, height: 844 })
  await settle(page)
  await shot(page, `${name}-mobile`)
  await expectAccessible(page, `${name} at 390 px`)
  await page.setViewportSize(original)
  await settle(page)
}

/** `look` with the page scrolled to its top first (a screenshot of a long page starts at its heading). */
export const lookFromTop = async (page: Page, name: string): Promise<void> => {
  await page.evaluate(() => window.scrollTo(0, 0))
  await look(page, name)
}

/** Lets layout, transitions and pending fetches of the screen come to rest. */
const settle = async (page: Page): Promise<void> => {
  await page.waitForLoadState("networkidle").catch(() => {})
  await page.waitForTimeout(250)
}

export const path = (page: Page): string => new URL(page.url()).pathname

export const waitForPath = (page: Page, pathname: string, timeout = 20_000): Promise<void> =>
  page.waitForURL((url) => url.pathname === pathname, { timeout })

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** The field labelled exactly `label` (a required field's label may end with its visual "*" mark). */
export const field = (scope: Page | Locator, label: string): Locator =>
  scope.getByLabel(new RegExp(`^${escapeRegExp(label)}\\s*\\*?$`))

export const fill = async (scope: Page | Locator, label: string, value: string): Promise<void> => {
  await field(scope, label).fill(value)
}

export interface Person {
  readonly firstName: string
  readonly lastName: string
  readonly email: string
  readonly password: string
  readonly workspace: string
}

export const newPerson = (label: string): Person => ({
  firstName: label.charAt(0).toUpperCase() + label.slice(1),
  lastName: "Tester",
  email: uniqueEmail(label),
  password: PASSWORD,
  workspace: uniqueWorkspace(`${label} team`),
})

/** The verification link of the newest verification mail to `email`. */
export const verificationLink = async (email: string, after = 0): Promise<string> => {
  const mail = await waitForMail((m) => m.to.includes(email) && m.receivedAt >= after && m.links.some((l) => l.includes("/verify-email")))
  return linkIn(mail, "/verify-email")
}

/**
 * `person` joins a workspace by the invitation mailed to them at or after `after` (ms since the epoch): the accept call
 * with their names and password, as the invitation page sends it.
 */
export const acceptMailedInvitation = async (person: Person, after: number): Promise<void> => {
  const mail = await waitForMail((m) => m.to.includes(person.email) && m.receivedAt >= after && m.links.some((l) => l.includes("/invitation/accept")))
  const token = new URL(linkIn(mail, "/invitation/accept")).searchParams.get("token")!
  const accepted = await fetch(`${baseUrl()}/api/invitations/accept`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      invitation_token: token, first_name: person.firstName, last_name: person.lastName, password: person.password,
      confirm_password: person.password, timezone: "UTC",
    }),
  })
  expect(accepted.status, await accepted.clone().text()).toBe(200)
}

/** Sign-up through the API (for people a journey needs but does not test the sign-up of), verified through the mailed link. */
export const signUpAndVerifyViaApi = async (person: Person): Promise<void> => {
  const r = await fetch(`${baseUrl()}/api/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      first_name: person.firstName,
      last_name: person.lastName,
      email: person.email,
      password: person.password,
      workspace_name: person.workspace,
      timezone: "UTC",
    }),
  })
  expect(r.status, await r.clone().text()).toBeLessThan(300)
  const link = new URL(await verificationLink(person.email))
  const verified = await fetch(`${baseUrl()}/api/verify-email${link.search}`)
  expect(verified.status, await verified.clone().text()).toBeLessThan(300)
}

/**
 * An API caller as `person` in their first workspace: signs in on the first call and keeps the session (signing in
 * again when the server answers 401, e.g. after a password change), then sends each request with the token and the
 * workspace; expects a 200 and answers the JSON body. One sign-in per caller, not per call: the server counts
 * successful sign-ins per client address (100 per 15 minutes), and a journey that polls would otherwise spend them.
 */
export const apiAs = (person: Person) => {
  let session: { readonly token: string; readonly workspaceId: number } | undefined
  const signInOnce = async () => {
    const login = await fetch(`${baseUrl()}/api/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: person.email, password: person.password }),
    })
    expect(login.status, await login.clone().text()).toBe(200)
    const token = ((await login.json()) as { access_token: string }).access_token
    const workspaces = (await (await fetch(`${baseUrl()}/api/workspaces`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
      data: Array<{ workspace_id: number }>
    }
    return { token, workspaceId: workspaces.data[0]!.workspace_id }
  }
  const send = (path: string, init: RequestInit, s: { readonly token: string; readonly workspaceId: number }) =>
    fetch(`${baseUrl()}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${s.token}`, "x-workspace-id": String(s.workspaceId), "content-type": "application/json" },
    })
  return async <T,>(path: string, init: RequestInit = {}): Promise<T> => {
    session ??= await signInOnce()
    let r = await send(path, init, session)
    if (r.status === 401) {
      session = await signInOnce()
      r = await send(path, init, session)
    }
    expect(r.status, await r.clone().text()).toBe(200)
    return (await r.json()) as T
  }
}

/** Sign-in through the screen; resolves once the session has navigated away from /login. */
export const signIn = async (page: Page, email: string, password: string): Promise<void> => {
  if (path(page) !== "/login") {
    await page.goto(`${baseUrl()}/login`)
  }
  await page.getByRole("heading", { level: 1, name: "Sign in" }).waitFor()
  await fill(page, "Email", email)
  await fill(page, "Password", password)
  await page.getByRole("button", { name: "Sign in", exact: true }).click()
  await page.waitForURL((url) => url.pathname !== "/login", { timeout: 30_000 })
}

/** Signs out through the user menu; resolves on /login. */
export const signOut = async (page: Page): Promise<void> => {
  await page.getByRole("banner").getByRole("button").last().click()
  await page.getByRole("menuitem", { name: "Sign out" }).click()
  await waitForPath(page, "/login")
}
