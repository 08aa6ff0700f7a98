import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock } from "xstate"
import type { CreateUserPayload, CreateUserResponse } from "../../src/contracts/team.ts"
import type { RoleWithPermissions } from "../../src/contracts/workspaces.ts"
import { addMemberMachine } from "../../src/machines/add-member.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"
import { member, sampleRoles, toastRecorder } from "./team-fakes.ts"

const start = () => {
  const roles = controlled<void, ReadonlyArray<RoleWithPermissions>>()
  const create = controlled<CreateUserPayload, CreateUserResponse>()
  const { toasts, notify } = toastRecorder()
  const actor = createActor(
    addMemberMachine.provide({ actors: { loadRoles: roles.logic, createUser: create.logic }, actions: { notify } }),
    { clock: new SimulatedClock() },
  ).start()
  return { actor, roles, create, toasts }
}

const fill = (actor: ReturnType<typeof start>["actor"]) => {
  actor.send({ type: "field.changed", field: "first_name", value: " Katherine " })
  actor.send({ type: "field.changed", field: "last_name", value: "Johnson" })
  actor.send({ type: "field.changed", field: "email", value: " katherine@example.com " })
  actor.send({ type: "field.changed", field: "password", value: "orbital8" })
  actor.send({ type: "role.selected", roleId: 3 })
}

describe("add-member machine: transition coverage", () => {
  it("drives every (state, event) edge", async () => {
    const provided = addMemberMachine.provide({ actors: { loadRoles: never(), createUser: never() } })
    // Start from a valid form so that the saving state is reachable (the traversal keys states by value only).
    const input = {
      values: { first_name: "Katherine", last_name: "Johnson", email: "katherine@example.com", password: "orbital8", role_id: 3 },
    }
    const coverage = await coverTransitions(provided, {
      input,
      createActor: (clock) => createActor(provided, { input, clock }),
      events: [
        { type: "field.changed", field: "email", value: "katherine@example.com" },
        { type: "role.selected", roleId: 3 },
        { type: "form.submitted" },
        { type: "dialog.closed" },
        { type: "roles.retryRequested" },
        { type: "xstate.done.actor.loadRoles", output: sampleRoles },
        { type: "xstate.error.actor.loadRoles", error: httpFailure("generic", 500) },
        { type: "xstate.done.actor.createUser", output: { ok: true, message: "Team member added successfully", data: member(9) } },
        { type: "xstate.error.actor.createUser", error: httpFailure("team-add-member", 500) },
      ],
    })
    console.info(formatCoverage("addMember", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })
})

describe("add-member machine: behaviour", () => {
  it("loads the default roles when the dialog opens", async () => {
    const { actor, roles } = start()
    try {
      expect(actor.getSnapshot().matches({ open: { roles: "loading" } })).toBe(true)
      await roles.resolve(sampleRoles)
      expect(actor.getSnapshot().context.roles.map((r) => r.name)).toEqual(["Admin", "Security Engineer", "Auditor", "Member Manager"])
    } finally {
      actor.stop()
    }
  })

  it("a roles failure can be retried", async () => {
    const { actor, roles } = start()
    try {
      await roles.reject(httpFailure("generic", 500))
      expect(actor.getSnapshot().context.rolesError).toBe("We're experiencing technical difficulties. Please try again later.")
      actor.send({ type: "roles.retryRequested" })
      await roles.resolve(sampleRoles)
      expect(actor.getSnapshot().matches({ open: { roles: "ready" } })).toBe(true)
      expect(actor.getSnapshot().context.rolesError).toBeUndefined()
    } finally {
      actor.stop()
    }
  })

  it("an empty form shows the §5 messages and calls nothing", () => {
    const { actor, create } = start()
    try {
      actor.send({ type: "field.changed", field: "password", value: "short" })
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.fieldErrors).toEqual({
        first_name: "First name is required",
        last_name: "Last name is required",
        email: "Email is required",
        password: "Password must be at least 8 characters",
        role_id: "Please select a role",
      })
      expect(create.calls).toEqual([])
      actor.send({ type: "role.selected", roleId: 2 })
      expect(actor.getSnapshot().context.fieldErrors["role_id"]).toBeUndefined()
    } finally {
      actor.stop()
    }
  })

  it("creates the member with trimmed values and a default role, toasts and closes", async () => {
    const { actor, create, toasts } = start()
    try {
      fill(actor)
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().matches({ open: { form: "saving" } })).toBe(true)
      expect(create.calls).toEqual([
        { first_name: "Katherine", last_name: "Johnson", email: "katherine@example.com", password: "orbital8", role_id: 3, is_custom_role: false },
      ])
      expect(actor.getSnapshot().can({ type: "dialog.closed" })).toBe(false)
      await create.resolve({ ok: true, message: "Team member added successfully", data: member(9) })
      expect(actor.getSnapshot().status).toBe("done")
      expect(toasts).toEqual([{ kind: "success", message: "Team member added successfully" }])
    } finally {
      actor.stop()
    }
  })

  it("a failure keeps the form, with the server's message inline and as a toast", async () => {
    const { actor, create, toasts } = start()
    try {
      fill(actor)
      actor.send({ type: "form.submitted" })
      await create.reject(httpFailure("team-add-member", 409, { _tag: "Conflict", message: "This person is already a member of the workspace" }))
      expect(actor.getSnapshot().matches({ open: { form: "editing" } })).toBe(true)
      expect(actor.getSnapshot().context.error).toBe("This person is already a member of the workspace")
      expect(toasts).toEqual([{ kind: "error", message: "This person is already a member of the workspace" }])
      actor.send({ type: "form.submitted" })
      await create.reject(httpFailure("team-add-member", 500))
      expect(toasts.at(-1)).toEqual({ kind: "error", message: "Failed to add team member" })
      expect(actor.getSnapshot().context.values.email).toBe(" katherine@example.com ")
    } finally {
      actor.stop()
    }
  })

  it("closing ends the dialog without a call", () => {
    const { actor, create } = start()
    try {
      fill(actor)
      actor.send({ type: "dialog.closed" })
      expect(actor.getSnapshot().status).toBe("done")
      expect(create.calls).toEqual([])
    } finally {
      actor.stop()
    }
  })
})
