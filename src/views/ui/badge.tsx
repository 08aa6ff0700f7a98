/** Badge: a small status pill (neutral, accent, success, warning, danger, and the four severities). */
import type { ReactNode } from "react"
import { badge, type BadgeVariants } from "./badge.css.ts"

export type BadgeTone = NonNullable<BadgeVariants["tone"]>

export interface BadgeProps {
  readonly tone?: BadgeTone
  readonly emphasis?: boolean
  readonly children: ReactNode
  readonly className?: string
}

export function Badge({ tone = "neutral", emphasis = false, children, className }: BadgeProps) {
  return <span className={[badge({ tone, emphasis }), className].filter(Boolean).join(" ")}>{children}</span>
}

/** Badge tone of a finding severity (scanning §4: critical, high, medium, low). */
export const severityTone = (severity: string): BadgeTone => {
  switch (severity.toLowerCase()) {
    case "critical":
      return "critical"
    case "high":
      return "high"
    case "medium":
      return "medium"
    case "low":
      return "low"
    default:
      return "neutral"
  }
}
