/** Styles of the Account groups page (issue 31 item 5): group cards, the group form's account picker. */
import { style } from "@vanilla-extract/css"
import { vars } from "../ui/theme.css.ts"

export const toolbar = style({ display: "flex", justifyContent: "space-between", alignItems: "center", gap: vars.space.md, flexWrap: "wrap" })

export const groupName = style({ margin: 0, fontSize: vars.font.sizeMd, fontWeight: vars.font.weightSemibold, color: vars.color.text, overflowWrap: "anywhere" })

export const groupTitle = style({ display: "flex", alignItems: "center", gap: vars.space.sm, flexWrap: "wrap", minWidth: 0 })

export const groupActions = style({ display: "flex", gap: vars.space.sm, flexShrink: 0 })

export const note = style({ margin: 0, fontSize: vars.font.sizeSm, color: vars.color.textMuted, lineHeight: vars.font.lineHeight })

export const accountNames = style({ margin: 0, fontSize: vars.font.sizeSm, color: vars.color.text, lineHeight: vars.font.lineHeight, overflowWrap: "anywhere" })

export const form = style({ display: "flex", flexDirection: "column", gap: vars.space.lg })

export const picker = style({
  display: "flex",
  flexDirection: "column",
  gap: vars.space.sm,
  maxHeight: "260px",
  overflowY: "auto",
  margin: 0,
  padding: vars.space.md,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.md,
})

export const legend = style({ fontSize: vars.font.sizeSm, fontWeight: vars.font.weightSemibold, color: vars.color.text, padding: `0 ${vars.space.xs}` })

export const pickerLabel = style({ display: "flex", flexDirection: "column", minWidth: 0, overflowWrap: "anywhere" })

export const subtle = style({ fontSize: vars.font.sizeXs, color: vars.color.textMuted })

export const fieldError = style({ margin: 0, fontSize: vars.font.sizeSm, color: vars.color.dangerText })

export const dialogBody = style({ display: "flex", flexDirection: "column", gap: vars.space.lg })
