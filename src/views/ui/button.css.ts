import { recipe, type RecipeVariants } from "@vanilla-extract/recipes"
import { vars } from "./theme.css.ts"

export const button = recipe({
  base: {
    display: "inline-flex",
    alignItems: "center",
    justifyContent: "center",
    gap: vars.space.sm,
    border: "1px solid transparent",
    borderRadius: vars.radius.md,
    fontFamily: vars.font.body,
    fontWeight: vars.font.weightSemibold,
    lineHeight: 1,
    whiteSpace: "nowrap",
    cursor: "pointer",
    userSelect: "none",
    textDecoration: "none",
    outline: "none",
    transition: "background-color 120ms ease, border-color 120ms ease, color 120ms ease, box-shadow 120ms ease",
    selectors: {
      "&[data-focus-visible]": { boxShadow: vars.shadow.focus },
      "&[data-disabled]": { cursor: "not-allowed", opacity: 0.55 },
      "&[data-pending]": { cursor: "progress" },
    },
  },
  variants: {
    variant: {
      primary: {
        background: vars.color.accent,
        color: vars.color.textInverse,
        selectors: {
          "&[data-hovered]:not([data-disabled])": { background: vars.color.accentHover },
          "&[data-pressed]:not([data-disabled])": { background: vars.color.accentPressed },
        },
      },
      secondary: {
        background: vars.color.surface,
        color: vars.color.text,
        borderColor: vars.color.borderStrong,
        selectors: {
          "&[data-hovered]:not([data-disabled])": { background: vars.color.surfaceHover },
          "&[data-pressed]:not([data-disabled])": { background: vars.color.border },
        },
      },
      danger: {
        background: vars.color.danger,
        color: vars.color.textInverse,
        selectors: {
          "&[data-hovered]:not([data-disabled])": { background: vars.color.dangerHover },
          "&[data-pressed]:not([data-disabled])": { background: vars.color.dangerText },
        },
      },
      ghost: {
        background: "transparent",
        color: vars.color.textMuted,
        selectors: {
          "&[data-hovered]:not([data-disabled])": { background: vars.color.surfaceHover, color: vars.color.text },
          "&[data-pressed]:not([data-disabled])": { background: vars.color.border },
        },
      },
    },
    size: {
      sm: { height: "32px", padding: `0 ${vars.space.md}`, fontSize: vars.font.sizeSm },
      md: { height: "40px", padding: `0 ${vars.space.lg}`, fontSize: vars.font.sizeMd },
      lg: { height: "48px", padding: `0 ${vars.space.xl}`, fontSize: vars.font.sizeLg },
      icon: { height: "36px", width: "36px", padding: 0 },
    },
    fullWidth: {
      true: { width: "100%" },
      false: {},
    },
  },
  defaultVariants: { variant: "primary", size: "md", fullWidth: false },
})

export type ButtonVariants = NonNullable<RecipeVariants<typeof button>>
