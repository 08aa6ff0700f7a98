/** Field styles shared by text, password and select fields: label, control, description, error. */
import { style } from "@vanilla-extract/css"
import { vars } from "./theme.css.ts"

export const field = style({
  display: "flex",
  flexDirection: "column",
  gap: vars.space.xs,
  minWidth: 0,
})

export const label = style({
  fontSize: vars.font.sizeSm,
  fontWeight: vars.font.weightMedium,
  color: vars.color.text,
})

export const requiredMark = style({ color: vars.color.danger, marginLeft: vars.space.xxs })

export const control = style({
  width: "100%",
  height: "40px",
  padding: `0 ${vars.space.md}`,
  border: `1px solid ${vars.color.borderStrong}`,
  borderRadius: vars.radius.md,
  background: vars.color.surface,
  color: vars.color.text,
  fontSize: vars.font.sizeMd,
  outline: "none",
  transition: "border-color 120ms ease, box-shadow 120ms ease",
  selectors: {
    "&::placeholder": { color: vars.color.textSubtle },
    "&[data-hovered]": { borderColor: vars.color.textSubtle },
    "&[data-focused]": { borderColor: vars.color.accent, boxShadow: vars.shadow.focus },
    "&[data-invalid]": { borderColor: vars.color.danger },
    "&[data-invalid][data-focused]": { boxShadow: `0 0 0 3px ${vars.color.dangerSoft}` },
    "&[data-disabled]": { background: vars.color.surfaceMuted, color: vars.color.textSubtle, cursor: "not-allowed" },
    "&[readonly]": { background: vars.color.surfaceMuted },
  },
})

/** The text area variant (`rows`): as tall as its rows, keeps line breaks, resizable in height. */
export const multiline = style({
  height: "auto",
  padding: `${vars.space.sm} ${vars.space.md}`,
  lineHeight: 1.4,
  resize: "vertical",
  whiteSpace: "pre-wrap",
})

/** A text area of pasted keys and certificates (`monospace`): fixed-width, broken anywhere on a phone. */
export const monospace = style({ fontFamily: vars.font.mono, fontSize: vars.font.sizeSm, wordBreak: "break-all" })

export const description = style({ fontSize: vars.font.sizeXs, color: vars.color.textSubtle })

export const error = style({ fontSize: vars.font.sizeXs, color: vars.color.dangerText, fontWeight: vars.font.weightMedium })

/** A control with a button inside its right edge (the password field's reveal, the time-zone field's list). */
export const controlWithButton = style({ position: "relative", display: "flex", alignItems: "center" })

/** The 32 px button inside `controlWithButton`, at its right edge. */
export const buttonInControl = style({
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
