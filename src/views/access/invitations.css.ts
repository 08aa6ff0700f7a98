import { style } from "@vanilla-extract/css"
import { recipe } from "@vanilla-extract/recipes"
import { vars } from "../ui/theme.css.ts"

export const invitationCard = style({
  display: "flex",
  flexDirection: "column",
  gap: vars.space.lg,
  padding: vars.space.xl,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.xl,
  background: vars.color.surface,
  boxShadow: vars.shadow.sm,
})

export const invitedTo = style({ display: "flex", alignItems: "center", gap: vars.space.md })

export const workspaceMark = style({
  display: "inline-flex",
  alignItems: "center",
  justifyContent: "center",
  flexShrink: 0,
  width: "48px",
  height: "48px",
  borderRadius: vars.radius.lg,
  background: vars.color.accentSoft,
  color: vars.color.accentText,
})

export const invitedLead = style({ fontSize: vars.font.sizeSm, color: vars.color.textMuted })

export const workspaceName = style({
  fontSize: vars.font.sizeXl,
  fontWeight: vars.font.weightBold,
  color: vars.color.text,
  overflowWrap: "anywhere",
})

export const details = style({
  display: "grid",
  gridTemplateColumns: "max-content minmax(0, 1fr)",
  gap: `${vars.space.sm} ${vars.space.lg}`,
  margin: 0,
  padding: vars.space.lg,
  borderRadius: vars.radius.lg,
  background: vars.color.surfaceMuted,
})

export const term = style({ fontSize: vars.font.sizeSm, color: vars.color.textMuted })

export const value = style({
  margin: 0,
  fontSize: vars.font.sizeMd,
  fontWeight: vars.font.weightMedium,
  color: vars.color.text,
  overflowWrap: "anywhere",
})

export const actions = style({ display: "flex", flexDirection: "column", gap: vars.space.sm })

export const checklist = style({
  display: "grid",
  gridTemplateColumns: "repeat(2, minmax(0, 1fr))",
  gap: `${vars.space.xs} ${vars.space.md}`,
  margin: 0,
  padding: vars.space.md,
  listStyle: "none",
  borderRadius: vars.radius.md,
  background: vars.color.surfaceMuted,
  "@media": { "screen and (max-width: 480px)": { gridTemplateColumns: "1fr" } },
})

export const requirement = recipe({
  base: { display: "flex", alignItems: "center", gap: vars.space.xs, fontSize: vars.font.sizeSm },
  variants: {
    met: {
      true: { color: vars.color.successText },
      false: { color: vars.color.textMuted },
    },
  },
})

export const readOnlyEmail = style({
  display: "flex",
  flexDirection: "column",
  gap: vars.space.xxs,
  padding: `${vars.space.sm} ${vars.space.md}`,
  borderRadius: vars.radius.md,
  background: vars.color.surfaceMuted,
  border: `1px solid ${vars.color.border}`,
})

/** Read by screen readers only. */
export const visuallyHidden = style({
  position: "absolute",
  width: "1px",
  height: "1px",
  overflow: "hidden",
  clip: "rect(0 0 0 0)",
  whiteSpace: "nowrap",
})
