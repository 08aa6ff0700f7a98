import { describe, expect, it } from "vitest"
import { fromCallback, fromPromise } from "xstate"
import { RefreshMessages } from "../../src/contracts/messages.ts"
import { StorageKeys } from "../../src/contracts/constants.ts"
import { selectSessionStatus, sessionMachine, type SwitchOutcome } from "../../src/machines/session.machine.ts"
import { parseWorkspaceState, selectWorkspace, emptyWorkspaceState, serializeWorkspaceState } from "../../src/services/storage.ts"
import { queryKeys } from "../../src/services/query-cache.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { advance, flush } from "../services/support.ts"
import { apiError, harness, startSession, user, workspace } from "./session.fixtures.ts"

const T = { access_token: "access-1", refresh_token: "refresh-1" }
const signedIn = { type: "session.signedIn", accessToken: "access-1", refreshToken: "refresh-1", email: "ada@example.com" } as const

const workspaceState = (local: { getItem(k: string): string | null }) => parseWorkspaceState(local.getItem(StorageKeys.workspaceStore))

describe("session: start-up", () => {
  it("without a stored token the visitor is signed out", () => {
    const h = harness()
    const actor = startSession(h)
    try {
      expect(actor.getSnapshot().value).toBe("signedOut")
      expect(selectSessionStatus(actor.getSnapshot())).toBe("unauthenticated")
      expect(h.api.names()).toEqual([])
    } finally {
      actor.stop()
    }
  })

  it("a stored token is confirmed by the user call ('Authenticating...' meanwhile)", async () => {
    const h = harness({ access_token: "a", refresh_token: "r", user_email: "old@example.com", workspace_name: "Acme" })
    const actor = startSession(h)
    try {
      expect(actor.getSnapshot().value).toEqual({ authenticated: "loadingUser" })
      expect(selectSessionStatus(actor.getSnapshot())).toBe("loading")
      expect(actor.getSnapshot().context.workspaceName).toBe("Acme")
      h.api.resolve("userInfo", { data: user() })
      await flush()
      expect(actor.getSnapshot().value).toEqual({ authenticated: "ready" })
      expect(selectSessionStatus(actor.getSnapshot())).toBe("authenticated")
      expect(h.local.getItem("user_email")).toBe("ada@example.com")
      expect(h.services.cache.getState(queryKeys.user()).data).toEqual(user())
    } finally {
      actor.stop()
    }
  })

  it("an unverified user is reported as unverified", async () => {
    const h = harness({ access_token: "a", refresh_token: "r" })
    const actor = startSession(h)
    try {
      h.api.resolve("userInfo", { data: user({ email_verified: false }) })
      await flush()
      expect(selectSessionStatus(actor.getSnapshot())).toBe("unverified")
    } finally {
      actor.stop()
    }
  })

  it("a refused user call (401 after the client's refresh) ends the session with the expiry message", async () => {
    const h = harness({ access_token: "a", refresh_token: "r", user_email: "e", workspace_name: "w" })
    const actor = startSession(h)
    try {
      h.api.reject("userInfo", apiError("UNAUTHORIZED", "Please sign in to continue.", 401))
      await flush()
      expect(actor.getSnapshot().value).toBe("signedOut")
      expect(h.local.entries()).toEqual({})
      expect(h.navigations).toEqual([
        { to: "/login", replace: true, state: { message: RefreshMessages.sessionExpired, error: true } },
      ])
    } finally {
      actor.stop()
    }
  })

  it("any other user-call failure keeps the session and offers a retry", async () => {
    const h = harness({ access_token: "a", refresh_token: "r" })
    const actor = startSession(h)
    try {
      const network = apiError("NETWORK_ERROR", "Unable to connect to the server. Please check your internet connection.")
      h.api.reject("userInfo", network)
      await flush()
      expect(actor.getSnapshot().value).toEqual({ authenticated: "unavailable" })
      expect(selectSessionStatus(actor.getSnapshot())).toBe("unavailable")
      expect(actor.getSnapshot().context.error).toEqual(network)
      expect(h.local.getItem("access_token")).toBe("a")
      actor.send({ type: "session.retryRequested" })
      h.api.resolve("userInfo", { data: user() })
      await flush()
      expect(actor.getSnapshot().value).toEqual({ authenticated: "ready" })
    } finally {
      actor.stop()
    }
  })
})

