// @vitest-environment happy-dom
/**
 * Bulk remediation's views (issue 32 part 4) on fake effects: the findings list's checkboxes (failing findings only,
 * none without remediate_findings) → "Remediate N selected" → the dialog's resources and accounts → the batch is
 * created from the rows the single Remediate button would offer and its page opens; the batch page's progress and
 * counts, polling until done, Stop and Undo confirmed, "Undo anyway" with the conflicts' differences, a skipped item's
 * reason; the list of batches.
 */
import { afterEach, describe, expect, it } from "vitest"
import { cleanup, fireEvent, screen, within } from "@testing-library/react"
import type { ReactNode } from "react"
import { Route, Switch } from "wouter"
import { memoryLocation } from "wouter/memory-location"
import { act, render } from "@testing-library/react"
import { SimulatedClock } from "xstate"
import type { DetailRow } from "../../src/contracts/findings.ts"
import { BatchMessages, type BatchItem, type CreateBatchPayload, type RemediationBatch } from "../../src/contracts/remediation-batches.ts"
import type { BatchView, RemediationBatchesEffects } from "../../src/machines/remediation-batches-effects.ts"
import { BATCH_POLL_MS } from "../../src/machines/remediation-batch.machine.ts"
import { App } from "../../src/views/app.tsx"
import { RemediationBatchesEffectsProvider } from "../../src/views/remediations/remediation-batches-effects-context.tsx"
import { RemediationBatchView } from "../../src/views/remediations/remediation-batch.view.tsx"
import { RemediationBatchesView } from "../../src/views/remediations/remediation-batches.view.tsx"
import { FindingsView } from "../../src/views/scans/findings.view.tsx"
import { FleetFindingsView } from "../../src/views/organizations/fleet-findings.view.tsx"
import { OrganizationEffectsProvider, UNWIRED_ORGANIZATION_EFFECTS } from "../../src/views/organizations/organization-effects-context.tsx"
import { ORG_ID, organizationDetail } from "../machines/organization-fakes.ts"
import type { FindingsQuery } from "../../src/contracts/findings.ts"
import { ScanEffectsProvider } from "../../src/views/scanning/scan-effects-context.tsx"
import { SessionStatusContext } from "../../src/views/session-status.tsx"
import { flush } from "../machines/auth-fakes.ts"
import { finding } from "../machines/scan-fakes.ts"
import { BATCH_ID, batch, completed, item, running, undoFailed, undone } from "../machines/remediation-batch-fakes.ts"
import { defaultWorld, fakeScanEffects, settle, type ScanWorld } from "./scan-render.tsx"

afterEach(cleanup)

const press = async (element: HTMLElement) => {
  fireEvent.click(element)
  await settle()
}

interface BatchWorld {
  views: BatchView[]
  created: CreateBatchPayload[]
  calls: string[]
}

const fakeBatches = (w: BatchWorld): RemediationBatchesEffects => ({
  createBatch: async (payload) => {
    w.created.push(payload)
    w.calls.push("create")
    return { message: BatchMessages.created, batch: batch("queued", { pending: 3 }) }
  },
  listBatches: async ({ page }) => {
    w.calls.push(`list:${page}`)
    return { data: [completed, { ...running, id: 6 as RemediationBatch["id"], check_id: "s3_bucket_versioning_enabled" }], pagination: { page, total_pages: 1, total: 2, page_size: 20 } }
  },
  loadBatch: async ({ limit }) => {
    w.calls.push(`load:${limit}`)
    return w.views.length > 1 ? w.views.shift()! : w.views[0]!
  },
  loadItems: async () => ({ items: [], nextCursor: null }),
  stopBatch: async () => {
    w.calls.push("stop")
    return { message: BatchMessages.stopRequested, batch: batch("stopping", { pending: 2, running: 1, fixed: 1 }) }
  },
  undoBatch: async ({ force }) => {
    w.calls.push(`undo:${force}`)
    return { message: BatchMessages.undoQueued, batch: batch("undoing", { fixed: 3, skipped: 1 }) }
  },
})

