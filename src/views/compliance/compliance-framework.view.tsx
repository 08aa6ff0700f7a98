/**
 * /dashboard/compliance/scans/:scanId/:frameworkId (issue 14), rendered from `complianceFrameworkMachine`: score and
 * statuses with the trend over the account's scans, the section tree, the filtered requirement table (cards below
 * 1024 px), the framework CSV and the PDF report (generate → progress → download).
 */
import { useMemo } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import { createColumnHelper } from "@tanstack/react-table"
import { ProgressBar, ToggleButton } from "react-aria-components"
import { useParams } from "wouter"
import type { ActorRefFrom } from "xstate"
import { REQUIREMENT_STATUS_LABELS, REQUIREMENT_STATUSES, type RequirementResult } from "../../contracts/compliance.ts"
import { unitLabel } from "../../contracts/outcomes.ts"
import type { ScanId } from "../../contracts/ids.ts"
import { complianceAccountPath, COMPLIANCE_PATH, requirementPath } from "../../machines/compliance-effects.ts"
import { inSection, visibleRequirements, type complianceFrameworkMachine, type StatusFilter } from "../../machines/compliance-framework.machine.ts"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { Link } from "../ui/link.tsx"
import { Select, SelectItem } from "../ui/select.tsx"
import { Spinner } from "../ui/spinner.tsx"
import { TextField } from "../ui/text-field.tsx"
import { DataTable, useIsDesktop, type ScanTableFeatures } from "../ui/data-table.tsx"
import { CrumbTrail, ErrorBox, LoadingBox, formatDateTime } from "../scanning/scan-parts.tsx"
import * as scanning from "../scanning/scanning.css.ts"
import { exceptionText, RequirementStatusBadge, StatusBar, TrendChart, scoreText } from "./compliance-parts.tsx"
import { useComplianceActorOptions, useComplianceFrameworkLogic } from "./compliance-logic.ts"
import * as css from "./compliance.css.ts"

type FrameworkRef = ActorRefFrom<typeof complianceFrameworkMachine>

const helper = createColumnHelper<ScanTableFeatures, RequirementResult>()

/** Failing and muted resources, each with its unit (failing never includes muted: docs/outcomes.md). */
const failingText = (r: RequirementResult): string =>
  r.resources_failing === 0 && r.resources_muted === 0
    ? "—"
    : [r.resources_failing > 0 ? unitLabel(r.resources_failing, "failingResources") : null, r.resources_muted > 0 ? unitLabel(r.resources_muted, "mutedResources") : null]
      .filter((x) => x !== null).join(", ")

function OpenButton({ frameworkRef, requirement }: { readonly frameworkRef: FrameworkRef; readonly requirement: RequirementResult }) {
  return (
    <Button
      variant="secondary"
      size="sm"
      aria-label={`View requirement ${requirement.id}`}
      onPress={() => frameworkRef.send({ type: "requirement.opened", requirementId: requirement.id })}
    >
      View
    </Button>
  )
}

/** A requirement's id, as the link to its page. */
function RequirementLink({ frameworkRef, requirement }: { readonly frameworkRef: FrameworkRef; readonly requirement: RequirementResult }) {
  const href = useSelector(frameworkRef, (s) => requirementPath(s.context.scanId, s.context.frameworkId, requirement.id))
  return (
    <Link href={href} className={scanning.nowrap}>
      <strong>{requirement.id}</strong>
    </Link>
  )
}

function RequirementTable({ frameworkRef, rows }: { readonly frameworkRef: FrameworkRef; readonly rows: ReadonlyArray<RequirementResult> }) {
  const isDesktop = useIsDesktop()
  const columns = useMemo(
    () =>
      helper.columns([
        helper.accessor("id", { header: "Id", cell: ({ row }) => <RequirementLink frameworkRef={frameworkRef} requirement={row.original} /> }),
        helper.accessor("title", {
          header: "Requirement",
          cell: ({ row }) => (
            <div className={css.requirementTitle}>
              <div>{row.original.title}</div>
              {row.original.manual_reason === null ? null : <div className={css.reason}>{row.original.manual_reason}</div>}
              {row.original.not_evaluated_reasons.map((n) => <div key={n.check_id} className={css.reason}>{`Not evaluated: ${n.reason}`}</div>)}
              {row.original.exceptions.map((e) => <div key={`${e.check_id}-${e.rule_id}`} className={css.reason}>{exceptionText(e)}</div>)}
            </div>
          ),
        }),
        helper.accessor("status", { header: "Status", cell: ({ getValue }) => <RequirementStatusBadge status={getValue()} /> }),
        helper.display({ id: "failing", header: "Failing resources", cell: ({ row }) => failingText(row.original) }),
        helper.display({ id: "actions", header: "Actions", cell: ({ row }) => <OpenButton frameworkRef={frameworkRef} requirement={row.original} /> }),
      ]),
    [frameworkRef],
  )
  const empty = <span className={scanning.muted}>No requirement matches the filters.</span>
  if (isDesktop) {
    return <DataTable label="Requirements" columns={columns} data={rows} rowId={(r) => r.id} endColumns={["failing", "actions"]} empty={empty} />
  }
  return rows.length === 0 ? (
    empty
  ) : (
    <ul className={scanning.cardList} aria-label="Requirements">
      {rows.map((r) => (
        <li key={r.id} className={scanning.itemCard}>
          <div className={scanning.itemCardHeader}>
            <RequirementLink frameworkRef={frameworkRef} requirement={r} />
            <RequirementStatusBadge status={r.status} />
          </div>
          <span>{r.title}</span>
          <span className={scanning.muted}>{`Failing resources: ${failingText(r)}`}</span>
          <div>
            <OpenButton frameworkRef={frameworkRef} requirement={r} />
          </div>
        </li>
      ))}
    </ul>
  )
}

