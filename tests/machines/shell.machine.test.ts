import { describe, expect, it } from "vitest"
import { createActor, fromCallback, SimulatedClock } from "xstate"
import { PERMISSIONS, USER_MANAGEMENT_PERMISSIONS, type PermissionName } from "../../src/contracts/permissions.ts"
import type { NavigateParams } from "../../src/machines/auth-effects.ts"
import {
  mayVisit,
  requiredPermissionsFor,
  roleNamesShown,
  roleSummary,
  selectIsCollapsed,
  selectIsDrawerOpen,
  selectIsSigningOut,
  shellMachine,
  type ShellData,
  type ShellEvent,
} from "../../src/machines/shell.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"

export const shellData = (extra: Partial<ShellData> = {}): ShellData => ({
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

const start = (isDesktop = true) => {
  const load = controlled<unknown, ShellData>()
  const navigations: NavigateParams[] = []
  let signOuts = 0
  let emitChange: (() => void) | undefined
  let watching = 0
  const actor = createActor(
    shellMachine.provide({
      actors: {
        loadShell: load.logic,
        watchShellData: fromCallback<ShellEvent>(({ sendBack }) => {
          watching += 1
          emitChange = () => sendBack({ type: "shell.invalidated" })
          return () => {
            watching -= 1
            emitChange = undefined
          }
        }),
      },
      actions: {
        navigate: (_, p) => void navigations.push(p),
        signOut: () => void (signOuts += 1),
      },
    }),
    { input: { isDesktop }, clock: new SimulatedClock() },
  ).start()
  return {
    actor,
    load,
    navigations,
    signOuts: () => signOuts,
    watching: () => watching,
    change: () => emitChange?.(),
  }
}

describe("shell machine: transition coverage", () => {
  it("drives every (state, event) edge", async () => {
    const provided = shellMachine.provide({ actors: { loadShell: never() } })
    const coverage = await coverTransitions(provided, {
      input: { isDesktop: false },
      createActor: (clock) => createActor(provided, { input: { isDesktop: false }, clock }),
      events: [
        { type: "sidebar.toggled" },
        { type: "drawer.opened" },
        { type: "drawer.closed" },
        { type: "route.changed", path: "/dashboard/scans" },
        { type: "viewport.changed", isDesktop: true },
        { type: "viewport.changed", isDesktop: false },
        { type: "navigation.requested", to: "/dashboard/profile" },
        { type: "workspace.switchRequested" },
        { type: "signOut.requested" },
        { type: "shell.retried" },
        { type: "shell.invalidated" },
        { type: "xstate.done.actor.loadShell", output: shellData({ workspaceCount: 2 }) },
        { type: "xstate.error.actor.loadShell", error: httpFailure("generic", 500) },
      ],
    })
    console.info(formatCoverage("shell", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
    expect(coverage.total).toBeGreaterThanOrEqual(50)
  })
})

describe("shell machine", () => {
  it("loads the shell facts, then watches them and reloads on a change while keeping the old ones on screen", async () => {
    const { actor, load, watching, change } = start()
    try {
      expect(actor.getSnapshot().matches({ data: "loading" })).toBe(true)
      await load.resolve(shellData())
      expect(actor.getSnapshot().matches({ data: "ready" })).toBe(true)
      expect(watching()).toBe(1)
      change()
      expect(actor.getSnapshot().matches({ data: "loading" })).toBe(true)
      expect(watching()).toBe(0)
      expect(actor.getSnapshot().context.data?.email).toBe("ada@example.com")
      await load.resolve(shellData({ email: "ada@lovelace.dev" }))
      expect(actor.getSnapshot().context.data?.email).toBe("ada@lovelace.dev")
    } finally {
      actor.stop()
    }
  })

  it("a failed load can be retried", async () => {
    const { actor, load } = start()
    try {
      await load.reject(httpFailure("generic", 500))
      expect(actor.getSnapshot().matches({ data: "failed" })).toBe(true)
      expect(actor.getSnapshot().context.error).toBe("We're experiencing technical difficulties. Please try again later.")
      actor.send({ type: "shell.retried" })
      await load.resolve(shellData())
      expect(actor.getSnapshot().context.error).toBeNull()
    } finally {
      actor.stop()
    }
  })

  it("collapses and expands the sidebar (80 / 300 px)", () => {
    const { actor } = start()
    try {
      expect(selectIsCollapsed(actor.getSnapshot())).toBe(false)
      actor.send({ type: "sidebar.toggled" })
      expect(selectIsCollapsed(actor.getSnapshot())).toBe(true)
      actor.send({ type: "sidebar.toggled" })
      expect(selectIsCollapsed(actor.getSnapshot())).toBe(false)
    } finally {
      actor.stop()
    }
  })

  it("closes the mobile drawer on a route change, on request, and when the viewport reaches the desktop breakpoint", () => {
    const { actor } = start(false)
    try {
      actor.send({ type: "drawer.opened" })
      expect(selectIsDrawerOpen(actor.getSnapshot())).toBe(true)
      actor.send({ type: "route.changed", path: "/dashboard/profile" })
      expect(selectIsDrawerOpen(actor.getSnapshot())).toBe(false)
      actor.send({ type: "drawer.opened" })
      actor.send({ type: "viewport.changed", isDesktop: false })
      expect(selectIsDrawerOpen(actor.getSnapshot())).toBe(true)
      actor.send({ type: "viewport.changed", isDesktop: true })
      expect(selectIsDrawerOpen(actor.getSnapshot())).toBe(false)
      expect(actor.getSnapshot().context.isDesktop).toBe(true)
      actor.send({ type: "drawer.opened" })
      actor.send({ type: "drawer.closed" })
      expect(selectIsDrawerOpen(actor.getSnapshot())).toBe(false)
    } finally {
      actor.stop()
    }
  })

  it("offers 'Switch workspace' only with more than one workspace", async () => {
    const one = start()
    try {
      await one.load.resolve(shellData({ workspaceCount: 1 }))
      expect(one.actor.getSnapshot().can({ type: "workspace.switchRequested" })).toBe(false)
      one.actor.send({ type: "workspace.switchRequested" })
      expect(one.navigations).toEqual([])
    } finally {
      one.actor.stop()
    }
    const two = start()
    try {
      expect(two.actor.getSnapshot().can({ type: "workspace.switchRequested" })).toBe(false)
      await two.load.resolve(shellData({ workspaceCount: 2 }))
      expect(two.actor.getSnapshot().can({ type: "workspace.switchRequested" })).toBe(true)
      two.actor.send({ type: "workspace.switchRequested" })
      expect(two.navigations).toEqual([{ to: "/workspace-selection" }])
    } finally {
      two.actor.stop()
    }
  })

  it("offers Users only with a user-management permission and Scans only with scan_service or read_only", async () => {
    const cases: ReadonlyArray<[ReadonlyArray<PermissionName>, boolean, boolean]> = [
      [[], false, false],
      [["read_only"], false, true],
      [["scan_service"], false, true],
      [["remediate_findings", "create_account"], false, false],
      [["delete_custom_role"], true, false],
      [["create_user", "scan_service"], true, true],
    ]
    for (const [permissions, users, scans] of cases) {
      const { actor, load, navigations } = start()
      try {
        await load.resolve(shellData({ permissions, roleNames: ["Custom"] }))
        const snap = actor.getSnapshot()
        expect([permissions, snap.can({ type: "navigation.requested", to: "/dashboard/users" })]).toEqual([permissions, users])
        expect([permissions, snap.can({ type: "navigation.requested", to: "/dashboard/scans" })]).toEqual([permissions, scans])
        expect(snap.can({ type: "navigation.requested", to: "/dashboard/profile" })).toBe(true)
        actor.send({ type: "navigation.requested", to: "/dashboard/users" })
        expect(navigations).toEqual(users ? [{ to: "/dashboard/users" }] : [])
      } finally {
        actor.stop()
      }
    }
  })

  it("the owner holds every permission", async () => {
    const { actor, load } = start()
    try {
      await load.resolve(shellData({ isOwner: true, permissions: [], roleNames: [] }))
      expect(actor.getSnapshot().can({ type: "navigation.requested", to: "/dashboard/users" })).toBe(true)
      expect(actor.getSnapshot().can({ type: "navigation.requested", to: "/dashboard/scans/3" })).toBe(true)
    } finally {
      actor.stop()
    }
  })

  it("signing out hands over to the session once", () => {
    const { actor, signOuts } = start()
    try {
      actor.send({ type: "signOut.requested" })
      actor.send({ type: "signOut.requested" })
      expect(signOuts()).toBe(1)
      expect(selectIsSigningOut(actor.getSnapshot())).toBe(true)
    } finally {
      actor.stop()
    }
  })
})

describe("shell: route permissions and role texts", () => {
  it("maps dashboard paths to the spec's permission rules", () => {
    expect(requiredPermissionsFor("/dashboard")).toBeUndefined()
    expect(requiredPermissionsFor("/dashboard/profile")).toBeUndefined()
    expect(requiredPermissionsFor("/dashboard/scans")).toEqual(["scan_service", "read_only"])
    expect(requiredPermissionsFor("/dashboard/scans/4/findings/9")).toEqual(["scan_service", "read_only"])
    expect(requiredPermissionsFor("/dashboard/accounts/7")).toEqual(["create_account", "read_only"])
    expect(requiredPermissionsFor("/dashboard/users")).toEqual(USER_MANAGEMENT_PERMISSIONS)
    expect(USER_MANAGEMENT_PERMISSIONS).toHaveLength(8)
    expect(requiredPermissionsFor("/dashboard/storage")).toEqual({ all: PERMISSIONS })
    expect(requiredPermissionsFor("/dashboard/settings/account-groups")).toEqual({ all: PERMISSIONS })
  })

  it("nobody without facts may open a restricted page; everyone may open an open one", () => {
    expect(mayVisit(null, "/dashboard/users")).toBe(false)
    expect(mayVisit(null, "/dashboard")).toBe(true)
    expect(mayVisit(shellData({ permissions: [...PERMISSIONS] }), "/dashboard/users")).toBe(true)
  })

  it("the storage page (issue 30) is for workspace admins only: the owner or all 12 permissions", () => {
    expect(mayVisit(shellData({ permissions: [...PERMISSIONS] }), "/dashboard/storage")).toBe(true)
    expect(mayVisit(shellData({ isOwner: true, permissions: [] }), "/dashboard/storage")).toBe(true)
    expect(mayVisit(shellData({ permissions: PERMISSIONS.filter((p) => p !== "read_only") }), "/dashboard/storage")).toBe(false)
    expect(mayVisit(shellData({ permissions: [...USER_MANAGEMENT_PERMISSIONS, "read_only"] }), "/dashboard/storage")).toBe(false)
  })

  it("shows 'Owner' for the owner, else the role names", () => {
    expect(roleSummary(shellData({ isOwner: true, roleNames: ["Admin"] }))).toBe("Owner")
    expect(roleSummary(shellData({ roleNames: ["Auditor", "Scanner"] }))).toBe("Auditor, Scanner")
    expect(roleSummary(null)).toBe("")
    expect(roleNamesShown(shellData({ isOwner: true, roleNames: ["Admin"] }))).toEqual(["Owner", "Admin"])
    expect(roleNamesShown(shellData({ isOwner: true, roleNames: ["owner"] }))).toEqual(["owner"])
    expect(roleNamesShown(shellData({ roleNames: ["Auditor", " "] }))).toEqual(["Auditor"])
  })
})
