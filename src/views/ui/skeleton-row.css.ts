import { keyframes, style } from "@vanilla-extract/css"
import { vars } from "./theme.css.ts"

const shimmer = keyframes({ from: { backgroundPosition: "200% 0" }, to: { backgroundPosition: "-200% 0" } })

export const bar = style({
  display: "block",
  height: "12px",
  borderRadius: vars.radius.sm,
  background: `linear-gradient(90deg, ${vars.color.skeleton} 25%, ${vars.color.skeletonShine} 50%, ${vars.color.skeleton} 75%)`,
  backgroundSize: "200% 100%",
  animation: `${shimmer} 1.4s ease-in-out infinite`,
})

export const cell = style({ padding: `${vars.space.md} ${vars.space.lg}` })

export const row = style({ borderBottom: `1px solid ${vars.color.border}` })
