/**
 * Organisations (issue 31), in Chromium against the real product and moto's AWS Organizations: the moto account is
 * made the management account of an organisation with a 'Prod' unit and two member accounts; the owner onboards it in
 * the add-account wizard ('AWS Organization', the member role's CloudFormation template shown), lands on the
 * organisation page (members with their unit, the units tree), edits the selection, syncs, scans the organisation
 * (members' progress) and finds the organisation and its members on the dashboard; then groups the organisation's unit
 * on the Account groups page (a group a custom role is limited to cannot be deleted) and reads the organisation's
 * compliance on the fleet page (requirements by members, the CSV download); a team lead invited with a custom role
 * limited to that unit's group reads the organisation page, the fleet and the findings across members over their
 * members only, without sync, selection or fleet scan. Every screen is looked at (1280 px and
 * 390 px screenshots in e2e/artifacts/, axe).
 */
import {
  CreateAccountCommand,
  CreateOrganizationalUnitCommand,
  CreateOrganizationCommand,
  DescribeOrganizationCommand,
  ListRootsCommand,
  MoveAccountCommand,
  OrganizationsClient,
} from "@aws-sdk/client-organizations"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { acceptMailedInvitation, apiAs, baseUrl, field, look, lookFromTop, newPerson, path, type Person, signIn, signUpAndVerifyViaApi } from "../support/access.ts"
import { launchBrowser, newPage } from "../support/browser.ts"
import { MOTO_KEYS } from "../support/moto.ts"
import { AccountGroupMessages } from "../../src/contracts/account-groups.ts"

const ORG_NAME = "Moto Organization"
/** The account moto's default keys belong to (the organisation's management account). */
const MOTO_ACCOUNT_ID = "123456789012"

let browser: Browser
const owner: Person = newPerson("orgowner")
const lead: Person = newPerson("orglead")
const api = apiAs(owner)

/** The moto account as an organisation's management account, with a 'Prod' unit holding two new member accounts. */
const plantOrganization = async (): Promise<{ readonly members: ReadonlyArray<string> }> => {
  const client = new OrganizationsClient({
    endpoint: inject("motoEndpoint"),
    region: "us-east-1",
    credentials: { accessKeyId: MOTO_KEYS.access_key, secretAccessKey: MOTO_KEYS.secret_key },
  })
  await client.send(new CreateOrganizationCommand({ FeatureSet: "ALL" })).catch(async (error: unknown) => {
    // moto keeps one organisation for the server's life: another journey may have made it already.
    await client.send(new DescribeOrganizationCommand({})).catch(() => {
      throw error
    })
  })
  const rootId = (await client.send(new ListRootsCommand({}))).Roots![0]!.Id!
  const unique = Date.now().toString(36)
  const ou = (await client.send(new CreateOrganizationalUnitCommand({ ParentId: rootId, Name: `Prod-${unique}` }))).OrganizationalUnit!.Id!
  const members: string[] = []
  for (const name of ["payments", "web"]) {
    const created = await client.send(new CreateAccountCommand({ AccountName: `${name}-${unique}`, Email: `${name}-${unique}@example.com` }))
    const id = created.CreateAccountStatus!.AccountId!
    await client.send(new MoveAccountCommand({ AccountId: id, SourceParentId: rootId, DestinationParentId: ou }))
    members.push(id)
  }
  return { members }
}

beforeAll(async () => {
  browser = await launchBrowser()
  await signUpAndVerifyViaApi(owner)
})

afterAll(async () => {
  await browser?.close()
})

