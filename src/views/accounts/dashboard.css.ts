/** Styles of /dashboard: the account cards grid, the provider cards, and the add-account wizard. */
import { globalStyle, style } from "@vanilla-extract/css"
import { recipe } from "@vanilla-extract/recipes"
import { vars } from "../ui/theme.css.ts"

export const grid = style({
  display: "grid",
  gridTemplateColumns: "repeat(auto-fill, minmax(280px, 1fr))",
  gap: vars.space.lg,
  listStyle: "none",
  margin: 0,
  padding: 0,
})

export const accountCard = style({
  position: "relative",
  display: "flex",
  flexDirection: "column",
  gap: vars.space.md,
  height: "100%",
  padding: vars.space.lg,
  background: vars.color.surface,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.lg,
  boxShadow: vars.shadow.sm,
  transition: "border-color 120ms ease, box-shadow 120ms ease",
  selectors: { "&:hover": { borderColor: vars.color.borderStrong, boxShadow: vars.shadow.md } },
})

/** The whole upper part of a card opens the account. */
export const cardOpen = style({
  display: "flex",
  alignItems: "flex-start",
  gap: vars.space.md,
  width: "100%",
  padding: 0,
  border: "none",
  background: "transparent",
  textAlign: "left",
  cursor: "pointer",
  color: "inherit",
  font: "inherit",
  borderRadius: vars.radius.md,
  outline: "none",
  selectors: { "&[data-focus-visible]": { boxShadow: vars.shadow.focus } },
})

export const cardTitles = style({ display: "flex", flexDirection: "column", gap: vars.space.xxs, minWidth: 0, flex: 1 })

export const cardName = style({
  fontSize: vars.font.sizeLg,
  fontWeight: vars.font.weightSemibold,
  color: vars.color.text,
  overflow: "hidden",
  textOverflow: "ellipsis",
  whiteSpace: "nowrap",
})

export const cardFooter = style({
  display: "flex",
  alignItems: "center",
  justifyContent: "space-between",
  gap: vars.space.sm,
  marginTop: "auto",
  paddingTop: vars.space.md,
  borderTop: `1px solid ${vars.color.border}`,
})

export const promoCard = style({
  display: "flex",
  flexDirection: "column",
  alignItems: "center",
  justifyContent: "center",
  gap: vars.space.sm,
  height: "100%",
  minHeight: "180px",
  padding: vars.space.lg,
  border: `2px dashed ${vars.color.borderStrong}`,
  borderRadius: vars.radius.lg,
  background: vars.color.surfaceMuted,
  textAlign: "center",
  color: vars.color.textMuted,
})

export const connectCard = style({
  display: "flex",
  flexDirection: "column",
  alignItems: "center",
  gap: vars.space.md,
  padding: `${vars.space.xxxl} ${vars.space.xl}`,
  textAlign: "center",
})

export const providerRow = style({ display: "flex", gap: vars.space.md, justifyContent: "center", flexWrap: "wrap" })

export const skeletonCard = style({
  height: "180px",
  borderRadius: vars.radius.lg,
  background: vars.color.skeleton,
  border: `1px solid ${vars.color.border}`,
})

// ---------------------------------------------------------------------------------------------------
// Wizard

export const steps = style({
  display: "flex",
  gap: vars.space.md,
  listStyle: "none",
  margin: 0,
  padding: 0,
  flexWrap: "wrap",
  fontSize: vars.font.sizeSm,
  color: vars.color.textMuted,
})

export const step = style({
  display: "inline-flex",
  alignItems: "center",
  gap: vars.space.xs,
  selectors: { "&[data-active]": { color: vars.color.text, fontWeight: vars.font.weightSemibold } },
})

export const stepNumber = style({
  display: "inline-flex",
  alignItems: "center",
  justifyContent: "center",
  width: "22px",
  height: "22px",
  borderRadius: vars.radius.full,
  background: vars.color.surfaceHover,
  fontSize: vars.font.sizeXs,
  selectors: {
    [`${step}[data-active] &`]: { background: vars.color.accent, color: vars.color.textInverse },
    [`${step}[data-done] &`]: { background: vars.color.successSoft, color: vars.color.successText },
  },
})

export const providerGrid = style({
  display: "grid",
  gridTemplateColumns: "repeat(auto-fill, minmax(140px, 1fr))",
  gap: vars.space.md,
})

