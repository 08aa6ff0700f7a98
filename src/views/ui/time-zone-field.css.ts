import { style } from "@vanilla-extract/css"
import { buttonInControl, controlWithButton } from "./text-field.css.ts"

/** The input with its list button inside its right edge. */
export const control = controlWithButton
export const input = style({ width: "100%", paddingRight: "40px" })
export const toggle = buttonInControl
