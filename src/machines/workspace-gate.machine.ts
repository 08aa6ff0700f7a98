/**
 * Workspace gate (access spec §2 "Route guards"): the dashboard needs a selected workspace that the user
 * still belongs to.
 *
 * - no selected workspace → /workspace-selection;
 * - the selected workspace is no longer in the user's list → workspace data cleared, then /workspace-selection;
 * - the list fails to load → 'Error loading workspaces' with Retry and 'Select workspace';
 * - otherwise the page renders with the selected workspace.
 *
 * `decideWorkspaceGate` is the pure rule; `workspaceGateMachine` follows the persisted selection and the
 * workspaces query through two watcher actors (`watchSelection`, `watchWorkspaces`).
 *
 * Events accepted:
 * - `gate.selectionChanged` { selectedWorkspaceId } — from `watchSelection`: the persisted workspace selection changed;
 *   the gate decides again (while redirecting, only once a workspace is selected).
 * - `gate.workspacesChanged` { state } — from `watchWorkspaces`: the workspaces query changed (loading, loaded,
 *   failed); the gate decides again (while redirecting it only records it).
 * - `gate.retryRequested` — the user pressed Retry on 'Error loading workspaces': the workspaces are fetched again.
 * - `gate.selectWorkspaceRequested` — the user pressed 'Select workspace' on 'Error loading workspaces': goes to
 *   /workspace-selection.
 *
 * Environment actions: `navigate`, `clearWorkspaceData`, `refetchWorkspaces` (`workspaceGateMachineWith(services)`
 * supplies all but `navigate`).
 */
import { assertEvent, assign, fromCallback, setup } from "xstate"
import { OtherMessages } from "../contracts/messages.ts"
import type { Workspace } from "../contracts/workspaces.ts"
import type { AccessQueries } from "../services/auth-api.ts"
import type { QueryCache, QueryState } from "../services/query-cache.ts"
import { clearWorkspaceData, type SessionStorage, type WorkspaceStore } from "../services/storage.ts"
import type { NavigationRequest } from "./navigation.ts"

export type WorkspaceList = ReadonlyArray<Workspace>

export type WorkspaceGateDecision =
  | { readonly kind: "loading" }
  | { readonly kind: "select" }
  | { readonly kind: "vanished" }
  | { readonly kind: "failed"; readonly message: string }
  | { readonly kind: "render"; readonly workspace: Workspace }

export interface WorkspaceGateFacts {
  readonly selectedWorkspaceId: number | null
  readonly workspaces: Pick<QueryState<WorkspaceList>, "status" | "data" | "isFetching">
}

/**
 * The rule. Data already loaded wins over a later failed refetch (the page keeps working); a failure with no
 * data at all shows the error, unless a new attempt (Retry) is under way.
 */
export const decideWorkspaceGate = ({ selectedWorkspaceId, workspaces }: WorkspaceGateFacts): WorkspaceGateDecision => {
  if (selectedWorkspaceId === null) return { kind: "select" }
  const list = workspaces.data
  if (list === undefined) {
    return workspaces.status === "error" && !workspaces.isFetching
      ? { kind: "failed", message: OtherMessages.errorLoadingWorkspaces }
      : { kind: "loading" }
  }
  const selected = list.find((w) => w.workspace_id === selectedWorkspaceId)
  return selected === undefined ? { kind: "vanished" } : { kind: "render", workspace: selected }
}

export interface WorkspaceGateContext extends WorkspaceGateFacts {
  readonly decision: WorkspaceGateDecision
}

export interface WorkspaceGateInput {
  readonly selectedWorkspaceId: number | null
}

export type WorkspaceGateEvent =
  | { readonly type: "gate.selectionChanged"; readonly selectedWorkspaceId: number | null }
  | { readonly type: "gate.workspacesChanged"; readonly state: Pick<QueryState<WorkspaceList>, "status" | "data" | "isFetching"> }
  | { readonly type: "gate.retryRequested" }
  | { readonly type: "gate.selectWorkspaceRequested" }

const withDecision = (facts: WorkspaceGateFacts): WorkspaceGateContext => ({
  selectedWorkspaceId: facts.selectedWorkspaceId,
  workspaces: facts.workspaces,
  decision: decideWorkspaceGate(facts),
})

const toSelection: NavigationRequest = { to: "/workspace-selection", replace: true }

