import { style } from "@vanilla-extract/css"
import { recipe } from "@vanilla-extract/recipes"
import { vars } from "./theme.css.ts"

export const popover = style({
  minWidth: "192px",
  background: vars.color.surface,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.md,
  boxShadow: vars.shadow.md,
  outline: "none",
  overflow: "auto",
})

export const menu = style({ padding: vars.space.xs, outline: "none" })

export const item = recipe({
  base: {
    display: "flex",
    alignItems: "center",
    gap: vars.space.sm,
    minHeight: "40px",
    padding: `0 ${vars.space.md}`,
    borderRadius: vars.radius.sm,
    fontSize: vars.font.sizeMd,
    cursor: "pointer",
    outline: "none",
    textDecoration: "none",
    selectors: {
      "&[data-focused]": { background: vars.color.surfaceHover },
      "&[data-pressed]": { background: vars.color.border },
      "&[data-disabled]": { opacity: 0.5, cursor: "not-allowed" },
    },
  },
  variants: {
    tone: {
      neutral: { color: vars.color.text },
      danger: { color: vars.color.dangerText, selectors: { "&[data-focused]": { background: vars.color.dangerSoft } } },
    },
  },
  defaultVariants: { tone: "neutral" },
})

export const separator = style({ height: "1px", margin: `${vars.space.xs} 0`, background: vars.color.border })
