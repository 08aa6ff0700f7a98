/**
 * /dashboard/compliance/scans/:scanId/:frameworkId/:requirementId (issue 14 drill-down), rendered from
 * `complianceRequirementMachine`: the requirement's status and counts, the checks that decide it (each opening the
 * scan's finding page), and its failing resources page by page, muted ones marked with the mute's reason, expiry and
 * author; a not evaluated requirement says why, one passed with exceptions names its mutes. Every number says its unit.
 */
import { useMemo } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import { createColumnHelper } from "@tanstack/react-table"
import { useParams } from "wouter"
import type { ActorRefFrom } from "xstate"
import type { FailingResource, RequirementCheck } from "../../contracts/compliance.ts"
import type { ScanId } from "../../contracts/ids.ts"
import { CHECK_OUTCOME_LABELS, unitLabel } from "../../contracts/outcomes.ts"
import { complianceAccountPath, frameworkPath } from "../../machines/compliance-effects.ts"
import type { complianceRequirementMachine } from "../../machines/compliance-requirement.machine.ts"
import { Badge } from "../ui/badge.tsx"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { DataTable, useIsDesktop, type ScanTableFeatures } from "../ui/data-table.tsx"
import { Identifier } from "../ui/identifier.tsx"
import { CrumbTrail, ErrorBox, Fact, FindingStatusBadge, formatDateTime, LoadingBox, SeverityBadge } from "../scanning/scan-parts.tsx"
import * as scanning from "../scanning/scanning.css.ts"
import { exceptionText, RequirementStatusBadge } from "./compliance-parts.tsx"
import { useComplianceActorOptions, useComplianceRequirementLogic } from "./compliance-logic.ts"
import * as css from "./compliance.css.ts"

type RequirementRef = ActorRefFrom<typeof complianceRequirementMachine>

/** A muted resource's mute: reason, expiry and author, as the scan keeps them. */
const muteText = (r: FailingResource): string =>
  `${r.muted_reason ?? ""}${r.muted_expires_at === undefined ? "" : ` — expires ${r.muted_expires_at === null ? "never" : formatDateTime(r.muted_expires_at)}`}${r.muted_author === undefined ? "" : `, by ${r.muted_author ?? "unknown"}`}`

const checkHelper = createColumnHelper<ScanTableFeatures, RequirementCheck>()

/** The check's failing and muted resources of its checked ones, with their units (docs/outcomes.md). */
const checkResources = (c: RequirementCheck): string =>
  `${unitLabel(c.resources_failing, "failingResources")} of ${unitLabel(c.resources_checked, "resources")} checked${c.resources_muted > 0 ? `, ${unitLabel(c.resources_muted, "mutedResources")}` : ""}`
const resourceHelper = createColumnHelper<ScanTableFeatures, FailingResource>()

function Checks({ requirementRef, checks }: { readonly requirementRef: RequirementRef; readonly checks: ReadonlyArray<RequirementCheck> }) {
  const columns = useMemo(
    () =>
      checkHelper.columns([
        checkHelper.accessor("title", {
          header: "Check",
          cell: ({ row }) => (
            <div>
              <div>{row.original.title}</div>
              <div className={scanning.mono}>{row.original.check_id}</div>
            </div>
          ),
        }),
        checkHelper.accessor("severity", { header: "Severity", cell: ({ getValue }) => <SeverityBadge severity={getValue()} /> }),
        checkHelper.accessor("status", {
          header: "Result",
          cell: ({ row }) =>
            row.original.status === null ? (
              <span className={scanning.muted}>Not run</span>
            ) : (
              <span className={scanning.titleRow}>
                <FindingStatusBadge status={row.original.status} />
                {row.original.outcome === "passed_with_exceptions" ? <Badge tone="accent">{CHECK_OUTCOME_LABELS.passed_with_exceptions}</Badge> : null}
                {row.original.not_evaluated_reason === null ? null : <span className={css.reason}>{row.original.not_evaluated_reason}</span>}
              </span>
            ),
        }),
        checkHelper.display({
          id: "resources",
          header: "Resources",
          cell: ({ row }) => checkResources(row.original),
        }),
        checkHelper.display({
          id: "actions",
          header: "Actions",
          cell: ({ row }) =>
            row.original.finding_id === null ? null : (
              <Button
                variant="secondary"
                size="sm"
                aria-label={`View finding of ${row.original.check_id}`}
                onPress={() => requirementRef.send({ type: "finding.opened", findingId: row.original.finding_id! })}
              >
                View finding
              </Button>
            ),
        }),
      ]),
    [requirementRef],
  )
  const isDesktop = useIsDesktop()
  if (!isDesktop && checks.length > 0) {
    return (
      <ul className={scanning.cardList} aria-label="Checks">
        {checks.map((c) => (
          <li key={c.check_id} className={scanning.itemCard}>
            <div className={scanning.itemCardHeader}>
              <span>{c.title}</span>
              <SeverityBadge severity={c.severity} />
            </div>
            <span className={scanning.mono}>{c.check_id}</span>
            <span className={scanning.muted}>
              {c.status === null ? "Not run" : `${CHECK_OUTCOME_LABELS[c.outcome ?? "passed"]} · ${checkResources(c)}`}
            </span>
            {c.finding_id === null ? null : (
              <div>
                <Button variant="secondary" size="sm" aria-label={`View finding of ${c.check_id}`} onPress={() => requirementRef.send({ type: "finding.opened", findingId: c.finding_id! })}>
                  View finding
                </Button>
              </div>
            )}
          </li>
        ))}
      </ul>
    )
  }
  return (
    <DataTable
      label="Checks"
      columns={columns}
      data={checks}
      rowId={(c) => c.check_id}
      endColumns={["resources", "actions"]}
      empty={<span className={scanning.muted}>No check decides this requirement: assess it manually.</span>}
    />
  )
}

