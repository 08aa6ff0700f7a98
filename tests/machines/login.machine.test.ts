import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock, type ActorRefFrom } from "xstate"
import { validateLogin, type LoginPayload, type LoginResponse, type ResendVerificationPayload, type ResendVerificationResponse } from "../../src/contracts/auth.ts"
import { loginMachine, readLoginQuery, type LoginInput } from "../../src/machines/login.machine.ts"
import { resendVerificationMachine } from "../../src/machines/resend-verification.machine.ts"
import type { NotifyParams, PendingInvitation, SessionStart } from "../../src/machines/auth-effects.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never, networkFailure, resendAnswer, sampleLoginResponse } from "./auth-fakes.ts"

const start = (input: LoginInput = {}) => {
  const clock = new SimulatedClock()
  const login = controlled<LoginPayload, LoginResponse>()
  const startSession = controlled<SessionStart, void>()
  const resend = controlled<ResendVerificationPayload, ResendVerificationResponse>()
  const stored: PendingInvitation[] = []
  const toasts: NotifyParams[] = []
  const actor = createActor(
    loginMachine.provide({
      actors: {
        login: login.logic,
        startSession: startSession.logic,
        resendVerification: resendVerificationMachine.provide({
          actors: { resendVerification: resend.logic },
          actions: { notify: (_, params) => void toasts.push(params) },
        }),
      },
      actions: { storePendingInvitation: (_, params) => void stored.push(params) },
    }),
    { input, clock },
  ).start()
  const type = (field: "email" | "password", value: string) => actor.send({ type: "field.changed", field, value })
  const resendChild = () => actor.getSnapshot().children["resend"] as ActorRefFrom<typeof resendVerificationMachine> | undefined
  return { clock, login, startSession, resend, stored, toasts, actor, type, resendChild }
}

const unverified401 = httpFailure("login", 401, {
  _tag: "EmailNotVerified",
  message: "Please verify your email address",
  data: { error_type: "email_not_verified", email: "ada@example.com" },
})

