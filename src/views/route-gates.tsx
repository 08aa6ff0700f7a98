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
 * Dashboard gates (`WorkspaceGate`, `PermissionGate`), inside the dashboard shell, each running its machine
 * (src/machines/workspace-gate.machine.ts, permission-gate.machine.ts) built by the composition root from the services
 * and handed down through `DashboardGatesProvider`; this boundary supplies `navigate` (wouter, with history state):
 * - no selected workspace → /workspace-selection; a vanished one is cleared; a load error shows 'Error loading
 *   workspaces' with Retry and 'Select workspace';
 * - a missing permission → /dashboard with 'You do not have permission to access this page', shown as an error
 *   (`RouteStateMessage` renders the message a redirect carried).
 * Without a provider (view tests of single screens) the dashboard gates let everything through.
 */
import { createContext, useContext, useEffect, useMemo, useRef, type ReactNode } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import { Redirect, useLocation, useSearch } from "wouter"
import { OtherMessages } from "../contracts/messages.ts"
import { decideAuthGate, type AuthGateDecision } from "../machines/auth-gate.machine.ts"
import type { NavigateParams } from "../machines/auth-effects.ts"
import type { LoginRouteState } from "../machines/navigation.ts"
import { requiredPermissionsFor, type permissionGateMachine } from "../machines/permission-gate.machine.ts"
import type { workspaceGateMachine } from "../machines/workspace-gate.machine.ts"
import { useNavigateAction, useRouteState } from "./auth/auth-effects-context.tsx"
import { useSessionCommands, useSessionErrorMessage, useSessionStatus, type SessionStatus } from "./session-status.tsx"
import { AlertBox } from "./ui/alert-box.tsx"
import { Button } from "./ui/button.tsx"
import { PRODUCT_NAME } from "./layouts/auth-layout.tsx"
import { CloseIcon, ShieldCheckIcon } from "./ui/icons.tsx"
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
function GateProblem({
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
  const errorMessage = useSessionErrorMessage()
  const [location] = useLocation()
  const search = useSearch()
  const origin = search === "" ? location : `${location}?${search}`
  const decision = decideAccess(access, status, origin, errorMessage)
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

export function DashboardGatesProvider({ logic, children }: { readonly logic: DashboardGateLogic; readonly children: ReactNode }) {
  return <DashboardGatesContext value={logic}>{children}</DashboardGatesContext>
}

/** The boundary's `navigate` as a machine action. */
function useNavigateImplementation() {
  const navigate = useNavigateAction()
  return useMemo(() => (_: unknown, params: NavigateParams) => navigate(undefined, params), [navigate])
}

function GateLoading({ label, fullPage }: { readonly label: string; readonly fullPage: boolean }) {
  return (
    <div className={fullPage ? css.fullPage : css.inline} role="status">
      <Spinner size="lg" aria-label={label} />
    </div>
  )
}

function RunningWorkspaceGate({ logic, children }: { readonly logic: DashboardGateLogic; readonly children: ReactNode }) {
  const navigate = useNavigateImplementation()
  const machine = useMemo(() => logic.workspaceGate.provide({ actions: { navigate } }), [logic, navigate])
  const gate = useActorRef(machine, { input: { selectedWorkspaceId: logic.selectedWorkspaceId() } })
  const state = useSelector(gate, (s) => (s.matches("allowed") ? "allowed" : s.matches("failed") ? "failed" : "waiting"))
  const message = useSelector(gate, (s) => (s.context.decision.kind === "failed" ? s.context.decision.message : null))
  if (state === "allowed") return <>{children}</>
  if (state === "failed") {
    return (
      <GateProblem
        title={message ?? OtherMessages.errorLoadingWorkspaces}
        message="Your workspaces could not be loaded. Try again, or choose a workspace."
      >
        <Button variant="secondary" onPress={() => gate.send({ type: "gate.selectWorkspaceRequested" })}>
          Select workspace
        </Button>
        <Button onPress={() => gate.send({ type: "gate.retryRequested" })}>Retry</Button>
      </GateProblem>
    )
  }
  return <GateLoading label="Loading workspace" fullPage />
}

/** Access §2 workspace gate around the dashboard shell. */
export function WorkspaceGate({ children }: { readonly children: ReactNode }) {
  const logic = useContext(DashboardGatesContext)
  return logic === null ? <>{children}</> : <RunningWorkspaceGate logic={logic}>{children}</RunningWorkspaceGate>
}

function RunningPermissionGate({ logic, children }: { readonly logic: DashboardGateLogic; readonly children: ReactNode }) {
  const navigate = useNavigateImplementation()
  const [location] = useLocation()
  const machine = useMemo(() => logic.permissionGate.provide({ actions: { navigate } }), [logic, navigate])
  const gate = useActorRef(machine, { input: { required: requiredPermissionsFor(location) } })
  // Another page inside the shell: tell the gate what it needs (only on a real change: the same requirement would
  // re-enter the decision and repeat a redirect).
  const lastLocation = useRef(location)
  useEffect(() => {
    if (lastLocation.current === location) return
    lastLocation.current = location
    gate.send({ type: "gate.requirementChanged", required: requiredPermissionsFor(location) })
  }, [gate, location])
  const state = useSelector(gate, (s) => (s.matches("allowed") ? "allowed" : s.matches("failed") ? "failed" : "waiting"))
  const message = useSelector(gate, (s) => (s.context.decision.kind === "failed" ? s.context.decision.message : null))
  if (state === "allowed") return <>{children}</>
  if (state === "failed") {
    return (
      <AlertBox
        tone="error"
        title="Your permissions could not be loaded"
        action={
          <Button variant="secondary" size="sm" onPress={() => gate.send({ type: "gate.retryRequested" })}>
            Retry
          </Button>
        }
      >
        {message}
      </AlertBox>
    )
  }
  return <GateLoading label="Checking permissions" fullPage={false} />
}

/** Access §2 permission gate around the dashboard pages (inside the shell). */
export function PermissionGate({ children }: { readonly children: ReactNode }) {
  const logic = useContext(DashboardGatesContext)
  return logic === null ? <>{children}</> : <RunningPermissionGate logic={logic}>{children}</RunningPermissionGate>
}

// ---------------------------------------------------------------------------------------------------
// A message carried by a redirect (e.g. the permission gate's), shown on the page it lands on

const readMessageState = (u: unknown): { readonly message: string; readonly error: boolean } | null => {
  if (typeof u !== "object" || u === null) return null
  const r = u as Record<string, unknown>
  return typeof r["message"] === "string" && r["message"] !== "" ? { message: r["message"], error: r["error"] === true } : null
}

/**
 * Shows the `{ message, error? }` history state a redirect left (error or success styling). Dismissing it clears the
 * state, so Back/reload do not show it again.
 */
export function RouteStateMessage() {
  const state = readMessageState(useRouteState())
  const [location, navigate] = useLocation()
  const search = useSearch()
  if (state === null) return null
  return (
    <AlertBox
      tone={state.error ? "error" : "success"}
      className={css.routeMessage}
      action={
        <Button
          variant="ghost"
          size="icon"
          aria-label="Dismiss message"
          onPress={() => navigate(search === "" ? location : `${location}?${search}`, { replace: true, state: null })}
        >
          <CloseIcon size={16} />
        </Button>
      }
    >
      {state.message}
    </AlertBox>
  )
}
