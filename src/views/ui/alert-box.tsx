/**
 * Alert box: an inline message above a form or page (error, success, warning, info). Errors use role=alert so they
 * are announced when they appear; the others role=status.
 */
import type { ReactNode } from "react"
import { ErrorIcon, InfoIcon, SuccessIcon, WarningIcon } from "./icons.tsx"
import * as css from "./alert-box.css.ts"

const ICONS = { error: ErrorIcon, success: SuccessIcon, warning: WarningIcon, info: InfoIcon } as const

export interface AlertBoxProps {
  readonly tone: "error" | "success" | "warning" | "info"
  readonly title?: ReactNode
  readonly children?: ReactNode
  /** A button or link on the right (e.g. "Resend verification email", "Try again"). */
  readonly action?: ReactNode
  readonly className?: string
}

export function AlertBox({ tone, title, children, action, className }: AlertBoxProps) {
  const Icon = ICONS[tone]
  return (
    <div role={tone === "error" ? "alert" : "status"} className={[css.alert({ tone }), className].filter(Boolean).join(" ")}>
      <Icon className={css.icon} />
      <div className={css.body}>
        {title === undefined ? null : <p className={css.title}>{title}</p>}
        {children === undefined ? null : <div>{children}</div>}
      </div>
      {action === undefined ? null : <div className={css.action}>{action}</div>}
    </div>
  )
}
