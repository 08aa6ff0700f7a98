import { describe, expect, it } from "vitest"
import { createActor, type SnapshotFrom } from "xstate"
import type { AccountId } from "../../src/contracts/ids.ts"
import type { FleetDashboard, FleetQuery, OrganizationDetail } from "../../src/contracts/organizations.ts"
import type { Framework } from "../../src/contracts/compliance.ts"
import type { OrgCompliance } from "../../src/contracts/organizations.ts"
import { fleetComplianceMachine } from "../../src/machines/fleet-compliance.machine.ts"
import { fleetDashboardMachine, fleetUnits, membersPage, TAG_FORMAT_MESSAGE } from "../../src/machines/fleet-dashboard.machine.ts"
import type { OrgComplianceRequest } from "../../src/machines/fleet-effects.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"
import { framework } from "./compliance-fakes.ts"
import { fleetDashboard, fleetMember, orgCompliance } from "./fleet-fakes.ts"
import { ORG_ID, organizationDetail } from "./organization-fakes.ts"
import { environment } from "./scan-fakes.ts"

const input = { organizationId: ORG_ID as AccountId }
/** Page 1 of three (two members a page, five members). */
const threePages = fleetDashboard([fleetMember(21), fleetMember(22)], { pagination: { page: 1, page_size: 2, total: 5, total_pages: 3 } })
/** The Compliance child with nothing answering (its own flows are in fleet-compliance.machine.test.ts). */
const idleCompliance = fleetComplianceMachine.provide({ actors: { loadOrgFrameworks: never(), loadOrgCompliance: never(), downloadOrgCompliance: never() } })

const start = () => {
  const load = controlled<{ readonly id: AccountId; readonly query: FleetQuery }, FleetDashboard>()
  const organization = controlled<{ readonly id: AccountId }, OrganizationDetail>()
  const env = environment()
  const actor = createActor(
    fleetDashboardMachine.provide({
      actors: { loadFleet: load.logic, loadOrganization: organization.logic, fleetCompliance: idleCompliance },
      actions: { notify: env.notify },
    }),
    { input },
  ).start()
  return { actor, load, organization, env }
}