describe("login machine: transition coverage", () => {
  it("drives every (state, event) edge", async () => {
    const input: LoginInput = { routeState: { email: "ada@example.com" } }
    const provided = loginMachine.provide({
      actors: {
        login: never(),
        startSession: never(),
        resendVerification: resendVerificationMachine.provide({ actors: { resendVerification: never() } }),
      },
    })
    const coverage = await coverTransitions(provided, {
      input,
      // A state is its value plus whether the form could be submitted: the guard of `form.submitted` depends on it.
      serializeState: (s) =>
        JSON.stringify([s.value, Object.keys(validateLogin({ email: s.context.email, password: s.context.password })).length === 0]),
      createActor: (clock) => createActor(provided, { input, clock }),
      events: [
        { type: "field.changed", field: "email", value: "ada@example.com" },
        { type: "field.changed", field: "password", value: "Correct-horse-1" },
        { type: "password.visibilityToggled" },
        { type: "form.submitted" },
        { type: "message.dismissed" },
        { type: "xstate.done.actor.login", output: sampleLoginResponse },
        { type: "xstate.error.actor.login", error: httpFailure("login", 401, { message: "Invalid email or password" }) },
        { type: "xstate.error.actor.login", error: unverified401 },
        { type: "xstate.done.actor.startSession" },
        { type: "xstate.error.actor.startSession", error: httpFailure("load-workspaces", 500) },
      ],
    })
    console.info(formatCoverage("login", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.total).toBeGreaterThanOrEqual(25)
    expect(coverage.driven).toBe(coverage.total)
    expect(coverage.edges.map((e) => e.target)).toEqual(
      expect.arrayContaining([
        '[{"form":"submitting"},true]',
        '[{"form":"startingSession"},true]',
        '[{"form":"unverified"},true]',
        '["signedIn",true]',
      ]),
    )
  })
})

describe("login machine: behaviour", () => {
  it("shows the message passed from the previous route with error or success styling", () => {
    const expired = start({ routeState: { message: "Your session has expired. Please sign in again.", error: true } })
    const sent = start({ routeState: { message: "Password reset successfully!", email: "ada@example.com" } })
    try {
      expect(expired.actor.getSnapshot().context.flash).toEqual({ message: "Your session has expired. Please sign in again.", tone: "error" })
      expect(sent.actor.getSnapshot().context.flash).toEqual({ message: "Password reset successfully!", tone: "success" })
      expect(sent.actor.getSnapshot().context.email).toBe("ada@example.com")
      sent.actor.send({ type: "message.dismissed" })
      expect(sent.actor.getSnapshot().context.flash).toBeUndefined()
    } finally {
      expired.actor.stop()
      sent.actor.stop()
    }
  })

  it("stores the invitation token and workspace id from the query on arrival, and nothing without a token", () => {
    const withInvite = start({ pendingInvitation: readLoginQuery("?invitation_token=tok-123&workspace_id=42") })
    const without = start({ pendingInvitation: readLoginQuery("?workspace_id=42") })
    try {
      expect(withInvite.stored).toEqual([{ token: "tok-123", workspaceId: 42 }])
      expect(withInvite.actor.getSnapshot().value).toEqual({ form: "editing" })
      expect(without.stored).toEqual([])
    } finally {
      withInvite.actor.stop()
      without.actor.stop()
    }
  })

  it("reads the pending invitation from either query form and ignores a bad workspace id", () => {
    expect(readLoginQuery("token=abc&workspaceId=7")).toEqual({ token: "abc", workspaceId: 7 })
    expect(readLoginQuery("?invitation_token=abc&workspace_id=x7")).toEqual({ token: "abc", workspaceId: null })
    expect(readLoginQuery("?invitation_token=abc&workspace_id=0")).toEqual({ token: "abc", workspaceId: null })
    expect(readLoginQuery("")).toBeNull()
    expect(readLoginQuery("?invitation_token=%20%20")).toBeNull()
  })

  it("validates before calling: required email, its format, and the 8-character password", () => {
    const { actor, type, login } = start()
    try {
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().value).toEqual({ form: "editing" })
      expect(actor.getSnapshot().context.fieldErrors).toEqual({ email: "Email is required", password: "Password is required" })
      type("email", "ada@")
      expect(actor.getSnapshot().context.fieldErrors).toEqual({ password: "Password is required" })
      type("password", "short")
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.fieldErrors).toEqual({
        email: "Please enter a valid email address",
        password: "Password must be at least 8 characters",
      })
      expect(login.calls).toEqual([])
    } finally {
      actor.stop()
    }
  })

  it("toggles the password visibility", () => {
    const { actor } = start()
    try {
      expect(actor.getSnapshot().context.passwordVisible).toBe(false)
      actor.send({ type: "password.visibilityToggled" })
      expect(actor.getSnapshot().context.passwordVisible).toBe(true)
      actor.send({ type: "password.visibilityToggled" })
      expect(actor.getSnapshot().context.passwordVisible).toBe(false)
    } finally {
      actor.stop()
    }
  })

  it("signs in: login with the trimmed email, then hands the answer to the session", async () => {
    const { actor, type, login, startSession } = start({ routeState: { message: "Password reset successfully!" } })
    try {
      type("email", "  ada@example.com ")
      type("password", "Correct-horse-1")
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().value).toEqual({ form: "submitting" })
      expect(actor.getSnapshot().context.flash).toBeUndefined()
      expect(actor.getSnapshot().can({ type: "form.submitted" })).toBe(false)
      expect(login.calls).toEqual([{ email: "ada@example.com", password: "Correct-horse-1" }])
      await login.resolve(sampleLoginResponse)
      expect(actor.getSnapshot().value).toEqual({ form: "startingSession" })
      expect(startSession.calls).toEqual([{ accessToken: "access-1", refreshToken: "refresh-1", email: "ada@example.com" }])
      await startSession.resolve(undefined)
      expect(actor.getSnapshot().value).toBe("signedIn")
      expect(actor.getSnapshot().status).toBe("done")
    } finally {
      actor.stop()
    }
  })

  it("wrong credentials: the server's 401 text, the form stays usable", async () => {
    const { actor, type, login } = start()
    try {
      type("email", "ada@example.com")
      type("password", "wrong-password")
      actor.send({ type: "form.submitted" })
      await login.reject(httpFailure("login", 401, { _tag: "InvalidCredentials", message: "Invalid email or password" }))
      expect(actor.getSnapshot().value).toEqual({ form: "editing" })
      expect(actor.getSnapshot().context.error).toBe("Invalid email or password")
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.error).toBeUndefined()
      await login.reject(networkFailure("login"))
      expect(actor.getSnapshot().context.error).toBe("Unable to connect to the server. Please check your internet connection.")
      actor.send({ type: "form.submitted" })
      await login.reject(httpFailure("login", 503))
      expect(actor.getSnapshot().context.error).toBe("We're experiencing technical difficulties. Please try again later.")
    } finally {
      actor.stop()
    }
  })

  it("hands the gate's origin to the session so the user returns where they were going", async () => {
    const { actor, type, login, startSession } = start({ routeState: { from: "/dashboard/scans?page=2" } })
    try {
      type("email", "ada@example.com")
      type("password", "Correct-horse-1")
      actor.send({ type: "form.submitted" })
      await login.resolve(sampleLoginResponse)
      expect(startSession.calls).toEqual([
        { accessToken: "access-1", refreshToken: "refresh-1", email: "ada@example.com", returnTo: "/dashboard/scans?page=2" },
      ])
    } finally {
      actor.stop()
    }
  })

  it("a failed session start (user or workspaces) shows its text and lets the user retry", async () => {
    const { actor, type, login, startSession } = start()
    try {
      type("email", "ada@example.com")
      type("password", "Correct-horse-1")
      actor.send({ type: "form.submitted" })
      await login.resolve(sampleLoginResponse)
      await startSession.reject(httpFailure("load-workspaces", 500))
      expect(actor.getSnapshot().value).toEqual({ form: "editing" })
      expect(actor.getSnapshot().context.error).toBe("Failed to load workspaces")
    } finally {
      actor.stop()
    }
  })

  it("401 email_not_verified: resends automatically to the reported address and offers a manual resend after the cool-down", async () => {
    const { actor, type, login, resend, toasts, clock, resendChild } = start()
    try {
      type("email", "Ada@Example.com")
      type("password", "Correct-horse-1")
      actor.send({ type: "form.submitted" })
      await login.reject(unverified401)
      expect(actor.getSnapshot().value).toEqual({ form: "unverified" })
      expect(actor.getSnapshot().context.unverifiedEmail).toBe("ada@example.com")
      expect(actor.getSnapshot().context.error).toBeUndefined()
      // The automatic resend.
      expect(resend.calls).toEqual([{ email: "ada@example.com" }])
      const child = resendChild()!
      expect(child.getSnapshot().can({ type: "resend.requested" })).toBe(false)
      await resend.resolve(resendAnswer("ada@example.com", 30))
      expect(child.getSnapshot().value).toBe("sent")
      expect(toasts).toEqual([{ kind: "success", message: "Verification email sent to ada@example.com. The link expires in 30 minutes." }])
      clock.increment(60_000)
      expect(child.getSnapshot().can({ type: "resend.requested" })).toBe(true)
      child.send({ type: "resend.requested" })
      expect(resend.calls).toHaveLength(2)
      // Signing in again from the warning box leaves it (and cancels the resend in flight).
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().value).toEqual({ form: "submitting" })
      expect(resendChild()).toBeUndefined()
      expect(resend.aborted()).toBe(1)
    } finally {
      actor.stop()
    }
  })

  it("falls back to the typed address when the 401 does not name one", async () => {
    const { actor, type, login, resend } = start()
    try {
      type("email", " grace@example.com ")
      type("password", "Correct-horse-1")
      actor.send({ type: "form.submitted" })
      await login.reject(httpFailure("login", 401, { data: { error_type: "email_not_verified" } }))
      expect(actor.getSnapshot().context.unverifiedEmail).toBe("grace@example.com")
      expect(resend.calls).toEqual([{ email: "grace@example.com" }])
    } finally {
      actor.stop()
    }
  })
})
