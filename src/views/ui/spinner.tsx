/** Spinner: an indeterminate react-aria `ProgressBar` (role=progressbar, labelled), drawn as a rotating arc. */
import { ProgressBar } from "react-aria-components"
import * as css from "./spinner.css.ts"

const SIZES = { sm: 14, md: 20, lg: 32 } as const

export interface SpinnerProps {
  readonly size?: keyof typeof SIZES
  readonly tone?: "accent" | "muted" | "inherit" | "inverse"
  readonly "aria-label"?: string
  readonly className?: string
}

export function Spinner({ size = "md", tone = "accent", "aria-label": label = "Loading", className }: SpinnerProps) {
  const px = SIZES[size]
  return (
    <ProgressBar isIndeterminate aria-label={label} className={[css.spinner({ tone }), className].filter(Boolean).join(" ")}>
      <svg className={css.svg} width={px} height={px} viewBox="0 0 24 24" fill="none" aria-hidden="true">
        <circle className={css.track} cx="12" cy="12" r="9" stroke="currentColor" strokeWidth="3" />
        <path d="M21 12a9 9 0 0 0-9-9" stroke="currentColor" strokeWidth="3" strokeLinecap="round" />
      </svg>
    </ProgressBar>
  )
}
