/**
 * The Account groups page's machine (issue 31 item 5): every (state, event) edge is driven (model-based,
 * xstate/graph), then the flows step by step: load (a limited or non-admin's 403 names the admin rule), creating a
 * group of each kind with the contract's checks, editing, the server's refusals on their field or above the form,
 * and deleting (409 while a role is limited to the group).
 */
import { describe, expect, it } from "vitest"
import { createActor } from "xstate"
import { AccountGroupMessages, type AccountGroupId, type AccountGroupPayload } from "../../src/contracts/account-groups.ts"
import type { AccountId } from "../../src/contracts/ids.ts"
import type { AccountGroupSaved, AccountGroupsLoaded } from "../../src/machines/account-groups-effects.ts"
import {
  accountGroupsMachine,
  EMPTY_GROUP_FORM,
  groupFormOf,
  groupPayloadOf,
  LOAD_GROUPS_FAILED,
  unitKey,
  validateGroupForm,
} from "../../src/machines/account-groups.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"
import { accountGroup, loaded, manualGroup, ORG, prodGroup, tagGroup } from "./account-groups-fakes.ts"
import { environment } from "./scan-fakes.ts"

const conflict = (message: string) => httpFailure("generic", 409, { _tag: "Conflict", message })
const badRequest = httpFailure("generic", 400, {
  _tag: "ValidationError",
  message: AccountGroupMessages.tagKeyRequired,
  errors: [{ path: "tag_key", message: AccountGroupMessages.tagKeyRequired }],
})

