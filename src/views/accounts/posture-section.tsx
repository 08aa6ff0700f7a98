/**
 * The dashboard's posture section (beyond the spec, issue 13), over `postureOverviewMachine`: for each scanned account a
 * chart of failing resources by severity over its last completed scans with new / fixed per scan, the accounts not
 * scanned in 7 days, and the checks failing in the most accounts. Muted resources are left out everywhere.
 */
import { useActorRef, useSelector } from "@xstate/react"
import type { ActorRefFrom } from "xstate"
import { SEVERITIES } from "../../contracts/findings.ts"
import { PostureMessages, type AccountTrend, type TrendPoint } from "../../contracts/posture.ts"
import { unitLabel } from "../../contracts/outcomes.ts"
import type { postureOverviewMachine } from "../../machines/posture-overview.machine.ts"
import { scanPath } from "../../machines/scan-list.machine.ts"
import { AlertBox } from "../ui/alert-box.tsx"
import { Badge } from "../ui/badge.tsx"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { Link } from "../ui/link.tsx"
import { usePostureOverviewLogic, useScanActorOptions } from "../scanning/scan-logic.ts"
import { ErrorBox, formatDateTime, LoadingBox, SeverityBadge } from "../scanning/scan-parts.tsx"
import * as shared from "../scanning/scanning.css.ts"
import * as css from "./dashboard.css.ts"

type OverviewRef = ActorRefFrom<typeof postureOverviewMachine>

/** The scan's failing resources, as the server's algebra counts them. */
const total = (p: TrendPoint) => p.failing_resources

const BAR = 22
const GAP = 10
const HEIGHT = 96

/** Stacked bars, one per completed scan (oldest left): failing resources by severity, critical at the bottom. */
export function TrendChart({ trend }: { readonly trend: AccountTrend }) {
  const max = Math.max(1, ...trend.scans.map(total))
  const width = trend.scans.length * (BAR + GAP)
  const label = `Failing resources of ${trend.account_name} over its last ${trend.scans.length} scans: ${trend.scans
    .map((p) => `scan #${p.scan_id} ${total(p)}`)
    .join(", ")}`
  return (
    <svg role="img" aria-label={label} viewBox={`0 0 ${width} ${HEIGHT}`} className={css.trendChart} preserveAspectRatio="xMinYMax meet">
      {trend.scans.map((p, i) => {
        let y = HEIGHT
        return (
          <g key={p.scan_id}>
            {SEVERITIES.map((s) => {
              const h = (p.failing[s] / max) * (HEIGHT - 4)
              y -= h
              return h <= 0 ? null : <rect key={s} x={i * (BAR + GAP)} y={y} width={BAR} height={h} className={css.trendBar({ severity: s })} />
            })}
          </g>
        )
      })}
    </svg>
  )
}

function AccountTrendCard({ trend }: { readonly trend: AccountTrend }) {
  const recent = [...trend.scans].reverse().slice(0, 5)
  return (
    <Card title={trend.account_name} level={3} description={`${trend.cloud_provider_name} · last scan ${formatDateTime(trend.last_scan_at)}`}>
      <TrendChart trend={trend} />
      <ul className={css.legend} aria-label="Severities">
        {SEVERITIES.map((s) => (
          <li key={s} className={css.legendItem}>
            <span className={css.legendSwatch({ severity: s })} aria-hidden="true" />
            {s}
          </li>
        ))}
      </ul>
      <table className={css.trendTable}>
        <caption className={shared.subtle}>Latest scans</caption>
        <thead>
          <tr>
            <th scope="col">Scan</th>
            <th scope="col">Failing resources</th>
            <th scope="col">New failing resources</th>
            <th scope="col">Fixed resources</th>
          </tr>
        </thead>
        <tbody>
          {recent.map((p) => (
            <tr key={p.scan_id}>
              <td>
                <Link href={scanPath(p.scan_id)}>{`#${p.scan_id}`}</Link>
              </td>
              <td>{total(p)}</td>
              <td>{p.new_failing > 0 ? <Badge tone="danger">{`+${p.new_failing}`}</Badge> : "0"}</td>
              <td>{p.fixed > 0 ? <Badge tone="success">{`−${p.fixed}`}</Badge> : "0"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Card>
  )
}

function OverviewBody({ overviewRef }: { readonly overviewRef: OverviewRef }) {
  const overview = useSelector(overviewRef, (s) => s.context.overview)
  if (overview === null) return null
  const scanned = overview.accounts.filter((a) => a.scans.length > 0)
  const stale = overview.accounts.filter((a) => a.stale)
  return (
    <>
      {stale.length === 0 ? null : (
        <AlertBox tone="warning" title={`Not scanned in the last ${overview.stale_after_days} days`}>
          <ul className={css.staleList}>
            {stale.map((a) => (
              <li key={a.account_id}>
                <Link href={`/dashboard/accounts/${a.account_id}`}>{a.account_name}</Link>
                {a.last_scan_at === null ? " (never scanned)" : ` (last ${formatDateTime(a.last_scan_at)})`}
              </li>
            ))}
          </ul>
        </AlertBox>
      )}
      {scanned.length === 0 ? (
        <p className={shared.muted}>No completed scans yet: the trends appear after the first one.</p>
      ) : (
        <div className={css.trendGrid}>
          {scanned.map((a) => (
            <AccountTrendCard key={a.account_id} trend={a} />
          ))}
        </div>
      )}
      {overview.top_failing_checks.length === 0 ? null : (
        <Card title="Top failing checks" level={3} description="In the latest scan of each account: failing resources (not muted, not remediated).">
          <ol className={css.topChecks}>
            {overview.top_failing_checks.map((c) => (
              <li key={c.check_id} className={css.topCheck}>
                <SeverityBadge severity={c.severity} />
                <span className={css.topCheckTitle}>{c.title}</span>
                <span className={shared.subtle}>{`${unitLabel(c.resources, "failingResources")} · ${c.accounts} account${c.accounts === 1 ? "" : "s"}`}</span>
              </li>
            ))}
          </ol>
        </Card>
      )}
    </>
  )
}

export function PostureSection() {
  const overviewRef = useActorRef(usePostureOverviewLogic(), useScanActorOptions())
  const loading = useSelector(overviewRef, (s) => s.matches("loading"))
  const failed = useSelector(overviewRef, (s) => s.matches("failed"))
  const refreshing = useSelector(overviewRef, (s) => s.matches("refreshing"))
  const error = useSelector(overviewRef, (s) => s.context.error)
  const noAccounts = useSelector(overviewRef, (s) => s.context.overview !== null && s.context.overview.accounts.length === 0)
  // Nothing to show before the first account (the accounts section says how to add one).
  if (noAccounts) return null
  return (
    <section aria-labelledby="posture-heading" className={shared.page}>
      <div className={shared.pageHeader}>
        <h2 id="posture-heading" className={shared.sectionTitle}>
          Security posture
        </h2>
        <Button variant="ghost" size="sm" onPress={() => overviewRef.send({ type: "overview.refreshRequested" })} isPending={refreshing}>
          Refresh posture
        </Button>
      </div>
      {loading ? (
        <LoadingBox label="Loading the security posture" />
      ) : failed ? (
        <ErrorBox
          title={PostureMessages.loadOverviewFailed}
          message={error ?? PostureMessages.loadOverviewFailed}
          actions={
            <Button variant="secondary" size="sm" onPress={() => overviewRef.send({ type: "overview.retryRequested" })}>
              Retry
            </Button>
          }
        />
      ) : (
        <OverviewBody overviewRef={overviewRef} />
      )}
    </section>
  )
}
