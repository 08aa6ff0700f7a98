/**
 * Where the route gates learn who is signed in: the session actor (src/machines/session.machine.ts), created once by
 * the composition root and handed to `<SessionProvider actor={...}>`. The provider selects the gate status narrowly
 * (`selectSessionStatus`: its seven values) and exposes the few commands the gates and screens send to the session
 * (retry after an unavailable user, sign out).
 *
 * Without a provider (view tests of single screens) the status comes from `SessionStatusContext` alone (default
 * "unauthenticated"), so tests can render `<SessionStatusContext value="authenticated">` and the commands do nothing.
 */
import { createContext, useContext, useMemo, type ReactNode } from "react"
import { useSelector } from "@xstate/react"
import {
  selectSessionError,
  selectSessionStatus,
  type SessionActor,
  type SessionGateStatus,
} from "../machines/session.machine.ts"

/**
 * The session as the gates see it: `loading` ('Authenticating...'), `signing-in`, `unauthenticated`, `unverified`,
 * `authenticated`, `unavailable` (the user could not be loaded: error with Retry), `signing-out`.
 */
export type SessionStatus = SessionGateStatus

export const SessionStatusContext = createContext<SessionStatus>("unauthenticated")

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

const selectErrorMessage = (snapshot: Parameters<typeof selectSessionError>[0]): string | null =>
  selectSessionError(snapshot)?.message ?? null

export function SessionProvider({ actor, children }: { readonly actor: SessionActor; readonly children: ReactNode }) {
  const status = useSelector(actor, selectSessionStatus)
  const errorMessage = useSelector(actor, selectErrorMessage)
  const commands = useMemo<SessionCommands>(
    () => ({
      retry: () => actor.send({ type: "session.retryRequested" }),
      logout: () => actor.send({ type: "session.logoutRequested" }),
    }),
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
