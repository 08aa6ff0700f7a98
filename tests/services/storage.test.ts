import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { StorageKeys, Workspaces } from "../../src/contracts/constants.ts"
import {
  clearWorkspaceData,
  createPendingInvitationStorage,
  createSessionStorage,
  createWorkspaceStore,
  emptyWorkspaceState,
  isNewlyAdded,
  markLastAccessed,
  markNewlyAdded,
  memoryStorage,
  parseWorkspaceId,
  parseWorkspaceState,
  pruneExpiredBadges,
  reconcileWithWorkspaces,
  safeStorage,
  selectWorkspace,
  serializeWorkspaceState,
  storageChangeHub,
  type WorkspaceState,
} from "../../src/services/storage.ts"

const DAY = 24 * 60 * 60 * 1000
const T0 = Date.parse("2025-03-01T12:00:00.000Z")

const workspaceIdArb = fc.integer({ min: 1, max: 10_000 })
const isoArb = fc.integer({ min: T0 - 30 * DAY, max: T0 + 30 * DAY }).map((t) => new Date(t).toISOString())
const stateArb: fc.Arbitrary<WorkspaceState> = fc.record({
  selectedWorkspaceId: fc.option(workspaceIdArb, { nil: null }),
  lastAccessedWorkspaces: fc.dictionary(workspaceIdArb.map(String), isoArb),
  newlyAddedWorkspaces: fc.dictionary(workspaceIdArb.map(String), isoArb),
})

describe("session storage (access §3 keys)", () => {
  it("writes and reads the four keys under the spec's names", () => {
    const local = memoryStorage()
    const session = createSessionStorage(local)
    session.writeTokens({ accessToken: "a1", refreshToken: "r1" })
    session.writeUserEmail("ada@example.com")
    session.writeWorkspaceName("Acme")
    expect(local.entries()).toEqual({
      access_token: "a1",
      refresh_token: "r1",
      user_email: "ada@example.com",
      workspace_name: "Acme",
    })
    expect(session.read()).toEqual({
      accessToken: "a1",
      refreshToken: "r1",
      userEmail: "ada@example.com",
      workspaceName: "Acme",
    })
  })

  it("clear removes the session keys and leaves unrelated keys alone", () => {
    const local = memoryStorage({ access_token: "a", refresh_token: "r", user_email: "e", workspace_name: "w", theme: "dark" })
    createSessionStorage(local).clear()
    expect(local.entries()).toEqual({ theme: "dark" })
  })

  it("an empty stored string never passes for a token", () => {
    const session = createSessionStorage(memoryStorage({ access_token: "", refresh_token: "" }))
    expect(session.read().accessToken).toBeNull()
    expect(session.read().refreshToken).toBeNull()
  })

  it("a storage that throws degrades to memory instead of breaking sign-in", () => {
    const throwing = {
      getItem: () => {
        throw new Error("SecurityError")
      },
      setItem: () => {
        throw new Error("QuotaExceededError")
      },
      removeItem: () => {
        throw new Error("SecurityError")
      },
    } as unknown as Storage
    const s = safeStorage(() => throwing)
    s.setItem("access_token", "a")
    expect(s.getItem("access_token")).toBe("a")
    s.removeItem("access_token")
    expect(s.getItem("access_token")).toBeNull()
  })
})

describe("pending invitation (session storage)", () => {
  it("stores token and numeric workspace id under the spec's keys", () => {
    const session = memoryStorage()
    const pending = createPendingInvitationStorage(session)
    pending.write({ token: "tok", workspaceId: parseWorkspaceId("12") })
    expect(session.entries()).toEqual({ [StorageKeys.pendingWorkspaceInvitation]: "tok", [StorageKeys.pendingWorkspaceId]: "12" })
    expect(pending.read()).toEqual({ token: "tok", workspaceId: 12 })
    pending.clear()
    expect(pending.read()).toBeNull()
  })

  it("the workspace id is optional and only a positive integer counts", () => {
    fc.assert(
      fc.property(fc.string(), (raw) => {
        const id = parseWorkspaceId(raw)
        const expected = /^\s*\d+\s*$/.test(raw) && Number(raw.trim()) > 0 && Number.isSafeInteger(Number(raw.trim()))
        expect(id !== null).toBe(expected)
        if (id !== null) expect(id).toBe(Number(raw.trim()))
      }),
    )
    const pending = createPendingInvitationStorage(memoryStorage({ pending_workspace_invitation: "t", pending_workspace_id: "abc" }))
    expect(pending.read()).toEqual({ token: "t", workspaceId: null })
  })
})

