// @vitest-environment happy-dom
import { cleanup, fireEvent, screen, within } from "@testing-library/react"
import { afterEach, describe, expect, it } from "vitest"
import type { WorkspaceId } from "../../src/contracts/ids.ts"
import { emptyWorkspaceStore, type Workspace } from "../../src/contracts/workspaces.ts"
import { markNewlyAdded, selectWorkspace } from "../../src/services/storage.ts"
import { httpFailure } from "../machines/auth-fakes.ts"
import { T0, fakeWorkspaceEffects, renderAccess } from "./access-render.tsx"

afterEach(cleanup)

const ws = (id: number, name: string, extra: Partial<Workspace> = {}): Workspace => ({
  workspace_id: id as WorkspaceId,
  workspace_name: name,
  is_owner: false,
  role: "Auditor",
  member_count: 3,
  joined_at: "2025-01-15T00:00:00.000Z",
  ...extra,
})
const acme = ws(1, "Acme Security", { is_owner: true, role: null, member_count: 1 })
const globex = ws(2, "Globex", { role: "Security Engineer" })
const initech = ws(3, "Initech")
const umbrella = ws(4, "Umbrella Corp")

const cards = () => within(screen.getByRole("list", { name: "Your workspaces" })).getAllByRole("button")

describe("workspace selection screen", () => {
  it("shows a card per workspace with the 'Owner' marker, the role, the 'New' badge and no search box at 3", async () => {
    const workspace = fakeWorkspaceEffects(markNewlyAdded(selectWorkspace(emptyWorkspaceStore, 1, T0 - 5000), 2, T0 - 1000))
    renderAccess("/workspace-selection", { workspace })
    expect(screen.getByRole("heading", { level: 1, name: "Select a workspace" })).toBeTruthy()
    expect(screen.getByRole("status", { name: "Loading workspaces..." })).toBeTruthy()
    await workspace.load.resolve([acme, globex, initech])
    expect(cards()).toHaveLength(3)
    const [first, second] = cards()
    expect(within(first!).getByText("Owner")).toBeTruthy()
    expect(within(first!).getByText("1 member")).toBeTruthy()
    expect(within(first!).queryByText("New")).toBeNull()
    expect(within(first!).getByText("Current")).toBeTruthy()
    expect(within(first!).getByText("Last opened Mar 1, 2025")).toBeTruthy()
    expect(within(second!).getByText("Security Engineer")).toBeTruthy()
    expect(within(second!).getByText("New")).toBeTruthy()
    expect(within(second!).getByText("Joined Jan 15, 2025")).toBeTruthy()
    expect(within(second!).queryByText("Current")).toBeNull()
    expect(screen.queryByLabelText("Search workspaces")).toBeNull()
  })

  it("above 3 workspaces offers a search box that filters the cards", async () => {
    const { workspace } = renderAccess("/workspace-selection")
    await workspace.load.resolve([acme, globex, initech, umbrella])
    const search = screen.getByLabelText("Search workspaces", { selector: "input" })
    fireEvent.change(search, { target: { value: "umb" } })
    expect(cards().map((c) => within(c).getByText(/Umbrella|Acme|Globex|Initech/).textContent)).toEqual(["Umbrella Corp"])
    fireEvent.change(search, { target: { value: "nothing" } })
    expect(screen.getByText("No workspaces match “nothing”")).toBeTruthy()
  })

  it("an empty list shows 'No workspaces available'", async () => {
    const { workspace } = renderAccess("/workspace-selection")
    await workspace.load.resolve([])
    expect(screen.getByText("No workspaces available")).toBeTruthy()
  })

  it("a failed load shows 'Failed to load workspaces' with 'Try again'", async () => {
    const { workspace } = renderAccess("/workspace-selection")
    await workspace.load.reject(httpFailure("load-workspaces", 500))
    expect(within(screen.getByRole("alert")).getByText("Failed to load workspaces")).toBeTruthy()
    fireEvent.click(screen.getByRole("button", { name: "Try again" }))
    expect(workspace.load.calls).toHaveLength(2)
    await workspace.load.resolve([acme])
    expect(cards()).toHaveLength(1)
  })

  it("selecting a card switches, stores the tokens, refreshes the user and goes to /dashboard", async () => {
    const { workspace, currentPath } = renderAccess("/workspace-selection")
    await workspace.load.resolve([acme, globex])
    fireEvent.click(cards()[1]!)
    expect(workspace.switchWs.calls).toEqual([{ workspace_id: 2 }])
    // While switching, no other card can be chosen.
    expect(cards()[0]!.hasAttribute("disabled") || cards()[0]!.getAttribute("aria-disabled") === "true").toBe(true)
    expect(cards()[1]!.hasAttribute("data-selecting")).toBe(true)
    expect(within(cards()[1]!).getByLabelText("Opening workspace")).toBeTruthy()
    await workspace.switchWs.resolve({ access_token: "a2", refresh_token: "r2", data: { workspace_id: 2 as WorkspaceId, workspace_name: "Globex" } })
    expect(workspace.log.tokens).toEqual([{ accessToken: "a2", refreshToken: "r2" }])
    expect(workspace.log.names).toEqual(["Globex"])
    expect(workspace.log.transitions.reduce((s, t) => t(s), emptyWorkspaceStore).selectedWorkspaceId).toBe(2)
    await workspace.refreshUser.resolve()
    expect(currentPath()).toBe("/dashboard")
  })

  it("a failed selection shows 'Failed to select workspace' and keeps the cards", async () => {
    const { workspace, currentPath } = renderAccess("/workspace-selection")
    await workspace.load.resolve([acme, globex])
    fireEvent.click(cards()[0]!)
    await workspace.switchWs.reject(httpFailure("select-workspace", 502))
    expect(within(screen.getByRole("alert")).getByText("Failed to select workspace")).toBeTruthy()
    expect(cards()).toHaveLength(2)
    expect(currentPath()).toBe("/workspace-selection")
  })

  it("accepts the invitation carried in the route state and toasts \"You've been added to\" the workspace", async () => {
    const { workspace } = renderAccess("/workspace-selection", { state: { invitationToken: "inv-token-1", workspaceId: 2 } })
    expect(screen.getByRole("status", { name: "Accepting your invitation..." })).toBeTruthy()
    expect(workspace.accept.calls).toEqual([{ invitation_token: "inv-token-1" }])
    await workspace.accept.resolve({ ok: true, message: "ok", data: { workspace_id: 2 as WorkspaceId, workspace_name: "Globex" } })
    expect(screen.getByText("You've been added to Globex")).toBeTruthy()
    expect(workspace.log.pendingCleared).toBe(1)
    await workspace.load.resolve([acme, globex])
    expect(within(cards()[1]!).getByText("New")).toBeTruthy()
    expect(cards()[1]!.hasAttribute("data-highlighted")).toBe(true)
  })

  it("a failed acceptance is an error toast ('Failed to accept workspace invitation')", async () => {
    const { workspace } = renderAccess("/workspace-selection", { state: { invitationToken: "inv-token-1" } })
    await workspace.accept.reject(httpFailure("accept-workspace-invitation", 500))
    expect(screen.getByText("Failed to accept workspace invitation")).toBeTruthy()
    expect(workspace.load.calls).toHaveLength(1)
  })

  it("'Sign out' hands over to the session", async () => {
    const { workspace } = renderAccess("/workspace-selection")
    fireEvent.click(screen.getByRole("button", { name: "Sign out" }))
    expect(workspace.log.signOuts).toBe(1)
  })
})
