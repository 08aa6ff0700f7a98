/**
 * /dashboard/scans/:scanId/findings?service= (scanning §2 "Findings list"), rendered from `findingsListMachine`;
 * lazy-loaded as its own chunk. One service's findings with show/hide filters for severity and status (applied on the
 * client), 'Clear filters', 'Load more' (20 per page) and Export with the filters in force. An unknown service reads
 * 'Service "{name}" not found in this scan'.
 */
import { useMemo } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import { createColumnHelper } from "@tanstack/react-table"
import { CheckboxGroup, Label } from "react-aria-components"
import { useParams, useSearchParams } from "wouter"
import type { ActorRefFrom } from "xstate"
import { FINDING_OUTCOMES, SEVERITIES, type Finding, type FindingOutcome, type Severity } from "../../contracts/findings.ts"
import type { ScanId } from "../../contracts/ids.ts"
import { ScanningMessages, scanTitle } from "../../contracts/messages.ts"
import { findingPath, hasActiveFilters, type findingsListMachine } from "../../machines/findings-list.machine.ts"
import { scanPath } from "../../machines/scan-list.machine.ts"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { Checkbox } from "../ui/checkbox.tsx"
import { Link } from "../ui/link.tsx"
import { DataTable, useIsDesktop, type ScanTableFeatures } from "../ui/data-table.tsx"
import { ExportMenu } from "./export-menu.tsx"
import { ArrowLeftIcon, FilterIcon } from "../ui/icons.tsx"
import { useFindingsListLogic, useScanActorOptions } from "../scanning/scan-logic.ts"
import { ChangeBadges, ErrorBox, FindingStatusBadge, formatDateTime, LoadingBox, outcomeLabel, SeverityBadge } from "../scanning/scan-parts.tsx"
import * as css from "../scanning/scanning.css.ts"
import * as local from "./scans.css.ts"

type FindingsRef = ActorRefFrom<typeof findingsListMachine>

const helper = createColumnHelper<ScanTableFeatures, Finding>()
const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)

function Filters({ listRef }: { readonly listRef: FindingsRef }) {
  const filters = useSelector(listRef, (s) => s.context.filters)
  return (
    <div className={local.filters} id="finding-filters">
      <CheckboxGroup
        className={local.filterGroup}
        value={[...filters.severities]}
        onChange={(next) => {
          for (const severity of SEVERITIES) {
            if (next.includes(severity) !== filters.severities.includes(severity)) listRef.send({ type: "filter.severityToggled", severity })
          }
        }}
      >
        <Label className={local.filterLegend}>Severity</Label>
        <div className={local.filterOptions}>
          {SEVERITIES.map((s: Severity) => (
            <Checkbox key={s} value={s}>
              {capitalise(s)}
            </Checkbox>
          ))}
        </div>
      </CheckboxGroup>
      <CheckboxGroup
        className={local.filterGroup}
        value={[...filters.statuses]}
        onChange={(next) => {
          for (const status of FINDING_OUTCOMES) {
            if (next.includes(status) !== filters.statuses.includes(status)) listRef.send({ type: "filter.statusToggled", status })
          }
        }}
      >
        <Label className={local.filterLegend}>Status</Label>
        <div className={local.filterOptions}>
          {FINDING_OUTCOMES.map((s: FindingOutcome) => (
            <Checkbox key={s} value={s}>
              {outcomeLabel(s)}
            </Checkbox>
          ))}
        </div>
      </CheckboxGroup>
      <div className={local.filterGroup}>
        <span className={local.filterLegend}>Since last scan</span>
        <div className={local.filterOptions}>
          <Checkbox isSelected={filters.newOnly === true} onChange={() => listRef.send({ type: "filter.newOnlyToggled" })}>
            New failures only
          </Checkbox>
        </div>
      </div>
    </div>
  )
}

