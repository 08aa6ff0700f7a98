import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock } from "xstate"
import { Redirects, Toasts } from "../../src/contracts/constants.ts"
import type { WorkspaceId } from "../../src/contracts/ids.ts"
import type {
  AcceptInvitationPayload,
  AcceptInvitationResponse,
  InvitationCheckResponse,
} from "../../src/contracts/invitations.ts"
import { emptyWorkspaceStore } from "../../src/contracts/workspaces.ts"
import type { NavigateParams } from "../../src/machines/auth-effects.ts"
import {
  acceptLabel,
  invitationAcceptMachine,
  selectAcceptLabel,
  type InvitationAcceptInput,
} from "../../src/machines/invitation-accept.machine.ts"
import type { SessionHandOff, ToastRequest, WorkspaceStoreTransition } from "../../src/machines/screen-environment.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never, networkFailure } from "./auth-fakes.ts"

const T0 = Date.parse("2025-03-01T10:00:00.000Z")
const TOKEN = "invitation-token-0123456789abcdef"

const check = (extra: Partial<InvitationCheckResponse> = {}): InvitationCheckResponse => ({
  ok: true,
  email: "grace@example.com",
  workspace_name: "Acme Security",
  role_name: "Auditor",
  status: "pending",
  ...extra,
})

const joined: AcceptInvitationResponse = {
  ok: true,
  message: "Invitation accepted",
  data: { workspace_id: 5 as WorkspaceId, workspace_name: "Acme Security", email: "grace@example.com" },
}
const withTokens: AcceptInvitationResponse = {
  ok: true,
  message: "Registration Complete!",
  access_token: "access-9",
  refresh_token: "refresh-9",
  data: { workspace_id: 5 as WorkspaceId, workspace_name: "Acme Security", email: "grace@example.com" },
}
const withoutTokens: AcceptInvitationResponse = { ok: true, message: "Registration Complete!", data: { workspace_name: "Acme Security" } }

const alreadyAccepted = httpFailure("invitation", 409, {
  _tag: "Conflict",
  message: "This invitation has already been accepted. You can sign in now.",
  data: { error_type: "already_accepted" },
})
const accountExists = httpFailure("invitation", 409, {
  _tag: "Conflict",
  message: "An account with this email already exists. Please sign in to accept the invitation.",
  data: { error_type: "account_exists", email: "grace@example.com" },
})

const start = (input: Partial<InvitationAcceptInput> = {}) => {
  const clock = new SimulatedClock()
  const checkFx = controlled<{ readonly token: string }, InvitationCheckResponse>()
  const acceptFx = controlled<AcceptInvitationPayload, AcceptInvitationResponse>()
  const sessionFx = controlled<SessionHandOff, void>()
  const navigations: NavigateParams[] = []
  const toasts: ToastRequest[] = []
  const transitions: WorkspaceStoreTransition[] = []
  const actor = createActor(
    invitationAcceptMachine.provide({
      actors: { checkInvitation: checkFx.logic, acceptInvitation: acceptFx.logic, startSession: sessionFx.logic },
      actions: {
        navigate: (_, p) => void navigations.push(p),
        notify: (_, p) => void toasts.push(p),
        updateWorkspaceStore: (_, p) => void transitions.push(p.transition),
      },
    }),
    { input: { token: TOKEN, signedIn: false, timezone: "Europe/Paris", now: () => T0, ...input }, clock },
  ).start()
  return { clock, actor, checkFx, acceptFx, sessionFx, navigations, toasts, transitions }
}

