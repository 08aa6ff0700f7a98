/** Styles of the User Management screen: page header, the two tables, the user cell, dialogs' bodies. */
import { globalStyle, style } from "@vanilla-extract/css"
import { vars } from "../ui/theme.css.ts"

export const page = style({ display: "flex", flexDirection: "column", gap: vars.space.xl, width: "100%", minWidth: 0 })

export const pageHeader = style({
  display: "flex",
  alignItems: "flex-start",
  justifyContent: "space-between",
  gap: vars.space.lg,
  flexWrap: "wrap",
})

export const titles = style({ display: "flex", flexDirection: "column", gap: vars.space.xs, minWidth: 0 })

export const title = style({ fontSize: vars.font.sizeXxl, fontWeight: vars.font.weightBold, color: vars.color.text })

export const subtitle = style({ fontSize: vars.font.sizeMd, color: vars.color.textMuted })

/** Phones: each row becomes a small card (user and actions on top, the other cells beneath). */
const narrow = "screen and (max-width: 640px)"

/** Flush with the card's edges (the card's padding is undone around the table). */
export const tableWrap = style({
  overflowX: "auto",
  margin: `0 calc(-1 * ${vars.space.xl}) calc(-1 * ${vars.space.xl})`,
  borderTop: `1px solid ${vars.color.border}`,
  borderRadius: `0 0 ${vars.radius.lg} ${vars.radius.lg}`,
  WebkitOverflowScrolling: "touch",
})

export const table = style({
  width: "100%",
  borderCollapse: "collapse",
  fontSize: vars.font.sizeMd,
})

export const th = style({
  padding: `${vars.space.sm} ${vars.space.lg}`,
  textAlign: "left",
  fontSize: vars.font.sizeXs,
  fontWeight: vars.font.weightSemibold,
  color: vars.color.textSubtle,
  textTransform: "uppercase",
  letterSpacing: "0.04em",
  background: vars.color.surfaceMuted,
  borderBottom: `1px solid ${vars.color.border}`,
  whiteSpace: "nowrap",
  selectors: {
    "&:first-child": { paddingLeft: vars.space.xl },
    "&:last-child": { paddingRight: vars.space.xl },
  },
})

export const thActions = style({ textAlign: "right" })

export const td = style({
  padding: `${vars.space.md} ${vars.space.lg}`,
  borderBottom: `1px solid ${vars.color.border}`,
  verticalAlign: "middle",
  selectors: {
    "&:first-child": { paddingLeft: vars.space.xl },
    "&:last-child": { paddingRight: vars.space.xl },
  },
})

globalStyle(`${table} tbody tr:last-child > td`, { borderBottom: "none" })

globalStyle(`${table} thead`, {
  "@media": {
    [narrow]: { position: "absolute", width: "1px", height: "1px", overflow: "hidden", clip: "rect(0 0 0 0)", whiteSpace: "nowrap" },
  },
})
globalStyle(`${table}, ${table} tbody`, { "@media": { [narrow]: { display: "block" } } })
globalStyle(`${table} tbody tr`, {
  "@media": {
    [narrow]: {
      display: "grid",
      gridTemplateColumns: "minmax(0, 1fr) auto",
      columnGap: vars.space.sm,
      rowGap: vars.space.sm,
      padding: `${vars.space.md} ${vars.space.xl}`,
      borderBottom: `1px solid ${vars.color.border}`,
    },
  },
})
globalStyle(`${table} tbody tr:last-child`, { "@media": { [narrow]: { borderBottom: "none" } } })
globalStyle(`${table} tbody td`, { "@media": { [narrow]: { display: "block", padding: 0, border: "none" } } })
globalStyle(`${table} tbody td[data-column]`, { "@media": { [narrow]: { gridColumn: "1 / -1", paddingLeft: "48px" } } })
globalStyle(`${table} tbody td[data-column]:first-child`, { "@media": { [narrow]: { gridColumn: "1", gridRow: "1", paddingLeft: 0 } } })
globalStyle(`${table} tbody td[data-column="actions"]`, {
  "@media": { [narrow]: { gridColumn: "2", gridRow: "1", alignSelf: "start", width: "auto", paddingLeft: 0 } },
})
globalStyle(`${table} tbody td[data-label]::before`, {
  "@media": {
    [narrow]: {
      content: "attr(data-label) \": \"",
      color: vars.color.textSubtle,
      fontSize: vars.font.sizeXs,
    },
  },
})
/** The user cell's minimum width only matters when the table scrolls sideways. */
globalStyle(`${table} tbody td [data-user-cell]`, { "@media": { [narrow]: { minWidth: 0 } } })

export const tdActions = style({ textAlign: "right", width: "1%", whiteSpace: "nowrap" })

export const row = style({
  transition: "background-color 120ms ease",
  selectors: { "&:hover": { background: vars.color.surfaceMuted } },
})

