// @vitest-environment happy-dom
/**
 * The posture screens (issue 13) rendered with fake scan effects: the account page's schedule and mute-rules cards, and
 * the profile's scan digest card.
 */
import { afterEach, describe, expect, it } from "vitest"
import { cleanup, fireEvent, screen, within } from "@testing-library/react"
import { AccountDetailScreen } from "../../src/views/accounts/account-detail-screen.tsx"
import { DigestCard } from "../../src/views/profile/digest-card.tsx"
import { muteRule, schedule } from "../machines/scan-fakes.ts"
import { defaultWorld, renderScan, settle } from "./scan-render.tsx"

afterEach(cleanup)

const press = async (element: HTMLElement) => {
  fireEvent.click(element)
  await settle()
}

describe("account posture cards", () => {
  it("shows the schedule and its scope, edits the time, saves, and shows the next run", async () => {
    const world = defaultWorld()
    world.schedule = schedule({ frequency: "weekly", weekday: 1, time_of_day: "02:00", timezone: "Europe/Paris", services: ["iam"] })
    const { called } = await renderScan("/dashboard/accounts/1", { pattern: "/dashboard/accounts/:accountId", screen: <AccountDetailScreen />, world })
    const card = screen.getByRole("region", { name: "Scan schedule" })
    expect(within(card).getByText("Weekly on Monday at 02:00 (Europe/Paris)")).toBeTruthy()
    expect(within(card).getByText("IAM")).toBeTruthy()
    expect(within(card).getByText("All enabled regions")).toBeTruthy()
    await press(within(card).getByRole("button", { name: "Edit" }))
    fireEvent.change(within(card).getByLabelText("Time"), { target: { value: "06:30" } })
    await settle()
    await press(within(card).getByRole("button", { name: "Save schedule" }))
    expect(called("putSchedule")[0]?.payload).toMatchObject({ id: 1, schedule: { frequency: "weekly", time_of_day: "06:30", timezone: "Europe/Paris", services: ["iam"] } })
    expect(screen.getByText("Schedule saved")).toBeTruthy()
    expect(within(card).getByText("Weekly on Monday at 06:30 (Europe/Paris)")).toBeTruthy()
    // The next run is told on the schedule's clock, with its zone (the fake server plans it at 02:00 UTC).
    expect(within(card).getByText("Mar 2, 2025, 3:00 AM Europe/Paris")).toBeTruthy()
  })

  it("picks the time zone from a searchable list", async () => {
    const world = defaultWorld()
    world.schedule = schedule({ frequency: "daily", time_of_day: "02:00", timezone: "Europe/Paris" })
    const { called } = await renderScan("/dashboard/accounts/1", { pattern: "/dashboard/accounts/:accountId", screen: <AccountDetailScreen />, world })
    const card = screen.getByRole("region", { name: "Scan schedule" })
    await press(within(card).getByRole("button", { name: "Edit" }))
    const zone = within(card).getByRole("combobox", { name: "Time zone" }) as HTMLInputElement
    expect(zone.value).toBe("Europe/Paris")
    zone.focus()
    fireEvent.change(zone, { target: { value: "new york" } })
    await settle()
    const options = screen.getAllByRole("option").map((o) => o.textContent)
    expect(options).toContain("America/New_York")
    expect(options.every((o) => /new.york/i.test(o ?? ""))).toBe(true)
    await press(screen.getByRole("option", { name: "America/New_York" }))
    expect(zone.value).toBe("America/New_York")
    await press(within(card).getByRole("button", { name: "Save schedule" }))
    expect(called("putSchedule")[0]?.payload).toMatchObject({ id: 1, schedule: { timezone: "America/New_York" } })
  })

  it("lists the account's mute rules and deletes one", async () => {
    const world = defaultWorld()
    world.muteRules = [muteRule(3, { resource_pattern: "arn:aws:s3:::logs-*", reason: "Log buckets are public by design" })]
    const { called } = await renderScan("/dashboard/accounts/1", { pattern: "/dashboard/accounts/:accountId", screen: <AccountDetailScreen />, world })
    const card = screen.getByRole("region", { name: "Mute rules" })
    expect(within(card).getByText("check s3.public_access, resources arn:aws:s3:::logs-*, account Production 1")).toBeTruthy()
    expect(within(card).getByText("Log buckets are public by design")).toBeTruthy()
    await press(within(card).getByRole("button", { name: "Delete" }))
    expect(called("deleteMuteRule")[0]?.payload).toEqual({ id: 3 })
    expect(screen.getByText("Mute rule deleted")).toBeTruthy()
    expect(within(card).getByText(/No mute rules/)).toBeTruthy()
  })

  it("without scan_service, Edit is disabled and an attempt toasts the refusal", async () => {
    const world = defaultWorld()
    world.viewer = { ...world.viewer, canLaunchScans: false }
    const { called } = await renderScan("/dashboard/accounts/1", { pattern: "/dashboard/accounts/:accountId", screen: <AccountDetailScreen />, world })
    const card = screen.getByRole("region", { name: "Scan schedule" })
    await press(within(card).getByRole("button", { name: "Edit" }))
    expect(screen.getByText("Permission denied: Cannot launch scans")).toBeTruthy()
    expect(called("putSchedule")).toEqual([])
  })
})

