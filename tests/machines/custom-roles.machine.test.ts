/**
 * The team page's custom-role editor (issue 31 item 5, "limited to groups"): every (state, event) edge is driven
 * (model-based, xstate/graph), then the flows: a role limited to groups created with the contract's checks first, a
 * role's limit lifted, a user who may not read groups saving a role without touching its limit, the server's refusals
 * (a taken name on the name, a wider grant above the form) and a refused deletion.
 */
import { describe, expect, it } from "vitest"
import { createActor } from "xstate"
import { AccountGroupMessages, type AccountGroupId } from "../../src/contracts/account-groups.ts"
import type { RoleId } from "../../src/contracts/ids.ts"
import { ValidationMessages } from "../../src/contracts/messages.ts"
import { AccessServerMessages } from "../../src/contracts/server-messages.ts"
import type { CustomRolePayload } from "../../src/contracts/team.ts"
import type { RoleWithPermissions } from "../../src/contracts/workspaces.ts"
import type { CustomRoleSaved, CustomRolesLoaded } from "../../src/machines/account-groups-effects.ts"
import { customRolesMachine, roleFormOf, rolePayloadOf } from "../../src/machines/custom-roles.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"
import { environment } from "./scan-fakes.ts"

const perm = (id: number, name: string) => ({ id, name }) as RoleWithPermissions["permissions"][number]
const prodReader = { id: 9, name: "Prod reader", is_custom: true, permissions: [perm(12, "read_only")], account_group_ids: [1] } as unknown as RoleWithPermissions
const auditor = { id: 8, name: "Auditor", is_custom: true, permissions: [perm(12, "read_only"), perm(9, "scan_service")], account_group_ids: null } as unknown as RoleWithPermissions
const groups = [{ id: 1 as AccountGroupId, name: "Prod" }, { id: 2 as AccountGroupId, name: "Payments team" }]
const loaded = (g: CustomRolesLoaded["groups"] = groups): CustomRolesLoaded => ({ roles: [prodReader, auditor], groups: g })
const conflict = (message: string) => httpFailure("generic", 409, { _tag: "Conflict", message })

