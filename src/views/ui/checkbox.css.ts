import { style } from "@vanilla-extract/css"
import { vars } from "./theme.css.ts"

export const checkbox = style({
  display: "inline-flex",
  alignItems: "center",
  gap: vars.space.sm,
  fontSize: vars.font.sizeMd,
  color: vars.color.text,
  cursor: "pointer",
  selectors: { "&[data-disabled]": { opacity: 0.55, cursor: "not-allowed" } },
})

export const box = style({
  display: "inline-flex",
  alignItems: "center",
  justifyContent: "center",
  width: "18px",
  height: "18px",
  flexShrink: 0,
  border: `1.5px solid ${vars.color.borderStrong}`,
  borderRadius: vars.radius.sm,
  background: vars.color.surface,
  color: "transparent",
  transition: "background-color 120ms ease, border-color 120ms ease",
  selectors: {
    [`${checkbox}[data-hovered] &`]: { borderColor: vars.color.textSubtle },
    [`${checkbox}[data-selected] &, ${checkbox}[data-indeterminate] &`]: {
      background: vars.color.accent,
      borderColor: vars.color.accent,
      color: vars.color.textInverse,
    },
    [`${checkbox}[data-pressed] &`]: { transform: "scale(0.94)" },
    [`${checkbox}[data-focus-visible] &`]: { boxShadow: vars.shadow.focus },
    [`${checkbox}[data-invalid] &`]: { borderColor: vars.color.danger },
  },
})
