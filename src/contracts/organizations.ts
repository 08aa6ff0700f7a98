/**
 * Organisations and fleets (beyond the spec, issue 31; docs/organizations.md): an AWS Organization, a GCP organisation
 * or folder, or an Azure management group onboarded in one step through the spec's own add-account call
 * (`is_organization: true` with `organization` settings), its members as ordinary accounts, its syncs, its fleet scans
 * and its fleet dashboard. Shapes shared by the server (server/organizations/, server/api/organizations.ts) and the
 * SPA; messages are the texts both show.
 *
 * Units of every number: `members` are member accounts; `failing_resources` are failing resources (rows) of failed
 * checks in the member's latest completed scan (docs/outcomes.md); `failed_checks` are checks (findings) whose outcome is
 * failed.
 */
import { Schema } from "effect"
import { AccountId, CloudProviderId, FleetScanId, ScanId } from "./ids.ts"
import { Count, NullableTimestamp, Pagination, RunStatus, Timestamp, withData } from "./common.ts"
import { Assessment, Framework, FrameworkSection, RequirementId, StatusCounts } from "./compliance.ts"

export const OrganizationMessages = {
  organizationAdded: "Organization added",
  syncStarted: "Organization synced",
  selectionSaved: "Member selection saved",
  fleetScanStarted: "Fleet scan started",
  notAnOrganization: "This account is not an organization",
  organizationNotFound: "Organization not found",
  fleetScanNotFound: "Fleet scan not found",
  fleetScanRunning: "A scan of this organization is already running",
  noMembersToScan: "The organization has no included members to scan",
  rootIdRequired: "Enter the organization, folder or management group id",
  rootIdInvalidGcp: "Enter an organization id (organizations/123) or a folder id (folders/456)",
  rootIdInvalidAzure: "Enter a management group id",
  roleNameInvalid: "Role names use 1 to 64 letters, digits and + = , . @ _ -",
  unitIdInvalid: "Unknown organizational unit",
  discoveryFailed: "Could not list the organization's members",
  memberRoleMissing: "The member role could not be assumed in this account",
  loadOrganizationFailed: "Failed to load the organization. Please try again.",
  loadFleetFailed: "Failed to load the fleet. Please try again.",
  syncFailed: "Failed to sync the organization. Please try again.",
  /** A scan (manual or scheduled) of a member retired from its organisation (excluded, closed, suspended or removed). */
  memberRetired: "This account was retired from its organization: its history stays readable, but it is no longer scanned",
  /** A remediation of a finding of such a member: the product no longer acts in that account. */
  memberRetiredRemediation: "This account was retired from its organization: its findings can no longer be remediated",
  /** An undo of an earlier fix in such a member (single or in a batch): the product no longer acts in that account either. */
  memberRetiredUndo: "This account was retired from its organization: its fixes can no longer be undone",
  /** The line a retired member's card and page show where 'Launch scan' would be. */
  memberRetiredLine: "Retired from its organization: no longer scanned",
  /** A sync that discovered with the previous member role while the role name changed (the change's own sync follows). */
  memberRoleChangedDuringSync: "The member role name changed during this sync: the sync that follows the change applies it",
} as const

/** The AWS member role name the wizard proposes (and the CloudFormation template deploys). */
export const DEFAULT_MEMBER_ROLE_NAME = "CloudAuditMemberRole"
/** Member scans of one fleet scan running at once, unless the organisation says otherwise. */
export const DEFAULT_MEMBER_CONCURRENCY = 10
export const MAX_MEMBER_CONCURRENCY = 200
/** A member whose latest completed scan is older than this many days (or that has none) is stale. */
export const DEFAULT_STALE_DAYS = 7

export const MEMBER_ROLE_NAME = /^[A-Za-z0-9+=,.@_-]{1,64}$/
export const GCP_ROOT_ID = /^(organizations|folders)\/[0-9]{1,32}$/
export const AZURE_MANAGEMENT_GROUP_ID = /^[A-Za-z0-9_().-]{1,90}$/

const IdList = Schema.Array(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(256))).check(Schema.isMaxLength(5000))

