// @vitest-environment happy-dom
/**
 * Journey models of the invitation page and the workspace selection screen (STACK.md §9, technique 2): user-visible
 * states and user / server / clock events, no invoke or after, so `createTestModel` accepts them. Every simple path
 * is replayed on the rendered SPA with fake effects and a simulated clock; each state's assertion checks what the user
 * sees.
 */
import { cleanup, fireEvent, screen, within } from "@testing-library/react"
import { afterEach, describe, expect, it } from "vitest"
import { createMachine } from "xstate"
import { createTestModel } from "xstate/graph"
import type { WorkspaceId } from "../../src/contracts/ids.ts"
import type { Workspace } from "../../src/contracts/workspaces.ts"
import { httpFailure } from "../machines/auth-fakes.ts"
import { renderAccess } from "./access-render.tsx"

afterEach(cleanup)

const statesReached = (paths: ReadonlyArray<{ state: { value: unknown }; steps: ReadonlyArray<{ state: { value: unknown } }> }>) =>
  new Set(paths.flatMap((p) => [p.state, ...p.steps.map((s) => s.state)].map((s) => JSON.stringify(s.value))))

// ---------------------------------------------------------------------------------------------------
// Invitation page, signed out

const invitationJourney = createMachine({
  id: "invitationJourney",
  types: {} as {
    events:
      | { type: "server.confirmsInvitation" }
      | { type: "server.refusesLink" }
      | { type: "server.saysAlreadyAccepted" }
      | { type: "user.accepts" }
      | { type: "server.completesWithoutTokens" }
      | { type: "server.refusesAcceptance" }
      | { type: "clock.passes1500ms" }
      | { type: "clock.passes3000ms" }
  },
  initial: "checking",
  states: {
    checking: {
      on: {
        "server.confirmsInvitation": "details",
        "server.refusesLink": "invalid",
        "server.saysAlreadyAccepted": "alreadyAccepted",
      },
    },
    details: { on: { "user.accepts": "accepting" } },
    accepting: { on: { "server.completesWithoutTokens": "registrationComplete", "server.refusesAcceptance": "acceptError" } },
    acceptError: { on: { "user.accepts": "accepting" } },
    registrationComplete: { on: { "clock.passes3000ms": "atLogin" } },
    alreadyAccepted: { on: { "clock.passes1500ms": "atLogin" } },
    invalid: {},
    atLogin: { type: "final" },
  },
})

describe("invitation page journey model", () => {
  const paths = createTestModel(invitationJourney).getSimplePaths()

  it("visits every state on some path", () => {
    const reached = statesReached(paths)
    for (const state of Object.keys(invitationJourney.states)) expect(reached.has(JSON.stringify(state))).toBe(true)
    console.info(`invitation journey: ${paths.length} simple paths over ${Object.keys(invitationJourney.states).length} states`)
  })

  for (const path of paths) {
    it(`drives the rendered page: ${path.description}`, async () => {
      const { invitation, tick, currentPath } = renderAccess("/invitation/accept/tok-journey", { status: "unauthenticated" })
      const acceptButton = () => screen.getByRole("button", { name: "Accept and Continue" })
      await path.test({
        events: {
          "server.confirmsInvitation": () =>
            invitation.check.resolve({ ok: true, email: "grace@example.com", workspace_name: "Acme Security", role_name: "Auditor" }),
          "server.refusesLink": () => invitation.check.reject(httpFailure("invitation", 404, { _tag: "NotFound", message: "x" })),
          "server.saysAlreadyAccepted": () =>
            invitation.check.reject(httpFailure("invitation", 409, { _tag: "Conflict", message: "x", data: { error_type: "already_accepted" } })),
          "user.accepts": () => void fireEvent.click(acceptButton()),
          "server.completesWithoutTokens": () =>
            invitation.accept.resolve({ ok: true, message: "Registration Complete!", data: { workspace_name: "Acme Security" } }),
          "server.refusesAcceptance": () => invitation.accept.reject(httpFailure("invitation", 500, {})),
          "clock.passes1500ms": () => tick(1500),
          "clock.passes3000ms": () => tick(3000),
        },
        states: {
          checking: () => expect(screen.getByRole("heading", { level: 2, name: "Checking your invitation..." })).toBeTruthy(),
          details: () => {
            expect(within(screen.getByRole("region", { name: "Invitation" })).getByText("grace@example.com")).toBeTruthy()
            expect(acceptButton().hasAttribute("disabled") || acceptButton().getAttribute("data-disabled") === "true").toBe(false)
          },
          accepting: () => expect(acceptButton().getAttribute("data-pending")).toBe("true"),
          acceptError: () =>
            expect(within(screen.getByRole("alert")).getByText("We're experiencing technical difficulties. Please try again later.")).toBeTruthy(),
          registrationComplete: () => {
            expect(screen.getByRole("heading", { level: 2, name: "Registration Complete!" })).toBeTruthy()
            expect(currentPath()).toBe("/invitation/accept/tok-journey")
          },
          alreadyAccepted: () =>
            expect(screen.getByRole("heading", { level: 2, name: "This invitation has already been accepted. You can sign in now." })).toBeTruthy(),
          invalid: () => expect(screen.getByRole("heading", { level: 2, name: "Invalid or expired invitation link" })).toBeTruthy(),
          atLogin: () => expect(currentPath()).toBe("/login"),
        },
      })
    })
  }
})