describe("session: sign-in (access §4)", () => {
  it("exactly one workspace: switched to automatically, selected, last accessed, → /dashboard", async () => {
    const h = harness()
    const actor = startSession(h)
    try {
      actor.send(signedIn)
      expect(h.local.getItem("access_token")).toBe("access-1")
      expect(h.local.getItem("refresh_token")).toBe("refresh-1")
      expect(selectSessionStatus(actor.getSnapshot())).toBe("signing-in")
      h.api.resolve("userInfo", { data: user() })
      await flush()
      h.api.resolve("workspaces", { data: [workspace(4, "Acme")] })
      await flush()
      expect(h.api.calls.find((c) => c.name === "switchWorkspace")?.payload).toEqual({ workspace_id: 4 })
      h.api.resolve("switchWorkspace", { access_token: "access-2", refresh_token: "refresh-2", data: { workspace_id: 4, workspace_name: "Acme" } })
      await flush()
      expect(actor.getSnapshot().value).toEqual({ authenticated: "ready" })
      expect(h.navigations).toEqual([{ to: "/dashboard" }])
      expect(h.local.getItem("access_token")).toBe("access-2")
      expect(h.local.getItem("refresh_token")).toBe("refresh-2")
      expect(h.local.getItem("workspace_name")).toBe("Acme")
      expect(h.local.getItem("user_email")).toBe("ada@example.com")
      const ws = workspaceState(h.local)
      expect(ws.selectedWorkspaceId).toBe(4)
      expect(ws.lastAccessedWorkspaces["4"]).toBe(new Date(h.clock.now()).toISOString())
    } finally {
      actor.stop()
    }
  })

  it("a safe origin kept by the gate is where the user lands after the automatic selection", async () => {
    const h = harness()
    const actor = startSession(h)
    try {
      actor.send({ ...signedIn, returnTo: "/dashboard/users?tab=invitations" })
      h.api.resolve("userInfo", { data: user() })
      await flush()
      h.api.resolve("workspaces", { data: [workspace(4)] })
      await flush()
      h.api.resolve("switchWorkspace", { ...T })
      await flush()
      expect(h.navigations).toEqual([{ to: "/dashboard/users?tab=invitations" }])
    } finally {
      actor.stop()
    }
  })

  it("an unsafe origin is ignored", async () => {
    const h = harness()
    const actor = startSession(h)
    try {
      actor.send({ ...signedIn, returnTo: "//evil.example/dashboard" })
      expect(actor.getSnapshot().context.returnTo).toBeNull()
    } finally {
      actor.stop()
    }
  })

  it("several workspaces: → /workspace-selection carrying the pending invitation from session storage", async () => {
    const h = harness({}, { pending_workspace_invitation: "inv-token", pending_workspace_id: "9" })
    const actor = startSession(h)
    try {
      actor.send(signedIn)
      h.api.resolve("userInfo", { data: user() })
      await flush()
      h.api.resolve("workspaces", { data: [workspace(4), workspace(5)] })
      await flush()
      expect(actor.getSnapshot().value).toEqual({ authenticated: "ready" })
      expect(h.navigations).toEqual([{ to: "/workspace-selection", state: { invitationToken: "inv-token", workspaceId: 9 } }])
      expect(h.api.names()).not.toContain("switchWorkspace")
    } finally {
      actor.stop()
    }
  })

  it("no workspace at all: → /workspace-selection (its empty state)", async () => {
    const h = harness()
    const actor = startSession(h)
    try {
      actor.send(signedIn)
      h.api.resolve("userInfo", { data: user() })
      await flush()
      h.api.resolve("workspaces", { data: [] })
      await flush()
      expect(h.navigations).toEqual([{ to: "/workspace-selection", state: {} }])
    } finally {
      actor.stop()
    }
  })

  it("one workspace but an invitation waiting: the selection screen accepts it first", async () => {
    const h = harness({}, { pending_workspace_invitation: "inv-token" })
    const actor = startSession(h)
    try {
      actor.send(signedIn)
      h.api.resolve("userInfo", { data: user() })
      await flush()
      h.api.resolve("workspaces", { data: [workspace(4)] })
      await flush()
      expect(h.navigations).toEqual([{ to: "/workspace-selection", state: { invitationToken: "inv-token" } }])
    } finally {
      actor.stop()
    }
  })

  it("the user call failing right after login signs out again, clears the tokens and keeps the error", async () => {
    const h = harness()
    const actor = startSession(h)
    try {
      actor.send(signedIn)
      const failure = apiError("SERVER_ERROR", "We're experiencing technical difficulties. Please try again later.", 500)
      h.api.reject("userInfo", failure)
      await flush()
      expect(actor.getSnapshot().value).toBe("signedOut")
      expect(actor.getSnapshot().context.error).toEqual(failure)
      expect(h.local.getItem("access_token")).toBeNull()
    } finally {
      actor.stop()
    }
  })

  it("the workspace list failing → /workspace-selection, which shows the load error", async () => {
    const h = harness()
    const actor = startSession(h)
    try {
      actor.send(signedIn)
      h.api.resolve("userInfo", { data: user() })
      await flush()
      // The workspaces query retries twice (1 s, then 2 s) before giving up.
      const failure = apiError("SERVER_ERROR", "Failed to load workspaces", 500)
      h.api.reject("workspaces", failure)
      await advance(h.clock, 1000, 500)
      h.api.reject("workspaces", failure)
      await advance(h.clock, 2000, 500)
      expect(actor.getSnapshot().value).toEqual({ signingIn: "loadingWorkspaces" })
      h.api.reject("workspaces", failure)
      await flush()
      expect(h.api.names().filter((n) => n === "workspaces")).toHaveLength(3)
      expect(actor.getSnapshot().value).toEqual({ authenticated: "ready" })
      expect(h.navigations).toEqual([{ to: "/workspace-selection", state: {} }])
    } finally {
      actor.stop()
    }
  })

  it("the automatic switch failing → /workspace-selection with the selection error kept", async () => {
    const h = harness()
    const actor = startSession(h)
    try {
      actor.send(signedIn)
      h.api.resolve("userInfo", { data: user() })
      await flush()
      h.api.resolve("workspaces", { data: [workspace(4)] })
      await flush()
      const failure = apiError("UNKNOWN_ERROR", "Failed to select workspace", 404)
      h.api.reject("switchWorkspace", failure)
      await flush()
      expect(actor.getSnapshot().context.selectionError).toEqual(failure)
      expect(h.navigations).toEqual([{ to: "/workspace-selection", state: {} }])
      expect(workspaceState(h.local).selectedWorkspaceId).toBeNull()
    } finally {
      actor.stop()
    }
  })
})