function FindingsTable({ findings, scanId, serviceName }: { readonly findings: ReadonlyArray<Finding>; readonly scanId: ScanId; readonly serviceName: string }) {
  const columns = useMemo(
    () =>
      helper.columns([
        helper.accessor("severity", { header: "Severity", cell: ({ getValue }) => <SeverityBadge severity={getValue()} /> }),
        helper.accessor("description", {
          header: "Finding",
          cell: ({ row }) => (
            <span className={local.findingDescription}>
              <Link href={findingPath(scanId, row.original.id, serviceName)}>{row.original.policy_check}</Link>
              <span className={css.muted}>{row.original.description}</span>
            </span>
          ),
        }),
        helper.accessor("outcome", { header: "Status", cell: ({ row }) => <FindingStatusBadge status={row.original.muted ? "muted" : row.original.outcome} reason={row.original.not_evaluated_reason} /> }),
        helper.display({
          id: "resources",
          header: "Resources",
          cell: ({ row }) => {
            const failing = row.original.resources_failing
            const checked = row.original.resources_checked
            return <span className={css.nowrap}>{row.original.outcome === "not_evaluated" && failing === 0 ? "Not evaluated" : checked === 0 ? "None" : `${failing} of ${checked} failing`}</span>
          },
        }),
        helper.display({
          id: "change",
          header: "Since last scan",
          cell: ({ row }) => <ChangeBadges fresh={row.original.resources_new} fixed={row.original.resources_fixed} />,
        }),
        helper.accessor("created_at", { header: "Found", cell: ({ getValue }) => <span className={css.nowrap}>{formatDateTime(getValue())}</span> }),
      ]),
    [scanId, serviceName],
  )
  return <DataTable label="Findings" columns={columns} data={findings} rowId={(f) => String(f.id)} />
}

function FindingCards({ findings, scanId, serviceName }: { readonly findings: ReadonlyArray<Finding>; readonly scanId: ScanId; readonly serviceName: string }) {
  return (
    <ul className={css.cardList} aria-label="Findings">
      {findings.map((f) => (
        <li key={f.id} className={css.itemCard}>
          <div className={css.itemCardHeader}>
            <SeverityBadge severity={f.severity} />
            <FindingStatusBadge status={f.muted ? "muted" : f.outcome} reason={f.not_evaluated_reason} />
            <ChangeBadges fresh={f.resources_new} fixed={f.resources_fixed} />
          </div>
          <Link href={findingPath(scanId, f.id, serviceName)}>{f.policy_check}</Link>
          <span className={css.muted}>{f.description}</span>
        </li>
      ))}
    </ul>
  )
}

function FindingsBody({ listRef, scanId, serviceName }: { readonly listRef: FindingsRef; readonly scanId: ScanId; readonly serviceName: string }) {
  const visible = useSelector(listRef, (s) => s.context.visible)
  const loadedCount = useSelector(listRef, (s) => s.context.findings.length)
  const total = useSelector(listRef, (s) => s.context.total)
  const filters = useSelector(listRef, (s) => s.context.filters)
  const filtersShown = useSelector(listRef, (s) => s.matches({ filterPanel: "shown" }))
  const canLoadMore = useSelector(listRef, (s) => s.can({ type: "findings.loadMoreRequested" }))
  const loadingMore = useSelector(listRef, (s) => s.matches({ list: { ready: "loadingMore" } }))
  const isDesktop = useIsDesktop()
  const active = hasActiveFilters(filters)

  return (
    <Card
      title="Findings"
      description={active ? `${visible.length} shown of ${loadedCount} loaded (${total} in total)` : `${loadedCount} loaded of ${total}`}
      actions={
        <>
          <Button
            variant="secondary"
            size="sm"
            aria-expanded={filtersShown}
            {...(filtersShown ? { "aria-controls": "finding-filters" } : {})}
            onPress={() => listRef.send({ type: "filters.toggled" })}
          >
            <FilterIcon size={14} />
            {filtersShown ? "Hide filters" : "Show filters"}
          </Button>
          {active ? (
            <Button variant="ghost" size="sm" onPress={() => listRef.send({ type: "filters.cleared" })}>
              Clear filters
            </Button>
          ) : null}
        </>
      }
    >
      {filtersShown ? <Filters listRef={listRef} /> : null}
      {visible.length === 0 ? (
        <div className={css.stateBox}>
          <p className={css.stateTitle}>{loadedCount === 0 ? "No findings for this service" : "No findings match the filters"}</p>
          {active ? (
            <Button variant="secondary" size="sm" onPress={() => listRef.send({ type: "filters.cleared" })}>
              Clear filters
            </Button>
          ) : null}
        </div>
      ) : isDesktop ? (
        <FindingsTable findings={visible} scanId={scanId} serviceName={serviceName} />
      ) : (
        <FindingCards findings={visible} scanId={scanId} serviceName={serviceName} />
      )}
      {canLoadMore || loadingMore ? (
        <div className={css.loadMore}>
          <Button variant="secondary" isPending={loadingMore} onPress={() => listRef.send({ type: "findings.loadMoreRequested" })}>
            Load more
          </Button>
        </div>
      ) : null}
    </Card>
  )
}

