/**
 * /dashboard/scans/:scanId (scanning §2 "Scan detail"), rendered from `scanDetailMachine`; lazy-loaded as its own
 * chunk. Summary (provider, started, ended, status, total checks, passed, failed) with the severity breakdown of the
 * failed findings, the per-service table ('View findings' only for completed services; cards below 1024 px), Export
 * (CSV / JSON / OCSF) and Refresh. The scan is re-read every 10 s until it reaches a terminal status.
 */
import { useMemo } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import { createColumnHelper } from "@tanstack/react-table"
import { useParams } from "wouter"
import type { ActorRefFrom } from "xstate"
import { canViewFindings } from "../../contracts/common.ts"
import { SEVERITIES } from "../../contracts/findings.ts"
import type { ScanId } from "../../contracts/ids.ts"
import { unitLabel } from "../../contracts/outcomes.ts"
import { ScanningMessages, scanTitle } from "../../contracts/messages.ts"
import type { ScanService } from "../../contracts/scans.ts"
import { isTerminalStatus, type scanDetailMachine } from "../../machines/scan-detail.machine.ts"
import { isActiveScan, scanProgressPercent } from "../../machines/scan-list.machine.ts"
import type { SeverityBreakdown } from "../../machines/scan-effects.ts"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { Link } from "../ui/link.tsx"
import { Spinner } from "../ui/spinner.tsx"
import { DataTable, useIsDesktop, type ScanTableFeatures } from "../ui/data-table.tsx"
import { ExportMenu } from "./export-menu.tsx"
import { RefreshIcon } from "../ui/icons.tsx"
import { ProviderIcon } from "../scanning/scan-icons.tsx"
import { useScanActorOptions, useScanDetailLogic } from "../scanning/scan-logic.ts"
import { ChangeBadges, DateTimeText, ErrorBox, Fact, formatDateTime, LoadingBox, RunStatusBadge, ServicesProgress } from "../scanning/scan-parts.tsx"
import * as css from "../scanning/scanning.css.ts"
import * as local from "./scans.css.ts"

type ScanDetailRef = ActorRefFrom<typeof scanDetailMachine>

/** What a scan covered: "All regions and services", or the lists it was limited to. */
export const scopeLabel = (scope: { readonly regions: ReadonlyArray<string> | null; readonly services: ReadonlyArray<string> | null }): string =>
  scope.regions === null && scope.services === null
    ? "All regions and services"
    : [
        scope.regions === null ? "all regions" : `regions ${scope.regions.join(", ")}`,
        scope.services === null ? "all services" : `services ${scope.services.join(", ")}`,
      ].join("; ")

const helper = createColumnHelper<ScanTableFeatures, ScanService>()

function ViewFindingsButton({ detailRef, service }: { readonly detailRef: ScanDetailRef; readonly service: ScanService }) {
  const serviceName = service.service_name
  const allowed = useSelector(detailRef, (s) => s.can({ type: "service.findingsRequested", serviceName }))
  return (
    <Button
      variant="secondary"
      size="sm"
      isDisabled={!allowed}
      onPress={() => detailRef.send({ type: "service.findingsRequested", serviceName })}
      aria-label={`View findings of ${serviceName}`}
    >
      View findings
    </Button>
  )
}

function ServicesTable({ detailRef, services }: { readonly detailRef: ScanDetailRef; readonly services: ReadonlyArray<ScanService> }) {
  const columns = useMemo(
    () =>
      helper.columns([
        helper.accessor("service_name", { header: "Service", cell: ({ getValue }) => <strong>{getValue()}</strong> }),
        helper.accessor("status", { header: "Status", cell: ({ getValue }) => <RunStatusBadge status={getValue()} /> }),
        helper.accessor("findings_count", { header: "Findings" }),
        helper.accessor("passed_findings", { header: "Passed" }),
        helper.accessor("failed_findings", {
          header: "Failed",
          cell: ({ getValue }) => (getValue() > 0 ? <strong className={local.failedCount}>{getValue()}</strong> : getValue()),
        }),
        helper.accessor("not_evaluated_findings", { header: "Not evaluated" }),
        helper.display({
          id: "change",
          header: "Since last scan",
          cell: ({ row }) => <ChangeBadges fresh={row.original.new_failing} fixed={row.original.fixed} />,
        }),
        helper.accessor("last_scanned_at", {
          header: "Last scanned",
          cell: ({ getValue }) => <DateTimeText iso={getValue()} />,
        }),
        helper.display({
          id: "actions",
          header: "Actions",
          cell: ({ row }) => <ViewFindingsButton detailRef={detailRef} service={row.original} />,
        }),
      ]),
    [detailRef],
  )
  return (
    <DataTable
      label="Services"
      columns={columns}
      data={services}
      rowId={(s) => String(s.id)}
      endColumns={["actions", "findings_count", "passed_findings", "failed_findings", "not_evaluated_findings"]}
      empty={<span className={css.muted}>No services in this scan.</span>}
    />
  )
}

