import { style } from "@vanilla-extract/css"
import { recipe } from "@vanilla-extract/recipes"
import { vars } from "../ui/theme.css.ts"

export const providerIcon = style({
  flex: "none",
  display: "inline-flex",
  alignItems: "center",
  justifyContent: "center",
  borderRadius: vars.radius.md,
  fontWeight: vars.font.weightBold,
  letterSpacing: "0.02em",
  lineHeight: 1,
  userSelect: "none",
})

export const statusBadge = style({ display: "inline-flex", alignItems: "center", gap: vars.space.xs })

export const gatedWrap = style({ display: "inline-flex", borderRadius: vars.radius.md, outline: "none" })

/**
 * Severity pills with text dark enough for small type (WCAG AA 4.5:1 on their tint); the kit's severity badge tones
 * use the chart colours as text, which read below 4.5:1 at 12 px.
 */
export const severity = recipe({
  base: {
    display: "inline-flex",
    alignItems: "center",
    height: "22px",
    padding: `0 ${vars.space.sm}`,
    borderRadius: vars.radius.full,
    fontSize: vars.font.sizeXs,
    fontWeight: vars.font.weightSemibold,
    lineHeight: 1,
    whiteSpace: "nowrap",
  },
  variants: {
    severity: {
      critical: { background: "#fee2e2", color: "#991b1b" },
      high: { background: "#ffedd5", color: "#9a3412" },
      medium: { background: "#fef9c3", color: "#854d0e" },
      low: { background: "#dcfce7", color: "#166534" },
      unknown: { background: vars.color.surfaceHover, color: vars.color.textMuted },
    },
  },
})

/** '+n new' / 'n fixed' badges side by side. */
export const changeBadges = style({ display: "inline-flex", flexWrap: "wrap", gap: vars.space.xs })
