/**
 * /dashboard/scans/:scanId/findings/:findingId?service= (scanning §2 "Finding detail"), rendered from
 * `findingDetailMachine`; lazy-loaded as its own chunk. Breadcrumbs Dashboard > Scans > Scan #id > Findings >
 * Finding #id; the finding's facts and guidance; the details table honouring `field_labels` (5 array items, 150 → 97
 * character strings with a length note) with a remediation button per row ('Remediate' on non-compliant rows without a
 * record, else 'View Success' / 'View Remediated' / 'View Error' / 'View Status'); the remediation dialog (with the
 * fix's preview) and, beyond the spec (issue 32), the Remediation history card with Undo. A failed
 * load offers Retry and Go Back.
 * Beyond the spec, the table shows one server page of the rows (failing first): a resource id search, a status filter
 * (all, failing, passing, remediated) and Previous / Next with the position, so a finding of 100,000 resources stays
 * responsive.
 */
import { useMemo } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import { createColumnHelper, type ColumnDef } from "@tanstack/react-table"
import { useParams, useSearchParams } from "wouter"
import type { ActorRefFrom } from "xstate"
import { remediationAction, type DetailRow, type DetailStatus, type Finding } from "../../contracts/findings.ts"
import type { FindingId, ScanId } from "../../contracts/ids.ts"
import { failingResources, HistoryMessages, unitLabel } from "../../contracts/outcomes.ts"
import { DetailPaging } from "../../contracts/constants.ts"
import { findingTitle, ScanningMessages, scanTitle } from "../../contracts/messages.ts"
import { lastDetailsPage, selectAccountRetired, selectCanRemediate, type findingDetailMachine } from "../../machines/finding-detail.machine.ts"
import { OrganizationMessages } from "../../contracts/organizations.ts"
import { findingsPath } from "../../machines/scan-detail.machine.ts"
import { scanPath } from "../../machines/scan-list.machine.ts"
import { Badge } from "../ui/badge.tsx"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { Select, SelectItem } from "../ui/select.tsx"
import { TextField } from "../ui/text-field.tsx"
import { DataTable, type ScanTableFeatures } from "../ui/data-table.tsx"
import { withBreaks } from "../ui/identifier.tsx"
import { detailColumns, displayDetailValue } from "./detail-values.ts"
import { useFindingDetailLogic, useScanActorOptions } from "../scanning/scan-logic.ts"
import {
  CrumbTrail,
  ErrorBox,
  Fact,
  FindingStatusBadge,
  formatDateTime,
  localToday,
  GatedButton,
  LoadingBox,
  SeverityBadge,
  type Crumb,
} from "../scanning/scan-parts.tsx"
import * as css from "../scanning/scanning.css.ts"
import { RemediationDialog, type RemediationRef } from "./remediation-dialog.tsx"
import { MuteDialog } from "./mute-dialog.tsx"
import { FindingJiraCard } from "./finding-jira-card.tsx"
import { RemediationHistoryCard, type RemediationHistoryRef } from "./remediation-history-card.tsx"
import type { MuteRuleFormRef } from "../accounts/mute-rule-form-dialog.tsx"
import { PostureMessages, resourcePath } from "../../contracts/posture.ts"
import { Link } from "../ui/link.tsx"
import * as local from "./scans.css.ts"

type FindingRef = ActorRefFrom<typeof findingDetailMachine>

/** One row with its index (the machine addresses rows by index). */
interface IndexedRow {
  readonly index: number
  readonly row: DetailRow
}

const helper = createColumnHelper<ScanTableFeatures, IndexedRow>()

export function DetailValue({ value }: { readonly value: unknown }) {
  const shown = displayDetailValue(value)
  switch (shown.kind) {
    case "empty":
      return <span className={css.subtle}>—</span>
    case "list":
      return (
        <>
          <ul className={local.valueList}>
            {shown.items.map((item, i) => (
              <li key={i}>{item}</li>
            ))}
          </ul>
          {shown.more === undefined ? null : <span className={local.lengthNote}>{shown.more}</span>}
        </>
      )
    default:
      return (
        <span {...(shown.title === undefined ? {} : { title: shown.title })}>
          {withBreaks(shown.text)}
          {shown.note === undefined ? null : <span className={local.lengthNote}>{shown.note}</span>}
        </span>
      )
  }
}

