/** Document-wide base styles: box sizing, body font and colours from the theme, focus outline fallback. */
import { globalStyle } from "@vanilla-extract/css"
import { vars } from "./theme.css.ts"

globalStyle("*, *::before, *::after", { boxSizing: "border-box" })

globalStyle("html, body", {
  margin: 0,
  padding: 0,
  minHeight: "100%",
})

globalStyle("body", {
  fontFamily: vars.font.body,
  fontSize: vars.font.sizeMd,
  lineHeight: vars.font.lineHeight,
  color: vars.color.text,
  background: vars.color.background,
  WebkitFontSmoothing: "antialiased",
  MozOsxFontSmoothing: "grayscale",
  textRendering: "optimizeLegibility",
})

globalStyle("#root", { minHeight: "100vh", display: "flex", flexDirection: "column" })

globalStyle("h1, h2, h3, h4, h5, h6", { margin: 0, lineHeight: vars.font.lineHeightTight, color: vars.color.text })

globalStyle("p", { margin: 0 })

globalStyle("button, input, select, textarea", { font: "inherit", color: "inherit" })

globalStyle("code, pre, kbd", { fontFamily: vars.font.mono })

globalStyle(":focus-visible", { outline: `2px solid ${vars.color.focusRing}`, outlineOffset: "2px" })

globalStyle("*, *::before, *::after", {
  "@media": {
    "(prefers-reduced-motion: reduce)": {
      animationDuration: "0.01ms !important",
      animationIterationCount: "1 !important",
      transitionDuration: "0.01ms !important",
    },
  },
})