/** Which members are scanned: empty include lists mean every unit / every account; excludes win over includes. */
export const MemberSelection = Schema.Struct({
  include_units: IdList,
  exclude_units: IdList,
  include_accounts: IdList,
  exclude_accounts: IdList,
})
export type MemberSelection = typeof MemberSelection.Type

export const EMPTY_SELECTION: MemberSelection = { include_units: [], exclude_units: [], include_accounts: [], exclude_accounts: [] }

/**
 * The `organization` settings of an add-account payload with `is_organization: true`:
 * - AWS: `member_role_name` (default DEFAULT_MEMBER_ROLE_NAME), assumed in each member with the workspace's external
 *   id; `root_id` is not needed (the organisation's root is found);
 * - GCP: `root_id` "organizations/N" or "folders/N": the service account must be granted there;
 * - Azure: `root_id` the management group id: the app registration must be granted there.
 */
export const OrganizationSettings = Schema.Struct({
  root_id: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(256))),
  member_role_name: Schema.optionalKey(Schema.String.check(Schema.isPattern(MEMBER_ROLE_NAME, { message: OrganizationMessages.roleNameInvalid }))),
  member_concurrency: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_MEMBER_CONCURRENCY }))),
  include_units: Schema.optionalKey(IdList),
  exclude_units: Schema.optionalKey(IdList),
  include_accounts: Schema.optionalKey(IdList),
  exclude_accounts: Schema.optionalKey(IdList),
})
export type OrganizationSettings = typeof OrganizationSettings.Type

export const UNIT_KINDS = ["root", "organizational_unit", "organization", "folder", "management_group"] as const
export const OrganizationUnit = Schema.Struct({
  unit_id: Schema.String,
  parent_unit_id: Schema.NullOr(Schema.String),
  name: Schema.String,
  kind: Schema.Literals(UNIT_KINDS),
  path: Schema.String,
  /** Members directly in this unit. */
  members: Count,
})
export type OrganizationUnit = typeof OrganizationUnit.Type

export const MEMBER_STATES = ["active", "suspended", "closed"] as const
export const RETIRED_REASONS = ["removed", "closed", "suspended", "excluded"] as const

export const OrganizationMember = Schema.Struct({
  cloud_account_id: Schema.String,
  name: Schema.String,
  unit_id: Schema.String,
  unit_path: Schema.String,
  state: Schema.Literals(MEMBER_STATES),
  cloud_state: Schema.String,
  tags: Schema.Record(Schema.String, Schema.String),
  included: Schema.Boolean,
  /** The workspace account it became (null: never included). */
  account_id: Schema.NullOr(AccountId),
  retired_at: NullableTimestamp,
  retired_reason: Schema.NullOr(Schema.Literals(RETIRED_REASONS)),
  /** Whether the last sync could reach it (AWS: assume the member role); null: not tried (excluded or inactive). */
  reachable: Schema.NullOr(Schema.Boolean),
  last_error: Schema.NullOr(Schema.String),
  removed_at: NullableTimestamp,
})
export type OrganizationMember = typeof OrganizationMember.Type

/** One member named in a sync's changes. */
export const MemberChange = Schema.Struct({
  cloud_account_id: Schema.String,
  name: Schema.String,
  unit_path: Schema.String,
  /** For `moved`: the unit path before; for `unreachable`: the reason. */
  detail: Schema.optionalKey(Schema.String),
})
export type MemberChange = typeof MemberChange.Type

export const SyncChanges = Schema.Struct({
  added: Schema.Array(MemberChange),
  retired: Schema.Array(MemberChange),
  reactivated: Schema.Array(MemberChange),
  moved: Schema.Array(MemberChange),
  renamed: Schema.Array(MemberChange),
  unreachable: Schema.Array(MemberChange),
})
export type SyncChanges = typeof SyncChanges.Type

export const EMPTY_CHANGES: SyncChanges = { added: [], retired: [], reactivated: [], moved: [], renamed: [], unreachable: [] }

export const SYNC_TRIGGERS = ["onboard", "manual", "daily", "selection"] as const
export const OrganizationSync = Schema.Struct({
  id: Schema.Int,
  trigger: Schema.Literals(SYNC_TRIGGERS),
  status: Schema.Literals(["running", "completed", "failed"]),
  error: Schema.NullOr(Schema.String),
  changes: SyncChanges,
  members_total: Count,
  members_included: Count,
  started_at: Timestamp,
  finished_at: NullableTimestamp,
})
export type OrganizationSync = typeof OrganizationSync.Type

