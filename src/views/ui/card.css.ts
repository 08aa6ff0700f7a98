import { style } from "@vanilla-extract/css"
import { recipe } from "@vanilla-extract/recipes"
import { vars } from "./theme.css.ts"

export const card = recipe({
  base: {
    display: "flex",
    flexDirection: "column",
    gap: vars.space.lg,
    background: vars.color.surface,
    border: `1px solid ${vars.color.border}`,
    borderRadius: vars.radius.lg,
    boxShadow: vars.shadow.sm,
    minWidth: 0,
  },
  variants: {
    padding: { none: { padding: 0 }, md: { padding: vars.space.lg }, lg: { padding: vars.space.xl } },
  },
  defaultVariants: { padding: "lg" },
})

export const header = style({
  display: "flex",
  alignItems: "flex-start",
  justifyContent: "space-between",
  gap: vars.space.md,
  flexWrap: "wrap",
})

export const titles = style({ display: "flex", flexDirection: "column", gap: vars.space.xxs, minWidth: 0 })

export const title = style({ fontSize: vars.font.sizeLg, fontWeight: vars.font.weightSemibold })

export const description = style({ fontSize: vars.font.sizeSm, color: vars.color.textMuted })

export const actions = style({ display: "flex", gap: vars.space.sm, flexWrap: "wrap" })
