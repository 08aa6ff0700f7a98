import { describe, expect, it } from "vitest"
import { createActor } from "xstate"
import type { FindingListResponse, FindingsQuery } from "../../src/contracts/findings.ts"
import type { AccountId, ServiceId } from "../../src/contracts/ids.ts"
import type { OrganizationDetail } from "../../src/contracts/organizations.ts"
import { FLEET_FINDINGS_PAGE_SIZE, fleetFindingsMachine, hasFleetFindingFilters } from "../../src/machines/fleet-findings.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"
import { ORG_ID, organizationDetail } from "./organization-fakes.ts"
import { environment, finding } from "./scan-fakes.ts"

const input = { organizationId: ORG_ID as AccountId }

/** One page across accounts: rows of member accounts with their unit, totals and the cursor of the next page. */
const page = (ids: ReadonlyArray<number>, total: number, next: string | null): FindingListResponse => ({
  ok: true,
  data: ids.map((id) =>
    finding(id, { account_id: 20 + (id % 2), account_name: `member-${20 + (id % 2)}`, organization_id: ORG_ID, org_unit_path: "Root / Prod", service_id: 100 + (id % 3), service_name: ["ec2", "s3", "iam"][id % 3] }),
  ),
  pagination: { page: 1, total_pages: Math.ceil(total / FLEET_FINDINGS_PAGE_SIZE), total, page_size: FLEET_FINDINGS_PAGE_SIZE },
  totals: { findings: total, findings_unfiltered: total, resources_checked: total, resources_failing: total, resources_matched: null, accounts: 2 },
  next_cursor: next,
})

const start = () => {
  const load = controlled<{ readonly id: AccountId }, OrganizationDetail>()
  const list = controlled<FindingsQuery, FindingListResponse>()
  const env = environment()
  const actor = createActor(
    fleetFindingsMachine.provide({ actors: { loadOrganization: load.logic, listFindings: list.logic }, actions: { notify: env.notify } }),
    { input },
  ).start()
  return { actor, load, list, env }
}

describe("fleet-findings machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = fleetFindingsMachine.provide({ actors: { loadOrganization: never(), listFindings: never() } })
    const coverage = await coverTransitions(provided, {
      input,
      createActor: (clock) => createActor(provided, { input, clock }),
      events: [
        { type: "xstate.done.actor.loadOrganization", output: organizationDetail() },
        { type: "xstate.error.actor.loadOrganization", error: httpFailure("scan-load", 500) },
        { type: "xstate.done.actor.listFindings", output: page([1, 2], 60, "c1") },
        { type: "xstate.error.actor.listFindings", error: httpFailure("scan-load", 500) },
        { type: "xstate.done.actor.refreshFindings", output: page([3], 1, null) },
        { type: "xstate.error.actor.refreshFindings", error: httpFailure("scan-load", 500) },
        { type: "xstate.done.actor.loadMoreFindings", output: page([4], 60, null) },
        { type: "xstate.error.actor.loadMoreFindings", error: httpFailure("scan-load", 500) },
        { type: "filter.accountChanged", accountId: 21 as AccountId },
        { type: "filter.unitChanged", unit: "ou-prod" },
        { type: "filter.checkSubmitted", text: "public" },
        { type: "filter.statusChanged", status: "fail" },
        { type: "filter.severityChanged", severity: "critical" },
        { type: "filter.serviceChanged", serviceId: 101 as ServiceId },
        { type: "filters.cleared" },
        { type: "findings.loadMoreRequested" },
        { type: "findings.retryRequested" },
      ],
      serializeState: (s) => JSON.stringify([s.value, s.context.nextCursor !== null]),
    })
    console.info(formatCoverage("fleetFindings", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  it("reads the organisation, then its members' findings 50 at a time, and loads more by the server's cursor", async () => {
    const { actor, load, list } = start()
    try {
      expect(load.calls).toEqual([{ id: ORG_ID }])
      await load.resolve(organizationDetail())
      expect(list.calls).toEqual([{ organization_id: ORG_ID, page: 1, page_size: 50 }])
      await list.resolve(page([1, 2, 3], 60, "after-3"))
      expect(actor.getSnapshot().context.total).toBe(60)
      expect(actor.getSnapshot().context.services.map((s) => s.name)).toEqual(["ec2", "iam", "s3"])
      actor.send({ type: "findings.loadMoreRequested" })
      expect(list.calls[1]).toEqual({ organization_id: ORG_ID, cursor: "after-3", page_size: 50 })
      await list.resolve(page([4, 5], 60, null))
      expect(actor.getSnapshot().context.findings.map((f) => f.id)).toEqual([1, 2, 3, 4, 5])
      actor.send({ type: "findings.loadMoreRequested" })
      expect(list.calls).toHaveLength(2)
    } finally {
      actor.stop()
    }
  })

  it("sends every filter to the server and shows exactly its answer; clearing asks for everything again", async () => {
    const { actor, load, list } = start()
    try {
      await load.resolve(organizationDetail())
      await list.resolve(page([1, 2, 3], 3, null))
      actor.send({ type: "filter.accountChanged", accountId: 21 as AccountId })
      actor.send({ type: "filter.unitChanged", unit: "ou-prod" })
      actor.send({ type: "filter.checkSubmitted", text: " s3_bucket_public " })
      actor.send({ type: "filter.statusChanged", status: "fail" })
      actor.send({ type: "filter.severityChanged", severity: "high" })
      actor.send({ type: "filter.serviceChanged", serviceId: 101 as ServiceId })
      expect(list.calls.at(-1)).toEqual({
        organization_id: ORG_ID, account_id: "21", unit: "ou-prod", check: "s3_bucket_public", status: "fail", severity: "high", service_id: 101, page: 1, page_size: 50,
      })
      expect(list.aborted()).toBe(5)
      expect(hasFleetFindingFilters(actor.getSnapshot().context.filters)).toBe(true)
      for (let i = 0; i < 5; i++) await list.resolve(page([], 0, null))
      expect(actor.getSnapshot().context.findings).toHaveLength(3)
      await list.resolve(page([1], 1, null))
      expect(actor.getSnapshot().context.findings.map((f) => f.id)).toEqual([1])
      actor.send({ type: "filters.cleared" })
      expect(list.calls.at(-1)).toEqual({ organization_id: ORG_ID, page: 1, page_size: 50 })
      expect(hasFleetFindingFilters(actor.getSnapshot().context.filters)).toBe(false)
    } finally {
      actor.stop()
    }
  })

  it("a failed load shows its message and starts over on retry; a failed page toasts and keeps the rows", async () => {
    const { actor, load, list, env } = start()
    try {
      await load.reject(httpFailure("scan-load", 500))
      expect(actor.getSnapshot().value).toBe("failed")
      actor.send({ type: "findings.retryRequested" })
      await load.resolve(organizationDetail())
      await list.resolve(page([1], 60, "c"))
      actor.send({ type: "findings.loadMoreRequested" })
      await list.reject(httpFailure("scan-load", 500))
      expect(actor.getSnapshot().value).toBe("ready")
      expect(actor.getSnapshot().context.findings.map((f) => f.id)).toEqual([1])
      expect(env.toasts.map((t) => t.kind)).toEqual(["error"])
    } finally {
      actor.stop()
    }
  })
})