describe("invitation page machine: transition coverage", () => {
  it.each([
    ["signed out", false],
    ["signed in", true],
  ])("drives every (state, event) edge (%s)", async (name, signedIn) => {
    const provided = invitationAcceptMachine.provide({
      actors: { checkInvitation: never(), acceptInvitation: never(), startSession: never() },
    })
    const input: InvitationAcceptInput = { token: TOKEN, signedIn, timezone: "UTC", now: () => T0 }
    const coverage = await coverTransitions(provided, {
      input,
      // The accept branch depends on what the check said about the invitee's account.
      serializeState: (s) => JSON.stringify([s.value, s.context.invitation?.user_exists ?? null]),
      createActor: (clock) => createActor(provided, { input, clock }),
      events: [
        { type: "invitation.accepted" },
        { type: "invitation.retried" },
        { type: "xstate.done.actor.checkInvitation", output: check() },
        { type: "xstate.done.actor.checkInvitation", output: check({ user_exists: false }) },
        { type: "xstate.done.actor.checkInvitation", output: check({ user_exists: true }) },
        { type: "xstate.error.actor.checkInvitation", error: alreadyAccepted },
        { type: "xstate.error.actor.checkInvitation", error: httpFailure("invitation", 410, { _tag: "Gone", message: "Invitation has expired" }) },
        { type: "xstate.error.actor.checkInvitation", error: networkFailure("invitation") },
        { type: "xstate.error.actor.checkInvitation", error: httpFailure("invitation", 404, { _tag: "NotFound", message: "gone" }) },
        { type: "xstate.done.actor.acceptInvitation", output: withTokens },
        { type: "xstate.done.actor.acceptInvitation", output: joined },
        { type: "xstate.error.actor.acceptInvitation", error: accountExists },
        { type: "xstate.error.actor.acceptInvitation", error: httpFailure("invitation", 400, { _tag: "ValidationError", message: "First name, last name and password are required to complete signup" }) },
        { type: "xstate.error.actor.acceptInvitation", error: alreadyAccepted },
        { type: "xstate.error.actor.acceptInvitation", error: httpFailure("invitation", 410, {}) },
        { type: "xstate.error.actor.acceptInvitation", error: httpFailure("invitation", 500, {}) },
        { type: "xstate.done.actor.startSession" },
        { type: "xstate.error.actor.startSession", error: networkFailure("generic") },
      ],
    })
    console.info(formatCoverage(`invitationAccept (${name})`, coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
    expect(coverage.total).toBeGreaterThanOrEqual(20)
  })
})

describe("invitation page machine", () => {
  it("without a token the link is invalid at once ('Invalid or expired invitation link')", () => {
    const { actor, checkFx } = start({ token: "  " })
    try {
      expect(actor.getSnapshot().value).toBe("invalid")
      expect(actor.getSnapshot().context.error).toBe("Invalid or expired invitation link")
      expect(checkFx.calls).toEqual([])
    } finally {
      actor.stop()
    }
  })

  it("checks the token and shows the workspace, the invited email and the role", async () => {
    const { actor, checkFx } = start({ token: ` ${TOKEN} ` })
    try {
      expect(actor.getSnapshot().value).toBe("verifying")
      expect(checkFx.calls).toEqual([{ token: TOKEN }])
      await checkFx.resolve(check())
      expect(actor.getSnapshot().value).toBe("ready")
      expect(actor.getSnapshot().context.invitation).toMatchObject({
        email: "grace@example.com",
        workspace_name: "Acme Security",
        role_name: "Auditor",
      })
    } finally {
      actor.stop()
    }
  })

  it("labels the button 'Accept Invitation' when signed in and 'Accept and Continue' when not", () => {
    expect(acceptLabel(true)).toBe("Accept Invitation")
    expect(acceptLabel(false)).toBe("Accept and Continue")
    const signedIn = start({ signedIn: true })
    expect(selectAcceptLabel(signedIn.actor.getSnapshot())).toBe("Accept Invitation")
    signedIn.actor.stop()
  })

  it.each([
    [httpFailure("invitation", 404, { _tag: "NotFound", message: "Invitation not found" }), "invalid", "Invalid or expired invitation link"],
    [httpFailure("invitation", 400, { _tag: "InvalidToken", message: "Invalid token" }), "invalid", "Invalid or expired invitation link"],
    [httpFailure("invitation", 410, { _tag: "Gone", message: "expired" }), "expired", "This invitation has expired. Please request a new invitation."],
    [networkFailure("invitation"), "unavailable", "Unable to connect to the server. Please check your internet connection."],
    [httpFailure("invitation", 503, {}), "unavailable", "We're experiencing technical difficulties. Please try again later."],
  ])("a refused check (%#) lands on its screen with the §8 text", async (failure, state, message) => {
    const { actor, checkFx } = start()
    try {
      await checkFx.reject(failure)
      expect(actor.getSnapshot().value).toBe(state)
      expect(actor.getSnapshot().context.error).toBe(message)
    } finally {
      actor.stop()
    }
  })

  it("an unreachable check can be retried", async () => {
    const { actor, checkFx } = start()
    try {
      await checkFx.reject(networkFailure("invitation"))
      actor.send({ type: "invitation.retried" })
      expect(actor.getSnapshot().value).toBe("verifying")
      expect(actor.getSnapshot().context.error).toBeNull()
      await checkFx.resolve(check())
      expect(actor.getSnapshot().value).toBe("ready")
    } finally {
      actor.stop()
    }
  })

  it("an already-accepted invitation says so and goes to /login after 1.5 s", async () => {
    const { actor, checkFx, clock, navigations } = start()
    try {
      await checkFx.reject(alreadyAccepted)
      expect(actor.getSnapshot().value).toBe("alreadyAccepted")
      expect(actor.getSnapshot().context.error).toBe("This invitation has already been accepted. You can sign in now.")
      clock.increment(Redirects.afterAlreadyAcceptedMs - 1)
      expect(navigations).toEqual([])
      clock.increment(1)
      expect(navigations).toEqual([{ to: "/login" }])
      expect(Redirects.afterAlreadyAcceptedMs).toBe(1500)
    } finally {
      actor.stop()
    }
  })

  it("signed in: accepts with the token and timezone, marks the workspace new, toasts 5 s, goes to /dashboard", async () => {
    const { actor, checkFx, acceptFx, navigations, toasts, transitions } = start({ signedIn: true })
    try {
      await checkFx.resolve(check({ user_exists: true }))
      actor.send({ type: "invitation.accepted" })
      expect(actor.getSnapshot().value).toBe("accepting")
      expect(acceptFx.calls).toEqual([{ invitation_token: TOKEN, timezone: "Europe/Paris" }])
      await acceptFx.resolve(joined)
      expect(transitions.reduce((s, t) => t(s), emptyWorkspaceStore).newlyAddedWorkspaces).toEqual({
        "5": new Date(T0).toISOString(),
      })
      expect(toasts).toEqual([{ kind: "success", message: "You've been added to Acme Security", durationMs: Toasts.addedToWorkspaceMs }])
      expect(navigations).toEqual([{ to: "/dashboard" }])
      expect(actor.getSnapshot().status).toBe("done")
    } finally {
      actor.stop()
    }
  })

  it("signed in: 'already a member' and an invitation for another address stay on the page with the text", async () => {
    const { actor, checkFx, acceptFx, navigations } = start({ signedIn: true })
    try {
      await checkFx.resolve(check())
      actor.send({ type: "invitation.accepted" })
      await acceptFx.reject(
        httpFailure("invitation", 409, {
          _tag: "Conflict",
          message: "You're already a member of this workspace",
          data: { error_type: "already_member" },
        }),
      )
      expect(actor.getSnapshot().value).toBe("ready")
      expect(actor.getSnapshot().context.error).toBe("You're already a member of this workspace")
      actor.send({ type: "invitation.accepted" })
      expect(actor.getSnapshot().context.error).toBeNull()
      await acceptFx.reject(
        httpFailure("invitation", 409, {
          _tag: "Conflict",
          message: "This invitation was sent to a different email address",
          data: { error_type: "other_email" },
        }),
      )
      expect(actor.getSnapshot().context.error).toBe("This invitation was sent to a different email address")
      expect(navigations).toEqual([])
    } finally {
      actor.stop()
    }
  })

  it("signed out, no account yet: 'Accept and Continue' opens the invitation sign-up form", async () => {
    const { actor, checkFx, acceptFx, navigations } = start()
    try {
      await checkFx.resolve(check({ user_exists: false }))
      actor.send({ type: "invitation.accepted" })
      expect(acceptFx.calls).toEqual([])
      expect(navigations).toEqual([{ to: `/invitation/signup?token=${TOKEN}` }])
    } finally {
      actor.stop()
    }
  })

  it("signed out with an account: goes to /login keeping the invitation (accepted after sign-in)", async () => {
    const { actor, checkFx, acceptFx, navigations } = start()
    try {
      await checkFx.resolve(check({ user_exists: true }))
      actor.send({ type: "invitation.accepted" })
      expect(acceptFx.calls).toEqual([])
      expect(navigations).toEqual([
        {
          to: `/login?invitation_token=${TOKEN}`,
          state: { email: "grace@example.com", message: "Sign in to join Acme Security." },
        },
      ])
    } finally {
      actor.stop()
    }
  })

  it("signed out: returned tokens go to the session (→ dashboard)", async () => {
    const { actor, checkFx, acceptFx, sessionFx, navigations } = start()
    try {
      await checkFx.resolve(check())
      actor.send({ type: "invitation.accepted" })
      await acceptFx.resolve(withTokens)
      expect(actor.getSnapshot().value).toBe("startingSession")
      expect(sessionFx.calls).toEqual([
        { accessToken: "access-9", refreshToken: "refresh-9", email: "grace@example.com", returnTo: "/dashboard" },
      ])
      await sessionFx.resolve()
      expect(actor.getSnapshot().status).toBe("done")
      expect(navigations).toEqual([])
    } finally {
      actor.stop()
    }
  })

  it("signed out without tokens: 'Registration Complete!' then /login after 3 s", async () => {
    const { actor, checkFx, acceptFx, clock, navigations } = start()
    try {
      await checkFx.resolve(check())
      actor.send({ type: "invitation.accepted" })
      await acceptFx.resolve(withoutTokens)
      expect(actor.getSnapshot().value).toBe("completed")
      clock.increment(Redirects.afterInvitationCompletionMs - 1)
      expect(navigations).toEqual([])
      clock.increment(1)
      expect(navigations).toEqual([{ to: "/login" }])
      expect(Redirects.afterInvitationCompletionMs).toBe(3000)
    } finally {
      actor.stop()
    }
  })

  it("signed out: an existing account found at accept time goes to /login with the server's reason", async () => {
    const { actor, checkFx, acceptFx, navigations } = start()
    try {
      await checkFx.resolve(check())
      actor.send({ type: "invitation.accepted" })
      await acceptFx.reject(accountExists)
      expect(navigations).toEqual([
        {
          to: `/login?invitation_token=${TOKEN}`,
          state: {
            email: "grace@example.com",
            message: "An account with this email already exists. Please sign in to accept the invitation.",
          },
        },
      ])
    } finally {
      actor.stop()
    }
  })

  it("signed out: the server asking for the completion details leads to the sign-up form", async () => {
    const { actor, checkFx, acceptFx, navigations } = start()
    try {
      await checkFx.resolve(check())
      actor.send({ type: "invitation.accepted" })
      await acceptFx.reject(httpFailure("invitation", 400, { _tag: "ValidationError", message: "details required" }))
      expect(navigations).toEqual([{ to: `/invitation/signup?token=${TOKEN}` }])
    } finally {
      actor.stop()
    }
  })

  it("an accept refused as already accepted or expired lands on those screens", async () => {
    const first = start({ signedIn: true })
    try {
      await first.checkFx.resolve(check())
      first.actor.send({ type: "invitation.accepted" })
      await first.acceptFx.reject(alreadyAccepted)
      expect(first.actor.getSnapshot().value).toBe("alreadyAccepted")
    } finally {
      first.actor.stop()
    }
    const second = start({ signedIn: true })
    try {
      await second.checkFx.resolve(check())
      second.actor.send({ type: "invitation.accepted" })
      await second.acceptFx.reject(httpFailure("invitation", 410, {}))
      expect(second.actor.getSnapshot().value).toBe("expired")
      expect(second.actor.getSnapshot().context.error).toBe("This invitation has expired. Please request a new invitation.")
    } finally {
      second.actor.stop()
    }
  })

  it("leaving the page while accepting cancels the call", async () => {
    const { actor, checkFx, acceptFx } = start({ signedIn: true })
    await checkFx.resolve(check())
    actor.send({ type: "invitation.accepted" })
    actor.stop()
    expect(acceptFx.aborted()).toBe(1)
  })
})