export const providerTile = style({
  display: "flex",
  flexDirection: "column",
  alignItems: "center",
  gap: vars.space.sm,
  width: "100%",
  padding: `${vars.space.lg} ${vars.space.md}`,
  border: `1px solid ${vars.color.borderStrong}`,
  borderRadius: vars.radius.md,
  background: vars.color.surface,
  color: vars.color.text,
  font: "inherit",
  cursor: "pointer",
  outline: "none",
  selectors: {
    "&[data-hovered]:not([data-disabled])": { background: vars.color.surfaceHover, borderColor: vars.color.accent },
    "&[data-focus-visible]": { boxShadow: vars.shadow.focus },
    "&[data-disabled]": { cursor: "not-allowed", opacity: 0.6 },
  },
})

export const providerTileName = style({ fontWeight: vars.font.weightSemibold })

export const methodGroup = style({ display: "flex", flexDirection: "column", gap: vars.space.xs })
export const methodLabel = style({ fontSize: vars.font.sizeSm, fontWeight: vars.font.weightMedium, color: vars.color.text })
export const methodOptions = style({ display: "flex", gap: vars.space.sm, flexWrap: "wrap" })
export const methodOption = style({
  display: "inline-flex",
  alignItems: "center",
  padding: `${vars.space.xs} ${vars.space.md}`,
  border: `1px solid ${vars.color.borderStrong}`,
  borderRadius: vars.radius.full,
  fontSize: vars.font.sizeSm,
  cursor: "pointer",
  outline: "none",
  selectors: {
    "&[data-selected]": { background: vars.color.accentSoft, borderColor: vars.color.accent, color: vars.color.accentText },
    "&[data-focus-visible]": { boxShadow: vars.shadow.focus },
    "&[data-disabled]": { opacity: 0.55, cursor: "not-allowed" },
  },
})

export const externalId = style({
  display: "flex",
  flexDirection: "column",
  gap: vars.space.xs,
  padding: vars.space.md,
  borderRadius: vars.radius.md,
  background: vars.color.surfaceMuted,
})

export const connected = style({
  display: "flex",
  flexDirection: "column",
  alignItems: "center",
  gap: vars.space.sm,
  padding: `${vars.space.xl} 0`,
  textAlign: "center",
})
export const connectedIcon = style({ color: vars.color.success })

// ---------------------------------------------------------------------------------------------------
// Posture section (issue 13)

const severityFill = {
  critical: vars.color.severityCritical,
  high: vars.color.severityHigh,
  medium: vars.color.severityMedium,
  low: vars.color.severityLow,
} as const

export const trendGrid = style({
  display: "grid",
  gridTemplateColumns: "repeat(auto-fill, minmax(min(100%, 320px), 1fr))",
  gap: vars.space.lg,
  alignItems: "start",
})

export const trendChart = style({ width: "100%", maxWidth: "320px", height: "96px", display: "block" })

export const trendBar = recipe({
  variants: { severity: Object.fromEntries(Object.entries(severityFill).map(([k, v]) => [k, { fill: v }])) as Record<keyof typeof severityFill, { fill: string }> },
})

export const legend = style({ display: "flex", flexWrap: "wrap", gap: vars.space.md, listStyle: "none", margin: 0, padding: 0, fontSize: vars.font.sizeXs, color: vars.color.textMuted })
export const legendItem = style({ display: "inline-flex", alignItems: "center", gap: vars.space.xxs, textTransform: "capitalize" })
export const legendSwatch = recipe({
  base: { display: "inline-block", width: "10px", height: "10px", borderRadius: "2px" },
  variants: { severity: Object.fromEntries(Object.entries(severityFill).map(([k, v]) => [k, { background: v }])) as Record<keyof typeof severityFill, { background: string }> },
})

export const trendTable = style({ width: "100%", borderCollapse: "collapse", fontSize: vars.font.sizeSm })
globalStyle(`${trendTable} th, ${trendTable} td`, { textAlign: "left", padding: `${vars.space.xxs} ${vars.space.xs}` })

export const staleList = style({ margin: 0, paddingLeft: vars.space.lg })

export const topChecks = style({ display: "flex", flexDirection: "column", gap: vars.space.sm, margin: 0, paddingLeft: vars.space.lg })
export const topCheck = style({ display: "flex", flexWrap: "wrap", alignItems: "center", gap: vars.space.sm })
export const topCheckTitle = style({ color: vars.color.text, fontSize: vars.font.sizeMd })

/** An organisation's or member's line on its card (issue 31): a badge and the link to the organisation page. */
export const orgLine = style({ display: "flex", flexWrap: "wrap", alignItems: "center", gap: vars.space.sm, minWidth: 0, overflowWrap: "anywhere" })
