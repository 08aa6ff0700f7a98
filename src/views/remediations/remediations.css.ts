/** Styles of bulk remediation (issue 32 part 4): the selection bar, the confirmation, the batch page. */
import { style } from "@vanilla-extract/css"
import { vars } from "../ui/theme.css.ts"

export const selectionBar = style({
  display: "flex",
  flexWrap: "wrap",
  alignItems: "center",
  justifyContent: "space-between",
  gap: vars.space.sm,
  padding: `${vars.space.sm} ${vars.space.md}`,
  borderRadius: vars.radius.md,
  background: vars.color.accentSoft,
  color: vars.color.accentText,
})

export const confirmCount = style({ margin: 0, fontWeight: 600, color: vars.color.text })

export const selectCell = style({ width: 32 })

export const counts = style({
  display: "grid",
  gridTemplateColumns: "repeat(auto-fit, minmax(min(100%, 120px), 1fr))",
  gap: vars.space.md,
  margin: 0,
})

export const progressRow = style({ display: "flex", flexDirection: "column", gap: vars.space.xs })

export const progressTrack = style({
  height: 10,
  width: "100%",
  borderRadius: vars.radius.full,
  background: vars.color.surfaceHover,
  overflow: "hidden",
})

export const progressFill = style({ height: "100%", background: vars.color.accent, borderRadius: vars.radius.full, transition: "width 300ms ease" })

export const message = style({ color: vars.color.textMuted, fontSize: vars.font.sizeSm, overflowWrap: "anywhere", maxWidth: 420 })

export const headerActions = style({ display: "flex", flexWrap: "wrap", gap: vars.space.sm, alignItems: "center" })

export const difference = style({ fontFamily: vars.font.mono, fontSize: vars.font.sizeXs, overflowWrap: "anywhere" })
