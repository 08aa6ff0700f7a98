/**
 * /workspace-selection (access spec §2 "Screens: Workspace selection", §3 Workspace + `workspace-store`, §4 "Workspace
 * selection success", §8 'Failed to select workspace', 'Failed to accept workspace invitation', 'Failed to load
 * workspaces', the 'You've been added to' toast (5 s), §9 "New-workspace badge lasts 7 days. Workspace search appears
 * only above 3 workspaces").
 *
 * Input: the route state (`invitationToken`, `workspaceId`), the persisted `workspace-store` state and `now`.
 * Flow:
 * - `acceptingInvitation` (only with an invitation token): POST /api/workspaces/accept-invitation. Success marks the
 *   workspace as new (badge), shows "You've been added to {name}" for 5 s and highlights it; failure shows the §8 text
 *   as an error toast. Either way the pending invitation is cleared from session storage and the list loads.
 * - `loading` → `ready` (cards) | `empty` ('No workspaces available') | `failed` ('Failed to load workspaces' + 'Try
 *   again').
 * - `ready.browsing`: `search.changed` filters (the view shows the box only above 3 workspaces); `workspace.selected`
 *   → `ready.switching` (POST /api/user/switch-workspace) → tokens stored, workspace selected + last accessed (which
 *   clears its 'New' badge), its name kept → `ready.refreshingUser` (user data refreshed) → /dashboard (`selected`).
 *   A failed switch returns to browsing with 'Failed to select workspace' (or the server's 4xx message).
 * - `signOut.requested` anywhere but after the selection: hands over to the session's logout.
 *
 * Events accepted (besides `signOut.requested`):
 * - `workspaces.retried` — the user pressed 'Try again' after the list failed to load (or asked again on the empty screen).
 * - `search.changed` { query } — the user typed in the workspace search box (shown only above 3 workspaces); the cards are filtered.
 * - `workspace.selected` { workspaceId } — the user chose a workspace card; only a listed workspace is switched to.
 *
 * Effects (named in `setup`, supplied with `.provide()`; `workspaceSelectionImplementations` maps a
 * `WorkspaceSelectionEffects` object onto them): actors `acceptWorkspaceInvitation`, `loadWorkspaces`,
 * `switchWorkspace`, `refreshUser`; environment actions `navigate`, `notify`, `storeTokens`, `persistWorkspaceName`,
 * `updateWorkspaceStore`, `clearPendingInvitation`, `signOut`.
 * The badge and the last-access times are kept in context as a copy of the store, changed only through the pure
 * transitions of `src/services/storage.ts`, and every transition is also handed to `updateWorkspaceStore`, so the
 * persisted store and the screen apply the same rule.
 */
import { assertEvent, assign, fromPromise, setup } from "xstate"
import { Toasts } from "../contracts/constants.ts"
import { OtherMessages, addedToWorkspaceMessage } from "../contracts/messages.ts"
import { OWNER_LABEL } from "../contracts/permissions.ts"
import {
  isNewWorkspace,
  showWorkspaceSearch,
  type AcceptWorkspaceInvitationPayload,
  type AcceptWorkspaceInvitationResponse,
  type SwitchWorkspacePayload,
  type SwitchWorkspaceResponse,
  type Workspace,
  type WorkspaceStore,
} from "../contracts/workspaces.ts"
import type { WorkspaceId } from "../contracts/ids.ts"
import type { AppServices } from "../services/app-services.ts"
import { markNewlyAdded, selectWorkspace } from "../services/storage.ts"
import { AuthPaths, toFailure, type EffectCall, type NavigateParams } from "./auth-effects.ts"
import type { ScreenEnvironment, ToastRequest, TokenPairParams, WorkspaceStoreTransition } from "./screen-environment.ts"
import { errorOf, outputOf } from "./actor-output.ts"
import { notProvided } from "./building-blocks.ts"

// ---------------------------------------------------------------------------------------------------
// Types

export interface WorkspaceSelectionInput {
  /** Route state of /workspace-selection (access §2): the pending invitation token… */
  readonly invitationToken?: string | null
  /** …and the optional numeric workspace id it belongs to. */
  readonly workspaceId?: number | null
  /** The persisted `workspace-store` when the screen opened. */
  readonly store: WorkspaceStore
  /** Wall clock (ms since the epoch); badges and last-access times are computed with it. */
  readonly now: () => number
}

