/**
 * Styles of the remediate dialog's preview and the finding page's Remediation history card (issue 32): sections,
 * code blocks whose long parameters wrap and scroll inside the block (never widen a phone's screen), CLI/Terraform tabs.
 */
import { style } from "@vanilla-extract/css"
import { vars } from "../ui/theme.css.ts"

export const section = style({ display: "flex", flexDirection: "column", gap: vars.space.sm, minWidth: 0 })

export const heading = style({ margin: 0, fontSize: vars.font.sizeMd, fontWeight: vars.font.weightSemibold, color: vars.color.text })

export const list = style({ display: "flex", flexDirection: "column", gap: vars.space.sm, margin: 0, paddingLeft: vars.space.xl, minWidth: 0 })

export const plainList = style({ display: "flex", flexDirection: "column", gap: vars.space.sm, margin: 0, padding: 0, listStyle: "none", minWidth: 0 })

export const item = style({ display: "flex", flexDirection: "column", gap: vars.space.xs, minWidth: 0, overflowWrap: "anywhere" })

export const itemHead = style({ display: "flex", flexWrap: "wrap", alignItems: "center", gap: vars.space.sm, minWidth: 0 })

export const code = style({
  margin: 0,
  maxHeight: "14rem",
  overflow: "auto",
  padding: vars.space.sm,
  borderRadius: vars.radius.sm,
  border: `1px solid ${vars.color.border}`,
  background: vars.color.surfaceMuted,
  fontFamily: vars.font.mono,
  fontSize: vars.font.sizeXs,
  // A long ARN, URL or policy wraps inside the block; the block scrolls when taller than its cap.
  whiteSpace: "pre-wrap",
  overflowWrap: "anywhere",
  minWidth: 0,
  maxWidth: "100%",
})

export const tabList = style({ display: "flex", flexWrap: "wrap", gap: vars.space.xs, borderBottom: `1px solid ${vars.color.border}` })

export const tab = style({
  padding: `${vars.space.xs} ${vars.space.md}`,
  fontSize: vars.font.sizeSm,
  color: vars.color.textMuted,
  cursor: "pointer",
  outline: "none",
  borderBottom: "2px solid transparent",
  marginBottom: "-1px",
  selectors: {
    "&[data-selected]": { color: vars.color.text, borderBottomColor: vars.color.accent, fontWeight: vars.font.weightSemibold },
    "&[data-focus-visible]": { outline: `2px solid ${vars.color.accent}`, outlineOffset: "-2px" },
  },
})

export const tabPanel = style({ display: "flex", flexDirection: "column", gap: vars.space.sm, paddingTop: vars.space.sm, minWidth: 0, outline: "none" })

export const row = style({ display: "flex", flexWrap: "wrap", alignItems: "center", gap: vars.space.sm })

export const differences = style({ width: "100%", borderCollapse: "collapse", fontSize: vars.font.sizeSm, tableLayout: "fixed" })

export const cell = style({
  padding: vars.space.xs,
  borderBottom: `1px solid ${vars.color.border}`,
  textAlign: "left",
  verticalAlign: "top",
  overflowWrap: "anywhere",
  fontFamily: vars.font.mono,
  fontSize: vars.font.sizeXs,
})

export const headCell = style([cell, { fontFamily: "inherit", color: "inherit", fontWeight: vars.font.weightSemibold }])
