// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, within } from "@testing-library/react"
import { afterEach, describe, expect, it } from "vitest"
import { PERMISSIONS } from "../../src/contracts/permissions.ts"
import type { ShellData } from "../../src/machines/shell.machine.ts"
import { httpFailure } from "../machines/auth-fakes.ts"
import { fakeShellEffects, renderAccess } from "./access-render.tsx"

afterEach(cleanup)

const data = (extra: Partial<ShellData> = {}): ShellData => ({
  email: "ada@example.com",
  firstName: "Ada",
  lastName: "Lovelace",
  workspaceName: "Analytical Engines",
  isOwner: false,
  roleNames: ["Auditor"],
  permissions: ["read_only"],
  workspaceCount: 1,
  ...extra,
})

const openMenu = async () => {
  await act(async () => {
    fireEvent.click(screen.getByRole("button", { name: /^Analytical Engines/ }))
  })
  return screen.getByRole("menu")
}

const mainNav = () => screen.getByRole("navigation", { name: "Main" })

describe("dashboard shell: sidebar", () => {
  it("shows Dashboard always and Scans only with scan_service or read_only", async () => {
    const shell = fakeShellEffects()
    renderAccess("/dashboard", { shell })
    expect(within(mainNav()).getByRole("link", { name: "Dashboard" })).toBeTruthy()
    expect(within(mainNav()).queryByRole("link", { name: "Scans" })).toBeNull()
    await shell.load.resolve(data({ permissions: ["read_only"] }))
    expect(within(mainNav()).getByRole("link", { name: "Scans" }).getAttribute("href")).toBe("/dashboard/scans")
    cleanup()
    const other = fakeShellEffects()
    renderAccess("/dashboard", { shell: other })
    await other.load.resolve(data({ permissions: ["create_account", "remediate_findings"] }))
    expect(within(mainNav()).queryByRole("link", { name: "Scans" })).toBeNull()
  })

  it("shows Compliance to every reader (read_only or any scanning permission), not to members without one", async () => {
    const shell = fakeShellEffects()
    renderAccess("/dashboard", { shell })
    await shell.load.resolve(data({ permissions: ["remediate_findings"] }))
    expect(within(mainNav()).getByRole("link", { name: "Compliance" }).getAttribute("href")).toBe("/dashboard/compliance")
    cleanup()
    const other = fakeShellEffects()
    renderAccess("/dashboard", { shell: other })
    await other.load.resolve(data({ permissions: ["create_user", "assign_role_to_user"] }))
    expect(within(mainNav()).queryByRole("link", { name: "Compliance" })).toBeNull()
  })

  it("the user card shows the email, the workspace name and the role names ('Owner' for the owner)", async () => {
    const shell = fakeShellEffects()
    renderAccess("/dashboard", { shell })
    await shell.load.resolve(data({ isOwner: true, roleNames: ["Admin"] }))
    const card = screen.getByRole("region", { name: "Signed in as" })
    expect(within(card).getByText("ada@example.com")).toBeTruthy()
    expect(within(card).getByText("Analytical Engines")).toBeTruthy()
    expect(within(within(card).getByRole("list", { name: "Roles" })).getAllByRole("listitem").map((li) => li.textContent)).toEqual([
      "Owner",
      "Admin",
    ])
  })

  it("reloads the card when the user's facts change", async () => {
    const shell = fakeShellEffects()
    renderAccess("/dashboard", { shell })
    await shell.load.resolve(data())
    shell.change()
    expect(shell.load.calls).toHaveLength(2)
    expect(screen.getByText("ada@example.com")).toBeTruthy()
    await shell.load.resolve(data({ email: "ada@lovelace.dev" }))
    expect(screen.getAllByText("ada@lovelace.dev").length).toBeGreaterThan(0)
  })

  it("a failed load offers 'Try again' in the card", async () => {
    const shell = fakeShellEffects()
    renderAccess("/dashboard", { shell })
    await shell.load.reject(httpFailure("generic", 500))
    fireEvent.click(screen.getByRole("button", { name: "Try again" }))
    expect(shell.load.calls).toHaveLength(2)
  })

  it("collapses to 80 px and expands to 300 px", () => {
    const { container } = renderAccess("/dashboard")
    const sidebar = container.querySelector("#app-sidebar")!
    expect(sidebar.hasAttribute("data-collapsed")).toBe(false)
    fireEvent.click(screen.getByRole("button", { name: "Collapse sidebar" }))
    expect(sidebar.hasAttribute("data-collapsed")).toBe(true)
    fireEvent.click(screen.getByRole("button", { name: "Expand sidebar" }))
    expect(sidebar.hasAttribute("data-collapsed")).toBe(false)
  })

  it("the mobile drawer opens from the header and closes with Escape", () => {
    const { container } = renderAccess("/dashboard")
    const sidebar = container.querySelector("#app-sidebar")!
    fireEvent.click(screen.getByRole("button", { name: "Open navigation" }))
    expect(sidebar.hasAttribute("data-mobile-open")).toBe(true)
    fireEvent.keyDown(window, { key: "Escape" })
    expect(sidebar.hasAttribute("data-mobile-open")).toBe(false)
  })
})

