// @vitest-environment happy-dom
/**
 * Journey model of the sign-in screen (STACK.md §9, technique 2): user-visible states and user/server events, no
 * invoke or after, so `createTestModel` accepts it. Every simple path is replayed on the rendered SPA with fake
 * effects; each state's assertion checks what the user sees.
 */
import { cleanup, fireEvent, screen } from "@testing-library/react"
import { afterEach, describe, expect, it } from "vitest"
import { createMachine } from "xstate"
import { createTestModel } from "xstate/graph"
import { httpFailure, resendAnswer, sampleLoginResponse } from "../machines/auth-fakes.ts"
import { renderAuth, typeInto, type FakeAuthEffects } from "./auth-render.tsx"

afterEach(cleanup)

const journey = createMachine({
  id: "loginJourney",
  types: {} as {
    events:
      | { type: "user.submitsEmpty" }
      | { type: "user.submitsCredentials" }
      | { type: "server.acceptsLogin" }
      | { type: "server.rejectsCredentials" }
      | { type: "server.reportsUnverified" }
      | { type: "server.sendsVerification" }
      | { type: "session.started" }
  },
  initial: "form",
  states: {
    form: { on: { "user.submitsEmpty": "fieldErrors", "user.submitsCredentials": "signingIn" } },
    fieldErrors: { on: { "user.submitsCredentials": "signingIn" } },
    signingIn: {
      on: {
        "server.acceptsLogin": "startingSession",
        "server.rejectsCredentials": "rejected",
        "server.reportsUnverified": "unverified",
      },
    },
    rejected: { on: { "user.submitsCredentials": "signingIn" } },
    unverified: { on: { "server.sendsVerification": "verificationSent" } },
    verificationSent: {},
    startingSession: { on: { "session.started": "signedIn" } },
    signedIn: { type: "final" },
  },
})

describe("login journey model", () => {
  const model = createTestModel(journey)
  const paths = model.getSimplePaths()

  it("visits every state of the journey on some path", () => {
    const reached = new Set(paths.flatMap((p) => [p.state, ...p.steps.map((step) => step.state)].map((s) => JSON.stringify(s.value))))
    for (const state of Object.keys(journey.states)) expect(reached.has(JSON.stringify(state))).toBe(true)
    console.info(`login journey: ${paths.length} simple paths over ${Object.keys(journey.states).length} states`)
  })

  for (const path of paths) {
    it(`drives the rendered screen: ${path.description}`, async () => {
      const { fakes } = renderAuth("/login")
      const signIn = () => screen.getByRole("button", { name: "Sign in" })
      const fill = () => {
        typeInto("Email", "ada@example.com")
        typeInto("Password", "Correct-horse-1")
      }
      const f: FakeAuthEffects = fakes
      await path.test({
        events: {
          "user.submitsEmpty": () => void fireEvent.click(signIn()),
          "user.submitsCredentials": () => {
            fill()
            fireEvent.click(signIn())
          },
          "server.acceptsLogin": () => f.resolve("login", sampleLoginResponse),
          "server.rejectsCredentials": () =>
            f.reject("login", httpFailure("login", 401, { _tag: "InvalidCredentials", message: "Invalid email or password" })),
          "server.reportsUnverified": () =>
            f.reject("login", httpFailure("login", 401, { data: { error_type: "email_not_verified", email: "ada@example.com" } })),
          "server.sendsVerification": () => f.resolve("resendVerification", resendAnswer("ada@example.com", 30)),
          "session.started": () => f.resolve("startSession", undefined),
        },
        states: {
          form: () => {
            expect(screen.getByRole("heading", { level: 1, name: "Sign in" })).toBeTruthy()
            expect(screen.queryByRole("alert")).toBeNull()
          },
          fieldErrors: () => {
            expect(screen.getByText("Email is required")).toBeTruthy()
            expect(f.calls.login).toHaveLength(0)
          },
          signingIn: () => expect(signIn().getAttribute("data-pending")).toBe("true"),
          rejected: () => expect(screen.getByRole("alert").textContent).toBe("Invalid email or password"),
          unverified: () => {
            expect(screen.getByText("Please verify your email address to continue")).toBeTruthy()
            expect(f.calls.resendVerification).toEqual([{ email: "ada@example.com" }])
          },
          verificationSent: () =>
            expect(screen.getAllByText("Verification email sent to ada@example.com. The link expires in 30 minutes.").length).toBe(2),
          startingSession: () => {
            expect(f.calls.startSession).toHaveLength(1)
            expect(signIn().getAttribute("data-pending")).toBe("true")
          },
          signedIn: () => expect(signIn().getAttribute("data-pending")).toBe("true"),
        },
      })
    })
  }
})
