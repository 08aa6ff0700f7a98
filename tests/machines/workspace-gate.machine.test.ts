import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { createActor, fromCallback } from "xstate"
import { StorageKeys } from "../../src/contracts/constants.ts"
import type { NavigationRequest } from "../../src/machines/navigation.ts"
import {
  decideWorkspaceGate,
  workspaceGateMachine,
  workspaceGateMachineWith,
  type WorkspaceGateFacts,
} from "../../src/machines/workspace-gate.machine.ts"
import { accessQueries } from "../../src/services/auth-api.ts"
import { createQueryCache } from "../../src/services/query-cache.ts"
import {
  createSessionStorage,
  createWorkspaceStore,
  emptyWorkspaceState,
  memoryStorage,
  parseWorkspaceState,
  selectWorkspace,
  serializeWorkspaceState,
  storageChangeHub,
} from "../../src/services/storage.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { advance, flush, newClock } from "../services/support.ts"
import { apiError, scriptedApi, workspace } from "./session.fixtures.ts"

const idsArb = fc.uniqueArray(fc.integer({ min: 1, max: 50 }), { maxLength: 6 })

describe("decideWorkspaceGate (access §2 workspace gate)", () => {
  it("no selected workspace → selection screen, whatever the list", () => {
    fc.assert(
      fc.property(fc.constantFrom("pending", "success", "error" as const), fc.option(idsArb, { nil: undefined }), fc.boolean(), (status, ids, fetching) => {
        const facts: WorkspaceGateFacts = {
          selectedWorkspaceId: null,
          workspaces: { status, data: ids?.map((id) => workspace(id)), isFetching: fetching },
        }
        expect(decideWorkspaceGate(facts)).toEqual({ kind: "select" })
      }),
    )
  })

  it("with a list: renders the selected workspace when present, reports it vanished otherwise", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), idsArb, fc.constantFrom("success", "error" as const), (selected, ids, status) => {
        const list = ids.map((id) => workspace(id))
        const d = decideWorkspaceGate({ selectedWorkspaceId: selected, workspaces: { status, data: list, isFetching: false } })
        if (ids.includes(selected)) expect(d).toEqual({ kind: "render", workspace: workspace(selected) })
        else expect(d).toEqual({ kind: "vanished" })
      }),
    )
  })

  it("without a list: loading, or 'Error loading workspaces' once it failed and nothing is being retried", () => {
    fc.assert(
      fc.property(fc.constantFrom("pending", "error" as const), fc.boolean(), (status, fetching) => {
        const d = decideWorkspaceGate({ selectedWorkspaceId: 3, workspaces: { status, data: undefined, isFetching: fetching } })
        expect(d).toEqual(status === "error" && !fetching ? { kind: "failed", message: "Error loading workspaces" } : { kind: "loading" })
      }),
    )
  })
})

