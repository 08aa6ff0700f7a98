import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock, type ActorRefFrom } from "xstate"
import type { OkMessage } from "../../src/contracts/common.ts"
import type { UserId } from "../../src/contracts/ids.ts"
import type { MemberPasswordResetPayload, TeamMember } from "../../src/contracts/team.ts"
import type { WorkspaceInfoResponse } from "../../src/contracts/workspaces.ts"
import { addMemberMachine } from "../../src/machines/add-member.machine.ts"
import { deleteMemberMachine } from "../../src/machines/delete-member.machine.ts"
import { editMemberMachine } from "../../src/machines/edit-member.machine.ts"
import { membersEventOf, teamMembersMachine } from "../../src/machines/team-members.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never, networkFailure } from "./auth-fakes.ts"
import {
  fakeQuery,
  memberInfo,
  ownerInfo,
  sampleMembers,
  silentWatcher,
  toastRecorder,
  watcherOver,
} from "./team-fakes.ts"

const start = (options: { viewer?: WorkspaceInfoResponse } = {}) => {
  const query = fakeQuery<ReadonlyArray<TeamMember>>()
  const viewer = controlled<void, WorkspaceInfoResponse>()
  const reset = controlled<MemberPasswordResetPayload, OkMessage>()
  const deletion = controlled<{ readonly user_to_delete: UserId }, OkMessage>()
  const { toasts, notify } = toastRecorder()
  let refetches = 0
  const clock = new SimulatedClock()
  const actor = createActor(
    teamMembersMachine.provide({
      actors: {
        watchMembers: watcherOver(query, membersEventOf),
        loadViewer: viewer.logic,
        sendPasswordReset: reset.logic,
        addMember: addMemberMachine.provide({ actors: { loadRoles: never(), createUser: never() }, actions: { notify } }),
        editMember: editMemberMachine.provide({ actors: { loadRoles: never(), updateMember: never() }, actions: { notify } }),
        deleteMember: deleteMemberMachine.provide({ actors: { deleteMember: deletion.logic } }),
      },
      actions: {
        notify,
        refetchMembers: () => {
          refetches += 1
        },
      },
    }),
    { clock },
  ).start()
  return { actor, query, viewer, reset, deletion, toasts, refetches: () => refetches, options }
}

const ids = (members: ReadonlyArray<TeamMember>) => members.map((m) => m.id)

