import { keyframes, style } from "@vanilla-extract/css"
import { vars } from "./theme.css.ts"

const fadeIn = keyframes({ from: { opacity: 0 }, to: { opacity: 1 } })

export const backdrop = style({
  position: "fixed",
  inset: 0,
  zIndex: 150,
  display: "flex",
  alignItems: "center",
  justifyContent: "center",
  padding: vars.space.lg,
  background: vars.color.overlay,
  animation: `${fadeIn} 150ms ease-out`,
})

export const panel = style({
  display: "flex",
  flexDirection: "column",
  alignItems: "center",
  gap: vars.space.md,
  minWidth: "260px",
  maxWidth: "420px",
  padding: vars.space.xl,
  background: vars.color.surface,
  borderRadius: vars.radius.lg,
  boxShadow: vars.shadow.lg,
  textAlign: "center",
})

export const message = style({ fontWeight: vars.font.weightMedium, color: vars.color.text })

export const progress = style({ display: "flex", flexDirection: "column", gap: vars.space.xs, width: "100%" })

export const track = style({
  height: "8px",
  width: "100%",
  overflow: "hidden",
  borderRadius: vars.radius.full,
  background: vars.color.surfaceHover,
})

export const fill = style({ height: "100%", background: vars.color.accent, transition: "width 200ms ease" })

export const percent = style({ fontSize: vars.font.sizeXs, color: vars.color.textSubtle })
