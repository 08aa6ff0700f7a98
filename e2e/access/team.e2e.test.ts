/**
 * Team journeys in Chromium against the real product (real SMTP capture for the invitation links), one story:
 * the owner invites three people at once; one invitation is resent then canceled; Ann (no account) accepts signed out
 * through the invitation sign-up; Ben (an existing account, signed in) accepts from his session and switches to the
 * new workspace on the selection screen; Ann, an Auditor, is
 * sent back from User Management by the permission gate with the error; the owner changes Ann's role (she may then
 * open User Management) and deletes Ben. Screens are photographed at 1280 px and 390 px and checked with axe.
 */
import type { Browser, Locator, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest"
import {
  PASSWORD,
  baseUrl,
  fill,
  look,
  newPerson,
  signIn,
  signUpAndVerifyViaApi,
  uniqueEmail,
  waitForPath,
  type Person,
} from "../support/access.ts"
import { launchBrowser, newPage, shot } from "../support/browser.ts"
import { linkIn, waitForMail } from "../support/mail.ts"

let browser: Browser

const owner: Person = newPerson("olga")
const ben: Person = newPerson("ben")
const ann = { firstName: "Ann", lastName: "Invitee", email: uniqueEmail("ann") }
const cal = uniqueEmail("cal")

let ownerPage: Page
let annPage: Page
let benPage: Page

beforeAll(async () => {
  browser = await launchBrowser()
  await signUpAndVerifyViaApi(owner)
  await signUpAndVerifyViaApi(ben)
})

afterAll(async () => {
  await browser?.close()
})

const track = (page: Page, who: string) =>
  onTestFailed(async ({ task }) => {
    await shot(page, `failed-${who}-${task.name.replace(/[^a-z0-9]+/gi, "-").slice(0, 50)}`).catch(() => {})
  })

/** Chooses `option` in the react-aria Select labelled `label` inside `scope`. */
const choose = async (page: Page, scope: Locator, label: string, option: string) => {
  await scope.getByRole("button", { name: new RegExp(label) }).click()
  await page.getByRole("option", { name: option, exact: true }).click()
}

const invitationLink = async (email: string, after = 0) => {
  const mail = await waitForMail((m) => m.to.includes(email) && m.receivedAt >= after && m.links.some((l) => l.includes("/invitation/accept")))
  return linkIn(mail, "/invitation/accept")
}

const invitationRow = (page: Page, email: string) =>
  page.getByRole("table", { name: "Pending invitations" }).getByRole("row").filter({ hasText: email })

const memberRow = (page: Page, text: string) =>
  page.getByRole("table", { name: "Team members" }).getByRole("row").filter({ hasText: text })

describe("team management", () => {
  it("the owner opens User Management from the user menu and invites three people", async () => {
    ownerPage = await newPage(browser, 1280)
    track(ownerPage, "owner")
    await signIn(ownerPage, owner.email, owner.password)
    await waitForPath(ownerPage, "/dashboard")
    await ownerPage.getByRole("banner").getByRole("button", { name: new RegExp(owner.workspace) }).click()
    await ownerPage.getByRole("menuitem", { name: "Users" }).click()
    await waitForPath(ownerPage, "/dashboard/users")
    await ownerPage.getByRole("heading", { level: 1, name: "User Management" }).waitFor()
    await ownerPage.getByText("No invitations sent yet").waitFor()
    await look(ownerPage, "user-management-empty")

    await ownerPage.getByRole("button", { name: "Invite team members" }).click()
    const dialog = ownerPage.getByRole("dialog", { name: "Invite team members" })
    await dialog.waitFor()
    const invitees: ReadonlyArray<readonly [string, string]> = [
      [ann.email, "Auditor"],
      [ben.email, "Security Engineer"],
      [cal, "Auditor"],
    ]
    for (const [index, [email, role]] of invitees.entries()) {
      if (index > 0) await dialog.getByRole("button", { name: "Add another invitation" }).click()
      const row = dialog.getByRole("group", { name: `Invitation ${index + 1}` })
      await fill(row, "Email address", email.toUpperCase())
      await choose(ownerPage, row, "Role", role)
    }
    await look(ownerPage, "invite-dialog")
    const sentAt = Date.now()
    await dialog.getByRole("button", { name: "Send invitations" }).click()
    await ownerPage.getByText("All 3 invitation(s) sent successfully").first().waitFor()
    await dialog.waitFor({ state: "detached" })
    // Emails were trimmed and lower-cased before sending.
    for (const [email] of invitees) await invitationRow(ownerPage, email).waitFor()
    for (const [email] of invitees) await invitationLink(email, sentAt)
    await look(ownerPage, "user-management-invitations")
  })

  it("resends, then cancels an invitation", async () => {
    track(ownerPage, "owner")
    await invitationRow(ownerPage, cal).getByRole("button", { name: `Actions for the invitation to ${cal}` }).click()
    const resentAt = Date.now()
    await ownerPage.getByRole("menuitem", { name: "Resend invitation" }).click()
    await ownerPage.getByText(`Invitation resent to ${cal}`).first().waitFor()
    await invitationLink(cal, resentAt)

    await invitationRow(ownerPage, cal).getByRole("button", { name: `Actions for the invitation to ${cal}` }).click()
    await ownerPage.getByRole("menuitem", { name: "Cancel invitation" }).click()
    const confirm = ownerPage.getByRole("alertdialog", { name: "Cancel invitation" })
    await confirm.waitFor()
    expect(await confirm.textContent()).toContain(cal)
    await look(ownerPage, "cancel-invitation")
    await confirm.getByRole("button", { name: "Cancel invitation" }).click()
    await ownerPage.getByText(`Invitation canceled for ${cal}`).first().waitFor()
    await invitationRow(ownerPage, cal).waitFor({ state: "detached" })
  })

  it("Ann, without an account, accepts signed out through the invitation sign-up", async () => {
    annPage = await newPage(browser, 1280)
    track(annPage, "ann")
    await annPage.goto(await invitationLink(ann.email))
    const accept = annPage.getByRole("button", { name: "Accept and Continue" })
    await accept.waitFor({ timeout: 20_000 })
    const invitation = annPage.getByRole("region", { name: "Invitation" })
    expect(await invitation.textContent()).toContain(owner.workspace)
    expect(await invitation.textContent()).toContain("Auditor")
    await look(annPage, "invitation-accept-signed-out")
    await accept.click()
    await waitForPath(annPage, "/invitation/signup")
    const form = annPage.getByRole("form", { name: "Complete your signup" })
    await form.waitFor()
    await fill(form, "First name", ann.firstName)
    await fill(form, "Last name", ann.lastName)
    await fill(form, "Password", PASSWORD)
    await fill(form, "Confirm password", PASSWORD)
    await look(annPage, "invitation-signup")
    await form.getByRole("button", { name: "Complete signup" }).click()
    // Tokens come back: the session takes over (one workspace → selected → dashboard).
    await waitForPath(annPage, "/dashboard", 30_000)
    await annPage.getByRole("navigation", { name: "Main" }).waitFor()
  })

  it("the permission gate sends Ann (Auditor) from User Management back to the dashboard with the error", async () => {
    track(annPage, "ann")
    await annPage.goto(`${baseUrl()}/dashboard/users`)
    await waitForPath(annPage, "/dashboard")
    await annPage.getByRole("alert").filter({ hasText: "You do not have permission to access this page" }).waitFor()
    expect(await annPage.getByRole("heading", { level: 1, name: "User Management" }).count()).toBe(0)
    await look(annPage, "permission-denied")
  })

  it("Ben, signed in to his own workspace, accepts from his session", async () => {
    benPage = await newPage(browser, 1280)
    track(benPage, "ben")
    await signIn(benPage, ben.email, ben.password)
    await waitForPath(benPage, "/dashboard")
    await benPage.goto(await invitationLink(ben.email))
    await benPage.getByRole("button", { name: "Accept Invitation" }).waitFor({ timeout: 20_000 })
    await look(benPage, "invitation-accept-signed-in")
    await benPage.getByRole("button", { name: "Accept Invitation" }).click()
    await benPage.getByText(`You've been added to ${owner.workspace}`).first().waitFor()
    await waitForPath(benPage, "/dashboard")

    // Two workspaces now: the user menu offers 'Switch workspace'; the selection screen shows both, the new one badged.
    await benPage.getByRole("banner").getByRole("button", { name: new RegExp(ben.workspace) }).click()
    await benPage.getByRole("menuitem", { name: "Switch workspace" }).click()
    await waitForPath(benPage, "/workspace-selection")
    const cards = benPage.getByRole("list", { name: "Your workspaces" })
    await cards.waitFor()
    expect(await cards.getByRole("listitem").count()).toBe(2)
    const joined = cards.getByRole("button", { name: new RegExp(owner.workspace) })
    expect(await joined.textContent()).toContain("New")
    await look(benPage, "workspace-selection")
    await joined.click()
    await waitForPath(benPage, "/dashboard")
    await benPage.getByRole("banner").getByRole("button", { name: new RegExp(owner.workspace) }).waitFor()
  })

  it("the owner sees both members, changes Ann's role and deletes Ben", async () => {
    track(ownerPage, "owner")
    await ownerPage.reload()
    await ownerPage.getByRole("heading", { level: 1, name: "User Management" }).waitFor()
    await memberRow(ownerPage, ann.email).waitFor()
    await memberRow(ownerPage, ben.email).waitFor()
    expect(await memberRow(ownerPage, ann.email).textContent()).toContain("Auditor")
    await look(ownerPage, "user-management-members")

    await memberRow(ownerPage, ann.email).getByRole("button", { name: `Actions for ${ann.firstName} ${ann.lastName}` }).click()
    await ownerPage.getByRole("menuitem", { name: "Change role" }).click()
    const roleDialog = ownerPage.getByRole("dialog", { name: "Change role" })
    await roleDialog.waitFor()
    await choose(ownerPage, roleDialog, "Role", "Member Manager")
    await look(ownerPage, "change-role")
    await roleDialog.getByRole("button", { name: "Change role" }).click()
    await roleDialog.waitFor({ state: "detached" })
    await expect.poll(async () => memberRow(ownerPage, ann.email).textContent()).toContain("Member Manager")

    await memberRow(ownerPage, ben.email).getByRole("button", { name: `Actions for ${ben.firstName} ${ben.lastName}` }).click()
    await ownerPage.getByRole("menuitem", { name: "Delete" }).click()
    const confirm = ownerPage.getByRole("alertdialog", { name: "Confirm deletion" })
    await confirm.waitFor()
    expect(await confirm.textContent()).toContain(ben.email)
    await look(ownerPage, "delete-member")
    await confirm.getByRole("button", { name: "Delete", exact: true }).click()
    await ownerPage.getByText("Team member deleted successfully").first().waitFor()
    await memberRow(ownerPage, ben.email).waitFor({ state: "detached" })
  })

  it("with her new role Ann may open User Management", async () => {
    track(annPage, "ann")
    await annPage.goto(`${baseUrl()}/dashboard/users`)
    await annPage.getByRole("heading", { level: 1, name: "User Management" }).waitFor()
    expect(new URL(annPage.url()).pathname).toBe("/dashboard/users")
  })
})
