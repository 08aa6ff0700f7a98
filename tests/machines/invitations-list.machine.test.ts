import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock } from "xstate"
import type { OkMessage } from "../../src/contracts/common.ts"
import type { InvitationId } from "../../src/contracts/ids.ts"
import type { Invitation, ResendInvitationResponse } from "../../src/contracts/invitations.ts"
import { invitationsEventOf, invitationsListMachine } from "../../src/machines/invitations-list.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"
import { fakeQuery, sampleInvitations, silentWatcher, toastRecorder, watcherOver } from "./team-fakes.ts"

const start = () => {
  const query = fakeQuery<ReadonlyArray<Invitation>>()
  const resend = controlled<{ readonly invitation_id: InvitationId }, ResendInvitationResponse>()
  const cancel = controlled<{ readonly id: InvitationId }, OkMessage>()
  const { toasts, notify } = toastRecorder()
  let refetches = 0
  const actor = createActor(
    invitationsListMachine.provide({
      actors: { watchInvitations: watcherOver(query, invitationsEventOf), resendInvitation: resend.logic, cancelInvitation: cancel.logic },
      actions: {
        notify,
        refetchInvitations: () => {
          refetches += 1
        },
      },
    }),
    { clock: new SimulatedClock() },
  ).start()
  return { actor, query, resend, cancel, toasts, refetches: () => refetches }
}

describe("invitations-list machine: transition coverage", () => {
  it("drives every (state, event) edge", async () => {
    const provided = invitationsListMachine.provide({
      actors: { watchInvitations: silentWatcher(), resendInvitation: never(), cancelInvitation: never() },
    })
    const coverage = await coverTransitions(provided, {
      createActor: (clock) => createActor(provided, { clock }),
      events: [
        { type: "invitations.loading" },
        { type: "invitations.loaded", invitations: sampleInvitations },
        { type: "invitations.failed", error: httpFailure("team-load-invitations", 500) },
        { type: "invitations.retryRequested" },
        { type: "invitation.resendRequested", invitationId: 11 },
        { type: "invitation.cancelRequested", invitationId: 11 },
        { type: "cancel.confirmed" },
        { type: "cancel.dismissed" },
        { type: "xstate.done.actor.resendInvitation", output: { ok: true, message: "Invitation resent" } },
        { type: "xstate.error.actor.resendInvitation", error: httpFailure("team-resend-invitation", 500) },
        { type: "xstate.done.actor.cancelInvitation", output: { ok: true, message: "Invitation canceled" } },
        { type: "xstate.error.actor.cancelInvitation", error: httpFailure("team-cancel-invitation", 500) },
      ],
    })
    console.info(formatCoverage("invitationsList", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })
})

describe("invitations-list machine: loading", () => {
  it("loads the list; a failure shows 'Failed to load invitations' and Try again fetches again", () => {
    const { actor, query, refetches } = start()
    try {
      expect(actor.getSnapshot().matches({ list: "loading" })).toBe(true)
      query.fail(httpFailure("team-load-invitations", 500))
      expect(actor.getSnapshot().matches({ list: "failed" })).toBe(true)
      expect(actor.getSnapshot().context.loadError).toBe("Failed to load invitations")
      actor.send({ type: "invitations.retryRequested" })
      expect(refetches()).toBe(1)
      query.succeed(sampleInvitations)
      expect(actor.getSnapshot().matches({ list: "ready" })).toBe(true)
      // Only pending invitations are listed (access §4: other statuses are not shown).
      expect(actor.getSnapshot().context.invitations.map((i) => i.id)).toEqual([11, 13])
      expect(actor.getSnapshot().context.loadError).toBeUndefined()
    } finally {
      actor.stop()
    }
  })
})

describe("invitations-list machine: resend and cancel (access §4: pending only)", () => {
  const ready = () => {
    const s = start()
    s.query.succeed(sampleInvitations)
    return s
  }

  it("only pending invitations can be resent or cancelled", () => {
    const { actor } = ready()
    try {
      const snap = actor.getSnapshot()
      expect(snap.can({ type: "invitation.resendRequested", invitationId: 11 })).toBe(true)
      expect(snap.can({ type: "invitation.cancelRequested", invitationId: 11 })).toBe(true)
      for (const id of [12, 14, 99]) {
        expect(snap.can({ type: "invitation.resendRequested", invitationId: id })).toBe(false)
        expect(snap.can({ type: "invitation.cancelRequested", invitationId: id })).toBe(false)
      }
    } finally {
      actor.stop()
    }
  })

  it("resend toasts 'Invitation resent' naming the invitee", async () => {
    const { actor, resend, toasts } = ready()
    try {
      actor.send({ type: "invitation.resendRequested", invitationId: 13 })
      expect(resend.calls).toEqual([{ invitation_id: 13 }])
      expect(actor.getSnapshot().can({ type: "invitation.resendRequested", invitationId: 11 })).toBe(false)
      await resend.resolve({ ok: true, message: "Invitation resent to invitee13@example.com" })
      expect(toasts).toEqual([{ kind: "success", message: "Invitation resent to invitee13@example.com" }])
      actor.send({ type: "invitation.resendRequested", invitationId: 11 })
      await resend.reject(httpFailure("team-resend-invitation", 500))
      expect(toasts.at(-1)).toEqual({ kind: "error", message: "Failed to resend invitation" })
    } finally {
      actor.stop()
    }
  })

  it("cancel asks first; the confirmation cannot be dismissed while cancelling; success names the invitee", async () => {
    const { actor, cancel, toasts } = ready()
    try {
      actor.send({ type: "invitation.cancelRequested", invitationId: 11 })
      expect(actor.getSnapshot().matches({ cancel: "confirming" })).toBe(true)
      expect(actor.getSnapshot().context.cancelTarget?.email).toBe("invitee11@example.com")
      expect(cancel.calls).toEqual([])
      actor.send({ type: "cancel.confirmed" })
      expect(cancel.calls).toEqual([{ id: 11 }])
      expect(actor.getSnapshot().can({ type: "cancel.dismissed" })).toBe(false)
      await cancel.resolve({ ok: true, message: "Invitation canceled for invitee11@example.com" })
      expect(actor.getSnapshot().matches({ cancel: "idle" })).toBe(true)
      expect(toasts).toEqual([{ kind: "success", message: "Invitation canceled for invitee11@example.com" }])
    } finally {
      actor.stop()
    }
  })

  it("dismissing the confirmation cancels nothing; a failed cancel toasts 'Failed to cancel invitation'", async () => {
    const { actor, cancel, toasts } = ready()
    try {
      actor.send({ type: "invitation.cancelRequested", invitationId: 11 })
      actor.send({ type: "cancel.dismissed" })
      expect(actor.getSnapshot().context.cancelTarget).toBeNull()
      expect(cancel.calls).toEqual([])
      actor.send({ type: "invitation.cancelRequested", invitationId: 11 })
      actor.send({ type: "cancel.confirmed" })
      await cancel.reject(httpFailure("team-cancel-invitation", 500))
      expect(toasts).toEqual([{ kind: "error", message: "Failed to cancel invitation" }])
    } finally {
      actor.stop()
    }
  })
})