function RemediationButton({ findingRef, entry }: { readonly findingRef: FindingRef; readonly entry: IndexedRow }) {
  const canRemediate = useSelector(findingRef, selectCanRemediate)
  const viewerKnown = useSelector(findingRef, (s) => s.matches({ viewer: "ready" }))
  const superseded = useSelector(findingRef, (s) => s.context.finding?.superseded === true)
  const retired = useSelector(findingRef, selectAccountRetired)
  const action = remediationAction(entry.row)
  const rowIndex = entry.index
  if (action === null) return <span className={css.subtle}>—</span>
  // A superseded scan keeps what it reported (docs/outcomes.md "History"): remediate from the latest scan.
  if (action === "Remediate" && superseded) return <span className={css.subtle}>—</span>
  // A member retired from its organisation is no longer acted in (issue 31): the page says why, above the table.
  if (action === "Remediate" && retired) return null
  if (action === "Remediate") {
    return (
      <GatedButton
        allowed={canRemediate || !viewerKnown}
        isDisabled={!viewerKnown}
        tooltip={ScanningMessages.remediatePermissionTooltip}
        size="sm"
        onBlockedPress={() => findingRef.send({ type: "row.remediateRequested", rowIndex })}
        onPress={() => findingRef.send({ type: "row.remediateRequested", rowIndex })}
      >
        Remediate
      </GatedButton>
    )
  }
  return (
    <Button variant="secondary" size="sm" onPress={() => findingRef.send({ type: "row.viewRequested", rowIndex })}>
      {action}
    </Button>
  )
}


/** Mute on a failing row that no rule mutes yet; a muted row's badge (the rule's reason as its title). */
function MuteButton({ findingRef, entry }: { readonly findingRef: FindingRef; readonly entry: IndexedRow }) {
  const canMute = useSelector(findingRef, selectCanRemediate)
  const superseded = useSelector(findingRef, (s) => s.context.finding?.superseded === true)
  const viewerKnown = useSelector(findingRef, (s) => s.matches({ viewer: "ready" }))
  if (entry.row.muted !== undefined) {
    return (
      <span title={entry.row.muted.reason}>
        <Badge tone="neutral">Muted</Badge>
      </span>
    )
  }
  if (entry.row.compliance !== false) return null
  if (superseded) return null
  const rowIndex = entry.index
  return (
    <GatedButton
      variant="secondary"
      allowed={canMute || !viewerKnown}
      isDisabled={!viewerKnown}
      tooltip={PostureMessages.mutePermissionDenied}
      size="sm"
      onBlockedPress={() => findingRef.send({ type: "row.muteRequested", rowIndex, today: localToday() })}
      onPress={() => findingRef.send({ type: "row.muteRequested", rowIndex, today: localToday() })}
    >
      Mute
    </GatedButton>
  )
}

/** A row's compliance: Yes, No (with Muted and the rule's reason when a rule mutes it), or Not evaluated. */
function ComplianceCell({ row }: { readonly row: DetailRow }) {
  if (row.compliance === undefined) {
    return row["error_kind"] === undefined ? <span className={css.subtle}>—</span> : <Badge tone="warning">Not evaluated</Badge>
  }
  if (row.compliance) return <Badge tone="success">Yes</Badge>
  if (row.muted === undefined) return <Badge tone="danger">No</Badge>
  return (
    <span className={local.mutedCell} title={row.muted.reason}>
      <span className={local.badgeRow}>
        <Badge tone="danger">No</Badge>
        <Badge tone="neutral">Muted</Badge>
      </span>
      <span className={css.subtle}>{row.muted.reason}</span>
    </span>
  )
}

