/**
 * Organisation compliance on the fleet page (issue 31 item 4): every (state, event) edge is driven (model-based,
 * xstate/graph), then the flows: the provider's first framework read with the fleet page's filters, another framework
 * and another filter read again (a newer choice abandons the older read), a failed re-read keeps what is shown, a
 * provider without a framework, and the CSV / PDF downloads handed to the browser.
 */
import { describe, expect, it } from "vitest"
import { createActor } from "xstate"
import type { Framework } from "../../src/contracts/compliance.ts"
import type { AccountId } from "../../src/contracts/ids.ts"
import type { OrgCompliance } from "../../src/contracts/organizations.ts"
import type { DownloadedFile } from "../../src/machines/compliance-effects.ts"
import {
  complianceFilter,
  fleetComplianceMachine,
  ORG_COMPLIANCE_FAILED,
  ORG_REQUIREMENTS_PAGE_SIZE,
  requirementsPage,
} from "../../src/machines/fleet-compliance.machine.ts"
import type { OrgComplianceFileKind, OrgComplianceRequest } from "../../src/machines/fleet-effects.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"
import { framework } from "./compliance-fakes.ts"
import { orgCompliance } from "./fleet-fakes.ts"
import { ORG_ID } from "./organization-fakes.ts"
import { environment } from "./scan-fakes.ts"

const input = { organizationId: ORG_ID as AccountId }
const cis = framework("cis-aws-3.0.0")
const fsbp = { ...framework("aws-fsbp"), name: "AWS Foundational Security Best Practices" }

/** An answer of `n` requirements (paged by the machine). */
const manyRequirements = (fw: Framework, n: number): OrgCompliance => {
  const base = orgCompliance(fw)
  return { ...base, requirements: Array.from({ length: n }, (_, i) => ({ ...base.requirements[1]!, id: `r.${i + 1}` })) }
}

const start = () => {
  const frameworks = controlled<{ readonly id: AccountId }, ReadonlyArray<Framework>>()
  const load = controlled<OrgComplianceRequest, OrgCompliance>()
  const download = controlled<OrgComplianceRequest & { readonly kind: OrgComplianceFileKind }, DownloadedFile>()
  const env = environment()
  const actor = createActor(
    fleetComplianceMachine.provide({
      actors: { loadOrgFrameworks: frameworks.logic, loadOrgCompliance: load.logic, downloadOrgCompliance: download.logic },
      actions: { notify: env.notify, saveFile: env.saveFile },
    }),
    { input },
  ).start()
  return { actor, frameworks, load, download, env }
}

