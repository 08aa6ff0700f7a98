/**
 * Authentication gate (access spec §2 "Route guards"): what a route shows for the current session.
 *
 * - while the session is being confirmed: 'Authenticating...';
 * - a signed-out visitor on an authenticated route → /login, keeping the origin (`state.from`);
 * - a signed-in user whose email is not verified → /verification-pending, except on the verification pages;
 * - a signed-in user on a public page → /dashboard, except on the invitation pages;
 * - a user that could not be loaded (network, server) on an authenticated route → an error with a retry.
 *
 * `decideAuthGate` is the pure rule (property-tested); `authGateMachine` applies it as the location and the
 * session change, performing redirects through the environment action `navigate`.
 *
 * Events accepted:
 * - `gate.locationChanged` { location, access? } — the route changed (location = path + search): the gate decides
 *   again (while redirecting, only when the pending redirect changes).
 * - `gate.sessionChanged` { status, errorMessage? } — the session's status changed (from the session machine's
 *   `selectSessionStatus`): the gate decides again (while redirecting, only when the pending redirect changes).
 */
import { assign, setup } from "xstate"
import { decideAuthGate, routeAccessOf, type AuthGateDecision, type AuthGateFacts, type RouteAccess } from "./auth-gate.ts"
import type { NavigationRequest } from "./navigation.ts"
import type { SessionGateStatus } from "./session.machine.ts"

// The routes and the rule live in auth-gate.ts (the route gates read them on the first page load without this machine).
export { decideAuthGate, routeAccessOf, type AuthGateDecision, type AuthGateFacts, type RouteAccess } from "./auth-gate.ts"

// ---------------------------------------------------------------------------------------------------
// Machine

export interface AuthGateContext extends AuthGateFacts {
  readonly decision: AuthGateDecision
}

export interface AuthGateInput {
  readonly location: string
  readonly access?: RouteAccess
  readonly status: SessionGateStatus
  readonly errorMessage?: string | null
}

export type AuthGateEvent =
  | { readonly type: "gate.locationChanged"; readonly location: string; readonly access?: RouteAccess }
  | { readonly type: "gate.sessionChanged"; readonly status: SessionGateStatus; readonly errorMessage?: string | null }

const withDecision = (facts: AuthGateFacts): AuthGateContext => ({
  access: facts.access,
  status: facts.status,
  location: facts.location,
  errorMessage: facts.errorMessage ?? null,
  decision: decideAuthGate(facts),
})

/** The facts after an event (location or session), before deciding. */
const nextFacts = (context: AuthGateFacts, event: AuthGateEvent): AuthGateFacts =>
  event.type === "gate.locationChanged"
    ? { ...context, location: event.location, access: event.access ?? routeAccessOf(event.location) }
    : { ...context, status: event.status, errorMessage: event.errorMessage ?? null }

export const authGateMachine = setup({
  types: {
    context: {} as AuthGateContext,
    events: {} as AuthGateEvent,
    input: {} as AuthGateInput,
  },
  guards: {
    /** `decideAuthGate` says the session is still being confirmed. */
    isLoading: ({ context }) => context.decision.kind === "loading",
    /** `decideAuthGate` sends this visitor elsewhere. */
    isRedirect: ({ context }) => context.decision.kind === "redirect",
    /** `decideAuthGate` says the user could not be loaded on an authenticated route. */
    isUnavailable: ({ context }) => context.decision.kind === "unavailable",
    /** The event leaves the pending redirect unchanged: do not navigate a second time. */
    keepsRedirect: ({ context, event }) => {
      const next = withDecision(nextFacts(context, event)).decision
      const current = context.decision
      return next.kind === "redirect" && current.kind === "redirect" && next.to === current.to
    },
  },
  actions: {
    navigate: (_, _params: NavigationRequest) => {},
    assignFacts: assign(({ context, event }) => withDecision(nextFacts(context, event))),
  },
}).createMachine({
  id: "authGate",
  context: ({ input }) =>
    withDecision({
      location: input.location,
      access: input.access ?? routeAccessOf(input.location),
      status: input.status,
      errorMessage: input.errorMessage ?? null,
    }),
  initial: "deciding",
  states: {
    deciding: {
      description: "Applies `decideAuthGate` to the current location and session status, and moves at once to what the route shows.",
      /** Authenticating while the session is being confirmed, a redirect, the unavailable error, or the route. */
      always: [
        { guard: "isLoading", target: "authenticating" },
        { guard: "isRedirect", target: "redirecting" },
        { guard: "isUnavailable", target: "unavailable" },
        { target: "allowed" },
      ],
    },
    /** 'Authenticating...' */
    authenticating: {},
    redirecting: {
      description:
        "Navigates (replacing the history entry) to where the rule sends this visitor: /login keeping the origin, /verification-pending or /dashboard. An event that leaves the same redirect pending does not navigate again.",
      on: {
        "gate.locationChanged": [
          { guard: "keepsRedirect", actions: "assignFacts" },
          { target: "deciding", actions: "assignFacts" },
        ],
        "gate.sessionChanged": [
          { guard: "keepsRedirect", actions: "assignFacts" },
          { target: "deciding", actions: "assignFacts" },
        ],
      },
      entry: {
        type: "navigate",
        params: ({ context }): NavigationRequest => {
          const d = context.decision
          return d.kind === "redirect"
            ? { to: d.to, replace: true, ...(d.state === undefined ? {} : { state: d.state }) }
            : { to: context.location, replace: true }
        },
      },
    },
    /** The view shows the error with a retry (sent to the session: `session.retryRequested`). */
    unavailable: {},
    allowed: { description: "The route renders: this visitor may see it." },
  },
  on: {
    "gate.locationChanged": { target: ".deciding", actions: "assignFacts" },
    "gate.sessionChanged": { target: ".deciding", actions: "assignFacts" },
  },
})
