/**
 * GCP and Azure journeys against the real product, with the loopback fake clouds of e2e/support/cloud-setup.ts as the
 * Google Cloud project and the Azure subscription (the product reaches them through GCP_ENDPOINT_URL /
 * AZURE_ENDPOINT_URL; the service-account key is a real RSA key whose signed JWT the fake token endpoint verifies).
 * Per provider: add the account through the wizard (the provider's own credential fields, their required texts, a bad
 * value refused) → the account card → launch a scan → watch it complete → the services of the provider's catalogue →
 * a service's failed findings and another's passed ones → a failed finding with a fixer → Remediate → 'View
 * Remediated' (and the fake cloud really changed) → export CSV (file name, every finding, the provider's services, the
 * remediated row). Every screen is looked at (1280 px and 390 px screenshots in e2e/artifacts/, axe).
 */
import { readFile } from "node:fs/promises"
import type { Browser, Download, Locator, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { ProviderIds } from "../../src/contracts/constants.ts"
import { ScanningMessages, ValidationMessages } from "../../src/contracts/messages.ts"
import { servicesToScan } from "../../server/scanner/service-catalogue.ts"
import { ScanningTexts } from "../../server/scans/texts.ts"
import { CSV_COLUMNS } from "../../server/export/csv.ts"
import { parseCsv } from "../../tests/scanning/csv-parse.ts"
import { baseUrl, field, look, newPerson, signIn, signUpAndVerifyViaApi, type Person } from "../support/access.ts"
import { columnTexts, launchBrowser, newPage } from "../support/browser.ts"

const FILE_NAME = /^scan-(\d+)-findings-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z\.csv$/

let browser: Browser
const owner: Person = newPerson("cloudowner")

beforeAll(async () => {
  browser = await launchBrowser()
  await signUpAndVerifyViaApi(owner)
})

afterAll(async () => {
  await browser?.close()
})

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** The state of the fake clouds (e2e/support/cloud-setup.ts). */
const cloudState = async <T,>(path: string): Promise<T> => {
  const r = await fetch(`${inject("cloudControlUrl")}${path}`)
  expect(r.status, await r.clone().text()).toBe(200)
  return (await r.json()) as T
}

const tokenOf = async (email: string, password: string): Promise<string> => {
  const r = await fetch(`${baseUrl()}/api/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  })
  expect(r.status).toBe(200)
  return ((await r.json()) as { access_token: string }).access_token
}

/** A GET of the API as the owner, in the owner's (only) workspace. */
const ownerGet = async <T,>(path: string): Promise<T> => {
  const token = await tokenOf(owner.email, owner.password)
  const workspaces = (await (await fetch(`${baseUrl()}/api/workspaces`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
    data: Array<{ workspace_id: number }>
  }
  const r = await fetch(`${baseUrl()}${path}`, {
    headers: { authorization: `Bearer ${token}`, "x-workspace-id": String(workspaces.data[0]!.workspace_id) },
  })
  expect(r.status, await r.clone().text()).toBe(200)
  return (await r.json()) as T
}

const downloadCsv = async (page: Page): Promise<{ name: string; text: string }> => {
  await page.getByRole("button", { name: "Export" }).click()
  const [file] = await Promise.all([
    page.waitForEvent("download", { timeout: 30_000 }) as Promise<Download>,
    page.getByRole("menuitem", { name: "CSV", exact: true }).click(),
  ])
  return { name: file.suggestedFilename(), text: await readFile(await file.path(), "utf8") }
}

const statValue = async (page: Page, label: string): Promise<number> => {
  const text = await page.getByRole("region", { name: "Summary" }).locator("div", { has: page.getByText(label, { exact: true }) }).last().locator("dd").textContent()
  return Number(text)
}

/** The value of a fact (dt/dd) on the finding page. */
const fact = (page: Page, label: string): Locator => page.locator("div", { has: page.locator("dt", { hasText: new RegExp(`^${escapeRegExp(label)}$`) }) }).last().locator("dd")

interface ProviderJourney {
  readonly provider: "GCP" | "Azure"
  readonly providerId: number
  /** Screenshot name prefix. */
  readonly tag: string
  readonly accountName: string
  /** The cloud-side id the product derives (project id / subscription id). */
  readonly cloudAccountId: string
  /** The required-field texts of the provider's empty form. */
  readonly requiredTexts: ReadonlyArray<string>
  /** Wrong credentials, each refused with its text (the wizard stays on the form). */
  readonly refusals: ReadonlyArray<{ readonly fill: (wizard: Locator) => Promise<void>; readonly text: string }>
  readonly fillRight: (wizard: Locator) => Promise<void>
  /** The failed finding the journey remediates: its service, title and the resource row. */
  readonly fix: { readonly service: string; readonly title: string; readonly resource: RegExp; readonly resourceId: (id: string) => boolean }
  /** Asserts the fake cloud holds the fixed configuration. */
  readonly fixedInTheCloud: () => Promise<void>
}

/** The whole journey of one provider, in a fresh page of the owner. */
async function journey(j: ProviderJourney): Promise<void> {
  const page = await newPage(browser)
  await signIn(page, owner.email, owner.password)
  await page.goto(`${baseUrl()}/dashboard`)
  await page.getByRole("button", { name: "Add account" }).first().waitFor()

  // Wizard: the provider's card → its credential fields → required texts → a refused value → Test connection → OK.
  await page.getByRole("button", { name: "Add account" }).first().click()
  const wizard = page.getByRole("dialog", { name: "Add cloud account" })
  await wizard.getByRole("button", { name: j.provider, exact: true }).click()
  await wizard.getByRole("button", { name: "Test connection" }).click()
  for (const text of j.requiredTexts) await wizard.getByText(text, { exact: true }).waitFor()
  await look(page, `${j.tag}-wizard-required`)
  await field(wizard, "Account name").fill(j.accountName)
  for (const [i, refusal] of j.refusals.entries()) {
    await refusal.fill(wizard)
    await wizard.getByRole("button", { name: "Test connection" }).click()
    await wizard.getByText(refusal.text, { exact: true }).waitFor({ timeout: 30_000 })
    await look(page, `${j.tag}-wizard-refused-${i + 1}`)
  }
  await j.fillRight(wizard)
  await look(page, `${j.tag}-wizard-filled`)
  await wizard.getByRole("button", { name: "Test connection" }).click()
  await wizard.getByText(ScanningMessages.connectionSuccessful).waitFor({ timeout: 30_000 })
  await look(page, `${j.tag}-wizard-connected`)
  await wizard.getByRole("button", { name: "OK" }).click()
  const card = page.getByRole("article", { name: j.accountName })
  await card.waitFor({ timeout: 30_000 })
  await page.getByRole("dialog").waitFor({ state: "detached" })
  await card.getByText(j.cloudAccountId).first().waitFor()
  await look(page, `${j.tag}-dashboard`)

  // Account page → Launch scan.
  await card.getByRole("button", { name: new RegExp(`^${escapeRegExp(j.accountName)}`) }).click()
  await page.getByRole("heading", { level: 1, name: j.accountName }).waitFor()
  await page.getByText("No scans have been run for this account yet.").waitFor()
  await page.getByText(j.cloudAccountId).first().waitFor()
  await look(page, `${j.tag}-account`)
  await page.getByRole("button", { name: "Launch scan", exact: true }).click()
  const launch = page.getByRole("dialog", { name: "Launch scan" })
  await launch.getByRole("button", { name: "Launch", exact: true }).click()
  await page.getByText("Scan started").first().waitFor({ timeout: 20_000 })
  await page.getByRole("dialog").waitFor({ state: "detached" })

  // The scan list's newest scan is this one → its detail until it completes.
  await page.goto(`${baseUrl()}/dashboard/scans`)
  const table = page.getByRole("table", { name: "Security scans" })
  const row = table.getByRole("row").filter({ hasText: j.accountName }).first()
  await row.waitFor()
  const scanLink = row.getByRole("link", { name: /^#\d+$/ })
  const scanId = Number((await scanLink.textContent())!.slice(1))
  await scanLink.click()
  await page.getByRole("heading", { level: 1, name: `Scan #${scanId}` }).waitFor()
  await page.getByRole("region", { name: "Summary" }).getByText("Completed", { exact: true }).waitFor({ timeout: 180_000 })
  await page.getByRole("region", { name: "Failed findings by severity" }).getByRole("listitem").first().waitFor()
  await look(page, `${j.tag}-scan-detail`)
  const total = await statValue(page, "Total checks")
  expect(await statValue(page, "Failed checks")).toBeGreaterThan(0)
  expect(await statValue(page, "Passed checks")).toBeGreaterThan(0)
  // Every service of the provider's catalogue, and only those, with a findings button.
  const catalogue = servicesToScan(j.providerId).map((s) => s.name)
  for (const name of catalogue) await page.getByRole("button", { name: `View findings of ${name}`, exact: true }).waitFor()
  expect(await page.getByRole("button", { name: /^View findings of / }).count()).toBe(catalogue.length)

  // A passed finding: the service of the first one the API lists, opened from the scan and filtered on 'Pass'.
  const passed = await ownerGet<{ data: Array<{ service_name: string; policy_check: string }> }>(`/api/findings?scan_id=${scanId}&status=pass&page=1&page_size=1`)
  const passService = passed.data[0]!.service_name
  expect(catalogue).toContain(passService)
  await page.getByRole("button", { name: `View findings of ${passService}`, exact: true }).click()
  await page.getByRole("heading", { level: 1, name: `${passService} findings` }).waitFor()
  const findings = page.getByRole("table", { name: "Findings" })
  await findings.waitFor()
  await page.getByRole("button", { name: "Show filters" }).click()
  await page.locator("label").filter({ hasText: /^Pass$/ }).click()
  await findings.getByRole("link", { name: passed.data[0]!.policy_check, exact: true }).waitFor()
  const passStatuses = await columnTexts(findings, "Status")
  expect(passStatuses.length).toBeGreaterThan(0)
  for (const status of passStatuses) expect(status).toBe("Pass")
  await look(page, `${j.tag}-findings-passed`)

  // The fixable service's failed findings.
  await page.getByRole("link", { name: `Scan #${scanId}` }).first().click()
  await page.getByRole("heading", { level: 1, name: `Scan #${scanId}` }).waitFor()
  await page.getByRole("button", { name: `View findings of ${j.fix.service}`, exact: true }).click()
  await page.getByRole("heading", { level: 1, name: `${j.fix.service} findings` }).waitFor()
  await findings.waitFor()
  await page.getByRole("button", { name: "Show filters" }).click()
  await page.locator("label").filter({ hasText: /^Fail$/ }).click()
  const failStatuses = await columnTexts(findings, "Status")
  expect(failStatuses.length).toBeGreaterThan(0)
  for (const status of failStatuses) expect(status).toBe("Fail")
  await look(page, `${j.tag}-findings-failed`)

  // The finding → its facts → Remediate the resource → 'View Remediated'.
  await findings.getByRole("link", { name: j.fix.title, exact: true }).click()
  await page.getByRole("navigation", { name: "Breadcrumbs" }).waitFor()
  await page.getByRole("heading", { level: 1, name: j.fix.title }).waitFor()
  expect(await fact(page, "Service").textContent()).toBe(j.fix.service)
  expect(await fact(page, "Provider").textContent()).toBe(j.provider)
  expect(await fact(page, "Account").textContent()).toBe(j.accountName)
  await look(page, `${j.tag}-finding`)
  // Resource ids (no spaces) wrap at their path segments instead of widening their column to the whole id.
  const resourceColumn = await page.getByRole("table", { name: "Affected resources" }).getByRole("columnheader", { name: "Resource", exact: true }).boundingBox()
  expect(resourceColumn?.width).toBeLessThan(240)
  const resources = page.getByRole("table", { name: "Affected resources" })
  const resourceRow = resources.getByRole("row").filter({ hasText: j.fix.resource })
  await resourceRow.getByRole("button", { name: "Remediate" }).click()
  const confirm = page.getByRole("dialog", { name: "Remediate resource" })
  await look(page, `${j.tag}-remediate-dialog`)
  await confirm.getByRole("button", { name: "Remediate", exact: true }).click()
  await page.getByText("Remediation started").first().waitFor({ timeout: 20_000 })
  await page.getByRole("dialog").getByRole("button", { name: "Close" }).last().click()
  const viewRemediated = resourceRow.getByRole("button", { name: "View Remediated" })
  await viewRemediated.waitFor({ timeout: 90_000 })
  await viewRemediated.click()
  await page.getByRole("dialog", { name: "Remediation" }).getByText("Remediated", { exact: true }).waitFor()
  await look(page, `${j.tag}-remediated`)
  await page.getByRole("dialog").getByRole("button", { name: "Close" }).last().click()
  await j.fixedInTheCloud()

  // Export CSV from the scan: the spec's file name, every finding, the provider's services, the remediated row.
  await page.getByRole("navigation", { name: "Breadcrumbs" }).getByRole("link", { name: `Scan #${scanId}` }).click()
  await page.getByRole("heading", { level: 1, name: `Scan #${scanId}` }).waitFor()
  const csv = await downloadCsv(page)
  expect(csv.name).toMatch(FILE_NAME)
  expect(FILE_NAME.exec(csv.name)?.[1]).toBe(String(scanId))
  const records = parseCsv(csv.text)
  expect(records[0]).toEqual([...CSV_COLUMNS])
  const col = (name: (typeof CSV_COLUMNS)[number]) => CSV_COLUMNS.indexOf(name)
  const body = records.slice(1).filter((r) => r.length > 1)
  expect(new Set(body.map((r) => r[col("finding_id")])).size).toBe(total)
  expect(body.every((r) => r[col("scan_id")] === String(scanId))).toBe(true)
  expect(body.every((r) => r[col("account_name")] === j.accountName)).toBe(true)
  expect(new Set(body.map((r) => r[col("service")]))).toEqual(new Set(catalogue.filter((name) => body.some((r) => r[col("service")] === name))))
  expect(body.every((r) => catalogue.includes(r[col("service")]!))).toBe(true)
  const statuses = new Set(body.map((r) => r[col("finding_status")]))
  expect(statuses.has("fail") && statuses.has("pass")).toBe(true)
  const fixedRows = body.filter((r) => r[col("policy_check")] === j.fix.title && j.fix.resourceId(r[col("resource_id")]!))
  expect(fixedRows).toHaveLength(1)
  expect(fixedRows[0]![col("service")]).toBe(j.fix.service)
  expect(fixedRows[0]![col("remediation_status")]).toBe("remediated")
  await page.context().close()
}

describe("GCP and Azure journeys (loopback fake clouds)", () => {
  it("GCP project: wizard with the service-account key → scan → findings → remediate a bucket → export", async () => {
    const projectId = inject("gcpProjectId")
    await journey({
      provider: "GCP",
      providerId: ProviderIds.GCP,
      tag: "gcp",
      accountName: "GCP Insecure Project",
      cloudAccountId: projectId,
      requiredTexts: [ValidationMessages.accountNameRequired, ValidationMessages.serviceAccountKeyRequired],
      refusals: [
        { fill: (wizard) => field(wizard, "Service account key (JSON)").fill("{ not a key file"), text: ValidationMessages.serviceAccountKeyInvalid },
        // A well-formed key of a service account Google does not know (deleted): the token endpoint refuses it.
        { fill: (wizard) => field(wizard, "Service account key (JSON)").fill(inject("gcpDeletedServiceAccountKey")), text: ScanningTexts.cloudCredentialsInvalidGcp },
      ],
      fillRight: (wizard) => field(wizard, "Service account key (JSON)").fill(inject("gcpServiceAccountKey")),
      fix: {
        service: "Cloud Storage",
        title: "Cloud Storage buckets should have uniform bucket-level access enabled",
        resource: /insecure-logs/,
        resourceId: (id) => id.includes("insecure-logs"),
      },
      fixedInTheCloud: async () => {
        const buckets = await cloudState<Array<{ name: string; iamConfiguration?: { uniformBucketLevelAccess?: { enabled?: boolean } } }>>(`/gcp/buckets/${projectId}`)
        expect(buckets.find((b) => b.name === "insecure-logs")?.iamConfiguration?.uniformBucketLevelAccess?.enabled).toBe(true)
      },
    })
  }, 360_000)

  it("Azure subscription: wizard with tenant, client and subscription → scan → findings → remediate a storage account → export", async () => {
    const azure = inject("azureCredentials")
    await journey({
      provider: "Azure",
      providerId: ProviderIds.Azure,
      tag: "azure",
      accountName: "Azure Legacy Subscription",
      cloudAccountId: azure.subscriptionId,
      requiredTexts: [
        ValidationMessages.accountNameRequired,
        ValidationMessages.tenantIdRequired,
        ValidationMessages.clientIdRequired,
        ValidationMessages.clientSecretRequired,
        ValidationMessages.subscriptionIdRequired,
      ],
      refusals: [
        {
          // Entra ID refuses the secret: the wizard names the Azure credentials to check.
          fill: async (wizard) => {
            await field(wizard, "Tenant ID").fill(azure.tenantId)
            await field(wizard, "Client ID").fill(azure.clientId)
            await field(wizard, "Client secret").fill("not-the-secret")
            await field(wizard, "Subscription ID").fill(azure.subscriptionId)
          },
          text: ScanningTexts.cloudCredentialsInvalidAzure,
        },
      ],
      fillRight: (wizard) => field(wizard, "Client secret").fill(azure.clientSecret),
      fix: {
        service: "Storage accounts",
        title: "The minimum TLS version for storage accounts should be 1.2",
        resource: /badstorage/,
        resourceId: (id) => id.endsWith("/storageAccounts/badstorage"),
      },
      fixedInTheCloud: async () => {
        const accounts = await cloudState<Array<{ name: string; properties: { minimumTlsVersion?: string } }>>(`/azure/storage/${azure.subscriptionId}`)
        expect(accounts.find((a) => a.name === "badstorage")?.properties.minimumTlsVersion).toBe("TLS1_2")
      },
    })
  }, 360_000)
})
