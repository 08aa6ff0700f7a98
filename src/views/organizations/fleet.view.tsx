/**
 * /dashboard/organizations/{organizationId}/fleet (beyond the spec, issue 31 item 4 "See the fleet"), rendered from
 * `fleetDashboardMachine`; lazy-loaded as its own chunk.
 *
 * - Totals with their units: member accounts (scanned, stale), failing resources, failed checks, risk points.
 * - Filters: unit (that unit and every unit under it), tag ("key" or "key:value"), sort (risk first by default).
 * - Members × severity: failing resources by severity, failed checks, risk, latest scan; stale members marked; each
 *   member links to its account page. One page of members (sorted by the server over all of them), Previous / Next.
 * - Compliance (src/views/organizations/fleet-compliance.tsx): per requirement of a framework, the members passing,
 *   failing and with exceptions, for the unit and tag chosen; the requirements and members CSVs and the PDF report.
 * - The fleet's trend: the last 30 days, members scanned, failing resources and failed checks by day.
 * - Links to the organisation page and the findings across its members.
 */
import { useMemo, useState } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import { createColumnHelper } from "@tanstack/react-table"
import { useParams } from "wouter"
import type { ActorRefFrom } from "xstate"
import { SEVERITIES } from "../../contracts/findings.ts"
import type { AccountId } from "../../contracts/ids.ts"
import { FLEET_SORTS, type FleetMember, type FleetSort } from "../../contracts/organizations.ts"
import { unitLabel } from "../../contracts/outcomes.ts"
import { organizationCrumbs } from "../../machines/breadcrumbs.ts"
import { accountPath } from "../../machines/dashboard-accounts.machine.ts"
import { fleetDashboardMachine, fleetUnits, hasFleetFilters, membersPage } from "../../machines/fleet-dashboard.machine.ts"
import { fleetFindingsPath } from "../../machines/fleet-effects.ts"
import { organizationPath } from "../../machines/organization-effects.ts"
import { scanPath } from "../../machines/scan-list.machine.ts"
import { Badge } from "../ui/badge.tsx"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { DataTable, useIsDesktop, type ScanTableFeatures } from "../ui/data-table.tsx"
import { Link } from "../ui/link.tsx"
import { Select, SelectItem } from "../ui/select.tsx"
import { TextField } from "../ui/text-field.tsx"
import { effectActor, useNotifyAction } from "../screen-actors.ts"
import { capitalise, CrumbTrail, DateTimeText, ErrorBox, Fact, LoadingBox } from "../scanning/scan-parts.tsx"
import * as shared from "../scanning/scanning.css.ts"
import { FleetCompliance, useComplianceLogic, type ComplianceRef } from "./fleet-compliance.tsx"
import { useFleetEffects } from "./fleet-effects-context.tsx"
import { useOrganizationEnvironment } from "./organization-effects-context.tsx"
import * as css from "./fleet.css.ts"
import { FleetPager } from "./fleet-pager.tsx"

type FleetRef = ActorRefFrom<typeof fleetDashboardMachine>

const SORT_LABELS: Readonly<Record<FleetSort, string>> = {
  risk: "Risk (highest first)",
  name: "Name",
  failing: "Failing resources (most first)",
  stale: "Stale first",
}
const ALL_UNITS = "__all__"

function useFleetLogic() {
  const fleet = useFleetEffects()
  const organizations = useOrganizationEnvironment().effects
  const notify = useNotifyAction()
  const compliance = useComplianceLogic()
  return useMemo(
    () =>
      fleetDashboardMachine.provide({
        actors: { loadFleet: effectActor(fleet.loadFleet), loadOrganization: effectActor(organizations.loadOrganization), fleetCompliance: compliance },
        actions: { notify },
      }),
    [fleet, organizations, notify, compliance],
  )
}

const helper = createColumnHelper<ScanTableFeatures, FleetMember>()

const memberColumns = [
  helper.accessor("account_name", {
    header: "Member account",
    cell: ({ row }) => (
      <span className={css.memberCell}>
        <Link href={accountPath(row.original.account_id)}>{row.original.account_name}</Link>
        <span className={shared.subtle}>{`${row.original.cloud_account_id} · ${row.original.unit_path}`}</span>
        {row.original.stale ? <Badge tone="warning">{row.original.latest_scan_id === null ? "Never scanned" : "Stale"}</Badge> : null}
      </span>
    ),
  }),
  ...SEVERITIES.map((s) =>
    helper.display({ id: s, header: capitalise(s), cell: ({ row }) => row.original.failing_resources[s].toLocaleString("en-US") }),
  ),
  helper.accessor("failing_resources_total", { header: "Failing resources", cell: ({ getValue }) => getValue().toLocaleString("en-US") }),
  helper.accessor("failed_checks_total", { header: "Failed checks", cell: ({ getValue }) => getValue().toLocaleString("en-US") }),
  helper.accessor("risk", { header: "Risk", cell: ({ getValue }) => getValue().toLocaleString("en-US") }),
  helper.display({
    id: "latest",
    header: "Latest scan",
    cell: ({ row }) =>
      row.original.latest_scan_id === null ? "None" : (
        <Link href={scanPath(row.original.latest_scan_id)}>
          <DateTimeText iso={row.original.latest_scan_at} />
        </Link>
      ),
  }),
]

