// @vitest-environment happy-dom
/**
 * The Account groups page (issue 31 item 5) rendered with fake effects inside the app's root (toasts, router): the
 * groups with their kind, definition, accounts and limited roles; creating a hand-picked group through the dialog
 * (the contract's messages tied to their fields first); a delete the server refuses (409 while a role is limited to
 * the group) keeps the group with the server's words; a limited admin's 403 names the rule.
 */
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react"
import { afterEach, describe, expect, it } from "vitest"
import { Route, Switch } from "wouter"
import { memoryLocation } from "wouter/memory-location"
import { SimulatedClock } from "xstate"
import { AccountGroupMessages, type AccountGroupId, type AccountGroupPayload } from "../../src/contracts/account-groups.ts"
import type { AccountGroupsEffects, AccountGroupsLoaded } from "../../src/machines/account-groups-effects.ts"
import { AccountGroupsEffectsProvider, UNWIRED_ACCOUNT_GROUPS_EFFECTS } from "../../src/views/account-groups/account-groups-effects-context.tsx"
import { AccountGroupsView } from "../../src/views/account-groups/account-groups.view.tsx"
import { App } from "../../src/views/app.tsx"
import { preloadScreens } from "../../src/views/routes.tsx"
import { SessionStatusContext } from "../../src/views/session-status.tsx"
import { accountGroup, loaded } from "../machines/account-groups-fakes.ts"
import { flush, httpFailure } from "../machines/auth-fakes.ts"

await preloadScreens()
afterEach(cleanup)

const settle = async (): Promise<void> => {
  for (let i = 0; i < 3; i += 1) await act(async () => flush())
}

const press = async (element: HTMLElement) => {
  fireEvent.click(element)
  await settle()
}

const renderPage = async (load: () => Promise<AccountGroupsLoaded>, overrides: Partial<AccountGroupsEffects> = {}) => {
  const saved: Array<{ id: AccountGroupId | null; payload: AccountGroupPayload }> = []
  const deleted: AccountGroupId[] = []
  const effects: AccountGroupsEffects = {
    ...UNWIRED_ACCOUNT_GROUPS_EFFECTS,
    loadAccountGroups: load,
    saveAccountGroup: async (input) => {
      saved.push(input)
      return { message: AccountGroupMessages.groupCreated, group: accountGroup(9, input.payload.name, { kind: input.payload.kind, organization_id: null, unit_id: null, unit_path: null, account_ids: input.payload.account_ids ?? [], matched_account_ids: input.payload.account_ids ?? [] }) }
    },
    deleteAccountGroup: async ({ id }) => {
      deleted.push(id)
      throw httpFailure("generic", 409, { _tag: "Conflict", message: AccountGroupMessages.groupInUse })
    },
    ...overrides,
  }
  const clock = new SimulatedClock()
  render(
    <SessionStatusContext value="authenticated">
      <AccountGroupsEffectsProvider effects={effects} clock={clock}>
        <App clock={clock} location={memoryLocation({ path: "/dashboard/settings/account-groups" })}>
          <Switch>
            <Route path="/dashboard/settings/account-groups">
              <AccountGroupsView />
            </Route>
          </Switch>
        </App>
      </AccountGroupsEffectsProvider>
    </SessionStatusContext>,
  )
  await settle()
  return { saved, deleted }
}

describe("account groups page", () => {
  it("lists each group with its kind, definition, the accounts it holds and the roles it limits", async () => {
    await renderPage(async () => loaded())
    expect(screen.getByRole("heading", { level: 1, name: "Account groups" })).toBeTruthy()
    const list = screen.getByRole("list", { name: "Account groups" })
    const names = within(list).getAllByRole("heading", { level: 3 }).map((h) => h.textContent)
    expect(names).toEqual(["Audit sample", "Payments team", "Prod"])
    const prod = within(list).getByRole("listitem", { name: "Prod" })
    expect(prod.textContent).toContain("Organisation unit")
    expect(prod.textContent).toContain("Acme · Root / Prod and every unit below it")
    expect(prod.textContent).toContain("Holds 2 accounts: Web prod, API prod")
    expect(prod.textContent).toContain("Limits 1 custom role.")
    expect(within(list).getByRole("listitem", { name: "Payments team" }).textContent).toContain("Tag team = payments")
    expect(within(list).getByRole("listitem", { name: "Audit sample" }).textContent).toContain("2 accounts chosen by hand")
  })

  it("creates a hand-picked group: the name's message first, then the accounts checked", async () => {
    const { saved } = await renderPage(async () => loaded())
    await press(screen.getByRole("button", { name: "New group" }))
    const dialog = screen.getByRole("dialog", { name: "New account group" })
    await press(within(dialog).getByRole("button", { name: "Create group" }))
    expect(within(dialog).getByText(AccountGroupMessages.nameRequired)).toBeTruthy()
    expect(within(dialog).getByText(AccountGroupMessages.unitRequired)).toBeTruthy()
    expect(saved).toEqual([])
    fireEvent.change(within(dialog).getByLabelText("Name"), { target: { value: "Audit 2" } })
    await settle()
    // The kind picker (a react-aria Select) is driven through its hidden native select.
    fireEvent.change(dialog.querySelector("select")!, { target: { value: "manual" } })
    await settle()
    await press(within(dialog).getByRole("checkbox", { name: /Payments \(333333333333\)/ }))
    await press(within(dialog).getByRole("checkbox", { name: /Data lake \(data-lake\)/ }))
    await press(within(dialog).getByRole("button", { name: "Create group" }))
    expect(saved).toEqual([{ id: null, payload: { name: "Audit 2", kind: "manual", account_ids: [23, 24] } }])
    expect(screen.queryByRole("dialog", { name: "New account group" })).toBeNull()
    expect(within(screen.getByRole("list", { name: "Account groups" })).getByRole("listitem", { name: "Audit 2" }).textContent).toContain("Holds 2 accounts: Payments, Data lake")
    expect(await screen.findByText(AccountGroupMessages.groupCreated)).toBeTruthy()
  })

  it("a group that limits a role is kept with the server's words", async () => {
    const { deleted } = await renderPage(async () => loaded())
    await press(screen.getByRole("button", { name: "Delete Prod" }))
    const dialog = screen.getByRole("alertdialog", { name: "Delete account group" })
    await press(within(dialog).getByRole("button", { name: "Delete group" }))
    expect(deleted).toEqual([1])
    expect(within(screen.getByRole("alertdialog", { name: "Delete account group" })).getAllByText(AccountGroupMessages.groupInUse).length).toBeGreaterThan(0)
    await press(within(screen.getByRole("alertdialog", { name: "Delete account group" })).getByRole("button", { name: "Cancel" }))
    expect(within(screen.getByRole("list", { name: "Account groups" })).getByRole("listitem", { name: "Prod" })).toBeTruthy()
  })

  it("a limited admin's 403 names the rule, without a retry", async () => {
    await renderPage(async () => {
      throw httpFailure("generic", 403, { _tag: "Forbidden", message: AccountGroupMessages.adminOnly })
    })
    expect(screen.getAllByText(AccountGroupMessages.adminOnly).length).toBeGreaterThan(0)
    expect(screen.queryByRole("button", { name: "Try again" })).toBeNull()
  })
})
