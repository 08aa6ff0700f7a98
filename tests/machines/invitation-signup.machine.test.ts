import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock } from "xstate"
import { Redirects } from "../../src/contracts/constants.ts"
import type { WorkspaceId } from "../../src/contracts/ids.ts"
import type {
  AcceptInvitationResponse,
  InvitationCheckResponse,
  InvitationCompletionPayload,
} from "../../src/contracts/invitations.ts"
import { hasPasswordComposition } from "../../src/contracts/validation.ts"
import type { NavigateParams } from "../../src/machines/auth-effects.ts"
import {
  invitationSignupMachine,
  passwordRequirements,
  selectPasswordRequirements,
  type InvitationSignupField,
  type InvitationSignupInput,
} from "../../src/machines/invitation-signup.machine.ts"
import type { SessionHandOff } from "../../src/machines/screen-environment.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never, networkFailure } from "./auth-fakes.ts"

const TOKEN = "invitation-token-0123456789abcdef"

const check: InvitationCheckResponse = {
  ok: true,
  email: "grace@example.com",
  workspace_name: "Acme Security",
  role_name: "Auditor",
  status: "pending",
  user_exists: false,
}
const withTokens: AcceptInvitationResponse = {
  ok: true,
  message: "Registration Complete!",
  access_token: "access-9",
  refresh_token: "refresh-9",
  data: { workspace_id: 5 as WorkspaceId, workspace_name: "Acme Security", email: "grace@example.com" },
}
const withoutTokens: AcceptInvitationResponse = { ok: true, message: "Registration Complete!", data: { workspace_name: "Acme Security" } }

const validValues = { first_name: "Grace", last_name: "Hopper", password: "Compiler-1952", confirm_password: "Compiler-1952" }

const start = (input: Partial<InvitationSignupInput> = {}) => {
  const clock = new SimulatedClock()
  const checkFx = controlled<{ readonly token: string }, InvitationCheckResponse>()
  const completeFx = controlled<InvitationCompletionPayload, AcceptInvitationResponse>()
  const sessionFx = controlled<SessionHandOff, void>()
  const navigations: NavigateParams[] = []
  const actor = createActor(
    invitationSignupMachine.provide({
      actors: { checkInvitation: checkFx.logic, completeInvitation: completeFx.logic, startSession: sessionFx.logic },
      actions: { navigate: (_, p) => void navigations.push(p) },
    }),
    { input: { token: TOKEN, timezone: "Europe/Paris", ...input }, clock },
  ).start()
  const type = (field: InvitationSignupField, value: string) => actor.send({ type: "field.changed", field, value })
  const fill = (values: Partial<Record<InvitationSignupField, string>> = validValues) => {
    for (const [field, value] of Object.entries(values)) type(field as InvitationSignupField, value)
  }
  return { clock, actor, checkFx, completeFx, sessionFx, navigations, type, fill }
}

