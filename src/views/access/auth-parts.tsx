/**
 * Pieces shared by the access screens: the screen heading, the centred status panel (validating, success, invalid
 * link), and the resend block that renders a `resendVerification` child actor (button enablement comes from
 * `snapshot.can`, the outcome text from its context).
 */
import type { ReactNode } from "react"
import { useSelector } from "@xstate/react"
import type { ActorRefFrom } from "xstate"
import type { resendVerificationMachine } from "../../machines/resend-verification.machine.ts"
import { Button, type ButtonProps } from "../ui/button.tsx"
import { ErrorIcon, InfoIcon, SuccessIcon, WarningIcon } from "../ui/icons.tsx"
import { Spinner } from "../ui/spinner.tsx"
import * as css from "./auth-parts.css.ts"

export function AuthHeader({ title, subtitle }: { readonly title: string; readonly subtitle?: ReactNode }) {
  return (
    <div className={css.header}>
      <h1 className={css.title}>{title}</h1>
      {subtitle === undefined ? null : <p className={css.subtitle}>{subtitle}</p>}
    </div>
  )
}

export type PanelTone = "success" | "error" | "warning" | "info" | "loading"

const PANEL_ICONS = { success: SuccessIcon, error: ErrorIcon, warning: WarningIcon, info: InfoIcon } as const

export interface StatusPanelProps {
  readonly tone: PanelTone
  readonly title: string
  readonly children?: ReactNode
  readonly actions?: ReactNode
  /** Heading level of the title: 1 when the panel is the whole screen, 2 under a screen heading. */
  readonly level?: 1 | 2
}

/** A centred card with a round icon, a heading, a body and a column of actions. */
export function StatusPanel({ tone, title, children, actions, level = 1 }: StatusPanelProps) {
  const Icon = tone === "loading" ? undefined : PANEL_ICONS[tone]
  const Heading = `h${level}` as const
  return (
    <section className={css.panel} aria-labelledby="status-panel-title" aria-busy={tone === "loading" ? true : undefined}>
      <span className={css.badge({ tone })}>{Icon === undefined ? <Spinner size="lg" tone="inherit" /> : <Icon size={28} />}</span>
      <Heading id="status-panel-title" className={css.panelTitle}>
        {title}
      </Heading>
      {children === undefined ? null : <div className={css.panelBody}>{children}</div>}
      {actions === undefined ? null : <div className={css.panelActions}>{actions}</div>}
    </section>
  )
}

export type ResendRef = ActorRefFrom<typeof resendVerificationMachine>

export interface ResendVerificationProps {
  readonly actorRef: ResendRef
  /** The address to send to when the child does not know it yet (the verification-pending form). */
  readonly email?: string
  readonly variant?: ButtonProps["variant"]
  readonly fullWidth?: boolean
  readonly label?: string
  /** Submit the surrounding form instead of sending directly (the form validates the address first). */
  readonly submitsForm?: boolean
}

/** The resend button and the outcome of the last request (sent, wait, already verified, failure). */
export function ResendVerification({
  actorRef,
  email,
  variant = "secondary",
  fullWidth = true,
  label = "Resend verification email",
  submitsForm = false,
}: ResendVerificationProps) {
  const request = email === undefined ? { type: "resend.requested" as const } : { type: "resend.requested" as const, email }
  // A form validates the address itself, so only the child's own state (in flight, cooling down) disables it then.
  const canResend = useSelector(actorRef, (s) => (submitsForm ? s.matches("idle") || s.matches("failed") : s.can(request)))
  const isSending = useSelector(actorRef, (s) => s.matches("sending"))
  const message = useSelector(actorRef, (s) => s.context.message)
  const tone = useSelector(actorRef, (s) => s.context.tone)
  return (
    <div className={css.resend({ fullWidth })}>
      <Button
        variant={variant}
        fullWidth={fullWidth}
        isDisabled={!canResend && !isSending}
        isPending={isSending}
        {...(submitsForm ? { type: "submit" as const } : { onPress: () => actorRef.send(request) })}
      >
        {label}
      </Button>
      {message === undefined || tone === undefined ? null : (
        <p className={css.resendStatus({ tone })} role={tone === "error" ? "alert" : "status"}>
          {message}
        </p>
      )}
    </div>
  )
}
