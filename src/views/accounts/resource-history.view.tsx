/**
 * /dashboard/accounts/:accountId/resource?uid= (beyond the spec, issue 13), rendered from `resourceHistoryMachine`: one
 * resource (its id, service, region, first and last sighting) and, per completed scan of its account (newest first),
 * every check that evaluated it with its outcome, its change since the scan before, its mute and its remediation.
 * Lazy-loaded as its own chunk.
 */
import { useActorRef, useSelector } from "@xstate/react"
import { useParams, useSearchParams } from "wouter"
import type { AccountId } from "../../contracts/ids.ts"
import { PostureMessages, type ResourceCheckResult, type ResourceScan } from "../../contracts/posture.ts"
import { unitLabel } from "../../contracts/outcomes.ts"
import { scanPath } from "../../machines/scan-list.machine.ts"
import { Badge } from "../ui/badge.tsx"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { Identifier } from "../ui/identifier.tsx"
import { Link } from "../ui/link.tsx"
import { useResourceHistoryLogic, useScanActorOptions } from "../scanning/scan-logic.ts"
import { ErrorBox, Fact, formatDateTime, LoadingBox, SeverityBadge } from "../scanning/scan-parts.tsx"
import * as shared from "../scanning/scanning.css.ts"
import * as css from "./account-detail.css.ts"

function Outcome({ result }: { readonly result: ResourceCheckResult }) {
  if (result.compliant === null) return <Badge tone="warning">Not evaluated</Badge>
  if (result.compliant) return <Badge tone="success">Pass</Badge>
  return (
    <span className={css.badges}>
      <Badge tone="danger">Fail</Badge>
      {result.muted_reason === null ? null : (
        <span title={result.muted_reason}>
          <Badge tone="neutral">Muted</Badge>
        </span>
      )}
      {result.remediation_status === "remediated" || result.remediation_status === "pass" ? <Badge tone="success">Remediated</Badge> : null}
    </span>
  )
}

/** The finding a history entry came from, opened on this resource's rows (`?resource=` starts the details search). */
export const findingOfResourcePath = (scanId: number, findingId: number, resourceId: string): string =>
  `${scanPath(scanId)}/findings/${findingId}?resource=${encodeURIComponent(resourceId)}`

function ScanCard({ scan, resourceId }: { readonly scan: ResourceScan; readonly resourceId: string }) {
  return (
    <Card title={`Scan #${scan.scan_id}`} level={2} description={formatDateTime(scan.scan_start)} actions={<Link href={scanPath(scan.scan_id)}>Open scan</Link>}>
      <ul className={shared.cardList} aria-label={`Checks in scan #${scan.scan_id}`}>
        {scan.results.map((r) => (
          <li key={r.finding_id} className={css.resultRow}>
            <Outcome result={r} />
            <SeverityBadge severity={r.severity} />
            <Link href={findingOfResourcePath(scan.scan_id, r.finding_id, resourceId)} aria-label={`Open finding ${r.check_id} of scan #${scan.scan_id}: ${r.title}`}>
              {r.title}
            </Link>
            {r.delta === "new" ? <Badge tone="danger">New</Badge> : r.delta === "fixed" ? <Badge tone="success">Fixed</Badge> : null}
          </li>
        ))}
      </ul>
    </Card>
  )
}

function ResourceHistoryScreen({ accountId, uid }: { readonly accountId: AccountId; readonly uid: string }) {
  const ref = useActorRef(useResourceHistoryLogic(), { ...useScanActorOptions(), input: { accountId, uid } })
  const history = useSelector(ref, (s) => s.context.history)
  const loading = useSelector(ref, (s) => s.matches("loading"))
  const error = useSelector(ref, (s) => s.context.error)
  if (loading) return <LoadingBox label="Loading the resource" />
  if (history === null) {
    return (
      <ErrorBox
        title={PostureMessages.loadResourceFailed}
        message={error ?? PostureMessages.loadResourceFailed}
        actions={
          <Button variant="secondary" size="sm" onPress={() => ref.send({ type: "history.retryRequested" })}>
            Retry
          </Button>
        }
      />
    )
  }
  const failing = history.scans[0]?.failing_checks ?? 0
  return (
    <>
      <div className={shared.pageHeader}>
        <div className={shared.titles}>
          <span className={shared.muted}>{`${history.account_name} · ${history.service_key.toUpperCase()} · ${history.region}`}</span>
          <h1 className={shared.title}>
            <Identifier text={history.resource_id} className={shared.mono} />
          </h1>
        </div>
      </div>
      <Card title="Resource" level={2}>
        <dl className={shared.facts}>
          <Fact label="Identity">
            <Identifier text={history.resource_uid} className={shared.mono} />
          </Fact>
          <Fact label="First seen">{formatDateTime(history.first_seen_at)}</Fact>
          <Fact label="Last seen">{formatDateTime(history.last_seen_at)}</Fact>
          <Fact label="Failing now">{history.scans.length === 0 ? "—" : unitLabel(failing, "failedChecks")}</Fact>
        </dl>
      </Card>
      {history.scans.length === 0 ? (
        <p className={shared.muted}>No completed scan evaluated this resource.</p>
      ) : (
        history.scans.map((s) => <ScanCard key={s.scan_id} scan={s} resourceId={history.resource_id} />)
      )}
    </>
  )
}

export function ResourceHistoryView() {
  const { accountId = "" } = useParams<{ accountId: string }>()
  const [query] = useSearchParams()
  const uid = query.get("uid") ?? ""
  const id = Number(accountId)
  return (
    <div className={shared.page}>
      {!Number.isInteger(id) || id <= 0 || uid === "" ? (
        <ErrorBox title={PostureMessages.resourceNotFound} message={PostureMessages.resourceNotFound} />
      ) : (
        <ResourceHistoryScreen key={`${id}:${uid}`} accountId={id as AccountId} uid={uid} />
      )}
    </div>
  )
}