describe("session: workspace selection", () => {
  const ready = async () => {
    const h = harness({ access_token: "a", refresh_token: "r" })
    const actor = startSession(h)
    h.api.resolve("userInfo", { data: user() })
    await flush()
    return { h, actor }
  }

  it("tokens stored, selected and last accessed, New badge cleared, user refreshed, → /dashboard", async () => {
    const { h, actor } = await ready()
    try {
      h.services.workspaceStore.update((s) => ({ ...s, newlyAddedWorkspaces: { "5": new Date(h.clock.now()).toISOString() } }))
      actor.send({ type: "session.workspaceSelectionRequested", workspaceId: 5, workspaceName: "Beta" })
      h.api.resolve("switchWorkspace", { access_token: "a5", refresh_token: "r5" })
      await flush()
      expect(actor.getSnapshot().value).toEqual({ authenticated: "finishingSwitch" })
      expect(h.navigations).toEqual([])
      h.api.resolve("userInfo", { data: user({ workspace_name: "Beta" }) })
      await flush()
      expect(h.navigations).toEqual([{ to: "/dashboard" }])
      expect(h.local.getItem("access_token")).toBe("a5")
      expect(h.local.getItem("workspace_name")).toBe("Beta")
      const ws = workspaceState(h.local)
      expect(ws.selectedWorkspaceId).toBe(5)
      expect(ws.newlyAddedWorkspaces).toEqual({})
      expect(actor.getSnapshot().context.user?.workspace_name).toBe("Beta")
    } finally {
      actor.stop()
    }
  })

  it("a failed switch keeps the current workspace and exposes the error", async () => {
    const { h, actor } = await ready()
    try {
      actor.send({ type: "session.workspaceSelectionRequested", workspaceId: 5 })
      h.api.reject("switchWorkspace", apiError("WORKSPACE_ACCESS_DENIED", "Failed to select workspace", 403))
      await flush()
      expect(actor.getSnapshot().value).toEqual({ authenticated: "ready" })
      expect(actor.getSnapshot().context.selectionError?.message).toBe("Failed to select workspace")
      expect(h.local.getItem("access_token")).toBe("a")
      expect(h.navigations).toEqual([])
    } finally {
      actor.stop()
    }
  })

  it("tokens obtained while signed in (invitation accepted) replace the session and lead to the flow's destination", async () => {
    const { h, actor } = await ready()
    try {
      await h.services.cache.fetchQuery(queryKeys.roles(4), async () => ["Admin"])
      actor.send({ type: "session.signedIn", accessToken: "inv-a", refreshToken: "inv-r", returnTo: "/dashboard" })
      expect(h.local.getItem("access_token")).toBe("inv-a")
      expect(h.local.getItem("refresh_token")).toBe("inv-r")
      expect(h.services.cache.getState(queryKeys.roles(4)).data).toBeUndefined()
      expect(selectSessionStatus(actor.getSnapshot())).toBe("authenticated")
      h.api.resolve("userInfo", { data: user({ email: "new@example.com" }) })
      await flush()
      expect(actor.getSnapshot().value).toEqual({ authenticated: "ready" })
      expect(actor.getSnapshot().context.user?.email).toBe("new@example.com")
      expect(h.navigations).toEqual([{ to: "/dashboard" }])
      expect(h.api.names()).not.toContain("workspaces")
    } finally {
      actor.stop()
    }
  })

  it("a quiet user refresh keeps the session usable", async () => {
    const { h, actor } = await ready()
    try {
      actor.send({ type: "session.userRefreshRequested" })
      expect(selectSessionStatus(actor.getSnapshot())).toBe("authenticated")
      h.api.resolve("userInfo", { data: user({ first_name: "Augusta" }) })
      await flush()
      expect(actor.getSnapshot().context.user?.first_name).toBe("Augusta")
    } finally {
      actor.stop()
    }
  })
})

