import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock } from "xstate"
import { Toasts, Workspaces } from "../../src/contracts/constants.ts"
import type { WorkspaceId } from "../../src/contracts/ids.ts"
import {
  emptyWorkspaceStore,
  type AcceptWorkspaceInvitationPayload,
  type AcceptWorkspaceInvitationResponse,
  type SwitchWorkspacePayload,
  type SwitchWorkspaceResponse,
  type Workspace,
  type WorkspaceStore,
} from "../../src/contracts/workspaces.ts"
import type { NavigateParams } from "../../src/machines/auth-effects.ts"
import type { ToastRequest, TokenPairParams, WorkspaceStoreTransition } from "../../src/machines/screen-environment.ts"
import {
  filterWorkspaces,
  selectShowsSearch,
  selectWorkspaceCards,
  workspaceSelectionMachine,
  type WorkspaceSelectionInput,
} from "../../src/machines/workspace-selection.machine.ts"
import { markNewlyAdded } from "../../src/services/storage.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never, networkFailure } from "./auth-fakes.ts"

const DAY = 24 * 60 * 60 * 1000
const T0 = Date.parse("2025-03-01T10:00:00.000Z")

export const workspace = (id: number, name: string, extra: Partial<Workspace> = {}): Workspace => ({
  workspace_id: id as WorkspaceId,
  workspace_name: name,
  is_owner: false,
  role: "Auditor",
  member_count: 3,
  joined_at: "2025-01-01T00:00:00.000Z",
  ...extra,
})

const acme = workspace(1, "Acme Security", { is_owner: true, role: null })
const globex = workspace(2, "Globex", { role: "Security Engineer" })
const initech = workspace(3, "Initech")
const umbrella = workspace(4, "Umbrella Corp")

const accepted = (id: number, name: string): AcceptWorkspaceInvitationResponse => ({
  ok: true,
  message: "Invitation accepted",
  data: { workspace_id: id as WorkspaceId, workspace_name: name },
})

const switched = (id: number, name: string): SwitchWorkspaceResponse => ({
  access_token: `access-${id}`,
  refresh_token: `refresh-${id}`,
  data: { workspace_id: id as WorkspaceId, workspace_name: name },
})

const start = (input: Partial<WorkspaceSelectionInput> = {}) => {
  let nowMs = T0
  const now = () => nowMs
  const accept = controlled<AcceptWorkspaceInvitationPayload, AcceptWorkspaceInvitationResponse>()
  const load = controlled<unknown, ReadonlyArray<Workspace>>()
  const switchWs = controlled<SwitchWorkspacePayload, SwitchWorkspaceResponse>()
  const refreshUser = controlled<unknown, void>()
  const log = {
    navigations: [] as NavigateParams[],
    toasts: [] as ToastRequest[],
    tokens: [] as TokenPairParams[],
    names: [] as string[],
    transitions: [] as WorkspaceStoreTransition[],
    pendingCleared: 0,
    signOuts: 0,
  }
  const actor = createActor(
    workspaceSelectionMachine.provide({
      actors: {
        acceptWorkspaceInvitation: accept.logic,
        loadWorkspaces: load.logic,
        switchWorkspace: switchWs.logic,
        refreshUser: refreshUser.logic,
      },
      actions: {
        navigate: (_, p) => void log.navigations.push(p),
        notify: (_, p) => void log.toasts.push(p),
        storeTokens: (_, p) => void log.tokens.push(p),
        persistWorkspaceName: (_, p) => void log.names.push(p.name),
        updateWorkspaceStore: (_, p) => void log.transitions.push(p.transition),
        clearPendingInvitation: () => void (log.pendingCleared += 1),
        signOut: () => void (log.signOuts += 1),
      },
    }),
    { input: { store: emptyWorkspaceStore, now, ...input }, clock: new SimulatedClock() },
  ).start()
  /** The persisted store after every transition handed to `updateWorkspaceStore`. */
  const persisted = (from: WorkspaceStore = emptyWorkspaceStore) => log.transitions.reduce((s, t) => t(s), from)
  const setNow = (ms: number) => void (nowMs = ms)
  return { actor, accept, load, switchWs, refreshUser, log, persisted, setNow }
}

