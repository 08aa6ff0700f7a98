/** The Webhooks page's own styles (the rest comes from the scanning and storage pages' styles it shares). */
import { style } from "@vanilla-extract/css"
import { vars } from "../ui/theme.css.ts"

/** The events checkboxes: a plain group under its legend (no browser fieldset frame). */
export const events = style({ border: "none", margin: 0, padding: 0, display: "flex", flexDirection: "column", gap: vars.space.sm, minWidth: 0 })
