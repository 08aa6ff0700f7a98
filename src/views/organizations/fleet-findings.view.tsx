/**
 * /dashboard/organizations/{organizationId}/findings (beyond the spec, issue 31 item 4 "findings across accounts"),
 * rendered from `fleetFindingsMachine`; lazy-loaded as its own chunk. The findings of the latest completed scan of
 * every member account, filtered on the server by account, unit, check, status, severity and service, 50 at a time
 * with 'Load more'; each row names its account and unit and links to the finding's page. Beyond that (issue 32 part 4),
 * once filtered to one check, a member holding remediate_findings fixes every failing resource of it across the listed
 * accounts as one batch ("Remediate all failing (N)", confirmed in ../remediations/bulk-remediation.tsx's dialog).
 */
import { useMemo, useState } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import { createColumnHelper } from "@tanstack/react-table"
import { useParams } from "wouter"
import type { ActorRefFrom } from "xstate"
import { FINDING_LIST_FILTERS, SEVERITIES, type Finding, type Severity } from "../../contracts/findings.ts"
import type { AccountId, ServiceId } from "../../contracts/ids.ts"
import { unitLabel } from "../../contracts/outcomes.ts"
import { fleetFindingsMachine, hasFleetFindingFilters, type FleetFindingStatus } from "../../machines/fleet-findings.machine.ts"
import { organizationCrumbs } from "../../machines/breadcrumbs.ts"
import { fleetPath } from "../../machines/fleet-effects.ts"
import { accountPath } from "../../machines/dashboard-accounts.machine.ts"
import { findingPath } from "../../machines/findings-list.machine.ts"
import { organizationPath } from "../../machines/organization-effects.ts"
import { Card } from "../ui/card.tsx"
import { Button } from "../ui/button.tsx"
import { DataTable, useIsDesktop, type ScanTableFeatures } from "../ui/data-table.tsx"
import { Link } from "../ui/link.tsx"
import { Select, SelectItem } from "../ui/select.tsx"
import { TextField } from "../ui/text-field.tsx"
import { effectActor, useNotifyAction } from "../screen-actors.ts"
import { useScanEnvironment } from "../scanning/scan-effects-context.tsx"
import { CrumbTrail, ErrorBox, FindingStatusBadge, LoadingBox, outcomeLabel, SeverityBadge } from "../scanning/scan-parts.tsx"
import * as shared from "../scanning/scanning.css.ts"
import { useOrganizationEnvironment } from "./organization-effects-context.tsx"
import * as css from "./fleet.css.ts"
import { checkScopeOf } from "../../machines/bulk-remediation.machine.ts"
import { BulkRemediationDialog, useBulkRemediation, useSelectionOffered, type BulkRef } from "../remediations/bulk-remediation.tsx"

type FindingsRef = ActorRefFrom<typeof fleetFindingsMachine>

const ANY = "__any__"

function useFleetFindingsLogic() {
  const scans = useScanEnvironment().effects
  const organizations = useOrganizationEnvironment().effects
  const notify = useNotifyAction()
  return useMemo(
    () =>
      fleetFindingsMachine.provide({
        actors: { loadOrganization: effectActor(organizations.loadOrganization), listFindings: effectActor(scans.listFindings) },
        actions: { notify },
      }),
    [scans, organizations, notify],
  )
}

const helper = createColumnHelper<ScanTableFeatures, Finding>()

const columns = [
  helper.accessor("policy_check", {
    header: "Check",
    cell: ({ row }) =>
      row.original.scan_id === undefined ? row.original.policy_check : (
        <Link href={findingPath(row.original.scan_id, row.original.id, row.original.service_name)}>{row.original.policy_check}</Link>
      ),
  }),
  helper.accessor("account_name", {
    header: "Account",
    cell: ({ row }) => (
      <span className={css.memberCell}>
        {row.original.account_id === undefined ? row.original.account_name : <Link href={accountPath(row.original.account_id)}>{row.original.account_name}</Link>}
        <span className={shared.subtle}>{row.original.aws_account_id ?? ""}</span>
      </span>
    ),
  }),
  helper.display({ id: "unit", header: "Unit", cell: ({ row }) => row.original.org_unit_path ?? "—" }),
  helper.accessor("service_name", { header: "Service" }),
  helper.accessor("severity", { header: "Severity", cell: ({ getValue }) => <SeverityBadge severity={getValue()} /> }),
  helper.accessor("outcome", {
    header: "Status",
    cell: ({ row }) => <FindingStatusBadge status={row.original.muted ? "muted" : row.original.outcome} reason={row.original.not_evaluated_reason} />,
  }),
  helper.display({ id: "failing", header: "Failing resources", cell: ({ row }) => row.original.resources_failing.toLocaleString("en-US") }),
]

