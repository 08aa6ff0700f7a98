// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest"
import { createBrowserServices, isProductionBuild } from "../../src/services/app-services.ts"
import type { SessionSignal } from "../../src/services/session-signals.ts"
import { selectWorkspace } from "../../src/services/storage.ts"

afterEach(() => {
  window.localStorage.clear()
  window.sessionStorage.clear()
})

describe("browser services", () => {
  it("use the window's storages under the spec's keys", () => {
    const services = createBrowserServices(window)
    try {
      services.session.writeTokens({ accessToken: "a", refreshToken: "r" })
      services.pending.write({ token: "inv", workspaceId: null })
      services.workspaceStore.update((s) => selectWorkspace(s, 3, Date.parse("2025-01-01T00:00:00Z")))
      expect(window.localStorage.getItem("access_token")).toBe("a")
      expect(window.sessionStorage.getItem("pending_workspace_invitation")).toBe("inv")
      expect(JSON.parse(window.localStorage.getItem("workspace-store")!).state.selectedWorkspaceId).toBe(3)
    } finally {
      services.dispose()
    }
  })

  it("follow other tabs through storage events", () => {
    const services = createBrowserServices(window)
    const seen: SessionSignal["type"][] = []
    const stop = services.signals((s) => seen.push(s.type))
    try {
      window.localStorage.setItem("access_token", "other-tab")
      window.dispatchEvent(new StorageEvent("storage", { key: "access_token", oldValue: null, newValue: "other-tab" }))
      window.localStorage.removeItem("access_token")
      window.dispatchEvent(new StorageEvent("storage", { key: "access_token", oldValue: "other-tab", newValue: null }))
      expect(seen).toEqual(["tokens-changed", "signed-out-elsewhere"])
      const payload = JSON.stringify({ state: { selectedWorkspaceId: 8, lastAccessedWorkspaces: {}, newlyAddedWorkspaces: {} }, version: 0 })
      window.dispatchEvent(new StorageEvent("storage", { key: "workspace-store", oldValue: null, newValue: payload }))
      expect(services.workspaceStore.getSnapshot().selectedWorkspaceId).toBe(8)
    } finally {
      stop()
      services.dispose()
    }
  })

  it("the build mode comes from import.meta.env.PROD (false under test)", () => {
    expect(isProductionBuild()).toBe(false)
    expect(createBrowserServices(window).client.maxRetries).toBe(2)
  })
})
