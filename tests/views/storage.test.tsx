// @vitest-environment happy-dom
/**
 * The Storage page (issue 30) rendered with fake storage effects inside the app's root (toasts, router): figures with
 * their units, the retention setting and what it frees, the form's validation and save (errors tied to their fields),
 * the server's refusals, the accounts table's order and paging, and a non-admin's 403.
 */
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react"
import { afterEach, describe, expect, it } from "vitest"
import { Route, Switch } from "wouter"
import { memoryLocation } from "wouter/memory-location"
import { SimulatedClock } from "xstate"
import { StorageMessages, type RetentionSetting, type WorkspaceStorage } from "../../src/contracts/storage.ts"
import type { RetentionSaved, StorageEffects } from "../../src/machines/storage-effects.ts"
import { App } from "../../src/views/app.tsx"
import { preloadScreens } from "../../src/views/routes.tsx"
import { SessionStatusContext } from "../../src/views/session-status.tsx"
import { StorageEffectsProvider } from "../../src/views/storage/storage-effects-context.tsx"
import { bytesText, countText, retentionText } from "../../src/views/storage/storage-format.ts"
import { StorageView } from "../../src/views/storage/storage.view.tsx"
import { flush, httpFailure } from "../machines/auth-fakes.ts"
import { accountStorage, manyAccounts, workspaceStorage } from "../machines/storage-fakes.ts"

await preloadScreens()
afterEach(cleanup)

const settle = async (): Promise<void> => {
  for (let i = 0; i < 3; i += 1) await act(async () => flush())
}

const renderStorage = async (storage: WorkspaceStorage | (() => Promise<WorkspaceStorage>), save?: (s: RetentionSetting) => Promise<RetentionSaved>) => {
  const saved: RetentionSetting[] = []
  const effects: StorageEffects = {
    loadStorage: typeof storage === "function" ? storage : async () => storage,
    saveRetention: async (setting) => {
      saved.push(setting)
      if (save !== undefined) return save(setting)
      const base = typeof storage === "function" ? workspaceStorage() : storage
      return { message: StorageMessages.retentionSaved, storage: { ...base, retention: setting } }
    },
  }
  const clock = new SimulatedClock()
  clock.set(Date.parse("2025-03-03T12:00:00.000Z"))
  render(
    <SessionStatusContext value="authenticated">
      <StorageEffectsProvider effects={effects} clock={clock}>
        <App clock={clock} location={memoryLocation({ path: "/dashboard/storage" })}>
          <Switch>
            <Route path="/dashboard/storage">
              <StorageView />
            </Route>
          </Switch>
        </App>
      </StorageEffectsProvider>
    </SessionStatusContext>,
  )
  await settle()
  return { saved }
}

/** A sortable column's header button (plain DOM: see `rowNames`). */
const header = (label: string): HTMLElement =>
  [...screen.getByRole("table", { name: "Storage by account" }).querySelectorAll<HTMLElement>("thead button")].find((b) => b.textContent === label)!

const press = async (element: HTMLElement) => {
  fireEvent.click(element)
  await settle()
}

const type = async (label: string, value: string) => {
  fireEvent.change(screen.getByLabelText(label), { target: { value } })
  await settle()
}

// Plain DOM queries: the accessibility tree queries take seconds over a hundred rows in happy-dom.
const rowNames = (): ReadonlyArray<string> =>
  [...screen.getByRole("table", { name: "Storage by account" }).querySelectorAll("tbody tr")].map((row) => row.querySelector("td")?.textContent ?? "")

describe("storage format", () => {
  it("says every figure's unit", () => {
    expect(countText(1, "scans")).toBe("1 scan")
    expect(countText(1440, "results")).toBe("1,440 result rows")
    expect(countText(2, "rows")).toBe("2 stored rows")
    expect([1, 999, 1000, 4_200_000, 14_000_000, 12_345_678_901].map(bytesText)).toEqual(["1 byte", "999 bytes", "1 kB", "4.2 MB", "14 MB", "12.3 GB"])
    expect(retentionText({ keep_days: null, keep_scans: null })).toBe("Every scan is kept: no retention limit is set.")
    expect(retentionText({ keep_days: 90, keep_scans: 1 })).toBe("Scans that ended more than 90 days ago are removed, and only the last 1 scan of each account is kept.")
  })
})