function SectionTree({ frameworkRef }: { readonly frameworkRef: FrameworkRef }) {
  const data = useSelector(frameworkRef, (s) => s.context.data)
  const selected = useSelector(frameworkRef, (s) => s.context.sectionFilter)
  if (data === null) return null
  const choose = (sectionId: string | null) => frameworkRef.send({ type: "filter.sectionChanged", sectionId })
  return (
    <nav aria-label="Sections">
      <ul className={css.tree}>
        <li>
          <ToggleButton className={css.treeItem({ depth: 0 })} isSelected={selected === null} onChange={() => choose(null)}>
            <span>All sections</span>
            <span>{data.requirements.length}</span>
          </ToggleButton>
        </li>
        {data.sections.map((s) => {
          const inIt = data.requirements.filter((r) => inSection(r, s.id))
          const failed = inIt.filter((r) => r.status === "failed").length
          return (
            <li key={s.id}>
              <ToggleButton
                className={css.treeItem({ depth: s.parent_id === null ? 0 : 1 })}
                isSelected={selected === s.id}
                onChange={() => choose(selected === s.id ? null : s.id)}
              >
                <span>{`${s.id} ${s.title}`}</span>
                <span title={`${failed} of ${inIt.length} requirements failed`}>{failed > 0 ? `${failed} failed / ${inIt.length}` : inIt.length}</span>
              </ToggleButton>
            </li>
          )
        })}
      </ul>
    </nav>
  )
}

function Filters({ frameworkRef }: { readonly frameworkRef: FrameworkRef }) {
  const status = useSelector(frameworkRef, (s) => s.context.statusFilter)
  const query = useSelector(frameworkRef, (s) => s.context.query)
  return (
    <div className={css.filters}>
      <Select
        label="Status"
        className={css.picker}
        selectedKey={status}
        onSelectionChange={(key) => frameworkRef.send({ type: "filter.statusChanged", status: String(key) as StatusFilter })}
      >
        <SelectItem id="all">All statuses</SelectItem>
        {REQUIREMENT_STATUSES.map((s) => (
          <SelectItem key={s} id={s}>
            {REQUIREMENT_STATUS_LABELS[s]}
          </SelectItem>
        ))}
      </Select>
      <TextField
        label="Search requirements"
        value={query}
        onChange={(value) => frameworkRef.send({ type: "filter.queryChanged", query: value })}
        placeholder="Id or title"
      />
    </div>
  )
}

function ReportActions({ frameworkRef }: { readonly frameworkRef: FrameworkRef }) {
  const report = useSelector(frameworkRef, (s) => s.context.report)
  const reportError = useSelector(frameworkRef, (s) => s.context.reportError)
  const phase = useSelector(frameworkRef, (s) =>
    s.matches({ report: "ready" }) ? "ready"
    : s.matches({ report: "downloading" }) ? "downloading"
    : s.matches({ report: "failed" }) ? "failed"
    : s.matches({ report: "idle" }) || s.matches({ report: "looking" }) ? "idle"
    : "working")
  const canRequest = useSelector(frameworkRef, (s) => s.can({ type: "report.requested" }))
  const csvBusy = useSelector(frameworkRef, (s) => s.matches({ csv: "downloading" }))
  const canCsv = useSelector(frameworkRef, (s) => s.can({ type: "csv.requested" }))
  return (
    <div className={css.progressRow}>
      <Button variant="secondary" isPending={csvBusy} isDisabled={!canCsv && !csvBusy} onPress={() => frameworkRef.send({ type: "csv.requested" })}>
        Download CSV
      </Button>
      {phase === "working" ? (
        <ProgressBar className={scanning.progress} value={report?.progress ?? 0} aria-label="Report progress">
          {({ percentage }) => (
            <>
              <div className={scanning.progressTrack}>
                <div className={scanning.progressFill} style={{ width: `${percentage ?? 0}%` }} />
              </div>
              <span className={scanning.progressLabel}>{`Generating PDF report… ${Math.round(percentage ?? 0)}%`}</span>
            </>
          )}
        </ProgressBar>
      ) : phase === "ready" || phase === "downloading" ? (
        <>
          <Button isPending={phase === "downloading"} onPress={() => frameworkRef.send({ type: "report.downloadRequested" })}>
            {`Download PDF (${report?.pages ?? 0} pages)`}
          </Button>
          <Button variant="ghost" size="sm" isDisabled={phase === "downloading"} onPress={() => frameworkRef.send({ type: "report.requested" })}>
            Regenerate
          </Button>
        </>
      ) : (
        <>
          <Button isDisabled={!canRequest} onPress={() => frameworkRef.send({ type: "report.requested" })}>
            Generate PDF report
          </Button>
          {phase === "failed" && reportError !== null ? (
            <span role="alert" className={css.reason}>
              {reportError}
            </span>
          ) : null}
        </>
      )}
    </div>
  )
}