const renderAt = async (path: string, pattern: string, view: ReactNode, scanWorld: ScanWorld = defaultWorld(), views: BatchView[] = []) => {
  const w: BatchWorld = { views, created: [], calls: [] }
  const scans = fakeScanEffects(scanWorld, {
    // Across accounts (no scan_id): the check filter is the server's "contains".
    listFindings: async (q: FindingsQuery) => {
      const rows = scanWorld.findings.filter((f) => q.check === undefined || f.check_id.includes(q.check))
      return {
        ok: true,
        data: rows,
        pagination: { page: 1, total_pages: 1, total: rows.length, page_size: 50 },
        totals: { findings: rows.length, findings_unfiltered: scanWorld.findings.length, resources_checked: 0, resources_failing: 0, resources_matched: null },
        next_cursor: null,
      }
    },
  })
  const location = memoryLocation({ path, record: true })
  const clock = new SimulatedClock()
  clock.set(Date.parse("2026-11-27T10:00:00.000Z"))
  render(
    <SessionStatusContext value="authenticated">
      <ScanEffectsProvider effects={scans.effects} clock={clock} saveFile={() => {}}>
        <OrganizationEffectsProvider effects={{ ...UNWIRED_ORGANIZATION_EFFECTS, loadOrganization: async () => organizationDetail() }} clock={clock}>
          <RemediationBatchesEffectsProvider effects={fakeBatches(w)} clock={clock}>
            <App clock={clock} location={location}>
              <Switch>
                <Route path={pattern}>{view}</Route>
                <Route>elsewhere</Route>
              </Switch>
            </App>
          </RemediationBatchesEffectsProvider>
        </OrganizationEffectsProvider>
      </ScanEffectsProvider>
    </SessionStatusContext>,
  )
  await settle()
  const tick = async (ms: number) => {
    await act(async () => {
      clock.increment(ms)
      await flush()
    })
    await settle()
  }
  return { w, scans, currentUrl: () => location.history.at(-1) ?? "", tick }
}

const row = (seq: number, patch: Partial<DetailRow> = {}): DetailRow => ({ resource_id: `bucket-${seq}`, region: "us-east-1", compliance: false, result_seq: seq, ...patch })

const findingsWorld = (canRemediate = true): ScanWorld => {
  const world = defaultWorld()
  world.viewer = { ...world.viewer, canRemediate }
  world.findings = [
    finding(1, { policy_check: "Versioning enabled", resources_failing: 2, details: [row(0), row(1), row(2, { compliance: true })] }),
    finding(2, { policy_check: "Public access blocked", resources_failing: 2, resources_muted: 1, details: [row(0), row(1, { muted: { rule_id: 1, reason: "ok" } })] }),
    finding(3, { policy_check: "Encryption enabled", status: "pass", resources_failing: 0, details: [row(0, { compliance: true })] }),
  ]
  return world
}