export interface WorkspaceSelectionContext {
  readonly invitationToken: string | null
  readonly workspaces: ReadonlyArray<Workspace>
  readonly query: string
  readonly store: WorkspaceStore
  readonly now: () => number
  /** The workspace the route state or the accepted invitation points at (its card is highlighted). */
  readonly highlightedWorkspaceId: number | null
  /** The card being switched to. */
  readonly selectingWorkspaceId: number | null
  /** Load failure text ('Failed to load workspaces'). */
  readonly loadError: string | null
  /** Last failed selection ('Failed to select workspace' or the server's message). */
  readonly selectionError: string | null
}

export type WorkspaceSelectionEvent =
  | { readonly type: "search.changed"; readonly query: string }
  | { readonly type: "workspace.selected"; readonly workspaceId: number }
  | { readonly type: "workspaces.retried" }
  | { readonly type: "signOut.requested" }

/** One card as the view shows it. */
export interface WorkspaceCard {
  readonly workspace: Workspace
  readonly isNew: boolean
  readonly isOwner: boolean
  /** 'Owner' for the owner, else the role name (null when the member has none). */
  readonly roleLabel: string | null
  /** ISO time of the last selection on this device, if any. */
  readonly lastAccessedAt: string | null
  readonly isHighlighted: boolean
  /** The workspace selected now (the one being switched away from). */
  readonly isCurrent: boolean
}

/** Case-insensitive substring match on the workspace name (surrounding spaces of the query ignored). */
export const filterWorkspaces = (workspaces: ReadonlyArray<Workspace>, query: string): ReadonlyArray<Workspace> => {
  const q = query.trim().toLocaleLowerCase()
  return q === "" ? workspaces : workspaces.filter((w) => w.workspace_name.toLocaleLowerCase().includes(q))
}

// ---------------------------------------------------------------------------------------------------
// Machine

