import { style } from "@vanilla-extract/css"
import { vars } from "./ui/theme.css.ts"

export const page = style({
  display: "flex",
  flex: 1,
  alignItems: "center",
  justifyContent: "center",
  minHeight: "60vh",
  padding: vars.space.xl,
})

export const panel = style({
  display: "flex",
  flexDirection: "column",
  alignItems: "center",
  gap: vars.space.lg,
  maxWidth: "480px",
  textAlign: "center",
})

export const code = style({
  fontSize: "72px",
  fontWeight: vars.font.weightBold,
  lineHeight: 1,
  letterSpacing: "-0.02em",
  color: vars.color.accent,
})

export const title = style({ fontSize: vars.font.sizeXxl, fontWeight: vars.font.weightBold })

export const body = style({ fontSize: vars.font.sizeLg, color: vars.color.textMuted })
