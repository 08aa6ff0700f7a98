import { keyframes, style } from "@vanilla-extract/css"
import { recipe } from "@vanilla-extract/recipes"
import { vars } from "./theme.css.ts"

const slideIn = keyframes({ from: { opacity: 0, transform: "translateY(-6px)" }, to: { opacity: 1, transform: "none" } })

export const region = style({
  position: "fixed",
  top: vars.space.lg,
  right: vars.space.lg,
  zIndex: 200,
  display: "flex",
  flexDirection: "column",
  gap: vars.space.sm,
  width: "min(380px, calc(100vw - 32px))",
  pointerEvents: "none",
})

export const toast = recipe({
  base: {
    display: "flex",
    alignItems: "flex-start",
    gap: vars.space.md,
    padding: `${vars.space.md} ${vars.space.md} ${vars.space.md} ${vars.space.lg}`,
    background: vars.color.surface,
    border: `1px solid ${vars.color.border}`,
    borderLeftWidth: "4px",
    borderRadius: vars.radius.md,
    boxShadow: vars.shadow.md,
    pointerEvents: "auto",
    animation: `${slideIn} 160ms ease-out`,
  },
  variants: {
    kind: {
      success: { borderLeftColor: vars.color.success, color: vars.color.successText },
      error: { borderLeftColor: vars.color.danger, color: vars.color.dangerText },
      info: { borderLeftColor: vars.color.info, color: vars.color.infoText },
      warning: { borderLeftColor: vars.color.warning, color: vars.color.warningText },
    },
  },
})

export const icon = style({ flexShrink: 0, marginTop: "1px" })

export const message = style({
  flex: 1,
  minWidth: 0,
  color: vars.color.text,
  fontSize: vars.font.sizeMd,
  overflowWrap: "anywhere",
})