export const OrganizationSummary = Schema.Struct({
  /** The organisation's account id in this workspace. */
  id: AccountId,
  account_name: Schema.String,
  cloud_provider_id: CloudProviderId,
  cloud_provider_name: Schema.String,
  /** The organisation's own id: AWS "o-…", GCP "organizations/N" / "folders/N", Azure management group. */
  organization_id: Schema.String,
  root_id: Schema.String,
  root_name: Schema.String,
  management_account_id: Schema.NullOr(Schema.String),
  member_role_name: Schema.NullOr(Schema.String),
  member_concurrency: Count,
  members_total: Count,
  members_included: Count,
  members_retired: Count,
  members_unreachable: Count,
  last_sync_at: NullableTimestamp,
  next_sync_at: NullableTimestamp,
  last_sync_status: Schema.NullOr(Schema.Literals(["running", "completed", "failed"])),
  /**
   * True for a member whose role is limited to account groups (docs/organizations.md "Access by group"): the answer
   * holds their members and the units above them only; the organisation's settings (root, management account, member
   * role, concurrency, selection), syncs and fleet scans are not theirs to see (empty), nor sync, selection or fleet
   * scan theirs to start. Absent otherwise.
   */
  limited_view: Schema.optional(Schema.Boolean),
})
export type OrganizationSummary = typeof OrganizationSummary.Type

export const OrganizationDetail = Schema.Struct({
  ...OrganizationSummary.fields,
  selection: MemberSelection,
  units: Schema.Array(OrganizationUnit),
  members: Schema.Array(OrganizationMember),
  recent_syncs: Schema.Array(OrganizationSync),
})
export type OrganizationDetail = typeof OrganizationDetail.Type

export const OrganizationsResponse = withData(Schema.Struct({ organizations: Schema.Array(OrganizationSummary) }))
export type OrganizationsResponse = typeof OrganizationsResponse.Type
export const OrganizationResponse = withData(OrganizationDetail)
export type OrganizationResponse = typeof OrganizationResponse.Type
export const SyncResponse = withData(OrganizationSync)
export type SyncResponse = typeof SyncResponse.Type
export const SyncsResponse = withData(Schema.Struct({ syncs: Schema.Array(OrganizationSync) }))
export type SyncsResponse = typeof SyncsResponse.Type

/** PUT /api/organizations/{id}/selection: the selection (and AWS role name / concurrency); saving re-syncs. */
export const SelectionPayload = Schema.Struct({
  ...MemberSelection.fields,
  member_role_name: Schema.optionalKey(Schema.String.check(Schema.isPattern(MEMBER_ROLE_NAME, { message: OrganizationMessages.roleNameInvalid }))),
  member_concurrency: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_MEMBER_CONCURRENCY }))),
})
export type SelectionPayload = typeof SelectionPayload.Type

/** GET /api/organizations/aws-template?role_name=: the CloudFormation template deploying the member role. */
export const AwsTemplateQuery = Schema.Struct({
  role_name: Schema.optionalKey(Schema.String.check(Schema.isPattern(MEMBER_ROLE_NAME, { message: OrganizationMessages.roleNameInvalid }))),
  /** The principal the member roles trust (default: the account root of the server's AWS identity, when known). */
  trusted_principal_arn: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(2048))),
})
export const AwsTemplateResponse = withData(Schema.Struct({
  role_name: Schema.String,
  external_id: Schema.String,
  trusted_principal_arn: Schema.String,
  /** The stack for the management account (its own member role + the service-managed StackSet), JSON text. */
  organization_template: Schema.String,
  /** The member role template the StackSet deploys, JSON text. */
  member_template: Schema.String,
  /** AWS CLI commands deploying the stack, generated from the same inputs. */
  cli_commands: Schema.String,
}))
export type AwsTemplateResponse = typeof AwsTemplateResponse.Type

// ---------------------------------------------------------------------------------------------------
// Fleet scans

export const FLEET_MEMBER_STATES = ["queued", "started", "completed", "failed"] as const

