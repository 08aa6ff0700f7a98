/**
 * The fleet seen with data (issue 31), in Chromium against the real product and moto: an organisation's unit holding
 * two member accounts that carry the member role, one with a bucket planted without versioning; the organisation is
 * onboarded with that unit included (API), scanned as a fleet (s3 only, to stay short) until every member scan is
 * completed, and then read on its screens: the fleet dashboard (the failing member first, by risk), the findings
 * across its members (the planted bucket's check, in the right member only) and the organisation's compliance. Every
 * screen is looked at with data on it (1280 px and 390 px screenshots in e2e/artifacts/, axe). Then the selection
 * leaves the failing member out, which retires it: its dashboard card, its account page and its failing finding say it
 * is no longer scanned or remediated and offer neither Launch scan, the schedule's Edit nor Remediate; its history
 * stays readable.
 */
import { CreateRoleCommand, IAMClient } from "@aws-sdk/client-iam"
import {
  CreateAccountCommand,
  CreateOrganizationalUnitCommand,
  CreateOrganizationCommand,
  DescribeOrganizationCommand,
  ListRootsCommand,
  MoveAccountCommand,
  OrganizationsClient,
} from "@aws-sdk/client-organizations"
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3"
import { AssumeRoleCommand, STSClient } from "@aws-sdk/client-sts"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { DEFAULT_MEMBER_ROLE_NAME, OrganizationMessages } from "../../src/contracts/organizations.ts"
import { apiAs, baseUrl, look, lookFromTop, newPerson, type Person, signIn, signUpAndVerifyViaApi } from "../support/access.ts"
import { launchBrowser, newPage } from "../support/browser.ts"
import { MOTO_KEYS } from "../support/moto.ts"

const ORG_NAME = "Fleet With Data"
const REGION = "us-east-1"
const VERSIONING_CHECK = "s3_bucket_versioning_enabled"

let browser: Browser
const owner: Person = newPerson("fleetdata")
const api = apiAs(owner)

const credentials = { accessKeyId: MOTO_KEYS.access_key, secretAccessKey: MOTO_KEYS.secret_key }
const client = <C>(make: new (config: any) => C, creds: object = credentials): C =>
  new make({ region: REGION, endpoint: inject("motoEndpoint"), credentials: creds, forcePathStyle: true, maxAttempts: 2 })

/** Credentials inside a member account (moto answers AssumeRole into any role of any account). */
const inMember = async (accountId: string) => {
  const out = await client(STSClient).send(new AssumeRoleCommand({ RoleArn: `arn:aws:iam::${accountId}:role/setup`, RoleSessionName: "setup" }))
  return { accessKeyId: out.Credentials!.AccessKeyId!, secretAccessKey: out.Credentials!.SecretAccessKey!, sessionToken: out.Credentials!.SessionToken! }
}

/** A unit of its own (moto keeps one organisation for the server's life) with two members carrying the member role. */
const plantFleet = async () => {
  const orgs = client(OrganizationsClient)
  await orgs.send(new CreateOrganizationCommand({ FeatureSet: "ALL" })).catch(async (error: unknown) => {
    await orgs.send(new DescribeOrganizationCommand({})).catch(() => {
      throw error
    })
  })
  const rootId = (await orgs.send(new ListRootsCommand({}))).Roots![0]!.Id!
  const unique = Date.now().toString(36)
  const unitName = `Data-${unique}`
  const unit = (await orgs.send(new CreateOrganizationalUnitCommand({ ParentId: rootId, Name: unitName }))).OrganizationalUnit!.Id!
  const members: Record<"billing" | "analytics", string> = { billing: "", analytics: "" }
  for (const name of ["billing", "analytics"] as const) {
    const created = await orgs.send(new CreateAccountCommand({ AccountName: `${name}-${unique}`, Email: `${name}-${unique}@example.com` }))
    const id = created.CreateAccountStatus!.AccountId!
    await orgs.send(new MoveAccountCommand({ AccountId: id, SourceParentId: rootId, DestinationParentId: unit }))
    const iam = client(IAMClient, await inMember(id))
    await iam.send(new CreateRoleCommand({ RoleName: DEFAULT_MEMBER_ROLE_NAME, AssumeRolePolicyDocument: JSON.stringify({ Version: "2012-10-17", Statement: [] }) }))
    members[name] = id
  }
  // The planted misconfiguration: a bucket without versioning in billing only.
  await client(S3Client, await inMember(members.billing)).send(new CreateBucketCommand({ Bucket: `fleet-billing-${unique}` }))
  return { unit, unitName, members }
}

