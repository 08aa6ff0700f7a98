/** Styles of the fleet pages (issue 31 item 4): the filters row, the totals, the stale marker and the trend table. */
import { style } from "@vanilla-extract/css"
import { vars } from "../ui/theme.css.ts"

/**
 * The filters row: fields aligned at their tops (a field's description or error below it must not push its neighbours
 * down); buttons beside a field sit level with its control, below the label (`besideField`).
 */
export const filters = style({ display: "flex", flexWrap: "wrap", alignItems: "flex-start", gap: vars.space.md })
export const filter = style({ minWidth: "180px", flex: "1 1 180px", maxWidth: "320px" })
/** The Tag field with its Apply button beside it. */
export const tagGroup = style({ display: "flex", alignItems: "flex-start", gap: vars.space.sm, minWidth: "240px", flex: "1 1 240px", maxWidth: "420px" })
export const tagField = style({ flex: "1 1 auto", minWidth: 0 })
/** A label's line (font size sm × line height) plus the field's gap: the button's top meets the control's. */
export const besideField = style({ marginTop: `calc(${vars.font.sizeSm} * ${vars.font.lineHeight} + ${vars.space.xs})`, flex: "none" })
/** The headline figures of a member's or a requirement's card below desktop. */
export const cardFigures = style({ display: "grid", gridTemplateColumns: "repeat(3, minmax(0, 1fr))", alignItems: "end", gap: vars.space.sm, margin: 0 })
/** The totals sit on a surface like a card, so their labels keep their contrast (they are not on the page's tint). */
export const totals = style({
  display: "grid", gridTemplateColumns: "repeat(auto-fit, minmax(170px, 1fr))", gap: vars.space.md, margin: 0,
  padding: vars.space.md, background: vars.color.surface, border: `1px solid ${vars.color.border}`, borderRadius: vars.radius.lg,
})
export const memberCell = style({ display: "flex", flexDirection: "column", gap: vars.space.xxs, minWidth: 0 })
export const trendTable = style({ width: "100%", borderCollapse: "collapse", fontSize: vars.font.sizeSm })
export const trendWrap = style({ overflowX: "auto", maxHeight: "320px", overflowY: "auto" })
/** Previous / Next under the requirements table (wraps on a phone). */
export const pager = style({ display: "flex", flexWrap: "wrap", alignItems: "center", justifyContent: "flex-end", gap: vars.space.md, paddingTop: vars.space.md })
