import { style } from "@vanilla-extract/css"
import { vars } from "./ui/theme.css.ts"

export const fullPage = style({
  display: "flex",
  flexDirection: "column",
  alignItems: "center",
  justifyContent: "center",
  gap: vars.space.md,
  minHeight: "100vh",
  color: vars.color.textMuted,
})

export const text = style({ fontSize: vars.font.sizeMd })
