/**
 * Route guards of access §2 "Route guards", rendered.
 *
 * Authentication gate (`RouteGate`, `RootRedirect`): the rule is `decideAuthGate` (src/machines/auth-gate.machine.ts,
 * property-tested) applied to the route's access class and the session status (src/views/session-status.tsx):
 * - unauthenticated on an authenticated route → /login, keeping the origin in the navigation state (`from`);
 * - signed in but unverified → /verification-pending, except on the verification pages;
 * - signed in on a public page → /dashboard, except on invitation pages;
 * - while the session loads → 'Authenticating...';
 * - the user could not be loaded (network, server) → the error with a Retry (sent to the session).
 *
 * Dashboard gates (`WorkspaceGate`, `PermissionGate` in layouts/dashboard-shell.tsx, which loads with the first
 * dashboard page), inside the dashboard shell, each running its machine (src/machines/workspace-gate.machine.ts,
 * permission-gate.machine.ts) built by the composition root from the services and handed down through
 * `DashboardGatesProvider` (here); the shell supplies `navigate` (wouter, with history state):
 * - no selected workspace → /workspace-selection; a vanished one is cleared; a load error shows 'Error loading
 *   workspaces' with Retry and 'Select workspace';
 * - a missing permission → /dashboard with 'You do not have permission to access this page', shown as an error
 *   (`RouteStateMessage` renders the message a redirect carried).
 * Without a provider (view tests of single screens) the dashboard gates let everything through.
 */
import { createContext, useContext, type ReactNode } from "react"
import { Redirect, useLocation, useSearch } from "wouter"
import { OtherMessages } from "../contracts/messages.ts"
import { decideAuthGate, type AuthGateDecision } from "../machines/auth-gate.ts"
import type { LoginRouteState } from "../machines/navigation.ts"
import type { permissionGateMachine } from "../machines/permission-gate.machine.ts"
import type { workspaceGateMachine } from "../machines/workspace-gate.machine.ts"
import {
  useCompositionReady,
  useSessionCommands,
  useSessionErrorMessage,
  useSessionStatus,
  type SessionStatus,
} from "./session-status.tsx"
import { AlertBox } from "./ui/alert-box.tsx"
import { Button } from "./ui/button.tsx"
import { PRODUCT_NAME } from "./layouts/auth-layout.tsx"
import { ShieldCheckIcon } from "./ui/icons.tsx"
import { Spinner } from "./ui/spinner.tsx"
import * as css from "./route-gates.css.ts"

// ---------------------------------------------------------------------------------------------------
// Authentication gate

/** public: login, signup, reset; verification: the three email-verification pages; invitation: the four invitation pages. */
export type RouteAccess = "public" | "verification" | "invitation" | "authenticated"

export type AccessDecision =
  | { readonly kind: "render" }
  | { readonly kind: "loading" }
  | { readonly kind: "unavailable"; readonly message: string }
  | { readonly kind: "redirect"; readonly to: string; readonly state?: LoginRouteState }

const toAccessDecision = (d: AuthGateDecision): AccessDecision => {
  switch (d.kind) {
    case "loading":
    case "render":
      return { kind: d.kind }
    case "unavailable":
      return { kind: "unavailable", message: d.message }
    case "redirect":
      return d.state === undefined ? { kind: "redirect", to: d.to } : { kind: "redirect", to: d.to, state: d.state }
  }
}

/** The gate's decision for a route class, a session status and the requested location (path + search). */
export const decideAccess = (
  access: RouteAccess,
  status: SessionStatus,
  location = "",
  errorMessage: string | null = null,
): AccessDecision => toAccessDecision(decideAuthGate({ access, status, location, errorMessage }))

/** Where "/" goes (access §2: "/ redirects to /dashboard", which needs a session); undefined while undecided. */
export const rootTarget = (status: SessionStatus): string | undefined => {
  switch (status) {
    case "loading":
    case "signing-in":
    case "signing-out":
      return undefined
    case "authenticated":
    case "unavailable":
      return "/dashboard"
    case "unverified":
      return "/verification-pending"
    case "unauthenticated":
      return "/login"
  }
}

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

/** A full-page problem a gate cannot get past on its own: the product mark, what failed, why, and the way out. */
export function GateProblem({
  title,
  message,
  children,
}: {
  readonly title: string
  readonly message: string
  readonly children: ReactNode
}) {
  return (
    <main className={css.fullPage}>
      <section className={css.problem} aria-labelledby="gate-problem-title">
        <p className={css.brand}>
          <span className={css.brandMark}>
            <ShieldCheckIcon size={18} />
          </span>
          {PRODUCT_NAME}
        </p>
        <h1 id="gate-problem-title" className={css.title}>
          {title}
        </h1>
        <AlertBox tone="error">{message}</AlertBox>
        <div className={css.actions}>{children}</div>
      </section>
    </main>
  )
}

/** The user could not be loaded for a reason other than authentication: say why and offer a retry. */
export function SessionUnavailable({ message }: { readonly message: string }) {
  const { retry } = useSessionCommands()
  return (
    <GateProblem title="We could not load your account" message={message}>
      <Button onPress={retry}>Retry</Button>
    </GateProblem>
  )
}

export function RouteGate({ access, children }: { readonly access: RouteAccess; readonly children: ReactNode }) {
  const status = useSessionStatus()
  const ready = useCompositionReady()
  const errorMessage = useSessionErrorMessage()
  const [location] = useLocation()
  const search = useSearch()
  const origin = search === "" ? location : `${location}?${search}`
  const decision = decideAccess(access, status, origin, errorMessage)
  // The invitation pages need their family's effects, which come with the composition (see DeferredComposition).
  if (!ready && access === "invitation" && decision.kind === "render") return <Authenticating />
  switch (decision.kind) {
    case "loading":
      return <Authenticating />
    case "unavailable":
      return <SessionUnavailable message={decision.message} />
    case "redirect":
      return <Redirect to={decision.to} replace {...(decision.state === undefined ? {} : { state: decision.state })} />
    case "render":
      return <>{children}</>
  }
}

export function RootRedirect() {
  const target = rootTarget(useSessionStatus())
  return target === undefined ? <Authenticating /> : <Redirect to={target} replace />
}

// ---------------------------------------------------------------------------------------------------
// Dashboard gates

export type WorkspaceGateLogic = typeof workspaceGateMachine
export type PermissionGateLogic = typeof permissionGateMachine

/** The two dashboard gates' machines with their services supplied (all but `navigate`). */
export interface DashboardGateLogic {
  readonly workspaceGate: WorkspaceGateLogic
  readonly permissionGate: PermissionGateLogic
  /** The persisted selected workspace now (the workspace gate's input). */
  readonly selectedWorkspaceId: () => number | null
}

const DashboardGatesContext = createContext<DashboardGateLogic | null>(null)

export function DashboardGatesProvider({
  logic,
  children,
}: {
  readonly logic: DashboardGateLogic | null
  readonly children: ReactNode
}) {
  return <DashboardGatesContext value={logic}>{children}</DashboardGatesContext>
}

/** The gates' machines, or null without a provider (view tests of single screens: the gates let everything through). */
export function useDashboardGateLogic(): DashboardGateLogic | null {
  return useContext(DashboardGatesContext)
}

export function GateLoading({ label, fullPage }: { readonly label: string; readonly fullPage: boolean }) {
  return (
    <div className={fullPage ? css.fullPage : css.inline} role="status">
      <Spinner size="lg" aria-label={label} />
    </div>
  )
}
