// @vitest-environment happy-dom
/**
 * The remediate dialog's preview and the finding page's Remediation history card with Undo (issue 32 part 5).
 */
import { afterEach, describe, expect, it } from "vitest"
import { cleanup, fireEvent, screen, within } from "@testing-library/react"
import { FindingDetailView } from "../../src/views/scans/finding-detail.view.tsx"
import { compliantRow, finding, nonCompliantRow } from "../machines/scan-fakes.ts"
import { CONFLICT_BODY, preview, remediation } from "../machines/remediation-fakes.ts"
import { httpFailure } from "../machines/auth-fakes.ts"
import { defaultWorld, renderScan, settle } from "./scan-render.tsx"

afterEach(cleanup)

const press = async (element: HTMLElement) => {
  fireEvent.click(element)
  await settle()
}

const renderFinding = (world = defaultWorld(), overrides = {}) =>
  renderScan("/dashboard/scans/11/findings/5?service=s3", {
    pattern: "/dashboard/scans/:scanId/findings/:findingId",
    screen: <FindingDetailView />,
    world,
    overrides,
  })

describe("remediate dialog: the preview before confirming", () => {
  it("shows the calls with their parameters, effects, permissions, reversibility, CLI and Terraform, then Remediate", async () => {
    const world = defaultWorld()
    world.findings = [finding(5, { details: [{ ...nonCompliantRow, result_seq: 0 }, compliantRow] })]
    const { called } = await renderFinding(world)
    await press(within(screen.getByRole("table", { name: "Affected resources" })).getByRole("button", { name: "Remediate" }))
    expect(called("previewRemediation")[0]?.payload).toEqual({ id: 5, payload: { result_seq: 0 } })
    const dialog = screen.getByRole("dialog", { name: "Remediate resource" })
    expect(within(dialog).getByText("Turns on all four S3 Block Public Access settings for the account.")).toBeTruthy()
    expect(within(dialog).getByText("s3control PutPublicAccessBlock")).toBeTruthy()
    expect(within(dialog).getByText("us-east-1")).toBeTruthy()
    expect(within(dialog).getByLabelText("Parameters of call 1, PutPublicAccessBlock").textContent).toContain('"RestrictPublicBuckets": true')
    expect(within(dialog).getByText("Bucket policy statement 'PublicRead' of bucket-a stops applying")).toBeTruthy()
    expect(within(dialog).getByText("s3:PutAccountPublicAccessBlock")).toBeTruthy()
    expect(within(dialog).getByText("OK")).toBeTruthy()
    expect(within(dialog).getByText("Unknown")).toBeTruthy()
    expect(within(dialog).getByText("The credentials may not simulate policies")).toBeTruthy()
    expect(within(dialog).getByText("Undo is offered for 30 days after the fix.")).toBeTruthy()
    expect(within(dialog).getByLabelText("Command to run").textContent).toBe(preview().cli)
    await press(within(dialog).getByRole("tab", { name: "Terraform" }))
    expect(within(dialog).getByLabelText("Terraform configuration").textContent).toContain("aws_s3_account_public_access_block")
    expect(within(dialog).getByRole("button", { name: "Copy the Terraform" })).toBeTruthy()
    expect(called("remediate")).toHaveLength(0)
    await press(within(dialog).getByRole("button", { name: "Remediate" }))
    expect(called("remediate")).toHaveLength(1)
  })

  it("an irreversible fix says why before anything changes", async () => {
    const world = defaultWorld()
    world.findings = [finding(5, { details: [nonCompliantRow] })]
    await renderFinding(world, {
      previewRemediation: async () => preview({ reversible: false, undo_note: "Versioning cannot return to never enabled", undo_calls: [] }),
    })
    await press(within(screen.getByRole("table", { name: "Affected resources" })).getByRole("button", { name: "Remediate" }))
    const dialog = screen.getByRole("dialog", { name: "Remediate resource" })
    expect(within(dialog).getByText("This fix cannot be undone")).toBeTruthy()
    expect(within(dialog).getByText("Versioning cannot return to never enabled")).toBeTruthy()
  })

  it("a preview that fails shows the server's reason with Retry; nothing is remediated", async () => {
    const world = defaultWorld()
    world.findings = [finding(5, { details: [nonCompliantRow] })]
    let attempts = 0
    const { called } = await renderFinding(world, {
      previewRemediation: async () => {
        attempts += 1
        if (attempts === 1) throw httpFailure("generic", 409, { message: "This check's fix has no preview yet" })
        return preview()
      },
    })
    await press(within(screen.getByRole("table", { name: "Affected resources" })).getByRole("button", { name: "Remediate" }))
    const dialog = screen.getByRole("dialog", { name: "Remediate resource" })
    expect(within(dialog).getByText("This check's fix has no preview yet")).toBeTruthy()
    expect(within(dialog).queryByRole("button", { name: "Remediate" })).toBeNull()
    await press(within(dialog).getByRole("button", { name: "Retry" }))
    expect(within(dialog).getByText("s3control PutPublicAccessBlock")).toBeTruthy()
    expect(called("remediate")).toHaveLength(0)
  })

  it("an account that requires approval: 'Approval requested', the row unchanged", async () => {
    const world = defaultWorld()
    world.findings = [finding(5, { details: [nonCompliantRow] })]
    await renderFinding(world, {
      remediate: async () => ({
        ok: true,
        message: "Remediation request sent for approval",
        data: { details: nonCompliantRow, approval_request: { id: 3 as never, state: "pending" as const, expires_at: "2025-03-04T11:00:00.000Z" } },
      }),
    })
    const table = screen.getByRole("table", { name: "Affected resources" })
    await press(within(table).getByRole("button", { name: "Remediate" }))
    await press(within(screen.getByRole("dialog")).getByRole("button", { name: "Remediate" }))
    const dialog = screen.getByRole("dialog", { name: "Approval requested" })
    expect(within(dialog).getByText(/This account requires approval/)).toBeTruthy()
    await press(within(dialog).getAllByRole("button", { name: "Close" })[0]!)
    expect(within(table).getByRole("button", { name: "Remediate" })).toBeTruthy()
  })
})

