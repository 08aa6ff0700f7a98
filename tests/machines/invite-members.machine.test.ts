import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock, type SnapshotFrom } from "xstate"
import type { BulkInvitePayload, BulkInviteResponse } from "../../src/contracts/invitations.ts"
import type { RoleWithPermissions } from "../../src/contracts/workspaces.ts"
import { inviteMembersMachine, rowError } from "../../src/machines/invite-members.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"
import { sampleRoles, toastRecorder } from "./team-fakes.ts"

const start = () => {
  const roles = controlled<void, ReadonlyArray<RoleWithPermissions>>()
  const invite = controlled<BulkInvitePayload, BulkInviteResponse>()
  const { toasts, notify } = toastRecorder()
  const actor = createActor(
    inviteMembersMachine.provide({ actors: { loadRoles: roles.logic, inviteMembers: invite.logic }, actions: { notify } }),
    { clock: new SimulatedClock() },
  ).start()
  return { actor, roles, invite, toasts }
}

type Actor = ReturnType<typeof start>["actor"]

const keys = (actor: Actor) => actor.getSnapshot().context.rows.map((r) => r.key)

const fillRow = (actor: Actor, key: number, email: string, roleId: number) => {
  actor.send({ type: "row.emailChanged", key, value: email })
  actor.send({ type: "row.roleSelected", key, roleId })
}

const answer = (r: Partial<BulkInviteResponse>): BulkInviteResponse => ({
  sent_count: 0,
  resent_count: 0,
  skipped_count: 0,
  skipped_emails: [],
  ...r,
})

