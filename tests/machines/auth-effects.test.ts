import { describe, expect, it } from "vitest"
import { assign, createActor, setup } from "xstate"
import { sessionMachine } from "../../src/machines/session.machine.ts"
import {
  readEmailState,
  readLoginRouteState,
  readMessageState,
  startSessionWith,
  toFailure,
  type EffectFailure,
  type SessionActorLike,
  type SessionStart,
} from "../../src/machines/auth-effects.ts"
import { flush } from "./auth-fakes.ts"

/** A stand-in with the session's sign-in states: signedOut → signingIn → authenticated | signedOut (with an error). */
const fakeSession = setup({
  types: {
    context: {} as { error: EffectFailure | null; received: SessionStart | null },
    events: {} as
      | ({ type: "session.signedIn" } & SessionStart)
      | { type: "user.loaded" }
      | { type: "user.failed"; error: EffectFailure },
  },
}).createMachine({
  context: { error: null, received: null },
  initial: "signedOut",
  states: {
    signedOut: {
      on: { "session.signedIn": { target: "signingIn", actions: assign({ received: ({ event }) => event, error: null }) } },
    },
    signingIn: {
      on: {
        "user.loaded": "authenticated",
        "user.failed": { target: "signedOut", actions: assign({ error: ({ event }) => event.error }) },
      },
    },
    authenticated: {},
  },
})

const handOff: SessionStart = { accessToken: "a", refreshToken: "r", email: "ada@example.com" }

describe("startSessionWith", () => {
  it("the real session actor satisfies the hand-off's view of it", () => {
    const actor = createActor(sessionMachine, { input: { stored: { accessToken: null, userEmail: null, workspaceName: null } } })
    const asHandOff: SessionActorLike = actor
    expect(typeof asHandOff.send).toBe("function")
  })

  it("sends session.signedIn and resolves once the session is authenticated", async () => {
    const session = createActor(fakeSession).start()
    let settled = false
    const done = startSessionWith(session)(handOff).then(() => {
      settled = true
    })
    expect(session.getSnapshot().context.received).toMatchObject(handOff)
    await flush()
    expect(settled).toBe(false)
    session.send({ type: "user.loaded" })
    await done
    expect(settled).toBe(true)
  })

  it("rejects with the session's error when the sign-in falls back to signed out", async () => {
    const session = createActor(fakeSession).start()
    const failure: EffectFailure = { type: "SERVER_ERROR", message: "We're experiencing technical difficulties. Please try again later." }
    const done = startSessionWith(session)(handOff)
    session.send({ type: "user.failed", error: failure })
    await expect(done).rejects.toEqual(failure)
  })

  it("resolves at once when the session is already authenticated (another tab signed in)", async () => {
    const session = createActor(fakeSession).start()
    session.send({ type: "session.signedIn", ...handOff })
    session.send({ type: "user.loaded" })
    await expect(startSessionWith(session)(handOff)).resolves.toBeUndefined()
  })
})

describe("route state readers", () => {
  it("keeps only well-typed fields of a history state", () => {
    expect(readLoginRouteState({ email: "a@b.co", message: "Hi", error: true, from: "/dashboard" })).toEqual({
      email: "a@b.co",
      message: "Hi",
      error: true,
      from: "/dashboard",
    })
    expect(readLoginRouteState({ email: 3, message: "", error: "yes", from: "https://evil.example" })).toEqual({})
    expect(readLoginRouteState(null)).toEqual({})
    expect(readEmailState({ email: "a@b.co" })).toBe("a@b.co")
    expect(readEmailState("a@b.co")).toBeUndefined()
    expect(readMessageState({ message: "Email is already verified!" })).toBe("Email is already verified!")
  })

  it("reads any thrown value as a catalogue failure", () => {
    expect(toFailure({ type: "RATE_LIMIT_ERROR", message: "wait" })).toEqual({ type: "RATE_LIMIT_ERROR", message: "wait" })
    expect(toFailure(new Error("boom"), "Fallback")).toEqual({ type: "UNKNOWN_ERROR", message: "Fallback" })
    expect(toFailure(undefined)).toEqual({ type: "UNKNOWN_ERROR", message: "An unexpected error occurred. Please try again." })
  })
})
