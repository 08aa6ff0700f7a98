import { style } from "@vanilla-extract/css"
import { vars } from "./theme.css.ts"

export const trigger = style({
  display: "flex",
  alignItems: "center",
  justifyContent: "space-between",
  gap: vars.space.sm,
  width: "100%",
  height: "40px",
  padding: `0 ${vars.space.sm} 0 ${vars.space.md}`,
  border: `1px solid ${vars.color.borderStrong}`,
  borderRadius: vars.radius.md,
  background: vars.color.surface,
  color: vars.color.text,
  fontSize: vars.font.sizeMd,
  textAlign: "left",
  cursor: "pointer",
  outline: "none",
  selectors: {
    "&[data-hovered]": { borderColor: vars.color.textSubtle },
    "&[data-focus-visible]": { borderColor: vars.color.accent, boxShadow: vars.shadow.focus },
    "&[data-pressed]": { background: vars.color.surfaceMuted },
    "&[data-disabled]": { background: vars.color.surfaceMuted, color: vars.color.textSubtle, cursor: "not-allowed" },
    "[data-invalid] > &": { borderColor: vars.color.danger },
  },
})

export const value = style({
  overflow: "hidden",
  textOverflow: "ellipsis",
  whiteSpace: "nowrap",
  selectors: { "&[data-placeholder]": { color: vars.color.textSubtle } },
})

export const chevron = style({ color: vars.color.textSubtle, flexShrink: 0 })

export const popover = style({
  width: "var(--trigger-width)",
  maxHeight: "320px",
  overflow: "auto",
  background: vars.color.surface,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.md,
  boxShadow: vars.shadow.md,
  outline: "none",
})

export const listBox = style({ padding: vars.space.xs, outline: "none" })

export const option = style({
  display: "flex",
  alignItems: "center",
  justifyContent: "space-between",
  gap: vars.space.sm,
  minHeight: "36px",
  padding: `0 ${vars.space.md}`,
  borderRadius: vars.radius.sm,
  cursor: "pointer",
  outline: "none",
  selectors: {
    "&[data-focused]": { background: vars.color.surfaceHover },
    "&[data-selected]": { fontWeight: vars.font.weightSemibold, color: vars.color.accentText },
    "&[data-disabled]": { opacity: 0.5, cursor: "not-allowed" },
  },
})
