/**
 * Route guards of access §2 "Route guards" (authentication gate). The decision is a pure function of the route's
 * access class and the session status (`decideAccess`, unit-tested); the components only render it.
 *
 * - unauthenticated on an authenticated route → /login, keeping the origin in the navigation state (`from`);
 * - signed in but unverified → /verification-pending, except on the verification pages;
 * - signed in on a public page → /dashboard, except on invitation pages;
 * - while the session loads → 'Authenticating...'.
 * Workspace and permission gates come with the workspace and team work.
 */
import type { ReactNode } from "react"
import { Redirect, useLocation, useSearch } from "wouter"
import { OtherMessages } from "../contracts/messages.ts"
import { useSessionStatus, type SessionStatus } from "./session-status.tsx"
import { Spinner } from "./ui/spinner.tsx"
import * as css from "./route-gates.css.ts"

/** public: login, signup, reset; verification: the three email-verification pages; invitation: the four invitation pages. */
export type RouteAccess = "public" | "verification" | "invitation" | "authenticated"

export type AccessDecision = { readonly kind: "render" } | { readonly kind: "loading" } | { readonly kind: "redirect"; readonly to: string }

const render: AccessDecision = { kind: "render" }

export const decideAccess = (access: RouteAccess, status: SessionStatus): AccessDecision => {
  if (status === "loading") return { kind: "loading" }
  switch (access) {
    case "authenticated":
      if (status === "unauthenticated") return { kind: "redirect", to: "/login" }
      if (status === "unverified") return { kind: "redirect", to: "/verification-pending" }
      return render
    case "public":
      if (status === "authenticated") return { kind: "redirect", to: "/dashboard" }
      if (status === "unverified") return { kind: "redirect", to: "/verification-pending" }
      return render
    case "verification":
      return status === "authenticated" ? { kind: "redirect", to: "/dashboard" } : render
    case "invitation":
      return status === "unverified" ? { kind: "redirect", to: "/verification-pending" } : render
  }
}

/** Where "/" goes (access §2: "/ redirects to /dashboard", which needs a session). */
export const rootTarget = (status: SessionStatus): string | undefined =>
  status === "loading"
    ? undefined
    : status === "authenticated"
      ? "/dashboard"
      : status === "unverified"
        ? "/verification-pending"
        : "/login"

/** Navigation state handed to /login so it can return to the origin after signing in. */
export interface LoginRedirectState {
  readonly from: string
}

export function Authenticating() {
  return (
    <div className={css.fullPage} role="status">
      <Spinner size="lg" aria-label={OtherMessages.authenticating} />
      <p className={css.text}>{OtherMessages.authenticating}</p>
    </div>
  )
}

export function RouteGate({ access, children }: { readonly access: RouteAccess; readonly children: ReactNode }) {
  const status = useSessionStatus()
  const [location] = useLocation()
  const search = useSearch()
  const decision = decideAccess(access, status)
  if (decision.kind === "loading") return <Authenticating />
  if (decision.kind === "redirect") {
    const state: LoginRedirectState | undefined =
      decision.to === "/login" ? { from: search === "" ? location : `${location}?${search}` } : undefined
    return <Redirect to={decision.to} replace {...(state === undefined ? {} : { state })} />
  }
  return <>{children}</>
}

export function RootRedirect() {
  const target = rootTarget(useSessionStatus())
  return target === undefined ? <Authenticating /> : <Redirect to={target} replace />
}
