/**
 * The authentication gate's rule (access spec §2 "Route guards"), pure: what a route shows for the current session
 * (see auth-gate.machine.ts for the machine that applies it as the location and the session change).
 */
import { OtherMessages, StatusMessages } from "../contracts/messages.ts"
import type { LoginRouteState } from "./navigation.ts"
import type { SessionGateStatus } from "./session-selectors.ts"

/**
 * public: login, signup, reset; verification: the three email-verification pages; invitation: the four
 * invitation pages; authenticated: "/", /workspace-selection and the dashboard; open: anything else (404).
 */
export type RouteAccess = "public" | "verification" | "invitation" | "authenticated" | "open"

const PUBLIC = new Set(["/login", "/signup", "/reset-password"])
const VERIFICATION = new Set(["/verify-email", "/verification-pending", "/email-verification-success"])
const INVITATION = new Set(["/invitation/accept", "/invitation/signup", "/accept-invite"])

/** Access class of a path (query and hash ignored), from the access spec §2 route table. */
export const routeAccessOf = (location: string): RouteAccess => {
  const raw = location.split(/[?#]/)[0] ?? ""
  const path = raw.length > 1 ? raw.replace(/\/+$/, "") : raw
  if (PUBLIC.has(path)) return "public"
  if (VERIFICATION.has(path)) return "verification"
  if (INVITATION.has(path) || /^\/invitation\/accept\/[^/]+$/.test(path)) return "invitation"
  if (path === "/" || path === "/workspace-selection" || /^\/dashboard(?:\/.*)?$/.test(path)) return "authenticated"
  return "open"
}

export type AuthGateDecision =
  | { readonly kind: "loading"; readonly message: string }
  | { readonly kind: "redirect"; readonly to: string; readonly replace: true; readonly state?: LoginRouteState }
  | { readonly kind: "unavailable"; readonly message: string }
  | { readonly kind: "render" }

export interface AuthGateFacts {
  readonly access: RouteAccess
  readonly status: SessionGateStatus
  /** Path + search of the requested page (kept as the origin for /login). */
  readonly location: string
  /** Why the user could not be loaded (status `unavailable`). */
  readonly errorMessage?: string | null
}

const render: AuthGateDecision = { kind: "render" }
const loading: AuthGateDecision = { kind: "loading", message: OtherMessages.authenticating }
const redirect = (to: string, state?: LoginRouteState): AuthGateDecision =>
  state === undefined ? { kind: "redirect", to, replace: true } : { kind: "redirect", to, replace: true, state }

export const decideAuthGate = ({ access, status, location, errorMessage }: AuthGateFacts): AuthGateDecision => {
  if (access === "open") return render
  switch (status) {
    case "loading":
      return loading
    case "signing-out":
      return render
    case "signing-in":
      // The sign-in screen shows its own progress; an authenticated page waits for the outcome.
      return access === "authenticated" ? loading : render
    case "unauthenticated":
      return access === "authenticated" ? redirect("/login", { from: location }) : render
    case "unavailable":
      return access === "authenticated"
        ? { kind: "unavailable", message: errorMessage ?? StatusMessages.unexpected }
        : render
    case "unverified":
      return access === "verification" ? render : redirect("/verification-pending")
    case "authenticated":
      return access === "public" || access === "verification" ? redirect("/dashboard") : render
  }
}

