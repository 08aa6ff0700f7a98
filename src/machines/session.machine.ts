/**
 * Session: who is signed in, in which workspace, and every transition between those facts
 * (access spec §3 "User session data", §4 "Sign-in", "Logout", "Failed token refresh", "Workspace selection").
 *
 * Events accepted:
 * - `session.signedIn` { accessToken, refreshToken, email?, returnTo? } — a flow obtained tokens (login,
 *   invitation sign-up): store them, fetch the user, fetch the workspaces, then auto-select the only workspace
 *   (switch call, selected + last accessed, → /dashboard or `returnTo`) or go to /workspace-selection carrying
 *   the pending invitation token and workspace id held in session storage. While already signed in (invitation
 *   accepted), the new tokens replace the old ones, the user is reloaded and the flow's `returnTo` follows.
 * - `session.workspaceSelectionRequested` { workspaceId, workspaceName? } — switch workspace: tokens stored,
 *   workspace selected and last accessed, user refreshed, → /dashboard. A failure stays in `selectionError`.
 * - `session.userRefreshRequested` — reload the user quietly (after a profile update).
 * - `session.retryRequested` — retry loading the user after a failure that was not an auth failure.
 * - `session.logoutRequested` — POST /api/logout (bounded wait), then clear tokens, query cache and workspace
 *   data and go to /login, whether or not the call succeeded.
 * - `session.expired` { error? } — the refresh failed: clear everything, → /login with 'Your session has expired.
 *   Please sign in again.' and the error flag.
 * - `session.tokensChanged` / `session.signedOutElsewhere` — other tabs (storage events) and this tab's API
 *   client, through the `watchSessionSignals` actor, keep all tabs coherent.
 * - `xstate.done.actor.fetchUser` — the user call answered: the user is kept (and their email persisted); during sign-in the workspaces load next, after a switch the dashboard opens, after adopting new tokens the flow's destination follows, otherwise the session is ready.
 * - `xstate.error.actor.fetchUser` — the user call failed: during sign-in the session is cleared and nobody is signed in; a refused session (401) expires; otherwise restoring waits in `unavailable` for a retry, and a quiet reload, adoption or switch keeps the session usable.
 * - `xstate.done.actor.loadWorkspaces` — the workspaces arrived during sign-in: one is selected automatically or the user chooses on /workspace-selection.
 * - `xstate.done.actor.switchWorkspace` — the switch call answered: tokens stored, workspace selected and last accessed; then the dashboard (or `returnTo`) after an auto-selection, or a user refresh and then the dashboard after a requested switch.
 * - `xstate.error.actor.switchWorkspace` — the switch failed: the error is kept in `selectionError`; an auto-selection falls back to /workspace-selection.
 * - `xstate.done.actor.logout` / `xstate.error.actor.logout` — POST /api/logout answered (or failed): tokens, query cache and workspace data are cleared and the user goes to /login either way.
 * - `xstate.after.logoutGrace.session.signingOut` — the logout call took longer than 5 s: sign-out finishes without waiting for it.
 *
 * Effects are named in `setup`: actors `fetchUser`, `loadWorkspaces`, `switchWorkspace`, `logout`,
 * `watchSessionSignals`; environment actions `navigate`, `persistTokens`, `persistUserEmail`,
 * `persistWorkspaceName`, `markWorkspaceSelected`, `clearStoredSession`, `clearQueryCache`,
 * `clearWorkspaceData`, `assignPendingInvitation`. The defaults do nothing (or fail, for actors);
 * `sessionMachineWith(services)` supplies them from the SPA services and the React boundary supplies
 * `navigate`. Tokens are never kept in context: storage is the single source of truth the API client reads.
 */
