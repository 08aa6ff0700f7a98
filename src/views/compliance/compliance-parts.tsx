/** Small parts shared by the Compliance screens: status badge, status bar with legend, score, trend chart. */
import { REQUIREMENT_STATUS_LABELS, REQUIREMENT_STATUSES, type RequirementStatus, type StatusCounts, type TrendPoint } from "../../contracts/compliance.ts"
import type { MuteException } from "../../contracts/compliance.ts"
import { unitLabel } from "../../contracts/outcomes.ts"
import { Badge, type BadgeTone } from "../ui/badge.tsx"
import { formatDateTime } from "../scanning/scan-parts.tsx"
import * as css from "./compliance.css.ts"

const TONES: Readonly<Record<RequirementStatus, BadgeTone>> = {
  passed: "success",
  passed_with_exceptions: "accent",
  failed: "danger",
  not_evaluated: "warning",
  manual: "neutral",
  not_applicable: "neutral",
}

export function RequirementStatusBadge({ status }: { readonly status: RequirementStatus }) {
  return <Badge tone={TONES[status]}>{REQUIREMENT_STATUS_LABELS[status]}</Badge>
}

/** A mute behind an exception: its reason, expiry and author (as the scan keeps them). */
export const exceptionText = (e: MuteException): string =>
  `Muted (${unitLabel(e.resources, "resources")}): ${e.reason} — expires ${e.expires_at === null ? "never" : formatDateTime(e.expires_at)}, by ${e.author ?? "unknown"}`

export const scoreText = (score: number | null): string => (score === null ? "n/a" : `${score}%`)

/** A stacked bar of the six statuses, with a legend that carries the numbers (the bar itself is decorative). */
export function StatusBar({ counts }: { readonly counts: StatusCounts }) {
  return (
    <div>
      <div className={css.statusBar} aria-hidden="true">
        {REQUIREMENT_STATUSES.map((s) =>
          counts[s] === 0 ? null : <span key={s} className={css.statusSegment({ status: s })} style={{ width: `${(100 * counts[s]) / Math.max(1, counts.total)}%` }} />,
        )}
      </div>
      <ul className={css.legend} aria-label="Requirements by status">
        {REQUIREMENT_STATUSES.map((s) => (
          <li key={s}>{`${REQUIREMENT_STATUS_LABELS[s]} ${counts[s]}`}</li>
        ))}
      </ul>
    </div>
  )
}

/** The score over the account's scans (oldest first) as a small line chart; the numbers are also in its label. */
export function TrendChart({ points }: { readonly points: ReadonlyArray<TrendPoint> }) {
  const scored = points.filter((p) => p.counts.score !== null)
  if (scored.length === 0) return <p className={css.reason}>No scored scan yet.</p>
  const w = 320
  const h = 120
  const pad = 20
  const x = (i: number) => (scored.length === 1 ? w / 2 : pad + ((w - 2 * pad) * i) / (scored.length - 1))
  const y = (score: number) => h - pad - ((h - 2 * pad) * score) / 100
  const label = `Score by scan, oldest first: ${scored.map((p) => `scan ${p.scan_id} ${p.counts.score}%`).join(", ")}`
  return (
    <svg className={css.trend} viewBox={`0 0 ${w} ${h}`} role="img" aria-label={label}>
      <line className={css.trendAxis} x1={pad} x2={w - pad} y1={y(0)} y2={y(0)} />
      <line className={css.trendAxis} x1={pad} x2={w - pad} y1={y(100)} y2={y(100)} />
      <text className={css.trendLabel} x={2} y={y(100) + 3}>100</text>
      <text className={css.trendLabel} x={2} y={y(0) + 3}>0</text>
      <polyline className={css.trendLine} points={scored.map((p, i) => `${x(i)},${y(p.counts.score!)}`).join(" ")} />
      {scored.map((p, i) => (
        <circle key={p.scan_id} className={css.trendDot} cx={x(i)} cy={y(p.counts.score!)} r={3.5}>
          <title>{`Scan #${p.scan_id}: ${p.counts.score}%`}</title>
        </circle>
      ))}
    </svg>
  )
}