describe("Remediation history card", () => {
  it("lists the remediations with state, who and when; Undo while possible, else why not", async () => {
    const world = defaultWorld()
    world.findings = [finding(5, { details: [nonCompliantRow] })]
    world.remediations = [
      remediation(2),
      remediation(1, { state: "undone", resource_id: "bucket-z" }, { available: false, reason: "This fix was already undone" }),
    ]
    const { called } = await renderFinding(world)
    expect(called("listRemediations")[0]?.payload).toEqual({ finding_id: 5 })
    const list = screen.getByRole("list", { name: "Remediations" })
    const fixed = within(list).getByRole("listitem", { name: "Remediation 2: Fixed" })
    expect(within(fixed).getByText(/Requested by ada@example.com/)).toBeTruthy()
    expect(within(fixed).getByRole("button", { name: "Undo" })).toBeTruthy()
    const undone = within(list).getByRole("listitem", { name: "Remediation 1: Undone" })
    expect(within(undone).getByText("This fix was already undone")).toBeTruthy()
    expect(within(undone).queryByRole("button", { name: "Undo" })).toBeNull()
  })

  it("Undo → confirm → conflict with the field differences → Undo anyway (force) → undoing; the page reloads when it settles", async () => {
    const world = defaultWorld()
    world.findings = [finding(5, { details: [nonCompliantRow] })]
    world.remediations = [remediation(2)]
    const undos: unknown[] = []
    const { called, tick } = await renderFinding(world, {
      undoRemediation: async (p: { readonly id: number; readonly force: boolean }) => {
        undos.push(p)
        if (!p.force) throw httpFailure("generic", 409, CONFLICT_BODY)
        world.remediations = [remediation(2, { state: "undoing" }, { available: false })]
        return world.remediations[0]!
      },
    })
    await press(screen.getByRole("button", { name: "Undo" }))
    const dialog = screen.getByRole("dialog", { name: "Undo remediation" })
    expect(within(dialog).getByText("DeletePublicAccessBlock", { exact: false })).toBeTruthy()
    await press(within(dialog).getByRole("button", { name: "Undo" }))
    expect(within(dialog).getByText(/^The resource changed since the fix; undo would overwrite those changes/)).toBeTruthy()
    const row = within(dialog).getByRole("row", { name: /RestrictPublicBuckets/ })
    expect(within(row).getAllByRole("cell").map((c) => c.textContent)).toEqual(["PublicAccessBlockConfiguration.RestrictPublicBuckets", "true", "false"])
    await press(within(dialog).getByRole("button", { name: "Undo anyway" }))
    expect(undos).toEqual([{ id: 2, force: false }, { id: 2, force: true }])
    expect(screen.queryByRole("dialog", { name: "Undo remediation" })).toBeNull()
    expect(screen.getByText("Undo queued")).toBeTruthy()
    expect(screen.getByRole("listitem", { name: "Remediation 2: Undoing" })).toBeTruthy()

    const reads = called("getFinding").length
    world.remediations = [remediation(2, { state: "undone" }, { available: false, reason: "This fix was already undone" })]
    await tick(5_000)
    expect(screen.getByRole("listitem", { name: "Remediation 2: Undone" })).toBeTruthy()
    expect(called("getFinding").length).toBe(reads + 1)
  })

  it("an undo refused as stale (the member retired since) keeps the server's words, and the history read again offers no Undo (issue 31)", async () => {
    const world = defaultWorld()
    world.findings = [finding(5, { details: [nonCompliantRow] })]
    world.remediations = [remediation(2)]
    const refusal = "This account was retired from its organization: its fixes can no longer be undone"
    const { called } = await renderFinding(world, {
      undoRemediation: async () => {
        // Retired since the page was read: the server now refuses, and its history says why.
        world.remediations = [remediation(2, {}, { available: false, reason: refusal })]
        throw httpFailure("generic", 409, { message: refusal, data: { error_type: "account_retired" } })
      },
    })
    const item = screen.getByRole("listitem", { name: "Remediation 2: Fixed" })
    await press(within(item).getByRole("button", { name: "Undo" }))
    const dialog = screen.getByRole("dialog", { name: "Undo remediation" })
    await press(within(dialog).getByRole("button", { name: "Undo" }))
    expect(called("listRemediations")).toHaveLength(2)
    // The server's message once, and no Undo left in the dialog or on the remediation.
    expect(within(dialog).getAllByText(refusal)).toHaveLength(1)
    expect(within(dialog).queryByRole("button", { name: "Undo" })).toBeNull()
    expect(within(item).queryByRole("button", { name: "Undo" })).toBeNull()
    await press(within(dialog).getByRole("button", { name: "Cancel" }))
    expect(screen.queryByRole("dialog", { name: "Undo remediation" })).toBeNull()
    expect(within(item).getByText(refusal, { exact: true })).toBeTruthy()
  })
})