function Filters({ findingsRef }: { readonly findingsRef: FindingsRef }) {
  const filters = useSelector(findingsRef, (s) => s.context.filters)
  const organization = useSelector(findingsRef, (s) => s.context.organization)
  const services = useSelector(findingsRef, (s) => s.context.services)
  const canClear = useSelector(findingsRef, (s) => s.can({ type: "filters.cleared" }) && hasFleetFindingFilters(s.context.filters))
  const [check, setCheck] = useState(filters.check)
  const members = (organization?.members ?? []).filter((m) => m.account_id !== null && m.retired_at === null)
  return (
    <form
      className={css.filters}
      aria-label="Findings filters"
      onSubmit={(e) => {
        e.preventDefault()
        findingsRef.send({ type: "filter.checkSubmitted", text: check })
      }}
    >
      <Select
        label="Account"
        className={css.filter}
        selectedKey={filters.accountId === null ? ANY : String(filters.accountId)}
        onSelectionChange={(key) => findingsRef.send({ type: "filter.accountChanged", accountId: key === ANY ? null : (Number(key) as AccountId) })}
      >
        <SelectItem id={ANY}>All member accounts</SelectItem>
        {members.map((m) => (
          <SelectItem key={m.account_id} id={String(m.account_id)} textValue={`${m.name} (${m.cloud_account_id})`}>
            {`${m.name} · ${m.cloud_account_id}`}
          </SelectItem>
        ))}
      </Select>
      <Select
        label="Unit"
        className={css.filter}
        selectedKey={filters.unit ?? ANY}
        onSelectionChange={(key) => findingsRef.send({ type: "filter.unitChanged", unit: key === ANY ? null : String(key) })}
      >
        <SelectItem id={ANY}>All units</SelectItem>
        {(organization?.units ?? []).map((u) => (
          <SelectItem key={u.unit_id} id={u.unit_id}>
            {u.path}
          </SelectItem>
        ))}
      </Select>
      <Select
        label="Status"
        className={css.filter}
        selectedKey={filters.status ?? ANY}
        onSelectionChange={(key) => findingsRef.send({ type: "filter.statusChanged", status: key === ANY ? null : (key as FleetFindingStatus) })}
      >
        <SelectItem id={ANY}>Any status</SelectItem>
        {FINDING_LIST_FILTERS.map((s) => (
          <SelectItem key={s} id={s}>
            {outcomeLabel(s)}
          </SelectItem>
        ))}
      </Select>
      <Select
        label="Severity"
        className={css.filter}
        selectedKey={filters.severity ?? ANY}
        onSelectionChange={(key) => findingsRef.send({ type: "filter.severityChanged", severity: key === ANY ? null : (key as Severity) })}
      >
        <SelectItem id={ANY}>Any severity</SelectItem>
        {SEVERITIES.map((s) => (
          <SelectItem key={s} id={s}>
            {outcomeLabel(s)}
          </SelectItem>
        ))}
      </Select>
      <Select
        label="Service"
        className={css.filter}
        selectedKey={filters.serviceId === null ? ANY : String(filters.serviceId)}
        onSelectionChange={(key) => findingsRef.send({ type: "filter.serviceChanged", serviceId: key === ANY ? null : (Number(key) as ServiceId) })}
      >
        <SelectItem id={ANY}>Any service</SelectItem>
        {services.map((s) => (
          <SelectItem key={s.id} id={String(s.id)}>
            {s.name}
          </SelectItem>
        ))}
      </Select>
      <TextField label="Check" className={css.filter} description="Check id or text; Enter applies it" value={check} onChange={setCheck} />
      <Button type="submit" variant="secondary">
        Apply check
      </Button>
      {canClear ? (
        <Button
          variant="ghost"
          onPress={() => {
            setCheck("")
            findingsRef.send({ type: "filters.cleared" })
          }}
        >
          Clear filters
        </Button>
      ) : null}
    </form>
  )
}

/** "Remediate all failing (N)": offered to members who may remediate once the list is filtered to one check. */
function RemediateCheck({ findingsRef, bulkRef }: { readonly findingsRef: FindingsRef; readonly bulkRef: BulkRef }) {
  const offered = useSelectionOffered(bulkRef)
  const idle = useSelector(findingsRef, (s) => s.matches("ready"))
  const scope = useSelector(findingsRef, (s) => checkScopeOf(s.context.filters.check, s.context.findings, s.context.nextCursor), (a, b) => JSON.stringify(a) === JSON.stringify(b))
  if (!offered || scope === null) return null
  return (
    <div className={shared.actions}>
      <Button isDisabled={!idle} onPress={() => bulkRef.send({ type: "check.remediateRequested", ...scope })}>
        {`Remediate all failing (${scope.resources.toLocaleString("en-US")})`}
      </Button>
      <span className={shared.muted}>{`${scope.checkId} in ${scope.accounts === 1 ? "1 account" : `${scope.accounts.toLocaleString("en-US")} accounts`}`}</span>
    </div>
  )
}

