/**
 * Compliance over an organisation (issue 31 "See the fleet"; contract `OrgCompliance` in
 * src/contracts/organizations.ts): for one framework, each member that is not retired (the fleet's filters apply) is
 * evaluated on its latest completed scan by the per-scan evaluation's own rule (`requirementStatusesOf`,
 * server/compliance/evaluate.ts: `requirementStatus`'s rule, the statuses `evaluateFramework` gives, over the same findings a scan's compliance
 * reads, only their status and counts: `scansCheckFacts`; the member's counts are `countStatuses` of them), and each
 * requirement counts the members by the status it has there (unit: member accounts). A member without a completed
 * scan counts as `not_scanned`, never as failed or not evaluated. So the organisation's numbers are sums of the
 * members' own compliance answers (tests/organizations/org-compliance.test.ts holds them equal).
 *
 * The CSV comes in two parts (`part`): `requirements`, one row per requirement with its member counts; `members`, one
 * row per member with its framework counts and score, then one column per requirement holding its status there. The
 * PDF (server/compliance/pdf.ts `renderOrganizationReport`) draws the same evaluation.
 *
 * Fails with NotFound only: organisation, unit, framework, or a framework of another provider than the organisation's.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { ComplianceMessages, type RequirementStatus } from "../../src/contracts/compliance.ts"
import { NotFound } from "../../src/contracts/errors.ts"
import type { AccountId, ScanId } from "../../src/contracts/ids.ts"
import {
  memberPageOf,
  memberPagination,
  ORG_FAILED_NAMED,
  type FleetFilter,
  type MemberPageQuery,
  type MemberStatusCounts,
  type OrgCompliance,
  type OrgComplianceMember,
  type OrgMemberRef,
  type OrgRequirement,
} from "../../src/contracts/organizations.ts"
import { countStatuses, type RequirementCheckFacts } from "../../src/contracts/outcomes.ts"
import { csvLine } from "../export/csv.ts"
import { fleetMembers, knownUnit, organizationAccount, readTogether, selectionWhere, type MemberSelection } from "../organizations/fleet.ts"
import { frameworkById, providerKeyOf } from "./catalogue.ts"
import { prepareFramework, requirementStatusesOf } from "./evaluate.ts"
import { checkFactsInto, scansCheckFacts, type Mutable, type StoredCheckFacts } from "./store.ts"

const emptyCounts = (): { -readonly [K in keyof MemberStatusCounts]: number } => ({
  passed: 0,
  passed_with_exceptions: 0,
  failed: 0,
  not_evaluated: 0,
  manual: 0,
  not_applicable: 0,
  not_scanned: 0,
})

/** The evaluation over every member the filters select: the API answers one page of it (`orgCompliancePage`). */
export interface OrgComplianceResult extends Omit<OrgCompliance, "members_pagination"> {
  /** Every member the filters select, by name. */
  readonly members: ReadonlyArray<OrgComplianceMember>
  /** Per member (in `members` order), each requirement's status in its latest scan (null: not scanned). */
  readonly matrix: ReadonlyArray<ReadonlyArray<RequirementStatus | null>>
  /** The organisation account's name and cloud id, for the PDF. */
  readonly organization_name: string
}

/**
 * The stored check facts (`scansCheckFacts`) of the latest completed scan of every member of the selection, read
 * alongside the members (by the same condition, not by their ids: no wait for them). A member whose latest scan
 * changed in between is read again by its scan (`organizationCompliance`).
 */
const selectionCheckFacts = Effect.fn("OrgCompliance.selectionCheckFacts")(function* (workspaceId: number, selection: MemberSelection) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ readonly id: number; readonly facts: Record<string, StoredCheckFacts> | string }>`
    SELECT s.id, s.check_outcomes AS facts FROM scans s
    WHERE s.workspace_id = ${workspaceId}
      AND s.id IN (SELECT a.latest_scan_id FROM accounts a WHERE ${selectionWhere(sql, workspaceId, selection)})`
  const out = new Map<number, Readonly<Record<string, StoredCheckFacts>>>()
  for (const r of rows) out.set(r.id, typeof r.facts === "string" ? (JSON.parse(r.facts) as Record<string, StoredCheckFacts>) : r.facts)
  return out
})

