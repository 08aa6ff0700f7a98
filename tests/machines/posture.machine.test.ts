/**
 * The posture machines (issue 13): the Mute dialog, the account page's schedule and mute rules, and the profile's digest
 * switch. Every (state, event) edge is driven (model-based, xstate/graph), then the flows are checked step by step.
 */
import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock } from "xstate"
import type { DetailRow, Finding, FindingDetailQuery, RemediateResponse } from "../../src/contracts/findings.ts"
import type { AccountId, FindingId } from "../../src/contracts/ids.ts"
import type { OkMessage } from "../../src/contracts/common.ts"
import { PostureMessages, type DigestPreference, type MuteRule, type PostureOverview, type MuteRulePayload, type MuteRuleResponse, type ScanSchedule, type ScanSchedulePayload } from "../../src/contracts/posture.ts"
import { accountPostureMachine, selectScheduleRetired, type AccountPostureInput } from "../../src/machines/account-posture.machine.ts"
import { digestPreferenceMachine } from "../../src/machines/digest-preference.machine.ts"
import { postureOverviewMachine } from "../../src/machines/posture-overview.machine.ts"
import { resourceHistoryMachine } from "../../src/machines/resource-history.machine.ts"
import { findingDetailMachine } from "../../src/machines/finding-detail.machine.ts"
import { fieldsOf, muteRuleFormMachine, rulePayload, type MuteRuleFormInput } from "../../src/machines/mute-rule-form.machine.ts"
import { remediationMachine } from "../../src/machines/remediation.machine.ts"
import type { ScanViewer } from "../../src/machines/scan-effects.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never, scripted } from "./auth-fakes.ts"
import { ACCOUNT_ID, SCAN_ID, environment, finding, muteRule, mutedRow, schedule, viewer } from "./scan-fakes.ts"

const saved: MuteRuleResponse = { ok: true, message: "Mute rule created", data: muteRule(3), rows_changed: 2 }

describe("finding detail: Mute", () => {
  const start = () => {
    const getFinding = controlled<{ readonly id: FindingId } & FindingDetailQuery, Finding>()
    const loadViewer = controlled<void, ScanViewer>()
    const create = controlled<{ readonly id: number | null; readonly payload: MuteRulePayload }, MuteRuleResponse>()
    const env = environment()
    const actor = createActor(
      findingDetailMachine.provide({
        actors: {
          getFinding: getFinding.logic,
          loadViewer: loadViewer.logic,
          remediation: remediationMachine.provide({ actors: { remediate: controlled<{ readonly id: FindingId; readonly details: DetailRow }, RemediateResponse>().logic } }),
          muteRule: muteRuleFormMachine.provide({ actors: { saveMuteRule: create.logic }, actions: { notify: env.notify } }),
        },
        actions: { notify: env.notify, navigate: env.navigate },
      }),
      { input: { scanId: SCAN_ID, findingId: 5 as FindingId, serviceName: "s3" }, clock: new SimulatedClock() },
    ).start()
    return { actor, getFinding, loadViewer, create, env }
  }

  it("mutes a failing row, then reads the page again and shows it muted", async () => {
    const { actor, getFinding, loadViewer, create } = start()
    try {
      await getFinding.resolve(finding(5))
      await loadViewer.resolve(viewer())
      actor.send({ type: "row.muteRequested", rowIndex: 1, today: "2025-03-01" }) // a compliant row: nothing opens
      expect(actor.getSnapshot().value).toMatchObject({ mute: "none" })
      actor.send({ type: "row.muteRequested", rowIndex: 0, today: "2025-03-01" })
      expect(actor.getSnapshot().value).toMatchObject({ mute: "open" })
      const dialog = actor.getSnapshot().children["muteRule"]!
      dialog.send({ type: "field.changed", field: "reason", value: "Accepted" })
      dialog.send({ type: "rule.submitted" })
      expect(create.calls[0]).toEqual({
        id: null,
        payload: { reason: "Accepted", account_id: 1, check_id: "s3.public_access", resource_pattern: "bucket-a", tag_key: null, tag_value: null, expires_at: null },
      })
      await create.resolve(saved)
      expect(actor.getSnapshot().value).toMatchObject({ mute: "none", detail: { loaded: "fetching" } })
      await getFinding.resolve(finding(5, { details: [mutedRow], resources_muted: 1, muted: true }))
      expect(actor.getSnapshot().context.finding?.muted).toBe(true)
      actor.send({ type: "row.muteRequested", rowIndex: 0, today: "2025-03-01" }) // already muted
      actor.send({ type: "finding.muteRequested", today: "2025-03-01" }) // nothing left to mute
      expect(actor.getSnapshot().value).toMatchObject({ mute: "none" })
    } finally {
      actor.stop()
    }
  })

  it("without remediate_findings Mute toasts and opens nothing", async () => {
    const { actor, getFinding, loadViewer, env } = start()
    try {
      await getFinding.resolve(finding(5))
      await loadViewer.resolve(viewer({ canRemediate: false }))
      actor.send({ type: "finding.muteRequested", today: "2025-03-01" })
      expect(env.toasts).toEqual([{ kind: "error", message: PostureMessages.mutePermissionDenied }])
      expect(actor.getSnapshot().value).toMatchObject({ mute: "none" })
    } finally {
      actor.stop()
    }
  })
})