export const FleetScanMember = Schema.Struct({
  account_id: AccountId,
  account_name: Schema.String,
  cloud_account_id: Schema.String,
  unit_path: Schema.String,
  state: Schema.Literals(FLEET_MEMBER_STATES),
  scan_id: Schema.NullOr(ScanId),
  scan_status: Schema.NullOr(RunStatus),
  total_services: Count,
  completed_services: Count,
  failed_checks: Count,
  /** Why the member failed (its scan's failure reason, or why it could not start). */
  reason: Schema.NullOr(Schema.String),
})
export type FleetScanMember = typeof FleetScanMember.Type

export const FleetScan = Schema.Struct({
  fleet_scan_id: FleetScanId,
  organization_account_id: AccountId,
  status: RunStatus,
  trigger: Schema.Literals(["manual", "schedule"]),
  member_cap: Count,
  started_at: Timestamp,
  finished_at: NullableTimestamp,
  members_total: Count,
  members_queued: Count,
  members_running: Count,
  members_completed: Count,
  members_failed: Count,
  members: Schema.Array(FleetScanMember),
})
export type FleetScan = typeof FleetScan.Type

export const FleetScanResponse = withData(FleetScan)
export type FleetScanResponse = typeof FleetScanResponse.Type
export const FleetScansResponse = withData(Schema.Struct({ fleet_scans: Schema.Array(FleetScan.mapFields((f) => ({ ...f, members: Schema.optionalKey(f.members) }))) }))
export type FleetScansResponse = typeof FleetScansResponse.Type

// ---------------------------------------------------------------------------------------------------
// Fleet dashboard and organisation compliance (server/organizations/fleet.ts, server/api/fleet.ts; docs/api.md)

/** Sorts of the fleet dashboard: risk (highest first, the default), name, failing resources (most first), stale (stale first, oldest scan first). */
export const FLEET_SORTS = ["risk", "name", "failing", "stale"] as const
export type FleetSort = (typeof FLEET_SORTS)[number]
/** Days of the fleet's trend (today, UTC, and the days before it). */
export const FLEET_TREND_DAYS = 30
export const MAX_STALE_DAYS = 365

/** A tag filter "key:value" (exactly that value) or "key" (any value). */
export const FLEET_TAG = /^[^:]{1,128}(:.{0,256})?$/

const SeverityCounts = Schema.Struct({ critical: Count, high: Count, medium: Count, low: Count })

/** Which members: `unit` (that unit and every unit under it) and `tag`; both optional. */
export const FleetFilter = Schema.Struct({
  unit: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(256))),
  tag: Schema.optionalKey(Schema.String.check(Schema.isPattern(FLEET_TAG))),
})
export type FleetFilter = typeof FleetFilter.Type

/** Members per page of the fleet dashboard and of organisation compliance (`page_size` default), and the most a page takes. */
export const FLEET_PAGE_SIZE = 50
export const MAX_FLEET_PAGE_SIZE = 200

/**
 * A page of members (the common numbered pagination, src/contracts/common.ts `Pagination`): `page` from 1 (default 1),
 * `page_size` 1–MAX_FLEET_PAGE_SIZE (default FLEET_PAGE_SIZE). A page past the last answers no members (with the
 * pagination saying how many pages there are).
 */
export const MemberPageQuery = Schema.Struct({
  page: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1_000_000 }))),
  page_size: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_FLEET_PAGE_SIZE }))),
})
export type MemberPageQuery = typeof MemberPageQuery.Type

/** The pagination of `total` members for a page query (defaults applied). */
export const memberPagination = (total: number, query: MemberPageQuery): Pagination => {
  const pageSize = query.page_size ?? FLEET_PAGE_SIZE
  return { page: query.page ?? 1, page_size: pageSize, total, total_pages: Math.ceil(total / pageSize) }
}

/** The members of one page (`memberPagination`'s page) of an ordered list. */
export const memberPageOf = <A>(all: ReadonlyArray<A>, pagination: Pagination): ReadonlyArray<A> => {
  const size = pagination.page_size ?? FLEET_PAGE_SIZE
  return all.slice((pagination.page - 1) * size, pagination.page * size)
}

