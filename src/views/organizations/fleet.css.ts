/** Styles of the fleet pages (issue 31 item 4): the filters row, the totals, the stale marker and the trend table. */
import { style } from "@vanilla-extract/css"
import { vars } from "../ui/theme.css.ts"

export const filters = style({ display: "flex", flexWrap: "wrap", alignItems: "flex-end", gap: vars.space.md })
export const filter = style({ minWidth: "180px", flex: "1 1 180px", maxWidth: "320px" })
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