describe("dashboard shell: user menu", () => {
  it("shows the workspace name and 'Owner' or the role in the header", async () => {
    const shell = fakeShellEffects()
    renderAccess("/dashboard", { shell })
    await shell.load.resolve(data({ roleNames: ["Security Engineer"] }))
    expect(screen.getByRole("button", { name: "Analytical Engines Security Engineer" })).toBeTruthy()
    cleanup()
    const owner = fakeShellEffects()
    renderAccess("/dashboard", { shell: owner })
    await owner.load.resolve(data({ isOwner: true }))
    expect(screen.getByRole("button", { name: "Analytical Engines Owner" })).toBeTruthy()
  })

  it("one workspace, no user-management permission: Profile and Sign out only", async () => {
    const shell = fakeShellEffects()
    renderAccess("/dashboard", { shell })
    await shell.load.resolve(data({ workspaceCount: 1, permissions: ["read_only"] }))
    const menu = await openMenu()
    expect(within(menu).getAllByRole("menuitem").map((i) => i.textContent)).toEqual(["API keys", "Profile", "Sign out"])
  })

  it("several workspaces and a user-management permission: Switch workspace, Users, Profile, Sign out", async () => {
    const shell = fakeShellEffects()
    const { currentPath } = renderAccess("/dashboard", { shell })
    await shell.load.resolve(data({ workspaceCount: 2, permissions: ["assign_role_to_user"] }))
    const menu = await openMenu()
    expect(within(menu).getAllByRole("menuitem").map((i) => i.textContent)).toEqual([
      "Switch workspace",
      "Users",
      "API keys",
      "Profile",
      "Sign out",
    ])
    await act(async () => {
      fireEvent.click(within(menu).getByRole("menuitem", { name: "Users" }))
    })
    expect(currentPath()).toBe("/dashboard/users")
  })

  it("a workspace admin (all 12 permissions, or the owner) also gets Storage and Account groups (issues 30, 31); one permission short does not", async () => {
    const shell = fakeShellEffects()
    const { currentPath } = renderAccess("/dashboard", { shell })
    await shell.load.resolve(data({ workspaceCount: 1, permissions: [...PERMISSIONS] }))
    const menu = await openMenu()
    expect(within(menu).getAllByRole("menuitem").map((i) => i.textContent)).toEqual(["Users", "Storage", "Account groups", "Integrations", "Single sign-on", "Webhooks", "API keys", "Approvals", "Remediation batches", "Profile", "Sign out"])
    await act(async () => {
      fireEvent.click(within(menu).getByRole("menuitem", { name: "Storage" }))
    })
    expect(currentPath()).toBe("/dashboard/storage")
    await act(async () => {
      fireEvent.click(within(await openMenu()).getByRole("menuitem", { name: "Account groups" }))
    })
    expect(currentPath()).toBe("/dashboard/settings/account-groups")
    cleanup()
    const almost = fakeShellEffects()
    renderAccess("/dashboard", { shell: almost })
    await almost.load.resolve(data({ workspaceCount: 1, permissions: PERMISSIONS.filter((p) => p !== "delete_custom_role") }))
    const short = await openMenu()
    expect(within(short).queryByRole("menuitem", { name: "Storage" })).toBeNull()
    expect(within(short).queryByRole("menuitem", { name: "Account groups" })).toBeNull()
    expect(within(short).queryByRole("menuitem", { name: "Webhooks" })).toBeNull()
    // The approvals inbox follows remediate_findings alone (issue 32), not the admin rule.
    expect(within(short).getByRole("menuitem", { name: "Approvals" })).toBeTruthy()
    expect(within(short).getByRole("menuitem", { name: "Remediation batches" })).toBeTruthy()
    cleanup()
    const owner = fakeShellEffects()
    renderAccess("/dashboard", { shell: owner })
    await owner.load.resolve(data({ workspaceCount: 1, isOwner: true, permissions: [] }))
    expect(within(await openMenu()).getByRole("menuitem", { name: "Storage" })).toBeTruthy()
  })

  it("Switch workspace goes to /workspace-selection, Profile to /dashboard/profile", async () => {
    const shell = fakeShellEffects()
    const { currentPath } = renderAccess("/dashboard", { shell })
    await shell.load.resolve(data({ workspaceCount: 3 }))
    await act(async () => {
      fireEvent.click(within(await openMenu()).getByRole("menuitem", { name: "Profile" }))
    })
    expect(currentPath()).toBe("/dashboard/profile")
    await act(async () => {
      fireEvent.click(within(await openMenu()).getByRole("menuitem", { name: "Switch workspace" }))
    })
    expect(currentPath()).toBe("/workspace-selection")
  })

  it("Sign out hands over to the session", async () => {
    const shell = fakeShellEffects()
    renderAccess("/dashboard", { shell })
    await shell.load.resolve(data())
    await act(async () => {
      fireEvent.click(within(await openMenu()).getByRole("menuitem", { name: "Sign out" }))
    })
    expect(shell.signOuts()).toBe(1)
  })
})

