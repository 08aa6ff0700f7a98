/** Styles shared by the scanning screens: page header, state boxes, tables (table ≥ 1024 px, cards below), stats. */
import { globalStyle, keyframes, style } from "@vanilla-extract/css"
import { recipe } from "@vanilla-extract/recipes"
import { vars } from "../ui/theme.css.ts"

export const desktop = "screen and (min-width: 1024px)"
export const belowDesktop = "screen and (max-width: 1023.98px)"
export const phone = "screen and (max-width: 640px)"

export const page = style({ display: "flex", flexDirection: "column", gap: vars.space.xl, width: "100%", minWidth: 0 })

export const pageHeader = style({
  display: "flex",
  alignItems: "flex-start",
  justifyContent: "space-between",
  gap: vars.space.lg,
  flexWrap: "wrap",
})

export const titleRow = style({ display: "flex", alignItems: "center", gap: vars.space.md, minWidth: 0 })

export const titles = style({ display: "flex", flexDirection: "column", gap: vars.space.xs, minWidth: 0 })

export const title = style({
  fontSize: vars.font.sizeXxl,
  fontWeight: vars.font.weightBold,
  color: vars.color.text,
  overflowWrap: "anywhere",
  "@media": { [phone]: { fontSize: vars.font.sizeXl } },
})

export const subtitle = style({ fontSize: vars.font.sizeMd, color: vars.color.textMuted })

export const actions = style({ display: "flex", alignItems: "center", gap: vars.space.sm, flexWrap: "wrap" })

export const sectionTitle = style({ fontSize: vars.font.sizeLg, fontWeight: vars.font.weightSemibold, color: vars.color.text })

export const muted = style({ color: vars.color.textMuted, fontSize: vars.font.sizeSm })
export const subtle = style({ color: vars.color.textSubtle, fontSize: vars.font.sizeXs })
export const mono = style({ fontFamily: vars.font.mono, fontSize: vars.font.sizeSm, overflowWrap: "anywhere" })
export const nowrap = style({ whiteSpace: "nowrap" })
/** A long identifier (ARN, resource id): wraps anywhere rather than widen its column or the screen. */
export const identifier = style({ overflowWrap: "anywhere", wordBreak: "normal" })

/** Centered empty / error / loading boxes. */
export const stateBox = style({
  display: "flex",
  flexDirection: "column",
  alignItems: "center",
  justifyContent: "center",
  gap: vars.space.md,
  padding: `${vars.space.xxxl} ${vars.space.xl}`,
  textAlign: "center",
  color: vars.color.textMuted,
})
export const stateTitle = style({ fontSize: vars.font.sizeLg, fontWeight: vars.font.weightSemibold, color: vars.color.text })
export const stateIcon = style({ color: vars.color.textSubtle })

// ---------------------------------------------------------------------------------------------------
// Tables

export const tableWrap = style({
  overflowX: "auto",
  margin: `0 calc(-1 * ${vars.space.xl}) calc(-1 * ${vars.space.xl})`,
  borderTop: `1px solid ${vars.color.border}`,
  borderRadius: `0 0 ${vars.radius.lg} ${vars.radius.lg}`,
  selectors: { "&:focus-visible": { outline: `2px solid ${vars.color.focusRing}`, outlineOffset: -2 } },
})

export const table = style({ width: "100%", borderCollapse: "collapse", fontSize: vars.font.sizeMd })

// Tables fit their card at 1280 px (a 930 px content area beside the expanded sidebar): headings wrap between words,
// cells are padded by 12 px, dates may break between the date and the time (`DateTimeText`), and the actions column
// stays at the right edge (`stickyEnd`) should a table still be wider than its card (1024 px, long identifiers).
export const th = style({
  padding: `${vars.space.sm} ${vars.space.md}`,
  textAlign: "left",
  verticalAlign: "bottom",
  fontSize: vars.font.sizeXs,
  fontWeight: vars.font.weightSemibold,
  color: vars.color.textMuted,
  textTransform: "uppercase",
  letterSpacing: "0.04em",
  background: vars.color.surfaceMuted,
  borderBottom: `1px solid ${vars.color.border}`,
  selectors: { "&:first-child": { paddingLeft: vars.space.xl }, "&:last-child": { paddingRight: vars.space.xl } },
})

export const td = style({
  padding: `${vars.space.md} ${vars.space.md}`,
  borderBottom: `1px solid ${vars.color.border}`,
  verticalAlign: "middle",
  selectors: { "&:first-child": { paddingLeft: vars.space.xl }, "&:last-child": { paddingRight: vars.space.xl } },
})
globalStyle(`${table} tbody tr:last-child > td`, { borderBottom: "none" })

export const row = style({ selectors: { "&:hover": { background: vars.color.surfaceMuted } } })
export const clickableRow = style({ cursor: "pointer" })

export const alignEnd = style({ textAlign: "right" })