export const userCell = style({ display: "flex", alignItems: "center", gap: vars.space.md, minWidth: "220px" })

export const avatar = style({
  flex: "none",
  display: "inline-flex",
  alignItems: "center",
  justifyContent: "center",
  width: "36px",
  height: "36px",
  borderRadius: vars.radius.full,
  background: vars.color.accentSoft,
  color: vars.color.accentText,
  fontWeight: vars.font.weightSemibold,
  fontSize: vars.font.sizeMd,
})

export const avatarOwner = style({ background: vars.color.warningSoft, color: vars.color.warningText })

export const userText = style({ display: "flex", flexDirection: "column", gap: vars.space.xxs, minWidth: 0 })

export const userName = style({
  display: "inline-flex",
  alignItems: "center",
  flexWrap: "wrap",
  gap: vars.space.xs,
  fontWeight: vars.font.weightSemibold,
  color: vars.color.text,
  overflowWrap: "anywhere",
})

export const crown = style({ color: vars.color.warning, flex: "none" })

export const muted = style({ fontSize: vars.font.sizeSm, color: vars.color.textMuted, overflowWrap: "anywhere" })

export const subtle = style({ fontSize: vars.font.sizeXs, color: vars.color.textSubtle })

export const nowrap = style({ whiteSpace: "nowrap" })

export const dateCell = style({ display: "flex", flexDirection: "column", gap: vars.space.xxs, whiteSpace: "nowrap" })

export const link = style({
  display: "inline-flex",
  alignItems: "center",
  gap: vars.space.xs,
  maxWidth: "320px",
  fontFamily: vars.font.mono,
  fontSize: vars.font.sizeXs,
  color: vars.color.textSubtle,
  overflow: "hidden",
  textOverflow: "ellipsis",
  whiteSpace: "nowrap",
})

export const linkText = style({ overflow: "hidden", textOverflow: "ellipsis" })

/** Empty, error and failure rows. */
export const stateCell = style({ padding: `${vars.space.xxl} ${vars.space.xl}`, textAlign: "center" })

export const stateBox = style({
  display: "flex",
  flexDirection: "column",
  alignItems: "center",
  gap: vars.space.sm,
  color: vars.color.textMuted,
})

export const stateIcon = style({ color: vars.color.textSubtle })

export const stateTitle = style({ fontWeight: vars.font.weightSemibold, color: vars.color.text })

export const menuItemIcon = style({ flex: "none", color: vars.color.textSubtle })

// ---- dialogs -----------------------------------------------------------------------------------------------------

export const dialogBody = style({ display: "flex", flexDirection: "column", gap: vars.space.lg })

export const dialogText = style({ fontSize: vars.font.sizeMd, color: vars.color.textMuted, lineHeight: vars.font.lineHeight })

export const twoColumns = style({
  display: "grid",
  gridTemplateColumns: "repeat(auto-fit, minmax(180px, 1fr))",
  gap: vars.space.lg,
})

export const inviteRows = style({ display: "flex", flexDirection: "column", gap: vars.space.md })

export const inviteRow = style({
  display: "grid",
  gridTemplateColumns: "minmax(0, 3fr) minmax(0, 2fr) 36px",
  alignItems: "start",
  gap: vars.space.sm,
  "@media": {
    "screen and (max-width: 560px)": {
      gridTemplateColumns: "minmax(0, 1fr) 36px",
      paddingBottom: vars.space.md,
      borderBottom: `1px dashed ${vars.color.border}`,
    },
  },
})

export const inviteRole = style({
  "@media": { "screen and (max-width: 560px)": { gridColumn: "1 / 2", gridRow: "2" } },
})

/** Keeps the remove button aligned with the inputs (below the labels). */
export const removeSlot = style({ paddingTop: "24px" })

export const addRow = style({ alignSelf: "flex-start" })

export const footerSplit = style({
  display: "flex",
  justifyContent: "space-between",
  alignItems: "center",
  gap: vars.space.sm,
  flexWrap: "wrap",
})

export const footerEnd = style({ display: "flex", gap: vars.space.sm, marginLeft: "auto", flexWrap: "wrap" })

export const deleteTarget = style({
  display: "flex",
  flexDirection: "column",
  gap: vars.space.xxs,
  padding: vars.space.md,
  borderRadius: vars.radius.md,
  background: vars.color.dangerSoft,
  color: vars.color.dangerText,
})

export const deleteTargetTitle = style({ fontWeight: vars.font.weightSemibold })

export const readOnlyNote = style({ fontSize: vars.font.sizeXs, color: vars.color.textSubtle })


/** A table without avatars: on phones its secondary cells are not indented. */
export const flatRows = style({})
globalStyle(`${table}${flatRows} tbody td[data-column]`, { "@media": { [narrow]: { paddingLeft: 0 } } })