describe("team-members machine: transition coverage", () => {
  it("drives every (state, event) edge", async () => {
    const provided = teamMembersMachine.provide({
      actors: {
        watchMembers: silentWatcher(),
        loadViewer: never(),
        sendPasswordReset: never(),
        addMember: addMemberMachine.provide({ actors: { loadRoles: never(), createUser: never() } }),
        editMember: editMemberMachine.provide({ actors: { loadRoles: never(), updateMember: never() } }),
        deleteMember: deleteMemberMachine.provide({ actors: { deleteMember: never() } }),
      },
    })
    const coverage = await coverTransitions(provided, {
      createActor: (clock) => createActor(provided, { clock }),
      events: [
        { type: "members.loading" },
        { type: "members.loaded", members: sampleMembers },
        { type: "members.failed", error: httpFailure("team-load-members", 500) },
        { type: "members.retryRequested" },
        { type: "member.addRequested" },
        { type: "member.editRequested", memberId: 3 },
        { type: "member.roleChangeRequested", memberId: 3 },
        { type: "member.deleteRequested", memberId: 3 },
        { type: "delete.confirmed" },
        { type: "delete.cancelled" },
        { type: "member.passwordResetRequested", memberId: 3 },
        { type: "member.deleteSucceeded", memberId: 3 },
        { type: "member.deleteFailed", memberId: 3, message: "Failed to delete team member" },
        { type: "xstate.done.actor.loadViewer", output: ownerInfo },
        { type: "xstate.error.actor.loadViewer", error: httpFailure("generic", 500) },
        { type: "xstate.done.actor.sendPasswordReset", output: { ok: true, message: "sent" } },
        { type: "xstate.error.actor.sendPasswordReset", error: httpFailure("forgot-password", 500) },
        { type: "xstate.done.actor.addMember" },
        { type: "xstate.done.actor.editMember" },
      ],
    })
    console.info(formatCoverage("teamMembers", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.total).toBeGreaterThan(0)
    expect(coverage.driven).toBe(coverage.total)
  })
})

describe("team-members machine: loading", () => {
  it("shows the rows the watched query loads, in server order", () => {
    const { actor, query } = start()
    try {
      expect(actor.getSnapshot().matches({ list: "loading" })).toBe(true)
      query.succeed(sampleMembers)
      expect(actor.getSnapshot().matches({ list: "ready" })).toBe(true)
      expect(ids(actor.getSnapshot().context.members)).toEqual([1, 2, 3, 4])
    } finally {
      actor.stop()
    }
  })

  it("a load failure toasts 'Failed to load team members' once; Try again fetches again", () => {
    const { actor, query, toasts, refetches } = start()
    try {
      query.fail(httpFailure("team-load-members", 500))
      // The cache reports again on every internal change (fetching flags, invalidation): one toast only.
      query.emit({ isFetching: false })
      expect(actor.getSnapshot().matches({ list: "failed" })).toBe(true)
      expect(toasts).toEqual([{ kind: "error", message: "Failed to load team members" }])
      actor.send({ type: "members.retryRequested" })
      expect(refetches()).toBe(1)
      expect(actor.getSnapshot().matches({ list: "loading" })).toBe(true)
      query.emit({ isFetching: true })
      query.succeed(sampleMembers)
      expect(actor.getSnapshot().matches({ list: "ready" })).toBe(true)
      expect(toasts).toHaveLength(1)
    } finally {
      actor.stop()
    }
  })

  it("without a network the toast says so", () => {
    const { actor, query, toasts } = start()
    try {
      query.fail(networkFailure("team-load-members"))
      expect(toasts).toEqual([{ kind: "error", message: "Unable to connect to the server. Please check your internet connection." }])
    } finally {
      actor.stop()
    }
  })

  it("stops watching when stopped", () => {
    const { actor, query } = start()
    expect(query.watchers()).toBe(1)
    actor.stop()
    expect(query.watchers()).toBe(0)
  })
})

describe("team-members machine: row rules (access §6)", () => {
  const ready = async (info: WorkspaceInfoResponse) => {
    const s = start()
    s.query.succeed(sampleMembers)
    await s.viewer.resolve(info)
    return s
  }

  it("owner: Change role on every other row but not the owner's; Delete everywhere but the own row", async () => {
    const { actor } = await ready(ownerInfo)
    try {
      const snap = actor.getSnapshot()
      expect(snap.can({ type: "member.roleChangeRequested", memberId: 1 })).toBe(false)
      expect(snap.can({ type: "member.roleChangeRequested", memberId: 2 })).toBe(true)
      expect(snap.can({ type: "member.deleteRequested", memberId: 1 })).toBe(false)
      expect(snap.can({ type: "member.deleteRequested", memberId: 3 })).toBe(true)
      for (const id of [1, 2, 3, 4]) {
        expect(snap.can({ type: "member.editRequested", memberId: id })).toBe(true)
        expect(snap.can({ type: "member.passwordResetRequested", memberId: id })).toBe(true)
      }
    } finally {
      actor.stop()
    }
  })

  it("a member who is not the owner: no Change role anywhere; no Delete on their own row (nor the owner's)", async () => {
    const { actor } = await ready(memberInfo)
    try {
      const snap = actor.getSnapshot()
      for (const id of [1, 2, 3, 4]) expect(snap.can({ type: "member.roleChangeRequested", memberId: id })).toBe(false)
      expect(snap.can({ type: "member.deleteRequested", memberId: 2 })).toBe(false)
      expect(snap.can({ type: "member.deleteRequested", memberId: 1 })).toBe(false)
      expect(snap.can({ type: "member.deleteRequested", memberId: 3 })).toBe(true)
    } finally {
      actor.stop()
    }
  })

  it("until the viewer is known, owner-only and not-yourself actions stay hidden", () => {
    const { actor, query } = start()
    try {
      query.succeed(sampleMembers)
      expect(actor.getSnapshot().can({ type: "member.deleteRequested", memberId: 3 })).toBe(false)
      expect(actor.getSnapshot().can({ type: "member.roleChangeRequested", memberId: 3 })).toBe(false)
      expect(actor.getSnapshot().can({ type: "member.editRequested", memberId: 3 })).toBe(true)
    } finally {
      actor.stop()
    }
  })

  it("opens the edit dialog (mode edit) and the change-role dialog (mode role) with the member", async () => {
    const { actor } = await ready(ownerInfo)
    try {
      actor.send({ type: "member.editRequested", memberId: 3 })
      const edit = actor.getSnapshot().children["editMember"] as ActorRefFrom<typeof editMemberMachine> | undefined
      expect(edit?.getSnapshot().context.mode).toBe("edit")
      expect(edit?.getSnapshot().context.member.email).toBe("alan@example.com")
      expect(edit?.getSnapshot().context.roleEditable).toBe(true)
      edit?.send({ type: "dialog.closed" })
      expect(actor.getSnapshot().matches({ dialog: "none" })).toBe(true)
      actor.send({ type: "member.roleChangeRequested", memberId: 2 })
      const role = actor.getSnapshot().children["editMember"] as ActorRefFrom<typeof editMemberMachine> | undefined
      expect(role?.getSnapshot().context.mode).toBe("role")
    } finally {
      actor.stop()
    }
  })

  it("the add dialog is a child that ends the dialog state when it closes", async () => {
    const { actor } = await ready(ownerInfo)
    try {
      actor.send({ type: "member.addRequested" })
      expect(actor.getSnapshot().matches({ dialog: "adding" })).toBe(true)
      actor.getSnapshot().children["addMember"]?.send({ type: "dialog.closed" })
      expect(actor.getSnapshot().matches({ dialog: "none" })).toBe(true)
    } finally {
      actor.stop()
    }
  })
})

describe("team-members machine: optimistic deletion (access §4)", () => {
  const readyOwner = async () => {
    const s = start()
    s.query.succeed(sampleMembers)
    await s.viewer.resolve(ownerInfo)
    return s
  }

  it("hides the row as soon as the deletion is confirmed and restores it in place on error, with the error toast", async () => {
    const { actor, deletion, toasts } = await readyOwner()
    try {
      actor.send({ type: "member.deleteRequested", memberId: 3 })
      expect(actor.getSnapshot().context.deleteCandidate?.email).toBe("alan@example.com")
      actor.send({ type: "delete.confirmed" })
      expect(actor.getSnapshot().matches({ dialog: "none" })).toBe(true)
      expect(ids(actor.getSnapshot().context.members)).toEqual([1, 2, 4])
      expect(deletion.calls).toEqual([{ user_to_delete: 3 }])
      await deletion.reject(httpFailure("team-delete-member", 500))
      expect(ids(actor.getSnapshot().context.members)).toEqual([1, 2, 3, 4])
      expect(toasts).toEqual([{ kind: "error", message: "Failed to delete team member" }])
    } finally {
      actor.stop()
    }
  })

  it("a refused deletion toasts the server's message", async () => {
    const { actor, deletion, toasts } = await readyOwner()
    try {
      actor.send({ type: "member.deleteRequested", memberId: 2 })
      actor.send({ type: "delete.confirmed" })
      await deletion.reject(httpFailure("team-delete-member", 403, { _tag: "Forbidden", message: "You cannot delete the workspace owner" }))
      expect(toasts).toEqual([{ kind: "error", message: "You cannot delete the workspace owner" }])
      expect(ids(actor.getSnapshot().context.members)).toEqual([1, 2, 3, 4])
    } finally {
      actor.stop()
    }
  })

  it("success removes the row for good and toasts 'Team member deleted successfully'", async () => {
    const { actor, deletion, toasts, query } = await readyOwner()
    try {
      actor.send({ type: "member.deleteRequested", memberId: 3 })
      actor.send({ type: "delete.confirmed" })
      await deletion.resolve({ ok: true, message: "Team member deleted successfully" })
      expect(ids(actor.getSnapshot().context.members)).toEqual([1, 2, 4])
      expect(toasts).toEqual([{ kind: "success", message: "Team member deleted successfully" }])
      // The refreshed list agrees.
      query.succeed(sampleMembers.filter((m) => m.id !== 3))
      expect(ids(actor.getSnapshot().context.members)).toEqual([1, 2, 4])
    } finally {
      actor.stop()
    }
  })

  it("two deletions in flight; a list refresh meanwhile keeps both hidden; one fails and only that one returns", async () => {
    const { actor, deletion, query, toasts } = await readyOwner()
    try {
      actor.send({ type: "member.deleteRequested", memberId: 3 })
      actor.send({ type: "delete.confirmed" })
      actor.send({ type: "member.deleteRequested", memberId: 4 })
      actor.send({ type: "delete.confirmed" })
      expect(ids(actor.getSnapshot().context.members)).toEqual([1, 2])
      query.succeed([...sampleMembers])
      expect(ids(actor.getSnapshot().context.members)).toEqual([1, 2])
      await deletion.resolve({ ok: true, message: "ok" })
      await deletion.reject(httpFailure("team-delete-member", 500))
      expect(ids(actor.getSnapshot().context.members)).toEqual([1, 2, 4])
      expect(toasts.map((t) => t.message)).toEqual(["Team member deleted successfully", "Failed to delete team member"])
    } finally {
      actor.stop()
    }
  })

  it("cancelling the confirmation deletes nothing", async () => {
    const { actor, deletion } = await readyOwner()
    try {
      actor.send({ type: "member.deleteRequested", memberId: 3 })
      actor.send({ type: "delete.cancelled" })
      expect(actor.getSnapshot().context.deleteCandidate).toBeNull()
      expect(deletion.calls).toEqual([])
      expect(ids(actor.getSnapshot().context.members)).toEqual([1, 2, 3, 4])
    } finally {
      actor.stop()
    }
  })
})

describe("team-members machine: password reset email", () => {
  it("sends it to the member's email and toasts; a second request waits until the first is answered", async () => {
    const { actor, query, reset, toasts } = start()
    try {
      query.succeed(sampleMembers)
      actor.send({ type: "member.passwordResetRequested", memberId: 3 })
      expect(reset.calls).toEqual([{ email: "alan@example.com" }])
      expect(actor.getSnapshot().can({ type: "member.passwordResetRequested", memberId: 2 })).toBe(false)
      await reset.resolve({ ok: true, message: "Password reset email sent successfully" })
      expect(toasts).toEqual([{ kind: "success", message: "Password reset email sent successfully" }])
      actor.send({ type: "member.passwordResetRequested", memberId: 2 })
      await reset.reject(httpFailure("forgot-password", 500))
      expect(toasts.at(-1)).toEqual({ kind: "error", message: "Failed to send password reset email" })
    } finally {
      actor.stop()
    }
  })
})
