/**
 * Access journeys of a newcomer, in Chromium against the real product (real SMTP capture for the links):
 * sign-up → verify by the emailed link → sign in → dashboard; wrong password; forgot → reset → sign in; the 404 page;
 * a signed-out visit of a dashboard page (origin kept); and an unverified sign-in with the automatic and the manual
 * resend. Every screen visited is photographed at 1280 px and 390 px and checked with axe.
 */
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest"
import {
  baseUrl,
  fill,
  look,
  newPerson,
  path,
  signIn,
  signOut,
  signUpAndVerifyViaApi,
  verificationLink,
  waitForPath,
  type Person,
} from "../support/access.ts"
import { launchBrowser, newPage, shot } from "../support/browser.ts"
import { linkIn, waitForMail } from "../support/mail.ts"

let browser: Browser
const pages: Page[] = []

/** Signed up (through the API) at the start of the file: the resend cool-down (60 s) runs while the other journeys do. */
const unverified = newPerson("unverified")
let unverifiedSignedUpAt = 0

beforeAll(async () => {
  browser = await launchBrowser()
  const r = await fetch(`${baseUrl()}/api/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      first_name: unverified.firstName,
      last_name: unverified.lastName,
      email: unverified.email,
      password: unverified.password,
      workspace_name: unverified.workspace,
      timezone: "UTC",
    }),
  })
  expect(r.status).toBeLessThan(300)
  unverifiedSignedUpAt = Date.now()
})

afterAll(async () => {
  await browser?.close()
})

const open = async (): Promise<Page> => {
  const page = await newPage(browser, 1280)
  pages.push(page)
  onTestFailed(async ({ task }) => {
    await shot(page, `failed-${task.name.replace(/[^a-z0-9]+/gi, "-").slice(0, 60)}`).catch(() => {})
  })
  return page
}

describe("access journeys: sign-up, verification, sign-in", () => {
  it("sign-up → verify by the emailed link → sign in → dashboard", async () => {
    const ada = newPerson("ada")
    const page = await open()
    await page.goto(`${baseUrl()}/signup`)
    await page.getByRole("heading", { level: 1, name: "Create your account" }).waitFor()
    await look(page, "signup")
    await fill(page, "First name", ada.firstName)
    await fill(page, "Last name", ada.lastName)
    await fill(page, "Email", ada.email)
    await fill(page, "Workspace name", ada.workspace)
    await fill(page, "Password", ada.password)
    await fill(page, "Confirm password", ada.password)
    await page.getByRole("button", { name: "Create account" }).click()
    // verification_pending → /verification-pending (or the second step, "Verification email sent").
    await page.getByText(/Verification email sent|Verify your email/).first().waitFor()
    await look(page, "signup-sent")

    const link = await verificationLink(ada.email)
    expect(new URL(link).pathname).toBe("/verify-email")
    await page.goto(link)
    await page.getByRole("heading", { name: "Email verified successfully!" }).waitFor({ timeout: 20_000 })
    expect(path(page)).toBe("/email-verification-success")
    await look(page, "email-verification-success")
    await page.getByRole("button", { name: "Sign in" }).click()
    await waitForPath(page, "/login")
    // The address travels to the sign-in form.
    expect(await page.getByLabel("Email", { exact: true }).inputValue()).toBe(ada.email)
    await look(page, "login")

    await signIn(page, ada.email, ada.password)
    // Exactly one workspace: selected automatically, straight to the dashboard.
    await waitForPath(page, "/dashboard")
    await page.getByRole("navigation", { name: "Main" }).waitFor()
    expect(await page.evaluate(() => localStorage.getItem("access_token"))).toBeTruthy()
    const store = JSON.parse((await page.evaluate(() => localStorage.getItem("workspace-store"))) ?? "{}") as {
      state?: { selectedWorkspaceId?: number }
    }
    expect(typeof store.state?.selectedWorkspaceId).toBe("number")
    await look(page, "dashboard")

    // Reloading keeps the session; signing out clears it.
    await page.reload()
    await page.getByRole("navigation", { name: "Main" }).waitFor()
    expect(path(page)).toBe("/dashboard")
    await signOut(page)
    expect(await page.evaluate(() => localStorage.getItem("access_token"))).toBeNull()
    await page.goto(`${baseUrl()}/dashboard`)
    await waitForPath(page, "/login")
  })

  it("a wrong password stays on /login with the error", async () => {
    const bob: Person = newPerson("bob")
    await signUpAndVerifyViaApi(bob)
    const page = await open()
    await page.goto(`${baseUrl()}/login`)
    await fill(page, "Email", bob.email)
    await fill(page, "Password", "Wrong-password-1")
    await page.getByRole("button", { name: "Sign in", exact: true }).click()
    const alert = page.getByRole("alert").filter({ hasText: "Invalid email or password" })
    await alert.waitFor()
    expect(path(page)).toBe("/login")
    expect(await page.evaluate(() => localStorage.getItem("access_token"))).toBeNull()
    await look(page, "login-wrong-password")
    // The right password still works afterwards.
    await signIn(page, bob.email, bob.password)
    await waitForPath(page, "/dashboard")
  })

  it("forgot password → emailed link → reset → sign in with the new password", async () => {
    const cyd = newPerson("cyd")
    await signUpAndVerifyViaApi(cyd)
    const page = await open()
    await page.goto(`${baseUrl()}/login`)
    await page.getByRole("button", { name: "Forgot your password?" }).click()
    const dialog = page.getByRole("dialog")
    await dialog.waitFor()
    const send = dialog.getByRole("button", { name: "Send reset link" })
    expect(await send.isDisabled()).toBe(true)
    await dialog.getByLabel("Email", { exact: true }).fill(cyd.email)
    await look(page, "forgot-password")
    const asked = Date.now()
    await send.click()
    await page.getByText("Password reset email sent successfully").first().waitFor()

    const mail = await waitForMail((m) => m.to.includes(cyd.email) && m.receivedAt >= asked && m.links.some((l) => l.includes("/reset-password")))
    await page.goto(linkIn(mail, "/reset-password"))
    await page.getByRole("form", { name: "Set a new password" }).waitFor({ timeout: 20_000 })
    await look(page, "reset-password")
    const newPassword = "Brand-New-Pass-9"
    await fill(page, "New password", newPassword)
    await fill(page, "Confirm new password", newPassword)
    await page.getByRole("button", { name: "Reset password" }).click()
    await page.getByText("Password reset successfully!").first().waitFor()
    await look(page, "reset-password-done")
    await page.getByRole("button", { name: "Sign in" }).click()
    await waitForPath(page, "/login")

    // The old password is gone, the new one works.
    await fill(page, "Email", cyd.email)
    await fill(page, "Password", cyd.password)
    await page.getByRole("button", { name: "Sign in", exact: true }).click()
    await page.getByRole("alert").filter({ hasText: "Invalid email or password" }).waitFor()
    await signIn(page, cyd.email, newPassword)
    await waitForPath(page, "/dashboard")
  })

  it("an unknown path shows the 404 page with Return Home", async () => {
    const page = await open()
    await page.goto(`${baseUrl()}/no/such/page`)
    await page.getByRole("heading", { level: 1, name: "Page Not Found" }).waitFor()
    expect(await page.getByText("The page you're looking for doesn't exist or has been moved.").count()).toBe(1)
    await look(page, "not-found")
    await page.getByRole("link", { name: "Return Home" }).click()
    // "/" → /dashboard needs a session: a signed-out visitor lands on /login.
    await waitForPath(page, "/login")
  })

  it("a signed-out visit of a dashboard page goes to /login and returns there after signing in", async () => {
    const dee = newPerson("dee")
    await signUpAndVerifyViaApi(dee)
    const page = await open()
    await page.goto(`${baseUrl()}/dashboard/profile`)
    await waitForPath(page, "/login")
    expect(await page.evaluate(() => (history.state as { from?: string } | null)?.from)).toBe("/dashboard/profile")
    await signIn(page, dee.email, dee.password)
    await waitForPath(page, "/dashboard/profile")
    await page.getByRole("heading", { level: 1, name: "Profile Settings" }).waitFor()
  })

  it("an unverified sign-in shows the warning, resends automatically, and offers a manual resend", async () => {
    const page = await open()
    await page.goto(`${baseUrl()}/login`)
    await verificationLink(unverified.email) // the sign-up's own mail
    await fill(page, "Email", unverified.email)
    await fill(page, "Password", unverified.password)
    await page.getByRole("button", { name: "Sign in", exact: true }).click()
    await page.getByText("Please verify your email address to continue").waitFor()
    expect(path(page)).toBe("/login")
    expect(await page.evaluate(() => localStorage.getItem("access_token"))).toBeNull()
    // The automatic resend ran: sent, or (inside the sign-up's 60 s cool-down) the server's wait.
    const autoOutcome = page.getByText(/Verification email sent|Please wait \d+ minute\(s\) before requesting another verification email/)
    await autoOutcome.first().waitFor()
    await look(page, "login-unverified")
    // The manual resend becomes available once the cool-down is over, and sends a new link.
    const resend = page.getByRole("button", { name: "Resend verification email" })
    await expect.poll(() => resend.isEnabled(), { timeout: 75_000, interval: 1_000 }).toBe(true)
    const clicked = Date.now()
    await resend.click()
    const link = await verificationLink(unverified.email, clicked)
    // The new link verifies the account; signing in then works.
    await page.goto(link)
    await page.getByRole("heading", { name: "Email verified successfully!" }).waitFor({ timeout: 20_000 })
    await page.getByRole("button", { name: "Sign in" }).click()
    await waitForPath(page, "/login")
    await signIn(page, unverified.email, unverified.password)
    await waitForPath(page, "/dashboard")
    expect(unverifiedSignedUpAt).toBeGreaterThan(0)
  }, 150_000)
})

