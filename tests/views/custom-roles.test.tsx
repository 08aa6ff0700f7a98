// @vitest-environment happy-dom
/**
 * The team page's Custom roles card (issue 31 item 5, "limited to groups") rendered with fake effects inside the app's
 * root: each role with its permissions and the accounts it reaches; a role limited to a group created through the
 * dialog (the access choice and the group checked); a user who may not read groups is told the role keeps its accounts.
 */
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react"
import { afterEach, describe, expect, it } from "vitest"
import { memoryLocation } from "wouter/memory-location"
import { SimulatedClock } from "xstate"
import type { AccountGroupId } from "../../src/contracts/account-groups.ts"
import type { RoleId } from "../../src/contracts/ids.ts"
import { AccessServerMessages } from "../../src/contracts/server-messages.ts"
import type { CustomRolePayload } from "../../src/contracts/team.ts"
import type { RoleWithPermissions } from "../../src/contracts/workspaces.ts"
import type { AccountGroupsEffects, CustomRolesLoaded } from "../../src/machines/account-groups-effects.ts"
import { AccountGroupsEffectsProvider, UNWIRED_ACCOUNT_GROUPS_EFFECTS } from "../../src/views/account-groups/account-groups-effects-context.tsx"
import { App } from "../../src/views/app.tsx"
import { SessionStatusContext } from "../../src/views/session-status.tsx"
import { CustomRolesCard } from "../../src/views/team/custom-roles-card.tsx"
import { flush } from "../machines/auth-fakes.ts"

afterEach(cleanup)

const settle = async (): Promise<void> => {
  for (let i = 0; i < 3; i += 1) await act(async () => flush())
}
const press = async (element: HTMLElement) => {
  fireEvent.click(element)
  await settle()
}

const role = (id: number, name: string, groups: ReadonlyArray<number> | null): RoleWithPermissions =>
  ({ id, name, is_custom: true, permissions: [{ id: 12, name: "read_only" }], account_group_ids: groups }) as unknown as RoleWithPermissions

const renderCard = async (loaded: CustomRolesLoaded) => {
  const saved: Array<{ id: RoleId | null; payload: CustomRolePayload }> = []
  const effects: AccountGroupsEffects = {
    ...UNWIRED_ACCOUNT_GROUPS_EFFECTS,
    loadCustomRoles: async () => loaded,
    saveCustomRole: async (input) => {
      saved.push(input)
      return { message: AccessServerMessages.roleCreated, role: role(20, input.payload.name, input.payload.account_group_ids ?? null) }
    },
  }
  const clock = new SimulatedClock()
  render(
    <SessionStatusContext value="authenticated">
      <AccountGroupsEffectsProvider effects={effects} clock={clock}>
        <App clock={clock} location={memoryLocation({ path: "/dashboard/users" })}>
          <CustomRolesCard />
        </App>
      </AccountGroupsEffectsProvider>
    </SessionStatusContext>,
  )
  await settle()
  return { saved }
}

const groups = [{ id: 1 as AccountGroupId, name: "Prod" }, { id: 2 as AccountGroupId, name: "Payments team" }]

describe("custom roles card", () => {
  it("says which accounts each role reaches and creates a role limited to a chosen group", async () => {
    const { saved } = await renderCard({ roles: [role(9, "Prod reader", [1]), role(8, "Auditor", null)], groups })
    const list = screen.getByRole("list", { name: "Custom roles" })
    expect(within(list).getByRole("listitem", { name: "Prod reader" }).textContent).toContain("Accounts: Only the accounts of Prod")
    expect(within(list).getByRole("listitem", { name: "Prod reader" }).textContent).toContain("Limited to groups")
    expect(within(list).getByRole("listitem", { name: "Auditor" }).textContent).toContain("Accounts: Every account")
    await press(screen.getByRole("button", { name: "New custom role" }))
    const dialog = screen.getByRole("dialog", { name: "New custom role" })
    fireEvent.change(within(dialog).getByLabelText("Role name"), { target: { value: "Payments lead" } })
    await settle()
    await press(within(dialog).getByRole("checkbox", { name: "scan service" }))
    await press(within(dialog).getByRole("radio", { name: "Only the accounts of these groups" }))
    expect(within(dialog).getByText("No group chosen: members with this role will see no account")).toBeTruthy()
    await press(within(dialog).getByRole("checkbox", { name: "Payments team" }))
    await press(within(dialog).getByRole("button", { name: "Create role" }))
    expect(saved).toEqual([{ id: null, payload: { name: "Payments lead", permissions: ["scan_service"], account_group_ids: [2] } }])
    expect(within(screen.getByRole("list", { name: "Custom roles" })).getByRole("listitem", { name: "Payments lead" }).textContent).toContain("Only the accounts of Payments team")
  })

  it("without the right to read groups the access choice is not offered and the role keeps its accounts", async () => {
    const { saved } = await renderCard({ roles: [role(9, "Prod reader", [1])], groups: null })
    await press(screen.getByRole("button", { name: "Edit Prod reader" }))
    const dialog = screen.getByRole("dialog", { name: "Edit custom role" })
    expect(within(dialog).queryByRole("radio")).toBeNull()
    expect(within(dialog).getByText(/the role keeps its accounts/)).toBeTruthy()
    await press(within(dialog).getByRole("button", { name: "Save role" }))
    expect(saved).toEqual([{ id: 9, payload: { name: "Prod reader", permissions: ["read_only"] } }])
  })
})