/** GET /api/organizations/{id}/fleet */
export const FleetQuery = Schema.Struct({
  ...FleetFilter.fields,
  sort: Schema.optionalKey(Schema.Literals(FLEET_SORTS)),
  stale_days: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_STALE_DAYS }))),
  ...MemberPageQuery.fields,
})
export type FleetQuery = typeof FleetQuery.Type

/** One member (not retired) by its latest completed scan. */
export const FleetMember = Schema.Struct({
  account_id: AccountId,
  account_name: Schema.String,
  cloud_account_id: Schema.String,
  unit_id: Schema.NullOr(Schema.String),
  unit_path: Schema.String,
  tags: Schema.Record(Schema.String, Schema.String),
  /** Its latest completed scan (null: none yet). */
  latest_scan_id: Schema.NullOr(ScanId),
  latest_scan_at: NullableTimestamp,
  /** No completed scan, or the latest started more than `stale_days` days ago. */
  stale: Schema.Boolean,
  /** Failing resources (unit: failing resources) by the severity of their check. */
  failing_resources: SeverityCounts,
  /** Failed checks (unit: failed checks) by severity. */
  failed_checks: SeverityCounts,
  failing_resources_total: Count,
  failed_checks_total: Count,
  /** `riskScore` of its failing resources (unit: risk points; src/contracts/outcomes.ts). */
  risk: Count,
})
export type FleetMember = typeof FleetMember.Type

export const FleetTotals = Schema.Struct({
  members: Count,
  /** Members with a completed scan. */
  members_scanned: Count,
  members_stale: Count,
  failing_resources: SeverityCounts,
  failed_checks: SeverityCounts,
  failing_resources_total: Count,
  failed_checks_total: Count,
  risk: Count,
})
export type FleetTotals = typeof FleetTotals.Type

/** One day of the fleet's trend: every member counted by its latest completed scan as of the end of that day (UTC). */
export const FleetTrendPoint = Schema.Struct({
  /** YYYY-MM-DD (UTC). */
  day: Schema.String,
  /** Members that had a completed scan by the end of the day. */
  members_scanned: Count,
  failing_resources: Count,
  failed_checks: Count,
})
export type FleetTrendPoint = typeof FleetTrendPoint.Type

/** A unit of the organisation as its last sync saw it (a unit filter's choice). */
export const FleetUnit = Schema.Struct({ unit_id: Schema.String, path: Schema.String })
export type FleetUnit = typeof FleetUnit.Type

export const FleetDashboard = Schema.Struct({
  organization_account_id: AccountId,
  sort: Schema.Literals(FLEET_SORTS),
  stale_days: Count,
  unit: Schema.NullOr(Schema.String),
  tag: Schema.NullOr(Schema.String),
  /** One page of the members the filters select, sorted over all of them (`pagination`). */
  members: Schema.Array(FleetMember),
  /** The page of `members` among all the members the filters select (`total`: all of them, = `totals.members`). */
  pagination: Pagination,
  /** Over every member the filters select (not only the page). */
  totals: FleetTotals,
  /** FLEET_TREND_DAYS points, oldest first, over every member the filters select. */
  trend: Schema.Array(FleetTrendPoint),
  /**
   * Every unit of the organisation (by path), whatever the filters and the page: the unit filter's choices. The page's
   * members are not all of its units (one page of them, and a unit may hold no member).
   */
  units: Schema.Array(FleetUnit),
})
export type FleetDashboard = typeof FleetDashboard.Type
export const FleetResponse = withData(FleetDashboard)
export type FleetResponse = typeof FleetResponse.Type

/**
 * Members by a requirement's status in their latest completed scan (unit: member accounts). The statuses are those of
 * the per-scan evaluation (`requirementStatus`); members without a completed scan are counted apart (`not_scanned`).
 */
export const MemberStatusCounts = Schema.Struct({
  passed: Count,
  passed_with_exceptions: Count,
  failed: Count,
  not_evaluated: Count,
  manual: Count,
  not_applicable: Count,
  not_scanned: Count,
})
export type MemberStatusCounts = typeof MemberStatusCounts.Type

/** Failing members named per requirement (`failed_members`); `members.failed` counts them all, the members CSV names each. */
export const ORG_FAILED_NAMED = 5

/** A member named by a requirement. */
export const OrgMemberRef = Schema.Struct({ account_id: AccountId, account_name: Schema.String })
export type OrgMemberRef = typeof OrgMemberRef.Type

