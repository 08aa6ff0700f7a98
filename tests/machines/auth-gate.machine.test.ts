import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { createActor } from "xstate"
import { authGateMachine, decideAuthGate, routeAccessOf, type RouteAccess } from "../../src/machines/auth-gate.machine.ts"
import type { NavigationRequest } from "../../src/machines/navigation.ts"
import type { SessionGateStatus } from "../../src/machines/session.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"

const STATUSES: ReadonlyArray<SessionGateStatus> = [
  "loading",
  "signing-in",
  "unauthenticated",
  "unverified",
  "authenticated",
  "unavailable",
  "signing-out",
]

/** The access spec §2 route table, written out. */
const ROUTE_TABLE: ReadonlyArray<[string, RouteAccess]> = [
  ["/login", "public"],
  ["/signup", "public"],
  ["/reset-password?token=abc", "public"],
  ["/verify-email?token=t&email=e", "verification"],
  ["/verification-pending", "verification"],
  ["/email-verification-success?email=a%40b.c", "verification"],
  ["/invitation/accept/tok123", "invitation"],
  ["/invitation/accept?token=t", "invitation"],
  ["/invitation/signup?token=t", "invitation"],
  ["/accept-invite?token=t", "invitation"],
  ["/workspace-selection", "authenticated"],
  ["/", "authenticated"],
  ["/dashboard", "authenticated"],
  ["/dashboard/profile", "authenticated"],
  ["/dashboard/accounts/3", "authenticated"],
  ["/dashboard/scans", "authenticated"],
  ["/dashboard/scans/7", "authenticated"],
  ["/dashboard/scans/7/findings", "authenticated"],
  ["/dashboard/scans/7/findings/9", "authenticated"],
  ["/dashboard/users", "authenticated"],
  ["/nope", "open"],
  ["/login/extra", "open"],
  ["/invitation/accept/a/b", "open"],
]

const locationArb = fc.constantFrom(...ROUTE_TABLE.map(([l]) => l))
const statusArb = fc.constantFrom(...STATUSES)

describe("route access classes (access §2 route table)", () => {
  it.each(ROUTE_TABLE)("%s is %s", (location, access) => {
    expect(routeAccessOf(location)).toBe(access)
  })

  it("a trailing slash or a hash does not change the class", () => {
    expect(routeAccessOf("/login/")).toBe("public")
    expect(routeAccessOf("/dashboard/users/#top")).toBe("authenticated")
  })
})

describe("decideAuthGate (access §2 authentication gate)", () => {
  it("while the session loads: 'Authenticating...' on every known route", () => {
    fc.assert(
      fc.property(locationArb, (location) => {
        const access = routeAccessOf(location)
        const d = decideAuthGate({ access, status: "loading", location })
        expect(d).toEqual(access === "open" ? { kind: "render" } : { kind: "loading", message: "Authenticating..." })
      }),
    )
  })

  it("signed out: authenticated routes go to /login keeping the origin; public ones render", () => {
    fc.assert(
      fc.property(locationArb, fc.stringMatching(/^(\/[a-z0-9]{1,8}){0,3}(\?[a-z]=[a-z0-9]{0,5})?$/), (location, extra) => {
        const access = routeAccessOf(location)
        const origin = access === "authenticated" && location.startsWith("/dashboard") ? `${location}${extra}` : location
        const d = decideAuthGate({ access: routeAccessOf(origin), status: "unauthenticated", location: origin })
        if (routeAccessOf(origin) === "authenticated") expect(d).toEqual({ kind: "redirect", to: "/login", replace: true, state: { from: origin } })
        else expect(d).toEqual({ kind: "render" })
      }),
    )
  })

  it("unverified: everything but the verification pages goes to /verification-pending", () => {
    fc.assert(
      fc.property(locationArb, (location) => {
        const access = routeAccessOf(location)
        const d = decideAuthGate({ access, status: "unverified", location })
        if (access === "verification" || access === "open") expect(d.kind).toBe("render")
        else expect(d).toEqual({ kind: "redirect", to: "/verification-pending", replace: true })
      }),
    )
  })

  it("signed in: public pages go to /dashboard, except invitation pages", () => {
    fc.assert(
      fc.property(locationArb, (location) => {
        const access = routeAccessOf(location)
        const d = decideAuthGate({ access, status: "authenticated", location })
        if (access === "public" || access === "verification") expect(d).toEqual({ kind: "redirect", to: "/dashboard", replace: true })
        else expect(d).toEqual({ kind: "render" })
      }),
    )
  })

  it("a user that could not be loaded sees the reason on authenticated routes", () => {
    expect(decideAuthGate({ access: "authenticated", status: "unavailable", location: "/dashboard", errorMessage: "Unable to connect" })).toEqual({
      kind: "unavailable",
      message: "Unable to connect",
    })
    expect(decideAuthGate({ access: "public", status: "unavailable", location: "/login" })).toEqual({ kind: "render" })
  })

  it("never redirects in a loop: the redirect target renders (or waits) for the same status", () => {
    fc.assert(
      fc.property(locationArb, statusArb, (location, status) => {
        const d = decideAuthGate({ access: routeAccessOf(location), status, location })
        if (d.kind !== "redirect") return
        const next = decideAuthGate({ access: routeAccessOf(d.to), status, location: d.to })
        expect(next.kind).not.toBe("redirect")
        expect(d.to).not.toBe(location)
      }),
    )
  })
})

