/** Styles of the Compliance screens (values from the theme contract `vars`). */
import { style } from "@vanilla-extract/css"
import { recipe } from "@vanilla-extract/recipes"
import { vars } from "../ui/theme.css.ts"
import { belowDesktop, phone } from "../scanning/scanning.css.ts"

export const toolbar = style({ display: "flex", flexWrap: "wrap", alignItems: "flex-end", gap: vars.space.md })
export const picker = style({ minWidth: "240px", maxWidth: "100%", "@media": { [phone]: { minWidth: 0, width: "100%" } } })

export const frameworkGrid = style({
  display: "grid",
  gridTemplateColumns: "repeat(auto-fill, minmax(280px, 1fr))",
  gap: vars.space.lg,
  listStyle: "none",
  padding: 0,
  margin: 0,
  "@media": { [phone]: { gridTemplateColumns: "1fr" } },
})

export const frameworkCard = style({
  display: "flex",
  flexDirection: "column",
  gap: vars.space.md,
  padding: vars.space.lg,
  background: vars.color.surface,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.lg,
  minWidth: 0,
})
export const frameworkName = style({ fontSize: vars.font.sizeLg, fontWeight: vars.font.weightSemibold, color: vars.color.text, margin: 0 })

export const score = style({ fontSize: vars.font.sizeDisplay, fontWeight: vars.font.weightSemibold, color: vars.color.text, lineHeight: 1 })

export const statusBar = style({
  display: "flex",
  height: "10px",
  borderRadius: vars.radius.full,
  overflow: "hidden",
  background: vars.color.surfaceHover,
})
export const statusSegment = recipe({
  base: { height: "100%" },
  variants: {
    status: {
      passed: { background: vars.color.success },
      passed_with_exceptions: { background: vars.color.accent },
      failed: { background: vars.color.danger },
      not_evaluated: { background: vars.color.warning },
      manual: { background: vars.color.textSubtle },
      not_applicable: { background: vars.color.borderStrong },
    },
  },
})
export const legend = style({ display: "flex", flexWrap: "wrap", gap: vars.space.md, listStyle: "none", padding: 0, margin: 0, fontSize: vars.font.sizeSm, color: vars.color.textMuted })

export const layout = style({
  display: "grid",
  gridTemplateColumns: "minmax(200px, 260px) minmax(0, 1fr)",
  gap: vars.space.xl,
  alignItems: "start",
  "@media": { [belowDesktop]: { gridTemplateColumns: "minmax(0, 1fr)" } },
})

export const tree = style({ display: "flex", flexDirection: "column", gap: vars.space.xxs, listStyle: "none", padding: 0, margin: 0 })
export const treeItem = recipe({
  base: {
    display: "flex",
    justifyContent: "space-between",
    gap: vars.space.sm,
    width: "100%",
    padding: `${vars.space.xs} ${vars.space.sm}`,
    border: "none",
    borderRadius: vars.radius.md,
    background: "transparent",
    color: vars.color.text,
    fontSize: vars.font.sizeSm,
    textAlign: "left",
    cursor: "pointer",
    selectors: {
      "&[data-hovered]": { background: vars.color.surfaceHover },
      "&[data-selected]": { background: vars.color.accentSoft, color: vars.color.accentText, fontWeight: vars.font.weightSemibold },
      "&[data-focus-visible]": { outline: `2px solid ${vars.color.focusRing}`, outlineOffset: "1px" },
    },
  },
  variants: { depth: { 0: {}, 1: { paddingLeft: vars.space.xl } } },
})

export const filters = style({ display: "flex", flexWrap: "wrap", gap: vars.space.md, alignItems: "flex-end" })

export const trend = style({ width: "100%", height: "auto", maxHeight: "160px", display: "block" })
export const trendLine = style({ fill: "none", stroke: vars.color.accent, strokeWidth: 2 })
export const trendDot = style({ fill: vars.color.accent })
export const trendAxis = style({ stroke: vars.color.border, strokeWidth: 1 })
export const trendLabel = style({ fill: vars.color.textMuted, fontSize: "10px" })

export const progressRow = style({ display: "flex", alignItems: "center", gap: vars.space.md, flexWrap: "wrap", minWidth: 0 })
/** On a phone the page's actions take a line of their own (and wrap inside it) instead of overflowing beside the title. */
export const headerActions = style({ minWidth: 0, "@media": { [phone]: { flexBasis: "100%" } } })
export const pager = style({ display: "flex", alignItems: "center", justifyContent: "flex-end", gap: vars.space.md, paddingTop: vars.space.md })
export const reason = style({ color: vars.color.textMuted, fontSize: vars.font.sizeSm, overflowWrap: "anywhere" })
// 200 px: the table fits beside the section tree at 1280 px even with a "Passed with exceptions" badge in the row.
export const requirementTitle = style({ minWidth: "200px", maxWidth: "560px" })
