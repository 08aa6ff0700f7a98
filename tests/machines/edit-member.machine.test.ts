import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock } from "xstate"
import type { RoleId } from "../../src/contracts/ids.ts"
import type { TeamMember, UpdateTeamMemberPayload, UpdateTeamMemberResponse } from "../../src/contracts/team.ts"
import type { RoleWithPermissions } from "../../src/contracts/workspaces.ts"
import { editMemberMachine, type EditMemberInput } from "../../src/machines/edit-member.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"
import { member, sampleMembers, sampleRoles, toastRecorder } from "./team-fakes.ts"

const owner = sampleMembers[0]!
const auditor = sampleMembers[2]!
const noRole = sampleMembers[3]!

const start = (input: EditMemberInput) => {
  const roles = controlled<void, ReadonlyArray<RoleWithPermissions>>()
  const update = controlled<UpdateTeamMemberPayload, UpdateTeamMemberResponse>()
  const { toasts, notify } = toastRecorder()
  const actor = createActor(
    editMemberMachine.provide({ actors: { loadRoles: roles.logic, updateMember: update.logic }, actions: { notify } }),
    { input, clock: new SimulatedClock() },
  ).start()
  return { actor, roles, update, toasts }
}

const updated = (m: TeamMember): UpdateTeamMemberResponse => ({ ok: true, message: "Team member updated successfully", data: m })

describe("edit-member machine: transition coverage", () => {
  it("drives every (state, event) edge", async () => {
    const provided = editMemberMachine.provide({ actors: { loadRoles: never(), updateMember: never() } })
    const input: EditMemberInput = { member: auditor, mode: "edit", canChangeRole: true }
    const coverage = await coverTransitions(provided, {
      input,
      createActor: (clock) => createActor(provided, { input, clock }),
      events: [
        { type: "field.changed", field: "first_name", value: "Alan M." },
        { type: "role.selected", roleId: 2 },
        { type: "form.submitted" },
        { type: "dialog.closed" },
        { type: "roles.retryRequested" },
        { type: "xstate.done.actor.loadRoles", output: sampleRoles },
        { type: "xstate.error.actor.loadRoles", error: httpFailure("generic", 500) },
        { type: "xstate.done.actor.updateMember", output: updated(auditor) },
        { type: "xstate.error.actor.updateMember", error: httpFailure("team-update-member", 500) },
      ],
    })
    console.info(formatCoverage("editMember", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })
})

describe("edit-member machine: behaviour (access §2, §5, §6)", () => {
  it("the owner edits a member's names and role; the payload carries the default role", async () => {
    const { actor, update, toasts } = start({ member: auditor, mode: "edit", canChangeRole: true })
    try {
      expect(actor.getSnapshot().context.values).toEqual({ first_name: "Alan", last_name: "Turing", role_id: 3, is_custom_role: false })
      actor.send({ type: "field.changed", field: "first_name", value: " Alan M. " })
      actor.send({ type: "role.selected", roleId: 2 })
      actor.send({ type: "form.submitted" })
      expect(update.calls).toEqual([{ user_id: 3, first_name: "Alan M.", last_name: "Turing", role_id: 2, is_custom_role: false }])
      expect(actor.getSnapshot().can({ type: "dialog.closed" })).toBe(false)
      await update.resolve(updated(auditor))
      expect(actor.getSnapshot().status).toBe("done")
      expect(toasts).toEqual([{ kind: "success", message: "Team member updated successfully" }])
    } finally {
      actor.stop()
    }
  })

  it("a role must be chosen where it can be changed: 'Please select a valid role'", () => {
    const { actor, update } = start({ member: noRole, mode: "edit", canChangeRole: true })
    try {
      actor.send({ type: "field.changed", field: "first_name", value: "No" })
      actor.send({ type: "field.changed", field: "last_name", value: "Body" })
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.fieldErrors).toEqual({ role_id: "Please select a valid role" })
      expect(update.calls).toEqual([])
    } finally {
      actor.stop()
    }
  })

  it("the owner's row: no role select, no role check, the role is sent back unchanged", async () => {
    const { actor, update } = start({ member: owner, mode: "edit", canChangeRole: true })
    try {
      expect(actor.getSnapshot().context.roleEditable).toBe(false)
      expect(actor.getSnapshot().can({ type: "role.selected", roleId: 3 })).toBe(false)
      actor.send({ type: "field.changed", field: "last_name", value: "King" })
      actor.send({ type: "form.submitted" })
      expect(update.calls).toEqual([{ user_id: 1, first_name: "Ada", last_name: "King", role_id: 1, is_custom_role: false }])
    } finally {
      actor.stop()
    }
  })

  it("someone who is not the owner edits names only; a member's custom role is kept as it is", async () => {
    const custom = member(5, { role_name: "Contractors", role_id: 101 as RoleId, is_custom_role: true })
    const { actor, update } = start({ member: custom, mode: "edit", canChangeRole: false })
    try {
      expect(actor.getSnapshot().context.roleEditable).toBe(false)
      actor.send({ type: "field.changed", field: "first_name", value: "Joan" })
      actor.send({ type: "form.submitted" })
      expect(update.calls).toEqual([{ user_id: 5, first_name: "Joan", last_name: "Last5", role_id: 101, is_custom_role: true }])
    } finally {
      actor.stop()
    }
  })

  it("names are validated (§5: 1 to 50 characters)", () => {
    const { actor } = start({ member: auditor, mode: "edit", canChangeRole: true })
    try {
      actor.send({ type: "field.changed", field: "first_name", value: "  " })
      actor.send({ type: "field.changed", field: "last_name", value: "x".repeat(51) })
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.fieldErrors).toEqual({
        first_name: "First name is required",
        last_name: "Last name must be less than 50 characters",
      })
    } finally {
      actor.stop()
    }
  })

  it("Change role: only the role changes", async () => {
    const { actor, update } = start({ member: auditor, mode: "role", canChangeRole: true })
    try {
      actor.send({ type: "role.selected", roleId: 4 })
      actor.send({ type: "form.submitted" })
      expect(update.calls).toEqual([{ user_id: 3, first_name: "Alan", last_name: "Turing", role_id: 4, is_custom_role: false }])
    } finally {
      actor.stop()
    }
  })

  it("a failure toasts 'Failed to update team member' (or the server's message) and keeps the dialog", async () => {
    const { actor, update, toasts } = start({ member: auditor, mode: "edit", canChangeRole: true })
    try {
      actor.send({ type: "form.submitted" })
      await update.reject(httpFailure("team-update-member", 500))
      expect(actor.getSnapshot().matches({ open: { form: "editing" } })).toBe(true)
      expect(actor.getSnapshot().context.error).toBe("Failed to update team member")
      actor.send({ type: "form.submitted" })
      await update.reject(httpFailure("team-update-member", 403, { message: "Only the workspace owner can change roles" }))
      expect(toasts.map((t) => t.message)).toEqual(["Failed to update team member", "Only the workspace owner can change roles"])
    } finally {
      actor.stop()
    }
  })
})
