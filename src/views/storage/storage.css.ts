/** Styles of the Storage page (issue 30): figures with their units, the retention form, the sortable table headers. */
import { style } from "@vanilla-extract/css"
import { vars } from "../ui/theme.css.ts"

export const figures = style({
  display: "grid",
  gridTemplateColumns: "repeat(auto-fit, minmax(130px, 1fr))",
  gap: vars.space.md,
  margin: 0,
})

export const figure = style({
  display: "flex",
  flexDirection: "column",
  gap: vars.space.xxs,
  padding: vars.space.md,
  borderRadius: vars.radius.md,
  background: vars.color.surfaceMuted,
  minWidth: 0,
})

export const figureLabel = style({ fontSize: vars.font.sizeSm, color: vars.color.textMuted })

export const figureValue = style({
  margin: 0,
  fontSize: vars.font.sizeXl,
  fontWeight: vars.font.weightBold,
  color: vars.color.text,
  overflowWrap: "anywhere",
})

export const figureNote = style({ margin: 0, fontSize: vars.font.sizeXs, color: vars.color.textMuted, overflowWrap: "anywhere" })

/** When the setting was changed and applied: wide columns (a date and an address fit on a line or two). */
export const meta = style({
  display: "grid",
  gridTemplateColumns: "repeat(auto-fit, minmax(min(100%, 280px), 1fr))",
  gap: vars.space.md,
  margin: 0,
})

export const section = style({ display: "flex", flexDirection: "column", gap: vars.space.lg })

export const sentence = style({ margin: 0, fontSize: vars.font.sizeMd, color: vars.color.text, lineHeight: vars.font.lineHeight })

export const note = style({ margin: 0, fontSize: vars.font.sizeSm, color: vars.color.textMuted, lineHeight: vars.font.lineHeight })

export const subheading = style({ margin: 0, fontSize: vars.font.sizeMd, fontWeight: vars.font.weightSemibold, color: vars.color.text })

export const form = style({ display: "flex", flexDirection: "column", gap: vars.space.lg })

export const fields = style({
  display: "grid",
  gridTemplateColumns: "repeat(auto-fit, minmax(240px, 1fr))",
  gap: vars.space.lg,
  alignItems: "start",
})

export const actions = style({
  display: "flex",
  justifyContent: "flex-end",
  gap: vars.space.sm,
  flexWrap: "wrap",
  paddingTop: vars.space.sm,
  borderTop: `1px solid ${vars.color.border}`,
})

/** A header that sorts its column: the header's own look, pressable. */
export const sortButton = style({
  display: "inline-flex",
  alignItems: "center",
  gap: vars.space.xxs,
  padding: 0,
  border: "none",
  background: "none",
  font: "inherit",
  color: "inherit",
  textTransform: "inherit",
  letterSpacing: "inherit",
  textAlign: "inherit",
  cursor: "pointer",
  borderRadius: vars.radius.sm,
  selectors: {
    "&[data-focus-visible]": { outline: `2px solid ${vars.color.focusRing}`, outlineOffset: "2px" },
    "&[data-hovered]": { color: vars.color.text },
  },
})

export const sortIcon = style({ flex: "none" })
export const sortIconUp = style({ flex: "none", transform: "rotate(180deg)" })
export const sortIconIdle = style({ flex: "none", opacity: 0.35 })

export const cell = style({ display: "flex", flexDirection: "column", gap: vars.space.xxs, minWidth: 0 })
export const cellEnd = style({ display: "flex", flexDirection: "column", gap: vars.space.xxs, alignItems: "flex-end", whiteSpace: "nowrap" })
export const unit = style({ fontSize: vars.font.sizeXs, color: vars.color.textMuted })

export const tableFooter = style({
  display: "flex",
  alignItems: "center",
  justifyContent: "space-between",
  gap: vars.space.md,
  flexWrap: "wrap",
  paddingTop: vars.space.md,
})

export const mobileSort = style({ display: "flex", alignItems: "flex-end", gap: vars.space.sm, flexWrap: "wrap" })