export const organizationCompliance = Effect.fn("OrgCompliance.evaluate")(function* (
  workspaceId: number,
  organizationId: number,
  frameworkId: string,
  filter: FleetFilter,
) {
  // The organisation, the unit, the members and their latest scans' facts are read at once (a foreign organisation is
  // NotFound first).
  const selection: MemberSelection = { organizationId, filter }
  const [org, , members, facts] = yield* readTogether([
    organizationAccount(workspaceId, organizationId),
    knownUnit(workspaceId, organizationId, filter),
    fleetMembers(workspaceId, selection, undefined, false),
    selectionCheckFacts(workspaceId, selection),
  ])
  const fw = frameworkById(frameworkId)
  if (fw === undefined) return yield* new NotFound({ message: ComplianceMessages.frameworkNotFound })
  if (fw.framework.provider !== providerKeyOf(org.cloud_provider_id)) return yield* new NotFound({ message: ComplianceMessages.frameworkNotForProvider })
  const prepared = prepareFramework(fw)
  const missed = members.flatMap((m) => (m.latest_scan_id === null || facts.has(m.latest_scan_id) ? [] : [m.latest_scan_id]))
  const outcomes = missed.length === 0 ? facts : new Map([...facts, ...(yield* scansCheckFacts(workspaceId, missed))])
  // One facts object refilled per check (`requirementStatusesOf` reads each at once): 500 members × 60 checks of
  // objects were a third of the evaluation's time.
  const scratch = { status: "pass", resources_checked: 0, resources_failing: 0, resources_remediated: 0, resources_muted: 0 } as Mutable<RequirementCheckFacts>
  // Members whose checks give the same evidence share one evaluation (and its counts).
  const memo = new Map<string, ReadonlyArray<RequirementStatus>>()
  const countsOf = new WeakMap<ReadonlyArray<RequirementStatus>, ReturnType<typeof countStatuses>>()
  const counts = fw.requirements.map(emptyCounts)
  // The first ORG_FAILED_NAMED failing members of each requirement (members come by name); `counts` counts them all.
  const failed = fw.requirements.map((): Array<OrgMemberRef> => [])
  const matrix: Array<ReadonlyArray<RequirementStatus | null>> = []
  const memberAnswers = members.map((m) => {
    if (m.latest_scan_id === null) {
      counts.forEach((c) => c.not_scanned++)
      matrix.push(fw.requirements.map(() => null))
      return { account_id: m.id as AccountId, account_name: m.account_name, cloud_account_id: m.cloud_account_id, unit_path: m.unit_path, scan_id: null, counts: null }
    }
    const facts = outcomes.get(m.latest_scan_id) ?? {}
    const statuses = requirementStatusesOf(prepared, (check) => {
      const f = facts[check]
      return f === undefined ? undefined : checkFactsInto(scratch, f)
    }, memo)
    let memberCounts = countsOf.get(statuses)
    if (memberCounts === undefined) {
      memberCounts = countStatuses(statuses)
      countsOf.set(statuses, memberCounts)
    }
    statuses.forEach((status, i) => {
      counts[i]![status]++
      if (status === "failed" && failed[i]!.length < ORG_FAILED_NAMED) failed[i]!.push({ account_id: m.id as AccountId, account_name: m.account_name })
    })
    matrix.push(statuses)
    return {
      account_id: m.id as AccountId,
      account_name: m.account_name,
      cloud_account_id: m.cloud_account_id,
      unit_path: m.unit_path,
      scan_id: m.latest_scan_id as ScanId,
      counts: memberCounts,
    }
  })
  const requirements = fw.requirements.map((r, i): OrgRequirement => ({
    id: r.id,
    section_id: r.section_id,
    title: r.title,
    assessment: r.assessment,
    members: counts[i]!,
    failed_members: failed[i]!,
  }))
  return {
    organization_account_id: organizationId as AccountId,
    framework: fw.framework,
    sections: fw.sections,
    unit: filter.unit ?? null,
    tag: filter.tag ?? null,
    members_total: members.length,
    members_scanned: members.filter((m) => m.latest_scan_id !== null).length,
    requirements,
    members: memberAnswers,
    matrix,
    organization_name: `${org.account_name} (${org.cloud_account_id})`,
  } satisfies OrgComplianceResult
})

/** The API's `OrgCompliance`: the evaluation without the matrix, with one page of its members (totals stay over all). */
export const orgCompliancePage = ({ matrix: _matrix, organization_name: _name, members, ...rest }: OrgComplianceResult, page: MemberPageQuery): OrgCompliance => {
  const members_pagination = memberPagination(members.length, page)
  return { ...rest, members: memberPageOf(members, members_pagination), members_pagination }
}

export const ORG_REQUIREMENTS_CSV_COLUMNS = [
  "framework",
  "version",
  "section",
  "requirement_id",
  "title",
  "assessment",
  "members_passed",
  "members_passed_with_exceptions",
  "members_failed",
  "members_not_evaluated",
  "members_manual",
  "members_not_applicable",
  "members_not_scanned",
  "members_total",
] as const

/** Part `requirements`: one row per requirement, its members by status (unit: member accounts). */
export const orgRequirementsCsv = (result: OrgComplianceResult): string => {
  const sectionTitle = new Map(result.sections.map((s) => [s.id, s.title]))
  return [
    csvLine(ORG_REQUIREMENTS_CSV_COLUMNS),
    ...result.requirements.map((r) =>
      csvLine([
        result.framework.name,
        result.framework.version,
        `${r.section_id} ${sectionTitle.get(r.section_id) ?? ""}`.trim(),
        r.id,
        r.title,
        r.assessment,
        r.members.passed,
        r.members.passed_with_exceptions,
        r.members.failed,
        r.members.not_evaluated,
        r.members.manual,
        r.members.not_applicable,
        r.members.not_scanned,
        result.members_total,
      ])),
  ].join("")
}

export const ORG_MEMBERS_CSV_COLUMNS = [
  "account_name",
  "cloud_account_id",
  "unit_path",
  "scan_id",
  "passed",
  "passed_with_exceptions",
  "failed",
  "not_evaluated",
  "manual",
  "not_applicable",
  "score",
] as const

/**
 * Part `members`: one row per member — its framework counts and score in its latest scan (empty when not scanned) —
 * then one column per requirement (headed by its id) holding its status there ("not_scanned" when not scanned).
 */
export const orgMembersCsv = (result: OrgComplianceResult): string =>
  [
    csvLine([...ORG_MEMBERS_CSV_COLUMNS, ...result.requirements.map((r) => r.id)]),
    ...result.members.map((m, i) =>
      csvLine([
        m.account_name,
        m.cloud_account_id,
        m.unit_path,
        m.scan_id ?? "",
        m.counts?.passed ?? "",
        m.counts?.passed_with_exceptions ?? "",
        m.counts?.failed ?? "",
        m.counts?.not_evaluated ?? "",
        m.counts?.manual ?? "",
        m.counts?.not_applicable ?? "",
        m.counts?.score ?? "",
        ...(result.matrix[i] ?? []).map((s) => s ?? "not_scanned"),
      ])),
  ].join("")