describe("fleet-dashboard machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = fleetDashboardMachine.provide({ actors: { loadFleet: never(), loadOrganization: never(), fleetCompliance: idleCompliance } })
    const coverage = await coverTransitions(provided, {
      input,
      createActor: (clock) => createActor(provided, { input, clock }),
      events: [
        { type: "xstate.done.actor.loadFleet", output: threePages },
        { type: "xstate.error.actor.loadFleet", error: httpFailure("scan-load", 500) },
        { type: "xstate.done.actor.loadOrganization", output: organizationDetail() },
        { type: "xstate.error.actor.loadOrganization", error: httpFailure("scan-load", 500) },
        { type: "xstate.done.actor.reloadFleet", output: fleetDashboard([]) },
        { type: "xstate.error.actor.reloadFleet", error: httpFailure("scan-load", 500) },
        { type: "fleet.retryRequested" },
        { type: "fleet.refreshRequested" },
        { type: "filter.unitChanged", unit: "ou-prod" },
        { type: "filter.tagSubmitted", tag: "env:prod" },
        { type: "filter.tagSubmitted", tag: ":bad" },
        { type: "sort.changed", sort: "stale" },
        { type: "filters.cleared" },
        { type: "page.requested", page: 2 },
        { type: "page.requested", page: 3 },
        { type: "page.requested", page: 9 },
      ],
    })
    console.info(formatCoverage("fleetDashboard", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  it("reads the fleet sorted by risk, then asks the server again for each unit, tag and sort; the figures shown are its answer", async () => {
    const { actor, load, organization } = start()
    try {
      expect(load.calls).toEqual([{ id: ORG_ID, query: {} }])
      expect(organization.calls).toEqual([{ id: ORG_ID }])
      await organization.resolve(organizationDetail())
      expect(actor.getSnapshot().context.organization?.id).toBe(ORG_ID)
      await load.resolve(fleetDashboard([fleetMember(21, { risk: 90 }), fleetMember(22)]))
      expect(actor.getSnapshot().value).toBe("ready")
      expect(actor.getSnapshot().context.dashboard?.totals.members).toBe(2)

      actor.send({ type: "filter.unitChanged", unit: "ou-prod" })
      actor.send({ type: "filter.tagSubmitted", tag: " env:prod " })
      actor.send({ type: "sort.changed", sort: "failing" })
      // Each change asks again; the older requests are abandoned and the figures stay until the answer.
      expect(load.calls.at(-1)).toEqual({ id: ORG_ID, query: { unit: "ou-prod", tag: "env:prod", sort: "failing" } })
      expect(load.aborted()).toBe(2)
      expect(actor.getSnapshot().context.dashboard?.members).toHaveLength(2)
      // The abandoned requests' answers are ignored.
      await load.resolve(fleetDashboard([]))
      await load.resolve(fleetDashboard([]))
      expect(actor.getSnapshot().context.dashboard?.members).toHaveLength(2)
      await load.resolve(fleetDashboard([fleetMember(22)], { unit: "ou-prod", tag: "env:prod", sort: "failing" }))
      expect(actor.getSnapshot().context.dashboard?.members.map((m) => m.account_id)).toEqual([22])

      actor.send({ type: "filters.cleared" })
      expect(load.calls.at(-1)).toEqual({ id: ORG_ID, query: { sort: "failing" } })
    } finally {
      actor.stop()
    }
  })

  it("offers every unit of the organisation from the fleet's answer, whatever its page and filters, with or without the organisation's own answer", async () => {
    const { actor, load, organization } = start()
    try {
      const units = [
        { unit_id: "r-root", path: "Root" },
        { unit_id: "ou-dev", path: "Root / Dev" },
        { unit_id: "ou-empty", path: "Root / Dev / Empty" },
        { unit_id: "ou-prod", path: "Root / Prod" },
      ]
      // Nothing to offer before the first answer.
      expect(fleetUnits(actor.getSnapshot().context.dashboard)).toEqual([])
      // The organisation's own answer fails; page 1 of three holds members of Root / Prod only.
      await organization.reject(httpFailure("scan-load", 500))
      await load.resolve(fleetDashboard([fleetMember(21), fleetMember(22)], { units, pagination: { page: 1, page_size: 2, total: 5, total_pages: 3 } }))
      expect(actor.getSnapshot().context.organization).toBeNull()
      expect(fleetUnits(actor.getSnapshot().context.dashboard)).toEqual(units)
      // Another page, then a unit none of the shown members is in: each answer offers every unit again.
      actor.send({ type: "page.requested", page: 3 })
      await load.resolve(fleetDashboard([fleetMember(25, { unit_id: "ou-dev", unit_path: "Root / Dev" })], { units, pagination: { page: 3, page_size: 2, total: 5, total_pages: 3 } }))
      expect(fleetUnits(actor.getSnapshot().context.dashboard)).toEqual(units)
      actor.send({ type: "filter.unitChanged", unit: "ou-empty" })
      expect(load.calls.at(-1)).toEqual({ id: ORG_ID, query: { unit: "ou-empty" } })
      // While the next answer is read, and when it has no member, the choices stay every unit.
      expect(fleetUnits(actor.getSnapshot().context.dashboard)).toEqual(units)
      await load.resolve(fleetDashboard([], { units, unit: "ou-empty" }))
      expect(actor.getSnapshot().context.dashboard?.members).toEqual([])
      expect(fleetUnits(actor.getSnapshot().context.dashboard)).toEqual(units)
    } finally {
      actor.stop()
    }
  })

  it("forwards each unit and tag change (and clearing them) to the Compliance child, which reads the compliance for the same members", async () => {
    const frameworks = controlled<{ readonly id: AccountId }, ReadonlyArray<Framework>>()
    const compliance = controlled<OrgComplianceRequest, OrgCompliance>()
    const load = controlled<{ readonly id: AccountId; readonly query: FleetQuery }, FleetDashboard>()
    const cis = framework("cis-aws-3.0.0")
    const actor = createActor(
      fleetDashboardMachine.provide({
        actors: {
          loadFleet: load.logic,
          loadOrganization: never(),
          fleetCompliance: fleetComplianceMachine.provide({
            actors: { loadOrgFrameworks: frameworks.logic, loadOrgCompliance: compliance.logic, downloadOrgCompliance: never() },
          }),
        },
      }),
      { input },
    ).start()
    try {
      const child = () => actor.getSnapshot().children["compliance"]!.getSnapshot() as SnapshotFrom<typeof fleetComplianceMachine>
      expect(frameworks.calls).toEqual([{ id: ORG_ID }])
      await load.resolve(fleetDashboard([fleetMember(21)]))
      // A unit chosen before the frameworks arrive is kept for the first read.
      actor.send({ type: "filter.unitChanged", unit: "ou-prod" })
      expect(child().context.filter).toEqual({ unit: "ou-prod" })
      await frameworks.resolve([cis])
      expect(compliance.calls).toEqual([{ id: ORG_ID, frameworkId: "cis-aws-3.0.0", filter: { unit: "ou-prod" } }])
      await compliance.resolve(orgCompliance(cis))
      // A tag reads it again; a sort does not (it does not change who is counted); a malformed tag is not forwarded.
      actor.send({ type: "filter.tagSubmitted", tag: "env:prod" })
      expect(compliance.calls.at(-1)).toEqual({ id: ORG_ID, frameworkId: "cis-aws-3.0.0", filter: { unit: "ou-prod", tag: "env:prod" } })
      actor.send({ type: "sort.changed", sort: "name" })
      actor.send({ type: "filter.tagSubmitted", tag: ":bad" })
      expect(compliance.calls).toHaveLength(2)
      actor.send({ type: "filters.cleared" })
      expect(compliance.calls.at(-1)).toEqual({ id: ORG_ID, frameworkId: "cis-aws-3.0.0", filter: {} })
      expect(child().context.filter).toEqual({})
    } finally {
      actor.stop()
    }
  })

  it("pages the members on the server: the page asked for goes with the filters, a filter or sort change goes back to page 1", async () => {
    const { actor, load, env } = start()
    try {
      await load.resolve(threePages)
      // A page that does not exist (by the last answer), or the one shown, is not asked for.
      actor.send({ type: "page.requested", page: 4 })
      actor.send({ type: "page.requested", page: 0 })
      actor.send({ type: "page.requested", page: 1 })
      expect(load.calls).toHaveLength(1)
      actor.send({ type: "page.requested", page: 2 })
      expect(actor.getSnapshot().value).toBe("refreshing")
      expect(load.calls.at(-1)).toEqual({ id: ORG_ID, query: { page: 2 } })
      // A newer page abandons the older request.
      actor.send({ type: "page.requested", page: 3 })
      expect(load.calls.at(-1)).toEqual({ id: ORG_ID, query: { page: 3 } })
      expect(load.aborted()).toBe(1)
      // The abandoned request's answer is ignored.
      await load.resolve(fleetDashboard([]))
      expect(actor.getSnapshot().context.dashboard?.members).toHaveLength(2)
      await load.resolve(fleetDashboard([fleetMember(25)], { pagination: { page: 3, page_size: 2, total: 5, total_pages: 3 } }))
      expect(actor.getSnapshot().context.page).toBe(3)
      expect(actor.getSnapshot().context.dashboard?.members.map((m) => m.account_id)).toEqual([25])
      // What the pager shows and asks for: the last page has no Next; a page past the last (the members went since)
      // goes back to the last.
      expect(membersPage(actor.getSnapshot().context.dashboard)).toEqual({ page: 3, pageCount: 3, first: 5, last: 5, total: 5, previous: 2, next: null })
      expect(membersPage(fleetDashboard([], { pagination: { page: 5, page_size: 2, total: 5, total_pages: 3 } }))).toMatchObject({ first: 0, previous: 3, next: null })
      expect(membersPage(threePages)).toMatchObject({ page: 1, previous: null, next: 2 })
      // The same page is read again on refresh; a sort or filter change asks page 1.
      actor.send({ type: "fleet.refreshRequested" })
      expect(load.calls.at(-1)).toEqual({ id: ORG_ID, query: { page: 3 } })
      await load.resolve(fleetDashboard([fleetMember(25)], { pagination: { page: 3, page_size: 2, total: 5, total_pages: 3 } }))
      actor.send({ type: "sort.changed", sort: "name" })
      expect(load.calls.at(-1)).toEqual({ id: ORG_ID, query: { sort: "name" } })
      await load.resolve(threePages)
      actor.send({ type: "page.requested", page: 2 })
      actor.send({ type: "filter.unitChanged", unit: "ou-prod" })
      expect(load.calls.at(-1)).toEqual({ id: ORG_ID, query: { unit: "ou-prod", sort: "name" } })
      await load.resolve(fleetDashboard([]))
      await load.resolve(threePages)
      expect(actor.getSnapshot().context.page).toBe(1)
      // A page that failed to load: the page shown stays the page asked for, so Next asks for it again.
      actor.send({ type: "page.requested", page: 2 })
      await load.reject(httpFailure("scan-load", 500))
      expect(actor.getSnapshot().context.page).toBe(1)
      expect(env.toasts.map((t) => t.kind)).toEqual(["error"])
      actor.send({ type: "page.requested", page: 2 })
      expect(load.calls.at(-1)).toEqual({ id: ORG_ID, query: { unit: "ou-prod", sort: "name", page: 2 } })
    } finally {
      actor.stop()
    }
  })

  it("does not send a malformed tag and says why", async () => {
    const { actor, load } = start()
    try {
      await load.resolve(fleetDashboard([fleetMember(21)]))
      actor.send({ type: "filter.tagSubmitted", tag: ":value-without-key" })
      expect(actor.getSnapshot().context.tagError).toBe(TAG_FORMAT_MESSAGE)
      expect(load.calls).toHaveLength(1)
      actor.send({ type: "filter.tagSubmitted", tag: "team" })
      expect(actor.getSnapshot().context.tagError).toBeNull()
      expect(load.calls.at(-1)).toEqual({ id: ORG_ID, query: { tag: "team" } })
    } finally {
      actor.stop()
    }
  })

  it("a failed first load shows its message and retries; a failed refresh toasts and keeps the figures", async () => {
    const { actor, load, organization, env } = start()
    try {
      // The organisation's own answer is not needed to show the fleet.
      await organization.reject(httpFailure("scan-load", 500))
      expect(actor.getSnapshot().context.organization).toBeNull()
      await load.reject(httpFailure("scan-load", 500))
      expect(actor.getSnapshot().value).toBe("failed")
      expect(actor.getSnapshot().context.error).toBeTruthy()
      actor.send({ type: "fleet.retryRequested" })
      await load.resolve(fleetDashboard([fleetMember(21)]))
      actor.send({ type: "fleet.refreshRequested" })
      await load.reject(httpFailure("scan-load", 500))
      expect(actor.getSnapshot().value).toBe("ready")
      expect(actor.getSnapshot().context.dashboard?.members).toHaveLength(1)
      expect(env.toasts.map((t) => t.kind)).toEqual(["error"])
    } finally {
      actor.stop()
    }
  })
})