export const workspaceSelectionMachine = setup({
  types: {
    context: {} as WorkspaceSelectionContext,
    events: {} as WorkspaceSelectionEvent,
    input: {} as WorkspaceSelectionInput,
  },
  actors: {
    /** Accepts the route's invitation token (POST /api/workspaces/accept-invitation). */
    acceptWorkspaceInvitation: fromPromise<AcceptWorkspaceInvitationResponse, AcceptWorkspaceInvitationPayload>(
      notProvided("acceptWorkspaceInvitation"),
    ),
    /** Loads the user's workspaces (always asked again). */
    loadWorkspaces: fromPromise<ReadonlyArray<Workspace>>(notProvided("loadWorkspaces")),
    /** Switches to the chosen workspace (POST /api/user/switch-workspace), which answers with new tokens. */
    switchWorkspace: fromPromise<SwitchWorkspaceResponse, SwitchWorkspacePayload>(notProvided("switchWorkspace")),
    /** Access §4: after selecting, the user data is refreshed (the session reloads the user). */
    refreshUser: fromPromise<void>(notProvided("refreshUser")),
  },
  guards: {
    /** The route carried an invitation token. */
    hasInvitationToken: ({ context }) => context.invitationToken !== null,
    /** The user belongs to no workspace. */
    hasNoWorkspaces: ({ event }) => outputOf<ReadonlyArray<Workspace>>(event).length === 0,
    /** The chosen workspace is one of the loaded workspaces. */
    isListedWorkspace: ({ context, event }) => {
      assertEvent(event, "workspace.selected")
      return context.workspaces.some((w) => w.workspace_id === event.workspaceId)
    },
  },
  actions: {
    // environment (supplied with .provide())
    navigate: (_, _params: NavigateParams) => {},
    notify: (_, _params: ToastRequest) => {},
    storeTokens: (_, _params: TokenPairParams) => {},
    persistWorkspaceName: (_, _params: { readonly name: string }) => {},
    updateWorkspaceStore: (_, _params: { readonly transition: WorkspaceStoreTransition }) => {},
    clearPendingInvitation: () => {},
    signOut: () => {},
    // context
    markAcceptedWorkspaceNew: assign(({ context, event }) => {
      const { workspace_id } = outputOf<AcceptWorkspaceInvitationResponse>(event).data
      return { store: markNewlyAdded(context.store, workspace_id, context.now()), highlightedWorkspaceId: workspace_id }
    }),
    assignWorkspaces: assign({
      workspaces: ({ event }) => outputOf<ReadonlyArray<Workspace>>(event),
      loadError: null,
    }),
    assignLoadError: assign({
      loadError: ({ event }) => toFailure(errorOf(event), OtherMessages.loadWorkspacesFailed).message,
    }),
    clearLoadError: assign({ loadError: null }),
    assignQuery: assign({
      query: ({ event }) => {
        assertEvent(event, "search.changed")
        return event.query
      },
    }),
    assignSelecting: assign({
      selectingWorkspaceId: ({ event }) => {
        assertEvent(event, "workspace.selected")
        return event.workspaceId
      },
      selectionError: null,
    }),
    assignSelectionError: assign({
      selectionError: ({ event }) => toFailure(errorOf(event), OtherMessages.selectWorkspaceFailed).message,
      selectingWorkspaceId: null,
    }),
    markSelectedInContext: assign({
      store: ({ context }) =>
        context.selectingWorkspaceId === null ? context.store : selectWorkspace(context.store, context.selectingWorkspaceId, context.now()),
    }),
  },
}).createMachine({
  id: "workspaceSelection",
  context: ({ input }) => ({
    invitationToken: input.invitationToken != null && input.invitationToken.trim() !== "" ? input.invitationToken.trim() : null,
    workspaces: [],
    query: "",
    store: input.store,
    now: input.now,
    highlightedWorkspaceId: input.workspaceId ?? null,
    selectingWorkspaceId: null,
    loadError: null,
    selectionError: null,
  }),
  initial: "active",
  states: {
    /** Everything before the selection is made; signing out is possible throughout. */
    active: {
      initial: "arriving",
      on: {
        "signOut.requested": { target: "leaving", actions: "signOut" },
      },
      states: {
        arriving: {
          description: "The screen has just opened: with an invitation token it is accepted first, otherwise the workspaces load.",
          /** Accepts the route's invitation token first when there is one, else goes straight to loading the workspaces. */
          always: [{ guard: "hasInvitationToken", target: "acceptingInvitation" }, { target: "loading" }],
        },

        /** Access §2: "A route state may carry an invitation token, which is accepted on arrival." */
        acceptingInvitation: {
          invoke: {
            id: "acceptWorkspaceInvitation",
            src: "acceptWorkspaceInvitation",
            input: ({ context }) => ({ invitation_token: context.invitationToken ?? "" }),
            /** Accepted: the workspace is marked new, "You've been added to {name}" toasts for 5 s, the pending invitation is cleared and the list loads. */
            onDone: {
              target: "loading",
              actions: [
                "markAcceptedWorkspaceNew",
                {
                  type: "updateWorkspaceStore",
                  params: ({ context, event }) => ({
                    transition: (s: WorkspaceStore) => markNewlyAdded(s, event.output.data.workspace_id, context.now()),
                  }),
                },
                "clearPendingInvitation",
                {
                  type: "notify",
                  params: ({ event }) => ({
                    kind: "success",
                    message: addedToWorkspaceMessage(event.output.data.workspace_name),
                    durationMs: Toasts.addedToWorkspaceMs,
                  }),
                },
              ],
            },
            /** The acceptance failed: the error toasts ('Failed to accept workspace invitation' unless the server said more), the pending invitation is cleared and the list loads anyway. */
            onError: {
              target: "loading",
              actions: [
                "clearPendingInvitation",
                {
                  type: "notify",
                  params: ({ event }) => ({
                    kind: "error",
                    message: toFailure(event.error, OtherMessages.acceptWorkspaceInvitationFailed).message,
                  }),
                },
              ],
            },
          },
        },

        loading: {
          description: "The user's workspaces are being loaded (always asked again, since an invitation may just have added one).",
          invoke: {
            id: "loadWorkspaces",
            src: "loadWorkspaces",
            /** The workspaces arrived: the cards show them, or 'No workspaces available' when there are none. */
            onDone: [
              { guard: "hasNoWorkspaces", target: "empty", actions: "assignWorkspaces" },
              { target: "ready", actions: "assignWorkspaces" },
            ],
            /** The workspaces could not be loaded: 'Failed to load workspaces' with 'Try again'. */
            onError: { target: "failed", actions: "assignLoadError" },
          },
        },

        /** 'Failed to load workspaces' with 'Try again'. */
        failed: {
          on: { "workspaces.retried": { target: "loading", actions: "clearLoadError" } },
        },

        /** 'No workspaces available'. */
        empty: {
          on: { "workspaces.retried": "loading" },
        },

        ready: {
          description: "The workspace cards are shown (with 'New' badges, owner marker and last access).",
          initial: "browsing",
          states: {
            browsing: {
              description: "The user browses the cards, filtering them with the search box above 3 workspaces, and picks one.",
              on: {
                "search.changed": { actions: "assignQuery" },
                "workspace.selected": { guard: "isListedWorkspace", target: "switching", actions: "assignSelecting" },
              },
            },
            switching: {
              description: "The chosen workspace is being switched to on the server; its card shows the selection in progress.",
              invoke: {
                id: "switchWorkspace",
                src: "switchWorkspace",
                input: ({ context }) => ({ workspace_id: (context.selectingWorkspaceId ?? 0) as WorkspaceId }),
                /** Switched: the new tokens are stored, the workspace is selected and marked last accessed (clearing its 'New' badge), its name kept, then the user data is refreshed. */
                onDone: {
                  target: "refreshingUser",
                  actions: [
                    {
                      type: "storeTokens",
                      params: ({ event }) => ({ accessToken: event.output.access_token, refreshToken: event.output.refresh_token }),
                    },
                    "markSelectedInContext",
                    {
                      type: "updateWorkspaceStore",
                      params: ({ context }) => {
                        const id = context.selectingWorkspaceId ?? 0
                        const at = context.now()
                        return { transition: (s: WorkspaceStore) => selectWorkspace(s, id, at) }
                      },
                    },
                    {
                      type: "persistWorkspaceName",
                      params: ({ context, event }) => ({
                        name:
                          event.output.data?.workspace_name ??
                          context.workspaces.find((w) => w.workspace_id === context.selectingWorkspaceId)?.workspace_name ??
                          "",
                      }),
                    },
                  ],
                },
                /** The switch failed: back to the cards with 'Failed to select workspace' (or the server's 4xx message). */
                onError: { target: "browsing", actions: "assignSelectionError" },
              },
            },
            /** The switch succeeded; a failed user refresh does not undo it (the dashboard reloads the user anyway). */
            refreshingUser: {
              invoke: {
                id: "refreshUser",
                src: "refreshUser",
                /** The user data was refreshed: on to the dashboard. */
                onDone: { target: "#workspaceSelection.selected" },
                /** The user refresh failed: the switch still stands, on to the dashboard (it reloads the user anyway). */
                onError: { target: "#workspaceSelection.selected" },
              },
            },
          },
        },
      },
    },

    selected: {
      description: "A workspace was selected: the user is sent to /dashboard.",
      type: "final",
      entry: { type: "navigate", params: { to: AuthPaths.dashboard } },
    },

    leaving: { description: "The user signed out; the session's logout takes it from here.", type: "final" },
  },
})

