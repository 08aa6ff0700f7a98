import { style } from "@vanilla-extract/css"
import { belowDesktopMedia, vars } from "../ui/theme.css.ts"

export const page = style({
  display: "grid",
  gridTemplateColumns: "1fr 1fr",
  minHeight: "100vh",
  background: vars.color.surface,
  "@media": { [belowDesktopMedia]: { gridTemplateColumns: "1fr" } },
})

export const marketing = style({
  position: "relative",
  display: "flex",
  flexDirection: "column",
  justifyContent: "center",
  gap: vars.space.xxl,
  padding: `${vars.space.xxxl} clamp(32px, 6vw, 88px)`,
  overflow: "hidden",
  color: vars.color.navText,
  background: `radial-gradient(1200px 600px at -10% -10%, #1d3a7a 0%, transparent 60%), radial-gradient(800px 500px at 110% 110%, #123063 0%, transparent 60%), ${vars.color.navBackground}`,
  "@media": { [belowDesktopMedia]: { display: "none" } },
})

export const brand = style({ display: "flex", alignItems: "center", gap: vars.space.md })

export const brandMark = style({
  display: "inline-flex",
  alignItems: "center",
  justifyContent: "center",
  width: "44px",
  height: "44px",
  borderRadius: vars.radius.lg,
  background: vars.color.accent,
  color: vars.color.textInverse,
  boxShadow: "0 8px 24px rgba(37, 99, 235, 0.35)",
})

export const brandName = style({ fontSize: vars.font.sizeXxl, fontWeight: vars.font.weightBold, color: vars.color.textInverse })

export const headline = style({
  fontSize: vars.font.sizeDisplay,
  fontWeight: vars.font.weightBold,
  lineHeight: vars.font.lineHeightTight,
  color: vars.color.textInverse,
  maxWidth: "520px",
})

export const lead = style({ fontSize: vars.font.sizeLg, color: vars.color.navTextMuted, maxWidth: "520px", marginTop: vars.space.md })

export const features = style({
  display: "grid",
  gridTemplateColumns: "repeat(2, minmax(0, 1fr))",
  gap: vars.space.lg,
  margin: 0,
  padding: 0,
  listStyle: "none",
  maxWidth: "620px",
})

export const feature = style({
  display: "flex",
  flexDirection: "column",
  gap: vars.space.sm,
  padding: vars.space.lg,
  borderRadius: vars.radius.lg,
  background: "rgba(255, 255, 255, 0.06)",
  border: `1px solid rgba(255, 255, 255, 0.10)`,
})

export const featureIcon = style({
  display: "inline-flex",
  alignItems: "center",
  justifyContent: "center",
  width: "36px",
  height: "36px",
  borderRadius: vars.radius.md,
  background: "rgba(59, 130, 246, 0.18)",
  color: "#93b4ff",
})

export const featureTitle = style({ fontSize: vars.font.sizeLg, fontWeight: vars.font.weightSemibold, color: vars.color.textInverse })

export const featureText = style({ fontSize: vars.font.sizeSm, color: vars.color.navTextMuted })

export const formSide = style({
  display: "flex",
  flexDirection: "column",
  alignItems: "center",
  justifyContent: "center",
  padding: `${vars.space.xxxl} ${vars.space.xl}`,
  background: vars.color.surface,
  "@media": { [belowDesktopMedia]: { justifyContent: "flex-start", padding: `${vars.space.xxl} ${vars.space.lg}` } },
})

/** The compact brand shown above the form when the marketing panel is hidden. */
export const compactBrand = style({
  display: "none",
  alignItems: "center",
  gap: vars.space.sm,
  width: "100%",
  maxWidth: "420px",
  marginBottom: vars.space.xxl,
  fontSize: vars.font.sizeXl,
  fontWeight: vars.font.weightBold,
  color: vars.color.text,
  "@media": { [belowDesktopMedia]: { display: "flex" } },
})

export const compactMark = style({
  display: "inline-flex",
  alignItems: "center",
  justifyContent: "center",
  width: "36px",
  height: "36px",
  borderRadius: vars.radius.md,
  background: vars.color.navBackground,
  color: vars.color.textInverse,
})

export const formContainer = style({ width: "100%", maxWidth: "420px", display: "flex", flexDirection: "column", gap: vars.space.xl })