describe("workspace gate machine on the services", () => {
  const setup = (stored: Record<string, string>) => {
    const clock = newClock()
    const local = memoryStorage(stored)
    const hub = storageChangeHub()
    const api = scriptedApi()
    const workspaceStore = createWorkspaceStore({ storage: local, changes: hub.source })
    const services = {
      cache: createQueryCache({ clock }),
      queries: accessQueries(api.api as never),
      workspaceStore,
      session: createSessionStorage(local),
    }
    const navigations: NavigationRequest[] = []
    const machine = workspaceGateMachineWith(services).provide({ actions: { navigate: (_, r) => void navigations.push(r) } })
    const actor = createActor(machine, {
      clock,
      input: { selectedWorkspaceId: workspaceStore.getSnapshot().selectedWorkspaceId },
    }).start()
    return { clock, local, hub, api, services, navigations, actor }
  }
  const selected = (id: number) => ({ [StorageKeys.workspaceStore]: serializeWorkspaceState(selectWorkspace(emptyWorkspaceState, id, 0)), workspace_name: "Acme" })

  it("no selection → /workspace-selection at once", () => {
    const t = setup({})
    try {
      expect(t.actor.getSnapshot().value).toBe("redirecting")
      expect(t.navigations).toEqual([{ to: "/workspace-selection", replace: true }])
    } finally {
      t.actor.stop()
    }
  })

  it("the selected workspace in the list → the page renders with it", async () => {
    const t = setup(selected(4))
    try {
      expect(t.actor.getSnapshot().value).toBe("loading")
      t.api.resolve("workspaces", { data: [workspace(3), workspace(4, "Acme")] })
      await flush()
      expect(t.actor.getSnapshot().value).toBe("allowed")
      expect(t.actor.getSnapshot().context.decision).toEqual({ kind: "render", workspace: workspace(4, "Acme") })
    } finally {
      t.actor.stop()
    }
  })

  it("a vanished workspace is cleared from storage, then → /workspace-selection", async () => {
    const t = setup(selected(9))
    try {
      t.api.resolve("workspaces", { data: [workspace(4)] })
      await flush()
      expect(parseWorkspaceState(t.local.getItem(StorageKeys.workspaceStore)).selectedWorkspaceId).toBeNull()
      expect(t.local.getItem("workspace_name")).toBeNull()
      expect(t.actor.getSnapshot().value).toBe("redirecting")
      expect(t.navigations).toEqual([{ to: "/workspace-selection", replace: true }])
    } finally {
      t.actor.stop()
    }
  })

  it("a load error offers Retry and 'Select workspace'", async () => {
    const t = setup(selected(4))
    try {
      const failure = apiError("SERVER_ERROR", "Failed to load workspaces", 500)
      t.api.reject("workspaces", failure)
      await advance(t.clock, 1000, 250)
      t.api.reject("workspaces", failure)
      await advance(t.clock, 2000, 250)
      t.api.reject("workspaces", failure)
      await flush()
      expect(t.actor.getSnapshot().value).toBe("failed")
      expect(t.actor.getSnapshot().context.decision).toEqual({ kind: "failed", message: "Error loading workspaces" })
      // Retry: a new load, shown as loading until it answers.
      t.actor.send({ type: "gate.retryRequested" })
      await flush()
      expect(t.actor.getSnapshot().value).toBe("loading")
      t.api.resolve("workspaces", { data: [workspace(4)] })
      await flush()
      expect(t.actor.getSnapshot().value).toBe("allowed")
    } finally {
      t.actor.stop()
    }
  })

  it("'Select workspace' from the error goes to the selection screen", async () => {
    const t = setup(selected(4))
    try {
      t.actor.send({ type: "gate.workspacesChanged", state: { status: "error", data: undefined, isFetching: false } })
      expect(t.actor.getSnapshot().value).toBe("failed")
      t.actor.send({ type: "gate.selectWorkspaceRequested" })
      expect(t.navigations).toEqual([{ to: "/workspace-selection" }])
    } finally {
      t.actor.stop()
    }
  })

  it("another tab clearing the selection sends this tab to the selection screen", async () => {
    const t = setup(selected(4))
    try {
      t.api.resolve("workspaces", { data: [workspace(4)] })
      await flush()
      expect(t.actor.getSnapshot().value).toBe("allowed")
      t.hub.emit({ key: StorageKeys.workspaceStore, oldValue: null, newValue: serializeWorkspaceState(emptyWorkspaceState) })
      expect(t.navigations).toEqual([{ to: "/workspace-selection", replace: true }])
    } finally {
      t.actor.stop()
    }
  })

  it("transition coverage: every (state, event) edge driven", async () => {
    const quiet = workspaceGateMachine.provide({
      actors: { watchSelection: fromCallback(() => () => {}), watchWorkspaces: fromCallback(() => () => {}) },
    })
    const coverage = await coverTransitions(quiet, {
      input: { selectedWorkspaceId: 4 },
      events: [
        { type: "gate.selectionChanged", selectedWorkspaceId: null },
        { type: "gate.selectionChanged", selectedWorkspaceId: 4 },
        { type: "gate.workspacesChanged", state: { status: "success", data: [workspace(4)], isFetching: false } },
        { type: "gate.workspacesChanged", state: { status: "success", data: [workspace(5)], isFetching: false } },
        { type: "gate.workspacesChanged", state: { status: "error", data: undefined, isFetching: false } },
        { type: "gate.workspacesChanged", state: { status: "pending", data: undefined, isFetching: true } },
        { type: "gate.retryRequested" },
        { type: "gate.selectWorkspaceRequested" },
      ],
    })
    console.info(formatCoverage("workspaceGate", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })
})