describe("invite-members machine: transition coverage", () => {
  it("drives every (state, event) edge", async () => {
    const provided = inviteMembersMachine.provide({ actors: { loadRoles: never(), inviteMembers: never() } })
    // States keyed by value plus the form's progress, so that the valid form (and so `sending`) is reachable.
    const serializeState = (s: SnapshotFrom<typeof provided>) =>
      JSON.stringify([
        s.value,
        s.context.rows.length > 1 ? "rows>1" : "rows=1",
        s.context.rows.every((r) => r.email !== ""),
        s.context.rows.every((r) => r.role_id !== null),
      ])
    const coverage = await coverTransitions(provided, {
      serializeState,
      createActor: (clock) => createActor(provided, { clock }),
      events: [
        { type: "dialog.opened" },
        { type: "dialog.closed" },
        { type: "row.added" },
        { type: "row.removed", key: 1 },
        { type: "row.emailChanged", key: 0, value: "katherine@example.com" },
        { type: "row.roleSelected", key: 0, roleId: 3 },
        { type: "form.submitted" },
        { type: "roles.retryRequested" },
        { type: "xstate.done.actor.loadRoles", output: sampleRoles },
        { type: "xstate.error.actor.loadRoles", error: httpFailure("generic", 500) },
        { type: "xstate.done.actor.inviteMembers", output: answer({ sent_count: 1 }) },
        { type: "xstate.error.actor.inviteMembers", error: httpFailure("team-invite", 500) },
      ],
    })
    console.info(formatCoverage("inviteMembers", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })
})

describe("invite-members machine: rows (access §2, §5)", () => {
  it("opens with one row; rows can be added up to 50; the last row cannot be removed", () => {
    const { actor } = start()
    try {
      expect(actor.getSnapshot().value).toBe("closed")
      actor.send({ type: "dialog.opened" })
      expect(keys(actor)).toEqual([0])
      expect(actor.getSnapshot().can({ type: "row.removed", key: 0 })).toBe(false)
      actor.send({ type: "row.added" })
      expect(keys(actor)).toEqual([0, 1])
      expect(actor.getSnapshot().can({ type: "row.removed", key: 0 })).toBe(true)
      actor.send({ type: "row.removed", key: 0 })
      expect(keys(actor)).toEqual([1])
      for (let i = 0; i < 60; i++) actor.send({ type: "row.added" })
      expect(actor.getSnapshot().context.rows).toHaveLength(50)
      expect(actor.getSnapshot().can({ type: "row.added" })).toBe(false)
    } finally {
      actor.stop()
    }
  })

  it("validates each row, then rejects duplicates compared case-insensitively", () => {
    const { actor, invite } = start()
    try {
      actor.send({ type: "dialog.opened" })
      actor.send({ type: "row.added" })
      actor.send({ type: "row.added" })
      fillRow(actor, 0, "Grace@Example.com", 2)
      actor.send({ type: "row.emailChanged", key: 1, value: " grace@example.COM " })
      actor.send({ type: "row.emailChanged", key: 2, value: "not-an-email" })
      actor.send({ type: "form.submitted" })
      let errors = actor.getSnapshot().context.fieldErrors
      expect(rowError(errors, 1, "role_id")).toBe("Please select a role")
      expect(rowError(errors, 2, "email")).toBe("Please enter a valid email address")
      expect(rowError(errors, 0, "email")).toBeUndefined()
      // Editing a row clears its messages.
      actor.send({ type: "row.roleSelected", key: 1, roleId: 3 })
      expect(rowError(actor.getSnapshot().context.fieldErrors, 1, "role_id")).toBeUndefined()
      // Once every row is well formed, the list rule speaks: the second address repeats the first.
      fillRow(actor, 2, "alan@example.com", 3)
      actor.send({ type: "form.submitted" })
      errors = actor.getSnapshot().context.fieldErrors
      expect(errors["invitations"]).toBe("Duplicate email addresses are not allowed")
      expect(rowError(errors, 1, "email")).toBe("Duplicate email addresses are not allowed")
      expect(invite.calls).toEqual([])
    } finally {
      actor.stop()
    }
  })

  it("an empty row asks for the email and the role", () => {
    const { actor } = start()
    try {
      actor.send({ type: "dialog.opened" })
      actor.send({ type: "form.submitted" })
      const errors = actor.getSnapshot().context.fieldErrors
      expect(rowError(errors, 0, "email")).toBe("Email is required")
      expect(rowError(errors, 0, "role_id")).toBe("Please select a role")
    } finally {
      actor.stop()
    }
  })
})

describe("invite-members machine: sending (access §4, §8)", () => {
  const ready = async () => {
    const s = start()
    s.actor.send({ type: "dialog.opened" })
    await s.roles.resolve(sampleRoles)
    s.actor.send({ type: "row.added" })
    fillRow(s.actor, 0, "  Grace@Example.COM ", 2)
    fillRow(s.actor, 1, "alan@example.com", 3)
    return s
  }

  it("sends trimmed, lower-cased emails with default roles; success toasts, resets and closes", async () => {
    const { actor, invite, toasts } = await ready()
    try {
      actor.send({ type: "form.submitted" })
      expect(invite.calls).toEqual([
        {
          invitations: [
            { email: "grace@example.com", role_id: 2, is_custom_role: false },
            { email: "alan@example.com", role_id: 3, is_custom_role: false },
          ],
        },
      ])
      expect(actor.getSnapshot().can({ type: "dialog.closed" })).toBe(false)
      await invite.resolve(answer({ sent_count: 1, resent_count: 1 }))
      expect(actor.getSnapshot().value).toBe("closed")
      expect(toasts).toEqual([{ kind: "success", message: "All 2 invitation(s) sent successfully" }])
      actor.send({ type: "dialog.opened" })
      expect(actor.getSnapshot().context.rows).toEqual([{ key: 0, email: "", role_id: null }])
    } finally {
      actor.stop()
    }
  })

  it("some skipped: '{n} sent, {m} failed' plus 'Skipped: …' with the first reason; the modal closes", async () => {
    const { actor, invite, toasts } = await ready()
    try {
      actor.send({ type: "form.submitted" })
      await invite.resolve(
        answer({ sent_count: 1, skipped_count: 1, skipped_emails: [{ email: "alan@example.com", reason: "already a member" }] }),
      )
      expect(toasts).toEqual([
        { kind: "warning", message: "1 invitation(s) sent successfully, 1 failed" },
        { kind: "warning", message: "Skipped: alan@example.com (already a member)" },
      ])
      expect(actor.getSnapshot().value).toBe("closed")
    } finally {
      actor.stop()
    }
  })

  it("all skipped: 'All {m} invitations failed to send'; the rows stay for correction", async () => {
    const { actor, invite, toasts } = await ready()
    try {
      actor.send({ type: "form.submitted" })
      await invite.resolve(
        answer({
          skipped_count: 2,
          skipped_emails: [
            { email: "grace@example.com", reason: "already a member" },
            { email: "alan@example.com", reason: "already a member" },
          ],
        }),
      )
      expect(toasts).toEqual([
        { kind: "error", message: "All 2 invitations failed to send" },
        { kind: "warning", message: "Skipped: grace@example.com, alan@example.com (already a member)" },
      ])
      expect(actor.getSnapshot().matches({ open: { form: "editing" } })).toBe(true)
      expect(actor.getSnapshot().context.rows.map((r) => r.email)).toEqual(["  Grace@Example.COM ", "alan@example.com"])
    } finally {
      actor.stop()
    }
  })

  it("a failed call toasts 'Failed to send invitations' (or the server's message) and keeps the modal", async () => {
    const { actor, invite, toasts } = await ready()
    try {
      actor.send({ type: "form.submitted" })
      await invite.reject(httpFailure("team-invite", 500))
      expect(actor.getSnapshot().context.error).toBe("Failed to send invitations")
      actor.send({ type: "form.submitted" })
      await invite.reject(httpFailure("team-invite", 403, { message: "You do not have permission to perform this action." }))
      expect(toasts.map((t) => t.message)).toEqual(["Failed to send invitations", "You do not have permission to perform this action."])
      expect(actor.getSnapshot().matches({ open: { form: "editing" } })).toBe(true)
    } finally {
      actor.stop()
    }
  })

  it("Cancel closes and resets", async () => {
    const { actor, invite } = await ready()
    try {
      actor.send({ type: "dialog.closed" })
      expect(actor.getSnapshot().value).toBe("closed")
      expect(actor.getSnapshot().context.rows).toHaveLength(1)
      expect(invite.calls).toEqual([])
    } finally {
      actor.stop()
    }
  })
})