describe("bulk remediation from the findings list", () => {
  it("ticks failing findings, confirms their resources and accounts, creates the batch from their rows and opens its page", async () => {
    const { w, scans, currentUrl } = await renderAt("/dashboard/scans/11/findings?service=s3", "/dashboard/scans/:scanId/findings", <FindingsView />, findingsWorld())
    expect(screen.queryByRole("checkbox", { name: "Select Encryption enabled (Production 1)" })).toBeNull()
    await press(screen.getByRole("checkbox", { name: "Select Versioning enabled (Production 1)" }))
    await press(screen.getByRole("checkbox", { name: "Select Public access blocked (Production 1)" }))
    const bar = screen.getByRole("region", { name: "Selection" })
    expect(within(bar).getByText("2 findings selected · 3 failing resources")).toBeTruthy()
    await press(within(bar).getByRole("button", { name: "Remediate 2 selected" }))
    const dialog = await screen.findByRole("alertdialog", { name: "Remediate in bulk" })
    expect(within(dialog).getByText("3 resources in 1 account will be remediated.")).toBeTruthy()
    expect(scans.called("getFinding").map((c) => c.payload)).toEqual([
      { id: 1, details_page: 1, details_page_size: 500, details_status: "fail" },
      { id: 2, details_page: 1, details_page_size: 500, details_status: "fail" },
    ])
    await press(within(dialog).getByRole("button", { name: "Remediate 3 resources" }))
    expect(w.created).toEqual([
      {
        rows: [
          { finding_id: 1, result_seq: 0 },
          { finding_id: 1, result_seq: 1 },
          { finding_id: 2, result_seq: 0 },
        ],
      },
    ])
    expect(currentUrl()).toBe(`/dashboard/remediations/batches/${BATCH_ID}`)
  })

  it("the page checkbox ticks every failing finding; Cancel sends nothing", async () => {
    const { w } = await renderAt("/dashboard/scans/11/findings?service=s3", "/dashboard/scans/:scanId/findings", <FindingsView />, findingsWorld())
    await press(screen.getByRole("checkbox", { name: "Select every failing finding shown" }))
    await press(screen.getByRole("button", { name: "Remediate 2 selected" }))
    const dialog = await screen.findByRole("alertdialog", { name: "Remediate in bulk" })
    await press(within(dialog).getByRole("button", { name: "Cancel" }))
    expect(screen.queryByRole("alertdialog")).toBeNull()
    await press(screen.getByRole("button", { name: "Clear selection" }))
    expect(screen.queryByRole("region", { name: "Selection" })).toBeNull()
    expect(w.created).toEqual([])
  })

  it("offers no checkbox on a retired member's findings, nor the page checkbox when they are all its (issue 31)", async () => {
    const world = findingsWorld()
    world.findings = world.findings.map((f) => ({ ...f, account_retired: true }))
    await renderAt("/dashboard/scans/11/findings?service=s3", "/dashboard/scans/:scanId/findings", <FindingsView />, world)
    expect(screen.getByText("Versioning enabled")).toBeTruthy()
    expect(screen.queryByRole("checkbox", { name: /^Select / })).toBeNull()
  })

  it("offers no checkbox without remediate_findings", async () => {
    await renderAt("/dashboard/scans/11/findings?service=s3", "/dashboard/scans/:scanId/findings", <FindingsView />, findingsWorld(false))
    expect(screen.getByText("Versioning enabled")).toBeTruthy()
    expect(screen.queryByRole("checkbox", { name: /^Select / })).toBeNull()
  })
})

describe("bulk remediation across accounts", () => {
  it("filtered to one check, 'Remediate all failing (N)' fixes every failing resource of it in the listed accounts", async () => {
    const world = defaultWorld()
    world.findings = [
      finding(1, { account_id: 21, account_name: "Payments", check_id: "s3_bucket_versioning_enabled", resources_failing: 3 }),
      finding(2, { account_id: 22, account_name: "Sandbox", check_id: "s3_bucket_versioning_enabled", resources_failing: 2 }),
      finding(3, { account_id: 22, account_name: "Sandbox", check_id: "iam_root_mfa_enabled", resources_failing: 1 }),
    ]
    const { w, currentUrl } = await renderAt(`/dashboard/organizations/${ORG_ID}/findings`, "/dashboard/organizations/:organizationId/findings", <FleetFindingsView />, world)
    // Two checks listed: nothing offered yet.
    expect(screen.queryByRole("button", { name: /^Remediate all failing/ })).toBeNull()
    fireEvent.change(screen.getByRole("textbox", { name: "Check" }), { target: { value: "s3_bucket_versioning" } })
    await press(screen.getByRole("button", { name: "Apply check" }))
    expect(screen.getByText("s3_bucket_versioning_enabled in 2 accounts")).toBeTruthy()
    await press(screen.getByRole("button", { name: "Remediate all failing (5)" }))
    const dialog = await screen.findByRole("alertdialog", { name: "Remediate in bulk" })
    expect(within(dialog).getByText("5 resources in 2 accounts will be remediated.")).toBeTruthy()
    await press(within(dialog).getByRole("button", { name: "Remediate 5 resources" }))
    expect(w.created).toEqual([{ check_id: "s3_bucket_versioning_enabled", account_ids: [21, 22] }])
    expect(currentUrl()).toBe(`/dashboard/remediations/batches/${BATCH_ID}`)
  })

  it("leaves a retired member's findings out of 'Remediate all failing (N)', and offers nothing when they are all its (issue 31)", async () => {
    const world = defaultWorld()
    world.findings = [
      finding(1, { account_id: 21, account_name: "Payments", check_id: "s3_bucket_versioning_enabled", resources_failing: 3 }),
      finding(2, { account_id: 22, account_name: "Sandbox", check_id: "s3_bucket_versioning_enabled", resources_failing: 2, account_retired: true }),
      finding(3, { account_id: 22, account_name: "Sandbox", check_id: "iam_root_mfa_enabled", resources_failing: 1, account_retired: true }),
    ]
    const { w } = await renderAt(`/dashboard/organizations/${ORG_ID}/findings`, "/dashboard/organizations/:organizationId/findings", <FleetFindingsView />, world)
    fireEvent.change(screen.getByRole("textbox", { name: "Check" }), { target: { value: "s3_bucket_versioning" } })
    await press(screen.getByRole("button", { name: "Apply check" }))
    expect(screen.getByText("s3_bucket_versioning_enabled in 1 account")).toBeTruthy()
    await press(screen.getByRole("button", { name: "Remediate all failing (3)" }))
    const dialog = await screen.findByRole("alertdialog", { name: "Remediate in bulk" })
    await press(within(dialog).getByRole("button", { name: "Remediate 3 resources" }))
    expect(w.created).toEqual([{ check_id: "s3_bucket_versioning_enabled", account_ids: [21] }])
    cleanup()
    // Only the retired member's finding of the check is listed: no bulk remediation is offered.
    await renderAt(`/dashboard/organizations/${ORG_ID}/findings`, "/dashboard/organizations/:organizationId/findings", <FleetFindingsView />, world)
    fireEvent.change(screen.getByRole("textbox", { name: "Check" }), { target: { value: "iam_root_mfa" } })
    await press(screen.getByRole("button", { name: "Apply check" }))
    expect(screen.getByText("Showing 1 of 1 finding", { exact: false })).toBeTruthy()
    expect(screen.queryByRole("button", { name: /^Remediate all failing/ })).toBeNull()
  })
})

