import { style } from "@vanilla-extract/css"
import { vars } from "./theme.css.ts"

export const inputWrap = style({ position: "relative", display: "flex", alignItems: "center" })

/** Room for the toggle; doubled class so it wins over the shared control's `padding` whatever the CSS order. */
export const input = style({ selectors: { "&&": { paddingRight: "44px" } } })

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
  color: vars.color.textSubtle,
  cursor: "pointer",
  outline: "none",
  selectors: {
    "&[data-hovered]": { color: vars.color.text, background: vars.color.surfaceHover },
    "&[data-pressed]": { background: vars.color.border },
    "&[data-focus-visible]": { boxShadow: vars.shadow.focus },
    "&[data-disabled]": { cursor: "not-allowed", opacity: 0.5 },
  },
})