describe("account-groups machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = accountGroupsMachine.provide({ actors: { loadAccountGroups: never(), saveAccountGroup: never(), deleteAccountGroup: never() } })
    const events = [
      { type: "xstate.done.actor.loadAccountGroups", output: loaded() },
      { type: "xstate.error.actor.loadAccountGroups", error: httpFailure("generic", 500) },
      { type: "xstate.error.actor.loadAccountGroups", error: httpFailure("generic", 403, { message: AccountGroupMessages.adminOnly }) },
      { type: "groups.retryRequested" },
      { type: "group.createRequested" },
      { type: "group.editRequested", id: 1 },
      { type: "group.editRequested", id: 99 },
      { type: "group.deleteRequested", id: 1 },
      { type: "group.deleteRequested", id: 99 },
      { type: "field.changed", field: "name", value: "Prod" },
      { type: "field.changed", field: "name", value: "" },
      { type: "field.changed", field: "kind", value: "tag" },
      { type: "field.changed", field: "unit", value: unitKey(ORG, "ou-dev") },
      { type: "account.toggled", id: 21 },
      { type: "form.submitted" },
      { type: "form.cancelled" },
      { type: "xstate.done.actor.saveAccountGroup", output: { message: AccountGroupMessages.groupCreated, group: accountGroup(4, "Dev") } },
      { type: "xstate.error.actor.saveAccountGroup", error: conflict(AccountGroupMessages.nameExists) },
      { type: "xstate.error.actor.saveAccountGroup", error: httpFailure("generic", 500) },
      { type: "delete.confirmed" },
      { type: "delete.cancelled" },
      { type: "xstate.done.actor.deleteAccountGroup", output: { message: AccountGroupMessages.groupDeleted } },
      { type: "xstate.error.actor.deleteAccountGroup", error: conflict(AccountGroupMessages.groupInUse) },
    ]
    const coverage = await coverTransitions(provided, {
      createActor: (clock) => createActor(provided, { clock }),
      events,
      serializeState: (s) =>
        JSON.stringify([
          s.value,
          s.context.groups?.length ?? null,
          s.context.values.name === "",
          s.context.values.kind,
          s.context.values.unit === "",
          s.context.editingId,
        ]),
    })
    console.info(formatCoverage("accountGroups", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  const start = () => {
    const load = controlled<void, AccountGroupsLoaded>()
    const save = controlled<{ readonly id: AccountGroupId | null; readonly payload: AccountGroupPayload }, AccountGroupSaved>()
    const remove = controlled<{ readonly id: AccountGroupId }, { readonly message: string }>()
    const env = environment()
    const actor = createActor(
      accountGroupsMachine.provide({
        actors: { loadAccountGroups: load.logic, saveAccountGroup: save.logic, deleteAccountGroup: remove.logic },
        actions: { notify: env.notify },
      }),
    ).start()
    return { actor, load, save, remove, env }
  }

  it("lists the groups by name; a 403 names the admin rule without retry; other failures keep their text and retry", async () => {
    const { actor, load } = start()
    try {
      await load.reject(httpFailure("generic", 403, { message: "Forbidden" }))
      expect(actor.getSnapshot().value).toBe("failed")
      expect(actor.getSnapshot().context.loadError).toBe(AccountGroupMessages.adminOnly)
      actor.send({ type: "groups.retryRequested" })
      await load.reject(new Error("boom"))
      expect(actor.getSnapshot().context.loadError).toBe(LOAD_GROUPS_FAILED)
      actor.send({ type: "groups.retryRequested" })
      await load.resolve(loaded())
      expect(actor.getSnapshot().value).toBe("ready")
      expect(actor.getSnapshot().context.groups?.map((g) => g.name)).toEqual(["Audit sample", "Payments team", "Prod"])
      expect(actor.getSnapshot().context.choices.units).toHaveLength(3)
    } finally {
      actor.stop()
    }
  })

  it("creates a unit group: the contract's messages first, then the payload of its kind only", async () => {
    const { actor, load, save, env } = start()
    try {
      await load.resolve(loaded())
      actor.send({ type: "group.createRequested" })
      expect(actor.getSnapshot().value).toBe("editing")
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.fieldErrors).toEqual({ name: AccountGroupMessages.nameRequired, unit_id: AccountGroupMessages.unitRequired })
      expect(save.calls).toEqual([])
      actor.send({ type: "field.changed", field: "name", value: "x".repeat(101) })
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.fieldErrors["name"]).toBe(AccountGroupMessages.nameTooLong)
      actor.send({ type: "field.changed", field: "name", value: "  Dev  " })
      expect(actor.getSnapshot().context.fieldErrors).toEqual({ unit_id: AccountGroupMessages.unitRequired })
      actor.send({ type: "field.changed", field: "unit", value: unitKey(ORG, "ou-dev") })
      actor.send({ type: "field.changed", field: "tag_key", value: "ignored" })
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().value).toBe("saving")
      expect(save.calls).toEqual([{ id: null, payload: { name: "Dev", kind: "unit", organization_id: ORG, unit_id: "ou-dev" } }])
      const dev = accountGroup(4, "Dev", { unit_id: "ou-dev", unit_path: "Root / Dev", matched_account_ids: [24] })
      await save.resolve({ message: AccountGroupMessages.groupCreated, group: dev })
      expect(actor.getSnapshot().value).toBe("ready")
      expect(actor.getSnapshot().context.groups?.map((g) => g.name)).toEqual(["Audit sample", "Dev", "Payments team", "Prod"])
      expect(env.toasts).toEqual([{ kind: "success", message: AccountGroupMessages.groupCreated }])
    } finally {
      actor.stop()
    }
  })

  it("edits a tag group and a hand-picked group; the server's refusals land on their field or above the form", async () => {
    const { actor, load, save, env } = start()
    try {
      await load.resolve(loaded())
      actor.send({ type: "group.editRequested", id: 2 as AccountGroupId })
      expect(actor.getSnapshot().context.values).toMatchObject({ name: "Payments team", kind: "tag", tag_key: "team", tag_value: "payments" })
      actor.send({ type: "field.changed", field: "tag_key", value: " " })
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().context.fieldErrors).toEqual({ tag_key: AccountGroupMessages.tagKeyRequired })
      actor.send({ type: "field.changed", field: "tag_key", value: "team" })
      actor.send({ type: "field.changed", field: "tag_value", value: "" })
      actor.send({ type: "field.changed", field: "name", value: "Prod" })
      actor.send({ type: "form.submitted" })
      expect(save.calls.at(-1)).toEqual({ id: 2, payload: { name: "Prod", kind: "tag", tag_key: "team", tag_value: null } })
      await save.reject(conflict(AccountGroupMessages.nameExists))
      expect(actor.getSnapshot().value).toBe("editing")
      expect(actor.getSnapshot().context.fieldErrors).toEqual({ name: AccountGroupMessages.nameExists })
      actor.send({ type: "field.changed", field: "name", value: "Any team" })
      actor.send({ type: "form.submitted" })
      await save.reject(badRequest)
      expect(actor.getSnapshot().context.fieldErrors).toEqual({ tag_key: AccountGroupMessages.tagKeyRequired })
      actor.send({ type: "form.submitted" })
      await save.reject(httpFailure("generic", 404, { _tag: "NotFound", message: AccountGroupMessages.groupNotFound }))
      expect(actor.getSnapshot().context).toMatchObject({ fieldErrors: {}, saveError: AccountGroupMessages.groupNotFound })
      expect(env.toasts.map((t) => t.kind)).toEqual(["error", "error", "error"])
      actor.send({ type: "form.cancelled" })
      expect(actor.getSnapshot().value).toBe("ready")

      actor.send({ type: "group.editRequested", id: 3 as AccountGroupId })
      actor.send({ type: "account.toggled", id: 21 as AccountId })
      actor.send({ type: "account.toggled", id: 23 as AccountId })
      actor.send({ type: "form.submitted" })
      expect(save.calls.at(-1)).toEqual({ id: 3, payload: { name: "Audit sample", kind: "manual", account_ids: [24, 23] } })
      await save.resolve({ message: AccountGroupMessages.groupUpdated, group: manualGroup() })
      expect(actor.getSnapshot().context.groups).toHaveLength(3)
    } finally {
      actor.stop()
    }
  })

  it("deletes a group; a group that still limits a role is kept with the server's reason", async () => {
    const { actor, load, remove, env } = start()
    try {
      await load.resolve(loaded())
      actor.send({ type: "group.deleteRequested", id: 1 as AccountGroupId })
      actor.send({ type: "delete.confirmed" })
      expect(remove.calls).toEqual([{ id: 1 }])
      await remove.reject(conflict(AccountGroupMessages.groupInUse))
      expect(actor.getSnapshot().value).toBe("confirmingDelete")
      expect(actor.getSnapshot().context.deleteError).toBe(AccountGroupMessages.groupInUse)
      actor.send({ type: "delete.cancelled" })
      expect(actor.getSnapshot().context.groups).toHaveLength(3)
      actor.send({ type: "group.deleteRequested", id: 2 as AccountGroupId })
      actor.send({ type: "delete.confirmed" })
      await remove.resolve({ message: AccountGroupMessages.groupDeleted })
      expect(actor.getSnapshot().value).toBe("ready")
      expect(actor.getSnapshot().context.groups?.map((g) => g.id)).toEqual([3, 1])
      expect(env.toasts).toEqual([{ kind: "success", message: AccountGroupMessages.groupDeleted }])
    } finally {
      actor.stop()
    }
  })
})

describe("group form rules", () => {
  it("a saved group's form gives back its definition", () => {
    for (const group of [prodGroup(), tagGroup(), manualGroup()]) {
      const payload = groupPayloadOf(groupFormOf(group))
      expect(payload.name).toBe(group.name)
      expect(payload.kind).toBe(group.kind)
      if (group.kind === "unit") expect(payload).toMatchObject({ organization_id: group.organization_id, unit_id: group.unit_id })
      if (group.kind === "tag") expect(payload).toMatchObject({ tag_key: group.tag_key, tag_value: group.tag_value })
      if (group.kind === "manual") expect(payload).toMatchObject({ account_ids: group.account_ids })
      expect(validateGroupForm(groupFormOf(group))).toEqual({})
    }
    expect(validateGroupForm({ ...EMPTY_GROUP_FORM, name: "Empty pick", kind: "manual" })).toEqual({})
  })
})
