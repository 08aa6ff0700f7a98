/**
 * The authenticated shell with its gates (access §2 "Route guards"), loaded with the first dashboard page: the
 * workspace gate around the whole shell (it needs a selected workspace the user still belongs to), the sidebar and
 * header (DashboardLayout), a message a redirect carried (`RouteStateMessage`), and the permission gate around the page.
 * The gates' machines come from `DashboardGatesProvider` (route-gates.tsx); see there for the rules.
 */
import { useEffect, useMemo, useRef, type ReactNode } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import { useLocation, useSearch } from "wouter"
import { OtherMessages } from "../../contracts/messages.ts"
import type { NavigateParams } from "../../machines/auth-effects.ts"
import { requiredPermissionsFor } from "../../machines/permission-gate.machine.ts"
import { useNavigateAction, useRouteState } from "../access/auth-effects-context.tsx"
import { GateLoading, GateProblem, useDashboardGateLogic, type DashboardGateLogic } from "../route-gates.tsx"
import * as css from "../route-gates.css.ts"
import { AlertBox } from "../ui/alert-box.tsx"
import { Button } from "../ui/button.tsx"
import { CloseIcon } from "../ui/icons.tsx"
import { DashboardLayout } from "./dashboard-layout.tsx"

/** The boundary's `navigate` as a machine action. */
function useNavigateImplementation() {
  const navigate = useNavigateAction()
  return useMemo(() => (_: unknown, params: NavigateParams) => navigate(undefined, params), [navigate])
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
  const logic = useDashboardGateLogic()
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
  const logic = useDashboardGateLogic()
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

/**
 * The shell around every dashboard page: sidebar (navigation, user card), header (back button, breadcrumbs, user menu),
 * content. It stays mounted while moving between dashboard pages.
 */
export function DashboardShell({ children }: { readonly children: ReactNode }) {
  return (
    <WorkspaceGate>
      <DashboardLayout>
        <RouteStateMessage />
        <PermissionGate>{children}</PermissionGate>
      </DashboardLayout>
    </WorkspaceGate>
  )
}