function DetailsTable({ findingRef, finding }: { readonly findingRef: FindingRef; readonly finding: Finding }) {
  const rows = useMemo(() => finding.details.map((row, index) => ({ index, row })), [finding.details])
  const columns = useMemo(() => {
    const data = detailColumns(finding.field_labels, finding.details).map(
      (c): ColumnDef<ScanTableFeatures, IndexedRow, any> =>
        helper.display({
          id: `field:${c.key}`,
          header: c.label,
          cell: ({ row }) => (
            <div className={local.detailCell}>
              <DetailValue value={row.original.row[c.key]} />
            </div>
          ),
        }),
    )
    return [
      ...data,
      helper.display({
        id: "compliance",
        header: "Compliant",
        cell: ({ row }) => <ComplianceCell row={row.original.row} />,
      }),
      // Only when the rows were compared with a previous scan (not on the account's first one).
      ...(finding.details.some((d) => d["delta"] === "new" || d["delta"] === "fixed" || d["delta"] === "unchanged") ? [helper.display({
        id: "change",
        header: "Since last scan",
        cell: ({ row }) =>
          row.original.row["delta"] === "new" ? (
            <Badge tone="danger">New</Badge>
          ) : row.original.row["delta"] === "fixed" ? (
            <Badge tone="success">Fixed</Badge>
          ) : (
            <span className={css.subtle}>—</span>
          ),
      })] : []),
      helper.display({
        id: "remediation",
        header: "Actions",
        cell: ({ row }) => (
          <span className={local.rowActions}>
            <RemediationButton findingRef={findingRef} entry={row.original} />
            <MuteButton findingRef={findingRef} entry={row.original} />
            {finding.account_id === undefined || typeof row.original.row["resource_uid"] !== "string" ? null : (
              <Link href={resourcePath(finding.account_id, row.original.row["resource_uid"])} aria-label={`History of ${String(row.original.row["resource_id"] ?? "this resource")}`}>
                History
              </Link>
            )}
          </span>
        ),
      }),
    ]
  }, [finding.field_labels, finding.details, finding.account_id, findingRef])
  return (
    <DataTable
      label="Affected resources"
      columns={columns}
      data={rows}
      rowId={(r) => String(r.index)}
      endColumns={["remediation"]}
      stickyEndColumn="remediation"
      empty={<span className={css.muted}>No resources were checked.</span>}
    />
  )
}

const STATUS_OPTIONS: ReadonlyArray<{ readonly id: DetailStatus | "all"; readonly label: string }> = [
  { id: "all", label: "All resources" },
  { id: "fail", label: "Failing" },
  { id: "pass", label: "Passing" },
  { id: "remediated", label: "Remediated" },
  { id: "new", label: "New since last scan" },
  { id: "muted", label: "Muted" },
]

const count = (n: number) => n.toLocaleString("en-US")

/** "Rows 51–100 of 3,000" for the page shown. */
export const rowsLabel = (finding: Pick<Finding, "details" | "details_pagination">): string => {
  const p = finding.details_pagination
  if (p === undefined) return `${count(finding.details.length)} rows`
  if (p.total === 0 || finding.details.length === 0) return `No rows of ${count(p.total)}`
  const first = (p.page - 1) * p.page_size + 1
  return `Rows ${count(first)}–${count(first + finding.details.length - 1)} of ${count(p.total)}`
}

function DetailsToolbar({ findingRef }: { readonly findingRef: FindingRef }) {
  const query = useSelector(findingRef, (s) => s.context.query)
  const fetching = useSelector(findingRef, (s) => s.matches({ detail: { loaded: "fetching" } }) || s.matches({ detail: { loaded: "debouncing" } }))
  return (
    <div className={local.detailsToolbar} aria-busy={fetching}>
      <TextField
        label="Search resources"
        placeholder="Resource id contains…"
        type="search"
        value={query.q}
        onChange={(q) => findingRef.send({ type: "details.searchChanged", q })}
        className={local.detailsSearch}
      />
      <Select
        label="Show"
        selectedKey={query.status ?? "all"}
        onSelectionChange={(key) => findingRef.send({ type: "details.statusChanged", status: key === "all" ? null : (key as DetailStatus) })}
        className={local.detailsStatus}
      >
        {STATUS_OPTIONS.map((o) => (
          <SelectItem key={o.id} id={o.id}>
            {o.label}
          </SelectItem>
        ))}
      </Select>
    </div>
  )
}

