/**
 * Property tests (fast-check) for the scanning display rules the screens rely on: the 150 → 97 cut with its length
 * note, 5-item arrays, the 100-character collapse of remediation messages, the dashboard badge, the remediation
 * button, the findings filters (sent to the server by the findings machine) and the progress bar.
 */
import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { createActor, fromPromise } from "xstate"
import { accountBadge } from "../../src/contracts/accounts.ts"
import { toRunStatus } from "../../src/contracts/common.ts"
import {
  FINDING_CHANGES,
  FINDING_LIST_FILTERS,
  remediationAction,
  SEVERITIES,
  type FindingListResponse,
  type FindingsQuery,
} from "../../src/contracts/findings.ts"
import type { ScanId } from "../../src/contracts/ids.ts"
import { findingsListMachine } from "../../src/machines/findings-list.machine.ts"
import { isActiveScan, scanProgressPercent } from "../../src/machines/scan-list.machine.ts"
import { isTerminalStatus } from "../../src/machines/scan-detail.machine.ts"
import { detailColumns, displayDetailValue, lengthNote, RESERVED_DETAIL_KEYS, remediationMessageView } from "../../src/views/scans/detail-values.ts"
import { never } from "./auth-fakes.ts"
import { finding, scan } from "./scan-fakes.ts"

describe("detail values", () => {
  it("strings over 150 characters are cut to 97 plus '...' and a note with the full length; others are shown whole", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (s) => {
        const shown = displayDetailValue(s)
        if (s === "") {
          expect(shown.kind).toBe("empty")
          return
        }
        expect(shown.kind).toBe("text")
        if (shown.kind !== "text") return
        if (s.length > 150) {
          expect(shown.text).toBe(`${s.slice(0, 97)}...`)
          expect(shown.text.length).toBe(100)
          expect(shown.note).toBe(lengthNote(s.length))
          expect(shown.title).toBe(s)
        } else {
          expect(shown.text).toBe(s)
          expect(shown.note).toBeUndefined()
        }
      }),
    )
  })

  it("arrays show at most 5 items in order, and say how many more", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean()), { minLength: 1, maxLength: 30 }), (xs) => {
        const shown = displayDetailValue(xs)
        expect(shown.kind).toBe("list")
        if (shown.kind !== "list") return
        expect(shown.items.length).toBe(Math.min(5, xs.length))
        expect(shown.more).toBe(xs.length > 5 ? `and ${xs.length - 5} more` : undefined)
        shown.items.forEach((item, i) => {
          const x = xs[i]
          expect(item).toBe(typeof x === "boolean" ? (x ? "Yes" : "No") : String(x))
        })
      }),
    )
  })

  it("columns follow field_labels in order and never include the row's state, position or identity", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[a-z_]{1,12}$/), { maxLength: 8 }),
        (keys) => {
          const labels = Object.fromEntries(keys.map((k) => [k, `L:${k}`]))
          const columns = detailColumns(labels, [{ compliance: true, remediate: undefined, muted: { rule_id: 1, reason: "r" }, resource_uid: "u", other: 1 } as never])
          const expected = keys.filter((k) => !RESERVED_DETAIL_KEYS.has(k))
          if (expected.length > 0) expect(columns.map((c) => c.key)).toEqual(expected)
          else expect(columns.map((c) => c.key)).toEqual(["other"])
        },
      ),
    )
  })

  it("remediation messages over 100 characters collapse to 100 + '...'; expanding shows them whole", () => {
    fc.assert(
      fc.property(fc.option(fc.string({ maxLength: 300 }), { nil: null }), fc.boolean(), (message, expanded) => {
        const view = remediationMessageView(message, expanded)
        const full = message ?? ""
        expect(view.collapsible).toBe(full.length > 100)
        expect(view.text).toBe(full.length > 100 && !expanded ? `${full.slice(0, 100)}...` : full)
      }),
    )
  })
})

