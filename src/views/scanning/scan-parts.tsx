/**
 * Small pieces shared by the scanning screens: date formatting, run-status / severity / finding-status badges, the
 * services progress bar, a permission-gated button with its tooltip, page-level loading and error boxes, and the
 * finding page's breadcrumb trail.
 *
 * Gated actions (scanning §6): without the permission the action is shown disabled, stays focusable so its tooltip
 * ('You don't have permission to launch scans', "You need the 'remediate_findings' permission to fix this issue") can
 * be read, and a press is reported to the machine (`onBlockedPress`), which answers with the spec's message.
 */
import type { ReactNode } from "react"
import { Breadcrumb, Breadcrumbs, Focusable, Tooltip, TooltipTrigger } from "react-aria-components"
import { toRunStatus } from "../../contracts/common.ts"
import { Dates } from "../../contracts/constants.ts"
import { Badge, type BadgeTone } from "../ui/badge.tsx"
import { Button, type ButtonProps } from "../ui/button.tsx"
import { button as buttonRecipe } from "../ui/button.css.ts"
import { Link } from "../ui/link.tsx"
import { Spinner } from "../ui/spinner.tsx"
import { AlertBox } from "../ui/alert-box.tsx"
import { ChevronRightIcon } from "../ui/icons.tsx"
import * as parts from "./scan-parts.css.ts"
import * as css from "./scanning.css.ts"

// ---------------------------------------------------------------------------------------------------
// Formatting

const dateTime = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short" })

/** "Mar 4, 2025, 9:15 AM" (local time), or 'N/A' for a missing or out-of-range date. */
export const formatDateTime = (iso: string | null | undefined): string => {
  if (iso === null || iso === undefined || iso === "") return Dates.fallback
  const d = new Date(iso)
  const year = d.getUTCFullYear()
  return Number.isNaN(d.getTime()) || year < Dates.minYear || year > Dates.maxYear ? Dates.fallback : dateTime.format(d)
}

/**
 * "Nov 28, 2026, 2:00 AM Europe/Paris": the moment as the clock of `timeZone` shows it, with the zone's name (a
 * schedule's runs are set in its own zone, whatever the reader's). An unknown zone falls back to local time, named.
 */
export const formatDateTimeIn = (iso: string | null | undefined, timeZone: string): string => {
  const local = formatDateTime(iso)
  if (local === Dates.fallback) return local
  try {
    return `${new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short", timeZone }).format(new Date(iso!))} ${timeZone}`
  } catch {
    return `${local} (local time)`
  }
}

/**
 * A date and time that may wrap between the date and the time, never inside either ("Nov 27, 2026," / "6:21 AM"):
 * what table cells show, so that a table fits its card at 1280 px.
 */
export function DateTimeText({ iso }: { readonly iso: string | null | undefined }) {
  const text = formatDateTime(iso)
  const cut = text.lastIndexOf(", ")
  if (cut < 0) return <span className={css.nowrap}>{text}</span>
  return (
    <span>
      <span className={css.nowrap}>{text.slice(0, cut + 1)}</span> <span className={css.nowrap}>{text.slice(cut + 2)}</span>
    </span>
  )
}

export const capitalise = (s: string): string => (s === "" ? s : s.charAt(0).toUpperCase() + s.slice(1))

// ---------------------------------------------------------------------------------------------------
// Badges

/** '+n new' and 'n fixed' since the previous scan ('—' when nothing changed or on the account's first scan). */
export function ChangeBadges({ fresh, fixed }: { readonly fresh: number; readonly fixed: number }) {
  if (fresh === 0 && fixed === 0) return <span className={css.subtle}>—</span>
  return (
    <span className={parts.changeBadges}>
      {fresh > 0 ? <Badge tone="danger">{`+${fresh} new`}</Badge> : null}
      {fixed > 0 ? <Badge tone="success">{`${fixed} fixed`}</Badge> : null}
    </span>
  )
}


const RUN_TONES: { readonly [K in ReturnType<typeof toRunStatus>]: BadgeTone } = {
  pending: "neutral",
  running: "accent",
  completed: "success",
  failed: "danger",
}

/**
 * Scan / service status (scanning §4; unknown → failed). `inProgressLabel` folds pending and running into one label
 * with a spinner (the account page: "any status other than completed or failed shows as in progress").
 */
export function RunStatusBadge({ status, inProgressLabel }: { readonly status: unknown; readonly inProgressLabel?: string }) {
  const s = toRunStatus(status)
  const active = s === "pending" || s === "running"
  const label = active && inProgressLabel !== undefined ? inProgressLabel : capitalise(s)
  return (
    <Badge tone={RUN_TONES[s]}>
      <span className={parts.statusBadge}>
        {active ? <Spinner size="sm" tone="inherit" aria-label={label} /> : null}
        {label}
      </span>
    </Badge>
  )
}

const SEVERITY_KEYS = ["critical", "high", "medium", "low"] as const

export function SeverityBadge({ severity }: { readonly severity: string }) {
  const key = (SEVERITY_KEYS as ReadonlyArray<string>).includes(severity) ? (severity as (typeof SEVERITY_KEYS)[number]) : "unknown"
  return <span className={parts.severity({ severity: key })}>{capitalise(severity)}</span>
}

const FINDING_TONES: Readonly<Record<string, BadgeTone>> = { pass: "success", fail: "danger", remediated: "accent", not_evaluated: "warning" }

