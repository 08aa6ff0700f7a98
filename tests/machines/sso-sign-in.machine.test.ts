import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock } from "xstate"
import type { SsoExchangeResponse, SsoStartPayload, SsoStartResponse } from "../../src/contracts/sso.ts"
import { SsoMessages } from "../../src/contracts/sso.ts"
import type { SessionStart } from "../../src/machines/auth-effects.ts"
import { readSsoQuery, ssoSignInMachine, type SsoSignInInput } from "../../src/machines/sso-sign-in.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"

const exchanged: SsoExchangeResponse = {
  access_token: "access",
  refresh_token: "refresh",
  data: {
    id: 7 as never, email: "alice@corp.example", email_verified: true, first_name: "Alice", last_name: "L",
    workspace_name: "Corp", roles: [{ id: 2 as never, name: "Security Engineer" }], timezone: null,
  },
  return_to: "/dashboard/scans",
}

const start = (input: SsoSignInInput) => {
  const ssoStart = controlled<SsoStartPayload, SsoStartResponse>()
  const ssoExchange = controlled<{ readonly code: string }, SsoExchangeResponse>()
  const session = controlled<SessionStart, void>()
  const left: string[] = []
  const actor = createActor(
    ssoSignInMachine.provide({
      actors: { ssoStart: ssoStart.logic, ssoExchange: ssoExchange.logic, startSession: session.logic },
      actions: { leaveForProvider: (_, { url }) => void left.push(url) },
    }),
    { input, clock: new SimulatedClock() },
  ).start()
  return { actor, ssoStart, ssoExchange, session, left }
}

describe("sso-sign-in machine: transition coverage", () => {
  it("drives every (state, event) edge from the email form and from the provider's return", async () => {
    const provided = ssoSignInMachine.provide({
      actors: { ssoStart: never(), ssoExchange: never(), startSession: never() },
    })
    const events = [
      { type: "field.changed", value: "alice@corp.example" },
      { type: "form.submitted" },
      { type: "retry.requested" },
      { type: "xstate.done.actor.ssoStart", output: { data: { redirect_url: "https://idp.example/auth" } } },
      { type: "xstate.error.actor.ssoStart", error: httpFailure("login", 404, { message: SsoMessages.noConnectionForDomain }) },
      { type: "xstate.done.actor.ssoExchange", output: exchanged },
      { type: "xstate.error.actor.ssoExchange", error: httpFailure("login", 400, { message: SsoMessages.codeInvalid }) },
      { type: "xstate.done.actor.startSession" },
      { type: "xstate.error.actor.startSession", error: httpFailure("login", 500) },
    ]
    let driven = 0
    let total = 0
    for (const input of [
      { mode: "start", email: "alice@corp.example" },
      { mode: "return", code: "one-time", error: null },
      { mode: "return", code: null, error: "emailNotVerified" },
    ] as const satisfies ReadonlyArray<SsoSignInInput>) {
      const coverage = await coverTransitions(provided, { input, createActor: (clock) => createActor(provided, { input, clock }), events })
      console.info(formatCoverage(`ssoSignIn (${input.mode})`, coverage))
      expect(coverage.missing).toEqual([])
      driven += coverage.driven
      total += coverage.total
    }
    expect(driven).toBe(total)
    // start: editing changed/submitted(2 guards), starting done/error; return: exchanging done/error, startingSession
    // done/error, failed retry, then the email form's edges again.
    expect(total).toBeGreaterThanOrEqual(9)
  })
})

describe("sso-sign-in machine: behaviour", () => {
  it("reads the query: nothing → the email form, code or error → the return", () => {
    expect(readSsoQuery("")).toEqual({ mode: "start" })
    expect(readSsoQuery("?email=a%40b.example")).toEqual({ mode: "start", email: "a@b.example" })
    expect(readSsoQuery("?code=abc")).toEqual({ mode: "return", code: "abc", error: null })
    expect(readSsoQuery("?error=signInExpired")).toEqual({ mode: "return", code: null, error: "signInExpired" })
  })

  it("checks the email, asks the server for the provider and leaves for it", async () => {
    const { actor, ssoStart, left } = start({ mode: "start", returnTo: "/dashboard/scans" })
    try {
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.fieldError).toBe("Email is required")
      expect(ssoStart.calls).toEqual([])
      actor.send({ type: "field.changed", value: " alice@corp.example " })
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().value).toBe("starting")
      expect(ssoStart.calls).toEqual([{ email: "alice@corp.example", return_to: "/dashboard/scans" }])
      await ssoStart.resolve({ data: { redirect_url: "https://idp.example/auth?x=1" } })
      expect(actor.getSnapshot().value).toBe("redirecting")
      expect(left).toEqual(["https://idp.example/auth?x=1"])
    } finally {
      actor.stop()
    }
  })

  it("shows the server's refusal for a domain without SSO and lets the user correct the email", async () => {
    const { actor, ssoStart, left } = start({ mode: "start", email: "bob@nosso.example" })
    try {
      actor.send({ type: "form.submitted" })
      await ssoStart.reject(httpFailure("login", 404, { message: SsoMessages.noConnectionForDomain }))
      expect(actor.getSnapshot().value).toBe("editing")
      expect(actor.getSnapshot().context.error).toBe(SsoMessages.noConnectionForDomain)
      expect(left).toEqual([])
    } finally {
      actor.stop()
    }
  })

  it("exchanges the code and hands the tokens to the session (back where the sign-in started)", async () => {
    const { actor, ssoExchange, session } = start({ mode: "return", code: "one-time", error: null })
    try {
      expect(actor.getSnapshot().value).toBe("exchanging")
      expect(ssoExchange.calls).toEqual([{ code: "one-time" }])
      await ssoExchange.resolve(exchanged)
      expect(session.calls).toEqual([{ accessToken: "access", refreshToken: "refresh", email: "alice@corp.example", returnTo: "/dashboard/scans" }])
      await session.resolve(undefined)
      expect(actor.getSnapshot().value).toBe("signedIn")
    } finally {
      actor.stop()
    }
  })

  it("shows the provider's refusal in the contract's words, an unknown key as the generic failure, and starts again", async () => {
    const refused = start({ mode: "return", code: null, error: "emailDomainMismatch" })
    try {
      expect(refused.actor.getSnapshot().value).toBe("failed")
      expect(refused.actor.getSnapshot().context.error).toBe(SsoMessages.emailDomainMismatch)
      refused.actor.send({ type: "retry.requested" })
      expect(refused.actor.getSnapshot().value).toBe("editing")
      expect(refused.actor.getSnapshot().context.error).toBeUndefined()
    } finally {
      refused.actor.stop()
    }
    const odd = start({ mode: "return", code: null, error: "<script>" })
    try {
      expect(odd.actor.getSnapshot().context.error).toBe(SsoMessages.signInFailed)
    } finally {
      odd.actor.stop()
    }
  })

  it("a used or expired code shows the server's words", async () => {
    const { actor, ssoExchange } = start({ mode: "return", code: "used", error: null })
    try {
      await ssoExchange.reject(httpFailure("login", 400, { message: SsoMessages.codeInvalid }))
      expect(actor.getSnapshot().value).toBe("failed")
      expect(actor.getSnapshot().context.error).toBe(SsoMessages.codeInvalid)
    } finally {
      actor.stop()
    }
  })
})