describe("scan digest card", () => {
  it("turns the digest on and keeps the saved value", async () => {
    const world = defaultWorld()
    const { called } = await renderScan("/dashboard/profile", { pattern: "/dashboard/profile", screen: <DigestCard />, world })
    const box = screen.getByRole("checkbox", { name: /Email me a digest after each scan/ })
    expect((box as HTMLInputElement).checked).toBe(false)
    await press(box)
    expect(called("putDigest")[0]?.payload).toEqual({ scan_digest: true })
    expect(screen.getByText("Email preference saved")).toBeTruthy()
    expect((screen.getByRole("checkbox", { name: /Email me a digest/ }) as HTMLInputElement).checked).toBe(true)
  })

  it("the digest email's link (?digest=off) offers to turn it off at once, then says it is off", async () => {
    const world = defaultWorld()
    world.digest = true
    const { called } = await renderScan("/dashboard/profile?digest=off", { pattern: "/dashboard/profile", screen: <DigestCard />, world })
    expect(screen.getByText("Stop the scan digest emails?")).toBeTruthy()
    await press(screen.getByRole("button", { name: "Turn off scan digests" }))
    expect(called("putDigest")[0]?.payload).toEqual({ scan_digest: false })
    expect(screen.getByText("Scan digests are off")).toBeTruthy()
    expect((screen.getByRole("checkbox", { name: /Email me a digest/ }) as HTMLInputElement).checked).toBe(false)
  })
})

describe("dashboard posture section", () => {
  it("charts each account's trend, lists new / fixed per scan, the stale accounts and the top failing checks", async () => {
    const world = defaultWorld()
    const point = (id: number, critical: number, high: number, fresh: number, fixed: number) => ({
      scan_id: id as never, scan_start: `2025-03-0${id - 10}T10:00:00.000Z`, failing: { critical, high, medium: 1, low: 0 }, failing_resources: critical + high + 1, new_failing: fresh, fixed, muted_findings: 0,
    })
    world.overview = {
      accounts: [
        { account_id: 1 as never, account_name: "Production", cloud_provider_name: "AWS", last_scan_at: "2025-03-02T10:00:00.000Z", stale: false, scans: [point(11, 2, 3, 0, 0), point(12, 1, 4, 2, 2)] },
        { account_id: 2 as never, account_name: "Staging", cloud_provider_name: "AWS", last_scan_at: null, stale: true, scans: [] },
      ],
      top_failing_checks: [{ check_id: "s3.public_access", title: "S3 bucket allows public access", severity: "critical", resources: 3, accounts: 1 }],
      stale_after_days: 7,
    }
    const { DashboardScreen } = await import("../../src/views/accounts/dashboard-screen.tsx")
    const { called } = await renderScan("/dashboard", { pattern: "/dashboard", screen: <DashboardScreen />, world })
    expect(called("loadPostureOverview")).toHaveLength(1)
    const section = screen.getByRole("region", { name: "Security posture" })
    expect(within(section).getByRole("img", { name: "Failing resources of Production over its last 2 scans: scan #11 6, scan #12 6" })).toBeTruthy()
    expect(within(section).getByText("+2")).toBeTruthy()
    expect(within(section).getByText("−2")).toBeTruthy()
    expect(within(section).getByText("Not scanned in the last 7 days")).toBeTruthy()
    expect(within(section).getByText("(never scanned)", { exact: false })).toBeTruthy()
    expect(within(section).getByText("S3 bucket allows public access")).toBeTruthy()
  })
})

