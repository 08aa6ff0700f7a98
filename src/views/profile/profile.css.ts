/** Styles of Profile Settings: page header, the two form cards, the change list of the confirmation dialog. */
import { style } from "@vanilla-extract/css"
import { vars } from "../ui/theme.css.ts"

export const page = style({ display: "flex", flexDirection: "column", gap: vars.space.xl, width: "100%", maxWidth: "880px" })

export const titles = style({ display: "flex", flexDirection: "column", gap: vars.space.xs })

export const title = style({ fontSize: vars.font.sizeXxl, fontWeight: vars.font.weightBold, color: vars.color.text })

export const subtitle = style({ fontSize: vars.font.sizeMd, color: vars.color.textMuted })

export const form = style({ display: "flex", flexDirection: "column", gap: vars.space.lg })

export const twoColumns = style({
  display: "grid",
  gridTemplateColumns: "repeat(auto-fit, minmax(220px, 1fr))",
  gap: vars.space.lg,
})

export const actions = style({
  display: "flex",
  justifyContent: "flex-end",
  gap: vars.space.sm,
  flexWrap: "wrap",
  paddingTop: vars.space.sm,
  borderTop: `1px solid ${vars.color.border}`,
})

export const loading = style({
  display: "flex",
  alignItems: "center",
  gap: vars.space.sm,
  padding: `${vars.space.xl} 0`,
  color: vars.color.textMuted,
})

export const dialogBody = style({ display: "flex", flexDirection: "column", gap: vars.space.lg })

export const dialogText = style({ fontSize: vars.font.sizeMd, color: vars.color.textMuted, lineHeight: vars.font.lineHeight })

export const changes = style({
  display: "flex",
  flexDirection: "column",
  gap: vars.space.sm,
  margin: 0,
  padding: 0,
  listStyle: "none",
})

export const change = style({
  display: "grid",
  gridTemplateColumns: "110px minmax(0, 1fr)",
  gap: vars.space.sm,
  padding: vars.space.md,
  borderRadius: vars.radius.md,
  background: vars.color.surfaceMuted,
  border: `1px solid ${vars.color.border}`,
  "@media": { "screen and (max-width: 480px)": { gridTemplateColumns: "1fr" } },
})

export const changeLabel = style({ fontWeight: vars.font.weightSemibold, fontSize: vars.font.sizeSm, color: vars.color.text })

export const changeValues = style({
  display: "flex",
  alignItems: "center",
  gap: vars.space.sm,
  flexWrap: "wrap",
  fontSize: vars.font.sizeSm,
  minWidth: 0,
})

export const oldValue = style({ color: vars.color.textSubtle, textDecoration: "line-through", overflowWrap: "anywhere" })

export const newValue = style({ color: vars.color.text, fontWeight: vars.font.weightMedium, overflowWrap: "anywhere" })

export const emptyValue = style({ fontStyle: "italic" })

export const arrow = style({ color: vars.color.textSubtle, flex: "none" })

export const notice = style({ margin: 0, paddingLeft: vars.space.lg, display: "flex", flexDirection: "column", gap: vars.space.xs })

export const shortcut = style({ fontSize: vars.font.sizeXs, color: vars.color.textSubtle })

export const kbd = style({
  fontFamily: vars.font.mono,
  fontSize: vars.font.sizeXs,
  padding: `0 ${vars.space.xs}`,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.sm,
  background: vars.color.surfaceMuted,
})