export const workspaceGateMachine = setup({
  types: {
    context: {} as WorkspaceGateContext,
    events: {} as WorkspaceGateEvent,
    input: {} as WorkspaceGateInput,
  },
  actors: {
    /** Sends `gate.selectionChanged` now and on every change (this tab or another). */
    watchSelection: fromCallback(() => () => {}),
    /** Sends `gate.workspacesChanged` for every state of the workspaces query (and loads it when stale). */
    watchWorkspaces: fromCallback(() => () => {}),
  },
  guards: {
    /** `decideWorkspaceGate` says no workspace is selected. */
    needsSelection: ({ context }) => context.decision.kind === "select",
    /** `decideWorkspaceGate` says the selected workspace is no longer in the user's list. */
    hasVanishedSelection: ({ context }) => context.decision.kind === "vanished",
    /** `decideWorkspaceGate` says the workspaces query has not answered yet. */
    isLoading: ({ context }) => context.decision.kind === "loading",
    /** `decideWorkspaceGate` says the workspaces query failed. */
    hasFailed: ({ context }) => context.decision.kind === "failed",
    /** The event selects a workspace (not a cleared selection). */
    isSelectionMade: ({ event }) => event.type === "gate.selectionChanged" && event.selectedWorkspaceId !== null,
  },
  actions: {
    navigate: (_, _params: NavigationRequest) => {},
    clearWorkspaceData: () => {},
    refetchWorkspaces: () => {},
    assignSelection: assign(({ context, event }) => {
      assertEvent(event, "gate.selectionChanged")
      return withDecision({ ...context, selectedWorkspaceId: event.selectedWorkspaceId })
    }),
    assignWorkspaces: assign(({ context, event }) => {
      assertEvent(event, "gate.workspacesChanged")
      const { status, data, isFetching } = event.state
      return withDecision({ ...context, workspaces: { status, data, isFetching } })
    }),
    assignSelectionCleared: assign(({ context }) => withDecision({ ...context, selectedWorkspaceId: null })),
  },
}).createMachine({
  id: "workspaceGate",
  context: ({ input }) =>
    withDecision({
      selectedWorkspaceId: input.selectedWorkspaceId,
      workspaces: { status: "pending", data: undefined, isFetching: false },
    }),
  invoke: [
    { id: "selection", src: "watchSelection" },
    { id: "workspaces", src: "watchWorkspaces" },
  ],
  initial: "deciding",
  states: {
    deciding: {
      description:
        "Applies `decideWorkspaceGate` to the persisted selection and the workspaces query; a selection that vanished from the user's list is cleared on the way to /workspace-selection.",
      /** No selection, or one the user no longer belongs to → /workspace-selection; then loading, failed or allowed. */
      always: [
        { guard: "needsSelection", target: "redirecting" },
        { guard: "hasVanishedSelection", target: "redirecting", actions: ["clearWorkspaceData", "assignSelectionCleared"] },
        { guard: "isLoading", target: "loading" },
        { guard: "hasFailed", target: "failed" },
        { target: "allowed" },
      ],
    },
    loading: { description: "The workspaces query has not answered yet: the dashboard waits." },
    /** Selection is empty here; only a new selection changes the outcome (no repeated navigation). */
    redirecting: {
      entry: { type: "navigate", params: toSelection },
      on: {
        "gate.selectionChanged": [
          { guard: "isSelectionMade", target: "deciding", actions: "assignSelection" },
          { actions: "assignSelection" },
        ],
        "gate.workspacesChanged": { actions: "assignWorkspaces" },
      },
    },
    failed: {
      description: "The list failed to load: 'Error loading workspaces' with Retry and 'Select workspace'.",
      on: {
        "gate.retryRequested": { target: "loading", actions: "refetchWorkspaces" },
        "gate.selectWorkspaceRequested": { actions: { type: "navigate", params: { to: "/workspace-selection" } } },
      },
    },
    allowed: { description: "The page renders with the selected workspace, which the user still belongs to." },
  },
  on: {
    "gate.selectionChanged": { target: ".deciding", actions: "assignSelection" },
    "gate.workspacesChanged": { target: ".deciding", actions: "assignWorkspaces" },
  },
})

// ---------------------------------------------------------------------------------------------------

export interface WorkspaceGateServices {
  readonly cache: QueryCache
  readonly queries: Pick<AccessQueries, "workspaces">
  readonly workspaceStore: WorkspaceStore
  readonly session: Pick<SessionStorage, "writeWorkspaceName">
}

/** The gate with its watchers and storage effects from the SPA services (the React boundary adds `navigate`). */
export const workspaceGateMachineWith = (services: WorkspaceGateServices) =>
  workspaceGateMachine.provide({
    actors: {
      watchSelection: fromCallback(({ sendBack }) => {
        const report = () =>
          sendBack({ type: "gate.selectionChanged", selectedWorkspaceId: services.workspaceStore.getSnapshot().selectedWorkspaceId })
        report()
        return services.workspaceStore.subscribe(report)
      }),
      watchWorkspaces: fromCallback(({ sendBack }) => {
        const q = services.queries.workspaces()
        return services.cache.watch(q.key, q.fetch, (state) =>
          sendBack({
            type: "gate.workspacesChanged",
            state: { status: state.status, data: state.data, isFetching: state.isFetching },
          }),
        )
      }),
    },
    actions: {
      clearWorkspaceData: () => {
        services.workspaceStore.update(clearWorkspaceData)
        services.session.writeWorkspaceName(null)
      },
      refetchWorkspaces: () => services.cache.invalidate(services.queries.workspaces().key),
    },
  })