describe("invitation sign-up machine: transition coverage", () => {
  it("drives every (state, event) edge", async () => {
    const provided = invitationSignupMachine.provide({
      actors: { checkInvitation: never(), completeInvitation: never(), startSession: never() },
    })
    const input: InvitationSignupInput = { token: TOKEN, timezone: "UTC", initialValues: validValues }
    const coverage = await coverTransitions(provided, {
      input,
      createActor: (clock) => createActor(provided, { input, clock }),
      events: [
        { type: "field.changed", field: "first_name", value: "Grace" },
        { type: "visibility.toggled", field: "password" },
        { type: "form.submitted" },
        { type: "invitation.retried" },
        { type: "login.requested" },
        { type: "xstate.done.actor.checkInvitation", output: check },
        { type: "xstate.error.actor.checkInvitation", error: httpFailure("invitation", 404, { _tag: "NotFound", message: "x" }) },
        { type: "xstate.error.actor.checkInvitation", error: networkFailure("invitation") },
        {
          type: "xstate.error.actor.checkInvitation",
          error: httpFailure("invitation", 409, { _tag: "Conflict", message: "x", data: { error_type: "already_accepted" } }),
        },
        { type: "xstate.done.actor.completeInvitation", output: withTokens },
        { type: "xstate.done.actor.completeInvitation", output: withoutTokens },
        {
          type: "xstate.error.actor.completeInvitation",
          error: httpFailure("invitation-completion", 409, { _tag: "Conflict", message: "exists", data: { error_type: "account_exists" } }),
        },
        {
          type: "xstate.error.actor.completeInvitation",
          error: httpFailure("invitation-completion", 409, { _tag: "Conflict", message: "x", data: { error_type: "already_accepted" } }),
        },
        { type: "xstate.error.actor.completeInvitation", error: httpFailure("invitation-completion", 500, {}) },
        { type: "xstate.done.actor.startSession" },
        { type: "xstate.error.actor.startSession", error: networkFailure("generic") },
      ],
    })
    console.info(formatCoverage("invitationSignup", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
    expect(coverage.total).toBeGreaterThanOrEqual(20)
  })
})

describe("invitation sign-up machine: the link", () => {
  it("without a token shows 'Invalid invitation' ('Invalid invitation token'); 'Go to login' goes to /login", () => {
    const { actor, checkFx, navigations } = start({ token: null })
    try {
      expect(actor.getSnapshot().value).toBe("invalid")
      expect(actor.getSnapshot().context.error).toBe("Invalid invitation token")
      expect(checkFx.calls).toEqual([])
      actor.send({ type: "login.requested" })
      expect(navigations).toEqual([{ to: "/login" }])
    } finally {
      actor.stop()
    }
  })

  it.each([
    [httpFailure("invitation", 404, { _tag: "NotFound", message: "x" }), "Invitation not found. The invitation may have been revoked."],
    [httpFailure("invitation", 400, { _tag: "InvalidToken", message: "Invalid token" }), "Invalid invitation token. Please check your invitation link."],
    [httpFailure("invitation", 410, { _tag: "Gone", message: "expired" }), "This invitation has expired. Please request a new invitation."],
  ])("a refused token (%#) is 'Invalid invitation' with the §8 text", async (failure, message) => {
    const { actor, checkFx } = start()
    try {
      await checkFx.reject(failure)
      expect(actor.getSnapshot().value).toBe("invalid")
      expect(actor.getSnapshot().context.error).toBe(message)
    } finally {
      actor.stop()
    }
  })

  it("an already-accepted invitation goes to /login after 1.5 s", async () => {
    const { actor, checkFx, clock, navigations } = start()
    try {
      await checkFx.reject(httpFailure("invitation", 409, { _tag: "Conflict", message: "x", data: { error_type: "already_accepted" } }))
      expect(actor.getSnapshot().value).toBe("alreadyAccepted")
      clock.increment(Redirects.afterAlreadyAcceptedMs - 1)
      expect(navigations).toEqual([])
      clock.increment(1)
      expect(navigations).toEqual([{ to: "/login" }])
    } finally {
      actor.stop()
    }
  })

  it("a check that could not run offers a retry", async () => {
    const { actor, checkFx } = start()
    try {
      await checkFx.reject(networkFailure("invitation"))
      expect(actor.getSnapshot().value).toBe("unavailable")
      actor.send({ type: "invitation.retried" })
      await checkFx.resolve(check)
      expect(actor.getSnapshot().value).toEqual({ ready: "editing" })
      expect(actor.getSnapshot().context.invitation?.email).toBe("grace@example.com")
    } finally {
      actor.stop()
    }
  })
})

describe("invitation sign-up machine: the form", () => {
  it("validates with the §5 rules before calling", async () => {
    const { actor, checkFx, completeFx, type } = start()
    try {
      await checkFx.resolve(check)
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.fieldErrors).toEqual({
        first_name: "First name is required",
        last_name: "Last name is required",
        password: "Password is required",
        confirm_password: "Please confirm your password",
      })
      type("first_name", "x".repeat(51))
      type("last_name", "Hopper")
      type("password", "lowercase1")
      type("confirm_password", "different")
      expect(actor.getSnapshot().context.fieldErrors).toEqual({})
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.fieldErrors).toEqual({
        first_name: "First name must be less than 50 characters",
        password: "Password must contain at least one uppercase letter, one lowercase letter, and one number",
        confirm_password: "Passwords don't match",
      })
      expect(completeFx.calls).toEqual([])
      expect(actor.getSnapshot().value).toEqual({ ready: "editing" })
    } finally {
      actor.stop()
    }
  })

  it("toggles password and confirmation visibility independently", async () => {
    const { actor, checkFx } = start()
    try {
      await checkFx.resolve(check)
      actor.send({ type: "visibility.toggled", field: "confirm_password" })
      expect(actor.getSnapshot().context.visible).toEqual({ password: false, confirm_password: true })
      actor.send({ type: "visibility.toggled", field: "password" })
      actor.send({ type: "visibility.toggled", field: "confirm_password" })
      expect(actor.getSnapshot().context.visible).toEqual({ password: true, confirm_password: false })
    } finally {
      actor.stop()
    }
  })

  it("updates the password checklist live", async () => {
    const { actor, checkFx, type } = start()
    try {
      await checkFx.resolve(check)
      const met = () => selectPasswordRequirements(actor.getSnapshot()).filter((r) => r.met).map((r) => r.id)
      expect(met()).toEqual([])
      type("password", "abc")
      expect(met()).toEqual(["lowercase"])
      type("password", "abcD")
      expect(met()).toEqual(["uppercase", "lowercase"])
      type("password", "abcDefg1")
      expect(met()).toEqual(["length", "uppercase", "lowercase", "number"])
    } finally {
      actor.stop()
    }
  })

  it("tokens returned: sends the completion payload, then hands the tokens to the session (→ /dashboard)", async () => {
    const { actor, checkFx, completeFx, sessionFx, fill, navigations } = start()
    try {
      await checkFx.resolve(check)
      fill({ ...validValues, first_name: "  Grace ", last_name: " Hopper" })
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().value).toEqual({ ready: "submitting" })
      expect(completeFx.calls).toEqual([
        {
          invitation_token: TOKEN,
          first_name: "Grace",
          last_name: "Hopper",
          password: "Compiler-1952",
          confirm_password: "Compiler-1952",
          timezone: "Europe/Paris",
        },
      ])
      await completeFx.resolve(withTokens)
      expect(sessionFx.calls).toEqual([
        { accessToken: "access-9", refreshToken: "refresh-9", email: "grace@example.com", returnTo: "/dashboard" },
      ])
      await sessionFx.resolve()
      expect(actor.getSnapshot().status).toBe("done")
      expect(actor.getSnapshot().context.values.password).toBe("")
      expect(navigations).toEqual([])
    } finally {
      actor.stop()
    }
  })

  it("no tokens: goes to /login with 'Registration Complete!'", async () => {
    const { actor, checkFx, completeFx, fill, navigations } = start()
    try {
      await checkFx.resolve(check)
      fill()
      actor.send({ type: "form.submitted" })
      await completeFx.resolve(withoutTokens)
      expect(navigations).toEqual([{ to: "/login", state: { email: "grace@example.com", message: "Registration Complete!" } }])
    } finally {
      actor.stop()
    }
  })

  it.each([
    [{ message: "User is already a member of this workspace" }, 409, "You're already a member of this workspace"],
    [{ message: "Invitation already accepted" }, 409, "You're already a member of this workspace"],
    [{ message: "Invitation has expired" }, 410, "This invitation has expired. Please request a new one."],
    [{ message: "Invalid invitation token" }, 400, "Invalid invitation link. Please check your email for the correct link."],
    [{}, 500, "Failed to complete signup"],
  ])("a refused completion (%#) stays on the form with the §8 completion text", async (body, status, message) => {
    const { actor, checkFx, completeFx, fill } = start()
    try {
      await checkFx.resolve(check)
      fill()
      actor.send({ type: "form.submitted" })
      await completeFx.reject(httpFailure("invitation-completion", status, body))
      expect(actor.getSnapshot().value).toEqual({ ready: "editing" })
      expect(actor.getSnapshot().context.error).toBe(message)
      // The typed values stay, so the user can correct and resubmit.
      expect(actor.getSnapshot().context.values.first_name).toBe("Grace")
    } finally {
      actor.stop()
    }
  })

  it("an invitee who already has an account is sent to /login with the invitation kept", async () => {
    const { actor, checkFx, completeFx, fill, navigations } = start()
    try {
      await checkFx.resolve(check)
      fill()
      actor.send({ type: "form.submitted" })
      await completeFx.reject(
        httpFailure("invitation-completion", 409, {
          _tag: "Conflict",
          message: "An account with this email already exists. Please sign in to accept the invitation.",
          data: { error_type: "account_exists", email: "grace@example.com" },
        }),
      )
      expect(navigations).toEqual([
        {
          to: `/login?invitation_token=${TOKEN}`,
          state: { email: "grace@example.com", message: "An account with this email already exists. Please sign in to accept the invitation." },
        },
      ])
    } finally {
      actor.stop()
    }
  })
})

describe("password requirement checklist (property)", () => {
  it("all four met ⇔ the contract's length + composition rule holds", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), (password) => {
        const all = passwordRequirements(password).every((r) => r.met)
        expect(all).toBe(password.length >= 8 && hasPasswordComposition(password))
      }),
      { numRuns: 500 },
    )
  })
})
