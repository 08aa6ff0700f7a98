/**
 * Where the route gates learn who is signed in: the session actor (src/machines/session.machine.ts), created once by
 * the composition root and handed to `<SessionProvider actor={...}>`. The provider selects the gate status narrowly
 * (`selectSessionStatus`: its seven values) and exposes the few commands the gates and screens send to the session
 * (retry after an unavailable user, sign out).
 *
 * Without a provider (view tests of single screens) the status comes from `SessionStatusContext` alone (default
 * "unauthenticated"), so tests can render `<SessionStatusContext value="authenticated">` and the commands do nothing.
 */
import { createContext, useCallback, useContext, useMemo, useSyncExternalStore, type ReactNode } from "react"
import { selectSessionError, selectSessionStatus, type SessionGateStatus } from "../machines/session-selectors.ts"
import type { SessionActor, SessionSnapshot } from "../machines/session.machine.ts"

/**
 * The session as the gates see it: `loading` ('Authenticating...'), `signing-in`, `unauthenticated`, `unverified`,
 * `authenticated`, `unavailable` (the user could not be loaded: error with Retry), `signing-out`.
 */
export type SessionStatus = SessionGateStatus

export const SessionStatusContext = createContext<SessionStatus>("unauthenticated")

/**
 * Whether the composition (session, API client, every screen family) has arrived: false only during the first page
 * load (`DeferredComposition`), true for a composition given whole and in tests of single screens.
 */
export const CompositionReadyContext = createContext<boolean>(true)

export function useCompositionReady(): boolean {
  return useContext(CompositionReadyContext)
}

export function useSessionStatus(): SessionStatus {
  return useContext(SessionStatusContext)
}

export interface SessionCommands {
  /** After `unavailable`: load the user again. */
  readonly retry: () => void
  /** Sign out (the session clears everything and goes to /login even if the call fails). */
  readonly logout: () => void
}

const NO_COMMANDS: SessionCommands = { retry: () => {}, logout: () => {} }

const SessionCommandsContext = createContext<SessionCommands>(NO_COMMANDS)
const SessionErrorContext = createContext<string | null>(null)

export function useSessionCommands(): SessionCommands {
  return useContext(SessionCommandsContext)
}

/** Why the user could not be loaded (status `unavailable`), or null. */
export function useSessionErrorMessage(): string | null {
  return useContext(SessionErrorContext)
}

const selectErrorMessage = (snapshot: SessionSnapshot): string | null => selectSessionError(snapshot)?.message ?? null

/** A primitive read from the session actor, or `fallback` while there is no actor yet. */
function useSessionValue<T extends string | null>(
  actor: SessionActor | null,
  select: (snapshot: SessionSnapshot) => T,
  fallback: T,
): T {
  const subscribe = useCallback(
    (onChange: () => void) => {
      if (actor === null) return () => {}
      const subscription = actor.subscribe(onChange)
      return () => subscription.unsubscribe()
    },
    [actor],
  )
  const read = () => (actor === null ? fallback : select(actor.getSnapshot()))
  return useSyncExternalStore(subscribe, read, read)
}

export interface SessionProviderProps {
  /** The running session; null while the first page load has not brought it yet (see `CompositionProvider`). */
  readonly actor: SessionActor | null
  /** The status the gates see while `actor` is null. */
  readonly pendingStatus?: SessionStatus
  readonly children: ReactNode
}

export function SessionProvider({ actor, pendingStatus = "loading", children }: SessionProviderProps) {
  const status = useSessionValue(actor, selectSessionStatus, pendingStatus)
  const errorMessage = useSessionValue(actor, selectErrorMessage, null)
  const commands = useMemo<SessionCommands>(
    () =>
      actor === null
        ? NO_COMMANDS
        : {
            retry: () => actor.send({ type: "session.retryRequested" }),
            logout: () => actor.send({ type: "session.logoutRequested" }),
          },
    [actor],
  )
  return (
    <SessionCommandsContext value={commands}>
      <SessionErrorContext value={errorMessage}>
        <SessionStatusContext value={status}>{children}</SessionStatusContext>
      </SessionErrorContext>
    </SessionCommandsContext>
  )
}