/** A finding's outcome as its label (the spec's statuses capitalised; `not_evaluated` as 'Not evaluated'). */
export const outcomeLabel = (status: string): string => (status === "not_evaluated" ? "Not evaluated" : capitalise(status))

/** The finding's outcome; a not-evaluated one says why on hover. */
/** Today in the user's calendar, YYYY-MM-DD (what a mute rule's expiry date is compared with). */
export const localToday = (): string => {
  const d = new Date()
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`
}

export function FindingStatusBadge({ status, reason }: { readonly status: string; readonly reason?: string | null }) {
  const badge = <Badge tone={FINDING_TONES[status] ?? "neutral"}>{outcomeLabel(status)}</Badge>
  return reason === undefined || reason === null ? badge : <span title={reason}>{badge}</span>
}

// ---------------------------------------------------------------------------------------------------
// Progress

/** completed_services / total_services as a bar with its numbers. */
export function ServicesProgress({ completed, total, percent }: { readonly completed: number; readonly total: number; readonly percent: number }) {
  return <LabelledProgress name="Scan progress" label={`${completed} of ${total} services`} percent={percent} />
}

/** A determinate bar (0–100) named `name`, with its numbers written beside it and read out as its value. */
export function LabelledProgress({ name, label, percent, className }: { readonly name: string; readonly label: string; readonly percent: number; readonly className?: string }) {
  return (
    <div className={className === undefined ? css.progress : `${css.progress} ${className}`}>
      <div
        className={css.progressTrack}
        role="progressbar"
        aria-label={name}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={label}
      >
        <div className={css.progressFill} style={{ width: `${percent}%` }} />
      </div>
      <span className={css.progressLabel}>{label}</span>
    </div>
  )
}

// ---------------------------------------------------------------------------------------------------
// Permission-gated button

export interface GatedButtonProps extends Omit<ButtonProps, "isDisabled"> {
  /** False: disabled look, tooltip, and presses go to `onBlockedPress`. */
  readonly allowed: boolean
  readonly tooltip: string
  readonly onBlockedPress?: () => void
  /** Disabled for another reason (no tooltip). */
  readonly isDisabled?: boolean
  readonly children: ReactNode
}

export function GatedButton({ allowed, tooltip, onBlockedPress, variant = "primary", size = "md", children, ...props }: GatedButtonProps) {
  if (allowed) {
    return (
      <Button variant={variant} size={size} {...props}>
        {children}
      </Button>
    )
  }
  return (
    <TooltipTrigger delay={300}>
      <Focusable>
        <span
          role="button"
          tabIndex={0}
          aria-disabled="true"
          data-disabled=""
          className={`${buttonRecipe({ variant, size })} ${parts.gatedWrap}`}
          onClick={() => onBlockedPress?.()}
          onKeyDown={(e) => {
            if (e.key === "Enter" || e.key === " ") {
              e.preventDefault()
              onBlockedPress?.()
            }
          }}
        >
          {children}
        </span>
      </Focusable>
      <Tooltip className={css.tooltip} offset={6}>
        {tooltip}
      </Tooltip>
    </TooltipTrigger>
  )
}

// ---------------------------------------------------------------------------------------------------
// Page states

export function LoadingBox({ label }: { readonly label: string }) {
  return (
    <div className={css.stateBox} aria-busy="true">
      <Spinner size="lg" aria-label={label} />
      <span>{label}</span>
    </div>
  )
}

/** A failed load: the §8 title and message, and the ways out. */
export function ErrorBox({ title, message, actions }: { readonly title: string; readonly message: string; readonly actions?: ReactNode }) {
  return (
    <AlertBox tone="error" title={title} {...(actions === undefined ? {} : { action: <div className={css.actions}>{actions}</div> })}>
      {message}
    </AlertBox>
  )
}

// ---------------------------------------------------------------------------------------------------
// Breadcrumbs (finding page: the shell hides its bar on findings pages)

export interface Crumb {
  readonly label: string
  readonly href?: string
}

export function CrumbTrail({ crumbs }: { readonly crumbs: ReadonlyArray<Crumb> }) {
  return (
    <nav aria-label="Breadcrumbs">
      <Breadcrumbs className={css.breadcrumbs}>
      {crumbs.map((c, i) => {
        // The last crumb is the page; one without a link before it (a page the viewer may not open) is plain text.
        const last = i === crumbs.length - 1
        return (
          <Breadcrumb key={`${i}-${c.label}`} className={css.crumb}>
            {c.href !== undefined ? (
              <Link href={c.href} variant="subtle">
                {c.label}
              </Link>
            ) : last ? (
              <span className={css.crumbCurrent} aria-current="page">
                {c.label}
              </span>
            ) : (
              <span className={css.crumbPlain}>{c.label}</span>
            )}
            {last ? null : <ChevronRightIcon size={14} aria-hidden="true" />}
          </Breadcrumb>
        )
      })}
      </Breadcrumbs>
    </nav>
  )
}

/** A label/value pair of a facts grid. */
export function Fact({ label, children }: { readonly label: string; readonly children: ReactNode }) {
  return (
    <div className={css.fact}>
      <dt className={css.factLabel}>{label}</dt>
      <dd className={css.factValue}>{children}</dd>
    </div>
  )
}