describe("workspace selection machine: transition coverage", () => {
  it("drives every (state, event) edge", async () => {
    const provided = workspaceSelectionMachine.provide({
      actors: { acceptWorkspaceInvitation: never(), loadWorkspaces: never(), switchWorkspace: never(), refreshUser: never() },
    })
    const input: WorkspaceSelectionInput = { invitationToken: "invite-1", store: emptyWorkspaceStore, now: () => T0 }
    const coverage = await coverTransitions(provided, {
      input,
      createActor: (clock) => createActor(provided, { input, clock }),
      events: [
        { type: "search.changed", query: "acme" },
        { type: "workspace.selected", workspaceId: 1 },
        { type: "workspace.selected", workspaceId: 99 },
        { type: "workspaces.retried" },
        { type: "signOut.requested" },
        { type: "xstate.done.actor.acceptWorkspaceInvitation", output: accepted(1, "Acme Security") },
        { type: "xstate.error.actor.acceptWorkspaceInvitation", error: httpFailure("accept-workspace-invitation", 500) },
        { type: "xstate.done.actor.loadWorkspaces", output: [acme, globex] },
        { type: "xstate.done.actor.loadWorkspaces", output: [] },
        { type: "xstate.error.actor.loadWorkspaces", error: networkFailure("load-workspaces") },
        { type: "xstate.done.actor.switchWorkspace", output: switched(1, "Acme Security") },
        { type: "xstate.error.actor.switchWorkspace", error: httpFailure("select-workspace", 500) },
        { type: "xstate.done.actor.refreshUser" },
        { type: "xstate.error.actor.refreshUser", error: networkFailure("generic") },
      ],
    })
    console.info(formatCoverage("workspaceSelection", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
    expect(coverage.total).toBeGreaterThanOrEqual(20)
    expect(coverage.edges.map((e) => e.target)).toEqual(
      expect.arrayContaining([
        '{"active":"empty"}',
        '{"active":"failed"}',
        '{"active":{"ready":"switching"}}',
        '{"active":{"ready":"refreshingUser"}}',
        '"selected"',
        '"leaving"',
      ]),
    )
  })
})

describe("workspace selection machine: loading", () => {
  it("loads the list and shows one card per workspace, with the 'Owner' marker and the role", async () => {
    const { actor, load } = start()
    try {
      expect(actor.getSnapshot().value).toEqual({ active: "loading" })
      await load.resolve([acme, globex])
      expect(actor.getSnapshot().value).toEqual({ active: { ready: "browsing" } })
      const cards = selectWorkspaceCards(actor.getSnapshot())
      expect(cards.map((c) => [c.workspace.workspace_name, c.isOwner, c.roleLabel, c.isNew])).toEqual([
        ["Acme Security", true, "Owner", false],
        ["Globex", false, "Security Engineer", false],
      ])
    } finally {
      actor.stop()
    }
  })

  it("an empty list is the 'No workspaces available' state, and can be reloaded", async () => {
    const { actor, load } = start()
    try {
      await load.resolve([])
      expect(actor.getSnapshot().value).toEqual({ active: "empty" })
      actor.send({ type: "workspaces.retried" })
      await load.resolve([globex])
      expect(actor.getSnapshot().value).toEqual({ active: { ready: "browsing" } })
    } finally {
      actor.stop()
    }
  })

  it("a failed load shows 'Failed to load workspaces' and 'Try again' reloads", async () => {
    const { actor, load } = start()
    try {
      await load.reject(httpFailure("load-workspaces", 500))
      expect(actor.getSnapshot().value).toEqual({ active: "failed" })
      expect(actor.getSnapshot().context.loadError).toBe("Failed to load workspaces")
      expect(actor.getSnapshot().can({ type: "workspaces.retried" })).toBe(true)
      actor.send({ type: "workspaces.retried" })
      expect(actor.getSnapshot().context.loadError).toBeNull()
      await load.resolve([acme])
      expect(selectWorkspaceCards(actor.getSnapshot())).toHaveLength(1)
    } finally {
      actor.stop()
    }
  })

  it("offers the search box only above 3 workspaces, and ignores a stale query at or below 3", async () => {
    const { actor, load } = start()
    try {
      await load.resolve([acme, globex, initech])
      expect(selectShowsSearch(actor.getSnapshot())).toBe(false)
      actor.send({ type: "search.changed", query: "glo" })
      expect(selectWorkspaceCards(actor.getSnapshot())).toHaveLength(3)
      actor.send({ type: "workspaces.retried" })
      expect(actor.getSnapshot().value).toEqual({ active: { ready: "browsing" } })
    } finally {
      actor.stop()
    }
    const four = start()
    try {
      await four.load.resolve([acme, globex, initech, umbrella])
      expect(selectShowsSearch(four.actor.getSnapshot())).toBe(true)
      four.actor.send({ type: "search.changed", query: "  GLO " })
      expect(selectWorkspaceCards(four.actor.getSnapshot()).map((c) => c.workspace.workspace_name)).toEqual(["Globex"])
      four.actor.send({ type: "search.changed", query: "zzz" })
      expect(selectWorkspaceCards(four.actor.getSnapshot())).toEqual([])
    } finally {
      four.actor.stop()
    }
    expect(Workspaces.searchAbove).toBe(3)
  })

  it("filters case-insensitively on the name", () => {
    expect(filterWorkspaces([acme, globex, initech], "INIT").map((w) => w.workspace_id)).toEqual([3])
    expect(filterWorkspaces([acme, globex], "")).toHaveLength(2)
  })
})

describe("workspace selection machine: invitation on arrival", () => {
  it("accepts the route's invitation token, marks the workspace new, toasts for 5 s and clears the pending invitation", async () => {
    const { actor, accept, load, log, persisted } = start({ invitationToken: " invite-token-1 " })
    try {
      expect(actor.getSnapshot().value).toEqual({ active: "acceptingInvitation" })
      expect(accept.calls).toEqual([{ invitation_token: "invite-token-1" }])
      await accept.resolve(accepted(2, "Globex"))
      expect(log.toasts).toEqual([{ kind: "success", message: "You've been added to Globex", durationMs: Toasts.addedToWorkspaceMs }])
      expect(Toasts.addedToWorkspaceMs).toBe(5000)
      expect(log.pendingCleared).toBe(1)
      expect(persisted().newlyAddedWorkspaces).toEqual({ "2": new Date(T0).toISOString() })
      expect(actor.getSnapshot().value).toEqual({ active: "loading" })
      await load.resolve([acme, globex])
      const cards = selectWorkspaceCards(actor.getSnapshot())
      expect(cards.find((c) => c.workspace.workspace_id === 2)).toMatchObject({ isNew: true, isHighlighted: true })
      expect(cards.find((c) => c.workspace.workspace_id === 1)).toMatchObject({ isNew: false, isHighlighted: false })
    } finally {
      actor.stop()
    }
  })

  it.each([
    [httpFailure("accept-workspace-invitation", 500), "Failed to accept workspace invitation"],
    [networkFailure("accept-workspace-invitation"), "Unable to connect to the server. Please check your internet connection."],
    [
      httpFailure("accept-workspace-invitation", 409, { _tag: "Conflict", message: "You're already a member of this workspace" }),
      "You're already a member of this workspace",
    ],
  ])("a failed acceptance (%#) is an error toast; the list still loads", async (failure, message) => {
    const { actor, accept, load, log } = start({ invitationToken: "invite-token-1", workspaceId: 2 })
    try {
      await accept.reject(failure)
      expect(log.toasts).toEqual([{ kind: "error", message }])
      expect(log.pendingCleared).toBe(1)
      expect(log.transitions).toEqual([])
      await load.resolve([acme, globex])
      // The route's workspace id still points at its card.
      expect(selectWorkspaceCards(actor.getSnapshot()).find((c) => c.isHighlighted)?.workspace.workspace_id).toBe(2)
    } finally {
      actor.stop()
    }
  })

  it("without a token nothing is accepted", async () => {
    const { actor, accept } = start({ invitationToken: "   " })
    try {
      expect(actor.getSnapshot().value).toEqual({ active: "loading" })
      expect(accept.calls).toEqual([])
    } finally {
      actor.stop()
    }
  })
})

describe("workspace selection machine: the 7-day 'New' badge", () => {
  it("counts as new for 7 days after being marked, not a millisecond longer", async () => {
    const marked = markNewlyAdded(emptyWorkspaceStore, 3, T0)
    const { actor, load, setNow } = start({ store: marked })
    try {
      await load.resolve([acme, initech])
      const isNew = () => selectWorkspaceCards(actor.getSnapshot()).find((c) => c.workspace.workspace_id === 3)?.isNew
      setNow(T0)
      expect(isNew()).toBe(true)
      setNow(T0 + 6 * DAY)
      expect(isNew()).toBe(true)
      setNow(T0 + 7 * DAY - 1)
      expect(isNew()).toBe(true)
      setNow(T0 + 7 * DAY)
      expect(isNew()).toBe(false)
    } finally {
      actor.stop()
    }
  })
})

describe("workspace selection machine: selecting", () => {
  it("switch call → tokens stored → selected + last accessed (badge cleared) → name kept → user refreshed → /dashboard", async () => {
    const initial = markNewlyAdded(emptyWorkspaceStore, 2, T0 - DAY)
    const { actor, load, switchWs, refreshUser, log, persisted, setNow } = start({ store: initial })
    try {
      await load.resolve([acme, globex])
      expect(selectWorkspaceCards(actor.getSnapshot())[1]?.isNew).toBe(true)
      setNow(T0 + 1000)
      actor.send({ type: "workspace.selected", workspaceId: 2 })
      expect(actor.getSnapshot().value).toEqual({ active: { ready: "switching" } })
      expect(actor.getSnapshot().can({ type: "workspace.selected", workspaceId: 1 })).toBe(false)
      expect(switchWs.calls).toEqual([{ workspace_id: 2 }])
      await switchWs.resolve(switched(2, "Globex"))
      expect(log.tokens).toEqual([{ accessToken: "access-2", refreshToken: "refresh-2" }])
      expect(log.names).toEqual(["Globex"])
      const stored = persisted(initial)
      expect(stored.selectedWorkspaceId).toBe(2)
      expect(stored.lastAccessedWorkspaces).toEqual({ "2": new Date(T0 + 1000).toISOString() })
      expect(stored.newlyAddedWorkspaces).toEqual({})
      expect(selectWorkspaceCards(actor.getSnapshot())[1]).toMatchObject({ isNew: false, isCurrent: true })
      expect(selectWorkspaceCards(actor.getSnapshot())[0]?.isCurrent).toBe(false)
      expect(actor.getSnapshot().value).toEqual({ active: { ready: "refreshingUser" } })
      expect(log.navigations).toEqual([])
      expect(refreshUser.calls).toHaveLength(1)
      await refreshUser.resolve()
      expect(log.navigations).toEqual([{ to: "/dashboard" }])
      expect(actor.getSnapshot().status).toBe("done")
    } finally {
      actor.stop()
    }
  })

  it("a failed user refresh still goes to the dashboard (the switch is done)", async () => {
    const { actor, load, switchWs, refreshUser, log } = start()
    try {
      await load.resolve([acme])
      actor.send({ type: "workspace.selected", workspaceId: 1 })
      await switchWs.resolve({ access_token: "a", refresh_token: "r" })
      expect(log.names).toEqual(["Acme Security"])
      await refreshUser.reject(networkFailure("generic"))
      expect(log.navigations).toEqual([{ to: "/dashboard" }])
    } finally {
      actor.stop()
    }
  })

  it.each([
    [httpFailure("select-workspace", 500), "Failed to select workspace"],
    [httpFailure("select-workspace", 403, { _tag: "Forbidden", message: "You are not a member of this workspace" }), "You are not a member of this workspace"],
  ])("a failed switch (%#) stays on the list with the §8 text, and another card can be chosen", async (failure, message) => {
    const { actor, load, switchWs, log } = start()
    try {
      await load.resolve([acme, globex])
      actor.send({ type: "workspace.selected", workspaceId: 1 })
      await switchWs.reject(failure)
      expect(actor.getSnapshot().value).toEqual({ active: { ready: "browsing" } })
      expect(actor.getSnapshot().context.selectionError).toBe(message)
      expect(actor.getSnapshot().context.selectingWorkspaceId).toBeNull()
      expect(log.tokens).toEqual([])
      expect(log.transitions).toEqual([])
      actor.send({ type: "workspace.selected", workspaceId: 2 })
      expect(actor.getSnapshot().context.selectionError).toBeNull()
      expect(switchWs.calls).toEqual([{ workspace_id: 1 }, { workspace_id: 2 }])
    } finally {
      actor.stop()
    }
  })

  it("ignores a workspace that is not in the list", async () => {
    const { actor, load, switchWs } = start()
    try {
      await load.resolve([acme])
      expect(actor.getSnapshot().can({ type: "workspace.selected", workspaceId: 42 })).toBe(false)
      actor.send({ type: "workspace.selected", workspaceId: 42 })
      expect(actor.getSnapshot().value).toEqual({ active: { ready: "browsing" } })
      expect(switchWs.calls).toEqual([])
    } finally {
      actor.stop()
    }
  })

  it("signing out hands over to the session and cancels the pending call", async () => {
    const { actor, load, log } = start()
    try {
      actor.send({ type: "signOut.requested" })
      expect(log.signOuts).toBe(1)
      expect(actor.getSnapshot().status).toBe("done")
      expect(load.aborted()).toBe(1)
    } finally {
      actor.stop()
    }
  })
})