describe("Storage page", () => {
  it("shows the workspace's figures with units, the setting, what it frees, and the accounts largest first", async () => {
    await renderStorage(workspaceStorage())
    expect(screen.getByRole("heading", { level: 1, name: "Storage" })).toBeTruthy()
    const totals = screen.getByRole("region", { name: "Workspace storage" })
    expect(within(totals).getByText("16 scans")).toBeTruthy()
    expect(within(totals).getByText("1,920 result rows")).toBeTruthy()
    expect(within(totals).getByText("640 stored rows")).toBeTruthy()
    expect(within(totals).getByText("14 MB")).toBeTruthy()
    expect(within(totals).getByText("14,000,000 bytes")).toBeTruthy()
    const retention = screen.getByRole("region", { name: "Retention" })
    expect(within(retention).getByText("Scans that ended more than 90 days ago are removed.")).toBeTruthy()
    const frees = within(retention).getByRole("heading", { name: "The current setting will free" }).nextElementSibling as HTMLElement
    expect(within(frees).getByText("3 scans")).toBeTruthy()
    expect(within(frees).getByText("1.05 MB")).toBeTruthy()
    expect(rowNames().map((n) => n.replace(/AWS$/, ""))).toEqual(["Staging", "Production"])
    const bytesHeader = screen.getByRole("columnheader", { name: /Size on disk/ })
    expect(bytesHeader.getAttribute("aria-sort")).toBe("descending")
  })

  it("sorts by a header and shows thousands of accounts a page at a time", async () => {
    await renderStorage(workspaceStorage(manyAccounts(2000)))
    expect(rowNames()).toHaveLength(50)
    expect(screen.getByText("Showing 50 of 2,000 accounts")).toBeTruthy()
    await press(screen.getByText("Show more accounts"))
    expect(rowNames()).toHaveLength(100)
    await press(header("Account"))
    expect(header("Account").closest("th")!.getAttribute("aria-sort")).toBe("ascending")
    expect(rowNames()[0]).toMatch(/^Account 0001/)
    await press(header("Account"))
    expect(rowNames()[0]).toMatch(/^Account 2000/)
  })

  it("refuses values outside the limits on their fields, then saves a valid setting", async () => {
    const { saved } = await renderStorage(workspaceStorage())
    const save = screen.getByRole("button", { name: "Save retention setting" })
    expect(save.hasAttribute("disabled") || save.getAttribute("aria-disabled") === "true" || save.hasAttribute("data-disabled")).toBe(true)
    await type("Keep scans for (days)", "0")
    await type("Keep the last scans per account", "abc")
    await press(screen.getByRole("button", { name: "Save retention setting" }))
    expect(saved).toEqual([])
    const days = screen.getByLabelText("Keep scans for (days)")
    expect(days.getAttribute("aria-invalid")).toBe("true")
    const described = (days.getAttribute("aria-describedby") ?? "").split(" ").map((id) => document.getElementById(id)?.textContent)
    expect(described).toContain(StorageMessages.retentionDaysInvalid)
    expect(described.some((t) => t?.startsWith("Scans that ended more than this many days ago"))).toBe(true)
    const scans = screen.getByLabelText("Keep the last scans per account")
    const scansDescribed = (scans.getAttribute("aria-describedby") ?? "").split(" ").map((id) => document.getElementById(id)?.textContent)
    expect(scansDescribed).toContain(StorageMessages.retentionScansInvalid)
    await type("Keep scans for (days)", "30")
    await type("Keep the last scans per account", "")
    await press(screen.getByRole("button", { name: "Save retention setting" }))
    expect(saved).toEqual([{ keep_days: 30, keep_scans: null }])
    expect(screen.getByText(StorageMessages.retentionSaved)).toBeTruthy()
    expect(screen.getByText("Scans that ended more than 30 days ago are removed.")).toBeTruthy()
  })

  it("shows the server's field error on its field, and a failure above the form", async () => {
    let answer: unknown = httpFailure("generic", 400, { message: "bad", errors: [{ path: "keep_scans", message: "Keep 1 to 1000 scans per account, or leave it empty" }] })
    await renderStorage(workspaceStorage(), async () => {
      throw answer
    })
    await type("Keep the last scans per account", "7")
    await press(screen.getByRole("button", { name: "Save retention setting" }))
    const scans = screen.getByLabelText("Keep the last scans per account")
    expect(scans.getAttribute("aria-invalid")).toBe("true")
    expect((scans as HTMLInputElement).value).toBe("7")
    answer = httpFailure("generic", 500)
    await press(screen.getByRole("button", { name: "Save retention setting" }))
    const retention = screen.getByRole("region", { name: "Retention" })
    expect(within(retention).getAllByText(httpFailure("generic", 500).message).length).toBeGreaterThan(0)
  })

  it("a non-admin's 403 says only workspace admins may see storage", async () => {
    await renderStorage(() => Promise.reject(httpFailure("generic", 403, { message: "Forbidden" })))
    expect(screen.getByText(StorageMessages.storagePermissionDenied)).toBeTruthy()
    expect(screen.queryByRole("button", { name: "Try again" })).toBeNull()
  })

  it("an empty workspace says no account has kept scans", async () => {
    await renderStorage(workspaceStorage([], { keep_days: null, keep_scans: null }))
    expect(screen.getByText("No account has kept scans yet.")).toBeTruthy()
    expect(screen.getByText("Every scan is kept: no retention limit is set.")).toBeTruthy()
    expect(screen.getAllByText("0 scans").length).toBeGreaterThan(0)
    expect(accountStorage).toBeTypeOf("function")
  })
})