function DetailsPager({ findingRef, finding }: { readonly findingRef: FindingRef; readonly finding: Finding }) {
  const page = useSelector(findingRef, (s) => s.context.query.page)
  const last = lastDetailsPage(finding)
  return (
    <nav className={local.pager} aria-label="Resource pages">
      <span className={css.muted} aria-live="polite">
        {rowsLabel(finding)}
        {last > 1 ? ` · page ${count(page)} of ${count(last)}` : ""}
      </span>
      {last > 1 ? (
        <span className={local.pagerButtons}>
          <Button variant="secondary" size="sm" isDisabled={page <= 1} onPress={() => findingRef.send({ type: "details.pageRequested", page: page - 1 })}>
            Previous
          </Button>
          <Button variant="secondary" size="sm" isDisabled={page >= last} onPress={() => findingRef.send({ type: "details.pageRequested", page: page + 1 })}>
            Next
          </Button>
        </span>
      ) : null}
    </nav>
  )
}

function FindingBody({ findingRef, finding }: { readonly findingRef: FindingRef; readonly finding: Finding }) {
  const dialog = useSelector(findingRef, (s) => s.children.remediation as RemediationRef | undefined)
  const muteDialog = useSelector(findingRef, (s) => s.children["muteRule"] as MuteRuleFormRef | undefined)
  const history = useSelector(findingRef, (s) => s.children["remediationHistory"] as RemediationHistoryRef | undefined)
  const muteResource = useSelector(findingRef, (s) => s.context.muteTarget?.resourceId ?? null)
  const canMute = useSelector(findingRef, selectCanRemediate)
  const viewerKnown = useSelector(findingRef, (s) => s.matches({ viewer: "ready" }))
  return (
    <>
      <div className={css.pageHeader}>
        <div className={css.titles}>
          <div className={local.detailHeader}>
            <SeverityBadge severity={finding.severity} />
            <FindingStatusBadge status={finding.outcome} />
            {finding.muted ? <Badge tone="neutral">Muted</Badge> : null}
          </div>
          <h1 className={css.title}>{finding.policy_check}</h1>
          <p className={css.subtitle}>{finding.description}</p>
          {finding.not_evaluated_reason === null ? null : <p className={css.subtitle}>{finding.not_evaluated_reason}</p>}
          {finding.superseded === true ? <p className={css.subtitle}>{HistoryMessages.supersededNotice}</p> : null}
          {finding.account_retired === true ? <p className={css.subtitle}>{OrganizationMessages.memberRetiredRemediation}</p> : null}
        </div>
      </div>
      <Card title="Details">
        <dl className={css.facts}>
          <Fact label="Service">{finding.service_name}</Fact>
          <Fact label="Account">{finding.account_name}</Fact>
          <Fact label="Cloud account ID">{finding.aws_account_id ?? "N/A"}</Fact>
          <Fact label="Provider">{finding.cloud_provider_name}</Fact>
          <Fact label="Found">{formatDateTime(finding.created_at)}</Fact>
          <Fact label="Check">{finding.check_id}</Fact>
        </dl>
        {finding.remediation === null ? null : <p className={local.guidance}>{finding.remediation}</p>}
        {finding.compliance.length === 0 ? null : (
          <ul className={local.complianceRefs} aria-label="Compliance references">
            {finding.compliance.map((c) => (
              <li key={`${c.framework}:${c.control}`} className={local.complianceRef} {...(c.title === undefined ? {} : { title: c.title })}>
                {`${c.framework} ${c.control}`}
              </li>
            ))}
          </ul>
        )}
      </Card>
      <Card
        title="Affected resources"
        description={`${unitLabel(failingResources(finding), "failingResources")} of ${unitLabel(finding.resources_checked, "resources")} checked${
          finding.resources_remediated > 0 ? `, ${unitLabel(finding.resources_remediated, "remediatedResources")}` : ""
        }${finding.resources_muted > 0 ? `, ${unitLabel(finding.resources_muted, "mutedResources")}` : ""}${
          finding.resources_new > 0 ? `, ${unitLabel(finding.resources_new, "newFailingResources")}` : ""
        }${finding.resources_fixed > 0 ? `, ${unitLabel(finding.resources_fixed, "fixedResources")} since the last scan` : ""}`}
        actions={
          finding.superseded !== true && failingResources(finding) > 0 ? (
            <GatedButton
              variant="secondary"
              size="sm"
              allowed={canMute || !viewerKnown}
              isDisabled={!viewerKnown}
              tooltip={PostureMessages.mutePermissionDenied}
              onBlockedPress={() => findingRef.send({ type: "finding.muteRequested", today: localToday() })}
              onPress={() => findingRef.send({ type: "finding.muteRequested", today: localToday() })}
            >
              Mute check
            </GatedButton>
          ) : undefined
        }
      >
        {finding.resources_checked > DetailPaging.defaultPageSize || finding.resources_muted > 0 || (finding.details_pagination?.q ?? null) !== null || (finding.details_pagination?.status ?? null) !== null ? (
          <DetailsToolbar findingRef={findingRef} />
        ) : null}
        <DetailsTable findingRef={findingRef} finding={finding} />
        <DetailsPager findingRef={findingRef} finding={finding} />
      </Card>
      {history === undefined ? null : <RemediationHistoryCard historyRef={history} canUndo={canMute} viewerKnown={viewerKnown} />}
      <FindingJiraCard findingId={finding.id} canCreate={canMute} viewerKnown={viewerKnown} hasFailing={finding.superseded !== true && failingResources(finding) > 0} />
      {dialog === undefined ? null : <RemediationDialog dialogRef={dialog} guidance={finding.remediation} />}
      {muteDialog === undefined ? null : <MuteDialog dialogRef={muteDialog} resourceId={muteResource} accountName={finding.account_name} />}
    </>
  )
}