function ServiceCards({ detailRef, services }: { readonly detailRef: ScanDetailRef; readonly services: ReadonlyArray<ScanService> }) {
  return (
    <ul className={css.cardList} aria-label="Services">
      {services.map((service) => (
        <li key={service.id} className={local.serviceItem}>
          <div className={local.serviceMain}>
            <div className={css.itemCardHeader}>
              <strong>{service.service_name}</strong>
              <RunStatusBadge status={service.status} />
            </div>
            <span className={css.muted}>
              {`${unitLabel(service.findings_count, "checks")} · ${unitLabel(service.passed_findings, "passedChecks")} · `}
              <span className={service.failed_findings > 0 ? local.failedCount : undefined}>{unitLabel(service.failed_findings, "failedChecks")}</span>
              {service.not_evaluated_findings > 0 ? ` · ${unitLabel(service.not_evaluated_findings, "notEvaluatedChecks")}` : null}
              {service.muted_findings > 0 ? ` · ${unitLabel(service.muted_findings, "exceptionChecks")}` : null}
            </span>
            <ChangeBadges fresh={service.new_failing} fixed={service.fixed} />
          </div>
          <ViewFindingsButton detailRef={detailRef} service={service} />
        </li>
      ))}
    </ul>
  )
}

function BreakdownChart({ detailRef }: { readonly detailRef: ScanDetailRef }) {
  const breakdown = useSelector(detailRef, (s) => s.context.breakdown)
  const loading = useSelector(detailRef, (s) => s.matches({ breakdown: "loading" }))
  const unavailable = useSelector(detailRef, (s) => s.matches({ breakdown: "unavailable" }))
  const waiting = useSelector(detailRef, (s) => s.matches({ breakdown: "idle" }))
  return (
    <section className={local.breakdown} aria-labelledby="severity-heading">
      <h3 id="severity-heading" className={css.factLabel}>
        Failed findings by severity
      </h3>
      {breakdown !== null ? (
        <SeverityBars breakdown={breakdown} />
      ) : loading ? (
        <Spinner size="sm" aria-label="Loading severity breakdown" />
      ) : unavailable ? (
        <span className={css.muted}>The severity breakdown could not be loaded.</span>
      ) : waiting ? (
        <span className={css.muted}>Shown when the scan has finished.</span>
      ) : null}
    </section>
  )
}

export function SeverityBars({ breakdown }: { readonly breakdown: SeverityBreakdown }) {
  const max = Math.max(1, ...SEVERITIES.map((s) => breakdown[s]))
  return (
    <ul className={local.bars}>
      {SEVERITIES.map((severity) => (
        <li key={severity} className={local.barRow}>
          <span className={local.barLabel}>{severity.charAt(0).toUpperCase() + severity.slice(1)}</span>
          <span className={local.barTrack} aria-hidden="true">
            {/* No fill at 0: the fill's minimum width would read as "a few" (a red sliver beside Critical 0). */}
            {breakdown[severity] > 0 && (
              <span className={local.barFill({ severity })} style={{ width: `${(breakdown[severity] / max) * 100}%` }} />
            )}
          </span>
          <span className={local.barValue}>{breakdown[severity]}</span>
        </li>
      ))}
    </ul>
  )
}

function Summary({ detailRef }: { readonly detailRef: ScanDetailRef }) {
  const scan = useSelector(detailRef, (s) => s.context.scan)
  if (scan === null) return null
  return (
    <Card title="Summary" aria-label="Summary" actions={<RunStatusBadge status={scan.status} />}>
      <div className={local.summary}>
        <div className={css.fieldStack}>
          <dl className={css.facts}>
            <Fact label="Provider">
              <span className={css.titleRow}>
                <ProviderIcon name={scan.cloud_provider} size={22} />
                {scan.cloud_provider.toUpperCase()}
              </span>
            </Fact>
            <Fact label="Account">{scan.account_name}</Fact>
            <Fact label="Started">{formatDateTime(scan.scan_start)}</Fact>
            <Fact label="Ended">{formatDateTime(scan.scan_end)}</Fact>
            <Fact label="Started by">{scan.trigger === "schedule" ? "Schedule" : "A member"}</Fact>
            <Fact label="Scope">{scopeLabel(scan.scope)}</Fact>
          </dl>
          {isActiveScan(scan) ? (
            <ServicesProgress completed={scan.completed_services} total={scan.total_services} percent={scanProgressPercent(scan)} />
          ) : null}
          <dl className={css.stats}>
            <div className={css.stat}>
              <dt className={css.factLabel}>Total checks</dt>
              <dd className={css.statValue()}>{scan.findings_count}</dd>
            </div>
            <div className={css.stat}>
              <dt className={css.factLabel}>Passed checks</dt>
              <dd className={css.statValue({ tone: "success" })}>{scan.passed_findings}</dd>
            </div>
            <div className={css.stat}>
              <dt className={css.factLabel}>Failed checks</dt>
              <dd className={css.statValue({ tone: "danger" })}>{scan.failed_findings}</dd>
            </div>
            {scan.not_evaluated_findings > 0 ? (
              <div className={css.stat}>
                <dt className={css.factLabel}>Checks not evaluated</dt>
                <dd className={css.statValue()}>{scan.not_evaluated_findings}</dd>
              </div>
            ) : null}
            {scan.muted_findings > 0 ? (
              <div className={css.stat}>
                <dt className={css.factLabel}>Checks passed with exceptions</dt>
                <dd className={css.statValue()}>{scan.muted_findings}</dd>
              </div>
            ) : null}
          </dl>
          {scan.previous_scan_id === null ? null : (
            <p className={css.muted}>
              {`Since scan #${scan.previous_scan_id}: `}
              <strong>{unitLabel(scan.new_failing, "newFailingResources")}</strong>
              {", "}
              <strong>{unitLabel(scan.fixed, "fixedResources")}</strong>
            </p>
          )}
        </div>
        <BreakdownChart detailRef={detailRef} />
      </div>
    </Card>
  )
}

