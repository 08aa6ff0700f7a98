import { style } from "@vanilla-extract/css"
import { vars } from "./theme.css.ts"

/** The input with its list button inside its right edge. */
export const control = style({ position: "relative", display: "flex", alignItems: "center" })
export const input = style({ width: "100%", paddingRight: "40px" })
export const toggle = style({
  position: "absolute",
  right: vars.space.xs,
  display: "inline-flex",
  alignItems: "center",
  justifyContent: "center",
  width: "32px",
  height: "32px",
  border: "none",
  borderRadius: vars.radius.sm,
  background: "transparent",
  cursor: "pointer",
  outline: "none",
  selectors: {
    "&[data-hovered]": { background: vars.color.surfaceHover },
    "&[data-focus-visible]": { boxShadow: vars.shadow.focus },
  },
})