describe("badges and buttons", () => {
  const statusArb = fc.oneof(fc.constantFrom("pending", "running", "completed", "failed"), fc.constant(null), fc.string({ maxLength: 8 }))

  it("dashboard badge: issues when above 0, else 'No Issues' after completed, 'Failed' after failed, else nothing", () => {
    fc.assert(
      fc.property(fc.nat({ max: 1000 }), statusArb, (failed, status) => {
        const badge = accountBadge({ failed_findings: failed, status })
        if (failed > 0) expect(badge).toEqual({ kind: "issues", count: failed })
        else if (status === "completed") expect(badge).toEqual({ kind: "no-issues" })
        else if (status === "failed") expect(badge).toEqual({ kind: "failed" })
        else expect(badge).toEqual({ kind: "none" })
      }),
    )
  })

  it("unknown statuses are failed: terminal, not active, no findings", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), (s) => {
        const known = ["pending", "running", "completed", "failed"].includes(s)
        if (!known) {
          expect(toRunStatus(s)).toBe("failed")
          expect(isTerminalStatus(s)).toBe(true)
          expect(isActiveScan({ status: s as never })).toBe(false)
        }
        expect(isTerminalStatus(s)).toBe(!isActiveScan({ status: s as never }))
      }),
    )
  })

  it("remediation button: 'Remediate' only on non-compliant rows without a record; else by status", () => {
    const record = fc.record({ status: fc.oneof(fc.constantFrom("pass", "failed", "fail", "remediated", "pending"), fc.string({ maxLength: 6 })) })
    fc.assert(
      fc.property(fc.option(fc.boolean(), { nil: undefined }), fc.option(record, { nil: undefined }), (compliance, remediate) => {
        const row = { ...(compliance === undefined ? {} : { compliance }), ...(remediate === undefined ? {} : { remediate }) }
        const action = remediationAction(row)
        if (remediate === undefined) expect(action).toBe(compliance === false ? "Remediate" : null)
        else {
          const expected =
            remediate.status === "pass"
              ? "View Success"
              : remediate.status === "remediated"
                ? "View Remediated"
                : remediate.status === "failed" || remediate.status === "fail"
                  ? "View Error"
                  : "View Status"
          expect(action).toBe(expected)
        }
      }),
    )
  })

  it("progress stays within 0–100 and is completed/total rounded", () => {
    fc.assert(
      fc.property(fc.nat({ max: 500 }), fc.nat({ max: 500 }), (completed, total) => {
        const p = scanProgressPercent({ completed_services: completed, total_services: total })
        expect(p).toBeGreaterThanOrEqual(0)
        expect(p).toBeLessThanOrEqual(100)
        if (total > 0 && completed <= total) expect(p).toBe(Math.round((completed / total) * 100))
      }),
    )
  })
})

describe("findings filters (sent to the server, through the findings machine)", () => {
  const toggleArb = fc.oneof(
    fc.constantFrom(...SEVERITIES).map((severity) => ({ type: "filter.severityToggled" as const, severity })),
    fc.constantFrom(...FINDING_LIST_FILTERS).map((status) => ({ type: "filter.statusToggled" as const, status })),
    fc.constantFrom(...FINDING_CHANGES).map((change) => ({ type: "filter.changeToggled" as const, change })),
    fc.constantFrom("us-east-1", "eu-west-1").map((region) => ({ type: "filter.regionToggled" as const, region })),
  )
  /** Values toggled an odd number of times, in the order they were first selected. */
  const selected = <T>(toggles: ReadonlyArray<T>) => {
    let on: Array<T> = []
    for (const t of toggles) on = on.includes(t) ? on.filter((x) => x !== t) : [...on, t]
    return on
  }

  it("every toggle asks the server for page 1 with exactly the selected values; the table shows the server's rows as they are; clearing asks for all", () => {
    fc.assert(
      fc.property(
        fc.array(toggleArb, { maxLength: 12 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 10_000 }), { maxLength: 8 }),
        (toggles, ids) => {
          const calls: Array<FindingsQuery> = []
          const listFindings = fromPromise<FindingListResponse, FindingsQuery>(({ input }) => {
            calls.push(input)
            return new Promise(() => {})
          })
          const actor = createActor(
            findingsListMachine.provide({ actors: { getScan: never(), listFindings, exportFindings: never() } }),
            { input: { scanId: 11 as ScanId, serviceName: "" } },
          ).start()
          try {
            actor.send({ type: "xstate.done.actor.getScan", output: scan(11) } as never)
            const answer = ids.map((id) => finding(id, { severity: id % 2 === 0 ? "critical" : "low" }))
            actor.send({
              type: "xstate.done.actor.listFindings",
              output: { data: answer, pagination: { page: 1, total_pages: 1, total: answer.length } },
            } as never)
            // Whatever the filters, the rows are the server's: nothing is filtered on the client.
            expect(actor.getSnapshot().context.findings.map((f) => f.id)).toEqual(ids)
            for (const t of toggles) actor.send(t)
            const last = calls.at(-1)!
            const of = <K extends string>(type: string, key: K) => selected(toggles.filter((t) => t.type === type).map((t) => (t as Record<K, string>)[key]))
            const expectJoined = (values: ReadonlyArray<string>) => (values.length === 0 ? undefined : values.join(","))
            expect(calls).toHaveLength(1 + toggles.length)
            expect(last.page).toBe(1)
            expect(last.service_id).toBeUndefined()
            expect(last.severity).toBe(expectJoined(of("filter.severityToggled", "severity")))
            expect(last.status).toBe(expectJoined(of("filter.statusToggled", "status")))
            expect(last.change).toBe(expectJoined(of("filter.changeToggled", "change")))
            expect(last.region).toBe(expectJoined(of("filter.regionToggled", "region")))
            actor.send({ type: "filters.cleared" })
            expect(calls.at(-1)).toEqual({ scan_id: 11, page: 1, page_size: 20 })
          } finally {
            actor.stop()
          }
        },
      ),
      { numRuns: 150 },
    )
  })
})
