import { style } from "@vanilla-extract/css"
import { vars } from "../ui/theme.css.ts"

export const providerIcon = style({
  flex: "none",
  display: "inline-flex",
  alignItems: "center",
  justifyContent: "center",
  borderRadius: vars.radius.md,
  fontWeight: vars.font.weightBold,
  letterSpacing: "0.02em",
  lineHeight: 1,
  userSelect: "none",
})

export const statusBadge = style({ display: "inline-flex", alignItems: "center", gap: vars.space.xs })

export const gatedWrap = style({ display: "inline-flex", borderRadius: vars.radius.md, outline: "none" })