export const OrgRequirement = Schema.Struct({
  id: RequirementId,
  section_id: Schema.String,
  title: Schema.String,
  assessment: Assessment,
  members: MemberStatusCounts,
  /** The first ORG_FAILED_NAMED members (by name) whose latest scan fails it; `members.failed` counts them all. */
  failed_members: Schema.Array(OrgMemberRef),
})
export type OrgRequirement = typeof OrgRequirement.Type

/** One member's framework counts (requirements by status, score) in its latest completed scan; null counts: not scanned. */
export const OrgComplianceMember = Schema.Struct({
  account_id: AccountId,
  account_name: Schema.String,
  cloud_account_id: Schema.String,
  unit_path: Schema.String,
  scan_id: Schema.NullOr(ScanId),
  counts: Schema.NullOr(StatusCounts),
})
export type OrgComplianceMember = typeof OrgComplianceMember.Type

export const OrgCompliance = Schema.Struct({
  organization_account_id: AccountId,
  framework: Framework,
  sections: Schema.Array(FrameworkSection),
  unit: Schema.NullOr(Schema.String),
  tag: Schema.NullOr(Schema.String),
  /** Over every member the filters select (not only the page). */
  members_total: Count,
  members_scanned: Count,
  /** Each requirement with the members by status, over every member the filters select. */
  requirements: Schema.Array(OrgRequirement),
  /** One page of the members (by name) with their framework counts (`members_pagination`; the members CSV holds them all). */
  members: Schema.Array(OrgComplianceMember),
  members_pagination: Pagination,
})
export type OrgCompliance = typeof OrgCompliance.Type
/** GET /api/organizations/{id}/compliance/{framework_id}?unit=&tag=&page=&page_size= (the page is of `members`). */
export const OrgComplianceQuery = Schema.Struct({ ...FleetFilter.fields, ...MemberPageQuery.fields })
export type OrgComplianceQuery = typeof OrgComplianceQuery.Type
export const OrgComplianceResponse = withData(OrgCompliance)
export type OrgComplianceResponse = typeof OrgComplianceResponse.Type

/** GET …/compliance/{framework_id}/csv?part=: `requirements` (default: one row per requirement) or `members` (members × requirements). */
export const ORG_CSV_PARTS = ["requirements", "members"] as const
export const OrgComplianceCsvQuery = Schema.Struct({ ...FleetFilter.fields, part: Schema.optionalKey(Schema.Literals(ORG_CSV_PARTS)) })
export type OrgComplianceCsvQuery = typeof OrgComplianceCsvQuery.Type

export const orgComplianceFileName = (organizationId: number, frameworkId: string, kind: "requirements" | "members" | "pdf"): string =>
  kind === "pdf" ? `organization-${organizationId}-${frameworkId}-compliance.pdf` : `organization-${organizationId}-${frameworkId}-compliance-${kind}.csv`

// ---------------------------------------------------------------------------------------------------
// Selection rule (the server applies it on every sync; the SPA previews it)

/**
 * Whether a member is included: an excluded account never is; an included account always is (unless excluded); else a
 * member under an excluded unit is not; else with no included units every member is, otherwise only members under an
 * included unit. "Under" is the member's unit or any unit above it (`unitChain`: the member's unit first, then its
 * parents up to the top).
 */
export const memberIncluded = (cloudAccountId: string, unitChain: ReadonlyArray<string>, selection: MemberSelection): boolean => {
  if (selection.exclude_accounts.includes(cloudAccountId)) return false
  if (selection.include_accounts.includes(cloudAccountId)) return true
  if (unitChain.some((u) => selection.exclude_units.includes(u))) return false
  return selection.include_units.length === 0 || unitChain.some((u) => selection.include_units.includes(u))
}

/** The unit and its parents up to the top, from a parent map (a cycle or an unknown unit ends the chain). */
export const unitChainOf = (unitId: string, parentOf: ReadonlyMap<string, string | null>): ReadonlyArray<string> => {
  const chain: Array<string> = []
  let current: string | null | undefined = unitId
  while (current !== null && current !== undefined && !chain.includes(current)) {
    chain.push(current)
    current = parentOf.get(current)
  }
  return chain
}
