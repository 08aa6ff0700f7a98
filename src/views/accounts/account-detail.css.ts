/** Styles of /dashboard/accounts/{id}: the card grid and the secret row. */
import { style } from "@vanilla-extract/css"
import { vars } from "../ui/theme.css.ts"

export const cards = style({
  display: "grid",
  gridTemplateColumns: "repeat(auto-fit, minmax(min(100%, 360px), 1fr))",
  gap: vars.space.lg,
  alignItems: "start",
})

/** A retired member's badge and line under its name (issue 31). */
export const retiredLine = style({ display: "inline-flex", alignItems: "center", gap: vars.space.xs, flexWrap: "wrap" })

export const secretRow = style({ display: "inline-flex", alignItems: "center", gap: vars.space.xs, flexWrap: "wrap" })

/** The schedule editor's first row (frequency, day, time, time zone), wrapping on narrow screens. */
export const scheduleRow = style({
  display: "grid",
  gridTemplateColumns: "repeat(auto-fit, minmax(min(100%, 160px), 1fr))",
  gap: vars.space.md,
  alignItems: "start",
})

export const scopeSet = style({ border: "none", padding: 0, margin: 0, display: "flex", flexDirection: "column", gap: vars.space.xs, minWidth: 0 })

export const scopeGrid = style({
  display: "grid",
  gridTemplateColumns: "repeat(auto-fill, minmax(min(100%, 150px), 1fr))",
  gap: vars.space.xs,
  maxHeight: "220px",
  overflowY: "auto",
})

/** One check's line on the resource page: outcome, severity, title, change. */
export const resultRow = style({ display: "flex", flexWrap: "wrap", alignItems: "center", gap: vars.space.sm })
export const badges = style({ display: "inline-flex", gap: vars.space.xs })
