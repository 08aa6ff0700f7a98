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

/** The batch page's bar spans the card (the scan lists' bar is narrow). */
export const progressRow = style({ width: "100%" })

export const message = style({ color: vars.color.textMuted, fontSize: vars.font.sizeSm, overflowWrap: "anywhere", maxWidth: 420 })

export const headerActions = style({ display: "flex", flexWrap: "wrap", gap: vars.space.sm, alignItems: "center" })

export const difference = style({ fontFamily: vars.font.mono, fontSize: vars.font.sizeXs, overflowWrap: "anywhere" })
