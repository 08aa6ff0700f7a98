import { style } from "@vanilla-extract/css"
import { vars } from "../ui/theme.css.ts"

export const page = style({
  width: "100%",
  maxWidth: "1080px",
  margin: "0 auto",
  padding: `${vars.space.xxxl} ${vars.space.xl}`,
})
