import { style } from "@vanilla-extract/css"
import { belowDesktopMedia, desktopMedia, vars } from "../ui/theme.css.ts"

export const shell = style({ display: "flex", minHeight: "100vh", background: vars.color.background })

export const sidebar = style({
  position: "fixed",
  insetBlock: 0,
  left: 0,
  zIndex: 40,
  display: "flex",
  flexDirection: "column",
  width: vars.layout.sidebarExpanded,
  background: vars.color.navBackground,
  color: vars.color.navText,
  borderRight: `1px solid ${vars.color.navBorder}`,
  transition: "width 180ms ease, transform 200ms ease",
  selectors: {
    "&[data-collapsed]": { width: vars.layout.sidebarCollapsed },
  },
  "@media": {
    [belowDesktopMedia]: {
      width: vars.layout.sidebarExpanded,
      maxWidth: "calc(100vw - 48px)",
      transform: "translateX(-100%)",
      // Closed drawer: out of view and out of the tab order.
      visibility: "hidden",
      selectors: {
        "&[data-collapsed]": { width: vars.layout.sidebarExpanded },
        "&[data-mobile-open]": { transform: "none", visibility: "visible", boxShadow: vars.shadow.lg },
      },
    },
  },
})

export const sidebarTop = style({
  display: "flex",
  alignItems: "center",
  justifyContent: "space-between",
  gap: vars.space.sm,
  height: vars.layout.headerHeight,
  padding: `0 ${vars.space.lg}`,
  borderBottom: `1px solid ${vars.color.navBorder}`,
  selectors: { [`${sidebar}[data-collapsed] &`]: { justifyContent: "center", padding: 0 } },
  "@media": {
    [belowDesktopMedia]: {
      selectors: { [`${sidebar}[data-collapsed] &`]: { justifyContent: "space-between", padding: `0 ${vars.space.lg}` } },
    },
  },
})

export const brand = style({
  display: "flex",
  alignItems: "center",
  gap: vars.space.sm,
  fontSize: vars.font.sizeLg,
  fontWeight: vars.font.weightBold,
  color: vars.color.textInverse,
  whiteSpace: "nowrap",
  overflow: "hidden",
})

export const brandMark = style({
  display: "inline-flex",
  alignItems: "center",
  justifyContent: "center",
  width: "36px",
  height: "36px",
  flexShrink: 0,
  borderRadius: vars.radius.md,
  background: vars.color.accent,
  color: vars.color.textInverse,
})

/** Text that disappears (but stays accessible) when the sidebar is collapsed on desktop. */
export const collapsibleText = style({
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

export const nav = style({
  display: "flex",
  flexDirection: "column",
  gap: vars.space.xs,
  flex: 1,
  padding: vars.space.md,
  overflowY: "auto",
})

export const navLink = style({
  display: "flex",
  alignItems: "center",
  gap: vars.space.md,
  height: "44px",
  padding: `0 ${vars.space.md}`,
  borderRadius: vars.radius.md,
  color: vars.color.navTextMuted,
  fontWeight: vars.font.weightMedium,
  textDecoration: "none",
  outline: "none",
  whiteSpace: "nowrap",
  selectors: {
    "&[data-hovered]": { background: vars.color.navBackgroundRaised, color: vars.color.navText },
    "&[data-focus-visible]": { boxShadow: vars.shadow.focus },
    '&[aria-current="page"]': { background: vars.color.navBackgroundRaised, color: vars.color.textInverse },
    [`${sidebar}[data-collapsed] &`]: { justifyContent: "center", padding: 0 },
  },
  "@media": {
    [belowDesktopMedia]: {
      selectors: { [`${sidebar}[data-collapsed] &`]: { justifyContent: "flex-start", padding: `0 ${vars.space.md}` } },
    },
  },
})

export const sidebarBottom = style({
  display: "flex",
  flexDirection: "column",
  gap: vars.space.sm,
  padding: vars.space.md,
  borderTop: `1px solid ${vars.color.navBorder}`,
})

export const collapseButton = style({
  display: "flex",
  alignItems: "center",
  justifyContent: "center",
  gap: vars.space.sm,
  height: "36px",
  border: "none",
  borderRadius: vars.radius.md,
  background: "transparent",
  color: vars.color.navTextMuted,
  cursor: "pointer",
  outline: "none",
  selectors: {
    "&[data-hovered]": { background: vars.color.navBackgroundRaised, color: vars.color.navText },
    "&[data-focus-visible]": { boxShadow: vars.shadow.focus },
  },
  "@media": { [belowDesktopMedia]: { display: "none" } },
})

export const closeMobile = style({
  display: "none",
  color: vars.color.navText,
  selectors: { "&[data-hovered]": { background: vars.color.navBackgroundRaised, color: vars.color.textInverse } },
  "@media": { [belowDesktopMedia]: { display: "inline-flex" } },
})

export const backdrop = style({
  display: "none",
  "@media": {
    [belowDesktopMedia]: {
      display: "block",
      position: "fixed",
      inset: 0,
      zIndex: 30,
      background: vars.color.overlay,
      border: "none",
      padding: 0,
    },
  },
})

export const main = style({
  display: "flex",
  flexDirection: "column",
  flex: 1,
  minWidth: 0,
  marginLeft: vars.layout.sidebarExpanded,
  transition: "margin-left 180ms ease",
  selectors: { [`${shell}[data-collapsed] &`]: { marginLeft: vars.layout.sidebarCollapsed } },
  "@media": {
    [belowDesktopMedia]: {
      marginLeft: 0,
      selectors: { [`${shell}[data-collapsed] &`]: { marginLeft: 0 } },
    },
  },
})

export const header = style({
  position: "sticky",
  top: 0,
  zIndex: 20,
  display: "flex",
  alignItems: "center",
  gap: vars.space.md,
  height: vars.layout.headerHeight,
  padding: `0 ${vars.space.xl}`,
  background: vars.color.surface,
  borderBottom: `1px solid ${vars.color.border}`,
  "@media": { [belowDesktopMedia]: { padding: `0 ${vars.space.lg}` } },
})

export const menuButton = style({
  display: "none",
  "@media": { [belowDesktopMedia]: { display: "inline-flex" } },
})

export const headerStart = style({ display: "flex", alignItems: "center", gap: vars.space.md, flex: 1, minWidth: 0 })

export const headerEnd = style({ display: "flex", alignItems: "center", gap: vars.space.sm })

export const content = style({
  flex: 1,
  width: "100%",
  maxWidth: "1440px",
  margin: "0 auto",
  padding: vars.space.xl,
  "@media": { [belowDesktopMedia]: { padding: vars.space.lg } },
})