describe("workspace-store persisted state (access §3, §4)", () => {
  it("round-trips through its stored form", () => {
    fc.assert(
      fc.property(stateArb, (state) => {
        expect(parseWorkspaceState(serializeWorkspaceState(state))).toEqual(state)
      }),
    )
  })

  it("a missing or malformed stored value reads as the empty state", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.constant("{\"state\":{\"selectedWorkspaceId\":\"x\"}}")), (raw) => {
        const parsed = parseWorkspaceState(raw)
        // Either it was a valid envelope (astronomically unlikely from random strings) or it is empty.
        expect(parsed).toEqual(emptyWorkspaceState)
      }),
    )
    expect(parseWorkspaceState(null)).toEqual(emptyWorkspaceState)
  })

  it("selecting marks selected and last accessed and clears the New badge", () => {
    fc.assert(
      fc.property(stateArb, workspaceIdArb, fc.integer({ min: T0, max: T0 + 10 * DAY }), (state, id, now) => {
        const next = selectWorkspace(markNewlyAdded(state, id, now - DAY), id, now)
        expect(next.selectedWorkspaceId).toBe(id)
        expect(next.lastAccessedWorkspaces[String(id)]).toBe(new Date(now).toISOString())
        expect(next.newlyAddedWorkspaces[String(id)]).toBeUndefined()
        expect(isNewlyAdded(next, id, now)).toBe(false)
        // Other workspaces' history is untouched.
        for (const [k, v] of Object.entries(state.lastAccessedWorkspaces)) if (k !== String(id)) expect(next.lastAccessedWorkspaces[k]).toBe(v)
      }),
    )
  })

  it("a New badge lasts exactly 7 days after being marked", () => {
    fc.assert(
      fc.property(stateArb, workspaceIdArb, fc.integer({ min: 0, max: 14 * DAY }), (state, id, elapsed) => {
        const marked = markNewlyAdded(state, id, T0)
        expect(isNewlyAdded(marked, id, T0 + elapsed)).toBe(elapsed < Workspaces.newBadgeMs)
      }),
    )
  })

  it("pruning keeps exactly the badges still new", () => {
    fc.assert(
      fc.property(stateArb, (state) => {
        const pruned = pruneExpiredBadges(state, T0)
        for (const id of Object.keys(state.newlyAddedWorkspaces)) {
          expect(pruned.newlyAddedWorkspaces[id] !== undefined).toBe(isNewlyAdded(state, Number(id), T0))
        }
      }),
    )
  })

  it("a vanished selected workspace is cleared; a present one is kept", () => {
    fc.assert(
      fc.property(stateArb, fc.array(workspaceIdArb), (state, available) => {
        const next = reconcileWithWorkspaces(state, available)
        if (state.selectedWorkspaceId === null || available.includes(state.selectedWorkspaceId)) {
          expect(next).toBe(state)
        } else {
          expect(next.selectedWorkspaceId).toBeNull()
          expect(next.lastAccessedWorkspaces).toEqual(state.lastAccessedWorkspaces)
        }
      }),
    )
  })

  it("clearing workspace data drops the selection only", () => {
    fc.assert(
      fc.property(stateArb, (state) => {
        const next = clearWorkspaceData(state)
        expect(next.selectedWorkspaceId).toBeNull()
        expect(next.newlyAddedWorkspaces).toEqual(state.newlyAddedWorkspaces)
      }),
    )
  })

  it("markLastAccessed keeps the selection", () => {
    const s = markLastAccessed({ ...emptyWorkspaceState, selectedWorkspaceId: 3 }, 5, T0)
    expect(s.selectedWorkspaceId).toBe(3)
    expect(s.lastAccessedWorkspaces).toEqual({ "5": new Date(T0).toISOString() })
  })
})

describe("workspace store (external store, cross-tab)", () => {
  it("persists every update under workspace-store and notifies subscribers", () => {
    const local = memoryStorage()
    const store = createWorkspaceStore({ storage: local })
    const seen: Array<number | null> = []
    store.subscribe(() => seen.push(store.getSnapshot().selectedWorkspaceId))
    store.update((s) => selectWorkspace(s, 7, T0))
    expect(seen).toEqual([7])
    expect(parseWorkspaceState(local.getItem(StorageKeys.workspaceStore)).selectedWorkspaceId).toBe(7)
    // A no-op transition neither writes nor notifies, and keeps the same snapshot object.
    const before = store.getSnapshot()
    store.update((s) => s)
    expect(store.getSnapshot()).toBe(before)
    expect(seen).toEqual([7])
  })

  it("follows another tab's writes and clears, and ignores other keys", () => {
    const hub = storageChangeHub()
    const store = createWorkspaceStore({ storage: memoryStorage(), changes: hub.source })
    let notified = 0
    store.subscribe(() => (notified += 1))
    const other = selectWorkspace(emptyWorkspaceState, 9, T0)
    hub.emit({ key: StorageKeys.workspaceStore, oldValue: null, newValue: serializeWorkspaceState(other) })
    expect(store.getSnapshot().selectedWorkspaceId).toBe(9)
    hub.emit({ key: "theme", oldValue: null, newValue: "dark" })
    expect(notified).toBe(1)
    hub.emit({ key: null, oldValue: null, newValue: null })
    expect(store.getSnapshot()).toEqual(emptyWorkspaceState)
    expect(notified).toBe(2)
    store.dispose()
    hub.emit({ key: StorageKeys.workspaceStore, oldValue: null, newValue: serializeWorkspaceState(other) })
    expect(store.getSnapshot()).toEqual(emptyWorkspaceState)
  })
})