describe("fleet-compliance machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = fleetComplianceMachine.provide({ actors: { loadOrgFrameworks: never(), loadOrgCompliance: never(), downloadOrgCompliance: never() } })
    const coverage = await coverTransitions(provided, {
      input,
      createActor: (clock) => createActor(provided, { input, clock }),
      events: [
        { type: "xstate.done.actor.loadOrgFrameworks", output: [cis, fsbp] },
        { type: "xstate.done.actor.loadOrgFrameworks", output: [] },
        { type: "xstate.error.actor.loadOrgFrameworks", error: httpFailure("generic", 500) },
        { type: "xstate.done.actor.loadOrgCompliance", output: orgCompliance(cis) },
        { type: "xstate.done.actor.loadOrgCompliance", output: manyRequirements(cis, 120) },
        { type: "xstate.error.actor.loadOrgCompliance", error: httpFailure("generic", 500) },
        { type: "xstate.done.actor.downloadOrgCompliance", output: { fileName: "a.csv", contentType: "text/csv", content: "x" } },
        { type: "xstate.error.actor.downloadOrgCompliance", error: httpFailure("generic", 500) },
        { type: "framework.changed", frameworkId: "aws-fsbp" },
        { type: "framework.changed", frameworkId: "cis-aws-3.0.0" },
        { type: "filters.changed", unit: "ou-prod", tag: "" },
        { type: "filters.changed", unit: null, tag: "" },
        { type: "compliance.retryRequested" },
        { type: "download.requested", kind: "members" },
        { type: "page.requested", page: 2 },
      ],
      serializeState: (s) =>
        JSON.stringify([
          s.value,
          s.context.frameworkId,
          s.context.frameworks.length,
          s.context.filter,
          s.context.compliance?.requirements.length ?? null,
          s.context.page,
        ]),
    })
    console.info(formatCoverage("fleetCompliance", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  it("reads the provider's first framework with the fleet page's filters; another framework or filter reads again", async () => {
    const { actor, frameworks, load } = start()
    try {
      expect(frameworks.calls).toEqual([{ id: ORG_ID }])
      // The fleet page's filters arrive before the frameworks: the first read applies them.
      actor.send({ type: "filters.changed", unit: "ou-prod", tag: " env:prod " })
      await frameworks.resolve([cis, fsbp])
      expect(load.calls).toEqual([{ id: ORG_ID, frameworkId: "cis-aws-3.0.0", filter: { unit: "ou-prod", tag: "env:prod" } }])
      await load.resolve(orgCompliance(cis))
      expect(actor.getSnapshot().value).toEqual({ view: "ready", downloads: "idle" })
      actor.send({ type: "framework.changed", frameworkId: "aws-fsbp" })
      // A newer filter abandons the framework's read and reads with both.
      actor.send({ type: "filters.changed", unit: null, tag: "" })
      expect(load.calls.slice(1)).toEqual([
        { id: ORG_ID, frameworkId: "aws-fsbp", filter: { unit: "ou-prod", tag: "env:prod" } },
        { id: ORG_ID, frameworkId: "aws-fsbp", filter: {} },
      ])
      expect(load.aborted()).toBe(1)
      // The same filters again, an unknown framework or the one shown read nothing.
      actor.send({ type: "filters.changed", unit: null, tag: "  " })
      actor.send({ type: "framework.changed", frameworkId: "cis-gcp-4.0.0" })
      actor.send({ type: "framework.changed", frameworkId: "aws-fsbp" })
      expect(load.calls).toHaveLength(3)
      // The abandoned read's answer is ignored; the live one is shown.
      await load.resolve(orgCompliance(cis))
      expect(actor.getSnapshot().context.compliance?.framework.id).toBe("cis-aws-3.0.0")
      await load.resolve(orgCompliance(fsbp))
      expect(actor.getSnapshot().context.compliance?.framework.id).toBe("aws-fsbp")
    } finally {
      actor.stop()
    }
  })

  it("a failed first read offers retry; a failed re-read keeps what is shown with a toast; no framework says so", async () => {
    const { actor, frameworks, load, env } = start()
    try {
      await frameworks.reject(httpFailure("generic", 500))
      expect(actor.getSnapshot().matches({ view: "failed" })).toBe(true)
      actor.send({ type: "compliance.retryRequested" })
      await frameworks.resolve([cis])
      await load.reject(new Error("boom"))
      expect(actor.getSnapshot().context.error).toBe(ORG_COMPLIANCE_FAILED)
      actor.send({ type: "compliance.retryRequested" })
      await load.resolve(orgCompliance(cis))
      actor.send({ type: "filters.changed", unit: "ou-dev", tag: "" })
      await load.reject(httpFailure("generic", 500))
      expect(actor.getSnapshot().matches({ view: "ready" })).toBe(true)
      expect(actor.getSnapshot().context.compliance?.framework.id).toBe("cis-aws-3.0.0")
      expect(env.toasts.map((t) => t.kind)).toEqual(["error"])
    } finally {
      actor.stop()
    }
    const other = start()
    try {
      await other.frameworks.resolve([])
      expect(other.actor.getSnapshot().matches({ view: "empty" })).toBe(true)
      other.actor.send({ type: "filters.changed", unit: "ou-dev", tag: "" })
      other.actor.send({ type: "download.requested", kind: "pdf" })
      expect(other.load.calls).toEqual([])
      expect(other.download.calls).toEqual([])
    } finally {
      other.actor.stop()
    }
  })

  it("downloads the CSVs and the PDF of the framework and filters shown; a failure toasts", async () => {
    const { actor, frameworks, load, download, env } = start()
    try {
      actor.send({ type: "download.requested", kind: "requirements" })
      expect(download.calls).toEqual([])
      actor.send({ type: "filters.changed", unit: "ou-prod", tag: "" })
      await frameworks.resolve([cis])
      await load.resolve(orgCompliance(cis))
      actor.send({ type: "download.requested", kind: "members" })
      expect(actor.getSnapshot().context.downloading).toBe("members")
      actor.send({ type: "download.requested", kind: "pdf" })
      expect(download.calls).toEqual([{ id: ORG_ID, frameworkId: "cis-aws-3.0.0", filter: { unit: "ou-prod" }, kind: "members" }])
      const file = { fileName: "organization-7-cis-aws-3.0.0-compliance-members.csv", contentType: "text/csv", content: "a,b" }
      await download.resolve(file)
      expect(env.files).toEqual([file])
      actor.send({ type: "download.requested", kind: "pdf" })
      await download.reject(httpFailure("generic", 500))
      expect(actor.getSnapshot().context.downloading).toBeNull()
      expect(env.toasts.map((t) => t.kind)).toEqual(["error"])
    } finally {
      actor.stop()
    }
  })
})

describe("requirements paging", () => {
  it("pages the answer on screen 50 rows at a time; an impossible page is ignored; another framework goes back to page 1", async () => {
    const { actor, frameworks, load } = start()
    try {
      await frameworks.resolve([cis, fsbp])
      await load.resolve(manyRequirements(cis, 10_000))
      expect(requirementsPage(actor.getSnapshot().context)).toMatchObject({ page: 1, pageCount: 200, first: 1, last: 50, total: 10_000, previous: null, next: 2 })
      expect(requirementsPage(actor.getSnapshot().context).rows).toHaveLength(ORG_REQUIREMENTS_PAGE_SIZE)
      actor.send({ type: "page.requested", page: 200 })
      const last = requirementsPage(actor.getSnapshot().context)
      expect(last).toMatchObject({ page: 200, first: 9_951, last: 10_000 })
      expect(last.rows[0]!.id).toBe("r.9951")
      for (const page of [0, 201, 1.5, 200]) actor.send({ type: "page.requested", page })
      expect(actor.getSnapshot().context.page).toBe(200)
      // A filter's new answer for the same framework keeps the page, clamped to its last one.
      actor.send({ type: "filters.changed", unit: "ou-prod", tag: "" })
      await load.resolve(manyRequirements(cis, 120))
      expect(requirementsPage(actor.getSnapshot().context)).toMatchObject({ page: 3, pageCount: 3, first: 101, last: 120, previous: 2, next: null })
      actor.send({ type: "framework.changed", frameworkId: "aws-fsbp" })
      await load.resolve(manyRequirements(fsbp, 120))
      expect(requirementsPage(actor.getSnapshot().context)).toMatchObject({ page: 1, first: 1, last: 50 })
    } finally {
      actor.stop()
    }
  })
})

describe("compliance filter", () => {
  it("sends only what is set", () => {
    expect(complianceFilter(null, "")).toEqual({})
    expect(complianceFilter("ou-1", " team:a ")).toEqual({ unit: "ou-1", tag: "team:a" })
  })
})
