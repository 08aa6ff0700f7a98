/** Scan steps shared by the scanning journeys. */
import type { Page } from "playwright-core"
import { expect } from "vitest"
import { baseUrl } from "./access.ts"
import { MOTO_KEYS } from "./moto.ts"

/** An API caller as the journey's person (see `apiAs`). */
type Api = <T>(path: string, init?: RequestInit) => Promise<T>

/** Adds the moto account (AWS, not an organization) under `name` through the API; answers its id. */
export const addMotoAccount = async (api: Api, name: string): Promise<number> => {
  const added = await api<{ data: { account: { id: number } } }>("/api/accounts", {
    method: "POST",
    body: JSON.stringify({ cloud_provider_id: 1, account_name: name, is_organization: false, credentials: MOTO_KEYS }),
  })
  return added.data.account.id
}

/**
 * Launch scan on the account page (its heading is `accountName`), then follow the new scan — the account's first with
 * an id above `previous` — to its completion on its page; answers its id.
 */
export const scanFromAccountPage = async (
  page: Page,
  api: Api,
  account: { readonly id: number; readonly name: string },
  previous = 0,
): Promise<number> => {
  await page.goto(`${baseUrl()}/dashboard/accounts/${account.id}`)
  await page.getByRole("heading", { level: 1, name: account.name }).waitFor()
  await page.getByRole("button", { name: "Launch scan", exact: true }).click()
  const launch = page.getByRole("dialog", { name: "Launch scan" })
  await launch.getByRole("button", { name: "Launch", exact: true }).click()
  await page.getByText("Scan started").first().waitFor({ timeout: 20_000 })
  let scanId = 0
  for (const deadline = Date.now() + 20_000; scanId <= previous && Date.now() < deadline;) {
    const list = await api<{ data: Array<{ id: number; account_id: number }> }>("/api/scans")
    scanId = list.data.find((s) => s.account_id === account.id)?.id ?? 0
    if (scanId <= previous) await page.waitForTimeout(250)
  }
  expect(scanId).toBeGreaterThan(previous)
  await page.goto(`${baseUrl()}/dashboard/scans/${scanId}`)
  await page.getByRole("region", { name: "Summary" }).getByText("Completed", { exact: true }).waitFor({ timeout: 180_000 })
  return scanId
}

/** Launches a scan of `services` of the account through the API and waits (polling) until it completed; answers its id. */
export const scanViaApi = async (api: Api, accountId: number, services: ReadonlyArray<string>): Promise<number> => {
  const me = await api<{ data: { id: number } }>("/api/user-info")
  const started = await api<{ data: { id: number } }>("/api/scans", {
    method: "POST",
    body: JSON.stringify({ user_id: me.data.id, account_id: accountId, cloud_provider_id: 1, cloud_provider_name: "aws", services }),
  })
  const scanId = started.data.id
  for (const deadline = Date.now() + 240_000; ;) {
    const scan = await api<{ data: { status: string } }>(`/api/scans/${scanId}`)
    if (scan.data.status === "completed") return scanId
    expect(scan.data.status).not.toBe("failed")
    if (Date.now() > deadline) throw new Error(`scan ${scanId} still ${scan.data.status}`)
    await new Promise((r) => setTimeout(r, 500))
  }
}
