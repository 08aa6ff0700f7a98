/** Styles of the shell's parts: the sidebar user card, the header's back button and breadcrumbs, the user menu. */
import { style } from "@vanilla-extract/css"
import { belowDesktopMedia, desktopMedia, vars } from "../ui/theme.css.ts"
import { sidebar } from "./dashboard-layout.css.ts"

// ---------------------------------------------------------------------------------------------------
// Avatar

export const avatar = style({
  display: "inline-flex",
  alignItems: "center",
  justifyContent: "center",
  flexShrink: 0,
  width: "36px",
  height: "36px",
  borderRadius: vars.radius.full,
  background: vars.color.accent,
  color: vars.color.textInverse,
  fontSize: vars.font.sizeMd,
  fontWeight: vars.font.weightBold,
  textTransform: "uppercase",
})

// ---------------------------------------------------------------------------------------------------
// Sidebar user card

export const userCard = style({
  display: "flex",
  alignItems: "flex-start",
  gap: vars.space.md,
  padding: vars.space.md,
  borderRadius: vars.radius.md,
  background: vars.color.navBackgroundRaised,
  color: vars.color.navText,
  minWidth: 0,
  "@media": {
    [desktopMedia]: {
      selectors: { [`${sidebar}[data-collapsed] &`]: { justifyContent: "center", padding: vars.space.sm, background: "transparent" } },
    },
  },
})

/** Hidden (but still read) when the sidebar is collapsed on desktop. */
export const userCardText = style({
  display: "flex",
  flexDirection: "column",
  gap: vars.space.xxs,
  minWidth: 0,
  "@media": {
    [desktopMedia]: {
      selectors: {
        [`${sidebar}[data-collapsed] &`]: {
          position: "absolute",
          width: "1px",
          height: "1px",
          overflow: "hidden",
          clip: "rect(0 0 0 0)",
          whiteSpace: "nowrap",
        },
      },
    },
  },
})

export const userEmail = style({
  fontSize: vars.font.sizeSm,
  fontWeight: vars.font.weightSemibold,
  color: vars.color.textInverse,
  overflow: "hidden",
  textOverflow: "ellipsis",
  whiteSpace: "nowrap",
})

export const userWorkspace = style({
  fontSize: vars.font.sizeXs,
  color: vars.color.navTextMuted,
  overflow: "hidden",
  textOverflow: "ellipsis",
  whiteSpace: "nowrap",
})

/** A sentence in the card (the load failure), wrapping instead of being cut. */
export const userCardMessage = style({ fontSize: vars.font.sizeXs, color: vars.color.navText, lineHeight: vars.font.lineHeightTight })

export const roleList = style({ display: "flex", flexWrap: "wrap", gap: vars.space.xs, margin: 0, padding: 0, listStyle: "none" })

export const roleChip = style({
  display: "inline-flex",
  alignItems: "center",
  gap: vars.space.xxs,
  height: "20px",
  padding: `0 ${vars.space.sm}`,
  borderRadius: vars.radius.full,
  background: "rgba(255, 255, 255, 0.08)",
  border: `1px solid ${vars.color.navBorder}`,
  color: vars.color.navText,
  fontSize: vars.font.sizeXs,
  fontWeight: vars.font.weightMedium,
  whiteSpace: "nowrap",
})

export const cardRetry = style({
  padding: 0,
  border: "none",
  background: "none",
  color: vars.color.navText,
  textDecoration: "underline",
  fontSize: vars.font.sizeXs,
  cursor: "pointer",
  textAlign: "left",
  outline: "none",
  selectors: { "&[data-focus-visible]": { boxShadow: vars.shadow.focus } },
})

export const skeletonLine = style({
  height: "10px",
  borderRadius: vars.radius.sm,
  background: vars.color.navBorder,
})

// ---------------------------------------------------------------------------------------------------
// Header: back button and breadcrumbs

export const backButton = style({ flexShrink: 0 })

