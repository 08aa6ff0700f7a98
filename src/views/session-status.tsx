/**
 * Where the route gates learn whether someone is signed in. Until the session machine exists nobody is: the default
 * is "unauthenticated". The auth work replaces `useSessionStatus` (e.g. a selector on the session actor) and the
 * gates in route-gates.tsx keep working unchanged. Tests render `<SessionStatusContext value="authenticated">`.
 */
import { createContext, useContext } from "react"

export type SessionStatus = "loading" | "unauthenticated" | "unverified" | "authenticated"

export const SessionStatusContext = createContext<SessionStatus>("unauthenticated")

export function useSessionStatus(): SessionStatus {
  return useContext(SessionStatusContext)
}
