/**
 * Renders the whole SPA at a workspace, invitation or dashboard route with fake effects for those screens (every call
 * recorded and answered by the test), an in-memory location, history state, a session status and one simulated clock
 * shared by the toasts and the screens' timers.
 */
import { act, render } from "@testing-library/react"
import type { ReactNode } from "react"
import { memoryLocation } from "wouter/memory-location"
import { SimulatedClock } from "xstate"
import { emptyWorkspaceStore, type WorkspaceStore } from "../../src/contracts/workspaces.ts"
import type { InvitationEffects } from "../../src/machines/invitation-effects.ts"
import type { WorkspaceStoreTransition } from "../../src/machines/screen-environment.ts"
import type { ShellData, ShellEffects } from "../../src/machines/shell.machine.ts"
import type { WorkspaceSelectionEffects } from "../../src/machines/workspace-selection.machine.ts"
import { App } from "../../src/views/app.tsx"
import { AuthEffectsProvider, UNWIRED_AUTH_EFFECTS } from "../../src/views/access/auth-effects-context.tsx"
import { InvitationEffectsProvider } from "../../src/views/access/invitation-effects-context.tsx"
import { ShellEffectsProvider } from "../../src/views/layouts/shell-effects-context.tsx"
import { SessionStatusContext, type SessionStatus } from "../../src/views/session-status.tsx"
import { WorkspaceSelectionEffectsProvider } from "../../src/views/workspaces/workspace-effects-context.tsx"
import { deferred, flush, type Deferred } from "../machines/auth-fakes.ts"
import { preloadScreens } from "../../src/views/routes.tsx"

// Every screen but sign-in loads lazily; fetched up front, rendering a route is synchronous as in a warm browser.
await preloadScreens()

/** A recorded call that waits for the test: `resolve` / `reject` answer the oldest open one. */
const pendingCalls = <P, A>() => {
  const calls: P[] = []
  const open: Deferred<A>[] = []
  const fn = (payload: P): Promise<A> => {
    calls.push(payload)
    const d = deferred<A>()
    open.push(d)
    return d.promise
  }
  const settle = async (apply: (d: Deferred<A>) => void) => {
    const next = open.shift()
    if (next === undefined) throw new Error("no open call")
    await act(async () => {
      apply(next)
      await flush()
    })
  }
  return {
    fn,
    calls,
    resolve: (value: A) => settle((d) => d.resolve(value)),
    reject: (error: unknown) => settle((d) => d.reject(error)),
  }
}

export const T0 = Date.parse("2025-03-01T10:00:00.000Z")

export const fakeWorkspaceEffects = (store: WorkspaceStore = emptyWorkspaceStore) => {
  const accept = pendingCalls<unknown, Awaited<ReturnType<WorkspaceSelectionEffects["acceptWorkspaceInvitation"]>>>()
  const load = pendingCalls<unknown, Awaited<ReturnType<WorkspaceSelectionEffects["loadWorkspaces"]>>>()
  const switchWs = pendingCalls<unknown, Awaited<ReturnType<WorkspaceSelectionEffects["switchWorkspace"]>>>()
  const refreshUser = pendingCalls<unknown, void>()
  const log = { tokens: [] as unknown[], names: [] as string[], transitions: [] as WorkspaceStoreTransition[], pendingCleared: 0, signOuts: 0 }
  const effects: WorkspaceSelectionEffects = {
    acceptWorkspaceInvitation: accept.fn,
    loadWorkspaces: () => load.fn(undefined),
    switchWorkspace: switchWs.fn,
    refreshUser: () => refreshUser.fn(undefined),
    storeTokens: (t) => void log.tokens.push(t),
    persistWorkspaceName: (n) => void log.names.push(n),
    updateWorkspaceStore: (t) => void log.transitions.push(t),
    readWorkspaceStore: () => store,
    clearPendingInvitation: () => void (log.pendingCleared += 1),
    signOut: () => void (log.signOuts += 1),
    now: () => T0,
  }
  return { effects, accept, load, switchWs, refreshUser, log }
}

export const fakeInvitationEffects = () => {
  const check = pendingCalls<{ readonly token: string }, Awaited<ReturnType<InvitationEffects["checkInvitation"]>>>()
  const accept = pendingCalls<unknown, Awaited<ReturnType<InvitationEffects["acceptInvitation"]>>>()
  const complete = pendingCalls<unknown, Awaited<ReturnType<InvitationEffects["completeInvitation"]>>>()
  const startSession = pendingCalls<unknown, void>()
  const transitions: WorkspaceStoreTransition[] = []
  const effects: InvitationEffects = {
    checkInvitation: check.fn,
    acceptInvitation: accept.fn,
    completeInvitation: complete.fn,
    startSession: startSession.fn,
    updateWorkspaceStore: (t) => void transitions.push(t),
    now: () => T0,
  }
  return { effects, check, accept, complete, startSession, transitions }
}

export const fakeShellEffects = () => {
  const load = pendingCalls<unknown, ShellData>()
  let signOuts = 0
  let changed: (() => void) | undefined
  const effects: ShellEffects = {
    loadShell: () => load.fn(undefined),
    watchShellData: (onChange) => {
      changed = onChange
      return () => {
        changed = undefined
      }
    },
    signOut: () => void (signOuts += 1),
  }
  return {
    effects,
    load,
    signOuts: () => signOuts,
    change: () => act(() => changed?.()),
  }
}

export interface RenderAccessOptions {
  readonly status?: SessionStatus
  /** History state left by the previous screen. */
  readonly state?: unknown
  readonly workspace?: ReturnType<typeof fakeWorkspaceEffects>
  readonly invitation?: ReturnType<typeof fakeInvitationEffects>
  readonly shell?: ReturnType<typeof fakeShellEffects>
  readonly children?: ReactNode
}

export const renderAccess = (path: string, options: RenderAccessOptions = {}) => {
  const workspace = options.workspace ?? fakeWorkspaceEffects()
  const invitation = options.invitation ?? fakeInvitationEffects()
  const shell = options.shell ?? fakeShellEffects()
  window.history.replaceState(options.state ?? null, "")
  const location = memoryLocation({ path, record: true })
  const clock = new SimulatedClock()
  const result = render(
    <SessionStatusContext value={options.status ?? "authenticated"}>
      <AuthEffectsProvider effects={UNWIRED_AUTH_EFFECTS} clock={clock}>
        <WorkspaceSelectionEffectsProvider effects={workspace.effects}>
          <InvitationEffectsProvider effects={invitation.effects}>
            <ShellEffectsProvider effects={shell.effects}>
              <App clock={clock} location={location}>
                {options.children}
              </App>
            </ShellEffectsProvider>
          </InvitationEffectsProvider>
        </WorkspaceSelectionEffectsProvider>
      </AuthEffectsProvider>
    </SessionStatusContext>,
  )
  const currentPath = () => (location.history.at(-1) ?? "").split("?")[0]
  const currentUrl = () => location.history.at(-1) ?? ""
  const tick = (ms: number) => act(() => clock.increment(ms))
  return { ...result, location, clock, currentPath, currentUrl, tick, workspace, invitation, shell }
}