export const breadcrumbs = style({
  display: "flex",
  alignItems: "center",
  flexWrap: "nowrap",
  gap: vars.space.xs,
  margin: 0,
  padding: 0,
  listStyle: "none",
  minWidth: 0,
  overflow: "hidden",
  fontSize: vars.font.sizeMd,
})

export const crumb = style({
  display: "flex",
  alignItems: "center",
  gap: vars.space.xs,
  minWidth: 0,
  color: vars.color.textMuted,
  selectors: { "&:last-child": { color: vars.color.text, fontWeight: vars.font.weightSemibold, flexShrink: 1 } },
  "@media": {
    // On phones only the last two crumbs are shown: the rest is one tap away through the back links.
    [belowDesktopMedia]: { selectors: { "&:not(:nth-last-child(-n+2))": { display: "none" } } },
  },
})

export const crumbLink = style({
  color: vars.color.textMuted,
  textDecoration: "none",
  whiteSpace: "nowrap",
  borderRadius: vars.radius.sm,
  outline: "none",
  selectors: {
    "&[data-hovered]": { color: vars.color.accent, textDecoration: "underline" },
    "&[data-focus-visible]": { boxShadow: vars.shadow.focus },
    '&[aria-current="page"]': { color: vars.color.text, cursor: "default", textDecoration: "none" },
  },
})

export const crumbCurrent = style({ overflow: "hidden", textOverflow: "ellipsis", whiteSpace: "nowrap" })

export const crumbSeparator = style({ display: "inline-flex", color: vars.color.textSubtle, flexShrink: 0 })

// ---------------------------------------------------------------------------------------------------
// User menu

export const menuTrigger = style({
  position: "relative",
  display: "flex",
  alignItems: "center",
  gap: vars.space.sm,
  maxWidth: "280px",
  padding: `${vars.space.xs} ${vars.space.sm}`,
  border: "1px solid transparent",
  borderRadius: vars.radius.md,
  background: "transparent",
  color: vars.color.text,
  cursor: "pointer",
  outline: "none",
  textAlign: "left",
  selectors: {
    "&[data-hovered]": { background: vars.color.surfaceHover },
    "&[data-pressed]": { background: vars.color.border },
    "&[data-focus-visible]": { boxShadow: vars.shadow.focus },
  },
})

export const menuTriggerText = style({
  display: "flex",
  flexDirection: "column",
  minWidth: 0,
  lineHeight: vars.font.lineHeightTight,
  "@media": {
    "screen and (max-width: 640px)": {
      position: "absolute",
      width: "1px",
      height: "1px",
      overflow: "hidden",
      clip: "rect(0 0 0 0)",
      whiteSpace: "nowrap",
    },
  },
})

export const menuWorkspace = style({
  fontSize: vars.font.sizeMd,
  fontWeight: vars.font.weightSemibold,
  overflow: "hidden",
  textOverflow: "ellipsis",
  whiteSpace: "nowrap",
})

export const menuRole = style({
  display: "inline-flex",
  alignItems: "center",
  gap: vars.space.xxs,
  fontSize: vars.font.sizeXs,
  color: vars.color.textMuted,
  overflow: "hidden",
  textOverflow: "ellipsis",
  whiteSpace: "nowrap",
})

export const menuHeader = style({
  display: "flex",
  flexDirection: "column",
  gap: vars.space.xxs,
  padding: `${vars.space.sm} ${vars.space.md}`,
  borderBottom: `1px solid ${vars.color.border}`,
  marginBottom: vars.space.xs,
  maxWidth: "260px",
})

export const menuHeaderEmail = style({
  fontSize: vars.font.sizeSm,
  fontWeight: vars.font.weightSemibold,
  color: vars.color.text,
  overflow: "hidden",
  textOverflow: "ellipsis",
  whiteSpace: "nowrap",
})

export const menuHeaderMeta = style({ fontSize: vars.font.sizeXs, color: vars.color.textMuted })

export const popover = style({ minWidth: "220px" })
