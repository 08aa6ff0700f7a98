import { style } from "@vanilla-extract/css"
import { vars } from "./theme.css.ts"

export const form = style({ display: "flex", flexDirection: "column", gap: vars.space.lg, width: "100%" })

export const actions = style({
  display: "flex",
  flexWrap: "wrap",
  justifyContent: "flex-end",
  gap: vars.space.sm,
  marginTop: vars.space.xs,
})
