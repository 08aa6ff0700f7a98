import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { createActor, SimulatedClock } from "xstate"
import type { AccountId } from "../../src/contracts/ids.ts"
import { EMPTY_SELECTION, memberIncluded, unitChainOf, type FleetScan, type MemberSelection, type OrganizationDetail, type OrganizationSync } from "../../src/contracts/organizations.ts"
import type { ScanStartPayload, ScanStartResponse } from "../../src/contracts/scans.ts"
import type { SelectionSaved, SyncDone } from "../../src/machines/organization-effects.ts"
import { FLEET_REFRESH_MS, organizationMachine, type FleetState } from "../../src/machines/organization.machine.ts"
import {
  canToggleMember,
  canToggleUnit,
  isMemberSelected,
  isUnitSelected,
  toggleMember,
  toggleUnit,
  unitChain,
} from "../../src/machines/organization-selection.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"
import { changes, fleetScan, ORG_ID, organizationDetail, sync } from "./organization-fakes.ts"
import { environment, scan, viewer } from "./scan-fakes.ts"

const input = { organizationId: ORG_ID as AccountId }

const start = () => {
  const loadOrganization = controlled<{ readonly id: AccountId }, OrganizationDetail>()
  const saveSelection = controlled<{ readonly id: AccountId; readonly selection: MemberSelection }, SelectionSaved>()
  const syncNow = controlled<{ readonly id: AccountId }, SyncDone>()
  const listSyncs = controlled<{ readonly id: AccountId }, ReadonlyArray<OrganizationSync>>()
  const loadFleet = controlled<{ readonly id: AccountId }, FleetState>()
  const getFleetScan = controlled<{ readonly id: FleetScan["fleet_scan_id"] }, FleetScan>()
  const startScan = controlled<ScanStartPayload, ScanStartResponse>()
  const env = environment()
  const clock = new SimulatedClock()
  const actor = createActor(
    organizationMachine.provide({
      actors: {
        loadOrganization: loadOrganization.logic,
        saveSelection: saveSelection.logic,
        syncNow: syncNow.logic,
        listSyncs: listSyncs.logic,
        loadFleet: loadFleet.logic,
        getFleetScan: getFleetScan.logic,
        startScan: startScan.logic,
      },
      actions: { notify: env.notify },
    }),
    { input, clock },
  ).start()
  return { actor, clock, loadOrganization, saveSelection, syncNow, listSyncs, loadFleet, getFleetScan, startScan, env }
}

const finished = (id: number) => fleetScan(id, { status: "completed", finished_at: "2025-03-01T11:30:00.000Z", members_running: 0, members_completed: 1 })