function Rows({ findingsRef }: { readonly findingsRef: FindingsRef }) {
  const findings = useSelector(findingsRef, (s) => s.context.findings)
  const total = useSelector(findingsRef, (s) => s.context.total)
  const accounts = useSelector(findingsRef, (s) => s.context.totals?.accounts ?? null)
  const busy = useSelector(findingsRef, (s) => s.matches("refreshing"))
  const canLoadMore = useSelector(findingsRef, (s) => s.can({ type: "findings.loadMoreRequested" }))
  const loadingMore = useSelector(findingsRef, (s) => s.matches("loadingMore"))
  const isDesktop = useIsDesktop()
  return (
    <>
      <p className={shared.muted} aria-live="polite">
        {`Showing ${findings.length.toLocaleString("en-US")} of ${unitLabel(total, "findings")}`}
        {accounts === null ? "" : ` in the latest scans of ${unitLabel(accounts, "members")}`}
      </p>
      {isDesktop || findings.length === 0 ? (
        <DataTable
          label="Findings across member accounts"
          columns={columns}
          data={findings}
          rowId={(f) => String(f.id)}
          endColumns={["failing"]}
          busy={busy}
          empty="No finding matches these filters."
        />
      ) : (
        // Below the desktop width a card per finding, so severity and status stay in view (no sideways scroll).
        <ul className={shared.cardList} aria-label="Findings across member accounts" aria-busy={busy}>
          {findings.map((f) => (
            <li key={f.id} className={shared.itemCard}>
              <div className={shared.itemCardHeader}>
                {f.scan_id === undefined ? f.policy_check : <Link href={findingPath(f.scan_id, f.id, f.service_name)}>{f.policy_check}</Link>}
              </div>
              <span>
                <SeverityBadge severity={f.severity} /> <FindingStatusBadge status={f.muted ? "muted" : f.outcome} reason={f.not_evaluated_reason} />
              </span>
              <span className={shared.muted}>
                {f.account_id === undefined ? f.account_name : <Link href={accountPath(f.account_id)}>{f.account_name}</Link>}
                {` · ${f.aws_account_id ?? ""} · ${f.org_unit_path ?? "—"}`}
              </span>
              <span className={shared.subtle}>{`${f.service_name} · ${unitLabel(f.resources_failing, "failingResources")}`}</span>
            </li>
          ))}
        </ul>
      )}
      {canLoadMore || loadingMore ? (
        <div className={shared.loadMore}>
          <Button variant="secondary" isPending={loadingMore} onPress={() => findingsRef.send({ type: "findings.loadMoreRequested" })}>
            Load more
          </Button>
        </div>
      ) : null}
    </>
  )
}

export function FleetFindingsView() {
  const params = useParams<{ organizationId: string }>()
  const organizationId = Number(params.organizationId) as AccountId
  const findingsRef = useActorRef(useFleetFindingsLogic(), { input: { organizationId } })
  const bulkRef = useBulkRemediation()
  const loading = useSelector(findingsRef, (s) => s.matches("loadingScope") || s.matches("listing"))
  const failed = useSelector(findingsRef, (s) => s.matches("failed"))
  const error = useSelector(findingsRef, (s) => s.context.error)
  const name = useSelector(findingsRef, (s) => s.context.organization?.account_name ?? null)
  return (
    <div className={shared.page}>
      <CrumbTrail crumbs={organizationCrumbs(organizationId, name, "Findings across members")} />
      <header className={shared.pageHeader}>
        <div className={shared.titles}>
          <h1 className={shared.title}>{name === null ? "Findings across members" : `Findings across ${name}`}</h1>
          <p className={shared.subtitle}>The latest completed scan of every member account.</p>
        </div>
        <div className={shared.actions}>
          <Link href={organizationPath(organizationId)}>Organization</Link>
          <Link href={fleetPath(organizationId)}>Fleet dashboard</Link>
        </div>
      </header>
      {failed ? (
        <ErrorBox
          title="The findings could not be loaded"
          message={error ?? ""}
          actions={<Button onPress={() => findingsRef.send({ type: "findings.retryRequested" })}>Retry</Button>}
        />
      ) : (
        <Card title="Findings" level={2} description="Each member account's latest completed scan.">
          <Filters findingsRef={findingsRef} />
          {loading ? null : <RemediateCheck findingsRef={findingsRef} bulkRef={bulkRef} />}
          {loading ? <LoadingBox label="Loading the findings" /> : <Rows findingsRef={findingsRef} />}
        </Card>
      )}
      <BulkRemediationDialog bulkRef={bulkRef} />
    </div>
  )
}
