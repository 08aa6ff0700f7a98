import { keyframes, style } from "@vanilla-extract/css"
import { belowDesktopMedia, vars } from "../ui/theme.css.ts"

export const shell = style({ display: "flex", flexDirection: "column", minHeight: "100vh", background: vars.color.background })

export const topBar = style({
  display: "flex",
  alignItems: "center",
  justifyContent: "space-between",
  gap: vars.space.md,
  height: vars.layout.headerHeight,
  padding: `0 ${vars.space.xl}`,
  background: vars.color.navBackground,
  color: vars.color.navText,
  "@media": { [belowDesktopMedia]: { padding: `0 ${vars.space.lg}` } },
})

export const brand = style({
  display: "flex",
  alignItems: "center",
  gap: vars.space.sm,
  fontSize: vars.font.sizeLg,
  fontWeight: vars.font.weightBold,
  color: vars.color.textInverse,
})

export const brandMark = style({
  display: "inline-flex",
  alignItems: "center",
  justifyContent: "center",
  width: "36px",
  height: "36px",
  borderRadius: vars.radius.md,
  background: vars.color.accent,
  color: vars.color.textInverse,
})

export const signOut = style({
  color: vars.color.navText,
  selectors: { "&[data-hovered]": { background: vars.color.navBackgroundRaised, color: vars.color.textInverse } },
})

export const page = style({
  display: "flex",
  flexDirection: "column",
  gap: vars.space.xl,
  width: "100%",
  maxWidth: "1080px",
  margin: "0 auto",
  padding: `${vars.space.xxxl} ${vars.space.xl}`,
  "@media": { [belowDesktopMedia]: { padding: `${vars.space.xl} ${vars.space.lg}` } },
})

export const heading = style({ display: "flex", flexDirection: "column", gap: vars.space.xs })

export const title = style({ fontSize: vars.font.sizeDisplay, fontWeight: vars.font.weightBold, color: vars.color.text })

export const subtitle = style({ fontSize: vars.font.sizeLg, color: vars.color.textMuted })

export const search = style({ maxWidth: "420px" })

export const grid = style({
  display: "grid",
  gridTemplateColumns: "repeat(auto-fill, minmax(280px, 1fr))",
  gap: vars.space.lg,
  margin: 0,
  padding: 0,
  listStyle: "none",
})

export const cardItem = style({ display: "flex", minWidth: 0 })

export const card = style({
  position: "relative",
  display: "flex",
  flexDirection: "column",
  alignItems: "stretch",
  gap: vars.space.md,
  width: "100%",
  minHeight: "156px",
  padding: vars.space.xl,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.lg,
  background: vars.color.surface,
  boxShadow: vars.shadow.sm,
  color: vars.color.text,
  textAlign: "left",
  cursor: "pointer",
  outline: "none",
  transition: "border-color 120ms ease, box-shadow 120ms ease, transform 120ms ease",
  selectors: {
    "&[data-hovered]": { borderColor: vars.color.accent, boxShadow: vars.shadow.md },
    "&[data-pressed]": { transform: "translateY(1px)" },
    "&[data-focus-visible]": { borderColor: vars.color.accent, boxShadow: vars.shadow.focus },
    "&[data-disabled]": { cursor: "default", opacity: 0.6 },
    "&[data-highlighted]": { borderColor: vars.color.accent, background: vars.color.accentSoft },
    "&[data-selecting]": { borderColor: vars.color.accent, opacity: 1 },
  },
  "@media": { [belowDesktopMedia]: { minHeight: "auto", padding: vars.space.lg } },
})

export const cardTop = style({ display: "flex", alignItems: "flex-start", gap: vars.space.md })

export const cardIcon = style({
  display: "inline-flex",
  alignItems: "center",
  justifyContent: "center",
  flexShrink: 0,
  width: "44px",
  height: "44px",
  borderRadius: vars.radius.md,
  background: vars.color.accentSoft,
  color: vars.color.accentText,
  selectors: { [`${card}[data-highlighted] &`]: { background: vars.color.surface } },
})

export const cardTitles = style({ display: "flex", flexDirection: "column", gap: vars.space.xs, minWidth: 0, flex: 1 })

export const cardName = style({
  fontSize: vars.font.sizeLg,
  fontWeight: vars.font.weightSemibold,
  color: vars.color.text,
  overflowWrap: "anywhere",
})

export const badges = style({ display: "flex", flexWrap: "wrap", gap: vars.space.xs })

export const meta = style({
  display: "flex",
  flexWrap: "wrap",
  gap: `${vars.space.xs} ${vars.space.lg}`,
  marginTop: "auto",
  fontSize: vars.font.sizeSm,
  color: vars.color.textMuted,
})

export const selectingSpinner = style({ position: "absolute", top: vars.space.lg, right: vars.space.lg })

const shimmer = keyframes({ "0%": { backgroundPosition: "-200px 0" }, "100%": { backgroundPosition: "calc(200px + 100%) 0" } })

export const skeletonCard = style({
  height: "156px",
  borderRadius: vars.radius.lg,
  background: `linear-gradient(90deg, ${vars.color.skeleton} 0px, ${vars.color.skeletonShine} 40px, ${vars.color.skeleton} 80px)`,
  backgroundSize: "200px 100%",
  animation: `${shimmer} 1.4s ease-in-out infinite`,
})

export const centred = style({
  display: "flex",
  flexDirection: "column",
  alignItems: "center",
  textAlign: "center",
  gap: vars.space.md,
  padding: `${vars.space.xxxl} ${vars.space.xl}`,
  border: `1px dashed ${vars.color.borderStrong}`,
  borderRadius: vars.radius.lg,
  background: vars.color.surface,
  color: vars.color.textMuted,
})

export const centredTitle = style({ fontSize: vars.font.sizeXl, fontWeight: vars.font.weightSemibold, color: vars.color.text })