describe("organization machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = organizationMachine.provide({
      actors: {
        loadOrganization: never(),
        saveSelection: never(),
        syncNow: never(),
        listSyncs: never(),
        loadFleet: never(),
        getFleetScan: never(),
        startScan: never(),
      },
    })
    const coverage = await coverTransitions(provided, {
      input,
      createActor: (clock) => createActor(provided, { input, clock }),
      events: [
        { type: "xstate.done.actor.loadOrganization", output: organizationDetail() },
        { type: "xstate.error.actor.loadOrganization", error: httpFailure("generic", 404, { message: "Organization not found" }) },
        { type: "unit.toggled", unitId: "ou-prod" },
        { type: "member.toggled", cloudAccountId: "222222222222" },
        { type: "xstate.done.actor.saveSelection", output: { message: "Member selection saved", organization: organizationDetail() } },
        { type: "xstate.error.actor.saveSelection", error: httpFailure("generic", 409, { message: "A sync is already running" }) },
        { type: "xstate.done.actor.syncNow", output: { message: "Organization synced", sync: sync(3) } },
        { type: "xstate.error.actor.syncNow", error: httpFailure("generic", 500) },
        { type: "xstate.done.actor.reloadOrganization", output: organizationDetail() },
        { type: "xstate.error.actor.reloadOrganization", error: httpFailure("generic", 500) },
        { type: "xstate.done.actor.listSyncs", output: [sync(2), sync(1)] },
        { type: "xstate.error.actor.listSyncs", error: httpFailure("generic", 500) },
        { type: "xstate.done.actor.loadFleet", output: { viewer: viewer(), fleetScan: fleetScan(4) } },
        { type: "xstate.done.actor.loadFleet", output: { viewer: viewer(), fleetScan: null } },
        { type: "xstate.done.actor.loadFleet", output: { viewer: viewer({ canLaunchScans: false }), fleetScan: finished(4) } },
        { type: "xstate.error.actor.loadFleet", error: httpFailure("generic", 500) },
        { type: "xstate.done.actor.startScan", output: { ok: true, message: "Fleet scan started", data: fleetScan(5) } },
        { type: "xstate.done.actor.startScan", output: { ok: true, message: "Scan started", data: scan(9) } },
        { type: "xstate.error.actor.startScan", error: httpFailure("scan-start", 409, { message: "A scan of this organization is already running" }) },
        { type: "xstate.done.actor.getFleetScan", output: fleetScan(5) },
        { type: "xstate.done.actor.getFleetScan", output: finished(5) },
        { type: "xstate.error.actor.getFleetScan", error: httpFailure("generic", 500) },
      ],
      // Whether 'Scan organization' goes ahead depends on who is looking: part of the state for the graph.
      serializeState: (s) => JSON.stringify([s.value, s.context.viewer?.canLaunchScans ?? null]),
    })
    console.info(formatCoverage("organization", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  it("loads the organisation, edits the selection with checkboxes and saves it (the server's organisation replaces the page's)", async () => {
    const { actor, loadOrganization, saveSelection, env } = start()
    try {
      expect(loadOrganization.calls).toEqual([{ id: ORG_ID }])
      await loadOrganization.reject(new Error("socket closed"))
      expect(actor.getSnapshot().value).toBe("failed")
      expect(actor.getSnapshot().context.error).toBe("Failed to load the organization. Please try again.")
      actor.send({ type: "organization.retryRequested" })
      await loadOrganization.resolve(organizationDetail())
      expect(actor.getSnapshot().value).toMatchObject({ ready: { selection: "viewing", sync: "idle", history: "collapsed", fleet: "loading" } })

      actor.send({ type: "selection.editRequested" })
      actor.send({ type: "unit.toggled", unitId: "ou-dev" })
      actor.send({ type: "member.toggled", cloudAccountId: "333333333333" })
      expect(actor.getSnapshot().context.draft).toEqual({ ...EMPTY_SELECTION, exclude_units: ["ou-dev"], exclude_accounts: ["333333333333"] })
      actor.send({ type: "selection.saveRequested" })
      expect(saveSelection.calls).toEqual([{ id: ORG_ID, selection: { ...EMPTY_SELECTION, exclude_units: ["ou-dev"], exclude_accounts: ["333333333333"] } }])
      await saveSelection.reject(httpFailure("generic", 409, { message: "A sync is already running" }))
      expect(actor.getSnapshot().value).toMatchObject({ ready: { selection: "editing" } })
      expect(actor.getSnapshot().context.selectionError).toBe("A sync is already running")
      actor.send({ type: "selection.saveRequested" })
      const saved = organizationDetail({ members_included: 1, selection: { ...EMPTY_SELECTION, exclude_units: ["ou-dev"], exclude_accounts: ["333333333333"] } })
      await saveSelection.resolve({ message: "Member selection saved", organization: saved })
      expect(actor.getSnapshot().value).toMatchObject({ ready: { selection: "viewing" } })
      expect(actor.getSnapshot().context.organization?.members_included).toBe(1)
      expect(actor.getSnapshot().context.draft).toBeNull()
      expect(env.toasts).toEqual([{ kind: "success", message: "Member selection saved" }])

      // Cancel drops a draft without a call.
      actor.send({ type: "selection.editRequested" })
      actor.send({ type: "unit.toggled", unitId: "ou-prod" })
      actor.send({ type: "selection.cancelled" })
      expect(actor.getSnapshot().context.draft).toBeNull()
      expect(saveSelection.calls).toHaveLength(2)
    } finally {
      actor.stop()
    }
  })

  it("'Sync now' shows what changed, then reads the organisation again; the full history on request", async () => {
    const { actor, loadOrganization, syncNow, listSyncs, env } = start()
    try {
      await loadOrganization.resolve(organizationDetail())
      actor.send({ type: "sync.requested" })
      await syncNow.reject(new Error("socket closed"))
      expect(actor.getSnapshot().context.syncError).toBe("Failed to sync the organization. Please try again.")
      actor.send({ type: "sync.requested" })
      const done = sync(3, { changes: changes({ added: [{ cloud_account_id: "555555555555", name: "New", unit_path: "Root / Prod" }] }) })
      await syncNow.resolve({ message: "Organization synced", sync: done })
      expect(actor.getSnapshot().context.lastSync).toEqual(done)
      expect(actor.getSnapshot().context.syncError).toBeNull()
      expect(actor.getSnapshot().value).toMatchObject({ ready: { sync: "reloading" } })
      await loadOrganization.resolve(organizationDetail({ members_total: 4 }))
      expect(actor.getSnapshot().context.organization?.members_total).toBe(4)
      expect(actor.getSnapshot().value).toMatchObject({ ready: { sync: "idle" } })
      expect(env.toasts).toEqual([{ kind: "success", message: "Organization synced" }])

      actor.send({ type: "history.requested" })
      await listSyncs.resolve([sync(3), sync(2), sync(1)])
      expect(actor.getSnapshot().context.syncs?.map((s) => s.id)).toEqual([3, 2, 1])
    } finally {
      actor.stop()
    }
  })

  it("'Scan organization' starts a scan of the organisation account and reads its fleet scan every 10 s until it ends", async () => {
    const { actor, clock, loadOrganization, loadFleet, startScan, getFleetScan, env } = start()
    try {
      await loadOrganization.resolve(organizationDetail())
      await loadFleet.resolve({ viewer: viewer(), fleetScan: null })
      expect(actor.getSnapshot().value).toMatchObject({ ready: { fleet: "idle" } })
      actor.send({ type: "fleetScan.requested" })
      expect(startScan.calls).toEqual([{ user_id: 7, account_id: ORG_ID, cloud_provider_id: 1, cloud_provider_name: "aws" }])
      await startScan.resolve({ ok: true, message: "Fleet scan started", data: fleetScan(5) })
      expect(actor.getSnapshot().value).toMatchObject({ ready: { fleet: { watching: "waiting" } } })
      expect(env.toasts).toEqual([{ kind: "success", message: "Fleet scan started" }])

      clock.increment(FLEET_REFRESH_MS - 1)
      expect(getFleetScan.calls).toEqual([])
      clock.increment(1)
      expect(getFleetScan.calls).toEqual([{ id: 5 }])
      await getFleetScan.resolve(fleetScan(5, { members_completed: 1, members_running: 0 }))
      expect(actor.getSnapshot().context.fleetScan?.members_completed).toBe(1)
      clock.increment(FLEET_REFRESH_MS)
      await getFleetScan.resolve(finished(5))
      expect(actor.getSnapshot().value).toMatchObject({ ready: { fleet: "idle" } })
      clock.increment(FLEET_REFRESH_MS * 3)
      expect(getFleetScan.calls).toHaveLength(2)
    } finally {
      actor.stop()
    }
  })

  it("without scan_service 'Scan organization' is refused with the spec's text and nothing is started", async () => {
    const { actor, loadOrganization, loadFleet, startScan } = start()
    try {
      await loadOrganization.resolve(organizationDetail())
      await loadFleet.resolve({ viewer: viewer({ canLaunchScans: false }), fleetScan: finished(4) })
      actor.send({ type: "fleetScan.requested" })
      expect(actor.getSnapshot().context.fleetError).toBe("Permission denied: Cannot launch scans")
      expect(startScan.calls).toEqual([])
    } finally {
      actor.stop()
    }
  })
})