describe("dashboard shell: header", () => {
  const crumbs = () =>
    within(screen.getByRole("navigation", { name: "Breadcrumbs" }))
      .getAllByRole("listitem")
      .map((li) => {
        const link = within(li).getByRole("link")
        return [link.textContent, link.getAttribute("href")]
      })

  it("breadcrumbs on a scan page: Dashboard › Scans › Scan #12 (plain), and a back button to the scans", async () => {
    const shell = fakeShellEffects()
    const { currentPath } = renderAccess("/dashboard/scans/12", { shell })
    await shell.load.resolve(data({ permissions: ["scan_service"] }))
    expect(crumbs()).toEqual([
      ["Dashboard", "/dashboard"],
      ["Scans", "/dashboard/scans"],
      ["Scan #12", null],
    ])
    fireEvent.click(screen.getByRole("button", { name: "Back" }))
    expect(currentPath()).toBe("/dashboard/scans")
  })

  it("on an account page: Dashboard › Accounts (→ dashboard accounts section) › Account #7, with a back button", async () => {
    const shell = fakeShellEffects()
    renderAccess("/dashboard/accounts/7", { shell })
    await shell.load.resolve(data({ permissions: ["create_account"] }))
    expect(crumbs()).toEqual([
      ["Dashboard", "/dashboard"],
      ["Accounts", "/dashboard?section=accounts"],
      ["Account #7", null],
    ])
    expect(screen.getByRole("button", { name: "Back" })).toBeTruthy()
  })

  it("no breadcrumbs with one crumb or on findings pages; no back button off detail pages", () => {
    renderAccess("/dashboard")
    expect(screen.queryByRole("navigation", { name: "Breadcrumbs" })).toBeNull()
    expect(screen.queryByRole("button", { name: "Back" })).toBeNull()
    cleanup()
    renderAccess("/dashboard/scans/12/findings/99?service=s3")
    // The finding page draws its own trail; the shell's header has none.
    expect(within(screen.getByRole("banner")).queryByRole("navigation", { name: "Breadcrumbs" })).toBeNull()
    expect(screen.queryByRole("button", { name: "Back" })).toBeNull()
    cleanup()
    renderAccess("/dashboard/profile")
    expect(crumbs()).toEqual([
      ["Dashboard", "/dashboard"],
      ["Profile", null],
    ])
  })
})
