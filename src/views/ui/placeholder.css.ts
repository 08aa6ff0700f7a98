import { style } from "@vanilla-extract/css"
import { vars } from "./theme.css.ts"

export const screen = style({ display: "flex", flexDirection: "column", gap: vars.space.xl, width: "100%" })

export const heading = style({ display: "flex", flexDirection: "column", gap: vars.space.xs })

export const title = style({ fontSize: vars.font.sizeXxl, fontWeight: vars.font.weightBold, color: vars.color.text })

export const subtitle = style({ fontSize: vars.font.sizeMd, color: vars.color.textMuted })

export const box = style({
  display: "flex",
  flexDirection: "column",
  gap: vars.space.sm,
  padding: vars.space.xl,
  border: `1.5px dashed ${vars.color.borderStrong}`,
  borderRadius: vars.radius.lg,
  background: vars.color.surfaceMuted,
  color: vars.color.textMuted,
  fontSize: vars.font.sizeSm,
})

export const label = style({
  alignSelf: "flex-start",
  padding: `${vars.space.xxs} ${vars.space.sm}`,
  borderRadius: vars.radius.full,
  background: vars.color.warningSoft,
  color: vars.color.warningText,
  fontSize: vars.font.sizeXs,
  fontWeight: vars.font.weightSemibold,
  textTransform: "uppercase",
  letterSpacing: "0.04em",
})

export const details = style({ margin: 0, display: "grid", gridTemplateColumns: "auto 1fr", gap: `${vars.space.xs} ${vars.space.md}` })

export const term = style({ fontWeight: vars.font.weightMedium, color: vars.color.text })

export const value = style({ margin: 0, fontFamily: vars.font.mono, overflowWrap: "anywhere" })

export const footer = style({ display: "flex", gap: vars.space.md, flexWrap: "wrap", fontSize: vars.font.sizeMd })