// ---------------------------------------------------------------------------------------------------
// Selectors (views select narrowly)

type Snapshot = ReturnType<typeof workspaceSelectionMachine.transition>

/** The cards to show: the list filtered by the search text, with badge, owner marker and last access. */
export const selectWorkspaceCards = (snapshot: Pick<Snapshot, "context">): ReadonlyArray<WorkspaceCard> => {
  const { context } = snapshot
  const nowMs = context.now()
  const query = showWorkspaceSearch(context.workspaces.length) ? context.query : ""
  return filterWorkspaces(context.workspaces, query).map((workspace) => ({
    workspace,
    isNew: isNewWorkspace(context.store, workspace.workspace_id, nowMs),
    isOwner: workspace.is_owner,
    roleLabel: workspace.is_owner ? OWNER_LABEL : workspace.role,
    lastAccessedAt: context.store.lastAccessedWorkspaces[String(workspace.workspace_id)] ?? null,
    isHighlighted: context.highlightedWorkspaceId === workspace.workspace_id,
    isCurrent: context.store.selectedWorkspaceId === workspace.workspace_id,
  }))
}

/** Access §2/§9: the search box only above 3 workspaces. */
export const selectShowsSearch = (snapshot: Pick<Snapshot, "context">): boolean =>
  showWorkspaceSearch(snapshot.context.workspaces.length)

// ---------------------------------------------------------------------------------------------------
// Effects and their mapping onto the machine