function Filters({ fleetRef }: { readonly fleetRef: FleetRef }) {
  const filters = useSelector(fleetRef, (s) => s.context.filters)
  const tagError = useSelector(fleetRef, (s) => s.context.tagError)
  // Every unit of the organisation, from the dashboard's answer (never the page's members: one page of them).
  const units = useSelector(fleetRef, (s) => fleetUnits(s.context.dashboard))
  const canClear = useSelector(fleetRef, (s) => s.can({ type: "filters.cleared" }) && hasFleetFilters(s.context.filters))
  const [tag, setTag] = useState(filters.tag)
  return (
    <form
      className={css.filters}
      aria-label="Fleet filters"
      onSubmit={(e) => {
        e.preventDefault()
        fleetRef.send({ type: "filter.tagSubmitted", tag })
      }}
    >
      <Select
        label="Unit"
        className={css.filter}
        selectedKey={filters.unit ?? ALL_UNITS}
        onSelectionChange={(key) => fleetRef.send({ type: "filter.unitChanged", unit: key === ALL_UNITS ? null : String(key) })}
      >
        <SelectItem id={ALL_UNITS}>All units</SelectItem>
        {units.map((u) => (
          <SelectItem key={u.unit_id} id={u.unit_id}>
            {u.path}
          </SelectItem>
        ))}
      </Select>
      <div className={css.tagGroup}>
        <TextField
          label="Tag"
          className={css.tagField}
          description='"key" or "key:value"; Enter applies it'
          value={tag}
          onChange={setTag}
          isInvalid={tagError !== null}
          {...(tagError === null ? {} : { errorMessage: tagError })}
        />
        <Button type="submit" variant="secondary" className={css.besideField}>
          Apply tag
        </Button>
      </div>
      <Select
        label="Sort"
        className={css.filter}
        selectedKey={filters.sort}
        onSelectionChange={(key) => fleetRef.send({ type: "sort.changed", sort: key as FleetSort })}
      >
        {FLEET_SORTS.map((s) => (
          <SelectItem key={s} id={s}>
            {SORT_LABELS[s]}
          </SelectItem>
        ))}
      </Select>
      {canClear ? (
        <Button
          variant="ghost"
          className={css.besideField}
          onPress={() => {
            setTag("")
            fleetRef.send({ type: "filters.cleared" })
          }}
        >
          Clear filters
        </Button>
      ) : null}
    </form>
  )
}

function Totals({ fleetRef }: { readonly fleetRef: FleetRef }) {
  const totals = useSelector(fleetRef, (s) => s.context.dashboard?.totals ?? null)
  const staleDays = useSelector(fleetRef, (s) => s.context.dashboard?.stale_days ?? 0)
  if (totals === null) return null
  return (
    <dl className={css.totals} aria-label="Fleet totals">
      <Fact label="Members">{unitLabel(totals.members, "members")}</Fact>
      <Fact label="Scanned">{unitLabel(totals.members_scanned, "members")}</Fact>
      <Fact label={`Stale (no scan in ${staleDays} days)`}>{unitLabel(totals.members_stale, "members")}</Fact>
      <Fact label="Failing resources">{unitLabel(totals.failing_resources_total, "failingResources")}</Fact>
      <Fact label="Failed checks">{unitLabel(totals.failed_checks_total, "failedChecks")}</Fact>
      <Fact label="Risk">{unitLabel(totals.risk, "riskPoints")}</Fact>
    </dl>
  )
}