describe("organisations", () => {
  it("onboards an AWS Organization in the wizard, shows its members, edits the selection, syncs and scans the fleet", async () => {
    const { members } = await plantOrganization()
    const page = await newPage(browser)
    await signIn(page, owner.email, owner.password)
    await page.goto(`${baseUrl()}/dashboard`)
    await page.getByRole("button", { name: "Add account" }).first().click()
    const wizard = page.getByRole("dialog", { name: "Add cloud account" })
    await wizard.getByRole("button", { name: "AWS", exact: true }).click()
    await wizard.getByText("AWS Organization", { exact: true }).click()
    await expect.poll(() => field(wizard, "Member role name").inputValue()).toBe("CloudAuditMemberRole")
    await field(wizard, "Organization name").fill(ORG_NAME)
    await field(wizard, "Access Key ID").fill(MOTO_KEYS.access_key)
    await field(wizard, "Secret Access Key").fill(MOTO_KEYS.secret_key)
    await field(wizard, "Management account ID").fill(MOTO_ACCOUNT_ID)
    await wizard.getByRole("button", { name: "Get the CloudFormation template" }).click()
    const template = wizard.getByLabel("Organization stack template", { exact: true })
    await template.waitFor({ timeout: 20_000 })
    expect(await template.textContent()).toContain("AWSTemplateFormatVersion")
    const download = wizard.getByRole("link", { name: "Download the stack template" })
    expect(await download.getAttribute("download")).toBe("CloudAuditMemberRole-organization.json")
    expect(await download.getAttribute("href")).toMatch(/^data:application\/json/)
    await look(page, "organization-wizard")

    await wizard.getByRole("button", { name: "Test connection" }).click()
    await wizard.getByText("Connection successful!").waitFor({ timeout: 60_000 })
    await wizard.getByRole("button", { name: "OK" }).click()
    await page.waitForURL((url) => /^\/dashboard\/accounts\/\d+\/organization$/.test(url.pathname), { timeout: 120_000 })
    const organizationId = Number(path(page).split("/")[3])
    await page.getByRole("heading", { level: 1, name: ORG_NAME }).waitFor({ timeout: 30_000 })
    const tree = page.getByRole("list", { name: "Organizational units" })
    for (const id of members) await tree.getByText(new RegExp(`\\(${id}\\)`)).first().waitFor()
    expect(await page.getByRole("region", { name: "Members", exact: true }).textContent()).toMatch(/\d+ member accounts?/)
    await lookFromTop(page, "organization-page")

    // Selection: a unit unticked in the draft; Cancel leaves the saved selection as it was.
    await page.getByRole("button", { name: "Change selection" }).click()
    const prod = page.getByRole("checkbox", { name: /^Prod-/ })
    await prod.locator("xpath=ancestor::label").click()
    expect(await prod.isChecked()).toBe(false)
    await look(page, "organization-selection")
    await page.getByRole("button", { name: "Cancel" }).click()
    await page.getByRole("button", { name: "Change selection" }).waitFor()

    // Sync now: what changed (nothing since onboarding) and the history.
    await page.getByRole("button", { name: "Sync now" }).click()
    const result = page.getByRole("region", { name: "Sync result" })
    await result.waitFor({ timeout: 60_000 })
    expect(await result.textContent()).toMatch(/No changes|member account/)
    await look(page, "organization-synced")

    // Scan organization: the fleet scan's members with their progress.
    await page.getByRole("button", { name: "Scan organization" }).click()
    const fleet = page.getByRole("region", { name: "Fleet scan" })
    await fleet.getByRole("list", { name: "Member scans" }).waitFor({ timeout: 60_000 })
    const fleetScans = await api<{ data: { fleet_scans: Array<{ organization_account_id: number }> } }>(`/api/organizations/${organizationId}/fleet-scans`)
    expect(fleetScans.data.fleet_scans.map((f) => f.organization_account_id)).toContain(organizationId)
    await look(page, "organization-fleet-scan")

    // The dashboard names the organisation and its members, each linking to the organisation page.
    await page.goto(`${baseUrl()}/dashboard`)
    const card = page.getByRole("article", { name: ORG_NAME })
    await card.waitFor({ timeout: 30_000 })
    expect(await card.getByRole("link", { name: `Members and fleet of ${ORG_NAME}` }).getAttribute("href")).toBe(`/dashboard/accounts/${organizationId}/organization`)
    await page.getByText("Member", { exact: true }).first().waitFor()
    await lookFromTop(page, "organization-dashboard")

    // The fleet dashboard and the findings across the members, reached from the organisation page's links.
    await page.goto(`${baseUrl()}/dashboard/accounts/${organizationId}/organization`)
    await page.getByRole("link", { name: "Fleet dashboard" }).click()
    await page.getByRole("heading", { level: 1, name: `Fleet of ${ORG_NAME}` }).waitFor({ timeout: 30_000 })
    await lookFromTop(page, "organization-fleet-dashboard")
    await page.goto(`${baseUrl()}/dashboard/accounts/${organizationId}/organization`)
    await page.getByRole("link", { name: "Findings across members" }).click()
    await page.getByRole("heading", { level: 1, name: `Findings across ${ORG_NAME}` }).waitFor({ timeout: 30_000 })
    await lookFromTop(page, "organization-fleet-findings")
    await page.close()
  })

  it("groups the organisation's unit on the Account groups page; a group that limits a role cannot be deleted", async () => {
    const organizations = await api<{ data: { organizations: Array<{ id: number; account_name: string }> } }>("/api/organizations")
    const organizationId = organizations.data.organizations.find((o) => o.account_name === ORG_NAME)!.id
    const page = await newPage(browser)
    await signIn(page, owner.email, owner.password)
    await page.goto(`${baseUrl()}/dashboard`)
    // The user menu offers the page to a workspace admin.
    await page.getByRole("button", { name: /Owner/ }).first().click()
    await page.getByRole("menuitem", { name: "Account groups" }).click()
    await page.waitForURL((url) => url.pathname === "/dashboard/settings/account-groups", { timeout: 20_000 })
    await page.getByRole("heading", { level: 1, name: "Account groups" }).waitFor({ timeout: 30_000 })
    await page.getByText("No account group yet.", { exact: false }).waitFor({ timeout: 30_000 })

    // A unit group: the contract's messages first, then the unit picked among the organisation's units.
    await page.getByRole("button", { name: "New group" }).click()
    const dialog = page.getByRole("dialog", { name: "New account group" })
    await dialog.getByRole("button", { name: "Create group" }).click()
    await dialog.getByText("Please enter a group name").waitFor()
    await dialog.getByText("Please choose an organisation unit").waitFor()
    await field(dialog, "Name").fill("Prod team")
    await dialog.getByRole("button", { name: /^Choose a unit/ }).click()
    await page.getByRole("option", { name: new RegExp(`^${ORG_NAME} · Root / Prod-`) }).click()
    await look(page, "account-groups-form")
    await dialog.getByRole("button", { name: "Create group" }).click()
    const card = page.getByRole("listitem", { name: "Prod team" })
    await card.waitFor({ timeout: 30_000 })
    expect(await card.textContent()).toMatch(/Root \/ Prod-\w+ and every unit below it/)
    expect(await card.textContent()).toContain("Holds 2 accounts")

    // A custom role limited to the group: deleting the group is refused with the server's words.
    const groups = await api<{ data: Array<{ id: number; name: string }> }>("/api/account-groups")
    const groupId = groups.data.find((g) => g.name === "Prod team")!.id
    await api("/api/roles/custom", { method: "POST", body: JSON.stringify({ name: "Prod reader", permissions: ["read_only"], account_group_ids: [groupId] }) })
    await page.reload()
    await page.getByRole("listitem", { name: "Prod team" }).getByText("Limits 1 custom role.").waitFor({ timeout: 30_000 })
    await lookFromTop(page, "account-groups")
    await page.getByRole("button", { name: "Delete Prod team" }).click()
    const confirm = page.getByRole("alertdialog", { name: "Delete account group" })
    await confirm.getByRole("button", { name: "Delete group" }).click()
    await confirm.getByRole("alert").getByText("This group limits a role; remove it from the role first").waitFor({ timeout: 30_000 })
    await look(page, "account-groups-delete-refused")
    await confirm.getByRole("button", { name: "Cancel" }).click()
    await page.getByRole("listitem", { name: "Prod team" }).waitFor()

    // The fleet page's Compliance card: per requirement, the members passing, failing, with exceptions; the CSV download.
    await page.goto(`${baseUrl()}/dashboard/organizations/${organizationId}/fleet`)
    const compliance = page.getByRole("region", { name: "Compliance", exact: true })
    const requirements = compliance.getByRole("table", { name: /Requirements by member accounts/ })
    await requirements.waitFor({ timeout: 60_000 })
    expect(await compliance.textContent()).toMatch(/Members scanned.*of \d+ member accounts?/)
    const [download] = await Promise.all([page.waitForEvent("download"), compliance.getByRole("button", { name: "Requirements CSV" }).click()])
    expect(download.suggestedFilename()).toMatch(new RegExp(`^organization-${organizationId}-[a-z0-9.-]+-compliance-requirements\\.csv$`))
    await lookFromTop(page, "organization-fleet-compliance")
    await page.close()
  })

  it("a team lead limited to the unit's group reads the organisation, its fleet and findings over their members only", async () => {
    const organizations = await api<{ data: { organizations: Array<{ id: number; account_name: string }> } }>("/api/organizations")
    const organizationId = organizations.data.organizations.find((o) => o.account_name === ORG_NAME)!.id
    const roles = await api<{ data: { custom_roles: Array<{ id: number; name: string }> } }>("/api/roles")
    const roleId = roles.data.custom_roles.find((r) => r.name === "Prod reader")!.id
    // The lead joins the owner's workspace with the custom role limited to the "Prod team" group (previous case).
    const invitedAt = Date.now()
    await api("/api/admin/users/invite", { method: "POST", body: JSON.stringify({ invitations: [{ email: lead.email, role_id: roleId, is_custom_role: true }] }) })
    await acceptMailedInvitation(lead, invitedAt)

    const page = await newPage(browser)
    await signIn(page, lead.email, lead.password)
    await page.goto(`${baseUrl()}/dashboard/accounts/${organizationId}/organization`)
    await page.getByRole("heading", { level: 1, name: ORG_NAME }).waitFor({ timeout: 30_000 })
    await page.getByText(AccountGroupMessages.limitedOrganizationView).waitFor()
    await page.getByRole("list", { name: "Organizational units" }).getByText(/^Prod-/).first().waitFor()
    for (const name of ["Sync now", "Scan organization", "Change selection"]) expect(await page.getByRole("button", { name }).count()).toBe(0)
    await lookFromTop(page, "organization-page-limited")
    await page.getByRole("link", { name: "Fleet dashboard" }).click()
    await page.getByRole("heading", { level: 1, name: `Fleet of ${ORG_NAME}` }).waitFor({ timeout: 30_000 })
    await lookFromTop(page, "organization-fleet-dashboard-limited")
    await page.goto(`${baseUrl()}/dashboard/accounts/${organizationId}/organization`)
    await page.getByRole("link", { name: "Findings across members" }).click()
    await page.getByRole("heading", { level: 1, name: `Findings across ${ORG_NAME}` }).waitFor({ timeout: 30_000 })
    await lookFromTop(page, "organization-fleet-findings-limited")
    await page.close()
  })
})