function ScanDetail({ scanId }: { readonly scanId: ScanId }) {
  const logic = useScanDetailLogic()
  const options = useScanActorOptions()
  const detailRef = useActorRef(logic, { ...options, input: { scanId } })
  const scan = useSelector(detailRef, (s) => s.context.scan)
  const loading = useSelector(detailRef, (s) => s.matches({ detail: "loading" }))
  const failed = useSelector(detailRef, (s) => s.matches({ detail: "failed" }))
  const missing = useSelector(detailRef, (s) => s.matches({ detail: "missing" }))
  const error = useSelector(detailRef, (s) => s.context.error)
  const refreshing = useSelector(detailRef, (s) => s.matches({ detail: "refreshing" }))
  const exporting = useSelector(detailRef, (s) => s.matches({ export: "exporting" }))
  const canExport = useSelector(detailRef, (s) => s.can({ type: "export.requested", format: "csv" }))
  const isDesktop = useIsDesktop()

  return (
    <div className={css.page}>
      <div className={css.pageHeader}>
        <div className={css.titles}>
          <h1 className={css.title}>{scanTitle(scanId)}</h1>
          <p className={css.subtitle}>
            {scan === null
              ? "Scan results by service."
              : isTerminalStatus(scan.status)
                ? `${scan.account_name} · ${scan.total_services} services`
                : `${scan.account_name} · refreshing every 10 seconds while the scan runs`}
          </p>
        </div>
        {missing ? null : <div className={css.actions}>
          <Button variant="secondary" isPending={refreshing} onPress={() => detailRef.send({ type: "scan.refreshRequested" })}>
            {refreshing ? null : <RefreshIcon size={16} />}
            Refresh
          </Button>
          {canExport ? (
            <Link href={`/dashboard/scans/${scanId}/findings`} variant="button">
              All findings
            </Link>
          ) : null}
          <ExportMenu
            isDisabled={!canExport && !exporting}
            isPending={exporting}
            onExport={(format) => detailRef.send({ type: "export.requested", format })}
          />
        </div>}
      </div>
      {loading ? (
        <LoadingBox label="Loading scan" />
      ) : missing ? (
        <ErrorBox
          title={ScanningMessages.errorLoadingScanDetailsTitle}
          message={error ?? ScanningMessages.errorLoadingScanDetails}
          actions={
            <Link href="/dashboard/scans" variant="button">
              Back to scans
            </Link>
          }
        />
      ) : failed || scan === null ? (
        <ErrorBox
          title={ScanningMessages.errorLoadingScanDetailsTitle}
          message={error ?? ScanningMessages.errorLoadingScanDetails}
          actions={
            <Button variant="secondary" size="sm" onPress={() => detailRef.send({ type: "scan.retryRequested" })}>
              Try again
            </Button>
          }
        />
      ) : (
        <>
          <Summary detailRef={detailRef} />
          <Card
            title="Services"
            description={`${scan.services.filter((s) => canViewFindings(s.status)).length} of ${scan.services.length} completed`}
          >
            {isDesktop ? (
              <ServicesTable detailRef={detailRef} services={scan.services} />
            ) : (
              <ServiceCards detailRef={detailRef} services={scan.services} />
            )}
          </Card>
        </>
      )}
    </div>
  )
}

export function ScanDetailView() {
  const { scanId = "" } = useParams<{ scanId: string }>()
  const id = Number(scanId)
  if (!Number.isInteger(id) || id <= 0) {
    return <ErrorBox title={ScanningMessages.errorLoadingScanDetailsTitle} message={ScanningMessages.errorLoadingScanDetails} />
  }
  return <ScanDetail key={id} scanId={id as ScanId} />
}