import { assertEvent, assign, fromCallback, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from "xstate"
import type { User } from "../contracts/auth.ts"
import { RefreshMessages } from "../contracts/messages.ts"
import type { Workspace } from "../contracts/workspaces.ts"
import type { ApiError, Clock } from "../services/api-client.ts"
import { accessQueries, type AuthApi } from "../services/auth-api.ts"
import type { QueryCache } from "../services/query-cache.ts"
import type { SessionSignalSource } from "../services/session-signals.ts"
import {
  clearWorkspaceData,
  selectWorkspace,
  type PendingInvitationStorage,
  type PendingInvitation,
  type SessionStorage,
  type StoredSession,
  type TokenPair,
  type WorkspaceStore,
} from "../services/storage.ts"
import { safeReturnPath, type NavigationRequest } from "./navigation.ts"

// ---------------------------------------------------------------------------------------------------
// Types

export interface SessionInput {
  /** What storage held when the app started (only the presence of the access token decides). */
  readonly stored: Pick<StoredSession, "accessToken" | "userEmail" | "workspaceName">
}

export interface SessionContext {
  readonly hasStoredSession: boolean
  readonly user: User | null
  readonly userEmail: string | null
  readonly workspaceName: string | null
  /** The list loaded at sign-in (the workspace gate and screens read the query cache). */
  readonly workspaces: ReadonlyArray<Workspace> | null
  readonly pendingInvitation: PendingInvitation | null
  /** Where to go after an automatic workspace selection (a safe in-app path), else /dashboard. */
  readonly returnTo: string | null
  readonly requestedWorkspace: { readonly id: number; readonly name: string | null } | null
  /** Sign-in or user-load failure. */
  readonly error: ApiError | null
  /** Last failed workspace switch ('Failed to select workspace' unless the server said more). */
  readonly selectionError: ApiError | null
}

export type SessionEvent =
  | {
      readonly type: "session.signedIn"
      readonly accessToken: string
      readonly refreshToken: string
      readonly email?: string
      readonly returnTo?: string
    }
  | { readonly type: "session.workspaceSelectionRequested"; readonly workspaceId: number; readonly workspaceName?: string }
  | { readonly type: "session.userRefreshRequested" }
  | { readonly type: "session.retryRequested" }
  | { readonly type: "session.logoutRequested" }
  | { readonly type: "session.expired"; readonly error?: ApiError }
  | { readonly type: "session.tokensChanged" }
  | { readonly type: "session.signedOutElsewhere" }

export interface SwitchOutcome {
  readonly tokens: TokenPair
  readonly workspaceName: string | null
}

const notProvided = (name: string) => () => Promise.reject(new Error(`session: actor "${name}" is not provided`))

const initialContext = (input: SessionInput): SessionContext => ({
  hasStoredSession: input.stored.accessToken !== null,
  user: null,
  userEmail: input.stored.userEmail,
  workspaceName: input.stored.workspaceName,
  workspaces: null,
  pendingInvitation: null,
  returnTo: null,
  requestedWorkspace: null,
  error: null,
  selectionError: null,
})

const signedOutContext: Partial<SessionContext> = {
  hasStoredSession: false,
  user: null,
  userEmail: null,
  workspaceName: null,
  workspaces: null,
  pendingInvitation: null,
  returnTo: null,
  requestedWorkspace: null,
  selectionError: null,
}

const errorOf = (event: { readonly error?: unknown }): ApiError | null => {
  const e = event.error
  return typeof e === "object" && e !== null && "type" in e && "message" in e ? (e as ApiError) : null
}

// ---------------------------------------------------------------------------------------------------
// Action sequences used on several transitions (each item is a named action of the machine).

const toWorkspaceSelection = {
  type: "navigate",
  params: ({ context }: { readonly context: SessionContext }): NavigationRequest => ({
    to: "/workspace-selection",
    state: {
      ...(context.pendingInvitation === null ? {} : { invitationToken: context.pendingInvitation.token }),
      ...(context.pendingInvitation?.workspaceId == null ? {} : { workspaceId: context.pendingInvitation.workspaceId }),
    },
  }),
} as const

const toReturnPath = {
  type: "navigate",
  params: ({ context }: { readonly context: SessionContext }): NavigationRequest => ({ to: context.returnTo ?? "/dashboard" }),
} as const

/** Access §4: tokens stored, workspace marked selected and last accessed, its name kept. */
const completeWorkspaceSwitch = [
  {
    type: "persistTokens",
    params: ({ event }: { readonly event: unknown }): TokenPair => (event as { output: SwitchOutcome }).output.tokens,
  },
  {
    type: "markWorkspaceSelected",
    params: ({ context }: { readonly context: SessionContext }) => ({ workspaceId: context.requestedWorkspace?.id ?? 0 }),
  },
  "assignSwitchedWorkspace",
  {
    type: "persistWorkspaceName",
    params: ({ context }: { readonly context: SessionContext }) => ({ name: context.workspaceName }),
  },
] as const

/** Logout (and any end of session decided here): clear tokens, cache and workspace data, then /login. */
const endSession = [
  "clearStoredSession",
  "clearQueryCache",
  "clearWorkspaceData",
  "resetSession",
  { type: "navigate", params: { to: "/login", replace: true } },
] as const

/** Access §4: a failed refresh clears everything and sends the user to /login with the message and error flag. */
const expireSession = [
  "clearStoredSession",
  "clearQueryCache",
  "clearWorkspaceData",
  "resetSession",
  {
    type: "navigate",
    params: { to: "/login", replace: true, state: { message: RefreshMessages.sessionExpired, error: true } },
  },
] as const

/** Another tab ended the session: storage is already cleared there; drop this tab's cache and leave. */
const endSessionElsewhere = [
  "clearQueryCache",
  "resetSession",
  { type: "navigate", params: { to: "/login", replace: true } },
] as const

// ---------------------------------------------------------------------------------------------------
// Machine

export const sessionMachine = setup({
  types: {
    context: {} as SessionContext,
    events: {} as SessionEvent,
    input: {} as SessionInput,
  },
  actors: {
    /** Loads the signed-in user. */
    fetchUser: fromPromise<User>(notProvided("fetchUser")),
    /** Loads the user's workspaces. */
    loadWorkspaces: fromPromise<ReadonlyArray<Workspace>>(notProvided("loadWorkspaces")),
    /** Switches to a workspace, which answers with new tokens. */
    switchWorkspace: fromPromise<SwitchOutcome, { readonly workspaceId: number }>(notProvided("switchWorkspace")),
    /** POST /api/logout (best effort). */
    logout: fromPromise<void>(notProvided("logout")),
    /** Sends `session.tokensChanged`, `session.signedOutElsewhere` and `session.expired`. */
    watchSessionSignals: fromCallback(() => () => {}),
  },
  delays: {
    /** How long sign-out waits for POST /api/logout before leaving anyway (the call is best effort). */
    logoutGrace: 5000,
  },
  guards: {
    /** An access token is stored from an earlier visit. */
    hasStoredSession: ({ context }) => context.hasStoredSession,
    /** Exactly one workspace and no invitation waiting to be accepted on the selection screen. */
    shouldAutoSelect: ({ context }) => context.workspaces?.length === 1 && context.pendingInvitation === null,
    /** The user call was refused (401) after the client's refresh attempt: the session is gone. */
    isSessionRefused: ({ event }) => errorOf(event as { error?: unknown })?.status === 401,
  },
  actions: {
    // environment (supplied with .provide())
    navigate: (_, _params: NavigationRequest) => {},
    persistTokens: (_, _params: TokenPair) => {},
    persistUserEmail: (_, _params: { readonly email: string | null }) => {},
    persistWorkspaceName: (_, _params: { readonly name: string | null }) => {},
    markWorkspaceSelected: (_, _params: { readonly workspaceId: number }) => {},
    clearStoredSession: () => {},
    clearQueryCache: () => {},
    clearWorkspaceData: () => {},
    /** Reads `pending_workspace_invitation` / `pending_workspace_id` from session storage. */
    assignPendingInvitation: assign({ pendingInvitation: null }),
    // context
    assignSignIn: assign(({ event }) => {
      assertEvent(event, "session.signedIn")
      return {
        ...signedOutContext,
        hasStoredSession: true,
        userEmail: event.email ?? null,
        returnTo: safeReturnPath(event.returnTo) ?? null,
        error: null,
      }
    }),
    assignAdoptedSession: assign(({ event }) => {
      assertEvent(event, "session.signedIn")
      return { returnTo: safeReturnPath(event.returnTo) ?? null, error: null, selectionError: null }
    }),
    assignStoredSession: assign({ hasStoredSession: true, error: null }),
    assignUser: assign(({ event }) => {
      const user = (event as unknown as { output: User }).output
      return { user, userEmail: user.email, error: null }
    }),
    assignWorkspaces: assign({
      workspaces: ({ event }) => (event as unknown as { output: ReadonlyArray<Workspace> }).output,
    }),
    assignRequestedWorkspace: assign({
      requestedWorkspace: ({ event }) => {
        assertEvent(event, "session.workspaceSelectionRequested")
        return { id: event.workspaceId, name: event.workspaceName ?? null }
      },
      selectionError: null,
    }),
    assignOnlyWorkspace: assign({
      requestedWorkspace: ({ context }) => {
        const only = context.workspaces?.[0]
        return only === undefined ? null : { id: only.workspace_id, name: only.workspace_name }
      },
    }),
    assignSwitchedWorkspace: assign(({ context, event }) => {
      const out = (event as unknown as { output: SwitchOutcome }).output
      return { workspaceName: out.workspaceName ?? context.requestedWorkspace?.name ?? null, selectionError: null }
    }),
    assignError: assign({ error: ({ event }) => errorOf(event as { error?: unknown }) }),
    assignSelectionError: assign({ selectionError: ({ event }) => errorOf(event as { error?: unknown }) }),
    resetSession: assign({ ...signedOutContext, error: null }),
  },
}).createMachine({
  id: "session",
  context: ({ input }) => initialContext(input),
  invoke: { id: "signals", src: "watchSessionSignals" },
  initial: "restoring",
  states: {
    /** Start-up: a stored access token means someone may be signed in; the user call settles it. */
    restoring: {
      /** A stored session is checked by loading the user; without one nobody is signed in. */
      always: [{ guard: "hasStoredSession", target: "authenticated.loadingUser" }, { target: "signedOut" }],
    },

    signedOut: {
      description: "Nobody is signed in in this tab: the public pages show; a sign-in here or in another tab starts a session.",
      on: {
        "session.signedIn": {
          target: "signingIn",
          actions: [
            "assignSignIn",
            { type: "persistTokens", params: ({ event }) => ({ accessToken: event.accessToken, refreshToken: event.refreshToken }) },
          ],
        },
        /** Another tab signed in. */
        "session.tokensChanged": { target: "authenticated.loadingUser", actions: "assignStoredSession" },
      },
    },

    /** Access §4 sign-in: tokens stored → user → workspaces → auto-select or /workspace-selection. */
    signingIn: {
      initial: "loadingUser",
      states: {
        loadingUser: {
          description: "Tokens are stored; the signed-in user is being loaded.",
          invoke: {
            id: "fetchUser",
            src: "fetchUser",
            onDone: {
              target: "loadingWorkspaces",
              actions: ["assignUser", { type: "persistUserEmail", params: ({ event }) => ({ email: event.output.email }) }],
            },
            onError: {
              target: "#session.signedOut",
              actions: ["clearStoredSession", "clearQueryCache", "resetSession", "assignError"],
            },
          },
        },
        loadingWorkspaces: {
          description: "The user is known; their workspaces are being loaded.",
          invoke: {
            id: "loadWorkspaces",
            src: "loadWorkspaces",
            onDone: { target: "choosingWorkspace", actions: ["assignWorkspaces", "assignPendingInvitation"] },
            // The selection screen shows 'Failed to load workspaces' with 'Try again'.
            onError: {
              target: "#session.authenticated.ready",
              actions: ["assignPendingInvitation", toWorkspaceSelection],
            },
          },
        },
        choosingWorkspace: {
          description: "The workspaces are in: exactly one and no invitation waiting goes on to autoSelecting, otherwise /workspace-selection.",
          /** Selects automatically when there is exactly one workspace and no invitation waits to be accepted; otherwise hands over to /workspace-selection. */
          always: [
            { guard: "shouldAutoSelect", target: "autoSelecting", actions: "assignOnlyWorkspace" },
            { target: "#session.authenticated.ready", actions: toWorkspaceSelection },
          ],
        },
        autoSelecting: {
          description: "The only workspace is selected automatically before the dashboard (or `returnTo`) opens.",
          invoke: {
            id: "switchWorkspace",
            src: "switchWorkspace",
            input: ({ context }) => ({ workspaceId: context.requestedWorkspace?.id ?? 0 }),
            onDone: {
              target: "#session.authenticated.ready",
              actions: [...completeWorkspaceSwitch, toReturnPath],
            },
            onError: {
              target: "#session.authenticated.ready",
              actions: ["assignSelectionError", "assignPendingInvitation", toWorkspaceSelection],
            },
          },
        },
      },
      on: {
        "session.expired": { target: "signedOut", actions: [...expireSession] },
        "session.signedOutElsewhere": { target: "signedOut", actions: [...endSessionElsewhere] },
        "session.logoutRequested": "signingOut",
      },
    },

    authenticated: {
      description: "Someone is signed in: the user is known (or being loaded) and workspace switches run here.",
      initial: "ready",
      states: {
        /** Restoring a stored session (or another tab's): the user call decides. */
        loadingUser: {
          invoke: {
            id: "fetchUser",
            src: "fetchUser",
            onDone: {
              target: "ready",
              actions: ["assignUser", { type: "persistUserEmail", params: ({ event }) => ({ email: event.output.email }) }],
            },
            onError: [
              { guard: "isSessionRefused", target: "#session.signedOut", actions: [...expireSession] },
              { target: "unavailable", actions: "assignError" },
            ],
          },
        },
        /** The user could not be loaded (network, server): the gate offers a retry. */
        unavailable: {
          on: { "session.retryRequested": "loadingUser" },
        },
        ready: { description: "The session is usable: the gates let the signed-in pages render." },
        /** A quiet reload (after a profile update): the session stays usable meanwhile. */
        reloadingUser: {
          invoke: {
            id: "fetchUser",
            src: "fetchUser",
            onDone: {
              target: "ready",
              actions: ["assignUser", { type: "persistUserEmail", params: ({ event }) => ({ email: event.output.email }) }],
            },
            onError: { target: "ready", actions: "assignError" },
          },
        },
        switchingWorkspace: {
          description: "A workspace switch was asked for: the switch call runs and new tokens are stored.",
          invoke: {
            id: "switchWorkspace",
            src: "switchWorkspace",
            input: ({ context }) => ({ workspaceId: context.requestedWorkspace?.id ?? 0 }),
            onDone: { target: "finishingSwitch", actions: [...completeWorkspaceSwitch] },
            onError: { target: "ready", actions: "assignSelectionError" },
          },
        },
        /**
         * Tokens obtained while signed in (accepting an invitation, or an invitation sign-up in a signed-in tab):
         * they replace the stored ones, the cache is dropped (they may belong to another user), the user is
         * reloaded, then `returnTo` (the flow's destination) or /dashboard. A selection the new user cannot use is
         * cleared by the workspace gate.
         */
        adoptingSession: {
          invoke: {
            id: "fetchUser",
            src: "fetchUser",
            onDone: {
              target: "ready",
              actions: ["assignUser", { type: "persistUserEmail", params: ({ event }) => ({ email: event.output.email }) }, toReturnPath],
            },
            onError: [
              { guard: "isSessionRefused", target: "#session.signedOut", actions: [...expireSession] },
              { target: "ready", actions: ["assignError", toReturnPath] },
            ],
          },
        },
        /** Access §4: after selecting, the user data is refreshed, then /dashboard. */
        finishingSwitch: {
          invoke: {
            id: "fetchUser",
            src: "fetchUser",
            onDone: {
              target: "ready",
              actions: [
                "assignUser",
                { type: "persistUserEmail", params: ({ event }) => ({ email: event.output.email }) },
                { type: "navigate", params: { to: "/dashboard" } },
              ],
            },
            onError: { target: "ready", actions: { type: "navigate", params: { to: "/dashboard" } } },
          },
        },
      },
      on: {
        "session.signedIn": {
          target: ".adoptingSession",
          actions: [
            "clearQueryCache",
            "assignAdoptedSession",
            { type: "persistTokens", params: ({ event }) => ({ accessToken: event.accessToken, refreshToken: event.refreshToken }) },
          ],
        },
        "session.workspaceSelectionRequested": { target: ".switchingWorkspace", actions: "assignRequestedWorkspace" },
        "session.userRefreshRequested": ".reloadingUser",
        "session.logoutRequested": "signingOut",
        "session.expired": { target: "signedOut", actions: [...expireSession] },
        "session.signedOutElsewhere": { target: "signedOut", actions: [...endSessionElsewhere] },
      },
    },

    /** Access §4 logout: best-effort call, then everything is cleared and the user goes to /login. */
    signingOut: {
      invoke: {
        id: "logout",
        src: "logout",
        onDone: { target: "signedOut", actions: [...endSession] },
        onError: { target: "signedOut", actions: [...endSession] },
      },
      after: {
        logoutGrace: { target: "signedOut", actions: [...endSession] },
      },
      on: {
        "session.signedOutElsewhere": { target: "signedOut", actions: [...endSessionElsewhere] },
        "session.expired": { target: "signedOut", actions: [...endSession] },
      },
    },
  },
})


// ---------------------------------------------------------------------------------------------------
// Implementations from the SPA services (the React boundary adds `navigate`).

export interface SessionServices {
  readonly api: Pick<AuthApi, "userInfo" | "workspaces" | "switchWorkspace" | "logout">
  readonly cache: QueryCache
  readonly session: SessionStorage
  readonly pending: PendingInvitationStorage
  readonly workspaceStore: WorkspaceStore
  readonly clock: Pick<Clock, "now">
  readonly signals: SessionSignalSource
}

/**
 * The session machine with every effect but `navigate` supplied from the SPA services. The React boundary adds
 * navigation: `sessionMachineWith(services).provide({ actions: { navigate: (_, { to, state, replace }) =>
 * navigate(to, { state, replace }) } })`.
 */
export const sessionMachineWith = (services: SessionServices) => {
  const queries = accessQueries(services.api as AuthApi)
  return sessionMachine.provide({
    actors: {
      // The sign-in and restore paths always ask the server (refetch); other readers share the cached answer.
      fetchUser: fromPromise<User>(({ signal }) => {
        const q = queries.user()
        return services.cache.refetch(q.key, q.fetch, signal)
      }),
      loadWorkspaces: fromPromise<ReadonlyArray<Workspace>>(({ signal }) => {
        const q = queries.workspaces()
        return services.cache.refetch(q.key, q.fetch, signal)
      }),
      switchWorkspace: fromPromise<SwitchOutcome, { readonly workspaceId: number }>(async ({ input, signal }) => {
        const r = await services.api.switchWorkspace({ workspace_id: input.workspaceId as never }, signal)
        return {
          tokens: { accessToken: r.access_token, refreshToken: r.refresh_token },
          workspaceName: r.data?.workspace_name ?? null,
        }
      }),
      logout: fromPromise<void>(async ({ signal }) => {
        const refreshToken = services.session.read().refreshToken
        if (refreshToken !== null) await services.api.logout({ refresh_token: refreshToken }, signal)
      }),
      watchSessionSignals: fromCallback(({ sendBack }) =>
        services.signals((signal) => {
          switch (signal.type) {
            case "tokens-changed":
              return sendBack({ type: "session.tokensChanged" })
            case "signed-out-elsewhere":
              return sendBack({ type: "session.signedOutElsewhere" })
            case "refresh-failed":
              return sendBack({ type: "session.expired", error: signal.error })
          }
        }),
      ),
    },
    actions: {
      persistTokens: (_, tokens) => services.session.writeTokens(tokens),
      persistUserEmail: (_, { email }) => services.session.writeUserEmail(email),
      persistWorkspaceName: (_, { name }) => services.session.writeWorkspaceName(name),
      markWorkspaceSelected: (_, { workspaceId }) =>
        void services.workspaceStore.update((s) => selectWorkspace(s, workspaceId, services.clock.now())),
      clearStoredSession: () => services.session.clear(),
      clearQueryCache: () => services.cache.clear(),
      clearWorkspaceData: () => void services.workspaceStore.update(clearWorkspaceData),
      assignPendingInvitation: assign({ pendingInvitation: () => services.pending.read() }),
    },
  })
}

// ---------------------------------------------------------------------------------------------------
// Selectors (views and gates select narrowly)

export type SessionActor = ActorRefFrom<typeof sessionMachine>
export type SessionSnapshot = SnapshotFrom<typeof sessionMachine>

// The selectors live in their own module: the route gates read them on the first page load, before this machine
// (and the API client it is built with) has arrived.
export {
  selectIsSwitchingWorkspace,
  selectSelectionError,
  selectSessionError,
  selectSessionStatus,
  selectUser,
  type SessionGateStatus,
} from "./session-selectors.ts"