function Trend({ fleetRef }: { readonly fleetRef: FleetRef }) {
  const trend = useSelector(fleetRef, (s) => s.context.dashboard?.trend ?? [])
  // Newest first: the day a reader looks for is today.
  const days = [...trend].reverse()
  return (
    <Card title="Trend" level={2} description={`The last ${trend.length} days: every member counted by its latest completed scan at the end of the day (UTC).`}>
      <div className={css.trendWrap} tabIndex={0} role="region" aria-label="Fleet trend by day, scrollable">
        <table className={css.trendTable}>
          <thead>
            <tr>
              <th scope="col" className={shared.th}>Day</th>
              <th scope="col" className={shared.th}>Member accounts scanned</th>
              <th scope="col" className={shared.th}>Failing resources</th>
              <th scope="col" className={shared.th}>Failed checks</th>
            </tr>
          </thead>
          <tbody>
            {days.map((p) => (
              <tr key={p.day}>
                <td className={shared.td}>{p.day}</td>
                <td className={shared.td}>{p.members_scanned.toLocaleString("en-US")}</td>
                <td className={shared.td}>{p.failing_resources.toLocaleString("en-US")}</td>
                <td className={shared.td}>{p.failed_checks.toLocaleString("en-US")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Card>
  )
}

function MembersPager({ fleetRef }: { readonly fleetRef: FleetRef }) {
  const page = useSelector(fleetRef, (s) => membersPage(s.context.dashboard), (a, b) => a.page === b.page && a.pageCount === b.pageCount && a.first === b.first && a.last === b.last && a.total === b.total)
  return <FleetPager label="Member pages" noun="Members" page={page} onPage={(p) => fleetRef.send({ type: "page.requested", page: p })} />
}

function Members({ fleetRef }: { readonly fleetRef: FleetRef }) {
  const members = useSelector(fleetRef, (s) => s.context.dashboard?.members ?? [])
  const busy = useSelector(fleetRef, (s) => s.matches("refreshing"))
  const sort = useSelector(fleetRef, (s) => s.context.filters.sort)
  const sortColumn = sort === "name" ? "account_name" : sort === "failing" ? "failing_resources_total" : sort === "risk" ? "risk" : "latest"
  const isDesktop = useIsDesktop()
  if (!isDesktop) {
    return (
      <>
        {members.length === 0 ? (
          <p className={shared.muted}>No member account matches these filters.</p>
        ) : (
          <ul className={shared.cardList} aria-label="Member accounts by failing resources per severity" aria-busy={busy}>
            {members.map((m) => (
              <li key={m.account_id} className={shared.itemCard}>
                <div className={shared.itemCardHeader}>
                  <span className={css.memberCell}>
                    <Link href={accountPath(m.account_id)}>{m.account_name}</Link>
                    <span className={shared.subtle}>{`${m.cloud_account_id} · ${m.unit_path}`}</span>
                  </span>
                  {m.stale ? <Badge tone="warning">{m.latest_scan_id === null ? "Never scanned" : "Stale"}</Badge> : null}
                </div>
                <dl className={css.cardFigures}>
                  <Fact label="Risk">{m.risk.toLocaleString("en-US")}</Fact>
                  <Fact label="Failing resources">{m.failing_resources_total.toLocaleString("en-US")}</Fact>
                  <Fact label="Failed checks">{m.failed_checks_total.toLocaleString("en-US")}</Fact>
                </dl>
                <span className={shared.muted}>
                  {SEVERITIES.map((sv) => `${capitalise(sv)} ${m.failing_resources[sv].toLocaleString("en-US")}`).join(" · ")}
                </span>
                <span className={shared.muted}>
                  {"Latest scan: "}
                  {m.latest_scan_id === null ? "None" : (
                    <Link href={scanPath(m.latest_scan_id)}>
                      <DateTimeText iso={m.latest_scan_at} />
                    </Link>
                  )}
                </span>
              </li>
            ))}
          </ul>
        )}
        <MembersPager fleetRef={fleetRef} />
      </>
    )
  }
  return (
    <>
      <DataTable
        label="Member accounts by failing resources per severity"
        columns={memberColumns}
        data={members}
        rowId={(m) => String(m.account_id)}
        endColumns={[...SEVERITIES, "failing_resources_total", "failed_checks_total", "risk"]}
        busy={busy}
        sortedBy={{ column: sortColumn, direction: sort === "name" ? "asc" : "desc" }}
        empty="No member account matches these filters."
      />
      <MembersPager fleetRef={fleetRef} />
    </>
  )
}

export function FleetView() {
  const params = useParams<{ organizationId: string }>()
  const organizationId = Number(params.organizationId) as AccountId
  const fleetRef = useActorRef(useFleetLogic(), { input: { organizationId } })
  const loading = useSelector(fleetRef, (s) => s.matches("loading"))
  const failed = useSelector(fleetRef, (s) => s.matches("failed"))
  const error = useSelector(fleetRef, (s) => s.context.error)
  const name = useSelector(fleetRef, (s) => s.context.organization?.account_name ?? null)
  const complianceRef = useSelector(fleetRef, (s) => s.children["compliance"] as ComplianceRef | undefined)
  return (
    <div className={shared.page}>
      <CrumbTrail crumbs={organizationCrumbs(organizationId, name, "Fleet")} />
      <header className={shared.pageHeader}>
        <div className={shared.titles}>
          <h1 className={shared.title}>{name === null ? "Fleet" : `Fleet of ${name}`}</h1>
          <p className={shared.subtitle}>Member accounts by their latest completed scan.</p>
        </div>
        <div className={shared.actions}>
          <Link href={organizationPath(organizationId)}>Organization</Link>
          <Link href={fleetFindingsPath(organizationId)}>Findings across members</Link>
        </div>
      </header>
      {loading ? <LoadingBox label="Loading the fleet" /> : null}
      {failed ? (
        <ErrorBox
          title="The fleet could not be loaded"
          message={error ?? ""}
          actions={<Button onPress={() => fleetRef.send({ type: "fleet.retryRequested" })}>Retry</Button>}
        />
      ) : null}
      {loading || failed ? null : (
        <>
          <Totals fleetRef={fleetRef} />
          <Card title="Members" level={2} description="Each member account by its latest completed scan, sorted as chosen over all of them, a page at a time.">
            <Filters fleetRef={fleetRef} />
            <Members fleetRef={fleetRef} />
          </Card>
          {complianceRef === undefined ? null : <FleetCompliance complianceRef={complianceRef} />}
          <Trend fleetRef={fleetRef} />
        </>
      )}
    </div>
  )
}
