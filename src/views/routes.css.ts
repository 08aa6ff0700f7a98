import { style } from "@vanilla-extract/css"
import { vars } from "./ui/theme.css.ts"

export const loading = style({ display: "flex", justifyContent: "center", padding: vars.space.xxxl })
