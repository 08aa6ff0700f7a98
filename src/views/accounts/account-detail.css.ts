/** Styles of /dashboard/accounts/{id}: the card grid and the secret row. */
import { style } from "@vanilla-extract/css"
import { vars } from "../ui/theme.css.ts"

export const cards = style({
  display: "grid",
  gridTemplateColumns: "repeat(auto-fit, minmax(min(100%, 360px), 1fr))",
  gap: vars.space.lg,
  alignItems: "start",
})

export const secretRow = style({ display: "inline-flex", alignItems: "center", gap: vars.space.xs, flexWrap: "wrap" })