const batchPage = (views: BatchView[]) =>
  renderAt(`/dashboard/remediations/batches/${BATCH_ID}`, "/dashboard/remediations/batches/:batchId", <RemediationBatchView />, defaultWorld(), views)

const skipped: BatchItem = item(3, { state: "skipped", message: BatchMessages.needsApproval, remediation_id: null, account_name: "Audit" })

describe("the batch page", () => {
  it("shows the progress while it runs, stops after confirmation, and follows it until it settles", async () => {
    const { w, tick } = await batchPage([
      { batch: running, items: [item(0), item(1, { state: "running" }), item(2, { state: "pending" })], nextCursor: null },
      { batch: batch("stopped", { fixed: 2, skipped: 2 }, { stop_requested_by: { id: 7 as never, email: "owner@example.com" } }), items: [item(0), item(1), skipped], nextCursor: null },
    ])
    expect(screen.getByRole("heading", { level: 1, name: `Remediation batch #${BATCH_ID}` })).toBeTruthy()
    expect(screen.getByRole("progressbar", { name: "Batch progress" }).getAttribute("aria-valuetext")).toBe("1 of 4 resources done")
    expect(screen.getByText("Running")).toBeTruthy()
    // Started by a signed-in member: no API key is named.
    expect(screen.queryByText("Started with API key")).toBeNull()
    await press(screen.getByRole("button", { name: "Stop" }))
    const dialog = await screen.findByRole("alertdialog", { name: "Stop the batch?" })
    expect(within(dialog).getByText(/2 resources not yet started will be skipped/)).toBeTruthy()
    await press(within(dialog).getByRole("button", { name: "Stop the batch" }))
    expect(w.calls.filter((c) => c === "stop")).toHaveLength(1)
    expect(screen.getByText("Stopping")).toBeTruthy()
    await tick(BATCH_POLL_MS)
    expect(screen.getByText("Stopped")).toBeTruthy()
    expect(screen.getByText("Stopped by owner@example.com: resources not yet started were skipped.")).toBeTruthy()
    // Stopped by the signed-in member: no API key is named.
    expect(screen.queryByText("Stop asked with API key")).toBeNull()
    expect(screen.getByText(BatchMessages.needsApproval)).toBeTruthy()
    expect(screen.queryByRole("button", { name: "Stop" })).toBeNull()
  })

  it("undoes a completed batch, then offers Undo anyway with the conflicts' differences", async () => {
    const conflict = item(0, { state: "undo_failed", message: "The resource changed since the fix", differences: [{ path: "Status", expected: "Enabled", actual: "Suspended" }] })
    const { w, tick } = await batchPage([
      { batch: completed, items: [item(0), item(1), item(2), skipped], nextCursor: null },
      { batch: undoFailed, items: [conflict, item(1, { state: "undone" }), item(2, { state: "undone" }), skipped], nextCursor: null },
      { batch: undone, items: [item(0, { state: "undone" })], nextCursor: null },
    ])
    expect(screen.getByText("Completed")).toBeTruthy()
    await press(screen.getByRole("button", { name: "Undo batch" }))
    const dialog = await screen.findByRole("alertdialog", { name: "Undo the batch?" })
    await press(within(dialog).getByRole("button", { name: "Undo the batch" }))
    expect(w.calls).toContain("undo:false")
    await tick(BATCH_POLL_MS)
    expect(screen.getByText("Undo incomplete")).toBeTruthy()
    expect(screen.getByText('Status: "Enabled" → "Suspended"')).toBeTruthy()
    await press(screen.getByRole("button", { name: "Undo anyway" }))
    const force = await screen.findByRole("alertdialog", { name: "Undo anyway?" })
    await press(within(force).getByRole("button", { name: "Undo anyway" }))
    expect(w.calls).toContain("undo:true")
    await tick(BATCH_POLL_MS)
    expect(screen.getByText("Undone: the fixed resources were put back as they were.")).toBeTruthy()
    expect(screen.queryByRole("button", { name: /Undo/ })).toBeNull()
  })

  it("names the API key a batch was started and undone with, and an item skipped because that key was revoked", async () => {
    const revoked = item(2, { state: "skipped", message: BatchMessages.keyRevoked, remediation_id: null })
    const keyed = batch("completed", { fixed: 2, skipped: 1 }, {
      api_key: { id: 12 as never, name: "CI deploy" },
      undo_api_key: { id: 13 as never, name: "Nightly undo" },
    })
    await batchPage([{ batch: keyed, items: [item(0), item(1), revoked], nextCursor: null }])
    const fact = (label: string) => screen.getByText(label, { selector: "dt" }).parentElement?.querySelector("dd")?.textContent
    expect(fact("Started by")).toBe("owner@example.com")
    expect(fact("Started with API key")).toBe("CI deploy")
    expect(fact("Undo asked with API key")).toBe("Nightly undo")
    expect(screen.getByText(BatchMessages.keyRevoked)).toBeTruthy()
  })

  it("names the API key a batch's stop was asked with", async () => {
    const stopped = batch("stopped", { fixed: 1, skipped: 2 }, {
      stop_requested_by: { id: 7 as never, email: "owner@example.com" },
      stop_requested_at: "2026-11-27T10:00:30.000Z",
      stop_api_key: { id: 14 as never, name: "Incident bot" },
    })
    await batchPage([{ batch: stopped, items: [item(0), skipped], nextCursor: null }])
    const fact = (label: string) => screen.getByText(label, { selector: "dt" }).parentElement?.querySelector("dd")?.textContent
    expect(fact("Stop asked with API key")).toBe("Incident bot")
    expect(screen.getByText(/^Stopped by owner@example.com with API key Incident bot at /)).toBeTruthy()
    // Started by the member without a key: only the stop names one.
    expect(screen.queryByText("Started with API key")).toBeNull()
  })

  it("lists the workspace's batches, each linking to its page", async () => {
    await renderAt("/dashboard/remediations/batches", "/dashboard/remediations/batches", <RemediationBatchesView />)
    const table = screen.getByRole("table", { name: "Remediation batches" })
    expect(within(table).getByRole("link", { name: `#${BATCH_ID}` }).getAttribute("href")).toBe(`/dashboard/remediations/batches/${BATCH_ID}`)
    expect(within(table).getByText("s3_bucket_versioning_enabled").parentElement?.textContent).toBe("Every failing resource of s3_bucket_versioning_enabled")
    expect(within(table).getByText("Selected resources")).toBeTruthy()
    expect(within(table).getByText("3 fixed · 0 failed · 1 skipped")).toBeTruthy()
  })
})