describe("auth gate machine", () => {
  const start = (location: string, status: SessionGateStatus) => {
    const navigations: NavigationRequest[] = []
    const machine = authGateMachine.provide({ actions: { navigate: (_, r) => void navigations.push(r) } })
    const actor = createActor(machine, { input: { location, status } }).start()
    return { actor, navigations }
  }

  it("authenticating → allowed when the session is confirmed", () => {
    const { actor, navigations } = start("/dashboard/users", "loading")
    try {
      expect(actor.getSnapshot().value).toBe("authenticating")
      expect(actor.getSnapshot().context.decision).toEqual({ kind: "loading", message: "Authenticating..." })
      actor.send({ type: "gate.sessionChanged", status: "authenticated" })
      expect(actor.getSnapshot().value).toBe("allowed")
      expect(navigations).toEqual([])
    } finally {
      actor.stop()
    }
  })

  it("a restored session that turns out signed out goes to /login with the origin", () => {
    const { actor, navigations } = start("/dashboard/scans/7?tab=x", "loading")
    try {
      actor.send({ type: "gate.sessionChanged", status: "unauthenticated" })
      expect(actor.getSnapshot().value).toBe("redirecting")
      expect(navigations).toEqual([{ to: "/login", replace: true, state: { from: "/dashboard/scans/7?tab=x" } }])
      actor.send({ type: "gate.locationChanged", location: "/login" })
      expect(actor.getSnapshot().value).toBe("allowed")
    } finally {
      actor.stop()
    }
  })

  it("signing in on /login keeps the page, then the signed-in user leaves public pages", () => {
    const { actor, navigations } = start("/login", "unauthenticated")
    try {
      actor.send({ type: "gate.sessionChanged", status: "signing-in" })
      expect(actor.getSnapshot().value).toBe("allowed")
      actor.send({ type: "gate.sessionChanged", status: "authenticated" })
      expect(navigations).toEqual([{ to: "/dashboard", replace: true }])
    } finally {
      actor.stop()
    }
  })

  it("an unverified user is held on /verification-pending but may use the verification pages", () => {
    const { actor, navigations } = start("/dashboard", "unverified")
    try {
      expect(navigations).toEqual([{ to: "/verification-pending", replace: true }])
      actor.send({ type: "gate.locationChanged", location: "/verify-email?token=x&email=y" })
      expect(actor.getSnapshot().value).toBe("allowed")
    } finally {
      actor.stop()
    }
  })

  it("a repeated session report does not navigate twice while the redirect is under way", () => {
    const { actor, navigations } = start("/dashboard", "loading")
    try {
      actor.send({ type: "gate.sessionChanged", status: "unauthenticated" })
      actor.send({ type: "gate.sessionChanged", status: "unauthenticated" })
      expect(navigations).toHaveLength(1)
      actor.send({ type: "gate.sessionChanged", status: "authenticated" })
      expect(actor.getSnapshot().value).toBe("allowed")
    } finally {
      actor.stop()
    }
  })

  it("an unavailable user gets the error state", () => {
    const { actor } = start("/dashboard", "loading")
    try {
      actor.send({ type: "gate.sessionChanged", status: "unavailable", errorMessage: "Unable to connect to the server. Please check your internet connection." })
      expect(actor.getSnapshot().value).toBe("unavailable")
    } finally {
      actor.stop()
    }
  })

  it("transition coverage: every (state, event) edge driven", async () => {
    const coverage = await coverTransitions(authGateMachine, {
      input: { location: "/dashboard", status: "loading" },
      events: [
        { type: "gate.sessionChanged", status: "loading" },
        { type: "gate.sessionChanged", status: "unauthenticated" },
        { type: "gate.sessionChanged", status: "authenticated" },
        { type: "gate.sessionChanged", status: "unavailable", errorMessage: "x" },
        { type: "gate.locationChanged", location: "/login" },
        { type: "gate.locationChanged", location: "/dashboard" },
      ],
    })
    console.info(formatCoverage("authGate", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
    const targets = new Set(coverage.edges.map((e) => e.target))
    expect(targets).toEqual(new Set(['"authenticating"', '"redirecting"', '"unavailable"', '"allowed"']))
  })
})
