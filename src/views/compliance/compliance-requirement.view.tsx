/**
 * /dashboard/compliance/scans/:scanId/:frameworkId/:requirementId (issue 14 drill-down), rendered from
 * `complianceRequirementMachine`: the requirement's status and counts, the checks that decide it (each opening the
 * scan's finding page), and its failing resources page by page, muted ones marked with the mute reason.
 */
import { useMemo } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import { createColumnHelper } from "@tanstack/react-table"
import { useParams } from "wouter"
import type { ActorRefFrom } from "xstate"
import type { FailingResource, RequirementCheck } from "../../contracts/compliance.ts"
import type { ScanId } from "../../contracts/ids.ts"
import { complianceAccountPath, frameworkPath } from "../../machines/compliance-effects.ts"
import type { complianceRequirementMachine } from "../../machines/compliance-requirement.machine.ts"
import { Badge } from "../ui/badge.tsx"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { DataTable, useIsDesktop, type ScanTableFeatures } from "../ui/data-table.tsx"
import { Identifier } from "../ui/identifier.tsx"
import { CrumbTrail, ErrorBox, Fact, FindingStatusBadge, LoadingBox, SeverityBadge } from "../scanning/scan-parts.tsx"
import * as scanning from "../scanning/scanning.css.ts"
import { RequirementStatusBadge } from "./compliance-parts.tsx"
import { useComplianceActorOptions, useComplianceRequirementLogic } from "./compliance-logic.ts"
import * as css from "./compliance.css.ts"

type RequirementRef = ActorRefFrom<typeof complianceRequirementMachine>

const checkHelper = createColumnHelper<ScanTableFeatures, RequirementCheck>()

/** A failing check whose every open failing resource is muted: it fails no requirement. */
const fullyMuted = (c: RequirementCheck): boolean => c.status === "fail" && c.resources_failing > 0 && c.resources_muted >= c.resources_failing
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
                {fullyMuted(row.original) ? <Badge tone="warning">Muted</Badge> : null}
              </span>
            ),
        }),
        checkHelper.display({
          id: "resources",
          header: "Failing / checked",
          cell: ({ row }) =>
            `${row.original.resources_failing} / ${row.original.resources_checked}${row.original.resources_muted > 0 ? ` (${row.original.resources_muted} muted)` : ""}`,
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
              {c.status === null ? "Not run" : `${c.resources_failing} failing of ${c.resources_checked}${c.resources_muted > 0 ? `, ${c.resources_muted} muted` : ""}${fullyMuted(c) ? " (all muted)" : ""}`}
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
                <Badge tone="warning">Muted</Badge> <span className={css.reason}>{row.original.muted_reason}</span>
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
    <Card title="Failing resources" aria-label="Failing resources" description={`${p.total} open failing resource${p.total === 1 ? "" : "s"}`}>
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
              {r.muted && r.muted_reason !== null ? <span className={css.reason}>{`Muted: ${r.muted_reason}`}</span> : null}
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
              <Fact label="Checks failed">{`${detail.requirement.checks_failed} of ${detail.requirement.checks_total}`}</Fact>
              <Fact label="Resources checked">{detail.requirement.resources_checked}</Fact>
              <Fact label="Failing resources">{`${detail.requirement.resources_failing} (${detail.requirement.resources_muted} muted)`}</Fact>
            </dl>
            {detail.requirement.manual_reason === null ? null : <p className={css.reason}>{detail.requirement.manual_reason}</p>}
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