function FailingResources({ requirementRef }: { readonly requirementRef: RequirementRef }) {
  const detail = useSelector(requirementRef, (s) => s.context.detail)
  const paging = useSelector(requirementRef, (s) => s.matches("paging"))
  const columns = useMemo(
    () =>
      resourceHelper.columns([
        resourceHelper.accessor("resource_id", { header: "Resource", cell: ({ getValue }) => <Identifier text={getValue()} className={scanning.mono} /> }),
        resourceHelper.accessor("region", { header: "Region" }),
        resourceHelper.accessor("reason", { header: "Reason", cell: ({ getValue }) => <span className={css.reason}>{getValue()}</span> }),
        resourceHelper.accessor("check_id", { header: "Check", cell: ({ getValue }) => <span className={scanning.mono}>{getValue()}</span> }),
        resourceHelper.display({
          id: "muted",
          header: "Muted",
          cell: ({ row }) =>
            row.original.muted ? (
              <span title={row.original.muted_reason ?? undefined}>
                <Badge tone="warning">Muted</Badge> <span className={css.reason}>{muteText(row.original)}</span>
              </span>
            ) : null,
        }),
      ]),
    [],
  )
  const isDesktop = useIsDesktop()
  if (detail === null) return null
  const p = detail.failing_pagination
  return (
    <Card
      title="Failing resources"
      aria-label="Failing resources"
      description={`${unitLabel(detail.requirement.resources_failing, "failingResources")}, ${unitLabel(detail.requirement.resources_muted, "mutedResources")}`}
    >
      {isDesktop || detail.failing.length === 0 ? (
        <DataTable
          label="Failing resources"
          columns={columns}
          data={detail.failing}
          rowId={(r) => `${r.finding_id}-${r.result_seq}`}
          busy={paging}
          empty={<span className={scanning.muted}>No failing resource.</span>}
        />
      ) : (
        <ul className={scanning.cardList} aria-label="Failing resources" aria-busy={paging}>
          {detail.failing.map((r) => (
            <li key={`${r.finding_id}-${r.result_seq}`} className={scanning.itemCard}>
              <div className={scanning.itemCardHeader}>
                <Identifier text={r.resource_id} className={scanning.mono} />
                {r.muted ? <Badge tone="warning">Muted</Badge> : null}
              </div>
              <span className={scanning.muted}>{`${r.region} · ${r.check_id}`}</span>
              <span className={css.reason}>{r.reason}</span>
              {r.muted ? <span className={css.reason}>{`Muted: ${muteText(r)}`}</span> : null}
            </li>
          ))}
        </ul>
      )}
      {p.total_pages > 1 ? (
        <div className={css.pager}>
          <Button variant="secondary" size="sm" isDisabled={p.page <= 1 || paging} onPress={() => requirementRef.send({ type: "page.requested", page: p.page - 1 })}>
            Previous
          </Button>
          <span className={scanning.muted}>{`Page ${p.page} of ${p.total_pages}`}</span>
          <Button
            variant="secondary"
            size="sm"
            isDisabled={p.page >= p.total_pages || paging}
            onPress={() => requirementRef.send({ type: "page.requested", page: p.page + 1 })}
          >
            Next
          </Button>
        </div>
      ) : null}
    </Card>
  )
}