describe("custom-roles machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = customRolesMachine.provide({ actors: { loadCustomRoles: never(), saveCustomRole: never(), deleteCustomRole: never() } })
    const coverage = await coverTransitions(provided, {
      createActor: (clock) => createActor(provided, { clock }),
      events: [
        { type: "xstate.done.actor.loadCustomRoles", output: loaded() },
        { type: "xstate.done.actor.loadCustomRoles", output: loaded(null) },
        { type: "xstate.error.actor.loadCustomRoles", error: httpFailure("generic", 500) },
        { type: "roles.retryRequested" },
        { type: "role.createRequested" },
        { type: "role.editRequested", id: 9 },
        { type: "role.editRequested", id: 99 },
        { type: "role.deleteRequested", id: 8 },
        { type: "role.deleteRequested", id: 99 },
        { type: "field.changed", field: "name", value: "Lead" },
        { type: "permission.toggled", permission: "read_only" },
        { type: "access.changed", limited: true },
        { type: "group.toggled", id: 2 },
        { type: "form.submitted" },
        { type: "form.cancelled" },
        { type: "xstate.done.actor.saveCustomRole", output: { message: AccessServerMessages.roleCreated, role: { ...auditor, id: 10, name: "Lead" } } },
        { type: "xstate.error.actor.saveCustomRole", error: conflict(AccessServerMessages.roleNameExists) },
        { type: "delete.confirmed" },
        { type: "delete.cancelled" },
        { type: "xstate.done.actor.deleteCustomRole", output: { message: AccessServerMessages.roleDeleted } },
        { type: "xstate.error.actor.deleteCustomRole", error: conflict(AccessServerMessages.roleInUse) },
      ],
      serializeState: (s) =>
        JSON.stringify([s.value, s.context.roles?.length ?? null, s.context.groups === null, s.context.values.name === "", s.context.values.permissions.length > 0, s.context.values.limited]),
    })
    console.info(formatCoverage("customRoles", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  const start = () => {
    const load = controlled<void, CustomRolesLoaded>()
    const save = controlled<{ readonly id: RoleId | null; readonly payload: CustomRolePayload }, CustomRoleSaved>()
    const remove = controlled<{ readonly id: RoleId }, { readonly message: string }>()
    const env = environment()
    const actor = createActor(
      customRolesMachine.provide({ actors: { loadCustomRoles: load.logic, saveCustomRole: save.logic, deleteCustomRole: remove.logic }, actions: { notify: env.notify } }),
    ).start()
    return { actor, load, save, remove, env }
  }

  it("creates a role limited to chosen groups; the contract's messages come first; a wider grant is refused above the form", async () => {
    const { actor, load, save, env } = start()
    try {
      await load.resolve(loaded())
      expect(actor.getSnapshot().context.roles?.map((r) => r.name)).toEqual(["Auditor", "Prod reader"])
      actor.send({ type: "role.createRequested" })
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.fieldErrors).toEqual({
        name: ValidationMessages.customRoleNameRequired,
        permissions: ValidationMessages.customRolePermissionsRequired,
      })
      actor.send({ type: "field.changed", field: "name", value: " Payments lead " })
      actor.send({ type: "permission.toggled", permission: "scan_service" })
      actor.send({ type: "access.changed", limited: true })
      actor.send({ type: "group.toggled", id: 2 as AccountGroupId })
      actor.send({ type: "form.submitted" })
      expect(save.calls).toEqual([{ id: null, payload: { name: "Payments lead", permissions: ["scan_service"], account_group_ids: [2] } }])
      await save.reject(httpFailure("generic", 403, { _tag: "Forbidden", message: AccountGroupMessages.cannotGrantWiderAccess }))
      expect(actor.getSnapshot().value).toBe("editing")
      expect(actor.getSnapshot().context.saveError).toBe(AccountGroupMessages.cannotGrantWiderAccess)
      actor.send({ type: "field.changed", field: "name", value: "Auditor" })
      actor.send({ type: "form.submitted" })
      await save.reject(conflict(AccessServerMessages.roleNameExists))
      expect(actor.getSnapshot().context.fieldErrors).toEqual({ name: AccessServerMessages.roleNameExists })
      actor.send({ type: "field.changed", field: "name", value: "Payments lead" })
      actor.send({ type: "form.submitted" })
      const saved = { ...auditor, id: 11, name: "Payments lead", account_group_ids: [2] } as unknown as RoleWithPermissions
      await save.resolve({ message: AccessServerMessages.roleCreated, role: saved })
      expect(actor.getSnapshot().value).toBe("ready")
      expect(actor.getSnapshot().context.roles?.map((r) => r.name)).toEqual(["Auditor", "Payments lead", "Prod reader"])
      expect(env.toasts.map((t) => t.kind)).toEqual(["error", "error", "success"])
    } finally {
      actor.stop()
    }
  })

  it("lifts a role's limit (null); without the right to read groups a save leaves the limit out", async () => {
    const { actor, load, save } = start()
    try {
      await load.resolve(loaded())
      actor.send({ type: "role.editRequested", id: 9 as RoleId })
      expect(actor.getSnapshot().context.values).toMatchObject({ limited: true, groupIds: [1], permissions: ["read_only"] })
      actor.send({ type: "access.changed", limited: false })
      actor.send({ type: "form.submitted" })
      expect(save.calls.at(-1)).toEqual({ id: 9, payload: { name: "Prod reader", permissions: ["read_only"], account_group_ids: null } })
    } finally {
      actor.stop()
    }
    const other = start()
    try {
      await other.load.resolve(loaded(null))
      other.actor.send({ type: "role.editRequested", id: 9 as RoleId })
      other.actor.send({ type: "access.changed", limited: false })
      other.actor.send({ type: "group.toggled", id: 2 as AccountGroupId })
      expect(other.actor.getSnapshot().context.values).toMatchObject({ limited: true, groupIds: [1] })
      other.actor.send({ type: "form.submitted" })
      expect(other.save.calls).toEqual([{ id: 9, payload: { name: "Prod reader", permissions: ["read_only"] } }])
    } finally {
      other.actor.stop()
    }
  })

  it("a role still assigned is kept with the server's words", async () => {
    const { actor, load, remove } = start()
    try {
      await load.resolve(loaded())
      actor.send({ type: "role.deleteRequested", id: 8 as RoleId })
      actor.send({ type: "delete.confirmed" })
      await remove.reject(conflict(AccessServerMessages.roleInUse))
      expect(actor.getSnapshot().value).toBe("confirmingDelete")
      expect(actor.getSnapshot().context.deleteError).toBe(AccessServerMessages.roleInUse)
      actor.send({ type: "delete.confirmed" })
      await remove.resolve({ message: AccessServerMessages.roleDeleted })
      expect(actor.getSnapshot().context.roles?.map((r) => r.id)).toEqual([9])
    } finally {
      actor.stop()
    }
  })

  it("a saved role's form gives back its payload", () => {
    expect(rolePayloadOf(roleFormOf(prodReader), true)).toEqual({ name: "Prod reader", permissions: ["read_only"], account_group_ids: [1] })
    expect(rolePayloadOf(roleFormOf(auditor), true)).toEqual({ name: "Auditor", permissions: ["read_only", "scan_service"], account_group_ids: null })
  })
})