function Findings({ scanId, serviceName }: { readonly scanId: ScanId; readonly serviceName: string }) {
  const logic = useFindingsListLogic()
  const options = useScanActorOptions()
  const listRef = useActorRef(logic, { ...options, input: { scanId, serviceName } })
  const loading = useSelector(listRef, (s) => s.matches({ list: "loadingScan" }) || s.matches({ list: "loadingFindings" }))
  const missing = useSelector(listRef, (s) => s.matches({ list: "serviceMissing" }))
  const failed = useSelector(listRef, (s) => s.matches({ list: "failed" }))
  const error = useSelector(listRef, (s) => s.context.error)
  const exporting = useSelector(listRef, (s) => s.matches({ export: "exporting" }))
  const canExport = useSelector(listRef, (s) => s.can({ type: "export.requested", format: "csv" }) && s.matches({ list: "ready" }))

  return (
    <div className={css.page}>
      <div className={css.pageHeader}>
        <div className={css.titles}>
          <Link href={scanPath(scanId)} variant="subtle">
            <span className={css.titleRow}>
              <ArrowLeftIcon size={14} />
              {scanTitle(scanId)}
            </span>
          </Link>
          <h1 className={css.title}>{serviceName === "" ? "Findings" : `${serviceName} findings`}</h1>
        </div>
        <div className={css.actions}>
          <ExportMenu
            isDisabled={!canExport && !exporting}
            isPending={exporting}
            onExport={(format) => listRef.send({ type: "export.requested", format })}
          />
        </div>
      </div>
      {loading ? (
        <LoadingBox label="Loading findings" />
      ) : missing ? (
        <ErrorBox
          title={error ?? ""}
          message="Choose a service from the scan's results."
          actions={
            <Link href={scanPath(scanId)} variant="button">
              Back to the scan
            </Link>
          }
        />
      ) : failed ? (
        <ErrorBox
          title={ScanningMessages.errorLoadingScanDetailsTitle}
          message={error ?? ScanningMessages.errorLoadingScanDetails}
          actions={
            <Button variant="secondary" size="sm" onPress={() => listRef.send({ type: "findings.retryRequested" })}>
              Try again
            </Button>
          }
        />
      ) : (
        <FindingsBody listRef={listRef} scanId={scanId} serviceName={serviceName} />
      )}
    </div>
  )
}

export function FindingsView() {
  const { scanId = "" } = useParams<{ scanId: string }>()
  const [query] = useSearchParams()
  const serviceName = query.get("service") ?? ""
  const id = Number(scanId)
  if (!Number.isInteger(id) || id <= 0) {
    return <ErrorBox title={ScanningMessages.errorLoadingScanDetailsTitle} message={ScanningMessages.errorLoadingScanDetails} />
  }
  return <Findings key={`${id}:${serviceName}`} scanId={id as ScanId} serviceName={serviceName} />
}
