import { style } from "@vanilla-extract/css"
import { recipe } from "@vanilla-extract/recipes"
import { belowDesktopMedia, vars } from "../ui/theme.css.ts"

export const screen = style({ display: "flex", flexDirection: "column", gap: vars.space.xl, width: "100%" })

export const header = style({ display: "flex", flexDirection: "column", gap: vars.space.xs })

export const title = style({
  fontSize: vars.font.sizeXxl,
  fontWeight: vars.font.weightBold,
  lineHeight: vars.font.lineHeightTight,
  color: vars.color.text,
})

export const subtitle = style({ fontSize: vars.font.sizeMd, color: vars.color.textMuted })

export const form = style({ gap: vars.space.lg })

/** Two fields side by side (first and last name), stacked on phones. */
export const pair = style({
  display: "grid",
  gridTemplateColumns: "repeat(2, minmax(0, 1fr))",
  gap: vars.space.lg,
  "@media": { "screen and (max-width: 480px)": { gridTemplateColumns: "1fr" } },
})

/** A label row with a trailing action (the password label and 'Forgot your password?'). */
export const fieldWithAction = style({ position: "relative" })

export const fieldAction = style({ position: "absolute", top: 0, right: 0 })

/** A text-only button that reads like a link ('Forgot your password?'). */
export const linkButton = style({
  padding: 0,
  border: "none",
  background: "none",
  color: vars.color.accent,
  fontFamily: vars.font.body,
  fontSize: vars.font.sizeSm,
  fontWeight: vars.font.weightMedium,
  cursor: "pointer",
  outline: "none",
  borderRadius: vars.radius.sm,
  selectors: {
    "&[data-hovered]": { textDecoration: "underline", color: vars.color.accentHover },
    "&[data-focus-visible]": { boxShadow: vars.shadow.focus },
  },
})

export const boxActions = style({ marginTop: vars.space.sm })

export const footer = style({
  display: "flex",
  justifyContent: "center",
  gap: vars.space.xs,
  flexWrap: "wrap",
  fontSize: vars.font.sizeMd,
  color: vars.color.textMuted,
})

export const note = style({ fontSize: vars.font.sizeSm, color: vars.color.textMuted })

export const strong = style({ fontWeight: vars.font.weightSemibold, color: vars.color.text, overflowWrap: "anywhere" })

// ---------------------------------------------------------------------------------------------------
// Status panel (validating, verified, invalid link, success screens)

export const panel = style({
  display: "flex",
  flexDirection: "column",
  alignItems: "center",
  textAlign: "center",
  gap: vars.space.lg,
  padding: `${vars.space.xxl} ${vars.space.xl}`,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.xl,
  background: vars.color.surface,
  boxShadow: vars.shadow.sm,
  "@media": { [belowDesktopMedia]: { padding: `${vars.space.xl} ${vars.space.lg}` } },
})

export const badge = recipe({
  base: {
    display: "inline-flex",
    alignItems: "center",
    justifyContent: "center",
    width: "56px",
    height: "56px",
    borderRadius: vars.radius.full,
  },
  variants: {
    tone: {
      success: { background: vars.color.successSoft, color: vars.color.success },
      error: { background: vars.color.dangerSoft, color: vars.color.danger },
      warning: { background: vars.color.warningSoft, color: vars.color.warning },
      info: { background: vars.color.infoSoft, color: vars.color.info },
      loading: { background: vars.color.accentSoft, color: vars.color.accent },
    },
  },
})

export const panelTitle = style({ fontSize: vars.font.sizeXl, fontWeight: vars.font.weightBold, color: vars.color.text })

export const panelBody = style({
  display: "flex",
  flexDirection: "column",
  gap: vars.space.sm,
  fontSize: vars.font.sizeMd,
  color: vars.color.textMuted,
  maxWidth: "360px",
})

export const panelActions = style({
  display: "flex",
  flexDirection: "column",
  alignItems: "stretch",
  gap: vars.space.sm,
  width: "100%",
  maxWidth: "320px",
})

// ---------------------------------------------------------------------------------------------------
// Resend block

export const resend = recipe({
  base: { display: "flex", flexDirection: "column", gap: vars.space.sm, width: "100%" },
  variants: { fullWidth: { true: { alignItems: "stretch" }, false: { alignItems: "flex-start" } } },
})

export const resendStatus = recipe({
  base: { fontSize: vars.font.sizeSm, margin: 0 },
  variants: {
    tone: {
      success: { color: vars.color.successText },
      warning: { color: vars.color.warningText },
      error: { color: vars.color.dangerText },
    },
  },
})

/** The 'Verification links are valid for 30 minutes.' note. */
export const linkValidity = style({
  display: "flex",
  alignItems: "center",
  gap: vars.space.sm,
  margin: 0,
  padding: `${vars.space.sm} ${vars.space.md}`,
  borderRadius: vars.radius.md,
  background: vars.color.infoSoft,
  color: vars.color.infoText,
  fontSize: vars.font.sizeSm,
})