export const stickyEnd = style({
  position: "sticky",
  right: 0,
  background: vars.color.surface,
  boxShadow: `-1px 0 0 ${vars.color.border}`,
  selectors: { [`${row}:hover > &`]: { background: vars.color.surfaceMuted }, "th&": { background: vars.color.surfaceMuted } },
})

/** Desktop only (≥ 1024 px) / below desktop only. */
export const desktopOnly = style({ "@media": { [belowDesktop]: { display: "none" } } })
export const mobileOnly = style({ "@media": { [desktop]: { display: "none" } } })

// ---------------------------------------------------------------------------------------------------
// Cards list (below 1024 px)

export const cardList = style({ display: "flex", flexDirection: "column", gap: vars.space.md, listStyle: "none", padding: 0, margin: 0 })

export const itemCard = style({
  display: "flex",
  flexDirection: "column",
  gap: vars.space.sm,
  padding: vars.space.lg,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.md,
  background: vars.color.surface,
})

export const itemCardHeader = style({ display: "flex", justifyContent: "space-between", alignItems: "flex-start", gap: vars.space.md })

export const facts = style({
  display: "grid",
  gridTemplateColumns: "repeat(auto-fill, minmax(140px, 1fr))",
  gap: `${vars.space.sm} ${vars.space.lg}`,
  margin: 0,
})
export const fact = style({ display: "flex", flexDirection: "column", gap: vars.space.xxs, minWidth: 0 })
export const factLabel = style({ fontSize: vars.font.sizeXs, color: vars.color.textSubtle, textTransform: "uppercase", letterSpacing: "0.04em" })
export const factValue = style({ fontSize: vars.font.sizeMd, color: vars.color.text, overflowWrap: "anywhere", margin: 0 })

// ---------------------------------------------------------------------------------------------------
// Progress and stats

export const progress = style({ display: "flex", flexDirection: "column", gap: vars.space.xxs, minWidth: "120px" })
export const progressTrack = style({
  height: "6px",
  borderRadius: vars.radius.full,
  background: vars.color.surfaceHover,
  overflow: "hidden",
})
export const progressFill = style({ height: "100%", background: vars.color.accent, borderRadius: vars.radius.full, transition: "width 300ms ease" })
export const progressLabel = style({ fontSize: vars.font.sizeXs, color: vars.color.textMuted })

export const stats = style({
  display: "grid",
  gridTemplateColumns: "repeat(auto-fit, minmax(96px, 1fr))",
  gap: vars.space.lg,
  margin: 0,
})
export const stat = style({
  display: "flex",
  flexDirection: "column",
  gap: vars.space.xs,
  padding: vars.space.md,
  borderRadius: vars.radius.md,
  background: vars.color.surfaceMuted,
  minWidth: 0,
})
export const statValue = recipe({
  base: { fontSize: vars.font.sizeXl, fontWeight: vars.font.weightBold, color: vars.color.text, margin: 0, overflowWrap: "anywhere" },
  variants: {
    tone: {
      neutral: {},
      success: { color: vars.color.successText },
      danger: { color: vars.color.dangerText },
    },
    size: { md: {}, sm: { fontSize: vars.font.sizeMd, fontWeight: vars.font.weightSemibold } },
  },
  defaultVariants: { tone: "neutral", size: "md" },
})

// ---------------------------------------------------------------------------------------------------
// Misc

const spin = keyframes({ to: { transform: "rotate(360deg)" } })
export const spinning = style({ animation: `${spin} 900ms linear infinite` })

export const inlineIcon = style({ flex: "none", verticalAlign: "middle" })

/** The disabled look of a gated action (focusable so its tooltip can be read). */
export const gated = style({ cursor: "not-allowed", opacity: 0.55 })

export const tooltip = style({
  maxWidth: "280px",
  padding: `${vars.space.xs} ${vars.space.sm}`,
  borderRadius: vars.radius.sm,
  background: vars.color.navBackground,
  color: vars.color.textInverse,
  fontSize: vars.font.sizeSm,
  lineHeight: vars.font.lineHeight,
  boxShadow: vars.shadow.md,
})

export const loadMore = style({ display: "flex", justifyContent: "center", paddingTop: vars.space.md })

export const fieldStack = style({ display: "flex", flexDirection: "column", gap: vars.space.lg })

export const breadcrumbs = style({
  display: "flex",
  flexWrap: "wrap",
  alignItems: "center",
  gap: vars.space.xs,
  listStyle: "none",
  margin: 0,
  padding: 0,
  fontSize: vars.font.sizeSm,
  color: vars.color.textMuted,
})
export const crumb = style({ display: "inline-flex", alignItems: "center", gap: vars.space.xs })
export const crumbCurrent = style({ color: vars.color.text, fontWeight: vars.font.weightSemibold })
export const crumbPlain = style({ color: vars.color.textMuted })
