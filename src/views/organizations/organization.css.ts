/** Styles of the organisation page (issue 31): the summary figures, the units tree with its members, syncs and the fleet scan. */
import { style } from "@vanilla-extract/css"
import { vars } from "../ui/theme.css.ts"
import { facts } from "../scanning/scanning.css.ts"

export const figures = style({
  display: "grid",
  gridTemplateColumns: "repeat(auto-fit, minmax(150px, 1fr))",
  gap: vars.space.md,
  margin: 0,
})

export const figure = style({ display: "flex", flexDirection: "column", gap: vars.space.xxs, minWidth: 0 })
export const figureLabel = style({ fontSize: vars.font.sizeXs, color: vars.color.textMuted, textTransform: "uppercase", letterSpacing: "0.04em" })
export const figureValue = style({ fontSize: vars.font.sizeLg, fontWeight: vars.font.weightSemibold, color: vars.color.text, margin: 0 })

export const tree = style({ listStyle: "none", margin: 0, padding: 0, display: "flex", flexDirection: "column", gap: vars.space.sm })
export const subtree = style({
  listStyle: "none",
  margin: 0,
  marginTop: vars.space.sm,
  paddingLeft: vars.space.lg,
  borderLeft: `1px solid ${vars.color.border}`,
  display: "flex",
  flexDirection: "column",
  gap: vars.space.sm,
})

export const unitRow = style({ display: "flex", flexWrap: "wrap", alignItems: "center", gap: vars.space.sm, fontWeight: vars.font.weightSemibold })

export const memberRow = style({
  display: "flex",
  flexWrap: "wrap",
  alignItems: "center",
  gap: `${vars.space.xs} ${vars.space.sm}`,
  padding: vars.space.sm,
  borderRadius: vars.radius.md,
  background: vars.color.surfaceMuted,
  minWidth: 0,
})

export const memberName = style({ fontWeight: vars.font.weightMedium, color: vars.color.text, overflowWrap: "anywhere" })
export const memberDetail = style({ flexBasis: "100%", fontSize: vars.font.sizeSm, color: vars.color.textMuted, overflowWrap: "anywhere" })

/** The sync's changes, one group per kind, each as wide as the card (member lines are long). */
export const changeGroups = style({ margin: 0, display: "flex", flexDirection: "column", gap: vars.space.md })

export const changeList = style({ margin: 0, paddingLeft: vars.space.lg, display: "flex", flexDirection: "column", gap: vars.space.xxs })

export const list = style({ listStyle: "none", margin: 0, padding: 0, display: "flex", flexDirection: "column", gap: vars.space.sm })
export const listItem = style({
  display: "flex",
  flexWrap: "wrap",
  alignItems: "center",
  gap: `${vars.space.xs} ${vars.space.sm}`,
  paddingBottom: vars.space.sm,
  borderBottom: `1px solid ${vars.color.border}`,
  minWidth: 0,
})
export const grow = style({ flex: "1 1 12rem", minWidth: 0, overflowWrap: "anywhere" })

/**
 * The organisation's settings (id, root, member role, syncs): columns wide enough for a role name such as
 * "CloudAuditMemberRole" (at the shared facts' 140 px it broke mid-word); longer values still wrap.
 */
export const settingsFacts = style([facts, { gridTemplateColumns: "repeat(auto-fill, minmax(190px, 1fr))" }])