beforeAll(async () => {
  browser = await launchBrowser()
  await signUpAndVerifyViaApi(owner)
})

afterAll(async () => {
  await browser?.close()
})

describe("the fleet with data", () => {
  it("scans a unit's members as a fleet and shows what they found on the fleet dashboard, across members and in compliance", async () => {
    const { unit, unitName, members } = await plantFleet()
    const created = await api<{ data: { account: { id: number } } }>("/api/accounts", {
      method: "POST",
      body: JSON.stringify({
        cloud_provider_id: 1,
        account_name: ORG_NAME,
        is_organization: true,
        credentials: MOTO_KEYS,
        organization: { include_units: [unit] },
      }),
    })
    const organizationId = created.data.account.id
    const accounts = await api<{ data: { accounts: Array<{ id: number; account_id: string | null }> } }>("/api/accounts?cloud_provider_id=1")
    const accountOf = (cloudAccountId: string) => accounts.data.accounts.find((a) => a.account_id === cloudAccountId)!.id
    const [billing, analytics] = [accountOf(members.billing), accountOf(members.analytics)]

    // The fleet scan, s3 only: every member scan completes.
    const me = await api<{ data: { id: number } }>("/api/user-info")
    const launched = await api<{ data: { fleet_scan_id: number } }>("/api/scans", {
      method: "POST",
      body: JSON.stringify({
        user_id: me.data.id, account_id: organizationId, cloud_provider_id: 1, cloud_provider_name: "aws", services: ["s3"],
      }),
    })
    const fleetScanId = launched.data.fleet_scan_id
    await expect.poll(async () => (await api<{ data: { status: string } }>(`/api/fleet-scans/${fleetScanId}`)).data.status, {
      timeout: 240_000,
      interval: 2_000,
    }).toBe("completed")
    const fleetScan = await api<{ data: { members: Array<{ account_id: number; state: string }> } }>(`/api/fleet-scans/${fleetScanId}`)
    expect(fleetScan.data.members.map((m) => [m.account_id, m.state]).sort()).toEqual([[billing, "completed"], [analytics, "completed"]].sort())

    const page = await newPage(browser)
    await signIn(page, owner.email, owner.password)

    // The fleet dashboard: both members, the one with the failing bucket first (sorted by risk).
    await page.goto(`${baseUrl()}/dashboard/organizations/${organizationId}/fleet`)
    await page.getByRole("heading", { level: 1, name: `Fleet of ${ORG_NAME}` }).waitFor({ timeout: 30_000 })
    const table = page.getByRole("table", { name: /member/i }).first()
    await table.getByRole("row").nth(2).waitFor({ timeout: 60_000 })
    const rows = await table.getByRole("row").allTextContents()
    const firstMember = rows.slice(1).findIndex((r) => r.includes(members.billing) || r.includes("billing-"))
    const secondMember = rows.slice(1).findIndex((r) => r.includes(members.analytics) || r.includes("analytics-"))
    expect(firstMember).toBeGreaterThanOrEqual(0)
    expect(secondMember).toBeGreaterThan(firstMember)
    expect(rows[1 + firstMember]).toContain(`Root / ${unitName}`)
    await lookFromTop(page, "fleet-data-dashboard")

    // Findings across the members: the planted bucket's check fails in billing only.
    const across = await api<{ data: Array<{ id: number; scan_id: number; check_id: string; status: string; account_id: number }> }>(
      `/api/findings?organization_id=${organizationId}&check=${VERSIONING_CHECK}&status=fail`,
    )
    expect(across.data.map((f) => f.account_id)).toEqual([billing])
    await page.goto(`${baseUrl()}/dashboard/accounts/${organizationId}/organization`)
    await page.getByRole("link", { name: "Findings across members" }).click()
    await page.getByRole("heading", { level: 1, name: `Findings across ${ORG_NAME}` }).waitFor({ timeout: 30_000 })
    await page.getByText(/versioning/i).first().waitFor({ timeout: 60_000 })
    await lookFromTop(page, "fleet-data-findings")

    // The organisation's compliance: members scanned, with a failing requirement named.
    await page.goto(`${baseUrl()}/dashboard/organizations/${organizationId}/fleet`)
    const compliance = page.getByRole("region", { name: "Compliance", exact: true })
    await compliance.getByRole("table", { name: /Requirements by member accounts/ }).waitFor({ timeout: 60_000 })
    expect(await compliance.textContent()).toMatch(/Members scanned.*2 of 2 member accounts/)
    await compliance.scrollIntoViewIfNeeded()
    await look(page, "fleet-data-compliance")

    // The selection leaves billing out: it retires, history kept (issue 31).
    const selection = await api<{ data: { recent_syncs: Array<{ changes: { retired: Array<{ cloud_account_id: string }> } }> } }>(
      `/api/organizations/${organizationId}/selection`,
      { method: "PUT", body: JSON.stringify({ include_units: [unit], exclude_units: [], include_accounts: [], exclude_accounts: [members.billing] }) },
    )
    expect(selection.data.recent_syncs[0]!.changes.retired.map((c) => c.cloud_account_id)).toEqual([members.billing])
    await page.goto(`${baseUrl()}/dashboard`)
    const retiredCard = page.getByRole("article", { name: /^billing-/ })
    await retiredCard.getByText(OrganizationMessages.memberRetiredLine).waitFor({ timeout: 30_000 })
    expect(await retiredCard.getByRole("button", { name: "Launch scan" }).count()).toBe(0)
    expect(await page.getByRole("article", { name: /^analytics-/ }).getByRole("button", { name: "Launch scan" }).count()).toBe(1)
    await retiredCard.scrollIntoViewIfNeeded()
    await look(page, "fleet-data-retired-card")

    await page.goto(`${baseUrl()}/dashboard/accounts/${billing}`)
    await page.getByRole("heading", { level: 1, name: /^billing-/ }).waitFor({ timeout: 30_000 })
    await page.getByText(OrganizationMessages.memberRetiredLine).first().waitFor()
    expect(await page.getByRole("button", { name: "Launch scan" }).count()).toBe(0)
    await page.getByRole("link", { name: "View scan details" }).waitFor()
    const schedule = page.getByRole("region", { name: "Scan schedule" })
    await schedule.getByText(OrganizationMessages.memberRetiredLine).waitFor({ timeout: 30_000 })
    expect(await schedule.getByRole("button", { name: "Edit" }).count()).toBe(0)
    await lookFromTop(page, "fleet-data-retired-account")

    const failing = across.data[0]!
    await page.goto(`${baseUrl()}/dashboard/scans/${failing.scan_id}/findings/${failing.id}?service=s3`)
    await page.getByText(OrganizationMessages.memberRetiredRemediation).waitFor({ timeout: 30_000 })
    const resources = page.getByRole("table", { name: "Affected resources" })
    await resources.waitFor()
    expect(await resources.getByRole("button", { name: "Remediate" }).count()).toBe(0)
    await lookFromTop(page, "fleet-data-retired-finding")
    await page.close()
  }, 480_000)
})
