/** Styles of the scan detail, findings and finding screens (severity chart, filters, details table, remediation). */
import { style } from "@vanilla-extract/css"
import { recipe } from "@vanilla-extract/recipes"
import { vars } from "../ui/theme.css.ts"

export const summary = style({
  display: "grid",
  gridTemplateColumns: "minmax(0, 3fr) minmax(240px, 2fr)",
  gap: vars.space.xl,
  "@media": { "screen and (max-width: 900px)": { gridTemplateColumns: "minmax(0, 1fr)" } },
})

export const failedCount = style({ color: vars.color.dangerText, fontWeight: vars.font.weightSemibold })

/** A service below 1024 px: name, status and counts, with 'View findings' beside (beneath on phones). */
export const serviceItem = style({
  display: "flex",
  alignItems: "center",
  justifyContent: "space-between",
  gap: vars.space.md,
  padding: vars.space.md,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.md,
  background: vars.color.surface,
  "@media": { "screen and (max-width: 480px)": { flexDirection: "column", alignItems: "stretch" } },
})
export const serviceMain = style({ display: "flex", flexDirection: "column", gap: vars.space.xs, minWidth: 0, flex: 1 })

export const breakdown = style({
  display: "flex",
  flexDirection: "column",
  gap: vars.space.md,
  padding: vars.space.lg,
  borderRadius: vars.radius.md,
  background: vars.color.surfaceMuted,
})

export const bars = style({ display: "flex", flexDirection: "column", gap: vars.space.sm, listStyle: "none", margin: 0, padding: 0 })
export const barRow = style({
  display: "grid",
  gridTemplateColumns: "72px minmax(0, 1fr) 40px",
  alignItems: "center",
  gap: vars.space.sm,
  fontSize: vars.font.sizeSm,
})
export const barLabel = style({ color: vars.color.text })
export const barTrack = style({ height: "10px", borderRadius: vars.radius.full, background: vars.color.surfaceHover, overflow: "hidden" })
export const barFill = recipe({
  base: { display: "block", height: "100%", borderRadius: vars.radius.full, minWidth: "2px" },
  variants: {
    severity: {
      critical: { background: vars.color.severityCritical },
      high: { background: vars.color.severityHigh },
      medium: { background: vars.color.severityMedium },
      low: { background: vars.color.severityLow },
    },
  },
})
export const barValue = style({ textAlign: "right", fontWeight: vars.font.weightSemibold, color: vars.color.text })

// Findings list

export const filters = style({
  display: "flex",
  flexWrap: "wrap",
  gap: vars.space.xl,
  padding: vars.space.lg,
  borderRadius: vars.radius.md,
  background: vars.color.surfaceMuted,
})
export const filterGroup = style({ display: "flex", flexDirection: "column", gap: vars.space.sm, border: "none", margin: 0, padding: 0 })
export const filterLegend = style({
  fontSize: vars.font.sizeXs,
  fontWeight: vars.font.weightSemibold,
  color: vars.color.textMuted,
  textTransform: "uppercase",
  letterSpacing: "0.04em",
  marginBottom: vars.space.xs,
})
export const filterOptions = style({ display: "flex", flexWrap: "wrap", gap: vars.space.md })

export const findingDescription = style({ display: "flex", flexDirection: "column", gap: vars.space.xxs, minWidth: "240px" })

// Finding detail

export const detailHeader = style({ display: "flex", flexWrap: "wrap", gap: vars.space.sm, alignItems: "center" })

export const valueList = style({ margin: 0, paddingLeft: vars.space.lg })

export const lengthNote = style({ display: "block", fontSize: vars.font.sizeXs, color: vars.color.textSubtle })

/** Text cells keep whole words where they can (break-word, unlike anywhere, leaves min-content at the longest word). */
export const detailCell = style({ minWidth: "5rem", maxWidth: "420px", overflowWrap: "break-word" })

export const complianceRefs = style({ display: "flex", flexWrap: "wrap", gap: vars.space.xs, listStyle: "none", margin: 0, padding: 0 })
export const complianceRef = style({
  padding: `2px ${vars.space.sm}`,
  borderRadius: vars.radius.sm,
  background: vars.color.surfaceHover,
  color: vars.color.textMuted,
  fontSize: vars.font.sizeXs,
  fontWeight: vars.font.weightSemibold,
})

export const guidance = style({
  margin: 0,
  padding: vars.space.lg,
  borderRadius: vars.radius.md,
  background: vars.color.infoSoft,
  color: vars.color.infoText,
  lineHeight: vars.font.lineHeight,
  // Remediation text may hold a policy document or an ARN: it wraps rather than widen a phone's screen.
  overflowWrap: "anywhere",
})

export const remediationMessage = style({
  margin: 0,
  whiteSpace: "pre-wrap",
  overflowWrap: "anywhere",
  lineHeight: vars.font.lineHeight,
  color: vars.color.text,
})

/** Finding detail: search and status filter above the resource table, pager below it. */
export const detailsToolbar = style({
  display: "flex",
  flexWrap: "wrap",
  alignItems: "flex-end",
  gap: vars.space.lg,
  marginBottom: vars.space.lg,
})
export const detailsSearch = style({ flex: "1 1 240px", maxWidth: 420 })
export const detailsStatus = style({ flex: "0 1 200px" })
export const pager = style({
  display: "flex",
  flexWrap: "wrap",
  alignItems: "center",
  justifyContent: "space-between",
  gap: vars.space.md,
  marginTop: vars.space.lg,
})
export const pagerButtons = style({ display: "flex", gap: vars.space.sm })

/** Remediate and Mute side by side in a row's action cell. */
export const rowActions = style({ display: "inline-flex", gap: vars.space.xs, alignItems: "center", justifyContent: "flex-end", flexWrap: "wrap" })

/** A muted row's compliance: the badges, then the rule's reason. */
export const mutedCell = style({ display: "flex", flexDirection: "column", gap: vars.space.xxs, maxWidth: "240px" })
export const badgeRow = style({ display: "inline-flex", gap: vars.space.xs })

/** Findings list: the rows fade while the server answers new filters (the rows shown stay until it does). */
export const findingsResults = style({
  minWidth: 0,
  transition: "opacity 150ms ease",
  selectors: { '&[aria-busy="true"]': { opacity: 0.6 } },
})
/** Findings list: a finding's resources, and under it how many match the region / search filters. */
export const resourcesCell = style({ display: "flex", flexDirection: "column", gap: vars.space.xxs, minWidth: "8rem" })
