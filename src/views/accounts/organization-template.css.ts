/** Styles of the add-account wizard's CloudFormation panel (issue 31): the template and commands as scrollable code. */
import { style } from "@vanilla-extract/css"
import { vars } from "../ui/theme.css.ts"

export const panel = style({
  display: "flex",
  flexDirection: "column",
  gap: vars.space.sm,
  padding: vars.space.md,
  borderRadius: vars.radius.md,
  background: vars.color.surfaceMuted,
  minWidth: 0,
})

export const code = style({
  margin: 0,
  maxHeight: "14rem",
  overflow: "auto",
  padding: vars.space.sm,
  borderRadius: vars.radius.sm,
  border: `1px solid ${vars.color.border}`,
  background: vars.color.surface,
  fontFamily: vars.font.mono,
  fontSize: vars.font.sizeXs,
  whiteSpace: "pre",
})

export const row = style({ display: "flex", flexWrap: "wrap", alignItems: "center", gap: vars.space.sm })
