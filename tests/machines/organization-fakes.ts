/**
 * Fakes for the organisation machines (issue 31): contract-shaped samples (an AWS organisation of two units and three
 * members, its syncs, its fleet scans), decoded through the contract schemas so a sample that drifts from the
 * contract fails loudly.
 */
import { Schema } from "effect"
import {
  AwsTemplateResponse,
  FleetScan,
  OrganizationDetail,
  OrganizationSummary,
  OrganizationSync,
  SyncChanges,
} from "../../src/contracts/organizations.ts"
import type { AwsTemplate, FleetScanSummary } from "../../src/machines/organization-effects.ts"

const decode = <S extends Schema.Top>(schema: S) => (value: unknown): S["Type"] =>
  Schema.decodeUnknownSync(schema as unknown as Schema.Decoder<S["Type"]>)(value)

export const ORG_ID = 7

export const organizationSummary = (overrides: Record<string, unknown> = {}): OrganizationSummary =>
  decode(OrganizationSummary)({
    id: ORG_ID,
    account_name: "Acme organization",
    cloud_provider_id: 1,
    cloud_provider_name: "AWS",
    organization_id: "o-abc123",
    root_id: "r-root",
    root_name: "Root",
    management_account_id: "111111111111",
    member_role_name: "CloudAuditMemberRole",
    member_concurrency: 10,
    members_total: 3,
    members_included: 2,
    members_retired: 1,
    members_unreachable: 1,
    last_sync_at: "2025-03-01T10:00:00.000Z",
    next_sync_at: "2025-03-02T10:00:00.000Z",
    last_sync_status: "completed",
    ...overrides,
  })

export const changes = (overrides: Record<string, unknown> = {}): SyncChanges =>
  decode(SyncChanges)({ added: [], retired: [], reactivated: [], moved: [], renamed: [], unreachable: [], ...overrides })

export const sync = (id: number, overrides: Record<string, unknown> = {}): OrganizationSync =>
  decode(OrganizationSync)({
    id,
    trigger: "manual",
    status: "completed",
    error: null,
    changes: changes(),
    members_total: 3,
    members_included: 2,
    started_at: "2025-03-01T10:00:00.000Z",
    finished_at: "2025-03-01T10:00:05.000Z",
    ...overrides,
  })

const member = (cloudAccountId: string, unitId: string, unitPath: string, overrides: Record<string, unknown> = {}) => ({
  cloud_account_id: cloudAccountId,
  name: `Member ${cloudAccountId}`,
  unit_id: unitId,
  unit_path: unitPath,
  state: "active",
  cloud_state: "ACTIVE",
  tags: {},
  included: true,
  account_id: null,
  retired_at: null,
  retired_reason: null,
  reachable: true,
  last_error: null,
  removed_at: null,
  ...overrides,
})

export const organizationDetail = (overrides: Record<string, unknown> = {}): OrganizationDetail =>
  decode(OrganizationDetail)({
    ...organizationSummary(),
    selection: { include_units: [], exclude_units: [], include_accounts: [], exclude_accounts: [] },
    units: [
      { unit_id: "r-root", parent_unit_id: null, name: "Root", kind: "root", path: "Root", members: 0 },
      { unit_id: "ou-prod", parent_unit_id: "r-root", name: "Prod", kind: "organizational_unit", path: "Root / Prod", members: 2 },
      { unit_id: "ou-dev", parent_unit_id: "r-root", name: "Dev", kind: "organizational_unit", path: "Root / Dev", members: 1 },
    ],
    members: [
      member("222222222222", "ou-prod", "Root / Prod", { account_id: 21 }),
      member("333333333333", "ou-prod", "Root / Prod", { account_id: 22, reachable: false, last_error: "The member role could not be assumed in this account" }),
      member("444444444444", "ou-dev", "Root / Dev", {
        account_id: 23,
        included: false,
        state: "closed",
        cloud_state: "CLOSED",
        retired_at: "2025-02-20T10:00:00.000Z",
        retired_reason: "closed",
        reachable: null,
      }),
    ],
    recent_syncs: [sync(2), sync(1, { trigger: "onboard" })],
    ...overrides,
  })

export const awsTemplate: AwsTemplate = decode(AwsTemplateResponse)({
  data: {
    role_name: "CloudAuditMemberRole",
    external_id: "ext-123",
    trusted_principal_arn: "arn:aws:iam::999999999999:root",
    organization_template: '{"AWSTemplateFormatVersion":"2010-09-09","Resources":{}}',
    member_template: '{"AWSTemplateFormatVersion":"2010-09-09","Resources":{"Role":{}}}',
    cli_commands: "aws cloudformation deploy --stack-name cloud-audit-members --template-file organization.json",
  },
}).data

export const fleetScan = (id: number, overrides: Record<string, unknown> = {}): FleetScan =>
  decode(FleetScan)({
    fleet_scan_id: id,
    organization_account_id: ORG_ID,
    status: "running",
    trigger: "manual",
    member_cap: 10,
    started_at: "2025-03-01T11:00:00.000Z",
    finished_at: null,
    members_total: 2,
    members_queued: 0,
    members_running: 1,
    members_completed: 0,
    members_failed: 1,
    members: [
      {
        account_id: 21,
        account_name: "Member 222222222222",
        cloud_account_id: "222222222222",
        unit_path: "Root / Prod",
        state: "started",
        scan_id: 501,
        scan_status: "running",
        total_services: 4,
        completed_services: 1,
        failed_checks: 2,
        reason: null,
      },
      {
        account_id: 22,
        account_name: "Member 333333333333",
        cloud_account_id: "333333333333",
        unit_path: "Root / Prod",
        state: "failed",
        scan_id: null,
        scan_status: null,
        total_services: 0,
        completed_services: 0,
        failed_checks: 0,
        reason: "The member role could not be assumed in this account",
      },
    ],
    ...overrides,
  })

export const fleetScanSummary = (id: number, overrides: Record<string, unknown> = {}): FleetScanSummary => {
  const { members: _members, ...rest } = fleetScan(id, overrides)
  return rest
}