function RequirementPage({ scanId, frameworkId, requirementId }: { readonly scanId: ScanId; readonly frameworkId: string; readonly requirementId: string }) {
  const logic = useComplianceRequirementLogic()
  const options = useComplianceActorOptions()
  const requirementRef = useActorRef(logic, { ...options, input: { scanId, frameworkId, requirementId } })
  const detail = useSelector(requirementRef, (s) => s.context.detail)
  const loading = useSelector(requirementRef, (s) => s.matches("loading"))
  const error = useSelector(requirementRef, (s) => s.context.error)
  const fwName = detail === null ? frameworkId : `${detail.framework.name} v${detail.framework.version}`
  return (
    <div className={scanning.page}>
      <CrumbTrail
        crumbs={[
          { label: "Compliance", ...(detail === null ? {} : { href: complianceAccountPath(detail.scan.account_id) }) },
          { label: fwName, href: frameworkPath(scanId, frameworkId) },
          { label: requirementId },
        ]}
      />
      <div className={scanning.pageHeader}>
        <div className={scanning.titles}>
          <h1 className={scanning.title}>{detail === null ? `Requirement ${requirementId}` : `${requirementId} ${detail.requirement.title}`}</h1>
          <p className={scanning.subtitle}>{detail === null ? fwName : `${fwName} · ${detail.scan.account_name} · scan #${detail.scan.id}`}</p>
        </div>
      </div>
      {loading ? (
        <LoadingBox label="Loading requirement" />
      ) : detail === null ? (
        <ErrorBox
          title="The requirement could not be loaded"
          message={error ?? ""}
          actions={
            <Button variant="secondary" size="sm" onPress={() => requirementRef.send({ type: "retry.requested" })}>
              Try again
            </Button>
          }
        />
      ) : (
        <>
          <Card title="Status" aria-label="Status">
            <dl className={scanning.facts}>
              <Fact label="Status">
                <RequirementStatusBadge status={detail.requirement.status} />
              </Fact>
              <Fact label="Benchmark assessment">{detail.requirement.assessment === "automated" ? "Automated" : "Manual"}</Fact>
              <Fact label="Checks failed">{`${detail.requirement.checks_failed} of ${unitLabel(detail.requirement.checks_total, "checks")}`}</Fact>
              <Fact label="Checks not evaluated">{unitLabel(detail.requirement.checks_not_evaluated, "checks")}</Fact>
              <Fact label="Checks passed with exceptions">{unitLabel(detail.requirement.checks_with_exceptions, "checks")}</Fact>
              <Fact label="Resources checked">{unitLabel(detail.requirement.resources_checked, "resources")}</Fact>
              <Fact label="Failing resources">{unitLabel(detail.requirement.resources_failing, "failingResources")}</Fact>
              <Fact label="Muted resources">{unitLabel(detail.requirement.resources_muted, "mutedResources")}</Fact>
            </dl>
            {detail.requirement.manual_reason === null ? null : <p className={css.reason}>{detail.requirement.manual_reason}</p>}
            {detail.requirement.not_evaluated_reasons.length === 0 ? null : (
              <ul className={css.reason} aria-label="Why not evaluated">
                {detail.requirement.not_evaluated_reasons.map((n) => <li key={n.check_id}>{`${n.check_id}: ${n.reason}`}</li>)}
              </ul>
            )}
            {detail.requirement.exceptions.length === 0 ? null : (
              <ul className={css.reason} aria-label="Exceptions">
                {detail.requirement.exceptions.map((e) => <li key={`${e.check_id}-${e.rule_id}`}>{`${e.check_id}: ${exceptionText(e)}`}</li>)}
              </ul>
            )}
          </Card>
          <Card title="Checks" aria-label="Checks">
            <Checks requirementRef={requirementRef} checks={detail.checks} />
          </Card>
          <FailingResources requirementRef={requirementRef} />
        </>
      )}
    </div>
  )
}

export function ComplianceRequirementView() {
  const params = useParams<{ scanId: string; frameworkId: string; requirementId: string }>()
  return (
    <RequirementPage
      key={`${params.scanId}/${params.frameworkId}/${params.requirementId}`}
      scanId={Number(params.scanId) as ScanId}
      frameworkId={decodeURIComponent(params.frameworkId)}
      requirementId={decodeURIComponent(params.requirementId)}
    />
  )
}