function FindingDetail({ scanId, findingId, serviceName, resource }: { readonly scanId: ScanId; readonly findingId: FindingId; readonly serviceName: string | null; readonly resource: string | null }) {
  const logic = useFindingDetailLogic()
  const options = useScanActorOptions()
  const findingRef = useActorRef(logic, { ...options, input: { scanId, findingId, serviceName, resource } })
  const finding = useSelector(findingRef, (s) => s.context.finding)
  const loading = useSelector(findingRef, (s) => s.matches({ detail: "loading" }))
  const failed = useSelector(findingRef, (s) => s.matches({ detail: "failed" }))
  const error = useSelector(findingRef, (s) => s.context.error)

  const crumbs: ReadonlyArray<Crumb> = [
    { label: "Dashboard", href: "/dashboard" },
    { label: "Scans", href: "/dashboard/scans" },
    { label: scanTitle(scanId), href: scanPath(scanId) },
    { label: "Findings", href: serviceName === null ? scanPath(scanId) : findingsPath(scanId, serviceName) },
    { label: findingTitle(findingId) },
  ]

  return (
    <div className={css.page}>
      <CrumbTrail crumbs={crumbs} />
      {loading ? (
        <LoadingBox label="Loading finding" />
      ) : failed || finding === null ? (
        <ErrorBox
          title={findingTitle(findingId)}
          message={error ?? ScanningMessages.loadFindingFailed}
          actions={
            <>
              <Button variant="secondary" size="sm" onPress={() => findingRef.send({ type: "finding.retryRequested" })}>
                Retry
              </Button>
              <Button variant="ghost" size="sm" onPress={() => findingRef.send({ type: "finding.backRequested" })}>
                Go Back
              </Button>
            </>
          }
        />
      ) : (
        <FindingBody findingRef={findingRef} finding={finding} />
      )}
    </div>
  )
}

export function FindingDetailView() {
  const { scanId = "", findingId = "" } = useParams<{ scanId: string; findingId: string }>()
  const [query] = useSearchParams()
  const service = query.get("service")
  const sid = Number(scanId)
  const fid = Number(findingId)
  if (!Number.isInteger(sid) || sid <= 0 || !Number.isInteger(fid) || fid <= 0) {
    return <ErrorBox title={ScanningMessages.loadFindingFailed} message={ScanningMessages.loadFindingFailed} />
  }
  return (
    <FindingDetail
      key={`${sid}:${fid}`}
      scanId={sid as ScanId}
      findingId={fid as FindingId}
      serviceName={service === null || service === "" ? null : service}
      resource={query.get("resource")}
    />
  )
}