/** What the screen needs from the outside world; main.tsx builds it from the services, tests from fakes. */
export interface WorkspaceSelectionEffects {
  readonly acceptWorkspaceInvitation: EffectCall<AcceptWorkspaceInvitationPayload, AcceptWorkspaceInvitationResponse>
  readonly loadWorkspaces: (signal?: AbortSignal) => Promise<ReadonlyArray<Workspace>>
  readonly switchWorkspace: EffectCall<SwitchWorkspacePayload, SwitchWorkspaceResponse>
  readonly refreshUser: (signal?: AbortSignal) => Promise<void>
  readonly storeTokens: (tokens: TokenPairParams) => void
  readonly persistWorkspaceName: (name: string) => void
  /** Applies a pure transition to the persisted `workspace-store`. */
  readonly updateWorkspaceStore: (transition: WorkspaceStoreTransition) => void
  /** The persisted `workspace-store` now. */
  readonly readWorkspaceStore: () => WorkspaceStore
  /** Removes `pending_workspace_invitation` / `pending_workspace_id` from session storage. */
  readonly clearPendingInvitation: () => void
  readonly signOut: () => void
  readonly now: () => number
}

/** `.provide()` argument built from the effects and the screen environment. */
export const workspaceSelectionImplementations = (effects: WorkspaceSelectionEffects, env: ScreenEnvironment) => ({
  actors: {
    acceptWorkspaceInvitation: fromPromise<AcceptWorkspaceInvitationResponse, AcceptWorkspaceInvitationPayload>(
      ({ input, signal }) => effects.acceptWorkspaceInvitation(input, signal),
    ),
    loadWorkspaces: fromPromise<ReadonlyArray<Workspace>>(({ signal }) => effects.loadWorkspaces(signal)),
    switchWorkspace: fromPromise<SwitchWorkspaceResponse, SwitchWorkspacePayload>(({ input, signal }) =>
      effects.switchWorkspace(input, signal),
    ),
    refreshUser: fromPromise<void>(({ signal }) => effects.refreshUser(signal)),
  },
  actions: {
    navigate: (_: unknown, params: NavigateParams) => env.navigate(params),
    notify: (_: unknown, params: ToastRequest) => env.notify(params),
    storeTokens: (_: unknown, tokens: TokenPairParams) => effects.storeTokens(tokens),
    persistWorkspaceName: (_: unknown, { name }: { readonly name: string }) => effects.persistWorkspaceName(name),
    updateWorkspaceStore: (_: unknown, { transition }: { readonly transition: WorkspaceStoreTransition }) =>
      effects.updateWorkspaceStore(transition),
    clearPendingInvitation: () => effects.clearPendingInvitation(),
    signOut: () => effects.signOut(),
  },
})

// ---------------------------------------------------------------------------------------------------
// The real effects, from the SPA services (built once in main.tsx)

export interface WorkspaceSelectionSessionHooks {
  /** Hands over to the session's logout. */
  readonly signOut: () => void
  /** Tells the session the user was reloaded (it refreshes its own copy). */
  readonly userRefreshed?: () => void
}

export const workspaceSelectionEffectsFromServices = (
  services: Pick<AppServices, "api" | "queries" | "cache" | "session" | "workspaceStore" | "pending" | "clock">,
  hooks: WorkspaceSelectionSessionHooks,
): WorkspaceSelectionEffects => ({
  acceptWorkspaceInvitation: (payload, signal) => services.api.acceptWorkspaceInvitation(payload, signal),
  // Always asked again: an invitation may just have added a workspace.
  loadWorkspaces: (signal) => {
    const q = services.queries.workspaces()
    return services.cache.refetch(q.key, q.fetch, signal)
  },
  switchWorkspace: (payload, signal) => services.api.switchWorkspace(payload, signal),
  refreshUser: async (signal) => {
    const q = services.queries.user()
    await services.cache.refetch(q.key, q.fetch, signal)
    hooks.userRefreshed?.()
  },
  storeTokens: (tokens) => services.session.writeTokens(tokens),
  persistWorkspaceName: (name) => services.session.writeWorkspaceName(name === "" ? null : name),
  updateWorkspaceStore: (transition) => void services.workspaceStore.update(transition),
  readWorkspaceStore: () => services.workspaceStore.getSnapshot(),
  clearPendingInvitation: () => services.pending.clear(),
  signOut: hooks.signOut,
  now: () => services.clock.now(),
})
