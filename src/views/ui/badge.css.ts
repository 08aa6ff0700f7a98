import { recipe, type RecipeVariants } from "@vanilla-extract/recipes"
import { vars } from "./theme.css.ts"

export const badge = recipe({
  base: {
    display: "inline-flex",
    alignItems: "center",
    gap: vars.space.xs,
    height: "22px",
    padding: `0 ${vars.space.sm}`,
    borderRadius: vars.radius.full,
    fontSize: vars.font.sizeXs,
    fontWeight: vars.font.weightSemibold,
    lineHeight: 1,
    whiteSpace: "nowrap",
    border: "1px solid transparent",
  },
  variants: {
    tone: {
      neutral: { background: vars.color.surfaceHover, color: vars.color.textMuted },
      accent: { background: vars.color.accentSoft, color: vars.color.accentText },
      success: { background: vars.color.successSoft, color: vars.color.successText },
      warning: { background: vars.color.warningSoft, color: vars.color.warningText },
      danger: { background: vars.color.dangerSoft, color: vars.color.dangerText },
      critical: { background: vars.color.severityCriticalSoft, color: vars.color.severityCritical },
      high: { background: vars.color.severityHighSoft, color: vars.color.severityHigh },
      medium: { background: vars.color.severityMediumSoft, color: "#854d0e" },
      low: { background: vars.color.severityLowSoft, color: "#15803d" },
    },
    /** Emphasised badges (e.g. Owner and Admin roles) get a solid outline. */
    emphasis: {
      true: { borderColor: "currentColor" },
      false: {},
    },
  },
  defaultVariants: { tone: "neutral", emphasis: false },
})

export type BadgeVariants = NonNullable<RecipeVariants<typeof badge>>
