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

/** The card of a full-page gate problem (user or workspaces could not be loaded). */
export const problem = style({
  display: "flex",
  flexDirection: "column",
  gap: vars.space.lg,
  width: "100%",
  maxWidth: "480px",
  padding: vars.space.xl,
  background: vars.color.surface,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.lg,
  boxShadow: vars.shadow.sm,
  color: vars.color.text,
})

export const brand = style({
  display: "flex",
  alignItems: "center",
  gap: vars.space.sm,
  fontSize: vars.font.sizeMd,
  fontWeight: vars.font.weightBold,
  color: vars.color.text,
})

export const brandMark = style({
  display: "inline-flex",
  alignItems: "center",
  justifyContent: "center",
  width: "32px",
  height: "32px",
  borderRadius: vars.radius.md,
  background: vars.color.accent,
  color: vars.color.textInverse,
})

export const title = style({
  fontSize: vars.font.sizeXl,
  fontWeight: vars.font.weightBold,
  lineHeight: vars.font.lineHeightTight,
})

export const actions = style({ display: "flex", flexWrap: "wrap", gap: vars.space.sm, justifyContent: "flex-end" })

export const routeMessage = style({ marginBottom: vars.space.lg })