describe("resource page", () => {
  it("shows the resource and each scan's checks with outcome, mute and change; the finding rows link to it", async () => {
    const world = defaultWorld()
    world.resources = [{
      account_id: 1 as never, account_name: "Production", resource_uid: "arn:aws:s3:::bucket-a", resource_id: "bucket-a", service_key: "s3",
      region: "us-east-1", first_seen_at: "2025-03-01T10:00:00.000Z", last_seen_at: "2025-03-02T10:00:00.000Z",
      scans: [
        { scan_id: 12 as never, scan_start: "2025-03-02T10:00:00.000Z", failing_checks: 0, results: [
          { finding_id: 7 as never, check_id: "s3.public_access", title: "S3 bucket allows public access", severity: "critical", compliant: false, delta: "new", muted_reason: "Public website", remediation_status: null },
          { finding_id: 8 as never, check_id: "s3.versioning", title: "S3 bucket versioning", severity: "low", compliant: true, delta: "fixed", muted_reason: null, remediation_status: null },
        ] },
      ],
    }]
    const { ResourceHistoryView } = await import("../../src/views/accounts/resource-history.view.tsx")
    const { called } = await renderScan(`/dashboard/accounts/1/resource?uid=${encodeURIComponent("arn:aws:s3:::bucket-a")}`, {
      pattern: "/dashboard/accounts/:accountId/resource", screen: <ResourceHistoryView />, world,
    })
    expect(called("loadResourceHistory")[0]?.payload).toEqual({ account_id: 1, uid: "arn:aws:s3:::bucket-a" })
    expect(screen.getByRole("heading", { level: 1, name: "bucket-a" })).toBeTruthy()
    const checks = screen.getByRole("list", { name: "Checks in scan #12" })
    expect(within(checks).getByText("Muted")).toBeTruthy()
    expect(within(checks).getByText("New")).toBeTruthy()
    expect(within(checks).getByText("Fixed")).toBeTruthy()
    // Each entry leads back to its scan's finding, opened on this resource's rows.
    expect(within(checks).getByRole("link", { name: "Open finding s3.public_access of scan #12: S3 bucket allows public access" }).getAttribute("href"))
      .toBe("/dashboard/scans/12/findings/7?resource=bucket-a")
  })

  it("answers the server's 'Resource not found'", async () => {
    const { ResourceHistoryView } = await import("../../src/views/accounts/resource-history.view.tsx")
    await renderScan("/dashboard/accounts/1/resource?uid=nope", { pattern: "/dashboard/accounts/:accountId/resource", screen: <ResourceHistoryView />, world: defaultWorld() })
    expect(screen.getAllByText("Resource not found").length).toBeGreaterThan(0)
  })
})

describe("account mute rules: add and edit", () => {
  it("adds a rule with a pattern and a tag, then edits its reason", async () => {
    const world = defaultWorld()
    const { called } = await renderScan("/dashboard/accounts/1", { pattern: "/dashboard/accounts/:accountId", screen: <AccountDetailScreen />, world })
    const card = screen.getByRole("region", { name: "Mute rules" })
    await press(within(card).getByRole("button", { name: "Add mute rule" }))
    const dialog = screen.getByRole("dialog", { name: "Add mute rule" })
    fireEvent.change(within(dialog).getByRole("textbox", { name: "Resource pattern" }), { target: { value: "arn:aws:s3:::logs-*" } })
    fireEvent.change(within(dialog).getByRole("textbox", { name: "Tag key" }), { target: { value: "env" } })
    fireEvent.change(within(dialog).getByRole("textbox", { name: /Reason/ }), { target: { value: "Log buckets are public by design" } })
    await settle()
    await press(within(dialog).getByRole("button", { name: "Add rule" }))
    expect(called("createMuteRule")[0]?.payload).toMatchObject({ account_id: 1, resource_pattern: "arn:aws:s3:::logs-*", tag_key: "env", reason: "Log buckets are public by design" })
    expect(screen.getByText("Mute rule created")).toBeTruthy()
    expect(within(card).getByText("Log buckets are public by design")).toBeTruthy()
    await press(within(card).getByRole("button", { name: "Edit" }))
    const edit = screen.getByRole("dialog", { name: "Edit mute rule" })
    fireEvent.change(within(edit).getByRole("textbox", { name: /Reason/ }), { target: { value: "Reviewed monthly" } })
    await settle()
    await press(within(edit).getByRole("button", { name: "Save rule" }))
    expect(called("updateMuteRule")[0]?.payload).toMatchObject({ id: 3, payload: { reason: "Reviewed monthly", resource_pattern: "arn:aws:s3:::logs-*" } })
    expect(within(card).getByText("Reviewed monthly")).toBeTruthy()
  })
})
