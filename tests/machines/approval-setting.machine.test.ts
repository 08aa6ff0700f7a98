/**
 * The account page's approval setting (issue 32, four eyes): every (state, event) edge is driven (model-based,
 * xstate/graph), then the flows step by step — load, turn approval on with an expiry, a bad expiry refused before
 * anything is sent, the server's refusal kept with the form, reset, retry — asserting the snapshot and the call log.
 */
import { describe, expect, it } from "vitest"
import { createActor } from "xstate"
import type { AccountId } from "../../src/contracts/ids.ts"
import { ApprovalMessages, type ApprovalSetting } from "../../src/contracts/remediation-requests.ts"
import type { ApprovalSaved } from "../../src/machines/approvals-effects.ts"
import { approvalSettingMachine, expiryOf } from "../../src/machines/approval-setting.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"
import { environment } from "./scan-fakes.ts"

const accountId = 7 as AccountId
const off: ApprovalSetting = { requires_approval: false, expiry_hours: 72 }
const denied = httpFailure("generic", 403, { _tag: "Forbidden", message: ApprovalMessages.settingPermissionDenied })

describe("approval-setting machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = approvalSettingMachine.provide({ actors: { loadApprovalSetting: never(), saveApprovalSetting: never() } })
    const events = [
      { type: "xstate.done.actor.loadApprovalSetting", output: off },
      { type: "xstate.error.actor.loadApprovalSetting", error: httpFailure("generic", 500) },
      { type: "approval.retryRequested" },
      { type: "approval.toggled", value: true },
      { type: "expiry.changed", value: "0" },
      { type: "expiry.changed", value: "24" },
      { type: "approval.saveRequested" },
      { type: "approval.reset" },
      { type: "xstate.done.actor.saveApprovalSetting", output: { message: ApprovalMessages.settingSaved, setting: { requires_approval: true, expiry_hours: 24 } } },
      { type: "xstate.error.actor.saveApprovalSetting", error: denied },
    ]
    const coverage = await coverTransitions(provided, {
      createActor: (clock) => createActor(provided, { clock, input: { accountId } }),
      input: { accountId },
      events,
      serializeState: (s) =>
        JSON.stringify([s.value, s.context.draft, s.context.setting]),
    })
    console.info(formatCoverage("approvalSetting", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  const start = () => {
    const load = controlled<{ readonly accountId: AccountId }, ApprovalSetting>()
    const save = controlled<{ readonly accountId: AccountId; readonly setting: ApprovalSetting }, ApprovalSaved>()
    const env = environment()
    const actor = createActor(
      approvalSettingMachine.provide({ actors: { loadApprovalSetting: load.logic, saveApprovalSetting: save.logic }, actions: { notify: env.notify } }),
      { input: { accountId } },
    ).start()
    return { actor, load, save, env }
  }

  it("turns approval on with an expiry; a bad expiry is refused before anything is sent", async () => {
    const { actor, load, save, env } = start()
    try {
      expect(load.calls).toEqual([{ accountId }])
      await load.resolve(off)
      expect(actor.getSnapshot().context.draft).toEqual({ requires_approval: false, expiry_hours: "72" })
      actor.send({ type: "approval.saveRequested" })
      expect(save.calls).toEqual([])
      actor.send({ type: "approval.toggled", value: true })
      actor.send({ type: "expiry.changed", value: "721" })
      actor.send({ type: "approval.saveRequested" })
      expect(actor.getSnapshot().context.expiryError).toBe(ApprovalMessages.expiryOutOfRange)
      expect(save.calls).toEqual([])
      actor.send({ type: "expiry.changed", value: " 24 " })
      expect(actor.getSnapshot().context.expiryError).toBeNull()
      actor.send({ type: "approval.saveRequested" })
      expect(actor.getSnapshot().value).toBe("saving")
      expect(save.calls).toEqual([{ accountId, setting: { requires_approval: true, expiry_hours: 24 } }])
      await save.resolve({ message: ApprovalMessages.settingSaved, setting: { requires_approval: true, expiry_hours: 24 } })
      expect(actor.getSnapshot().value).toBe("ready")
      expect(actor.getSnapshot().context).toMatchObject({ setting: { requires_approval: true, expiry_hours: 24 }, draft: { requires_approval: true, expiry_hours: "24" } })
      expect(env.toasts).toEqual([{ kind: "success", message: ApprovalMessages.settingSaved }])
    } finally {
      actor.stop()
    }
  })

  it("keeps the form after a refusal with the server's words; Reset puts the saved setting back; a failed load retries", async () => {
    const { actor, load, save, env } = start()
    try {
      await load.reject(httpFailure("generic", 500))
      expect(actor.getSnapshot().value).toBe("failed")
      actor.send({ type: "approval.retryRequested" })
      await load.resolve(off)
      actor.send({ type: "approval.toggled", value: true })
      actor.send({ type: "approval.saveRequested" })
      await save.reject(denied)
      expect(actor.getSnapshot().value).toBe("ready")
      expect(actor.getSnapshot().context.saveError).toBe(ApprovalMessages.settingPermissionDenied)
      expect(actor.getSnapshot().context.draft.requires_approval).toBe(true)
      expect(env.toasts).toEqual([{ kind: "error", message: ApprovalMessages.settingPermissionDenied }])
      actor.send({ type: "approval.reset" })
      expect(actor.getSnapshot().context).toMatchObject({ draft: { requires_approval: false, expiry_hours: "72" }, saveError: null })
    } finally {
      actor.stop()
    }
  })

  it("reads the expiry as whole hours between 1 and 720", () => {
    expect([expiryOf("1"), expiryOf("720"), expiryOf(" 72 ")]).toEqual([1, 720, 72])
    expect([expiryOf("0"), expiryOf("721"), expiryOf("1.5"), expiryOf(""), expiryOf("-3"), expiryOf("abc")]).toEqual([
      undefined, undefined, undefined, undefined, undefined, undefined,
    ])
  })
})