// ---------------------------------------------------------------------------------------------------
// Workspace selection

const ws = (id: number, name: string): Workspace => ({
  workspace_id: id as WorkspaceId,
  workspace_name: name,
  is_owner: id === 1,
  role: id === 1 ? null : "Auditor",
  member_count: 2,
  joined_at: "2025-01-01T00:00:00Z",
})
const four = [ws(1, "Acme Security"), ws(2, "Globex"), ws(3, "Initech"), ws(4, "Umbrella")]

const selectionJourney = createMachine({
  id: "selectionJourney",
  types: {} as {
    events:
      | { type: "server.listsWorkspaces" }
      | { type: "server.listsNone" }
      | { type: "server.failsToList" }
      | { type: "user.retries" }
      | { type: "user.searches" }
      | { type: "user.selects" }
      | { type: "server.switches" }
      | { type: "server.refusesSwitch" }
      | { type: "server.returnsUser" }
  },
  initial: "loading",
  states: {
    loading: { on: { "server.listsWorkspaces": "cards", "server.listsNone": "empty", "server.failsToList": "failed" } },
    failed: { on: { "user.retries": "loading" } },
    empty: {},
    cards: { on: { "user.searches": "filtered", "user.selects": "switching" } },
    filtered: { on: { "user.selects": "switching" } },
    switching: { on: { "server.switches": "refreshingUser", "server.refusesSwitch": "selectionFailed" } },
    selectionFailed: { on: { "user.selects": "switching" } },
    refreshingUser: { on: { "server.returnsUser": "dashboard" } },
    dashboard: { type: "final" },
  },
})

describe("workspace selection journey model", () => {
  const paths = createTestModel(selectionJourney).getSimplePaths()

  it("visits every state on some path", () => {
    const reached = statesReached(paths)
    for (const state of Object.keys(selectionJourney.states)) expect(reached.has(JSON.stringify(state))).toBe(true)
    console.info(`workspace selection journey: ${paths.length} simple paths over ${Object.keys(selectionJourney.states).length} states`)
  })

  for (const path of paths) {
    it(`drives the rendered screen: ${path.description}`, async () => {
      const { workspace, currentPath } = renderAccess("/workspace-selection")
      const cards = () => within(screen.getByRole("list", { name: "Your workspaces" })).getAllByRole("button")
      await path.test({
        events: {
          "server.listsWorkspaces": () => workspace.load.resolve(four),
          "server.listsNone": () => workspace.load.resolve([]),
          "server.failsToList": () => workspace.load.reject(httpFailure("load-workspaces", 503)),
          "user.retries": () => void fireEvent.click(screen.getByRole("button", { name: "Try again" })),
          "user.searches": () =>
            void fireEvent.change(screen.getByLabelText("Search workspaces", { selector: "input" }), { target: { value: "glo" } }),
          "user.selects": () => void fireEvent.click(cards()[0]!),
          "server.switches": () =>
            workspace.switchWs.resolve({ access_token: "a", refresh_token: "r" }),
          "server.refusesSwitch": () => workspace.switchWs.reject(httpFailure("select-workspace", 500)),
          "server.returnsUser": () => workspace.refreshUser.resolve(),
        },
        states: {
          loading: () => expect(screen.getByRole("status", { name: "Loading workspaces..." })).toBeTruthy(),
          failed: () => expect(within(screen.getByRole("alert")).getByText("Failed to load workspaces")).toBeTruthy(),
          empty: () => expect(screen.getByText("No workspaces available")).toBeTruthy(),
          cards: () => {
            expect(cards()).toHaveLength(4)
            expect(screen.getByLabelText("Search workspaces", { selector: "input" })).toBeTruthy()
          },
          filtered: () => expect(cards().map((c) => c.textContent)).toEqual([expect.stringContaining("Globex")]),
          switching: () => expect(cards()[0]!.hasAttribute("data-selecting")).toBe(true),
          selectionFailed: () => expect(within(screen.getByRole("alert")).getByText("Failed to select workspace")).toBeTruthy(),
          refreshingUser: () => {
            expect(workspace.log.tokens).toEqual([{ accessToken: "a", refreshToken: "r" }])
            expect(currentPath()).toBe("/workspace-selection")
          },
          dashboard: () => expect(currentPath()).toBe("/dashboard"),
        },
      })
    })
  }
})
