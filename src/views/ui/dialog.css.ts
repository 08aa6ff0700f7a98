import { keyframes, style } from "@vanilla-extract/css"
import { recipe } from "@vanilla-extract/recipes"
import { vars } from "./theme.css.ts"

const fadeIn = keyframes({ from: { opacity: 0 }, to: { opacity: 1 } })
const rise = keyframes({ from: { opacity: 0, transform: "translateY(8px) scale(0.98)" }, to: { opacity: 1, transform: "none" } })

export const overlay = style({
  position: "fixed",
  inset: 0,
  zIndex: 100,
  display: "flex",
  alignItems: "center",
  justifyContent: "center",
  padding: vars.space.lg,
  background: vars.color.overlay,
  selectors: { "&[data-entering]": { animation: `${fadeIn} 150ms ease-out` } },
})

export const modal = recipe({
  base: {
    width: "100%",
    maxHeight: "calc(100vh - 32px)",
    overflow: "auto",
    background: vars.color.surface,
    borderRadius: vars.radius.lg,
    boxShadow: vars.shadow.lg,
    outline: "none",
    selectors: { "&[data-entering]": { animation: `${rise} 180ms ease-out` } },
  },
  variants: {
    size: { sm: { maxWidth: "420px" }, md: { maxWidth: "560px" }, lg: { maxWidth: "760px" } },
  },
  defaultVariants: { size: "md" },
})

export const dialog = style({
  display: "flex",
  flexDirection: "column",
  gap: vars.space.lg,
  padding: vars.space.xl,
  outline: "none",
})

export const header = style({ display: "flex", alignItems: "flex-start", justifyContent: "space-between", gap: vars.space.md })

export const heading = style({ fontSize: vars.font.sizeXl, fontWeight: vars.font.weightSemibold })

export const footer = style({ display: "flex", justifyContent: "flex-end", gap: vars.space.sm, flexWrap: "wrap" })
