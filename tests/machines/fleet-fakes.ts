/**
 * Fleet dashboard answers for the fleet machines' and views' tests, decoded with the contract's schema so a fake
 * cannot drift from what the server sends (src/contracts/organizations.ts FleetDashboard).
 */
import { Schema } from "effect"
import type { Framework } from "../../src/contracts/compliance.ts"
import { FleetDashboard, FleetMember, OrgCompliance } from "../../src/contracts/organizations.ts"
import { ORG_ID } from "./organization-fakes.ts"

const zero = { critical: 0, high: 0, medium: 0, low: 0 }

export const fleetMember = (accountId: number, overrides: Record<string, unknown> = {}): FleetMember =>
  Schema.decodeUnknownSync(FleetMember)({
    account_id: accountId,
    account_name: `member-${accountId}`,
    cloud_account_id: String(100000000000 + accountId),
    unit_id: "ou-prod",
    unit_path: "Root / Prod",
    tags: { env: "prod" },
    latest_scan_id: 500 + accountId,
    latest_scan_at: "2026-11-26T10:00:00.000Z",
    stale: false,
    failing_resources: { ...zero, critical: 2, high: 3 },
    failed_checks: { ...zero, critical: 1, high: 2 },
    failing_resources_total: 5,
    failed_checks_total: 3,
    risk: 40,
    ...overrides,
  })

export const fleetDashboard = (members: ReadonlyArray<FleetMember>, overrides: Record<string, unknown> = {}): FleetDashboard =>
  Schema.decodeUnknownSync(FleetDashboard)({
    organization_account_id: ORG_ID,
    sort: "risk",
    stale_days: 7,
    unit: null,
    tag: null,
    members,
    pagination: { page: 1, page_size: 50, total: members.length, total_pages: Math.ceil(members.length / 50) },
    totals: {
      members: members.length,
      members_scanned: members.filter((m) => m.latest_scan_id !== null).length,
      members_stale: members.filter((m) => m.stale).length,
      failing_resources: { ...zero, critical: members.reduce((n, m) => n + m.failing_resources.critical, 0), high: members.reduce((n, m) => n + m.failing_resources.high, 0) },
      failed_checks: { ...zero, critical: members.reduce((n, m) => n + m.failed_checks.critical, 0), high: members.reduce((n, m) => n + m.failed_checks.high, 0) },
      failing_resources_total: members.reduce((n, m) => n + m.failing_resources_total, 0),
      failed_checks_total: members.reduce((n, m) => n + m.failed_checks_total, 0),
      risk: members.reduce((n, m) => n + m.risk, 0),
    },
    trend: [
      { day: "2026-11-25", members_scanned: 1, failing_resources: 9, failed_checks: 4 },
      { day: "2026-11-26", members_scanned: members.length, failing_resources: members.reduce((n, m) => n + m.failing_resources_total, 0), failed_checks: 3 },
    ],
    // The organisation's units (organization-fakes.ts `organizationDetail`), whatever the members.
    units: [
      { unit_id: "r-root", path: "Root" },
      { unit_id: "ou-dev", path: "Root / Dev" },
      { unit_id: "ou-prod", path: "Root / Prod" },
    ],
    ...overrides,
  })

const statusCounts = { passed: 3, passed_with_exceptions: 0, failed: 1, not_evaluated: 0, manual: 0, not_applicable: 0, total: 4, score: 75 }

/** An organisation's compliance answer (src/contracts/organizations.ts OrgCompliance) for `framework`, decoded. */
export const orgCompliance = (framework: Framework, overrides: Record<string, unknown> = {}): OrgCompliance =>
  Schema.decodeUnknownSync(OrgCompliance)({
    organization_account_id: ORG_ID,
    framework,
    sections: [{ id: "1", title: "Identity and Access Management", parent_id: null }, { id: "2", title: "Storage", parent_id: null }],
    unit: null,
    tag: null,
    members_total: 3,
    members_scanned: 2,
    requirements: [
      {
        id: "1.4", section_id: "1", title: "Ensure no 'root' user account access key exists", assessment: "automated",
        members: { passed: 2, passed_with_exceptions: 0, failed: 0, not_evaluated: 0, manual: 0, not_applicable: 0, not_scanned: 1 },
        failed_members: [],
      },
      {
        id: "2.1.1", section_id: "2", title: "Ensure S3 Bucket Policy is set to deny HTTP requests", assessment: "automated",
        members: { passed: 0, passed_with_exceptions: 1, failed: 1, not_evaluated: 0, manual: 0, not_applicable: 0, not_scanned: 1 },
        failed_members: [{ account_id: 21, account_name: "member-21" }],
      },
    ],
    members: [
      { account_id: 21, account_name: "member-21", cloud_account_id: "100000000021", unit_path: "Root / Prod", scan_id: 521, counts: statusCounts },
      { account_id: 22, account_name: "member-22", cloud_account_id: "100000000022", unit_path: "Root / Prod", scan_id: 522, counts: { ...statusCounts, failed: 0, passed: 4, score: 100 } },
      { account_id: 23, account_name: "member-23", cloud_account_id: "100000000023", unit_path: "Root / Dev", scan_id: null, counts: null },
    ],
    members_pagination: { page: 1, page_size: 50, total: 3, total_pages: 1 },
    ...overrides,
  })