describe("session: logout (access §4)", () => {
  const signedInWithWorkspace = async () => {
    const h = harness({ access_token: "a", refresh_token: "r", user_email: "e", workspace_name: "Acme", "workspace-store": serializeWorkspaceState(selectWorkspace(emptyWorkspaceState, 4, 0)) })
    const actor = startSession(h)
    h.api.resolve("userInfo", { data: user() })
    await flush()
    await h.services.cache.fetchQuery(queryKeys.roles(4), async () => ["Admin"])
    return { h, actor }
  }

  const expectCleared = (h: ReturnType<typeof harness>) => {
    expect(h.local.getItem("access_token")).toBeNull()
    expect(h.local.getItem("refresh_token")).toBeNull()
    expect(h.local.getItem("user_email")).toBeNull()
    expect(h.local.getItem("workspace_name")).toBeNull()
    expect(workspaceState(h.local).selectedWorkspaceId).toBeNull()
    expect(h.services.cache.size()).toBe(0)
  }

  it("calls logout with the refresh token, then clears tokens, cache and workspace data → /login", async () => {
    const { h, actor } = await signedInWithWorkspace()
    try {
      actor.send({ type: "session.logoutRequested" })
      expect(h.api.calls.find((c) => c.name === "logout")?.payload).toEqual({ refresh_token: "r" })
      h.api.resolve("logout", { ok: true, message: "Logged out" })
      await flush()
      expect(actor.getSnapshot().value).toBe("signedOut")
      expectCleared(h)
      expect(h.navigations).toEqual([{ to: "/login", replace: true }])
    } finally {
      actor.stop()
    }
  })

  it("goes to /login even if the call fails", async () => {
    const { h, actor } = await signedInWithWorkspace()
    try {
      actor.send({ type: "session.logoutRequested" })
      h.api.reject("logout", apiError("SERVER_ERROR", "x", 500))
      await flush()
      expect(actor.getSnapshot().value).toBe("signedOut")
      expectCleared(h)
      expect(h.navigations).toEqual([{ to: "/login", replace: true }])
    } finally {
      actor.stop()
    }
  })

  it("does not wait more than 5 s for an unresponsive server", async () => {
    const { h, actor } = await signedInWithWorkspace()
    try {
      actor.send({ type: "session.logoutRequested" })
      await advance(h.clock, 4999, 1000)
      expect(actor.getSnapshot().value).toBe("signingOut")
      await advance(h.clock, 1)
      expect(actor.getSnapshot().value).toBe("signedOut")
      expectCleared(h)
    } finally {
      actor.stop()
    }
  })
})