describe("organisation selection rules", () => {
  const units = organizationDetail().units
  const members = organizationDetail().members
  const ids = ["r-root", "ou-prod", "ou-dev"]
  const accountIds = members.map((m) => m.cloud_account_id)
  const selection = fc.record({
    include_units: fc.subarray(ids),
    exclude_units: fc.subarray(ids),
    include_accounts: fc.subarray(accountIds),
    exclude_accounts: fc.subarray(accountIds),
  })
  const everything = (s: MemberSelection) => [
    ...ids.map((id) => isUnitSelected(s, units, id)),
    ...members.map((m) => isMemberSelected(s, units, m)),
  ]

  it("empty lists select everything; excludes win over includes", () => {
    expect(everything(EMPTY_SELECTION).every(Boolean)).toBe(true)
    const s = { ...EMPTY_SELECTION, include_units: ["ou-prod"], exclude_accounts: ["222222222222"] }
    expect(members.map((m) => isMemberSelected(s, units, m))).toEqual([false, true, false])
    // An included account is scanned even under an excluded unit, as the server's rule says.
    expect(isMemberSelected({ ...EMPTY_SELECTION, include_accounts: ["444444444444"], exclude_units: ["ou-dev"] }, units, members[2]!)).toBe(true)
    // Including an account does not narrow the others: with no included unit every member is included.
    expect(members.map((m) => isMemberSelected({ ...EMPTY_SELECTION, include_accounts: ["444444444444"] }, units, m))).toEqual([true, true, true])
  })

  it("previews exactly the server's rule (the contract's memberIncluded over unitChainOf) for every selection", () => {
    const parentOf = new Map(units.map((u) => [u.unit_id, u.parent_unit_id]))
    fc.assert(
      fc.property(selection, (s) => {
        for (const m of members) expect(isMemberSelected(s, units, m)).toBe(memberIncluded(m.cloud_account_id, unitChainOf(m.unit_id, parentOf), s))
        for (const m of members) expect(canToggleMember(s, units, m)).toBe(true)
      }),
    )
  })

  it("a toggle flips what it names and nothing outside it; a member toggled twice selects what it did", () => {
    fc.assert(
      fc.property(selection, fc.integer({ min: 0, max: ids.length + members.length - 1 }), (s, i) => {
        if (i < ids.length) {
          const unitId = ids[i]!
          const once = toggleUnit(s, units, unitId)
          if (!canToggleUnit(s, units, unitId)) {
            expect(once).toEqual(s)
            return
          }
          expect(isUnitSelected(once, units, unitId)).toBe(!isUnitSelected(s, units, unitId))
          // Units and members outside the toggled unit's subtree keep their selection.
          const outside = (unit: string) => !unitChain(units, unit).includes(unitId)
          for (const id of ids.filter(outside)) expect(isUnitSelected(once, units, id)).toBe(isUnitSelected(s, units, id))
          for (const m of members.filter((m) => outside(m.unit_id))) expect(isMemberSelected(once, units, m)).toBe(isMemberSelected(s, units, m))
          return
        }
        const member = members[i - ids.length]!
        const once = toggleMember(s, units, member)
        if (!canToggleMember(s, units, member)) {
          expect(once).toEqual(s)
          return
        }
        expect(isMemberSelected(once, units, member)).toBe(!isMemberSelected(s, units, member))
        expect(everything(toggleMember(once, units, member))).toEqual(everything(s))
        for (const m of members.filter((m) => m !== member)) expect(isMemberSelected(once, units, m)).toBe(isMemberSelected(s, units, m))
        for (const id of ids) expect(isUnitSelected(once, units, id)).toBe(isUnitSelected(s, units, id))
      }),
    )
  })
})