const postureInput: AccountPostureInput = { accountId: ACCOUNT_ID }

describe("account-posture machine", () => {
  it("drives every (state, event) edge (with and without each permission)", async () => {
    const provided = accountPostureMachine.provide({
      actors: {
        getSchedule: never(), putSchedule: never(), listMuteRules: never(), deleteMuteRule: never(), loadViewer: never(),
        muteRuleForm: muteRuleFormMachine.provide({ actors: { saveMuteRule: never() } }),
      },
    })
    const events = [
      { type: "xstate.done.actor.getSchedule", output: schedule() },
      { type: "xstate.error.actor.getSchedule", error: httpFailure("generic", 500) },
      { type: "schedule.retryRequested" },
      { type: "schedule.editRequested" },
      { type: "draft.changed", patch: { frequency: "daily" } },
      { type: "schedule.saveRequested" },
      { type: "schedule.editCanceled" },
      { type: "xstate.done.actor.putSchedule", output: { message: "Schedule saved", schedule: schedule({ frequency: "daily" }) } },
      { type: "xstate.error.actor.putSchedule", error: httpFailure("generic", 400, { message: "Unknown region: mars-1" }) },
      { type: "xstate.done.actor.listMuteRules", output: [muteRule(3)] },
      { type: "xstate.error.actor.listMuteRules", error: httpFailure("generic", 500) },
      { type: "rules.reloadRequested" },
      { type: "rule.deleteRequested", id: 3 },
      { type: "rule.deleteRequested", id: 99 },
      { type: "xstate.done.actor.deleteMuteRule", output: { ok: true, message: "Mute rule deleted" } },
      { type: "xstate.error.actor.deleteMuteRule", error: httpFailure("generic", 404, { message: PostureMessages.muteRuleNotFound }) },
      { type: "xstate.done.actor.loadViewer", output: viewer() },
      { type: "xstate.done.actor.loadViewer", output: viewer({ canLaunchScans: false, canRemediate: false }) },
      { type: "xstate.error.actor.loadViewer", error: httpFailure("generic", 500) },
      { type: "rule.addRequested", today: "2025-03-01" },
      { type: "rule.editRequested", id: 3, today: "2025-03-01" },
      { type: "xstate.done.actor.muteRuleForm", output: { saved: true } },
      { type: "xstate.done.actor.muteRuleForm", output: { saved: false } },
    ]
    const coverage = await coverTransitions(provided, {
      input: postureInput,
      createActor: (clock) => createActor(provided, { input: postureInput, clock }),
      events,
      serializeState: (s) => JSON.stringify([s.value, s.context.viewer?.canLaunchScans ?? null, s.context.draft?.frequency ?? null, s.context.rules.length]),
    })
    console.info(formatCoverage("accountPosture", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  it("edits and saves the schedule, shows the server's refusal, and deletes a rule", async () => {
    const getSchedule = controlled<{ readonly id: AccountId }, ScanSchedule>()
    const putSchedule = controlled<{ readonly id: AccountId; readonly schedule: ScanSchedulePayload }, { readonly message: string; readonly schedule: ScanSchedule }>()
    const listMuteRules = controlled<{ readonly account_id?: AccountId }, ReadonlyArray<MuteRule>>()
    const deleteMuteRule = controlled<{ readonly id: number }, OkMessage>()
    const env = environment()
    const actor = createActor(
      accountPostureMachine.provide({
        actors: {
          getSchedule: getSchedule.logic, putSchedule: putSchedule.logic, listMuteRules: listMuteRules.logic, deleteMuteRule: deleteMuteRule.logic,
          loadViewer: scripted<void, ScanViewer>(() => viewer()).logic,
        },
        actions: { notify: env.notify },
      }),
      { input: postureInput },
    ).start()
    try {
      await getSchedule.resolve(schedule())
      await listMuteRules.resolve([muteRule(3)])
      actor.send({ type: "schedule.editRequested" })
      actor.send({ type: "draft.changed", patch: { frequency: "weekly", weekday: 5, time_of_day: "06:30", regions: ["mars-1"] } })
      actor.send({ type: "schedule.saveRequested" })
      expect(putSchedule.calls[0]).toEqual({
        id: ACCOUNT_ID,
        schedule: { frequency: "weekly", time_of_day: "06:30", weekday: 5, day_of_month: 1, timezone: "UTC", regions: ["mars-1"], services: null },
      })
      await putSchedule.reject(httpFailure("generic", 400, { message: "Unknown region: mars-1" }))
      expect(actor.getSnapshot().value).toMatchObject({ schedule: "editing" })
      expect(actor.getSnapshot().context.scheduleError).toBe("Unknown region: mars-1")
      actor.send({ type: "draft.changed", patch: { regions: null } })
      actor.send({ type: "schedule.saveRequested" })
      await putSchedule.resolve({ message: "Schedule saved", schedule: schedule({ frequency: "weekly", weekday: 5, next_run_at: "2025-03-07T06:30:00.000Z" }) })
      expect(actor.getSnapshot().value).toMatchObject({ schedule: "viewing" })
      expect(actor.getSnapshot().context.schedule?.next_run_at).toBe("2025-03-07T06:30:00.000Z")
      actor.send({ type: "rule.deleteRequested", id: 3 })
      expect(deleteMuteRule.calls).toEqual([{ id: 3 }])
      await deleteMuteRule.resolve({ ok: true, message: "Mute rule deleted" })
      expect(actor.getSnapshot().value).toMatchObject({ rules: "loading" })
      await listMuteRules.resolve([])
      expect(env.toasts.map((t) => t.message)).toEqual(["Unknown region: mars-1", "Schedule saved", "Mute rule deleted"])
    } finally {
      actor.stop()
    }
  })

  it("without the permissions: editing toasts the launch refusal, deleting the mute refusal", async () => {
    const getSchedule = controlled<{ readonly id: AccountId }, ScanSchedule>()
    const listMuteRules = controlled<{ readonly account_id?: AccountId }, ReadonlyArray<MuteRule>>()
    const env = environment()
    const actor = createActor(
      accountPostureMachine.provide({
        actors: {
          getSchedule: getSchedule.logic, listMuteRules: listMuteRules.logic, putSchedule: never(), deleteMuteRule: never(),
          loadViewer: scripted<void, ScanViewer>(() => viewer({ canLaunchScans: false, canRemediate: false })).logic,
        },
        actions: { notify: env.notify },
      }),
      { input: postureInput },
    ).start()
    try {
      await getSchedule.resolve(schedule())
      await listMuteRules.resolve([muteRule(3)])
      actor.send({ type: "schedule.editRequested" })
      actor.send({ type: "rule.deleteRequested", id: 3 })
      expect(env.toasts.map((t) => t.message)).toEqual(["Permission denied: Cannot launch scans", PostureMessages.mutePermissionDenied])
      expect(actor.getSnapshot().value).toEqual({ viewer: "ready", schedule: "viewing", rules: "ready", form: "none" })
    } finally {
      actor.stop()
    }
  })

  it("a member retired from its organisation: its schedule is shown, never edited, and nothing is toasted (issue 31)", async () => {
    const getSchedule = controlled<{ readonly id: AccountId }, ScanSchedule>()
    const listMuteRules = controlled<{ readonly account_id?: AccountId }, ReadonlyArray<MuteRule>>()
    const env = environment()
    const actor = createActor(
      accountPostureMachine.provide({
        actors: {
          getSchedule: getSchedule.logic, listMuteRules: listMuteRules.logic, putSchedule: never(), deleteMuteRule: never(),
          loadViewer: scripted<void, ScanViewer>(() => viewer()).logic,
        },
        actions: { notify: env.notify },
      }),
      { input: { ...postureInput, retired: true } },
    ).start()
    try {
      await getSchedule.resolve(schedule())
      await listMuteRules.resolve([])
      expect(selectScheduleRetired(actor.getSnapshot())).toBe(true)
      actor.send({ type: "schedule.editRequested" })
      expect(actor.getSnapshot().value).toMatchObject({ schedule: "viewing" })
      expect(actor.getSnapshot().context.draft).toBeNull()
      expect(env.toasts).toEqual([])
    } finally {
      actor.stop()
    }
  })
})

describe("digest-preference machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = digestPreferenceMachine.provide({ actors: { getDigest: never(), putDigest: never() } })
    const coverage = await coverTransitions(provided, {
      events: [
        { type: "xstate.done.actor.getDigest", output: { scan_digest: false } },
        { type: "xstate.error.actor.getDigest", error: httpFailure("generic", 500) },
        { type: "digest.retryRequested" },
        { type: "digest.toggled", enabled: true },
        { type: "digest.toggled", enabled: false },
        { type: "xstate.done.actor.putDigest", output: { message: "Email preference saved", preference: { scan_digest: true } } },
        { type: "xstate.error.actor.putDigest", error: httpFailure("generic", 500) },
      ],
      serializeState: (s) => JSON.stringify([s.value, s.context.enabled]),
    })
    console.info(formatCoverage("digestPreference", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  it("switches on at once, keeps the saved value, and switches back when saving fails", async () => {
    const getDigest = controlled<void, DigestPreference>()
    const putDigest = controlled<DigestPreference, { readonly message: string; readonly preference: DigestPreference }>()
    const env = environment()
    const actor = createActor(digestPreferenceMachine.provide({ actors: { getDigest: getDigest.logic, putDigest: putDigest.logic }, actions: { notify: env.notify } })).start()
    try {
      await getDigest.resolve({ scan_digest: false })
      actor.send({ type: "digest.toggled", enabled: true })
      expect(actor.getSnapshot().context.enabled).toBe(true)
      expect(putDigest.calls).toEqual([{ scan_digest: true }])
      await putDigest.reject(httpFailure("generic", 500))
      expect(actor.getSnapshot().context.enabled).toBe(false)
      actor.send({ type: "digest.toggled", enabled: true })
      await putDigest.resolve({ message: "Email preference saved", preference: { scan_digest: true } })
      expect(actor.getSnapshot().context.enabled).toBe(true)
      expect(env.toasts.at(-1)).toEqual({ kind: "success", message: "Email preference saved" })
    } finally {
      actor.stop()
    }
  })
})

describe("posture-overview machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = postureOverviewMachine.provide({ actors: { loadOverview: never() } })
    const overview = { accounts: [], top_failing_checks: [], stale_after_days: 7 }
    const coverage = await coverTransitions(provided, {
      events: [
        { type: "xstate.done.actor.loadOverview", output: overview },
        { type: "xstate.error.actor.loadOverview", error: httpFailure("generic", 500) },
        { type: "overview.retryRequested" },
        { type: "overview.refreshRequested" },
        { type: "xstate.done.actor.reloadOverview", output: overview },
        { type: "xstate.error.actor.reloadOverview", error: httpFailure("generic", 500) },
      ],
    })
    console.info(formatCoverage("postureOverview", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  it("keeps what it shows when a refresh fails, and toasts", async () => {
    const load = controlled<void, PostureOverview>()
    const env = environment()
    const actor = createActor(postureOverviewMachine.provide({ actors: { loadOverview: load.logic }, actions: { notify: env.notify } })).start()
    try {
      const failure = httpFailure("generic", 500)
      await load.reject(failure)
      expect(actor.getSnapshot().context.error).toBe(failure.message)
      actor.send({ type: "overview.retryRequested" })
      const shown = { accounts: [], top_failing_checks: [], stale_after_days: 7 }
      await load.resolve(shown)
      actor.send({ type: "overview.refreshRequested" })
      await load.reject(httpFailure("generic", 500))
      expect(actor.getSnapshot().value).toBe("ready")
      expect(actor.getSnapshot().context.overview).toEqual(shown)
      expect(env.toasts).toEqual([{ kind: "error", message: failure.message }])
    } finally {
      actor.stop()
    }
  })
})

describe("resource-history machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = resourceHistoryMachine.provide({ actors: { loadResourceHistory: never() } })
    const input = { accountId: ACCOUNT_ID, uid: "arn:aws:s3:::bucket-a" }
    const coverage = await coverTransitions(provided, {
      input,
      createActor: (clock) => createActor(provided, { input, clock }),
      events: [
        { type: "xstate.done.actor.loadResourceHistory", output: { scans: [] } },
        { type: "xstate.error.actor.loadResourceHistory", error: httpFailure("generic", 404, { message: PostureMessages.resourceNotFound }) },
        { type: "history.retryRequested" },
      ],
    })
    console.info(formatCoverage("resourceHistory", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })
})

describe("mute-rule-form machine", () => {
  const formInput = (overrides: Partial<MuteRuleFormInput> = {}): MuteRuleFormInput => ({
    accountId: ACCOUNT_ID, rule: null, canMute: true, today: "2025-03-01", ...overrides,
  })

  it("drives every (state, event) edge (new and edited rule, with and without the permission)", async () => {
    const provided = muteRuleFormMachine.provide({ actors: { saveMuteRule: never() } })
    const events = [
      { type: "field.changed", field: "reason", value: "Accepted" },
      { type: "field.changed", field: "reason", value: "" },
      { type: "field.changed", field: "tag_value", value: "prod" },
      { type: "rule.submitted" },
      { type: "dialog.closed" },
      { type: "xstate.done.actor.saveMuteRule", output: saved },
      { type: "xstate.error.actor.saveMuteRule", error: httpFailure("generic", 400, { message: PostureMessages.muteUnknownCheck }) },
    ]
    let total = 0
    let driven = 0
    for (const input of [formInput(), formInput({ rule: muteRule(3) }), formInput({ canMute: false })]) {
      const coverage = await coverTransitions(provided, {
        input,
        createActor: (clock) => createActor(provided, { input, clock }),
        events,
        serializeState: (s) => JSON.stringify([s.value, s.context.fields.reason !== "", s.context.fields.tag_value]),
      })
      expect(coverage.missing).toEqual([])
      total += coverage.total
      driven += coverage.driven
    }
    console.info(formatCoverage("muteRuleForm", { total, driven, missing: [], edges: [] }))
    expect(driven).toBe(total)
  })

  it("without remediate_findings nothing is sent and the toast says so; closing ends unsaved", () => {
    const save = controlled<{ readonly id: number | null; readonly payload: MuteRulePayload }, MuteRuleResponse>()
    const env = environment()
    const actor = createActor(muteRuleFormMachine.provide({ actors: { saveMuteRule: save.logic }, actions: { notify: env.notify } }), {
      input: formInput({ canMute: false }),
    }).start()
    actor.send({ type: "field.changed", field: "reason", value: "x" })
    actor.send({ type: "rule.submitted" })
    expect(save.calls).toEqual([])
    expect(env.toasts).toEqual([{ kind: "error", message: PostureMessages.mutePermissionDenied }])
    actor.send({ type: "dialog.closed" })
    expect(actor.getSnapshot().output).toEqual({ saved: false })
  })

  it("starts a new rule with the fields it is given (a finding's check and resource), and an expiry after today", () => {
    const actor = createActor(muteRuleFormMachine.provide({ actors: { saveMuteRule: never() } }), {
      input: formInput({ initial: { check_id: "s3.public_access", resource_pattern: "bucket-a" } }),
    }).start()
    expect(actor.getSnapshot().context.fields).toMatchObject({ check_id: "s3.public_access", resource_pattern: "bucket-a", reason: "" })
    actor.send({ type: "field.changed", field: "reason", value: "r" })
    actor.send({ type: "field.changed", field: "expiry", value: "2025-03-01" })
    actor.send({ type: "rule.submitted" })
    expect(actor.getSnapshot().context.fieldErrors).toEqual({ expiry: PostureMessages.muteExpiryPast })
    actor.stop()
  })

  it("checks the form, creates a new rule or replaces the edited one, and shows the server's refusal", async () => {
    const save = controlled<{ readonly id: number | null; readonly payload: MuteRulePayload }, MuteRuleResponse>()
    const env = environment()
    const start = (input: MuteRuleFormInput) =>
      createActor(muteRuleFormMachine.provide({ actors: { saveMuteRule: save.logic }, actions: { notify: env.notify } }), { input }).start()
    const actor = start(formInput())
    actor.send({ type: "field.changed", field: "tag_value", value: "prod" })
    actor.send({ type: "rule.submitted" })
    expect(actor.getSnapshot().context.fieldErrors).toEqual({ reason: PostureMessages.muteReasonRequired, tag_value: PostureMessages.muteTagValueWithoutKey })
    actor.send({ type: "field.changed", field: "tag_key", value: "env" })
    actor.send({ type: "field.changed", field: "reason", value: "Production is reviewed elsewhere" })
    actor.send({ type: "field.changed", field: "resource_pattern", value: "arn:aws:s3:::logs-*" })
    actor.send({ type: "rule.submitted" })
    expect(save.calls[0]).toEqual({
      id: null,
      payload: {
        reason: "Production is reviewed elsewhere", account_id: ACCOUNT_ID, check_id: null, resource_pattern: "arn:aws:s3:::logs-*",
        tag_key: "env", tag_value: "prod", expires_at: null,
      },
    })
    await save.reject(httpFailure("generic", 400, { message: PostureMessages.mutePatternMatchesNothing }))
    expect(actor.getSnapshot().context.error).toBe(PostureMessages.mutePatternMatchesNothing)
    actor.send({ type: "rule.submitted" })
    await save.resolve(saved)
    expect(actor.getSnapshot().output).toEqual({ saved: true })
    const edit = start(formInput({ rule: muteRule(3, { expires_at: "2026-01-31T23:59:59.000Z" }) }))
    expect(edit.getSnapshot().context.fields).toEqual(fieldsOf(muteRule(3, { expires_at: "2026-01-31T23:59:59.000Z" })))
    edit.send({ type: "rule.submitted" })
    expect(save.calls[2]).toEqual({ id: 3, payload: rulePayload(ACCOUNT_ID, fieldsOf(muteRule(3, { expires_at: "2026-01-31T23:59:59.000Z" }))) })
    edit.stop()
  })
})