describe("session: refresh failure and other tabs", () => {
  it("a failed refresh reported by the API client clears everything → /login with the message and error flag", async () => {
    const h = harness({ access_token: "a", refresh_token: "r", "workspace-store": serializeWorkspaceState(selectWorkspace(emptyWorkspaceState, 4, 0)) })
    const actor = startSession(h)
    try {
      h.api.resolve("userInfo", { data: user() })
      await flush()
      h.emit({ type: "refresh-failed", error: apiError("UNAUTHORIZED", RefreshMessages.sessionExpired, 401) })
      expect(actor.getSnapshot().value).toBe("signedOut")
      expect(h.local.getItem("access_token")).toBeNull()
      expect(workspaceState(h.local).selectedWorkspaceId).toBeNull()
      expect(h.navigations).toEqual([
        { to: "/login", replace: true, state: { message: "Your session has expired. Please sign in again.", error: true } },
      ])
    } finally {
      actor.stop()
    }
  })

  it("a logout in another tab is seen here: → /login without calling logout again", async () => {
    const h = harness({ access_token: "a", refresh_token: "r" })
    const actor = startSession(h)
    try {
      h.api.resolve("userInfo", { data: user() })
      await flush()
      h.emit({ type: "signed-out-elsewhere" })
      expect(actor.getSnapshot().value).toBe("signedOut")
      expect(h.api.names()).not.toContain("logout")
      expect(h.navigations).toEqual([{ to: "/login", replace: true }])
    } finally {
      actor.stop()
    }
  })

  it("a sign-in in another tab is picked up here", async () => {
    const h = harness()
    const actor = startSession(h)
    try {
      h.local.setItem("access_token", "from-other-tab")
      h.emit({ type: "tokens-changed" })
      expect(selectSessionStatus(actor.getSnapshot())).toBe("loading")
      h.api.resolve("userInfo", { data: user() })
      await flush()
      expect(selectSessionStatus(actor.getSnapshot())).toBe("authenticated")
    } finally {
      actor.stop()
    }
  })

  it("a refresh elsewhere changes nothing visible here (the client reads storage)", async () => {
    const h = harness({ access_token: "a", refresh_token: "r" })
    const actor = startSession(h)
    try {
      h.api.resolve("userInfo", { data: user() })
      await flush()
      h.emit({ type: "tokens-changed" })
      expect(actor.getSnapshot().value).toEqual({ authenticated: "ready" })
    } finally {
      actor.stop()
    }
  })
})

describe("session: transition coverage", () => {
  it("drives every (state, event) edge", async () => {
    const pending = <T,>() => fromPromise<T>(() => new Promise<T>(() => {}))
    const quiet = sessionMachine.provide({
      actors: {
        fetchUser: pending(),
        loadWorkspaces: pending(),
        switchWorkspace: fromPromise<SwitchOutcome, { readonly workspaceId: number }>(() => new Promise(() => {})),
        logout: pending(),
        watchSessionSignals: fromCallback(() => () => {}),
      },
    })
    const switched: SwitchOutcome = { tokens: { accessToken: "a2", refreshToken: "r2" }, workspaceName: "Acme" }
    const coverage = await coverTransitions(quiet, {
      input: { stored: { accessToken: "a", userEmail: null, workspaceName: null } },
      events: [
        signedIn,
        { type: "session.workspaceSelectionRequested", workspaceId: 5, workspaceName: "Beta" },
        { type: "xstate.done.actor.fetchUser", output: user() },
        { type: "xstate.error.actor.fetchUser", error: apiError("UNAUTHORIZED", "x", 401) },
        { type: "xstate.error.actor.fetchUser", error: apiError("NETWORK_ERROR", "y") },
        { type: "xstate.done.actor.loadWorkspaces", output: [workspace(4)] },
        { type: "xstate.done.actor.loadWorkspaces", output: [workspace(4), workspace(5)] },
        { type: "xstate.error.actor.loadWorkspaces", error: apiError("SERVER_ERROR", "z", 500) },
        { type: "xstate.done.actor.switchWorkspace", output: switched },
        { type: "xstate.error.actor.switchWorkspace", error: apiError("UNKNOWN_ERROR", "Failed to select workspace", 404) },
        { type: "xstate.done.actor.logout", output: undefined },
        { type: "xstate.error.actor.logout", error: apiError("SERVER_ERROR", "w", 500) },
        { type: "session.expired", error: apiError("UNAUTHORIZED", RefreshMessages.sessionExpired, 401) },
      ],
    })
    console.info(formatCoverage("session", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
    expect(coverage.total).toBeGreaterThan(30)
  })
})