function Summary({ frameworkRef }: { readonly frameworkRef: FrameworkRef }) {
  const data = useSelector(frameworkRef, (s) => s.context.data)
  const trend = useSelector(frameworkRef, (s) => s.context.trend)
  const trendState = useSelector(frameworkRef, (s) => (s.matches({ trend: "unavailable" }) ? "unavailable" : s.matches({ trend: "ready" }) ? "ready" : "loading"))
  if (data === null) return null
  return (
    <Card title="Summary" aria-label="Summary">
      <div className={css.layout}>
        <div className={scanning.fieldStack}>
          <div className={scanning.titleRow}>
            <span className={css.score}>{scoreText(data.counts.score)}</span>
            <span className={scanning.muted}>{`score · ${data.counts.passed} passed of ${data.counts.passed + data.counts.failed} decided`}</span>
          </div>
          <StatusBar counts={data.counts} />
        </div>
        <section aria-labelledby="trend-heading">
          <h3 id="trend-heading" className={scanning.factLabel}>
            Score over the account's scans
          </h3>
          {trendState === "ready" && trend !== null ? (
            <TrendChart points={trend} />
          ) : trendState === "loading" ? (
            <Spinner size="sm" aria-label="Loading trend" />
          ) : (
            <span className={scanning.muted}>The trend could not be loaded.</span>
          )}
        </section>
      </div>
    </Card>
  )
}

function FrameworkPage({ scanId, frameworkId }: { readonly scanId: ScanId; readonly frameworkId: string }) {
  const logic = useComplianceFrameworkLogic()
  const options = useComplianceActorOptions()
  const frameworkRef = useActorRef(logic, { ...options, input: { scanId, frameworkId } })
  const data = useSelector(frameworkRef, (s) => s.context.data)
  const loading = useSelector(frameworkRef, (s) => s.matches({ detail: "loading" }))
  const error = useSelector(frameworkRef, (s) => s.context.error)
  const rows = useSelector(frameworkRef, (s) => visibleRequirements(s.context))
  const title = data === null ? "Framework" : `${data.framework.name} v${data.framework.version}`
  return (
    <div className={scanning.page}>
      <CrumbTrail
        crumbs={[
          { label: "Compliance", href: data === null ? COMPLIANCE_PATH : complianceAccountPath(data.scan.account_id) },
          { label: title },
        ]}
      />
      <div className={scanning.pageHeader}>
        <div className={scanning.titles}>
          <h1 className={scanning.title}>{title}</h1>
          <p className={scanning.subtitle}>
            {data === null ? "Requirements evaluated on one scan." : `${data.scan.account_name} (${data.scan.cloud_account_id}) · scan #${data.scan.id} · completed ${formatDateTime(data.scan.scan_end)}`}
          </p>
        </div>
        <div className={`${scanning.actions} ${css.headerActions}`}>
          <ReportActions frameworkRef={frameworkRef} />
        </div>
      </div>
      {loading ? (
        <LoadingBox label="Loading requirements" />
      ) : data === null ? (
        <ErrorBox
          title="Compliance could not be loaded"
          message={error ?? ""}
          actions={
            <Button variant="secondary" size="sm" onPress={() => frameworkRef.send({ type: "retry.requested" })}>
              Try again
            </Button>
          }
        />
      ) : (
        <>
          <Summary frameworkRef={frameworkRef} />
          <div className={css.layout}>
            <SectionTree frameworkRef={frameworkRef} />
            <div className={scanning.fieldStack}>
              <Filters frameworkRef={frameworkRef} />
              <RequirementTable frameworkRef={frameworkRef} rows={rows} />
            </div>
          </div>
        </>
      )}
    </div>
  )
}

export function ComplianceFrameworkView() {
  const params = useParams<{ scanId: string; frameworkId: string }>()
  const scanId = Number(params.scanId) as ScanId
  // Remounts (fresh machine) when the route's scan or framework changes.
  return <FrameworkPage key={`${params.scanId}/${params.frameworkId}`} scanId={scanId} frameworkId={decodeURIComponent(params.frameworkId)} />
}
