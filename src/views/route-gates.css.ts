import { style } from "@vanilla-extract/css"
import { vars } from "./ui/theme.css.ts"

export const fullPage = style({
  display: "flex",
  flexDirection: "column",
  alignItems: "center",
  justifyContent: "center",
  gap: vars.space.md,
  minHeight: "100vh",
  padding: vars.space.lg,
  color: vars.color.textMuted,
})

/** Inside the dashboard content area (the shell stays visible). */
export const inline = style({ display: "flex", justifyContent: "center", padding: vars.space.xxxl })

export const text = style({ fontSize: vars.font.sizeMd })

export const panel = style({
  display: "flex",
  flexDirection: "column",
  gap: vars.space.lg,
  width: "100%",
  maxWidth: "480px",
  color: vars.color.text,
})

export const actions = style({ display: "flex", flexWrap: "wrap", gap: vars.space.sm, justifyContent: "flex-end" })

export const routeMessage = style({ marginBottom: vars.space.lg })
