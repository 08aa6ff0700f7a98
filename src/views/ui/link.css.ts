import { recipe } from "@vanilla-extract/recipes"
import { vars } from "./theme.css.ts"

export const link = recipe({
  base: {
    cursor: "pointer",
    outline: "none",
    borderRadius: vars.radius.sm,
    selectors: {
      "&[data-focus-visible]": { boxShadow: vars.shadow.focus },
      "&[data-disabled]": { cursor: "not-allowed", opacity: 0.55 },
    },
  },
  variants: {
    variant: {
      inline: {
        color: vars.color.accent,
        fontWeight: vars.font.weightMedium,
        textDecoration: "none",
        selectors: { "&[data-hovered]": { textDecoration: "underline", color: vars.color.accentHover } },
      },
      subtle: {
        color: vars.color.textMuted,
        textDecoration: "none",
        selectors: { "&[data-hovered]": { color: vars.color.text, textDecoration: "underline" } },
      },
      button: {
        display: "inline-flex",
        alignItems: "center",
        justifyContent: "center",
        gap: vars.space.sm,
        height: "40px",
        padding: `0 ${vars.space.lg}`,
        borderRadius: vars.radius.md,
        background: vars.color.accent,
        color: vars.color.textInverse,
        fontWeight: vars.font.weightSemibold,
        textDecoration: "none",
        selectors: {
          "&[data-hovered]": { background: vars.color.accentHover },
          "&[data-pressed]": { background: vars.color.accentPressed },
        },
      },
    },
  },
  defaultVariants: { variant: "inline" },
})
